"""``localfs-explorer replay``: a conversation's tool calls through the approval gate.

Prints one row per call (answer.call, tool, gate, whether the person is asked, how the
approval was settled, what the model gets, why) and a summary; with ``--json``, one
object per call. Exit status: 0 when every call ran and came back ``ok``; 1 when any did
not (hidden from the model, declined by the person, refused or partly refused by the file
policy, or not modelled); 2 for usage errors, including a malformed session (the message
names the answer and call) and a configuration the server would refuse to start with.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from ..textsafe import one_line
from .options import UsageError, access_option, build_policy, hangar_route_options

__all__ = ["cmd_replay", "register"]


def register(subparsers: Any, env_options: argparse.ArgumentParser) -> None:
    """Add the ``replay`` command."""
    p = subparsers.add_parser(
        "replay", parents=[env_options],
        help="replay a conversation's tool calls through the approval gate",
        description="Replay a session (a JSON list of answers, each a list of "
                    "{\"name\", \"arguments\"} tool calls) through the tool access lists, "
                    "the per-answer approval ledger and the file policy.",
    )
    p.add_argument("session", metavar="SESSION.json",
                   help="the session file (- reads stdin)")
    p.add_argument("--access", metavar="FILE",
                   help="tool access lists (TOML or JSON; tables server, group, member with "
                   "allow_list, deny_list, approval_list, approval_timeout_seconds)")
    hangar_route_options(p)
    p.add_argument("--answers", choices=("approve", "deny", "timeout"), default="approve",
                   help="how the simulated person answers every prompt the session file "
                   "doesn't script with its own \"approval\" (default: approve)")
    p.add_argument("--catalog", metavar="FILE",
                   help="the server's tools (catalog JSON/TOML or a saved tools/list result; "
                   "default: the shipped catalog)")
    p.add_argument("--over-http", action=argparse.BooleanOptionalAction, default=None,
                   help="whether requests arrive over HTTP (default: by transport)")
    p.add_argument("--json", action="store_true", help="one JSON object per call")
    p.set_defaults(handler=cmd_replay)


def _table(rows: list[list[str]], out: TextIO) -> None:
    rows = [[one_line(cell) for cell in row] for row in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        out.write("  ".join([*cells, row[-1]]).rstrip() + "\n")


def cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Replay the session; print the table (or JSON lines) and return the exit status."""
    from ..catalog import CatalogError, load_catalog
    from ..review.sessions import SessionError, load_session, replay_session

    try:
        session = load_session(args.session)
        catalog = load_catalog(args.catalog) if args.catalog else None
    except (SessionError, CatalogError) as exc:
        raise UsageError(str(exc)) from None
    access = access_option(args)
    policy = build_policy(args)
    for warning in (*policy.env.warnings, *policy.warnings):
        err.write(f"warning: {one_line(warning)}\n")
    if policy.errors:
        err.write(f"error: the server would refuse to serve: {one_line(policy.exit_message)}\n")
    try:
        replay = replay_session(policy, session, access=access, approvals=args.answers,
                                catalog=catalog, over_http=args.over_http)
    except SessionError as exc:
        raise UsageError(str(exc)) from None

    if args.json:
        for c in replay.calls:
            out.write(json.dumps(c.to_json_dict(), ensure_ascii=False) + "\n")
    else:
        rows = [["call", "tool", "gate", "asked", "decision", "outcome", "reason"]]
        for c in replay.calls:
            rows.append([f"{c.answer}.{c.call}", c.name, c.gate, "yes" if c.asked else "no",
                         c.decision, c.outcome, c.reason])
        _table(rows, out)
        told = [c for c in replay.calls if c.message]
        if told:
            out.write("\nwhat the model is told:\n")
            for c in told:
                out.write(f"  {c.answer}.{c.call} {one_line(c.name)}: {one_line(c.message)}\n")
        out.write("\n" + replay.summary().to_text() + "\n")
    if policy.errors:
        return 2
    return 0 if replay.all_ran else 1
