"""The batch check: the server's ``many_checks()``, as a folder walk asks it.

:class:`BatchChecker` answers path by path as the server's batch does (the deny-list
statted once, each parent resolved once and its realpath joined to the entry's name);
:class:`DirVerdicts` answers a whole directory listing at once, stating its common case
once. Nothing here recurses per path component: a parent's realpath is built by a loop
over its ancestors, so a path of thousands of components is answered as the server
answers it.
"""

from __future__ import annotations

import os
import posixpath
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from ....vocab import OPS, Op, Reason
from . import verdict as _single
from .tables import EntryTables
from .verdict import _OFF, _UNKNOWN, Decision, _fresh_deny_ids, _refuse_windows_spelling, _unusable

if TYPE_CHECKING:
    from ....fs.base import StatLike
    from .tables import CompiledPolicy, PolicyLike


class ParentFacts(NamedTuple):
    """What the batch knows of one parent directory, asked once per batch."""

    #: Its realpath, ending in ``/``.
    head: str
    #: Whether :func:`_entry_verdict`'s common case (allowed) can hold below it.
    fast: bool
    #: The last parts of deny paths directly in it.
    deny_tails: frozenset[str] | None
    #: The last parts (case-folded) of deny dirs directly in it.
    deny_dir_tails: frozenset[str] | None


def _entry_verdict(c: CompiledPolicy, path: str, op: Op, over_http: bool, resolved: str,
                   identity: tuple[int, int]) -> Decision:
    """The batch's verdict on an existing, non-symlink entry: ``resolved`` is its
    parent's realpath joined to its name, ``identity`` what ``lstat`` of it says.

    The common case (allowed) is decided before this by :meth:`BatchChecker.check` and
    :class:`DirVerdicts` from what they know of the parent (see :class:`EntryTables`);
    what reaches this is the rest, given the full verdict on the known identity.
    """
    return _single._verdict(c, path, op, over_http, resolved, identity, True)


class BatchChecker:
    """Checks for a walk, answered as the server's ``many_checks()`` answers them.

    The deny-list is statted once when the batch starts. Each absolute path whose last
    component is not a symlink (asked with ``lstat`` of the path as spelled) resolves as
    its parent's realpath, cached by the parent's spelling as ``os.path.split`` gives it,
    joined to the last component, never normalised lexically. Relative paths, NUL bytes
    and a last component of ``.``, ``..`` or a symlink resolve whole, as a single check
    does.

    Where this differs from the single check (a symlink loop followed by ``//``, for
    one), the Decision's trace says so.
    """

    def __init__(self, policy: PolicyLike) -> None:
        self.policy = policy
        self._parents: dict[str, str] = {}
        # mirrors mcp-gee-sweet 0.9.5 local_files.many_checks: the deny-list is statted once per
        # block, so a walk sees entries created since the policy was resolved (a token written after
        # authorising) but not hardlinks to those made mid-walk
        compiled = policy.compiled
        self._c = compiled.with_deny_ids(_fresh_deny_ids(compiled))
        self._lstat = compiled.fs.lstat
        self._entry_tables: EntryTables | None = None
        #: Whether :meth:`_real_parent` may build on a parent's realpath: the filesystem's
        #: realpath and lstat are the host's own.
        fs_type = type(compiled.fs)
        self._derive = (getattr(fs_type, "realpath", None) is os.path.realpath
                        and getattr(fs_type, "lstat", None) is os.lstat)
        #: an entry's path up to its last "/" -> what :meth:`_head` says of its parent.
        self._heads: dict[str, ParentFacts] = {}
        #: The deny-listed inode numbers on any device: an entry with none of them needs
        #: no identity comparison.
        self._deny_inodes = frozenset(ino for _dev, ino in self._c.deny_ids)

    def check(self, path: Any, op: Op = "read", *, over_http: bool | None = None) -> Decision:
        """The batched check for ``op``; see the class docstring for the resolution."""
        # The walk's hot path, one frame deep: check_read and friends come through here.
        c = self._c
        if over_http is None:
            over_http = c.over_http_default
        if (
            op not in OPS
            or c.mode is _OFF
            or (over_http and c.tripwire_armed)
            or path.__class__ is not str
            or not path.startswith("/")
            or "\0" in path
        ):
            # Refusals that need no filesystem, odd input and relative paths: no cache.
            return _single._check(c, path, op, over_http, True)
        if c.platform == "windows":
            _refuse_windows_spelling(c, path)
        # The walk's hot path, written out: lstat the entry, resolve its parent once.
        cut = path.rfind("/") + 1
        name = path[cut:]
        # mirrors mcp-gee-sweet 0.9.5 local_files._realpath: "", "." and ".." (and a symlink, below)
        # resolve whole; only a plain last name joins its parent's realpath
        if name == "" or name == "." or name == "..":
            return _single._check(c, path, op, over_http, True)
        st: StatLike | None
        try:
            st = self._lstat(path)
        except (OSError, ValueError):
            st = None
        else:
            if st.st_mode & 0o170000 == 0o120000:  # a symlink: resolve it fully
                return _single._verdict(c, path, op, over_http, c.fs.realpath(path), _UNKNOWN, True)
        # mirrors mcp-gee-sweet 0.9.5 local_files._realpath: the parent is cached by its raw
        # spelling, never collapsed lexically, since <symlink>/.. is the parent of the link's target
        # and collapsing it would check one directory and write into another (PR #1039 QA round 2)
        spelled = path[:cut]
        known = self._heads.get(spelled)
        if known is None:
            try:
                known = self._heads[spelled] = self._head(spelled)
            except ValueError as exc:
                return _unusable(c, path, op, over_http, exc, path, True)
        head, fast, tails, kids = known
        if st is None:
            # The path as spelled isn't there; the server stats what it resolved to.
            return _single._verdict(c, path, op, over_http, head + name, _UNKNOWN, True)
        # The entry as spelled exists and isn't a symlink: the object the kernel found
        # is the one its resolved path names, so its identity is already known.
        if (
            fast
            and st.st_ino not in self._deny_inodes
            and (tails is None or name not in tails)
            and (kids is None or name.casefold() not in kids)
        ):
            # _entry_verdict's common case with the parts about the parent asked once
            # per parent (see EntryTables): allowed.
            # Positional, in Decision's field order: the walk's hot path, where keyword
            # arguments make the construction 2.5x as costly (timeit: 2.7 against 6.9 µs;
            # bench_check and bench_exposure slowed by a third with them).
            return Decision(path, op, True, "allowed", "", head + name, c.policy, over_http,
                            None, True)
        return _entry_verdict(c, path, op, over_http, head + name, (st.st_dev, st.st_ino))

    def resolution(self, path: Any) -> str | None:
        """The path the batch resolves ``path`` to where it resolves it its own way (an
        absolute path whose last part is a plain name and no symlink: its parent's
        realpath joined to the name); None where it answers as the single check does.
        Raises :class:`.verdict.UnsupportedPathError` where :meth:`check` does (a
        drive-letter or backslash path on ``platform="windows"``)."""
        c = self._c
        if path.__class__ is not str or not path.startswith("/") or "\0" in path:
            return None
        # On Windows the batch resolves as anywhere else (check, above): only a spelling
        # the explorer doesn't simulate is refused first.
        _refuse_windows_spelling(c, path)
        cut = path.rfind("/") + 1
        name = path[cut:]
        if name == "" or name == "." or name == "..":
            return None
        try:
            if self._lstat(path).st_mode & 0o170000 == 0o120000:
                return None  # a symlink: resolved whole, as the single check does
        except (OSError, ValueError):
            pass
        spelled = path[:cut]
        known = self._heads.get(spelled)
        if known is None:
            known = self._heads[spelled] = self._head(spelled)
        return known.head + name

    def check_entries(
        self,
        directory: str,
        names: Sequence[str],
        *,
        inodes: Sequence[int] | None = None,
        dev: int | None = None,
        over_http: bool | None = None,
        dirs: Iterable[str] = (),
        listed: bool = False,
    ) -> DirVerdicts:
        """The batched checks of the entries ``names`` of ``directory``, decided together.

        ``inodes`` (with ``dev``), when given, are what ``lstat`` says of each entry and
        promise that none of them is a symlink: a directory listing's inode numbers, on
        a filesystem where they are the ones stat reports. ``DirVerdicts.decision(name,
        op)`` is then exactly :meth:`check` of ``directory/name``, and the directory's
        common case is stated once for all its names (see :class:`DirVerdicts`).
        Without them, or for a name not among ``names``, each decision is :meth:`check`.

        ``dirs`` names subdirectories of ``directory`` that are not symlinks: the batch
        takes the realpath of each to be the directory's realpath joined to its name,
        which is what ``realpath`` finds when the last component is no symlink, so a
        walk's next :meth:`check_entries` below it needs no realpath of its own.

        ``listed=True`` promises that ``names`` are a directory listing's (str, none
        empty, ``.`` or ``..``, none holding ``/`` or NUL), so they aren't searched for
        the names the batch never joins to their parent.
        """
        verdicts = DirVerdicts(self, directory, names, inodes, dev, over_http, listed)
        head = verdicts.resolved_prefix
        if head is not None:
            parents, prefix = self._parents, verdicts.prefix
            for name in dirs:
                if _plain_name(name):
                    parents.setdefault(prefix + name, head + name)
        return verdicts

    def _head(self, spelled: str) -> ParentFacts:
        """What :meth:`check` needs of the parent of the entries spelled ``spelled +
        name`` (it keeps the answer for the batch): its realpath ending in ``/``, whether
        :func:`_entry_verdict`'s common case can hold for entries below it, and the last
        parts of deny paths and (case-folded) deny dirs directly in it (may raise
        ``ValueError`` as :meth:`_real_parent` does)."""
        # The parent as os.path.split spells it: trailing slashes dropped, unless all.
        parent = spelled.rstrip("/") or spelled
        real = self._real_parent(parent)
        head = real if real.endswith("/") else real + "/"
        c = self._c
        tables = self._entry_tables or self._tables()
        folded = head.casefold()
        fast = bool(
            c.fast_batch
            and not head.startswith("//")
            and (not c.roots_mode or head.startswith(c.root_prefixes))
            and not folded.startswith(c.deny_dir_prefixes)
        )
        return ParentFacts(head=head, fast=fast, deny_tails=tables.paths.get(head),
                           deny_dir_tails=tables.dirs.get(folded))

    def _real_parent(self, parent: str) -> str:
        """``realpath`` of a parent as spelled, asked once per batch (may raise
        ``ValueError`` for a spelling ``realpath`` refuses).

        On the host, a parent whose last part is a plain name that is no symlink is its
        own parent's (cached) realpath joined to that name: ``os.path.realpath`` resolves
        a path part by part, so for ``head/name`` it finds ``realpath(head)`` and then
        joins ``name``, following it only if ``lstat`` of the join says symlink (an error
        counts as no symlink; so does anything after a loop, whose ``lstat`` fails with
        ELOOP). Anything else (``.``, ``..``, a symlink, NUL, another filesystem) is left
        to ``realpath`` itself.

        The ancestors are visited by a loop, up to the nearest one already known or not
        derivable and back down, never by a call per component: the server answers a
        path of thousands of components, and so must the batch.
        """
        parents = self._parents
        real = parents.get(parent)
        if real is not None:
            return real
        fs = self._c.fs
        below: list[str] = []  # spellings to derive from their parent's, deepest first
        current = parent
        while True:
            real = parents.get(current)
            if real is not None:
                break
            # A "//" is left to realpath: on CPython 3.10-3.12 a symlink loop followed
            # by "//" makes realpath return the rest as an absolute path ("loop//x" is
            # "/x"), which no join onto the loop's own realpath gives (the server's
            # many_checks asks realpath for such a parent, and refuses "/x").
            if self._derive and "\0" not in current and "//" not in current:
                head, name = posixpath.split(current)
                # The last test bounds the walk up: "/" is its own parent.
                if (name and name != "." and name != ".." and head.startswith("/")
                        and head != current):
                    below.append(current)
                    current = head
                    continue
            real = parents[current] = fs.realpath(current)
            break
        for spelled in reversed(below):
            name = posixpath.split(spelled)[1]
            joined = real + name if real.endswith("/") else real + "/" + name
            try:
                is_link = fs.lstat(joined).st_mode & 0o170000 == 0o120000
            except OSError:
                is_link = False
            real = parents[spelled] = fs.realpath(spelled) if is_link else joined
        return real

    def _tables(self) -> EntryTables:
        """The deny-list taken apart for :class:`DirVerdicts`, built on first use."""
        if self._entry_tables is None:
            self._entry_tables = EntryTables(self._c)
        return self._entry_tables

    def check_read(self, path: Any, *, over_http: bool | None = None) -> Decision:
        """Batched ``check_read``."""
        return self.check(path, "read", over_http=over_http)

    def check_write(self, path: Any, *, over_http: bool | None = None) -> Decision:
        """Batched ``check_write``."""
        return self.check(path, "write", over_http=over_http)

    def check_read_write(self, path: Any, *, over_http: bool | None = None) -> Decision:
        """Batched ``check_read_write``."""
        return self.check(path, "read_write", over_http=over_http)


#: The names a batch never joins to their parent (besides those holding "/" or NUL).
_NO_NAMES: frozenset[str] = frozenset()


def _plain_name(name: Any) -> bool:
    """A name the batch resolves as its parent's realpath joined to it."""
    return (name.__class__ is str and name not in ("", ".", "..") and "/" not in name
            and "\0" not in name)


class DirVerdicts:
    """The batch's verdicts on the entries of one directory (see
    :meth:`BatchChecker.check_entries`).

    :meth:`decision` is, for every name and operation, exactly the batch's
    :meth:`BatchChecker.check` of the entry. Beside it, what holds for the whole
    directory, so that a walk pays per directory rather than per entry:

    - :attr:`refused`: ``"tripwire"`` or ``"off"`` when every entry is refused before
      anything is resolved (all operations), else None;
    - :attr:`uniform`: every entry given with an inode whose name is not in
      :attr:`exceptions` is allowed for every operation, resolving to
      :attr:`resolved_prefix` + its name. Names in :attr:`exceptions` (a deny-listed
      path, inode or case-folded directory; a name the batch doesn't join to its parent)
      need their own :meth:`decision`.

    Symlinks are never given with an inode: their decision is the batch's own check,
    which resolves them whole.
    """

    __slots__ = ("_batch", "_index", "_inodes", "dev", "directory", "exceptions", "joined",
                 "names", "over_http", "prefix", "refused", "resolved_prefix", "uniform")

    def __init__(self, batch: BatchChecker, directory: str, names: Sequence[str],
                 inodes: Sequence[int] | None, dev: int | None,
                 over_http: bool | None, listed: bool = False) -> None:
        # A walk makes one of these per directory: the common case runs few lines.
        c = batch._c
        self._batch = batch
        self.directory = directory
        self.names = names
        self.dev = dev
        self._index: dict[str, int] | None = None
        self.joined: str | None = None
        self.exceptions: frozenset[str] = _NO_NAMES
        self.uniform = False
        if over_http is None:
            over_http = c.over_http_default
        self.over_http = over_http
        # Entry paths as a listing spells them (os.path.join, DirEntry.path).
        prefix = self.prefix = directory if directory.endswith("/") else directory + "/"
        head = known = None
        if (directory.__class__ is str and directory.startswith("/") and "\0" not in directory
                and c.platform != "windows"):
            # What the batch knows of the parent of every prefix + name (a walk lists
            # each directory once: not kept).
            known = batch._heads.get(prefix)
            if known is None:
                try:
                    known = batch._head(prefix)
                except ValueError:  # then the batch refuses each entry
                    known = None
            if known is not None:
                head = known[0]
        self.resolved_prefix = head
        self.refused: Reason | None = (
            "tripwire" if over_http and c.tripwire_armed else "off" if c.mode is _OFF else None)
        if (
            self.refused is not None
            or known is None
            or inodes is None
            or dev is None
            or len(inodes) != len(names)
        ):
            self._inodes = None
            return  # refused whole, or every decision is the batch's own check
        self._inodes = inodes
        _head, fast, tails, folded_tails = known
        if not fast:
            return  # decided entry by entry
        odd: set[str] = set()
        if listed:  # plain names, as the caller promises
            self.joined = "\n" + "\n".join(names) + "\n"
        else:
            self._odd_names(names, odd)
        if tails:
            odd.update(tails.intersection(n for n in names if n not in odd))
        deny_inodes = (batch._entry_tables or batch._tables()).inodes.get(dev)
        if deny_inodes and not deny_inodes.isdisjoint(inodes):
            odd.update(n for n, i in zip(names, inodes, strict=True) if i in deny_inodes)
        if folded_tails:
            odd.update(n for n in names if n not in odd and n.casefold() in folded_tails)
        if odd:
            self.exceptions = frozenset(odd)
        self.uniform = True

    def _odd_names(self, names: Sequence[str], odd: set[str]) -> None:
        """Join the names (:attr:`joined`) and add to ``odd`` those the batch doesn't
        join to their parent."""
        try:
            joined = self.joined = "\n" + "\n".join(names) + "\n"
        except TypeError:
            odd.update(n for n in names if not _plain_name(n))
            return
        # Each name stands between newlines: "", "." and ".." show as "\n\n",
        # "\n.\n" and "\n..\n" (a newline inside a name can only add a false alarm).
        if ("/" in joined or "\0" in joined or "\n\n" in joined or "\n.\n" in joined
                or "\n..\n" in joined):
            odd.update(n for n in names if not _plain_name(n))

    def decision(self, name: str, op: Op = "read") -> Decision:
        """The batch's check of ``directory/name`` for ``op``."""
        path = self.prefix + name if name.__class__ is str else name
        head = self.resolved_prefix
        if (head is None or self._inodes is None or self.refused is not None
                or op not in OPS or name.__class__ is not str):
            return self._batch.check(path, op, over_http=self.over_http)
        index = self._index
        if index is None:
            assert self._inodes is not None
            index = dict(zip(self.names, self._inodes, strict=True))
            if len(index) != len(self.names):
                # A name listed twice: which inode is its own can't be told.
                for n, times in Counter(self.names).items():
                    if times > 1:
                        del index[n]
            self._index = index
        inode = index.get(name)
        if inode is None or not _plain_name(name):
            return self._batch.check(path, op, over_http=self.over_http)
        c = self._batch._c
        if self.uniform and name not in self.exceptions:
            # Positional, in Decision's field order: the walk's hot path, where keyword
            # arguments make the construction 2.5x as costly (timeit: 2.7 against 6.9 µs;
            # bench_check and bench_exposure slowed by a third with them).
            return Decision(path, op, True, "allowed", "", head + name, c.policy,
                            self.over_http, None, True)
        assert self.dev is not None
        return _entry_verdict(c, path, op, self.over_http, head + name, (self.dev, inode))

