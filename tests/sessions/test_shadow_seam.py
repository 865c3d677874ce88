"""The seam's two additions shadow asks of each server: the directories a refusal text
names (``refusal_directories``) and a policy changed by a call (``after_call``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from localfs_explorer.config import resolve_config
from localfs_explorer.deployments import load_deployment
from localfs_explorer.server import Server, server_of


def _policy(tmp_path: Path, entry: dict[str, Any]) -> Any:
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"e": entry}}), encoding="utf-8")
    return resolve_config(load_deployment(str(config)).server_config()).policy


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = Path(os.path.realpath(tmp_path))
    for name in ("a", "b", "c"):
        (base / name).mkdir()
    return base


def test_the_filesystem_server_reads_its_not_in_list(root: Path) -> None:
    policy = _policy(root, {"command": "npx", "args": [
        "-y", "@modelcontextprotocol/server-filesystem@2026.8.31", f"{root}/a", f"{root}/b"]})
    server = server_of(policy)
    configured = (f"{root}/a", f"{root}/b")
    refusal = policy.check(f"{root}/c/x.txt").message
    assert server.refusal_directories(policy, refusal) == (configured, configured)
    stale = f"Access denied - path outside allowed directories: {root}/c/x not in {root}/c"
    assert server.refusal_directories(policy, stale) == ((f"{root}/c",), configured)
    link = ("Error: Access denied - symlink target outside allowed directories: "
            f"{root}/c/t not in {root}/a, {root}/old")
    assert server.refusal_directories(policy, link) == (
        (f"{root}/a", f"{root}/old"), configured)
    assert server.refusal_directories(policy, "ENOENT: no such file") is None
    assert server.refusal_directories(policy, "Access denied - no allowed directories") is None


def test_gee_sweet_reads_its_allowed_directories(root: Path) -> None:
    policy = _policy(root, {"command": "uvx", "args": ["mcp-gee-sweet==0.9.5"], "env": {
        "LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": f"{root}/a:{root}/b"}})
    server = server_of(policy)
    configured = (f"{root}/a", f"{root}/b")
    refusal = policy.check(f"{root}/c/x.txt").message
    assert server.refusal_directories(policy, f"Error executing tool t: {refusal}") == (
        configured, configured)
    stale = (f"{root}/c/x is outside this server's LOCAL_FILE_ROOTS. Allowed directories: "
             f"{root}/a")
    assert server.refusal_directories(policy, stale) == ((f"{root}/a",), configured)
    assert server.refusal_directories(policy, "local file access is disabled") is None


def test_the_defaults_say_nothing() -> None:
    class Bare(Server):
        id = "bare-test-server"

    assert Bare().refusal_directories(object(), "anything not in /x") is None  # type: ignore[arg-type]
    assert Bare().after_call(object(), "tool", {}) is None  # type: ignore[arg-type]
