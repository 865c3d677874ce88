"""``--server server-filesystem``: the commands' answers for the reference filesystem server.

The filesystem server has no ``.env``: its configuration is the directories on its
command line (``--allowed-dir``, repeatable, in order), its working directory
(``--cwd``), ``HOME`` (``--home``), the MCP roots its client advertises (``--root``,
repeatable; none given: the client has no roots capability) and the release
(``--server-version``).
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any, TextIO

from ..servers.filesystem import SERVER_ID, VERSIONS, FilesystemConfig, FilesystemPolicy
from ..textsafe import one_line
from .options import UsageError, deployment, server_options


def wants_filesystem(args: argparse.Namespace) -> bool:
    """Whether the command line asks about the filesystem server (``--server``)."""
    return getattr(args, "server", None) == SERVER_ID


def filesystem_config(args: argparse.Namespace, *, home: str | None = None
                      ) -> FilesystemConfig:
    """The :class:`FilesystemConfig` the options describe (``home``: the ``HOME`` to
    assume when neither ``--home`` nor ``--set HOME=`` gives one)."""
    version = args.server_version or VERSIONS[0]
    if version not in VERSIONS:
        raise UsageError(f"--server-version {version}: server-filesystem {version} isn't "
                         f"modelled (known versions: {', '.join(VERSIONS)})")
    options = server_options(args)
    cwd = os.path.abspath(args.cwd) if getattr(args, "cwd", None) else None
    given_home = options.get("home")
    if given_home is None:
        given_home = dict(getattr(args, "set", None) or ()).get("HOME") or home
    roots = options.get("roots")
    return FilesystemConfig(directories=tuple(options.get("directories") or ()), cwd=cwd,
                            home=given_home, roots=tuple(roots) if roots is not None else None,
                            version=version)


#: Why a ``.env`` given for the filesystem server is refused.
NO_ENV = "server-filesystem has no .env: give --allowed-dir (and --root)"


def refuse_env(args: argparse.Namespace) -> None:
    """A ``.env`` given for the filesystem server is a usage error (it reads none)."""
    if wants_filesystem(args) and getattr(args, "env", None):
        raise UsageError(NO_ENV)


def filesystem_policy(args: argparse.Namespace, err: TextIO, *, home: str | None = None
                      ) -> FilesystemPolicy:
    """The policy the options describe, its startup warnings printed to ``err``; a
    configuration the server would not serve is a :class:`UsageError` (exit 2)."""
    from ..fs import load_fs
    from ..fs.virtual import HostSpecError

    refuse_env(args)
    try:
        fs = load_fs(getattr(args, "fs", None))
    except (OSError, ValueError, HostSpecError) as exc:
        raise UsageError(f"--fs {args.fs}: {exc}") from None
    policy = FilesystemPolicy(filesystem_config(args, home=home), fs)
    for warning in policy.allowed.warnings:
        err.write(f"note: the server would print: {one_line(warning)}\n")
    if policy.allowed.exit_message:
        raise UsageError("the server would not serve: "
                         f"{one_line(policy.allowed.exit_message)}")
    return policy


def cmd_check(args: argparse.Namespace, paths: list[str], out: TextIO, err: TextIO) -> int:
    """``check --server server-filesystem``: each path through ``validatePath``."""
    policy = filesystem_policy(args, err)
    if getattr(args, "batch", False):
        # One look at the filesystem for all the paths (each parent resolved and listed
        # once); the verdicts are the single check's.
        with policy.many_checks() as batch:
            verdicts = [batch.validate(p) for p in paths]
    else:
        verdicts = [policy.validate(p) for p in paths]
    for v in verdicts:
        if args.json:
            record: dict[str, Any] = {"path": v.path, "op": args.op, "allowed": v.allowed,
                                      "message": v.message, "resolved": v.resolved,
                                      "reason": v.reason}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        elif v.allowed:
            note = "  (only its trimmed spelling is inside)" if v.by_trim else ""
            out.write(f"ALLOWED  {args.op:<10} {one_line(v.path)} -> "
                      f"{one_line(v.resolved or '')}{note}\n")
        else:
            out.write(f"REFUSED  {args.op:<10} {one_line(v.path)}  [{v.reason}]\n")
            out.write(f"    message: {one_line(v.message)}\n")
    return 0 if all(v.allowed for v in verdicts) else 1


#: verify's default patience: starting the server may first fetch it (``npx -y ...``).
VERIFY_TIMEOUT = 90.0


def _leaf(exc: BaseException) -> BaseException:
    while (inner := getattr(exc, "exceptions", None)) and isinstance(inner[0], BaseException):
        exc = inner[0]
    return exc


def cmd_verify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``verify --server server-filesystem --command CMD``: the running server against the
    prediction (exit 0 agree, 1 drift, 2 can't run)."""
    import shlex

    from ..fs import HostFS
    from ..servers.filesystem.verify import verify_live

    if getattr(args, "url", None):
        raise UsageError("server-filesystem speaks stdio only: give --command, not --url")
    try:
        argv = shlex.split(args.command or "")
    except ValueError as exc:
        raise UsageError(f"--command can't be split into words: {exc}") from None
    if not argv:
        raise UsageError("--command is empty")
    if args.timeout is None:
        args.timeout = VERIFY_TIMEOUT
    if not args.timeout > 0:
        raise UsageError("--timeout must be a positive number of seconds")
    found = deployment(args)
    if found is not None:
        from ..deployments.launch_env import launch_environment

        env = launch_environment(found)  # as the entry's client starts it
    else:
        env = dict(os.environ)
    given_home = server_options(args).get("home")
    if given_home is not None:
        env["HOME"] = given_home
    # node's homedir() is $HOME when set: the server started here sees this one.
    home = env.get("HOME") or None
    cwd = os.path.abspath(args.cwd) if args.cwd else os.getcwd()
    args.cwd = cwd
    base = filesystem_config(args, home=home)
    fs = HostFS()
    policies: dict[str, FilesystemPolicy] = {}

    def policy_for(version: str) -> FilesystemPolicy:
        if version not in policies:
            from dataclasses import replace

            policies[version] = FilesystemPolicy(replace(base, version=version), fs)
        return policies[version]

    predicted = policy_for(base.version)
    for warning in predicted.allowed.warnings:
        err.write(f"note: the server would print: {one_line(warning)}\n")
    try:
        report = verify_live(policy_for, base.version, argv, command=args.command, cwd=cwd,
                             env=env, roots=base.roots, timeout=args.timeout)
    except Exception as exc:  # starting, the SDK and the transport raise many kinds
        leaf = _leaf(exc)
        why = " ".join(str(leaf).split()) or type(leaf).__name__
        if isinstance(leaf, TimeoutError):
            why = f"no answer within {args.timeout:g} s"
        if predicted.allowed.exit_message:
            why += f" (predicted: {one_line(predicted.allowed.exit_message)})"
        err.write(f"localfs-explorer verify: can't run the server: {one_line(why)}\n")
        return 2
    if args.json:
        out.write(json.dumps(report.to_dict(), ensure_ascii=False) + "\n")
    else:
        _print_verify(report, out)
    return 0 if report.agree else 1


def _print_verify(report: Any, out: TextIO) -> None:
    out.write(f"server:   {one_line(report.command)} (stdio)\n")
    out.write(f"explorer: predicts server-filesystem {report.version}\n")
    behaves = " or ".join(report.behaves_as) or "none of the modelled releases"
    out.write(f"probes:   the server behaves as {behaves}\n")
    fields = {d.field for d in report.differences}
    mark = "DIFF" if "allowed_directories" in fields else "same"
    out.write(f"  {mark}  allowed directories: "
              f"{one_line(', '.join(report.allowed_live) or '(none)')}\n")
    mark = "DIFF" if "tools" in fields else "same"
    out.write(f"  {mark}  tools: {len(report.tools_live)} listed\n")
    for p in report.probes:
        shown = p["live"]["text"] if p["live"]["is_error"] else "answered"
        out.write(f"  {'same' if p['same'] else 'DIFF'}  get_file_info "
                  f"{one_line(p['path'])}: {one_line(shown)}\n")
    for d in report.differences:
        out.write(f"difference: {one_line(d.message)}\n")
    if report.agree:
        out.write("the server agrees with the explorer\n")
    else:
        n = len(report.differences)
        out.write(f"{n} difference{'s' if n != 1 else ''}: the running server is not the "
                  "configuration given\n")



def cmd_suggest(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``suggest --server server-filesystem``: narrower directories, their real spelling,
    a release without the trimming escape; each change re-checked (exit 1: a required
    check no configuration allows)."""
    from ..review.suggest import SuggestError
    from ..review.suggest_filesystem import requirements, suggest_filesystem
    from ..servers.filesystem.server import FsServerPolicy

    if args.output or args.in_place:
        raise UsageError("server-filesystem has no .env to write: its configuration is its "
                         "command line (the suggestion prints it)")
    policy = filesystem_policy(args, err)
    from ..envfile.load import load_env

    seam = FsServerPolicy(policy, load_env(None))
    try:
        reqs = requirements(seam, args.require, args.calls, args.session)
        suggestion = suggest_filesystem(reqs, seam)
    except SuggestError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        out.write(json.dumps(suggestion.to_dict(), ensure_ascii=False) + "\n")
    else:
        for line in suggestion.lines():
            out.write(one_line(line) + "\n")
    return 0 if suggestion.ok else 1


def cmd_tools(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``tools --server server-filesystem``: the 14 tools, all registered, with hints."""
    from ..servers.filesystem.tools import load_tools

    filesystem_policy(args, err)
    tools = load_tools()
    if args.json:
        out.write(json.dumps({"registered": [t.name for t in tools],
                              "tools": [t.to_dict() for t in tools]},
                             ensure_ascii=False) + "\n")
        return 0
    out.write(f"server-filesystem: all {len(tools)} tools registered\n")
    for t in tools:
        hints = ("read-only" if t.read_only
                 else "destructive" if t.destructive else "writes, not destructive")
        args_shown = ", ".join(f"{a} ({o})" for a, o in t.params) or "no path"
        out.write(f"  + {t.name:<26} {hints:<24} {args_shown}\n")
    return 0


def cmd_auth_status(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``auth-status --server server-filesystem``: its status answer, which is what
    ``list_allowed_directories`` says."""
    policy = filesystem_policy(args, err)
    out.write(json.dumps({"tool": "list_allowed_directories",
                          "text": policy.list_allowed_directories(),
                          "allowed_directories": list(policy.directories)},
                         ensure_ascii=False) + "\n")
    return 0
