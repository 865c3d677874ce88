"""Variable expansion in a client config entry, done the way each client does it.

- **Claude Desktop** expands nothing: ``${HOME}`` reaches the server as those seven
  characters.
- **Claude Code** (``.mcp.json``) expands ``${VAR}`` and ``${VAR:-default}`` from its
  own environment in ``command``, ``args``, ``env``, ``url`` and ``headers``; a
  variable that is not set and has no default makes it refuse the config, so it is an
  error here. ``$VAR`` without braces is left as written.
- **mcp-hangar** expands the same two forms everywhere in its YAML, and refuses an unset
  variable with no default the same way.
- **VS Code** resolves ``${env:VAR}`` (empty when unset), ``${workspaceFolder}``,
  ``${workspaceFolderBasename}``, ``${userHome}``, ``${pathSeparator}`` and ``${/}``;
  ``${input:ID}`` is a prompt whose answer VS Code keeps to itself, so it is reported,
  never guessed; anything else (``${config:...}``, ``${command:...}``, ``${file}``)
  depends on the editor's state and is reported the same way.
- **Cursor** resolves ``${env:NAME}``, ``${userHome}``, ``${workspaceFolder}``,
  ``${workspaceFolderBasename}``, ``${pathSeparator}`` and ``${/}`` in ``command``,
  ``args``, ``env``, ``url`` and ``headers``; other text is left as written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..secrets import is_secret_setting

__all__ = ["Expander", "Unresolved"]

#: ``${NAME}`` and ``${NAME:-default}`` (Claude Code, mcp-hangar).
_SHELL_STYLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
#: ``${anything}`` (VS Code, Cursor): the variable's name is inside.
_EDITOR_STYLE = re.compile(r"\$\{([^}]*)\}")


@dataclass(frozen=True)
class Unresolved:
    """A variable the explorer can't know: where it is and what it asks for."""

    #: The field it is in (``args``, ``env.API_KEY``, ``cwd``...).
    field: str
    #: The variable as written (``${input:api-key}``).
    variable: str
    #: Why it can't be resolved.
    reason: str
    #: For ``${input:ID}``: the ID.
    input_id: str | None = None


@dataclass
class Expander:
    """Expands one entry's strings for ``format``; collects what it couldn't resolve.

    ``environ`` is the client's environment (for the CLI: this process's), ``workspace``
    the folder the client has open (None when the file says nothing about one), and
    ``inputs`` answers to VS Code's ``${input:ID}`` prompts when the caller has them.
    """

    format: str
    environ: Mapping[str, str]
    workspace: str | None = None
    inputs: Mapping[str, str] = field(default_factory=dict)
    unresolved: list[Unresolved] = field(default_factory=list)
    #: Variables that were used, by field, for the provenance.
    used: dict[str, list[str]] = field(default_factory=dict)
    #: Values taken from a secret variable (``${GITHUB_TOKEN}``, a URL with a password):
    #: secret wherever they land (a root, a working directory), so masked everywhere.
    secrets: set[str] = field(default_factory=set)
    _secret_values: frozenset[str] | None = field(default=None, repr=False)

    def _from_environ(self, name: str) -> str | None:
        value = self.environ.get(name)
        if value is not None and (is_secret_setting(name, value)
                                  or value in self._environ_secrets()):
            self.secrets.add(value)
        return value

    def _environ_secrets(self) -> frozenset[str]:
        """The values of the environment's secret variables: another variable holding
        one of them (``ALIAS=$GITHUB_TOKEN``) holds a secret too."""
        if self._secret_values is None:
            self._secret_values = frozenset(
                v for k, v in self.environ.items() if v and is_secret_setting(k, v))
        return self._secret_values

    def expand(self, text: str, where: str) -> str:
        if self.format in ("claude-code", "hangar"):
            return _SHELL_STYLE.sub(lambda m: self._shell(m, where), text)
        if self.format in ("vscode", "cursor"):
            return _EDITOR_STYLE.sub(lambda m: self._editor(m, where), text)
        return text

    def _note(self, where: str, variable: str) -> None:
        self.used.setdefault(where, []).append(variable)

    def _shell(self, match: re.Match[str], where: str) -> str:
        name, default = match.group(1), match.group(2)
        self._note(where, match.group(0))
        value = self._from_environ(name)
        if value is not None:
            return value
        if default is not None:
            return default
        self.unresolved.append(Unresolved(
            where, match.group(0), f"{name} is not set and has no default (write "
            f"${{{name}:-}} for an empty value)"))
        return match.group(0)

    def _editor(self, match: re.Match[str], where: str) -> str:
        body = match.group(1)
        variable = match.group(0)
        kind, _, arg = body.partition(":")
        if kind == "env" and arg:
            self._note(where, variable)
            return self._from_environ(arg) or ""
        if body in ("workspaceFolder", "workspaceFolderBasename"):
            self._note(where, variable)
            if self.workspace is None:
                self.unresolved.append(Unresolved(
                    where, variable, "the file is not in a workspace's .vscode or .cursor "
                    "folder, so the workspace folder is not known"))
                return variable
            if body == "workspaceFolder":
                return self.workspace
            return os.path.basename(self.workspace.rstrip(os.sep)) or self.workspace
        if body == "userHome":
            self._note(where, variable)
            home = self.environ.get("HOME") or os.path.expanduser("~")
            return home
        if body in ("pathSeparator", "/"):
            self._note(where, variable)
            return os.sep
        if self.format == "cursor":
            return variable  # Cursor resolves only the names above
        if kind == "input" and arg:
            self._note(where, variable)
            if arg in self.inputs:
                return self.inputs[arg]
            self.unresolved.append(Unresolved(
                where, variable, "VS Code prompts for it and keeps the answer to itself",
                input_id=arg))
            return variable
        self.unresolved.append(Unresolved(
            where, variable, "it depends on the editor's state (open file, settings, "
            "commands), which the file doesn't hold"))
        return variable
