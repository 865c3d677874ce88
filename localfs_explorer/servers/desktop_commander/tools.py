"""DesktopCommanderMCP's tools, read from ``data/tools.json`` (taken from its own
``tools/list``): names, titles, annotation hints, arguments, and which arguments go
through the path check with the operation that implies."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["DcTool", "load_tools", "tool_named"]


@dataclass(frozen=True)
class DcTool:
    """One tool: ``params`` are ``(argument, op)`` pairs checked in order;
    ``bypasses_directories`` marks tools that reach files without the check."""

    name: str
    title: str
    annotations: dict[str, bool]
    arguments: tuple[str, ...]
    required: tuple[str, ...]
    params: tuple[tuple[str, str], ...]
    note: str
    bypasses_directories: bool

    @property
    def destructive(self) -> bool:
        """MCP's reading of the hints: not read-only and not declared non-destructive."""
        if self.annotations.get("readOnlyHint"):
            return False
        return self.annotations.get("destructiveHint", True) is not False


@cache
def load_tools() -> tuple[DcTool, ...]:
    """The shipped tool list, in the server's own order."""
    text = resources.files(__package__).joinpath("data/tools.json").read_text("utf-8")
    raw = json.loads(text)
    return tuple(
        DcTool(name=t["name"], title=t.get("title") or t["name"],
               annotations=dict(t.get("annotations") or {}),
               arguments=tuple(t.get("arguments") or ()),
               required=tuple(t.get("required") or ()),
               params=tuple((p["location"], p["op"]) for p in t.get("params") or ()),
               note=t.get("note", ""), bypasses_directories=bool(t.get("bypasses_directories")))
        for t in raw["tools"])


def tool_named(name: str) -> DcTool | None:
    """The tool called ``name``, or None."""
    return next((t for t in load_tools() if t.name == name), None)
