"""A server from outside the tree answers every command through the seam alone.

The toy server (``tests/toy_server_pkg``, installed by the project's own install step)
registers through the ``localfs_explorer.servers`` entry-point group, as any package
would: nothing in ``localfs_explorer`` names it. Its rules: a path must resolve inside
its one folder (``--toy-folder-allowed``), and a ``.secret`` name is refused. What it
lacks (a ``.env``, a suggest) each command says in one line, exit 2, never a traceback.
"""

from __future__ import annotations

import json
import shlex
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from conftest import run_cli

from localfs_explorer.server import get_server, list_servers

TOY = "toy-folder"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "notes.txt").write_text("x")
    (allowed / "keys.secret").write_text("x")
    (tmp_path / "outside.txt").write_text("x")
    return allowed


def _toy(folder: Path) -> tuple[str, ...]:
    return ("--server", TOY, "--toy-folder-allowed", str(folder))


def _clean(code: int, err: str) -> None:
    assert "Traceback" not in err, err
    assert code in (0, 1, 2)


def test_the_toy_is_found_by_its_entry_point_and_nothing_else() -> None:
    (point,) = [e for e in entry_points(group="localfs_explorer.servers") if e.name == TOY]
    assert point.value == "toy_server:ToyFolderServer"
    assert TOY in list_servers()
    server = get_server(TOY)
    assert type(server).__module__ == "toy_server" and server.id == TOY


def test_check_and_validate(folder: Path, tmp_path: Path) -> None:
    paths = [folder / "notes.txt", folder / "keys.secret", tmp_path / "outside.txt"]
    code, out, err = run_cli("check", *_toy(folder), "--json", *paths)
    _clean(code, err)
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [(r["allowed"], r["reason"]) for r in rows] == [
        (True, "allowed"), (False, "secret"), (False, "outside")]
    code, out, err = run_cli("validate", *_toy(folder))
    _clean(code, err)
    assert code == 0 and f"allowed: {json.dumps(str(folder))}" in out
    assert out.rstrip().endswith("the server would start")
    code, out, err = run_cli("validate", "--server", TOY, "--toy-folder-allowed",
                             tmp_path / "missing")
    assert code == 2 and "the server would exit, printing: toy: " in out
    _clean(code, err)


def test_tools_and_auth_status(folder: Path) -> None:
    code, out, err = run_cli("tools", *_toy(folder), "--json")
    _clean(code, err)
    listed = json.loads(out)
    assert code == 0 and listed["registered"] == ["read_file"]
    assert listed["tools"][0]["annotations"] == {"readOnlyHint": True}
    code, out, err = run_cli("auth-status", *_toy(folder))
    _clean(code, err)
    assert code == 0 and json.loads(out) == {"allowed_directories": [str(folder)]}
    # A status variant only another server has is a usage error, in one line.
    code, _out, err = run_cli("auth-status", *_toy(folder), "--branch", "full_access")
    assert code == 2 and err.count("\n") == 1 and "has no such variant" in err


def test_probe_and_replay(folder: Path, tmp_path: Path) -> None:
    call = {"name": "read_file", "arguments": {"path": str(folder / "keys.secret")}}
    code, out, err = run_cli("probe", *_toy(folder), "--json", "--call", json.dumps(call))
    _clean(code, err)
    (verdict,) = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and verdict["outcome"] == "refused"
    assert verdict["message"] == f"toy refuses {folder / 'keys.secret'}: a secret"
    session = tmp_path / "session.json"
    session.write_text(json.dumps([[{"name": "read_file",
                                     "arguments": {"path": str(folder / "notes.txt")}}]]))
    code, out, err = run_cli("replay", *_toy(folder), "--json", session)
    _clean(code, err)
    assert code == 0, (out, err)
    assert str(folder / "notes.txt") in out


def test_exposure_walks_the_toys_folder_through_its_check(folder: Path) -> None:
    code, out, err = run_cli("exposure", *_toy(folder), "--json", "--fail-on", "none")
    _clean(code, err)
    findings = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and {f["root"] for f in findings} == {str(folder)}
    # One file can be read: the .secret one is refused by the toy's own check.
    (counts,) = [f for f in findings if f["kind"] == "counts" and f["op"] == "read"]
    assert counts["why"].startswith("1 files tools can read")


def test_what_the_toy_lacks_is_said_in_one_line(folder: Path, tmp_path: Path) -> None:
    code, _out, err = run_cli("suggest", *_toy(folder), "--require",
                              f"read:{folder}/notes.txt")
    assert code == 2 and err == ("localfs-explorer suggest: toy-folder has no suggest: it "
                                 "can't propose a narrower configuration\n")
    env = tmp_path / "x.env"
    env.write_text("A=1\n")
    code, _out, err = run_cli("check", *_toy(folder), "--env", env, folder)
    assert code == 2 and err == ("localfs-explorer check: toy-folder has no .env: give "
                                 "--toy-folder-allowed\n")


def test_diff_report_and_test(folder: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    code, out, err = run_cli("diff", *_toy(folder), "--after-toy-folder-allowed", tmp_path,
                             "--cwd", tmp_path, "--path", outside, "--op", "read", "--json")
    _clean(code, err)
    changes = {c["probe"]: c for c in json.loads(out)["changes"]}
    assert code == 1 and changes[f"read {outside}"]["change"] == "new_access"
    report = tmp_path / "r.json"
    code, _out, err = run_cli("report", *_toy(folder), "--path", folder / "keys.secret",
                              "--path", folder / "notes.txt", "--path", outside, "-o", report)
    _clean(code, err)
    data = json.loads(report.read_text())
    assert data["configurations"][0]["values"]["allowed"] == str(folder)
    # The reasons chart follows the toy's own list of reasons.
    (chart,) = [c for c in data["charts"] if c["title"] == "Verdicts by reason"]
    assert list(chart["counts"]) == ["allowed", "outside", "secret"]
    scenario = tmp_path / "toy.toml"
    scenario.write_text(f"""
[config]
server = "{TOY}"
[config.options]
allowed = "{folder}"
[[scenario]]
name = "toy"
[[scenario.path]]
path = "{folder / 'keys.secret'}"
allowed = false
reason = "secret"
""")
    code, out, err = run_cli("test", scenario)
    _clean(code, err)
    assert code == 0 and out.strip().endswith("1 passed, 0 failed")
    # A reason only the toy gives reaches its check; a word it never gives is refused.
    scenario.write_text(scenario.read_text().replace('"secret"', '"tripwire"'))
    code, out, err = run_cli("test", scenario)
    assert code == 2 and "'tripwire' is not one of toy-folder's reasons" in out + err


@pytest.mark.slow  # starts the stand-in's processes
def test_verify_against_a_stand_in(folder: Path, tmp_path: Path) -> None:
    standin = shlex.join([sys.executable, "-m", "toy_server.standin", str(folder)])
    code, out, err = run_cli("verify", *_toy(folder), "--command", standin)
    _clean(code, err)
    assert code == 0 and "the server agrees with the explorer" in out
    other = shlex.join([sys.executable, "-m", "toy_server.standin", str(tmp_path)])
    code, out, err = run_cli("verify", *_toy(folder), "--command", other, "--json")
    assert code == 1 and json.loads(out)["allowed"] == {"predicted": str(folder),
                                                        "live": str(tmp_path)}
    code, _out, err = run_cli("verify", *_toy(folder), "--command", "no-such-program-here")
    assert code == 2 and err.startswith("localfs-explorer verify: can't run the server: ")
    assert err.count("\n") == 1


def test_a_client_config_entry_is_recognised_by_the_toys_launcher(folder: Path,
                                                                   tmp_path: Path) -> None:
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"box": {
        "command": "toy-folder-server", "args": [str(folder)]}}}))
    code, out, err = run_cli("check", "--client-config", config, "--json",
                             folder / "notes.txt", folder / "keys.secret")
    _clean(code, err)
    assert code == 1
    assert [json.loads(line)["reason"] for line in out.splitlines()] == ["allowed", "secret"]
    code, out, err = run_cli("validate", "--client-config", config)
    assert code == 0 and f"allowed folder = {folder}  [entry" in out


def test_the_dashboard_model_answers_for_the_toy(folder: Path, tmp_path: Path) -> None:
    pytest.importorskip("traitlets")
    from localfs_explorer.ui.model import ExplorerModel

    model = ExplorerModel(server=TOY, server_options={"allowed": str(folder)},
                          host_cwd=str(tmp_path), debounce=0,
                          paths_text=f"{folder / 'notes.txt'}\n{tmp_path / 'outside.txt'}",
                          tool_name="read_file",
                          tool_args_text=json.dumps({"path": str(folder / "keys.secret")}))
    model.recompute(everything=True)
    assert model.config_error == ""
    assert [d.reason for d in model.decisions] == ["allowed", "outside"]
    assert model.auth_status == {"allowed_directories": [str(folder)]}
    assert model.call_verdict is not None and model.call_verdict.outcome == "refused"
