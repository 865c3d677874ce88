"""Reports: self-contained HTML, CSV and JSON, with every secret masked."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.fs.spec import load_fs
from localfs_explorer.probe import iter_call_verdicts
from localfs_explorer.review.diff import compare_policies
from localfs_explorer.review.report import (
    ReportError,
    batch_report,
    diff_report,
    scenario_report,
    to_csv,
    to_html,
    to_json,
    write_report,
)
from localfs_explorer.review.scenarios import run_scenarios
from localfs_explorer.secrets import MASK

CANARY = "canary-report-77f3"
REPO = Path(__file__).resolve().parents[2]

CALLS = [
    {"name": "upload_local_file",
     "arguments": {"local_path": "/data/notes.txt", "parent_folder_id": "F"}},
    {"name": "upload_local_file",
     "arguments": {"local_path": "/etc/passwd", "parent_folder_id": "F"}},
    {"name": "send_message", "arguments": {"to": "a@b.c", "subject": "S", "body": "B",
                                           "attachments": [{"local_path": "/app/token.json"}]}},
    {"name": "download_file",
     "arguments": {"file_id": "F", "local_path": f"/data/{CANARY}.bin"}},
    {"name": "export_file",
     "arguments": {"file_id": "<script>alert(1)</script>", "export_format": "pdf"}},
]


def policy(**settings: str):
    env = load_env(None, overrides={
        "LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/data",
        "TOKEN_PATH": "/app/token.json", "CREDENTIALS_CONFIG": CANARY,
        "SLACK_API_KEY": CANARY + "-2", **settings,
    })
    return resolve_policy(env, fs=load_fs("traps"), cwd="/app", package_dir="/app")


def assert_self_contained(page: str) -> None:
    """No way for the page to fetch anything: no scripts, links, sources, URLs or imports."""
    lowered = page.lower()
    for needle in ("<script", "<link", "src=", "href=", "@import", "url(", "http:", "https:",
                   "<iframe", "<img", "<object"):
        assert needle not in lowered, f"the report would load {needle!r}"


def all_outputs(report) -> dict[str, str]:
    return {"html": to_html(report), "csv": to_csv(report), "json": to_json(report)}


def test_batch_report_from_verdicts_masks_the_canary_everywhere() -> None:
    p = policy()
    verdicts = list(iter_call_verdicts(p, CALLS))
    report = batch_report(p, verdicts, [p.check_read("/data-evil/loot.txt"),
                                        p.check_read("/data/<i>odd</i>.txt")])
    for fmt, text in all_outputs(report).items():
        assert CANARY not in text, f"the secret leaked into the {fmt} report"
    page = to_html(report)
    assert_self_contained(page)
    assert MASK in page and "CREDENTIALS_CONFIG" in page and "SLACK_API_KEY" in page
    # A masked path still names its place in the table.
    assert f"/data/{MASK}.bin" in page
    # A path is text, never markup.
    assert "/data/&lt;i&gt;odd&lt;/i&gt;.txt" in page and "<i>odd" not in page


def test_batch_report_counts_by_reason_and_tool_as_svg_bars() -> None:
    p = policy()
    report = batch_report(p, list(iter_call_verdicts(p, CALLS)))
    charts = {c.title: c.counts for c in report.charts}
    assert charts["Calls by tool"] == {"upload_local_file": 2, "send_message": 1,
                                       "download_file": 1, "export_file": 1}
    assert charts["Verdicts by reason"] == {"allowed": 2, "outside_roots": 2}
    page = to_html(report)
    assert page.count("<svg") == 3
    bars = re.findall(r"<title>(upload_local_file|send_message): (\d+)</title>", page)
    assert ("upload_local_file", "2") in bars and ("send_message", "1") in bars


def test_batch_report_accepts_the_probe_calls_dataframe() -> None:
    pytest.importorskip("pandas")
    from localfs_explorer.probe import probe_calls

    p = policy()
    frame = probe_calls(p, CALLS)
    from_frame = batch_report(p, frame)
    from_verdicts = batch_report(p, list(iter_call_verdicts(p, CALLS)))
    assert to_csv(from_frame) == to_csv(from_verdicts)


def test_csv_is_the_verdict_table() -> None:
    p = policy()
    report = batch_report(p, list(iter_call_verdicts(p, CALLS)))
    rows = list(csv.DictReader(io.StringIO(to_csv(report))))
    assert len(rows) == len(report.rows) == 5
    refused = [r for r in rows if r["allowed"] == "False"]
    assert [r["path"] for r in refused] == ["/etc/passwd", "/app/token.json"]
    assert refused[0]["path_message"].startswith("/etc/passwd is outside")


def test_json_holds_everything() -> None:
    p = policy()
    data = json.loads(to_json(batch_report(p, list(iter_call_verdicts(p, CALLS)))))
    assert data["kind"] == "batch" and data["generated_by"].startswith("localfs-explorer")
    settings = data["configurations"][0]["values"]["settings"]
    assert settings["CREDENTIALS_CONFIG"] == MASK
    assert settings["LOCAL_FILE_ROOTS"] == "/data"
    assert settings["TOKEN_PATH"] == "/app/token.json"  # a location, shown


def test_diff_report_shows_both_configurations_and_new_access() -> None:
    before, after = policy(), policy(LOCAL_FILE_ROOTS="/data:/srv/outside")
    result = compare_policies(before, after)
    report = diff_report(result, before, after)
    assert all(r["change"] != "unchanged" for r in report.rows)
    assert any(line.startswith("this change grants new access") for line in report.summary)
    page = to_html(report)
    assert_self_contained(page)
    assert CANARY not in page
    # One table with a column per side; the roots row is marked as changed.
    assert "<th>Before</th><th>After</th>" in page
    assert re.search(r'<tr class="changed_message"><th>roots</th>', page)
    with_unchanged = diff_report(result, before, after, include_unchanged=True)
    assert len(with_unchanged.rows) == len(result.changes) > len(report.rows)


def test_scenario_report_lists_cases_and_coverage(tmp_path: Path) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        '[config]\nhost = "traps"\n'
        f'settings = {{ LOCAL_FILE_ACCESS = "full", SESSION_SECRET = "{CANARY}" }}\n'
        '[[scenario]]\nname = "one good one bad"\n'
        '[[scenario.path]]\npath = "/data/notes.txt"\nallowed = true\n'
        '[[scenario.path]]\npath = "/app/token.json"\nallowed = true\n'
    )
    run = run_scenarios([scenario])
    report = scenario_report(run)
    assert [r["result"] for r in report.rows] == ["passed", "failed"]
    assert report.rows[1]["mismatches"] == "allowed: expected true, got false"
    assert report.summary[0] == "1 passed, 1 failed"
    assert any(s.startswith("not exercised:") for s in report.summary)
    for fmt, text in all_outputs(report).items():
        assert CANARY not in text, fmt
    assert_self_contained(to_html(report))


def test_the_spec_000_report_is_self_contained() -> None:
    report = scenario_report(run_scenarios([REPO / "scenarios" / "spec-000.toml"]))
    page = to_html(report)
    assert_self_contained(page)
    assert "<details>" in page  # one collapsed configuration per scenario


def test_write_report_picks_the_format_from_the_name(tmp_path: Path) -> None:
    p = policy()
    report = batch_report(p, list(iter_call_verdicts(p, CALLS)))
    written = {s: write_report(report, tmp_path / f"r{s}") for s in (".html", ".csv", ".json")}
    assert written[".html"].read_text().startswith("<!DOCTYPE html>")
    assert written[".csv"].read_text().startswith("call,line,name,")
    assert json.loads(written[".json"].read_text())["kind"] == "batch"
    for path in written.values():
        assert CANARY not in path.read_text()
    with pytest.raises(ReportError, match=r"end it in \.html, \.csv or \.json"):
        write_report(report, tmp_path / "r.pdf")
    with pytest.raises(ReportError, match="can't be written"):
        write_report(report, tmp_path / "missing-dir" / "r.html")
