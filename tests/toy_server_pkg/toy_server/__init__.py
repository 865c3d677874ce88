"""A toy server behind localfs-explorer's seam, registered by its entry point only.

Its rules: a path must resolve inside its one allowed folder (its own option,
``--toy-folder-allowed``), and a name ending in ``.secret`` is refused wherever it is.
It has one tool (``read_file``), a status answer, an exposure walk (its folder), a
recognisable launch (``toy-folder-server DIR``) and a live check against a stand-in
(:mod:`toy_server.standin`, which reports the folder it was started with). It has no
``.env``, no HTTP and no suggest: the commands that need one say so.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from localfs_explorer.catalog import Argument, Catalog, PathParam, Registration, Tool, ToolHints
from localfs_explorer.server import (
    BasicVerdict,
    ExposureScope,
    LaunchArgs,
    Launcher,
    LiveError,
    Server,
    ServerError,
    ServerOptions,
    Setup,
    SingleChecks,
    TraceLine,
)

__all__ = ["ToyFolderServer"]

ID = "toy-folder"


class ToyOptions(ServerOptions):
    """The one setting: the folder it allows."""

    allowed: str = "/nowhere"


class ToyPolicy:
    """The toy's resolved configuration (a :class:`~localfs_explorer.server.ServerPolicy`)."""

    server_id = ID
    server_version = "1.0"
    over_http_default = False

    def __init__(self, setup: Setup) -> None:
        self.warnings: list[str] = []
        self.fs = setup.fs
        self.cwd = setup.cwd or setup.base_dir
        self.env = setup.env
        options = setup.options
        assert isinstance(options, ToyOptions)
        self.allowed = self.fs.realpath(options.allowed)
        self.errors = [] if self.fs.is_dir(self.allowed) else [
            f"{options.allowed} is not a directory"]

    @property
    def serves(self) -> bool:
        return not self.errors

    @property
    def exit_message(self) -> str | None:
        return self.errors[0] if self.errors else None

    @property
    def exit_line(self) -> str | None:
        return f"toy: {self.errors[0]}" if self.errors else None

    def check(self, path: Any, op: Any = "read", *, over_http: bool | None = None
              ) -> BasicVerdict:
        path = str(path)
        absolute = path if path.startswith("/") else f"{self.cwd}/{path}"
        resolved = self.fs.realpath(absolute)
        if not (resolved == self.allowed or resolved.startswith(self.allowed + "/")):
            return BasicVerdict(path=path, op=op, allowed=False, reason="outside",
                                message=f"toy refuses {path}: outside {self.allowed}",
                                resolved=resolved, hint=f"put it under {self.allowed}")
        if resolved.endswith(".secret"):
            return BasicVerdict(path=path, op=op, allowed=False, reason="secret",
                                message=f"toy refuses {path}: a secret", resolved=resolved,
                                trace=(TraceLine("secret", "refused", "a .secret name"),))
        return BasicVerdict(path=path, op=op, allowed=True, reason="allowed", message="",
                            resolved=resolved)

    def many_checks(self) -> SingleChecks:
        return SingleChecks(self)

    def summary(self) -> dict[str, Any]:
        return {"allowed": self.allowed, "serves": self.serves, "errors": self.errors,
                "warnings": []}


class LiveAnswer:
    """What the stand-in reported, against the prediction (a ``LiveReport``)."""

    def __init__(self, predicted: str, live: str, command: str) -> None:
        self.predicted, self.live, self.command = predicted, live, command

    @property
    def agree(self) -> bool:
        return self.predicted == self.live

    def to_dict(self) -> dict[str, Any]:
        return {"command": self.command, "allowed": {"predicted": self.predicted,
                                                     "live": self.live},
                "agree": self.agree}

    def lines(self) -> list[str]:
        mark = "same" if self.agree else "DIFF"
        return [f"server:   {self.command}", f"  {mark}  allowed: {self.live}",
                "the server agrees with the explorer" if self.agree
                else "1 difference: the running server is not the configuration given"]


class ToyFolderServer(Server):
    """The toy (see the module docstring)."""

    id = ID
    title = "a toy server allowing one folder"
    versions = ("1.0",)
    options_model = ToyOptions
    transports = ("stdio",)
    reasons = ("allowed", "outside", "secret")
    env_file = False
    launcher = Launcher(bins=("toy-folder-server",))

    def add_cli_options(self, group: Any) -> None:
        group.add_argument("--toy-folder-allowed", dest="toy_folder_allowed", metavar="DIR",
                           default=None, help="toy-folder: the one folder it allows")

    def options_from_args(self, args: Any) -> dict[str, Any]:
        value = getattr(args, "toy_folder_allowed", None)
        return {} if value is None else {"allowed": value}

    def read_args(self, args: Any) -> LaunchArgs:
        """Its one argument is its folder."""
        args = [a for a in args if a]
        return LaunchArgs(options={"allowed": args[0]} if args else {},
                          shown=(("allowed folder", args[0]),) if args else ())

    def resolve(self, setup: Setup) -> ToyPolicy:
        return ToyPolicy(setup)

    def catalog(self, path: str | None = None) -> Catalog:
        if path is not None:
            raise ServerError(f"{ID} reads no catalog file")
        return Catalog(server=ID, tools=(Tool(
            name="read_file", params=(PathParam(location="path", op="read"),),
            arguments=(Argument(name="path", required=True, types=("string",)),),
            hints=ToolHints(readOnlyHint=True)),))

    def register_tools(self, policy: Any, catalog: Catalog) -> Registration:
        return Registration(mode="on", registered=list(catalog.names()))

    def status(self, policy: Any, registration: Any = None, variant: Any = None
               ) -> dict[str, Any]:
        return {"allowed_directories": [policy.allowed]}

    def headline(self, policy: Any) -> list[tuple[str, str]]:
        return [("Allowed folder", policy.allowed)]

    def exposure_scope(self, policy: Any) -> ExposureScope:
        return ExposureScope((policy.allowed,), policy.env.get("HOME") or policy.fs.home())

    def verify(self, policy: Any, target: Any, catalog: Any = None) -> LiveAnswer:
        """Start the stand-in and compare the folder it reports with the prediction."""
        if target.url:
            raise ServerError(f"{ID} speaks stdio only: give --command")
        argv = list(target.argv or ())
        env = {**os.environ, **(target.env or {})}
        try:
            done = subprocess.run(argv, capture_output=True, text=True, env=env,
                                  cwd=target.cwd, timeout=target.timeout or 10, check=False)
            live = json.loads(done.stdout)["allowed"]
        except (OSError, ValueError, KeyError, TypeError,
                subprocess.TimeoutExpired) as exc:
            raise LiveError(f"can't run the server: {type(exc).__name__}: {exc}") from None
        return LiveAnswer(policy.allowed, str(live), target.command or " ".join(argv))
