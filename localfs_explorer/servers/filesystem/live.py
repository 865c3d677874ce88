"""Talking to a running filesystem server over stdio, with the official MCP Python SDK.

:func:`session` starts the server's command, completes the handshake (answering the
server's ``roots/list`` with the given roots when there are any, and waiting until the
exchange has settled), and yields a :class:`LiveSession` whose calls return what the
model would see: ``(is_error, text)``. ``verify`` asks it for ``tools/list``,
``list_allowed_directories`` and read-only ``get_file_info`` probes; the differential
tests call the tools themselves.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...errors import LocalfsError

__all__ = ["LiveSession", "LiveTool", "ServerStartError", "session", "split_command"]


@dataclass(frozen=True)
class LiveTool:
    """One tool as ``tools/list`` shows it: its name and annotation hints."""

    name: str
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "readOnlyHint": self.read_only,
                "destructiveHint": self.destructive, "idempotentHint": self.idempotent,
                "openWorldHint": self.open_world}


@dataclass
class LiveSession:
    """An open session with a running server."""

    raw: Any
    server_name: str = ""
    server_version: str = ""
    roots_asked: bool = False
    stderr: list[str] = field(default_factory=list)

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> tuple[bool, str]:
        """Call ``tool``; its error flag and its text content (joined)."""
        result = await self.raw.call_tool(tool, dict(arguments))
        texts = [getattr(c, "text", "") or "" for c in result.content]
        return bool(result.is_error), "\n".join(texts)

    async def tools(self) -> list[LiveTool]:
        """``tools/list``, every page."""
        found: list[LiveTool] = []
        cursor = None
        for _ in range(1000):
            params = None
            if cursor:
                from mcp import types

                params = types.PaginatedRequestParams(cursor=cursor)
            page = await self.raw.list_tools(params=params)
            for t in page.tools:
                a = t.annotations
                found.append(LiveTool(
                    t.name,
                    getattr(a, "read_only_hint", None) if a else None,
                    getattr(a, "destructive_hint", None) if a else None,
                    getattr(a, "idempotent_hint", None) if a else None,
                    getattr(a, "open_world_hint", None) if a else None,
                ))
            cursor = getattr(page, "next_cursor", None)
            if not cursor:
                break
        return found

    async def allowed_directories(self) -> list[str]:
        """What ``list_allowed_directories`` answers, as a list (its first line dropped)."""
        is_error, text = await self.call("list_allowed_directories", {})
        if is_error:
            raise RuntimeError(f"list_allowed_directories failed: {text}")
        lines = text.split("\n")
        return lines[1:] if lines and lines[0].startswith("Allowed directories") else lines


def split_command(command: str | Sequence[str]) -> list[str]:
    """A command line as its words (a string is split as a POSIX shell would)."""
    return shlex.split(command) if isinstance(command, str) else list(command)


@contextlib.asynccontextmanager
async def session(
    argv: Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    roots: Sequence[str] | None = None,
    settle: float = 0.3,
) -> AsyncIterator[LiveSession]:
    """Start ``argv`` as a stdio MCP server and yield a session with it.

    ``roots`` None: the client advertises no roots capability. Otherwise the server's
    ``roots/list`` is answered with these URIs, and the session is yielded once the
    server has asked and ``settle`` seconds have passed (it applies roots after it
    asks, without telling the client).
    """
    import anyio
    from mcp import types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=argv[0], args=list(argv[1:]),
        env=dict(env) if env is not None else dict(os.environ), cwd=cwd,
    )
    asked = anyio.Event()

    async def list_roots(context: Any) -> types.ListRootsResult:
        asked.set()
        return types.ListRootsResult(
            roots=[types.Root(uri=u) for u in roots or ()])  # type: ignore[arg-type]

    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:

        def said() -> list[str]:
            log.flush()
            log.seek(0)
            return [ln for ln in log.read().splitlines() if ln.strip()]

        live: LiveSession | None = None
        try:
            async with (
                stdio_client(params, errlog=log) as streams,
                ClientSession(streams[0], streams[1],
                              list_roots_callback=list_roots if roots is not None else None
                              ) as raw,
            ):
                init = await raw.initialize()
                info = getattr(init, "server_info", None)
                live = LiveSession(raw, str(getattr(info, "name", "") or ""),
                                   str(getattr(info, "version", "") or ""))
                if roots is not None:
                    with anyio.move_on_after(5):
                        await asked.wait()
                    live.roots_asked = asked.is_set()
                    await anyio.sleep(settle)
                try:
                    yield live
                finally:
                    live.stderr = said()
        except Exception as exc:
            if live is not None:  # the caller's own failure, inside the session
                raise
            lines = said()
            last = f"; it said: {lines[-1].strip()[:300]}" if lines else ""
            raise ServerStartError(f"{_leaf_text(exc)}{last}") from None


class ServerStartError(LocalfsError):
    """The server could not be started or did not complete the handshake."""


def _leaf_text(exc: BaseException) -> str:
    while (inner := getattr(exc, "exceptions", None)) and isinstance(inner[0], BaseException):
        exc = inner[0]
    return " ".join(str(exc).split()) or type(exc).__name__
