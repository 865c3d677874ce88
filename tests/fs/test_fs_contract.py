"""One contract, two filesystems: HostFS on real files and VirtualFS in memory.

Every test here runs twice, against the same tree built on disk under pytest's
``tmp_path`` and built in memory under the same absolute paths. Expected values are
written out, so a wrong answer fails on whichever side gives it; the last test also
requires the two sides to agree on a long list of probes.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from localfs_explorer.fs import FileSystem, HostFS
from localfs_explorer.fs.virtual import VirtualFS

# CPython 3.10-3.12 stop resolving at a symlink loop and normalise the rest lexically;
# 3.13 keeps resolving after it. A few expectations differ accordingly.
LEGACY = hasattr(posixpath, "_joinrealpath")

# (operation, args) relative to the base directory; applied to disk and to a VirtualFS.
TREE: list[tuple[str, ...]] = [
    ("dir", "root"),
    ("file", "root/a.txt"),
    ("dir", "root/sub"),
    ("file", "root/sub/deep.txt"),
    ("file", "root/tok.json"),
    ("link", "root/tok.json", "root/hard.json"),
    ("symlink", "{base}/root/sub", "root/abs"),
    ("symlink", "sub", "root/rel"),
    ("symlink", "../outside/inner", "root/up"),
    ("dir", "outside/inner"),
    ("file", "outside/secret.txt"),
    ("symlink", "nowhere/x", "root/dangling"),
    ("symlink", "loop2", "root/loop1"),
    ("symlink", "loop1", "root/loop2"),
    ("symlink", "self", "root/self"),
    ("symlink", "chain2", "root/chain1"),
    ("symlink", "chain3", "root/chain2"),
    ("symlink", "sub", "root/chain3"),
    ("symlink", "a.txt", "root/filelink"),
    ("symlink", "..", "root/dotdot"),
    ("symlink", "./sub/", "root/slashed"),
    ("symlink", "a.txt/", "root/fileslash"),
    ("file", "root-evil/x"),
    # Linux's link(2) doesn't follow a symlink: this is a second name of the link.
    ("link", "root/filelink", "root/hard-link"),
]
# A chain of 40 links resolves; 41 is one more than the kernel follows in one lookup.
for _n in range(40):
    TREE.append(("symlink", f"ok{_n + 1}" if _n < 39 else "sub", f"root/ok{_n}"))
for _n in range(41):
    TREE.append(("symlink", f"far{_n + 1}" if _n < 40 else "sub", f"root/far{_n}"))


def build_on_disk(base: str) -> None:
    for op, *args in TREE:
        if op == "dir":
            os.makedirs(f"{base}/{args[0]}", exist_ok=True)
        elif op == "file":
            os.makedirs(posixpath.dirname(f"{base}/{args[0]}"), exist_ok=True)
            Path(f"{base}/{args[0]}").touch()
        elif op == "link":
            os.link(f"{base}/{args[0]}", f"{base}/{args[1]}")
        else:
            os.symlink(args[0].format(base=base), f"{base}/{args[1]}")


def build_virtual(base: str) -> VirtualFS:
    fs = VirtualFS(cwd=base, home=base + "/home")
    fs.mkdir(base)
    for op, *args in TREE:
        if op == "dir":
            fs.mkdir(f"{base}/{args[0]}", exist_ok=True)
        elif op == "file":
            fs.add_file(f"{base}/{args[0]}")
        elif op == "link":
            fs.link(f"{base}/{args[0]}", f"{base}/{args[1]}")
        else:
            fs.symlink(args[0].format(base=base), f"{base}/{args[1]}")
    return fs


@pytest.fixture(params=["host", "virtual"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[FileSystem, str]:
    """(filesystem, base directory) with TREE built under base."""
    base = os.path.realpath(tmp_path)
    if request.param == "host":
        build_on_disk(base)
        return HostFS(), base
    return build_virtual(base), base


def outcome(call: Callable[[], object]) -> object:
    """A comparable summary of a call: its value, or the exception type and errno."""
    try:
        value = call()
    except OSError as exc:
        return (type(exc).__name__, errno.errorcode.get(exc.errno or 0))
    except ValueError as exc:
        return ("ValueError", str(exc))
    if hasattr(value, "st_mode"):
        mode = value.st_mode  # type: ignore[attr-defined]
        return "dir" if stat.S_ISDIR(mode) else "link" if stat.S_ISLNK(mode) else "file"
    if isinstance(value, list):
        return sorted(value)
    return value


# ----------------------------------------------------------------------------- realpath

REALPATH_CASES = [
    ("root/a.txt", "root/a.txt"),
    ("root/missing/more", "root/missing/more"),
    ("root/rel/deep.txt", "root/sub/deep.txt"),
    ("root/abs/deep.txt", "root/sub/deep.txt"),
    # ".." applies after the link is resolved, not to the spelling before it.
    ("root/up/../secret.txt", "outside/secret.txt"),
    ("root/rel/..", "root"),
    ("root/dotdot/root/a.txt", "root/a.txt"),
    ("root/chain1/deep.txt", "root/sub/deep.txt"),
    ("root/far0", "root/sub"),
    ("root/dangling", "root/nowhere/x"),
    ("root/dangling/..", "root/nowhere"),
    ("root/a.txt/..", "root"),
    ("root/missing/../a.txt", "root/a.txt"),
    ("root/./sub//deep.txt/", "root/sub/deep.txt"),
    ("root/slashed", "root/sub"),
    ("root/filelink", "root/a.txt"),
    # Loops give back the partly resolved path instead of raising.
    ("root/loop1", "root/loop1"),
    ("root/self", "root/self"),
    ("root/loop1/x", "root/loop1/x"),
    ("root/self/../a.txt", "root/a.txt"),
    # After a loop, 3.10-3.12 stop resolving (rel stays); 3.13 resolves it.
    ("root/loop1/../rel/deep.txt", "root/rel/deep.txt" if LEGACY else "root/sub/deep.txt"),
    # A double slash after a loop: 3.10-3.12 join the rest as an absolute path.
    ("root/loop1//x", "/x" if LEGACY else "root/loop1/x"),
    ("root-evil/x", "root-evil/x"),
]


@pytest.mark.parametrize(("probe", "expected"), REALPATH_CASES)
def test_realpath(world: tuple[FileSystem, str], probe: str, expected: str) -> None:
    fs, base = world
    want = expected if expected.startswith("/") else f"{base}/{expected}"
    assert fs.realpath(f"{base}/{probe}") == want


def test_realpath_of_relative_path_uses_the_working_directory(
    world: tuple[FileSystem, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fs, base = world
    monkeypatch.chdir(base)  # HostFS resolves against the process's cwd
    assert fs.realpath("root/rel/deep.txt") == f"{base}/root/sub/deep.txt"
    assert fs.realpath("") == base
    assert fs.realpath("..") == posixpath.dirname(base)


def test_realpath_refuses_nul_but_not_overlong_names(world: tuple[FileSystem, str]) -> None:
    fs, base = world
    with pytest.raises(ValueError, match="embedded null"):
        fs.realpath(f"{base}/root/a\0b")
    long_name = "n" * 300
    assert fs.realpath(f"{base}/root/{long_name}") == f"{base}/root/{long_name}"
    deep = f"{base}/root/" + "/".join(["d" * 200] * 25)
    assert fs.realpath(deep) == deep


# ----------------------------------------------------------------------------- stat & co


def nul_message(call: str) -> str:
    """What os itself says about a NUL byte in a path, on this Python."""
    with pytest.raises(ValueError) as info:
        getattr(os, call)("\0")
    return str(info.value)


ENOENT = ("FileNotFoundError", "ENOENT")
ENOTDIR = ("NotADirectoryError", "ENOTDIR")

STAT_CASES = [
    # probe, lstat, stat
    ("root", "dir", "dir"),
    ("root/a.txt", "file", "file"),
    ("root/rel", "link", "dir"),
    ("root/rel/", "dir", "dir"),  # a trailing slash follows the final link
    ("root/filelink/", ("NotADirectoryError", "ENOTDIR"), ("NotADirectoryError", "ENOTDIR")),
    ("root/fileslash", "link", ("NotADirectoryError", "ENOTDIR")),
    ("root/slashed", "link", "dir"),
    ("root/dangling", "link", ("FileNotFoundError", "ENOENT")),
    ("root/missing", ("FileNotFoundError", "ENOENT"), ("FileNotFoundError", "ENOENT")),
    ("root/missing/..", ("FileNotFoundError", "ENOENT"), ("FileNotFoundError", "ENOENT")),
    ("root/a.txt/x", ("NotADirectoryError", "ENOTDIR"), ("NotADirectoryError", "ENOTDIR")),
    ("root/a.txt/..", ("NotADirectoryError", "ENOTDIR"), ("NotADirectoryError", "ENOTDIR")),
    ("root/loop1", "link", ("OSError", "ELOOP")),
    ("root/loop1/x", ("OSError", "ELOOP"), ("OSError", "ELOOP")),
    ("root/ok0", "link", "dir"),
    ("root/far0", "link", ("OSError", "ELOOP")),
    ("root/up/../secret.txt", "file", "file"),
    ("root/dotdot/root-evil/x", "file", "file"),
    ("root/" + "n" * 256, ("OSError", "ENAMETOOLONG"), ("OSError", "ENAMETOOLONG")),
    ("root/missing/" + "n" * 256, ENOENT, ENOENT),
    ("root/a.txt/" + "n" * 256, ENOTDIR, ENOTDIR),
    # The wording is the running Python's ("embedded null byte" before 3.13).
    ("root/a\0b", ("ValueError", nul_message("lstat")), ("ValueError", nul_message("stat"))),
]


@pytest.mark.parametrize(("probe", "lstat_result", "stat_result"), STAT_CASES)
def test_lstat_and_stat(
    world: tuple[FileSystem, str], probe: str, lstat_result: object, stat_result: object
) -> None:
    fs, base = world
    path = f"{base}/{probe}"
    assert outcome(lambda: fs.lstat(path)) == lstat_result
    assert outcome(lambda: fs.stat(path)) == stat_result


def test_path_length_limit(world: tuple[FileSystem, str]) -> None:
    fs, base = world
    # 4095 bytes is a path the kernel accepts (and doesn't find); 4096 is too long.
    for total, expected in ((4095, "ENOENT"), (4096, "ENAMETOOLONG")):
        path = f"{base}/root/"
        while len(path) < total:
            path += "x" * min(200, total - len(path) - 1) + "/"
        path = path[:total]
        if path.endswith("/"):
            path = path[:-1] + "y"
        assert len(path.encode()) == total
        assert outcome(lambda p=path: fs.lstat(p))[1] == expected  # type: ignore[index]


def test_empty_path_is_not_found(world: tuple[FileSystem, str]) -> None:
    fs, _ = world
    assert outcome(lambda: fs.lstat("")) == ("FileNotFoundError", "ENOENT")


def test_errors_carry_errno_and_filename(world: tuple[FileSystem, str]) -> None:
    fs, base = world
    with pytest.raises(FileNotFoundError) as info:
        fs.stat(f"{base}/root/dangling")
    assert info.value.errno == errno.ENOENT
    assert info.value.filename == f"{base}/root/dangling"


@pytest.mark.parametrize(
    ("probe", "expected"),
    [
        ("root/sub", ["deep.txt"]),
        ("root/rel", ["deep.txt"]),
        ("outside", ["inner", "secret.txt"]),
        ("root/a.txt", ("NotADirectoryError", "ENOTDIR")),
        ("root/missing", ("FileNotFoundError", "ENOENT")),
        ("root/loop1", ("OSError", "ELOOP")),
    ],
)
def test_listdir(world: tuple[FileSystem, str], probe: str, expected: object) -> None:
    fs, base = world
    assert outcome(lambda: fs.listdir(f"{base}/{probe}")) == expected


@pytest.mark.parametrize(
    ("probe", "expected"),
    [
        ("root/rel", "sub"),
        ("root/up", "../outside/inner"),
        ("root/dangling", "nowhere/x"),
        ("root/slashed", "./sub/"),
        ("root/a.txt", ("OSError", "EINVAL")),
        ("root/rel/", ("OSError", "EINVAL")),  # the slash follows the link first
        ("root/missing", ("FileNotFoundError", "ENOENT")),
    ],
)
def test_readlink(world: tuple[FileSystem, str], probe: str, expected: object) -> None:
    fs, base = world
    assert outcome(lambda: fs.readlink(f"{base}/{probe}")) == expected


@pytest.mark.parametrize(
    ("probe", "exists", "is_dir", "is_symlink"),
    [
        ("root", True, True, False),
        ("root/a.txt", True, False, False),
        ("root/rel", True, True, True),
        ("root/dangling", False, False, True),
        ("root/loop1", False, False, True),
        ("root/missing", False, False, False),
        ("root/a\0b", False, False, False),
    ],
)
def test_derived_questions(
    world: tuple[FileSystem, str], probe: str, exists: bool, is_dir: bool, is_symlink: bool
) -> None:
    fs, base = world
    path = f"{base}/{probe}"
    assert (fs.exists(path), fs.is_dir(path), fs.is_symlink(path)) == (exists, is_dir, is_symlink)


def test_identity_follows_hardlinks_and_symlinks(world: tuple[FileSystem, str]) -> None:
    fs, base = world
    r = f"{base}/root"
    assert fs.samefile(f"{r}/hard.json", f"{r}/tok.json")  # a hardlink: one identity
    assert fs.samefile(f"{r}/rel", f"{r}/abs")
    assert fs.samefile(f"{r}/up/../secret.txt", f"{base}/outside/secret.txt")
    assert not fs.samefile(f"{r}/a.txt", f"{r}/tok.json")
    assert fs.is_symlink(f"{r}/hard-link") and fs.samefile(f"{r}/hard-link", f"{r}/a.txt")
    link, second = fs.lstat(f"{r}/filelink"), fs.lstat(f"{r}/hard-link")
    assert (link.st_dev, link.st_ino) == (second.st_dev, second.st_ino)
    assert not fs.samefile(f"{r}/dangling", f"{r}/dangling")  # nothing there to be
    assert fs.identity(f"{r}/missing") is None
    assert fs.identity(f"{r}/tok.json") == fs.identity(f"{r}/hard.json")
    assert fs.lstat(f"{r}/hard.json").st_ino == fs.lstat(f"{r}/tok.json").st_ino


def test_home_and_cwd_are_absolute(world: tuple[FileSystem, str]) -> None:
    fs, _ = world
    assert fs.home().startswith("/")
    assert fs.default_cwd().startswith("/")
    assert fs.realpath(fs.default_cwd()) == fs.default_cwd()


# ----------------------------------------------------------------------------- agreement

PROBES = (
    [probe for probe, _ in REALPATH_CASES]
    + [probe for probe, _, _ in STAT_CASES]
    + [
        "root/hard.json",
        "root/ok0/deep.txt",
        "root/far0/deep.txt",
        "root/chain1/",
        "root/dotdot/outside/../root/sub/./deep.txt",
        "root/fileslash/",
        "root/self/",
        "root-evil",
        "outside/inner/../../root/up/..",
    ]
)


def test_both_filesystems_agree_on_every_probe(tmp_path: Path) -> None:
    base = os.path.realpath(tmp_path)
    build_on_disk(base)
    host, virtual = HostFS(), build_virtual(base)
    for probe in PROBES:
        path = f"{base}/{probe}"
        for name in ("realpath", "lstat", "stat", "listdir", "readlink", "identity"):
            if name == "identity":
                # Inode numbers differ between the two; compare what they identify.
                got = [
                    sorted(p for p in PROBES if fs.samefile(path, f"{base}/{p}"))
                    for fs in (host, virtual)
                ]
            else:
                got = [
                    outcome(lambda fs=fs, n=name, p=path: getattr(fs, n)(p))
                    for fs in (host, virtual)
                ]
            assert got[0] == got[1], (name, probe)
