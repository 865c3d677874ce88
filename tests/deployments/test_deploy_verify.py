"""``verify --client-config``: the entry's own command line started and compared, against
the real mcp-gee-sweet (see ``live_server.py`` for how it runs without credentials)."""

from __future__ import annotations

import json
import os
import sys

import pytest
from client_configs import mcp_servers, write
from conftest import run_cli as run
from live_server import Host, needs_server

pytestmark = [pytest.mark.slow, pytest.mark.real, needs_server]

#: The real server's entry point, as its console script runs it, with its stdio-only
#: "stop without credentials" switch left off (there are no Google credentials here).
_LAUNCHER = (
    f"#!{sys.executable}\n"
    "import mcp_gee_sweet.server as server\n"
    "server.set_raise_auth_failures = lambda flag: None\n"
    "server.main()\n"
)


def _entry_config(tmp_path, settings, args=()):
    host = Host(tmp_path).make()
    # Named as the console script, so the entry reads like a deployed one.
    launcher = tmp_path / "bin" / "mcp-gee-sweet"
    write(launcher, _LAUNCHER)
    launcher.chmod(0o755)
    env = {**host.base_env(), **settings}
    env.pop("PATH")
    path = write(tmp_path / "proj" / ".vscode" / "mcp.json", mcp_servers({
        "sheets": {"type": "stdio", "command": str(launcher), "args": list(args), "env": env,
                   "cwd": str(host.app)},
        "other": {"command": "node", "args": ["x.js"]},
    }, key="servers"))
    return host, path


def test_the_entry_started_as_the_client_starts_it_agrees(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    _, path = _entry_config(tmp_path, {"LOCAL_FILE_ACCESS": "roots",
                                       "LOCAL_FILE_ROOTS": str(data)},
                            args=["--include-tools", "get_sheet_data,download_file"])
    code, out, err = run("verify", "--client-config", str(path), "--timeout", "60", "--json")
    assert code == 0, out + err
    report = json.loads(out)
    assert report["agree"] is True
    assert report["live"]["local_file_access"]["roots"] == [str(data)]
    assert report["live"]["tools"] == ["download_file", "get_sheet_data"]


def test_an_override_that_the_entry_does_not_run_is_a_difference(tmp_path):
    _, path = _entry_config(tmp_path, {"LOCAL_FILE_ACCESS": "off"})
    code, out, err = run("verify", "--client-config", str(path), "--timeout", "60",
                         "--set", "LOCAL_FILE_ACCESS=full")
    assert code == 1, out + err
    assert 'the explorer predicts "full", the server reports "off"' in out
    assert os.path.exists(path)


def test_verify_needs_exactly_one_way_to_reach_the_server(tmp_path):
    _, path = _entry_config(tmp_path, {})
    code, _, err = run("verify", "--client-config", str(path), "--url",
                       "http://127.0.0.1:9/mcp")
    assert code == 2 and "give one of --url, --command or --client-config" in err
    code, _, err = run("verify")
    assert code == 2 and "give one of" in err


def test_an_entry_serving_http_is_not_started_over_stdio(tmp_path):
    _, path = _entry_config(tmp_path, {}, args=["--transport", "sse"])
    code, out, err = run("verify", "--client-config", str(path), "--entry", "sheets")
    assert code == 2 and out == ""
    assert "serves sse, not stdio: start it yourself and give its --url" in err
