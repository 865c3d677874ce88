"""What the walk knows of the host: mount points, entry stats, cancellation, the
inodes already seen (hardlinks counted once)."""

from __future__ import annotations

import os
import threading
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any, NamedTuple

from ..fs import FileSystem
from ..servers.gee_sweet.policy import Policy

_is_symlink = os.DirEntry.is_symlink
_is_dir = os.DirEntry.is_dir
_inode = os.DirEntry.inode



class _EntryStat(NamedTuple):
    """The lstat fields the check reads, taken from a directory listing."""

    st_mode: int
    st_ino: int
    st_dev: int


#: Filesystems whose directory listing carries the inode number stat reports.
_LISTING_INODE_EXACT = frozenset({"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "f2fs"})
#: Of those, the ones where every directory has the filesystem's own device (btrfs gives
#: each subvolume its own without a mount point): there a directory below another that
#: is not a mount point has its parent's device, and its listing's inode is its own.
_ONE_DEVICE = _LISTING_INODE_EXACT - {"btrfs"}


def _unescape_mount(text: str) -> str:
    # mountinfo writes space, tab, newline and backslash as \ooo.
    if "\\" not in text:
        return text
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 3 < len(text) and text[i + 1:i + 4].isdigit():
            out.append(chr(int(text[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


#: Kernel pseudo-filesystems: their files are generated, not stored, so the walk reports
#: their mount point as not walked instead of listing them (``/proc`` alone can hold
#: hundreds of thousands of entries). Single files there are still probed by rule.
_PSEUDO_FS = frozenset({
    "proc", "sysfs", "cgroup", "cgroup2", "devpts", "debugfs", "tracefs", "securityfs",
    "pstore", "bpf", "mqueue", "hugetlbfs", "configfs", "fusectl", "binfmt_misc",
    "autofs", "rpc_pipefs", "nsfs",
})


class _Mounts(NamedTuple):
    #: Every mount point (a listing's inode for one is the covered directory's).
    points: frozenset[str]
    #: Devices whose listings carry the inode number stat reports.
    exact: frozenset[int]
    #: Mount points of pseudo-filesystems, with their type.
    pseudo: dict[str, str]
    #: Of :attr:`exact`, the devices whose every directory has that device.
    one_device: frozenset[int] = frozenset()


def _host_mounts() -> _Mounts:
    """This machine's mounts, read once per walk from ``/proc/self/mountinfo``; when it
    can't be read, nothing is trusted and every entry is lstat'ed."""
    points: set[str] = set()
    exact: set[int] = set()
    pseudo: dict[str, str] = {}
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return _Mounts(frozenset(), frozenset(), {})
    inexact: set[int] = set()
    one: set[int] = set()
    several: set[int] = set()
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 5:
            continue
        point = _unescape_mount(fields[4])
        points.add(point)
        fstype = right.split()[0] if right.split() else ""
        if fstype in _PSEUDO_FS:
            pseudo[point] = fstype
        try:
            major, minor = (int(x) for x in fields[2].split(":"))
        except ValueError:
            continue
        dev = os.makedev(major, minor)
        (exact if fstype in _LISTING_INODE_EXACT else inexact).add(dev)
        (one if fstype in _ONE_DEVICE else several).add(dev)
    # A device mounted with two types (unusual) is trusted only if both are exact.
    trusted = exact - inexact
    return _Mounts(frozenset(points), frozenset(trusted), pseudo,
                   frozenset(trusted & (one - several)))


class _PrimedFS(FileSystem):
    """The policy's filesystem, with the lstat of the entry being checked answered from
    what the walk already knows about it (the listing, or the walk's own lstat)."""

    def __init__(self, inner: FileSystem) -> None:
        self.inner = inner
        self.label = inner.label
        self.path: str | None = None
        self.st: Any = None
        # Bound methods straight through: no extra Python frame on the engine's calls.
        self.realpath = inner.realpath  # type: ignore[method-assign]
        self.stat = inner.stat  # type: ignore[method-assign]
        self.listdir = inner.listdir  # type: ignore[method-assign]
        self.readlink = inner.readlink  # type: ignore[method-assign]

    def lstat(self, path: str) -> Any:
        if path == self.path:
            return self.st
        return self.inner.lstat(path)

    def realpath(self, path: str) -> str:  # pragma: no cover - replaced per instance
        return self.inner.realpath(path)

    def stat(self, path: str) -> Any:  # pragma: no cover - replaced per instance
        return self.inner.stat(path)

    def listdir(self, path: str) -> list[str]:  # pragma: no cover - replaced per instance
        return self.inner.listdir(path)

    def readlink(self, path: str) -> str:  # pragma: no cover - replaced per instance
        return self.inner.readlink(path)

    def home(self) -> str:
        return self.inner.home()

    def default_cwd(self) -> str:
        return self.inner.default_cwd()

    def __getattr__(self, name: str) -> Any:  # case_insensitive and friends
        return getattr(self.inner, name)


def _with_fs(policy: Policy, fs: FileSystem) -> Policy:
    """``policy`` on another filesystem object (same settings, same deny-list)."""
    twin = policy.model_copy(update={"fs": fs})
    twin.__dict__.pop("compiled", None)  # the copy must compile against the new fs
    return twin


def _home(policy: Policy) -> str:
    return policy.env.get("HOME") or policy.fs.home()


def _cancelled(cancel: Any) -> bool:
    if cancel is None:
        return False
    if isinstance(cancel, threading.Event):
        return cancel.is_set()
    return bool(cancel())


class _Seen:
    """The first resolved path met for each file identity, so that a file is counted
    once and its other names (hardlinks, bind mounts) are known.

    Names are added one at a time (:meth:`add`) or a directory at a time
    (:meth:`add_listing`): a listing whose inodes are all new is kept as it is
    (:class:`_Listings`), with a set of the inodes for the membership test, and looked
    into only when one of its inodes is asked for (:meth:`get`), which a walk rarely does.
    """

    __slots__ = ("_listings", "_paths", "_watched", "inodes")

    def __init__(self) -> None:
        self._paths: dict[tuple[int, int], str] = {}
        #: device -> every inode seen on it, whichever way it was added.
        self.inodes: dict[int, set[int]] = {}
        #: device -> the listings added on it.
        self._listings: dict[int, _Listings] = {}
        #: device -> inodes not seen yet that :meth:`add_listing` must not take in bulk.
        self._watched: dict[int, set[int]] = {}

    def get(self, identity: tuple[int, int]) -> str | None:
        found = self._paths.get(identity)
        if found is not None:
            return found
        dev, ino = identity
        inodes = self.inodes.get(dev)
        if inodes is None or ino not in inodes:
            return None
        listings = self._listings.get(dev)
        return listings.find(ino) if listings is not None else None

    def add(self, identity: tuple[int, int], path: str) -> None:
        """Note ``path`` as the first name of ``identity`` (not seen before)."""
        self._paths[identity] = path
        dev, ino = identity
        self.inodes.setdefault(dev, set()).add(ino)
        watched = self._watched.get(dev)
        if watched:
            watched.discard(ino)

    def watch(self, identity: tuple[int, int]) -> None:
        """Make :meth:`add_listing` refuse a listing holding ``identity``, unless it has
        been seen already (then every listing holding it is refused anyway)."""
        dev, ino = identity
        if ino not in self.inodes.get(dev, ()):
            self._watched.setdefault(dev, set()).add(ino)

    def add_listing(self, dev: int, head: str, names: Sequence[str],
                    inodes: Sequence[int], joined: str | None = None) -> bool:
        """Note ``head + name`` as the first name of each ``(dev, inode)``, if every
        inode is new, none repeats and none is watched; else note nothing and return
        False. ``joined``, when given, is ``"\n" + "\n".join(names) + "\n"``."""
        seen = self.inodes.get(dev)
        if seen is None:
            seen = self.inodes[dev] = set()
        # One pass: the set grows by one for each inode that is new and not repeated.
        before = len(seen)
        seen.update(inodes)
        grown = len(seen) - before
        if grown != len(inodes):
            # A hardlink of a file seen before, or one listed twice here: take back
            # just the inodes this listing brought. The ones noted one at a time
            # usually account for all that were there (an earlier listing is looked
            # into only when they don't).
            distinct = set(inodes)
            paths = self._paths
            had = {ino for ino in distinct if (dev, ino) in paths}
            if len(had) != len(distinct) - grown:
                listings = self._listings.get(dev)
                if listings is not None:
                    had.update(ino for ino in distinct if listings.holds(ino))
            seen.difference_update(distinct - had)
            return False
        watched = self._watched.get(dev)
        # Watched inodes are unseen ones: one in the set now came with this listing.
        if watched and not seen.isdisjoint(watched):
            seen.difference_update(inodes)  # all of them were new
            return False
        listings = self._listings.get(dev)
        if listings is None:
            listings = self._listings[dev] = _Listings()
        if not listings.add(head, names, inodes, joined):
            seen.difference_update(inodes)  # all of them were new
            return False
        return True


class _Listings:
    """The listings :class:`_Seen` took in bulk on one device, laid out flat: names as
    text, inodes in one array. A walk keeps one listing per directory, and per-listing
    objects would each be looked at by every run of the garbage collector."""

    __slots__ = ("_indexed", "_where", "heads", "inodes", "names", "starts")

    def __init__(self) -> None:
        self.heads: list[str] = []
        #: Per listing, its names between newlines (``"\n" + "\n".join(names) +
        #: "\n"``), or, when a name holds a newline, the names themselves.
        self.names: list[str | tuple[str, ...]] = []
        #: Where each listing's inodes start in :attr:`inodes`.
        self.starts = array("Q")
        self.inodes = array("Q")
        #: inode -> its position in :attr:`inodes`, for positions below ``_indexed``.
        self._where: dict[int, int] = {}
        self._indexed = 0

    def add(self, head: str, names: Sequence[str], inodes: Sequence[int],
            joined: str | None = None) -> bool:
        """Keep one listing; False (keeping nothing) for an identity wider than 64 bits."""
        try:
            numbers = array("Q", inodes)
        except OverflowError:
            return False
        if joined is None:
            joined = "\n" + "\n".join(names) + "\n"
        self.heads.append(head)
        self.names.append(joined if joined.count("\n") == len(names) + 1 else tuple(names))
        self.starts.append(len(self.inodes))
        self.inodes.extend(numbers)
        return True

    def _index(self) -> dict[int, int]:
        """inode -> its position in :attr:`inodes`, brought up to date."""
        inodes = self.inodes
        if self._indexed < len(inodes):
            self._where.update(zip(inodes[self._indexed:], range(self._indexed, len(inodes)),
                                   strict=True))
            self._indexed = len(inodes)
        return self._where

    def holds(self, ino: int) -> bool:
        """Whether a listing holds an entry with inode ``ino``."""
        return ino in self._index()

    def find(self, ino: int) -> str | None:
        """``head + name`` of the entry with inode ``ino``, if a listing holds it."""
        at = self._index().get(ino)
        if at is None:
            return None
        i = bisect_right(self.starts, at) - 1
        names = self.names[i]
        k = at - self.starts[i]
        return self.heads[i] + (names[k] if isinstance(names, tuple)
                                else names[1:-1].split("\n")[k])


class _Start(NamedTuple):
    path: str  # resolved directory walked
    configured: str | None
