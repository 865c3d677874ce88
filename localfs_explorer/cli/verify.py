"""``verify``: does the running server report what the explorer predicts?

Reads a live server's ``server://auth-status`` and ``tools/list`` and reports each
difference from the explorer's answer for the configuration given with the usual
environment options. Exit 0 when they agree, 1 on a difference, 2 when the server can't
be reached (or the MCP SDK, the ``verify`` extra, is missing).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
from typing import Any, TextIO

from . import filesystem as fs_cli
from . import options as cli


def register(sub: Any, env_options: argparse.ArgumentParser) -> None:
    """Add the verify command."""
    # A private copy of the shared options: its --transport default is changed below,
    # and parents share their option objects with every other command.
    own_env_options = cli.environment_options()
    p = sub.add_parser(
        "verify", parents=[own_env_options],
        help="compare a running server's auth-status and tools with the prediction",
        description="Ask a running server for server://auth-status and tools/list and "
        "report each difference from what this configuration predicts: mode, explicit, "
        "roots, unregistered tools, registered tools. --transport defaults to the "
        "server's own: sse for a URL ending in /sse, streamable-http for another URL, "
        "the --transport in --command (stdio when it has none). A --command server gets "
        "this shell's environment unchanged and starts in --cwd. With --client-config, the "
        "entry's command line is started exactly as the client starts it: its env (and "
        "envFile) over a minimal environment, in its working directory. Needs the verify "
        "extra (the MCP SDK).",
    )
    # One of --url, --command or --client-config (the entry's own command line).
    where = p.add_mutually_exclusive_group()
    where.add_argument("--url", metavar="URL",
                       help="the server's HTTP endpoint, e.g. http://127.0.0.1:8000/mcp")
    where.add_argument("--command", metavar="CMD",
                       help='start a stdio server with this command line, e.g. '
                       '"mcp-gee-sweet --include-tools ..."')
    token = p.add_mutually_exclusive_group()
    token.add_argument("--token", metavar="TOKEN",
                       help="bearer token for --url (visible to other local users in the "
                       "process list; prefer --token-env)")
    token.add_argument("--token-env", metavar="NAME",
                       help="read the bearer token from this environment variable")
    p.add_argument("--timeout", metavar="SECONDS", type=float, default=None,
                   help="give up after this long (default 15; 90 for server-filesystem, "
                   "whose command often fetches the package first, e.g. npx)")
    p.add_argument("--catalog", metavar="FILE",
                   help="a tool catalog in the shipped format instead of the shipped one")
    p.add_argument("--json", action="store_true", help="one JSON object: the whole report")
    # None: take the transport from --url / --command (a parser default beats the
    # shared option's own default).
    p.set_defaults(handler=cmd_verify, transport=None, launches_entry=True)


def _transport(args: argparse.Namespace, argv: list[str] | None) -> str:
    from ..live.verify import transport_for_command, transport_for_url

    if args.transport is not None:
        return str(args.transport)
    if args.url:
        return transport_for_url(args.url)
    return transport_for_command(argv if argv is not None else _command_words(args.command))


def _command_words(command: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise cli.UsageError(f"--command can't be split into words: {exc}") from None
    if not argv:
        raise cli.UsageError("--command is empty")
    return argv


def _include_tools(command: str) -> str | None:
    """The server's ``--include-tools`` value in ``command`` (its first one, as the
    server reads it), which wins over ``ENABLED_TOOLS``; None when absent or empty."""
    argv = _command_words(command)
    for i, arg in enumerate(argv):
        if arg == "--include-tools" and i + 1 < len(argv):
            return argv[i + 1] or None
    return None


def _token(args: argparse.Namespace) -> str | None:
    if args.token_env:
        value = os.environ.get(args.token_env, "").strip()
        if not value:
            raise cli.UsageError(f"--token-env {args.token_env}: that variable is not set")
        return value
    if args.token is not None and not args.token.strip():
        raise cli.UsageError("--token is empty")
    return args.token.strip() if args.token else None


def cmd_verify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if (code := cli.server_command("verify", args, out, err)) is not None:
        return code
    from ..live.verify import ServerUnreachableError, read_http, read_stdio, verify_policy

    if fs_cli.wants_filesystem(args):
        return fs_cli.cmd_verify(args, out, err)
    if args.timeout is None:
        args.timeout = 15.0
    if (args.token or args.token_env) and not args.url:
        raise cli.UsageError("--token and --token-env go with --url")
    if not args.timeout > 0:
        raise cli.UsageError("--timeout must be a positive number of seconds")
    found = cli.deployment(args)
    if (found is None) == (not args.url and not args.command):
        raise cli.UsageError("give one of --url, --command or --client-config")
    if found is not None and found.transport != "stdio":
        raise cli.UsageError(f"{found.where}: entry {found.entry!r} serves {found.transport}, "
                             "not stdio: start it yourself and give its --url")
    entry_argv = found.argv if found is not None else None
    args.transport = _transport(args, entry_argv)
    if args.command and (include := _include_tools(args.command)) is not None:
        # The server takes its tool list from its command line before ENABLED_TOOLS.
        args.set = [*args.set, ("ENABLED_TOOLS", include)]
        err.write("note: --command gives --include-tools, which the server uses as "
                  "ENABLED_TOOLS\n")
    catalog = None
    if args.catalog:
        from ..catalog import CatalogError, load_catalog

        try:
            catalog = load_catalog(args.catalog)
        except (OSError, CatalogError) as exc:
            raise cli.UsageError(f"--catalog {args.catalog}: {exc}") from None
    policy = cli.build_policy(args)
    cli.warn_config(policy, err)
    try:
        if args.url:
            live = read_http(args.url, token=_token(args), timeout=args.timeout)
        elif found is not None:
            # Exactly the entry's command line, with the environment the entry gives it.
            cwd = os.path.abspath(args.cwd) if args.cwd else found.cwd
            from ..deployments.launch_env import launch_environment

            live = read_stdio(found.argv, env=launch_environment(found), cwd=cwd,
                              timeout=args.timeout)
        else:
            cwd = os.path.abspath(args.cwd) if args.cwd else None
            live = read_stdio(args.command, cwd=cwd, timeout=args.timeout)
    except ServerUnreachableError as exc:
        err.write(f"localfs-explorer verify: can't read the server: {exc}\n")
        return 2
    report = verify_policy(policy, live, catalog)
    if args.json:
        out.write(json.dumps(report.to_json_dict(), ensure_ascii=False) + "\n")
    else:
        _print_report(report, out)
    return 0 if report.agree else 1


def _print_report(report: Any, out: TextIO) -> None:
    live, prediction = report.live, report.prediction
    out.write(f"server:   {live.source} ({live.transport})\n")
    if prediction.reproduces:
        out.write(f"explorer: reproduces {prediction.reproduces}\n")
    lfa = live.local_file_access
    differing = {d.field for d in report.differences}
    for name in report.fields:
        mark = "DIFF" if name in differing else "same"
        out.write(f"  {mark}  {name}: {json.dumps(lfa.get(name), ensure_ascii=False)}\n")
    tool_diffs = [d for d in report.differences if d.field == "registered_tools"]
    mark = "DIFF" if tool_diffs else "same"
    out.write(f"  {mark}  registered tools: {len(live.tools)} listed by the server, "
              f"{len(prediction.registered)} of the catalog's {len(prediction.catalog)} "
              "predicted\n")
    if report.uncatalogued:
        out.write(f"  note  {len(report.uncatalogued)} listed tools are outside the catalog "
                  "(allowed by ENABLED_TOOLS; not compared further)\n")
    for d in report.differences:
        if d.field != "registered_tools":
            out.write(f"difference: {d.message}\n")
    missing = [d.tool for d in tool_diffs if d.actual == "absent"]
    extra = [d.tool for d in tool_diffs if d.actual == "registered"]
    if missing:
        out.write("difference: predicted registered, not listed by the server: "
                  f"{_names(missing)}\n")
    if extra:
        out.write("difference: listed by the server, predicted not registered: "
                  f"{_names(extra)}\n")
    if report.agree:
        out.write("the server agrees with the explorer\n")
    else:
        n = len(report.differences)  # each tool counts once
        out.write(f"{n} difference{'s' if n != 1 else ''}: the running server is not the "
                  "configuration given\n")


def _names(names: list[Any], shown: int = 12) -> str:
    text = ", ".join(str(n) for n in names[:shown])
    more = len(names) - shown
    return f"{text} and {more} more (--json lists all)" if more > 0 else text
