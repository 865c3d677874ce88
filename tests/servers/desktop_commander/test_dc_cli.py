"""``--server desktop-commander`` on the command line: check, validate, tools,
auth-status, suggest and verify's refusals (the live verify is in test_dc_live)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_cli

DC = ("--server", "desktop-commander")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    for d in ("data/sub", "Data", "data-evil", "outside", "home/.claude-server-commander",
              "work"):
        (root / d).mkdir(parents=True)
    for f in ("data/f.txt", "Data/g.txt", "data-evil/e.txt", "outside/s.txt"):
        (root / f).write_text("x")
    os.symlink("../outside", root / "data/out")
    return root


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def _check(tree: Path, *more: object) -> tuple[int, str, str]:
    return run_cli("check", *DC, "--home", tree / "home", "--cwd", tree / "work", *more)


def test_check_json_answers_each_path_with_the_servers_text(tree: Path) -> None:
    code, out, err = _check(tree, "--allowed-dir", tree / "data", "--op", "read", "--json",
                            tree / "Data/g.txt", "../data/f.txt", tree / "data-evil/e.txt",
                            tree / "data/out/s.txt")
    assert code == 1, err
    case, relative, sibling, link = _lines(out)
    assert case["allowed"] is True and "lower-cases" in case["hint"]
    assert relative["resolved"] == f"{tree}/data/f.txt" and relative["message"] == ""
    assert sibling == {**sibling, "allowed": False, "reason": "outside", "resolved": None,
                       "message": f"Path not allowed: {tree}/data-evil/e.txt. Must be within "
                       f"one of these directories: {tree}/data"}
    assert link["allowed"] is False and link["path"] == f"{tree}/data/out/s.txt"


def test_every_path_allowed_exits_0_and_write_is_checked_alike(tree: Path) -> None:
    code, out, _ = _check(tree, "--allowed-dir", "/", "--op", "write", "--json",
                          tree / "outside/s.txt")
    assert code == 0 and _lines(out)[0]["reason"] == "everything"


def test_settings_come_from_the_file_under_home_or_dc_config(tree: Path) -> None:
    own = tree / "home/.claude-server-commander/config.json"
    own.write_text(json.dumps({"allowedDirectories": [str(tree / "outside")]}))
    code, out, _ = _check(tree, "--json", tree / "outside/s.txt", tree / "data/f.txt")
    assert code == 1 and [d["allowed"] for d in _lines(out)] == [True, False]
    other = tree / "other.json"
    other.write_text(json.dumps({"allowedDirectories": ["~/.."]}))
    code, out, _ = _check(tree, "--dc-config", other, "--json", tree / "data/f.txt")
    assert code == 0 and _lines(out)[0]["allowed"] is True
    # The list given on the command line wins over the file's.
    code, out, _ = _check(tree, "--dc-config", other, "--allowed-dir", tree / "work",
                          "--json", tree / "data/f.txt")
    assert code == 1


def test_no_settings_file_means_every_path_and_no_list_the_home(tree: Path) -> None:
    code, out, err = _check(tree, "--json", "/")
    assert code == 0 and _lines(out)[0]["reason"] == "everything"
    assert "is missing: the server creates it with allowedDirectories [] (every path)" in err
    bad = tree / "bad.json"
    bad.write_text('{"allowedDirectories": ["/data"],}')  # a trailing comma: not JSON
    code, out, err = _check(tree, "--dc-config", bad, "--json", "/")
    assert code == 0 and "is not JSON" in err and _lines(out)[0]["reason"] == "everything"
    slash = tree / "slash.json"
    slash.write_text('{"allowedDirectories": "/"}')
    code, out, err = _check(tree, "--dc-config", slash, "--json", "/")
    assert code == 1 and "is not a list, so the server uses the home directory" in err
    (tree / "home/.claude-server-commander/config.json").write_text("{}")
    code, out, _ = _check(tree, "--json", tree / "data/f.txt")
    assert code == 1 and _lines(out)[0]["message"].endswith(f"directories: {tree}/home")


def test_bad_settings_are_one_line_errors(tree: Path) -> None:
    bad = tree / "bad.json"
    bad.write_text(json.dumps({"allowedDirectories": ["/ok", 3]}))
    code, out, err = _check(tree, "--dc-config", bad, "/x")
    assert code == 2 and out == "" and "every entry of allowedDirectories must be a string" in err
    assert "Traceback" not in err
    code, _, err = _check(tree, "--dc-config", tree / "data", "/x")  # a directory
    assert code == 2 and "can't be read" in err


def test_shared_flags_reach_each_server_and_own_flags_stay_own(
        tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --allowed-dir and --home are the filesystem server's flags too.
    code, out, err = run_cli("check", "--server", "server-filesystem", "--allowed-dir",
                             tree / "data", "--home", tree / "home", "--json",
                             tree / "Data/g.txt")
    assert code == 1 and _lines(out)[0]["message"].startswith("Access denied"), err
    code, _, err = run_cli("check", "--server", "server-filesystem", "--dc-config",
                           tree / "x.json", tree)
    assert code == 2 and "add --server desktop-commander" in err
    code, _, err = run_cli("check", *DC, "--root", "file:///x", tree)
    assert code == 2 and "add --server server-filesystem" in err
    code, _, err = run_cli("check", "--allowed-dir", tree, tree)
    assert code == 2 and "--server desktop-commander or --server server-filesystem" in err
    # One help line per flag, naming each server that reads it (the same words once).
    code, _, _ = run_cli("check", "--help")  # argparse prints help to sys.stdout
    flat = " ".join(capsys.readouterr().out.split())
    assert code == 0 and "desktop-commander, server-filesystem: the server's HOME" in flat
    assert "server-filesystem: a directory on its command line" in flat


def test_validate_lists_the_findings(tree: Path) -> None:
    code, out, _ = run_cli("validate", *DC, "--home", tree / "home", "--allowed-dir",
                           tree / "data", "--json")
    summary = json.loads(out)
    assert code == 0 and summary["server"] == "desktop-commander"
    kinds = {f["kind"]: f["severity"] for f in summary["findings"]}
    assert kinds["terminal-bypass"] == "critical"  # the default block-list stops no shell
    assert kinds["self-widening"] == "high" and kinds["case-fold"] == "high"


def test_tools_and_auth_status(tree: Path) -> None:
    code, out, _ = run_cli("tools", *DC, "--home", tree / "home", "--json")
    listed = json.loads(out)
    assert code == 0 and len(listed["registered"]) == 26
    by_name = {t["name"]: t for t in listed["tools"]}
    assert by_name["start_process"]["bypasses_allowed_directories"] is True
    assert by_name["move_file"]["paths"] == [{"argument": "source", "op": "write"},
                                             {"argument": "destination", "op": "write"}]
    code, out, _ = run_cli("auth-status", *DC, "--home", tree / "home", "--allowed-dir",
                           tree / "data")
    shown = json.loads(out)
    assert code == 0 and shown["config"]["allowedDirectories"] == [str(tree / "data")]
    assert "sudo" in shown["config"]["blockedCommands"]


def test_suggest_proposes_the_directories_the_work_needs(tree: Path) -> None:
    code, out, err = run_cli("suggest", *DC, "--home", tree / "home", "--cwd", tree / "work",
                             "--require", f"read:{tree}/data/sub", "--require",
                             f"write:{tree}/data/new.txt", "--require", "read:../outside/s.txt",
                             "--json")
    got = json.loads(out)
    assert code == 0, err
    assert got["allowedDirectories"] == [str(tree / "data"), str(tree / "outside")]
    assert all(c["allowed"] for c in got["checks"])
    assert any(f"{tree}/Data differ from {tree}/data only by case" in n for n in got["notes"])
    code, out, _ = run_cli("suggest", *DC, "--home", tree / "home", "--require",
                           f"read:{tree}/data/f.txt/x", "--json")
    assert code == 1 and "ENOTDIR" in json.loads(out)["unmet"][0]


def test_verify_refusals(tree: Path) -> None:
    code, _, err = run_cli("verify", *DC, "--home", tree / "home")
    assert code == 2 and "give one of --url, --command or --client-config" in err
    code, _, err = run_cli("verify", *DC, "--home", tree / "home", "--url",
                           "http://127.0.0.1:9/mcp")
    assert code == 2 and "speaks stdio only" in err
    code, _, err = run_cli("verify", *DC, "--home", tree / "home", "--command",
                           str(tree / "no-such-program"), "--timeout", "5")
    assert code == 2 and "can't run the server" in err


def test_scenario_files_name_it_and_its_reasons(tree: Path) -> None:
    scenario = tree / "dc.toml"
    scenario.write_text(f"""
[config]
server = "desktop-commander"
[config.options]
allowed_directories = ["{tree}/data"]
home = "{tree}/home"

[[scenario]]
name = "the case fold"
[[scenario.path]]
path = "{tree}/Data/g.txt"
op = "read"
allowed = true
reason = "inside"
[[scenario.path]]
path = "{tree}/data-evil/e.txt"
op = "write"
allowed = false
reason = "outside"
""")
    code, out, err = run_cli("test", scenario)
    assert code == 0 and "2 passed, 0 failed" in out + err
    scenario.write_text(scenario.read_text().replace("allowed = false", "allowed = true"))
    code, _, _ = run_cli("test", scenario)
    assert code == 1
