"""Deep paths and deep trees cost no recursion per part or per level.

Paths of 4,000 components and trees 2,000 levels deep, in memory (VirtualFS) and on disk
(built one ``mkdir`` at a time with one-letter names): the answers are the host's, and
the verdict is the server's rule, allowed inside a root and refused outside.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import posixpath
import sys

import pytest

from localfs_explorer import resolve_policy
from localfs_explorer.fs import HostFS
from localfs_explorer.fs.virtual import VirtualFS
from localfs_explorer.probe import probe_call, walk
from localfs_explorer.probe.tool_paths import DriveTree

LEGACY = hasattr(posixpath, "_joinrealpath")
PARTS = 4000
LEVELS = 2000


def _chain(fs: VirtualFS, length: int, *, loop: bool) -> str:
    """``/c/l0 -> l1 -> ... -> l{length-1} -> /data`` (or back to ``l0``): the start."""
    fs.mkdir("/data", exist_ok=True)
    fs.mkdir("/c", exist_ok=True)
    for i in range(length):
        target = f"l{i + 1}" if i + 1 < length else ("l0" if loop else "/data")
        fs.symlink(target, f"/c/l{i}")
    return "/c/l0"


@pytest.mark.parametrize("loop", [False, True])
def test_a_long_symlink_chain_resolves_without_recursion(loop) -> None:
    fs = VirtualFS()
    start = _chain(fs, 3000, loop=loop)
    # The running interpreter's own algorithm (recursive on 3.10-3.12) must not be
    # what limits the answer.
    with little_stack():
        got = fs.realpath(start + "/x")
    assert got == ("/c/l0/x" if loop else "/data/x")


@pytest.mark.skipif(not LEGACY, reason="the recursive realpath is CPython 3.10-3.12's")
@pytest.mark.parametrize("loop", [False, True])
def test_the_recursive_realpath_emulation_matches_the_host_on_a_long_chain(tmp_path,
                                                                           loop) -> None:
    length = 600
    real = tmp_path / "data"
    real.mkdir()
    chain = tmp_path / "c"
    chain.mkdir()
    for i in range(length):
        target = f"l{i + 1}" if i + 1 < length else ("l0" if loop else str(real))
        (chain / f"l{i}").symlink_to(target)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 8 * length))  # the host's realpath recurses per link
    try:
        expected = os.path.realpath(chain / "l0" / "x" / "..")
    finally:
        sys.setrecursionlimit(limit)
    fs = VirtualFS()
    fs.mkdir(str(real), exist_ok=True)
    fs.mkdir(str(chain), exist_ok=True)
    for link in chain.iterdir():
        fs.symlink(os.readlink(link), str(link))
    with little_stack():  # what the emulation may use whatever the chain's length
        got = fs.realpath(str(chain / "l0" / "x" / ".."))
    assert got == expected


@pytest.mark.parametrize("make_fs", ["virtual", "host"])
def test_a_path_of_4000_components_is_allowed_inside_a_root_refused_outside(
        make_fs, tmp_path) -> None:
    if make_fs == "virtual":
        fs = VirtualFS()
        fs.mkdir("/srv/data", exist_ok=True)
        fs.mkdir("/srv/other", exist_ok=True)
        base = "/srv"
    else:
        fs = HostFS()
        (tmp_path / "data").mkdir()
        (tmp_path / "other").mkdir()
        base = str(tmp_path)
    policy = resolve_policy({"LOCAL_FILE_ACCESS": "roots",
                             "LOCAL_FILE_ROOTS": f"{base}/data"}, fs=fs)
    deep = "/".join(["b"] * PARTS)
    with little_stack():
        inside = policy.check_read(f"{base}/data/{deep}")
        outside = policy.check_read(f"{base}/other/{deep}")
    assert inside.allowed and inside.resolved == f"{base}/data/{deep}"
    assert not outside.allowed and outside.reason == "outside_roots"


def _deep_tree(fs: VirtualFS, top: str, levels: int) -> str:
    path = top
    for _ in range(levels):
        path += "/a"
        fs.mkdir(path, exist_ok=True)
    fs.add_file(path + "/f")
    return path


@contextlib.contextmanager
def little_stack(frames: int = 80):
    """Allow only ``frames`` more Python frames than are in use: recursion per level
    (or per part) of anything deeper fails at once, whatever the depth tested."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


@pytest.fixture
def no_depth_limit(monkeypatch):
    """Walks limited only by entries: any recursion per level would show."""
    monkeypatch.setattr(walk, "MAX_WALK_DEPTH", 10 * LEVELS)


def _sync_deep(levels: int) -> None:
    fs = VirtualFS()
    bottom = _deep_tree(fs, "/srv/data", levels)
    policy = resolve_policy({"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/srv/data"},
                            fs=fs)
    with little_stack(150):
        verdict = probe_call(policy, "sync_folder", {
            "local_path": "/srv/data", "folder_id": "F", "direction": "upload",
            "recursive": True}, drive_names=[], discover=False)
    checked = {p.path: p.allowed for p in verdict.paths}
    assert checked[bottom + "/f"] is True and checked[bottom] is True
    assert len(checked) == levels + 2 and verdict.outcome == "ok"


def _walk_deep(levels: int) -> None:
    fs = VirtualFS()
    bottom = _deep_tree(fs, "/srv/data", levels)
    policy = resolve_policy({"LOCAL_FILE_ACCESS": "full"}, fs=fs)
    walker = walk._CallFolderWalker(_probe_for(policy), "local_path", "catalog", _Batch(policy),
                          "/srv/data")
    with little_stack():
        walker.walk_local("/srv/data", "/srv/data", "read", 0)
    assert walker.count == levels + 1 and walker.stopped is None
    assert bottom + "/f" in walker.probe.recorded


def test_a_sync_descends_without_recursion(no_depth_limit) -> None:
    _sync_deep(300)


def test_a_folder_walk_descends_without_recursion(no_depth_limit) -> None:
    _walk_deep(300)


@pytest.mark.slow
def test_a_folder_walk_goes_2000_levels_deep(no_depth_limit) -> None:
    # A sync descends the same way: test_a_sync_descends_without_recursion shows it
    # with little stack, which any recursion per level would exceed at 300 levels.
    _walk_deep(LEVELS)


def test_drive_names_of_4000_parts_are_listed_without_recursion() -> None:
    name = "/".join(["d"] * PARTS) + "/file.txt"
    tree = DriveTree.from_names([name, "top.txt", "d/mid.txt"])
    with little_stack():
        files = list(tree.iter_files())
    assert files == ["top.txt", "d/mid.txt", name]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="built with one-letter names on Linux")
def test_a_tree_2000_levels_deep_on_disk_is_the_hosts(tmp_path) -> None:
    path = str(tmp_path / "t")
    os.mkdir(path)
    top = path
    for _ in range(LEVELS):  # os.makedirs itself recurses once per level
        path += "/a"
        os.mkdir(path)
    with open(path + "/f", "w") as fh:
        fh.write("x")
    try:
        policy = resolve_policy({"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": top})
        assert policy.check_read(path + "/f").allowed
        assert not policy.check_read(str(tmp_path) + "/elsewhere" + path[len(top):]).allowed
    finally:  # bottom up: shutil.rmtree (pytest's clean-up) recurses once per level
        os.unlink(path + "/f")
        while path != top:
            os.rmdir(path)
            path = path[: -len("/a")]


class _Probe:
    def __init__(self, policy) -> None:
        self.policy = policy
        self.over_http = False
        self.walk_limit = 10 * LEVELS
        self.notes: list[str] = []
        self.recorded: list[str] = []

    def record(self, d, *args, **kwargs) -> None:
        self.recorded.append(d.path)


def _probe_for(policy) -> _Probe:
    return _Probe(policy)


class _Batch:
    def __init__(self, policy) -> None:
        self.policy = policy

    def check(self, path, op, *, over_http=None):
        return self.policy.check_read(path, over_http=over_http)
