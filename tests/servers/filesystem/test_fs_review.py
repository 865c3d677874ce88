"""``report``, ``diff``, ``test`` and ``suggest`` for ``--server server-filesystem``."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
from conftest import run_cli

FS = ("--server", "server-filesystem")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    (root / "data" / "sub").mkdir(parents=True)
    (root / "data" / "f.txt").write_text("x")
    (root / "data" / "sub" / "g.txt").write_text("y")
    (root / "outside").mkdir()
    os.symlink(root / "data", root / "link")
    return root


# ------------------------------------------------------------------------------ report


def test_report_lists_verdicts_findings_and_the_configuration(tree: Path) -> None:
    calls = tree / "calls.jsonl"
    calls.write_text(json.dumps({"name": "read_text_file",
                                 "arguments": {"path": f"{tree}/outside/a"}}) + "\n")
    outputs = [tree / "r.json", tree / "r.html", tree / "r.csv"]
    code, out, err = run_cli("report", *FS, "--allowed-dir", tree / "link", "--calls", calls,
                             "--path", tree / "data" / "f.txt", "--path", f"{tree}/data'",
                             *(x for o in outputs for x in ("-o", o)))
    assert code == 0, err
    assert out.count("wrote ") == 3
    report = json.loads(outputs[0].read_text())
    config = report["configurations"][0]["values"]
    assert config["server"] == "server-filesystem" and config["server version"] == "2026.8.31"
    assert config["allowed directories"] == [f"{tree}/link", f"{tree}/data"]
    kinds = [(f["severity"], f["kind"], f["path"]) for f in report["findings"]]
    assert ("medium", "symlinked-directory", f"{tree}/link") in kinds
    assert ("high", "trim-sibling", f"{tree}/data'") in kinds
    fix = next(f["fix"] for f in report["findings"] if f["kind"] == "symlinked-directory")
    assert fix == f"give the real directory {tree}/data instead of {tree}/link"
    assert "3 findings about the configuration (high 2, medium 1)" in report["summary"]
    rows = {(r["kind"], r["path"]): r for r in report["rows"]}
    refused = rows[("path", f"{tree}/outside/a")]
    assert refused["outcome"] == "refused" and refused["reason"] == "outside"
    assert refused["path_message"] == (
        f"Access denied - path outside allowed directories: {tree}/outside/a not in "
        f"{tree}/link, {tree}/data")
    # The escape: the quote sibling passes the (trimmed) check and is acted on as given.
    assert rows[("check", f"{tree}/data'")]["allowed"] is True
    assert rows[("check", f"{tree}/data'")]["resolved"] == f"{tree}/data'"
    page = outputs[1].read_text()
    assert "Findings about the configuration (3)" in page and "symlinked-directory" in page
    table = list(csv.DictReader(io.StringIO(outputs[2].read_text())))
    assert len(table) == 3 and {r["reason"] for r in table} == {"outside", "inside"}


def test_report_findings_follow_the_version(tree: Path) -> None:
    out_file = tree / "r.json"
    code, _, err = run_cli("report", *FS, "--allowed-dir", tree / "data", "--server-version",
                           "2.0.1", "--path", f"{tree}/data'", "-o", out_file)
    assert code == 0, err
    report = json.loads(out_file.read_text())
    assert report["findings"] == []
    assert report["rows"][0]["allowed"] is False
    assert report["rows"][0]["reason"] == "outside"


def test_report_refuses_an_env_for_the_filesystem_server(tree: Path) -> None:
    (tree / ".env").write_text("A=1\n")
    code, _, err = run_cli("report", *FS, "--allowed-dir", tree / "data", "--env",
                           tree / ".env", "--path", tree, "-o", tree / "r.json")
    assert code == 2 and "server-filesystem has no .env" in err
    assert not (tree / "r.json").exists()


# -------------------------------------------------------------------------------- test


def _scenario(tree: Path, body: str, head: str = "") -> Path:
    path = tree / "s.toml"
    path.write_text(f"""{head}
[config]
server = "server-filesystem"
cwd = "."
[config.options]
directories = ["data"]
{body}""")
    return path


ESCAPE = """
[[scenario]]
name = "the escape"
[[scenario.path]]
path = "{tree}/data'"
op = "write"
allowed = true
resolved = "{tree}/data'"
[[scenario.path]]
path = "{tree}/outside/x"
reason = "outside"
message = "Access denied - path outside allowed directories: {tree}/outside/x not in {tree}/data"
[[scenario.path]]
label = "a link into the directory is outside by its spelling, checked first"
path = "{tree}/link/f.txt"
allowed = false
reason = "outside"
[[scenario.call]]
tool = "read_text_file"
arguments = {{path = "{tree}/outside/x"}}
outcome = "refused"
[scenario.policy]
serves = true
allowed_directories = ["{tree}/data"]
[scenario.auth_status]
allowed_directories = ["{tree}/data"]
[scenario.tools]
registered = ["write_file", "move_file"]

[[scenario]]
name = "2.0.1 refuses it"
config = {{server_version = "2.0.1"}}
[[scenario.path]]
path = "{tree}/data'"
op = "write"
allowed = false
reason = "outside"
"""


def test_scenarios_for_the_filesystem_server_pass(tree: Path) -> None:
    path = _scenario(tree, ESCAPE.format(tree=tree))
    code, out, err = run_cli("test", path, "--json", "--coverage")
    run = json.loads(out)
    assert code == 0, (out, err)
    assert run["passed"] == 8 and run["failed"] == 0
    config = run["scenarios"][0]["config"]
    assert config["server"] == "server-filesystem" and config["server_version"] == "2026.8.31"
    assert run["scenarios"][1]["config"]["server_version"] == "2.0.1"
    # Coverage counts the filesystem server's own reasons, and no deny-list.
    assert run["coverage"]["reasons"]["outside"] == 4
    assert run["coverage"]["reasons"]["symlink-outside"] == 0
    assert "outside_roots" not in run["coverage"]["reasons"]
    assert run["coverage"]["deny_settings"] == {}


def test_a_wrong_expectation_fails_with_expected_and_actual(tree: Path) -> None:
    body = ESCAPE.format(tree=tree).replace('config = {server_version = "2.0.1"}', "")
    code, out, _ = run_cli("test", _scenario(tree, body))
    assert code == 1
    assert "FAILED" in out and "2.0.1 refuses it > write" in out
    assert 'allowed: expected false, got true' in out
    assert out.rstrip().endswith("7 passed, 1 failed")


def test_other_servers_keys_are_case_errors_not_passes(tree: Path) -> None:
    body = """
[[scenario]]
name = "keys"
[scenario.policy]
mode = "roots"
[scenario.auth_status]
roots = ["/data"]
"""
    code, out, _ = run_cli("test", _scenario(tree, body), "--json")
    cases = json.loads(out)["cases"]
    assert code == 1
    assert [c["error"] for c in cases] == ["mode: not answered by server-filesystem",
                                           "roots: not answered by server-filesystem"]
    # And the filesystem server's key, asked of mcp-gee-sweet.
    gee = tree / "g.toml"
    gee.write_text('[[scenario]]\nname = "g"\n[scenario.policy]\nallowed_directories = []\n')
    code, out, _ = run_cli("test", gee, "--json")
    assert code == 1
    assert json.loads(out)["cases"][0]["error"] == (
        "allowed_directories: not answered by mcp-gee-sweet")


def test_a_bad_option_or_version_is_a_configuration_error(tree: Path) -> None:
    code, out, err = run_cli("test", _scenario(tree, """
[[scenario]]
name = "v"
config = {server_version = "9.9.9"}
[[scenario.path]]
path = "/x"
allowed = false
[[scenario]]
name = "o"
[scenario.config.options]
directorys = ["data"]
[[scenario.path]]
path = "/x"
allowed = false
"""))
    assert code == 2, out
    assert "9.9.9 isn't modelled" in out and "directorys" in out
    assert "Traceback" not in out + err


def test_the_server_not_starting_is_a_policy_answer(tree: Path) -> None:
    code, out, _ = run_cli("test", _scenario(tree, """
[[scenario]]
name = "nothing usable"
[scenario.config.options]
directories = ["missing"]
[scenario.policy]
serves = false
exit_message_contains = "None of the specified directories are accessible"
"""))
    assert code == 0, out


def test_an_unknown_reason_word_is_refused_with_its_line(tree: Path) -> None:
    code, out, _ = run_cli("test", _scenario(tree, """
[[scenario]]
name = "r"
[[scenario.path]]
path = "/x"
reason = "nowhere"
"""))
    assert code == 2 and "s.toml:12" in out and "'nowhere' is not one of" in out
