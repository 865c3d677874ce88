"""Read an MCP client's config file into its server entries, as the file states them.

Five formats, one shape out (:class:`ClientEntry`, before any variable expansion):

- ``claude-desktop``: ``claude_desktop_config.json``, ``{"mcpServers": {NAME: {command,
  args, env}}}``, strict JSON.
- ``claude-code``: a project's ``.mcp.json``, the same shape plus ``type``/``url``/
  ``headers`` for remote servers, strict JSON.
- ``cursor``: ``.cursor/mcp.json`` (or ``~/.cursor/mcp.json``), the same shape plus
  ``envFile``; Cursor is VS Code underneath, so comments and trailing commas are read.
- ``vscode``: ``.vscode/mcp.json``, ``{"servers": {NAME: {type, command, args, env,
  envFile, cwd}}, "inputs": [...]}``, JSON with comments.
- ``hangar``: an mcp-hangar YAML config, ``mcp_servers: {ID: {mode, command: [...],
  args, env, image, volumes, endpoint}}``.
- ``claude-extension``: the settings of one of Claude Desktop's built-in extensions,
  ``Claude Extensions Settings/EXTENSION-ID.json``, ``{"isEnabled": ..., "userConfig":
  {...}}``: one entry, the server a registered server says that extension runs
  (:attr:`~localfs_explorer.server.Server.desktop_extensions`).

The format is recognised from the file's name and folder first, then its shape
(:func:`detect_format`): a client reads its own file by its own rules whatever the file
holds. Every problem is a :class:`DeploymentError` whose message starts ``FILE:LINE:``.
"""

from __future__ import annotations

import os
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from ..errors import LocalfsError
from ..userfiles import read_text
from .jsonc import JsonSyntaxError, Node, collector_paused, parse, plain, repeated_keys

__all__ = [
    "FORMATS",
    "ClientConfigFile",
    "ClientEntry",
    "ClientFormat",
    "DeploymentError",
    "detect_format",
    "read_client_config",
]

ClientFormat = Literal["claude-desktop", "claude-code", "cursor", "vscode", "hangar",
                       "claude-extension"]
#: Every format, in the order ``--client-format`` lists them.
FORMATS: tuple[str, ...] = ("claude-desktop", "claude-code", "cursor", "vscode", "hangar",
                            "claude-extension")
#: What each format is called in messages.
CLIENT_NAMES: dict[str, str] = {
    "claude-desktop": "Claude Desktop", "claude-code": "Claude Code", "cursor": "Cursor",
    "vscode": "VS Code", "hangar": "mcp-hangar",
    "claude-extension": "Claude Desktop (built-in extension)",
}
#: The folder Claude Desktop keeps its built-in extensions' settings in.
EXTENSION_SETTINGS_FOLDER = "Claude Extensions Settings"
#: Formats whose client reads JSON with comments and trailing commas.
JSONC_FORMATS = frozenset({"vscode", "cursor"})
#: A client config is small; anything bigger is not one.
MAX_CONFIG_BYTES = 4 * 1024 * 1024


class DeploymentError(LocalfsError):
    """A client config or entry that can't be used; one line, ``FILE:LINE:`` first."""


class ClientEntry(BaseModel):
    """One server entry as the file states it (no variable expanded yet)."""

    model_config = ConfigDict(frozen=True)

    name: str
    #: The line of the entry's name in the file (None for formats without lines).
    line: int | None = None
    #: ``type`` (``stdio``, ``http``, ``sse``) or hangar's ``mode``.
    type: str | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict, repr=False)
    env_file: str | None = None
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict, repr=False)
    #: hangar's docker mode: the image and its volumes (``HOST:CONTAINER[:ro]``).
    image: str | None = None
    volumes: list[str] = Field(default_factory=list)
    #: Lines of the fields, for messages (``command``, ``args``, ``env``, ``env.KEY``...).
    lines: dict[str, int] = Field(default_factory=dict)
    #: Why the entry can't be used as it stands (a field of the wrong type).
    problems: list[str] = Field(default_factory=list)
    #: The client doesn't start this entry (an extension turned off); a problem says so.
    disabled: bool = False

    def line_of(self, field: str) -> int | None:
        """The line of ``field`` (falling back to the entry's own line)."""
        return self.lines.get(field, self.line)


class ClientConfigFile(BaseModel):
    """A client config, read: its format and its entries in file order."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    path: str
    format: ClientFormat
    entries: list[ClientEntry]
    #: VS Code's ``inputs``: id -> the input's definition.
    inputs: dict[str, dict[str, Any]] = Field(default_factory=dict)
    #: The file's text, for the write-back.
    text: str = Field(default="", repr=False)
    #: The parsed JSON tree (None for YAML), for the write-back.
    tree: Any = Field(default=None, repr=False, exclude=True)
    #: What the client reads differently than a reader might expect (a key given twice,
    #: a byte-order mark), one ``FILE:LINE: ...`` line each.
    warnings: list[str] = Field(default_factory=list)

    def entry(self, name: str) -> ClientEntry | None:
        """The entry named ``name`` (names are unique: a repeated one is its last)."""
        return next((e for e in self.entries if e.name == name), None)


def _where(path: str, line: int | None) -> str:
    return f"{path}:{line}" if line else path


def client_by_name(path: str) -> ClientFormat | None:
    """The client that reads the file at ``path``, from its name and folder alone:
    ``claude_desktop_config.json`` Claude Desktop's, ``.mcp.json`` Claude Code's,
    ``.cursor/mcp.json`` Cursor's, ``.vscode/mcp.json`` and the user profile's
    ``Code/User/mcp.json`` VS Code's, ``Claude Extensions Settings/*.json`` an extension's.
    None when the name says nothing."""
    name = os.path.basename(path)
    folder_path = os.path.dirname(os.path.abspath(path))
    folder = os.path.basename(folder_path)
    parent = os.path.basename(os.path.dirname(folder_path))
    if name == "claude_desktop_config.json":
        return "claude-desktop"
    if name == ".mcp.json":
        return "claude-code"
    if folder == EXTENSION_SETTINGS_FOLDER and name.endswith(".json"):
        return "claude-extension"
    if name == "mcp.json" and folder == ".cursor":
        return "cursor"
    if name == "mcp.json" and (folder == ".vscode" or (folder == "User"
                                                       and parent.startswith("Code"))):
        return "vscode"
    return None


def detect_format(path: str, data: Any) -> ClientFormat:
    """The client whose config ``data`` (read from ``path``) is, from name, then shape.

    The file's name and folder come first (:func:`client_by_name`). Otherwise
    ``servers`` is VS Code's key and ``mcp_servers`` hangar's; ``mcpServers`` is shared
    by Claude Desktop, Claude Code and Cursor, told apart by the variables it uses
    (``${env:...}`` is Cursor's syntax, ``${VAR}`` Claude Code's); ``isEnabled`` with
    ``userConfig`` is a Claude Desktop extension's settings.
    """
    if not isinstance(data, dict):
        raise DeploymentError(f"{path}: not an MCP client config (the top level is not an "
                              "object)")
    by_name = client_by_name(path)
    if by_name is not None:
        return by_name
    if isinstance(data.get("userConfig"), dict) and "isEnabled" in data:
        return "claude-extension"
    if "mcp_servers" in data:
        return "hangar"
    if "servers" in data and "mcpServers" not in data:
        return "vscode"
    if isinstance(data.get("mcp"), dict) and "servers" in data["mcp"]:
        return "vscode"  # a VS Code settings.json holding "mcp": {"servers": ...}
    if "mcpServers" not in data:
        keys = ", ".join(sorted(map(str, data))[:6]) or "none"
        raise DeploymentError(f"{path}: not an MCP client config: no mcpServers, servers or "
                              f"mcp_servers (top-level keys: {keys})")
    text = repr(data)
    if "${env:" in text or "${userHome}" in text or "${workspaceFolder" in text:
        return "cursor"
    if "${" in text:
        return "claude-code"
    return "claude-desktop"


def read_client_config(path: str | os.PathLike[str], format: str | None = None, *,
                       text: str | None = None) -> ClientConfigFile:
    """Read the client config at ``path``; ``format`` overrides what the file looks like.

    ``text`` is the file's contents when they came from elsewhere (an upload); ``path``
    then only names it (its name and folder still tell the format).
    """
    name = os.fspath(path)
    if format is not None and format not in FORMATS:
        raise DeploymentError(f"unknown client format {format!r} (one of: {', '.join(FORMATS)})")
    if text is None:
        text = read_text(name, DeploymentError, MAX_CONFIG_BYTES)
    elif len(text.encode("utf-8", errors="replace")) > MAX_CONFIG_BYTES:
        raise DeploymentError(f"{name}: larger than a client config can be; refused")
    looks_yaml = name.endswith((".yaml", ".yml")) or format == "hangar"
    if looks_yaml:
        return _read_yaml(name, text, format)
    with collector_paused():  # linear in the file's size (see collector_paused)
        return _read_json(name, text, format)


def _read_json(name: str, text: str, format: str | None) -> ClientConfigFile:
    try:
        # Comments are read first whatever the format, so the format can be told; a
        # client that reads strict JSON then has the file refused below.
        tree = parse(text, comments=True)
    except JsonSyntaxError as exc:
        raise DeploymentError(f"{name}:{exc.line}: not valid JSON: {exc}") from None
    data = plain(tree)
    fmt: ClientFormat = format or detect_format(name, data)  # type: ignore[assignment]
    if fmt == "hangar":
        return _read_yaml(name, text, fmt)
    warnings = []
    if text.startswith("\ufeff") and fmt not in JSONC_FORMATS:
        warnings.append(f"{name}:1: the file starts with a byte-order mark, which node's "
                        f"JSON.parse refuses: {CLIENT_NAMES[fmt]} may not read this file at "
                        "all; save it as UTF-8 without one")
    if fmt not in JSONC_FORMATS:
        try:
            parse(text, comments=False)
        except JsonSyntaxError as exc:
            client = CLIENT_NAMES[fmt]
            raise DeploymentError(f"{name}:{exc.line}: not valid JSON: {exc} "
                                  f"({client} reads strict JSON)") from None
    if not isinstance(data, dict):
        raise DeploymentError(f"{name}: not an MCP client config (the top level is not an "
                              "object)")
    if fmt == "claude-extension":
        return _read_extension(name, text, tree, warnings)
    key = "servers" if fmt == "vscode" else "mcpServers"
    holder = servers_holder(tree, fmt)
    servers = holder.get(key)
    if servers is None:
        other = _other_reader(data, fmt)
        if other is not None and format is None:
            # The client reads the file by its own name: it finds no servers here.
            warnings.append(
                f"{name}:1: {CLIENT_NAMES[fmt]} reads its servers from {key!r}, which this "
                f"file doesn't have: it starts none of them; the file's shape is "
                f"{CLIENT_NAMES[other]}'s (--client-format {other} reads it that way)")
            return ClientConfigFile(path=name, format=fmt, entries=[], text=text, tree=tree,
                                    warnings=warnings)
        raise DeploymentError(f"{name}: no {key!r} object, which a {CLIENT_NAMES[fmt]} config "
                              "keeps its servers in")
    if servers.kind != "object":
        raise DeploymentError(f"{name}:{servers.line}: {key!r} must be an object of entries")
    # A name given twice: the client keeps the last definition (JSON.parse, VS Code),
    # at the place of the first.
    last = {m.key: m for m in servers.members}
    entries = [_json_entry(name, key, last[key].value, last[key].key_line)
               for key in dict.fromkeys(m.key for m in servers.members)]
    client = CLIENT_NAMES[fmt]
    for holder_node, key, first, later in repeated_keys(tree):
        if holder_node is servers:
            warnings.append(f"{name}:{later}: entry {key!r} is defined twice (lines {first} "
                            f"and {later}): {client} runs the last one, the one answered "
                            "for here")
        else:
            warnings.append(f"{name}:{later}: key {key!r} appears twice in one object (lines "
                            f"{first} and {later}): {client} keeps the last value, the one "
                            "used here")
    inputs: dict[str, dict[str, Any]] = {}
    inputs_node = holder.get("inputs")
    if fmt == "vscode" and inputs_node is not None and inputs_node.kind == "array":
        for item in inputs_node.items:
            value = plain(item)
            if isinstance(value, dict) and isinstance(value.get("id"), str):
                inputs[value["id"]] = value
    return ClientConfigFile(path=name, format=fmt, entries=entries, inputs=inputs, text=text,
                            tree=tree, warnings=warnings)


def _other_reader(data: dict[str, Any], fmt: str) -> ClientFormat | None:
    """The client that would read ``data``'s servers, when ``fmt``'s client reads none."""
    if fmt != "vscode" and isinstance(data.get("servers"), dict):
        return "vscode"
    if fmt == "vscode" and isinstance(data.get("mcpServers"), dict):
        return "claude-desktop"
    return None


def _read_extension(name: str, text: str, tree: Node, warnings: list[str]
                    ) -> ClientConfigFile:
    """A Claude Desktop extension's settings file as one entry: the command of the server
    the extension runs (as a registered server declares it) with the configured values."""
    from ..server import iter_servers

    extension = os.path.splitext(os.path.basename(name))[0]
    user_config = tree.get("userConfig")
    enabled = tree.get("isEnabled")
    line = user_config.line if user_config is not None else 1
    problems: list[str] = []
    lines: dict[str, int] = {}
    if user_config is None or user_config.kind != "object":
        problems.append(f"{name}:{line}: 'userConfig' must be an object holding the "
                        "extension's settings")
    declared = next(((server, server.desktop_extensions[extension])
                     for server in iter_servers() if extension in server.desktop_extensions),
                    None)
    if declared is None:
        problems.append(f"{name}:1: extension {extension!r} is not one whose server the "
                        "explorer models")
        return ClientConfigFile(path=name, format="claude-extension", text=text, tree=tree,
                                warnings=warnings, entries=[ClientEntry(
                                    name=extension, line=1, problems=problems)])
    _, (command, setting) = declared
    args = list(command[1:])
    node = user_config.get(setting) if user_config is not None and not problems else None
    if node is not None and node.kind == "array":
        for item in node.items:
            if item.kind != "string":
                problems.append(f"{name}:{item.line}: userConfig.{setting}: every item must "
                                "be a string")
                continue
            lines[f"args.{len(args)}"] = item.line
            args.append(item.scalar)
        lines["args"] = node.line
    elif node is not None:
        problems.append(f"{name}:{node.line}: userConfig.{setting} must be a list")
    if enabled is not None and enabled.kind == "false":
        problems.append(f"{name}:{enabled.line}: the extension is turned off (isEnabled is "
                        "false): Claude Desktop doesn't start it")
    entry = ClientEntry(name=extension, line=line, command=command[0], args=args,
                        lines=lines, problems=problems,
                        disabled=enabled is not None and enabled.kind == "false")
    return ClientConfigFile(path=name, format="claude-extension", entries=[entry], text=text,
                            tree=tree, warnings=warnings)


def servers_holder(tree: Node, fmt: str) -> Node:
    """The object holding the servers: the file's top level, or VS Code settings'
    ``"mcp"`` object when its servers are there."""
    nested = tree.get("mcp")
    if fmt == "vscode" and tree.get("servers") is None and nested is not None \
            and nested.kind == "object":
        return nested
    return tree


def _strings(value: Any) -> str | None:
    """A JSON scalar as the string a client passes on (numbers and booleans as written)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return None


def _json_entry(path: str, name: str, node: Node, line: int) -> ClientEntry:
    if node.kind != "object":
        return ClientEntry(name=name, line=line, problems=[
            f"{_where(path, line)}: entry {name!r} is not an object"])
    fields: dict[str, Any] = {}
    lines: dict[str, int] = {}
    problems: list[str] = []
    for member in node.members:
        lines[member.key] = member.value.line
    value = plain(node)

    def text_field(key: str) -> None:
        if key in value and value[key] is not None:
            if isinstance(value[key], str):
                fields[key.replace("envFile", "env_file")] = value[key]
            else:
                problems.append(f"{_where(path, lines[key])}: entry {name!r}: {key!r} must be "
                                "a string")

    for key in ("type", "command", "envFile", "cwd", "url"):
        text_field(key)
    if value.get("args") is not None:
        args = value["args"]
        if isinstance(args, list) and all(_strings(a) is not None for a in args):
            fields["args"] = [_strings(a) for a in args]
        else:
            problems.append(f"{_where(path, lines['args'])}: entry {name!r}: 'args' must be "
                            "a list of strings")
        args_node = node.get("args")
        if args_node is not None:
            # Each argument's own line, for messages about that argument.
            for i, item in enumerate(args_node.items):
                lines[f"args.{i}"] = item.line
    for key in ("env", "headers"):
        mapping = value.get(key)
        if mapping is None:
            continue
        child = node.get(key)
        if not isinstance(mapping, dict):
            problems.append(f"{_where(path, lines[key])}: entry {name!r}: {key!r} must be an "
                            "object")
            continue
        out: dict[str, str] = {}
        for k, v in mapping.items():
            shown = _strings(v)
            if v is None:
                continue  # VS Code: null removes the variable
            if shown is None:
                problems.append(f"{_where(path, lines[key])}: entry {name!r}: {key}.{k} must "
                                "be a string")
                continue
            out[k] = shown
        fields[key] = out
        if child is not None:
            for m in child.members:
                lines[f"{key}.{m.key}"] = m.value.line
    return ClientEntry(name=name, line=line, lines=lines, problems=problems, **fields)


#: Deeper than any client config nests; PyYAML's composer recurses per level.
MAX_YAML_DEPTH = 100


def _read_yaml(path: str, text: str, format: str | None) -> ClientConfigFile:
    from ..userfiles import nests_deeper_than

    if nests_deeper_than(text, MAX_YAML_DEPTH):
        raise DeploymentError(f"{path}: nests deeper than {MAX_YAML_DEPTH} levels; not a "
                              "client config")

    from ..access.yaml_lines import YamlProblem, check_expanded_size, parse_problem

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        check_expanded_size(root)
    except YamlProblem as exc:
        raise DeploymentError(f"{_where(path, exc.line)}: {exc}") from None
    except yaml.YAMLError as exc:
        problem, line = parse_problem(exc, text)
        raise DeploymentError(f"{_where(path, line)}: not valid YAML: {problem}") from None
    if root is None or not isinstance(root, yaml.MappingNode):
        raise DeploymentError(f"{path}: not an mcp-hangar config (the top level is not a "
                              "mapping)")
    if format is not None and format != "hangar":
        raise DeploymentError(f"{path}: a YAML file can only be an mcp-hangar config, not "
                              f"{CLIENT_NAMES[format]}'s")
    servers = _yaml_get(root, "mcp_servers")
    if servers is None:
        raise DeploymentError(f"{path}: no 'mcp_servers' section, which an mcp-hangar config "
                              "keeps its servers in")
    if not isinstance(servers, yaml.MappingNode):
        raise DeploymentError(f"{path}:{servers.start_mark.line + 1}: 'mcp_servers' must be "
                              "a mapping of server ids")
    # A server id given twice: hangar (yaml.safe_load) keeps the last definition.
    chosen: dict[str, tuple[int, Any]] = {}
    warnings = []
    for key_node, value_node in servers.value:
        line = key_node.start_mark.line + 1
        if not isinstance(key_node, yaml.ScalarNode):
            raise DeploymentError(f"{path}:{line}: a server id under 'mcp_servers' must be a "
                                  "plain name, not a list or mapping")
        name = str(key_node.value)
        if name in chosen:
            warnings.append(f"{path}:{line}: server {name!r} is defined twice (lines "
                            f"{chosen[name][0]} and {line}): mcp-hangar keeps the last one, "
                            "the one answered for here")
        chosen[name] = (line, value_node)
    entries = [_yaml_entry(path, name, line, node, _yaml_plain, text)
               for name, (line, node) in chosen.items()]
    return ClientConfigFile(path=path, format="hangar", entries=entries, text=text,
                            warnings=warnings)


def _yaml_get(node: Any, key: str) -> Any:
    for k, v in node.value:
        if getattr(k, "value", None) == key:
            return v
    return None


def _yaml_plain(node: Any) -> Any:
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _yaml_entry(path: str, name: str, line: int, node: Any, to_plain: Any,
                text: str) -> ClientEntry:
    if not isinstance(node, yaml.MappingNode):
        return ClientEntry(name=name, line=line, problems=[
            f"{path}:{line}: mcp_servers.{name} is not a mapping"])
    for k, _ in node.value:
        if not isinstance(k, yaml.ScalarNode):
            return ClientEntry(name=name, line=line, problems=[
                f"{path}:{k.start_mark.line + 1}: mcp_servers.{name}: a key must be a plain "
                "name, not a list or mapping"])
    lines = {str(k.value): v.start_mark.line + 1 for k, v in node.value}
    try:
        value = to_plain(node)
    except yaml.YAMLError as exc:
        from ..access.yaml_lines import parse_problem

        problem, at = parse_problem(exc, text)
        return ClientEntry(name=name, line=line, problems=[
            f"{_where(path, at or line)}: mcp_servers.{name}: {problem}"])
    problems: list[str] = []
    fields: dict[str, Any] = {"type": str(value.get("mode") or "subprocess")}
    command = value.get("command")
    args = value.get("args")
    # hangar's command is a list: the program and its first arguments; args follow it.
    if isinstance(command, str):
        command = [command]
    if command is not None:
        if isinstance(command, list) and command and all(_strings(c) for c in command):
            fields["command"] = _strings(command[0])
            fields["args"] = [_strings(c) for c in command[1:]]
        else:
            problems.append(f"{path}:{lines['command']}: mcp_servers.{name}.command must be a "
                            "list of strings")
    if args is not None:
        if isinstance(args, list) and all(_strings(a) is not None for a in args):
            fields["args"] = [*fields.get("args", []), *(_strings(a) for a in args)]
        else:
            problems.append(f"{path}:{lines['args']}: mcp_servers.{name}.args must be a list "
                            "of strings")
    # Each argument's own line: the command list's items after the program, then args'.
    items = []
    for key, skip in (("command", 1), ("args", 0)):
        held = _yaml_get(node, key)
        if isinstance(held, yaml.SequenceNode):
            items += held.value[skip:]
    for i, item in enumerate(items):
        lines[f"args.{i}"] = item.start_mark.line + 1
    env = value.get("env")
    if env is not None:
        if isinstance(env, dict):
            fields["env"] = {str(k): _strings(v) or "" for k, v in env.items() if v is not None}
            env_node = _yaml_get(node, "env")
            for k, v in env_node.value:
                lines[f"env.{k.value}"] = v.start_mark.line + 1
        else:
            problems.append(f"{path}:{lines['env']}: mcp_servers.{name}.env must be a mapping")
    if isinstance(value.get("image"), str):
        fields["image"] = value["image"]
    volumes = value.get("volumes")
    if isinstance(volumes, list):
        fields["volumes"] = [str(v) for v in volumes]
    if isinstance(value.get("endpoint"), str):
        fields["url"] = value["endpoint"]
    return ClientEntry(name=name, line=line, lines=lines, problems=problems, **fields)
