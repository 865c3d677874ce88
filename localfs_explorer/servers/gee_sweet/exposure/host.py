"""What the walk knows of the host: mount points, entry stats, cancellation, the
inodes already seen (hardlinks counted once)."""

from __future__ import annotations

import os
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Any, NamedTuple

from ....fs import FileSystem
from ..policy import Policy

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


#: Inode numbers the record keeps are below this (64 bits, as ``ino_t``).
_INODES_BELOW = 1 << 64


class _Seen:
    """The file identities a walk has met, so that a file is counted once and its other
    names (hardlinks, bind mounts) are known.

    Entries met one at a time (:meth:`add`) keep their first path. A directory decided
    at once (:meth:`add_listing`) keeps only its inodes, appended to one flat array per
    device, and their span (lowest and highest): a walk meets hundreds of thousands of
    files, nearly all with one name, and a set of them (an int object each, kept to the
    end) costs about as much as listing the directories does. What the array doesn't
    say while the walk goes on is whether a listing repeats an inode of an earlier
    listing; :meth:`repeated` says it afterwards, and a walk that met an inode twice is
    walked again knowing those inodes (``suspects``): the first listing holding one
    notes it by name, as if met one at a time, so that a later name of it is known. A
    listing is refused at once (walked entry by entry) when it names one inode twice,
    or holds one met one at a time or a watched one (a known credential's).
    """

    __slots__ = ("_bulk", "_paths", "_single", "_spans", "_suspects", "_watched")

    def __init__(self, suspects: dict[int, frozenset[int]] | None = None) -> None:
        #: identity -> the first path met, for entries met one at a time.
        self._paths: dict[tuple[int, int], str] = {}
        #: device -> the inodes met one at a time.
        self._single: dict[int, set[int]] = {}
        #: device -> inodes a listing holding one of must be walked entry by entry.
        self._watched: dict[int, set[int]] = {}
        #: device -> inodes an earlier walk met twice: noted by name when first met.
        self._suspects: dict[int, frozenset[int]] = dict(suspects or {})
        #: device -> the inodes of the listings taken whole, in the order met.
        self._bulk: dict[int, array[int]] = {}
        #: device -> (lowest, highest, where its inodes start in ``_bulk``) of each
        #: listing taken whole, flat.
        self._spans: dict[int, array[int]] = {}

    def get(self, identity: tuple[int, int]) -> str | None:
        """The first path met with ``identity`` one at a time. A file of a listing taken
        whole is not found: when one is met again, :meth:`repeated` says so."""
        return self._paths.get(identity)

    def add(self, identity: tuple[int, int], path: str) -> None:
        """Note ``path`` as the first name of ``identity`` (:meth:`get` found none)."""
        self._paths[identity] = path
        dev, ino = identity
        single = self._single.get(dev)
        if single is None:
            single = self._single[dev] = set()
        single.add(ino)

    def watch(self, identity: tuple[int, int]) -> None:
        """Make :meth:`add_listing` refuse any listing holding ``identity``."""
        dev, ino = identity
        self._watched.setdefault(dev, set()).add(ino)

    def add_listing(self, dev: int, inodes: Sequence[int], head: str = "",
                    names: Sequence[str] = ()) -> bool:
        """Take the inodes of a listing (``head + name`` for each of ``names``) whole,
        unless it names one twice or one of them was met one at a time or is watched
        (then nothing is noted and the answer is False). Suspects among them are noted
        by name (:meth:`add`)."""
        if not inodes:
            return True
        distinct = set(inodes)
        if len(distinct) != len(inodes):
            return False
        # Disjointness tests walk the smaller set: these two are usually small.
        single = self._single.get(dev)
        if single and not single.isdisjoint(distinct):
            return False
        watched = self._watched.get(dev)
        if watched and not watched.isdisjoint(distinct):
            return False
        low, high = min(inodes), max(inodes)
        if low < 0 or high >= _INODES_BELOW:  # wider than 64 bits: left to the entry walk
            return False
        suspects = self._suspects.get(dev)
        if suspects and not suspects.isdisjoint(distinct):
            if len(names) != len(inodes):
                return False  # can't be named: left to the entry walk
            met = suspects.intersection(distinct)
            for name, ino in zip(names, inodes, strict=True):
                if ino in met:
                    self.add((dev, ino), head + name)
            inodes = [ino for ino in inodes if ino not in met]
            if not inodes:
                return True
            low, high = min(inodes), max(inodes)
        bulk = self._bulk.get(dev)
        if bulk is None:
            bulk = self._bulk[dev] = array("Q")
            self._spans[dev] = array("Q")
        self._spans[dev].extend((low, high, len(bulk)))
        bulk.extend(inodes)
        return True

    def repeated(self) -> dict[int, frozenset[int]]:
        """device -> the inodes met more than once (in two listings taken whole, or in
        one and then one at a time); empty when every file had one name."""
        out: dict[int, frozenset[int]] = {}
        for dev, bulk in self._bulk.items():
            twice = _repeats(bulk, self._spans[dev], self._single.get(dev, set()))
            if twice:
                out[dev] = frozenset(twice)
        return out


def _repeats(bulk: array[int], spans: array[int], single: set[int]) -> set[int]:
    """The inodes of ``bulk`` (listings of distinct inodes, laid out as :class:`_Seen`
    keeps them) found in two listings, or in one and in ``single``.

    Only listings whose spans overlap can share an inode, and only a span can hold an
    inode of ``single``, so the inodes are looked at by groups of overlapping spans,
    and not at all where no span overlaps another and no inode of ``single`` falls in
    one."""
    lows, highs, starts = spans[0::3], spans[1::3], spans[2::3]
    starts.append(len(bulk))
    # Groups of overlapping spans, by lowest inode: [low, high, listings].
    groups: list[list[Any]] = []
    for i in sorted(range(len(lows)), key=lows.__getitem__):
        if groups and lows[i] <= groups[-1][1]:
            group = groups[-1]
            group[1] = max(group[1], highs[i])
            group[2].append(i)
        else:
            groups.append([lows[i], highs[i], [i]])

    def inodes_of(group: list[Any]) -> Iterator[int]:
        return chain.from_iterable(bulk[starts[i]:starts[i + 1]] for i in group[2])

    twice: set[int] = set()
    for group in groups:
        if len(group[2]) > 1:
            held = sum(starts[i + 1] - starts[i] for i in group[2])
            if len(set(inodes_of(group))) != held:  # counted only when one repeats
                twice.update(ino for ino, n in Counter(inodes_of(group)).items() if n > 1)
    lowest = [g[0] for g in groups]
    members: dict[int, set[int]] = {}
    for ino in single:
        at = bisect_right(lowest, ino) - 1
        if at < 0 or ino > groups[at][1]:
            continue
        held = members.get(at)
        if held is None:
            held = members[at] = set(inodes_of(groups[at]))
        if ino in held:
            twice.add(ino)
    return twice


class _Start(NamedTuple):
    path: str  # resolved directory walked
    configured: str | None
