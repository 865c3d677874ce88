"""``access``: what mcp-hangar does with a tool call on one route, beside what its rule says."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from ..textsafe import one_line
from . import options as cli


def register(sub: Any, env_options: argparse.ArgumentParser) -> None:
    """Add the access command (no environment options: it reads a hangar config only)."""
    p = sub.add_parser(
        "access", help="which tools mcp-hangar shows, holds or hides on a call route",
        description=(
            "Answer as mcp-hangar 2.34.4 does for calls to SERVER: visible, held for approval "
            "(with timeout and channel) or hidden, and the scope that decided; beside it the "
            "answer by hangar's documented rule, and a finding where the two differ. Without "
            "--tool, every tool of the server's catalog (its tools list in the config, else "
            "the default server's catalog)."),
    )
    p.add_argument("--hangar", metavar="FILE", required=True,
                   help="the mcp-hangar configuration (YAML)")
    p.add_argument("--server", metavar="ID", required=True,
                   help="the server the call reaches")
    p.add_argument("--via", metavar="GROUP",
                   help="the call goes through this group to its member ID (default: the call "
                   "names ID directly)")
    p.add_argument("--tenant", metavar="ID", type=_tenant,
                   help="the caller's tenant (default: none)")
    p.add_argument("--tool", metavar="NAME", action="append", default=[],
                   help="a tool name (repeatable; default: the server's catalog)")
    p.add_argument("--json", action="store_true", help="one JSON object per tool")
    p.set_defaults(handler=cmd_access)


def _tenant(text: str) -> str:
    if not text:
        raise argparse.ArgumentTypeError("a tenant id can't be empty")
    return text


def hangar_route(args: argparse.Namespace) -> tuple[Any, Any]:
    """The config and route named by --hangar/--server/--via/--tenant (usage errors as such)."""
    from ..access.hangar import CallRoute
    from ..access.hangar_config import HangarConfigError, load_hangar

    try:
        config = load_hangar(args.hangar)
    except HangarConfigError as exc:
        raise cli.UsageError(str(exc)) from None
    return config, CallRoute(server=args.server, via=args.via, tenant=args.tenant)


def catalog_names(config: Any, server: str) -> tuple[list[str], str]:
    """The tool names for listing mode, and where they came from."""
    declared = config.catalogs.get(server)
    if declared:
        return list(declared), f"the tools list of {server} in {config.source}"
    from ..server import get_server

    default = get_server()
    return [t.name for t in default.catalog().tools], f"{default.id}'s catalog"


def cmd_access(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..access.hangar import answer_tools
    from ..access.hangar_config import HangarConfigError

    config, route = hangar_route(args)
    for warning in config.warnings:
        err.write(f"warning: {one_line(warning)}\n")
    tools = list(args.tool)
    if not tools:
        tools, origin = catalog_names(config, route.server)
        if not args.json:
            out.write(f"# tools: {origin}\n")
    try:
        answers = answer_tools(config, route, tools)
    except HangarConfigError as exc:
        raise cli.UsageError(str(exc)) from None
    if args.json:
        for answer in answers:
            out.write(json.dumps(answer.to_json_dict(), ensure_ascii=False) + "\n")
        return 0
    _table(answers, route, config, out)
    return 0


def _table(answers: list[Any], route: Any, config: Any, out: TextIO) -> None:
    """Findings first, then every tool: state, timeout and channel, deciding scope."""
    out.write(f"# {route.describe()}, {config.mode} topology, {config.source}\n")
    ordered = sorted(answers, key=lambda a: a.finding is None)
    rows = [("TOOL", "HANGAR", "WAIT", "CHANNEL", "DOCUMENTED", "DECIDED BY")]
    for a in ordered:
        doc = a.documented
        doc_state = "hidden" if not doc.visible else "held" if doc.held else "visible"
        if doc.held and doc.timeout != a.timeout:
            doc_state += f" {doc.timeout}s"
        rows.append((one_line(a.tool), a.state.upper() if a.finding else a.state,
                     f"{a.timeout}s" if a.timeout is not None else "-",
                     one_line(a.channel) if a.channel else "-", doc_state, one_line(a.scope)))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        out.write("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:5]))
                  + "  " + row[5] + "\n")
    findings = [a for a in ordered if a.finding]
    if findings:
        out.write(f"\n{len(findings)} finding(s): hangar departs from its documented rule\n")
        for a in findings:
            out.write(f"  - {one_line(a.finding)}\n")
