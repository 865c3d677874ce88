"""``exposure --server server-filesystem``: what its allowed directories expose.

Each allowed directory in force is walked (once, whichever spelling allows it; the roots
instead when they replace the command line), every entry checked by the server's own
``validatePath`` for read and write, and the shared rules name what is reachable:
credentials to read, start-up files to write (missing ones a write could create), plus
the server's own findings (the quote and whitespace siblings a 2026.8.31 write could
create, a directory allowed through a symlink, roots replacing argv).
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
from conftest import run_cli

from localfs_explorer.config import ServerConfig, resolve_config
from localfs_explorer.exposure import default_scope, exposure

FS = "server-filesystem"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("key", encoding="utf-8")
    (home / ".bashrc").write_text("# rc", encoding="utf-8")
    (home / "notes.txt").write_text("n", encoding="utf-8")
    (root / "data" / "sub").mkdir(parents=True)
    (root / "data" / "report.csv").write_text("a,b", encoding="utf-8")
    (root / "data" / "sub" / "server.pem").write_text("pem", encoding="utf-8")
    (root / "outside").mkdir()
    (root / "outside" / "id_rsa").write_text("not reachable", encoding="utf-8")
    # A link to a credential outside: refused, so not reachable and not reported.
    os.symlink(root / "outside" / "id_rsa", root / "data" / "link_out")
    # A link to a file inside: the same file again (counted once).
    os.symlink(root / "data" / "report.csv", root / "data" / "again.csv")
    return root


def findings(tree: Path, *argv: object, code: int | None = None) -> list[dict]:
    got, out, err = run_cli("exposure", "--server", FS, "--home", tree / "home", *argv,
                            "--json")
    assert "Traceback" not in err
    if code is not None:
        assert got == code, err
    return [json.loads(line) for line in out.splitlines()]


def by_kind(found: list[dict], kind: str) -> list[dict]:
    return [f for f in found if f["kind"] == kind]


def test_an_allowed_home_exposes_its_credentials_and_start_up_files(tree: Path) -> None:
    home = tree / "home"
    found = findings(tree, "--allowed-dir", home, code=1)
    credentials = by_kind(found, "credential")
    assert [(f["path"], f["op"], f["severity"]) for f in credentials] == [
        (f"{home}/.ssh/id_ed25519", "read", "high")]
    executed = {f["path"]: f for f in by_kind(found, "executed")}
    assert executed[f"{home}/.bashrc"]["severity"] == "critical"
    assert "could create" not in executed[f"{home}/.bashrc"]["why"]  # it exists
    # A missing start-up file a write could create is just as bad.
    assert "a tool could create it" in executed[f"{home}/.profile"]["why"]
    assert all(f["op"] == "write" for f in executed.values())
    # The fix names the allowed directory that lets it in.
    assert str(home) in executed[f"{home}/.bashrc"]["fix"]
    # Counts: three files, all readable and writable.
    counts = {f["op"]: f["why"] for f in by_kind(found, "counts")}
    assert counts["read"].startswith("3 files tools can read")
    assert counts["write"].startswith("3 files tools can overwrite")


def test_a_data_directory_exposes_only_what_is_inside_it(tree: Path) -> None:
    found = findings(tree, "--allowed-dir", tree / "data", code=1)
    assert [f["path"] for f in by_kind(found, "credential")] == [
        f"{tree}/data/sub/server.pem"]
    assert by_kind(found, "executed") == []  # the home is not allowed
    assert not any("outside" in (f["path"] + str(f["resolved"])) for f in found)
    # report.csv and its link are one file; server.pem the other.
    counts = {f["op"]: f["why"] for f in by_kind(found, "counts")}
    assert counts["read"].startswith("2 files tools can read")


def test_the_servers_trim_siblings_are_findings_per_release(tree: Path) -> None:
    data = tree / "data"
    found = findings(tree, "--allowed-dir", data)
    (sibling,) = by_kind(found, "trim-sibling")
    assert sibling["severity"] == "high" and sibling["op"] == "write"
    assert sibling["path"] == f"{data}'" and "can create" in sibling["why"]
    # An existing sibling is readable and replaceable.
    (tree / "data ").write_text("beside", encoding="utf-8")
    found = findings(tree, "--allowed-dir", data)
    existing = [f for f in by_kind(found, "trim-sibling") if f["op"] == "read_write"]
    assert [f["path"] for f in existing] == [f"{data} "]
    # 2.0.1 checks the path as given: no sibling gets through.
    found = findings(tree, "--allowed-dir", data, "--server-version", "2.0.1")
    assert by_kind(found, "trim-sibling") == []


def test_a_directory_allowed_through_a_symlink_is_walked_once(tree: Path) -> None:
    os.symlink(tree / "data", tree / "via")
    code, out, _ = run_cli("exposure", "--server", FS, "--home", tree / "home",
                           "--allowed-dir", tree / "via", "--fail-on", "none")
    assert code == 0
    assert f"walked 5 entries in 2 directories under {tree}/data\n" in out
    found = findings(tree, "--allowed-dir", tree / "via")
    (link,) = by_kind(found, "symlinked-directory")
    assert link["severity"] == "medium" and link["path"] == f"{tree}/via"
    assert len(by_kind(found, "counts")) == 2  # one directory, read and write


def test_roots_replace_the_command_line_directories(tree: Path) -> None:
    found = findings(tree, "--allowed-dir", tree / "home", "--root",
                     (tree / "data").as_uri())
    assert {f["root"] for f in by_kind(found, "counts")} == {f"{tree}/data"}
    assert by_kind(found, "executed") == []  # the home is no longer allowed
    (replaced,) = by_kind(found, "roots-replace-argv")
    assert replaced["severity"] == "high"


def test_fail_on_csv_scope_and_limits(tree: Path) -> None:
    base = ("exposure", "--server", FS, "--home", tree / "home", "--allowed-dir",
            tree / "data")
    assert run_cli(*base, "--fail-on", "none")[0] == 0
    assert run_cli(*base, "--fail-on", "critical")[0] == 0  # nothing critical here
    code, out, _ = run_cli(*base, "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 1 and {"credential", "trim-sibling", "counts"} <= {r["kind"] for r in rows}
    # A scope outside the allowed directories is walked, and nothing there is reachable.
    found = findings(tree, "--allowed-dir", tree / "data", "--scope", tree / "outside")
    outside = [f for f in by_kind(found, "counts") if f["root"] == f"{tree}/outside"]
    assert [f["why"] for f in outside] == ["0 files tools can read (0 B)",
                                           "0 files tools can overwrite (0 B)"]
    code, _, err = run_cli(*base, "--max-entries", "2")
    assert "stopped after 2 entries" in err
    code, _, err = run_cli(*base, "--scope", tree / "nowhere")
    assert code == 2 and "is not a directory" in err and "Traceback" not in err


def test_the_python_api_walks_the_allowed_directories(tree: Path) -> None:
    policy = resolve_config(ServerConfig(
        server=FS, server_options={"directories": [str(tree / "data")],
                                   "home": str(tree / "home")})).policy
    assert default_scope(policy) == [f"{tree}/data"]
    inv = exposure(policy, keep_paths=True)
    assert inv.mode == "allowed-directories" and inv.walked == [f"{tree}/data"]
    assert f"{tree}/data/report.csv" in inv.readable
    assert f"{tree}/outside/id_rsa" not in inv.readable


def test_exposure_report_for_the_filesystem_server(tree: Path) -> None:
    out = tree / "exposure.json"
    code, _, err = run_cli("exposure", "--server", FS, "--home", tree / "home",
                           "--allowed-dir", tree / "data", "--report", out,
                           "--fail-on", "none")
    assert code == 0, err
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["kind"] == "exposure"
    (configuration,) = report["configurations"]
    assert configuration["values"]["allowed directories"] == [f"{tree}/data"]
    assert "trim-sibling" in {r["kind"] for r in report["rows"]}


def test_a_hardlink_of_a_home_credential_is_one_wherever_it_sits(tree: Path) -> None:
    os.link(tree / "home" / ".ssh" / "id_ed25519", tree / "data" / "copy.bin")
    found = findings(tree, "--allowed-dir", tree / "data", code=1)
    (alias,) = by_kind(found, "credential-alias")
    assert alias["path"] == f"{tree}/data/copy.bin" and alias["severity"] == "high"
    assert f"{tree}/home/.ssh/id_ed25519" in alias["why"]


def test_a_server_that_would_not_start_exits_2(tree: Path) -> None:
    code, out, err = run_cli("exposure", "--server", FS, "--allowed-dir", tree / "nowhere")
    assert code == 2 and "None of the specified directories are accessible" in err
    assert "walked 0 entries" in out and "Traceback" not in err
