"""Scenario files: a configuration plus the verdicts a reviewer expects from it, as TOML.

A scenario file holds one or more ``[[scenario]]`` tables. Each names a server
configuration and what the server must answer under it. A file-level ``[config]`` is the
starting point every scenario's own ``[scenario.config]`` overrides key by key
(``settings`` are merged, ``unset`` lists add up)::

    title = "our deployment"

    [config]
    env = "deploy/.env"            # relative to this file
    host = "container"             # "host" (this machine), a shipped example, a host
                                   # spec JSON file, or an inline table (a host spec)
    transport = "sse"

    [[scenario]]
    name = "roots keeps the token out"
    [scenario.config.settings]     # the server process's own variables (win over env)
    LOCAL_FILE_ACCESS = "roots"
    LOCAL_FILE_ROOTS = "/data"

    [[scenario.path]]
    path = "/app/token.json"
    op = "read"                    # read (default), write or read_write
    allowed = false
    reason = "outside_roots"
    message_contains = "Allowed directories: /data"

    [[scenario.call]]
    tool = "upload_local_file"
    arguments = { local_path = "/data/reports/q3.csv" }
    outcome = "ok"

    [scenario.tools]
    registered = ["upload_local_file"]

    [scenario.auth_status]
    mode = "roots"
    roots = ["/data"]

Every key is checked: an unknown key or a value of the wrong type is a
:class:`ScenarioError` naming the file and the line, as is malformed TOML. Each
expectation (a path, a call, the tools, auth-status, the policy) must expect something,
so a case can't pass by checking nothing.

:func:`run_scenarios` runs files and folders and returns a :class:`RunResult`: one
:class:`CaseResult` per expectation, with expected-vs-actual mismatches and the trace,
plus :class:`Coverage` of the rules the run exercised (each refusal reason, each
deny-list setting, each catalog tool, each call outcome).
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import re
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .config import ConfigError, ServerConfig, resolve_config
from .errors import LocalfsError
from .paths import show_nul
from .secrets import masked, scrub
from .userfiles import check_nesting, read_text
from .vocab import DENY_LABELS, OUTCOMES, REASONS, Gate, ModeName, Op, Outcome, Reason, Transport

if TYPE_CHECKING:
    from .catalog import Catalog, Registration
    from .check import Decision
    from .policy import Policy
    from .probe import CallVerdict

__all__ = [
    "CaseResult",
    "ConfigSpec",
    "Coverage",
    "FileResult",
    "Mismatch",
    "RunResult",
    "Scenario",
    "ScenarioError",
    "ScenarioFile",
    "ScenarioResult",
    "collect_scenario_files",
    "dump_scenario_file",
    "load_scenario_file",
    "machine_references",
    "parse_scenario_text",
    "pin_scenario",
    "policy_from_config",
    "run_scenario_file",
    "run_scenario_text",
    "run_scenarios",
]

#: Every deny-list setting the server can have, as the policy labels them. Settings that
#: appear in a run but not here are added to the coverage as they are seen.
KNOWN_DENY_SETTINGS = DENY_LABELS


class ScenarioError(LocalfsError):
    """A scenario file that can't be read or run; the message names the file and line."""


# ----------------------------------------------------------------------------- the format

# Strict: a hand-written `allowed = "no"` must be an error, not silently truthy.
_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)


class ConfigSpec(BaseModel):
    """A server configuration: its environment, transport and target host."""

    model_config = _STRICT

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
    platform: Literal["posix", "macos", "windows"] | None = None
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
    reason: Reason | None = None
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
    reason: Reason | None = None
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
    """The ``local_file_access`` object of ``server://auth-status`` (the keys given)."""

    mode: ModeName | None = None
    explicit: bool | None = None
    roots: list[str] | None = None
    unregistered_tools: list[str] | None = None


class PolicyCase(_Expectation):
    """The resolved policy: mode, whether the server would start, its deny-list."""

    mode: ModeName | None = None
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


_INPUT_FIELDS: dict[str, frozenset[str]] = {
    "PathCase": frozenset({"path", "op", "over_http"}),
    "CallPathCase": frozenset({"path"}),
    "CallCase": frozenset({"tool", "arguments", "drive_names", "expected_paths", "over_http"}),
}


class Scenario(BaseModel):
    """A configuration and its expectations."""

    model_config = _STRICT

    name: str = Field(min_length=1)
    description: str = ""
    config: ConfigSpec = Field(default_factory=ConfigSpec)
    path: list[PathCase] = Field(default_factory=list)
    call: list[CallCase] = Field(default_factory=list)
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


def _toml_loads(text: str) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            raise ScenarioError(
                "reading scenario files on Python 3.10 needs the tomli package "
                "(pip install 'localfs-explorer[dashboard]' or pip install tomli)"
            ) from None
    return tomllib.loads(text)


_AT_LINE = re.compile(r"\(at line (\d+), column (\d+)\)")


def _split_key(text: str) -> list[str]:
    """``a."b.c".d`` -> ``["a", "b.c", "d"]`` (a TOML dotted key)."""
    parts: list[str] = []
    current = ""
    quote: str | None = None
    for ch in text.strip():
        if quote:
            if ch == quote:
                quote = None
            else:
                current += ch
        elif ch in "\"'":
            quote = ch
        elif ch == ".":
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    parts.append(current.strip())
    return parts


class _Locator:
    """Finds the line of a key in TOML source text, from a validation error's location.

    It follows table headers the way TOML does (``[[a]]`` starts element n of array
    ``a``; ``[a.b]`` after it belongs to that element), so a location like
    ``("scenario", 2, "path", 0, "opp")`` maps to the line of ``opp`` in the first
    ``[[scenario.path]]`` of the third scenario.
    """

    _HEADER = re.compile(r"^\s*(\[\[?)\s*(.+?)\s*\]\]?\s*(?:#.*)?$")

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        #: (resolved table path, first line (1-based), last line) per header.
        self.tables: list[tuple[tuple[Any, ...], int, int]] = []
        latest: dict[tuple[str, ...], int] = {}
        counts: dict[tuple[Any, ...], int] = {}
        starts: list[tuple[tuple[Any, ...], int]] = [((), 1)]
        in_multiline: str | None = None
        for number, line in enumerate(self.lines, 1):
            if in_multiline:
                if line.count(in_multiline) % 2 == 1:
                    in_multiline = None
                continue
            for fence in ('"""', "'''"):
                if line.count(fence) % 2 == 1:
                    in_multiline = fence
            m = self._HEADER.match(line)
            if not m or in_multiline:
                continue
            is_array = m.group(1) == "[["
            names = _split_key(m.group(2))
            resolved: list[Any] = []
            for i, name in enumerate(names):
                resolved.append(name)
                prefix = tuple(names[: i + 1])
                last = i == len(names) - 1
                if last and is_array:
                    key = tuple(resolved)
                    index = counts.get(key, 0)
                    counts[key] = index + 1
                    latest[prefix] = index
                    resolved.append(index)
                elif prefix in latest:
                    resolved.append(latest[prefix])
            starts.append((tuple(resolved), number))
        for i, (path, start) in enumerate(starts):
            end = starts[i + 1][1] - 1 if i + 1 < len(starts) else len(self.lines)
            self.tables.append((path, start, end))

    def header_line(self, loc: Sequence[Any]) -> int | None:
        """The line of the table header whose path is exactly ``loc``."""
        target = tuple(loc)
        for path, start, _end in self.tables:
            if path == target and path:
                return start
        return None

    def line_of(self, loc: Sequence[Any]) -> int | None:
        """The best line for ``loc``: its header, its key inside its table, or None."""
        loc = tuple(loc)
        exact = self.header_line(loc)
        if exact is not None:
            return exact
        key = next((part for part in reversed(loc) if isinstance(part, str)), None)
        # The deepest table the location lies in, then the key's line inside that table.
        best: tuple[tuple[Any, ...], int, int] | None = None
        for table in self.tables:
            path = table[0]
            if loc[: len(path)] == path and (best is None or len(path) > len(best[0])):
                best = table
        if best is not None and key is not None:
            found = self._find_key(key, best[1], best[2])
            if found is not None:
                return found
        if best is not None and best[0]:
            return best[1]
        return self._find_key(key, 1, len(self.lines)) if key is not None else None

    def _find_key(self, key: str, first: int, last: int) -> int | None:
        k = re.escape(key)
        pattern = re.compile(rf"(?:^|[{{,\s.])(?:{k}|\"{k}\"|'{k}')\s*[=.]")
        for number in range(first, last + 1):
            line = self.lines[number - 1]
            code = line.split("#", 1)[0] if "#" in line and '"' not in line else line
            if pattern.search(code):
                return number
        return None


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


def parse_scenario_text(text: str, *, name: str = "<scenarios>") -> ScenarioFile:
    """Parse and validate scenario TOML; errors name ``name`` and the line."""
    check_nesting(text, name, ScenarioError, toml=True)
    try:
        data = _toml_loads(text)
    except ScenarioError:
        raise
    except ValueError as exc:  # tomllib.TOMLDecodeError
        message = str(exc)
        m = _AT_LINE.search(message)
        if m:
            what = message[: m.start()].strip()
            raise ScenarioError(f"{name}:{m.group(1)}: not valid TOML: {what} "
                                f"(column {m.group(2)})") from None
        raise ScenarioError(f"{name}: not valid TOML: {message}") from None
    try:
        parsed = ScenarioFile.model_validate(data)
    except ValidationError as exc:
        locator = _Locator(text)
        found: list[tuple[int, str]] = []
        for err in exc.errors():
            loc, what = _describe_error(err, data)
            line = locator.line_of(loc)
            field_name = _where(data, loc) if loc else "file"
            prefix = f"{name}:{line}" if line else name
            found.append((line or 0, f"{prefix}: {field_name}: {what}"))
        # In file order, so the first message is the first thing to fix.
        raise ScenarioError("\n".join(m for _line, m in sorted(found))) from None
    problems = []
    locator = _Locator(text)
    seen: dict[str, int] = {}
    for i, scenario in enumerate(parsed.scenario):
        line = locator.header_line(("scenario", i))
        if scenario.name in seen:
            problems.append(f"{name}:{line or '?'}: scenario {scenario.name!r} appears twice "
                            f"(first as scenario #{seen[scenario.name] + 1})")
        seen.setdefault(scenario.name, i)
        for kind, cases in (("path", scenario.path), ("call", scenario.call)):
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


def case_lines(text: str) -> dict[tuple[Any, ...], int]:
    """Line of each case header (``("scenario", i, "path", j)`` -> line) in ``text``."""
    return {path: start for path, start, _end in _Locator(text).tables if path}


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


# ----------------------------------------------------------------- building the policy


@dataclass
class BuiltConfig:
    """A configuration resolved into the engine's objects."""

    policy: Policy
    catalog: Catalog
    registration: Registration
    access: Any
    over_http: bool | None
    #: The settings as they may be shown (secrets masked).
    shown: dict[str, Any]
    #: Secret values, for scrubbing free text.
    secrets: set[str]


def policy_from_config(config: ConfigSpec, base_dir: str | os.PathLike[str] = ".") -> BuiltConfig:
    """Resolve ``config`` (relative names against ``base_dir``) into a policy and friends.

    The rules for relative names and directories are :mod:`localfs_explorer.config`'s.
    Raises :class:`ScenarioError` for a configuration that can't be used: a missing
    ``.env``, an unknown host, an invalid host spec, catalog or access lists.
    """
    try:
        resolved = resolve_config(config.server_config(base_dir))
        catalog, access, registration = (resolved.catalog, resolved.access,
                                         resolved.registration)
    except ConfigError as exc:
        named = exc.part in ("env", "host", "catalog", "access")
        raise ScenarioError(f"{exc.part}: {exc}" if named else str(exc)) from None
    policy, env = resolved.policy, resolved.env
    shown: dict[str, Any] = {
        "env": resolved.env_path,
        "settings": masked(env.values),
        "transport": policy.transport,
        "over_http": config.over_http,
        "host": "this machine" if resolved.on_this_machine else policy.fs.label,
        "cwd": policy.cwd,
        "package_dir": policy.package_dir,
        "platform": policy.platform,
        "mode": policy.mode.value,
        "explicit": policy.explicit,
    }
    return BuiltConfig(policy, catalog, registration, access, config.over_http, shown,
                       resolved.secrets)


# ----------------------------------------------------------------------------- results


@dataclass
class Mismatch:
    """One expected field that came out differently."""

    field: str
    expected: Any
    actual: Any

    def describe(self) -> str:
        """``reason: expected 'allowed', got 'outside_roots'``."""
        return f"{self.field}: expected {_show(self.expected)}, got {_show(self.actual)}"


def _show(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, default=str)


@dataclass
class CaseResult:
    """The result of one expectation."""

    file: str
    scenario: str
    #: ``path``, ``call``, ``tools``, ``auth_status`` or ``policy``.
    kind: str
    #: A short name for the expectation, e.g. ``read /data/x.csv``.
    name: str
    line: int | None = None
    mismatches: list[Mismatch] = field(default_factory=list)
    #: The check's trace (or the call's per-path verdicts and notes).
    trace: list[str] = field(default_factory=list)
    #: Set when the expectation couldn't be evaluated at all.
    error: str | None = None
    #: The actual verdict, JSON-ready (for reports).
    actual: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """No mismatch and no error."""
        return not self.mismatches and self.error is None

    @property
    def id(self) -> str:
        """``file::scenario::name``, unique enough for test reports."""
        return f"{self.file}::{self.scenario}::{self.name}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "file": self.file, "scenario": self.scenario, "kind": self.kind,
            "name": self.name, "line": self.line, "passed": self.passed,
            "mismatches": [
                {"field": m.field, "expected": m.expected, "actual": m.actual}
                for m in self.mismatches
            ],
            "trace": list(self.trace), "error": self.error, "actual": self.actual,
        }


@dataclass
class ScenarioResult:
    """The results of one scenario."""

    file: str
    name: str
    line: int | None
    cases: list[CaseResult] = field(default_factory=list)
    #: The configuration as it may be shown (secrets masked), when it could be built.
    config: dict[str, Any] = field(default_factory=dict)
    #: Why the configuration couldn't be built (then there are no cases).
    error: str | None = None


@dataclass
class FileResult:
    """The results of one scenario file, or why it couldn't be run."""

    path: str
    title: str | None = None
    scenarios: list[ScenarioResult] = field(default_factory=list)
    error: str | None = None

    @property
    def cases(self) -> list[CaseResult]:
        """Every expectation of every scenario."""
        return [c for s in self.scenarios for c in s.cases]


# A test runner reports an engine that raises as that case's error and goes on, the way
# pytest reports an exception in one test; nothing the engine raises stops the run.
_ALWAYS_CAUGHT = (Exception,)


@dataclass
class Coverage:
    """Which rules of the check a run exercised, in the spirit of ``opa test --coverage``.

    Each category maps a rule to how many verdicts exercised it: ``reasons`` (every
    verdict reason, ``allowed`` included), ``deny_settings`` (which deny-list setting a
    refusal came from), ``tools`` (catalog tools called) and ``outcomes`` (call outcomes).
    """

    reasons: dict[str, int] = field(default_factory=lambda: dict.fromkeys(REASONS, 0))
    deny_settings: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(KNOWN_DENY_SETTINGS, 0))
    tools: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))

    CATEGORIES: typing.ClassVar[tuple[tuple[str, str], ...]] = (
        ("reasons", "refusal reason"),
        ("deny_settings", "deny-list setting"),
        ("tools", "catalog tool"),
        ("outcomes", "call outcome"),
    )

    def add_decision(self, reason: str, deny_setting: str | None = None) -> None:
        """Count one verdict (and the deny-list setting a refusal came from)."""
        self.reasons[reason] = self.reasons.get(reason, 0) + 1
        if deny_setting:
            self.deny_settings[deny_setting] = self.deny_settings.get(deny_setting, 0) + 1

    def add_catalog(self, names: Iterable[str]) -> None:
        """Make every tool of a catalog a rule (exercised or not)."""
        for name in names:
            self.tools.setdefault(name, 0)

    def add_call(self, name: str, outcome: str) -> None:
        """Count one call of ``name`` ending in ``outcome``."""
        self.tools[name] = self.tools.get(name, 0) + 1
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1

    def rules(self) -> list[tuple[str, str, int]]:
        """``(category label, rule, count)`` for every rule, in a stable order."""
        out = []
        for attr, label in self.CATEGORIES:
            for rule, count in getattr(self, attr).items():
                out.append((label, rule, count))
        return out

    @property
    def exercised(self) -> int:
        """How many rules at least one verdict exercised."""
        return sum(1 for _c, _r, n in self.rules() if n)

    @property
    def total(self) -> int:
        """How many rules there are."""
        return len(self.rules())

    def missed(self) -> list[tuple[str, str]]:
        """``(category label, rule)`` of every rule nothing exercised."""
        return [(c, r) for c, r, n in self.rules() if not n]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: per category, each rule's count; plus the totals."""
        return {
            "exercised": self.exercised, "total": self.total,
            **{attr: dict(getattr(self, attr)) for attr, _ in self.CATEGORIES},
        }


@dataclass
class RunResult:
    """The results of a whole run: files, and the coverage of the rules."""

    files: list[FileResult] = field(default_factory=list)
    coverage: Coverage = field(default_factory=Coverage)

    def _repr_html_(self) -> str:
        """Rich display in a notebook (the dashboard's renderer)."""
        from .render import run_result_repr

        return run_result_repr(self)

    @property
    def cases(self) -> list[CaseResult]:
        """Every expectation of every file."""
        return [c for f in self.files for c in f.cases]

    @property
    def passed(self) -> int:
        """Expectations that held."""
        return sum(1 for c in self.cases if c.passed)

    @property
    def failed(self) -> int:
        """Expectations that didn't."""
        return sum(1 for c in self.cases if not c.passed)

    @property
    def errors(self) -> list[str]:
        """Files and scenarios that couldn't be run, one message each."""
        out = [f.error for f in self.files if f.error]
        for f in self.files:
            out.extend(f"{f.path}: scenario {s.name!r}: {s.error}"
                       for s in f.scenarios if s.error)
        return out

    @property
    def summary(self) -> str:
        """``N passed, N failed``."""
        return f"{self.passed} passed, {self.failed} failed"

    @property
    def exit_code(self) -> int:
        """0 all passed, 1 something failed, 2 a file or scenario couldn't be run."""
        if self.errors:
            return 2
        return 1 if self.failed else 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary, cases and coverage."""
        return {
            "passed": self.passed, "failed": self.failed, "errors": self.errors,
            "cases": [c.to_dict() for c in self.cases],
            "scenarios": [
                {"file": f.path, "name": s.name, "config": s.config, "error": s.error}
                for f in self.files for s in f.scenarios
            ],
            "coverage": self.coverage.to_dict(),
        }


# ----------------------------------------------------------------------------- running


def _compare(out: list[Mismatch], name: str, expected: Any, actual: Any) -> None:
    if expected is not None and expected != actual:
        out.append(Mismatch(name, expected, actual))


def _compare_message(out: list[Mismatch], exact: str | None, contains: str | None,
                     actual: str, name: str = "message") -> None:
    if exact is not None and exact != actual:
        out.append(Mismatch(name, exact, actual))
    if contains is not None and contains not in actual:
        out.append(Mismatch(f"{name} contains", contains, actual))


def _decision_trace(d: Decision) -> list[str]:
    lines = [f"{s.step:<9} {s.outcome:<8} {s.detail}" for s in d.trace]
    if d.hint:
        lines.append(f"hint: {d.hint}")
    return lines


def _deny_setting(d: Decision) -> str | None:
    return d.deny_setting


class _ScenarioRunner:
    def __init__(self, file: str, scenario: Scenario, built: BuiltConfig,
                 lines: Mapping[tuple[Any, ...], int], index: int, coverage: Coverage) -> None:
        self.file, self.scenario, self.built = file, scenario, built
        self.lines, self.index, self.coverage = lines, index, coverage

    def line(self, *parts: Any) -> int | None:
        return self.lines.get(("scenario", self.index, *parts)) or self.lines.get(
            ("scenario", self.index))

    def case(self, kind: str, name: str, line: int | None) -> CaseResult:
        return CaseResult(file=self.file, scenario=self.scenario.name, kind=kind,
                          name=name, line=line)

    def clean(self, result: CaseResult) -> CaseResult:
        """Scrub secret values out of every text a case result carries."""
        secrets = self.built.secrets
        if not secrets:
            return result
        result.name = scrub(result.name, secrets)
        result.trace = [scrub(t, secrets) for t in result.trace]
        if result.error:
            result.error = scrub(result.error, secrets)
        for m in result.mismatches:
            m.field = scrub(m.field, secrets)
            m.expected = json.loads(scrub(json.dumps(m.expected), secrets))
            m.actual = json.loads(scrub(json.dumps(m.actual), secrets))
        result.actual = json.loads(scrub(json.dumps(result.actual), secrets))
        return result

    def over_http(self, case_value: bool | None) -> bool | None:
        return case_value if case_value is not None else self.built.over_http

    def run(self) -> list[CaseResult]:
        out: list[CaseResult] = []
        s = self.scenario
        if (policy := s.policy) is not None:
            out.append(self.guarded("policy", "policy", ("policy",),
                                    lambda: self.run_policy(policy)))
        for j, path_case in enumerate(s.path):
            out.append(self.run_path(path_case, j))
        for j, call_case in enumerate(s.call):
            out.append(self.guarded("call", call_case.label or f"call {call_case.tool}",
                                    ("call", j), functools.partial(self.run_call, call_case, j)))
        if (tools := s.tools) is not None:
            out.append(self.guarded("tools", "registered tools", ("tools",),
                                    lambda: self.run_tools(tools)))
        if (auth := s.auth_status) is not None:
            out.append(self.guarded("auth_status", "auth-status local_file_access",
                                    ("auth_status",), lambda: self.run_auth(auth)))
        return [self.clean(r) for r in out]

    def guarded(self, kind: str, name: str, where: tuple[Any, ...],
                fn: Callable[[], CaseResult]) -> CaseResult:
        """``fn()``, or a case whose error says what the engine raised."""
        try:
            return fn()
        except _ALWAYS_CAUGHT as exc:
            r = self.case(kind, name, self.line(*where))
            r.error = f"the engine raised {type(exc).__name__}: {exc}"
            return r

    def run_policy(self, case: PolicyCase) -> CaseResult:
        p = self.built.policy
        r = self.case("policy", "policy", self.line("policy"))
        m = r.mismatches
        _compare(m, "mode", case.mode, p.mode.value)
        _compare(m, "explicit", case.explicit, p.explicit)
        _compare(m, "serves", case.serves, p.serves)
        _compare_message(m, case.exit_message, case.exit_message_contains,
                         p.exit_message or "", "exit_message")
        warnings = [*p.env.warnings, *p.warnings]
        for text in case.warnings_contain:
            if not any(text in w for w in warnings):
                m.append(Mismatch("a warning containing", text, warnings))
        settings = sorted({e.setting for e in p.deny_list} | {d.setting for d in p.deny_dirs})
        for setting in case.deny_list_includes:
            if setting not in settings:
                m.append(Mismatch("deny-list settings include", setting, settings))
        for setting in case.deny_list_excludes:
            if setting in settings:
                m.append(Mismatch("deny-list settings exclude", setting, settings))
        r.actual = {"mode": p.mode.value, "explicit": p.explicit, "serves": p.serves,
                    "exit_message": p.exit_message or "", "warnings": warnings,
                    "deny_settings": settings}
        r.trace = [f"deny-list: {e.setting} -> {e.resolved}" for e in p.deny_list]
        r.trace += [f"deny dir: {d.setting} -> {d.resolved}/" for d in p.deny_dirs]
        r.trace += [f"warning: {w}" for w in warnings]
        return r

    def run_path(self, case: PathCase, j: int) -> CaseResult:
        name = case.label or f"{case.op} {show_nul(case.path)}"
        r = self.case("path", name, self.line("path", j))
        try:
            d = self.built.policy.check(case.path, case.op,
                                        over_http=self.over_http(case.over_http))
        except _ALWAYS_CAUGHT as exc:
            r.error = f"the check raised {type(exc).__name__}: {exc}"
            return r
        m = r.mismatches
        _compare(m, "allowed", case.allowed, d.allowed)
        _compare(m, "reason", case.reason, d.reason)
        _compare_message(m, case.message, case.message_contains, d.message)
        _compare(m, "resolved", case.resolved, d.resolved)
        r.actual = {"allowed": d.allowed, "reason": d.reason, "message": d.message,
                    "resolved": d.resolved}
        try:
            r.trace = _decision_trace(d)
            setting = _deny_setting(d)
        except _ALWAYS_CAUGHT as exc:
            # The verdict was compared; only its explanation failed. Say so beside it.
            r.trace = [f"the trace could not be worked out: {type(exc).__name__}: {exc}"]
            setting = None
        self.coverage.add_decision(d.reason, setting)
        return r

    def run_call(self, case: CallCase, j: int) -> CaseResult:
        from .probe import probe_call

        name = case.label or f"call {case.tool}"
        r = self.case("call", name, self.line("call", j))
        b = self.built
        try:
            v = probe_call(b.policy, case.tool, case.arguments,
                           over_http=self.over_http(case.over_http), access=b.access,
                           catalog=b.catalog, registration=b.registration,
                           expected_paths=case.expected_paths, drive_names=case.drive_names)
        except _ALWAYS_CAUGHT as exc:
            r.error = f"the probe raised {type(exc).__name__}: {exc}"
            return r
        self.coverage.add_call(case.tool, v.outcome)
        for p in v.paths:
            if not p.advisory:
                self.coverage.add_decision(p.reason, self._call_deny_setting(p))
        m = r.mismatches
        _compare(m, "outcome", case.outcome, v.outcome)
        _compare_message(m, case.message, case.message_contains, v.message)
        _compare(m, "gate", case.gate, v.gate)
        _compare(m, "visible", case.visible, v.visible)
        _compare(m, "registered", case.registered, v.registered)
        for text in case.notes_contain:
            if not any(text in n for n in v.notes):
                m.append(Mismatch("a note containing", text, list(v.notes)))
        for k, want in enumerate(case.path):
            self._compare_call_path(m, want, k, v)
        r.actual = v.to_json_dict()
        r.trace = _call_trace(v)
        return r

    def _call_deny_setting(self, p: Any) -> str | None:
        if p.reason != "denied":
            return None
        try:
            # over_http only arms the tripwire, which didn't fire for a deny-list refusal.
            return _deny_setting(self.built.policy.check(p.path, p.op, over_http=False))
        except _ALWAYS_CAUGHT:
            return None

    @staticmethod
    def _compare_call_path(m: list[Mismatch], want: CallPathCase, k: int,
                           v: CallVerdict) -> None:
        label = f"path {show_nul(want.path)}"
        candidates = [p for p in v.paths if p.path == want.path
                      and (want.kind is None or p.kind == want.kind)
                      and (want.argument is None or p.argument == want.argument)]
        if not candidates:
            m.append(Mismatch(f"{label}", "present in the call's verdict",
                              [show_nul(p.path) for p in v.paths]))
            return
        p = candidates[0]
        sub: list[Mismatch] = []
        _compare(sub, "op", want.op, p.op)
        _compare(sub, "allowed", want.allowed, p.allowed)
        _compare(sub, "reason", want.reason, p.reason)
        _compare_message(sub, want.message, want.message_contains, p.message)
        _compare(sub, "step", want.step, p.step)
        _compare(sub, "resolved", want.resolved, p.resolved)
        for item in sub:
            item.field = f"{label} {item.field}"
        m.extend(sub)

    def run_tools(self, case: ToolsCase) -> CaseResult:
        reg = self.built.registration
        r = self.case("tools", "registered tools", self.line("tools"))
        m = r.mismatches
        missing = [t for t in case.registered if not reg.is_registered(t)]
        if missing:
            m.append(Mismatch("registered", case.registered,
                              f"not registered: {', '.join(missing)}"))
        present = [t for t in case.not_registered if reg.is_registered(t)]
        if present:
            m.append(Mismatch("not_registered", case.not_registered,
                              f"registered: {', '.join(present)}"))
        if case.unregistered is not None and sorted(case.unregistered) != sorted(
                reg.unregistered):
            m.append(Mismatch("unregistered", sorted(case.unregistered),
                              sorted(reg.unregistered)))
        for text in case.warnings_contain:
            if not any(text in w for w in reg.warnings):
                m.append(Mismatch("a warning containing", text, list(reg.warnings)))
        r.actual = reg.to_json_dict()
        r.trace = [f"registered: {', '.join(reg.registered) or '(none)'}",
                   f"unregistered (off mode): {', '.join(reg.unregistered) or '(none)'}"]
        if reg.not_enabled:
            r.trace.append(f"not in ENABLED_TOOLS: {', '.join(reg.not_enabled)}")
        r.trace += [f"warning: {w}" for w in reg.warnings]
        for name in case.registered:
            why = reg.why_absent(name)
            if why:
                r.trace.append(why)
        return r

    def run_auth(self, case: AuthStatusCase) -> CaseResult:
        from .auth_status import local_file_access

        r = self.case("auth_status", "auth-status local_file_access", self.line("auth_status"))
        actual = local_file_access(self.built.policy, self.built.registration)
        for key in ("mode", "explicit", "roots", "unregistered_tools"):
            _compare(r.mismatches, key, getattr(case, key), actual.get(key))
        r.actual = actual
        r.trace = [json.dumps({"local_file_access": actual}, ensure_ascii=False)]
        return r


def _call_trace(v: CallVerdict) -> list[str]:
    lines = []
    for p in v.paths:
        verdict = "allowed" if p.allowed else f"refused [{p.reason}]"
        step = f" ({p.step})" if p.step else ""
        extra = " advisory" if p.advisory else ""
        lines.append(f"{p.kind:<10} {p.argument}: {p.op} {show_nul(p.path)} -> "
                     f"{verdict}{step}{extra}")
        if p.message:
            lines.append(f"{'':<10} {p.message}")
    lines += [f"note: {n}" for n in v.notes]
    return lines


def run_scenario_file(path: str | os.PathLike[str], *,
                      coverage: Coverage | None = None, name: str | None = None,
                      base_dir: str | os.PathLike[str] | None = None) -> FileResult:
    """Run every scenario of one file. A malformed file is a result with ``error`` set.

    ``name`` is how results name the file (default: its path); relative names in it
    resolve against ``base_dir`` (default: the file's own folder).
    """
    shown = name or str(path)
    try:
        text = read_text(path, ScenarioError)
    except ScenarioError as exc:
        return FileResult(shown, error=str(exc).replace(str(path), shown))
    base = Path(path).parent if base_dir is None else base_dir
    return run_scenario_text(text, name=shown, base_dir=base, coverage=coverage)


def run_scenario_text(
    text: str,
    *,
    name: str = "<scenarios>",
    base_dir: str | os.PathLike[str] = ".",
    coverage: Coverage | None = None,
    allow_this_machine: bool = True,
) -> FileResult:
    """Run scenario TOML that didn't come from a file (an upload, a text box).

    Relative names in it resolve against ``base_dir``. With ``allow_this_machine`` False,
    a scenario whose configuration reads this machine (its filesystem or a file on it)
    is an error instead of being run: a page served to others must not answer for the
    machine serving it.
    """
    coverage = coverage if coverage is not None else Coverage()
    try:
        parsed = parse_scenario_text(text, name=name)
    except ScenarioError as exc:
        return FileResult(name, error=str(exc))
    lines = case_lines(text)
    result = FileResult(name, title=parsed.title)
    for i, scenario in enumerate(parsed.scenario):
        line = lines.get(("scenario", i))
        config = parsed.config.merged(scenario.config)
        sres = ScenarioResult(name, scenario.name, line)
        try:
            if not allow_this_machine:
                uses = machine_references(config)
                if uses:
                    raise ScenarioError(
                        f"reads this machine ({', '.join(uses)}), which this page may not "
                        "do; use a shipped example or an inline host, and inline settings"
                    )
            built = policy_from_config(config, base_dir)
        except ScenarioError as exc:
            sres.error = f"line {line}: {exc}" if line else str(exc)
            result.scenarios.append(sres)
            continue
        sres.config = built.shown
        # The tools that touch local files: the rest of the server's tools have no rule
        # of the policy to exercise.
        coverage.add_catalog([t.name for t in built.catalog.tools if t.touches_disk])
        for entry in built.policy.deny_list:
            coverage.deny_settings.setdefault(entry.setting, 0)
        sres.cases = _ScenarioRunner(name, scenario, built, lines, i, coverage).run()
        result.scenarios.append(sres)
    return result


def machine_references(config: ConfigSpec) -> list[str]:
    """Which keys of ``config`` read this machine: its filesystem or files on it."""
    from .fs.spec import list_example_hosts

    uses = []
    if config.host is None or config.host == "host":
        uses.append("host: this machine")
    elif isinstance(config.host, str) and config.host not in list_example_hosts():
        uses.append(f"host file {config.host}")
    for key in ("env", "profile", "catalog"):
        if getattr(config, key):
            uses.append(f"{key} file {getattr(config, key)}")
    if isinstance(config.access, str):
        uses.append(f"access file {config.access}")
    return uses


def run_scenarios(targets: Iterable[str | os.PathLike[str]], *,
                  stdin_file: str | None = None) -> RunResult:
    """Run scenario files and folders (searched for ``*.toml``); see :class:`RunResult`.

    A target that doesn't exist raises :class:`ScenarioError`; a file that can't be
    parsed becomes a :class:`FileResult` with ``error`` set, and the rest still run.
    ``stdin_file`` names the file standard input was saved to: it is shown as
    ``<stdin>`` and its relative names mean the current directory.
    """
    run = RunResult()
    for path in collect_scenario_files(targets):
        if stdin_file is not None and str(path) == stdin_file:
            run.files.append(run_scenario_file(path, coverage=run.coverage, name="<stdin>",
                                               base_dir=os.getcwd()))
        else:
            run.files.append(run_scenario_file(path, coverage=run.coverage))
    return run


# -------------------------------------------------------------- pinning current answers


def pin_scenario(
    name: str,
    config: ConfigSpec,
    *,
    decisions: Iterable[Decision] = (),
    calls: Iterable[tuple[str, Mapping[str, Any], CallVerdict]] = (),
    policy: Policy | None = None,
    registration: Registration | None = None,
    description: str = "",
) -> Scenario:
    """A scenario expecting exactly today's answers: a baseline a later change must keep.

    ``decisions`` become path expectations (allowed, reason and the exact message),
    ``calls`` (``(tool, arguments, verdict)``) call expectations (outcome, message,
    visibility); with ``policy``, the policy and auth-status expectations are pinned too.
    """
    paths = [
        PathCase(path=d.path, op=d.op, allowed=d.allowed, reason=d.reason, message=d.message)
        for d in decisions
    ]
    pinned_calls = [
        CallCase(tool=tool, arguments=dict(arguments), outcome=v.outcome, message=v.message,
                 visible=v.visible)
        for tool, arguments, v in calls
    ]
    extra: dict[str, Any] = {}
    if policy is not None:
        from .auth_status import local_file_access

        extra["policy"] = PolicyCase(mode=policy.mode.value, explicit=policy.explicit,
                                     serves=policy.serves)
        status = local_file_access(policy, registration)
        extra["auth_status"] = AuthStatusCase(**status)
    if description:
        extra["description"] = description
    return Scenario(name=name, config=config, path=paths, call=pinned_calls, **extra)


# ----------------------------------------------------------------------------- writing

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _toml_string(key)


def _toml_string(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ScenarioError(f"{value!r} can't be written to TOML: it isn't valid text") \
            from None
    # JSON's escapes are all valid in a TOML basic string; DEL must be escaped too.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        inner = ", ".join(f"{_toml_key(str(k))} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if value is None:
        raise ScenarioError("TOML has no null: leave the key out instead")
    raise ScenarioError(f"can't write a {type(value).__name__} to TOML")


def _table_lines(header: str, data: Mapping[str, Any]) -> Iterator[str]:
    yield header
    for key, value in data.items():
        if value is None:
            continue
        yield f"{_toml_key(key)} = {_toml_value(value)}"


def dump_scenario_file(scenario_file: ScenarioFile) -> str:
    """``scenario_file`` as TOML text that :func:`parse_scenario_text` reads back equal."""
    out: list[str] = []
    top = scenario_file.model_dump(exclude_unset=True, exclude={"config", "scenario"})
    for key, value in top.items():
        out.append(f"{_toml_key(key)} = {_toml_value(value)}")
    config = scenario_file.config.model_dump(exclude_unset=True)
    if config:
        out.append("")
        out.extend(_table_lines("[config]", config))
    for scenario in scenario_file.scenario:
        out.append("")
        head = scenario.model_dump(exclude_unset=True,
                                   exclude={"config", "path", "call", "tools", "auth_status",
                                            "policy"})
        head.setdefault("name", scenario.name)
        out.extend(_table_lines("[[scenario]]", head))
        config = scenario.config.model_dump(exclude_unset=True)
        if config:
            out.append("")
            out.extend(_table_lines("[scenario.config]", config))
        if scenario.policy is not None:
            out.append("")
            out.extend(_table_lines("[scenario.policy]",
                                    scenario.policy.model_dump(exclude_unset=True)))
        for case in scenario.path:
            out.append("")
            out.extend(_table_lines("[[scenario.path]]", case.model_dump(exclude_unset=True)))
        for call in scenario.call:
            out.append("")
            data = call.model_dump(exclude_unset=True, exclude={"path"})
            out.extend(_table_lines("[[scenario.call]]", data))
            for sub in call.path:
                out.append("")
                out.extend(_table_lines("[[scenario.call.path]]",
                                        sub.model_dump(exclude_unset=True)))
        for kind in ("tools", "auth_status"):
            part = getattr(scenario, kind)
            if part is not None:
                out.append("")
                out.extend(_table_lines(f"[scenario.{kind}]",
                                        part.model_dump(exclude_unset=True)))
    return "\n".join(out) + "\n"
