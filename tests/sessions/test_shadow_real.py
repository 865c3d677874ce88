"""Shadow verify on sessions recorded from the real servers, in every log format.

The reference filesystem server (from npm) and mcp-gee-sweet 0.9.5 are driven over
stdio with the ``mcp`` SDK; what they answered is written out as a Claude Code
transcript, VS Code's MCP output (both marker styles), Claude Desktop's per-server log
and an Inspector History export, and ``shadow`` must agree with every call. Then the
servers are started with a configuration other than the client config's (an older
directory list, a wider one), and ``shadow`` must flag exactly the calls that differ.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from live_server import HAVE_SERVER, SKIP_REASON, Host, stdio_command, stdio_env
from recorded import Exchange, every_format, record

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "servers" / "filesystem"))
from fs_npm import (  # noqa: F401
    fixture_fs_old_dist,
    fixture_fs_server_dist,
    fixture_fs_server_js,
)

pytestmark = [pytest.mark.slow, pytest.mark.real]

FS_PACKAGE = "@modelcontextprotocol/server-filesystem"


def _shadow(log: Path, config: Path) -> tuple[int, list[dict[str, Any]], str]:
    code, out, err = run_cli("shadow", log, "--client-config", config, "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    return code, lines[:-1], err


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "host"
    (root / "data" / "sub").mkdir(parents=True)
    (root / "data" / "a.txt").write_text("alpha", encoding="utf-8")
    (root / "data" / "b.txt").write_text("beta", encoding="utf-8")
    (root / "extra").mkdir()
    (root / "extra" / "e.txt").write_text("extra", encoding="utf-8")
    (root / "outside").mkdir()
    (root / "outside" / "s.txt").write_text("secret", encoding="utf-8")
    os.symlink(root / "outside", root / "data" / "sub" / "out")
    (root / "logs").mkdir()
    return root


def _fs_config(tree: Path, *dirs: Path, version: str = "2026.8.31") -> Path:
    config = tree / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"files": {
        "command": "npx", "args": ["-y", f"{FS_PACKAGE}@{version}", *map(str, dirs)],
        "env": {"HOME": str(tree)}}}}), encoding="utf-8")
    return config


def _fs_record(tree: Path, js: str, dirs: list[Path], calls: list[tuple[str, dict]]
               ) -> list[Exchange]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tree)}
    return record(["node", js, *map(str, dirs)], calls, env=env, cwd=str(tree))


def test_filesystem_sessions_agree_in_every_format(tree: Path, fs_server_js: str) -> None:
    data, out = tree / "data", tree / "outside"
    calls = [
        ("read_text_file", {"path": f"{data}/a.txt"}),
        ("read_text_file", {"path": f"{out}/s.txt"}),
        ("read_text_file", {"path": f"{data}/sub/out/s.txt"}),
        ("read_multiple_files", {"paths": [f"{data}/a.txt", f"{out}/s.txt"]}),
        ("write_file", {"path": f"{data}/new.txt", "content": "fresh"}),
        ("read_text_file", {"path": f"{data}/new.txt"}),
        ("create_directory", {"path": f"{data}/made"}),
        ("move_file", {"source": f"{data}/a.txt", "destination": f"{data}/b.txt"}),
        ("move_file", {"source": f"{data}/new.txt", "destination": f"{out}/n.txt"}),
        ("list_directory", {"path": str(data)}),
        ("get_file_info", {"path": f"{out}/s.txt"}),
        ("search_files", {"path": str(data), "pattern": "**/*.txt"}),
        ("directory_tree", {"path": str(data)}),
        ("list_allowed_directories", {}),
        ("no_such_tool", {}),
    ]
    exchanges = _fs_record(tree, fs_server_js, [data], calls)
    # The session had refusals, a partial answer and plain successes to agree with.
    assert [e.is_error for e in exchanges[:4]] == [False, True, True, False]
    config = _fs_config(tree, data)
    for name, log in every_format(tree / "logs", "files", exchanges).items():
        code, rows, err = _shadow(log, config)
        assert len(rows) == len(calls), (name, err)
        disagree = [r for r in rows if r["agree"] is not True]
        assert disagree == [], name
        assert code == 0, (name, err)
        assert rows[1]["predicted"].startswith("refused: Access denied - path outside")


def test_session_effects_on_answers_of_the_release_that_checks_parents(
        tree: Path, fs_old_dist: Path) -> None:
    """2026.7.10 refuses a write whose parent directory is missing. The session made the
    directory first, so its write succeeded; by the time the log is read the directory
    is gone again. Predicted in order, the write still agrees."""
    data = tree / "data"
    calls = [
        ("create_directory", {"path": f"{data}/made"}),
        ("write_file", {"path": f"{data}/made/x.txt", "content": "x"}),
        ("write_file", {"path": f"{data}/never/y.txt", "content": "y"}),
    ]
    exchanges = _fs_record(tree, str(fs_old_dist / "index.js"), [data], calls)
    assert [e.is_error for e in exchanges] == [False, False, True]
    assert "Parent directory does not exist" in exchanges[2].text
    shutil.rmtree(data / "made")
    config = _fs_config(tree, data, version="2026.7.10")
    log = every_format(tree / "logs", "files", exchanges)["claude-code"]
    code, rows, _ = _shadow(log, config)
    assert [r["agree"] for r in rows] == [True, True, True] and code == 0


def test_a_server_enforcing_an_older_list_is_flagged(tree: Path, fs_server_js: str) -> None:
    """The client config says data and extra; the server still runs with data alone."""
    data, extra = tree / "data", tree / "extra"
    calls = [
        ("read_text_file", {"path": f"{data}/a.txt"}),   # agrees
        ("read_text_file", {"path": f"{extra}/e.txt"}),  # refused: the config allows it
        ("read_text_file", {"path": f"{tree}/outside/s.txt"}),  # refused by both, other list
    ]
    exchanges = _fs_record(tree, fs_server_js, [data], calls)
    config = _fs_config(tree, data, extra)
    for name, log in every_format(tree / "logs", "files", exchanges).items():
        code, rows, _ = _shadow(log, config)
        assert code == 1, name
        assert [r["agree"] for r in rows] == [True, False, False], name
        assert [r.get("kind") for r in rows[1:]] == ["refused_allowed", "other_text"], name
        for row in rows[1:]:
            assert row["enforced"] == [str(data)], name
            assert row["configured"] == [str(data), str(extra)], name
        assert f"the explorer allows {extra}/e.txt for read" in rows[1]["why"], name


def test_a_server_answering_a_refused_path_is_flagged(tree: Path, fs_server_js: str) -> None:
    """The client config says data; the server runs with the whole tree."""
    data = tree / "data"
    calls = [("read_text_file", {"path": f"{tree}/outside/s.txt"}),
             ("list_directory", {"path": str(data)})]
    exchanges = _fs_record(tree, fs_server_js, [tree], calls)
    assert exchanges[0].text == "secret"
    config = _fs_config(tree, data)
    code, out, _ = run_cli("shadow", every_format(tree / "logs", "files", exchanges)
                           ["claude-desktop"], "--client-config", config)
    assert code == 1
    assert "the server answered a call the explorer refuses" in out
    assert f"the explorer refuses {tree}/outside/s.txt for read (outside)" in out
    assert "2 call(s): 1 agree, 1 disagree" in out
    assert "secret\n" not in out  # the file's contents are never shown


# --- mcp-gee-sweet -----------------------------------------------------------------------


def _gee_host(tmp_path: Path) -> tuple[Host, Path, dict[str, str]]:
    """A scratch host, and a service account whose token endpoint is a closed loopback
    port: the server starts with credentials, so its tools reach their path checks, and
    any call that gets past them fails at once without leaving the machine."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    host = Host(Path(os.path.realpath(tmp_path)) / "gee").make()
    data = host.base / "data"
    data.mkdir()
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    account = host.base / "account.json"
    account.write_text(json.dumps({
        "type": "service_account", "project_id": "p", "private_key_id": "k",
        "private_key": pem, "client_email": "robot@p.iam.gserviceaccount.com",
        "client_id": "1", "token_uri": "http://127.0.0.1:9/token"}), encoding="utf-8")
    return host, data, {"SERVICE_ACCOUNT_PATH": str(account)}


def _gee_config(host: Host, settings: dict[str, str]) -> Path:
    # Claude Code starts a project's servers in the folder holding .mcp.json: the app
    # directory, where the real server ran.
    env = {k: v for k, v in stdio_env(host, settings).items() if k != "PATH"}
    config = host.app / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"workspace": {
        "command": "uvx", "args": ["mcp-gee-sweet==0.9.5"], "env": env}}}),
        encoding="utf-8")
    return config


@pytest.mark.skipif(not HAVE_SERVER, reason=SKIP_REASON)
def test_gee_sweet_sessions_agree_in_every_format(tmp_path: Path) -> None:
    host, data, account = _gee_host(tmp_path)
    settings = {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(data), **account}
    outside = host.base / "elsewhere" / "doc.md"
    calls = [
        ("get_doc_content", {"file_id": "f1", "local_path": str(outside)}),
        ("get_doc_content", {"file_id": "f1", "local_path": "relative.md"}),
        ("get_message", {"message_id": "m1", "local_path": f"{host.home}/.ssh/m.eml"}),
        ("get_doc_as_markdown", {"doc_id": "d1", "local_path": f"{data}/../escape.md"}),
        ("no_such_tool", {}),
    ]
    exchanges = record(stdio_command(), calls, env=stdio_env(host, settings),
                       cwd=str(host.app))
    assert all(e.is_error for e in exchanges)
    assert "outside this server's LOCAL_FILE_ROOTS" in exchanges[0].text
    config = _gee_config(host, settings)
    for name, log in every_format(host.base, "workspace", exchanges).items():
        code, rows, err = _shadow(log, config)
        assert [r["agree"] for r in rows] == [True] * len(calls), (name, rows, err)
        assert code == 0, name
        assert rows[0]["predicted"].startswith("refused: ")


@pytest.mark.skipif(not HAVE_SERVER, reason=SKIP_REASON)
def test_gee_sweet_off_mode_and_a_stale_roots_list(tmp_path: Path) -> None:
    host, data, account = _gee_host(tmp_path)
    # Off: the local-only tools aren't registered, and the model is told so.
    off = {"LOCAL_FILE_ACCESS": "off", **account}
    exchanges = record(stdio_command(), [
        ("upload_local_file", {"local_path": f"{data}/a.csv", "parent_folder_id": "p"})],
        env=stdio_env(host, off), cwd=str(host.app))
    config = _gee_config(host, off)
    code, rows, _ = _shadow(every_format(host.base, "workspace", exchanges)["vs-code"],
                            config)
    assert code == 0 and rows[0]["agree"] is True and rows[0]["predicted"] == "absent"
    # The server still runs with roots=data while the config now says data2 as well.
    data2 = host.base / "data2"
    data2.mkdir()
    enforced = {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(data), **account}
    exchanges = record(stdio_command(), [
        ("get_doc_content", {"file_id": "f1", "local_path": f"{data2}/doc.md"})],
        env=stdio_env(host, enforced), cwd=str(host.app))
    configured = {**enforced, "LOCAL_FILE_ROOTS": f"{data}:{data2}"}
    config = _gee_config(host, configured)
    code, rows, _ = _shadow(every_format(host.base, "workspace", exchanges)["claude-code"],
                            config)
    assert code == 1
    (row,) = rows
    assert row["agree"] is False and row["kind"] == "refused_allowed"
    assert row["enforced"] == [str(data)] and row["configured"] == [str(data), str(data2)]


def _cut_answers(log: Path, keep_head: int = 170, keep_tail: int = 60) -> int:
    """Cut the middle out of every long answer line, the way a log viewer does."""
    lines = log.read_text(encoding="utf-8").splitlines()
    cut = 0
    for i, line in enumerate(lines):
        if '"tool_result"' in line and len(line) > keep_head + keep_tail + 20:
            gone = len(line) - keep_head - keep_tail
            lines[i] = f"{line[:keep_head]}…[{gone} chars truncated]…{line[-keep_tail:]}"
            cut += 1
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return cut


def test_answers_cut_by_a_viewer_are_matched_on_what_remains(
        tree: Path, fs_server_js: str) -> None:
    data, extra = tree / "data", tree / "extra"
    secret = f"{tree}/outside/" + "long-name-" * 12 + "s.txt"
    calls = [
        ("read_text_file", {"path": secret}),
        ("read_text_file", {"path": f"{extra}/e.txt"}),
        ("read_text_file", {"path": f"{data}/a.txt"}),
    ]
    exchanges = _fs_record(tree, fs_server_js, [data], calls)
    log = every_format(tree / "logs", "files", exchanges)["claude-code"]
    assert _cut_answers(log) == 2  # the two refusals are long enough to be cut
    code, rows, _ = _shadow(log, _fs_config(tree, data))
    assert code == 0 and [r["agree"] for r in rows] == [True, True, True]
    assert "…[" in rows[0]["recorded"]
    # Against a config naming another list, what remains of the text still disagrees.
    code, rows, _ = _shadow(log, _fs_config(tree, data, extra))
    assert code == 1 and [r["agree"] for r in rows] == [False, False, True]


@pytest.mark.skipif(not HAVE_SERVER, reason=SKIP_REASON)
def test_gee_sweet_deny_list_refusals_agree(tmp_path: Path) -> None:
    """In full mode the server's own credential file is still refused, in its words."""
    host, _data, account = _gee_host(tmp_path)
    settings = {"LOCAL_FILE_ACCESS": "full", **account}
    calls = [
        ("get_doc_content", {"file_id": "f1", "local_path": account["SERVICE_ACCOUNT_PATH"]}),
        ("get_message", {"message_id": "m1", "local_path": account["SERVICE_ACCOUNT_PATH"]}),
    ]
    exchanges = record(stdio_command(), calls, env=stdio_env(host, settings),
                       cwd=str(host.app))
    assert all("credential, config, cache, or log files" in e.text for e in exchanges)
    config = _gee_config(host, settings)
    for name, log in every_format(host.base, "workspace", exchanges).items():
        code, rows, _ = _shadow(log, config)
        assert code == 0 and [r["agree"] for r in rows] == [True, True], name
