"""Snapshots of real trees: what they record, their bounds, and that they decide alike."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.fs import FileSystem, HostFS
from localfs_explorer.fs.snapshot import SnapshotError, materialize, snapshot
from localfs_explorer.fs.spec import from_spec, load_fs, to_spec


@pytest.fixture
def tree(tmp_path: Path) -> str:
    """A small server layout with the usual traps, on disk."""
    base = os.path.realpath(tmp_path)
    for d in ("app", "data/reports", "data-evil", "outside/inner", "home/.cache/mcp-gee-sweet"):
        os.makedirs(f"{base}/{d}")
    for f in ("app/token.json", "app/.env", "data/reports/q3.csv", "data-evil/x", "outside/s"):
        Path(f"{base}/{f}").touch()
    Path(f"{base}/home/.cache/mcp-gee-sweet/cache.db").touch()
    os.link(f"{base}/app/token.json", f"{base}/data/innocent.json")
    os.symlink("/etc", f"{base}/data/escape")
    os.symlink(f"{base}/app/token.json", f"{base}/data/tok")
    os.symlink("../outside/inner", f"{base}/data/up")
    os.symlink("nowhere/x", f"{base}/data/dangling")
    os.symlink("loop", f"{base}/data/loop")
    os.link(f"{base}/data/tok", f"{base}/data/tok-again")  # a second name of the link
    return base


def test_snapshot_records_structure_targets_and_identity(tree: str) -> None:
    taken = snapshot(tree, home=f"{tree}/home")
    entries = taken.spec["entries"]
    assert taken.complete and taken.problems == []
    assert entries[f"{tree}/data/escape"] == {"type": "symlink", "target": "/etc"}
    assert entries[f"{tree}/data/up"] == {"type": "symlink", "target": "../outside/inner"}
    assert entries[f"{tree}/data/dangling"] == {"type": "symlink", "target": "nowhere/x"}
    assert entries[f"{tree}/data/loop"] == {"type": "symlink", "target": "loop"}
    assert entries[f"{tree}/data/reports/q3.csv"] == {"type": "file"}
    link, again = entries[f"{tree}/data/tok"], entries[f"{tree}/data/tok-again"]
    assert link["type"] == again["type"] == "symlink" and link["inode"] == again["inode"]
    token, hardlink = entries[f"{tree}/app/token.json"], entries[f"{tree}/data/innocent.json"]
    assert token["inode"] == hardlink["inode"]
    assert entries[tree]["type"] == "dir" and "device" in entries[tree]
    assert (taken.spec["cwd"], taken.spec["home"]) == (tree, f"{tree}/home")
    assert taken.entry_count == len(entries) - 1  # every entry but the root itself
    # Nothing but structure: no sizes, times, modes or contents.
    keys = {key for entry in entries.values() for key in entry}
    assert keys <= {"type", "target", "inode", "device", "bind"}


def test_snapshot_loads_with_ancestors_as_plain_directories(tree: str) -> None:
    fs = snapshot(tree).to_fs()
    parent = os.path.dirname(tree)
    assert fs.is_dir(parent) and not fs.is_symlink(parent)
    assert fs.listdir(parent) == [os.path.basename(tree)]
    assert fs.samefile(f"{tree}/data/innocent.json", f"{tree}/app/token.json")


def test_snapshot_spec_round_trips(tree: str) -> None:
    spec = snapshot(tree).spec
    assert to_spec(from_spec(spec)) == spec


PROBES = [
    "data/reports/q3.csv",
    "data/escape/passwd",
    "data/tok",
    "data/innocent.json",
    "data/up/../s",
    "data/dangling",
    "data/loop/x",
    "data/new.txt",
    "data-evil/x",
    "app/.env",
    "app/token.json",
    "home/.cache/mcp-gee-sweet/cache.db-wal",
    "data/../app/token.json",
]


def decisions(fs: FileSystem, base: str, mode: str) -> list[tuple[Any, ...]]:
    env = load_env(
        None,
        overrides={
            "LOCAL_FILE_ACCESS": mode,
            "LOCAL_FILE_ROOTS": f"{base}/data",
            "TOKEN_PATH": f"{base}/app/token.json",
            "HOME": f"{base}/home",
        },
    )
    policy = resolve_policy(env, transport="stdio", fs=fs, cwd=base, package_dir=f"{base}/app")
    out = []
    for probe in PROBES:
        for op in ("read", "write"):
            d = policy.check(f"{base}/{probe}", op)
            out.append((probe, op, d.allowed, d.reason, d.message, d.resolved))
    return out


@pytest.mark.parametrize("mode", ["full", "roots", "off"])
def test_a_written_snapshot_decides_like_the_host_after_the_tree_is_gone(
    tree: str, tmp_path_factory: pytest.TempPathFactory, mode: str
) -> None:
    expected = decisions(HostFS(), tree, mode)
    assert {row[3] for row in expected} >= ({"denied"} if mode != "off" else {"off"})
    spec_file = tmp_path_factory.mktemp("specs") / "host.json"
    snapshot(tree).write(spec_file)
    shutil.rmtree(tree)
    assert decisions(load_fs(str(spec_file)), tree, mode) == expected


def test_snapshot_through_a_symlink_keeps_the_given_spelling_resolving(
    tree: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = os.path.realpath(tmp_path_factory.mktemp("links"))
    os.symlink(tree, f"{elsewhere}/alias")
    taken = snapshot(f"{elsewhere}/alias")
    assert taken.root == tree
    assert taken.spec["entries"][f"{elsewhere}/alias"] == {"type": "symlink", "target": tree}
    fs = taken.to_fs()
    probe = f"{elsewhere}/alias/data/up/../s"
    assert fs.realpath(probe) == os.path.realpath(probe)


def test_max_entries_cuts_off_and_says_so(tree: str) -> None:
    taken = snapshot(tree, max_entries=5)
    assert taken.entry_count == 5
    assert len(taken.spec["entries"]) == 6  # the root and five entries
    assert [p.kind for p in taken.problems] == ["max_entries"]
    assert "stopped at 5 entries" in taken.problems[0].detail
    assert not taken.complete
    assert "incomplete" in taken.spec["description"]
    taken.to_fs()  # a cut-off snapshot is still a valid host


def test_max_depth_records_the_directory_but_not_its_contents(tree: str) -> None:
    taken = snapshot(tree, max_depth=1)
    entries = taken.spec["entries"]
    assert f"{tree}/data" in entries and f"{tree}/data/tok" not in entries
    cut = {p.path for p in taken.problems if p.kind == "max_depth"}
    assert cut == {
        f"{tree}/app",
        f"{tree}/data",
        f"{tree}/data-evil",
        f"{tree}/outside",
        f"{tree}/home",
    }
    os.makedirs(f"{tree}/empty")
    assert f"{tree}/empty" not in {p.path for p in snapshot(tree, max_depth=1).problems}


def test_unreadable_and_vanishing_entries_are_reported_not_fatal(
    tree: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_scandir, real_lstat = os.scandir, os.lstat

    def scandir(path: Any) -> Any:
        if os.fspath(path) == f"{tree}/outside":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    def lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if os.fspath(path) == f"{tree}/data-evil/x":
            raise FileNotFoundError(2, "No such file or directory", os.fspath(path))
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "lstat", lstat)
    taken = snapshot(tree)
    kinds = {(p.kind, p.path) for p in taken.problems}
    assert ("unreadable", f"{tree}/outside") in kinds
    assert ("vanished", f"{tree}/data-evil/x") in kinds
    assert f"{tree}/outside" in taken.spec["entries"]
    assert f"{tree}/data/reports/q3.csv" in taken.spec["entries"]
    assert any("unreadable" in line for line in taken.report())


def _fake_stat(st: os.stat_result, *, dev: int | None = None, ino: int | None = None) -> Any:
    fields = list(st)
    if ino is not None:
        fields[1] = ino
    if dev is not None:
        fields[2] = dev
    return os.stat_result(fields)


def test_device_boundaries_and_bind_mounts_are_recorded(
    tree: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Mounting needs privileges, so the walk is shown a mount and a bind through lstat.
    real_lstat = os.lstat
    other_dev = os.makedev(250, 7)
    data_ino = real_lstat(f"{tree}/data").st_ino

    def lstat(path: Any, *args: Any, **kwargs: Any) -> Any:
        path = os.fspath(path)
        st = real_lstat(path, *args, **kwargs)
        if path == f"{tree}/data" or path.startswith(f"{tree}/data/"):
            return _fake_stat(st, dev=other_dev)
        if path == f"{tree}/outside/inner":  # the same directory as /data: a bind
            return _fake_stat(st, dev=other_dev, ino=data_ino)
        return st

    monkeypatch.setattr(os, "lstat", lstat)
    entries = snapshot(tree).spec["entries"]
    assert entries[f"{tree}/data"] == {"type": "dir", "device": "dev-250-7"}
    assert "device" not in entries[f"{tree}/data/reports"]
    assert entries[f"{tree}/outside/inner"] == {"type": "dir", "bind": f"{tree}/data"}
    monkeypatch.undo()
    fs = from_spec({"version": 1, "entries": entries})
    assert fs.samefile(f"{tree}/outside/inner/reports/q3.csv", f"{tree}/data/reports/q3.csv")
    assert fs.stat(f"{tree}/data").st_dev != fs.stat(tree).st_dev


def test_case_sensitivity_is_measured_on_the_tree(
    tree: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert snapshot(tree).spec["case_insensitive"] is False  # this host's disk
    assert snapshot(tree, case_insensitive=True).spec["case_insensitive"] is True
    real_lstat = os.lstat

    def lstat(path: Any, *args: Any, **kwargs: Any) -> Any:
        # A volume that ignores case finds any spelling of an existing name.
        path = os.fspath(path)
        try:
            return real_lstat(path, *args, **kwargs)
        except FileNotFoundError:
            head, _, name = path.rpartition("/")
            return real_lstat(f"{head}/{name.swapcase()}", *args, **kwargs)

    monkeypatch.setattr(os, "lstat", lstat)
    assert snapshot(tree).spec["case_insensitive"] is True


def test_snapshot_refuses_what_is_not_a_directory(tree: str) -> None:
    with pytest.raises(SnapshotError, match="not a directory"):
        snapshot(f"{tree}/app/token.json")
    with pytest.raises(SnapshotError, match=r"can't snapshot .*missing"):
        snapshot(f"{tree}/missing")


def test_write_produces_a_loadable_one_entry_per_line_file(tree: str, tmp_path: Path) -> None:
    out = tmp_path / "snap.json"
    taken = snapshot(tree)
    taken.write(out)
    text = out.read_text()
    assert json.loads(text) == taken.spec
    assert f'    "{tree}/data/up": {{"type": "symlink", "target": "../outside/inner"}},' in (
        text.splitlines()
    )


def test_materialize_then_snapshot_gives_the_spec_back(tmp_path: Path) -> None:
    base = os.path.realpath(tmp_path) + "/t"
    spec = {
        "version": 1,
        "entries": {
            base: {"type": "dir"},
            f"{base}/a/tok.json": {"type": "file", "inode": "k"},
            f"{base}/b/hard.json": {"type": "file", "inode": "k"},
            f"{base}/b/link": {"type": "symlink", "target": "../a"},
            f"{base}/empty": {"type": "dir"},
        },
    }
    created = materialize(spec, base)
    assert f"{base}/b/link" in created
    assert os.path.samefile(f"{base}/a/tok.json", f"{base}/b/hard.json")
    got = snapshot(base).spec["entries"]
    assert {p: {k: v for k, v in e.items() if k != "inode"} for p, e in got.items()} == {
        base: {"type": "dir", "device": got[base]["device"]},
        f"{base}/a": {"type": "dir"},
        f"{base}/a/tok.json": {"type": "file"},
        f"{base}/b": {"type": "dir"},
        f"{base}/b/hard.json": {"type": "file"},
        f"{base}/b/link": {"type": "symlink", "target": "../a"},
        f"{base}/empty": {"type": "dir"},
    }
    assert got[f"{base}/a/tok.json"]["inode"] == got[f"{base}/b/hard.json"]["inode"]
