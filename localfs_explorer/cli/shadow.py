"""``localfs-explorer shadow``: recorded sessions held against the explorer's predictions.

Reads Claude Code transcripts, JSON-RPC logs (VS Code, Claude Desktop) and MCP
Inspector History exports, and for each tool call to an entry of the client config says
whether the recorded answer is the predicted one. Text output: the disagreements first
(with why), then the calls not predicted, then the counts; ``--json``: one object per
call, then a summary object. Exit status: 0 when every predicted call agrees, 1 when
any disagrees, 2 for a log that can't be read (or a redacted one) and usage errors.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from typing import Any, TextIO

from ..textsafe import one_line
from .options import UsageError

__all__ = ["cmd_shadow", "register"]

EXIT_STATUS = (
    "exit status:\n"
    "  0  the answer is yes: every call the explorer predicts agrees with its recording\n"
    "  1  the answer is no: a recorded answer differs from the prediction\n"
    "  2  usage or configuration error: a log that can't be read (or records no tool\n"
    "     names or arguments), a client config that can't be read (one line on stderr)"
)


#: The most groups (entry, reason) of calls not predicted the text output lists.
_UNKNOWN_SHOWN = 1000


def register(subparsers: Any, env_options: argparse.ArgumentParser) -> None:
    """Add the ``shadow`` command."""
    from ..sessions import LOG_FORMATS
    from .main import Epilog

    p = subparsers.add_parser(
        "shadow",
        help="hold recorded sessions (Claude Code, VS Code, Claude Desktop, Inspector) "
             "against the predictions",
        description="For each tool call a recorded session made to an entry of the client "
                    "config, say whether the answer it got is the one the explorer "
                    "predicts, and why not. Calls are predicted in session order: what a "
                    "call wrote is there for the calls after it.",
    )
    p.add_argument("logs", metavar="LOG", nargs="+",
                   help="a Claude Code transcript (.jsonl), a JSON-RPC log (VS Code's MCP "
                   "output, Claude Desktop's mcp-server-NAME.log) or an MCP Inspector "
                   "History export (each LOG one session)")
    p.add_argument("--client-config", dest="shadow_config", metavar="FILE", required=True,
                   help="the MCP client config the sessions ran with (Claude Desktop, "
                   "Claude Code, Cursor, VS Code)")
    p.add_argument("--entry", dest="shadow_entry", metavar="NAME",
                   help="only the calls to this entry; also the entry of a log that doesn't "
                   "name its server (default: the one entry starting a modelled server)")
    p.add_argument("--log-format", choices=LOG_FORMATS, default=None,
                   help="the logs' format (default: recognised from each log)")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per call, then a summary object")
    p.epilog = Epilog(
        "examples:\n"
        "  localfs-explorer shadow ~/.claude/projects/app/SESSION.jsonl "
        "--client-config .mcp.json\n"
        "  localfs-explorer shadow mcp-server-files.log --client-config "
        "claude_desktop_config.json --json\n"
        "  localfs-explorer shadow history.json --log-format inspector --client-config "
        ".vscode/mcp.json --entry files\n\n" + EXIT_STATUS)
    p.set_defaults(handler=cmd_shadow)


def _progress(err: TextIO, total: int) -> Any:
    """A stderr line rewritten in place (only on a terminal): MB read of the log."""
    isatty = getattr(err, "isatty", None)
    if not (isatty and isatty()):
        return None, lambda: None
    rewrite = getattr(err, "rewrite_line", None) or (lambda text: err.write("\r" + text))
    started = time.monotonic()
    shown = [0]

    def show(done: int) -> None:
        spent = max(time.monotonic() - started, 1e-6)
        share = f" of {total / 1e6:.1f}" if total else ""
        line = f"read {done / 1e6:.1f}{share} MB ({done / 1e6 / spent:.0f} MB/s)"
        rewrite(line.ljust(shown[0]))
        err.flush()
        shown[0] = len(line)

    def clear() -> None:
        if shown[0]:
            rewrite(" " * shown[0])
            rewrite("")
            err.flush()

    return show, clear


def cmd_shadow(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Verify the logs; print the disagreements and counts (or JSON lines)."""
    from ..deployments import DeploymentError
    from ..sessions import Shadow

    try:
        shadow = Shadow(args.shadow_config, args.shadow_entry)
    except DeploymentError as exc:
        raise UsageError(str(exc)) from None
    # Disagreements are printed first but found anywhere in logs of any size: they wait
    # in a spooled file (memory first, disk past a megabyte), not in a list.
    with tempfile.SpooledTemporaryFile(max_size=1 << 20, mode="w+",
                                       encoding="utf-8") as disagree:
        return _verify(args, shadow, disagree, {}, out, err)


def _verify(args: argparse.Namespace, shadow: Any, disagree: Any,
            unknown: dict[tuple[str, str], list[Any]], out: TextIO, err: TextIO) -> int:
    from ..sessions import LogError

    any_disagree = False
    for log in args.logs:
        try:
            total = os.path.getsize(log)
        except OSError:
            total = 0
        show, clear = _progress(err, total)
        try:
            for row in shadow.run_log(log, format=args.log_format, progress=show):
                if args.json:
                    out.write(json.dumps(row.to_json_dict(), ensure_ascii=False) + "\n")
                elif row.agree is False:
                    _row(row, disagree)
                    any_disagree = True
                elif row.agree is None:
                    # Grouped by entry and reason: a session's calls to a server the
                    # explorer doesn't model are one line, not one per call.
                    group = (row.entry or "?", row.why)
                    if group in unknown:
                        unknown[group][1] += 1
                    elif len(unknown) < _UNKNOWN_SHOWN:
                        unknown[group] = [row, 1]
        except LogError as exc:
            clear()
            raise UsageError(str(exc)) from None
        clear()
    summary = shadow.summary
    if args.json:
        out.write(json.dumps({"summary": {
            "agree": summary.agree, "disagree": summary.disagree,
            "not_predicted": summary.unknown, "skipped": summary.skipped}}) + "\n")
        return summary.exit_status
    if any_disagree:
        out.write("disagreements:\n")
        disagree.seek(0)
        for line in disagree:
            out.write(line)
    if unknown:
        out.write("not predicted:\n")
        listed = 0
        for row, count in unknown.values():
            more = f" (and {count - 1} more call(s) like it)" if count > 1 else ""
            out.write(f"  {_where(row)} {one_line(row.entry or '?')}/{one_line(row.tool)}: "
                      f"{one_line(row.why)}{more}\n")
            listed += count
        if summary.unknown > listed:
            out.write(f"  ... and {summary.unknown - listed} more (--json lists every "
                      "call)\n")
    if any_disagree or unknown:
        out.write("\n")
    out.write(summary.to_text() + "\n")
    return summary.exit_status


def _where(row: Any) -> str:
    return f"{one_line(os.path.basename(row.source))}:{row.line}"


def _row(row: Any, out: TextIO) -> None:
    out.write(f"  {_where(row)} {one_line(row.entry or '?')}/{one_line(row.tool)} "
              f"(id {one_line(row.id)})\n")
    if row.paths:
        out.write(f"    paths:     {one_line(', '.join(row.paths))}\n")
    out.write(f"    recorded:  {one_line(row.recorded)}\n")
    out.write(f"    predicted: {one_line(row.predicted)}\n")
    out.write(f"    why:       {one_line(row.why)}\n")
    if row.enforced is not None:
        out.write(f"    enforced:  {one_line(', '.join(row.enforced))}\n")
        out.write(f"    configured: {one_line(', '.join(row.configured or []))}\n")
