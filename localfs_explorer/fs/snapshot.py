"""Record a real directory tree as a host spec, so it can be probed anywhere.

:func:`snapshot` walks a directory of this machine and writes down what the policy
engine needs to reach the same verdicts later, elsewhere, even after the tree is gone:

- every directory, file and symlink under it, at its real absolute path (the symlink-free
  path of the tree's root, so ``/tmp`` on macOS is recorded as ``/private/tmp``); symlinks
  met on the way from the path given to that root are recorded too, so the given spelling
  keeps resolving;
- symlink targets verbatim (relative ones stay relative, dangling ones stay dangling);
- hardlink identity: files with several names share an ``inode`` key made of their real
  ``(st_dev, st_ino)``;
- device boundaries: the root and every mount below it carry a ``device`` named after
  the real device number; a directory met twice (a bind mount) is recorded as a bind;
- no file contents, sizes, times or permissions.

The walk is bounded by ``max_entries`` and ``max_depth``. A directory it can't read, an
entry that vanishes mid-walk, or a cut-off is recorded in :attr:`Snapshot.problems` and
the walk goes on: a partial snapshot is still useful, as long as it says it is partial.

:func:`materialize` is the inverse, for tests and demonstrations: it creates on disk the
entries of a spec that lie under one directory.
"""

from __future__ import annotations

import os
import stat as _stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import LocalfsError
from .host import HostFS
from .spec import SPEC_VERSION, dump_spec, from_spec
from .virtual import HostSpecError, VirtualFS

__all__ = ["Snapshot", "SnapshotError", "SnapshotProblem", "materialize", "snapshot"]

# Problems beyond this many are counted, not listed, so a huge unreadable tree can't
# turn the report into the bulk of the snapshot.
_MAX_LISTED_PROBLEMS = 200


class SnapshotError(LocalfsError):
    """The tree to record can't be recorded at all (missing, or not a directory)."""


@dataclass(frozen=True)
class SnapshotProblem:
    """Something the snapshot could not record faithfully."""

    path: str
    #: ``unreadable``, ``vanished``, ``max_depth``, ``max_entries`` or ``unsupported``
    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.detail}"

    def to_dict(self) -> dict[str, str]:
        """JSON-ready form."""
        return {"path": self.path, "kind": self.kind, "detail": self.detail}


@dataclass
class Snapshot:
    """A recorded tree: :attr:`spec` (a host spec dict) and what it could not record."""

    root: str
    spec: dict[str, Any]
    problems: list[SnapshotProblem] = field(default_factory=list)
    entry_count: int = 0
    unlisted_problems: int = 0

    @property
    def complete(self) -> bool:
        """True when nothing was cut off or unreadable."""
        return not self.problems and not self.unlisted_problems

    def to_fs(self) -> VirtualFS:
        """The recorded tree as a VirtualFS (a snapshot is of this POSIX machine)."""
        fs = from_spec(self.spec)
        assert isinstance(fs, VirtualFS)
        return fs

    def write(self, path: str | Path, *, force: bool = False) -> None:
        """Save the spec as JSON (what ``--fs PATH`` loads); see :func:`dump_spec`."""
        dump_spec(self.spec, path, force=force)

    def report(self) -> list[str]:
        """Human-readable lines: what was recorded, then each problem."""
        lines = [f"recorded {self.entry_count} entries under {self.root}"]
        lines += [f"  {p.kind}: {p}" for p in self.problems]
        if self.unlisted_problems:
            lines.append(f"  ... and {self.unlisted_problems} more problems")
        return lines


def _device_name(dev: int) -> str:
    return f"dev-{os.major(dev)}-{os.minor(dev)}"


def _inode_key(st: os.stat_result) -> str:
    return f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}:{st.st_ino}"


class _Recorder:
    def __init__(self, max_entries: int, max_depth: int) -> None:
        self.max_entries = max_entries
        self.max_depth = max_depth
        self.entries: dict[str, dict[str, str]] = {}
        self.problems: list[SnapshotProblem] = []
        self.unlisted = 0
        self.count = 0
        self.dirs_seen: dict[tuple[int, int], str] = {}
        self.full = False

    def problem(self, path: str, kind: str, detail: str) -> None:
        if len(self.problems) < _MAX_LISTED_PROBLEMS:
            self.problems.append(SnapshotProblem(path, kind, detail))
        else:
            self.unlisted += 1

    def walk(self, root: str, root_st: os.stat_result) -> None:
        self.entries[root] = {"type": "dir", "device": _device_name(root_st.st_dev)}
        self.dirs_seen[(root_st.st_dev, root_st.st_ino)] = root
        stack: list[tuple[str, int, int]] = [(root, 0, root_st.st_dev)]
        while stack and not self.full:
            directory, depth, dev = stack.pop()
            try:
                with os.scandir(directory) as it:
                    names = sorted(entry.name for entry in it)
            except OSError as exc:
                self.problem(directory, "unreadable", f"can't list: {exc.strerror}")
                continue
            subdirs = []
            for name in names:
                path = directory.rstrip("/") + "/" + name
                if self.count >= self.max_entries:
                    self.full = True
                    self.problem(
                        path,
                        "max_entries",
                        f"stopped at {self.max_entries} entries; this entry and the rest "
                        "of the tree are not recorded",
                    )
                    break
                sub = self.record(path, dev, depth + 1)
                if sub is not None:
                    subdirs.append(sub)
            # Reversed so the stack pops them in name order: a deterministic walk.
            stack.extend(reversed(subdirs))

    def record(self, path: str, parent_dev: int, depth: int) -> tuple[str, int, int] | None:
        try:
            st = os.lstat(path)
        except OSError as exc:
            self.problem(path, "vanished", f"can't stat: {exc.strerror}")
            return None
        self.count += 1
        mode = st.st_mode
        if _stat.S_ISLNK(mode):
            entry: dict[str, str]
            try:
                entry = {"type": "symlink", "target": os.readlink(path)}
            except OSError as exc:
                self.count -= 1
                self.problem(path, "unreadable", f"can't read the link: {exc.strerror}")
                return None
            if st.st_nlink > 1:
                entry["inode"] = _inode_key(st)
            self.entries[path] = entry
            return None
        if _stat.S_ISDIR(mode):
            key = (st.st_dev, st.st_ino)
            first = self.dirs_seen.get(key)
            if first is not None:
                if path.startswith(first.rstrip("/") + "/"):
                    # A bind of an ancestor: finite on the host, but not describable.
                    self.entries[path] = {"type": "dir"}
                    self.problem(
                        path,
                        "unsupported",
                        f"the directory {first} mounted again inside itself; recorded empty",
                    )
                else:
                    self.entries[path] = {"type": "dir", "bind": first}
                return None
            self.dirs_seen[key] = path
            entry = {"type": "dir"}
            if st.st_dev != parent_dev:
                entry["device"] = _device_name(st.st_dev)
            self.entries[path] = entry
            if depth >= self.max_depth and _has_entries(path):
                self.problem(
                    path,
                    "max_depth",
                    f"at depth {depth}, the limit; its contents are not recorded",
                )
                return None
            return None if depth >= self.max_depth else (path, depth, st.st_dev)
        # Regular files, and FIFOs, sockets and devices, which the policy treats alike.
        entry = {"type": "file"}
        if st.st_nlink > 1:
            entry["inode"] = _inode_key(st)
        if st.st_dev != parent_dev:
            entry["device"] = _device_name(st.st_dev)
        self.entries[path] = entry
        return None


def _has_entries(directory: str) -> bool:
    try:
        with os.scandir(directory) as it:
            return next(it, None) is not None
    except OSError:
        return True  # unknown: report the cut-off rather than hide it


def _ignores_case(entries: dict[str, dict[str, str]]) -> bool:
    """Whether this host's filesystem ignores case, tried on a recorded name.

    Only the last component is respelled, so the answer is about the volume the tree
    is on; a tree with no cased letter in any name can't tell, and says no.
    """
    for path, entry in entries.items():
        head, _, name = path.rpartition("/")
        flipped = name.swapcase()
        if flipped == name or entry.get("type") == "symlink":
            continue
        try:
            a, b = os.lstat(path), os.lstat(f"{head}/{flipped}")
        except OSError:
            return False
        return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
    return False


def _links_on_the_way(given: str) -> dict[str, dict[str, str]]:
    """The symlinks resolving ``given`` passes through, keyed by their resolved path."""
    links: dict[str, dict[str, str]] = {}
    rest = given.split("/")[::-1]
    path = "/"
    hops = 0
    while rest and hops < 64:  # a loop never reaches a directory; stop walking it
        name = rest.pop()
        if not name or name == ".":
            continue
        if name == "..":
            path = path[: path.rindex("/")] or "/"
            continue
        newpath = path + name if path == "/" else path + "/" + name
        try:
            if not _stat.S_ISLNK(os.lstat(newpath).st_mode):
                path = newpath
                continue
            target = os.readlink(newpath)
        except OSError:
            path = newpath
            continue
        hops += 1
        links[newpath] = {"type": "symlink", "target": target}
        if target.startswith("/"):
            path = "/"
        rest.extend(target.split("/")[::-1])
    return links


def snapshot(
    path: str | os.PathLike[str],
    *,
    max_entries: int = 10_000,
    max_depth: int = 32,
    home: str | None = None,
    cwd: str | None = None,
    label: str | None = None,
    case_insensitive: bool | None = None,
) -> Snapshot:
    """Record the tree at ``path`` as a host spec (see the module docstring).

    ``home`` defaults to this account's home directory and ``cwd`` to the tree's root,
    so a policy resolved against the snapshot sees what it would see here.
    ``case_insensitive`` defaults to what a respelled name in the tree shows (True on
    macOS's default volume).
    """
    given = os.path.abspath(os.fspath(path))
    root = os.path.realpath(given)
    try:
        root_st = os.stat(root)
    except OSError as exc:
        raise SnapshotError(f"can't snapshot {given}: {exc.strerror}") from None
    if not _stat.S_ISDIR(root_st.st_mode):
        raise SnapshotError(f"can't snapshot {given}: not a directory")
    if max_entries < 0 or max_depth < 0:
        raise SnapshotError("max_entries and max_depth can't be negative")

    recorder = _Recorder(max_entries, max_depth)
    recorder.walk(root, root_st)
    entries = dict(recorder.entries)
    if given != root:
        for link, entry in _links_on_the_way(given).items():
            entries.setdefault(link, entry)
    run_dir = os.path.realpath(cwd) if cwd is not None else root
    if run_dir not in entries and not run_dir.startswith(root.rstrip("/") + "/"):
        entries[run_dir] = {"type": "dir"}

    summary = f"Snapshot of {root}: {recorder.count} entries"
    problems = len(recorder.problems) + recorder.unlisted
    if problems:
        summary += f"; incomplete, {problems} problem(s), first: {recorder.problems[0]}"
    spec: dict[str, Any] = {
        "version": SPEC_VERSION,
        "label": label or f"snapshot of {root}",
        "description": summary,
        "case_insensitive": (
            _ignores_case(recorder.entries) if case_insensitive is None else case_insensitive
        ),
        "home": home if home is not None else HostFS().home(),
        "cwd": run_dir,
        "entries": dict(sorted(entries.items())),
    }
    return Snapshot(
        root=root,
        spec=spec,
        problems=recorder.problems,
        entry_count=recorder.count,
        unlisted_problems=recorder.unlisted,
    )


def materialize(spec: Mapping[str, Any] | VirtualFS, under: str | os.PathLike[str]) -> list[str]:
    """Create on disk every entry of ``spec`` that lies under directory ``under``.

    Entries keep their absolute paths, symlink targets are written verbatim, files are
    empty and entries sharing an ``inode`` become hardlinks. Devices are ignored (a
    mount needs privileges); bind mounts are refused. Returns the paths created.
    """
    data = spec if isinstance(spec, Mapping) else None
    fs = from_spec(data) if data is not None else spec
    assert isinstance(fs, VirtualFS)
    base = os.fspath(under).rstrip("/") or "/"
    prefix = base.rstrip("/") + "/"
    created: list[str] = []
    first_of_inode: dict[str, str] = {}
    for path, entry in fs.spec_entries().items():
        if path != base and not path.startswith(prefix):
            continue
        kind = entry["type"]
        if "bind" in entry:
            raise HostSpecError(f"entry {path!r}: bind mounts can't be materialized")
        if path != base:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        if kind == "dir":
            os.makedirs(path, exist_ok=True)
        elif kind == "symlink":
            os.symlink(entry["target"], path)
        else:
            key = entry.get("inode")
            if key is not None and key in first_of_inode:
                os.link(first_of_inode[key], path)
            else:
                with open(path, "x"):
                    pass
                if key is not None:
                    first_of_inode[key] = path
        created.append(path)
    return created
