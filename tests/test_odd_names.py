"""File names that aren't UTF-8, line breaks in names, and a reader that goes away.

A name read from disk as bytes comes back from ``os.fsdecode`` with lone surrogates
(``b"\\xff"`` is ``"\\udcff"``), which no UTF-8 stream can carry: every output shows
them as the ``\\uXXXX`` escape (inside JSON, the escape that reads back as the same
name), and the verdict is the one the server gives that name.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import run_cli

ODD = os.fsdecode(b"caf\xe9-\xff")  # latin-1 bytes: "caf\udce9-\udcff"


def _roots(tmp_path) -> list[str]:
    (tmp_path / "data").mkdir(exist_ok=True)
    return ["--set", "LOCAL_FILE_ACCESS=roots", "--set", f"LOCAL_FILE_ROOTS={tmp_path}/data"]


def _utf8(text: str) -> str:
    text.encode("utf-8")  # strict: a lone surrogate raises here, as on a UTF-8 stdout
    return text


def test_check_json_escapes_the_name_and_reads_back_to_it(tmp_path) -> None:
    inside, outside = f"{tmp_path}/data/{ODD}", f"{tmp_path}/{ODD}"
    code, out, err = run_cli("check", *_roots(tmp_path), inside, outside, "--json")
    rows = [json.loads(line) for line in _utf8(out).splitlines()]
    assert "\\udcff" in out and err == ""
    assert [(r["path"], r["allowed"]) for r in rows] == [(inside, True), (outside, False)]
    assert rows[1]["reason"] == "outside_roots" and code == 1


def test_check_text_shows_the_escape(tmp_path) -> None:
    code, out, _ = run_cli("check", *_roots(tmp_path), f"{tmp_path}/data/{ODD}")
    assert code == 0 and "caf\\udce9-\\udcff" in _utf8(out)


def test_diff_text_output_carries_the_escape(tmp_path) -> None:
    code, out, err = run_cli("diff", *[a.replace("--set", "--before-set") for a in
                                       _roots(tmp_path)],
                             "--after-set", "LOCAL_FILE_ACCESS=full", "--no-generated",
                             "--path", f"{tmp_path}/{ODD}")
    assert code == 1, err
    assert "\\udcff" in _utf8(out) + _utf8(err)


@pytest.mark.parametrize("suffix", ["csv", "html", "json"])
def test_report_files_carry_the_escape(tmp_path, suffix) -> None:
    report = tmp_path / f"r.{suffix}"
    code, _, err = run_cli("report", *_roots(tmp_path), "--path", f"{tmp_path}/data/{ODD}",
                           "-o", report)
    assert code in (0, 1), err
    text = report.read_bytes().decode("utf-8")  # strict
    assert "udcff" in text


def test_the_page_shows_the_escape() -> None:
    from localfs_explorer.render import esc

    assert esc(f"/data/{ODD}") == "/data/caf\\udce9-\\udcff"


def test_error_messages_stay_on_one_line_whatever_the_file_name(tmp_path) -> None:
    name = tmp_path / "a\nlocalfs-explorer check: forged\n.env"
    code, out, err = run_cli("check", "--env", name, "/tmp/x")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "a\\nlocalfs-explorer check: forged\\n.env" in err


def test_calls_file_errors_stay_on_one_line(tmp_path) -> None:
    calls = tmp_path / "bad\nname.jsonl"
    calls.write_text("not json\n")
    code, _, err = run_cli("probe", *_roots(tmp_path), "--calls", calls)
    assert code == 2
    assert [line for line in err.splitlines() if line.startswith("error:")] == [
        line for line in err.splitlines() if "name.jsonl" in line]
    assert "bad\\nname.jsonl:1:" in err


@pytest.mark.slow
def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path) -> None:
    paths = [f"{tmp_path}/data/p{i}" for i in range(20_000)]
    (tmp_path / "data").mkdir()
    listing = tmp_path / "paths.jsonl"
    listing.write_text("".join(json.dumps(p) + "\n" for p in paths))
    command = [sys.executable, "-m", "localfs_explorer", "check", *_roots(tmp_path)[:2],
               "--set", f"LOCAL_FILE_ROOTS={tmp_path}/data", "--paths-file", str(listing)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # what `| head -1` does after its line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert first.startswith(b"ALLOWED") and err == ""
