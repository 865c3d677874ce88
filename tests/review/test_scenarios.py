"""Scenario files: the format's errors (with lines), the runner's verdicts, coverage."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from localfs_explorer.review.scenarios import (
    ScenarioError,
    dump_scenario_file,
    load_scenario_file,
    parse_scenario_text,
    run_scenario_file,
    run_scenarios,
)
from localfs_explorer.servers.gee_sweet.check import tables as tables_module

REPO = Path(__file__).resolve().parents[2]
SPEC_000 = REPO / "scenarios" / "spec-000.toml"
CANARY = "canary-secret-5d1e"

TRAPS_ROOTS = """
[config]
host = "traps"
cwd = "/app"
package_dir = "/app"
[config.settings]
LOCAL_FILE_ACCESS = "roots"
LOCAL_FILE_ROOTS = "/data"
TOKEN_PATH = "/app/token.json"
"""


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def error_of(text: str) -> str:
    with pytest.raises(ScenarioError) as info:
        parse_scenario_text(textwrap.dedent(text).lstrip("\n"), name="f.toml")
    return str(info.value)


# --- malformed files: errors name the file and the line ------------------------------------


def test_malformed_toml_names_the_line() -> None:
    message = error_of("""
        title = "x"
        [[scenario]]
        name = "unterminated
        """)
    assert message.startswith("f.toml:3: not valid TOML")


def test_unknown_key_names_its_line_and_suggests_the_right_one() -> None:
    message = error_of("""
        [[scenario]]
        name = "first"
        [[scenario.path]]
        path = "/a"
        allowed = true

        [[scenario]]
        name = "second"
        [[scenario.path]]
        path = "/b"
        allowed = true
        [[scenario.path]]
        path = "/c"
        opp = "write"
        allowed = true
        """)
    # The third [[scenario.path]] overall, but the second of the second scenario.
    assert message == ("f.toml:14: scenario 'second' > path #2 > opp: unknown key 'opp' "
                       "(did you mean 'op'?)")


def test_unknown_key_inside_an_inline_table() -> None:
    message = error_of("""
        title = "t"

        [[scenario]]
        name = "a"
        config = { transpot = "sse" }
        [scenario.policy]
        mode = "off"
        """)
    assert message.startswith("f.toml:5: scenario 'a' > config > transpot: unknown key")
    assert "did you mean 'transport'" in message


def test_unknown_top_level_key_and_table() -> None:
    message = error_of("""
        titel = "t"
        [[scenario]]
        name = "a"
        [scenario.polcy]
        mode = "off"
        """)
    lines = message.splitlines()
    assert lines[0].startswith("f.toml:1: titel: unknown key 'titel'")
    assert lines[1].startswith("f.toml:4: scenario 'a' > polcy: unknown key 'polcy'")


def test_a_value_of_the_wrong_type_is_an_error_not_truthy() -> None:
    message = error_of("""
        [[scenario]]
        name = "a"
        [[scenario.path]]
        path = "/a"
        allowed = "no"
        """)
    assert message.startswith("f.toml:5: scenario 'a' > path #1 > allowed:")


def test_an_unknown_reason_lists_the_valid_ones() -> None:
    message = error_of("""
        [[scenario]]
        name = "a"
        [[scenario.path]]
        path = "/a"
        reason = "outside"
        """)
    assert "f.toml:5:" in message and "'outside_roots'" in message


def test_an_expectation_that_expects_nothing_is_refused() -> None:
    message = error_of("""
        [[scenario]]
        name = "a"
        [[scenario.path]]
        path = "/a"
        op = "write"
        """)
    assert message.startswith("f.toml:3: scenario 'a' > path #1 expects nothing")


def test_duplicate_scenario_names_are_refused() -> None:
    message = error_of("""
        [[scenario]]
        name = "a"
        policy = { mode = "off" }
        [[scenario]]
        name = "a"
        policy = { mode = "off" }
        """)
    assert message.startswith("f.toml:4: scenario 'a' appears twice")


def test_a_file_with_no_scenario_is_an_error() -> None:
    assert "scenario" in error_of('title = "nothing here"\n')


def test_load_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario_file(tmp_path / "nope.toml")


def test_the_format_round_trips_through_the_writer(tmp_path: Path) -> None:
    text = TRAPS_ROOTS + textwrap.dedent("""
        [[scenario]]
        name = "round trip"
        description = "quotes \\" and a NUL \\u0000 survive"
        config = { transport = "sse", host = { cwd = "/", entries = { "/d" = { type = "dir" } } } }
        [scenario.policy]
        deny_list_excludes = ["LOG_FILE"]
        [[scenario.path]]
        path = "/data/a b\\u0000.txt"
        op = "write"
        message_contains = "NUL"
        [[scenario.call]]
        tool = "send_message"
        arguments = { attachments = [{ local_path = "/x" }], count = 2, flag = true }
        outcome = "refused"
        [[scenario.call.path]]
        path = "/x"
        reason = "off"
        [scenario.tools]
        registered = ["a"]
        """)
    parsed = parse_scenario_text(text)
    again = parse_scenario_text(dump_scenario_file(parsed))
    assert again == parsed


# --- running ------------------------------------------------------------------------------


EVIL_MESSAGE = ("/data-evil/loot.txt is outside this server's LOCAL_FILE_ROOTS. "
                "Allowed directories: /data")


def test_a_passing_file(tmp_path: Path) -> None:
    path = write(tmp_path, TRAPS_ROOTS + """
        [[scenario]]
        name = "roots"
        [[scenario.path]]
        path = "/data/notes.txt"
        allowed = true
        resolved = "/data/notes.txt"
        [[scenario.path]]
        path = "/data-evil/loot.txt"
        reason = "outside_roots"
        message = "{EVIL_MESSAGE}"
        [[scenario.path]]
        path = "/data/innocent.json"
        op = "write"
        message_contains = "can't be written by a tool"
        [[scenario.call]]
        tool = "upload_local_file"
        arguments = { local_path = "/etc/passwd", parent_folder_id = "F" }
        outcome = "refused"
        gate = "execute"
        visible = true
        [scenario.tools]
        registered = ["sync_folder"]
        unregistered = []
        [scenario.auth_status]
        mode = "roots"
        explicit = true
        roots = ["/data"]
        [scenario.policy]
        serves = true
        deny_list_includes = ["TOKEN_PATH"]
        deny_list_excludes = ["LOG_FILE"]
        """.replace("{EVIL_MESSAGE}", EVIL_MESSAGE))
    run = run_scenarios([path])
    assert run.errors == []
    assert [c.passed for c in run.cases] == [True] * 7
    assert (run.summary, run.exit_code) == ("7 passed, 0 failed", 0)


def test_a_failing_expectation_shows_expected_actual_and_the_trace(tmp_path: Path) -> None:
    path = write(tmp_path, TRAPS_ROOTS + """
        [[scenario]]
        name = "wrong on purpose"
        [[scenario.path]]
        label = "the sibling"
        path = "/data-evil/loot.txt"
        allowed = true
        reason = "allowed"
        message_contains = "nothing like this"
        """)
    run = run_scenarios([path])
    (case,) = run.cases
    assert not case.passed and run.exit_code == 1
    assert (case.line, case.name) == (12, "the sibling")
    described = [m.describe() for m in case.mismatches]
    assert described[0] == "allowed: expected true, got false"
    assert described[1] == 'reason: expected "allowed", got "outside_roots"'
    assert described[2].startswith('message contains: expected "nothing like this", got '
                                   '"/data-evil/loot.txt is outside')
    assert any(t.startswith("roots") and "refused" in t for t in case.trace)
    assert run.summary == "0 passed, 1 failed"


def test_calls_are_matched_path_by_path(tmp_path: Path) -> None:
    path = write(tmp_path, TRAPS_ROOTS + """
        [[scenario]]
        name = "walk"
        [[scenario.call]]
        tool = "sync_folder"
        arguments = {folder_id = "F", local_path = "/data", direction = "upload", recursive = true}
        outcome = "partial"
        [[scenario.call.path]]
        path = "/data/escape"
        step = "local_read_fail"
        reason = "outside_roots"
        [[scenario.call.path]]
        path = "/data/notes.txt"
        allowed = false
        [[scenario.call.path]]
        path = "/data/never-there"
        allowed = true
        """)
    (case,) = run_scenarios([path]).cases
    fields = [m.field for m in case.mismatches]
    assert fields == ["path /data/notes.txt allowed", "path /data/never-there"]
    assert any("/data/escape" in t and "local_read_fail" in t for t in case.trace)


def test_env_file_and_host_paths_are_relative_to_the_scenario_file(tmp_path: Path) -> None:
    folder = tmp_path / "deploy"
    folder.mkdir()
    (folder / "server.env").write_text("LOCAL_FILE_ACCESS=off\n")
    (folder / "host.json").write_text(json.dumps({
        "version": 1, "cwd": "/srv", "home": "/root",
        "entries": {"/srv": {"type": "dir"}, "/srv/a.txt": {"type": "file"}},
    }))
    path = write(folder, """
        [config]
        env = "server.env"
        host = "host.json"
        [[scenario]]
        name = "off from the file"
        [scenario.policy]
        mode = "off"
        explicit = true
        [[scenario]]
        name = "settings win over the file"
        config = { settings = { LOCAL_FILE_ACCESS = "full" } }
        [[scenario.path]]
        path = "/srv/a.txt"
        allowed = true
        resolved = "/srv/a.txt"
        """)
    run = run_scenarios([path])
    assert run.errors == [] and run.failed == 0 and run.passed == 2


def test_this_machine_as_the_host(tmp_path: Path, layout) -> None:
    path = write(tmp_path, f"""
        [config]
        host = "host"
        cwd = "{layout.app}"
        package_dir = "{layout.app}"
        [config.settings]
        LOCAL_FILE_ACCESS = "roots"
        LOCAL_FILE_ROOTS = "{layout.data}"
        HOME = "{layout.home}"
        [[scenario]]
        name = "real files"
        [[scenario.path]]
        path = "{layout.data}/report.csv"
        allowed = true
        [[scenario.path]]
        path = "{layout.app}/token.json"
        reason = "outside_roots"
        [[scenario.path]]
        path = "token.json"
        resolved = "{layout.app}/token.json"
        """)
    run = run_scenarios([path])
    assert run.failed == 0 and run.passed == 3


def test_a_missing_env_file_is_an_error_not_a_failure(tmp_path: Path) -> None:
    path = write(tmp_path, """
        [[scenario]]
        name = "broken"
        config = { env = "missing.env" }
        policy = { mode = "full" }
        [[scenario]]
        name = "fine"
        config = { host = "traps" }
        policy = { mode = "full" }
        """)
    run = run_scenarios([path])
    assert run.exit_code == 2 and run.passed == 1
    assert run.errors[0].endswith("'broken': line 1: env: " + str(tmp_path / "missing.env")
                                  + ": can't be read (no such file)")


def test_a_malformed_file_does_not_stop_the_others(tmp_path: Path) -> None:
    write(tmp_path, "[[scenario]]\nname = \n", "a-bad.toml")
    write(tmp_path, TRAPS_ROOTS + '[[scenario]]\nname = "ok"\npolicy = { mode = "roots" }\n',
          "b-good.toml")
    run = run_scenarios([tmp_path])
    assert [Path(f.path).name for f in run.files] == ["a-bad.toml", "b-good.toml"]
    assert run.files[0].error.startswith(f"{tmp_path / 'a-bad.toml'}:2: not valid TOML")
    assert (run.passed, run.failed, run.exit_code) == (1, 0, 2)


def test_a_missing_target_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such file or folder"):
        run_scenarios([tmp_path / "nope"])


def test_secrets_never_reach_results(tmp_path: Path) -> None:
    path = write(tmp_path, f"""
        [config]
        host = "traps"
        settings = {{ CREDENTIALS_CONFIG = "{CANARY}", LOCAL_FILE_ACCESS = "full" }}
        [[scenario]]
        name = "a path that contains the secret"
        [[scenario.path]]
        path = "/data/{CANARY}.txt"
        allowed = false
        """)
    run = run_scenarios([path])
    assert run.failed == 1
    text = json.dumps(run.to_dict(), ensure_ascii=False)
    assert CANARY not in text
    assert "••••••" in text


# --- coverage -----------------------------------------------------------------------------


def test_coverage_counts_reasons_settings_tools_and_lists_the_rest(tmp_path: Path) -> None:
    path = write(tmp_path, TRAPS_ROOTS + """
        [[scenario]]
        name = "two rules"
        [[scenario.path]]
        path = "/data/innocent.json"
        reason = "denied"
        [[scenario.call]]
        tool = "download_file"
        arguments = { file_id = "F", local_path = "/etc/x" }
        outcome = "refused"
        """)
    coverage = run_scenarios([path]).coverage
    assert coverage.reasons["denied"] == 1 and coverage.reasons["outside_roots"] == 1
    assert coverage.reasons["tripwire"] == 0
    assert coverage.deny_settings["TOKEN_PATH"] == 1  # the hardlink is the token
    assert coverage.deny_settings["LOG_FILE"] == 0
    assert coverage.tools["download_file"] == 1 and coverage.tools["sync_folder"] == 0
    missed = coverage.missed()
    assert ("refusal reason", "tripwire") in missed
    assert ("catalog tool", "sync_folder") in missed
    assert ("deny-list setting", "TOKEN_PATH") not in missed
    assert coverage.exercised == 5  # denied, outside_roots, TOKEN_PATH, the tool, refused


# --- the shipped scenarios ----------------------------------------------------------------


def test_the_shipped_spec_000_scenarios_all_pass() -> None:
    result = run_scenario_file(SPEC_000)
    assert result.error is None
    failures = [(c.id, [m.describe() for m in c.mismatches], c.error)
                for c in result.cases if not c.passed]
    assert failures == []
    assert all(s.error is None for s in result.scenarios)
    assert len(result.cases) >= 140


def test_the_shipped_scenarios_exercise_every_rule() -> None:
    run = run_scenarios([SPEC_000])
    assert run.coverage.missed() == []


def test_the_shipped_scenarios_catch_a_string_prefix_containment_bug(monkeypatch) -> None:
    """A mutation: compare roots as string prefixes; /data-evil would then pass."""
    monkeypatch.setattr(tables_module, "containment_prefixes",
                        lambda dirs: tuple(d.rstrip("/") for d in dirs))
    result = run_scenario_file(SPEC_000)
    failed = {c.name for c in result.cases if not c.passed}
    assert "a sibling sharing the root's prefix is outside" in failed


# --- the Explorer's Scenarios panel --------------------------------------------------------


def _explorer(**traits):
    pytest.importorskip("ipywidgets")
    from localfs_explorer.ui.app import Explorer, PanelSpec
    from localfs_explorer.ui.model import ExplorerModel

    model = ExplorerModel(**traits)
    spec = PanelSpec("scenarios", "Scenarios",
                     "localfs_explorer.ui.panels.scenarios:ScenariosPanel")
    return model, Explorer(model, panels=[spec]).panel("scenarios")


def test_the_panel_pins_the_screen_as_a_scenario_that_passes() -> None:
    _model, panel = _explorer(
        target="example:traps", cwd="/app", package_dir="/app",
        overrides=[("LOCAL_FILE_ACCESS", "roots"), ("LOCAL_FILE_ROOTS", "/data"),
                   ("CREDENTIALS_CONFIG", CANARY)],
        paths_text="/data/notes.txt\n/etc/passwd", tool_name="upload_local_file",
        tool_args_text='{"local_path": "/etc/passwd", "parent_folder_id": "F"}')
    panel.save_current()
    saved = panel.saved.value
    assert CANARY not in saved and "CREDENTIALS_CONFIG" not in saved
    assert "CREDENTIALS_CONFIG" in panel.save_note.value  # said it was left out
    parsed = parse_scenario_text(saved)
    (scenario,) = parsed.scenario
    assert scenario.config.host == "traps"
    assert [(c.path, c.allowed) for c in scenario.path] == [("/data/notes.txt", True),
                                                              ("/etc/passwd", False)]
    assert scenario.call[0].outcome == "refused"
    panel.text.value = saved
    panel.run_text()
    assert "5 passed, 0 failed" in panel.summary.value
    # Break one expectation: the table shows the failure first, with its trace.
    panel.text.value = saved.replace('reason = "outside_roots"', 'reason = "denied"', 1)
    panel.run_text()
    assert "4 passed, 1 failed" in panel.summary.value
    first_row = panel.results.value.split("<tbody>")[1].split("</tr>")[0]
    assert "FAILED" in first_row and "reason: expected" in first_row and "trace" in first_row


def test_a_served_panel_refuses_scenarios_that_read_this_machine() -> None:
    _model, panel = _explorer(target="example:traps", host_access=False)
    assert panel.path.disabled and panel.load.disabled
    panel.set_text("mine.toml", '[[scenario]]\nname = "here"\n'
                                'config = { env = "/etc/app.env", host = "traps" }\n'
                                'policy = { mode = "full" }\n'
                                '[[scenario]]\nname = "described"\nconfig = { host = "traps" }\n'
                                'policy = { mode = "full" }\n')
    panel.run_text()
    assert "reads this machine (env file /etc/app.env)" in panel.status.value
    assert "1 passed, 0 failed" in panel.summary.value
