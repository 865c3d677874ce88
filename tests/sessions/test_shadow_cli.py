"""``localfs-explorer shadow`` on hand-written sessions against the filesystem server's
model: agreement, each seeded disagreement, session order, exit statuses, secrets."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from localfs_explorer.server import server_of
from localfs_explorer.sessions import Shadow

FS_PACKAGE = "@modelcontextprotocol/server-filesystem"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    (root / "data").mkdir()
    (root / "data" / "a.txt").write_text("alpha", encoding="utf-8")
    (root / "outside").mkdir()
    (root / "outside" / "s.txt").write_text("secret", encoding="utf-8")
    return root


def _config(tree: Path, *dirs: str, version: str = "2026.8.31", name: str = "files",
            env: dict[str, str] | None = None) -> Path:
    entry: dict[str, Any] = {"command": "npx",
                             "args": ["-y", f"{FS_PACKAGE}@{version}", *dirs]}
    if env:
        entry["env"] = env
    path = tree / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {name: entry}}), encoding="utf-8")
    return path


def _transcript(tree: Path, calls: list[tuple[str, dict, bool, str]], *,
                entry: str = "files") -> Path:
    lines = []
    for i, (tool, arguments, is_error, text) in enumerate(calls):
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{i}", "name": f"mcp__{entry}__{tool}",
             "input": arguments}]}})
        lines.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{i}",
             "content": [{"type": "text", "text": text}], "is_error": is_error}]}})
    path = tree / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _outside(path: str, dirs: str) -> str:
    return f"Access denied - path outside allowed directories: {path} not in {dirs}"


def _rows(*argv: object) -> tuple[int, list[dict], str]:
    code, out, err = run_cli("shadow", *argv, "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    return code, rows, err


def test_a_session_the_model_predicts_agrees(tree: Path) -> None:
    data = f"{tree}/data"
    config = _config(tree, data)
    log = _transcript(tree, [
        ("read_text_file", {"path": f"{data}/a.txt"}, False, "alpha"),
        ("read_text_file", {"path": f"{tree}/outside/s.txt"}, True,
         _outside(f"{tree}/outside/s.txt", data)),
        ("read_multiple_files", {"paths": [f"{data}/a.txt", f"{tree}/outside/s.txt"]}, False,
         f"{data}/a.txt:\nalpha\n\n---\n{tree}/outside/s.txt: Error - "
         + _outside(f"{tree}/outside/s.txt", data)),
    ])
    code, rows, err = _rows(log, "--client-config", config)
    assert code == 0, (rows, err)
    assert [r["agree"] for r in rows[:-1]] == [True, True, True]
    assert rows[1]["paths"] == [f"{tree}/outside/s.txt"]
    assert rows[1]["predicted"].startswith("refused: Access denied")
    assert rows[-1] == {"summary": {"agree": 3, "disagree": 0, "not_predicted": 0,
                                    "skipped": 0}}


def test_stale_directory_list_is_shown_beside_the_configured_one(tree: Path) -> None:
    data, old = f"{tree}/data", f"{tree}/old"
    config = _config(tree, data)
    log = _transcript(tree, [
        # The server enforces an older list: a file in the configured directory refused,
        ("read_text_file", {"path": f"{data}/a.txt"}, True, _outside(f"{data}/a.txt", old)),
        # and a refusal everyone agrees on, in words naming the other list.
        ("read_text_file", {"path": f"{tree}/outside/s.txt"}, True,
         _outside(f"{tree}/outside/s.txt", old)),
    ])
    code, rows, _ = _rows(log, "--client-config", config)
    assert code == 1
    first, second = rows[0], rows[1]
    assert first["agree"] is False and first["kind"] == "refused_allowed"
    assert (first["enforced"], first["configured"]) == ([old], [data])
    assert f"the explorer allows {data}/a.txt for read (validatePath: allowed)" in first["why"]
    assert second["agree"] is False and second["kind"] == "other_text"
    assert (second["enforced"], second["configured"]) == ([old], [data])
    # The text output: disagreements first, then the counts.
    code, out, _ = run_cli("shadow", log, "--client-config", config)
    assert code == 1
    assert out.index("disagreements:") < out.index("2 call(s): 0 agree, 2 disagree")
    assert f"enforced:  {old}" in out and f"configured: {data}" in out


def test_an_answer_to_a_refused_path_and_a_refusal_of_an_allowed_one(tree: Path) -> None:
    data = f"{tree}/data"
    config = _config(tree, data)
    log = _transcript(tree, [
        ("read_text_file", {"path": f"{tree}/outside/s.txt"}, False, "secret"),
        ("read_text_file", {"path": f"{data}/a.txt"}, True, "Access denied - no"),
    ])
    code, rows, _ = _rows(log, "--client-config", config)
    assert code == 1
    assert rows[0]["kind"] == "answered_refused"
    assert f"the explorer refuses {tree}/outside/s.txt for read (outside)" in rows[0]["why"]
    assert rows[1]["kind"] == "refused_allowed" and "enforced" not in rows[1]
    # A success's text (a file's contents) is never shown.
    assert rows[0]["recorded"] == "ok"
    assert "secret" not in json.dumps(rows[0]["recorded"])


def test_calls_see_what_the_session_did_before_them(tree: Path) -> None:
    """2026.7.10 refuses a path whose parent is missing; a directory the session made is
    there for the calls after it, and one it moved away is gone, whatever the host
    holds when the log is read (here: neither directory)."""
    data = f"{tree}/data"
    config = _config(tree, data, version="2026.7.10")
    log = _transcript(tree, [
        ("create_directory", {"path": f"{data}/made"}, False, "Successfully created"),
        ("write_file", {"path": f"{data}/made/x.txt", "content": "x"}, False, "ok"),
        ("move_file", {"source": f"{data}/made", "destination": f"{data}/moved"}, False,
         "ok"),
        ("write_file", {"path": f"{data}/made/y.txt", "content": "y"}, True,
         f"Parent directory does not exist: {data}/made"),
    ])
    code, rows, _ = _rows(log, "--client-config", config)
    assert [r["agree"] for r in rows[:-1]] == [True, True, True, True], rows
    assert code == 0
    # Read on its own, without the calls before it, the write into 'made' disagrees.
    alone = _transcript(tree, [
        ("write_file", {"path": f"{data}/made/x.txt", "content": "x"}, False, "ok")])
    code, rows, _ = _rows(alone, "--client-config", config)
    assert code == 1 and rows[0]["kind"] == "answered_refused"


def test_a_call_that_changes_the_servers_settings_applies_to_later_calls(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = f"{tree}/data"
    config = _config(tree, data)
    shadow = Shadow(str(config))
    log = _transcript(tree, [
        ("read_text_file", {"path": f"{tree}/outside/s.txt"}, True,
         _outside(f"{tree}/outside/s.txt", data)),
        ("write_file", {"path": f"{data}/settings.txt", "content": "widen"}, False, "ok"),
        ("read_text_file", {"path": f"{tree}/outside/s.txt"}, False, "secret"),
    ])
    seen: list[str] = []

    def after_call(self: Any, policy: Any, name: str, arguments: Any) -> Any:
        seen.append(name)
        if arguments.get("path", "").endswith("settings.txt"):
            from localfs_explorer.config import ServerConfig, resolve_config

            return resolve_config(ServerConfig(
                server=policy.server_id,
                server_options={"directories": [str(tree)]}), fs=policy.fs).policy
        return None

    from localfs_explorer.config import resolve_config
    from localfs_explorer.deployments import load_deployment

    server = server_of(resolve_config(load_deployment(str(config)).server_config()).policy)
    monkeypatch.setattr(type(server), "after_call", after_call)
    rows = list(shadow.run([str(log)]))
    assert [r.agree for r in rows] == [True, True, True]
    assert seen == ["write_file", "read_text_file"]  # asked after each call that succeeded


def test_calls_that_cant_be_predicted_are_counted_apart(tree: Path) -> None:
    data = f"{tree}/data"
    config = _config(tree, data)
    log = _transcript(tree, [
        ("read_text_file", {"path": f"{data}/a.txt"}, False, "alpha"),
    ], entry="elsewhere")
    code, rows, _ = _rows(log, "--client-config", config)
    assert code == 0
    assert rows[0]["agree"] is None
    assert rows[0]["why"] == "entry 'elsewhere' isn't in the client config"
    code, out, _ = run_cli("shadow", log, "--client-config", config)
    assert "not predicted:" in out and "1 call(s): 0 agree, 0 disagree, 1 not predicted" in out


def test_entry_names_as_claude_code_spells_them_and_entry_filter(tree: Path) -> None:
    data = f"{tree}/data"
    config = _config(tree, data, name="my files")
    log = _transcript(tree, [
        ("read_text_file", {"path": f"{data}/a.txt"}, False, "alpha")], entry="my_files")
    code, rows, _ = _rows(log, "--client-config", config)
    assert code == 0 and rows[0]["entry"] == "my files" and rows[0]["agree"] is True
    code, rows, _ = _rows(log, "--client-config", config, "--entry", "my files")
    assert rows[-1]["summary"]["agree"] == 1
    code, _, err = run_cli("shadow", log, "--client-config", config, "--entry", "nope")
    assert code == 2 and "no entry named 'nope'" in err and err.count("\n") == 1


def test_jsonrpc_log_takes_the_one_entry_of_the_config(tree: Path) -> None:
    data = f"{tree}/data"
    config = _config(tree, data)
    secret = f"{tree}/outside/s.txt"
    log = tree / "vscode.log"
    request = {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "read_text_file", "arguments": {"path": secret}}}
    response = {"jsonrpc": "2.0", "id": 4, "result": {
        "content": [{"type": "text", "text": _outside(secret, data)}], "isError": True}}
    log.write_text(f"[editor -> server] {json.dumps(request)}\n"
                   f"[server -> editor] {json.dumps(response)}\n", encoding="utf-8")
    code, rows, _ = _rows(log, "--client-config", config)
    assert code == 0 and rows[0]["entry"] == "files" and rows[0]["agree"] is True


def test_unreadable_and_redacted_logs_exit_2(tree: Path) -> None:
    config = _config(tree, f"{tree}/data")
    code, _, err = run_cli("shadow", tree / "nope.jsonl", "--client-config", config)
    assert code == 2 and "can't read the log" in err and err.count("\n") == 1
    redacted = tree / "mcp-server-files.log"
    redacted.write_text('2026-01-01T00:00:00Z [files] [info] Message from client: '
                        '{"jsonrpc":"2.0","id":1,"method":"tools/call"}\n', encoding="utf-8")
    code, out, err = run_cli("shadow", redacted, "--client-config", config)
    assert code == 2 and out == "" and "redacted" in err and "Traceback" not in err
    code, _, err = run_cli("shadow", redacted, "--client-config", tree / "missing.json")
    assert code == 2 and err.count("\n") == 1


def test_secret_values_of_the_entry_are_never_printed(tree: Path) -> None:
    data = f"{tree}/data"
    token = "tok-5e3f9a1c7b"
    config = _config(tree, data, env={"API_TOKEN": token})
    log = _transcript(tree, [
        ("read_text_file", {"path": f"{data}/a.txt"}, True, f"Access denied {token}")])
    code, out, err = run_cli("shadow", log, "--client-config", config)
    assert code == 1
    assert token not in out + err


def test_a_tool_the_server_doesnt_have(tree: Path) -> None:
    config = _config(tree, f"{tree}/data")
    log = _transcript(tree, [
        ("no_such_tool", {}, True, "MCP error -32602: Tool no_such_tool not found"),
        ("no_such_tool", {}, False, "done"),
    ])
    code, rows, _ = _rows(log, "--client-config", config)
    assert code == 1
    assert [(r["agree"], r.get("kind")) for r in rows[:-1]] == [(True, None),
                                                                (False, "answered_error")]
    assert rows[0]["predicted"] == "absent: not one of the server's tools"


def test_a_call_made_again_after_the_session_changed_the_host_is_predicted_afresh(
        tree: Path) -> None:
    data = f"{tree}/data"
    config = _config(tree, data, version="2026.7.10")
    write = ("write_file", {"path": f"{data}/made/x.txt", "content": "x"})
    log = _transcript(tree, [
        (*write, True, f"Parent directory does not exist: {data}/made"),
        (*write, True, f"Parent directory does not exist: {data}/made"),
        ("create_directory", {"path": f"{data}/made"}, False, "Successfully created"),
        (*write, False, "Successfully wrote"),
    ])
    code, rows, _ = _rows(log, "--client-config", config)
    assert [r["agree"] for r in rows[:-1]] == [True, True, True, True]
    assert code == 0


class _Terminal:
    """A stderr that says it is a terminal, keeping what is written."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_progress_is_shown_on_a_terminal_and_cleared(tree: Path) -> None:
    import io

    from localfs_explorer.cli.main import main

    data = f"{tree}/data"
    config = _config(tree, data)
    log = _transcript(tree, [("read_text_file", {"path": f"{data}/a.txt"}, False, "alpha")])
    terminal = _Terminal()
    code = main(["shadow", str(log), "--client-config", str(config)], out=io.StringIO(),
                err=terminal)  # type: ignore[arg-type]
    assert code == 0
    shown = "".join(terminal.parts)
    size = log.stat().st_size / 1e6
    assert f"read {size:.1f} of {size:.1f} MB" in shown
    assert shown.rstrip(" ").endswith("\r")  # the line is blanked at the end
    plain = io.StringIO()
    assert main(["shadow", str(log), "--client-config", str(config)], out=io.StringIO(),
                err=plain) == 0
    assert plain.getvalue() == ""  # not a terminal: no progress


def test_a_relative_path_resolved_against_another_directory(tree: Path) -> None:
    """The refusal names where the server resolved a relative path: not where the
    explorer resolves it (a server started in a desktop client's own directory, say)."""
    data = f"{tree}/data"
    config = _config(tree, data)
    elsewhere = "/opt/client/bin"
    log = _transcript(tree, [
        ("read_text_file", {"path": "notes/today.txt"}, True,
         _outside(f"{elsewhere}/notes/today.txt", data)),
    ])
    code, rows, _ = _rows(log, "--client-config", config)
    assert code == 1 and rows[0]["kind"] == "refused_allowed"
    # The pinned release resolves a relative path against its first allowed directory.
    assert (f"the server resolved 'notes/today.txt' against {elsewhere}, the explorer "
            f"against {data}") in rows[0]["why"]
    # A refusal that names no resolved relative path says nothing about it.
    log = _transcript(tree, [
        ("read_text_file", {"path": "notes/today.txt"}, True, "Access denied")])
    code, rows, _ = _rows(log, "--client-config", config)
    assert "resolved" not in rows[0]["why"]


@pytest.mark.parametrize("depth", [50, 900, 5_000])
def test_deeply_nested_arguments_are_not_a_traceback(tree: Path, depth: int) -> None:
    config = _config(tree, f"{tree}/data")
    nested = '{"a":' * depth + "1" + "}" * depth
    call = ('{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1",'
            f'"name":"mcp__files__read_text_file","input":{{"path":"x","deep":{nested}}}}}]}}}}')
    answer = json.dumps({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "no", "is_error": True}]}})
    log = tree / "deep.jsonl"
    log.write_text(f"{call}\n{answer}\n", encoding="utf-8")
    code, out, err = run_cli("shadow", log, "--client-config", config)
    assert code in (0, 1), err
    assert "Traceback" not in out + err


def test_disagreements_wait_in_a_spool_and_unpredicted_calls_are_capped(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import localfs_explorer.cli.shadow as cli_shadow

    monkeypatch.setattr(cli_shadow, "_UNKNOWN_SHOWN", 2)
    data = f"{tree}/data"
    config = _config(tree, data)
    calls = [("read_text_file", {"path": f"{data}/a.txt"}, True, "Access denied - no")] * 3
    calls += [("read_text_file", {"path": f"{data}/a.txt"}, False, "alpha")]
    log = _transcript(tree, calls).rename(tree / "first.jsonl")
    other = _transcript(tree, [("read_text_file", {"path": "x"}, False, "x")] * 5,
                        entry="elsewhere")
    code, out, _ = run_cli("shadow", log, other, "--client-config", config)
    assert code == 1
    assert out.count("    why:       the server refused or failed") == 3
    assert out.index("disagreements:") < out.index("not predicted:") < out.index("call(s):")
    # The five calls to an entry not in the config are one line.
    assert out.count("isn't in the client config") == 1
    assert "(and 4 more call(s) like it)" in out
    assert "9 call(s): 1 agree, 3 disagree, 5 not predicted" in out


def test_unpredicted_groups_past_the_cap_are_counted(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import localfs_explorer.cli.shadow as cli_shadow

    monkeypatch.setattr(cli_shadow, "_UNKNOWN_SHOWN", 1)
    config = _config(tree, f"{tree}/data")
    calls = [("read_text_file", {"path": "x"}, False, "x")]
    first = _transcript(tree, calls, entry="one").rename(tree / "one.jsonl")
    second = _transcript(tree, calls * 2, entry="two")
    code, out, _ = run_cli("shadow", first, second, "--client-config", config)
    assert code == 0
    assert "'one' isn't in the client config" in out and "'two'" not in out
    assert "... and 2 more (--json lists every call)" in out


def test_a_line_cut_before_its_error_flag_is_not_predicted(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from localfs_explorer.sessions import readers

    monkeypatch.setattr(readers, "MAX_LINE", 300)
    data = f"{tree}/data"
    config = _config(tree, data)
    log = _transcript(tree, [("read_text_file", {"path": f"{data}/a.txt"}, True,
                              "Access denied " + "z" * 2000)])
    (row,) = Shadow(str(config)).run([str(log)])
    assert row.agree is None and "cut before the answer says whether" in row.why


def test_an_entry_of_a_server_the_explorer_doesnt_model(tree: Path) -> None:
    config = tree / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"notes": {
        "command": "python", "args": ["notes_server.py"]}}}), encoding="utf-8")
    log = _transcript(tree, [("read_note", {"path": "/n"}, False, "hi")], entry="notes")
    code, rows, _ = _rows(log, "--client-config", config)
    assert code == 0 and rows[0]["agree"] is None
    assert rows[0]["why"].startswith("entry 'notes': ")
    assert "which the explorer doesn't model" in rows[0]["why"]


def test_a_log_naming_no_server_needs_entry_when_the_config_has_two(tree: Path) -> None:
    data = f"{tree}/data"
    config = tree / "mcp.json"
    entry = {"command": "npx", "args": ["-y", f"{FS_PACKAGE}@2026.8.31", data]}
    config.write_text(json.dumps({"mcpServers": {"one": entry, "two": entry}}),
                      encoding="utf-8")
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "read_text_file", "arguments": {"path": f"{data}/a.txt"}}}
    reply = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text",
                                                                "text": "alpha"}]}}
    log = tree / "vscode.log"
    log.write_text(f"[editor -> server] {json.dumps(request)}\n"
                   f"[server -> editor] {json.dumps(reply)}\n", encoding="utf-8")
    code, rows, _ = _rows(log, "--client-config", config)
    assert code == 0 and rows[0]["agree"] is None
    assert "name its entry with --entry" in rows[0]["why"]
    code, rows, _ = _rows(log, "--client-config", config, "--entry", "two")
    assert code == 0 and rows[0]["agree"] is True and rows[0]["entry"] == "two"
