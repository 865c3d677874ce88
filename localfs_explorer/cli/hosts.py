"""``snapshot`` (record a real tree as a host spec) and ``hosts`` (list shipped examples)."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any, TextIO

from . import options as cli


def register(sub: Any, env_options: argparse.ArgumentParser) -> None:
    """Add the snapshot and hosts commands."""
    p = sub.add_parser(
        "snapshot", help="record a real directory tree as a host spec for --fs",
        description="Record structure, symlink targets and hardlink identity (never file "
        "contents) so reviewers can probe this host anywhere with --fs SPEC.json.",
    )
    p.add_argument("path", metavar="PATH", help="the directory to record")
    p.add_argument("-o", "--output", metavar="SPEC.json", required=True,
                   help="the host spec to write")
    p.add_argument("--force", action="store_true", help="replace an existing output file")
    p.add_argument("--max-entries", type=cli.positive_int, default=10_000, metavar="N",
                   help="stop after recording N entries, saying so (default 10000)")
    p.add_argument("--max-depth", type=int, default=32, metavar="N",
                   help="don't descend more than N directories deep (default 32)")
    p.add_argument("--cwd", metavar="DIR", help="the server's startup directory on this host")
    p.add_argument("--home", metavar="DIR", help="the server account's home directory")
    p.add_argument("--case-insensitive", action=argparse.BooleanOptionalAction, default=None,
                   help="record the tree as case-insensitive (default: detect)")
    p.set_defaults(handler=cmd_snapshot)

    p = sub.add_parser("hosts", help="list the shipped example hosts for --fs",
                       description="The example hosts --fs NAME accepts, with what each "
                       "one shows.")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per host (name, description)")
    p.set_defaults(handler=cmd_hosts)


def cmd_snapshot(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..fs.snapshot import SnapshotError, snapshot
    from ..fs.spec import format_spec
    from ..userfiles import write_output

    if os.path.islink(args.output):
        # Never written through: the link could point at any file of this machine.
        raise cli.UsageError(f"{args.output} is a symlink; refusing to write through it "
                             "(remove it or pick another name)")
    if os.path.lexists(args.output) and not args.force:
        raise cli.UsageError(f"{args.output} exists; pass --force to replace it")
    try:
        shot = snapshot(args.path, max_entries=args.max_entries, max_depth=args.max_depth,
                        home=args.home, cwd=args.cwd, case_insensitive=args.case_insensitive)
        write_output(args.output, format_spec(shot.spec), cli.UsageError, force=args.force)
    except SnapshotError as exc:
        raise cli.UsageError(str(exc)) from None
    except OSError as exc:
        raise cli.UsageError(f"{args.output}: can't be written ({exc.strerror or exc})") from None
    for line in shot.report():
        err.write(line + "\n")
    if not shot.complete:
        # Cut-offs and unreadable entries are reported, not fatal: the spec still holds
        # everything that could be recorded.
        err.write("warning: the snapshot is incomplete; verdicts for the parts listed above "
                  "may differ from this host's\n")
    out.write(f"wrote {args.output}\n")
    return 0


def cmd_hosts(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..fs.spec import example_host_path, list_example_hosts

    for name in list_example_hosts():
        spec = json.loads(example_host_path(name).read_text(encoding="utf-8"))
        description = spec.get("description", "")
        if getattr(args, "json", False):
            out.write(json.dumps({"name": name, "description": description}) + "\n")
        else:
            out.write(f"{name:<16} {description}\n")
    return 0
