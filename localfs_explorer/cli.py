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
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO, cast

from . import __version__
from .check import Decision, UnsupportedPathError
from .config import ConfigError, ResolvedConfig, ServerConfig, resolve_config
from .errors import LocalfsError
from .policy import Policy
from .secrets import ScrubbingWriter, collecting
from .textsafe import SafeWriter, one_line
from .userfiles import parse_json_line, read_text
from .vocab import OPS, PLATFORMS, TRANSPORTS


class UsageError(LocalfsError):
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
    group.add_argument("--env", metavar="FILE", help="the server's .env file (- reads stdin)")
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
    group.add_argument("--platform", choices=PLATFORMS, default="posix",
                       help="target platform: its default cache directory; windows also "
                       "splits LOCAL_FILE_ROOTS on ';' (paths are checked by POSIX rules)")
    return parent


def server_config(args: argparse.Namespace, **changes: Any) -> ServerConfig:
    """The :class:`ServerConfig` the shared options describe (``changes`` on top).

    Relative names mean relative to the directory the command runs in.
    """
    fields: dict[str, Any] = {
        "env": args.env, "settings": dict(args.set), "unset": list(args.unset),
        "inherit_environ": args.inherit_env, "lenient": args.lenient,
        "transport": args.transport, "cwd": args.cwd, "package_dir": args.package_dir,
        "host": args.fs, "profile": args.profile, "platform": args.platform,
        "base_dir": os.getcwd(),
    }
    fields.update(changes)
    return ServerConfig(**fields)


def resolve(config: ServerConfig) -> ResolvedConfig:
    """Resolve ``config``; a problem is a :class:`UsageError` naming the option."""
    try:
        return resolve_config(config)
    except ConfigError as exc:
        if exc.part == "host":
            raise UsageError(f"--fs {exc.value}: {exc}") from None
        raise UsageError(str(exc)) from None


def build_policy(args: argparse.Namespace) -> Policy:
    """Resolve the policy the shared options describe."""
    return resolve(server_config(args)).policy


def _emit_json(obj: Any, out: TextIO) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")


#: The exit statuses every command uses, shown at the end of each ``--help``.
EXIT_STATUS = (
    "exit status:\n"
    "  0  the answer is yes (allowed, valid, passed, nothing new)\n"
    "  1  the answer is no (something refused, failed or newly allowed)\n"
    "  2  usage or configuration error (one line on stderr, no traceback)"
)

#: Example command lines per command, shown in its ``--help``.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "": ("localfs-explorer check --env deploy/.env --transport sse /data/report.csv",
         "localfs-explorer validate --env deploy/.env --json",
         "localfs-explorer test scenarios/",
         "localfs-explorer COMMAND --help"),
    "check": ("localfs-explorer check --env deploy/.env /data/a.csv ~/.ssh/id_rsa",
              "localfs-explorer check --op write --set LOCAL_FILE_ACCESS=full --json /tmp/x",
              "printf '\"/data/a.csv\"\\n' | localfs-explorer check --paths-file -"),
    "validate": ("localfs-explorer validate --env deploy/.env",
                 "localfs-explorer validate --env deploy/.env --sarif validate.sarif",
                 "localfs-explorer validate deploy/staging.env deploy/production.env"),
    "snapshot": ("localfs-explorer snapshot /srv/app -o app-host.json --home /home/svc",),
    "hosts": ("localfs-explorer hosts", "localfs-explorer hosts --json"),
    "tools": ("localfs-explorer tools --env deploy/.env --json",),
    "probe": ("localfs-explorer probe --call '{\"name\": \"upload_local_file\", "
              "\"arguments\": {\"local_path\": \"/data/a.csv\"}}'",
              "localfs-explorer probe --calls calls.jsonl --csv > verdicts.csv",
              "cat calls.jsonl | localfs-explorer probe --calls - --json"),
    "export-env": ("localfs-explorer export-env --env .env --set LOCAL_FILE_ACCESS=roots "
                   "--dry-run",
                   "localfs-explorer export-env --env .env --set LOCAL_FILE_ROOTS=/data "
                   "--in-place"),
    "auth-status": ("localfs-explorer auth-status --env deploy/.env --transport sse",),
    "test": ("localfs-explorer test scenarios/ --junit-xml junit.xml",
             "localfs-explorer test scenarios/spec-000.toml --json"),
    "diff": ("localfs-explorer diff --env .env --after-set LOCAL_FILE_ACCESS=full",
             "localfs-explorer diff --before-env old.env --after-env new.env --sarif diff.sarif"),
    "report": ("localfs-explorer report --env .env --calls calls.jsonl -o report.html",),
    "replay": ("localfs-explorer replay session.json --access access.toml",
               "cat session.json | localfs-explorer replay - --json"),
    "serve": ("localfs-explorer serve --env deploy/.env --transport sse",),
    "schema": ("localfs-explorer schema --list", "localfs-explorer schema scenarios"),
    "completion": ("localfs-explorer completion bash > ~/.local/share/bash-completion/"
                   "completions/localfs-explorer",),
}


class Epilog(str):
    """Help text printed as written (line breaks kept), unlike descriptions."""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, keeping an :class:`Epilog`'s lines as they are."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if isinstance(text, Epilog):
            return "\n".join(indent + line for line in text.splitlines())
        return super()._fill_text(text, width, indent)


def epilog_for(command: str) -> Epilog:
    """The examples (when there are some) and the exit statuses for ``command``."""
    examples = EXAMPLES.get(command, ())
    parts = []
    if examples:
        parts.append("examples:\n" + "\n".join(f"  {line}" for line in examples))
    parts.append(EXIT_STATUS)
    return Epilog("\n\n".join(parts))


#: What ``-`` stands for in an option naming a file to read.
STDIN = "-"
#: Options (argparse ``dest``) that name a file to read, where ``-`` means stdin.
STDIN_OPTIONS = ("env", "before_env", "after_env", "paths_file", "calls", "session", "access",
                 "catalog", "tools_list", "targets")


def stdin_to_file(args: argparse.Namespace, stdin: TextIO, directory: str) -> str | None:
    """Replace a ``-`` file option by a file holding stdin; the option's name, if any.

    The readers take file names, so stdin is saved once to ``directory``; only one
    option may read it.
    """
    def reads_stdin(value: Any) -> bool:
        # A list option (``test``'s files) reads stdin where one of its entries is ``-``.
        return value == STDIN or (isinstance(value, list) and STDIN in value)

    given = [d for d in STDIN_OPTIONS if reads_stdin(getattr(args, d, None))]
    if not given:
        return None
    if len(given) > 1:
        names = ", ".join("--" + d.replace("_", "-") for d in given)
        raise UsageError(f"only one option can read stdin ('-'), got {names}")
    if given[0] in ("env", "before_env", "after_env"):
        if getattr(args, "in_place", False):
            raise UsageError("--in-place can't replace stdin: use -o OUT or --dry-run")
        if getattr(args, "package_dir", "") is None:
            # The server's own .env is not where stdin was saved: assume this directory.
            args.package_dir = os.getcwd()
    value = getattr(args, given[0])
    if isinstance(value, list) and value.count(STDIN) > 1:
        raise UsageError("stdin ('-') can be read only once")
    # A scenario file read from stdin keeps the extension the readers look for.
    path = Path(directory) / ("stdin.toml" if given[0] == "targets" else "stdin")
    try:
        path.write_text(stdin.read(), encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError("stdin: not UTF-8 text") from None
    args.stdin_file = str(path)
    if isinstance(value, list):
        setattr(args, given[0], [str(path) if v == STDIN else v for v in value])
    else:
        setattr(args, given[0], str(path))
    return str(path)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def read_paths_file(name: str) -> list[str]:
    """Paths from a file of one JSON string per line (blank lines skipped)."""
    lines = read_text(name, UsageError).splitlines()
    paths = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        value, problem = parse_json_line(line)
        if problem is not None:
            raise UsageError(f"{name}:{number}: not a JSON string ({problem})")
        if not isinstance(value, str):
            raise UsageError(f"{name}:{number}: expected a JSON string, got {type(value).__name__}")
        paths.append(value)
    return paths


def _print_decision(d: Decision, out: TextIO) -> None:
    shown = one_line(d.path)
    if d.allowed:
        out.write(f"ALLOWED  {d.op:<10} {shown} -> {one_line(d.resolved)}\n")
        return
    out.write(f"REFUSED  {d.op:<10} {shown}  [{d.reason}]\n")
    out.write(f"    message: {one_line(d.message)}\n")
    if d.hint:
        out.write(f"    hint:    {one_line(d.hint)}\n")


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
    files = list(getattr(args, "env_files", None) or [])
    if files and args.env:
        raise UsageError("give the .env files either as --env FILE or as ENV_FILE, not both")
    policies = []
    code = 0
    for name in files or [args.env]:
        args.env = name
        if len(files) > 1 and not args.json:
            out.write(f"== {name}\n")
        policy = build_policy(args)
        policies.append(policy)
        code = max(code, _validate_one(policy, args, out))
    if getattr(args, "sarif", None):
        from . import sarif

        try:
            sarif.write([r for p in policies for r in sarif.validate_results(p)], args.sarif)
        except OSError as exc:
            raise UsageError(f"{args.sarif}: can't be written ({exc.strerror or exc})") from None
    return code


def _validate_one(policy: Policy, args: argparse.Namespace, out: TextIO) -> int:
    summary = policy.summary()
    if args.json:
        _emit_json(summary, out)
    else:
        how = "explicit" if policy.explicit else f"defaulted for {policy.transport}"
        out.write(f"server: {policy.profile.name} {policy.profile.server_version}\n")
        out.write(f"LOCAL_FILE_ACCESS resolves to {policy.mode.value} ({how})\n")
        for root in policy.roots:
            state = f"-> {root.resolved}" if not root.problem else f"({root.problem})"
            out.write(f"  root {one_line(root.configured)} {one_line(state)}\n")
        out.write("deny-list:\n")
        for e in policy.deny_list:
            flag = "exists " if e.exists else "missing"
            out.write(f"  [{flag}] {one_line(e.resolved)}  "
                      f"({e.setting}{', default' if e.default else ''})\n")
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
        formatter_class=HelpFormatter,
    )
    parser.add_argument("-V", "--version", action="version",
                        version=f"%(prog)s {__version__}", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND",
                                help="run 'localfs-explorer COMMAND --help' for its options")
    env_opts = environment_options()

    p = sub.add_parser("check", parents=[env_opts], help="check paths against the policy",
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

    p = sub.add_parser("validate", parents=[env_opts],
                       help="would the server start, and with which policy",
                       description="Resolve the configuration as the server does at startup "
                       "and print the mode, roots, deny-list, warnings and errors.")
    p.add_argument("env_files", nargs="*", metavar="ENV_FILE",
                   help="validate each of these .env files in turn, as --env FILE would "
                   "(what the pre-commit hook passes)")
    p.add_argument("--json", action="store_true", help="the summary as one JSON object")
    p.add_argument("--sarif", metavar="PATH",
                   help="also write errors and warnings as SARIF 2.1.0, placed on the .env "
                   "line of the setting (for code scanning)")
    p.set_defaults(handler=cmd_validate)

    for module in _command_modules():
        module.register(sub, env_opts)
    parser.epilog = epilog_for("")
    for name, command in sub.choices.items():
        command.formatter_class = HelpFormatter
        if not command.epilog:
            command.epilog = epilog_for(name)
        elif "exit status:" not in command.epilog:
            command.epilog = Epilog(f"{command.epilog}\n\n{EXIT_STATUS}")
    return parser


def _command_modules() -> list[Any]:
    """The command modules, imported when the parser is built (not when cli is)."""
    import importlib

    from .commands import COMMAND_MODULES

    return [importlib.import_module(name) for name in COMMAND_MODULES]


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None,
         err: TextIO | None = None, stdin: TextIO | None = None) -> int:
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
    with collecting() as secrets:
        safe_out, safe_err = cast(TextIO, SafeWriter(out)), cast(TextIO, SafeWriter(err))
        return _run(handler, args, stdin, ScrubbingWriter(safe_out, secrets),
                    ScrubbingWriter(safe_err, secrets))


class _StdinNamed:
    """A text stream that shows the scratch file holding stdin as ``<stdin>``."""

    def __init__(self, stream: Any, saved: str) -> None:
        self._stream = stream
        self._saved = saved

    def write(self, text: str) -> int:
        self._stream.write(text.replace(self._saved, "<stdin>"))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _run(handler: Command, args: argparse.Namespace, stdin: TextIO | None, out: Any,
         err: Any) -> int:
    with tempfile.TemporaryDirectory(prefix="localfs-explorer-") as scratch:
        saved = None
        try:
            saved = stdin_to_file(args, stdin or sys.stdin, scratch)
            if saved:
                # Per-line errors (``FILE:LINE: ...``) name stdin, not the scratch file.
                out, err = _StdinNamed(out, saved), _StdinNamed(err, saved)
            return handler(args, out, err)
        except LocalfsError as exc:  # every user-facing error, UsageError included
            message = str(exc)
            if saved:
                message = message.replace(saved, "<stdin>")
            err.write(f"localfs-explorer {args.command}: {message}\n")
            return 2
        except RecursionError:  # a backstop: input limits should have refused it earlier
            err.write(f"localfs-explorer {args.command}: the input nests or links too "
                      "deeply to follow; refused\n")
            return 2
        except KeyboardInterrupt:
            err.write("interrupted\n")
            return 130
