"""The verdict records and the one verdict table (localfs_explorer.probe.records): every
output of probed calls and checked paths has the same columns, built by the same row
builder, and shows a NUL byte in a path the same way."""

from __future__ import annotations

import csv
import io
import json

import pytest
from conftest import Layout
from probe_support import probe_call

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.cli.main import main
from localfs_explorer.fs.spec import load_fs
from localfs_explorer.paths import show_nul
from localfs_explorer.probe import (
    CALL_COLUMNS,
    COLUMNS,
    PATH_COLUMNS,
    PathVerdict,
    decision_row,
    iter_call_verdicts,
    verdict_rows,
)
from localfs_explorer.review.report import BATCH_COLUMNS, batch_report, to_csv, to_html, to_json

NUL_PATH = "/data/a\0b.txt"
CALLS = [
    {"name": "upload_local_file",
     "arguments": {"local_path": "/data/notes.txt", "parent_folder_id": "F"}},
    {"name": "upload_local_file", "arguments": {"local_path": NUL_PATH, "parent_folder_id": "F"}},
    {"name": "get_message", "arguments": {"message_id": "M"}},  # no local path: one row
]
ROOTS = ["--fs", "traps", "--cwd", "/app", "--package-dir", "/app",
         "--set", "LOCAL_FILE_ACCESS=roots", "--set", "LOCAL_FILE_ROOTS=/data"]


@pytest.fixture
def policy():
    env = load_env(None, overrides={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/data"})
    return resolve_policy(env, fs=load_fs("traps"), cwd="/app", package_dir="/app")


@pytest.fixture
def verdicts(policy):
    return list(iter_call_verdicts(policy, CALLS))


def test_the_schema_is_the_call_then_the_path_fields(verdicts) -> None:
    assert (*CALL_COLUMNS, *PATH_COLUMNS, "notes") == COLUMNS
    assert len(set(COLUMNS)) == len(COLUMNS)
    # Each path field of the record has its column (its message is ``path_message``).
    fields = [f if f != "message" else "path_message" for f in PathVerdict.__dataclass_fields__]
    assert fields == list(PATH_COLUMNS)
    rows = [row for v in verdicts for row in verdict_rows(v)]
    assert len(rows) == 3 and all(tuple(row) == COLUMNS for row in rows)


def test_a_checked_path_is_a_row_of_the_same_table(policy) -> None:
    row = decision_row(policy.check(NUL_PATH, "read"))
    assert tuple(row) == COLUMNS
    assert row["path"] == NUL_PATH and row["kind"] == "check" and row["allowed"] is False


def test_every_output_has_the_same_columns(policy, verdicts, tmp_path) -> None:
    pytest.importorskip("pandas")
    from localfs_explorer import probe_calls
    from localfs_explorer.ui.model import ExplorerModel

    frame = probe_calls(policy, CALLS)
    assert tuple(frame.columns) == COLUMNS

    report = batch_report(policy, verdicts, [policy.check(NUL_PATH, "read")])
    assert BATCH_COLUMNS == COLUMNS and tuple(report.columns) == COLUMNS
    assert next(csv.reader(io.StringIO(to_csv(report)))) == list(COLUMNS)
    assert tuple(json.loads(to_json(report))["columns"]) == COLUMNS
    html = to_html(report)
    assert all(f">{c}<" in html for c in COLUMNS)

    calls = tmp_path / "calls.jsonl"
    calls.write_text("\n".join(json.dumps(c) for c in CALLS) + "\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["probe", *ROOTS, "--calls", str(calls), "--csv"], out=out, err=err) == 1
    cli_rows = list(csv.reader(io.StringIO(out.getvalue())))
    assert cli_rows[0] == list(COLUMNS)

    from_file = list(iter_call_verdicts(policy, calls))
    model = ExplorerModel()
    model.batch_verdicts = from_file
    download = list(csv.reader(io.StringIO(model.batch_csv().decode())))
    # The dashboard's download is the command line's CSV, cell for cell.
    assert download == cli_rows
    # ... and the report's CSV rows for the same calls.
    report_rows = list(csv.reader(io.StringIO(to_csv(batch_report(policy, from_file)))))
    assert report_rows == cli_rows


def test_a_nul_in_a_path_shows_as_backslash_zero_everywhere(policy, verdicts) -> None:
    pytest.importorskip("pandas")
    from localfs_explorer.ui.grid import paths_frame

    shown = show_nul(NUL_PATH)
    assert shown == "/data/a\\0b.txt"
    report = batch_report(policy, verdicts, [policy.check(NUL_PATH, "read")])
    csv_paths = {r["path"] for r in csv.DictReader(io.StringIO(to_csv(report)))}
    assert shown in csv_paths and not any("\0" in p for p in csv_paths)
    assert shown in to_html(report) and "\0" not in to_html(report)
    assert paths_frame([policy.check(NUL_PATH, "read")])["path"].tolist() == [shown]
    # The data itself keeps the NUL: only what shows it escapes it.
    assert any(row["path"] == NUL_PATH for v in verdicts for row in verdict_rows(v))



def test_verdicts_are_plain_frozen_records(layout: Layout) -> None:
    import dataclasses

    from localfs_explorer.probe import CallVerdict, PathVerdict

    policy = layout.roots()
    v = probe_call(policy, "send_message", {"attachments": [
        {"local_path": str(layout.data / "report.csv")},
        {"local_path": str(layout.app / "token.json")},
    ]})
    assert v.outcome == "refused" and len(v.paths) == 2
    for p in v.paths:
        again = PathVerdict(**p.to_json_dict())
        assert p == again and hash(p) == hash(again)
        assert not hasattr(p, "__dict__")  # slotted: cheap to build one per path
    assert v == CallVerdict(**{f.name: getattr(v, f.name) for f in dataclasses.fields(v)})
    assert dataclasses.replace(v, index=4).index == 4 and v.index is None
    with pytest.raises(AttributeError):
        v.paths[0].colour = "red"  # type: ignore[attr-defined]  # slotted: no new fields
