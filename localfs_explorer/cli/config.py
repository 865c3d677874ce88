"""``export-env`` (write the server's .env, validated) and ``auth-status`` (a preview of
the server's own status answer)."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from ..envfile.export import run_export_env
from ..server import iter_servers, server_of
from . import options as cli


def register(sub: Any, env_options: argparse.ArgumentParser) -> None:
    """Add the export-env and auth-status commands."""
    p = sub.add_parser(
        "export-env", parents=[env_options],
        help="write the .env the server will load, validated first",
        description="Edit the server's .env with --set/--unset, keeping every other line "
        "byte for byte. --transport, --cwd, --package-dir and --fs only inform the "
        "validation. A configuration the server would refuse to serve is not written.",
    )
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("-o", "--output", metavar="OUT", help="write to OUT")
    how.add_argument("--in-place", action="store_true",
                     help="replace the --env file (a backup is kept)")
    how.add_argument("--dry-run", action="store_true",
                     help="print a unified diff (secrets masked); write nothing")
    p.add_argument("--force", action="store_true",
                   help="replace an existing OUT (a backup of it is kept); with "
                   "--client-config, also write an envFile outside the config's folder or "
                   "a value over a VS Code ${input:...} prompt")
    p.add_argument("--follow-symlinks", action="store_true",
                   help="when OUT is a symlink, replace its target and keep the link")
    p.add_argument("--json", action="store_true",
                   help="with --dry-run: the plan as one JSON object (changes, masked diff, "
                   "errors, warnings)")
    p.set_defaults(handler=cmd_export_env, writes_client_config=True)

    p = sub.add_parser("auth-status", parents=[env_options],
                       help="preview the server's own status answer (a status resource, "
                       "or the tool listing its allowed directories)")
    variants = sorted({v for server in iter_servers() for v in server.status_variants})
    p.add_argument("--branch", choices=variants,
                   help="which variant of the server's status answer to show, where it has "
                   "several (the local-file part is the same in each)")
    p.add_argument("--json", action="store_true",
                   help="accepted for symmetry with the other commands: the output is "
                   "always the resource's JSON")
    p.set_defaults(handler=cmd_auth_status)


def cmd_export_env(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.client_config:
        return _write_back(args, out, err)
    # --set/--unset are the edits written into the file, not the process environment.
    config = cli.server_config(args, settings={}, unset=[])
    if getattr(args, "json", False):
        return _export_plan_json(args, config, out, err)
    return run_export_env(
        args.env, set=dict(args.set), unset=args.unset, output=args.output,
        in_place=args.in_place, dry_run=args.dry_run, force=args.force,
        follow_symlinks=args.follow_symlinks, out=out, err=err, config=config,
    )


def _write_back(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``--client-config``: the edits go into the entry's env (or its envFile)."""
    from ..deployments import DeploymentError
    from ..deployments.writeback import run_write_back

    if args.env:
        raise cli.UsageError("--env and --client-config: the entry's env is what is written; "
                             "give one of them")
    # Only what informs the validation; the environment is the entry's, edited.
    changes = {"host": args.fs, "profile": args.profile, "platform": args.platform,
               "package_dir": args.package_dir, "lenient": args.lenient}
    if args.transport:
        changes["transport"] = args.transport
    if args.cwd:
        changes["cwd"] = args.cwd
    try:
        return run_write_back(args, out, err, changes)
    except DeploymentError as exc:
        raise cli.UsageError(str(exc)) from None


def _export_plan_json(args: argparse.Namespace, config: Any, out: TextIO,
                      err: TextIO) -> int:
    import json

    from ..envfile.export import ExportError, export_env

    if not args.dry_run:
        raise cli.UsageError("--json goes with --dry-run (a write reports on stderr)")
    try:
        plan = export_env(args.env, set=dict(args.set), unset=args.unset, config=config)
    except ExportError as exc:
        raise cli.UsageError(str(exc)) from None
    # Only masked text: the plan's own text and original hold the secrets themselves.
    out.write(json.dumps({
        "source": plan.source, "ok": plan.ok, "changed": plan.changed,
        "changes": [c.describe() for c in plan.changes],
        "diff": plan.diff(masked=True), "errors": list(plan.errors),
        "warnings": list(plan.warnings),
    }, ensure_ascii=False) + "\n")
    return 0 if plan.ok else 2


def cmd_auth_status(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    policy = cli.build_policy(args)
    cli.warn_config(policy, err)
    server = server_of(policy)
    if args.branch is not None and args.branch not in server.status_variants:
        raise cli.UsageError(f"--branch {args.branch}: {server.id}'s status answer has no "
                             "such variant")
    status = (server.status(policy, variant=args.branch) if args.branch is not None
              else server.status(policy))
    write_json = getattr(out, "write_json", None)
    if write_json is not None:  # secrets masked inside the strings: the output stays JSON
        write_json(status)
    else:
        out.write(json.dumps(status, indent=2, ensure_ascii=False) + "\n")
    # The server would not start, so there is no status to read: say so in the code.
    return 2 if policy.errors else 0
