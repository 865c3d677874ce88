"""The replay command: table and JSON output, --answers, --access, exit codes, errors."""

from __future__ import annotations

import json
import re

import pytest
from conftest import run_cli as run

from localfs_explorer.review.sessions import PERSON_REFUSAL

CANARY = "canary-secret-5d0b"


@pytest.fixture
def setup(layout):
    env = layout.app / ".env"
    env.write_text(
        f"CREDENTIALS_CONFIG={CANARY}\nLOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={layout.data}\n"
        f"HOME={layout.home}\n"
    )
    access = layout.base / "access.toml"
    access.write_text(
        '[server]\napproval_list = ["get_*", "upload_*"]\ndeny_list = ["send_*"]\n'
        "approval_timeout_seconds = 60\n"
    )
    return layout, ["--env", str(env), "--cwd", str(layout.app), "--access", str(access)]


def write_session(layout, answers) -> str:
    path = layout.base / "session.json"
    path.write_text(json.dumps(answers))
    return str(path)


def doc(path: str, file_id: str = "d1") -> dict:
    return {"name": "get_doc_content", "arguments": {"file_id": file_id, "local_path": path}}


def test_json_lines_one_per_call(setup):
    layout, opts = setup
    target = str(layout.data / "doc.md")
    session = write_session(layout, [[doc(target), doc(target)], [doc(target)]])
    code, out, _ = run("replay", session, *opts, "--json")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["answer"], r["call"], r["asked"], r["decision"]) for r in rows] == [
        (1, 1, True, "approved"), (1, 2, False, "covered"), (2, 1, True, "approved")]
    for r in rows:
        assert {"answer", "call", "name", "gate", "asked", "decision", "outcome"} <= set(r)
        assert r["gate"] == "approval" and r["outcome"] == "ok"
        assert isinstance(r["asked"], bool)
    assert rows[1]["covered_by"] == [1, 1]


def test_answers_deny_refuses_every_prompt_and_exits_1(setup):
    layout, opts = setup
    session = write_session(layout, [[doc(str(layout.data / "doc.md"))]])
    code, out, _ = run("replay", session, *opts, "--answers", "deny", "--json")
    assert code == 1
    row = json.loads(out)
    assert (row["decision"], row["outcome"], row["status"]) == ("refused", "declined", "held")
    assert row["message"] == PERSON_REFUSAL.format(name="get_doc_content")


def test_session_file_answers_win_over_answers_option(setup):
    layout, opts = setup
    target = str(layout.data / "doc.md")
    session = write_session(layout, [[{**doc(target), "approval": "approve"},
                                      {**doc(target), "approval": {"decision": "approve",
                                                                   "after_seconds": 61}},
                                      doc(str(layout.data / "other.md"))]])
    code, out, _ = run("replay", session, *opts, "--answers", "deny", "--json")
    assert code == 1
    assert [json.loads(line)["decision"] for line in out.splitlines()] == [
        "approved", "covered", "refused"]


def test_table_shows_prompts_covered_calls_blocked_and_the_models_text(setup):
    layout, opts = setup
    target = str(layout.data / "doc.md")
    source = str(layout.data / "report.csv")
    session = write_session(layout, [
        [doc(target), doc(target),
         {"name": "upload_local_file",
          "arguments": {"local_path": source, "parent_folder_id": "F"}},
         {"name": "upload_local_file",
          "arguments": {"local_path": source, "parent_folder_id": "F"}, "approval": "timeout"},
         {"name": "send_message", "arguments": {"to": "x", "subject": "S", "body": "B"}}],
        [doc(str(layout.outside / "other.md"))],
    ])
    code, out, err = run("replay", session, *opts)
    assert code == 1
    lines = out.splitlines()
    assert lines[0].split() == ["call", "tool", "gate", "asked", "decision", "outcome", "reason"]
    row = {line.split()[0]: line.split() for line in lines[1:7]}
    assert row["1.1"][1:6] == ["get_doc_content", "approval", "yes", "approved", "ok"]
    assert row["1.2"][3:6] == ["no", "covered", "ok"]
    assert row["1.3"][3:6] == ["yes", "approved", "ok"]
    assert row["1.4"][3:6] == ["yes", "timeout", "declined"]
    assert row["1.5"][2:6] == ["blocked", "no", "none", "absent"]
    assert row["2.1"][5] == "refused"
    assert "nobody answered the approval prompt within 60 seconds" in out
    assert "is outside this server's LOCAL_FILE_ROOTS" in out
    assert "6 call(s) in 2 answer(s); 4 prompt(s) (answer 1: 3, answer 2: 1)" in out
    assert "ran on an earlier approval: 1.2 (approved at 1.1)" in out
    assert "blocked (hidden from the model): 1.5" in out
    assert CANARY not in out + err


def test_every_call_running_exits_0_without_access_lists(setup):
    layout, opts = setup
    session = write_session(layout, [[doc(str(layout.data / "doc.md"))]])
    code, out, _ = run("replay", session, *opts[:4])
    assert code == 0
    assert "0 prompt(s)" in out


def test_argument_values_are_never_printed(setup):
    layout, opts = setup
    session = write_session(layout, [[doc(str(layout.data / "doc.md"), file_id=CANARY)]])
    for extra in ((), ("--json",)):
        _, out, err = run("replay", session, *opts, *extra)
        assert CANARY not in out + err


@pytest.mark.parametrize(("content", "message"), [
    ('[[{"name": "a"}], [{"name": "b", "arguments": 3}]]',
     r"session\.json: answer 2, call 1 \(b\): arguments: must be an object, not int"),
    ('{"answers": [[{"nme": "a"}]]}', r"answer 1, call 1: unknown key\(s\) 'nme'"),
    ("[[", r"session\.json: not valid JSON \(line 1"),
])
def test_malformed_session_is_a_usage_error_naming_its_location(setup, content, message):
    layout, opts = setup
    path = layout.base / "session.json"
    path.write_text(content)
    code, out, err = run("replay", str(path), *opts)
    assert code == 2 and out == ""
    assert err.startswith("localfs-explorer replay: ")
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert re.search(message, err), err


def test_bad_access_file_is_a_usage_error(setup):
    layout, opts = setup
    bad = layout.base / "bad.toml"
    bad.write_text('[server]\ndeny_lists = ["x"]\n')
    session = write_session(layout, [[doc("x")]])
    code, _, err = run("replay", session, *opts[:4], "--access", str(bad))
    assert code == 2 and "deny_lists" in err and "bad.toml" in err


def test_unknown_answers_value_is_rejected(setup):
    layout, opts = setup
    session = write_session(layout, [[doc("x")]])
    code, _, _ = run("replay", session, *opts, "--answers", "maybe")
    assert code == 2


def test_configuration_the_server_refuses_exits_2(setup):
    layout, opts = setup
    session = write_session(layout, [[doc(str(layout.data / "doc.md"))]])
    code, _, err = run("replay", session, *opts, "--set", "LOCAL_FILE_ROOTS=")
    assert code == 2 and "refuse to serve" in err
