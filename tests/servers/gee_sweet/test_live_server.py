"""The running server and the explorer agree: live ``tools/list`` and auth-status.

For each configuration (a ``.env`` setting x a transport x ``ENABLED_TOOLS``) the real
mcp-gee-sweet server is started on loopback and asked, with the official MCP Python
SDK, for ``tools/list`` and ``server://auth-status``; the explorer is given the same
``.env`` and predicts both. Zero differences are allowed.

sse and streamable-http are the server as its entry point starts it: it starts without
Google credentials. stdio needs credentials to start, so the stdio cases import the
server in a fresh interpreter with its argv set to ``--transport stdio`` and its
stdio-only "stop when there are no credentials" switch left off, then talk to it over
stdio with the SDK's stdio client (see ``live_server.py``).

A server start costs about a second, so a default run covers a fixed set of
configurations chosen to touch every setting, transport and ``ENABLED_TOOLS`` value.
``LOCALFS_LIVE_CONFIGS=N`` adds N more drawn from the whole product (seed:
``LOCALFS_LIVE_SEED``, default 0); ``LOCALFS_LIVE_CONFIGS=all`` runs the product.
"""

from __future__ import annotations

import itertools
import os
import random
from pathlib import Path

import pytest
from live_server import (
    Host,
    http_server,
    needs_server,
    package_dir,
    run_to_exit,
    stdio_command,
    stdio_env,
)

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.catalog import default_catalog
from localfs_explorer.servers.gee_sweet.registration import register_tools
from localfs_explorer.servers.gee_sweet.verify import predict, read_http, read_stdio, verify_policy

pytestmark = [pytest.mark.slow, pytest.mark.real, needs_server]

# Settings, spelled as a .env would hold them; {data}, {link}, {spaced} are directories
# of the scratch host (a root, a symlink to it, a directory with a space in its name).
SETTINGS: dict[str, dict[str, str]] = {
    "unset": {},
    "full": {"LOCAL_FILE_ACCESS": "full"},
    "off": {"LOCAL_FILE_ACCESS": "off"},
    "roots": {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "{data}"},
    "roots-spelled": {"LOCAL_FILE_ACCESS": " Roots ",
                      "LOCAL_FILE_ROOTS": " {data} :{link}::{spaced}/"},
    "empty-access": {"LOCAL_FILE_ACCESS": "", "LOCAL_FILE_ROOTS": "{data}"},
    "full-roots-ignored": {"LOCAL_FILE_ACCESS": "FULL", "LOCAL_FILE_ROOTS": "{data}"},
}
TRANSPORTS = ("stdio", "sse", "streamable-http")
ENABLED = {
    "all": None,
    "some": " get_sheet_data,download_file , list_files,sync_folder,upload_local_file",
    "commas": " , ,",
}

COVER = [
    ("unset", "stdio", "all"),
    ("unset", "streamable-http", "all"),
    ("full", "sse", "some"),
    ("off", "streamable-http", "some"),
    ("off", "stdio", "all"),
    ("roots", "streamable-http", "all"),
    ("roots-spelled", "sse", "all"),
    ("empty-access", "stdio", "some"),
    ("full-roots-ignored", "streamable-http", "commas"),
]


def _matrix() -> list[tuple[str, str, str]]:
    wanted = os.environ.get("LOCALFS_LIVE_CONFIGS", "").strip()
    product = list(itertools.product(SETTINGS, TRANSPORTS, ENABLED))
    if wanted == "all":
        return product
    extra = int(wanted) if wanted else 0
    rest = [c for c in product if c not in COVER]
    rng = random.Random(int(os.environ.get("LOCALFS_LIVE_SEED", "0")))
    return COVER + rng.sample(rest, min(extra, len(rest)))


def _host(tmp_path: Path) -> tuple[Host, dict[str, str]]:
    host = Host(tmp_path).make()
    data = tmp_path / "data"
    spaced = tmp_path / "shared files"
    data.mkdir()
    spaced.mkdir()
    (tmp_path / "data-link").symlink_to(data, target_is_directory=True)
    names = {"data": str(data), "link": str(tmp_path / "data-link"), "spaced": str(spaced)}
    return host, names


def _settings(name: str, enabled: str, names: dict[str, str]) -> dict[str, str]:
    settings = {k: v.format(**names) for k, v in SETTINGS[name].items()}
    if ENABLED[enabled] is not None:
        settings["ENABLED_TOOLS"] = str(ENABLED[enabled])
    return settings


def _write_env(path: Path, settings: dict[str, str]) -> Path:
    # Single quotes keep spaces, as the server's environment has them.
    path.write_text("".join(f"{k}='{v}'\n" for k, v in settings.items()), encoding="utf-8")
    return path


def _explorer_policy(host: Host, transport: str, env_file: Path, process_env: dict[str, str]):
    env = load_env(env_file, overrides=process_env)
    return resolve_policy(env, transport=transport, cwd=str(host.app),
                          package_dir=package_dir())


@pytest.mark.parametrize(("setting", "transport", "enabled"), _matrix())
def test_live_server_matches_the_prediction(tmp_path: Path, setting: str, transport: str,
                                            enabled: str) -> None:
    host, names = _host(tmp_path)
    settings = _settings(setting, enabled, names)
    env_file = _write_env(tmp_path / "server.env", settings)
    policy = _explorer_policy(host, transport, env_file, host.base_env())
    assert policy.serves, policy.exit_message

    if transport == "stdio":
        live = read_stdio(stdio_command(), env=stdio_env(host, settings), cwd=str(host.app))
    else:
        with http_server(host, transport, settings) as server:
            live = read_http(server.url)

    predicted = predict(policy)
    # auth-status's local_file_access, field for field and in the server's own order.
    assert live.local_file_access == predicted.local_file_access
    # Every catalog tool is listed exactly when the explorer says it is registered.
    catalog = set(default_catalog().names())
    assert sorted(set(live.tools) & catalog) == predicted.registered
    registration = register_tools(policy)
    if registration.enabled_tools is not None:
        assert set(live.tools) <= set(registration.enabled_tools)
    report = verify_policy(policy, live)
    assert report.differences == []
    assert report.agree


INVALID = {
    "roots-without-roots": {"LOCAL_FILE_ACCESS": "roots"},
    "unknown-mode": {"LOCAL_FILE_ACCESS": "sometimes"},
    "missing-root": {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "{data}:{data}/gone"},
}


@pytest.mark.parametrize("setting", sorted(INVALID))
def test_an_invalid_setting_stops_the_server_as_predicted(tmp_path: Path, setting: str) -> None:
    host, names = _host(tmp_path)
    settings = {k: v.format(**names) for k, v in INVALID[setting].items()}
    policy = _explorer_policy(host, "streamable-http",
                              _write_env(tmp_path / "server.env", settings), host.base_env())
    assert not policy.serves
    done = run_to_exit(host, "streamable-http", settings)
    assert done.returncode != 0
    assert "Uvicorn running" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("mcp-gee-sweet: ")


def test_a_server_served_by_uvicorn_directly_resolves_as_for_stdio(tmp_path: Path) -> None:
    """No --transport on its command line: the defaulted policy is stdio's full (whose
    tripwire then refuses local files to HTTP requests). Predicted with transport stdio;
    predicted with the URL's own transport, verify says what happened."""
    host, _ = _host(tmp_path)
    env_file = _write_env(tmp_path / "server.env", {})
    with http_server(host, "sse", {}, by_uvicorn=True) as server:
        live = read_http(server.url)
    assert live.local_file_access["mode"] == "full"
    assert live.local_file_access["explicit"] is False
    as_stdio = _explorer_policy(host, "stdio", env_file, host.base_env())
    assert verify_policy(as_stdio, live).differences == []
    as_sse = verify_policy(_explorer_policy(host, "sse", env_file, host.base_env()), live)
    mode = next(d for d in as_sse.differences if d.field == "mode")
    assert "started without --transport" in mode.message
