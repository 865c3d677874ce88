"""What a suggestion must allow: the requirements every server's search starts from.

A requirement is a check that must pass (``op`` on ``path``), given directly
(``read:/data/in.csv``), or read from tool calls or an approval session by probing them
under a twin of the policy that allows everything (so every path a call touches is
listed). Each server searches for its own narrowest configuration that allows them (its
:meth:`~localfs_explorer.server.Server.suggest`: mcp-gee-sweet's ``LOCAL_FILE_ROOTS``,
the filesystem server's allowed directories); :func:`exposure_delta` compares what two
policies of one server expose over the same walked directories.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import LocalfsError
from ..exposure import Finding, Inventory, default_scope, exposure

__all__ = [
    "ExposureDelta",
    "Requirement",
    "SuggestError",
    "Unmet",
    "exposure_delta",
    "gather_requirements",
    "parse_requirement",
    "requirements_from_calls",
    "requirements_from_session",
]

Op = Literal["read", "write", "read_write"]
_OPS = ("read", "write", "read_write")


class SuggestError(LocalfsError):
    """A requirement or an input that can't be used; the message is one line."""


class Requirement(BaseModel):
    """A check that must pass: ``op`` on ``path``."""

    model_config = ConfigDict(frozen=True)

    path: str
    op: Op = "read"
    #: Where it came from (``--require``, ``calls.jsonl line 3``, ...), for messages.
    source: str = ""

    def label(self) -> str:
        return f"{self.op}:{self.path}"


def parse_requirement(text: str, source: str = "--require") -> Requirement:
    """``read:/data/in.csv``, ``write:...``, ``read_write:...`` (a bare path means read)."""
    op, sep, path = text.partition(":")
    if not sep or op not in _OPS:
        if text.startswith("/") or not sep:
            op, path = "read", text
        else:
            raise SuggestError(
                f"{text!r}: expected OP:PATH with OP one of read, write, read_write")
    if not path:
        raise SuggestError(f"{text!r}: the path is empty")
    if "\0" in path:
        raise SuggestError(f"{path!r}: a path can't contain a NUL byte")
    return Requirement(path=path, op=op, source=source)  # type: ignore[arg-type]


def _from_verdicts(verdicts: Iterable[Any], where: str) -> list[Requirement]:
    out: list[Requirement] = []
    for verdict in verdicts:
        if verdict.outcome == "error":
            # A calls file's message already names it (FILE:LINE: ...).
            raise SuggestError(verdict.message if verdict.line else f"{where}: {verdict.message}")
        label = f"{where} line {verdict.line}" if verdict.line else f"{where} call {verdict.index}"
        for p in verdict.paths:
            if p.advisory or p.op not in _OPS:
                continue
            out.append(Requirement(path=p.path, op=p.op, source=f"{label} ({verdict.name})"))
    return out


def requirements_from_calls(calls: Any, twin: Any, *, catalog: Any = None
                            ) -> list[Requirement]:
    """The local paths (with operations) a list or JSONL file of tool calls touches.

    The calls are probed under ``twin``, a policy of the server that allows everything
    (mcp-gee-sweet's ``full`` mode, the filesystem server allowing ``/``), so that folder
    walks are followed and every path the server would check is listed.
    """
    from ..probe import ProbeError, iter_call_verdicts

    where = str(calls) if isinstance(calls, (str, Path)) else "calls"
    try:
        return _from_verdicts(
            iter_call_verdicts(twin, calls, catalog=catalog, over_http=False),
            where)
    except ProbeError as exc:
        raise SuggestError(str(exc)) from None


def requirements_from_session(session: Any, twin: Any, *, catalog: Any = None
                              ) -> list[Requirement]:
    """The local paths every call of an approval session touches."""
    from .sessions import SessionError, load_session

    try:
        loaded = load_session(session)
    except (SessionError, OSError) as exc:
        raise SuggestError(str(exc)) from None
    calls = [{"name": c.name, "arguments": c.arguments} for _a, _c, c in loaded.iter_calls()]
    return requirements_from_calls(calls, twin, catalog=catalog)


def gather_requirements(require: Sequence[Requirement | str], twin: Callable[[], Any], *,
                        calls: Any = None, session: Any = None) -> list[Requirement]:
    """The checks that must pass: ``require`` (requirements or ``OP:PATH`` texts), then
    the local paths of ``calls`` and of an approval ``session``, probed under ``twin()``
    (a policy of the server that allows everything, made only when there are calls)."""
    reqs = [r if isinstance(r, Requirement) else parse_requirement(r) for r in require]
    if calls or session:
        opened = twin()
        if calls:
            reqs.extend(requirements_from_calls(calls, opened))
        if session:
            reqs.extend(requirements_from_session(session, opened))
    return reqs


class Unmet(BaseModel):
    """A required check no suggestion can allow, and why."""

    model_config = ConfigDict(frozen=True)

    requirement: Requirement
    why: str


class ExposureDelta(BaseModel):
    """What changes between two policies over the same walked directories."""

    model_config = ConfigDict(frozen=True)

    walked: list[str]
    gained_read: int = 0
    lost_read: int = 0
    gained_write: int = 0
    lost_write: int = 0
    #: A few examples of each (sorted, at most ``examples`` each).
    gained_examples: list[str] = Field(default_factory=list)
    lost_examples: list[str] = Field(default_factory=list)
    findings_gained: list[Finding] = Field(default_factory=list)
    findings_lost: list[Finding] = Field(default_factory=list)
    complete: bool = True

    def lines(self) -> list[str]:
        out = [
            f"readable: +{self.gained_read} -{self.lost_read}; "
            f"writable: +{self.gained_write} -{self.lost_write} "
            f"(walked {', '.join(self.walked) or 'nothing'})",
        ]
        if not self.complete:
            out.append("the walk was cut short: the counts cover only what it reached")
        for f in self.findings_lost:
            out.append(f"no longer: {f.severity} {f.kind} {f.op} {f.path}")
        for f in self.findings_gained:
            out.append(f"new: {f.severity} {f.kind} {f.op} {f.path}")
        return out


def exposure_delta(before: Any, after: Any, *, scope: Sequence[str] | None = None,
                   max_entries: int = 200_000, examples: int = 10) -> ExposureDelta:
    """Walk the same directories under both policies and compare what each allows.

    ``scope`` defaults to the union of both policies' default walks, so a path counted
    as gained was really refused before (not merely outside the earlier walk).
    """
    if scope is None:
        scope = list(dict.fromkeys([*default_scope(before), *default_scope(after)]))
    one = exposure(before, scope, keep_paths=True, sizes=False, max_entries=max_entries)
    two = exposure(after, scope, keep_paths=True, sizes=False, max_entries=max_entries)
    return _compare(one, two, examples)


def _key(f: Finding) -> tuple[str, str, str, str]:
    return (f.severity, f.kind, f.resolved or f.path, f.op)


def _compare(one: Inventory, two: Inventory, examples: int) -> ExposureDelta:
    r1, r2 = one.readable or frozenset(), two.readable or frozenset()
    w1, w2 = one.writable or frozenset(), two.writable or frozenset()
    gained = sorted((r2 - r1) | (w2 - w1))
    lost = sorted((r1 - r2) | (w1 - w2))
    f1 = {_key(f): f for f in one.findings if f.severity != "info"}
    f2 = {_key(f): f for f in two.findings if f.severity != "info"}
    return ExposureDelta(
        walked=list(two.walked), gained_read=len(r2 - r1), lost_read=len(r1 - r2),
        gained_write=len(w2 - w1), lost_write=len(w1 - w2),
        gained_examples=gained[:examples], lost_examples=lost[:examples],
        findings_gained=[f for k, f in f2.items() if k not in f1],
        findings_lost=[f for k, f in f1.items() if k not in f2],
        complete=one.complete and two.complete,
    )


