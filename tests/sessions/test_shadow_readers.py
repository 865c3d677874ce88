"""The log readers on small hand-written logs: each format, cut lines, redaction, bounds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localfs_explorer.sessions import LogError, LogStats, detect_format, read_log
from localfs_explorer.sessions import readers as readers_module


def _use(ident: str, name: str, arguments: dict) -> dict:
    return {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "text", "text": "let me look"},
        {"type": "tool_use", "id": ident, "name": name, "input": arguments}]}}


def _result(ident: str, content: object, is_error: bool | None = None) -> dict:
    block: dict = {"type": "tool_result", "tool_use_id": ident, "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return {"type": "user", "message": {"role": "user", "content": [block]}}


def _jsonl(path: Path, objs: list) -> Path:
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n"
                            for o in objs), encoding="utf-8")
    return path


def test_claude_code_pairs_calls_and_answers(tmp_path: Path) -> None:
    log = _jsonl(tmp_path / "s.jsonl", [
        {"type": "user", "message": {"role": "user", "content": "read my notes"}},
        _use("t1", "mcp__notes__read_text_file", {"path": "/n/a.md"}),
        _use("t2", "Bash", {"command": "ls"}),  # the client's own tool: passed over
        _use("t3", "mcp__my-files__write_file", {"path": "/n/b.md", "content": "x"}),
        _result("t3", "Access denied - nope", is_error=True),
        _result("t2", "a.md"),
        _result("t1", [{"type": "text", "text": "line one"},
                       {"type": "image", "data": "..."}, {"type": "text", "text": "two"}]),
        _use("t4", "mcp__notes__list_directory", {"path": "/n"}),
    ])
    assert detect_format(str(log)) == "claude-code"
    stats = LogStats()
    calls = list(read_log(str(log), stats=stats))
    # In the order the answers came; the unanswered call last.
    assert [(c.id, c.entry, c.tool) for c in calls] == [
        ("t3", "my-files", "write_file"), ("t1", "notes", "read_text_file"),
        ("t4", "notes", "list_directory")]
    t3, t1, t4 = calls
    assert t3.answered and t3.is_error and t3.text == "Access denied - nope"
    assert t1.answered and not t1.is_error and t1.text == "line one\ntwo"
    assert t1.arguments == {"path": "/n/a.md"} and t1.line == 2
    assert not t4.answered
    assert stats.format == "claude-code" and stats.calls == 3 and stats.unanswered == 1


def test_claude_code_line_cut_by_a_viewer_is_read_for_what_remains(tmp_path: Path) -> None:
    whole = json.dumps(_result("t1", "Access denied - path outside allowed directories: "
                                     "/x/secret.txt not in /a, /b, /c", is_error=True))
    cut_at = whole.index('/c"')  # the cut takes the string's closing quote with it
    cut = whole[:cut_at] + "…[3 chars truncated]…" + whole[cut_at + 3:]
    use = json.dumps(_use("t1", "mcp__fs__read_text_file", {"path": "/x/secret.txt"}))
    cut_use = use[:-3] + "…[3 chars truncated]…"  # the call's own line, cut after the input
    log = _jsonl(tmp_path / "s.jsonl", [cut_use, cut])
    with pytest.raises(ValueError):
        json.loads(cut)
    (call,) = read_log(str(log))
    assert call.arguments == {"path": "/x/secret.txt"}
    assert call.answered and call.is_error and call.truncated
    assert call.text.startswith("Access denied - path outside allowed directories: /x/")
    assert call.text.endswith("/a, /b, …[3 chars truncated]…, ")


def test_cut_inside_the_arguments_keeps_the_call_without_them(tmp_path: Path) -> None:
    use = json.dumps(_use("t9", "mcp__fs__read_text_file", {"path": "/x/" + "y" * 50}))
    cut = use[:use.index("yyyy")] + "…[80 chars truncated]…"
    (call,) = read_log(str(_jsonl(tmp_path / "s.jsonl", [cut])))
    assert call.id == "t9" and call.arguments is None and not call.answered
    assert any("cut inside the call's arguments" in n for n in call.notes)


def _rpc(prefix: str, message: dict, suffix: str = "") -> str:
    return f"{prefix} {json.dumps(message, separators=(',', ':'))}{suffix}\n"


def _call(ident: object, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


def _reply(ident: object, text: str, is_error: bool = False) -> dict:
    result: dict = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    return {"jsonrpc": "2.0", "id": ident, "result": result}


_TO, _FROM = "2026-01-02 10:00:00.100 [trace] [editor -> server]", \
    "2026-01-02 10:00:00.200 [trace] [server -> editor]"
VS_CODE = (
    "2026-01-02 10:00:00.000 [info] Starting server files\n"
    + _rpc(_TO, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
    + _rpc(_FROM, {"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {}}})
    + _rpc(_TO, _call(2, "read_text_file", {"path": "/w/a.txt"}))
    + _rpc(_TO, _call(3, "nope", {}))
    + _rpc(_FROM, {"jsonrpc": "2.0", "id": 3,
                   "error": {"code": -32602, "message": "Unknown tool: nope"}})
    + _rpc(_FROM, _reply(2, "Access denied", is_error=True))
)
OLD_VS_CODE = (_rpc("[Client Says]", _call("a", "get_file_info", {"path": "/w"}))
               + _rpc("[Server Says]", _reply("a", "size: 1")))
_META = " { metadata: undefined }"
DESKTOP = (
    "2026-01-02T10:00:00.000Z [files] [info] Initializing server..." + _META + "\n"
    + _rpc("2026-01-02T10:00:01.000Z [files] [info] Message from client:",
           _call(7, "list_directory", {"path": "/d"}), _META)
    + _rpc("2026-01-02T10:00:01.500Z [files] [info] Message from server:",
           _reply(7, "[FILE] a"), _META)
)


def test_vs_code_output_pairs_by_id_and_reads_protocol_errors(tmp_path: Path) -> None:
    log = tmp_path / "vscode.log"
    log.write_text(VS_CODE, encoding="utf-8")
    assert detect_format(str(log)) == "jsonrpc"
    calls = list(read_log(str(log), entry="files"))
    assert [(c.id, c.tool, c.entry, c.is_error, c.text) for c in calls] == [
        ("3", "nope", "files", True, "Unknown tool: nope"),
        ("2", "read_text_file", "files", True, "Access denied")]
    assert calls[1].arguments == {"path": "/w/a.txt"} and calls[1].line == 4


def test_older_vs_code_markers(tmp_path: Path) -> None:
    log = tmp_path / "old.log"
    log.write_text(OLD_VS_CODE, encoding="utf-8")
    (call,) = read_log(str(log))
    assert (call.id, call.tool, call.entry, call.is_error, call.text) == (
        "a", "get_file_info", None, False, "size: 1")


def test_claude_desktop_log_names_its_entry(tmp_path: Path) -> None:
    log = tmp_path / "mcp-server-other.log"
    log.write_text(DESKTOP, encoding="utf-8")
    (call,) = read_log(str(log))
    # The line's [files] wins over the file's name; the trailing metadata is ignored.
    assert (call.id, call.entry, call.tool, call.arguments) == (
        "7", "files", "list_directory", {"path": "/d"})
    # An entry given for logs that name none doesn't rename this one's.
    (call,) = read_log(str(log), entry="guessed")
    assert call.entry == "files"
    assert call.answered and call.text == "[FILE] a"
    plain = tmp_path / "mcp-server-docs.log"
    plain.write_text(DESKTOP.replace("[files] [info] Message", "Message"), encoding="utf-8")
    (call,) = read_log(str(plain), entry="guessed")
    assert call.entry == "docs"
    unnamed = tmp_path / "desktop.log"
    unnamed.write_text(DESKTOP.replace("[files] [info] Message", "Message"), encoding="utf-8")
    (call,) = read_log(str(unnamed), entry="guessed")
    assert call.entry == "guessed"


def test_redacted_log_is_refused_in_one_line(tmp_path: Path) -> None:
    log = tmp_path / "mcp-server-files.log"
    log.write_text(
        '2026-01-02T10:00:01.000Z [files] [info] Message from client: '
        '{"method":"tools/call","params":{},"jsonrpc":"2.0","id":7}\n'
        '2026-01-02T10:00:01.500Z [files] [info] Message from server: '
        '{"jsonrpc":"2.0","id":7,"result":{"content":[]}}\n', encoding="utf-8")
    with pytest.raises(LogError, match=r"without their names or arguments \(a redacted log\)"):
        list(read_log(str(log)))


def test_inspector_history_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    history = [
        {"direction": "request", "timestamp": 1, "message": {"method": "tools/list"},
         "response": {"tools": []}},
        {"direction": "request", "timestamp": 2,
         "message": {"method": "tools/call", "params": {"name": "read_text_file",
                                                         "arguments": {"path": "/i/a"}}},
         "response": {"content": [{"type": "text", "text": "Access denied - x"}],
                      "isError": True}},
        {"direction": "request", "timestamp": 3,
         "message": {"method": "tools/call", "params": {"name": "list_directory",
                                                         "arguments": {"path": "/i"}}},
         "response": {"content": [{"type": "text", "text": "[FILE] a " + "z" * 300}]}},
    ]
    log = tmp_path / "history.json"
    log.write_text(json.dumps(history, indent=1), encoding="utf-8")
    assert detect_format(str(log)) == "inspector"
    monkeypatch.setattr(readers_module, "_CHUNK", 64)  # elements span many reads
    calls = list(read_log(str(log), entry="files"))
    assert [(c.tool, c.is_error, c.line) for c in calls] == [
        ("read_text_file", True, 2), ("list_directory", False, 3)]
    assert calls[0].text == "Access denied - x" and calls[1].text.endswith("z" * 300)


def test_inspector_export_cut_short_is_an_error(tmp_path: Path) -> None:
    log = tmp_path / "history.json"
    log.write_text('[{"direction": "request", "message": {"method": "tools/call"', encoding="utf-8")
    with pytest.raises(LogError, match="breaks off"):
        list(read_log(str(log)))


def test_unknown_and_missing_logs(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("just words\n", encoding="utf-8")
    with pytest.raises(LogError, match="not a log this command reads"):
        detect_format(str(text))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(LogError, match="empty"):
        detect_format(str(empty))
    with pytest.raises(LogError, match="can't read the log"):
        list(read_log(str(tmp_path / "gone.jsonl")))


def test_waiting_calls_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readers_module, "MAX_PENDING", 3)
    uses = [_use(f"t{i}", "mcp__fs__read_text_file", {"path": f"/p/{i}"}) for i in range(6)]
    log = _jsonl(tmp_path / "s.jsonl", [*uses, _result("t5", "ok")])
    calls = list(read_log(str(log)))
    # t0..t2 are let go as t3..t5 arrive (unanswered), t5 answered, t3 and t4 at the end.
    assert [(c.id, c.answered) for c in calls] == [
        ("t0", False), ("t1", False), ("t2", False), ("t5", True), ("t3", False),
        ("t4", False)]


def test_progress_reports_every_byte(tmp_path: Path) -> None:
    uses = [_use(f"t{i}", "mcp__fs__read_text_file", {"path": "/p/" + "q" * 2000})
            for i in range(800)]
    log = _jsonl(tmp_path / "s.jsonl", uses)
    seen: list[int] = []
    list(read_log(str(log), progress=seen.append))
    size = log.stat().st_size
    assert size > 1 << 20 and seen[-1] == size and len(seen) >= 2
    assert seen == sorted(seen)


def test_answer_text_is_bounded(tmp_path: Path) -> None:
    log = _jsonl(tmp_path / "s.jsonl", [
        _use("t1", "mcp__fs__read_text_file", {"path": "/p"}),
        _result("t1", "x" * (readers_module.MAX_TEXT * 3))])
    (call,) = read_log(str(log))
    assert len(call.text) == readers_module.MAX_TEXT


def test_answers_are_found_without_parsing_and_read_when_asked(tmp_path: Path) -> None:
    long = "y" * 50_000
    log = _jsonl(tmp_path / "s.jsonl", [
        _use("t1", "mcp__fs__read_text_file", {"path": "/p"}),
        _use("t2", "Read", {"file_path": "/p"}),
        _result("t2", long),  # the client's own tool: passed over
        # A success whose text mentions the keys, as a string value holds them (escaped).
        _result("t1", 'a "tool_use_id": "t9", "is_error": true in the text'),
        _use("t3", "mcp__fs__read_text_file", {"path": "/q"}),
        _result("t3", "Access denied", is_error=True),
    ])
    first, second = read_log(str(log))
    assert (first.id, first.is_error) == ("t1", False)
    assert first.text == 'a "tool_use_id": "t9", "is_error": true in the text'
    assert (second.id, second.is_error, second.text) == ("t3", True, "Access denied")


def test_a_line_longer_than_the_bound_is_read_as_a_cut_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readers_module, "MAX_LINE", 200)
    monkeypatch.setattr(readers_module, "_CHUNK", 64)
    refusal = "Access denied - outside: /x not in /data"
    long = refusal + " " + "z" * 1000
    flag_first = json.dumps({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": long}]}})
    log = _jsonl(tmp_path / "s.jsonl", [
        _use("t1", "mcp__fs__read_text_file", {"path": "/x"}), flag_first,
        _use("t2", "mcp__fs__read_text_file", {"path": "/y"}),
        _result("t2", long, is_error=True),  # the flag after the content: cut off
        _use("t3", "mcp__fs__read_text_file", {"path": "/z"}),
    ])
    calls = list(read_log(str(log)))
    assert [(c.id, c.answered) for c in calls] == [("t1", True), ("t2", True), ("t3", False)]
    first, second, third = calls
    assert first.is_error and first.text.startswith(refusal) and first.truncated
    assert not first.error_unknown
    assert second.error_unknown and second.text.startswith(refusal)
    assert third.line == 5  # the lines after the long ones are counted right


def test_what_counts_as_a_redacted_call(tmp_path: Path) -> None:
    log = tmp_path / "mcp-server-files.log"
    log.write_text("2026-01-01T00:00:00Z [files] [info] Message from client: [redacted]\n",
                   encoding="utf-8")
    with pytest.raises(LogError, match="redacted"):
        list(read_log(str(log)))
    # Other words after a marker aren't a redacted call: an empty session, not an error.
    log.write_text("2026-01-01T00:00:00Z [files] [info] Message from server: (closed)\n",
                   encoding="utf-8")
    stats = LogStats()
    assert list(read_log(str(log), stats=stats)) == []
    assert stats.redacted == 0 and stats.traffic == 1


def test_calls_in_claude_codes_own_shape_and_in_any_other(tmp_path: Path) -> None:
    other_order = {"type": "assistant", "message": {"content": [
        {"id": "t2", "input": {"path": "/b"}, "name": "mcp__fs__read_text_file",
         "type": "tool_use"}]}}
    extra_field = {"type": "assistant", "message": {"content": [
        {"type": "tool_use", "id": "t3", "name": "mcp__fs__read_text_file",
         "input": {"path": "/c"}, "caller": {"type": "direct"}}]}}
    quoted = {"type": "assistant", "message": {"stop_reason": "tool_use", "content": [
        {"type": "text", "text": 'see {"type": "tool_use", "id": "fake"}'},
        {"type": "tool_use", "id": "t4", "name": "mcp__fs__list_directory",
         "input": {"path": "/d"}},
        {"type": "tool_use", "id": "t5", "name": "Bash", "input": {"command": "ls"}}]}}
    log = _jsonl(tmp_path / "s.jsonl", [
        _use("t1", "mcp__fs__read_text_file", {"path": "/a", "n": [1, {"x": "}"}]}),
        other_order, extra_field, quoted])
    calls = list(read_log(str(log)))
    assert [(c.id, c.tool, c.arguments) for c in calls] == [
        ("t1", "read_text_file", {"path": "/a", "n": [1, {"x": "}"}]}),
        ("t2", "read_text_file", {"path": "/b"}),
        ("t3", "read_text_file", {"path": "/c"}),
        ("t4", "list_directory", {"path": "/d"})]
