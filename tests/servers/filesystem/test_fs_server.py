"""server-filesystem behind the seam, its tools and rules, and its findings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from localfs_explorer.config import ServerConfig, resolve_config
from localfs_explorer.fs import HostFS
from localfs_explorer.server import get_server, list_servers
from localfs_explorer.servers.filesystem import FilesystemConfig, FilesystemPolicy
from localfs_explorer.servers.filesystem.findings import findings
from localfs_explorer.servers.filesystem.tools import load_tools, predict_call


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    (root / "data" / "sub" / "deep").mkdir(parents=True)
    (root / "data" / "f.txt").write_text("x")
    (root / "outside").mkdir()
    os.symlink(root / "outside", root / "data" / "sub" / "out")
    return root


def fs_policy(*dirs: object, **kw) -> FilesystemPolicy:
    config = FilesystemConfig(directories=tuple(str(d) for d in dirs), **kw)
    return FilesystemPolicy(config, HostFS())


def test_registered_and_resolved_through_the_shared_config(tree: Path) -> None:
    assert "server-filesystem" in list_servers()
    resolved = resolve_config(ServerConfig(
        server="server-filesystem", server_version="2.0.1", cwd=str(tree),
        server_options={"directories": ["data"]}))
    policy = resolved.policy
    assert policy.server_id == "server-filesystem" and policy.server_version == "2.0.1"
    assert policy.directories == (f"{tree}/data",)
    v = policy.check(f"{tree}/data'", "write")
    assert not v.allowed and v.op == "write" and v.message.startswith("Access denied")
    with policy.many_checks() as batch:
        assert batch.check(f"{tree}/data/f.txt").resolved == f"{tree}/data/f.txt"


def test_unknown_version_and_bad_options_are_one_line_errors() -> None:
    from localfs_explorer.config import ConfigError

    with pytest.raises(ConfigError, match="isn't modelled"):
        resolve_config(ServerConfig(server="server-filesystem", server_version="9"))
    with pytest.raises(ConfigError, match="directories"):
        resolve_config(ServerConfig(server="server-filesystem",
                                    server_options={"directories": 3}))


def test_catalog_has_the_fourteen_tools_with_their_hints() -> None:
    server = get_server("server-filesystem")
    catalog = server.catalog()
    assert len(catalog.tools) == 14
    write = catalog.get("write_file")
    assert write.hints.destructiveHint is True and write.hints.idempotentHint is True
    assert write.params[0].op == "write" and write.destructive
    create = catalog.get("create_directory")
    assert create.hints.destructiveHint is False and not create.destructive
    assert catalog.get("get_file_info").hints.readOnlyHint is True
    assert [p.location for p in catalog.get("move_file").params] == ["source", "destination"]
    assert not catalog.get("read_multiple_files").params[0].fails_call
    assert not catalog.get("list_allowed_directories").params


def test_status_is_list_allowed_directories(tree: Path) -> None:
    server = get_server("server-filesystem")
    policy = resolve_config(ServerConfig(
        server="server-filesystem", server_options={"directories": [str(tree / "data")]})
    ).policy
    assert server.status(policy)["text"] == f"Allowed directories:\n{tree}/data"
    assert server.register_tools(policy, server.catalog()).registered == [
        t.name for t in load_tools()]


# --- tool rules ---------------------------------------------------------------------


def test_move_file_checks_source_then_destination(tree: Path) -> None:
    p = fs_policy(tree / "data")
    out = predict_call(p, "move_file", {"source": f"{tree}/outside",
                                        "destination": f"{tree}/elsewhere"})
    assert out.refused and f"{tree}/outside not in" in out.message
    assert len(out.verdicts) == 1  # the destination is never looked at
    out = predict_call(p, "move_file", {"source": f"{tree}/data/f.txt",
                                        "destination": f"{tree}/data/sub"})
    assert out.message == f"Destination already exists: {tree}/data/sub"
    old = fs_policy(tree / "data", version="2026.7.10")
    assert not predict_call(old, "move_file", {"source": f"{tree}/data/f.txt",
                                               "destination": f"{tree}/data/sub"}).refused


def test_read_multiple_files_reports_each_refusal_inside_a_success(tree: Path) -> None:
    p = fs_policy(tree / "data")
    out = predict_call(p, "read_multiple_files",
                       {"paths": [f"{tree}/data/f.txt", f"{tree}/outside"]})
    assert not out.refused and out.targets == (f"{tree}/data/f.txt",)
    assert out.item_errors == (
        f"{tree}/outside: Error - Access denied - path outside allowed directories: "
        f"{tree}/outside not in {tree}/data",)


def test_walking_tools_check_what_they_enter(tree: Path) -> None:
    p = fs_policy(tree / "data")
    # search_files passes over the symlink that leads out, without a word.
    search = predict_call(p, "search_files", {"path": f"{tree}/data", "pattern": "*"})
    assert not search.refused
    assert [v.path for v in search.skipped] == [f"{tree}/data/sub/out"]
    # directory_tree doesn't enter a symlinked directory, so the same tree is fine.
    assert not predict_call(p, "directory_tree", {"path": f"{tree}/data"}).refused
    # Started at a quote sibling (let in by the trim), its first real subdirectory is
    # checked as spelled and refused: the whole tree fails with that message.
    (tree / "data'" / "inside").mkdir(parents=True)
    out = predict_call(p, "directory_tree", {"path": f"{tree}/data'"})
    assert out.refused and out.message == (
        f"Access denied - path outside allowed directories: {tree}/data'/inside not in "
        f"{tree}/data")
    search = predict_call(p, "search_files", {"path": f"{tree}/data'", "pattern": "*"})
    assert not search.refused and [v.path for v in search.skipped] == [f"{tree}/data'/inside"]


# --- findings -------------------------------------------------------------------


def test_trim_sibling_finding_per_release(tree: Path) -> None:
    (tree / "data'").write_text("reachable")
    latest = findings(fs_policy(tree / "data"))
    codes = [(f.code, f.severity) for f in latest]
    assert codes.count(("trim-sibling", "high")) == 2
    assert any(f"{tree}/data'" in f.paths for f in latest)
    assert any(f"{tree}/data\t" in f.paths for f in latest)  # creatable by a write
    old = findings(fs_policy(tree / "data", version="2026.7.10"))
    assert [f.paths for f in old] == [(f"{tree}/data'",)]  # readable, nothing creatable
    assert findings(fs_policy(tree / "data", version="2.0.1")) == []


def test_symlinked_directory_finding(tree: Path) -> None:
    os.symlink(tree / "data", tree / "link")
    found = [f for f in findings(fs_policy(tree / "link", version="2.0.1"))]
    assert [(f.code, f.paths) for f in found] == [
        ("symlinked-directory", (f"{tree}/link", f"{tree}/data"))]


def test_roots_replacing_argv_finding(tree: Path) -> None:
    p = fs_policy(tree / "data", version="2.0.1", roots=((tree / "outside").as_uri(),))
    (f,) = findings(p)
    assert f.code == "roots-replace-argv" and f.severity == "high"
    assert f.paths == (f"{tree}/data", f"{tree}/outside")
    kept = fs_policy(tree / "data", version="2.0.1", roots=("file:///no/such",))
    assert findings(kept) == []


def test_dashboard_model_answers_for_the_filesystem_server(tree: Path) -> None:
    pytest.importorskip("ipywidgets")
    from localfs_explorer.ui.model import ExplorerModel

    model = ExplorerModel(server="server-filesystem", debounce=0, cwd=str(tree),
                          server_options={"directories": ["data"]},
                          paths_text=f"{tree}/data/f.txt\n{tree}/data/sub/out\n{tree}/data'")
    assert model.config_error == ""
    assert model.auth_status["text"] == f"Allowed directories:\n{tree}/data"
    first, second, third = model.decisions
    assert first.allowed and first.resolved == f"{tree}/data/f.txt"
    assert second.message == (f"Access denied - symlink target outside allowed directories: "
                              f"{tree}/outside not in {tree}/data")
    assert third.allowed and third.resolved == f"{tree}/data'" and third.hint
    model.server_version = "2.0.1"
    assert not model.decisions[2].allowed
