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
from urllib.parse import urlsplit

from ..server import LiveError, LiveTarget, get_server, server_of
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
                       '"my-server --its-option ..."')
    token = p.add_mutually_exclusive_group()
    token.add_argument("--token", metavar="TOKEN",
                       help="bearer token for --url (visible to other local users in the "
                       "process list; prefer --token-env)")
    token.add_argument("--token-env", metavar="NAME",
                       help="read the bearer token from this environment variable")
    p.add_argument("--timeout", metavar="SECONDS", type=float, default=None,
                   help="give up after this long (default: the server's own, 15 for most; "
                   "longer for a server whose command often fetches its package first, "
                   "e.g. npx)")
    p.add_argument("--catalog", metavar="FILE",
                   help="a tool catalog in the shipped format instead of the shipped one")
    p.add_argument("--json", action="store_true", help="one JSON object: the whole report")
    # None: take the transport from --url / --command (a parser default beats the
    # shared option's own default).
    p.set_defaults(handler=cmd_verify, transport=None)


def transport_for_url(url: str) -> str:
    """The MCP transport a server URL speaks: ``sse`` for a path ending in ``/sse``, else
    ``streamable-http`` (an ``/mcp`` endpoint)."""
    path = urlsplit(url).path.rstrip("/")
    return "sse" if path.endswith("/sse") else "streamable-http"


def _command_words(command: str) -> list[str]:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise cli.UsageError(f"--command can't be split into words: {exc}") from None
    if not argv:
        raise cli.UsageError("--command is empty")
    return argv


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
    if (args.token or args.token_env) and not args.url:
        raise cli.UsageError("--token and --token-env go with --url")
    if args.timeout is not None and not args.timeout > 0:
        raise cli.UsageError("--timeout must be a positive number of seconds")
    found = cli.deployment(args)
    if (found is None) == (not args.url and not args.command):
        raise cli.UsageError("give one of --url, --command or --client-config")
    if found is not None and found.transport != "stdio":
        raise cli.UsageError(f"{found.where}: entry {found.entry!r} serves {found.transport}, "
                             "not stdio: start it yourself and give its --url")
    server = get_server(getattr(args, "server", None))
    argv = (list(found.argv) if found is not None
            else _command_words(args.command) if args.command else None)
    if argv is not None and args.command:
        # What the command line itself sets, as the server reads its own arguments: its
        # transport, and settings it takes over its environment.
        said = server.read_args(argv[1:])
        if args.transport is None and said.transport is not None:
            args.transport = said.transport
        for key, value in said.env.items():
            args.set = [*args.set, (key, value)]
            option = said.env_from.get(key, "an argument")
            err.write(f"note: --command gives {option}, which the server uses as {key}\n")
    if args.transport is None and args.url and transport_for_url(args.url) in server.transports:
        args.transport = transport_for_url(args.url)
    if args.timeout is None:
        args.timeout = server.verify_timeout
    catalog = None
    if args.catalog:
        from ..catalog import CatalogError, load_catalog

        try:
            catalog = load_catalog(args.catalog)
        except (OSError, CatalogError) as exc:
            raise cli.UsageError(f"--catalog {args.catalog}: {exc}") from None
    policy = cli.build_policy(args)
    cli.warn_config(policy, err)
    if found is not None:
        # Exactly the entry's command line, with the environment its client gives it.
        from ..deployments.launch_env import launch_environment

        target = LiveTarget(argv=tuple(found.argv), command=shlex.join(found.argv),
                            env=launch_environment(found),
                            cwd=os.path.abspath(args.cwd) if args.cwd else found.cwd,
                            timeout=args.timeout)
    else:
        target = LiveTarget(url=args.url, token=_token(args) if args.url else None,
                            argv=tuple(argv) if argv is not None else None,
                            command=args.command,
                            cwd=os.path.abspath(args.cwd) if args.cwd else None,
                            timeout=args.timeout)
    try:
        report = server_of(policy).verify(policy, target, catalog)
    except LiveError as exc:
        err.write(f"localfs-explorer verify: {exc}\n")
        return 2
    if args.json:
        out.write(json.dumps(report.to_dict(), ensure_ascii=False) + "\n")
    else:
        out.writelines(line + "\n" for line in report.lines())
    return 0 if report.agree else 1
