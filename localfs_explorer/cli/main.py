"""The ``localfs-explorer`` command: the engine's answers for scripts and CI.

Every command takes the same environment options, so a configuration is described the
same way whichever question is asked of it. Exit status: 0 when the answer is "yes"
(allowed, valid), 1 when it is "no" (something refused), 2 for a usage or configuration
error. Values of secret settings are never printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO, cast

from .. import __version__
from ..errors import LocalfsError
from ..secrets import ScrubbingWriter, collecting
from ..textsafe import SafeWriter, one_line
from .options import apply_deployment, deployment_warnings, environment_options, stdin_to_file

#: The exit statuses every command uses, shown at the end of each ``--help``.
EXIT_STATUS = (
    "exit status:\n"
    "  0  the answer is yes (allowed, valid, passed, nothing new)\n"
    "  1  the answer is no (something refused, failed or newly allowed)\n"
    "  2  usage or configuration error (one line on stderr, no traceback)"
)
#: Commands whose exit statuses say more than :data:`EXIT_STATUS`.
COMMAND_EXIT_STATUS: dict[str, str] = {
    # A predicted tool error is an answer about the calls, not a usage error: CI tells a
    # broken calls file (2) from a call the tool would fail (1).
    "probe": (
        "exit status:\n"
        "  0  the answer is yes: every call succeeds\n"
        "  1  a call is refused, partly refused or absent, or the tool would answer it\n"
        "     with an error (a missing file, an invalid argument): the answer is no\n"
        "  2  usage or configuration error: a calls-file line that isn't a call,\n"
        "     arguments that aren't an object, an unreadable file, a server that would\n"
        "     refuse to serve (one line on stderr, no traceback)"
    ),
}

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
                 "localfs-explorer validate --client-config .vscode/mcp.json --entry sheets",
                 "localfs-explorer validate --env deploy/.env --sarif validate.sarif",
                 "localfs-explorer validate deploy/staging.env deploy/production.env"),
    "deployment": ("localfs-explorer deployment --client-config claude_desktop_config.json",
                   "localfs-explorer deployment --client-config .vscode/mcp.json --json "
                   "--fail-on medium"),
    "snapshot": ("localfs-explorer snapshot /srv/app -o app-host.json --home /home/svc",),
    "hosts": ("localfs-explorer hosts", "localfs-explorer hosts --json"),
    "tools": ("localfs-explorer tools --env deploy/.env --json",),
    "probe": ("localfs-explorer probe --call '{\"name\": \"upload_local_file\", "
              "\"arguments\": {\"local_path\": \"/data/a.csv\"}}'",
              "localfs-explorer probe --calls calls.jsonl --csv > verdicts.csv",
              "cat calls.jsonl | localfs-explorer probe --calls - --json"),
    "export-env": ("localfs-explorer export-env --client-config .mcp.json --entry sheets "
                   "--set LOCAL_FILE_ROOTS=/data --in-place",
                   "localfs-explorer export-env --env .env --set LOCAL_FILE_ACCESS=roots "
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
    "access": ("localfs-explorer access --hangar hangar.yaml --server api --tool delete_repo",
               "localfs-explorer access --hangar hangar.yaml --server api --via core "
               "--tenant acme --tool deploy_app --json",
               "localfs-explorer access --hangar hangar.yaml --server gee"),
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
    parts.append(COMMAND_EXIT_STATUS.get(command, EXIT_STATUS))
    return Epilog("\n\n".join(parts))


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
    # Not ``command``: verify's --command (a command line, maybe with a secret in it)
    # would overwrite the name every error line starts with.
    sub = parser.add_subparsers(dest="command_name", metavar="COMMAND",
                                help="run 'localfs-explorer COMMAND --help' for its options")
    env_opts = environment_options()

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
    """The command modules, imported when the parser is built (not when this module is)."""
    import importlib

    from . import COMMAND_MODULES

    return [importlib.import_module(name) for name in COMMAND_MODULES]


#: The exit status when the reader of stdout goes away (``check ... | head -1``): what a
#: shell reports for a command ended by SIGPIPE (128 + 13), as ``yes | head`` shows.
EXIT_BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None,
         err: TextIO | None = None, stdin: TextIO | None = None) -> int:
    """Run the command line; returns the exit status instead of exiting.

    When stdout is a pipe whose reader has gone away, the command stops quietly with
    :data:`EXIT_BROKEN_PIPE` instead of a traceback.
    """
    to_stdout = out is None
    try:
        return _main(argv, out, err, stdin)
    except BrokenPipeError:
        if to_stdout:
            _stdout_to_devnull()
        return EXIT_BROKEN_PIPE


def _stdout_to_devnull() -> None:
    """Point the process's stdout at the null device: Python flushes stdout once more
    when it exits, and that flush would report the broken pipe again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout: nothing to flush
        pass


def _main(argv: Sequence[str] | None, out: TextIO | None, err: TextIO | None,
          stdin: TextIO | None) -> int:
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

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

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
            apply_deployment(args)
            for warning in deployment_warnings(args):
                err.write(f"warning: {one_line(warning)}\n")
            return handler(args, out, err)
        except LocalfsError as exc:  # every user-facing error, UsageError included
            message = str(exc)
            if saved:
                message = message.replace(saved, "<stdin>")
            # One line whatever the message quotes: a file name may hold a line break.
            err.write(f"localfs-explorer {args.command_name}: {one_line(message)}\n")
            return 2
        except RecursionError:  # a backstop: input limits should have refused it earlier
            err.write(f"localfs-explorer {args.command_name}: the input nests or links too "
                      "deeply to follow; refused\n")
            return 2
        except KeyboardInterrupt:
            err.write("interrupted\n")
            return 130
