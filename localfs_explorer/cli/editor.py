"""``schema`` (JSON Schemas of the user files) and ``completion`` (shell completion).

The completion scripts are generated from the parser with shtab when the package is
prepared (``python3 scripts/completions``) and shipped as data, so completing needs
nothing at run time; a test keeps them in step with the parser.
"""

from __future__ import annotations

import argparse
import json
import os
from importlib.resources import files
from typing import Any, TextIO

from . import options as cli

#: Shells with a shipped completion script.
SHELLS = ("bash", "zsh", "tcsh")

#: Where each shell looks for a completion script, for the message after writing one.
_INSTALL = {
    "bash": "~/.local/share/bash-completion/completions/localfs-explorer",
    "zsh": "a directory on $fpath, as _localfs-explorer",
    "tcsh": "a file sourced from ~/.tcshrc",
}


def register(sub: Any, env_options: argparse.ArgumentParser) -> None:
    """Add the schema and completion commands."""
    from .schemas import SCHEMAS

    p = sub.add_parser(
        "schema", help="print the JSON Schema of a user file (for editors)",
        description="The JSON Schema (draft 2020-12) of a file the tool reads, generated "
        "from the model that reads it. In TOML, put '#:schema ./NAME.schema.json' on the "
        "first line for completion in Taplo / Even Better TOML; in JSON, use \"$schema\" "
        "or your editor's schema mapping.",
    )
    p.add_argument("name", nargs="?", choices=tuple(SCHEMAS), metavar="NAME",
                   help=f"which file: {', '.join(SCHEMAS)}")
    p.add_argument("--list", action="store_true", help="list the schema names and exit")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the schema to FILE (refused when FILE exists) instead of "
                   "printing it")
    p.set_defaults(handler=cmd_schema)

    p = sub.add_parser(
        "completion", help="print a shell completion script",
        description="A completion script for the shell, generated from this command "
        "line's options.",
    )
    p.add_argument("shell", choices=SHELLS, help="the shell: " + ", ".join(SHELLS))
    p.set_defaults(handler=cmd_completion)


def cmd_schema(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .schemas import SCHEMAS, json_schema

    if args.list or not args.name:
        if not args.list:
            raise cli.UsageError(f"schema needs a NAME ({', '.join(SCHEMAS)}) or --list")
        for name, (what, _build) in SCHEMAS.items():
            out.write(f"{name:<10} {what}\n")
        return 0
    text = json.dumps(json_schema(args.name), indent=2, ensure_ascii=False) + "\n"
    if not args.output:
        out.write(text)
        return 0
    try:
        # "x": never replace what is there.
        with open(args.output, "x", encoding="utf-8") as fh:
            fh.write(text)
    except FileExistsError:
        raise cli.UsageError(f"{args.output} exists; remove it or pick another name") from None
    except OSError as exc:
        raise cli.UsageError(f"{args.output}: can't be written ({exc.strerror or exc})") \
            from None
    err.write(f"wrote {args.output}\n")
    if args.name in ("scenarios", "access", "catalog"):
        err.write(f"for completion in TOML files, make their first line: "
                  f"#:schema ./{os.path.basename(args.output)}\n")
    return 0


def completion_script(shell: str) -> str:
    """The shipped completion script for ``shell``."""
    return files("localfs_explorer").joinpath("data", "completion", shell).read_text(
        encoding="utf-8")


def cmd_completion(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        out.write(completion_script(args.shell))
    except OSError as exc:  # pragma: no cover - a broken install
        raise cli.UsageError(f"no completion script for {args.shell} ({exc})") from None
    if out.isatty():
        err.write(f"# install it as {_INSTALL[args.shell]}\n")
    return 0
