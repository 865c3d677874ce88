"""The ``check`` and ``validate`` commands: the engine's two first questions.

``check`` asks whether a tool may read or write each path, as the server would answer;
``validate`` whether the server would start, and with which policy.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from ..server import ServerPolicy, server_of
from ..vocab import OPS
from .options import UsageError, build_policy, deployment, read_paths_file, warn_config


def _emit_json(obj: Any, out: TextIO) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")


def cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    paths = list(args.paths)
    if args.paths_file:
        paths.extend(read_paths_file(args.paths_file))
    if not paths:
        raise UsageError("check needs at least one PATH (or --paths-file)")
    policy = build_policy(args)
    warn_config(policy, err)
    # A path only the target platform could judge is the server's error (exit 2).
    with policy.many_checks() as batch:
        if args.batch:
            # The server's many_checks, as in a folder walk: one look at each parent
            # directory (and the deny-list) for all the paths.
            decisions = [batch.check(p, args.op, over_http=args.over_http) for p in paths]
        else:
            # Each path as the server's single check answers it, however many.
            decisions = [policy.check(p, args.op, over_http=args.over_http) for p in paths]
        for d in decisions:
            # Each path is checked once; its explanation compares with the one batch of
            # this run (a single check's) rather than a new one per path.
            if args.json:
                _emit_json(d.to_dict(other=None if args.batch else batch), out)
            else:
                for line in server_of(policy).verdict_lines(d):
                    out.write(line + "\n")
    if policy.errors:
        return 2
    return 0 if all(d.allowed for d in decisions) else 1


def cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    files = list(getattr(args, "env_files", None) or [])
    if files and args.env:
        raise UsageError("give the .env files either as --env FILE or as ENV_FILE, not both")
    if getattr(args, "sarif", None):
        from .review import _check_outputs

        _check_outputs([args.sarif], args.force)  # before any work, as every writer
    policies = []
    code = 0
    for name in files or [args.env]:
        args.env = name
        if len(files) > 1 and not args.json:
            out.write(f"== {name}\n")
        policy = build_policy(args)
        found = deployment(args)
        if not _windows_paths(found, policy):  # an unchecked entry has no errors to place
            policies.append(policy)
        code = max(code, _validate_one(policy, args, out, found))
    if getattr(args, "sarif", None):
        from ..review import sarif

        sarif.write([r for p in policies for r in sarif.validate_results(p)], args.sarif,
                    error=UsageError, force=args.force)
    return code


def _overridden(args: argparse.Namespace) -> list[str]:
    """The deployment's settings the command line replaced (``--set``, ``--unset``,
    ``--transport``, ``--cwd``), named as its provenance names them."""
    names = [f"env {k}" for k, _ in args.set] + [f"env {k}" for k in args.unset]
    names += [n for n in ("transport", "cwd") if getattr(args, n, None)]
    return names


#: What ``validate`` says in place of a verdict when the entry's paths are Windows paths.
UNCHECKED = "Windows paths: the directories can't be checked here"


def _windows_paths(found: Any, policy: Any = None) -> list[str]:
    """The entry's Windows paths (drive or UNC) outside a container, or none.

    This machine would read ``C:\\x`` as a relative name and predict an exit the Windows
    machine wouldn't make, so ``validate`` answers as ``deployment`` does: not checked,
    exit 0 (nothing was found wrong). On a described Windows host (``--fs``) they are
    checked there.
    """
    if found is None or getattr(found, "container", None):
        return []
    if getattr(getattr(policy, "fs", None), "platform", "posix") == "windows":
        return []
    from ..deployments.load import windows_paths

    return windows_paths([*found.arg_paths, *found.env.values()])


def _validate_one(policy: ServerPolicy, args: argparse.Namespace, out: TextIO,
                  found: Any = None) -> int:
    unchecked = _windows_paths(found, policy)
    if unchecked:
        return _validate_unchecked(policy, args, out, found, unchecked)
    summary = policy.summary()
    if args.json:
        if found is not None and getattr(args, "provenance", False):
            from ..deployments.view import deployment_json

            summary = {**summary, "deployment": deployment_json(found, _overridden(args))}
        _emit_json(summary, out)
        return 0 if policy.serves else 2
    if found is not None:
        from ..deployments.view import deployment_lines

        out.writelines(line + "\n" for line in deployment_lines(found, _overridden(args)))
    out.writelines(line + "\n" for line in server_of(policy).summary_lines(policy))
    return 0 if policy.serves else 2


def _validate_unchecked(policy: ServerPolicy, args: argparse.Namespace, out: TextIO,
                        found: Any, unchecked: list[str]) -> int:
    """``validate`` of an entry whose directories are Windows paths: named, not judged."""
    note = (f"{', '.join(unchecked)}: Windows paths; the directories can't be checked on "
            "this machine (answer on the Windows machine itself, or describe it with --fs)")
    if args.json:
        summary: dict[str, Any] = {"server": policy.server_id, "checked": False,
                                   "serves": None, "summary": UNCHECKED,
                                   "windows_paths": unchecked, "notes": [note]}
        if getattr(args, "provenance", False):
            from ..deployments.view import deployment_json

            summary["deployment"] = deployment_json(found, _overridden(args))
        _emit_json(summary, out)
        return 0
    from ..deployments.view import deployment_lines

    out.writelines(line + "\n" for line in deployment_lines(found, _overridden(args)))
    out.write(f"{UNCHECKED} ({', '.join(unchecked)}); whether the server would start is "
              "for the Windows machine itself to say\n")
    return 0


def register(sub: Any, env_options: argparse.ArgumentParser) -> None:
    """Add ``check`` and ``validate`` to the CLI's subcommands."""
    p = sub.add_parser("check", parents=[env_options], help="check paths against the policy",
                       description="Ask the policy whether a tool may read or write each "
                       "PATH, as the server would answer; refusals come with the reason, the "
                       "model's message and a hint.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="a path to check (repeatable)")
    p.add_argument("--op", choices=OPS, default="read", help="the operation (default: read)")
    p.add_argument("--over-http", action=argparse.BooleanOptionalAction, default=None,
                   help="whether the request arrived over HTTP (default: yes for sse and "
                   "streamable-http, no for stdio)")
    p.add_argument("--paths-file", metavar="FILE",
                   help="more paths, one JSON string per line (any byte, NUL included; "
                   "- reads stdin)")
    p.add_argument("--json", action="store_true", help="one JSON object per path")
    p.add_argument("--batch", action="store_true",
                   help="answer as the server's batch check (many_checks, as in a folder "
                   "walk) rather than its single check of each path")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("validate", parents=[env_options],
                       help="would the server start, and with which policy",
                       description="Resolve the configuration as the server does at startup "
                       "and print the mode, roots, deny-list, warnings and errors.")
    p.add_argument("env_files", nargs="*", metavar="ENV_FILE",
                   help="validate each of these .env files in turn, as --env FILE would "
                   "(what the pre-commit hook passes)")
    p.add_argument("--json", action="store_true", help="the summary as one JSON object")
    p.add_argument("--provenance", action="store_true",
                   help="with --json and --client-config: add the entry's settings and "
                   "where each came from under \"deployment\" (the text output always "
                   "shows them)")
    p.add_argument("--sarif", metavar="PATH",
                   help="also write errors and warnings as SARIF 2.1.0, placed on the .env "
                   "line of the setting (for code scanning)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing --sarif file (kept as a .bak)")
    p.set_defaults(handler=cmd_validate)
