"""``probe --server server-filesystem``: each tool's own rules, through the command line.

The shared probe hands the call to the server (``Server.answer_call``), so ``probe``,
``--calls`` batches and ``--json``/``--csv`` give the answer the tool itself would: a
destination that exists refuses ``move_file`` after both checks pass, a refused path of
``read_multiple_files`` is an error line inside a successful result, ``directory_tree``
fails on the first directory it may not enter, ``search_files`` leaves refused entries
out without a word.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
from conftest import run_cli

FS = "server-filesystem"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    (root / "data" / "sub").mkdir(parents=True)
    (root / "data" / "a.txt").write_text("a", encoding="utf-8")
    (root / "data" / "b.txt").write_text("b", encoding="utf-8")
    (root / "outside").mkdir()
    (root / "outside" / "secret.txt").write_text("s", encoding="utf-8")
    os.symlink(root / "outside", root / "data" / "sub" / "out")
    return root


def probe(tree: Path, call: dict, *extra: object) -> tuple[int, dict, str]:
    code, out, err = run_cli("probe", "--server", FS, "--allowed-dir", tree / "data",
                             *extra, "--json", "--call", json.dumps(call))
    assert "Traceback" not in err
    (line,) = out.splitlines()
    return code, json.loads(line), err


def outside(tree: Path, path: str) -> str:
    return (f"Access denied - path outside allowed directories: {path} not in "
            f"{tree}/data")


# --- move_file -----------------------------------------------------------------------


def test_move_file_onto_an_existing_destination_is_refused_with_the_tools_words(
        tree: Path) -> None:
    call = {"name": "move_file", "arguments": {"source": f"{tree}/data/a.txt",
                                               "destination": f"{tree}/data/b.txt"}}
    code, v, _ = probe(tree, call)
    assert code == 1
    assert v["outcome"] == "refused"
    assert v["message"] == f"Destination already exists: {tree}/data/b.txt"
    # Both paths were checked and passed: the tool's own rule refuses it.
    assert [(p["argument"], p["allowed"]) for p in v["paths"]] == [
        ("source", True), ("destination", True)]
    # A directory there counts too (lstat, not "is it a file").
    call["arguments"]["destination"] = f"{tree}/data/sub"
    assert probe(tree, call)[1]["message"] == f"Destination already exists: {tree}/data/sub"


def test_move_file_onto_a_new_name_is_ok_and_2026_7_10_replaces(tree: Path) -> None:
    new = {"name": "move_file", "arguments": {"source": f"{tree}/data/a.txt",
                                              "destination": f"{tree}/data/c.txt"}}
    code, v, _ = probe(tree, new)
    assert code == 0 and v["outcome"] == "ok" and v["message"] == ""
    onto = {"name": "move_file", "arguments": {"source": f"{tree}/data/a.txt",
                                               "destination": f"{tree}/data/b.txt"}}
    code, v, _ = probe(tree, onto, "--server-version", "2026.7.10")
    assert code == 0 and v["outcome"] == "ok"  # the older release renames over it


def test_move_file_checks_the_source_first(tree: Path) -> None:
    call = {"name": "move_file", "arguments": {"source": f"{tree}/outside/secret.txt",
                                               "destination": f"{tree}/elsewhere"}}
    code, v, _ = probe(tree, call)
    assert code == 1 and v["outcome"] == "refused"
    assert v["message"] == outside(tree, f"{tree}/outside/secret.txt")
    assert [p["argument"] for p in v["paths"]] == ["source"]  # never reached
    call["arguments"] = {"source": f"{tree}/data/a.txt",
                         "destination": f"{tree}/outside/new.txt"}
    code, v, _ = probe(tree, call)
    assert v["message"] == outside(tree, f"{tree}/outside/new.txt")
    assert [(p["argument"], p["allowed"]) for p in v["paths"]] == [
        ("source", True), ("destination", False)]


def test_a_missing_path_argument_is_the_servers_input_error(tree: Path) -> None:
    code, v, err = probe(tree, {"name": "move_file",
                                "arguments": {"source": f"{tree}/data/a.txt"}})
    assert code == 1 and v["outcome"] == "error" and v["paths"] == []
    assert "destination is missing" in v["message"] and "destination is missing" in err
    code, v, _ = probe(tree, {"name": "read_text_file", "arguments": {"path": 7}})
    assert v["outcome"] == "error" and "path must be a string" in v["message"]


# --- read_multiple_files --------------------------------------------------------------


def test_read_multiple_files_puts_each_refusal_inside_a_successful_result(
        tree: Path) -> None:
    refused = [f"{tree}/outside/secret.txt", f"{tree}/data/sub/out/secret.txt"]
    call = {"name": "read_multiple_files",
            "arguments": {"paths": [f"{tree}/data/a.txt", *refused]}}
    code, v, _ = probe(tree, call)
    assert code == 1 and v["outcome"] == "partial"
    assert v["message"].split("\n") == [
        f"{refused[0]}: Error - {outside(tree, refused[0])}",
        f"{refused[1]}: Error - Access denied - symlink target outside allowed "
        f"directories: {tree}/outside/secret.txt not in {tree}/data",
    ]
    assert [(p["argument"], p["allowed"], p["step"]) for p in v["paths"]] == [
        ("paths[0]", True, None), ("paths[1]", False, "item_error"),
        ("paths[2]", False, "item_error")]
    # The text probe says the same, one line per error.
    code, out, _ = run_cli("probe", "--server", FS, "--allowed-dir", tree / "data",
                           "--call", json.dumps(call))
    assert f"in the result: {refused[0]}: Error - {outside(tree, refused[0])}" in out
    assert "PARTIAL" in out


def test_read_multiple_files_all_inside_is_ok(tree: Path) -> None:
    code, v, _ = probe(tree, {"name": "read_multiple_files", "arguments": {
        "paths": [f"{tree}/data/a.txt", f"{tree}/data/b.txt"]}})
    assert code == 0 and v["outcome"] == "ok" and v["message"] == ""


# --- directory_tree and search_files ---------------------------------------------------


def test_directory_tree_fails_on_the_first_directory_it_may_not_enter(tree: Path) -> None:
    # Started at a quote sibling the trim lets in, every directory below it is spelled
    # with the quote and refused: the whole call fails with that directory's message.
    (tree / "data'" / "inside").mkdir(parents=True)
    code, v, _ = probe(tree, {"name": "directory_tree", "arguments": {"path": f"{tree}/data'"}})
    assert code == 1 and v["outcome"] == "refused"
    assert v["message"] == outside(tree, f"{tree}/data'/inside")
    assert [(p["path"], p["allowed"], p["kind"]) for p in v["paths"]] == [
        (f"{tree}/data'", True, "path"), (f"{tree}/data'/inside", False, "entry")]
    # A symlinked directory is not entered (its entry type is a link): the tree is fine.
    code, v, _ = probe(tree, {"name": "directory_tree", "arguments": {"path": f"{tree}/data"}})
    assert code == 0 and v["outcome"] == "ok"
    assert {p["path"] for p in v["paths"]} == {f"{tree}/data", f"{tree}/data/sub"}


def test_search_files_leaves_refused_entries_out_without_a_word(tree: Path) -> None:
    code, v, _ = probe(tree, {"name": "search_files",
                              "arguments": {"path": f"{tree}/data", "pattern": "*"}})
    assert code == 0 and v["outcome"] == "ok" and v["message"] == ""
    refused = [(p["path"], p["step"]) for p in v["paths"] if not p["allowed"]]
    assert refused == [(f"{tree}/data/sub/out", "skipped")]
    # Every entry below the start was checked (and the link's target never walked).
    checked = {p["path"] for p in v["paths"]}
    assert {f"{tree}/data/a.txt", f"{tree}/data/b.txt", f"{tree}/data/sub"} <= checked
    assert not any("secret" in p for p in checked)
    assert any("left out of the results without a word" in n for n in v["notes"])
    code, out, _ = run_cli("probe", "--server", FS, "--allowed-dir", tree / "data", "--call",
                           json.dumps({"name": "search_files",
                                       "arguments": {"path": f"{tree}/data", "pattern": "*"}}))
    assert code == 0 and f"{tree}/data/sub/out  [symlink-outside] (skipped)" in out


def test_walk_limit_stops_a_walk_and_says_so(tree: Path) -> None:
    code, v, _ = probe(tree, {"name": "search_files", "arguments": {
        "path": f"{tree}/data", "pattern": "*"}}, "--walk-limit", "2")
    assert code == 0 and len(v["paths"]) == 2
    assert any("walk stopped after 2 checks" in n for n in v["notes"])


# --- single-path tools, batches, CSV ----------------------------------------------------


def test_single_path_tools_fail_with_their_paths_refusal(tree: Path) -> None:
    for name, op in (("read_text_file", "read"), ("write_file", "write"),
                     ("get_file_info", "read"), ("create_directory", "write")):
        args = {"path": f"{tree}/outside/secret.txt"}
        if name == "write_file":
            args["content"] = "x"
        code, v, _ = probe(tree, {"name": name, "arguments": args})
        assert (code, v["outcome"]) == (1, "refused"), name
        assert v["message"] == outside(tree, f"{tree}/outside/secret.txt")
        assert [p["op"] for p in v["paths"]] == [op]
    # The escape: a quote sibling passes the check, and the tool acts on it as given.
    code, v, _ = probe(tree, {"name": "write_file",
                              "arguments": {"path": f"{tree}/data'", "content": "x"}})
    assert code == 0 and v["paths"][0]["resolved"] == f"{tree}/data'"


def test_a_calls_batch_and_csv_give_each_tools_answer(tree: Path) -> None:
    calls = [
        {"name": "move_file", "arguments": {"source": f"{tree}/data/a.txt",
                                            "destination": f"{tree}/data/b.txt"}},
        {"name": "read_multiple_files",
         "arguments": {"paths": [f"{tree}/data/a.txt", f"{tree}/outside/secret.txt"]}},
        {"name": "search_files", "arguments": {"path": f"{tree}/data", "pattern": "*"}},
        {"name": "list_allowed_directories", "arguments": {}},
    ]
    text = "\n".join(json.dumps(c) for c in calls) + "\n"
    code, out, err = run_cli("probe", "--server", FS, "--allowed-dir", tree / "data",
                             "--calls", "-", "--json", stdin=text)
    assert code == 1, err
    got = [json.loads(line) for line in out.splitlines()]
    assert [(v["name"], v["outcome"]) for v in got] == [
        ("move_file", "refused"), ("read_multiple_files", "partial"),
        ("search_files", "ok"), ("list_allowed_directories", "ok")]
    assert got[0]["message"] == f"Destination already exists: {tree}/data/b.txt"
    code, out, _ = run_cli("probe", "--server", FS, "--allowed-dir", tree / "data",
                           "--calls", "-", "--csv", stdin=text)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {(r["name"], r["outcome"]) for r in rows} >= {
        ("move_file", "refused"), ("read_multiple_files", "partial")}
    skipped = [r for r in rows if r["step"] == "skipped"]
    assert [r["path"] for r in skipped] == [f"{tree}/data/sub/out"]
