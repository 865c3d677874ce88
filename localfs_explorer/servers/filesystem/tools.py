"""The filesystem server's 14 tools and how each one passes its paths through the check.

The tools, their annotation hints and their path arguments are data
(``data/tools.json``). :func:`predict_call` answers a whole tool call the way the server
would: a single-path tool fails with its path's refusal, and the tools with a rule of
their own (``read_multiple_files``, ``move_file``, ``directory_tree``, ``search_files``)
say which, and why, where the rule is written.
"""

from __future__ import annotations

import json
import stat as _stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from .policy import V_OLD, FilesystemPolicy, ValidatePathVerdict

__all__ = ["CallCheckRecord", "CallPrediction", "FsTool", "load_tools", "predict_call"]


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
class CallCheckRecord:
    """One check a call makes: the argument it came from (``paths[1]``, or for a walked
    entry the argument the walk started at), the operation the tool implies, the
    verdict, ``entry`` for a walked entry (else ``path``) and how a refusal shows when
    it doesn't fail the call (``item_error``, ``skipped``; None: it fails the call)."""

    argument: str
    op: str
    verdict: ValidatePathVerdict
    kind: str = "path"
    step: str | None = None


@dataclass(frozen=True)
class CallPrediction:
    """What a tool call would come to: ``refused`` with the tool's error ``message``, or
    carried out on ``targets``. ``item_errors`` are per-item errors inside a successful
    answer (read_multiple_files), ``skipped`` the entries a search passes over silently,
    ``verdicts`` every check made, in order (``checks`` the same, with where each came
    from). ``error`` is set (and nothing checked) when the server would reject the
    arguments before any check; ``stopped`` when ``walk_limit`` cut a walk short."""

    tool: str
    refused: bool
    message: str
    targets: tuple[str, ...] = ()
    verdicts: tuple[ValidatePathVerdict, ...] = ()
    item_errors: tuple[str, ...] = ()
    skipped: tuple[ValidatePathVerdict, ...] = field(default=())
    checks: tuple[CallCheckRecord, ...] = field(default=(), compare=False)
    error: str | None = None
    stopped: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "refused": self.refused, "message": self.message,
                "targets": list(self.targets),
                "verdicts": [v.to_dict() for v in self.verdicts],
                "item_errors": list(self.item_errors),
                "skipped": [v.to_dict() for v in self.skipped],
                "error": self.error, "stopped": self.stopped}


def _argument_error(spec: FsTool, arguments: dict[str, Any]) -> str | None:
    """The server validates arguments (zod) before the tool runs: a path argument that
    is missing or not a string (a list of strings for ``paths``) is rejected first."""
    for location, _op in spec.params:
        name = location.removesuffix("[]")
        value = arguments.get(name)
        if location.endswith("[]"):
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
            wanted = "a list of strings"
        else:
            ok = isinstance(value, str)
            wanted = "a string"
        if not ok:
            state = "is missing" if value is None else f"must be {wanted}"
            return (f"{spec.name}: argument {name} {state}; the server rejects the call "
                    "(an input validation error) before any path is checked")
    return None


def predict_call(policy: FilesystemPolicy, tool: str, arguments: dict[str, Any],
                 *, walk_limit: int = 10_000) -> CallPrediction:
    """The server's answer to ``tool(arguments)`` as far as its path checks decide it."""
    spec = tool_named(tool)
    if spec is None:
        return CallPrediction(tool, True, f"Tool {tool} not found")
    problem = _argument_error(spec, arguments)
    if problem is not None:
        return CallPrediction(tool, True, problem, error=problem)
    if tool == "read_multiple_files":
        # mirrors server-filesystem 2026.8.31 index.js (startup): read_multiple_files validates each
        # path on its own and turns a refusal into that file's "Error - " line, so one bad path
        # doesn't fail the call
        checks = tuple(CallCheckRecord(f"paths[{i}]", "read", policy.validate(p),
                                       step="item_error")
                       for i, p in enumerate(arguments["paths"]))
        verdicts = tuple(c.verdict for c in checks)
        errors = tuple(f"{v.path}: Error - {v.message}" for v in verdicts if not v.allowed)
        targets = tuple(v.resolved for v in verdicts if v.resolved)
        return CallPrediction(tool, False, "", targets, verdicts, errors, checks=checks)
    done: list[CallCheckRecord] = []
    for arg, op in spec.params:
        # In order: the source is checked (and refused) before the destination is seen.
        v = policy.validate(arguments[arg])
        done.append(CallCheckRecord(arg, op, v))
        if not v.allowed:
            return CallPrediction(tool, True, v.message, (), tuple(c.verdict for c in done),
                                  checks=tuple(done))
    verdicts = tuple(c.verdict for c in done)
    targets = tuple(v.resolved for v in verdicts if v.resolved)
    if tool == "move_file" and policy.version != V_OLD:
        # mirrors server-filesystem 2026.8.31 lib.js moveFile: lstat of the checked destination
        # refuses anything there (file, directory, symlink) rather than let the rename replace it
        dest = verdicts[1].resolved or ""
        try:
            policy.fs.lstat(dest)
        except (OSError, ValueError):
            pass
        else:
            return CallPrediction(tool, True, f"Destination already exists: {dest}",
                                  targets, verdicts, checks=tuple(done))
    if tool == "directory_tree":
        return _tree(policy, arguments["path"], done, walk_limit)
    if tool == "search_files":
        return _search(policy, done, walk_limit)
    return CallPrediction(tool, False, "", targets, verdicts, checks=tuple(done))


def _entries(policy: FilesystemPolicy, directory: str) -> list[tuple[str, bool]]:
    """A directory's entries in the order the system lists them (as node's ``readdir``
    gives them) and whether each is a directory itself (not following a symlink, as a
    directory entry's type says)."""
    out = []
    try:
        names = policy.fs.listdir(directory)
    except (OSError, ValueError):
        return []
    for name in names:
        try:
            is_dir = _stat.S_ISDIR(policy.fs.lstat(policy.join(directory, name)).st_mode)
        except (OSError, ValueError):
            is_dir = False
        out.append((name, is_dir))
    return out


class _DepthFirst:
    """The entries below a directory, depth first in listing order, as the server's
    recursion meets them: iterating gives (the directory as spelled, entry name, whether
    it is a directory), and :meth:`enter` goes into the directory just given."""

    def __init__(self, policy: FilesystemPolicy, spelled: str, listed: str) -> None:
        self.policy = policy
        # A stack of listings being gone through: (spelling, remaining entries).
        self.pending = [(spelled, iter(_entries(policy, listed)))]

    def enter(self, spelled: str, listed: str) -> None:
        """Go through the directory ``listed`` (spelled ``spelled``) before going on."""
        self.pending.append((spelled, iter(_entries(self.policy, listed))))

    def __iter__(self) -> Iterator[tuple[str, str, bool]]:
        pending = self.pending
        while pending:
            spelled, entries = pending[-1]
            step = next(entries, None)
            if step is None:
                pending.pop()
                continue
            yield spelled, *step


def _tree(policy: FilesystemPolicy, start: str, first: list[CallCheckRecord],
          limit: int) -> CallPrediction:
    """directory_tree: each directory entered is checked again, spelled as the request
    spelled the start plus the names below it, depth first in listing order (the
    server's recursion); the first refusal is the call's error."""
    # mirrors server-filesystem 2026.8.31 index.js (startup): directory_tree's buildTree calls
    # validatePath on every directory it enters, and nothing catches its refusal
    checks = list(first)
    walk = _DepthFirst(policy, start, first[0].verdict.resolved or "")
    stopped = False
    for requested, name, is_dir in walk:
        if not is_dir:
            continue
        if len(checks) >= limit:
            stopped = True
            break
        sub = policy.join(requested, name)
        v = policy.validate(sub)
        checks.append(CallCheckRecord("path", "read", v, kind="entry"))
        if not v.allowed:
            return CallPrediction("directory_tree", True, v.message, (),
                                  tuple(c.verdict for c in checks), checks=tuple(checks))
        walk.enter(sub, v.resolved or "")
    return CallPrediction("directory_tree", False, "", (first[0].verdict.resolved or "",),
                          tuple(c.verdict for c in checks), checks=tuple(checks),
                          stopped=stopped)


def _search(policy: FilesystemPolicy, first: list[CallCheckRecord],
            limit: int) -> CallPrediction:
    """search_files: every entry below the (resolved) start is checked, depth first in
    listing order; a refused one is skipped silently, and a directory is entered only
    when its check passes."""
    # mirrors server-filesystem 2026.8.31 lib.js searchFilesWithValidation: each entry's
    # validatePath error is caught and the entry skipped, so a refusal never reaches the caller
    checks = list(first)
    skipped: list[ValidatePathVerdict] = []
    start = first[0].verdict.resolved or ""
    walk = _DepthFirst(policy, start, start)
    stopped = False
    for current, name, is_dir in walk:
        if len(checks) >= limit:
            stopped = True
            break
        full = policy.join(current, name)
        v = policy.validate(full)
        checks.append(CallCheckRecord("path", "read", v, kind="entry", step="skipped"))
        if not v.allowed:
            skipped.append(v)
            continue
        if is_dir:
            walk.enter(full, full)
    return CallPrediction("search_files", False, "", (start,),
                          tuple(c.verdict for c in checks), (), tuple(skipped),
                          checks=tuple(checks), stopped=stopped)
