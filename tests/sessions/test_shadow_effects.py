"""The host as a session left it: what the session made or moved away, over this machine."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from localfs_explorer.sessions import SessionFS
from localfs_explorer.sessions.effects import apply_call


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = Path(os.path.realpath(tmp_path))
    (base / "d").mkdir()
    (base / "d" / "old.txt").write_text("x", encoding="utf-8")
    return base


def test_unchanged_it_answers_as_the_host(root: Path) -> None:
    fs = SessionFS()
    assert not fs.changed and fs.generation == 0
    assert sorted(fs.listdir(str(root / "d"))) == ["old.txt"]
    assert fs.exists(str(root / "d" / "old.txt")) and not fs.exists(str(root / "d" / "new"))
    assert fs.resolve(str(root / "d"))[0] == str(root / "d")


def test_made_paths_exist_and_moved_ones_are_gone(root: Path) -> None:
    fs = SessionFS()
    d = str(root / "d")
    fs.create(f"{d}/new.txt")
    fs.create(f"{d}/sub", is_dir=True)
    fs.create(f"{d}/sub/inner.txt")
    fs.remove(f"{d}/old.txt")
    assert fs.generation == 4
    assert sorted(fs.listdir(d)) == ["new.txt", "sub"]
    assert fs.listdir(f"{d}/sub") == ["inner.txt"]
    assert stat.S_ISREG(fs.stat(f"{d}/new.txt").st_mode)
    assert fs.is_dir(f"{d}/sub") and not fs.is_dir(f"{d}/new.txt")
    assert not fs.exists(f"{d}/old.txt")
    with pytest.raises(FileNotFoundError):
        fs.lstat(f"{d}/old.txt/below")
    with pytest.raises(OSError) as info:
        fs.readlink(f"{d}/new.txt")
    assert info.value.errno == errno.EINVAL  # there, and not a link
    with pytest.raises(FileNotFoundError):
        fs.readlink(f"{d}/old.txt")
    # A made path's identity can't be a host file's.
    assert fs.identity(f"{d}/new.txt") not in fs.identities([str(root / "d")])


def test_the_generation_moves_only_on_a_change(root: Path) -> None:
    fs = SessionFS()
    d = str(root / "d")
    fs.create(f"{d}/old.txt")  # already there on the host: nothing to lay over it
    assert fs.generation == 0 and not fs.changed
    fs.create(f"{d}/n.txt")
    fs.create(f"{d}/n.txt")
    assert fs.generation == 1
    fs.remove(f"{d}/gone")
    fs.remove(f"{d}/gone")
    assert fs.generation == 2
    fs.create(f"{d}/n.txt", is_dir=True)  # the same path, now known as a directory
    assert fs.generation == 3 and fs.is_dir(f"{d}/n.txt")


def test_apply_call_reads_moves_and_directories(root: Path) -> None:
    d = str(root / "d")
    fs = SessionFS()
    apply_call(fs, "create_directory", [("path", "write", f"{d}/made")])
    assert fs.is_dir(f"{d}/made")
    apply_call(fs, "move_file", [("source", "write", f"{d}/old.txt"),
                                 ("destination", "write", f"{d}/made/old.txt")])
    assert not fs.exists(f"{d}/old.txt") and fs.exists(f"{d}/made/old.txt")
    apply_call(fs, "write_file", [("path", "write", f"{d}/w.txt")])
    assert fs.exists(f"{d}/w.txt") and not fs.is_dir(f"{d}/w.txt")
    before = fs.generation
    apply_call(fs, "read_text_file", [("path", "read", f"{d}/elsewhere.txt")])
    assert fs.generation == before and not fs.exists(f"{d}/elsewhere.txt")



def test_a_change_forgets_only_the_verdicts_that_looked_there() -> None:
    from types import SimpleNamespace

    from localfs_explorer.sessions.shadow import _Served

    def verdict(*paths: str) -> object:
        return SimpleNamespace(paths=[SimpleNamespace(path=p, resolved=p) for p in paths])

    served = object.__new__(_Served)
    served.remembered, served._looked_at, served._under = {}, {}, {}
    calls = {
        "file": verdict("/d/sub/x.txt"),      # the changed path itself
        "inside": verdict("/d/sub/deep/y"),    # inside what changed
        "listing": verdict("/d"),              # a directory holding it
        "root": verdict("/"),
        "sibling": verdict("/d/subway/x"),     # components, not string prefixes
        "elsewhere": verdict("/e/x", "/e"),
    }
    for name, v in calls.items():
        served.remember((name, ""), v)
    served.forget_at("/d/sub")
    assert sorted(k for k, _ in served.remembered) == ["elsewhere", "sibling"]
    served.forget_at("/e/x/new")
    assert sorted(k for k, _ in served.remembered) == ["sibling"]
