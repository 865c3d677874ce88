"""``deployment``: what every entry of an MCP client config can touch on this machine."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from ..textsafe import one_line
from . import options as cli

#: ``--fail-on`` words: a severity, or ``none`` (always exit 0 when the file reads).
FAIL_ON = ("critical", "high", "medium", "info", "none")


def register(sub: Any, env_options: argparse.ArgumentParser) -> None:
    """Add the deployment command."""
    p = sub.add_parser(
        "deployment",
        help="every entry of an MCP client config: which server, and what it can touch",
        description="Answer for every entry of a client config, in file order, with its "
        "line: the modelled server it starts (or none) and its reach: modelled (the "
        "policy as predicted, with its findings), container (a docker run: its mounts, "
        "and a modelled server's policy on the container's paths), remote (a URL: no "
        "local file access from this machine), unmodelled (a local process the explorer "
        "has no model of: the account's own file access, graded by what that account can "
        "read). Exit 1 when a finding at or above --fail-on exists.",
    )
    # Its own dest: the shared options read ``client_config`` as one entry's deployment.
    p.add_argument("--client-config", metavar="FILE", required=True, dest="whole_config",
                   help="the client's config: claude_desktop_config.json, .mcp.json, "
                   "mcp.json, an mcp-hangar YAML, or a Claude Desktop extension's settings")
    p.add_argument("--client-format", choices=cli.CLIENT_FORMATS,
                   help="the client the file is for (default: recognised from its name, "
                   "folder and shape)")
    p.add_argument("--platform", choices=cli.PLATFORMS, default="posix",
                   help="the machine the client runs on: windows says the paths are "
                   "Windows paths, which can't be checked on this one")
    p.add_argument("--fs", metavar="SPEC",
                   help="the machine the client runs on, described (a host spec JSON file; "
                   "\"platform\": \"windows\" for a Windows machine): modelled entries "
                   "are checked there, and its account's files are named, not read "
                   "(default: this machine)")
    p.add_argument("--fail-on", choices=FAIL_ON, default="high",
                   help="exit 1 when a finding this severe or worse exists (default: high; "
                   "none: always 0)")
    p.add_argument("--json", action="store_true", help="one JSON object per entry")
    p.set_defaults(handler=cmd_deployment)


def _server(entry: Any) -> str:
    if entry.server is None:
        return "-"
    return f"{entry.server} {entry.version}" if entry.version else entry.server


def cmd_deployment(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..deployments import DeploymentError
    from ..deployments.reach import answer_deployment
    from ..fs import HostSpecError, load_fs

    try:
        host = load_fs(args.fs) if args.fs else None
    except HostSpecError as exc:
        raise cli.UsageError(f"--fs {args.fs}: {exc}") from None
    try:
        answer = answer_deployment(args.whole_config, args.client_format,
                                   platform=args.platform, host=host)
    except DeploymentError as exc:
        raise cli.UsageError(str(exc)) from None
    for warning in answer.warnings:
        err.write(f"warning: {one_line(warning)}\n")
    if args.json:
        for entry in answer.entries:
            row = {"path": answer.path, "client": answer.format, **entry.to_dict()}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    else:
        _table(answer, out)
    if args.fail_on == "none":
        return 0
    return 1 if answer.at_least(args.fail_on) else 0


def _table(answer: Any, out: TextIO) -> None:
    count = len(answer.entries)
    out.write(f"deployment: {answer.client} config {answer.path}, {count} "
              f"entr{'y' if count == 1 else 'ies'}\n")
    if not answer.entries:
        return
    rows = [("LINE", "ENTRY", "SERVER", "REACH", "WORST", "WHAT IT CAN TOUCH")]
    rows += [(str(e.line or "-"), e.entry, _server(e), e.reach, e.worst or "-",
              e.summary) for e in answer.entries]
    widths = [max(len(one_line(r[i])) for r in rows) for i in range(5)]
    for row in rows:
        cells = [one_line(c).ljust(w) for c, w in zip(row[:5], widths, strict=True)]
        out.write("  ".join([*cells, one_line(row[5])]).rstrip() + "\n")
    for entry in answer.entries:
        lines = [f"  {f.severity.upper():<8} {one_line(f.message)}" for f in entry.findings]
        lines += [f"  runs: {one_line(entry.runs)}"] if entry.reach in (
            "unmodelled", "container") else []
        lines += [f"  mount: {m['host']} -> {m['container']}"
                  f"{' (read-only)' if m['read_only'] else ''}" for m in entry.mounts]
        lines += [f"  note: {one_line(n)}" for n in entry.notes]
        if lines:
            where = f", line {entry.line}" if entry.line else ""
            out.write(f"\n{entry.entry} ({entry.reach}{where}):\n" + "\n".join(lines) + "\n")
