"""Launchers that run a server from a local folder, peeled off before the server is named.

:mod:`.launch` tells which server a command line starts from a package name or an image.
Some launches say more than the name: they run a checkout or an installed copy on this
machine, and that copy decides the version and, for some, the startup directory:

- ``uv run --directory DIR CMD``: uv changes into DIR before running CMD, so DIR is the
  server's startup directory (where it reads its ``.env`` and deny-list paths from), and
  the version is the one DIR's ``pyproject.toml`` declares, not "whatever uvx installs".
  ``uv run --project DIR`` runs DIR's project without changing directory.
- ``npm --prefix DIR exec PKG`` (and ``npx --prefix DIR PKG``): the copy installed under
  ``DIR/node_modules``; its ``package.json`` has the version.
- ``node path/to/dist/index.js``: a local build, recognised by the nearest
  ``package.json`` above the script (its ``name`` and ``version``).

:func:`unwrap` never names a server: it rewrites such a launch into the package form
:mod:`.launch` already reads (``npx NAME@VERSION ARGS``, ``uvx NAME==VERSION ARGS``) and
says where the version and the directory came from. :func:`package_words` names what an
unrecognised command runs (``npx -y @scope/pkg``), for findings about it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..errors import LocalfsError
from ..userfiles import parse_toml

__all__ = ["Unwrapped", "package_words", "unwrap"]

#: A package.json or pyproject.toml is small; a bigger file is not read.
_MAX_METADATA_BYTES = 1024 * 1024
#: How far above a script a package.json is looked for (``dist/lib/x.js`` sits 2 deep).
_PACKAGE_JSON_LEVELS = 4

#: Options of ``uv run`` that take a value (the rest used in client configs are flags).
_UV_RUN_VALUE_OPTIONS = frozenset({
    "--with", "--with-editable", "--with-requirements", "--python", "-p", "--index",
    "--index-url", "--default-index", "--extra-index-url", "--find-links", "-f",
    "--cache-dir", "--directory", "--project", "--config-file", "--env-file", "--package",
    "--extra", "--group", "--only-group", "--no-group", "--python-platform", "--from",
    "--constraints", "--overrides", "-c",
})
#: Options of npm/npx/pnpm/bunx that take a value.
_NPM_VALUE_OPTIONS = frozenset({"--prefix", "-C", "-p", "--package", "--cache", "--registry",
                                "--userconfig", "-c", "--call", "-w", "--workspace"})


@dataclass
class Unwrapped:
    """A command line with its local launcher read: what it runs, and what the launcher
    said about the copy it runs."""

    #: The command line to identify (the original one when nothing was unwrapped).
    argv: list[str]
    #: The directory the launcher starts the server in (``uv run --directory``), or None.
    startup_dir: str | None = None
    #: The version of the local copy (its package metadata), or None.
    version: str | None = None
    #: Where :attr:`version` came from (``/src/x/pyproject.toml``).
    version_from: str | None = None
    #: How the launcher was read, for provenance (``uv run --directory /src/x``).
    how: str = ""
    notes: list[str] = field(default_factory=list)


def _base(word: str) -> str:
    name = word.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-4] if name.lower().endswith((".exe", ".cmd")) else name


def _read_small(path: str) -> str | None:
    """The text of a small regular file, or None (missing, a folder, too big, unreadable)."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > _MAX_METADATA_BYTES:
            return None
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def _package_json(path: str) -> tuple[str, str | None] | None:
    """``(name, version)`` of a package.json, or None when it names no package."""
    text = _read_small(path)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    version = data.get("version")
    return data["name"], version if isinstance(version, str) else None


class _NotAProject(LocalfsError):
    """A pyproject.toml that can't be read: the launch is then not recognised by it."""


def _pyproject(directory: str) -> tuple[str, str | None] | None:
    """``(name, version)`` of the project in ``directory``, or None."""
    text = _read_small(os.path.join(directory, "pyproject.toml"))
    if text is None:
        return None
    try:
        # The shared reader: tomllib, or tomli on Python 3.10, with the nesting bounds.
        data = parse_toml(text, "pyproject.toml", _NotAProject)
    except _NotAProject:
        return None
    project = data.get("project") if isinstance(data, dict) else None
    if not isinstance(project, dict) or not isinstance(project.get("name"), str):
        return None
    version = project.get("version")
    return project["name"], version if isinstance(version, str) else None


def _split_options(args: Sequence[str], value_options: frozenset[str]
                   ) -> tuple[dict[str, str], int | None]:
    """The options before the first positional argument (``--opt=value`` too) and that
    argument's index (None when there is none)."""
    found: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return found, (i + 1 if i + 1 < len(args) else None)
        if arg.startswith("-"):
            name, has_inline, inline = arg.partition("=")
            if has_inline and name.startswith("--"):
                found[name] = inline
                i += 1
            elif arg in value_options:
                if i + 1 < len(args):
                    found[arg] = args[i + 1]
                i += 2
            else:
                found[arg] = ""
                i += 1
            continue
        return found, i
    return found, None


def _absolute(directory: str, base: str) -> str:
    return os.path.normpath(os.path.join(base, os.path.expanduser(directory)))


def unwrap(argv: Sequence[str], base: str, *, read_files: bool = True,
           known: Callable[[Sequence[str]], bool] | None = None) -> Unwrapped:
    """Read a local launcher off ``argv``; ``base`` anchors relative directories (where
    the client starts the command). ``read_files`` False reads no metadata (a page
    served to others may not open this machine's files): the launch is left as it is.
    ``known(argv)`` says whether a rewritten command starts a modelled server; a local
    copy of anything else is left as written."""
    words = list(argv)
    if not words:
        return Unwrapped(argv=words)
    program, rest = _base(words[0]), words[1:]
    if program == "uv" and rest[:1] == ["run"]:
        return _uv_run(words, rest[1:], base, read_files, known)
    if program in ("npm", "npx", "pnpm") and ("--prefix" in rest or "-C" in rest
                                            or any(a.startswith("--prefix=") for a in rest)):
        return _npm_prefix(words, program, rest, base, read_files, known)
    if program in ("node", "nodejs", "bun") and read_files:
        return _node_script(words, program, rest, base, known)
    return Unwrapped(argv=words)


def _accept(rewritten: list[str], known: Callable[[Sequence[str]], bool] | None) -> bool:
    return known is None or known(rewritten)


def _uv_run(words: list[str], rest: list[str], base: str, read_files: bool,
            known: Callable[[Sequence[str]], bool] | None) -> Unwrapped:
    options, start = _split_options(rest, _UV_RUN_VALUE_OPTIONS)
    if start is None:
        return Unwrapped(argv=words)
    command = rest[start:]
    directory = options.get("--directory")
    project = options.get("--project")
    startup = _absolute(directory, base) if directory else None
    # uv finds the project from --project, else from the directory it changed into.
    project_dir = _absolute(project, startup or base) if project else startup
    found = _pyproject(project_dir) if project_dir and read_files else None
    how = "uv run" + (f" --directory {directory}" if directory else "") + \
        (f" --project {project}" if project else "")
    if found is not None:
        name, version = found
        pinned = [_base(command[0]), *command[1:]]
        rewritten = ["uvx", "--from", f"{name}=={version}" if version else name, *pinned]
        if version and _accept(rewritten, known):
            return Unwrapped(argv=rewritten, startup_dir=startup, version=version,
                             version_from=os.path.join(project_dir or "", "pyproject.toml"),
                             how=how)
    notes = []
    if project_dir and read_files and found is None:
        notes.append(f"{how}: no pyproject.toml naming a project in {project_dir} on this "
                     "machine, so the version the checkout runs can't be told")
    # The command itself still names the server (launch.py reads `uv run ... CMD`).
    return Unwrapped(argv=words, startup_dir=startup, how=how, notes=notes)


def _npm_prefix(words: list[str], program: str, rest: list[str], base: str,
                read_files: bool, known: Callable[[Sequence[str]], bool] | None
                ) -> Unwrapped:
    options, start = _split_options(rest, _NPM_VALUE_OPTIONS)
    prefix = options.get("--prefix") or options.get("-C")
    after = rest[start:] if start is not None else []
    if program in ("npm", "pnpm") and after[:1] in (["exec"], ["x"], ["dlx"]):
        more, inner = _split_options(after[1:], _NPM_VALUE_OPTIONS)
        options.update(more)
        after = after[1 + inner:] if inner is not None else []
    elif program in ("npm", "pnpm"):
        return Unwrapped(argv=words)  # npm --prefix DIR start: a script we can't read
    package = options.get("-p") or options.get("--package") or (after[0] if after else None)
    if not prefix or not package:
        return Unwrapped(argv=words)
    server_args = after[1:] if after else []
    how = f"{program} --prefix {prefix}"
    plain = ["npx", "-y", package, *server_args]
    if not read_files:
        return Unwrapped(argv=plain, how=how)
    name = package if package.startswith("@") or "@" not in package \
        else package.rsplit("@", 1)[0]
    if name.startswith("@") and name.count("@") > 1:
        name = name.rsplit("@", 1)[0]
    modules = os.path.join(_absolute(prefix, base), "node_modules")
    command = os.path.join(modules, ".bin", name)
    if "/" not in name and os.path.exists(command):
        # A command the install provides (its bin): the script it links to names the
        # package, as `node` on that script would.
        script = os.path.realpath(command)
        local = _node_script(["node", script, *server_args], "node",
                             [script, *server_args], base, known)
        if local.version:
            return Unwrapped(argv=local.argv, version=local.version,
                             version_from=local.version_from,
                             how=f"{how}, the command {name} installed there")
    where = os.path.join(modules, *name.split("/"), "package.json")
    found = _package_json(where)
    if found is not None and found[1]:
        rewritten = ["npx", "-y", f"{found[0]}@{found[1]}", *server_args]
        if _accept(rewritten, known):
            # npm 11.19.1 finds the package under DIR but runs its command through a
            # shell whose PATH lacks DIR/node_modules/.bin: started from another
            # directory, the command is "not found" and no server starts.
            return Unwrapped(argv=rewritten, version=found[1], version_from=where, how=how,
                             notes=[f"{how} exec {name}: npm (seen with 11.19.1) runs the "
                                    f"package's command without {prefix}/node_modules/.bin "
                                    "on PATH, so started from any other directory the "
                                    "server doesn't start ('not found'); name the "
                                    "command the package installs instead of the package"])
    return Unwrapped(argv=plain, how=how, notes=[
        f"{how}: {name} is not installed under {prefix} on this machine, so the version "
        "it runs can't be told"])


def _node_script(words: list[str], program: str, rest: list[str], base: str,
                 known: Callable[[Sequence[str]], bool] | None) -> Unwrapped:
    _, start = _split_options(rest, frozenset({"-r", "--require", "--import"}))
    if start is None:
        return Unwrapped(argv=words)
    script = _absolute(rest[start], base)
    folder = os.path.dirname(script)
    for _ in range(_PACKAGE_JSON_LEVELS):
        where = os.path.join(folder, "package.json")
        found = _package_json(where)
        if found is not None:
            name, version = found
            spec = f"{name}@{version}" if version else name
            rewritten = ["npx", "-y", spec, *rest[start + 1:]]
            if _accept(rewritten, known):
                return Unwrapped(argv=rewritten, version=version, version_from=where,
                                 how=f"{program} {rest[start]}, a local build of {name}")
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return Unwrapped(argv=words)


#: Launchers whose first positional argument is the package they run.
_PACKAGE_RUNNERS = {"npx": 0, "bunx": 0, "pnpx": 0, "uvx": 0}
_SUBCOMMAND_RUNNERS = {("npm", "exec"), ("npm", "x"), ("pnpm", "dlx"), ("pnpm", "exec"),
                       ("uv", "run"), ("pipx", "run"), ("bun", "x"), ("yarn", "dlx")}


def package_words(argv: Sequence[str]) -> str:
    """What a command line runs, up to the package or image it names: ``npx -y
    @scope/pkg``, ``uvx some-server``, ``docker run IMAGE``, ``python server.py``; the
    arguments after it are left out (one of them may hold a secret), shown as ``...``."""
    shown = _package_words(argv)
    return shown + " ..." if len(shown.split()) < len(argv) else shown


def _package_words(argv: Sequence[str]) -> str:
    words = list(argv)
    if not words:
        return ""
    program, rest = _base(words[0]), words[1:]
    head = [words[0]]
    if program.lower() == "cmd" and rest[:1] and rest[0].lower() in ("/c", "/k"):
        return f"{words[0]} {rest[0]} {_package_words(rest[1:])}".rstrip()
    if (program, rest[0] if rest else "") in _SUBCOMMAND_RUNNERS:
        head, rest = [words[0], rest[0]], rest[1:]
    elif program in ("docker", "podman") and rest[:1] == ["run"]:
        head, rest = [words[0], "run"], rest[1:]
        from .launch import _DOCKER_VALUE_OPTIONS

        _, start = _split_options(rest, _DOCKER_VALUE_OPTIONS)
        return " ".join([*head, *([rest[start]] if start is not None else [])])
    elif program not in _PACKAGE_RUNNERS and not program.startswith(("python", "node", "bun",
                                                                     "deno")):
        return words[0]
    options, start = _split_options(rest, _NPM_VALUE_OPTIONS | _UV_RUN_VALUE_OPTIONS)
    if start is None:
        return " ".join(words[:1] + [a for a in rest if a.startswith("-")][:3])
    shown = [a for a in rest[:start] if a.startswith("-") and options.get(a, "") == ""]
    named = [f"{k} {v}" for k, v in options.items() if v and k in ("-p", "--package", "--from",
                                                                     "--with", "-m")]
    if rest[start - 1:start] == ["-m"] or "-m" in options:
        module = options.get("-m") or rest[start]
        return " ".join([*head, "-m", module])
    return " ".join([*head, *shown, *named, rest[start]])
