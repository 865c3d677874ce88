"""The walk: every entry a tool call could name, with the engine's verdicts for read and
write, a directory at a time where that is exactly equivalent."""

from __future__ import annotations

import functools
import os
import stat as _stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import compress
from operator import not_
from typing import Any

from ....exposure.records import Finding, Inventory, RootSummary, WalkProgress
from ....exposure.walk_common import _WalkBase
from ....fs import HostFS
from ....paths import is_within
from ....sensitive import (
    home_entries_near,
    name_may_be_sensitive,
    sensitive_names,
)
from ..policy import Mode, Policy
from .host import (
    _EntryStat,
    _home,
    _host_mounts,
    _inode,
    _is_dir,
    _is_symlink,
    _Mounts,
    _PrimedFS,
    _Seen,
    _Start,
    _with_fs,
)
from .roots import root_findings


def walk_exposure(policy: Policy, scope: Sequence[str] | None, **options: Any) -> Inventory:
    """The inventory of mcp-gee-sweet's ``policy`` (``options`` as :class:`_InventoryWalker`'s).

    Most files have one name, and the walk notes the files of a directory decided at
    once without asking whether an earlier directory held one of them (see
    :class:`~.host._Seen`). When it turns out that one did (a hardlink, a bind mount),
    the tree is walked again knowing which inodes those are, and the second walk's
    inventory is the answer: each such file is noted by name where first met, and a
    directory holding a later name of it is walked entry by entry, so each is counted
    once under its first name. A cancelled walk is not walked again (its inventory says
    what that may mean).
    """
    walker = _InventoryWalker(policy, **options)
    inventory = walker.run(scope)
    if walker.repeated and not walker.cancelled:
        inventory = _InventoryWalker(policy, suspects=walker.repeated, **options).run(scope)
    return inventory


class _InventoryWalker(_WalkBase):
    """One inventory: walks the starts, checks every entry, collects findings."""

    #: Whether directories may be decided at a time (tests turn it off to compare).
    BULK = True

    def __init__(
        self,
        policy: Policy,
        *,
        sizes: bool,
        max_entries: int,
        max_depth: int,
        over_http: bool | None,
        progress: Callable[[WalkProgress], Any] | None,
        cancel: Any,
        keep_paths: bool,
        server_dirs: Sequence[str] | None,
        suspects: dict[int, frozenset[int]] | None = None,
    ) -> None:
        dirs = list(server_dirs) if server_dirs is not None else [policy.package_dir]
        super().__init__(policy.fs, policy.cwd, _home(policy), dirs, sizes=sizes,
                         max_entries=max_entries, max_depth=max_depth, progress=progress,
                         cancel=cancel, keep_paths=keep_paths)
        self.policy = policy
        self.over_http = policy.over_http_default if over_http is None else over_http
        #: identity -> first path with it; the inodes of the directories decided at once.
        self.seen = _Seen(suspects)
        #: Whether this is the second walk, knowing the inodes the first met twice.
        self.again = suspects is not None
        #: device -> inodes this walk met more than once (see :func:`walk_exposure`).
        self.repeated: dict[int, frozenset[int]] = {}
        self.sensitive_ids: dict[tuple[int, int], str] = {}
        #: identity -> further names of a file already seen (hardlinks, bind mounts).
        self.aliases: dict[tuple[int, int], list[str]] = {}
        self.primed = _PrimedFS(self.fs)
        self.checked_policy = _with_fs(policy, self.primed)
        self.host = isinstance(self.fs, HostFS)
        mounts = _host_mounts() if self.host else _Mounts(frozenset(), frozenset(), {})
        self.mount_points, self.exact_devs, self.pseudo, self.one_device = mounts
        #: Directories (spelled with a trailing slash) holding a mount point.
        self.mount_heads = frozenset(p[:p.rfind("/") + 1] for p in self.mount_points)
        #: Directories holding a file an executed-file rule names exactly.
        self.executed_heads = frozenset(p[:p.rfind("/") + 1] for p in self.executed.exact)
        #: Whether :meth:`_directory_bulk` may decide directories at a time.
        self._bulk = self.host and self.BULK
        self.pseudo_skipped: list[str] = []
        #: Start directories already walked: an outer start walked later skips them.
        self.walked_starts: set[str] = set()

    # -- findings

    def root_of(self, resolved: str) -> str | None:
        for r in self.policy.roots:
            if r.resolved and not r.problem and is_within(resolved, r.resolved):
                return r.configured
        return None

    def fix(self, resolved: str, verb: str) -> str:
        mode = self.policy.mode
        if mode is Mode.ROOTS:
            root = self.root_of(resolved) or "a root"
            return (f"Narrow LOCAL_FILE_ROOTS so that no root contains it (it is inside "
                    f"{root}); `localfs-explorer suggest` proposes the narrowest roots "
                    "for the work the server must do.")
        if mode is Mode.FULL:
            return (f"Use LOCAL_FILE_ACCESS=roots with roots that don't contain it: full "
                    f"mode lets tools {verb} anything the server's account can.")
        return ""

    # -- the walk

    def starts(self, scope: Sequence[str] | None) -> list[_Start]:
        """Each of ``scope`` first, in the order given (the directories the operator asked
        about come before any entry limit can stop the walk), then the default directories
        (the roots, else home and startup directory), outer ones first. A directory met
        again, or inside one walked before it, is walked once (see :meth:`run`)."""
        policy = self.policy
        defaults: list[_Start] = []
        if policy.mode is Mode.ROOTS:
            defaults.extend(_Start(r.resolved, r.configured) for r in policy.roots
                            if r.resolved and not r.problem)
        else:
            for d in (self.home, self.cwd):
                resolved = self._resolved(d)
                if self.fs.is_dir(resolved):
                    defaults.append(_Start(resolved, None))
        defaults.sort(key=lambda s: s.path.rstrip("/").count("/"))
        out: list[_Start] = []
        for s in scope or ():
            resolved = self._scope_dir(s)
            if all(resolved != o.path for o in out):
                # A default directory named again as a scope keeps its configured spelling.
                same = next((d for d in defaults if d.path == resolved), None)
                out.append(same or _Start(resolved, None))
        out.extend(d for d in defaults if all(d.path != o.path for o in out))
        return out

    def run(self, scope: Sequence[str] | None) -> Inventory:
        starts = self.starts(scope)
        summaries: list[RootSummary] = []
        walked: list[str] = []
        #: Directories the entry limit (or Cancel) stopped the walk before.
        not_walked: set[str] = set()
        self.known_credentials()
        with self.checked_policy.many_checks() as batch:
            self.batch = batch
            self.check = batch.check
            for start in starts:
                inside = next((w for w in walked if is_within(start.path, w)), None)
                if inside is None and self.halted:
                    not_walked.add(start.path)
                    summaries.append(RootSummary(
                        root=start.path, configured=start.configured,
                        readable_bytes=None, writable_bytes=None,
                        note="not walked: the walk stopped before reaching it"))
                    continue
                if inside is not None:
                    summaries.append(RootSummary(
                        root=start.path, configured=start.configured,
                        readable_bytes=None, writable_bytes=None,
                        note=f"inside {inside}, counted there"))
                    continue
                walked.append(start.path)
                summaries.append(self.walk(start))
                # An outer directory walked later leaves this one out (walked once).
                self.walked_starts.add(start.path)
            self.primed.path = self.primed.st = None  # nothing answered from memory now
            self.executed_findings()
            self.probe_targets(batch.check)
        if not self.again:
            self.repeated = self.seen.repeated()
            if self.repeated and self.cancelled:
                self.stopped.append(
                    "a file with several names (hardlinks) met before the walk was "
                    "cancelled may be counted once per name")
        self.seen = _Seen()  # nothing asks what was seen from here on
        self.root_findings()
        self.deny_findings(walked)
        if self.pseudo_skipped:
            self.stopped.append(
                "kernel pseudo-filesystems were not walked: " + ", ".join(self.pseudo_skipped))
        self.note_deep()
        largest = self.summary_findings(summaries, walked)
        if not_walked:
            # Findings are counted only under directories that were walked: one about a
            # directory the walk never reached (a root's own problem) counts elsewhere.
            for key, f in self.findings.items():
                if f.root in not_walked:
                    self.findings[key] = f.model_copy(update={"root": None})
        return self.inventory(mode=self.policy.mode.value, transport=self.policy.transport,
                              over_http=self.over_http, walked=walked, summaries=summaries,
                              largest=largest)

    def walk(self, start: _Start) -> RootSummary:
        """Walk one directory depth-first, checking every entry below it."""
        counts = [0, 0, 0, 0, 0]  # entries, readable, writable, readable bytes, writable bytes
        try:
            st = self.fs.lstat(start.path)
        except OSError as exc:
            self.problems.append(f"{start.path}: {exc.strerror or exc}")
            return RootSummary(root=start.path, configured=start.configured,
                               note=f"could not be read: {exc.strerror or exc}")
        self._current_start = start.path
        stack: list[tuple[str, int, int]] = [(start.path, 0, st.st_dev)]
        listing = self._list_host if self.host else self._list_generic
        bulk = self._bulk
        while stack and not self.halted:
            directory, depth, dev = stack.pop()
            self.directories += 1
            if bulk and dev in self.exact_devs:
                self._directory_bulk(directory, depth, dev, stack, counts)
            else:
                self._directory(directory, depth, dev, stack, counts, listing)
        return self._summary(start.path, start.configured, counts)

    def _list_host(self, directory: str, dev: int) -> Iterator[tuple[str, str, Any]]:
        """(name, path, stat-like) for each entry, from one scandir of ``directory``."""
        with os.scandir(directory) as it:
            yield from self._host_items(it, dev)

    def _host_items(self, entries: Iterable[os.DirEntry[str]],
                    dev: int) -> Iterator[tuple[str, str, Any]]:
        """(name, path, stat-like) for each listed entry of a directory on ``dev``."""
        exact = not self.sizes and dev in self.exact_devs
        points = self.mount_points
        for entry in entries:
            path = entry.path
            if exact and path not in points:
                if entry.is_symlink():
                    yield entry.name, path, _EntryStat(_stat.S_IFLNK, entry.inode(), dev)
                    continue
                if entry.is_file(follow_symlinks=False):
                    yield entry.name, path, _EntryStat(_stat.S_IFREG, entry.inode(), dev)
                    continue
                # Directories are lstat'ed: one may start another device without being
                # a mount point (a btrfs subvolume), and its entries take their device
                # from it. Sockets, fifos and devices too (d_type can't tell all apart).
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue  # gone between the listing and the stat
            yield entry.name, path, st

    def _list_generic(self, directory: str, dev: int) -> Iterator[tuple[str, str, Any]]:
        fs = self.fs
        prefix = directory if directory.endswith("/") else directory + "/"
        for name in sorted(fs.listdir(directory)):
            path = prefix + name
            try:
                st = fs.lstat(path)
            except OSError:
                continue  # vanished between listing and stat
            yield name, path, st

    def _directory_bulk(self, directory: str, depth: int, dev: int,
                        stack: list[tuple[str, int, int]], counts: list[int]) -> None:
        """One directory of a walk on a device whose listings carry stat's inode
        numbers: decided a directory at a time where that gives exactly what
        :meth:`_directory` gives entry by entry, else handed to it. With sizes, each
        file is lstat'ed for its size (a file gone since the listing hands the
        directory over).

        The directory is decided at once when its listing holds no symlink and no
        mount point, every file in it is allowed for read and write with the same
        resolved directory
        (:class:`~localfs_explorer.servers.gee_sweet.check.DirVerdicts`), no inode
        in it repeats, was met entry by entry before or is a known credential's, and no
        rule looks at its files by more than their names. Then each file is counted
        once, readable and writable, and only the names a sensitive-name glob matches
        (:func:`~localfs_explorer.sensitive.sensitive_names`) are looked at one by one.

        The listing is :meth:`_scandir_listing`'s.
        """
        prefix = directory if directory.endswith("/") else directory + "/"
        got = self._scandir_listing(directory, prefix, depth, dev, stack, counts)
        if got is None:
            return  # handed over already
        names, inodes, dirs, again = got
        subdirs: list[tuple[str, str, Any]] = []
        if dirs:
            if dev in self.one_device:
                # No mount point here (_plain_enough) and no subvolumes on this
                # filesystem: the directory's device is this one, its inode the listing's.
                subdirs.extend((name, prefix + name, _EntryStat(_stat.S_IFDIR, ino, dev))
                               for name, ino in dirs)
            else:
                for name, _ino in dirs:
                    try:
                        subdirs.append((name, prefix + name, os.lstat(prefix + name)))
                    except OSError:  # gone since the listing: the entry-wise walk skips it
                        again()
                        return
        n = len(names) + len(subdirs)
        verdicts = self.batch.check_entries(
            directory, names, inodes=inodes, dev=dev, over_http=self.over_http,
            dirs=[name for name, _, _ in subdirs], listed=True)
        refused = verdicts.refused
        if refused is None and (
            not verdicts.uniform or verdicts.exceptions or verdicts.resolved_prefix != prefix
        ):
            again()
            return
        total = 0
        if self.sizes:
            try:
                total = sum(st.st_size for st in map(os.lstat, [prefix + name for name in names]))
            except OSError:
                again()
                return
        # Progress and cancellation a directory at a time: before anything is noted.
        before = self.entries
        every = self.PROGRESS_EVERY
        if (before + n) // every != before // every:
            self._tick(directory)
            if self.halted:
                return
        if refused is None and not self.seen.add_listing(dev, inodes, prefix, names):
            again()
            return
        # Decided: nothing below hands the directory back.
        self.entries = before + n
        counts[0] += n
        if refused is None:
            files_n = len(names)
            counts[1] += files_n
            counts[2] += files_n
            counts[3] += total
            counts[4] += total
            if files_n:
                self.dir_sizes[directory] = (files_n, total)
            if self.readable is not None and self.writable is not None:
                paths = [prefix + name for name in names]
                self.readable.update(paths)
                self.writable.update(paths)
            for i in sensitive_names(names, verdicts.joined):
                name = names[i]
                self.credential(prefix + name, prefix + name, (dev, inodes[i]))
        for name, path, st in subdirs:
            if self.readable is not None and self.writable is not None:
                self.primed.path, self.primed.st = path, st
                read, write = verdicts.decision(name, "read"), verdicts.decision(name, "write")
                if read.allowed:
                    self.readable.add(read.resolved or path)
                if write.allowed:
                    self.writable.add(write.resolved or path)
            self._descend(path, depth, st, stack)

    def _plain_enough(self, directory: str, prefix: str, n: int) -> bool:
        """Whether a directory of ``n`` entries may be decided at once as far as its
        place goes: within the entry limit, holding no mount point and no file an
        executed-file rule names, and looked into by no rule or home entry."""
        return not (
            self.entries + n > self.max_entries
            or prefix in self.mount_heads
            or prefix in self.executed_heads
            or self.executed.hot(directory)
            or home_entries_near(directory, home=self.home)
        )

    def _scandir_listing(
        self, directory: str, prefix: str, depth: int, dev: int,
        stack: list[tuple[str, int, int]], counts: list[int],
    ) -> tuple[list[str], list[int], list[tuple[str, int]], Callable[[], None]] | None:
        """The names and inodes of a directory's files, its subdirectories' (name,
        inode) and how to hand it to the entry-by-entry walk, from ``os.scandir``; None
        when it was handed over already (a symlink in it, a listing error...)."""
        listed: list[os.DirEntry[str]] = []
        try:
            with os.scandir(directory) as it:
                listed.extend(it)
        except OSError as exc:
            self._fallback(directory, depth, dev, stack, counts, listed, exc)
            return None
        n = len(listed)
        if not n or not self._plain_enough(directory, prefix, n) or True in map(
                _is_symlink, listed):
            self._fallback(directory, depth, dev, stack, counts, listed, None)
            return None
        if True in map(_is_dir, listed):  # not symlinks: their own type
            is_dir = list(map(_is_dir, listed))
            files = list(compress(listed, map(not_, is_dir)))
            dirs = [(entry.name, entry.inode()) for entry in compress(listed, is_dir)]
        else:
            files, dirs = listed, []

        def again() -> None:
            self._fallback(directory, depth, dev, stack, counts, listed, None)

        names = [entry.name for entry in files]  # quicker than map(attrgetter) here
        return names, list(map(_inode, files)), dirs, again

    def _fallback(self, directory: str, depth: int, dev: int,
                  stack: list[tuple[str, int, int]], counts: list[int],
                  listed: list[os.DirEntry[str]], error: OSError | None) -> None:
        """:meth:`_directory` on entries already listed (then the listing's error)."""
        def listing(_directory: str, _dev: int) -> Iterator[tuple[str, str, Any]]:
            yield from self._host_items(listed, dev)
            if error is not None:
                raise error

        self._directory(directory, depth, dev, stack, counts, listing)

    def _descend(self, path: str, depth: int, st: Any,
                 stack: list[tuple[str, int, int]]) -> None:
        """Queue the directory ``path`` (found at ``depth``) for the walk, unless it
        is a kernel pseudo-filesystem or deeper than the limit."""
        if path in self.walked_starts:
            return  # walked on its own before (a scope inside this directory)
        if path in self.pseudo:
            self.pseudo_skipped.append(f"{path} ({self.pseudo[path]})")
        elif depth + 1 > self.max_depth:
            self.deep_skipped += 1
            self.deep_first = self.deep_first or path
        else:
            stack.append((path, depth + 1, st.st_dev))

    def _directory(self, directory: str, depth: int, dev: int,
                   stack: list[tuple[str, int, int]], counts: list[int],
                   listing: Callable[[str, int], Iterator[tuple[str, str, Any]]]) -> None:
        primed, check, executed = self.primed, self.check, self.executed
        sensitive_ids = self.sensitive_ids
        sizes, over_http = self.sizes, self.over_http
        near_home = home_entries_near(directory, home=self.home)
        # Most directories hold nothing a rule names: then a child's exact path decides.
        match_of = executed.match if executed.hot(directory) else executed.match_exact
        readable, writable, seen = self.readable, self.writable, self.seen
        dir_files = 0
        dir_bytes = 0
        every, limit = self.PROGRESS_EVERY, self.max_entries
        try:
            for name, path, st in listing(directory, dev):
                self.entries = entries = self.entries + 1
                counts[0] += 1
                if entries % every == 0:
                    self._tick(directory)
                    if self.halted:
                        break
                if entries > limit:
                    self._stop_at_limit(directory)
                    break
                primed.path, primed.st = path, st
                read = check(path, "read", over_http=over_http)
                write = check(path, "write", over_http=over_http)
                mode = st.st_mode & 0o170000
                if mode == 0o040000:  # a directory: walk it (never a symlink's target)
                    if read.allowed and readable is not None:
                        readable.add(read.resolved or path)
                    if write.allowed and writable is not None:
                        writable.add(write.resolved or path)
                    self._descend(path, depth, st, stack)
                    continue
                if not (read.allowed or write.allowed):
                    if read.reason == "denied":
                        self.denied_entry(path, read.resolved, read.deny_setting)
                    continue
                resolved = read.resolved or path
                if mode == 0o120000:  # a symlink the check followed: its target's identity
                    identity = self.fs.identity(resolved)
                    if identity is None or self.fs.is_dir(resolved):
                        continue  # dangling, or a directory (walked as itself if in scope)
                    size = self._size(resolved) if sizes else 0
                else:
                    identity = (st.st_dev, st.st_ino)
                    size = getattr(st, "st_size", 0) if sizes else 0
                first = seen.get(identity)
                if first is None:
                    seen.add(identity, resolved)
                    dir_files += 1
                    dir_bytes += size
                    if read.allowed:
                        counts[1] += 1
                        counts[3] += size
                    if write.allowed:
                        counts[2] += 1
                        counts[4] += size
                elif first != resolved:
                    # One file under a second name (hardlink, bind mount): counted once.
                    self.aliases.setdefault(identity, []).append(resolved)
                if read.allowed:
                    if readable is not None:
                        readable.add(resolved)
                    if near_home or mode == 0o120000 or name_may_be_sensitive(name):
                        self.credential(path, resolved, identity)
                    credential = sensitive_ids.get(identity)
                    if credential is not None and credential != resolved:
                        self.alias(resolved, identity)
                if write.allowed:
                    if writable is not None:
                        writable.add(resolved)
                    hit = match_of(resolved) if resolved == path else executed.match(resolved)
                    if hit is not None:
                        self.executed_hit(hit, path, resolved)
        except OSError as exc:
            self.problems.append(f"{directory}: {exc.strerror or exc}")
        if dir_files:
            self.dir_sizes[directory] = (dir_files, dir_bytes)

    def credential(self, path: str, resolved: str, identity: tuple[int, int]) -> None:
        """Flag ``path`` if it (or what it resolves to) looks like a credential file."""
        if not self.credential_finding(path, resolved) or identity in self.sensitive_ids:
            return
        self._note_sensitive(identity, resolved)
        # Names of the same file met earlier, before it was known to be a credential.
        for other in (self.seen.get(identity), *self.aliases.get(identity, ())):
            if other is not None:
                self.alias(other, identity)

    def _note_sensitive(self, identity: tuple[int, int], resolved: str) -> None:
        self.sensitive_ids[identity] = resolved
        # A directory holding it must be walked entry by entry (the alias finding).
        self.seen.watch(identity)

    def alias(self, path: str, identity: tuple[int, int]) -> None:
        """``path`` is another name of the credential with ``identity``."""
        credential = self.sensitive_ids[identity]
        if path != credential:
            self.alias_finding(path, path, credential)

    def denied_entry(self, path: str, resolved: str | None, setting: str | None) -> None:
        where = self.root_of(resolved or path) if self.policy.mode is Mode.ROOTS else None
        self.add(Finding(
            severity="medium", kind="deny-in-root", path=path, op="read_write",
            resolved=resolved, root=self._current_start,
            why=(f"refused by the deny-list ({setting or 'the server own files'}), but "
                 f"inside {where or 'the walked directory'}: one rename or one setting "
                 "change away from being reachable"),
            fix="Keep the server's own files outside every root (move the file, or point "
                f"{setting or 'its setting'} outside the roots).",
        ))

    # -- beyond the walk

    def credential_files(self) -> Iterator[str]:
        """The files under the home entries of the sensitive-path list (bounded)."""
        from ....sensitive import sensitive_patterns

        home = self.home.rstrip("/")
        budget = 500
        for pattern in sensitive_patterns():
            if pattern.kind != "home" or budget <= 0:
                continue
            for path in self._files_under(f"{home}/{pattern.pattern}", budget):
                budget -= 1
                yield path

    def known_credentials(self) -> None:
        """Note the identities of the credential files in the home directory before the
        walk, so that a hardlink or bind-mounted alias of one is recognised wherever it
        is met, even when the credential itself is out of reach."""
        for path in self.credential_files():
            resolved = self._resolved(path)
            identity = self.fs.identity(resolved)
            if identity is not None and identity not in self.sensitive_ids:
                self._note_sensitive(identity, resolved)

    def probe_targets(self, check: Callable[..., Any]) -> None:
        """Ask the engine about every executed-file target and credential home entry,
        walked or not: a file outside the walked directories can still be reachable."""
        fs = self.fs
        self.probe_rules(functools.partial(check, over_http=self.over_http))
        for path in self.credential_files():
            d = check(path, "read", over_http=self.over_http)
            if d.allowed:
                resolved = d.resolved or path
                identity = fs.identity(resolved)
                if identity is not None:
                    self.credential(path, resolved, identity)

    def _files_under(self, target: str, budget: int) -> Iterator[str]:
        fs = self.fs
        if not fs.is_dir(target):
            if fs.exists(target):
                yield target
            return
        stack, n = [target], 0
        while stack and n < budget:
            d = stack.pop()
            try:
                names = sorted(fs.listdir(d))
            except (OSError, ValueError):
                continue
            for name in names:
                path = f"{d}/{name}"
                if fs.is_symlink(path) or not fs.is_dir(path):
                    n += 1
                    yield path
                else:
                    stack.append(path)

    def root_findings(self) -> None:
        for finding in root_findings(self.policy):
            self.add(finding)

    def deny_findings(self, walked: Sequence[str]) -> None:
        policy = self.policy
        for entry in policy.deny_list:
            if not entry.exists:
                continue
            start = self.start_of(entry.resolved, walked)
            if start is None:
                continue
            self._current_start = start
            self.denied_entry(entry.resolved, entry.resolved, entry.setting)
        for dd in policy.deny_dirs:
            start = self.start_of(dd.resolved, walked)
            if start is not None and self.fs.is_dir(dd.resolved):
                self._current_start = start
                self.denied_entry(dd.resolved, dd.resolved, dd.setting)
