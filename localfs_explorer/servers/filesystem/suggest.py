"""What to change to make a filesystem-server configuration narrower and safer.

The filesystem server has no ``.env``: its configuration is the directories on its
command line, the MCP roots its client advertises and the release. :func:`suggest_filesystem`
looks at that configuration (and, when given, the checks that must pass: paths with
operations, tool calls, an approval session) and proposes changes, each one proved by
resolving the changed configuration and asking the server's own check again:

- **narrow**: the deepest existing directories that hold the required paths, outer ones
  kept when one holds another. A path is checked twice by the server, as spelled and
  as its realpath, so a required path reached through a symlink may need the link's
  directory and its target's (the server adds a directory's realpath by itself);
- **symlinked directory**: an allowed directory given through a symlink allows both
  spellings and keeps the target allowed if the link is re-pointed: give the target;
- **upgrade**: a release that compares a trimmed spelling (2026.8.31, 2026.7.10) lets a
  write create quote and whitespace siblings of an allowed directory; 2.0.1 refuses
  them (it needs node 24 or newer) -- proposed only when every required check still
  passes under it;
- **roots**: MCP roots that silently replace the command line: the command line should
  say what is in force.

A change that doesn't survive its re-check is not proposed; a required check no
configuration of this server allows (a Windows drive path, a missing parent directory,
a relative path) is listed as unmet with the server's own refusal.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...paths import is_within
from ...review.suggest import Requirement, SuggestError, Unmet, parse_requirement
from .findings import findings
from .nodepath import dirname, resolve
from .policy import V_2, FilesystemPolicy, expand_home

__all__ = ["FilesystemSuggestion", "ProposedChange", "Unmet", "requirements",
           "suggest_filesystem", "twin"]

#: The npm package a suggested command line starts.
PACKAGE = "@modelcontextprotocol/server-filesystem"


class ProposedChange(BaseModel):
    """One proposed change: its ``kind`` (narrow, symlinked-directory, upgrade, roots),
    what to do, why, and the re-check that proves it."""

    model_config = ConfigDict(frozen=True)

    kind: str
    change: str
    why: str
    verified: str


class FilesystemSuggestion(BaseModel):
    """The result of :func:`suggest_filesystem` (``suggest --json``)."""

    model_config = ConfigDict(frozen=True)

    server: str = "server-filesystem"
    version: str
    directories: list[str]
    current_version: str
    current_directories: list[str]
    changes: list[ProposedChange] = Field(default_factory=list)
    requirements: list[Requirement] = Field(default_factory=list)
    #: Each suggested directory and the required checks it is there for.
    covers: dict[str, list[str]] = Field(default_factory=dict)
    #: Required checks no configuration of the server allows, with the server's word
    #: (the record mcp-gee-sweet's suggestion gives too).
    unmet: list[Unmet] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    #: The launch with the suggested release and directories.
    command: str = ""

    @property
    def ok(self) -> bool:
        """Whether every required check passes under the suggestion."""
        return not self.unmet

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def lines(self) -> list[str]:
        """The suggestion for people."""
        out = [f"suggested configuration: server-filesystem {self.version}, allowed "
               f"{', '.join(self.directories) or '(none)'}"]
        for directory, labels in self.covers.items():
            shown = ", ".join(labels[:4]) + (f" and {len(labels) - 4} more"
                                              if len(labels) > 4 else "")
            out.append(f"  {directory}    for {shown}")
        for c in self.changes:
            out.append(f"change ({c.kind}): {c.change}")
            out.append(f"    why: {c.why}")
            out.append(f"    verified: {c.verified}")
        if not self.changes:
            out.append("no change to suggest: the configuration is as narrow as the "
                       "required checks allow")
        for u in self.unmet:
            out.append(f"cannot allow {u.requirement.label()}: {u.why}")
        out.extend(f"warning: {w}" for w in self.warnings)
        out.append(f"command line: {self.command}")
        return out


def twin(policy: FilesystemPolicy, **changes: Any) -> FilesystemPolicy:
    """``policy``'s server with ``changes`` to its configuration (same host)."""
    return FilesystemPolicy(replace(policy.config, **changes), policy.fs)


def _open_twin(policy: FilesystemPolicy) -> FilesystemPolicy:
    """The same release allowing ``/``: where each path really lands."""
    return twin(policy, directories=("/",), roots=None)


def seam_twin(server_policy: Any) -> Any:
    """:func:`_open_twin` as the seam's policy (for probing calls)."""
    return type(server_policy)(_open_twin(server_policy.policy), server_policy.env)


def _holder(fs: Any, path: str) -> str:
    """The deepest existing directory holding ``path`` (itself if a directory)."""
    current = path
    while current != "/" and not fs.is_dir(current):
        current = dirname(current)
    return current


def _outermost(candidates: Iterable[str]) -> list[str]:
    """The candidates no other candidate holds, shallowest first."""
    kept: list[str] = []
    for c in sorted(dict.fromkeys(candidates), key=lambda p: (p.count("/"), p)):
        if not any(is_within(c, k) for k in kept):
            kept.append(c)
    return kept


def _refused(policy: FilesystemPolicy, reqs: Sequence[Requirement]
             ) -> list[tuple[Requirement, str]]:
    """The required checks ``policy`` refuses, with its message."""
    out = []
    for r in reqs:
        v = policy.validate(r.path)
        if not v.allowed:
            out.append((r, v.message))
    return out


def _narrow(policy: FilesystemPolicy, reqs: Sequence[Requirement], unmet: list[Unmet],
            warnings: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """The directories the required checks need, and what each is there for."""
    fs = policy.fs
    opened = _open_twin(policy)
    wanted: dict[str, list[Requirement]] = {}
    for req in reqs:
        expanded = expand_home(req.path, policy.home)
        v = opened.validate(req.path)
        if not v.allowed:
            unmet.append(Unmet(requirement=req, why=(
                f"the server refuses it whatever directories it allows: {v.message}")))
            continue
        if not expanded.startswith("/"):
            unmet.append(Unmet(requirement=req, why=(
                "a relative path means a path inside one of the allowed directories, "
                "whichever they are: give it as an absolute path")))
            continue
        spelled = _holder(fs, resolve(expanded))
        need = [spelled]
        # The server also checks the realpath: a file symlink may lead elsewhere.
        if not twin(policy, directories=(spelled,), roots=None).validate(req.path).allowed:
            need.append(_holder(fs, v.resolved or spelled))
        for directory in need:
            wanted.setdefault(directory, []).append(req)
    directories = _outermost(wanted)
    covers: dict[str, list[str]] = {d: [] for d in directories}
    for candidate, rs in wanted.items():
        outer = next(d for d in directories if is_within(candidate, d))
        covers[outer].extend(r.label() for r in rs if r.label() not in covers[outer])
    home = policy.home.rstrip("/") or "/"
    for d in directories:
        if d == "/" or d == home:
            warnings.append(f"{d} is suggested because {', '.join(covers[d])} sits directly "
                            "in it: nothing narrower can allow it; consider moving the file")
    return directories, covers


def suggest_filesystem(required: Iterable[Requirement | str], server_policy: Any
                       ) -> FilesystemSuggestion:
    """Changes that make ``server_policy``'s configuration narrower and safer, each
    verified by the server's own check (see the module docstring).

    ``required`` may be empty: then the directories stay as they are (only the
    symlink, release and roots changes are considered).
    """
    policy: FilesystemPolicy = server_policy.policy
    reqs = [r if isinstance(r, Requirement) else parse_requirement(r) for r in required]
    changes: list[ProposedChange] = []
    unmet: list[Unmet] = []
    warnings: list[str] = []
    config = policy.config
    if config.roots and policy.allowed.roots_replace_argv:
        in_force = list(policy.directories)
        check = twin(policy, directories=tuple(in_force), roots=None)
        if list(check.directories) == in_force:
            changes.append(ProposedChange(
                kind="roots",
                change=f"list the directories the roots allow on the command line: "
                       f"{', '.join(in_force)}",
                why="the client's MCP roots replace the command-line directories without a "
                    f"word (the command line says {', '.join(config.directories) or 'none'})",
                verified="the command line alone allows exactly the directories the roots "
                         "do"))
    # From here on the suggestion is a command line: the roots' directories, or argv's.
    base = twin(policy, directories=tuple(policy.directories), roots=None) \
        if policy.allowed.roots_replace_argv else twin(policy, roots=None)
    covers: dict[str, list[str]] = {}
    if reqs:
        directories, covers = _narrow(policy, reqs, unmet, warnings)
        met = [r for r in reqs if all(u.requirement is not r for u in unmet)]
        candidate = twin(policy, directories=tuple(directories), roots=None)
        still = _refused(candidate, met)
        if still:  # pragma: no cover - would be a mistake in _narrow's reasoning
            unmet.extend(Unmet(requirement=r, why=m) for r, m in still)
        before = set(base.directories)
        if set(candidate.directories) != before:
            dropped = [d for d in base.config.directories if d not in directories]
            added = [d for d in directories if d not in base.config.directories]
            what = "; ".join(p for p in (f"drop {', '.join(dropped)}" if dropped else "",
                                         f"allow {', '.join(added)}" if added else "") if p)
            changes.append(ProposedChange(
                kind="narrow", change=what,
                why="the deepest existing directories holding the required paths (no "
                    "directory inside another)",
                verified=f"all {len(met)} required checks pass with exactly these "
                         "directories"))
        base = candidate
    else:
        met = []
        warnings.append("nothing required (--require, --calls, --session): the directories "
                        "are kept; only their spelling and the release are looked at")
    base = _unlink(base, met, changes, warnings)
    base = _upgrade(base, met, changes, warnings)
    command = shlex.join(["npx", "-y", f"{PACKAGE}@{base.version}",
                          *base.config.directories])
    return FilesystemSuggestion(
        version=base.version, directories=list(base.config.directories),
        current_version=policy.version, current_directories=list(config.directories),
        changes=changes, requirements=reqs, covers=covers, unmet=unmet, warnings=warnings,
        command=command)


def _unlink(policy: FilesystemPolicy, met: Sequence[Requirement], changes: list[ProposedChange],
            warnings: list[str]) -> FilesystemPolicy:
    """Give each directory reached through a symlink as its target, when every required
    check still passes that way."""
    current = policy
    for entry, spellings in policy.allowed.argv_spellings:
        if len(spellings) != 2 or not all(s in policy.directories for s in spellings):
            continue
        link, real = spellings
        spelled = tuple(real if d == entry else d for d in current.config.directories)
        candidate = twin(current, directories=tuple(dict.fromkeys(spelled)))
        broken = _refused(candidate, met)
        if broken:
            labels = ", ".join(r.label() for r, _ in broken)
            warnings.append(f"{link} is a symlink to {real}, but {labels} use(s) the link's "
                            "spelling: keep it, or change those paths to the target's")
            continue
        if candidate.validate(link).allowed or not candidate.validate(real).allowed:
            continue  # pragma: no cover - the link given twice, or as a root as well
        changes.append(ProposedChange(
            kind="symlinked-directory", change=f"give {real} instead of {link}",
            why=f"{link} is a symlink: both spellings are allowed, and {real} stays allowed "
                "if the link is re-pointed",
            verified=f"{link} is no longer allowed, {real} is"
                     + (f", and all {len(met)} required checks pass" if met else "")))
        current = candidate
    return current


def _upgrade(policy: FilesystemPolicy, met: Sequence[Requirement], changes: list[ProposedChange],
             warnings: list[str]) -> FilesystemPolicy:
    """2.0.1 when the release's trimming lets siblings through and 2.0.1 keeps every
    required check passing."""
    if policy.version == V_2:
        return policy
    siblings = [p for f in findings(policy) if f.code == "trim-sibling" for p in f.paths]
    if not siblings:
        return policy
    newer = twin(policy, version=V_2)
    still = [p for p in siblings if newer.validate(p).allowed]
    broken = _refused(newer, met)
    if broken or still:
        labels = ", ".join(r.label() for r, _ in broken) or ", ".join(still)
        warnings.append(f"server-filesystem {policy.version} lets quote and whitespace "
                        f"siblings of its directories through, but {V_2} would refuse "
                        f"{labels}: not suggesting it")
        return policy
    changes.append(ProposedChange(
        kind="upgrade", change=f"run server-filesystem {V_2} instead of {policy.version} "
                               "(it needs node 24 or newer)",
        why=f"{policy.version} checks a trimmed spelling and acts on the path as given: "
            f"a write can create {len(siblings)} quote or whitespace sibling(s) of the "
            "allowed directories",
        verified=f"{V_2} refuses all {len(siblings)}"
                 + (f", and all {len(met)} required checks pass" if met else "")))
    return newer


def requirements(server_policy: Any, required: Sequence[Requirement | str], calls: Any = None,
                 session: Any = None) -> list[Requirement]:
    """The checks that must pass: ``OP:PATH`` texts, then the local paths of ``calls``
    and of an approval ``session`` (probed with every directory allowed)."""
    from ...review.suggest import gather_requirements

    reqs = gather_requirements(required, lambda: seam_twin(server_policy), calls=calls,
                               session=session)
    if not reqs and (calls or session):
        raise SuggestError("the calls touch no local path")
    return reqs
