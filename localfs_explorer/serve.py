"""The ``serve`` command: the Explorer as a Voila dashboard on this machine.

A kernel behind a served page runs on the serving machine, so every path the page
probes is a question about that machine's files: a page reachable from elsewhere would be
an oracle for which files exist here. So ``serve`` binds to 127.0.0.1 unless ``--host``
says otherwise, and when it does, probing this machine's filesystem (and reading or
writing its files by path) is off unless ``--allow-host-fs`` is given too: visitors can
then probe only the shipped example hosts or a host spec they upload. This is the
server's own rule (local file access off by default over HTTP) applied to ourselves.

The kernel learns the decision from the ``LOCALFS_EXPLORER_HOST_FS`` environment
variable, which :class:`~localfs_explorer.ui.ExplorerModel` honours.

Options shared with the other commands (``--env``, ``--set``, ``--transport``, ``--fs``
...) preload the dashboard with that configuration. Importing this module loads nothing
from Jupyter; Voila is started as a separate process.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

#: Environment variable read by the kernel: "0" turns off probing this machine.
HOST_FS_ENV = "LOCALFS_EXPLORER_HOST_FS"
#: Environment variable naming a JSON file with the configuration to preload.
PRELOAD_ENV = "LOCALFS_EXPLORER_PRELOAD"
DEFAULT_PORT = 8866
LOCAL_HOST = "127.0.0.1"
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})

#: The dashboard's only cell: opening the notebook in Voila shows the app and nothing else.
DASHBOARD_SOURCE = "from localfs_explorer.ui import explorer\n\nexplorer();"


class ServeError(Exception):
    """A ``serve`` option or environment problem; reported in one line, exit 2."""


@dataclass
class ServePlan:
    """Everything needed to start Voila: the command, its environment, where it listens."""

    argv: list[str]
    env: dict[str, str]
    url: str
    host: str
    port: int
    host_fs: bool
    notebook: Path
    #: Files to delete when the server stops (a generated notebook, the preload file).
    cleanup: list[Path] = field(default_factory=list)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only."""
    return host.strip().lower() in _LOOPBACK or host.startswith("127.")


def dashboard_notebook() -> tuple[Path, bool]:
    """The dashboard notebook and whether it was generated (an install without the repo)."""
    shipped = Path(__file__).resolve().parent.parent / "notebooks" / "explorer.ipynb"
    if shipped.is_file():
        return shipped, False
    directory = Path(tempfile.mkdtemp(prefix="localfs-explorer-"))
    path = directory / "explorer.ipynb"
    path.write_text(json.dumps(dashboard_notebook_json(), indent=1) + "\n", encoding="utf-8")
    return path, True


def dashboard_notebook_json() -> dict[str, Any]:
    """The dashboard as notebook JSON (nbformat 4), one cell, no outputs."""
    return {
        "cells": [{
            "cell_type": "code",
            "execution_count": None,
            "id": "explorer",
            "metadata": {},
            "outputs": [],
            "source": DASHBOARD_SOURCE,
        }],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def preload_options(args: argparse.Namespace, host_fs: bool) -> dict[str, Any]:
    """The model options the shared environment options describe ({} when none given)."""
    options: dict[str, Any] = {}
    env = getattr(args, "env", None)
    if env:
        path = Path(env).expanduser()
        if host_fs:
            options["env_path"] = str(path.resolve())
        else:
            # Visitors can't make the kernel read this machine's files, but the operator
            # chose this one: hand its text over as if it had been uploaded.
            try:
                options["env_text"] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ServeError(f"--env {env}: can't be read ({exc})") from None
            options["env_name"] = path.name
            if not getattr(args, "package_dir", None):
                options["package_dir"] = str(path.resolve().parent)
    if getattr(args, "set", None):
        options["overrides"] = [list(kv) for kv in args.set]
    if getattr(args, "unset", None):
        options["unset"] = list(args.unset)
    if getattr(args, "inherit_env", False):
        raise ServeError("--inherit-env can't be used with serve: pass the variables with --set")
    if getattr(args, "profile", None):
        raise ServeError("--profile can't be used with serve yet")
    if getattr(args, "lenient", False):
        options["lenient"] = True
    for name in ("transport", "cwd", "package_dir", "platform"):
        value = getattr(args, name, None)
        if value and not (name == "transport" and value == "stdio") and not (
            name == "platform" and value == "posix"
        ):
            options[name] = value
    spec = getattr(args, "fs", None)
    if spec and spec != "host":
        options.update(_preload_fs(spec))
    if host_fs:
        # Relative paths in the page then mean what they mean to `check` run from here.
        options["host_cwd"] = os.getcwd()
    return options


def _preload_fs(spec: str) -> dict[str, Any]:
    try:
        from .fs.spec import list_example_hosts
    except ImportError:
        raise ServeError("--fs: described hosts are not available in this installation") from None
    if "/" not in spec and not spec.endswith(".json") and spec in list_example_hosts():
        return {"target": f"example:{spec}"}
    path = Path(spec).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ServeError(f"--fs {spec}: can't be read ({exc})") from None
    return {"spec_text": text, "spec_name": path.name, "target": "upload"}


#: The Voila template the dashboard is served with, and the data directory holding it.
TEMPLATE = "lfe"
TEMPLATES_ROOT = Path(__file__).resolve().parent / "data" / "jupyter"


def plan_serve(
    *,
    port: int = DEFAULT_PORT,
    host: str | None = None,
    allow_host_fs: bool = False,
    open_browser: bool = True,
    notebook: Path | None = None,
    preload: dict[str, Any] | None = None,
    python: str | None = None,
) -> ServePlan:
    """Work out the Voila command for these options without starting anything.

    ``host`` None binds to 127.0.0.1. Any other host keeps this machine's filesystem out
    of reach unless ``allow_host_fs``.
    """
    if not 0 <= port <= 65535:
        raise ServeError(f"--port {port}: not a TCP port")
    bind = host if host is not None else LOCAL_HOST
    if not bind.strip():
        raise ServeError("--host needs an address (e.g. 0.0.0.0)")
    host_fs = is_loopback(bind) or allow_host_fs
    cleanup: list[Path] = []
    if notebook is None:
        notebook, generated = dashboard_notebook()
        if generated:
            cleanup.append(notebook)
    env = dict(os.environ)
    env[HOST_FS_ENV] = "1" if host_fs else "0"
    env.pop(PRELOAD_ENV, None)
    if preload:
        fd, name = tempfile.mkstemp(prefix="localfs-explorer-preload-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:  # mkstemp: readable by us only
            json.dump(preload, fh)
        env[PRELOAD_ENV] = name
        cleanup.append(Path(name))
    # The Explorer's own Voila template (no requests to other sites, a banner when the
    # kernel goes away), found through JUPYTER_PATH.
    env["JUPYTER_PATH"] = os.pathsep.join(
        p for p in (str(TEMPLATES_ROOT), env.get("JUPYTER_PATH", "")) if p)
    argv = [
        python or sys.executable, "-m", "voila", str(notebook), f"--template={TEMPLATE}",
        f"--port={port}", f"--Voila.ip={bind}",
        # A busy port is an error, not a silent move to another port nobody was told.
        "--Voila.port_retries=0",
        "--VoilaConfiguration.show_tracebacks=False",
    ]
    if not open_browser:
        argv.append("--no-browser")
    shown = f"[{bind}]" if ":" in bind and not bind.startswith("[") else bind
    url = f"http://{'127.0.0.1' if bind in ('0.0.0.0', '::') else shown}:{port}/"
    return ServePlan(argv=argv, env=env, url=url, host=bind, port=port, host_fs=host_fs,
                     notebook=notebook, cleanup=cleanup)


def load_preload() -> dict[str, Any]:
    """The model options ``serve`` left for the kernel ({} when there are none)."""
    name = os.environ.get(PRELOAD_ENV)
    if not name:
        return {}
    try:
        with open(name, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    if "overrides" in data:
        data["overrides"] = [tuple(kv) for kv in data["overrides"]]
    return data


def run_plan(plan: ServePlan, out: TextIO, err: TextIO) -> int:
    """Start Voila in the foreground; stop it on Ctrl-C. Returns its exit status."""
    note = ("this machine's files can be probed" if plan.host_fs
            else "this machine's files can't be probed from the page "
                 "(example or uploaded hosts only)")
    if not is_loopback(plan.host):
        err.write(f"serve: listening on {plan.host}: anyone who can reach it can use the "
                  f"page; {note}\n")
    out.write(f"localfs-explorer dashboard: {plan.url} ({note}); Ctrl-C stops it\n")
    out.flush()
    try:
        proc = subprocess.Popen(plan.argv, env=plan.env)
    except OSError as exc:
        raise ServeError(f"can't start Voila: {exc}") from None
    previous = None
    if threading.current_thread() is threading.main_thread():
        # A service manager stops us with SIGTERM: Voila (and its kernels) must stop too,
        # not linger as orphans still serving the page.
        previous = signal.signal(signal.SIGTERM, lambda *_: proc.terminate())
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        for path in plan.cleanup:
            with contextlib.suppress(OSError):
                if path.suffix == ".ipynb":
                    shutil.rmtree(path.parent, ignore_errors=True)
                else:
                    path.unlink()


def _check_voila() -> None:
    import importlib.util

    if importlib.util.find_spec("voila") is None:
        raise ServeError(
            "Voila is not installed: install the dashboard extra "
            "(pip install 'localfs-explorer[dashboard]')"
        )


def cmd_serve(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """The ``serve`` command handler (the CLI's handler signature)."""
    try:
        _check_voila()
        host_fs = args.host is None or is_loopback(args.host) or args.allow_host_fs
        plan = plan_serve(port=args.port, host=args.host, allow_host_fs=args.allow_host_fs,
                          open_browser=not args.no_browser,
                          preload=preload_options(args, host_fs))
        return run_plan(plan, out, err)
    except ServeError as exc:
        err.write(f"localfs-explorer serve: {exc}\n")
        return 2


def add_serve_options(parser: argparse.ArgumentParser) -> None:
    """The serve-specific options."""
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"the port to listen on (default: {DEFAULT_PORT})")
    parser.add_argument("--host", default=None,
                        help="the address to listen on (default: 127.0.0.1, this machine "
                             "only). Any other address turns off probing this machine's "
                             "files unless --allow-host-fs is given")
    parser.add_argument("--allow-host-fs", action="store_true",
                        help="with --host: let the page probe this machine's files anyway")
    parser.add_argument("--no-browser", action="store_true",
                        help="don't open a browser window")


def register(
    subparsers: Any, env_parent_parser: argparse.ArgumentParser | None = None
) -> argparse.ArgumentParser:
    """Add ``serve`` to the CLI's subcommands (the shared options preload the dashboard)."""
    parents = [env_parent_parser] if env_parent_parser is not None else []
    parser = subparsers.add_parser(
        "serve", parents=parents,
        help="open the Explorer dashboard (Voila) bound to 127.0.0.1",
        description="Serve the Explorer as a Voila dashboard. The environment options, "
                    "when given, preload it.",
    )
    add_serve_options(parser)
    parser.set_defaults(handler=cmd_serve)
    return parser


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    """``python -m localfs_explorer.serve [options]``; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    parents: list[argparse.ArgumentParser] = []
    try:
        from .cli import environment_options

        parents.append(environment_options())
    except ImportError:  # pragma: no cover - the CLI ships with the engine
        pass
    parser = argparse.ArgumentParser(
        prog="localfs-explorer serve", parents=parents,
        description="Serve the Explorer as a Voila dashboard. The environment options, "
                    "when given, preload it.",
    )
    add_serve_options(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    return cmd_serve(args, out, err)


if __name__ == "__main__":
    sys.exit(main())
