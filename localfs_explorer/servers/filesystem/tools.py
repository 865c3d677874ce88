"""The filesystem server's 14 tools and how each one passes its paths through the check.

The tools, their annotation hints and their path arguments are data
(``data/tools.json``). :func:`predict_call` answers a whole tool call the way the server
would: a single-path tool fails with its path's refusal; ``move_file`` checks the source
and then the destination, and refuses a destination that exists (2026.8.31 and later);
``read_multiple_files`` turns each refused path into that file's ``Error - `` line
inside a successful result; ``directory_tree`` checks every directory it enters, and
one refusal fails the whole call; ``search_files`` skips, without a word, every entry
below its start that fails the check.
"""

from __future__ import annotations

import json
import stat as _stat
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from .nodepath import join
from .policy import V_OLD, FilesystemPolicy, PathVerdict

__all__ = ["CallPrediction", "FsTool", "load_tools", "predict_call"]


@dataclass(frozen=True)
class FsTool:
    """One tool: its name, title, annotation hints, path arguments and special rule."""

    name: str
    title: str
    annotations: dict[str, bool]
    params: tuple[tuple[str, str], ...]  # (argument, "read" | "write")
    rule: str | None = None
    note: str = ""

    @property
    def read_only(self) -> bool:
        return bool(self.annotations.get("readOnlyHint"))

    @property
    def destructive(self) -> bool:
        # MCP's default for a tool that isn't read-only is "destructive".
        return not self.read_only and self.annotations.get("destructiveHint", True)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "annotations": dict(self.annotations),
                "params": [{"location": a, "op": o} for a, o in self.params],
                "rule": self.rule, "note": self.note}


@lru_cache(maxsize=1)
def load_tools() -> tuple[FsTool, ...]:
    """The shipped tool list, in the order the server registers the tools."""
    text = resources.files(__package__).joinpath("data/tools.json").read_text("utf-8")
    raw = json.loads(text)
    return tuple(
        FsTool(t["name"], t["title"], dict(t["annotations"]),
               tuple((p["location"], p["op"]) for p in t.get("params", ())),
               t.get("rule"), t.get("note", ""))
        for t in raw["tools"]
    )


def tool_named(name: str) -> FsTool | None:
    return next((t for t in load_tools() if t.name == name), None)


@dataclass(frozen=True)
class CallPrediction:
    """What a tool call would come to: ``refused`` with the tool's error ``message``, or
    carried out on ``targets``. ``item_errors`` are per-item errors inside a successful
    answer (read_multiple_files), ``skipped`` the entries a search passes over silently,
    ``verdicts`` every check made, in order."""

    tool: str
    refused: bool
    message: str
    targets: tuple[str, ...] = ()
    verdicts: tuple[PathVerdict, ...] = ()
    item_errors: tuple[str, ...] = ()
    skipped: tuple[PathVerdict, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "refused": self.refused, "message": self.message,
                "targets": list(self.targets),
                "verdicts": [v.to_dict() for v in self.verdicts],
                "item_errors": list(self.item_errors),
                "skipped": [v.to_dict() for v in self.skipped]}


def predict_call(policy: FilesystemPolicy, tool: str, arguments: dict[str, Any],
                 *, walk_limit: int = 10_000) -> CallPrediction:
    """The server's answer to ``tool(arguments)`` as far as its path checks decide it."""
    spec = tool_named(tool)
    if spec is None:
        return CallPrediction(tool, True, f"Tool {tool} not found")
    if tool == "read_multiple_files":
        verdicts = tuple(policy.validate(p) for p in arguments.get("paths") or ())
        errors = tuple(f"{v.path}: Error - {v.message}" for v in verdicts if not v.allowed)
        targets = tuple(v.resolved for v in verdicts if v.resolved)
        return CallPrediction(tool, False, "", targets, verdicts, errors)
    verdicts_list: list[PathVerdict] = []
    for arg, _op in spec.params:
        v = policy.validate(str(arguments.get(arg, "")))
        verdicts_list.append(v)
        if not v.allowed:
            return CallPrediction(tool, True, v.message, (), tuple(verdicts_list))
    verdicts = tuple(verdicts_list)
    targets = tuple(v.resolved for v in verdicts if v.resolved)
    if tool == "move_file" and policy.version != V_OLD:
        dest = verdicts[1].resolved or ""
        try:
            policy.fs.lstat(dest)
        except (OSError, ValueError):
            pass
        else:
            return CallPrediction(tool, True, f"Destination already exists: {dest}",
                                  targets, verdicts)
    if tool == "directory_tree":
        return _tree(policy, str(arguments.get("path", "")), verdicts, walk_limit)
    if tool == "search_files":
        return _search(policy, verdicts[0], walk_limit)
    return CallPrediction(tool, False, "", targets, verdicts)


def _entries(policy: FilesystemPolicy, directory: str) -> list[tuple[str, bool]]:
    """A directory's entries and whether each is a directory itself (not following a
    symlink, as a directory entry's type says)."""
    out = []
    try:
        names = policy.fs.listdir(directory)
    except (OSError, ValueError):
        return []
    for name in sorted(names):
        try:
            is_dir = _stat.S_ISDIR(policy.fs.lstat(join(directory, name)).st_mode)
        except (OSError, ValueError):
            is_dir = False
        out.append((name, is_dir))
    return out


def _tree(policy: FilesystemPolicy, start: str, first: tuple[PathVerdict, ...],
          limit: int) -> CallPrediction:
    """directory_tree: each directory entered is checked again, spelled as the request
    spelled the start plus the names below it; the first refusal is the call's error."""
    verdicts = list(first)
    pending = [(start, first[0].resolved or "")]
    while pending and len(verdicts) < limit:
        requested, real = pending.pop()
        for name, is_dir in _entries(policy, real):
            if not is_dir:
                continue
            sub = join(requested, name)
            v = policy.validate(sub)
            verdicts.append(v)
            if not v.allowed:
                return CallPrediction("directory_tree", True, v.message, (), tuple(verdicts))
            pending.append((sub, v.resolved or ""))
    return CallPrediction("directory_tree", False, "", (first[0].resolved or "",),
                          tuple(verdicts))


def _search(policy: FilesystemPolicy, first: PathVerdict, limit: int) -> CallPrediction:
    """search_files: every entry below the (resolved) start is checked; a refused one is
    skipped silently, and a directory is entered only when its check passes."""
    verdicts = [first]
    skipped: list[PathVerdict] = []
    pending = [first.resolved or ""]
    while pending and len(verdicts) < limit:
        current = pending.pop()
        for name, is_dir in _entries(policy, current):
            full = join(current, name)
            v = policy.validate(full)
            verdicts.append(v)
            if not v.allowed:
                skipped.append(v)
                continue
            if is_dir:
                pending.append(full)
    return CallPrediction("search_files", False, "", (first.resolved or "",),
                          tuple(verdicts), (), tuple(skipped))
