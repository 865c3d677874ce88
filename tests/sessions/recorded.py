"""Sessions recorded from a real server, written out in each log format shadow reads.

:func:`record` drives a server over stdio with the ``mcp`` SDK and keeps each call with
what the server answered; the writers put those exchanges into a Claude Code
transcript, VS Code's MCP output (new and older markers), Claude Desktop's per-server
log and an MCP Inspector History export, the way those clients write them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Exchange:
    """One tool call and the server's answer to it."""

    tool: str
    arguments: dict[str, Any]
    is_error: bool
    text: str


def record(argv: Sequence[str], calls: Sequence[tuple[str, dict[str, Any]]], *,
           env: Mapping[str, str], cwd: str) -> list[Exchange]:
    """Start ``argv`` as a stdio MCP server, make ``calls`` in order, keep the answers."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=argv[0], args=list(argv[1:]), env=dict(env),
                                   cwd=cwd)
    out: list[Exchange] = []

    async def go() -> None:
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                for name, arguments in calls:
                    result = await session.call_tool(name, dict(arguments))
                    text = "\n".join(getattr(c, "text", "") or "" for c in result.content)
                    out.append(Exchange(name, dict(arguments), bool(result.is_error), text))

    anyio.run(go)
    return out


def _dump(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def claude_code(path: Path, entry: str, exchanges: Sequence[Exchange]) -> Path:
    lines: list[dict[str, Any]] = [
        {"type": "user", "sessionId": "s1", "message": {"role": "user",
                                                         "content": "look at my files"}}]
    for i, ex in enumerate(exchanges):
        ident = f"toolu_{i:04d}"
        lines.append({"type": "assistant", "sessionId": "s1", "message": {
            "role": "assistant", "content": [
                {"type": "text", "text": f"Calling {ex.tool}."},
                {"type": "tool_use", "id": ident, "name": f"mcp__{entry}__{ex.tool}",
                 "input": ex.arguments}]}})
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": ident,
                                 "content": [{"type": "text", "text": ex.text}]}
        if ex.is_error:
            block["is_error"] = True
        lines.append({"type": "user", "sessionId": "s1",
                      "message": {"role": "user", "content": [block]}})
    path.write_text("".join(_dump(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _request(i: int, ex: Exchange) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": ex.tool, "arguments": ex.arguments}}


def _response(i: int, ex: Exchange) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": ex.text}]}
    if ex.is_error:
        result["isError"] = True
    return {"jsonrpc": "2.0", "id": i, "result": result}


def vs_code(path: Path, exchanges: Sequence[Exchange], *, older: bool = False) -> Path:
    to, back = ("[Client Says]", "[Server Says]") if older else \
        ("[editor -> server]", "[server -> editor]")
    lines = ["2026-03-01 09:00:00.000 [info] Starting server",
             f"2026-03-01 09:00:00.010 [trace] {to} "
             + _dump({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
             f"2026-03-01 09:00:00.020 [trace] {back} "
             + _dump({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {}}})]
    for i, ex in enumerate(exchanges, 1):
        lines.append(f"2026-03-01 09:00:{i % 60:02d}.000 [trace] {to} {_dump(_request(i, ex))}")
        lines.append(f"2026-03-01 09:00:{i % 60:02d}.500 [trace] {back} "
                     + _dump(_response(i, ex)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def claude_desktop(path: Path, entry: str, exchanges: Sequence[Exchange]) -> Path:
    meta = " { metadata: undefined }"
    lines = [f"2026-03-01T09:00:00.000Z [{entry}] [info] Initializing server...{meta}"]
    for i, ex in enumerate(exchanges, 1):
        lines.append(f"2026-03-01T09:00:{i % 60:02d}.000Z [{entry}] [info] Message from "
                     f"client: {_dump(_request(i, ex))}{meta}")
        lines.append(f"2026-03-01T09:00:{i % 60:02d}.500Z [{entry}] [info] Message from "
                     f"server: {_dump(_response(i, ex))}{meta}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def inspector(path: Path, exchanges: Sequence[Exchange]) -> Path:
    history = [{"direction": "request", "timestamp": 1_700_000_000_000,
                "message": {"method": "tools/list"}, "response": {"tools": []}}]
    for i, ex in enumerate(exchanges, 1):
        response: dict[str, Any] = {"content": [{"type": "text", "text": ex.text}]}
        if ex.is_error:
            response["isError"] = True
        history.append({"direction": "request", "timestamp": 1_700_000_000_000 + i,
                        "message": {"method": "tools/call",
                                    "params": {"name": ex.tool, "arguments": ex.arguments}},
                        "response": response})
    path.write_text(json.dumps(history, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def every_format(base: Path, entry: str, exchanges: Sequence[Exchange]) -> dict[str, Path]:
    """The exchanges written in every format, by a name for each."""
    return {
        "claude-code": claude_code(base / "session.jsonl", entry, exchanges),
        "vs-code": vs_code(base / "vscode-mcp.log", exchanges),
        "vs-code-older": vs_code(base / "vscode-old.log", exchanges, older=True),
        "claude-desktop": claude_desktop(base / f"mcp-server-{entry}.log", entry, exchanges),
        "inspector": inspector(base / "history.json", exchanges),
    }
