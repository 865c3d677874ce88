"""A filesystem-server entry of an MCP client config, verified against the real server
(npm, the pinned release): the entry's own command line is what runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from fs_npm import fixture_fs_server_dist, fixture_fs_server_js  # noqa: F401

pytestmark = [pytest.mark.slow, pytest.mark.real]


def test_verify_of_an_entry_runs_its_command_and_agrees(tmp_path: Path,
                                                        fs_server_js: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    config = tmp_path / "proj" / ".vscode" / "mcp.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"servers": {
        "files": {"type": "stdio", "command": "node", "args": [fs_server_js, str(data)]},
        "other": {"command": "node", "args": ["x.js"]},
    }}))
    code, out, err = run_cli("verify", "--client-config", str(config), "--json",
                             "--timeout", "90")
    assert code == 0, (out, err)
    report = json.loads(out)
    assert report["agree"] and report["allowed_directories"]["live"] == [str(data)]
    # An override the entry doesn't run is a difference.
    code, out, _ = run_cli("verify", "--client-config", str(config), "--allowed-dir",
                           str(tmp_path), "--timeout", "90")
    assert code == 1 and "difference: list_allowed_directories" in out
