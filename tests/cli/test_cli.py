"""The check and validate commands: output shapes, exit codes, and secrets kept out."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import run_cli as run

CANARY = "canary-secret-91c2"


@pytest.fixture
def envfile(layout):
    path = layout.app / ".env"
    path.write_text(
        f"CREDENTIALS_CONFIG={CANARY}\nLOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={layout.data}\n"
        f"HOME={layout.home}\n"
    )
    return path


def test_check_exit_codes_and_json(layout, envfile):
    inside, outside = str(layout.data / "report.csv"), str(layout.outside / "other.txt")
    code, out, _ = run("check", "--env", str(envfile), "--cwd", str(layout.app), "--json",
                       inside)
    assert code == 0
    assert json.loads(out)["allowed"] is True
    code, out, _ = run("check", "--env", str(envfile), "--cwd", str(layout.app), "--json",
                       inside, outside)
    assert code == 1
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["allowed"] for r in rows] == [True, False]
    assert set(rows[1]) == {"path", "op", "allowed", "reason", "message", "resolved", "trace",
                            "hint"}
    assert rows[1]["message"] == (f"{outside} is outside this server's LOCAL_FILE_ROOTS. "
                                  f"Allowed directories: {layout.data}")


def test_package_dir_defaults_to_the_env_files_directory(layout, envfile):
    code, out, _ = run("check", "--env", str(envfile), "--cwd", str(layout.outside),
                       "--set", "LOCAL_FILE_ACCESS=full", "--json", str(envfile))
    assert code == 1 and json.loads(out)["reason"] == "denied"


def test_human_output_shows_message_and_hint(layout, envfile):
    code, out, _ = run("check", "--env", str(envfile), str(layout.outside / "other.txt"))
    assert code == 1
    assert "REFUSED" in out and "outside_roots" in out and "hint:" in out


def test_paths_file_carries_any_path(layout, envfile, tmp_path):
    paths = tmp_path / "paths.jsonl"
    paths.write_text(json.dumps(str(layout.data / "a\0b")) + "\n\n"
                     + json.dumps(str(layout.data / "report.csv")) + "\n")
    code, out, _ = run("check", "--env", str(envfile), "--json", "--paths-file", str(paths))
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert rows[0]["reason"] == "invalid" and rows[0]["path"].endswith("a\0b")
    assert rows[1]["allowed"]


def test_malformed_paths_file_is_a_usage_error(layout, envfile, tmp_path):
    paths = tmp_path / "paths.jsonl"
    paths.write_text('"/ok"\n/not-json\n')
    code, _, err = run("check", "--env", str(envfile), "--paths-file", str(paths))
    assert code == 2 and f"{paths}:2:" in err


@pytest.mark.parametrize("argv", [
    ["check"],
    ["check", "--env", "/nonexistent/.env", "/x"],
    ["check", "--transport", "carrier-pigeon", "/x"],
    ["check", "--set", "NOEQUALS", "/x"],
    [],
])
def test_usage_errors_exit_2(argv, capsys):
    code, _, _ = run(*argv)
    assert code == 2


def test_over_http_defaults_and_the_tripwire_case(layout):
    path = str(layout.data / "report.csv")
    assert run("check", "--cwd", str(layout.app), path)[0] == 0
    code, out, _ = run("check", "--transport", "stdio", "--over-http", "--json", path)
    assert code == 1 and json.loads(out)["reason"] == "tripwire"
    code, out, _ = run("check", "--transport", "sse", "--set", "LOCAL_FILE_ACCESS=full",
                       "--json", path)
    assert code == 0
    code, out, _ = run("check", "--transport", "sse", "--json", path)
    assert json.loads(out)["reason"] == "off"


def test_check_with_an_invalid_configuration_exits_2(layout):
    code, out, err = run("check", "--set", "LOCAL_FILE_ACCESS=roots", "--json", "/x")
    assert code == 2
    assert json.loads(out)["reason"] == "off"
    assert "would refuse to serve" in err


def test_validate_json_and_exit_codes(layout, envfile):
    code, out, _ = run("validate", "--env", str(envfile), "--json")
    summary = json.loads(out)
    assert code == 0
    assert summary["mode"] == "roots" and summary["explicit"] is True
    assert summary["roots"][0]["configured"] == str(layout.data)
    assert {"setting", "path", "exists"} <= set(summary["deny_list"][0])
    code, out, _ = run("validate", "--env", str(envfile), "--set",
                       f"LOCAL_FILE_ROOTS={layout.base}/gone", "--json")
    assert code == 2
    assert json.loads(out)["errors"] == [f"LOCAL_FILE_ROOTS entry '{layout.base}/gone' isn't "
                                         "an existing directory"]


def test_validate_warns_about_ignored_roots(layout):
    code, out, _ = run("validate", "--set", "LOCAL_FILE_ROOTS=/srv")
    assert code == 0 and "LOCAL_FILE_ROOTS is set but ignored" in out


@pytest.mark.parametrize("argv", [
    ["validate"], ["validate", "--json"], ["check", "/x"], ["check", "--json", "/x"],
])
def test_secrets_never_printed(envfile, argv):
    _, out, err = run(*argv, "--env", str(envfile))
    assert CANARY not in out and CANARY not in err


@pytest.mark.slow
def test_module_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "localfs_explorer", "validate", "--json"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["mode"] == "full"


def test_validate_names_the_server_release_the_engine_reproduces(layout):
    from localfs_explorer.servers.gee_sweet.profile import load_profile

    code, out, _ = run("validate")
    assert code == 0
    version = load_profile().server_version
    assert version and out.splitlines()[0] == f"server: mcp-gee-sweet {version}"
