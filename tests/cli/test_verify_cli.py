"""``localfs-explorer verify`` against the real server running on loopback.

One server per module (a start costs about a second): streamable HTTP, roots mode,
behind a bearer token. The stdio case starts the server itself through ``--command``
(see ``live_server.py`` for how it starts without Google credentials).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_cli as run
from live_server import (
    Host,
    free_port,
    http_server,
    needs_server,
    package_dir,
    stdio_command,
)

pytestmark = [pytest.mark.slow, pytest.mark.real, needs_server]

TOKEN = "verify-test-bearer-7f3a"


@pytest.fixture(scope="module")
def deployed(tmp_path_factory) -> Iterator[tuple[Host, str, Path, Path]]:
    """The running server, its URL, the .env it runs and a root it doesn't have."""
    base = tmp_path_factory.mktemp("verify")
    host = Host(base).make()
    data, other = base / "data", base / "other"
    data.mkdir()
    other.mkdir()
    settings = {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(data),
                "ENABLED_TOOLS": "get_sheet_data,download_file,list_files",
                "MCP_SERVER_TOKEN": TOKEN}
    env_file = base / "server.env"
    env_file.write_text("".join(f"{k}={v}\n" for k, v in settings.items()
                                if k != "MCP_SERVER_TOKEN"), encoding="utf-8")
    with http_server(host, "streamable-http", settings) as server:
        yield host, server.url, env_file, other


def common(host: Host, env_file: Path) -> list[str]:
    return ["--env", str(env_file), "--set", f"HOME={host.home}", "--cwd", str(host.app),
            "--package-dir", package_dir()]


def test_the_reviewed_configuration_agrees(deployed, monkeypatch) -> None:
    host, url, env_file, _ = deployed
    monkeypatch.setenv("LOCALFS_TEST_BEARER", TOKEN)
    code, out, err = run("verify", "--url", url, "--token-env", "LOCALFS_TEST_BEARER",
                         *common(host, env_file))
    assert code == 0, out + err
    assert "the server agrees with the explorer" in out
    assert "same  mode: \"roots\"" in out
    assert TOKEN not in out + err


def test_a_different_configuration_is_reported_field_by_field(deployed) -> None:
    host, url, env_file, other = deployed
    code, out, err = run("verify", "--url", url, "--token", TOKEN, *common(host, env_file),
                         "--set", f"LOCAL_FILE_ROOTS={other}",
                         "--set", "ENABLED_TOOLS=get_sheet_data,list_files", "--json")
    assert code == 1, err
    report = json.loads(out)
    assert report["agree"] is False
    by_field = {(d["field"], d["tool"]): d for d in report["differences"]}
    assert set(by_field) == {("roots", None), ("registered_tools", "download_file")}
    assert by_field[("roots", None)]["expected"] == [str(other)]
    assert by_field[("roots", None)]["actual"] == [str(other.parent / "data")]
    assert by_field[("registered_tools", "download_file")]["actual"] == "registered"
    assert report["live"]["local_file_access"]["mode"] == "roots"
    assert TOKEN not in out + err


def test_the_wrong_transport_predicts_another_mode(deployed) -> None:
    host, url, _, _ = deployed
    # No .env at all: the explorer predicts off for streamable-http; the server runs roots.
    code, out, _ = run("verify", "--url", url, "--token", TOKEN, "--cwd", str(host.app),
                       "--set", f"HOME={host.home}")
    assert code == 1
    assert 'difference: mode: the explorer predicts "off", the server reports "roots"' in out


def test_a_missing_token_is_a_one_line_error(deployed) -> None:
    host, url, env_file, _ = deployed
    code, out, err = run("verify", "--url", url, *common(host, env_file))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "HTTP 401: the server wants a bearer token" in err


def test_a_closed_loopback_port_is_unreachable() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    code, out, err = run("verify", "--url", url, "--timeout", "5")
    assert code == 2 and out == ""
    assert err.startswith(f"localfs-explorer verify: can't read the server: {url}: ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_stdio_server_started_by_command(tmp_path, monkeypatch) -> None:
    host = Host(tmp_path).make()
    for key, value in host.base_env().items():
        monkeypatch.setenv(key, value)
    for key in ("GOOGLE_APPLICATION_CREDENTIALS", "LOCAL_FILE_ROOTS", "ENABLED_TOOLS",
                "AUTH_METHOD", "CREDENTIALS_CONFIG"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("LOCAL_FILE_ACCESS", "off")
    command = shlex.join(stdio_command())
    base = ["verify", "--command", command, "--cwd", str(host.app),
            "--set", f"HOME={host.home}", "--timeout", "60"]
    code, out, err = run(*base, "--set", "LOCAL_FILE_ACCESS=off")
    assert code == 0, out + err
    assert "(stdio)" in out and "same  unregistered_tools" in out
    # Unset, stdio defaults to full: the running server was given off.
    code, out, _ = run(*base)
    assert code == 1
    assert 'the explorer predicts "full", the server reports "off"' in out


def test_include_tools_in_the_command_is_the_servers_tool_list(tmp_path, monkeypatch) -> None:
    host = Host(tmp_path).make()
    for key, value in host.base_env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("LOCAL_FILE_ACCESS", "full")
    monkeypatch.setenv("ENABLED_TOOLS", "list_files")  # the command line wins over this
    command = shlex.join([*stdio_command(), "--include-tools", "get_sheet_data,download_file"])
    code, out, err = run("verify", "--command", command, "--cwd", str(host.app), "--json",
                         "--set", "LOCAL_FILE_ACCESS=full", "--set", "ENABLED_TOOLS=list_files",
                         "--timeout", "60")
    assert code == 0, out + err
    assert json.loads(out)["live"]["tools"] == ["download_file", "get_sheet_data"]
    assert "--include-tools" in err


def test_a_command_that_is_not_a_server_is_unreachable(tmp_path) -> None:
    code, out, err = run("verify", "--command", "false", "--timeout", "10")
    assert code == 2 and out == ""
    assert err.startswith("localfs-explorer verify: can't read the server: false: ")
    assert err.count("\n") == 1


def test_a_wrong_token_is_refused_without_showing_it(deployed) -> None:
    host, url, env_file, _ = deployed
    code, out, err = run("verify", "--url", url, "--token", "not-the-token",
                         *common(host, env_file))
    assert code == 2 and out == ""
    assert "HTTP 401: the server refused the bearer token" in err
    assert "not-the-token" not in err
