"""``tools`` (what the server registers) and ``probe`` (what the model gets from calls)."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any, TextIO

from ..textsafe import one_line
from ..userfiles import parse_json, read_text
from . import options as cli


def register(sub: Any, env_options: argparse.ArgumentParser) -> None:
    """Add the tools and probe commands."""
    catalog_opts = argparse.ArgumentParser(add_help=False)
    group = catalog_opts.add_argument_group("tool catalog")
    source = group.add_mutually_exclusive_group()
    source.add_argument("--catalog", metavar="FILE",
                        help="a catalog in the shipped format (JSON or TOML) instead of "
                        "the server's own")
    source.add_argument("--tools-list", metavar="FILE",
                        help="an MCP tools/list result; path parameters are guessed from "
                        "argument names")

    p = sub.add_parser("tools", parents=[env_options, catalog_opts],
                       help="which tools the server registers under this configuration")
    p.add_argument("--json", action="store_true",
                   help="the registration as one JSON object")
    p.set_defaults(handler=cmd_tools)

    p = sub.add_parser("probe", parents=[env_options, catalog_opts],
                       help="what the model gets back from tool calls")
    calls = p.add_mutually_exclusive_group(required=True)
    calls.add_argument("--call", metavar="JSON",
                       help='one tools/call params object: {"name": ..., "arguments": {...}}; '
                       'it may add "drive_names": [...] to describe the Drive side of a sync')
    calls.add_argument("--calls", metavar="FILE.jsonl",
                       help="one call per line (- reads stdin)")
    p.add_argument("--access", metavar="FILE",
                   help="tool access lists (TOML or JSON; tables server, group, member)")
    cli.hangar_route_options(p)
    p.add_argument("--over-http", action=argparse.BooleanOptionalAction, default=None,
                   help="whether calls arrive over HTTP (default: by transport)")
    p.add_argument("--expect", metavar="PATH", action="append", default=[],
                   help="a path the call is expected to touch (checked; repeatable)")
    p.add_argument("--walk-limit", metavar="N", type=cli.positive_int, default=10_000,
                   help="stop a folder walk after N entries, saying so (default 10000)")
    p.add_argument("--no-discover", dest="discover", action="store_false",
                   help="check only the paths the catalog describes")
    p.add_argument("--sensitive-pattern", metavar="GLOB", action="append", default=[],
                   help="a file-name glob to add to the sensitive-file advice, e.g. "
                   "'*.kdbx' (repeatable; also LOCALFS_EXPLORER_SENSITIVE_PATTERNS, "
                   "comma-separated)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON object per call")
    fmt.add_argument("--csv", action="store_true", help="one CSV row per (call, path)")
    p.set_defaults(handler=cmd_probe)


def load_catalog_option(args: argparse.Namespace) -> Any:
    """The catalog named by --catalog / --tools-list (None: the shipped one)."""
    from ..catalog import CatalogError, catalog_from_tools_list, load_catalog

    try:
        if args.catalog:
            return load_catalog(args.catalog)
        if args.tools_list:
            data = parse_json(read_text(args.tools_list, cli.UsageError), args.tools_list,
                              cli.UsageError)
            return catalog_from_tools_list(data, source=args.tools_list)
    except CatalogError as exc:
        raise cli.UsageError(str(exc)) from None
    return None


def cmd_tools(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if (code := cli.server_command("tools", args, out, err)) is not None:
        return code
    from ..server import server_of

    policy = cli.build_policy(args)
    cli.warn_config(policy, err)
    server = server_of(policy)
    catalog = load_catalog_option(args) or server.catalog()
    registration = server.register_tools(policy, catalog)
    if args.json:
        out.write(json.dumps({
            "mode": registration.mode,
            "registered": registration.registered,
            "unregistered": registration.unregistered,
            "not_enabled": registration.not_enabled,
            "unknown_enabled": registration.unknown_enabled,
            "warnings": registration.warnings,
            "tools": [_tool_record(t) for t in catalog.tools],
        }, ensure_ascii=False) + "\n")
    else:
        out.write(f"mode {registration.mode}: {len(registration.registered)} tools "
                  "registered\n")
        for name in registration.registered:
            out.write(f"  + {name}\n")
        for name in registration.unregistered:
            out.write(f"  - {name}  (local-only, dropped in off mode)\n")
        for name in registration.not_enabled:
            out.write(f"  . {name}  (not in ENABLED_TOOLS)\n")
        for warning in registration.warnings:
            err.write(f"warning: {one_line(warning)}\n")
    return 2 if policy.errors else 0


def _tool_record(tool: Any) -> dict[str, Any]:
    """A catalog tool for ``tools --json``: its name, MCP annotations and path arguments."""
    hints = tool.hints.model_dump(exclude_none=True) if tool.hints is not None else {}
    hints.pop("title", None)
    return {"name": tool.name, "annotations": hints,
            "params": [{"location": p.location, "op": p.op} for p in tool.params],
            "destructive": tool.destructive}


def _calls(args: argparse.Namespace) -> Any:
    if args.calls:
        return args.calls
    try:
        call = json.loads(args.call)
    except json.JSONDecodeError as exc:
        raise cli.UsageError(f"--call is not JSON ({exc.msg})") from None
    return [call]


def sensitive_patterns_option(args: argparse.Namespace) -> tuple[str, ...]:
    """The extra sensitive-name globs: the environment's, then ``--sensitive-pattern``."""
    from ..sensitive import (
        SENSITIVE_PATTERNS_ENV,
        SensitivePatternsError,
        check_extra_patterns,
        extra_patterns_from_env,
    )

    try:
        from_env = extra_patterns_from_env(os.environ)
    except SensitivePatternsError as exc:
        raise cli.UsageError(f"{SENSITIVE_PATTERNS_ENV}: {exc}") from None
    try:
        return check_extra_patterns((*from_env, *args.sensitive_pattern))
    except SensitivePatternsError as exc:
        raise cli.UsageError(f"--sensitive-pattern: {exc}") from None


def cmd_probe(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..probe import ProbeError, VerdictCsv, iter_call_verdicts
    from ..server import server_of

    policy = cli.build_policy(args)
    cli.warn_config(policy, err)
    access = cli.access_option(args)
    extra_sensitive = sensitive_patterns_option(args)
    table = VerdictCsv(out) if args.csv else None
    all_ok = True
    malformed = False
    catalog = load_catalog_option(args)
    known = set((catalog or server_of(policy).catalog()).names())
    try:
        verdicts = iter_call_verdicts(
            policy, _calls(args), over_http=args.over_http, access=access,
            catalog=catalog, expected_paths=tuple(args.expect),
            walk_limit=args.walk_limit, discover=args.discover,
            extra_sensitive=extra_sensitive,
        )
        for verdict in verdicts:
            # A tool the catalog doesn't know is not OK: nothing vouches for the paths its
            # verdict rests on (they are guessed), so it doesn't pass as all allowed.
            unknown = bool(verdict.name) and verdict.name not in known
            if unknown:
                err.write(f"note: {verdict.name} is not in the catalog: its paths are "
                          "guessed, so the call doesn't count as allowed\n")
            all_ok = all_ok and verdict.outcome == "ok" and not unknown
            malformed = malformed or verdict.malformed
            if args.json:
                out.write(json.dumps(verdict.to_json_dict(), ensure_ascii=False) + "\n")
            elif table:
                table.write(verdict)
            else:
                _print_verdict(verdict, out)
            if verdict.outcome == "error":
                err.write(f"error: {one_line(verdict.message)}\n")
    except ProbeError as exc:
        raise cli.UsageError(str(exc)) from None
    # A call that isn't a call is an input error (2); a well-formed call the tool would
    # answer with an error is a "no" like a refusal (1), so CI can tell the two apart.
    if malformed or policy.errors:
        return 2
    return 0 if all_ok else 1


def _print_verdict(verdict: Any, out: TextIO) -> None:
    where = f"#{verdict.index} " if verdict.index is not None else ""
    out.write(f"{where}{verdict.name}: {verdict.outcome.upper()}  (gate {verdict.gate}"
              f"{'' if verdict.visible else ', not visible'})\n")
    if verdict.message and verdict.outcome == "partial":
        # Per-item errors inside a successful result: each line as the model reads it.
        for line in verdict.message.split("\n"):
            out.write(f"    in the result: {one_line(line)}\n")
    elif verdict.message:
        out.write(f"    model sees: {one_line(verdict.message)}\n")
    for p in verdict.paths:
        mark = "ok     " if p.allowed else "REFUSED"
        # A refusal that doesn't fail the call says how it shows (``skipped``, ...).
        how = f" ({p.step})" if p.step and not p.allowed else ""
        out.write(f"    {mark} {p.op:<10} {one_line(p.argument)}: {one_line(p.path)}"
                  f"{'' if p.allowed else '  [' + p.reason + ']'}{how}\n")
        if p.sensitive:
            out.write(f"            advice: {one_line(p.sensitive)}\n")
    for note in verdict.notes:
        out.write(f"    note: {one_line(note)}\n")
