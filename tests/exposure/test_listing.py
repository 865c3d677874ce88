"""The compiled listing helper: the names, types and inodes os.scandir gives, in one call."""

from __future__ import annotations

import os
import random
import socket
import stat
from pathlib import Path

import pytest
from conftest import c_compiler

from localfs_explorer.exposure import host

list_dir = host.list_dir
needs_helper = pytest.mark.skipif(list_dir is None, reason="built without the C helper")

#: d_type of each kind of entry (dirent.h), as a listing reports it.
DT = {"file": 8, "dir": 4, "symlink": 10, "fifo": 1, "socket": 12}


def test_the_helper_is_built_wherever_a_compiler_is() -> None:
    """The build skips the helper only without a C compiler; a broken helper must not
    pass as a machine without one."""
    if c_compiler() is None:
        pytest.skip("no C compiler here: the walk lists with os.scandir")
    assert list_dir is not None


def _by_scandir(path: str) -> dict[str, tuple[str, int]]:
    """name -> (kind, inode) as os.scandir says, without following symlinks."""
    out = {}
    with os.scandir(path) as it:
        for entry in it:
            if entry.is_symlink():
                kind = "symlink"
            elif entry.is_dir(follow_symlinks=False):
                kind = "dir"
            elif entry.is_file(follow_symlinks=False):
                kind = "file"
            else:
                mode = entry.stat(follow_symlinks=False).st_mode
                kind = "fifo" if stat.S_ISFIFO(mode) else "socket"
            out[entry.name] = (kind, entry.inode())
    return out


def _by_helper(path: str) -> dict[str, tuple[str, int]]:
    assert list_dir is not None
    names, types, inodes = list_dir(path)
    assert len(names) == len(types) == len(inodes)
    kinds = {v: k for k, v in DT.items()}
    out = {name: (kinds[t], ino) for name, t, ino in zip(names, types, inodes, strict=True)}
    assert len(out) == len(names)  # no name twice
    return out


@needs_helper
@pytest.mark.parametrize("seed", range(8))
def test_random_directories_list_as_scandir_lists_them(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    alphabet = ["a", "B", ".", "-", " ", "\n", "é", "ß", "\u212a", "\U0001f600", "\udcff"]
    made = 0
    for i in range(rng.randint(1, 300)):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))) + str(i)
        if name in (".", ".."):
            continue
        path = tmp_path / name
        kind = rng.choice(["file", "file", "dir", "symlink", "fifo", "socket"])
        if kind == "file":
            path.write_bytes(b"")
        elif kind == "dir":
            path.mkdir()
        elif kind == "symlink":
            path.symlink_to(rng.choice(["nowhere", ".", str(tmp_path / "x")]))
        elif kind == "fifo":
            os.mkfifo(path)
        else:
            if len(os.fsencode(path)) > 100:  # a socket's path has a short limit
                continue
            with socket.socket(socket.AF_UNIX) as s:
                s.bind(os.fsencode(path))
        made += 1
    expected = _by_scandir(str(tmp_path))
    assert len(expected) == made
    assert _by_helper(str(tmp_path)) == expected
    # With a trailing slash and through a symlink to the directory, the same listing.
    assert _by_helper(str(tmp_path) + "/") == expected
    alias = tmp_path.parent / f"alias{seed}"
    alias.symlink_to(tmp_path)
    assert _by_helper(str(alias)) == expected


@needs_helper
def test_an_empty_directory_and_a_large_one(tmp_path: Path) -> None:
    assert list_dir is not None
    assert list_dir(str(tmp_path)) == ([], b"", [])
    for i in range(5000):  # past the helper's first buffer of types
        (tmp_path / f"f{i}").write_bytes(b"")
    names, types, inodes = list_dir(str(tmp_path))
    assert sorted(names) == sorted(f"f{i}" for i in range(5000))
    assert types == bytes([8]) * 5000
    assert inodes == [os.lstat(tmp_path / n).st_ino for n in names]


@needs_helper
def test_errors_are_the_ones_scandir_raises(tmp_path: Path) -> None:
    assert list_dir is not None
    missing = str(tmp_path / "missing")
    with pytest.raises(FileNotFoundError) as caught:
        list_dir(missing)
    assert caught.value.filename == missing
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(NotADirectoryError):
        list_dir(str(afile))
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(OSError) as looped:
        list_dir(str(loop))
    with pytest.raises(OSError) as scandir_looped:
        os.scandir(str(loop))
    assert looped.value.errno == scandir_looped.value.errno
    with pytest.raises(ValueError):
        list_dir(str(tmp_path) + "\0x")
    with pytest.raises(TypeError):
        list_dir(os.fsencode(tmp_path))  # type: ignore[arg-type]


@needs_helper
@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any directory")
def test_an_unreadable_directory_raises_permission_error(tmp_path: Path) -> None:
    assert list_dir is not None
    shut = tmp_path / "shut"
    shut.mkdir(mode=0)
    try:
        with pytest.raises(PermissionError):
            list_dir(str(shut))
    finally:
        shut.chmod(0o700)
