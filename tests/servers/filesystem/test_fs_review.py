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
