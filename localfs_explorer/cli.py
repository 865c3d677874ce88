"""The ``localfs-explorer`` command: the engine's answers for scripts and CI.

Every command takes the same environment options, so a configuration is described the
same way whichever question is asked of it. Exit status: 0 when the answer is "yes"
(allowed, valid), 1 when it is "no" (something refused), 2 for a usage or configuration
error. Values of secret settings are never printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from .check import OPS, Decision, UnsupportedPathError
from .env import EnvFileError, ServerEnv, load_env
from .fs import HostFS
from .policy import TRANSPORTS, Policy, PolicyError, resolve_policy
from .profile import ProfileError, load_profile


class UsageError(Exception):
    """A problem with the command line or its inputs; reported in one line, exit 2."""


def key_value(text: str) -> tuple[str, str]:
    """argparse type for ``KEY=VALUE`` options."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {key!r}")
    return key.strip(), value


def environment_options() -> argparse.ArgumentParser:
    """The options every command shares: the simulated server's environment and host."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("server environment")
    group.add_argument("--env", metavar="FILE", help="the server's .env file")
    group.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                       type=key_value, help="a variable in the server process's environment "
                       "(wins over the file; repeatable)")
    group.add_argument("--unset", metavar="KEY", action="append", default=[],
                       help="remove KEY whatever set it (repeatable)")
    group.add_argument("--inherit-env", action="store_true",
                       help="also give the server this shell's environment (off by default, "
                       "so the operator's shell can't leak into verdicts)")
    group.add_argument("--lenient", action="store_true",
                       help="skip .env lines that can't be parsed, as the server does, "
                       "instead of stopping")
    group.add_argument("--transport", choices=TRANSPORTS, default="stdio",
                       help="the server's --transport (default: stdio)")
    group.add_argument("--cwd", metavar="DIR",
                       help="the server's startup directory (default: this directory, or the "
                       "target host's own default)")
    group.add_argument("--package-dir", metavar="DIR",
                       help="the directory holding the server's own .env (default: the --env "
                       "file's directory)")
    group.add_argument("--fs", metavar="SPEC",
                       help="answer for a described host: a host spec JSON file or the name "
                       "of a shipped example (container, macos-laptop, traps; see the hosts "
                       "command) (default: this machine)")
    group.add_argument("--profile", metavar="FILE",
                       help="a server profile JSON replacing the shipped assumptions")
    group.add_argument("--platform", choices=("posix", "macos", "windows"), default="posix",
                       help="target platform: its default cache directory; windows also "
                       "splits LOCAL_FILE_ROOTS on ';' (paths are checked by POSIX rules)")
    return parent


def load_fs_option(spec: str | None):
    """The FileSystem named by ``--fs`` (None: this machine)."""
    if spec is None or spec == "host":
        return HostFS()
    try:
        from .fs.spec import load_fs
    except ImportError as exc:  # pragma: no cover - only before described hosts exist
        raise UsageError(f"--fs is not available: {exc}") from None
    try:
        return load_fs(spec)
    except (OSError, ValueError) as exc:
        raise UsageError(f"--fs {spec}: {exc}") from None


def build_env(args: argparse.Namespace) -> ServerEnv:
    """The simulated server environment from the shared options."""
    try:
        return load_env(
            args.env,
            overrides=dict(args.set),
            unset=args.unset,
            inherit_environ=args.inherit_env,
            strict=not args.lenient,
        )
    except EnvFileError as exc:
        raise UsageError(str(exc)) from None


def policy_inputs(args: argparse.Namespace) -> dict[str, Any]:
    """``resolve_policy`` keyword arguments (all but the environment) from the options."""
    fs = load_fs_option(args.fs)
    package_dir = args.package_dir
    if package_dir is None and args.env:
        package_dir = os.path.dirname(os.path.abspath(args.env))
    cwd = args.cwd
    if cwd is not None and isinstance(fs, HostFS):
        # On this machine a relative --cwd means relative to where the command runs.
        cwd = os.path.abspath(cwd)
    try:
        profile = load_profile(args.profile) if args.profile else None
    except ProfileError as exc:
        raise UsageError(str(exc)) from None
    return {"transport": args.transport, "fs": fs, "cwd": cwd, "package_dir": package_dir,
            "profile": profile, "platform": args.platform}


def build_policy(args: argparse.Namespace, env: ServerEnv | None = None) -> Policy:
    """Resolve the policy the shared options describe."""
    env = env if env is not None else build_env(args)
    try:
        return resolve_policy(env, **policy_inputs(args))
    except PolicyError as exc:
        raise UsageError(str(exc)) from None


def _emit_json(obj: Any, out: TextIO) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")


def read_paths_file(name: str) -> list[str]:
    """Paths from a file of one JSON string per line (blank lines skipped)."""
    try:
        with open(name, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError as exc:
        raise UsageError(f"{name}: can't be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise UsageError(f"{name}: not UTF-8 text") from None
    paths = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{name}:{number}: not a JSON string ({exc.msg})") from None
        if not isinstance(value, str):
            raise UsageError(f"{name}:{number}: expected a JSON string, got {type(value).__name__}")
        paths.append(value)
    return paths


def _print_decision(d: Decision, out: TextIO) -> None:
    shown = d.path.replace("\0", "\\0")
    if d.allowed:
        out.write(f"ALLOWED  {d.op:<10} {shown} -> {d.resolved}\n")
        return
    out.write(f"REFUSED  {d.op:<10} {shown}  [{d.reason}]\n")
    out.write(f"    message: {d.message}\n")
    if d.hint:
        out.write(f"    hint:    {d.hint}\n")


def warn_config(policy: Policy, err: TextIO) -> None:
    """Print loading warnings, policy warnings and a refusal to serve to ``err``."""
    for warning in (*policy.env.warnings, *policy.warnings):
        err.write(f"warning: {warning}\n")
    if policy.errors:
        err.write(f"error: the server would refuse to serve: {policy.exit_message}\n")


def cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    paths = list(args.paths)
    if args.paths_file:
        paths.extend(read_paths_file(args.paths_file))
    if not paths:
        raise UsageError("check needs at least one PATH (or --paths-file)")
    policy = build_policy(args)
    warn_config(policy, err)
    try:
        if args.batch:
            # The server's many_checks, as in a folder walk: one deny-list snapshot and
            # one resolution per parent directory for all the paths.
            with policy.many_checks() as batch:
                decisions = [batch.check(p, args.op, over_http=args.over_http) for p in paths]
        else:
            # Each path as the server's single check answers it, however many are given.
            decisions = [policy.check(p, args.op, over_http=args.over_http) for p in paths]
    except UnsupportedPathError as exc:
        raise UsageError(str(exc)) from None
    for d in decisions:
        _emit_json(d.to_dict(), out) if args.json else _print_decision(d, out)
    if policy.errors:
        return 2
    return 0 if all(d.allowed for d in decisions) else 1


def cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    policy = build_policy(args)
    summary = policy.summary()
    if args.json:
        _emit_json(summary, out)
    else:
        how = "explicit" if policy.explicit else f"defaulted for {policy.transport}"
        out.write(f"as {policy.profile.name} {policy.server_version} resolves it:\n")
        out.write(f"LOCAL_FILE_ACCESS resolves to {policy.mode.value} ({how})\n")
        for root in policy.roots:
            state = f"-> {root.resolved}" if not root.problem else f"({root.problem})"
            out.write(f"  root {root.configured} {state}\n")
        out.write("deny-list:\n")
        for e in policy.deny_list:
            flag = "exists " if e.exists else "missing"
            out.write(f"  [{flag}] {e.resolved}  ({e.setting}{', default' if e.default else ''})\n")
        for dd in policy.deny_dirs:
            out.write(f"  [dir    ] {dd.resolved}/  ({dd.setting}, default)\n")
        for w in (*policy.env.warnings, *policy.warnings):
            out.write(f"warning: {w}\n")
        for e2 in policy.errors:
            out.write(f"error: {e2}\n")
        out.write("the server would start\n" if policy.serves
                  else f"the server would exit, printing: {policy.exit_line}\n")
    return 0 if policy.serves else 2


Command = Callable[[argparse.Namespace, TextIO, TextIO], int]


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(
        prog="localfs-explorer",
        description="Probe an MCP server's local-file access policy (LOCAL_FILE_ACCESS).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    env_opts = environment_options()

    p = sub.add_parser("check", parents=[env_opts], help="check paths against the policy")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.add_argument("--op", choices=OPS, default="read", help="the operation (default: read)")
    p.add_argument("--over-http", action=argparse.BooleanOptionalAction, default=None,
                   help="whether the request arrived over HTTP (default: yes for sse and "
                   "streamable-http, no for stdio)")
    p.add_argument("--paths-file", metavar="FILE",
                   help="more paths, one JSON string per line (any byte, NUL included)")
    p.add_argument("--json", action="store_true", help="one JSON object per path")
    p.add_argument("--batch", action="store_true",
                   help="answer as the server's batch check (many_checks, as in a folder "
                   "walk) rather than its single check of each path")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("validate", parents=[env_opts],
                       help="would the server start, and with which policy")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_validate)

    for module in _command_modules():
        module.register(sub, env_opts)
    return parser


def _command_modules() -> list[Any]:
    """The command modules that are present (a module not written yet is skipped)."""
    import importlib

    from .commands import COMMAND_MODULES

    modules = []
    for name in COMMAND_MODULES:
        try:
            modules.append(importlib.import_module(name))
        except ModuleNotFoundError as exc:
            if exc.name != name:  # a missing dependency inside it is a real error
                raise
    return modules


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    """Run the command line; returns the exit status instead of exiting."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its message
        return 0 if exc.code == 0 else 2
    handler: Command | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(out)
        return 2
    try:
        return handler(args, out, err)
    except UsageError as exc:
        err.write(f"localfs-explorer {args.command}: {exc}\n")
        return 2
    except KeyboardInterrupt:
        err.write("interrupted\n")
        return 130
