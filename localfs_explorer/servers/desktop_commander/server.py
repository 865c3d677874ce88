"""DesktopCommanderMCP behind the :class:`~localfs_explorer.server.Server` seam.

Its configuration is not an environment: it is its settings file
(``$HOME/.claude-server-commander/config.json``: ``allowedDirectories``,
``blockedCommands``), ``HOME`` (for ``~``, for the default allow-list and for where that
file is) and the working directory relative paths are resolved against. Those are this
server's options (:class:`DcOptions`); ``.env``, transport and platform mean nothing to it.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, cast

from ...server import (
    BasicVerdict,
    CallAnswer,
    CallCheck,
    ExposureScope,
    Launcher,
    LiveError,
    LiveTarget,
    Server,
    ServerError,
    ServerOptions,
    SettingField,
    Setup,
    TraceLine,
)
from .messages import CALL_ERROR_PREFIX, ITEM_ERROR
from .policy import REASONS, DcPolicy, DcVerdict, case_twin
from .settings import DcSettings, SettingsError, config_path, read_settings

if TYPE_CHECKING:
    from ...catalog.model import Catalog, Registration
    from ...envfile.load import ServerEnv
    from ...fs.base import FileSystem
    from ...vocab import Op

__all__ = ["RELEASE", "SERVER_ID", "DcOptions", "DcServerPolicy", "DesktopCommanderServer"]

SERVER_ID = "desktop-commander"
#: Its npm package.
PACKAGE = "@wonderwhy-er/desktop-commander"
#: The npm release whose behaviour is reproduced.
RELEASE = "0.2.52"


class DcOptions(ServerOptions):
    """DesktopCommanderMCP's own configuration.

    ``allowed_directories`` replaces the settings file's list (None: the file's);
    ``settings_file`` is the file to read (None: the one under ``home``); ``home`` is the
    server's ``HOME`` (None: ``HOME`` from the environment, else the account's).
    """

    allowed_directories: tuple[str, ...] | None = None
    settings_file: str | None = None
    home: str | None = None


def verdict_of(v: DcVerdict, op: Op) -> BasicVerdict:
    """The seam's verdict for one of the check's answers."""
    trace: tuple[TraceLine, ...]
    if v.allowed:
        hint = ""
        if v.case_only:
            hint = (f"passes only because the check lower-cases both sides: {v.resolved} "
                    f"is not inside {v.matched} on a case-sensitive filesystem")
        step = "inside " + (v.matched or "") if v.reason == "inside" else "every path allowed"
        trace = (TraceLine("resolve", "ok", v.resolved or ""),
                 TraceLine("allowedDirectories", "allowed", step))
    else:
        hint = ("a path on the way is not a directory, or a symlink loops"
                if v.reason == "resolve-failed" else
                "outside every allowed directory once resolved (symlinks followed, "
                "'..' folded)")
        trace = (TraceLine("validatePath", "refused", v.message),)
    return BasicVerdict(path=v.path, op=op, allowed=v.allowed, reason=v.reason,
                        message=v.message, resolved=v.resolved, hint=hint, trace=trace)


class DcServerPolicy:
    """A :class:`DcPolicy` as the seam's :class:`~localfs_explorer.server.ServerPolicy`."""

    over_http_default = False
    serves = True
    exit_message: str | None = None
    exit_line: str | None = None

    def __init__(self, policy: DcPolicy, env: ServerEnv, settings_file: str | None) -> None:
        self.policy = policy
        self.env = env
        self.settings_file = settings_file

    @property
    def server_id(self) -> str:
        return SERVER_ID

    @property
    def fs(self) -> FileSystem:
        return self.policy.fs

    @property
    def cwd(self) -> str:
        return self.policy.cwd

    @property
    def settings(self) -> DcSettings:
        return self.policy.settings

    @property
    def errors(self) -> list[str]:
        return []

    @property
    def warnings(self) -> list[str]:
        warning = self.policy.settings.warning
        return [warning] if warning else []

    @property
    def server_version(self) -> str:
        return RELEASE

    def check(self, path: Any, op: Op = "read", *, over_http: bool | None = None
              ) -> BasicVerdict:
        return verdict_of(self.policy.validate(str(path)), op)

    @contextlib.contextmanager
    def many_checks(self) -> Iterator[Any]:
        with self.policy.many_checks() as batch:

            class _DcBatch:
                def check(self, path: Any, op: Op = "read", *,
                          over_http: bool | None = None) -> BasicVerdict:
                    return verdict_of(batch.validate(str(path)), op)

            yield _DcBatch()

    def summary(self) -> dict[str, Any]:
        from .findings import findings

        s = self.policy.settings
        return {
            "server": SERVER_ID, "server_version": RELEASE, "cwd": self.cwd,
            "home": self.policy.home, "settings_file": self.settings_file,
            "settings_source": s.source,
            "allowed_directories": list(s.allowed),
            "configured_directories": None if s.configured is None else list(s.configured),
            "every_path_allowed": s.everything,
            "blocked_commands": list(s.blocked_commands),
            "serves": True, "exit_message": None, "warnings": self.warnings,
            "findings": [f.to_dict() for f in findings(self.policy)],
        }


class DesktopCommanderServer(Server):
    """``@wonderwhy-er/desktop-commander`` (see the module docstring)."""

    id: ClassVar[str] = SERVER_ID
    title: ClassVar[str] = "DesktopCommanderMCP (@wonderwhy-er/desktop-commander)"
    versions: ClassVar[tuple[str, ...]] = (RELEASE,)
    options_model: ClassVar[type[ServerOptions]] = DcOptions
    transports: ClassVar[tuple[str, ...]] = ("stdio",)
    reasons: ClassVar[tuple[str, ...]] = REASONS
    live_fields: ClassVar[tuple[str, ...]] = ("allowedDirectories", "blockedCommands",
                                               "tools")
    #: No ``.env``: its settings are a file under its HOME.
    env_file: ClassVar[bool] = False
    #: ``npx -y @wonderwhy-er/desktop-commander``, ``node .../desktop-commander/dist/...``,
    #: and its image on Docker Hub (``mcp/desktop-commander``). Its arguments say nothing
    #: of its settings (those are HOME's settings file), so it reads none.
    launcher: ClassVar[Launcher] = Launcher(
        npm=(PACKAGE,), scripts=(PACKAGE,), image_names=("desktop-commander",))
    #: Its command line often fetches the package first (``npx -y ...``).
    verify_timeout: ClassVar[float] = 60.0
    setting_fields: ClassVar[tuple[SettingField, ...]] = (
        SettingField("allowed_directories", "allowedDirectories", "paths",
                     "add an entry to allowedDirectories (replaces the settings file's "
                     "list)", placeholder="add an allowed directory"),
        SettingField("home", "HOME", "text", "the server's HOME: where its settings file "
                     "is, what ~ means and the default allow-list",
                     placeholder="the account's home"),
        SettingField("settings_file", "settings file", "text", "its settings file "
                     "(default: HOME/.claude-server-commander/config.json)",
                     placeholder="HOME/.claude-server-commander/config.json"),
    )

    def add_cli_options(self, group: argparse._ArgumentGroup) -> None:
        group.add_argument("--allowed-dir", dest="dc_directories", metavar="DIR",
                           action="append", default=None,
                           help="desktop-commander: an entry of allowedDirectories "
                           "(repeatable, in order; replaces the settings file's list)")
        group.add_argument("--home", dest="dc_home", metavar="DIR", default=None,
                           help="desktop-commander: the server's HOME (default: HOME given "
                           "with --set, else the account's home)")
        group.add_argument("--dc-config", dest="dc_config", metavar="FILE", default=None,
                           help="desktop-commander: its settings file (default: "
                           "HOME/.claude-server-commander/config.json)")

    def options_from_args(self, args: argparse.Namespace) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if getattr(args, "dc_directories", None):
            out["allowed_directories"] = tuple(args.dc_directories)
        if getattr(args, "dc_home", None) is not None:
            out["home"] = args.dc_home
        if getattr(args, "dc_config", None) is not None:
            out["settings_file"] = args.dc_config
        return out

    def cli_words(self, options: Mapping[str, Any]) -> list[str]:
        argv: list[str] = []
        for directory in options.get("allowed_directories") or ():
            argv += ["--allowed-dir", str(directory)]
        if options.get("settings_file") is not None:
            argv += ["--dc-config", str(options["settings_file"])]
        if options.get("home") is not None:
            argv += ["--home", str(options["home"])]
        return argv

    def resolve(self, setup: Setup) -> DcServerPolicy:
        options = cast(DcOptions, self.options(setup.options))
        fs = setup.fs
        home = options.home or setup.env.get("HOME") or fs.home()
        cwd = setup.cwd or fs.default_cwd()
        # The file is read even when the list is given here: blockedCommands comes from it.
        file = options.settings_file or config_path(home)
        try:
            settings = read_settings(file, home)
        except SettingsError as exc:
            raise ServerError(str(exc), part="policy") from None
        if options.allowed_directories is not None:
            dirs = options.allowed_directories
            settings = DcSettings(dirs, dirs, "allowedDirectories as given",
                                  settings.blocked_commands,
                                  {**settings.raw, "allowedDirectories": list(dirs)})
        return DcServerPolicy(DcPolicy(settings, home=home, cwd=cwd, fs=fs), setup.env, file)

    def run_command(self, name: str, policy: Any, args: argparse.Namespace, out: Any,
                    err: Any) -> int | None:
        """``tools``: its tools with their hints, checked arguments and which ones run
        commands without a path check (see :mod:`.commands`)."""
        from .commands import run

        return run(name, policy, args, out, err)

    def suggest(self, policy: Any, require: Sequence[Any], *, calls: Any = None,
                session: Any = None, env_file: str | None = None,
                env_text: str | None = None, delta: bool = True,
                max_entries: int = 200_000) -> Any:
        """A narrow allowedDirectories for the ``--require OP:PATH`` work (see
        :mod:`.suggest`)."""
        from ...review.suggest import SuggestError
        from .suggest import parse_requirement, suggest

        if calls or session:
            raise SuggestError(f"suggest --server {self.id} takes --require OP:PATH")
        return suggest(policy.policy, [parse_requirement(str(r)) for r in require])

    def verify(self, policy: Any, target: LiveTarget, catalog: Catalog | None = None
               ) -> Any:
        """Start it over stdio (``policy``'s HOME and working directory) and compare its
        ``get_config``, ``tools/list`` and refusals with the prediction (see :mod:`.live`)."""
        from .live import DcStartError, verify_live

        if target.url or not target.argv:
            raise ServerError(f"{self.id} speaks stdio only: give --command (how to start "
                              "it, e.g. 'node .../dist/index.js'), not --url")
        try:
            return verify_live(policy, target.argv,
                               timeout=target.timeout or self.verify_timeout)
        except DcStartError as exc:
            raise LiveError(f"can't run the server: {exc}") from None

    # -- tools and status

    def catalog(self, path: str | None = None) -> Catalog:
        from ...catalog import load_catalog
        from ...catalog.model import Catalog, PathParam, Tool, ToolHints
        from .tools import load_tools

        if path is not None:
            return load_catalog(path)
        tools = []
        for t in load_tools():
            params = tuple(
                PathParam(location=loc, op=cast(Any, op), checked_at_entry=True,
                          fails_call=t.name != "read_multiple_files", note=t.note)
                for loc, op in t.params)
            tools.append(Tool(name=t.name, destructive=t.destructive, params=params,
                              touches_disk=bool(t.params) or t.bypasses_directories,
                              description=t.note or t.title,
                              hints=ToolHints(title=t.title, **t.annotations)))
        return Catalog(server=self.id, description=f"DesktopCommanderMCP {RELEASE}'s "
                       f"{len(tools)} tools", tools=tuple(tools))

    def register_tools(self, policy: Any, catalog: Catalog | None) -> Registration:
        from ...catalog.model import Registration

        # Every tool is registered, whatever the settings.
        catalog = catalog if catalog is not None else self.catalog()
        return Registration(mode="always", registered=list(catalog.names()))

    def status(self, policy: Any, registration: Registration | None = None,
               variant: str | None = None) -> dict[str, Any]:
        """What ``get_config`` shows of the settings (its system information aside)."""
        from .live import predicted_config

        return {"tool": "get_config", "config": predicted_config(policy)}

    def headline(self, policy: Any) -> list[tuple[str, str]]:
        """The allow-list in force and where it came from, then the configuration's
        critical and high findings."""
        settings = policy.settings
        allowed = "every path" if settings.everything else ", ".join(settings.allowed)
        serious = [(f["severity"], f["why"]) for f in self.findings(policy)
                   if f["severity"] in ("critical", "high")]
        return [("allowedDirectories", f"{allowed} ({settings.source})"), *serious]

    def findings(self, policy: Any) -> list[dict[str, Any]]:
        from .findings import findings

        names = None
        return [f.to_dict() for f in findings(policy.policy, names)]

    def answer_call(self, policy: Any, name: str, arguments: Mapping[str, Any], *,
                    walk_limit: int = 10_000) -> CallAnswer | None:
        """The call as its tool runs it: each path argument through the check in order,
        the first refusal failing the call (``Error: `` and the check's text);
        ``read_multiple_files`` puts each refusal on that file's line of a successful
        result; ``read_file`` with ``isUrl`` checks nothing; ``start_process`` and
        ``interact_with_process`` check no path at all."""
        from .tools import tool_named

        tool = tool_named(name)
        if tool is None:
            return None
        dc: DcPolicy = policy.policy
        if tool.bypasses_directories:
            return CallAnswer("ok", "", (), (
                "runs a command: the server asks allowedDirectories about none of the files "
                "it touches (any paths listed are what the policy would say, not checks "
                "the server makes)",))
        if name == "read_file" and arguments.get("isUrl"):
            return CallAnswer("ok", "", (), ("isUrl: fetched as a URL, no path check",))
        checks: list[CallCheck] = []
        if name == "read_multiple_files":
            paths = arguments.get("paths")
            if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
                return CallAnswer("error", "paths must be a list of strings")
            lines = []
            for n, p in enumerate(paths):
                v = dc.validate(p)
                checks.append(CallCheck(f"paths[{n}]", verdict_of(v, "read"),
                                        step="item_error"))
                if not v.allowed:
                    lines.append(ITEM_ERROR.format(path=p, message=v.message))
            if lines:
                return CallAnswer("partial", "\n".join(lines), tuple(checks))
            return CallAnswer("ok", "", tuple(checks))
        for location, op in tool.params:
            value = arguments.get(location)
            if value is None and location not in tool.required:
                continue
            if not isinstance(value, str):
                return CallAnswer("error", f"{location} must be a string", tuple(checks))
            v = dc.validate(value)
            checks.append(CallCheck(location, verdict_of(v, cast(Any, op))))
            if not v.allowed:
                return CallAnswer("refused", CALL_ERROR_PREFIX + v.message, tuple(checks))
        notes: tuple[str, ...] = ()
        if name == "list_directory":
            notes = ("subdirectories the listing descends into are checked too; a refused "
                     "one is left out without a word",)
        return CallAnswer("ok", "", tuple(checks), notes)

    def refusal_directories(self, policy: Any, message: str
                            ) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """"Path not allowed: P. Must be within one of these directories: A, B": the list
        after the colon (the server joins its allowedDirectories, as configured, with
        ", ")."""
        marker = "Must be within one of these directories: "
        start = message.find(marker)
        if "Path not allowed: " not in message or start < 0:
            return None
        configured = tuple(policy.settings.allowed)
        named = message[start + len(marker):].rstrip()
        if named == ", ".join(configured):
            return configured, configured
        return tuple(d for d in named.split(", ") if d), configured

    def after_call(self, policy: Any, name: str, arguments: Mapping[str, Any]
                   ) -> DcServerPolicy | None:
        """``set_config_value`` of ``allowedDirectories``: the list given (a string is
        taken as a one-entry list, as the server stores it) is the allow-list of the
        calls after it; any other key leaves the file policy as it was."""
        if name != "set_config_value" or arguments.get("key") != "allowedDirectories":
            return None
        value = arguments.get("value")
        if isinstance(value, str) and not value.lstrip().startswith("["):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return None  # a shape the model doesn't reproduce: keep the prediction as it was
        dirs = tuple(value)
        old: DcPolicy = policy.policy
        settings = DcSettings(dirs, dirs, "allowedDirectories set by set_config_value",
                              old.settings.blocked_commands,
                              {**old.settings.raw, "allowedDirectories": list(dirs)})
        return DcServerPolicy(DcPolicy(settings, home=old.home, cwd=old.cwd, fs=old.fs),
                              policy.env, policy.settings_file)

    def exposure_scope(self, policy: Any) -> ExposureScope:
        """Each allowed directory (``/`` when every path passes), and ``HOME``."""
        dc: DcPolicy = policy.policy
        starts = ("/",) if dc.everything else tuple(
            dc.absolute(d) for d in dc.allowed if d.startswith(("/", "~")))
        return ExposureScope(starts, dc.home, same_for_write=True)

    def places(self, policy: Any) -> list[tuple[str, str]]:
        """Each allowed directory, a file in it, its prefix sibling and its swapped-case
        twin, then the shared places."""
        from ...server import PROBE_FILE

        dc: DcPolicy = policy.policy
        out: list[tuple[str, str]] = []
        for d in dc.allowed:
            full = dc.absolute(d)
            out.append((full, f"allowed directory {d}"))
            out.append((full.rstrip("/") + "/" + PROBE_FILE, f"inside allowed directory {d}"))
            if full != "/":
                out.append((full + "-sibling", f"sibling sharing the prefix of {d}"))
                out.append((case_twin(full), f"case twin of {d}"))
        home = dc.home
        return [*out, (home, "home directory"), (home.rstrip("/") + "/" + PROBE_FILE,
                                                 "inside the home directory"),
                (dc.cwd, "startup directory"), ("/", "filesystem root")]

    def call_places(self, policy: Any) -> list[tuple[str, str]]:
        """Each allowed directory, the server's HOME and its working directory."""
        dc: DcPolicy = policy.policy
        out = [(dc.absolute(d), f"allowed directory {d}") for d in dc.allowed]
        return [*out, (dc.home, "home directory"), (dc.cwd, "startup directory")]

    def predict(self, policy: Any, catalog: Catalog | None = None) -> dict[str, Any]:
        from .live import predicted_config
        from .tools import load_tools

        config = predicted_config(policy)
        return {"allowedDirectories": config.get("allowedDirectories"),
                "blockedCommands": config.get("blockedCommands"),
                "tools": [t.name for t in load_tools()]}
