"""Write validated settings back into a client config entry, and nothing else.

``export-env --client-config FILE --entry NAME --set K=V --unset K`` edits the entry's
environment where the client reads it: a key the entry's ``env`` holds (or any key,
when the entry has no ``envFile``) is written into ``env``; another key of an entry with
an ``envFile`` goes into that file, through the ``.env`` export (its lines kept byte for
byte). The result is validated first with the engine, as the server would start with
it: a configuration the server would refuse is not written.

The JSON is edited as text: only the span of the entry's ``env`` object changes (only
the changed values' spans, when no key is added or removed), so the order, the other
entries, the indentation and the comments elsewhere stay byte for byte. The file is
replaced the way a ``.env`` export replaces one: atomically, permission bits kept, the
previous version kept as ``NAME.bak`` (``.bak.1``, ... never overwriting an older one),
a symlink not followed unless asked, and not at all when it changed since it was read.
A file that will hold secret values inside a git checkout gets a warning, as the
dashboard's export gives one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..secrets import is_secret_key, note_secrets, scrub, secret_values
from .jsonc import Node
from .load import choose_entry, load_deployment, without_prompts
from .readers import DeploymentError, read_client_config, servers_holder

__all__ = ["WriteBackPlan", "git_checkout_of", "plan_write_back"]


def git_checkout_of(path: str) -> str | None:
    """The top of the git checkout holding ``path`` (None when it isn't in one)."""
    current = Path(os.path.abspath(path)).parent
    for folder in (current, *current.parents):
        try:
            if (folder / ".git").exists():
                return str(folder)
        except OSError:
            return None
    return None


class WriteBackPlan(BaseModel):
    """A validated write-back: the new file text, and the ``envFile`` plan if any."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    path: str
    entry: str
    original: str = Field(repr=False)
    text: str = Field(repr=False)
    #: The ``.env`` export of the entry's envFile (None when nothing goes there).
    env_file_plan: Any = Field(default=None, repr=False)
    #: Keys written into the entry's ``env`` and removed from it.
    set_in_entry: tuple[str, ...] = ()
    unset_in_entry: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    #: Values to mask in anything shown.
    secrets: frozenset[str] = Field(default=frozenset(), repr=False)
    policy: Any = Field(default=None, repr=False, exclude=True)

    @property
    def ok(self) -> bool:
        return not self.errors

    def diff(self) -> str:
        """Unified diff of the config file (and the envFile), secrets masked."""
        import difflib

        lines = difflib.unified_diff(
            self.original.splitlines(keepends=True), self.text.splitlines(keepends=True),
            fromfile=self.path, tofile=self.path)
        text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
        if self.env_file_plan is not None:
            text += self.env_file_plan.diff(masked=True)
        return scrub(text, self.secrets)

    def write(self, dest: str | None = None, *, in_place: bool = False, force: bool = False,
              follow_symlinks: bool = False) -> list[str]:
        """Write the config (and the envFile); one line per file written, for people."""
        from ..envfile.export import ExportError, ExportPlan

        if self.errors:
            raise DeploymentError("refused: the server would not start with this entry: "
                                  + "; ".join(self.errors))
        done = []
        if self.env_file_plan is not None and not in_place:
            raise DeploymentError("the entry's envFile is edited in place: use --in-place "
                                  "(or --dry-run to see the change)")
        try:
            if self.text != self.original or not in_place:
                plan = ExportPlan(source=self.path, original=self.original, text=self.text)
                done.append(plan.write(dest, in_place=in_place, force=force,
                                       follow_symlinks=follow_symlinks).describe())
            if self.env_file_plan is not None and self.env_file_plan.changed:
                done.append(self.env_file_plan.write(
                    in_place=True, follow_symlinks=follow_symlinks).describe())
        except ExportError as exc:
            raise DeploymentError(str(exc)) from None
        return done or [f"{self.path}: already up to date; nothing written"]


def plan_write_back(path: str | os.PathLike[str], entry: str | None = None, *,
                    set: Mapping[str, str] | None = None, unset: Iterable[str] = (),
                    format: str | None = None, environ: Mapping[str, str] | None = None,
                    config_changes: Mapping[str, Any] | None = None,
                    force: bool = False, text: str | None = None,
                    read_files: bool = True) -> WriteBackPlan:
    """Plan writing ``set``/``unset`` into entry ``entry`` of the client config at ``path``.

    ``config_changes`` are :class:`~localfs_explorer.config.ServerConfig` fields that
    only inform the validation (a target host, a profile). Raises
    :class:`DeploymentError` for a file or entry that can't be edited, and, unless
    ``force``, for an edit that would write outside the config's own folder (an
    ``envFile`` naming ``/etc/environment``) or put a plain value where VS Code prompts
    for one (``${input:...}``); with ``force`` those are warnings. ``text``: the file's
    contents when they came from elsewhere (an upload; the plan's ``text`` is the new
    file to hand back); ``read_files``: whether the entry's ``envFile`` may be read.
    """
    from ..config import resolve_config
    from ..errors import LocalfsError

    name = os.fspath(path)
    edits = dict(set or {})
    removed = [k for k in unset if k not in edits]
    for key in [*edits, *removed]:
        if not _is_name(key):
            raise DeploymentError(f"{key!r} is not a valid variable name (letters, digits and "
                                  "'_', not starting with a digit)")
    config = read_client_config(name, format, text=text)
    if config.tree is None:
        raise DeploymentError(f"{name}: writing back into an mcp-hangar YAML config is not "
                              "supported; edit its env by hand")
    chosen = choose_entry(config, entry, environ)
    # A variable VS Code prompts for stays a prompt in the file: it is validated as
    # written, and only the keys being edited need values.
    prompted = [k for k, v in chosen.env.items() if "${input:" in v]
    found = load_deployment(name, chosen.name, config.format, environ=environ,
                            overridden=[*edits, *prompted], text=text,
                            read_files=read_files)
    if found.container:
        raise DeploymentError(f"{found.where}: entry {found.entry!r} runs docker: its env is "
                              "the docker command's, not the server's; edit its -e options")
    from ..server import get_server

    if not get_server(found.server).env_file:
        raise DeploymentError(f"{found.where}: entry {found.entry!r} starts {found.server}, "
                              "which takes no settings from its environment")
    to_env = {k: v for k, v in edits.items() if k in chosen.env or not chosen.env_file}
    to_file = {k: v for k, v in edits.items() if k not in to_env}
    drop_env = [k for k in removed if k in chosen.env]
    drop_file = [k for k in removed if found.env_file is not None]
    forced: list[str] = []
    replaced_prompts = [k for k in to_env if "${input:" in chosen.env.get(k, "")]
    if replaced_prompts:
        what = (f"{found.where}: entry {found.entry!r}: {', '.join(replaced_prompts)} "
                "is a VS Code prompt (${input:...}), whose answer VS Code keeps to itself; "
                "writing the value replaces the prompt with it in the file")
        if not force:
            raise DeploymentError(f"{what}: refused (give --force to write it anyway)")
        forced.append(what)
    if (to_file or drop_file) and found.env_file is not None:
        own = _own_folder(name)
        if not _inside(found.env_file, own):
            what = (f"{found.where}: entry {found.entry!r}: its envFile {found.env_file} is "
                    f"outside the config's own folder {own}")
            if not force:
                raise DeploymentError(f"{what}: writing there is refused (give --force to "
                                      "write it anyway)")
            forced.append(f"{what}: written because of --force")

    if (to_file or (drop_file and found.env_file)) and not read_files:
        raise DeploymentError(f"{found.where}: entry {found.entry!r}: these settings live in "
                              "its envFile, which is not read here; edit it by hand")
    env_file_plan = None
    if to_file or (drop_file and found.env_file):
        from ..envfile.export import ExportError, export_env

        try:
            env_file_plan = export_env(found.env_file, set=to_file, unset=drop_file,
                                       validate=lambda env: None)
        except ExportError as exc:
            raise DeploymentError(str(exc)) from None
        if not env_file_plan.changed:
            env_file_plan = None

    # Validate what the server would start with: the entry's environment with the edits.
    settings = {**found.settings(), **edits}
    for key in removed:
        settings.pop(key, None)
    try:
        resolved = resolve_config(found.server_config(
            settings=settings, **dict(config_changes or {})))
    except LocalfsError as exc:
        raise DeploymentError(str(exc)) from None
    policy = resolved.policy
    # Every entry's secrets: a diff's context lines may show a neighbouring entry.
    others = [value for each in config.entries
              for value in secret_values(without_prompts(each.env))]
    for each in config.entries:
        note_secrets(without_prompts(each.env))
    secrets = frozenset([*secret_values(without_prompts(settings)),
                         *secret_values(without_prompts(found.env)), *others])
    errors = tuple(scrub(e, secrets) for e in policy.errors)
    warnings = [scrub(w, secrets) for w in [*config.warnings, *forced, *policy.warnings]]

    text = config.text
    if to_env or drop_env:
        text = _edit_entry_env(config.text, config.tree, config.format, chosen.name,
                               to_env, drop_env, warnings)
    if config.format in ("claude-code", "vscode", "cursor", "hangar"):
        for key, value in to_env.items():
            if "${" in value:
                warnings.append(f"{key}: the value holds '${{', which "
                                f"{found.client} expands when it starts the server")
    written_secrets = [k for k, v in {**to_env, **to_file}.items() if v and is_secret_key(k)]
    holds_secrets = written_secrets or any(is_secret_key(k) and v for k, v in
                                           chosen.env.items() if k not in drop_env)
    checkout = git_checkout_of(name)
    if holds_secrets and checkout and text != config.text:
        warnings.append(f"{name} is inside the git checkout {checkout} and its entry holds "
                        "secret values: keep it out of commits (or keep the secrets in an "
                        "envFile outside the checkout)")
    return WriteBackPlan(
        path=name, entry=chosen.name, original=config.text, text=text,
        env_file_plan=env_file_plan, set_in_entry=tuple(to_env), unset_in_entry=tuple(drop_env),
        errors=errors, warnings=tuple(warnings), secrets=secrets, policy=policy,
    )


def _own_folder(path: str) -> str:
    """The folder a config's edits may reach: the workspace for a file in its ``.vscode``
    or ``.cursor`` folder, else the config's own folder."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.basename(folder) in (".vscode", ".cursor"):
        folder = os.path.dirname(folder)
    return os.path.realpath(folder)


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` (its real location, symlinks followed) is inside ``folder``."""
    real = os.path.realpath(path)
    try:
        return os.path.commonpath([real, folder]) == folder
    except ValueError:  # another drive
        return False


def _is_name(key: str) -> bool:
    return bool(key) and (key[0].isalpha() or key[0] == "_") and all(
        c.isalnum() or c == "_" for c in key) and key.isascii()


def _indent_before(text: str, pos: int) -> str | None:
    """The whitespace from the line's start to ``pos`` (None when other text is there)."""
    start = text.rfind("\n", 0, pos) + 1
    head = text[start:pos]
    return head if head.strip() == "" else None


def _edit_entry_env(text: str, tree: Node, fmt: str, entry: str, to_env: Mapping[str, str],
                    drop: list[str], warnings: list[str]) -> str:
    key = "servers" if fmt == "vscode" else "mcpServers"
    # The file's own line ending, so a Windows file stays one.
    newline = "\r\n" if "\r\n" in text else "\n"
    servers = servers_holder(tree, fmt).get(key)
    assert servers is not None
    member = servers.member(entry)
    assert member is not None
    entry_node = member.value
    env_member = entry_node.member("env")
    entry_indent = _indent_before(text, member.key_start) or ""
    first = entry_node.members[0] if entry_node.members else None
    member_indent = (_indent_before(text, first.key_start) if first else None)
    if member_indent is None:
        member_indent = entry_indent + "  "
    unit = member_indent[len(entry_indent):] if member_indent.startswith(entry_indent) \
        and len(member_indent) > len(entry_indent) else "  "

    def dump(value: str) -> str:
        return json.dumps(value, ensure_ascii=False)

    if env_member is None:
        if not to_env:
            return text
        body = _object_text([f"{dump(k)}: {dump(v)}" for k, v in to_env.items()],
                            member_indent, unit, multiline=True, newline=newline)
        last = entry_node.members[-1]
        insertion = f",{newline}{member_indent}\"env\": {body}"
        return text[:last.value.end] + insertion + text[last.value.end:]

    env_node = env_member.value
    if env_node.kind != "object":
        raise DeploymentError(f"entry {entry!r}: 'env' is not an object")
    keys = [m.key for m in env_node.members]
    duplicated = len(set(keys)) != len(keys)
    adding = [k for k in to_env if k not in keys]
    if not adding and not drop and not duplicated:
        # Only values change: replace each value's span, nothing else.
        out = text
        for m in sorted(env_node.members, key=lambda m: m.value.start, reverse=True):
            if m.key in to_env:
                out = out[:m.value.start] + dump(to_env[m.key]) + out[m.value.end:]
        return out
    # Keys come or go: the env object's span is written again, members in their order,
    # each kept member's source text as it was (a changed one keeps its key's text), new
    # ones at the end.
    items: list[str] = []
    seen: dict[str, int] = {}
    for m in env_node.members:
        if m.key in drop:
            continue
        if m.key in to_env:
            item = text[m.key_start:m.value.start] + dump(to_env[m.key])
        else:
            item = text[m.key_start:m.value.end]
        if m.key in seen:  # JSON.parse keeps the last of a repeated key: so does this
            items[seen[m.key]] = item
            continue
        seen[m.key] = len(items)
        items.append(item)
    items += [f"{dump(k)}: {dump(v)}" for k, v in to_env.items() if k not in seen]
    span = text[env_node.start:env_node.end]
    if "//" in _outside_strings(span) or "/*" in _outside_strings(span):
        warnings.append(f"entry {entry!r}: comments inside its env object are not kept")
    multiline = "\n" in span or not env_node.members
    # The closing brace where it was (when on a line of its own), else under the key.
    env_indent = _indent_before(text, env_node.end - 1) if env_node.members else None
    if env_indent is None:
        env_indent = _indent_before(text, env_member.key_start)
    if env_indent is None:
        env_indent = member_indent
    inner = None
    if env_node.members:
        inner = _indent_before(text, env_node.members[0].key_start)
    body = _object_text(items, env_indent, unit, multiline=multiline, inner=inner,
                        newline=newline)
    return text[:env_node.start] + body + text[env_node.end:]


def _outside_strings(text: str) -> str:
    """``text`` with JSON strings blanked (to look for comments)."""
    import re

    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)


def _object_text(items: list[str], outer: str, unit: str, *, multiline: bool,
                 inner: str | None = None, newline: str = "\n") -> str:
    """``{...}`` holding ``items`` (each ``"KEY": VALUE`` as JSON source)."""
    if not items:
        return "{}"
    if not multiline:
        return "{" + ", ".join(items) + "}"
    inner = inner if inner is not None else outer + unit
    return ("{" + newline + f",{newline}".join(inner + item for item in items) + newline
            + outer + "}")


def run_write_back(args: Any, out: Any, err: Any, config_changes: Mapping[str, Any]) -> int:
    """``export-env --client-config``: plan, show or write, like a ``.env`` export."""
    plan = plan_write_back(args.client_config, args.entry, set=dict(args.set),
                           unset=list(args.unset), format=args.client_format,
                           config_changes=config_changes, force=args.force)
    for warning in plan.warnings:
        err.write(f"warning: {warning}\n")
    where = f"{plan.path} entry {plan.entry!r}"
    if plan.set_in_entry or plan.unset_in_entry:
        parts = [f"set {', '.join(plan.set_in_entry)}" if plan.set_in_entry else "",
                 f"removed {', '.join(plan.unset_in_entry)}" if plan.unset_in_entry else ""]
        err.write(f"{where}: env: {'; '.join(p for p in parts if p)}\n")
    if getattr(args, "json", False):
        if not args.dry_run:
            raise DeploymentError("--json goes with --dry-run (a write reports on stderr)")
        out.write(json.dumps({"source": plan.path, "entry": plan.entry, "ok": plan.ok,
                              "changed": plan.text != plan.original
                              or plan.env_file_plan is not None,
                              "set": list(plan.set_in_entry),
                              "unset": list(plan.unset_in_entry), "diff": plan.diff(),
                              "errors": list(plan.errors), "warnings": list(plan.warnings)},
                             ensure_ascii=False) + "\n")
        return 0 if plan.ok else 2
    if args.dry_run:
        out.write(plan.diff() or "no changes\n")
        if not plan.ok:
            err.write("export-env: refused: the server would not start with this entry: "
                      + "; ".join(plan.errors) + "\n")
            return 2
        return 0
    for line in plan.write(args.output, in_place=args.in_place, force=args.force,
                           follow_symlinks=args.follow_symlinks):
        err.write(line + "\n")
    return 0
