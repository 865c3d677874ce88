"""DesktopCommanderMCP running over stdio, driven with the MCP Python SDK.

:func:`session` starts its command with the given ``HOME`` and working directory and
yields a :class:`DcSession`: tool calls as the model sees them (``(is_error, text)``),
``tools/list`` and ``get_config``. :func:`verify_live` compares a running server with the
prediction: its settings (``allowedDirectories``, ``blockedCommands`` as ``get_config``
shows them), its tools and their annotations, and read-only ``get_file_info`` probes.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...errors import LocalfsError

__all__ = ["DcSession", "DcStartError", "DcVerifyReport", "predicted_config", "session",
           "verify_live"]


class DcStartError(LocalfsError):
    """The server could not be started or did not complete the handshake."""


@dataclass
class DcSession:
    """An open session with a running DesktopCommanderMCP."""

    raw: Any
    name: str = ""
    version: str = ""

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> tuple[bool, str]:
        """Call ``tool``: its error flag and its text content (joined)."""
        result = await self.raw.call_tool(tool, dict(arguments))
        texts = [getattr(c, "text", "") or "" for c in result.content]
        return bool(result.is_error), "\n".join(texts)

    async def tools(self) -> list[dict[str, Any]]:
        """``tools/list``: each tool's name and annotation hints (MCP spelling)."""
        page = await self.raw.list_tools()
        out = []
        for t in page.tools:
            hints = (t.annotations.model_dump(by_alias=True, exclude_none=True)
                     if t.annotations else {})
            hints.pop("title", None)
            out.append({"name": t.name, "annotations": hints})
        return out

    async def config(self) -> dict[str, Any]:
        """The settings ``get_config`` shows (the JSON after its first line)."""
        is_error, text = await self.call("get_config", {})
        head, _, body = text.partition("\n")
        if is_error or not head.startswith("Current configuration"):
            raise LocalfsError(f"get_config failed: {text[:200]}")
        found = json.loads(body)
        return found if isinstance(found, dict) else {}


@contextlib.asynccontextmanager
async def session(argv: Sequence[str], *, home: str, cwd: str | None = None,
                  env: Mapping[str, str] | None = None) -> AsyncIterator[DcSession]:
    """Start ``argv`` (``node .../dist/index.js``) with ``HOME=home`` over stdio."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    environment = {"PATH": os.environ.get("PATH", ""), **(env or {}), "HOME": home}
    params = StdioServerParameters(command=argv[0], args=list(argv[1:]), env=environment,
                                   cwd=cwd)
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
        live: DcSession | None = None
        try:
            async with (stdio_client(params, errlog=log) as streams,
                        ClientSession(streams[0], streams[1]) as raw):
                init = await raw.initialize()
                info = getattr(init, "server_info", None)
                live = DcSession(raw, str(getattr(info, "name", "") or ""),
                                 str(getattr(info, "version", "") or ""))
                yield live
        except Exception as exc:
            if live is not None:
                raise
            raise DcStartError(f"{argv[0]} did not start as an MCP server: "
                                   f"{_leaf(exc)}") from None


def _leaf(exc: BaseException) -> str:
    while (inner := getattr(exc, "exceptions", None)) and isinstance(inner[0], BaseException):
        exc = inner[0]
    return " ".join(str(exc).split())[:300] or type(exc).__name__


def predicted_config(policy: Any) -> dict[str, Any]:
    """What ``get_config`` shows of the settings before any file tool has run:
    ``allowedDirectories`` as configured (absent when the file sets none; the server
    writes the home directory in on the first check) and ``blockedCommands`` (absent
    when the file sets none: then no command is blocked)."""
    s = policy.policy.settings
    out: dict[str, Any] = {}
    if s.configured is not None:
        out["allowedDirectories"] = list(s.configured)
    if "blockedCommands" in s.raw:
        out["blockedCommands"] = list(s.blocked_commands)
    return out


@dataclass
class DcVerifyReport:
    """The comparison: ``differences`` (empty: agreement) and what was asked."""

    server: str = ""
    version: str = ""
    checked: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return not self.differences

    def to_dict(self) -> dict[str, Any]:
        return {"server": self.server, "version": self.version, "agree": self.agree,
                "checked": self.checked, "differences": self.differences}

    def lines(self) -> list[str]:
        return [f"{self.server} {self.version}: {len(self.checked)} checks, "
                f"{len(self.differences)} differences",
                *(f"  DRIFT {d}" for d in self.differences)]


def probe_paths(policy: Any) -> list[str]:
    """Read-only probes: each allowed directory, its prefix sibling, its case twin,
    the home directory and ``/``."""
    from .policy import case_twin

    dc = policy.policy
    out: list[str] = []
    for d in dc.allowed:
        full = dc.absolute(d)
        out += [full] if full == "/" else [full, full + "-sibling", case_twin(full)]
    return list(dict.fromkeys([*out, dc.home, "/"]))


async def _compare(live: DcSession, policy: Any, report: DcVerifyReport) -> None:
    from .tools import load_tools

    report.server, report.version = live.name, live.version
    got = await live.config()
    predicted = predicted_config(policy)
    for key in ("allowedDirectories", "blockedCommands"):
        report.checked.append(f"get_config {key}")
        if got.get(key) != predicted.get(key):
            report.differences.append(f"get_config {key}: predicted "
                                      f"{predicted.get(key, 'none')!r}, server "
                                      f"{got.get(key, 'none')!r}")
    tools = {t["name"]: t["annotations"] for t in await live.tools()}
    report.checked.append("tools/list")
    for t in load_tools():
        if t.name not in tools:
            report.differences.append(f"tool {t.name}: predicted, not listed")
        elif tools[t.name] != t.annotations:
            report.differences.append(f"tool {t.name}: annotations predicted "
                                      f"{t.annotations}, server {tools[t.name]}")
    known = {t.name for t in load_tools()}
    report.differences.extend(f"tool {n}: listed, not predicted" for n in tools
                              if n not in known)
    for path in probe_paths(policy):
        v = policy.policy.validate(path)
        report.checked.append(f"get_file_info {path}")
        is_error, text = await live.call("get_file_info", {"path": path})
        expected = f"Error: {v.message}"
        if not v.allowed and (not is_error or text != expected):
            report.differences.append(f"get_file_info {path}: predicted {expected!r}, "
                                      f"server {'error ' + repr(text) if is_error else 'answered'}")
        elif v.allowed and is_error and text.startswith(("Error: Path not allowed",
                                                          "Error: Failed to resolve")):
            report.differences.append(f"get_file_info {path}: predicted allowed, server "
                                      f"refused {text!r}")


def verify_live(policy: Any, argv: Sequence[str], *, timeout: float = 30.0) -> DcVerifyReport:
    """Start the server (``HOME`` and working directory of ``policy``) and compare.

    Raises :class:`DcStartError` when it can't be run.
    """
    import anyio

    report = DcVerifyReport()

    async def run() -> None:
        with anyio.fail_after(timeout):
            async with session(argv, home=policy.policy.home, cwd=policy.cwd) as live:
                await _compare(live, policy, report)

    try:
        anyio.run(run)
    except TimeoutError:
        raise DcStartError(f"no answer within {timeout:g}s") from None
    except OSError as exc:
        raise DcStartError(f"{argv[0]}: {exc.strerror or exc}") from None
    return report
