"""DesktopCommanderMCP's path check (``validatePath`` of 0.2.52), rule by rule.

Each test names the mutation it catches. The live comparison is test_dc_differential.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from dc_trees import build

from localfs_explorer.fs import HostFS
from localfs_explorer.servers.desktop_commander import nodepath
from localfs_explorer.servers.desktop_commander.policy import DcPolicy
from localfs_explorer.servers.desktop_commander.settings import (
    DEFAULT_BLOCKED,
    DcSettings,
    SettingsError,
    read_settings,
    settings_from,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = Path(os.path.realpath(tmp_path))
    for d in ("allowed/sub", "Allowed", "allowed-evil", "outside", "home/proj", "work"):
        (r / d).mkdir(parents=True)
    for f in ("allowed/a.txt", "Allowed/b.txt", "allowed-evil/e.txt", "outside/s.txt"):
        (r / f).write_text("x")
    os.symlink("../outside", r / "allowed/out")
    os.symlink("../allowed", r / "outside/back")
    os.symlink("../outside/new.txt", r / "allowed/dangling")
    os.symlink("loop2", r / "allowed/loop1")
    os.symlink("loop1", r / "allowed/loop2")
    os.symlink("allowed", r / "link-to-allowed")
    return r


def policy(root: Path, dirs: list[str] | None) -> DcPolicy:
    home = str(root / "home")
    settings = (DcSettings((home,), None, "unset") if dirs is None
                else DcSettings(tuple(dirs), tuple(dirs), "test"))
    return DcPolicy(settings, home=home, cwd=str(root / "work"), fs=HostFS())


def test_a_directory_differing_only_by_case_passes(root: Path) -> None:
    # Mutation: comparing without lower-casing both sides refuses Allowed/b.txt.
    v = policy(root, [str(root / "allowed")]).validate(str(root / "Allowed/b.txt"))
    assert v.allowed and v.case_only and v.resolved == str(root / "Allowed/b.txt")
    # Lower-casing is on both sides: an upper-case entry lets the lower-case tree in.
    upper = policy(root, [str(root / "allowed").upper()]).validate(str(root / "allowed/a.txt"))
    assert upper.allowed


def test_prefix_sibling_is_refused_with_the_exact_text(root: Path) -> None:
    # Mutation: a plain string prefix test lets allowed-evil through.
    allowed = str(root / "allowed")
    v = policy(root, [allowed, "~/proj"]).validate(str(root / "allowed-evil/e.txt"))
    assert not v.allowed and v.reason == "outside" and v.resolved is None
    assert v.message == (f"Path not allowed: {root}/allowed-evil/e.txt. Must be within one "
                         f"of these directories: {allowed}, ~/proj")


def test_symlinks_are_followed_before_the_comparison(root: Path) -> None:
    # Mutation: comparing the path as spelled lets allowed/out/s.txt through and refuses
    # outside/back/a.txt.
    p = policy(root, [str(root / "allowed")])
    assert not p.validate(str(root / "allowed/out/s.txt")).allowed
    back = p.validate(str(root / "outside/back/a.txt"))
    assert back.allowed and back.resolved == str(root / "allowed/a.txt")


def test_dotdot_is_folded_as_text_before_any_symlink(root: Path) -> None:
    p = policy(root, [str(root / "allowed")])
    assert not p.validate(str(root / "allowed/../outside/s.txt")).allowed
    # allowed/out/.. would be the tree's root if the link were followed first; node's
    # path.resolve folds it away by text, so this is allowed/a.txt.
    v = p.validate(str(root / "allowed/out/../a.txt"))
    assert v.allowed and v.resolved == str(root / "allowed/a.txt")


def test_a_dangling_symlink_is_checked_by_its_own_name(root: Path) -> None:
    # Mutation: resolving the link's target refuses it; the server lets the write land
    # at outside/new.txt.
    v = policy(root, [str(root / "allowed")]).validate(str(root / "allowed/dangling"))
    assert v.allowed and v.resolved == str(root / "allowed/dangling")


def test_missing_paths_take_the_deepest_existing_ancestor(root: Path) -> None:
    p = policy(root, [str(root / "allowed")])
    v = p.validate(str(root / "link-to-allowed/new/deeper/x.txt"))
    assert v.allowed and v.resolved == str(root / "allowed/new/deeper/x.txt")
    assert not p.validate(str(root / "nowhere/x/y")).allowed


def test_failures_other_than_missing_refuse_with_nodes_text(root: Path) -> None:
    p = policy(root, [])  # even where every path is allowed
    below_file = str(root / "allowed/a.txt/x")
    v = p.validate(below_file)
    assert not v.allowed and v.reason == "resolve-failed"
    assert v.message == (f"Failed to resolve symlink for path: {below_file}. Error: ENOTDIR: "
                         f"not a directory, realpath '{below_file}'")
    loop = str(root / "allowed/loop1")
    assert p.validate(loop).message == (
        f"Failed to resolve symlink for path: {loop}. Error: ELOOP: too many symbolic links "
        f"encountered, realpath '{loop}'")


def test_a_nul_byte_fails_before_any_system_call(root: Path) -> None:
    # Mutation: handing the path to the filesystem raises instead of answering.
    p = policy(root, [])
    v = p.validate("x\0y")
    assert not v.allowed and v.reason == "resolve-failed"
    assert v.message == (f"Failed to resolve symlink for path: {root}/work/x\0y. Error: The "
                         "argument 'path' must be a string, Uint8Array, or URL without null "
                         f"bytes. Received '{root}/work/x\\x00y'")
    with p.many_checks() as batch:
        assert batch.validate("/x\0y") == p.validate("/x\0y")
    from localfs_explorer.servers.desktop_commander.messages import inspect_string

    assert inspect_string("a'b\n") == '"a\'b\\n"'
    assert inspect_string("a'\"b") == "`a'\"b`"
    assert inspect_string("a'\"`${\x9f") == "'a\\'\"`${\\x9F'"


def test_relative_paths_and_tilde(root: Path) -> None:
    p = policy(root, [str(root / "allowed"), "~/proj"])
    assert p.validate("../allowed/a.txt").resolved == str(root / "allowed/a.txt")
    assert p.validate("~/proj/new.txt").resolved == str(root / "home/proj/new.txt")
    assert not p.validate("~").allowed  # the home itself is not inside ~/proj
    # ~user is not expanded: it is a name relative to the working directory.
    assert p.validate("~nobody/x").absolute == str(root / "work/~nobody/x")


def test_empty_list_and_root_allow_everything(root: Path) -> None:
    for dirs in ([], ["/"], [str(root / "allowed"), "/"]):
        v = policy(root, dirs).validate(str(root / "outside/s.txt"))
        assert v.allowed and v.reason == "everything", dirs


def test_unset_means_the_home_directory(root: Path) -> None:
    p = policy(root, None)
    assert p.validate(str(root / "home/proj")).allowed
    v = p.validate(str(root / "allowed/a.txt"))
    assert v.message.endswith(f"one of these directories: {root}/home")


def test_allowed_directories_are_never_resolved(root: Path) -> None:
    # Through a symlink or relative: compared as written, so nothing below passes.
    via_link = policy(root, [str(root / "link-to-allowed")])
    assert not via_link.validate(str(root / "link-to-allowed/a.txt")).allowed
    assert not policy(root, ["allowed"]).validate("../allowed/a.txt").allowed
    # A trailing separator, doubled separators and '..' in an entry are normalised away.
    for spelled in (f"{root}/allowed/", f"/{root}/allowed", f"{root}/x/../allowed"):
        assert policy(root, [spelled]).validate(str(root / "allowed/a.txt")).allowed


@pytest.mark.parametrize("seed", range(6))
def test_the_batch_agrees_with_the_single_check(tmp_path: Path, seed: int) -> None:
    tree = build(Path(os.path.realpath(tmp_path)), seed)
    dirs = tree.allowed if isinstance(tree.allowed, list) else [tree.home]
    p = DcPolicy(DcSettings(tuple(dirs), tuple(dirs), "t"), home=tree.home, cwd=tree.cwd,
                 fs=HostFS())
    with p.many_checks() as batch:
        for path in tree.paths:
            assert batch.validate(path) == p.validate(path), path


def test_the_batch_keeps_the_first_matching_entry_and_the_case(root: Path) -> None:
    # Mutation: remembering a directory's entry for all its names would answer
    # allowed/sub by "allowed" though the entry listed first, allowed/sub, matches it.
    (root / "allowed/SUB").mkdir()
    dirs = [str(root / "allowed/sub"), str(root / "Allowed")]
    p = policy(root, dirs)
    wanted = [str(root / n) for n in ("allowed/a.txt", "allowed/sub", "allowed/SUB",
                                      "allowed/sub/x", "Allowed/b.txt", "allowed/out")]
    with p.many_checks() as batch:
        got = [batch.validate(w) for w in wanted]
    assert got == [p.validate(w) for w in wanted]
    assert [g.matched for g in got[:4]] == [dirs[1], dirs[0], dirs[0], dirs[0]]
    assert [g.case_only for g in got[:5]] == [True, False, True, False, False]


def test_settings_file_rules(tmp_path: Path) -> None:
    home = str(tmp_path)
    missing = read_settings(str(tmp_path / "none.json"), home)
    assert missing.everything and missing.allowed == () and "missing" in missing.source
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert read_settings(str(bad), home).everything
    unset = tmp_path / "unset.json"
    unset.write_text(json.dumps({"blockedCommands": ["sudo"]}))
    got = read_settings(str(unset), home)
    assert got.allowed == (home,) and got.configured is None
    assert got.blocked_commands == ("sudo",)
    assert settings_from({"allowedDirectories": "/"}, home).allowed == (home,)  # not a list
    assert read_settings(str(tmp_path / "none.json"), home).blocked_commands == DEFAULT_BLOCKED
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"allowedDirectories": [1]}))
    with pytest.raises(SettingsError, match="must be a string"):
        read_settings(str(wrong), home)


def test_node_path_functions() -> None:
    assert nodepath.normalize("//a//b/./c/..") == "/a/b"
    assert nodepath.normalize("a/") == "a/" and nodepath.normalize("") == "."
    assert nodepath.normalize("../x/../..") == "../.."
    assert nodepath.resolve("/w", "../a/") == "/a" and nodepath.resolve("/w", "//x") == "/x"
    assert nodepath.join("/h", "") == "/h" and nodepath.join("/h", "/x/") == "/h/x/"
    assert nodepath.dirname("/a") == "/" and nodepath.basename("/a/b") == "b"
