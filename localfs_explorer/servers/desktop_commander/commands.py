"""The command line's ``tools`` for DesktopCommanderMCP: its tools with their hints,
their checked arguments and the ones that run commands without any path check (the
shared listing has no column for those). ``auth-status``, ``verify`` and ``suggest`` go
through the seam (:meth:`~.server.DesktopCommanderServer.status`, ``verify``,
``suggest``).
"""

from __future__ import annotations

import json
from typing import Any, TextIO

__all__ = ["run"]


def run(name: str, policy: Any, args: Any, out: TextIO, err: TextIO) -> int | None:
    handler = {"tools": _tools}.get(name)
    return None if handler is None else handler(policy, args, out, err)


def _tools(policy: Any, args: Any, out: TextIO, err: TextIO) -> int:
    from .tools import load_tools

    tools = load_tools()
    if getattr(args, "json", False):
        out.write(json.dumps({"registered": [t.name for t in tools], "tools": [
            {"name": t.name, "title": t.title, "annotations": t.annotations,
             "paths": [{"argument": a, "op": o} for a, o in t.params],
             "bypasses_allowed_directories": t.bypasses_directories, "note": t.note}
            for t in tools]}, ensure_ascii=False) + "\n")
        return 0
    out.write(f"desktop-commander: all {len(tools)} tools registered\n")
    for t in tools:
        hints = ("read-only" if t.annotations.get("readOnlyHint")
                 else "destructive" if t.destructive else "writes, not destructive")
        shown = ("NO PATH CHECK (runs commands)" if t.bypasses_directories else
                 ", ".join(f"{a} ({o})" for a, o in t.params) or "no path")
        out.write(f"  + {t.name:<34} {hints:<24} {shown}\n")
    return 0
