"""The exposure walk for a server that names the directories it allows.

A server whose policy is a list of allowed directories (the reference filesystem
server) says through the seam what a tool call can reach into
(:meth:`~localfs_explorer.server.Server.exposure_scope`). Each of those directories is
walked once (a directory given through a symlink is allowed under both spellings but is
one directory), every entry is checked for read and write by the policy's own
``many_checks()`` -- the server's verdict, never a second reading of its rules -- and
the shared rules turn what is reachable into findings, as for mcp-gee-sweet:

- ``critical``: writable files a shell, the system or a program trusts
  (``data/exposure_rules.json``), missing ones a tool could create included;
- ``high``: readable credentials (``data/sensitive_patterns.json``), other names
  (hardlinks) of the home directory's credentials, and the secrets the rules list by path;
- the server's own findings about its configuration (:meth:`Server.findings`: for the
  filesystem server, quote and whitespace siblings of an allowed directory a write could
  create or a read could reach, a directory allowed through a symlink, roots replacing
  the command line), at their severity;
- ``info``: readable and writable files per walked directory, the largest directories.

Symlinks are never descended: each is checked as a tool would name it, so a link to a
file inside is that file again (counted once) and a link out is a refusal. The walk is
bounded (entries, depth), says where it stopped, reports progress and can be cancelled.
"""

from __future__ import annotations

import posixpath
import stat as _stat
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..paths import is_within
from ..sensitive import (
    home_entries_near,
    name_may_be_sensitive,
    sensitive_patterns,
    sensitive_reason,
)
from .host import _cancelled
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

#: What the inventory calls the policy's mode for such a server.
MODE = "allowed-directories"

#: A server finding's severity as the inventory ranks it ("low" is worth knowing only).
_SEVERITY = {"critical": "critical", "high": "high", "medium": "medium", "low": "info",
             "info": "info"}


class _AllowedWalk:
    """One inventory of a policy that allows a list of directories."""

    PROGRESS_EVERY = 4096

    def __init__(self, policy: Any, starts: Sequence[str], home: str, *,
                 same_for_write: bool = False, sizes: bool,
                 max_entries: int, max_depth: int,
                 progress: Callable[[WalkProgress], Any] | None, cancel: Any,
                 keep_paths: bool, server_dirs: Sequence[str]) -> None:
        self.policy = policy
        self.fs = policy.fs
        self.allowed = tuple(starts)
        self.same_for_write = same_for_write
        self.home = home
        self.cwd = policy.cwd
        self.sizes = sizes
        self.max_entries = max_entries
        self.max_depth = max_depth
        self.progress = progress
        self.cancel = cancel
        self.executed = _Executed(home, [self._resolved(d) for d in server_dirs])
        self.findings: dict[tuple[str, str, str], Finding] = {}
        self.entries = self.directories = 0
        self.stopped: list[str] = []
        self.problems: list[str] = []
        self.cancelled = self.halted = False
        self.deep_skipped = 0
        self.deep_first: str | None = None
        self.readable: set[str] | None = set() if keep_paths else None
        self.writable: set[str] | None = set() if keep_paths else None
        #: identity -> the first resolved path met with it (a file is counted once).
        self.seen: dict[tuple[int, int], str] = {}
        #: identity -> a credential file with it: another name of one is as readable.
        self.credential_ids: dict[tuple[int, int], str] = {}
        #: anchor -> [why, count, first path, its resolved path, walked directory]
        self.executed_hits: dict[str, list[Any]] = {}
        self.dir_sizes: dict[str, tuple[int, int]] = {}
        self.current: str | None = None

    def _resolved(self, path: str) -> str:
        absolute = path if path.startswith("/") else posixpath.join(self.cwd, path)
        try:
            return self.fs.realpath(absolute)
        except (OSError, ValueError):
            return absolute

    def add(self, finding: Finding) -> None:
        key = (finding.kind, finding.resolved or finding.path, finding.op)
        self.findings.setdefault(key, finding)

    def fix(self, path: str, verb: str) -> str:
        inside = next((d for d in self.allowed if is_within(path, self._resolved(d))), None)
        where = f" (it is inside {inside})" if inside else ""
        return (f"Allow narrower directories so that none contains it{where}: tools may "
                f"{verb} anything below an allowed directory.")

    # -- what is walked

    def starts(self, scope: Sequence[str] | None) -> list[tuple[str, str | None]]:
        """(resolved directory, the spellings allowing it) for each of ``scope`` first,
        then each allowed directory, outer ones first; each directory once."""
        defaults: dict[str, list[str]] = {}
        for d in self.allowed:
            resolved = self._resolved(d)
            if self.fs.is_dir(resolved):
                defaults.setdefault(resolved, []).append(d)
        out: list[tuple[str, str | None]] = []
        for s in scope or ():
            if "\0" in s:
                raise ExposureError(f"scope {s!r} contains a NUL byte")
            resolved = self._resolved(s)
            if not self.fs.is_dir(resolved):
                raise ExposureError(f"scope {s} is not a directory on {self.fs.label}")
            if all(resolved != o[0] for o in out):
                spellings = defaults.get(resolved)
                out.append((resolved, ", ".join(spellings) if spellings else None))
        ordered = sorted(defaults.items(), key=lambda kv: kv[0].rstrip("/").count("/"))
        out.extend((path, ", ".join(spellings)) for path, spellings in ordered
                   if all(path != o[0] for o in out))
        return out

    # -- the walk

    def run(self, scope: Sequence[str] | None) -> Inventory:
        starts = self.starts(scope)
        summaries: list[RootSummary] = []
        walked: list[str] = []
        self.known_credentials()
        with self.policy.many_checks() as batch:
            self.check = batch.check
            for path, configured in starts:
                inside = next((w for w in walked if is_within(path, w)), None)
                if inside is not None or self.halted:
                    note = (f"inside {inside}, counted there" if inside is not None
                            else "not walked: the walk stopped before reaching it")
                    summaries.append(RootSummary(root=path, configured=configured,
                                                 readable_bytes=None, writable_bytes=None,
                                                 note=note))
                    continue
                walked.append(path)
                summaries.append(self.walk(path, configured))
            self.executed_findings()
            self.probe_targets()
        self.server_findings()
        if self.deep_skipped:
            self.stopped.append(
                f"{self.deep_skipped} directories deeper than {self.max_depth} levels were "
                f"not walked (first: {self.deep_first}); raise the depth limit to see them")
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
        largest = self.largest()
        for d in largest:
            size = f", {_human(d.bytes)}" if d.bytes is not None else ""
            self.add(Finding(
                severity="info", kind="largest-directory", path=d.path, op="read",
                resolved=d.path, root=next((w for w in walked if is_within(d.path, w)), None),
                why=f"one of the largest readable directories: {d.files} files{size}"))
        findings = sorted(self.findings.values(),
                          key=lambda f: (_RANK[f.severity], f.kind, f.path, f.op))
        return Inventory(
            mode=MODE, transport="stdio", over_http=False, target=self.fs.label,
            walked=walked, findings=findings, roots=summaries, largest=largest,
            entries=self.entries, directories=self.directories, sizes=self.sizes,
            complete=not self.stopped and not self.problems, cancelled=self.cancelled,
            stopped=self.stopped, problems=self.problems,
            readable=frozenset(self.readable) if self.readable is not None else None,
            writable=frozenset(self.writable) if self.writable is not None else None)

    def _tick(self, current: str) -> None:
        if _cancelled(self.cancel):
            self.cancelled = self.halted = True
            self.stopped.append(f"cancelled after {self.entries} entries, in {current}")
            return
        if self.progress is not None:
            self.progress(WalkProgress(self.entries, self.directories, current,
                                       self.max_entries))

    def _listing(self, directory: str) -> Iterator[tuple[str, Any]]:
        for name in sorted(self.fs.listdir(directory)):
            path = f"{directory.rstrip('/')}/{name}"
            try:
                yield path, self.fs.lstat(path)
            except (OSError, ValueError):
                continue  # gone since the listing

    def walk(self, start: str, configured: str | None) -> RootSummary:
        """Walk one directory depth-first, checking every entry below it."""
        counts = [0, 0, 0, 0, 0]  # entries, readable, writable, readable bytes, writable
        self.current = start
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack and not self.halted:
            directory, depth = stack.pop()
            self.directories += 1
            try:
                self._directory(directory, depth, stack, counts)
            except OSError as exc:
                self.problems.append(f"{directory}: {exc.strerror or exc}")
        sized = self.sizes
        return RootSummary(root=start, configured=configured, entries=counts[0],
                           readable_files=counts[1], writable_files=counts[2],
                           readable_bytes=counts[3] if sized else None,
                           writable_bytes=counts[4] if sized else None)

    def _directory(self, directory: str, depth: int, stack: list[tuple[str, int]],
                   counts: list[int]) -> None:
        files = size_sum = 0
        # Most directories hold nothing a home entry or a rule names by more than its
        # exact path: then only a name glob can flag a child (as in the roots walk).
        near_home = home_entries_near(directory, home=self.home)
        executed = self.executed
        match_of = executed.match if executed.hot(directory) else executed.match_exact
        for path, st in self._listing(directory):
            self.entries += 1
            counts[0] += 1
            if self.entries % self.PROGRESS_EVERY == 0:
                self._tick(directory)
                if self.halted:
                    break
            if self.entries > self.max_entries:
                self.halted = True
                self.stopped.append(f"stopped after {self.max_entries} entries, in "
                                    f"{directory}: raise the entry limit to see the rest")
                break
            read = self.check(path, "read")
            write = read if self.same_for_write else self.check(path, "write")
            mode = _stat.S_IFMT(st.st_mode)
            if mode == _stat.S_IFDIR:  # walked as itself, never through a symlink
                if read.allowed and self.readable is not None:
                    self.readable.add(read.resolved or path)
                if write.allowed and self.writable is not None:
                    self.writable.add(write.resolved or path)
                if depth + 1 > self.max_depth:
                    self.deep_skipped += 1
                    self.deep_first = self.deep_first or path
                else:
                    stack.append((path, depth + 1))
                continue
            if not (read.allowed or write.allowed):
                continue
            resolved = (read.resolved if read.allowed else write.resolved) or path
            if mode == _stat.S_IFLNK:  # the check followed it: its target's identity
                identity = self.fs.identity(resolved)
                if identity is None or self.fs.is_dir(resolved):
                    continue  # dangling, or a directory (walked as itself)
                size = self._size(resolved) if self.sizes else 0
            else:
                identity = (st.st_dev, st.st_ino)
                size = int(getattr(st, "st_size", 0) or 0) if self.sizes else 0
            if identity not in self.seen:
                self.seen[identity] = resolved
                files += 1
                size_sum += size
                if read.allowed:
                    counts[1] += 1
                    counts[3] += size
                if write.allowed:
                    counts[2] += 1
                    counts[4] += size
            if read.allowed:
                if self.readable is not None:
                    self.readable.add(resolved)
                if near_home or mode == _stat.S_IFLNK or name_may_be_sensitive(
                        path.rpartition("/")[2]):
                    self.credential(path, resolved)
                original = self.credential_ids.get(identity)
                if original is not None and original != resolved:
                    self.add(Finding(
                        severity="high", kind="credential-alias", path=path, op="read",
                        resolved=resolved, root=self.current,
                        why=f"the same file as the credential {original} (a hardlink or "
                            "bind mount)",
                        fix=self.fix(resolved, "read") + " Or remove the extra name."))
            if write.allowed:
                if self.writable is not None:
                    self.writable.add(resolved)
                hit = match_of(resolved) if resolved == path else executed.match(resolved)
                if hit is not None:
                    self.executed_hit(hit, path, resolved)
        if files:
            self.dir_sizes[directory] = (files, size_sum)

    def _size(self, path: str) -> int:
        try:
            return int(getattr(self.fs.stat(path), "st_size", 0) or 0)
        except (OSError, ValueError):
            return 0

    # -- findings

    def credential(self, path: str, resolved: str) -> None:
        """Flag a readable ``path`` that (or whose target) looks like a credential."""
        reason = sensitive_reason(resolved, home=self.home, cwd=self.cwd)
        if reason is None and resolved != path:
            reason = sensitive_reason(path, home=self.home, cwd=self.cwd)
        if reason is not None:
            self.add(Finding(severity="high", kind="credential", path=path, op="read",
                             resolved=resolved, root=self.current,
                             why=f"a credential file ({reason})",
                             fix=self.fix(resolved, "read")))

    def known_credentials(self) -> None:
        """The identities of the credential files in the home directory, noted before
        the walk: a hardlink of one is a credential wherever it is met."""
        for path in self.home_credentials():
            resolved = self._resolved(path)
            identity = self.fs.identity(resolved)
            if identity is not None:
                self.credential_ids.setdefault(identity, resolved)

    def executed_hit(self, hit: tuple[str, str], path: str, resolved: str) -> None:
        anchor, why = hit
        found = self.executed_hits.get(anchor)
        if found is None:
            self.executed_hits[anchor] = [why, 1, path, resolved, self.current]
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

    def probe_targets(self) -> None:
        """Ask about every start-up file a rule names and every credential in the home
        directory, walked or not: a missing file a tool could create counts too."""
        fs, check = self.fs, self.check
        self.current = None
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
            if fs.exists(path):
                d = check(path, "read")
                if d.allowed:
                    self.add(Finding(severity="high", kind="credential", path=path,
                                     op="read", resolved=d.resolved, root=None, why=why,
                                     fix=self.fix(d.resolved or path, "read")))
        for path in self.home_credentials():
            d = check(path, "read")
            if d.allowed:
                self.credential(path, d.resolved or path)

    def home_credentials(self, budget: int = 500) -> Iterator[str]:
        """The files under the home entries of the sensitive-path list (bounded)."""
        home = self.home.rstrip("/")
        if not home:
            return
        fs = self.fs
        for pattern in sensitive_patterns():
            if pattern.kind != "home":
                continue
            stack = [f"{home}/{pattern.pattern}"]
            while stack and budget > 0:
                current = stack.pop()
                if fs.is_symlink(current) or not fs.is_dir(current):
                    if fs.exists(current):
                        budget -= 1
                        yield current
                    continue
                try:
                    names = sorted(fs.listdir(current))
                except (OSError, ValueError):
                    continue
                stack.extend(f"{current}/{n}" for n in reversed(names))

    def server_findings(self) -> None:
        """The server's own findings about its configuration, in the inventory's terms."""
        from ..server import server_of

        for raw in server_of(self.policy).findings(self.policy):
            paths = list(raw.get("paths") or ())
            path = str(raw.get("path") or (paths[0] if paths else ""))
            kind = str(raw.get("kind") or raw.get("code") or "server-finding")
            self.add(Finding(
                severity=_SEVERITY.get(str(raw.get("severity")), "medium"),  # type: ignore[arg-type]
                kind=kind, path=path, op=str(raw.get("op") or "read_write"),
                why=str(raw.get("why") or raw.get("message") or ""),
                fix=str(raw.get("fix") or ""), root=None, resolved=None))

    def largest(self, count: int = 5) -> list[DirSize]:
        key = (lambda kv: (kv[1][1], kv[1][0])) if self.sizes else (lambda kv: kv[1][0])
        top = sorted(self.dir_sizes.items(), key=key, reverse=True)[:count]
        return [DirSize(path=p, files=v[0], bytes=v[1] if self.sizes else None)
                for p, v in top]


def allowed_exposure(policy: Any, starts: Sequence[str], home: str,
                     scope: Sequence[str] | None = None, *, sizes: bool = True,
                     max_entries: int = 1_000_000, max_depth: int = 64,
                     progress: Callable[[WalkProgress], Any] | None = None,
                     cancel: Any = None, keep_paths: bool = False,
                     server_dirs: Sequence[str] = (),
                     same_for_write: bool = False) -> Inventory:
    """The exposure inventory of a policy allowing ``starts`` (see the module docstring);
    the options are :func:`localfs_explorer.exposure.exposure`'s."""
    walk = _AllowedWalk(policy, starts, home, same_for_write=same_for_write, sizes=sizes,
                        max_entries=max_entries,
                        max_depth=max_depth, progress=progress, cancel=cancel,
                        keep_paths=keep_paths, server_dirs=server_dirs)
    return walk.run(scope)
