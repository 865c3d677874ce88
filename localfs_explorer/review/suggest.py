"""The narrowest ``LOCAL_FILE_ROOTS`` that still lets the required work happen.

:func:`suggest_roots` takes the checks that must pass (paths with operations, given
directly, read from tool calls or from an approval session) and returns:

- the roots: for each required path, the deepest existing directory that holds it
  (the path itself when it is a directory), with every directory inside another one
  dropped. Any root set that allows a path must contain a directory at least as high
  as that one, so the suggestion's exposure is contained in that of every other set
  that allows the same checks; ``/`` or a home directory come out only when a
  required file sits directly in it, and then a warning says so;
- what can't be allowed and why: the server's own files (refused in every mode), and
  paths whose narrowest root would contain a deny-listed file or a hardlink or bind
  mount of one (a root is never suggested that brings a deny-listed file within reach,
  even a refused one: it is one rename or one setting change away);
- the exposure delta against the current configuration: the same directories walked
  under both policies, what becomes reachable and what stops being reachable;
- the ``.env`` change as an export plan (:func:`~localfs_explorer.envfile.export.export_env`)
  whose masked diff can be shown and which can be written.

Every verdict comes from the engine: the paths are resolved by a ``full``-mode twin of
the policy, and the suggestion is checked by resolving it and asking again.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import LocalfsError
from ..exposure import Finding, Inventory, default_scope, exposure
from ..paths import is_within
from ..servers.gee_sweet.policy import Mode, Policy, PolicyError, resolve_policy

__all__ = [
    "ExposureDelta",
    "Requirement",
    "RootChoice",
    "SuggestError",
    "Suggestion",
    "Unmet",
    "parse_requirement",
    "requirements_from_calls",
    "requirements_from_session",
    "suggest_roots",
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


def _full_twin(policy: Policy) -> Policy:
    """The same server with ``LOCAL_FILE_ACCESS=full``: where each path really lands."""
    return _variant(policy, {"LOCAL_FILE_ACCESS": "full"})


def _variant(policy: Policy, set: Mapping[str, str], unset: Iterable[str] = ()) -> Policy:
    env = policy.env.with_changes(set=dict(set), unset=list(unset))
    return resolve_policy(env, transport=policy.transport, fs=policy.fs, cwd=policy.cwd,
                          package_dir=policy.package_dir, profile=policy.profile,
                          platform=policy.platform)


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


def requirements_from_calls(
    policy: Policy, calls: Any, *, catalog: Any = None, twin: Any = None
) -> list[Requirement]:
    """The local paths (with operations) a list or JSONL file of tool calls touches.

    The calls are probed under a ``full``-mode twin of ``policy`` (or ``twin``, another
    server's policy that allows everything), so that folder uploads are walked and every
    path the server would check is listed.
    """
    from ..probe import ProbeError, iter_call_verdicts

    where = str(calls) if isinstance(calls, (str, Path)) else "calls"
    try:
        return _from_verdicts(
            iter_call_verdicts(twin if twin is not None else _full_twin(policy), calls,
                               catalog=catalog, over_http=False),
            where)
    except ProbeError as exc:
        raise SuggestError(str(exc)) from None


def requirements_from_session(policy: Policy, session: Any, *, catalog: Any = None,
                              twin: Any = None) -> list[Requirement]:
    """The local paths every call of an approval session touches."""
    from .sessions import SessionError, load_session

    try:
        loaded = load_session(session)
    except (SessionError, OSError) as exc:
        raise SuggestError(str(exc)) from None
    calls = [{"name": c.name, "arguments": c.arguments} for _a, _c, c in loaded.iter_calls()]
    return requirements_from_calls(policy, calls, catalog=catalog, twin=twin)


class Unmet(BaseModel):
    """A required check no suggestion can allow, and why."""

    model_config = ConfigDict(frozen=True)

    requirement: Requirement
    why: str


class RootChoice(BaseModel):
    """One suggested root and the required paths it is there for."""

    model_config = ConfigDict(frozen=True)

    root: str
    covers: list[str] = Field(default_factory=list)


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


def exposure_delta(before: Policy, after: Policy, *, scope: Sequence[str] | None = None,
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


class Suggestion(BaseModel):
    """The result of :func:`suggest_roots`."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    roots: list[str]
    choices: list[RootChoice] = Field(default_factory=list)
    requirements: list[Requirement] = Field(default_factory=list)
    unmet: list[Unmet] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    #: The settings to write: ``LOCAL_FILE_ACCESS`` and ``LOCAL_FILE_ROOTS``.
    settings: dict[str, str] = Field(default_factory=dict)
    unset: list[str] = Field(default_factory=list)
    delta: ExposureDelta | None = None
    #: The masked diff of the ``.env`` change ("" when no plan could be made).
    diff: str = ""
    policy: Any = Field(default=None, exclude=True, repr=False)
    plan: Any = Field(default=None, exclude=True, repr=False)

    @property
    def ok(self) -> bool:
        """Whether every required check passes under the suggestion."""
        return not self.unmet

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (``suggest --json``)."""
        return self.model_dump(mode="json")


def _root_for(fs: Any, resolved: str) -> str:
    """The deepest existing directory holding ``resolved`` (itself if a directory)."""
    current = resolved
    while current != "/" and not fs.is_dir(current):
        current = posixpath.dirname(current) or "/"
    return current


def suggest_roots(
    required: Iterable[Requirement | str],
    policy: Policy,
    *,
    env_file: str | None = None,
    env_text: str | None = None,
    delta: bool = True,
    max_entries: int = 200_000,
) -> Suggestion:
    """The narrowest roots allowing every check in ``required`` under ``policy``'s server.

    Args:
        required: :class:`Requirement` objects or ``OP:PATH`` strings.
        policy: the current configuration (transport, host, startup directory, deny-list).
        env_file: the ``.env`` the export plan edits (None: a new file).
        env_text: that file's contents when they came from elsewhere (an upload);
            ``env_file`` then only names it.
        delta: also walk both configurations and compare what they expose.
        max_entries: the bound of each walk (the deny-list alias check and the delta).
    """
    reqs = [r if isinstance(r, Requirement) else parse_requirement(r) for r in required]
    if not reqs:
        raise SuggestError("nothing is required: give paths with operations, calls or a "
                           "session")
    fs = policy.fs
    full = _full_twin(policy)
    home = policy.env.get("HOME") or fs.home()
    unmet: list[Unmet] = []
    warnings: list[str] = []
    wanted: dict[str, list[Requirement]] = {}
    for req in reqs:
        d = full.check(req.path, req.op, over_http=False)
        if not d.allowed:
            unmet.append(Unmet(requirement=req, why=f"{d.message}. {d.hint}".strip()))
            continue
        root = _root_for(fs, d.resolved or req.path)
        wanted.setdefault(root, []).append(req)
    sep = ";" if policy.platform == "windows" else ":"
    for root in list(wanted):
        why = _conflict(policy, root, sep)
        if why is not None:
            unmet.extend(Unmet(requirement=r, why=why) for r in wanted.pop(root))
    # Keep the outermost of nested candidates: the inner ones add nothing.
    ordered = sorted(wanted, key=lambda p: (p.count("/"), p))
    roots: list[str] = []
    covers: dict[str, list[Requirement]] = {}
    for candidate in ordered:
        outer = next((r for r in roots if is_within(candidate, r)), None)
        if outer is None:
            roots.append(candidate)
            covers[candidate] = list(wanted[candidate])
        else:
            covers[outer].extend(wanted[candidate])
    # A deny-listed file reachable inside a root by another name (a hardlink, a bind
    # mount) is only found by walking it: the walk's own deny-in-root findings say so.
    suggested = _roots_policy(policy, roots, sep)
    if roots:
        inventory = exposure(suggested, sizes=False, max_entries=max_entries)
        aliased: dict[str, Finding] = {}
        for f in inventory.findings:
            if f.kind == "deny-in-root" and f.root in covers:
                aliased.setdefault(f.root, f)
        if not inventory.complete:
            warnings.append("the suggested roots were not walked to the end; a hardlink of "
                            "a deny-listed file beyond the limit would not be noticed")
        for root, f in aliased.items():
            why = (f"its narrowest root {root} holds {f.path}, which the server refuses as "
                   "its own file: no root is suggested that brings one within reach")
            unmet.extend(Unmet(requirement=r, why=why) for r in covers.pop(root))
            roots.remove(root)
        if aliased:
            suggested = _roots_policy(policy, roots, sep)
    for root in roots:
        if root == "/" or root.rstrip("/") == home.rstrip("/"):
            paths = ", ".join(r.path for r in covers[root])
            warnings.append(f"{root} is suggested because {paths} sits directly in it: "
                            "nothing narrower can allow it; consider moving the file")
    # The engine's word on the result: every met requirement passes, or it is unmet.
    met_ids = {id(r) for rs in covers.values() for r in rs}
    for req in reqs:
        if id(req) in met_ids:
            d = suggested.check(req.path, req.op, over_http=False)
            if not d.allowed:  # pragma: no cover - would be a bug in the reasoning above
                unmet.append(Unmet(requirement=req, why=d.message))
    if roots:
        settings = {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": sep.join(roots)}
        unset: list[str] = []
    else:
        settings, unset = {"LOCAL_FILE_ACCESS": "off"}, ["LOCAL_FILE_ROOTS"]
        warnings.append("no root can be suggested: local file access can be off")
    changes = None
    if delta:
        changes = exposure_delta(policy, suggested, max_entries=max_entries)
    plan, diff = _plan(policy, env_file, env_text, settings, unset, warnings)
    return Suggestion(
        roots=roots,
        choices=[RootChoice(root=r, covers=[q.label() for q in covers[r]]) for r in roots],
        requirements=reqs, unmet=unmet, warnings=warnings, settings=settings, unset=unset,
        delta=changes, diff=diff, policy=suggested, plan=plan,
    )


def _conflict(policy: Policy, root: str, sep: str) -> str | None:
    """Why ``root`` can't be suggested (by its spelling or the deny-list), or None."""
    if sep in root:
        return (f"its narrowest root {root} contains '{sep}', which LOCAL_FILE_ROOTS "
                "uses to separate entries")
    for entry in policy.deny_list:
        if entry.exists and is_within(entry.resolved, root):
            return (f"its narrowest root {root} holds {entry.resolved} ({entry.setting}), "
                    "one of the server's own files: no root is suggested that brings one "
                    "within reach; move the file or the setting")
    for dd in policy.deny_dirs:
        if is_within(dd.resolved, root) and policy.fs.is_dir(dd.resolved):
            return (f"its narrowest root {root} holds the deny-listed directory "
                    f"{dd.resolved} ({dd.setting}); move the file or the setting")
    return None


def _roots_policy(policy: Policy, roots: Sequence[str], sep: str) -> Policy:
    if not roots:
        return _variant(policy, {"LOCAL_FILE_ACCESS": "off"}, ["LOCAL_FILE_ROOTS"])
    return _variant(policy, {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": sep.join(roots)})


def _plan(policy: Policy, env_file: str | None, env_text: str | None,
          settings: Mapping[str, str], unset: Sequence[str], warnings: list[str]
          ) -> tuple[Any, str]:
    """The export plan of the ``.env`` change and its masked diff."""
    from ..envfile.export import ExportError, export_env

    process = {k: v for k, v in policy.env.values.items() if k in policy.env.from_process}
    for key in (*settings, *unset):
        if key in process:
            warnings.append(f"{key} is also set in the server's process environment, which "
                            "wins over the .env: change it there too")
    try:
        plan = export_env(env_file, text=env_text, set=dict(settings), unset=list(unset),
                          transport=policy.transport, cwd=policy.cwd,
                          package_dir=policy.package_dir, fs=policy.fs,
                          profile=policy.profile, platform=policy.platform,
                          process_env=process)
    except (ExportError, PolicyError) as exc:
        warnings.append(f"the .env change can't be planned: {exc}")
        return None, ""
    warnings.extend(plan.warnings)
    return plan, plan.diff(masked=True)


def describe(s: Suggestion, current: Policy) -> list[str]:
    """The suggestion as lines for people."""
    lines: list[str] = []
    if s.roots:
        lines.append(f"suggested LOCAL_FILE_ROOTS ({len(s.roots)} "
                     f"{'root' if len(s.roots) == 1 else 'roots'}):")
        for choice in s.choices:
            shown = ", ".join(choice.covers[:4])
            more = f" and {len(choice.covers) - 4} more" if len(choice.covers) > 4 else ""
            lines.append(f"  {choice.root}    for {shown}{more}")
    for u in s.unmet:
        lines.append(f"cannot allow {u.requirement.label()}: {u.why}")
    for w in s.warnings:
        lines.append(f"warning: {w}")
    if s.delta is not None:
        mode = current.mode.value if current.mode is not Mode.ROOTS else "roots " + ":".join(
            r.configured for r in current.roots)
        lines.append(f"exposure compared with the current configuration ({mode}):")
        lines.extend("  " + line for line in s.delta.lines())
    return lines

