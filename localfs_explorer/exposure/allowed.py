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

import stat as _stat
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..paths import is_within
from ..sensitive import (
    home_entries_near,
    name_may_be_sensitive,
    sensitive_patterns,
)
from .records import ExposureError, Finding, Inventory, RootSummary, WalkProgress
from .walk_common import _WalkBase

#: What the inventory calls the policy's mode for such a server.
MODE = "allowed-directories"

#: A server finding's severity as the inventory ranks it ("low" is worth knowing only).
_SEVERITY = {"critical": "critical", "high": "high", "medium": "medium", "low": "info",
             "info": "info"}


class _AllowedWalk(_WalkBase):
    """One inventory of a policy that allows a list of directories."""

    def __init__(self, policy: Any, starts: Sequence[str], home: str, *,
                 same_for_write: bool = False, sizes: bool,
                 max_entries: int, max_depth: int,
                 progress: Callable[[WalkProgress], Any] | None, cancel: Any,
                 keep_paths: bool, server_dirs: Sequence[str]) -> None:
        super().__init__(policy.fs, policy.cwd, home, server_dirs, sizes=sizes,
                         max_entries=max_entries, max_depth=max_depth, progress=progress,
                         cancel=cancel, keep_paths=keep_paths)
        self.policy = policy
        self.allowed = tuple(starts)
        self.same_for_write = same_for_write
        #: identity -> the first resolved path met with it (a file is counted once).
        self.seen: dict[tuple[int, int], str] = {}
        #: identity -> a credential file with it: another name of one is as readable.
        self.credential_ids: dict[tuple[int, int], str] = {}

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
            resolved = self._scope_dir(s)
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
        self.note_deep()
        largest = self.summary_findings(summaries, walked)
        return self.inventory(mode=MODE, transport="stdio", over_http=False, walked=walked,
                              summaries=summaries, largest=largest)

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
        self._current_start = start
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack and not self.halted:
            directory, depth = stack.pop()
            self.directories += 1
            try:
                self._directory(directory, depth, stack, counts)
            except OSError as exc:
                self.problems.append(f"{directory}: {exc.strerror or exc}")
        return self._summary(start, configured, counts)

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
                self._stop_at_limit(directory)
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
                    self.credential_finding(path, resolved)
                original = self.credential_ids.get(identity)
                if original is not None and original != resolved:
                    self.alias_finding(path, resolved, original)
            if write.allowed:
                if self.writable is not None:
                    self.writable.add(resolved)
                hit = match_of(resolved) if resolved == path else executed.match(resolved)
                if hit is not None:
                    self.executed_hit(hit, path, resolved)
        if files:
            self.dir_sizes[directory] = (files, size_sum)

    # -- findings

    def known_credentials(self) -> None:
        """The identities of the credential files in the home directory, noted before
        the walk: a hardlink of one is a credential wherever it is met."""
        for path in self.home_credentials():
            resolved = self._resolved(path)
            identity = self.fs.identity(resolved)
            if identity is not None:
                self.credential_ids.setdefault(identity, resolved)

    def probe_targets(self) -> None:
        """Ask about every start-up file a rule names and every credential in the home
        directory, walked or not: a missing file a tool could create counts too."""
        check = self.check
        self.probe_rules(check)
        for path in self.home_credentials():
            d = check(path, "read")
            if d.allowed:
                self.credential_finding(path, d.resolved or path)

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


def allowed_exposure(policy: Any, starts: Sequence[str], home: str,
                     scope: Sequence[str] | None = None, *, sizes: bool = True,
                     max_entries: int = 1_000_000, max_depth: int = 64,
                     progress: Callable[[WalkProgress], Any] | None = None,
                     cancel: Any = None, keep_paths: bool = False,
                     server_dirs: Sequence[str] = (),
                     same_for_write: bool = False) -> Inventory:
    """The exposure inventory of a policy allowing ``starts`` (see the module docstring);
    the options are :func:`localfs_explorer.exposure.exposure`'s. A described Windows
    host isn't walked (its names and credential rules aren't modelled here):
    :class:`ExposureError` says so."""
    if getattr(policy.fs, "platform", "posix") == "windows":
        raise ExposureError(
            f"walking a Windows host ({policy.fs.label}) isn't modelled: check, probe and "
            "deployment answer for its paths, and its findings are in validate and "
            "deployment")
    walk = _AllowedWalk(policy, starts, home, same_for_write=same_for_write, sizes=sizes,
                        max_entries=max_entries,
                        max_depth=max_depth, progress=progress, cancel=cancel,
                        keep_paths=keep_paths, server_dirs=server_dirs)
    return walk.run(scope)
