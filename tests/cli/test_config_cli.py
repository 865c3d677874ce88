"""The export-env and auth-status commands, end to end through the CLI."""

from __future__ import annotations

import json

from conftest import run_cli as run

CANARY = "canary-secret-3b7d"


def test_export_env_dry_run_masks_and_writes_nothing(tmp_path, layout):
    env = tmp_path / "server.env"
    original = f"# deployment\nCREDENTIALS_CONFIG={CANARY}\r\nLOCAL_FILE_ACCESS=full\r\n"
    env.write_bytes(original.encode())
    code, out, err = run("export-env", "--env", str(env), "--dry-run",
                         "--set", "LOCAL_FILE_ACCESS=roots",
                         "--set", f"LOCAL_FILE_ROOTS={layout.data}")
    assert code == 0, err
    assert "+LOCAL_FILE_ACCESS=roots" in out and "-LOCAL_FILE_ACCESS=full" in out
    assert CANARY not in out + err
    assert env.read_bytes() == original.encode()


def test_export_env_writes_validated_file_keeping_other_lines(tmp_path, layout):
    env = tmp_path / "server.env"
    env.write_text(f"# keep me\nCREDENTIALS_CONFIG={CANARY}\n")
    dest = tmp_path / "out.env"
    code, out, err = run("export-env", "--env", str(env), "-o", str(dest),
                         "--set", "LOCAL_FILE_ACCESS=roots",
                         "--set", f"LOCAL_FILE_ROOTS={layout.data}")
    assert code == 0, err
    text = dest.read_text()
    assert text.startswith(f"# keep me\nCREDENTIALS_CONFIG={CANARY}\n")
    assert "LOCAL_FILE_ACCESS=roots" in text
    assert CANARY not in out + err


def test_export_env_refuses_a_configuration_the_server_would_not_serve(tmp_path):
    env = tmp_path / "server.env"
    env.write_text("LOCAL_FILE_ACCESS=full\n")
    dest = tmp_path / "out.env"
    code, _, err = run("export-env", "--env", str(env), "-o", str(dest),
                       "--set", "LOCAL_FILE_ACCESS=roots")
    assert code == 2
    assert "LOCAL_FILE_ROOTS" in err
    assert not dest.exists()


def test_export_env_needs_a_destination_mode(tmp_path):
    assert run("export-env", "--set", "A=1")[0] == 2


def test_auth_status_prints_the_object_at_top_level(layout):
    code, out, _ = run("auth-status", "--set", "LOCAL_FILE_ACCESS=roots",
                       "--set", f"LOCAL_FILE_ROOTS={layout.data}/", "--cwd", str(layout.app))
    assert code == 0
    obj = json.loads(out)["local_file_access"]
    assert obj == {"mode": "roots", "explicit": True, "roots": [f"{layout.data}/"],
                   "unregistered_tools": []}


def test_auth_status_off_lists_unregistered_tools_narrowed_by_enabled_tools(layout):
    code, out, _ = run("auth-status", "--transport", "sse",
                       "--set", "ENABLED_TOOLS=sync_folder,get_sheet_data,download_file")
    assert code == 0
    obj = json.loads(out)["local_file_access"]
    assert obj["mode"] == "off" and obj["explicit"] is False
    assert sorted(obj["unregistered_tools"]) == ["download_file", "sync_folder"]


def test_auth_status_on_invalid_configuration_exits_2(layout):
    code, out, err = run("auth-status", "--set", "LOCAL_FILE_ACCESS=sometimes")
    assert code == 2
    assert json.loads(out)["local_file_access"]["mode"] == "off"
    assert "would refuse to serve" in err
