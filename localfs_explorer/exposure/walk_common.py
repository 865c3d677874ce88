"""What every exposure walk shares: the allowed-directories walk (:mod:`.allowed`) and a
server's own walk (mcp-gee-sweet's, in its folder).

The state of one inventory (limits, counts, findings, where the walk stopped), the
findings drawn once the walk is over (writable executed files under their anchor, the
files per walked directory, the largest directories), progress and cancellation, and
the inventory itself. The per-entry loops stay in each walk: each is written for its own
checks, and the shared part adds no call to them.
"""

from __future__ import annotations

import posixpath
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ..paths import is_within
from ..sensitive import sensitive_reason
from .records import (
    _RANK,
    DirSize,
    ExposureError,
    Finding,
    Inventory,
    RootSummary,
    WalkProgress,
    _human,
)
from .rules import _Executed, _rules


def _cancelled(cancel: Any) -> bool:
    """Whether ``cancel`` (an event, a callable or None) says to stop the walk."""
    if cancel is None:
        return False
    if isinstance(cancel, threading.Event):
        return cancel.is_set()
    return bool(cancel())


class _WalkBase:
    """The state and the findings an exposure walk shares with the other one.

    A subclass walks (adding to ``entries``, ``directories``, ``dir_sizes``,
    ``readable``/``writable`` and the findings) and says how to remove a finding
    (:meth:`fix`)."""

    PROGRESS_EVERY = 4096

    def __init__(self, fs: Any, cwd: str, home: str, server_dirs: Sequence[str], *,
                 sizes: bool, max_entries: int, max_depth: int,
                 progress: Callable[[WalkProgress], Any] | None, cancel: Any,
                 keep_paths: bool) -> None:
        self.fs = fs
        self.cwd = cwd
        self.home = home
        self.sizes = sizes
        self.max_entries = max_entries
        self.max_depth = max_depth
        self.progress = progress
        self.cancel = cancel
        self.server_dirs = [self._resolved(d) for d in server_dirs]
        self.executed = _Executed(home, self.server_dirs)
        self.findings: dict[tuple[str, str, str], Finding] = {}
        self.entries = 0
        self.directories = 0
        self.stopped: list[str] = []
        self.problems: list[str] = []
        self.cancelled = False
        self.halted = False
        #: Whether the tree is being walked a second time (see the walk's own notes).
        self.again = False
        self.deep_skipped = 0
        self.deep_first: str | None = None
        self.readable: set[str] | None = set() if keep_paths else None
        self.writable: set[str] | None = set() if keep_paths else None
        #: The walked directory the entries being checked are under (None: none).
        self._current_start: str | None = None
        #: anchor -> [why, count, first path, its resolved path, walked directory]
        self.executed_hits: dict[str, list[Any]] = {}
        #: directory -> (files, bytes) directly in it; tuples, which the garbage
        #: collector stops tracking (a walk keeps one per directory).
        self.dir_sizes: dict[str, tuple[int, int]] = {}

    def fix(self, resolved: str, verb: str) -> str:
        """What would take ``resolved`` out of reach of a tool that may ``verb`` it."""
        raise NotImplementedError

    def _resolved(self, path: str) -> str:
        absolute = path if path.startswith("/") else posixpath.join(self.cwd, path)
        try:
            return self.fs.realpath(absolute)
        except (OSError, ValueError):
            return absolute

    def _scope_dir(self, scope: str) -> str:
        """A directory of the scope, resolved; :class:`ExposureError` if it isn't one."""
        if "\0" in scope:
            raise ExposureError(f"scope {scope!r} contains a NUL byte")
        resolved = self._resolved(scope)
        if not self.fs.is_dir(resolved):
            raise ExposureError(f"scope {scope} is not a directory on {self.fs.label}")
        return resolved

    @staticmethod
    def start_of(path: str, walked: Sequence[str]) -> str | None:
        return next((w for w in walked if is_within(path, w)), None)

    # -- while walking

    def _tick(self, current: str) -> None:
        if _cancelled(self.cancel):
            self.cancelled = self.halted = True
            self.stopped.append(f"cancelled after {self.entries} entries, in {current}")
            return
        if self.progress is not None:
            self.progress(WalkProgress(self.entries, self.directories, current,
                                       self.max_entries, self.again))

    def _stop_at_limit(self, directory: str) -> None:
        """The entry limit is passed, in ``directory``: the walk stops and says so."""
        self.halted = True
        self.stopped.append(f"stopped after {self.max_entries} entries, in {directory}: "
                            "raise the entry limit to see the rest")

    def _summary(self, start: str, configured: str | None, counts: list[int]) -> RootSummary:
        """A walked directory's summary from its counts: entries, readable and writable
        files, readable and writable bytes."""
        sized = self.sizes
        return RootSummary(root=start, configured=configured, entries=counts[0],
                           readable_files=counts[1], writable_files=counts[2],
                           readable_bytes=counts[3] if sized else None,
                           writable_bytes=counts[4] if sized else None)

    def _size(self, path: str) -> int:
        try:
            return int(getattr(self.fs.stat(path), "st_size", 0) or 0)
        except (OSError, ValueError):
            return 0

    # -- findings

    def add(self, finding: Finding) -> None:
        key = (finding.kind, finding.resolved or finding.path, finding.op)
        if key not in self.findings:
            self.findings[key] = finding

    def credential_finding(self, path: str, resolved: str) -> bool:
        """Flag a readable ``path`` if it (or what it resolves to) looks like a
        credential file; whether it did."""
        reason = sensitive_reason(resolved, home=self.home, cwd=self.cwd)
        if reason is None and resolved != path:
            reason = sensitive_reason(path, home=self.home, cwd=self.cwd)
        if reason is None:
            return False
        self.add(Finding(
            severity="high", kind="credential", path=path, op="read", resolved=resolved,
            root=self._current_start, why=f"a credential file ({reason})",
            fix=self.fix(resolved, "read"),
        ))
        return True

    def alias_finding(self, path: str, resolved: str, credential: str) -> None:
        """``path`` (resolving to ``resolved``) is another name of ``credential``."""
        self.add(Finding(
            severity="high", kind="credential-alias", path=path, op="read",
            resolved=resolved, root=self._current_start,
            why=f"the same file as the credential {credential} (a hardlink or bind mount)",
            fix=self.fix(resolved, "read") + " Or remove the extra name.",
        ))

    def executed_hit(self, hit: tuple[str, str], path: str, resolved: str) -> None:
        """Note a writable executed file under its anchor (reported by
        :meth:`executed_findings`)."""
        anchor, why = hit
        found = self.executed_hits.get(anchor)
        if found is None:
            self.executed_hits[anchor] = [why, 1, path, resolved, self._current_start]
        else:
            found[1] += 1

    def executed_findings(self) -> None:
        for anchor, (why, count, path, resolved, start) in self.executed_hits.items():
            if anchor == resolved:
                self.add(Finding(severity="critical", kind="executed", path=path, op="write",
                                 resolved=resolved, root=start, why=why,
                                 fix=self.fix(resolved, "write")))
            else:
                files = "1 writable file" if count == 1 else f"{count} writable files"
                self.add(Finding(severity="critical", kind="executed", path=anchor,
                                 op="write", resolved=anchor, root=start,
                                 why=f"{why}: {files} in it (first: {path})",
                                 fix=self.fix(anchor, "write")))
        self.executed_hits.clear()

    def probe_rules(self, check: Callable[[str, str], Any]) -> None:
        """Ask ``check`` (path, op -> decision) about every start-up file a rule names
        and every secret the rules list by path, walked or not: a file outside the
        walked directories can still be reachable, and a missing one a tool could
        create counts too."""
        fs = self.fs
        self._current_start = None
        for path, is_dir, why in self.executed.targets:
            if not fs.is_dir(path if is_dir else posixpath.dirname(path)):
                continue
            d = check(path, "write")
            if not d.allowed:
                continue
            resolved = d.resolved or path
            note = (" (a tool can write or create files in it)" if is_dir
                    else "" if fs.exists(resolved)
                    else " (it does not exist yet; a tool could create it)")
            self.add(Finding(severity="critical", kind="executed", path=path, op="write",
                             resolved=resolved, root=None, why=why + note,
                             fix=self.fix(resolved, "write")))
        for path, why in _rules().secrets:
            if not fs.exists(path):
                continue
            d = check(path, "read")
            if d.allowed:
                self.add(Finding(severity="high", kind="credential", path=path, op="read",
                                 resolved=d.resolved, root=None, why=why,
                                 fix=self.fix(d.resolved or path, "read")))

    def note_deep(self) -> None:
        """Say how many directories the depth limit left out, if any."""
        if self.deep_skipped:
            self.stopped.append(
                f"{self.deep_skipped} directories deeper than {self.max_depth} levels were "
                f"not walked (first: {self.deep_first}); raise the depth limit to see them")

    def summary_findings(self, summaries: Sequence[RootSummary],
                         walked: Sequence[str]) -> list[DirSize]:
        """The files tools can read and overwrite in each walked directory and the
        largest directories, as findings; returns the largest directories."""
        largest = self.largest()
        for summary in summaries:
            if summary.note:
                continue
            for op, files, total, verb in (
                    ("read", summary.readable_files, summary.readable_bytes, "read"),
                    ("write", summary.writable_files, summary.writable_bytes, "overwrite")):
                self.add(Finding(
                    severity="info", kind="counts", path=summary.root, op=op,
                    root=summary.root, resolved=summary.root,
                    why=f"{files} files tools can {verb}"
                        + (f" ({_human(total or 0)})" if total is not None else "")))
        for d in largest:
            size = f", {_human(d.bytes)}" if d.bytes is not None else ""
            self.add(Finding(
                severity="info", kind="largest-directory", path=d.path, op="read",
                resolved=d.path, root=self.start_of(d.path, walked),
                why=f"one of the largest readable directories: {d.files} files{size}"))
        return largest

    def largest(self, count: int = 5) -> list[DirSize]:
        key = (lambda kv: (kv[1][1], kv[1][0])) if self.sizes else (lambda kv: kv[1][0])
        top = sorted(self.dir_sizes.items(), key=key, reverse=True)[:count]
        return [DirSize(path=p, files=v[0], bytes=v[1] if self.sizes else None)
                for p, v in top]

    def inventory(self, *, mode: str, transport: str, over_http: bool,
                  walked: list[str], summaries: list[RootSummary],
                  largest: list[DirSize]) -> Inventory:
        """The inventory of the finished walk, its findings most severe first."""
        findings = sorted(self.findings.values(),
                          key=lambda f: (_RANK[f.severity], f.kind, f.path, f.op))
        return Inventory(
            mode=mode, transport=transport, over_http=over_http, target=self.fs.label,
            walked=walked, findings=findings, roots=summaries, largest=largest,
            entries=self.entries, directories=self.directories, sizes=self.sizes,
            complete=not self.stopped and not self.problems, cancelled=self.cancelled,
            stopped=self.stopped, problems=self.problems,
            readable=frozenset(self.readable) if self.readable is not None else None,
            writable=frozenset(self.writable) if self.writable is not None else None)
