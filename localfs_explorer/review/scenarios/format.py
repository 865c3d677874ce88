"""The scenario file format: its models, and reading TOML into them with line numbers.

Every key is checked: an unknown key or a value of the wrong type is a
:class:`ScenarioError` naming the file and the line (found by :mod:`.locator`), as is
malformed TOML. Each expectation must expect something, so a case can't pass by checking
nothing. The format itself is described in :mod:`localfs_explorer.review.scenarios`.
"""

from __future__ import annotations

import difflib
import os
import typing
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, GetJsonSchemaHandler, ValidationError
from pydantic_core import core_schema as cs

from ...config import ServerConfig
from ...errors import LocalfsError
from ...server import DEFAULT_SERVER
from ...userfiles import parse_toml, read_text
from ...vocab import Gate, Op, Outcome, Platform, Transport
from .locator import Locator

#: A verdict's reason: any word here; the scenario's own server says which words it
#: gives (:attr:`~localfs_explorer.server.Server.reasons`), checked once the file is read,
#: so a server added later brings its words with it.
AnyReason = str


class ServerWords:
    """Marks a key whose words the scenario's server declares
    (:attr:`~localfs_explorer.server.Server.scenario_words`): any value is read, and it
    is checked once the file is read (:func:`_word_problems`). The schema lists the
    words every server declares for the key."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __get_pydantic_json_schema__(self, schema: cs.CoreSchema,
                                     handler: GetJsonSchemaHandler) -> dict[str, Any]:
        words = every_word(self.key)
        if not words:
            return dict(handler(schema))
        return {"anyOf": [{"enum": list(words), "type": "string"}, {"type": "null"}]}


def every_word(key: str) -> tuple[str, ...]:
    """The words every known server declares for a scenario ``key``, in server order."""
    from ...server import iter_servers

    words: dict[str, None] = {}
    for server in iter_servers():
        words.update(dict.fromkeys(server.scenario_words.get(key, ())))
    return tuple(words)


#: A status or policy key only some servers answer: its words are the server's.
ModeWord = Annotated[Any, ServerWords("mode")]


class ScenarioError(LocalfsError):
    """A scenario file that can't be read or run; the message names the file and line."""


# Strict: a hand-written `allowed = "no"` must be an error, not silently truthy.
_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)


class ConfigSpec(BaseModel):
    """A server configuration: which server, its environment, transport and target host.

    ``server`` names the server that answers (default mcp-gee-sweet), ``server_version``
    its release, and ``options`` its own settings as its options model names them (the
    filesystem server's ``directories``, ``roots`` and ``home``).
    """

    model_config = _STRICT

    #: Which server answers (a registry id: ``mcp-gee-sweet``, ``server-filesystem``).
    server: str | None = None
    #: The release of that server to reproduce (None: the newest modelled).
    server_version: str | None = None
    #: The server's own settings (merged key by key): the filesystem server's
    #: ``directories`` (its command line, relative to ``cwd``), ``roots`` (the MCP roots
    #: its client advertises; absent: none) and ``home``.
    options: dict[str, Any] = Field(default_factory=dict)
    #: The server's ``.env``, relative to the scenario file.
    env: str | None = None
    #: The server process's own variables (``--set``); they win over the file.
    settings: dict[str, str] = Field(default_factory=dict)
    #: Variables removed whatever set them (``--unset``).
    unset: list[str] = Field(default_factory=list)
    transport: Transport | None = None
    #: Whether requests arrive over HTTP; default: by transport (HTTP for sse, streamable).
    over_http: bool | None = None
    #: ``"host"`` (this machine), a shipped example's name, a host spec JSON file
    #: (relative to the scenario file), or an inline host spec table.
    host: str | dict[str, Any] | None = None
    #: The server's startup directory (relative: to the scenario file, on this machine).
    cwd: str | None = None
    #: The directory holding the server's own ``.env`` (deny-listed).
    package_dir: str | None = None
    platform: Platform | None = None
    #: A server profile JSON replacing the shipped assumptions (relative to the file).
    profile: str | None = None
    #: A tool catalog (JSON or TOML) replacing the shipped one (relative to the file).
    catalog: str | None = None
    #: Tool access lists: a table (``{server = {approval_list = [...]}}``) or a file.
    access: str | dict[str, Any] | None = None
    #: Skip ``.env`` lines that can't be parsed, as the server does.
    lenient: bool | None = None

    def server_config(self, base_dir: str | os.PathLike[str]) -> ServerConfig:
        """This configuration as the engine's :class:`ServerConfig`, read from ``base_dir``."""
        return ServerConfig(
            server=self.server or DEFAULT_SERVER, server_version=self.server_version,
            server_options=dict(self.options),
            env=self.env, settings=self.settings, unset=self.unset,
            transport=self.transport or "stdio", over_http=self.over_http, cwd=self.cwd,
            package_dir=self.package_dir, host=self.host, profile=self.profile,
            platform=self.platform or "posix", catalog=self.catalog, access=self.access,
            lenient=bool(self.lenient), base_dir=os.fspath(base_dir),
        )

    def merged(self, override: ConfigSpec) -> ConfigSpec:
        """This configuration with ``override``'s explicitly given keys on top."""
        data = self.model_dump(exclude_unset=True)
        for key in override.model_fields_set:
            value = getattr(override, key)
            if key == "settings":
                data["settings"] = {**self.settings, **value}
            elif key == "options":
                data["options"] = {**self.options, **value}
            elif key == "unset":
                data["unset"] = [*self.unset, *value]
            else:
                data[key] = value
        return ConfigSpec.model_validate(data)


class _Expectation(BaseModel):
    model_config = _STRICT

    def expects_something(self) -> bool:
        """Whether any expected field is given (labels and inputs don't count)."""
        inputs = _INPUT_FIELDS.get(type(self).__name__, frozenset())
        return any(
            key not in inputs and key != "label" for key in self.model_fields_set
        )


class PathCase(_Expectation):
    """One path, one operation, and the verdict expected for it."""

    path: str
    op: Op = "read"
    over_http: bool | None = None
    label: str | None = None
    allowed: bool | None = None
    reason: AnyReason | None = None
    #: The exact refusal text ("" when allowed).
    message: str | None = None
    message_contains: str | None = None
    #: The path the server would do its I/O on.
    resolved: str | None = None


class CallPathCase(_Expectation):
    """What one path inside a call's verdict must look like (matched by ``path``)."""

    path: str
    kind: str | None = None
    argument: str | None = None
    op: Op | None = None
    allowed: bool | None = None
    reason: AnyReason | None = None
    message: str | None = None
    message_contains: str | None = None
    #: ``failed`` or ``local_read_fail`` for walked entries the server reports per item.
    step: str | None = None
    resolved: str | None = None
    label: str | None = None


class CallCase(_Expectation):
    """One tool call and what the model must get back from it."""

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    #: The Drive side of a sync or folder download, as relative names.
    drive_names: list[str] | None = None
    expected_paths: list[str] = Field(default_factory=list)
    over_http: bool | None = None
    label: str | None = None
    outcome: Outcome | None = None
    message: str | None = None
    message_contains: str | None = None
    gate: Gate | None = None
    visible: bool | None = None
    registered: bool | None = None
    notes_contain: list[str] = Field(default_factory=list)
    #: Per-path expectations (``[[scenario.call.path]]``).
    path: list[CallPathCase] = Field(default_factory=list)


class HangarCase(_Expectation):
    """What mcp-hangar answers for one tool on the scenario's hangar route.

    The route is ``config.access`` (``{hangar = FILE, server = ID, via = ..., tenant =
    ...}``); ``server``, ``via`` and ``tenant`` here change it for this case only.
    """

    tool: str
    server: str | None = None
    via: str | None = None
    tenant: str | None = None
    label: str | None = None
    visible: bool | None = None
    held: bool | None = None
    #: Seconds the approval waits (only for a held tool).
    timeout: int | None = None
    channel: str | None = None
    documented_visible: bool | None = None
    documented_held: bool | None = None
    #: Whether hangar departs from its documented rule here.
    finding: bool | None = None
    finding_contains: str | None = None
    scope_contains: str | None = None


class ToolsCase(_Expectation):
    """Which tools the server registers."""

    #: Each of these must be registered.
    registered: list[str] = Field(default_factory=list)
    #: None of these may be registered (off mode, ENABLED_TOOLS, whatever the reason).
    not_registered: list[str] = Field(default_factory=list)
    #: Exactly the local-only tools off mode kept from registering.
    unregistered: list[str] | None = None
    #: Each text must appear in one of the startup warnings about tools.
    warnings_contain: list[str] = Field(default_factory=list)


class AuthStatusCase(_Expectation):
    """The server's status answer (the keys given): mcp-gee-sweet's ``local_file_access``
    object of ``server://auth-status``; the filesystem server's
    ``list_allowed_directories`` (``allowed_directories``)."""

    mode: ModeWord = None
    explicit: bool | None = None
    roots: list[str] | None = None
    unregistered_tools: list[str] | None = None
    allowed_directories: list[str] | None = None


class PolicyCase(_Expectation):
    """The resolved policy: mode, whether the server would start, its deny-list (the
    filesystem server: whether it starts and its ``allowed_directories``)."""

    mode: ModeWord = None
    explicit: bool | None = None
    serves: bool | None = None
    #: The one-line message the server exits with ("" when it serves).
    exit_message: str | None = None
    exit_message_contains: str | None = None
    warnings_contain: list[str] = Field(default_factory=list)
    #: Settings that must each contribute a deny-list entry (``TOKEN_PATH``, ``LOG_FILE``).
    deny_list_includes: list[str] = Field(default_factory=list)
    #: Settings that must not contribute one (an unset ``LOG_FILE`` adds none).
    deny_list_excludes: list[str] = Field(default_factory=list)
    #: The allowed directories once the roots exchange has settled (server-filesystem).
    allowed_directories: list[str] | None = None


_INPUT_FIELDS: dict[str, frozenset[str]] = {
    "PathCase": frozenset({"path", "op", "over_http"}),
    "CallPathCase": frozenset({"path"}),
    "CallCase": frozenset({"tool", "arguments", "drive_names", "expected_paths", "over_http"}),
    "HangarCase": frozenset({"tool", "server", "via", "tenant"}),
}


class Scenario(BaseModel):
    """A configuration and its expectations."""

    model_config = _STRICT

    name: str = Field(min_length=1)
    description: str = ""
    config: ConfigSpec = Field(default_factory=ConfigSpec)
    path: list[PathCase] = Field(default_factory=list)
    call: list[CallCase] = Field(default_factory=list)
    #: Pinned mcp-hangar answers (``[[scenario.hangar]]``), on the hangar route.
    hangar: list[HangarCase] = Field(default_factory=list)
    tools: ToolsCase | None = None
    auth_status: AuthStatusCase | None = None
    policy: PolicyCase | None = None


class ScenarioFile(BaseModel):
    """A whole scenario file."""

    model_config = _STRICT

    title: str | None = None
    description: str = ""
    config: ConfigSpec = Field(default_factory=ConfigSpec)
    scenario: list[Scenario] = Field(min_length=1)


# ------------------------------------------------------------------- reading, with lines


def _model_at(model: type[BaseModel] | None, loc: Sequence[Any]) -> type[BaseModel] | None:
    """The model class that holds the last key of ``loc`` (for 'did you mean')."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        info = current.model_fields.get(part)
        if info is None:
            return None
        current = _unwrap(info.annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unwrap(annotation: Any) -> Any:
    for arg in (annotation, *typing.get_args(annotation)):
        if isinstance(arg, type) and issubclass(arg, BaseModel):
            return arg
        for inner in typing.get_args(arg):
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                return inner
    return None


def _data_loc(data: Any, loc: Sequence[Any]) -> list[Any]:
    """The part of a pydantic location that names real keys/indexes of ``data``."""
    out: list[Any] = []
    node = data
    for part in loc:
        if isinstance(node, Mapping) and isinstance(part, str):
            out.append(part)
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int):
            out.append(part)
            node = node[part] if 0 <= part < len(node) else None
        else:
            break  # a union member's tag ('str', 'dict[str,any]'), not a key
    return out


def _where(data: Any, loc: Sequence[Any]) -> str:
    """``scenario 'roots' > path #2 > opp`` for a location in the raw data."""
    words: list[str] = []
    node = data
    i = 0
    while i < len(loc):
        part = loc[i]
        nxt = loc[i + 1] if i + 1 < len(loc) else None
        if isinstance(part, str) and isinstance(nxt, int):
            items = node.get(part) if isinstance(node, Mapping) else None
            item = items[nxt] if isinstance(items, list) and 0 <= nxt < len(items) else None
            if part == "scenario" and isinstance(item, Mapping) and isinstance(
                item.get("name"), str
            ):
                words.append(f"scenario {item['name']!r}")
            else:
                words.append(f"{part} #{nxt + 1}")
            node = item
            i += 2
            continue
        words.append(str(part))
        node = node.get(part) if isinstance(node, Mapping) else None
        i += 1
    return " > ".join(words)


def _describe_error(err: Mapping[str, Any], data: Any) -> tuple[list[Any], str]:
    loc = _data_loc(data, err["loc"])
    kind = err["type"]
    if kind == "extra_forbidden":
        key = str(loc[-1]) if loc else "?"
        text = f"unknown key {key!r}"
        holder = _model_at(ScenarioFile, loc)
        if holder is not None:
            close = difflib.get_close_matches(key, list(holder.model_fields), n=1)
            if close:
                text += f" (did you mean {close[0]!r}?)"
        return loc, text
    if kind == "missing":
        return loc, f"missing required key {str(err['loc'][-1])!r}"
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        return loc, f"{err['input']!r} is not one of {expected}"
    return loc, f"{err['msg']} (got {err.get('input')!r})"


def _server_id(scenario_server: Any, file_server: Any, default_server: str | None) -> str:
    """The server a scenario names, else its file, else ``default_server``, else the
    default server."""
    return scenario_server or file_server or default_server or DEFAULT_SERVER


def _one_of(words: Sequence[str]) -> str:
    """``'a', 'b' or 'c'``: the words as a literal's error lists them."""
    shown = [repr(w) for w in words]
    return f"{', '.join(shown[:-1])} or {shown[-1]}" if len(shown) > 1 else "".join(shown)


def _word_keys(model: type[BaseModel]) -> dict[str, str]:
    """The fields of ``model`` whose words the server declares, with the word's key."""
    return {field: marker.key for field, info in model.model_fields.items()
            for marker in info.metadata if isinstance(marker, ServerWords)}


def _server_words(server_id: str, key: str) -> tuple[str, ...]:
    """The words scenario ``key`` may hold for ``server_id``: its own, or every server's
    when it declares none (or can't be loaded: the reasons check says why)."""
    from ...server import ServerError, get_server

    try:
        own = get_server(server_id).scenario_words.get(key)
    except ServerError:
        own = None
    return tuple(own) if own else every_word(key)


def _word_problems(data: Any, locator: Locator, name: str,
                   default_server: str | None) -> list[tuple[int, str]]:
    """A value of a key whose words its scenario's server declares
    (:class:`ServerWords`) that isn't one of them, as ``(line, problem)``: read from the
    raw ``data``, beside the models' own errors."""
    scenarios = data.get("scenario") if isinstance(data, Mapping) else None
    if not isinstance(scenarios, list):
        return []
    config = data.get("config")
    file_server = config.get("server") if isinstance(config, Mapping) else None
    found: list[tuple[int, str]] = []
    for i, scenario in enumerate(scenarios):
        if not isinstance(scenario, Mapping):
            continue
        own = scenario.get("config")
        server_id = _server_id(own.get("server") if isinstance(own, Mapping) else None,
                               file_server, default_server)
        for table, model in (("auth_status", AuthStatusCase), ("policy", PolicyCase)):
            part = scenario.get(table)
            if not isinstance(part, Mapping):
                continue
            for field, key in _word_keys(model).items():
                if field not in part:
                    continue
                words = _server_words(server_id, key)
                if words and part[field] not in words:
                    loc = ["scenario", i, table, field]
                    what = f"{part[field]!r} is not one of {_one_of(words)}"
                    found.append(_located(data, locator, loc, what, name))
    return found


def _located(data: Any, locator: Locator, loc: list[Any], what: str, name: str
             ) -> tuple[int, str]:
    """``(line, "FILE:LINE: where: what")`` for a problem at ``loc`` of the raw data."""
    line = locator.line_of(loc)
    field_name = _where(data, loc) if loc else "file"
    prefix = f"{name}:{line}" if line else name
    return line or 0, f"{prefix}: {field_name}: {what}"


def _reason_problems(parsed: ScenarioFile, i: int, locator: Locator, name: str,
                     default_server: str | None) -> list[str]:
    """A ``reason`` its scenario's server never gives, as ``FILE:LINE`` problems."""
    from ...server import ServerError, get_server

    scenario = parsed.scenario[i]
    server_id = _server_id(scenario.config.server, parsed.config.server, default_server)
    try:
        reasons = get_server(server_id).reasons
    except ServerError as exc:
        line = locator.header_line(("scenario", i))
        return [f"{name}:{line or '?'}: scenario {scenario.name!r}: {exc}"]
    if not reasons:
        return []
    wanted: list[tuple[tuple[Any, ...], str]] = []
    for j, case in enumerate(scenario.path):
        if case.reason is not None:
            wanted.append((("scenario", i, "path", j, "reason"), case.reason))
    for j, call in enumerate(scenario.call):
        for k, sub in enumerate(call.path):
            if sub.reason is not None:
                wanted.append((("scenario", i, "call", j, "path", k, "reason"), sub.reason))
    problems = []
    for loc, reason in wanted:
        if reason not in reasons:
            line = locator.line_of(loc)
            known = ", ".join(repr(r) for r in reasons)
            problems.append(f"{name}:{line or '?'}: {_where(_plain(parsed), loc)}: "
                            f"{reason!r} is not one of {server_id}'s reasons: {known}")
    return problems


def _plain(parsed: ScenarioFile) -> dict[str, Any]:
    return parsed.model_dump(exclude_unset=True)


def parse_scenario_text(text: str, *, name: str = "<scenarios>",
                        default_server: str | None = None) -> ScenarioFile:
    """Parse and validate scenario TOML; errors name ``name`` and the line.

    A ``reason`` must be one its scenario's server gives (the server the scenario or the
    file names, else ``default_server``, else the default server), and so must a word of
    the server's own (:attr:`~localfs_explorer.server.Server.scenario_words`)."""
    data = parse_toml(text, name, ScenarioError)
    locator = Locator(text)
    found = _word_problems(data, locator, name, default_server)
    parsed: ScenarioFile | None = None
    try:
        parsed = ScenarioFile.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            loc, what = _describe_error(err, data)
            found.append(_located(data, locator, loc, what, name))
    if found or parsed is None:
        # In file order, so the first message is the first thing to fix.
        raise ScenarioError("\n".join(m for _line, m in sorted(found)))
    problems = []
    seen: dict[str, int] = {}
    for i, scenario in enumerate(parsed.scenario):
        line = locator.header_line(("scenario", i))
        if scenario.name in seen:
            problems.append(f"{name}:{line or '?'}: scenario {scenario.name!r} appears twice "
                            f"(first as scenario #{seen[scenario.name] + 1})")
        seen.setdefault(scenario.name, i)
        for kind, cases in (("path", scenario.path), ("call", scenario.call),
                            ("hangar", scenario.hangar)):
            for j, case in enumerate(cases):
                if not case.expects_something():
                    where = locator.header_line(("scenario", i, kind, j)) or line
                    problems.append(f"{name}:{where or '?'}: scenario {scenario.name!r} > "
                                    f"{kind} #{j + 1} expects nothing (add allowed, reason, "
                                    "message, outcome ...)")
                for k, sub in enumerate(getattr(case, "path", []) if kind == "call" else []):
                    if not sub.expects_something():
                        where = locator.header_line(("scenario", i, "call", j, "path", k))
                        problems.append(f"{name}:{where or line or '?'}: scenario "
                                        f"{scenario.name!r} > call #{j + 1} > path #{k + 1} "
                                        "expects nothing")
        problems.extend(_reason_problems(parsed, i, locator, name, default_server))
        for kind in ("tools", "auth_status", "policy"):
            part = getattr(scenario, kind)
            if part is not None and not part.expects_something():
                where = locator.header_line(("scenario", i, kind)) or line
                problems.append(f"{name}:{where or '?'}: scenario {scenario.name!r} > {kind} "
                                "expects nothing")
    if problems:
        raise ScenarioError("\n".join(problems))
    return parsed


def load_scenario_file(path: str | os.PathLike[str]) -> ScenarioFile:
    """Read and validate one scenario file (see the module docstring for the format)."""
    text = read_text(path, ScenarioError)
    return parse_scenario_text(text, name=str(path))


def collect_scenario_files(targets: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The ``.toml`` files named, folders searched recursively (sorted), in order given."""
    files: list[Path] = []
    for target in targets:
        path = Path(target)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.toml") if p.is_file())
            if not found:
                raise ScenarioError(f"{path}: no .toml scenario files in this folder")
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            raise ScenarioError(f"{path}: no such file or folder")
    unique: list[Path] = []
    for f in files:
        if f not in unique:
            unique.append(f)
    return unique
