"""Many calls: DataFrames, calls files, numbering (localfs_explorer.probe.batch)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Layout
from probe_support import probe_call

from localfs_explorer.probe import (
    COLUMNS,
    ProbeError,
    iter_call_verdicts,
    probe_calls,
)

# --- many calls ---------------------------------------------------------------------------------


def test_probe_calls_one_row_per_path(layout: Layout) -> None:
    pytest.importorskip("pandas")
    policy = layout.roots()
    calls = [
        {"name": "export_file", "arguments": {"file_id": "F", "export_format": "pdf"}},
        {"name": "send_message", "arguments": {
            "to": "a@example.com", "subject": "S", "body": "B", "attachments": [
            {"local_path": str(layout.data / "report.csv")},
            {"local_path": str(layout.outside / "other.txt")},
        ]}},
        {"jsonrpc": "2.0", "method": "tools/call",
         "params": {"name": "download_file",
                    "arguments": {"file_id": "F", "local_path": str(layout.data / "x")}}},
        "not a call",
    ]
    df = probe_calls(policy, calls)
    assert list(df.columns) == list(COLUMNS)
    assert df.groupby("call").size().to_dict() == {0: 1, 1: 2, 2: 1, 3: 1}
    assert df.loc[df.call == 0, "path"].isna().all()
    outcomes = df.drop_duplicates("call").set_index("call")["outcome"].to_dict()
    assert outcomes == {0: "ok", 1: "refused", 2: "ok", 3: "error"}
    row = df[(df.call == 1) & (df.allowed == False)].iloc[0]  # noqa: E712
    assert row.reason == "outside_roots" and row.path_message == row.message


def test_jsonl_with_a_malformed_line(layout: Layout, tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    lines = [
        json.dumps({"name": "get_message", "arguments": {"message_id": "M"}}),
        "{not json",
        "",
        json.dumps({"name": "download_file", "arguments": "oops"}),
        json.dumps({"name": "sync_folder",
                    "arguments": {"folder_id": "F", "local_path": str(layout.data),
                                  "direction": "download"},
                    "drive_names": ["a.txt"]}),
    ]
    calls = tmp_path / "calls.jsonl"
    calls.write_bytes(("\n".join(lines) + "\n").encode() + b"\xff\xfe{}\n")
    df = probe_calls(layout.roots(), calls)
    first = df.drop_duplicates("call").set_index("line")
    assert first.loc[1, "outcome"] == "ok"
    assert first.loc[2, "outcome"] == "error"
    assert first.loc[2, "message"].startswith(f"{calls}:2: not valid JSON")
    assert first.loc[4, "outcome"] == "error"
    assert first.loc[4, "message"] == f"{calls}:4: download_file: 'arguments' must be an object"
    assert first.loc[5, "outcome"] == "ok"
    assert first.loc[6, "message"] == f"{calls}:6: not UTF-8 text"
    sync_rows = df[df.line == 5]
    assert str(layout.data / "a.txt") in set(sync_rows.path)


def test_iter_call_verdicts_and_json_shape(layout: Layout) -> None:
    verdicts = list(iter_call_verdicts(layout.roots(), [
        {"name": "download_file",
         "arguments": {"file_id": "F", "local_path": str(layout.outside / "x")}},
    ]))
    data = verdicts[0].to_json_dict()
    assert {"name", "registered", "visible", "gate", "outcome", "message", "paths"} <= set(data)
    assert data["index"] == 0 and data["outcome"] == "refused"
    assert {"argument", "path", "resolved", "op", "tier", "allowed", "reason",
            "message"} <= set(data["paths"][0])
    json.dumps(data)  # JSON-ready


def test_an_unreadable_calls_file_is_a_clear_error(layout: Layout, tmp_path: Path) -> None:
    with pytest.raises(ProbeError, match=r"missing\.jsonl: can.t be read"):
        list(iter_call_verdicts(layout.roots(), tmp_path / "missing.jsonl"))


def test_batches_number_their_calls(layout: Layout, tmp_path: Path) -> None:
    calls = tmp_path / "calls.jsonl"
    calls.write_text("\n".join([
        json.dumps({"name": "export_file",
                    "arguments": {"file_id": "F", "export_format": "pdf"}}),
        "",
        json.dumps({"name": "download_file",
                    "arguments": {"file_id": "F", "local_path": str(layout.outside / "x")}}),
    ]) + "\n")
    got = [(v.index, v.line, v.outcome) for v in iter_call_verdicts(layout.roots(), calls)]
    assert got == [(0, 1, "ok"), (1, 3, "refused")]
    single = probe_call(layout.roots(), "export_file", {"file_id": "F"})
    assert single.index is None and single.line is None
