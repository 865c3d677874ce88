"""The reference filesystem server behind the :class:`~localfs_explorer.server.Server` seam.

Its configuration is not an environment: it is the directories on its command line, its
working directory, ``HOME`` (for ``~``), the MCP roots its client advertises and the
release. Those are this server's options (:class:`FilesystemOptions`); the shared
machinery's ``.env``, transport and platform mean nothing to it.
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
    LaunchArgs,
    Launcher,
    LiveReport,
    LiveTarget,
    Server,
    ServerOptions,
    SettingField,
    Setup,
    TraceLine,
)
from .policy import REASONS, VERSIONS, FilesystemConfig, FilesystemPolicy, ValidatePathVerdict

if TYPE_CHECKING:
    from ...catalog.model import Catalog, Registration
    from ...envfile.load import ServerEnv
    from ...fs.base import FileSystem
    from ...vocab import Op

__all__ = ["FilesystemOptions", "FilesystemServer", "FsServerPolicy"]


class FilesystemOptions(ServerOptions):
    """The filesystem server's own configuration: its argv directories (in order), the
    roots its client advertises (None: no roots capability) and ``HOME`` (None: from
    the environment, else the account's)."""

    directories: tuple[str, ...] = ()
    roots: tuple[str, ...] | None = None
    home: str | None = None


def _verdict(v: ValidatePathVerdict, op: Op, directories: tuple[str, ...]) -> BasicVerdict:
    if v.allowed:
        hint = ("only the trimmed spelling of this path is inside an allowed directory; "
                "the tool acts on the path as given, beside it") if v.by_trim else ""
        trace = (TraceLine("validatePath", "allowed", v.resolved or ""),)
    else:
        hint = {
            "outside": f"allowed directories: {', '.join(directories) or '(none)'}",
            "symlink-outside": "a symlink on the way leads out of the allowed directories",
            "parent-missing": "a directory on the way is missing or a dangling symlink",
        }.get(v.reason, "")
        trace = (TraceLine("validatePath", "refused", v.message),)
    return BasicVerdict(path=v.path, op=op, allowed=v.allowed, reason=v.reason,
                        message=v.message, resolved=v.resolved, hint=hint, trace=trace)


class FsServerPolicy:
    """A :class:`FilesystemPolicy` as the seam's :class:`~localfs_explorer.server.ServerPolicy`."""

    over_http_default = False

    def __init__(self, policy: FilesystemPolicy, env: ServerEnv) -> None:
        self.policy = policy
        self.env = env

    @property
    def server_id(self) -> str:
        return FilesystemServer.id

    @property
    def fs(self) -> FileSystem:
        return self.policy.fs

    @property
    def cwd(self) -> str:
        return self.policy.cwd

    @property
    def directories(self) -> tuple[str, ...]:
        return self.policy.directories

    @property
    def serves(self) -> bool:
        return self.policy.allowed.serves

    @property
    def errors(self) -> list[str]:
        return [self.exit_message] if self.exit_message else []

    @property
    def warnings(self) -> list[str]:
        return list(self.policy.allowed.warnings)

    @property
    def exit_message(self) -> str | None:
        return self.policy.allowed.exit_message

    @property
    def exit_line(self) -> str | None:
        return self.exit_message

    @property
    def server_version(self) -> str:
        return self.policy.version

    def check(self, path: Any, op: Op = "read", *, over_http: bool | None = None
              ) -> BasicVerdict:
        return _verdict(self.policy.validate(str(path)), op, self.policy.directories)

    @contextlib.contextmanager
    def many_checks(self) -> Iterator[Any]:
        batch = self.policy.many_checks()
        directories = self.policy.directories

        class _Batch:
            def check(self, path: Any, op: Op = "read", *,
                      over_http: bool | None = None) -> BasicVerdict:
                return _verdict(batch.validate(str(path)), op, directories)

        yield _Batch()

    def summary(self) -> dict[str, Any]:
        from .findings import findings

        allowed = self.policy.allowed
        return {
            "server": FilesystemServer.id, "server_version": self.policy.version,
            "cwd": self.policy.cwd, "home": self.policy.home,
            "argv_directories": list(self.policy.config.directories),
            "allowed_directories": list(allowed.directories),
            "from_argv": list(allowed.from_argv),
            "roots": None if allowed.from_roots is None else list(allowed.from_roots),
            "serves": self.serves, "exit_message": self.exit_message,
            "warnings": self.warnings,
            "findings": [f.to_dict() for f in findings(self.policy)],
        }


class FilesystemServer(Server):
    """``@modelcontextprotocol/server-filesystem`` (see the package docstring)."""

    id: ClassVar[str] = "server-filesystem"
    title: ClassVar[str] = ("MCP reference filesystem server "
                             "(@modelcontextprotocol/server-filesystem)")
    versions: ClassVar[tuple[str, ...]] = VERSIONS
    options_model: ClassVar[type[ServerOptions]] = FilesystemOptions
    transports: ClassVar[tuple[str, ...]] = ("stdio",)
    live_fields: ClassVar[tuple[str, ...]] = ("allowed_directories", "tools")
    reasons: ClassVar[tuple[str, ...]] = REASONS
    launcher: ClassVar[Launcher] = Launcher(
        npm=("@modelcontextprotocol/server-filesystem",), bins=("mcp-server-filesystem",),
        scripts=("server-filesystem",),
        # Docker's own catalogue publishes it as mcp/filesystem.
        images=("mcp/filesystem", "server-filesystem"), image_names=("filesystem",))
    #: No ``.env``: its configuration is its command line and its client's roots.
    env_file: ClassVar[bool] = False
    #: A described Windows host is answered with node's Windows path rules.
    host_platforms: ClassVar[tuple[str, ...]] = ("posix", "windows")
    #: Its command line often fetches the package first (``npx -y ...``).
    verify_timeout: ClassVar[float] = 90.0
    setting_fields: ClassVar[tuple[SettingField, ...]] = (
        SettingField("directories", "allowed directories", "paths",
                     "add an allowed directory to the server's command line",
                     placeholder="add an allowed directory"),
        SettingField("roots", "MCP roots", "optional_lines",
                     "the MCP roots the client advertises, one per line",
                     placeholder="one root per line: file:// URI or path",
                     toggle="client advertises MCP roots"),
    )
    #: Claude Desktop's built-in Filesystem extension runs this server (the copy bundled
    #: with Claude Desktop) on the directories its settings list.
    desktop_extensions: ClassVar[dict[str, tuple[tuple[str, ...], str]]] = {
        "ant.dir.ant.anthropic.filesystem": (
            ("npx", "-y", "@modelcontextprotocol/server-filesystem"), "allowed_directories"),
    }

    def add_cli_options(self, group: argparse._ArgumentGroup) -> None:
        group.add_argument("--allowed-dir", dest="filesystem_directories", metavar="DIR",
                           action="append", default=None,
                           help="server-filesystem: a directory on its command line "
                           "(repeatable, in order; relative to --cwd, ~ is --home)")
        group.add_argument("--root", dest="filesystem_roots", metavar="URI",
                           action="append", default=None,
                           help="server-filesystem: an MCP root its client advertises "
                           "(file:// URI or path; repeatable). Without it the client has "
                           "no roots capability")
        group.add_argument("--home", dest="filesystem_home", metavar="DIR", default=None,
                           help="server-filesystem: the server's HOME (default: HOME "
                           "given with --set, else the account's home)")

    def options_from_args(self, args: argparse.Namespace) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if getattr(args, "filesystem_directories", None):
            out["directories"] = tuple(args.filesystem_directories)
        if getattr(args, "filesystem_roots", None) is not None:
            out["roots"] = tuple(args.filesystem_roots)
        if getattr(args, "filesystem_home", None) is not None:
            out["home"] = args.filesystem_home
        return out

    def cli_words(self, options: Mapping[str, Any]) -> list[str]:
        argv: list[str] = []
        for directory in options.get("directories") or ():
            argv += ["--allowed-dir", str(directory)]
        for root in options.get("roots") or ():
            argv += ["--root", str(root)]
        if options.get("home") is not None:
            argv += ["--home", str(options["home"])]
        return argv

    def config(self, setup: Setup) -> FilesystemConfig:
        options = setup.options
        assert isinstance(options, FilesystemOptions)
        home = options.home if options.home is not None else setup.env.get("HOME")
        return FilesystemConfig(directories=options.directories, cwd=setup.cwd,
                                home=home or None, roots=options.roots,
                                version=self.version(setup.version))

    def resolve(self, setup: Setup) -> FsServerPolicy:
        """The policy on the target host; on a Windows host (a host spec saying
        ``"platform": "windows"``) with node's Windows path rules (:mod:`.winpolicy`).
        ``--platform windows`` without such a host is refused: this machine's folders
        can't answer for Windows paths."""
        from ...errors import LocalfsError

        windows_host = getattr(setup.fs, "platform", "posix") == "windows"
        if setup.platform == "windows" and not windows_host:
            raise LocalfsError(
                "--platform windows: the directories can't be checked on this machine, "
                "whose folders aren't the Windows machine's; describe that machine with "
                "--fs (a host spec with \"platform\": \"windows\") or answer on it")
        if windows_host:
            from .winpolicy import WindowsFilesystemPolicy

            try:
                policy: FilesystemPolicy = WindowsFilesystemPolicy(self.config(setup),
                                                                   setup.fs)
            except ValueError as exc:
                raise LocalfsError(str(exc)) from None
            return FsServerPolicy(policy, setup.env)
        return FsServerPolicy(FilesystemPolicy(self.config(setup), setup.fs), setup.env)

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
                          fails_call=t.rule != "per_item_errors", note=t.note)
                for loc, op in t.params)
            tools.append(Tool(name=t.name, destructive=t.destructive, params=params,
                              touches_disk=t.name != "list_allowed_directories",
                              description=t.title,
                              hints=ToolHints(title=t.title, **t.annotations)))
        return Catalog(server=self.id, description="server-filesystem's 14 tools",
                       tools=tuple(tools))

    def register_tools(self, policy: Any, catalog: Catalog | None) -> Registration:
        from ...catalog.model import Registration

        # mirrors server-filesystem 2026.8.31 index.js (startup): every tool is registered whatever
        # the directories, since roots may supply them after the handshake
        catalog = catalog if catalog is not None else self.catalog()
        return Registration(mode="always", registered=list(catalog.names()))

    def status(self, policy: Any, registration: Registration | None = None,
               variant: str | None = None) -> dict[str, Any]:
        """What ``list_allowed_directories`` answers."""
        return {"tool": "list_allowed_directories",
                "text": policy.policy.list_allowed_directories(),
                "allowed_directories": list(policy.directories)}

    def verdict_lines(self, verdict: Any) -> list[str]:
        """``ALLOWED`` with the path the tool acts on (and when only a trimmed spelling is
        inside, so), or ``REFUSED`` with ``validatePath``'s error."""
        from ...textsafe import one_line

        if verdict.allowed:
            note = "  (only its trimmed spelling is inside)" if verdict.hint else ""
            return [f"ALLOWED  {verdict.op:<10} {one_line(verdict.path)} -> "
                    f"{one_line(verdict.resolved or '')}{note}"]
        return [f"REFUSED  {verdict.op:<10} {one_line(verdict.path)}  [{verdict.reason}]",
                f"    message: {one_line(verdict.message)}"]

    def headline(self, policy: Any) -> list[tuple[str, str]]:
        """The directories in force (argv's, or the roots that replaced them)."""
        return [("Allowed directories", ", ".join(policy.directories) or "none")]

    def findings(self, policy: Any) -> list[dict[str, Any]]:
        """The trim siblings, symlinked directories and roots replacing argv (see
        :mod:`.findings`), most severe first."""
        from .findings import findings

        out = []
        for f in findings(policy.policy):
            record = f.to_dict()
            # What a tool can do at the finding's paths: create the siblings that don't
            # exist (a write), read and replace those that do and everything else.
            fs = policy.fs
            missing = f.code == "trim-sibling" and not any(
                fs.exists(p) or fs.is_symlink(p) for p in f.paths)
            record["op"] = "write" if missing else "read_write"
            out.append(record)
        return out

    def refusal_directories(self, policy: Any, message: str
                            ) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """validatePath's "... outside allowed directories: P not in A, B": the list
        after "not in" (the server joins its allowed directories with ", ")."""
        start = message.find("Access denied - ")
        if start < 0 or "outside allowed directories: " not in message:
            return None
        configured = tuple(policy.directories)
        joined = ", ".join(configured)
        text = message[start:].rstrip()
        if joined and text.endswith(f" not in {joined}"):
            return configured, configured
        _, found, named = text.rpartition(" not in ")
        if not found:
            return None
        return tuple(d for d in named.split(", ") if d), configured

    def answer_call(self, policy: Any, name: str, arguments: Any, *,
                    walk_limit: int = 10_000) -> CallAnswer | None:
        """The call as the server's tool runs it (see :mod:`.tools`): a single-path tool
        fails with its path's refusal; ``move_file`` checks the source, then the
        destination, then refuses a destination that exists (2026.8.31, 2.0.1);
        ``read_multiple_files`` puts each refusal in the result as that file's error
        line; ``directory_tree`` checks every directory it enters and fails on the
        first refusal; ``search_files`` leaves refused entries out without a word."""
        from .tools import predict_call, tool_named

        if tool_named(name) is None:
            return None  # not one of its tools: the shared probe says so
        out = predict_call(policy.policy, name, dict(arguments), walk_limit=walk_limit)
        if out.error is not None:
            return CallAnswer("error", out.error)
        directories = policy.policy.directories
        checks = tuple(
            CallCheck(c.argument, _verdict(c.verdict, cast(Any, c.op), directories),
                      kind=c.kind, step=c.step)
            for c in out.checks)
        notes: list[str] = []
        if out.stopped:
            notes.append(f"the walk stopped after {walk_limit} checks (walk_limit); "
                         "entries beyond it were not checked")
        if arguments.get("excludePatterns") and name in ("directory_tree", "search_files"):
            notes.append("excludePatterns are not applied: entries they would leave out "
                         "are checked here too")
        if out.refused:
            last = out.checks[-1].verdict if out.checks else None
            if last is not None and last.allowed and name == "move_file":
                notes.append("both paths pass the check; the tool itself refuses to "
                             "replace what is at the destination")
            return CallAnswer("refused", out.message, checks, tuple(notes))
        if out.item_errors:
            return CallAnswer("partial", "\n".join(out.item_errors), checks, tuple(notes))
        if out.skipped:
            notes.append(f"{len(out.skipped)} entries fail the check and are left out of "
                         "the results without a word")
        return CallAnswer("ok", "", checks, tuple(notes))

    def exposure_scope(self, policy: Any) -> ExposureScope:
        """Every allowed directory in force (argv's, both spellings of one given through a
        symlink, or the roots that replaced them), and the server's ``HOME``."""
        # mirrors server-filesystem 2026.8.31 lib.js validatePath: it takes no operation, so a tool
        # may read or write whatever it lets through
        return ExposureScope(tuple(policy.directories), policy.policy.home,
                             same_for_write=True)

    def places(self, policy: Any) -> list[tuple[str, str]]:
        """Each allowed directory (argv spellings, their realpaths, roots), a file in it,
        its prefix sibling and its quote and whitespace siblings (the trimming escape of
        2026.8.31), a Windows drive path (refused on POSIX since 2026.8.31), then the
        shared places (home, startup directory, ``/``)."""
        from ...server import PROBE_FILE
        from .findings import TRIM_SUFFIXES

        fs_policy: FilesystemPolicy = policy.policy
        windows = getattr(fs_policy, "platform", "posix") == "windows"
        join = fs_policy.join
        out: list[tuple[str, str]] = []
        spelled = [*fs_policy.config.directories, *(fs_policy.config.roots or ())]
        for directory in dict.fromkeys([*fs_policy.allowed.from_argv,
                                        *fs_policy.directories]):
            why = f"allowed directory {directory}"
            out.append((directory, why))
            out.append((join(directory, PROBE_FILE), f"inside the {why}"))
            if directory != "/":
                out.append((directory + "-sibling", f"sibling sharing the prefix of {why}"))
                out.extend((directory + suffix, f"{suffix!r} sibling of the {why}")
                           for suffix in TRIM_SUFFIXES[:4])
        out.extend((d, "as given on the command line or by a root") for d in spelled
                   if d.startswith("/") or (windows and d[1:3] in (":\\", ":/")))
        if windows:
            out.append(("C:\\Users\\" + PROBE_FILE, "another folder of the drive"))
        else:
            out.append(("C:\\" + PROBE_FILE, "a Windows drive path"))
        home = fs_policy.home
        out += [(home, "home directory"), (join(home, PROBE_FILE), "inside the home directory"),
                (fs_policy.cwd, "startup directory"),
                ("C:\\" if windows else "/", "the drive's root" if windows
                 else "filesystem root")]
        return out

    def call_places(self, policy: Any) -> list[tuple[str, str]]:
        """Each allowed directory, the home and the startup directory."""
        fs_policy: FilesystemPolicy = policy.policy
        out = [(d, f"allowed directory {d}") for d in fs_policy.directories]
        return [*out, (fs_policy.home, "home directory"), (fs_policy.cwd, "startup directory")]

    def read_args(self, args: Sequence[str]) -> LaunchArgs:
        """Every argument is an allowed directory (the server takes no options)."""
        directories = tuple(a for a in args if a)
        return LaunchArgs(options={"directories": directories},
                          shown=tuple(("allowed dir", d) for d in directories))

    def suggest(self, policy: Any, require: Sequence[Any], *, calls: Any = None,
                session: Any = None, env_file: str | None = None,
                env_text: str | None = None, delta: bool = True,
                max_entries: int = 200_000) -> Any:
        """Narrower directories, their real spelling, a release without the trimming
        escape; each change re-checked (see :mod:`.suggest`)."""
        from .suggest import requirements, suggest_filesystem

        if getattr(policy.policy, "platform", "posix") == "windows":
            from ...errors import LocalfsError

            raise LocalfsError("suggest on a Windows host isn't modelled: check and "
                               "deployment answer for its paths")
        return suggest_filesystem(requirements(policy, require, calls, session), policy)

    def verify(self, policy: Any, target: LiveTarget,
               catalog: Catalog | None = None) -> LiveReport:
        """``tools/list``, ``list_allowed_directories`` and a few ``get_file_info``
        probes of the running server against each release (see :mod:`.verify`)."""
        from .verify import verify_target

        return verify_target(policy, target)

    def predict(self, policy: Any, catalog: Catalog | None = None) -> dict[str, Any]:
        from .verify import _tool_hints

        return {"allowed_directories": list(policy.directories), "tools": _tool_hints()}
