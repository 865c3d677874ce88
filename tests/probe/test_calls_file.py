"""The one calls-file reader and its one rule for bad lines, through the API and the CLI.

Each bad line becomes an error naming the file and the line (``FILE:LINE: what is
wrong``), the other lines still run, and ``probe`` and ``diff`` both exit 2 when any line
was bad.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import run_cli as run

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.cli.main import main
from localfs_explorer.fs.spec import load_fs
from localfs_explorer.probe import ProbeError, iter_call_verdicts
from localfs_explorer.probe.calls_file import BadCall, Call, CallsFileError, parse_calls, read_calls
from localfs_explorer.review.diff import compare_policies

GOOD = json.dumps({"name": "upload_local_file",
                   "arguments": {"local_path": "/srv/outside/x", "parent_folder_id": "F"}})
HUGE = 2 * 1024 * 1024

#: Each kind of bad line, as bytes, and the start of what its error says after FILE:LINE.
BAD_LINES: dict[str, tuple[bytes, str]] = {
    "bad JSON": (b"{not json", "not valid JSON (Expecting property name"),
    "not an object": (b'["upload_local_file", {}]',
                      "a call is an object with a 'name' and an 'arguments' object"),
    "no tool name": (b'{"arguments": {"local_path": "/x"}}', "a call needs a 'name' string"),
    "NUL bytes": (b'{"name": "upload_local_file\x00", "arguments": {}}',
                  "not valid JSON (Invalid control character"),
    "bare NULs": (b"\x00\x00\x00", "not valid JSON (Expecting value"),
    "not UTF-8": (b'{"name": "\xff"}', "not UTF-8 text"),
    "huge line": (b'{"name": "' + b"x" * HUGE, "not valid JSON (Unterminated string"),
}


def _file(tmp_path: Path, bad: bytes) -> Path:
    """A calls file: a good call, the bad line, the good call again."""
    path = tmp_path / "calls.jsonl"
    path.write_bytes(GOOD.encode() + b"\n" + bad + b"\n\n" + GOOD.encode() + b"\n")
    return path


def _policy(roots: str = "/data"):
    env = load_env(None, overrides={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": roots})
    return resolve_policy(env, fs=load_fs("traps"), cwd="/app", package_dir="/app")


TRAPS = ["--fs", "traps", "--cwd", "/app", "--package-dir", "/app",
         "--set", "LOCAL_FILE_ACCESS=roots"]
ROOTS = [*TRAPS, "--set", "LOCAL_FILE_ROOTS=/data"]


# --- the reader ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(BAD_LINES))
def test_a_bad_line_names_file_and_line_and_the_rest_are_read(kind: str, tmp_path: Path) -> None:
    bad, said = BAD_LINES[kind]
    path = _file(tmp_path, bad)
    calls = list(read_calls(path))
    assert [type(c) for c in calls] == [Call, BadCall, Call]
    assert [c.line for c in calls] == [1, 2, 4]  # the blank line 3 is skipped, not an error
    message = calls[1].message
    assert message.startswith(f"{path}:2: {said}"), message
    assert len(message) < 300  # a huge line is not echoed back


def test_calls_handed_in_as_a_list_use_the_same_rule() -> None:
    calls = list(read_calls([json.loads(GOOD), "junk", {"params": json.loads(GOOD)},
                             {"name": "x", "arguments": [1]}]))
    assert [type(c) for c in calls] == [Call, BadCall, Call, BadCall]
    assert calls[1].message == "a call is an object with a 'name' and an 'arguments' object"
    assert calls[3].message == "x: 'arguments' must be an object" and calls[3].name == "x"
    assert calls[2].name == "upload_local_file" and calls[2].line is None


def test_an_empty_file_has_no_calls_and_no_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert list(read_calls(empty)) == []
    assert list(parse_calls("\n  \n", "upload.jsonl")) == []


def test_an_unreadable_file_is_one_error_for_the_whole_run(tmp_path: Path) -> None:
    with pytest.raises(CallsFileError, match=r"missing\.jsonl: can.t be read"):
        list(read_calls(tmp_path / "missing.jsonl"))
    with pytest.raises(ProbeError, match="is a directory"):
        list(iter_call_verdicts(_policy(), tmp_path))


def test_text_is_read_under_the_name_given() -> None:
    calls = list(parse_calls(GOOD + "\n{oops\n", "my upload.jsonl"))
    assert isinstance(calls[1], BadCall)
    assert calls[1].message.startswith("my upload.jsonl:2: not valid JSON")


# --- through the API ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(BAD_LINES))
def test_probe_api_yields_an_error_verdict_per_bad_line(kind: str, tmp_path: Path) -> None:
    path = _file(tmp_path, BAD_LINES[kind][0])
    verdicts = list(iter_call_verdicts(_policy(), path))
    assert [v.outcome for v in verdicts] == ["refused", "error", "refused"]
    assert verdicts[1].line == 2 and verdicts[1].message.startswith(f"{path}:2: ")


@pytest.mark.parametrize("kind", list(BAD_LINES))
def test_diff_api_notes_each_bad_line_and_asks_the_rest(kind: str, tmp_path: Path) -> None:
    path = _file(tmp_path, BAD_LINES[kind][0])
    result = compare_policies(_policy("/data"), _policy("/data:/srv/outside"), calls=path,
                              generated=False)
    assert [c.change for c in result.changes] == ["new_access"]  # the good call, once
    assert len(result.errors) == 1 and result.errors[0].startswith(f"{path}:2: ")


def test_api_empty_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert list(iter_call_verdicts(_policy(), empty)) == []
    result = compare_policies(_policy(), _policy(), calls=empty, generated=False)
    assert result.changes == [] and result.errors == []


# --- through the command line -------------------------------------------------------------


@pytest.mark.parametrize("kind", list(BAD_LINES))
def test_probe_cli_reports_the_line_runs_the_rest_and_exits_2(kind: str, tmp_path: Path) -> None:
    path = _file(tmp_path, BAD_LINES[kind][0])
    code, out, err = run("probe", *ROOTS, "--json",
                         "--calls", path)
    assert code == 2
    assert [json.loads(line)["outcome"] for line in out.splitlines()] == [
        "refused", "error", "refused"]
    assert f"error: {path}:2: {BAD_LINES[kind][1]}" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("kind", list(BAD_LINES))
def test_diff_cli_reports_the_line_runs_the_rest_and_exits_2(kind: str, tmp_path: Path) -> None:
    path = _file(tmp_path, BAD_LINES[kind][0])
    code, out, err = run("diff", *TRAPS, "--before-set", "LOCAL_FILE_ROOTS=/data",
                         "--after-set", "LOCAL_FILE_ROOTS=/data:/srv/outside",
                         "--no-generated", "--calls", path, "--json")
    assert code == 2  # as probe, even though the good call also grants new access
    result = json.loads(out)
    assert result["counts"]["new_access"] == 1
    assert result["errors"][0].startswith(f"{path}:2: {BAD_LINES[kind][1]}")
    assert f"error: {path}:2: {BAD_LINES[kind][1]}" in err
    assert "Traceback" not in err


def test_cli_empty_calls_file_is_a_clean_run(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert run("probe", *ROOTS, "--calls", empty) == (0, "", "")
    code, _out, err = run("diff", *ROOTS, "--no-generated", "--calls", empty)
    assert code == 0 and err == ""


def test_stdin_calls_name_stdin_in_per_line_errors() -> None:
    for command in (["probe", *ROOTS, "--calls", "-"],
                    ["diff", *ROOTS, "--no-generated", "--calls", "-"]):
        out, err = io.StringIO(), io.StringIO()
        code = main(command, out=out, err=err, stdin=io.StringIO(GOOD + "\n{oops\n"))
        assert code == 2
        assert "error: <stdin>:2: not valid JSON" in err.getvalue(), err.getvalue()
