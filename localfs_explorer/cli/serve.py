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

Whether an address is loopback is decided from the address itself, never from its
spelling: a literal IP is parsed (``127.0.0.1``, ``::1``, ``::ffff:127.0.0.1`` are
loopback), ``localhost`` is loopback by definition, and any other name counts as
reachable from elsewhere without being looked up (``127.evil.example`` is a name).

The page needs a token, as Jupyter's does: ``serve`` makes a random one, hands it to
Voila in a private configuration file (never on the command line, where other users of
the machine could read it) and prints it once, in the URL. ``--no-token`` turns that
off.

Nothing in the directory ``serve`` is started in reaches Voila: Voila's default is to
read ``voila.py``/``voila.json`` there as its configuration (a ``{"Voila": {"token":
""}}`` would turn the printed token into decoration, a ``root_dir`` would serve any file),
and ``python -m voila`` would import a ``voila.py`` there instead of Voila. So Voila runs
in a private empty directory (mode 0700), from ``python -c`` with every relative entry
removed from ``sys.path``, and reads its configuration only from that directory
(``--Voila.config_file_paths``), which holds the token file and nothing else.

The page writes only files whose name looks like a ``.env`` unless ``serve`` was
started with ``--allow-any-output-name``.

Options shared with the other commands (``--env``, ``--set``, ``--transport``, ``--fs``
...) preload the dashboard with that configuration. Importing this module loads nothing
from Jupyter; Voila is started as a separate process.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import os
import secrets
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

from ..errors import LocalfsError
from ..handoff import ANY_OUTPUT_NAME_ENV, HOST_FS_ENV, PRELOAD_ENV
from ..handoff import load_preload as load_preload
from .options import environment_options, server_config

DEFAULT_PORT = 8866
LOCAL_HOST = "127.0.0.1"

#: How Voila is started: never ``-m voila``, which puts the working directory first on
#: ``sys.path``; relative entries (the working directory again) are dropped first.
VOILA_LAUNCHER = (
    "import os, sys\n"
    "sys.path[:] = [p for p in sys.path if p and os.path.isabs(p)]\n"
    "from voila.app import main\n"
    "sys.argv[0] = 'voila'\n"
    "main()\n"
)

#: The dashboard's only cell: opening the notebook in Voila shows the app and nothing else.
DASHBOARD_SOURCE = "from localfs_explorer.ui import explorer\n\nexplorer();"


class ServeError(LocalfsError):
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
    #: Whether the page asks for a token (it is in ``url`` then).
    token: bool = False
    #: Whether ``serve`` itself opens ``url`` in a browser once the server listens.
    open_url: bool = False
    #: The private directory Voila runs in and reads its configuration from.
    cwd: str | None = None


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only.

    Decided from the address, not its spelling, and without any lookup: a literal IP
    address is loopback when it is one (IPv4-mapped IPv6 included); ``localhost`` is;
    every other name is not, whatever it looks like.

    >>> is_loopback("127.0.0.2"), is_loopback("[::1]"), is_loopback("127.evil.example")
    (True, True, False)
    """
    name = host.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if name in ("localhost", "localhost."):
        return True
    try:
        address = ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return False  # a name, or a spelling only some resolvers accept ("127.1")
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def dashboard_notebook() -> tuple[Path, bool]:
    """The dashboard notebook and whether it was generated (neither copy was found)."""
    here = Path(__file__).resolve().parent.parent  # the package, above cli/
    # The package ships its own copy, so a wheel serves without the repository.
    for shipped in (here / "data" / "explorer.ipynb", here.parent / "notebooks" / "explorer.ipynb"):
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
    """The model options the shared environment options describe ({} when none given).

    The options are read into a :class:`~localfs_explorer.config.ServerConfig` exactly as
    every other command reads them, then handed to the dashboard's model.
    """
    if getattr(args, "inherit_env", False):
        raise ServeError("--inherit-env can't be used with serve: pass the variables with --set")
    if getattr(args, "profile", None):
        raise ServeError("--profile can't be used with serve yet")
    given = {name: getattr(args, name, None) for name in (
        "env", "set", "unset", "lenient", "cwd", "package_dir", "fs", "client_config")}
    changed = getattr(args, "transport", "stdio") not in (None, "stdio") or getattr(
        args, "platform", "posix") not in (None, "posix")
    if not any(given.values()) and not changed and not host_fs:
        return {}
    config = server_config(args)
    from_operator = False
    if config.env and not host_fs:
        # Visitors can't make the kernel read this machine's files, but the operator
        # chose this one: hand its text over as if it had been uploaded.
        from ..envfile.load import MAX_ENV_BYTES
        from ..userfiles import read_text

        path = Path(config.env).expanduser()
        text = read_text(path, ServeError, MAX_ENV_BYTES)
        from_operator = True
        config = config.model_copy(update={"env": None, "env_text": text,
                                           "env_name": path.name})
    spec = config.host
    if isinstance(spec, str) and spec != "host" and not _is_example(spec):
        # A host spec file is read here, where its path means something.
        from ..userfiles import parse_json, read_text

        path = Path(spec).expanduser()
        described = parse_json(read_text(path, ServeError), f"--fs {spec}", ServeError)
        if not isinstance(described, dict):
            raise ServeError(f"--fs {spec}: a host spec is a JSON object")
        config = config.model_copy(update={"host": described})
        spec_name = path.name
    else:
        spec_name = None
    from ..ui.model import ExplorerModel

    options = ExplorerModel.options_for(config, spec_name=spec_name)
    if from_operator:
        options["env_from_operator"] = True
    if not host_fs:
        # Relative paths mean nothing to a visitor: no directory of this machine is sent.
        options.pop("host_cwd", None)
    return options


def _is_example(spec: str) -> bool:
    from ..fs.spec import list_example_hosts

    return "/" not in spec and not spec.endswith(".json") and spec in list_example_hosts()


#: The Voila template the dashboard is served with, and the data directory holding it.
TEMPLATE = "lfe"
TEMPLATES_ROOT = Path(__file__).resolve().parent.parent / "data" / "jupyter"


def plan_serve(
    *,
    port: int = DEFAULT_PORT,
    host: str | None = None,
    allow_host_fs: bool = False,
    open_browser: bool = True,
    notebook: Path | None = None,
    preload: dict[str, Any] | None = None,
    python: str | None = None,
    token: bool | str = True,
    any_output_name: bool = False,
) -> ServePlan:
    """Work out the Voila command for these options without starting anything.

    ``host`` None binds to 127.0.0.1. Any other host keeps this machine's filesystem out
    of reach unless ``allow_host_fs``. ``token`` True makes a random token, a string is
    used as the token, False serves without one. ``any_output_name`` lets the page write
    files whose name doesn't look like a ``.env``.
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
    env[ANY_OUTPUT_NAME_ENV] = "1" if any_output_name else "0"
    env.pop(PRELOAD_ENV, None)
    secret = secrets.token_urlsafe(32) if token is True else (token or "")
    # A private directory (mode 0700): Voila runs in it and reads its configuration from
    # it alone, so nothing where serve was started is imported or read as configuration
    # (see the module's docstring). The token file lives there: the token stays out of
    # the command line, which any local user can list.
    config_dir = Path(tempfile.mkdtemp(prefix="localfs-explorer-voila-"))
    cleanup.append(config_dir)
    if secret:
        (config_dir / "voila.json").write_text(
            json.dumps({"Voila": {"token": secret}}), encoding="utf-8")
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_CONFIG_PATH", "JUPYTER_PATH",
                 "JUPYTER_DATA_DIR"):
        # A relative entry would mean the directory serve was started in.
        kept = [p for p in env.get(name, "").split(os.pathsep) if os.path.isabs(p)]
        if name == "JUPYTER_CONFIG_DIR":
            kept = kept[:1]
        if kept:
            env[name] = os.pathsep.join(kept)
        else:
            env.pop(name, None)
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
        # Absolute: Voila runs in its own directory.
        python or sys.executable, "-c", VOILA_LAUNCHER, str(Path(notebook).resolve()),
        f"--template={TEMPLATE}",
        f"--Voila.config_file_paths={config_dir}",
        f"--port={port}", f"--Voila.ip={bind}",
        # A busy port is an error, not a silent move to another port nobody was told.
        "--Voila.port_retries=0",
        "--VoilaConfiguration.show_tracebacks=False",
    ]
    if not open_browser or secret:
        # With a token, Voila would open its login page: serve opens the tokened URL.
        argv.append("--no-browser")
    shown = f"[{bind}]" if ":" in bind and not bind.startswith("[") else bind
    url = f"http://{'127.0.0.1' if bind in ('0.0.0.0', '::') else shown}:{port}/"
    if secret:
        url += f"?token={secret}"
    return ServePlan(argv=argv, env=env, url=url, host=bind, port=port, host_fs=host_fs,
                     notebook=notebook, cleanup=cleanup, token=bool(secret),
                     open_url=open_browser and bool(secret), cwd=str(config_dir))


def run_plan(plan: ServePlan, out: TextIO, err: TextIO) -> int:
    """Start Voila in the foreground; stop it on Ctrl-C. Returns its exit status."""
    note = ("this machine's files can be probed" if plan.host_fs
            else "this machine's files can't be probed from the page "
                 "(example or uploaded hosts only)")
    if not is_loopback(plan.host):
        err.write(f"serve: listening on {plan.host}: anyone who can reach it can use the "
                  f"page; {note}\n")
    if not plan.token:
        err.write("serve: --no-token: anyone who can reach the port can use the page"
                  + (" (on this machine, any of its users)\n" if is_loopback(plan.host)
                     else "\n"))
    out.write(f"localfs-explorer dashboard: {plan.url} ({note}); Ctrl-C stops it\n")
    out.flush()
    try:
        proc = subprocess.Popen(plan.argv, env=plan.env, cwd=plan.cwd)
    except OSError as exc:
        raise ServeError(f"can't start Voila: {exc}") from None
    if plan.open_url:
        threading.Thread(target=_open_when_listening, args=(plan, proc), daemon=True).start()
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
        cleanup_plan(plan)


def cleanup_plan(plan: ServePlan) -> None:
    """Delete what :func:`plan_serve` created (notebook, preload file, token config)."""
    for path in plan.cleanup:
        with contextlib.suppress(OSError):
            if path.suffix == ".ipynb":
                shutil.rmtree(path.parent, ignore_errors=True)
            elif path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink()


def _open_when_listening(plan: ServePlan, proc: subprocess.Popen[bytes],
                         timeout: float = 60) -> None:
    """Open ``plan.url`` in a browser once the port accepts connections (loopback only)."""
    import socket
    import time
    import webbrowser

    deadline = time.monotonic() + timeout
    probe_host = plan.host if is_loopback(plan.host) else None
    if plan.host in ("0.0.0.0", "::"):
        probe_host = "127.0.0.1"
    while time.monotonic() < deadline and proc.poll() is None:
        if probe_host is None:  # never connect anywhere but loopback: just give it time
            time.sleep(3)
            break
        with contextlib.suppress(OSError), socket.create_connection(
                (probe_host.strip("[]"), plan.port), timeout=1):
            break
        time.sleep(0.3)
    if proc.poll() is None:
        webbrowser.open(plan.url)


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
                          preload=preload_options(args, host_fs),
                          token=not args.no_token,
                          any_output_name=args.allow_any_output_name)
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
    parser.add_argument("--no-token", action="store_true",
                        help="serve the page without a token (by default a random token "
                             "is made and printed once, in the URL)")
    parser.add_argument("--allow-any-output-name", action="store_true",
                        help="let the page write .env files under any name (by default "
                             "only names that look like a .env: .env, *.env, .env.*)")


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
    """``python -m localfs_explorer.cli.serve [options]``; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    parents: list[argparse.ArgumentParser] = []
    parents.append(environment_options())
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
