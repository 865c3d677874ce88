"""mcp-gee-sweet's suggest: the narrowest ``LOCAL_FILE_ROOTS`` that still lets the required
work happen.

:func:`suggest_roots` takes the checks that must pass (the shared requirements of
:mod:`localfs_explorer.review.suggest`) and returns:

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
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...exposure import Finding, exposure
from ...paths import is_within
from ...review.suggest import (
    ExposureDelta,
    Requirement,
    SuggestError,
    Unmet,
    exposure_delta,
    gather_requirements,
    parse_requirement,
)
from ...review.suggest import requirements_from_calls as _from_calls
from ...review.suggest import requirements_from_session as _from_session
from .policy import Mode, Policy, PolicyError, resolve_policy

__all__ = [
    "RootChoice",
    "Suggestion",
    "describe",
    "requirements_from_calls",
    "requirements_from_session",
    "suggest",
    "suggest_roots",
]


def _full_twin(policy: Policy) -> Policy:
    """The same server with ``LOCAL_FILE_ACCESS=full``: where each path really lands."""
    return _variant(policy, {"LOCAL_FILE_ACCESS": "full"})


def _variant(policy: Policy, set: Mapping[str, str], unset: Iterable[str] = ()) -> Policy:
    env = policy.env.with_changes(set=dict(set), unset=list(unset))
    return resolve_policy(env, transport=policy.transport, fs=policy.fs, cwd=policy.cwd,
                          package_dir=policy.package_dir, profile=policy.profile,
                          platform=policy.platform)


class RootChoice(BaseModel):
    """One suggested root and the required paths it is there for."""

    model_config = ConfigDict(frozen=True)

    root: str
    covers: list[str] = Field(default_factory=list)


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
    #: The configuration the suggestion was made for (what the delta compares with).
    current: Any = Field(default=None, exclude=True, repr=False)

    @property
    def ok(self) -> bool:
        """Whether every required check passes under the suggestion."""
        return not self.unmet

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (``suggest --json``)."""
        return self.model_dump(mode="json")

    def lines(self) -> list[str]:
        """The suggestion for people (the ``.env`` change is :attr:`diff`)."""
        return describe(self, self.current) if self.current is not None else []


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
        delta=changes, diff=diff, policy=suggested, plan=plan, current=policy,
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
    from ...envfile.export import ExportError, export_env

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


def requirements_from_calls(policy: Policy, calls: Any, *, catalog: Any = None
                            ) -> list[Requirement]:
    """The paths (with operations) ``calls`` touch, probed under ``policy`` in full mode."""
    return _from_calls(calls, _full_twin(policy), catalog=catalog)


def requirements_from_session(policy: Policy, session: Any, *, catalog: Any = None
                              ) -> list[Requirement]:
    """The paths every call of an approval session touches, as for tool calls."""
    return _from_session(session, _full_twin(policy), catalog=catalog)


def suggest(policy: Policy, require: Sequence[Requirement | str], *, calls: Any = None,
            session: Any = None, env_file: str | None = None, env_text: str | None = None,
            delta: bool = True, max_entries: int = 200_000) -> Suggestion:
    """:meth:`GeeSweetServer.suggest`: the requirements from ``--require``, calls and a
    session, then :func:`suggest_roots`."""
    required = gather_requirements(require, lambda: _full_twin(policy), calls=calls,
                                   session=session)
    return suggest_roots(required, policy, env_file=env_file, env_text=env_text,
                         delta=delta, max_entries=max_entries)
