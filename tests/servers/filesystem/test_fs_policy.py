"""validatePath as the filesystem server runs it: each message, each release's difference,
and the path each tool acts on (no node needed: the expectations are the server's texts)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from localfs_explorer.fs import HostFS, VirtualFS
from localfs_explorer.servers.filesystem import FilesystemConfig, FilesystemPolicy
from localfs_explorer.servers.filesystem.nodepath import (
    js_trim,
    normalize_path,
    relative,
    resolve,
)
from localfs_explorer.servers.filesystem.policy import CANNOT_OPERATE, NONE_ACCESSIBLE


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    data = root / "data"
    (data / "sub").mkdir(parents=True)
    (data / "file.txt").write_text("x")
    (root / "outside").mkdir()
    (root / "outside" / "secret").write_text("s")
    os.symlink(root / "outside", data / "out")
    os.symlink("sub", data / "in")
    os.symlink("missing", data / "dangling")
    os.symlink("loop", data / "loop")
    return root


def policy(*dirs: object, version: str = "2026.8.31", fs=None, **kw) -> FilesystemPolicy:
    config = FilesystemConfig(directories=tuple(str(d) for d in dirs), version=version, **kw)
    return FilesystemPolicy(config, fs or HostFS())


def test_outside_names_the_resolved_path_and_every_directory(tree: Path) -> None:
    (tree / "work").mkdir()
    p = policy(tree / "data", tree / "work")
    v = p.validate(f"{tree}/data/../outside/secret")
    assert not v.allowed and v.resolved is None and v.reason == "outside"
    assert v.message == (f"Access denied - path outside allowed directories: "
                         f"{tree}/outside/secret not in {tree}/data, {tree}/work")


def test_prefix_sibling_is_outside(tree: Path) -> None:
    (tree / "data-evil").mkdir()
    v = policy(tree / "data").validate(f"{tree}/data-evil")
    assert not v.allowed and v.reason == "outside"


def test_symlink_out_is_refused_with_its_target(tree: Path) -> None:
    v = policy(tree / "data").validate(f"{tree}/data/out/secret")
    assert v.message == (f"Access denied - symlink target outside allowed directories: "
                         f"{tree}/outside/secret not in {tree}/data")
    assert v.reason == "symlink-outside"


def test_symlink_in_resolves_to_its_target(tree: Path) -> None:
    v = policy(tree / "data").validate(f"{tree}/data/in")
    assert v.allowed and v.resolved == f"{tree}/data/sub" and v.message == ""


def test_dangling_symlink_is_a_missing_parent(tree: Path) -> None:
    p = policy(tree / "data")
    assert p.validate(f"{tree}/data/dangling").message == (
        f"Parent directory does not exist: {tree}/data")
    assert p.validate(f"{tree}/data/dangling/x").message == (
        f"Parent directory does not exist: {tree}/data/dangling")


def test_symlink_loop_is_nodes_eloop_text(tree: Path) -> None:
    v = policy(tree / "data").validate(f"{tree}/data/loop/x")
    assert v.message == (f"ELOOP: too many symbolic links encountered, realpath "
                         f"'{tree}/data/loop/x'")
    assert v.reason == "system-error"


def test_file_used_as_directory_is_nodes_enotdir_text(tree: Path) -> None:
    v = policy(tree / "data").validate(f"{tree}/data/file.txt/x")
    assert v.message == f"ENOTDIR: not a directory, realpath '{tree}/data/file.txt/x'"


def test_enotdir_from_the_walk_names_scandir(tree: Path) -> None:
    # The NFC request isn't on disk, so the walk matches the NFD file and then lists it.
    (tree / "data" / "cafe\u0301").write_text("x")
    v = policy(tree / "data").validate(f"{tree}/data/caf\u00e9/x")
    assert v.message == f"ENOTDIR: not a directory, scandir '{tree}/data/cafe\u0301'"


def test_windows_drive_path_per_release(tree: Path) -> None:
    msg = "Access denied - Windows-style path received on a POSIX host: C:\\x"
    assert policy(tree / "data").validate("C:\\x").message == msg
    assert policy(tree / "data", version="2.0.1").validate("C:\\x").message == msg
    old = policy(tree / "data", version="2026.7.10").validate("C:\\x")
    assert old.allowed and old.resolved == f"{tree}/data/C:\\x"


def test_missing_path_keeps_its_tail(tree: Path) -> None:
    v = policy(tree / "data").validate(f"{tree}/data/new/deeper/f")
    assert v.allowed and v.resolved == f"{tree}/data/new/deeper/f"


def test_2026_7_10_checks_only_the_parent(tree: Path) -> None:
    p = policy(tree / "data", version="2026.7.10")
    assert p.validate(f"{tree}/data/new/f").message == (
        f"Parent directory does not exist: {tree}/data/new")
    assert p.validate(f"{tree}/data/new").resolved == f"{tree}/data/new"


def test_nfd_request_for_an_nfc_name_resolves_to_the_name_on_disk(tree: Path) -> None:
    (tree / "data" / "caf\u00e9").mkdir()
    v = policy(tree / "data").validate(f"{tree}/data/cafe\u0301/new")
    assert v.allowed and v.resolved == f"{tree}/data/caf\u00e9/new"


def test_two_equivalent_names_make_the_request_ambiguous(tree: Path) -> None:
    (tree / "data" / "\u1e69").mkdir()
    (tree / "data" / "s\u0323\u0307").mkdir()
    v = policy(tree / "data").validate(f"{tree}/data/s\u0307\u0323")
    assert v.message == "Ambiguous Unicode path component: s\u0307\u0323"
    assert v.reason == "ambiguous-unicode"


def test_no_case_folding(tree: Path) -> None:
    v = policy(tree / "data").validate(f"{tree}/DATA/file.txt")
    assert not v.allowed and v.reason == "outside"


@pytest.mark.parametrize("suffix", ["'", '"', " ", "\t", "\u00a0", "\ufeff", "\u2028", "' "])
def test_2026_8_31_trim_escape_acts_on_the_untrimmed_sibling(tree: Path, suffix: str) -> None:
    v = policy(tree / "data").validate(f"{tree}/data{suffix}")
    assert v.allowed and v.by_trim and v.resolved == f"{tree}/data{suffix}"


@pytest.mark.parametrize("suffix", ["\u0085", " '", "x", "''"])
def test_trim_does_not_reach_other_siblings(tree: Path, suffix: str) -> None:
    v = policy(tree / "data").validate(f"{tree}/data{suffix}")
    assert not v.allowed and v.reason == "outside"


def test_2_0_1_compares_the_path_as_given(tree: Path) -> None:
    v = policy(tree / "data", version="2.0.1").validate(f"{tree}/data'")
    assert v.message == (f"Access denied - path outside allowed directories: {tree}/data' "
                         f"not in {tree}/data")


def test_2026_7_10_reads_an_existing_sibling_but_cannot_create_one(tree: Path) -> None:
    p = policy(tree / "data", version="2026.7.10")
    assert p.validate(f"{tree}/data'").message == f"Parent directory does not exist: {tree}"
    (tree / "data'").write_text("x")
    assert p.validate(f"{tree}/data'").resolved == f"{tree}/data'"


def test_trim_escape_through_a_symlinked_allowed_directory(tree: Path) -> None:
    os.symlink(tree / "data", tree / "link")
    p = policy(tree / "link")
    assert p.directories == (f"{tree}/link", f"{tree}/data")
    # The walk starts from the link's realpath and climbs out of it by name.
    assert p.validate(f"{tree}/link ").resolved == f"{tree}/link "


def test_empty_and_relative_paths_resolve_against_the_allowed_directories(tree: Path) -> None:
    p = policy(tree / "data")
    assert p.validate("").resolved == f"{tree}/data"
    assert p.validate("sub/x").resolved == f"{tree}/data/sub/x"
    assert p.validate("../outside").message.startswith(
        f"Access denied - path outside allowed directories: {tree}/outside not in")


def test_nul_is_refused_as_outside(tree: Path) -> None:
    v = policy(tree / "data").validate(f"{tree}/data/a\0b")
    assert v.message == (f"Access denied - path outside allowed directories: "
                         f"{tree}/data/a\0b not in {tree}/data")


def test_home_is_expanded_from_the_configured_home(tree: Path) -> None:
    p = policy(tree / "data", home=str(tree))
    assert p.validate("~/data/file.txt").resolved == f"{tree}/data/file.txt"
    assert not p.validate("~").allowed


def test_dots_and_double_slashes_are_resolved_as_text_first(tree: Path) -> None:
    p = policy(tree / "data")
    assert p.validate(f"{tree}//data/./sub/../file.txt/").resolved == f"{tree}/data/file.txt"
    # ".." is collapsed before the symlink is seen: data/out/.. is data, not outside/..
    assert p.validate(f"{tree}/data/out/..").resolved == f"{tree}/data"


def test_a_path_of_4000_components(tree: Path) -> None:
    deep = f"{tree}/data/" + "/".join(["a"] * 4000)
    assert policy(tree / "data").validate(deep).resolved == deep
    vfs = VirtualFS()
    vfs.mkdir("/data")
    assert policy("/data", fs=vfs).validate("/data/" + "/".join(["b"] * 4000)).allowed


def test_realpath_gives_up_after_40_links(tree: Path) -> None:
    for i in range(41):
        os.symlink(f"l{i + 1}" if i < 40 else "sub", tree / "data" / f"l{i}")
    assert policy(tree / "data").validate(f"{tree}/data/l1").resolved == f"{tree}/data/sub"
    assert policy(tree / "data").validate(f"{tree}/data/l0").message.startswith("ELOOP: ")


def test_virtual_host_answers_like_this_one(tree: Path) -> None:
    from localfs_explorer.fs import from_spec, snapshot

    vfs = from_spec(snapshot(tree).spec)
    host = policy(tree / "data", home=str(tree), cwd=str(tree))
    virt = policy(tree / "data", home=str(tree), cwd=str(tree), fs=vfs)
    for p in [f"{tree}/data/in", f"{tree}/data/out/x", f"{tree}/data/loop", f"{tree}/data'",
              f"{tree}/data/dangling/x", f"{tree}/data/file.txt/x", "sub", "~/data"]:
        assert virt.validate(p) == host.validate(p), p


# --- the allow-list -------------------------------------------------------------------


def test_argv_directories_are_resolved_normalised_and_trimmed(tree: Path) -> None:
    p = policy("data//", "./data/sub/ ", cwd=str(tree))
    assert p.directories == (f"{tree}/data", f"{tree}/data/sub")
    assert p.list_allowed_directories() == (
        f"Allowed directories:\n{tree}/data\n{tree}/data/sub")


def test_non_directories_are_skipped_with_the_servers_warning(tree: Path) -> None:
    p = policy(tree / "data", tree / "data" / "file.txt", tree / "nope")
    assert p.directories == (f"{tree}/data",)
    assert p.allowed.warnings == (
        f"Warning: {tree}/data/file.txt is not a directory, skipping",
        f"Warning: Cannot access directory {tree}/nope, skipping")


def test_no_usable_directory_stops_the_server(tree: Path) -> None:
    p = policy(tree / "nope")
    assert not p.allowed.serves and p.allowed.exit_message == NONE_ACCESSIBLE
    bare = policy()
    assert bare.allowed.exit_message == CANNOT_OPERATE


def test_roots_replace_argv_and_invalid_roots_keep_it(tree: Path) -> None:
    (tree / "work").mkdir()
    p = policy(tree / "data", roots=((tree / "work").as_uri(),))
    assert p.directories == (f"{tree}/work",)
    assert p.allowed.roots_replace_argv
    kept = policy(tree / "data", roots=("file:///no/such/dir", (tree / "data/file.txt").as_uri()))
    assert kept.directories == (f"{tree}/data",)
    remote = policy(tree / "data", roots=(f"file://example.org{tree}/work",))
    assert remote.directories == (f"{tree}/data",)


def test_roots_without_argv_let_the_server_start(tree: Path) -> None:
    p = policy(roots=(str(tree / "data"),))
    assert p.allowed.serves and p.directories == (f"{tree}/data",)


# --- node's path rules and JavaScript's trim ---------------------------------------


def test_js_trim_is_not_pythons_strip() -> None:
    assert js_trim("\ufeffa\u3000") == "a"
    assert js_trim("a\u0085") == "a\u0085" and "a\u0085".strip() == "a"
    assert js_trim("a\u180e") == "a\u180e"


def test_node_resolve_and_relative() -> None:
    assert resolve("//a//b/../c/") == "/a/c"
    assert resolve("x/y", cwd="/w") == "/w/x/y"
    assert resolve("/a", "../../..") == "/"
    assert relative("/data", "/data '") == "../data '"
    assert relative("/a/bc", "/a/b") == "../b"
    assert normalize_path("/data/' ") == "/data"
    assert normalize_path("/data '") == "/data "


# --- the batch check --------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("version", ["2026.8.31", "2.0.1", "2026.7.10"])
def test_batch_answers_exactly_as_the_single_check(tmp_path: Path, seed: int,
                                                   version: str) -> None:
    from fs_trees import build

    from localfs_explorer.fs import from_spec, snapshot

    tree = build(tmp_path, seed)
    for fs in (HostFS(), from_spec(snapshot(tree.root, home=tree.home).spec)):
        p = policy(*tree.allow, version=version, fs=fs, home=tree.home, cwd=str(tree.root))
        with p.many_checks() as batch:
            for path in tree.paths:
                assert batch.validate(path) == p.validate(path), (path, fs)


def test_batch_takes_the_short_way_only_for_plain_entries(tree: Path) -> None:
    p = policy(tree / "data")
    batch = p.many_checks()
    (tree / "data" / "plain.txt").write_text("x")
    assert batch.validate(f"{tree}/data/plain.txt").resolved == f"{tree}/data/plain.txt"
    # A symlink in the listing goes the long way, and is refused as the single check is.
    assert batch.validate(f"{tree}/data/out").reason == "symlink-outside"
    assert f"{tree}/data" in batch._parents


def _nest(top: Path, depth: int) -> None:
    """``top/a/a/…`` ``depth`` deep, made (and later removed) one level at a time: no
    path that long can be spelled, and a recursive removal would run out of stack."""
    here = os.getcwd()
    os.chdir(top)
    try:
        for _ in range(depth):
            os.mkdir("a")
            os.chdir("a")
    finally:
        os.chdir(here)


def _unnest(top: Path) -> None:
    """Remove what :func:`_nest` made, however deep it got, deepest first."""
    here = os.getcwd()
    os.chdir(top)
    try:
        depth = 0
        while os.path.isdir("a"):
            os.chdir("a")
            depth += 1
        for _ in range(depth):
            os.chdir("..")
            os.rmdir("a")
    finally:
        os.chdir(here)


def test_a_path_longer_than_path_max_is_nodes_enametoolong(tmp_path: Path) -> None:
    data = Path(os.path.realpath(tmp_path)) / "data"
    data.mkdir()
    try:
        _nest(data, 2100)  # deeper than PATH_MAX can spell
        deep = str(data) + "/a" * 2100
        v = policy(data).validate(deep + "/new")
        assert v.message == f"ENAMETOOLONG: name too long, realpath '{deep}/new'"
        assert policy(data).validate(str(data) + "/a" * 1000 + "/b/c").resolved == (
            str(data) + "/a" * 1000 + "/b/c")
    finally:
        _unnest(data)
    assert os.listdir(data) == []


def test_no_valid_roots_and_no_argv_leaves_an_empty_list(tree: Path) -> None:
    # The client advertises roots, none of them usable: the server serves with nothing
    # allowed, relative paths resolve against its working directory.
    latest = policy(roots=("file:///no/such",), cwd=str(tree))
    assert latest.allowed.serves and latest.directories == ()
    assert latest.validate("rel").message == (
        f"Access denied - path outside allowed directories: {tree}/rel not in ")
    newer = policy(roots=("file:///no/such",), cwd=str(tree), version="2.0.1")
    assert newer.validate(f"{tree}/x").message == (
        f"Access denied - no allowed directories: the client exposes no valid roots "
        f"({tree}/x)")
