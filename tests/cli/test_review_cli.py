"""The test, diff and report commands: output, exit codes, JUnit XML, reports."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import run_cli as run

REPO = Path(__file__).resolve().parents[2]
SPEC_000 = REPO / "scenarios" / "spec-000.toml"
CANARY = "canary-cli-4b0a"
SUMMARY = re.compile(r"^\d+ passed, \d+ failed$")

TRAPS = [
    "--fs", "traps", "--cwd", "/app", "--package-dir", "/app",
    "--set", "LOCAL_FILE_ACCESS=roots", "--set", "TOKEN_PATH=/app/token.json",
]

GOOD = """
[config]
host = "traps"
settings = { LOCAL_FILE_ACCESS = "roots", LOCAL_FILE_ROOTS = "/data" }
[[scenario]]
name = "good"
[[scenario.path]]
path = "/data/notes.txt"
allowed = true
[[scenario.call]]
tool = "upload_local_file"
arguments = { local_path = "/etc/passwd", parent_folder_id = "F" }
outcome = "refused"
"""

BAD = """
[config]
host = "traps"
settings = { LOCAL_FILE_ACCESS = "roots", LOCAL_FILE_ROOTS = "/data" }
[[scenario]]
name = "bad"
[[scenario.path]]
label = "the sibling is inside, says nobody"
path = "/data-evil/loot.txt"
allowed = true
[[scenario.path]]
path = "/data/notes.txt"
allowed = true
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    made = {}
    for name, text in (("good", GOOD), ("bad", BAD),
                       ("broken", '[[scenario]]\nname = "x"\nopp = 1\n')):
        path = tmp_path / f"{name}.toml"
        path.write_text(text.lstrip("\n"))
        made[name] = path
    return made


# --- test ---------------------------------------------------------------------------------


def test_passing_files_exit_0_and_end_with_the_summary(files) -> None:
    code, out, _ = run("test", files["good"])
    assert code == 0
    lines = out.splitlines()
    assert lines[-1] == "2 passed, 0 failed" and SUMMARY.match(lines[-1])
    assert "FAILED" not in out


def test_the_shipped_scenarios_pass_from_the_command_line() -> None:
    code, out, _ = run("test", REPO / "scenarios")
    last = out.splitlines()[-1]
    assert code == 0 and SUMMARY.match(last) and last.endswith(" 0 failed")


def test_a_failure_shows_where_what_and_why(files) -> None:
    code, out, _ = run("test", files["good"], files["bad"])
    assert code == 1
    assert out.splitlines()[-1] == "3 passed, 1 failed"
    block = out[out.index("FAILED"):]
    assert block.startswith(f"FAILED {files['bad']}:6  bad > the sibling is inside, says nobody")
    assert "    allowed: expected true, got false" in block
    assert "    trace:" in block and "roots     refused" in block
    assert "hint: Add /data-evil to LOCAL_FILE_ROOTS" in block


def test_a_malformed_file_exits_2_with_its_line(files) -> None:
    code, out, err = run("test", files["good"], files["broken"])
    assert code == 2
    assert f"ERROR  {files['broken']}:3: scenario 'x' > opp: unknown key 'opp'" in out
    assert out.splitlines()[-1] == "2 passed, 0 failed"
    assert "kept scenarios from running" in err


def test_a_missing_target_exits_2(tmp_path: Path) -> None:
    code, _, err = run("test", tmp_path / "nothing.toml")
    assert code == 2 and "no such file or folder" in err


def test_junit_xml_for_ci(files, tmp_path: Path) -> None:
    target = tmp_path / "junit.xml"
    code, _, _ = run("test", files["good"], files["bad"], files["broken"], "--junit-xml",
                     target)
    assert code == 2
    root = ET.parse(target).getroot()
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("4", "1", "1")
    suites = {Path(s.get("name")).stem: s for s in root.iter("testsuite")}
    failure = suites["bad"].find("testcase/failure")
    assert failure.get("message") == "allowed: expected true, got false"
    assert "trace:" in failure.text
    case = suites["bad"].find("testcase")
    assert case.get("line") == "6" and case.get("classname").endswith("::bad")
    assert suites["broken"].find("testcase/error").get("message").endswith(
        "unknown key 'opp'")


def test_coverage_lists_rules_hit_and_missed(files) -> None:
    code, out, _ = run("test", files["good"], "--coverage")
    assert code == 0
    assert re.search(r"^coverage: \d+/\d+ rules exercised$", out, re.M)
    assert "    ok   allowed  (1)" in out
    assert "    ok   outside_roots  (1)" in out
    assert "    MISS tripwire" in out
    assert "    MISS sync_folder" in out
    assert "    ok   upload_local_file  (1)" in out


def test_verbose_lists_passes_and_reports_are_written(files, tmp_path: Path) -> None:
    html = tmp_path / "run.html"
    code, out, _ = run("test", files["good"], "-v", "-o", html)
    assert code == 0 and out.count("PASSED ") == 2
    assert "<svg" in html.read_text()


def test_an_unknown_report_format_is_refused_before_running(files, tmp_path: Path) -> None:
    code, _, err = run("test", files["good"], "-o", tmp_path / "r.txt")
    assert code == 2 and "end it in .html, .csv or .json" in err


# --- diff ---------------------------------------------------------------------------------


def test_diff_widening_roots_exits_1_with_new_access() -> None:
    code, out, err = run("diff", *TRAPS, "--before-set", "LOCAL_FILE_ROOTS=/data",
                         "--after-set", "LOCAL_FILE_ROOTS=/data:/srv/outside")
    assert code == 1
    assert "this change grants new access" in err and "--allow-new-access" in err
    assert out.startswith("before: roots (explicit) · transport stdio · target traps · roots "
                          "/data\nafter:  roots (explicit)")
    new = out[out.index("NEW ACCESS"):out.index("REMOVED ACCESS")]
    assert "  read /srv/outside/probe.txt\n      refused [outside_roots] -> allowed" in new
    assert "call upload_local_file" in new
    assert "REMOVED ACCESS (allowed -> refused): 0" in out


def test_diff_allow_new_access_exits_0() -> None:
    code, _, err = run("diff", *TRAPS, "--before-set", "LOCAL_FILE_ROOTS=/data",
                       "--after-set", "LOCAL_FILE_ROOTS=/data:/srv/outside",
                       "--allow-new-access")
    assert code == 0 and err == ""


def test_diff_narrowing_roots_exits_0_and_lists_removed_access() -> None:
    code, out, _ = run("diff", *TRAPS, "--before-set", "LOCAL_FILE_ROOTS=/data:/srv/outside",
                       "--after-set", "LOCAL_FILE_ROOTS=/data", "--path", "/srv/outside/a.txt")
    assert code == 0
    assert "NEW ACCESS (refused -> allowed): 0" in out
    removed = out[out.index("REMOVED ACCESS"):out.index("CHANGED MESSAGE")]
    assert "  read /srv/outside/a.txt\n      allowed -> refused [outside_roots]    (given)" \
        in removed
    changed = out[out.index("CHANGED MESSAGE"):]
    # The long common start of the two refusal texts is elided.
    assert "      before: … directories: /data, /srv/outside" in changed
    assert "      after:  … directories: /data\n" in changed


def test_diff_json_and_only_given_probes(tmp_path: Path) -> None:
    paths = tmp_path / "paths.jsonl"
    paths.write_text('"/srv/outside/x"\n"/data/notes.txt"\n')
    calls = tmp_path / "calls.jsonl"
    calls.write_text('{"name": "upload_local_file", '
                     '"arguments": {"local_path": "/srv/outside/x", "parent_folder_id": "F"}}\n')
    code, out, _ = run("diff", *TRAPS, "--before-set", "LOCAL_FILE_ROOTS=/data",
                       "--after-set", "LOCAL_FILE_ROOTS=/data:/srv/outside", "--no-generated",
                       "--paths-file", paths, "--calls", calls, "--op", "read", "--json",
                       "--show-unchanged")
    assert code == 1
    data = json.loads(out)
    assert data["counts"] == {"new_access": 2, "removed_access": 0, "changed_message": 0,
                              "unchanged": 1}
    assert {c["probe"] for c in data["changes"]} == {
        "read /srv/outside/x", "read /data/notes.txt",
        'upload_local_file {"local_path": "/srv/outside/x", "parent_folder_id": "F"}'}


def test_diff_between_two_scenarios(tmp_path: Path) -> None:
    scenario = tmp_path / "deploy.toml"
    scenario.write_text("""
[config]
host = "traps"
cwd = "/app"
[[scenario]]
name = "today"
config = { settings = { LOCAL_FILE_ACCESS = "roots", LOCAL_FILE_ROOTS = "/data" } }
policy = { mode = "roots" }
[[scenario]]
name = "proposed"
config = { settings = { LOCAL_FILE_ACCESS = "full" } }
policy = { mode = "full" }
""")
    code, out, err = run("diff", "--before-scenario", f"{scenario}::today",
                         "--after-scenario", f"{scenario}::proposed", "--json")
    assert code == 1 and "new access" in err
    data = json.loads(out)
    assert data["counts"]["new_access"] > 0 and data["counts"]["removed_access"] == 0
    code, _, err = run("diff", "--before-scenario", f"{scenario}::nope",
                       "--after-scenario", str(scenario))
    assert code == 2 and "no scenario named 'nope'" in err


def test_diff_writes_a_masked_html_report(tmp_path: Path) -> None:
    page = tmp_path / "diff.html"
    code, _, _ = run("diff", *TRAPS, "--set", f"CREDENTIALS_CONFIG={CANARY}",
                     "--before-set", "LOCAL_FILE_ROOTS=/data",
                     "--after-set", "LOCAL_FILE_ROOTS=/data:/srv/outside", "-o", page,
                     "--allow-new-access")
    assert code == 0
    text = page.read_text()
    assert CANARY not in text and "new_access" in text


def test_diff_bad_env_file_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = run("diff", "--before-env", tmp_path / "missing.env")
    assert code == 2 and "missing.env: can't be read (no such file)" in err


# --- report -------------------------------------------------------------------------------


def test_report_writes_every_format_and_masks_secrets(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(f"CREDENTIALS_CONFIG={CANARY}\nLOCAL_FILE_ACCESS=roots\n"
                   "LOCAL_FILE_ROOTS=/data\n")
    calls = tmp_path / "calls.jsonl"
    calls.write_text('{"name": "upload_local_file",'
                     ' "arguments": {"local_path": "/etc/passwd", "parent_folder_id": "F"}}\n'
                     '{"name": "get_sheet_data", "arguments":'
                     ' {"spreadsheet_id": "S", "sheet": "S1", "local_path": "/data/o.json"}}\n')
    outputs = [tmp_path / f"batch{s}" for s in (".html", ".csv", ".json")]
    argv = ["report", "--env", env, "--fs", "traps", "--package-dir", "/app", "--calls", calls,
            "--path", "/app/token.json"]
    for o in outputs:
        argv += ["-o", o]
    code, out, _ = run(*argv)
    assert code == 0
    assert out.splitlines() == [f"wrote {o}" for o in outputs]
    for o in outputs:
        assert CANARY not in o.read_text()
    rows = json.loads(outputs[2].read_text())["rows"]
    assert [(r["name"], r["allowed"]) for r in rows] == [
        ("upload_local_file", False), ("get_sheet_data", True), (None, False)]


def test_report_needs_something_to_report(tmp_path: Path) -> None:
    code, _, err = run("report", "-o", tmp_path / "r.html")
    assert code == 2 and "needs --calls" in err
