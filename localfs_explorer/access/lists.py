"""Tool access lists: which tools a caller sees, which are held for approval.

A :class:`ToolAccess` holds three lists of fnmatch patterns over tool names:

- ``deny_list``: the tool is blocked (hidden from the model, never invoked);
- ``approval_list``: the tool is visible but each call waits for a person to approve
  it, for at most ``approval_timeout_seconds``;
- ``allow_list``: when non-empty, only matching tools are visible.

For one scope the first rule that matches decides, in the order deny > approval >
allow > unrestricted. Approval outranks allow, so a tool named only on the approval
list is visible (held) even when an allow list doesn't name it; deny outranks
approval, so consent can never revive a denied tool. With both allow and deny empty
every tool is visible.

Scopes narrow one another (server → group → member): a narrower scope can hide more
tools but can never show again a tool a broader scope hid, and the approval gate only
grows. A merged policy is kept as the conjunction of its scopes, each with its own
three lists, instead of being flattened into one set of lists. Flattening is where
such merges historically went wrong (a broader deny list dropped once a narrower
scope restated its allow list; one side's deny list lost when only the other had an
allow list); with one list per scope, ``merged.filter(t) ==
narrower.filter(broader.filter(t))`` holds by construction, for every ``t``.

Patterns name tools, not files, and are compared case-sensitively (MCP tool names
are case-sensitive; :func:`fnmatch.fnmatch` would fold case on Windows). A pattern
may use the characters of an MCP tool name (ASCII letters, digits, ``_ - . /``) and
the glob characters ``* ? [...]``. Anything else is rejected with an
:class:`AccessListError` because no tool could match it: whitespace and control
characters, ``,`` and ``;`` (a list written as one string), a backslash (fnmatch has
no escape character), a leading ``!`` (fnmatch has no negation; that is what the
deny list is for), an unclosed ``[``, and anything starting like a filesystem path
(``/``, ``./``, ``../``, ``~``) because file paths belong to the file policy.
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase, translate
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from ..errors import LocalfsError
from ..userfiles import parse_json, parse_toml, read_text
from ..vocab import Gate

__all__ = [
    "SCOPE_NAMES",
    "AccessListError",
    "Gate",
    "ToolAccess",
    "access_from_mapping",
    "load_access",
    "merge",
    "merge_scopes",
    "pattern_problem",
]

#: What happens when the model calls a tool: it runs, it waits for approval, or the
#: tool isn't there at all.

#: The scopes an access file may define, broadest first.
SCOPE_NAMES: tuple[str, ...] = ("server", "group", "member")
_LIST_FIELDS: tuple[str, ...] = ("allow_list", "deny_list", "approval_list")
_SCOPE_KEYS: tuple[str, ...] = (*_LIST_FIELDS, "approval_timeout_seconds")
DEFAULT_APPROVAL_TIMEOUT_SECONDS = 300

# SEP-986 tool-name characters.
_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_-./")
_BRACKET = re.compile(r"\[!?\]?[^\]]*\]")


class AccessListError(LocalfsError):
    """An access list that can't be used: a bad pattern, an unknown key, an unreadable file."""


def pattern_problem(pattern: object) -> str | None:
    """Why ``pattern`` can't be a tool-name glob, or None when it can."""
    if not isinstance(pattern, str):
        return f"must be a string, not {type(pattern).__name__}"
    if not pattern:
        return "is empty"
    if any(ch.isspace() for ch in pattern):
        return "contains whitespace, which no tool name has"
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in pattern):
        return "contains a control character"
    if "," in pattern or ";" in pattern:
        return "contains ',' or ';': write each pattern as its own list item"
    if "\\" in pattern:
        return "contains a backslash; fnmatch patterns have no escape character"
    if pattern.startswith(("/", "./", "../", "~")):
        return "looks like a filesystem path; access lists name tools"
    if pattern.startswith("!"):
        return "starts with '!', but fnmatch has no negation ('!' only works inside [...])"
    outside = _BRACKET.sub("", pattern)
    if "[" in outside:
        return "has an unclosed '['"
    for ch in outside:
        if ch not in _NAME_CHARS and ch not in "*?":
            return (
                f"contains {ch!r}, which no MCP tool name has "
                "(letters, digits, _ - . / and the glob characters * ? [ ])"
            )
    for bracket in _BRACKET.findall(pattern):
        for ch in bracket[1:-1].lstrip("!"):
            if ch not in _NAME_CHARS:
                return f"contains {ch!r} inside [...], which no MCP tool name has"
    return None


def _check_patterns(value: object) -> tuple[str, ...]:
    """Validate one list of patterns; a message starts with the offending item's index."""
    if isinstance(value, str):
        raise ValueError(f'must be a list of patterns such as ["{value}"], not one string')
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"must be a list of patterns, not {type(value).__name__}")
    for index, pattern in enumerate(value):
        problem = pattern_problem(pattern)
        if problem is not None:
            raise ValueError(f"[{index}] {pattern!r} {problem}")
    return tuple(value)


@lru_cache(maxsize=4096)
def _matcher(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """One compiled test for a tuple of patterns, with fnmatchcase's exact semantics."""
    if not patterns:
        return lambda _name: False
    regex = re.compile("|".join(f"(?:{translate(p)})" for p in patterns))
    return lambda name: regex.match(name) is not None


def _first_match(name: str, patterns: tuple[str, ...]) -> str | None:
    return next((p for p in patterns if fnmatchcase(name, p)), None)


class ToolAccess(BaseModel):
    """Allow, deny and approval lists for one scope, within any broader scopes.

    The three lists and ``scope`` belong to the narrowest scope. ``broader_scopes``
    holds the broader scopes this one sits within (broadest first, each a single
    scope); a tool must pass every one of them to be visible. Build merged policies
    with :func:`merge` or :func:`merge_scopes` rather than by hand.
    ``approval_timeout_seconds`` is the one in force: for a merged policy, the
    shortest of its scopes'.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    allow_list: tuple[str, ...] = ()
    deny_list: tuple[str, ...] = ()
    approval_list: tuple[str, ...] = ()
    approval_timeout_seconds: int = DEFAULT_APPROVAL_TIMEOUT_SECONDS
    #: A label for messages: "server", "group", "member", or empty.
    scope: str = ""
    broader_scopes: tuple[ToolAccess, ...] = ()

    def __init__(self, **data: Any) -> None:
        # Callers get our error type with a readable message, not pydantic's report.
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise AccessListError(_describe(exc)) from None

    @field_validator(*_LIST_FIELDS, mode="before")
    @classmethod
    def _valid_patterns(cls, value: object) -> tuple[str, ...]:
        return _check_patterns(value)

    @field_validator("approval_timeout_seconds", mode="before")
    @classmethod
    def _valid_timeout(cls, value: object) -> int:
        # bool is an int in Python; `true` in a file is a mistake, not one second.
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"must be a whole number of seconds above 0, not {value!r}")
        return value

    @field_validator("broader_scopes", mode="after")
    @classmethod
    def _flat_chain(cls, value: tuple[ToolAccess, ...]) -> tuple[ToolAccess, ...]:
        # Keep the chain one level deep so every scope is checked exactly once.
        flat: list[ToolAccess] = []
        for outer in value:
            flat.extend(outer._scopes())
        return tuple(flat)

    # -- one scope ---------------------------------------------------------------

    def _own_gate(self, name: str) -> Gate:
        """This scope's own ladder, ignoring broader scopes."""
        if _matcher(self.deny_list)(name):
            return "blocked"
        if _matcher(self.approval_list)(name):
            return "approval"
        if self.allow_list and not _matcher(self.allow_list)(name):
            return "blocked"
        return "execute"

    def _is_blank(self) -> bool:
        return not (self.allow_list or self.deny_list or self.approval_list)

    def _scopes(self) -> tuple[ToolAccess, ...]:
        """Every scope in force, broadest first, each without broader scopes."""
        own = self.model_copy(update={"broader_scopes": ()}) if self.broader_scopes else self
        return (*self.broader_scopes, own)

    # -- questions -----------------------------------------------------------------

    def gate(self, name: str) -> Gate:
        """``"blocked"`` if any scope hides ``name``; else ``"approval"`` if any holds it."""
        held = False
        for scope in (*self.broader_scopes, self):
            verdict = scope._own_gate(name)
            if verdict == "blocked":
                return "blocked"
            held = held or verdict == "approval"
        return "approval" if held else "execute"

    def is_visible(self, name: str) -> bool:
        """Whether the model sees the tool at all (approval-held tools are visible)."""
        return self.gate(name) != "blocked"

    def requires_approval(self, name: str) -> bool:
        """Whether the tool is visible and some scope holds its calls for approval."""
        return self.gate(name) == "approval"

    def filter(self, names: Iterable[str]) -> list[str]:
        """The visible names, in their order (duplicates kept)."""
        return [name for name in names if self.gate(name) != "blocked"]

    def is_unrestricted(self) -> bool:
        """True when no scope lists anything: every tool runs without approval."""
        return all(scope._is_blank() for scope in (*self.broader_scopes, self))

    @property
    def approval_patterns(self) -> tuple[str, ...]:
        """Every approval pattern in force across scopes (the union), in order."""
        seen: dict[str, None] = {}
        for scope in (*self.broader_scopes, self):
            seen.update(dict.fromkeys(scope.approval_list))
        return tuple(seen)

    def explain(self, name: str) -> str:
        """One sentence on why ``name`` gets its gate, naming the scope and pattern."""
        held: list[str] = []
        for scope in (*self.broader_scopes, self):
            where = f"the {scope.scope} scope's" if scope.scope else "the"
            denied = _first_match(name, scope.deny_list)
            if denied is not None:
                return f"blocked: {where} deny_list matches {denied!r}"
            approval = _first_match(name, scope.approval_list)
            if approval is not None:
                held.append(f"{where} approval_list matches {approval!r}")
            elif scope.allow_list and _first_match(name, scope.allow_list) is None:
                return f"blocked: {where} allow_list doesn't match it"
        if held:
            return (
                "held for approval (up to "
                f"{self.approval_timeout_seconds} s): " + "; ".join(held)
            )
        if self.is_unrestricted():
            return "runs: no access list restricts tools"
        return "runs: no access list blocks it or holds it for approval"

    # -- building ------------------------------------------------------------------

    @classmethod
    def with_access_lists(
        cls,
        allow_list: Iterable[str],
        deny_list: Iterable[str],
        *,
        carrying_from: ToolAccess | None,
    ) -> ToolAccess:
        """Restate the allow and deny lists, keeping everything else of ``carrying_from``.

        An update that carries only allow and deny may narrow access but must never
        drop a consent requirement, so the approval list, its timeout, the scope label
        and the broader scopes all come from the policy in force. ``None`` means there
        is nothing to carry.
        """
        allow, deny = tuple(allow_list), tuple(deny_list)
        if carrying_from is None:
            return cls(allow_list=allow, deny_list=deny)
        return cls(
            allow_list=allow,
            deny_list=deny,
            approval_list=carrying_from.approval_list,
            approval_timeout_seconds=carrying_from.approval_timeout_seconds,
            scope=carrying_from.scope,
            broader_scopes=carrying_from.broader_scopes,
        )

    def describe(self) -> str:
        """The lists of every scope on one line each, for people."""
        if self.is_unrestricted():
            return "unrestricted: every tool is visible and runs without approval"
        lines = []
        for scope in (*self.broader_scopes, self):
            if scope._is_blank():
                continue
            parts = [f"{field}={list(getattr(scope, field))}" for field in _LIST_FIELDS
                     if getattr(scope, field)]
            lines.append(f"{scope.scope or 'scope'}: " + ", ".join(parts))
        if self.approval_patterns:
            lines.append(f"approval timeout: {self.approval_timeout_seconds} s")
        return "\n".join(lines)


ToolAccess.model_rebuild()


def merge(broader: ToolAccess, narrower: ToolAccess) -> ToolAccess:
    """The policy in force when ``narrower`` applies within ``broader``.

    Every scope of both stays in force, so a tool hidden by either stays hidden, a
    tool held by either stays held, and ``merge(b, n).filter(t) ==
    n.filter(b.filter(t))`` for every list ``t``. A scope with no lists changes
    nothing and is dropped (its timeout included). The timeout is the shorter one.
    """
    if narrower.is_unrestricted():
        return broader
    if broader.is_unrestricted():
        return narrower
    scopes = [s for s in (*broader._scopes(), *narrower._scopes()) if not s._is_blank()]
    *outer, inner = scopes
    return ToolAccess(
        allow_list=inner.allow_list,
        deny_list=inner.deny_list,
        approval_list=inner.approval_list,
        approval_timeout_seconds=min(
            broader.approval_timeout_seconds, narrower.approval_timeout_seconds
        ),
        scope=inner.scope,
        broader_scopes=tuple(outer),
    )


def merge_scopes(*scopes: ToolAccess | None) -> ToolAccess:
    """Merge scopes given broadest first (server, group, member); None is skipped."""
    result = ToolAccess()
    for scope in scopes:
        if scope is not None:
            result = merge(result, scope)
    return result


# -- reading access files ------------------------------------------------------------


def _describe(exc: ValidationError, where: str = "") -> str:
    """pydantic's errors as ``where field: message`` lines."""
    lines = []
    for error in exc.errors():
        loc = ".".join(str(part) for part in error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        prefix = " ".join(part for part in (where, loc) if part)
        # "allow_list[2] 'x y' contains whitespace" reads better than "allow_list: [2] ...".
        sep = "" if message.startswith("[") else ": "
        lines.append(f"{prefix}{sep}{message}" if prefix else message)
    return "; ".join(lines)


def access_from_mapping(data: Mapping[str, Any], *, source: str = "access lists") -> ToolAccess:
    """Build the merged policy from ``{"server": {...}, "group": {...}, "member": {...}}``.

    Each table is optional and may hold ``allow_list``, ``deny_list``,
    ``approval_list`` and ``approval_timeout_seconds``. Unknown keys are errors that
    name them, because a misspelt ``deny_lists`` silently allowing everything is the
    failure this module exists to prevent.
    """
    if not isinstance(data, Mapping):
        raise AccessListError(f"{source}: expected a table of scopes, not {type(data).__name__}")
    unknown = [key for key in data if key not in SCOPE_NAMES]
    if unknown:
        raise AccessListError(
            f"{source}: unknown key(s) {', '.join(repr(k) for k in unknown)} "
            f"(expected the tables {', '.join(SCOPE_NAMES)})"
        )
    scopes: list[ToolAccess] = []
    for name in SCOPE_NAMES:
        if name not in data:
            continue
        table = data[name]
        if not isinstance(table, Mapping):
            raise AccessListError(f"{source}: [{name}] must be a table, not {table!r}")
        bad = [key for key in table if key not in _SCOPE_KEYS]
        if bad:
            raise AccessListError(
                f"{source}: [{name}] unknown key(s) {', '.join(repr(k) for k in bad)} "
                f"(expected {', '.join(_SCOPE_KEYS)})"
            )
        try:
            scopes.append(ToolAccess(**dict(table), scope=name))
        except AccessListError as exc:
            raise AccessListError(f"{source}: [{name}] {exc}") from None
    return merge_scopes(*scopes)


def _parse_toml(text: str, source: str) -> Any:
    return parse_toml(text, source, AccessListError)


def load_access(source: str | os.PathLike[str] | Mapping[str, Any]) -> ToolAccess:
    """Read access lists from a TOML or JSON file (or take a mapping) and merge the scopes.

    A ``.json`` file, or any file whose text starts with ``{``, is read as JSON;
    anything else as TOML.
    """
    if isinstance(source, Mapping):
        return access_from_mapping(source)
    path = Path(source)
    text = read_text(path, AccessListError)
    if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
        data = parse_json(text, path, AccessListError)
    else:
        data = _parse_toml(text, str(path))
    return access_from_mapping(data, source=str(path))
