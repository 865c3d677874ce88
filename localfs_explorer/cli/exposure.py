"""``exposure`` (what can tools reach here?) and ``suggest`` (the narrowest roots)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any, TextIO

from ..textsafe import CsvWriter, one_line
from . import options as cli

SEVERITY_CHOICES = ("critical", "high", "medium", "info", "none")


def register(sub: Any, env_options: argparse.ArgumentParser) -> None:
    """Add the exposure and suggest commands."""
    p = sub.add_parser(
        "exposure", parents=[env_options],
        help="what tools can read and overwrite under this configuration, as findings",
        description="Walk what a tool call could name (each --scope first, then the roots "
        "in roots mode, else the server account's home and the startup directory) and "
        "report, from "
        "the server's own verdict on every entry: writable files that something executes "
        "(critical), readable credentials (high), deny-listed files inside roots and "
        "risky roots (medium), and counts (info). Exit 1 when a finding at or above "
        "--fail-on exists.",
    )
    p.add_argument("--scope", metavar="DIR", action="append", default=None,
                   help="also walk DIR, before the default directories (repeatable; / allowed)")
    p.add_argument("--fail-on", choices=SEVERITY_CHOICES, default="high",
                   help="exit 1 when a finding this severe or worse exists (default: high; "
                   "none: always 0)")
    p.add_argument("--max-entries", type=int, default=1_000_000, metavar="N",
                   help="stop the walk after N entries, saying so (default 1000000)")
    p.add_argument("--max-depth", type=int, default=64, metavar="N",
                   help="don't descend more than N levels (default 64)")
    p.add_argument("--no-sizes", dest="sizes", action="store_false",
                   help="skip byte counts (faster: no stat per entry)")
    p.add_argument("--server-dir", metavar="DIR", action="append", default=None,
                   help="a directory holding the server's code (default: its package "
                   "directory; repeatable)")
    p.add_argument("--over-http", action=argparse.BooleanOptionalAction, default=None,
                   help="whether tool calls arrive over HTTP (default: by transport)")
    p.add_argument("--report", metavar="FILE", action="append", default=[],
                   help="also write a report (.html, .json or .csv by its name; repeatable)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing report file (the old one is kept as FILE.bak)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON object per finding")
    fmt.add_argument("--csv", action="store_true", help="one CSV row per finding")
    # --client-config without --entry walks every modelled entry (see _every_entry).
    p.set_defaults(handler=cmd_exposure, every_entry=True)

    p = sub.add_parser(
        "suggest", parents=[env_options],
        help="the narrowest configuration that still allows the work that must succeed",
        description="Give the checks that must pass (--require OP:PATH, --calls, "
        "--session); get the server's narrowest configuration allowing all of them, what "
        "can't be allowed and why, each change re-checked by the server's own rules. For "
        "a server with a .env (the default one: its LOCAL_FILE_ROOTS) also the exposure "
        "change against the current configuration and the .env change as a masked diff "
        "(written with -o or --in-place); for a server configured by its command line, "
        "the command line to run instead. Exit 1 when some required check can't be "
        "allowed.",
    )
    p.add_argument("--require", metavar="OP:PATH", action="append", default=[],
                   help="a check that must pass: read:/data/in.csv, write:..., "
                   "read_write:... (repeatable)")
    p.add_argument("--calls", metavar="FILE.jsonl",
                   help="tool calls whose local paths must all be allowed")
    p.add_argument("--session", metavar="SESSION.json",
                   help="an approval session whose calls' local paths must all be allowed")
    p.add_argument("--no-delta", dest="delta", action="store_false",
                   help="skip walking both configurations to compare their exposure")
    p.add_argument("--max-entries", type=int, default=200_000, metavar="N",
                   help="bound of each walk (default 200000)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("-o", "--output", metavar="OUT",
                     help="write the changed .env to OUT (an existing file needs --force)")
    out.add_argument("--in-place", action="store_true",
                     help="rewrite the --env file itself (a backup is kept)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing OUT (a backup is kept)")
    p.add_argument("--json", action="store_true", help="the suggestion as one JSON object")
    p.set_defaults(handler=cmd_suggest)


@contextlib.contextmanager
def _interruptible(cancel: threading.Event) -> Iterator[None]:
    """Ctrl-C stops the walk (which then reports what it saw) instead of the command."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        if cancel.is_set():  # a second Ctrl-C: stop at once
            raise KeyboardInterrupt
        cancel.set()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _progress(err: TextIO) -> Any:
    """A stderr line rewritten in place, only when stderr is a terminal."""
    isatty = getattr(err, "isatty", None)
    if not (isatty and isatty()):
        return None, lambda: None
    from ..exposure import progress_line

    started = time.monotonic()
    width = [0]
    # The command's stderr escapes control characters; a progress line asks for its own
    # carriage return explicitly.
    rewrite = getattr(err, "rewrite_line", None) or (lambda text: err.write("\r" + text))

    def show(p: Any) -> None:
        line = progress_line(p, started)
        rewrite(line + " " * max(0, width[0] - len(line)))
        err.flush()
        width[0] = len(line)

    def clear() -> None:
        if width[0]:
            rewrite(" " * width[0])
            rewrite("")
            err.flush()

    return show, clear


def _print_findings(inv: Any, out: TextIO) -> None:
    for f in inv.findings:
        if f.severity == "info":
            continue
        out.write(f"{f.severity.upper():<8} {f.op:<10} {f.path}\n")
        if f.resolved and f.resolved != f.path:
            out.write(f"    resolves to: {f.resolved}\n")
        out.write(f"    why: {f.why}\n")
        if f.fix:
            out.write(f"    fix: {f.fix}\n")
    for line in inv.summary():
        out.write(line + "\n")
    for f in inv.findings:
        if f.kind == "largest-directory":
            out.write(f"  large: {f.path} ({f.why.split(': ', 1)[-1]})\n")


def cmd_exposure(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..exposure import FINDING_COLUMNS, severity_at_least

    if args.max_entries < 1 or args.max_depth < 0:
        raise cli.UsageError("--max-entries must be at least 1 and --max-depth at least 0")
    for name in args.report:
        if os.path.lexists(name) and not args.force:
            raise cli.UsageError(f"{name} exists; pass --force to replace it (a backup is kept)")
    if args.client_config is not None and args.entry is None:
        return _every_entry(args, out, err)
    policy = cli.build_policy(args)
    cli.warn_config(policy, err)
    inv = _walk(args, policy, err)
    if args.report:
        _write_reports(inv, policy, args.report, args.force, err)
    if args.json:
        for f in inv.findings:
            out.write(json.dumps(f.to_dict(), ensure_ascii=False) + "\n")
    elif args.csv:
        writer = CsvWriter(out)
        writer.writerow(FINDING_COLUMNS)
        writer.writerows([row.get(k) for k in FINDING_COLUMNS] for row in inv.rows())
    else:
        _print_findings(inv, out)
    for line in inv.stopped:
        err.write(f"warning: {one_line(line)}\n")
    for problem in inv.problems[:5]:
        err.write(f"warning: can't list {one_line(problem)}\n")
    if len(inv.problems) > 5:
        err.write(f"warning: {len(inv.problems) - 5} more directories could not be listed\n")
    if policy.errors:
        return 2
    if args.fail_on == "none":
        return 0
    return 1 if any(severity_at_least(f.severity, args.fail_on) for f in inv.findings) else 0


def _walk(args: argparse.Namespace, policy: Any, err: TextIO) -> Any:
    """The exposure walk the options ask for, Ctrl-C and progress handled."""
    from ..exposure import ExposureError, exposure

    cancel = threading.Event()
    show, clear = _progress(err)
    try:
        with _interruptible(cancel):
            return exposure(policy, args.scope, sizes=args.sizes,
                            max_entries=args.max_entries, max_depth=args.max_depth,
                            over_http=args.over_http, progress=show, cancel=cancel,
                            server_dirs=args.server_dir)
    except ExposureError as exc:
        raise cli.UsageError(str(exc)) from None
    finally:
        clear()


def _every_entry(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``--client-config`` without ``--entry``: walk every entry that starts a modelled
    server on this machine, and report the union of the findings, each naming the
    entries it comes from (``deployment`` answers for the others)."""
    import copy

    from ..deployments import DeploymentError
    from ..deployments.reach import answer_deployment
    from ..exposure import severity_at_least

    try:
        answer = answer_deployment(args.client_config, args.client_format,
                                   platform=args.platform)
    except DeploymentError as exc:
        raise cli.UsageError(str(exc)) from None
    windows = args.platform == "windows"
    walked = [e for e in answer.entries if e.reach == "modelled" and not e.windows_paths
              and not windows
              and (args.server is None or e.server == args.server)]
    for e in answer.entries:
        if e not in walked:
            err.write(f"warning: entry {e.entry!r} ({e.reach}) not walked: "
                      f"{one_line(e.summary)} (see the deployment command)\n")
    if not walked:
        raise cli.UsageError(f"{answer.path}: no entry starts a modelled server on this "
                             "machine (localfs-explorer deployment answers for each entry)")
    if len(walked) == 1:
        # One entry: the same answer as naming it with --entry.
        args.entry, args._deployment = walked[0].entry, None
        cli.apply_deployment(args)
        return cmd_exposure(args, out, err)
    if args.report:
        raise cli.UsageError("--report answers for one entry: name it with --entry")
    merged: dict[tuple[str, str, str, str], tuple[Any, list[str]]] = {}
    summaries: list[str] = []
    failed = False
    for e in walked:
        one = copy.copy(args)
        one.entry, one.server, one._deployment = e.entry, None, None
        cli.apply_deployment(one)
        policy = cli.build_policy(one)
        cli.warn_config(policy, err)
        failed = failed or bool(policy.errors)
        inv = _walk(one, policy, err)
        summaries += [f"{e.entry}: {line}" for line in inv.summary()[:1]]
        for line in [*inv.stopped, *(f"can't list {p}" for p in inv.problems[:5])]:
            err.write(f"warning: {e.entry}: {one_line(line)}\n")
        for f in inv.findings:
            key = (f.severity, f.kind, f.op, f.path)
            merged.setdefault(key, (f, []))[1].append(e.entry)
    findings = sorted(merged.values(), key=lambda item: _rank(item[0].severity))
    if args.json:
        for f, names in findings:
            out.write(json.dumps({**f.to_dict(), "entries": names}, ensure_ascii=False)
                      + "\n")
    elif args.csv:
        from ..exposure import FINDING_COLUMNS

        writer = CsvWriter(out)
        writer.writerow(["entries", *FINDING_COLUMNS])
        writer.writerows([" ".join(names), *(f.to_dict().get(k) for k in FINDING_COLUMNS)]
                         for f, names in findings)
    else:
        for f, names in findings:
            if f.severity == "info":
                continue
            out.write(f"{f.severity.upper():<8} {f.op:<10} {f.path}\n")
            out.write(f"    entries: {', '.join(names)}\n    why: {f.why}\n")
            if f.fix:
                out.write(f"    fix: {f.fix}\n")
        out.write(f"union of {len(walked)} entries: {len(findings)} findings\n")
        for line in summaries:
            out.write(line + "\n")
    if failed:
        return 2
    if args.fail_on == "none":
        return 0
    return 1 if any(severity_at_least(f.severity, args.fail_on) for f, _ in findings) else 0


def _rank(severity: str) -> int:
    from ..exposure.records import SEVERITIES

    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


def _write_reports(inv: Any, policy: Any, names: list[str], force: bool, err: TextIO) -> None:
    from ..review.report import ReportError, exposure_report, write_reports

    try:
        # The shared writer keeps a replaced file as FILE.bak and never follows a symlink.
        for path in write_reports(exposure_report(inv, policy), names, force=force):
            err.write(f"wrote {path}\n")
    except ReportError as exc:
        raise cli.UsageError(str(exc)) from None


def cmd_suggest(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..envfile.export import ExportError
    from ..review.suggest import SuggestError
    from ..server import server_of

    policy = cli.build_policy(args)
    server = server_of(policy)
    if (args.output or args.in_place) and not server.env_file:
        raise cli.UsageError(f"{server.id} has no .env to write: its settings are its "
                             "own (the suggestion prints them)")
    if args.in_place and not args.env:
        raise cli.UsageError("--in-place needs --env FILE")
    cli.warn_config(policy, err)
    try:
        suggestion = server.suggest(policy, args.require, calls=args.calls,
                                    session=args.session, env_file=args.env,
                                    delta=args.delta, max_entries=args.max_entries)
    except SuggestError as exc:
        raise cli.UsageError(str(exc)) from None
    if args.json:
        out.write(json.dumps(suggestion.to_dict(), ensure_ascii=False) + "\n")
    else:
        for line in suggestion.lines():
            out.write(one_line(line) + "\n")
        if server.env_file:
            out.write(".env change:\n")
            out.write(getattr(suggestion, "diff", "") or "(no change)\n")
    if args.output or args.in_place:
        plan = getattr(suggestion, "plan", None)
        if plan is None:
            raise cli.UsageError("no .env change could be planned; nothing written")
        try:
            result = plan.write(args.output, force=args.force, in_place=args.in_place)
        except ExportError as exc:
            raise cli.UsageError(str(exc)) from None
        err.write(result.describe() + "\n")
    return 0 if suggestion.ok else 1
