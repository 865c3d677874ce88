"""Folder walks and sync_folder's direction table (localfs_explorer.probe.walk)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Layout
from probe_support import probe_call, recorded_policy

from localfs_explorer.servers.gee_sweet.messages import DENIED

# --- folder walks (§6, §11) ------------------------------------------------------------------


@pytest.fixture
def walked(layout: Layout) -> Layout:
    """The data root with an escaping symlink beside ordinary files."""
    (layout.data / "escape.txt").symlink_to(layout.outside / "other.txt")
    (layout.data / "inner.txt").symlink_to(layout.data / "report.csv")
    return layout


def test_upload_folder_takes_only_its_top_level_files(walked: Layout) -> None:
    (walked.data / ".DS_Store").write_text("x")
    (walked.data / ".gee-sweet-partial-0123456789abcdef").write_text("x")
    policy = walked.roots()
    v = probe_call(policy, "upload_local_folder",
                   {"local_path": str(walked.data), "parent_folder_id": "F"})
    assert v.outcome == "partial" and v.message == ""
    entries = [(p.path, p.allowed, p.step) for p in v.paths if p.kind == "entry"]
    d = str(walked.data)
    # Regular files only, sorted, system and temporary files left out; no descent.
    assert entries == [
        (f"{d}/escape.txt", False, "failed"),
        (f"{d}/inner.txt", True, None),
        (f"{d}/report.csv", True, None),
    ]
    v = probe_call(policy, "upload_local_folder",
                   {"local_path": str(walked.data), "parent_folder_id": "F",
                    "skip_system_files": False}, drive_names=["report.csv"])
    # Without the system-file skip .DS_Store is checked; a name already in the Drive
    # folder is skipped (skip_if_exists) before any check.
    assert [Path(p.path).name for p in v.paths if p.kind == "entry"] == [
        ".DS_Store", "escape.txt", "inner.txt"]


def test_upload_folder_checks_files_under_the_folders_resolved_path(layout: Layout) -> None:
    (layout.data / "link").symlink_to(layout.data / "sub")
    v = probe_call(layout.roots(), "upload_local_folder",
                   {"local_path": str(layout.data / "link"), "parent_folder_id": "F"})
    assert [p.path for p in v.paths] == [str(layout.data / "link"),
                                         str(layout.data / "sub" / "notes.txt")]
    v = probe_call(layout.roots(), "upload_local_folder",
                   {"local_path": str(layout.data / "report.csv")})
    assert v.outcome == "error" and "no directory found" in v.message


@pytest.mark.parametrize("dry_run", [False, True])
def test_sync_upload_with_an_escaping_symlink(walked: Layout, dry_run: bool) -> None:
    v = probe_call(walked.roots(), "sync_folder",
                   {"local_path": str(walked.data), "folder_id": "F", "direction": "upload",
                    "dry_run": dry_run, "recursive": True})
    assert v.outcome == "partial"
    failed = [(p.path, p.step, p.op) for p in v.paths if not p.allowed]
    assert failed == [(str(walked.data / "escape.txt"), "local_read_fail", "read")]
    assert sum(p.allowed for p in v.paths if p.kind == "entry") == 4
    assert any("dry run" in n for n in v.notes) == dry_run


def test_download_folder_checks_each_drive_file_and_skips_subfolders(walked: Layout) -> None:
    v = probe_call(walked.roots(), "download_folder",
                   {"folder_id": "F", "local_path": str(walked.data)},
                   drive_names=["report.csv", "escape.txt", "sub/new.txt", "new.bin"])
    assert v.outcome == "partial"
    got = [(p.path, p.allowed, p.op) for p in v.paths if p.kind == "entry"]
    d = str(walked.data)
    # In the Drive listing's order; the subfolder is never entered. An existing file is
    # checked first, then skipped (skip_if_exists).
    assert got == [
        (f"{d}/report.csv", True, "write"),
        (f"{d}/escape.txt", False, "write"),
        (f"{d}/new.bin", True, "write"),
    ]
    assert any("subfolder" in n and "never enters" in n for n in v.notes)
    v = probe_call(walked.roots(), "download_folder",
                   {"folder_id": "F", "local_path": str(walked.data / "report.csv")},
                   drive_names=["x.txt"])
    assert v.outcome == "error" and len(v.paths) == 1  # a file where the folder goes


def test_a_symlinked_folder_outside_the_root_is_not_descended(layout: Layout) -> None:
    (layout.data / "elsewhere").symlink_to(layout.outside)
    v = probe_call(layout.roots(), "sync_folder",
                   {"local_path": str(layout.data), "direction": "upload", "recursive": True})
    refused = [p.path for p in v.paths if not p.allowed]
    assert refused == [str(layout.data / "elsewhere")]
    assert not any("other.txt" in p.path for p in v.paths)
    assert v.outcome == "partial"
    # upload_local_folder never looks into a folder at all.
    v = probe_call(layout.roots(), "upload_local_folder", {"local_path": str(layout.data)})
    assert [p.path for p in v.paths if p.kind == "entry"] == [str(layout.data / "report.csv")]


def test_walked_paths_keep_the_callers_spelling(layout: Layout) -> None:
    policy = layout.policy(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=str(layout.data))
    v = probe_call(policy, "sync_folder", {"local_path": "../data/./sub/",
                                           "direction": "upload"})
    assert [p.path for p in v.paths] == ["../data/./sub/", "../data/sub/notes.txt"]
    assert v.paths[1].resolved == str(layout.data / "sub" / "notes.txt")


def test_a_refused_root_is_not_walked(layout: Layout) -> None:
    policy, fs = recorded_policy(layout, LOCAL_FILE_ACCESS="roots",
                                 LOCAL_FILE_ROOTS=str(layout.data))
    v = probe_call(policy, "upload_local_folder", {"local_path": str(layout.outside)})
    assert v.outcome == "refused" and len(v.paths) == 1
    assert fs.listed == []
    assert not any(a.startswith(str(layout.outside) + "/") for a in fs.asked)


def test_walks_are_bounded_and_say_so(layout: Layout) -> None:
    for i in range(5):
        (layout.data / f"f{i}.txt").write_text("x")
    v = probe_call(layout.roots(), "upload_local_folder", {"local_path": str(layout.data)},
                   walk_limit=3)
    assert len([p for p in v.paths if p.kind == "entry"]) == 3
    assert any("stopped after 3 entries" in n for n in v.notes)


def test_a_symlink_loop_inside_the_root_ends(layout: Layout) -> None:
    (layout.data / "sub" / "up").symlink_to(layout.data)
    v = probe_call(layout.roots(), "sync_folder",
                   {"local_path": str(layout.data), "direction": "upload", "recursive": True})
    assert v.outcome == "ok"
    assert any("already walked" in n for n in v.notes)
    assert len(v.paths) < 10


# --- sync_folder's direction table ("As implemented") ----------------------------------------


@pytest.fixture
def sync_tree(layout: Layout) -> Layout:
    """data holds both.txt and local_only.txt; the Drive side has both.txt and drive_only."""
    (layout.data / "both.txt").write_text("b")
    (layout.data / "local_only.txt").write_text("l")
    return layout


DRIVE = ["both.txt", "drive_only.txt"]


@pytest.mark.parametrize(
    ("direction", "root_op", "expected", "skipped"),
    [
        ("upload", "read", {"both.txt": "read", "local_only.txt": "read"}, "drive_only.txt"),
        ("download", "write", {"both.txt": "write", "drive_only.txt": "write"},
         "local_only.txt"),
        ("bidirectional", "read_write",
         {"both.txt": "read_write", "local_only.txt": "read", "drive_only.txt": "write"}, None),
    ],
)
def test_sync_direction_table(
    sync_tree: Layout, direction: str, root_op: str, expected: dict, skipped: str | None
) -> None:
    # Keep only the three names of interest in the folder.
    (sync_tree.data / "report.csv").unlink()
    (sync_tree.data / "sub" / "notes.txt").unlink()
    (sync_tree.data / "sub").rmdir()
    v = probe_call(sync_tree.roots(), "sync_folder",
                   {"local_path": str(sync_tree.data), "direction": direction},
                   drive_names=DRIVE)
    root = v.paths[0]
    assert (root.kind, root.op) == ("root", root_op)
    got = {Path(p.path).name: p.op for p in v.paths if p.kind == "entry"}
    assert got == expected
    assert v.outcome == "ok"
    if skipped:
        assert any(skipped in n and "skipped unchecked" in n for n in v.notes)


def test_a_drive_only_file_is_checked_where_it_would_be_written(layout: Layout) -> None:
    """A Drive file named like a token that doesn't exist yet can't plant it."""
    token = layout.data / "token.json"
    policy = layout.roots(TOKEN_PATH=str(token))
    assert not token.exists()
    v = probe_call(policy, "sync_folder",
                   {"local_path": str(layout.data), "direction": "download"},
                   drive_names=["token.json", "ok.txt"])
    assert v.outcome == "partial"
    bad = [p for p in v.paths if not p.allowed]
    assert [(p.path, p.reason, p.step) for p in bad] == [
        (str(token), "denied", "local_read_fail")]
    assert bad[0].message == DENIED.format(path=str(token), verb="written")


def test_bidirectional_both_sides_entry_says_read_or_written(layout: Layout) -> None:
    policy = layout.policy()  # full mode: only the deny-list refuses
    token = str(layout.app / "token.json")
    v = probe_call(policy, "sync_folder",
                   {"local_path": str(layout.app), "direction": "bidirectional"},
                   drive_names=["token.json"])
    bad = {p.path: p for p in v.paths if not p.allowed}
    # token.json is on both sides; .env and credentials.json are local-only (read).
    assert {path: p.op for path, p in bad.items()} == {
        token: "read_write",
        str(layout.app / ".env"): "read",
        str(layout.app / "credentials.json"): "read",
    }
    assert bad[token].message.endswith("can't be read or written by a tool")
    assert bad[token].step == "local_read_fail"
    assert bad[str(layout.app / ".env")].message.endswith("can't be read by a tool")


def test_sync_root_is_a_both_sides_entry(layout: Layout) -> None:
    policy = layout.policy()
    v = probe_call(policy, "sync_folder", {"local_path": str(layout.app / "token.json"),
                                           "direction": "bidirectional"})
    assert v.outcome == "refused" and v.paths[0].op == "read_write"
    assert v.message.endswith("can't be read or written by a tool")


def test_unknown_direction_and_assumed_default(layout: Layout) -> None:
    policy = layout.roots()
    bad = probe_call(policy, "sync_folder", {"local_path": str(layout.data), "direction": "up"})
    assert bad.outcome == "error" and "'up'" in bad.message
    default = probe_call(policy, "sync_folder", {"local_path": str(layout.data)})
    # The default is the server's own (from its schema), not a guess.
    assert default.paths[0].op == "read_write"
    assert not any("assuming" in n for n in default.notes)


def test_a_drive_only_folder_is_created_under_the_root(layout: Layout) -> None:
    (layout.data / "linkdir").symlink_to(layout.outside)
    v = probe_call(layout.roots(), "sync_folder",
                   {"local_path": str(layout.data), "direction": "download", "recursive": True},
                   drive_names=["newdir/a.txt", "linkdir/b.txt"])
    got = {p.path: p.allowed for p in v.paths if p.kind == "entry"}
    assert got[str(layout.data / "newdir" / "a.txt")] is True
    # The local symlinked folder is refused as a whole and not entered.
    assert got[str(layout.data / "linkdir")] is False
    assert str(layout.data / "linkdir" / "b.txt") not in got


@pytest.mark.parametrize("parent", [".", "/", "//", "a", "/data", "/data/sub", "../x", "a/b"])
def test_walked_names_are_joined_the_way_pathlib_joins_them(parent: str) -> None:
    from localfs_explorer.probe.tool_paths import _prefix, _spelled, _walked

    for name in ("f.txt", ".env", "sub dir"):
        assert _walked(parent, name) == str(Path(parent) / name)
        assert _prefix(_spelled(parent)) + name == str(Path(parent) / name)


@pytest.mark.parametrize("tool", ["sync_folder", "download_folder"])
def test_drive_names_that_climb_out_are_skipped_unchecked(layout: Layout, tool: str) -> None:
    # A Drive name such as ../token.json is the server's unsafe-name skip: planned, never
    # mapped to a local path, so it is neither checked nor written.
    dest = layout.data / "reports"
    dest.mkdir()
    arguments = {"local_path": str(dest)}
    if tool == "sync_folder":
        arguments["direction"] = "download"
    v = probe_call(layout.policy(), tool, arguments,
                   drive_names=["../token.json", "a/../../x.txt", "ok.txt"])
    walked = [p.path for p in v.paths if p.kind == "entry"]
    assert walked == [str(dest / "ok.txt")]
    assert not any(".." in p.path for p in v.paths)
    assert any("../token.json" in note and "unsafe" in note for note in v.notes)
    assert v.outcome == "ok"
