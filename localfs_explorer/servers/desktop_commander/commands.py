"""The command line's answers for DesktopCommanderMCP (``--server desktop-commander``).

``tools`` lists its tools with their hints and checked arguments, ``auth-status`` shows
what ``get_config`` would answer of its settings, ``verify`` starts it and compares
(exit 0 agree, 1 drift, 2 can't run), ``suggest`` proposes a narrow allow-list.
"""

from __future__ import annotations

import json
import shlex
from typing import Any, TextIO

from ...errors import LocalfsError

__all__ = ["run"]


def run(name: str, policy: Any, args: Any, out: TextIO, err: TextIO) -> int | None:
    handler = {"tools": _tools, "auth-status": _status, "verify": _verify,
               "suggest": _suggest}.get(name)
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


def _status(policy: Any, args: Any, out: TextIO, err: TextIO) -> int:
    from .live import predicted_config

    out.write(json.dumps({"tool": "get_config", "config": predicted_config(policy)},
                         ensure_ascii=False, indent=2) + "\n")
    return 0


def _verify(policy: Any, args: Any, out: TextIO, err: TextIO) -> int:
    from .live import ServerStartError, verify_live

    if getattr(args, "url", None):
        raise LocalfsError("desktop-commander speaks stdio only: give --command, not --url")
    try:
        # Without --command, a --client-config entry's own words (its HOME, and so its
        # settings file, comes with the entry's environment).
        argv = (shlex.split(args.command) if args.command
                else list(getattr(args, "_entry_argv", ())))
    except ValueError as exc:
        raise LocalfsError(f"--command can't be split into words: {exc}") from None
    if not argv:
        raise LocalfsError("verify --server desktop-commander needs --command (how to "
                           "start it, e.g. 'node .../dist/index.js')")
    try:
        report = verify_live(policy, argv, timeout=args.timeout or 60.0)
    except ServerStartError as exc:
        err.write(f"verify: can't run the server: {exc}\n")
        return 2
    if getattr(args, "json", False):
        out.write(json.dumps(report.to_dict(), ensure_ascii=False) + "\n")
    else:
        out.write(f"{report.server} {report.version}: {len(report.checked)} checks, "
                  f"{len(report.differences)} differences\n")
        for d in report.differences:
            out.write(f"  DRIFT {d}\n")
    return 0 if report.agree else 1


def _suggest(policy: Any, args: Any, out: TextIO, err: TextIO) -> int:
    from .suggest import parse_requirement, suggest

    if getattr(args, "output", None) or getattr(args, "in_place", False):
        raise LocalfsError("desktop-commander has no .env to write: put the suggested "
                           "allowedDirectories in its settings file")
    if getattr(args, "calls", None) or getattr(args, "session", None):
        raise LocalfsError("suggest --server desktop-commander takes --require OP:PATH")
    result = suggest(policy.policy, [parse_requirement(r) for r in args.require])
    if getattr(args, "json", False):
        out.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
    else:
        out.writelines(line + "\n" for line in result.lines())
    return 0 if result.ok else 1
