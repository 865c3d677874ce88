"""``check --server server-filesystem`` and ``verify --server server-filesystem``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_cli
from fs_npm import fixture_fs_old_dist, fixture_fs_server_dist, fixture_fs_server_js  # noqa: F401


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    (root / "data" / "sub").mkdir(parents=True)
    (root / "data" / "f.txt").write_text("x")
    (root / "outside").mkdir()
    os.symlink(root / "outside", root / "data" / "out")
    return root


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def test_check_json_gives_one_object_per_path(tree: Path) -> None:
    code, out, err = run_cli("check", "--server", "server-filesystem", "--allowed-dir",
                             tree / "data", "--json", tree / "data" / "f.txt",
                             tree / "data" / "out", f"{tree}/data'")
    assert code == 1, err
    first, second, third = _lines(out)
    assert first["path"] == f"{tree}/data/f.txt" and first["allowed"] is True
    assert first["message"] == "" and first["resolved"] == f"{tree}/data/f.txt"
    assert second == {**second, "allowed": False, "resolved": None, "message": (
        f"Access denied - symlink target outside allowed directories: {tree}/outside not "
        f"in {tree}/data")}
    assert third["allowed"] is True and third["resolved"] == f"{tree}/data'"


def test_check_relative_allowed_dir_uses_cwd_and_op_write(tree: Path) -> None:
    code, out, _ = run_cli("check", "--server", "server-filesystem", "--allowed-dir", "data",
                           "--allowed-dir", "outside", "--cwd", tree, "--op", "write",
                           "--json", "new.txt", f"{tree}/elsewhere")
    first, second = _lines(out)
    assert code == 1
    assert first["resolved"] == f"{tree}/data/new.txt" and first["op"] == "write"
    assert second["message"] == (f"Access denied - path outside allowed directories: "
                                 f"{tree}/elsewhere not in {tree}/data, {tree}/outside")


def test_check_all_allowed_exits_0(tree: Path) -> None:
    code, out, _ = run_cli("check", "--server", "server-filesystem", "--allowed-dir",
                           tree / "data", tree / "data" / "sub")
    assert code == 0 and out.startswith("ALLOWED")


def test_check_server_version(tree: Path) -> None:
    args = ("check", "--server", "server-filesystem", "--allowed-dir", tree / "data",
            "--json", f"{tree}/data'")
    assert _lines(run_cli(*args, "--server-version", "2.0.1")[1])[0]["allowed"] is False
    assert _lines(run_cli(*args, "--server-version", "2026.8.31")[1])[0]["allowed"] is True
    code, _, err = run_cli(*args, "--server-version", "1.0.0")
    assert code == 2 and "isn't modelled" in err and "Traceback" not in err


def test_check_with_roots_answers_for_the_roots(tree: Path) -> None:
    code, out, _ = run_cli("check", "--server", "server-filesystem", "--allowed-dir",
                           tree / "data", "--root", (tree / "outside").as_uri(), "--json",
                           tree / "data" / "f.txt")
    assert code == 1 and _lines(out)[0]["message"].endswith(f" not in {tree}/outside")


def test_check_when_the_server_would_not_start(tree: Path) -> None:
    code, out, err = run_cli("check", "--server", "server-filesystem", "--allowed-dir",
                             tree / "nope", tree)
    # As for every server: the verdicts of the policy as resolved, and exit 2 because
    # the server would not start (saying what it would print).
    assert code == 2 and out.startswith("REFUSED")
    assert "error: the server would refuse to serve: " in err
    assert "None of the specified directories are accessible" in err
    assert f"Cannot access directory {tree}/nope" in err


def test_filesystem_options_need_the_server(tree: Path) -> None:
    code, _, err = run_cli("check", "--allowed-dir", tree, tree)
    assert code == 2 and "--server server-filesystem" in err


# --- against the real server --------------------------------------------------------


@pytest.mark.slow
@pytest.mark.real
def test_check_matches_the_real_server_on_the_escape(tree: Path, fs_server_js: str) -> None:
    import anyio

    from localfs_explorer.servers.filesystem.live import session

    paths = [f"{tree}/data'", f"{tree}/data ", f"{tree}/data/out", f"{tree}/data/f.txt/x",
             "C:\\x", f"{tree}/data/../outside"]
    _, out, _ = run_cli("check", "--server", "server-filesystem", "--allowed-dir",
                        tree / "data", "--op", "write", "--json", *paths)
    predicted = _lines(out)
    got: list[tuple[bool, str]] = []

    async def ask() -> None:
        async with session(["node", fs_server_js, str(tree / "data")], cwd=str(tree)) as s:
            for p in paths:
                got.append(await s.call("write_file", {"path": p, "content": "w"}))

    anyio.run(ask)
    for p, (is_error, text) in zip(predicted, got, strict=True):
        assert is_error is not p["allowed"], p
        if not p["allowed"]:
            assert text == p["message"]
        else:
            assert Path(p["resolved"]).read_text() == "w"
    # The escape itself: the sibling exists now, beside the allowed directory.
    assert (tree / "data'").is_file() and (tree / "data ").is_file()


def _verify(tree: Path, js: str, *extra: object, allowed: Path | None = None
            ) -> tuple[int, str, str]:
    # A generous timeout: a loaded CI machine can take seconds to start node.
    return run_cli("verify", "--server", "server-filesystem", "--allowed-dir",
                   allowed or tree / "data", "--cwd", tree, "--timeout", "120", *extra,
                   "--command",
                   f"node {js} {tree / 'data'}")


@pytest.mark.slow
@pytest.mark.real
def test_verify_agrees_with_a_matching_instance(tree: Path, fs_server_js: str) -> None:
    code, out, err = _verify(tree, fs_server_js, "--json")
    report = json.loads(out)
    assert code == 0, (out, err)
    assert report["agree"] and report["behaves_as"] == ["2026.8.31"]
    assert report["allowed_directories"]["live"] == [f"{tree}/data"]
    assert len(report["tools"]) == 14


@pytest.mark.slow
@pytest.mark.real
def test_verify_reports_drift(tree: Path, fs_server_js: str) -> None:
    code, out, _ = _verify(tree, fs_server_js, allowed=tree / "outside")
    assert code == 1
    assert "difference: list_allowed_directories: predicted " in out
    code, out, _ = _verify(tree, fs_server_js, "--server-version", "2.0.1")
    assert code == 1 and "the server behaves as 2026.8.31, not 2.0.1" in out


@pytest.mark.slow
@pytest.mark.real
def test_verify_tells_the_older_release_apart(tree: Path, fs_old_dist: Path) -> None:
    js = fs_old_dist / "index.js"
    code, out, _ = _verify(tree, str(js))
    assert code == 1 and "the server behaves as 2026.7.10, not 2026.8.31" in out
    code, out, _ = _verify(tree, str(js), "--server-version", "2026.7.10")
    assert code == 0, out


@pytest.mark.slow
@pytest.mark.real
def test_verify_cannot_run(tree: Path, fs_server_js: str) -> None:
    code, _, err = run_cli("verify", "--server", "server-filesystem", "--allowed-dir",
                           tree / "data", "--command", f"node {fs_server_js} {tree}/nope")
    assert code == 2 and "None of the specified directories are accessible" in err
    code, _, err = run_cli("verify", "--server", "server-filesystem", "--allowed-dir",
                           tree / "data", "--command", "no-such-command-here")
    assert code == 2 and "can't run the server" in err


def test_tools_validate_auth_status_and_probe(tree: Path) -> None:
    base = ("--server", "server-filesystem", "--allowed-dir", tree / "data")
    code, out, _ = run_cli("tools", *base, "--json")
    listed = json.loads(out)
    assert code == 0 and len(listed["registered"]) == 14
    assert listed["tools"][4]["name"] == "write_file"
    assert listed["tools"][4]["annotations"]["destructiveHint"] is True
    code, out, _ = run_cli("auth-status", *base)
    assert code == 0 and json.loads(out)["text"] == f"Allowed directories:\n{tree}/data"
    code, out, _ = run_cli("validate", *base, "--json")
    summary = json.loads(out)
    assert code == 0 and summary["allowed_directories"] == [f"{tree}/data"]
    assert {f["code"] for f in summary["findings"]} == {"trim-sibling"}
    call = json.dumps({"name": "read_text_file", "arguments": {"path": f"{tree}/data/out"}})
    code, out, _ = run_cli("probe", *base, "--call", call)
    assert code == 1 and (f"Access denied - symlink target outside allowed directories: "
                          f"{tree}/outside not in {tree}/data") in out


@pytest.mark.parametrize("command", [("exposure", "--fail-on", "none"),
                                     ("suggest", "--require", "read:{data}/f.txt"),
                                     ("report", "-o", "{root}/r.json", "--path", "/x")])
def test_every_command_answers_for_the_filesystem_server(tree: Path, command: tuple) -> None:
    argv = [str(a).format(data=tree / "data", root=tree) for a in command]
    code, _, err = run_cli(*argv, "--server", "server-filesystem", "--allowed-dir",
                           tree / "data")
    assert code in (0, 1), err
    assert "doesn't answer" not in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.real
def test_verify_waits_for_the_roots_exchange(tree: Path, fs_server_js: str) -> None:
    root = (tree / "outside").as_uri()
    code, out, err = _verify(tree, fs_server_js, "--root", root, "--json")
    report = json.loads(out)
    assert code == 0, (out, err)
    assert report["allowed_directories"]["live"] == [f"{tree}/outside"]
    # The same server without the roots in the prediction: the argv list was replaced.
    code, out, _ = _verify(tree, fs_server_js, "--root", (tree / "data").as_uri())
    assert code == 0


def test_check_batch_gives_the_same_answers(tree: Path) -> None:
    paths = [tree / "data" / "f.txt", tree / "data" / "out", f"{tree}/data'",
             tree / "data" / "missing", "rel"]
    base = ("check", "--server", "server-filesystem", "--allowed-dir", tree / "data",
            "--json")
    single = run_cli(*base, *paths)
    batch = run_cli(*base, "--batch", *paths)
    assert single == batch and single[0] == 1
