"""The host's combined realpath-and-stat answers exactly what os.path.realpath and os.stat do."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from localfs_explorer.fs import HostFS
from localfs_explorer.fs.base import FileSystem

HOST = HostFS()


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    base = tmp_path.resolve()
    (base / "dir" / "sub").mkdir(parents=True)
    (base / "dir" / "file.txt").write_text("x")
    (base / "dir" / ".hidden").write_text("x")
    os.link(base / "dir" / "file.txt", base / "dir" / "hard.txt")
    (base / "to_dir").symlink_to(base / "dir")
    (base / "dir" / "rel_link").symlink_to("file.txt")
    (base / "dangling").symlink_to(base / "nowhere" / "x")
    (base / "loop_a").symlink_to(base / "loop_b")
    (base / "loop_b").symlink_to(base / "loop_a")
    os.mkfifo(base / "fifo")
    return base


SPELLINGS = [
    "dir", "dir/file.txt", "dir/.hidden", "dir/hard.txt", "dir/sub", "to_dir/file.txt",
    "to_dir", "dir/rel_link", "dangling", "dangling/more", "loop_a", "loop_a/x",
    "dir/missing.txt", "missing/deeper", "dir/file.txt/", "dir//file.txt", "dir/./file.txt",
    "dir/sub/../file.txt", "to_dir/../dir/file.txt", "dir/.", "dir/..", "fifo",
    "dir/file.txt/x", "DIR/file.txt",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_resolve_is_realpath_and_its_stat_is_the_targets(tree: Path, spelling: str) -> None:
    path = f"{tree}/{spelling}"
    resolved, st = HOST.resolve(path)
    assert resolved == os.path.realpath(path)
    if st is not None:
        expected = os.stat(resolved)
        assert (st.st_dev, st.st_ino) == (expected.st_dev, expected.st_ino)


def test_a_plain_existing_path_comes_with_its_stat_and_a_symlinked_one_does_not(
    tree: Path,
) -> None:
    plain, st = HOST.resolve(f"{tree}/dir/file.txt")
    if st is None:
        pytest.skip("this platform has no O_PATH descriptors to name")
    assert plain == f"{tree}/dir/file.txt"
    # Through a symlink the kernel reaches another spelling: realpath answers instead.
    assert HOST.resolve(f"{tree}/to_dir/file.txt") == (f"{tree}/dir/file.txt", None)


def test_resolve_raises_for_a_nul_byte_as_realpath_does(tree: Path) -> None:
    with pytest.raises(ValueError):
        os.path.realpath(f"{tree}/a\0b")
    with pytest.raises(ValueError):
        HOST.resolve(f"{tree}/a\0b")


def test_identities_match_stat_for_existing_missing_and_dangling_entries(tree: Path) -> None:
    entries = [f"{tree}/{s}" for s in ("dir/file.txt", "dir/hard.txt", "to_dir/file.txt",
                                      "dangling", "loop_a", "dir/missing", "dir/sub",
                                      "dir/file.txt/x")]
    entries.append(f"{tree}/bad\0name")
    expected = FileSystem.identities(HOST, entries)
    assert HOST.identities(entries) == expected
    st = os.stat(tree / "dir" / "file.txt")
    sub = os.stat(tree / "dir" / "sub")
    assert expected == {(st.st_dev, st.st_ino), (sub.st_dev, sub.st_ino)}


def test_the_host_opens_no_descriptor_it_does_not_close(tree: Path) -> None:
    fds = set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    if fds is None:
        pytest.skip("no /proc/self/fd to count descriptors")
    for spelling in SPELLINGS * 20:
        HOST.resolve(f"{tree}/{spelling}")
    assert set(os.listdir("/proc/self/fd")) == fds
