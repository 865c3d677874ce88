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


# -------------------------------------------------------------------------------- diff


def _diff(*args: object) -> tuple[int, dict, str]:
    code, out, err = run_cli("diff", *FS, "--json", *args)
    return code, (json.loads(out) if out else {}), err


def _probes(result: dict, change: str) -> set[str]:
    return {c["probe"] for c in result["changes"] if c["change"] == change}


def test_diff_of_versions_shows_the_escape_closing(tree: Path) -> None:
    code, result, err = _diff("--allowed-dir", tree / "data", "--after-server-version",
                              "2.0.1")
    assert code == 0, err  # only removed access
    removed = _probes(result, "removed_access")
    # The generated set asks the quote and whitespace siblings; 2.0.1 refuses them.
    for sibling in (f"{tree}/data'", f'{tree}/data"', f"{tree}/data ", f"{tree}/data\t"):
        assert {f"read {sibling}", f"write {sibling}"} <= removed
    assert result["counts"]["new_access"] == 0
    change = next(c for c in result["changes"] if c["probe"] == f"write {tree}/data'")
    assert change["source"].startswith("generated: \"'\" sibling of the allowed directory")
    assert change["after"]["message"] == (
        f"Access denied - path outside allowed directories: {tree}/data' not in {tree}/data")
    # The other way round the escape is new access: exit 1.
    code, result, err = _diff("--allowed-dir", tree / "data", "--before-server-version",
                              "2.0.1", "--no-generated", "--path", f"{tree}/data'")
    assert code == 1 and "grants new access" in err
    assert _probes(result, "new_access") == {f"read {tree}/data'", f"write {tree}/data'"}


def test_diff_of_allowed_directory_lists(tree: Path) -> None:
    code, result, _ = _diff("--before-allowed-dir", tree / "data", "--after-allowed-dir",
                            tree / "data" / "sub", "--path", tree / "data" / "f.txt",
                            "--op", "read")
    assert code == 0
    removed = _probes(result, "removed_access")
    assert f"read {tree}/data/f.txt" in removed and f"read {tree}/data/probe.txt" in removed
    # A generated call per tool: reading from the dropped directory is no longer possible.
    calls = [c for c in result["changes"] if c["kind"] == "call"
             and c["change"] == "removed_access"]
    assert any(c["tool"] == "read_text_file" and c["arguments"]["path"] == f"{tree}/data/probe.txt"
               for c in calls)
    # Only the message changes for a path refused both times (the list it names).
    changed = next(c for c in result["changes"] if c["probe"] == "read /")
    assert changed["change"] == "changed_message"
    assert changed["after"]["message"].endswith(f"not in {tree}/data/sub")


def test_diff_of_roots_replacing_argv(tree: Path) -> None:
    code, result, err = _diff("--allowed-dir", tree / "data", "--after-root",
                              (tree / "outside").as_uri(), "--no-generated",
                              "--path", tree / "outside" / "x", "--path", tree / "data" / "f.txt",
                              "--op", "read")
    assert code == 1, err
    assert _probes(result, "new_access") == {f"read {tree}/outside/x"}
    assert _probes(result, "removed_access") == {f"read {tree}/data/f.txt"}


def test_diff_text_describes_both_sides(tree: Path) -> None:
    code, out, _ = run_cli("diff", *FS, "--allowed-dir", tree / "data", "--after-allowed-dir",
                           tree / "outside", "--no-generated", "--path", tree / "outside",
                           "--allow-new-access")
    assert code == 0
    assert out.splitlines()[0] == (f"before: server-filesystem 2026.8.31 · allowed {tree}/data"
                                   " · target this host")
    assert f"after:  server-filesystem 2026.8.31 · allowed {tree}/outside" in out
    assert "NEW ACCESS (refused -> allowed): 2" in out


def test_diff_between_two_client_config_entries(tree: Path) -> None:
    config = tree / "claude_desktop_config.json"
    package = "@modelcontextprotocol/server-filesystem"
    config.write_text(json.dumps({"mcpServers": {
        "old": {"command": "npx", "args": ["-y", f"{package}@2026.8.31", str(tree / "data")]},
        "new": {"command": "npx", "args": ["-y", f"{package}@2.0.1", str(tree / "data"),
                                           str(tree / "outside")]},
    }}))
    code, out, err = run_cli("diff", "--client-config", config, "--before-entry", "old",
                             "--after-entry", "new", "--no-generated", "--json",
                             "--path", f"{tree}/data'", "--path", tree / "outside" / "x",
                             "--op", "write")
    result = json.loads(out)
    assert code == 1, err
    assert _probes(result, "new_access") == {f"write {tree}/outside/x"}
    assert _probes(result, "removed_access") == {f"write {tree}/data'"}
    code, _, err = run_cli("diff", "--client-config", config, "--before-entry", "nope",
                           "--after-entry", "new")
    assert code == 2 and "nope" in err and "Traceback" not in err


@pytest.mark.parametrize(("args", "message"), [
    (("--after-allowed-dir", "/x"), "is a setting of server-filesystem, not of mcp-gee-sweet"),
    (("--server", "server-filesystem", "--after-env", "x.env"), "has no .env"),
    (("--server", "server-filesystem", "--after-server-version", "1.0"), "isn't modelled"),
    (("--before-entry", "a"), "--before-entry goes with --client-config"),
])
def test_diff_usage_errors_are_one_line(args: tuple, message: str) -> None:
    code, out, err = run_cli("diff", *args)
    assert code == 2 and message in err and out == ""
    assert len(err.strip().splitlines()) == 1


def test_diff_reports_sarif_and_junit(tree: Path) -> None:
    report, sarif, junit = tree / "d.json", tree / "d.sarif", tree / "d.xml"
    code, _, err = run_cli("diff", *FS, "--allowed-dir", tree / "data",
                           "--before-server-version", "2.0.1", "--no-generated",
                           "--path", f"{tree}/data'", "--op", "write", "-o", report,
                           "--sarif", sarif, "--junit-xml", junit)
    assert code == 1, err
    data = json.loads(report.read_text())
    assert [c["values"]["server version"] for c in data["configurations"]] == ["2.0.1",
                                                                               "2026.8.31"]
    # The after side (2026.8.31) has the trim-sibling finding; 2.0.1 has none.
    assert {(f["configuration"], f["kind"]) for f in data["findings"]} == {
        ("after", "trim-sibling")}
    assert data["rows"][0]["change"] == "new_access"
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["new-access"]
    assert f"write {tree}/data'" in results[0]["message"]["text"]
    assert '<failure message="new_access (given)"' in junit.read_text()


# ----------------------------------------------------------------------------- suggest


def _suggest(*args: object) -> tuple[int, dict]:
    code, out, err = run_cli("suggest", *FS, "--json", *args)
    assert "Traceback" not in err
    return code, json.loads(out) if out else {"error": err}


def _allowed_under(s: dict, *paths: str, op: str = "read") -> list[bool]:
    """The suggested configuration asked again through ``check``."""
    dirs = [x for d in s["directories"] for x in ("--allowed-dir", d)]
    _, out, _ = run_cli("check", *FS, *dirs, "--server-version", s["version"], "--op", op,
                        "--json", *paths)
    return [json.loads(line)["allowed"] for line in out.splitlines()]


def test_suggest_narrows_to_the_deepest_directories_needed(tree: Path) -> None:
    (tree / "data" / "sub" / "deeper").mkdir()
    code, s = _suggest("--allowed-dir", tree, "--require", f"read:{tree}/data/sub/g.txt",
                       "--require", f"write:{tree}/data/sub/deeper/new.txt",
                       "--require", f"read:{tree}/outside")
    assert code == 0
    # sub holds deeper: only the outer one is kept; outside is its own directory.
    assert s["directories"] == [f"{tree}/outside", f"{tree}/data/sub"]
    assert s["covers"][f"{tree}/data/sub"] == [f"read:{tree}/data/sub/g.txt",
                                               f"write:{tree}/data/sub/deeper/new.txt"]
    narrow = next(c for c in s["changes"] if c["kind"] == "narrow")
    assert narrow["change"] == f"drop {tree}; allow {tree}/outside, {tree}/data/sub"
    assert _allowed_under(s, f"{tree}/data/sub/g.txt", f"{tree}/outside") == [True, True]
    assert _allowed_under(s, f"{tree}/data/sub/deeper/new.txt", op="write") == [True]
    # Narrower indeed: the rest of the tree is no longer reachable.
    assert _allowed_under(s, f"{tree}/data/f.txt") == [False]


def test_suggest_gives_a_file_symlinks_target_directory_too(tree: Path) -> None:
    (tree / "outside" / "g.txt").write_text("z")
    os.symlink(tree / "outside" / "g.txt", tree / "data" / "flink")
    code, s = _suggest("--allowed-dir", tree / "data", "--server-version", "2.0.1",
                       "--require", f"read:{tree}/data/flink")
    assert code == 0
    assert s["directories"] == [f"{tree}/data", f"{tree}/outside"]
    assert _allowed_under(s, f"{tree}/data/flink") == [True]
    # With the link's directory alone, the server refuses it (its realpath is outside).
    _, out, _ = run_cli("check", *FS, "--allowed-dir", tree / "data", "--json",
                        f"{tree}/data/flink")
    assert json.loads(out)["reason"] == "symlink-outside"


def test_suggest_replaces_a_symlinked_directory_by_its_target(tree: Path) -> None:
    code, s = _suggest("--allowed-dir", tree / "link", "--server-version", "2.0.1")
    assert code == 0
    assert s["directories"] == [f"{tree}/data"]
    change = next(c for c in s["changes"] if c["kind"] == "symlinked-directory")
    assert change["change"] == f"give {tree}/data instead of {tree}/link"
    assert change["verified"] == f"{tree}/link is no longer allowed, {tree}/data is"
    assert _allowed_under(s, f"{tree}/link/f.txt", f"{tree}/data/f.txt") == [False, True]
    # Required paths spelled by the target: narrowing gives the target already.
    code, s = _suggest("--allowed-dir", tree / "link", "--server-version", "2.0.1",
                       "--require", f"read:{tree}/data/f.txt")
    assert code == 0 and s["directories"] == [f"{tree}/data"]
    assert [c["kind"] for c in s["changes"]] == ["narrow"]
    # A required path spelled through the link keeps the link, with a warning.
    code, s = _suggest("--allowed-dir", tree / "link", "--server-version", "2.0.1",
                       "--require", f"read:{tree}/link/f.txt")
    assert code == 0 and s["directories"] == [f"{tree}/link"]
    assert not [c for c in s["changes"] if c["kind"] == "symlinked-directory"]
    assert any("use(s) the link's spelling" in w for w in s["warnings"])


def test_suggest_upgrades_away_from_the_trimming_escape(tree: Path) -> None:
    code, s = _suggest("--allowed-dir", tree / "data")
    assert code == 0 and s["version"] == "2.0.1" and s["current_version"] == "2026.8.31"
    upgrade = next(c for c in s["changes"] if c["kind"] == "upgrade")
    assert upgrade["verified"] == "2.0.1 refuses all 7"
    assert s["command"] == ("npx -y @modelcontextprotocol/server-filesystem@2.0.1 "
                            f"{tree}/data")
    assert _allowed_under(s, f"{tree}/data'", op="write") == [False]
    # Already on 2.0.1: nothing to change.
    code, s = _suggest("--allowed-dir", tree / "data", "--server-version", "2.0.1")
    assert code == 0 and s["changes"] == [] and s["version"] == "2.0.1"


def test_suggest_lists_the_roots_on_the_command_line(tree: Path) -> None:
    code, s = _suggest("--allowed-dir", tree / "data", "--root", (tree / "outside").as_uri(),
                       "--server-version", "2.0.1")
    assert code == 0
    roots = next(c for c in s["changes"] if c["kind"] == "roots")
    assert roots["change"].endswith(f": {tree}/outside")
    assert s["directories"] == [f"{tree}/outside"]


def test_suggest_names_what_no_configuration_allows(tree: Path) -> None:
    calls = tree / "calls.jsonl"
    calls.write_text(json.dumps({"name": "move_file", "arguments": {
        "source": f"{tree}/data/f.txt", "destination": f"{tree}/data/sub/f2.txt"}}) + "\n"
        + json.dumps({"name": "read_text_file", "arguments": {"path": "C:\\x"}}) + "\n")
    os.symlink(tree / "nowhere", tree / "data" / "dangling")
    code, s = _suggest("--allowed-dir", tree, "--calls", calls, "--require",
                       f"write:{tree}/data/dangling/x.txt", "--require", "read:rel.txt")
    assert code == 1
    why = {u["requirement"]["path"]: u["why"] for u in s["unmet"]}
    assert why["C:\\x"].endswith(
        "Access denied - Windows-style path received on a POSIX host: C:\\x")
    assert why[f"{tree}/data/dangling/x.txt"] == (
        "the server refuses it whatever directories it allows: Parent directory does not "
        f"exist: {tree}/data/dangling")
    assert "give it as an absolute path" in why["rel.txt"]
    # The move's two paths are met, from one directory.
    assert s["covers"] == {f"{tree}/data": [f"write:{tree}/data/f.txt",
                                            f"write:{tree}/data/sub/f2.txt"]}
    code, out, _ = run_cli("suggest", *FS, "--allowed-dir", tree, "--require",
                           "read:rel.txt")
    assert code == 1 and "cannot allow read:rel.txt" in out


def test_suggest_writes_no_env_for_this_server(tree: Path) -> None:
    code, _, err = run_cli("suggest", *FS, "--allowed-dir", tree / "data", "-o",
                           tree / "x.env")
    assert code == 2 and "has no .env to write" in err
    assert not (tree / "x.env").exists()


def test_report_of_a_client_config_entry(tree: Path) -> None:
    config = tree / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"files": {
        "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2.0.1",
                                   str(tree / "link")]}}}))
    out_file = tree / "r.json"
    code, _, err = run_cli("report", "--client-config", config, "--path", f"{tree}/data'",
                           "-o", out_file)
    assert code == 0, err
    report = json.loads(out_file.read_text())
    assert report["configurations"][0]["values"]["server version"] == "2.0.1"
    assert [f["kind"] for f in report["findings"]] == ["symlinked-directory"]
    assert report["rows"][0]["allowed"] is False


def test_diff_entries_per_side_for_mcp_gee_sweet_too(tree: Path) -> None:
    config = tree / "claude_desktop_config.json"

    def entry(roots: str) -> dict:
        return {"command": "uvx", "args": ["mcp-gee-sweet@0.9.5"],
                "env": {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": roots}}

    config.write_text(json.dumps({"mcpServers": {
        "narrow": entry(str(tree / "data")),
        "wide": entry(f"{tree / 'data'}:{tree / 'outside'}")}}))
    code, out, err = run_cli("diff", "--client-config", config, "--before-entry", "narrow",
                             "--after-entry", "wide", "--no-generated", "--op", "read",
                             "--path", tree / "outside" / "x", "--json")
    assert code == 1, err
    assert _probes(json.loads(out), "new_access") == {f"read {tree}/outside/x"}


def test_diff_asks_a_drive_path_and_the_prefix_sibling(tree: Path) -> None:
    code, result, _ = _diff("--allowed-dir", tree / "data", "--before-server-version",
                            "2026.7.10", "--op", "read")
    drive = next(c for c in result["changes"] if c["probe"] == "read C:\\probe.txt")
    # 2026.7.10 takes a drive path as a name inside the allowed directory; later refuse it.
    assert drive["change"] == "removed_access"
    assert drive["after"]["reason"] == "windows-path"
    # And 2026.8.31 lets the quote sibling through where 2026.7.10's parent check didn't.
    assert code == 1
    quote = next(c for c in result["changes"] if c["probe"] == f"read {tree}/data'")
    assert quote["change"] == "new_access" and quote["before"]["reason"] == "parent-missing"
    (tree / "data-sibling").mkdir()
    code, result, _ = _diff("--before-allowed-dir", tree / "data", "--after-allowed-dir",
                            tree / "data-sibling", "--op", "read")
    sibling = next(c for c in result["changes"] if c["probe"] == f"read {tree}/data-sibling")
    assert sibling["change"] == "new_access"
    assert sibling["source"] == (
        f"generated: sibling sharing the prefix of allowed directory {tree}/data")


def test_a_reason_of_the_other_server_is_refused_with_its_line(tree: Path) -> None:
    code, out, _ = run_cli("test", _scenario(tree, """
[[scenario]]
name = "r"
[[scenario.path]]
path = "/x"
reason = "outside_roots"
"""))
    assert code == 2
    assert ("s.toml:12: scenario 'r' > path #1 > reason: 'outside_roots' is not one of "
            "server-filesystem's reasons: 'inside', 'outside'") in out


def test_no_upgrade_is_suggested_when_a_required_check_needs_the_escape(tree: Path) -> None:
    from localfs_explorer.fs import HostFS
    from localfs_explorer.servers.filesystem import FilesystemConfig, FilesystemPolicy
    from localfs_explorer.servers.filesystem import suggest as module

    policy = FilesystemPolicy(FilesystemConfig(directories=(str(tree / "data"),)), HostFS())
    needed = f"read:{tree}/data "  # only its trimmed spelling is inside the directory
    warnings: list[str] = []
    kept = module._upgrade(policy, [module.parse_requirement(needed)], [], warnings)
    assert kept.version == "2026.8.31"
    assert warnings == [f"server-filesystem 2026.8.31 lets quote and whitespace siblings of "
                        f"its directories through, but 2.0.1 would refuse {needed}: not "
                        "suggesting it"]
    # Without that requirement the upgrade is made.
    changes: list = []
    assert module._upgrade(policy, [], changes, []).version == "2.0.1"
    assert [c.kind for c in changes] == ["upgrade"]
