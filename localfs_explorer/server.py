"""The seam between the explorer and the servers it answers for: the one description of
the server contract.

The explorer's shared machinery (filesystems and snapshots, path discovery, tool-call
probing, review, exposure, deployments, the dashboard, the command line) asks every
question of a server through this module and nothing else. What only one server decides
-- its settings and where they live, how they resolve, its verdict rules and exact
refusal texts, its tool catalog and which tools it registers, its status answer, its
exposure walk, its suggest search, its live checks, how its launch reads in a client
config -- lives in that server's own folder (``localfs_explorer/servers/<id>/``, or a
package of its own). No module outside that folder imports it or spells its id (a test
reads the imports and the strings and fails otherwise); the package's ``__init__``
alone names the default server's engine, as its documented API.

**Finding servers.** A server is one :class:`Server` object, registered under the
entry-point group :data:`ENTRY_POINT_GROUP` (``localfs_explorer.servers``) in its
package's ``pyproject.toml``::

    [project.entry-points."localfs_explorer.servers"]
    my-server = "my_package.server:MyServer"

The shipped servers register the same way (``mcp-gee-sweet``, the default,
:data:`DEFAULT_SERVER`; ``server-filesystem``). The registry (:func:`get_server`,
:func:`list_servers`, :func:`iter_servers`) reads the group once and imports a server
when it is first asked for; one that can't be loaded is a one-line
:class:`ServerError` for itself and leaves the others working. :func:`register_server`
adds one in a running process (a test's stand-in). A shared module holding a resolved
policy finds its server with :func:`server_of` (by the policy's ``server_id``).

**The contract**, in the order the machinery uses it. Only :meth:`Server.resolve` (and
the class attributes :attr:`~Server.id` and :attr:`~Server.versions`) must be given;
every other part has a default, and a command that needs a part the server lacks says
so in one line (exit 2), never with a traceback.

1. **Settings.** :attr:`Server.options_model` is the server's own configuration object (a
   frozen pydantic model; the filesystem server's allowed directories and MCP roots).
   Everything servers share -- the process environment (``.env`` + ``--set``), the
   working directory, the target host, the transport, the release -- stays in
   :class:`~localfs_explorer.config.ServerConfig`; the server's own part travels in
   ``ServerConfig.server_options``, validated by :meth:`Server.options`.
   :meth:`Server.add_cli_options` adds its command-line options (under a group of its
   own) and :meth:`Server.options_from_args` reads them back. :attr:`Server.env_file`
   says whether it reads a ``.env`` (one that doesn't refuses ``--env``);
   :attr:`Server.transports` what ``--transport`` may say; :attr:`Server.setting_fields`
   describe its own settings for the dashboard's form (:class:`SettingField`), and
   :meth:`Server.headline` what its badge shows beside whether it would start. A server
   with a ``.env`` may name the settings of it the dashboard's policy bar edits in
   :attr:`Server.env_controls` (:class:`EnvControls`: a setting picked from a few words,
   and a list of directories shown as chips, each chip's state by
   :meth:`Server.entry_state`); without them the bar edits none.
2. **Resolution.** :meth:`Server.resolve` turns a :class:`Setup` (everything the shared
   configuration code loaded: environment, target filesystem, startup directory,
   release, options) into a :class:`ServerPolicy`. It never raises for a configuration
   the real server would accept or refuse at startup: a refusal to start is in
   ``errors`` (and ``exit_message``), as the server would print it.
   :meth:`Server.with_settings` is the same server with its environment changed (the
   comparison tab); :meth:`Server.summary_lines` and :meth:`Server.config_facts` state a
   resolved policy for ``validate`` and for reports (default: its ``summary()``), and
   :meth:`Server.verdict_lines` one verdict for ``check``.
3. **Verdicts.** :meth:`ServerPolicy.check` answers one path for one operation (``read``,
   ``write``, ``read_write``) with a :class:`Verdict`: at least ``path``, ``op``,
   ``allowed``, ``reason`` (one of :attr:`Server.reasons`, which scenario files are held
   to), ``message`` (exactly what the model would see; empty when allowed) and
   ``resolved`` (the path the tool would do its I/O on; None when the server stopped
   before resolving), plus ``trace``/``hint`` and ``to_dict()``.
   :meth:`ServerPolicy.many_checks` is the check a folder walk makes (a server without a
   separate batch answer returns its single check, :class:`SingleChecks`).
   :class:`BasicVerdict` is a ready-made verdict. A server that refuses files named by
   its own settings (a deny-list) lists every label such a refusal can carry in
   :attr:`Server.deny_labels` (default: none); a verdict's ``deny_setting`` names one,
   and a scenario run counts each label as a rule to exercise.
4. **Tools.** :meth:`Server.catalog` is the server's tool catalog (the shared
   :class:`~localfs_explorer.catalog.Catalog` records: each tool's path parameters and
   annotations); :meth:`Server.register_tools` says which tools a policy registers.
   Tool-call probing reads these and checks each path through the policy.
   :meth:`Server.answer_call` may answer a whole tool call by the server's own rules (a
   :class:`CallAnswer` with every :class:`CallCheck` in order: a second check after the
   path checks, per-item errors, walks that check each entry); None (the default) lets
   the probe follow the catalog.
5. **Status.** :meth:`Server.status` is what the server's own status answer shows for a
   policy (a status resource, or the tool listing its allowed directories), in one of
   its :attr:`Server.status_variants` when it has several. :attr:`Server.scenario_words`
   gives, for a key of a scenario file's policy or status expectation that holds one of
   the server's own words (``mode``), every word it may hold: a scenario of this server
   is held to them when the file is read, and the file's schema lists every server's.
6. **Findings and places.** :meth:`Server.findings` lists what is risky in a
   configuration as the server reads it, as JSON-ready mappings with at least
   ``severity``, ``kind``, ``path``, ``why``, ``fix``. :meth:`Server.places` and
   :meth:`Server.call_places` name the places worth asking about when two
   configurations are compared (``diff``'s generated set).
7. **Exposure.** :meth:`Server.exposure_walk` says which walk ``exposure`` runs: None
   (the default) is the shared allowed-directories walk over
   :meth:`Server.exposure_scope` (an :class:`ExposureScope`: the directories a tool call
   can reach into, and the home the credential rules are read against), asking the
   policy's own ``many_checks()`` about every entry; a server with a walk of its own
   returns an :class:`ExposureWalk`. A server with neither has no ``exposure``.
   :meth:`Server.reach` states what a policy lets the tools reach, for ``deployment``
   (a :class:`PolicyReach`: the directories it allows, and whether every file the
   account can use, or none, is reachable); the default lists the policy summary's
   ``allowed_directories``, else the exposure scope's directories.
8. **Suggest.** :meth:`Server.suggest` proposes a narrower configuration that still
   allows the required checks (the shared requirements of
   :mod:`localfs_explorer.review.suggest`), as a :class:`SuggestResult`, each change
   re-checked by the server's own rules.
9. **Live checks.** :meth:`Server.verify` asks a running server (a :class:`LiveTarget`:
   a URL, or a command line to start) and compares its answers with the prediction for
   a policy, as a :class:`LiveReport`; one that can't be reached is a
   :class:`LiveError`. :meth:`Server.predict` is the prediction alone, by
   :attr:`Server.live_fields`; :attr:`Server.verify_timeout` how long to wait.
10. **Launches.** :attr:`Server.launcher` (a :class:`Launcher`: its PyPI and npm
    packages, programs, ``python -m`` modules, scripts and docker images) is how an MCP
    client config's command line is recognised as this server, and
    :meth:`Server.read_args` what its own arguments say (:class:`LaunchArgs`: the
    transport, settings that win over its environment, its own options);
    :attr:`Server.desktop_extensions` the Claude Desktop built-in extensions that run it.
11. **Refusals read back.** :meth:`Server.refusal_directories` reads the directories a
    refusal text names (the list the server says it enforces) beside the configured
    ones, so a recorded session (``shadow``) can show a stale or replaced list;
    :meth:`Server.after_call` gives the policy a call that changes the server's settings
    at run time leaves in force for the calls after it.
12. **Commands of its own.** :meth:`Server.run_command` may answer ``tools`` by the
    server's own rules when the shared listing can't say it.

**Adding a server** touches its folder (or package), its tests and one entry-point line
in ``pyproject.toml``; nothing else in the tree changes. The records passed across the
seam are defined in :mod:`localfs_explorer.server_records` and imported from here.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import LocalfsError
from .server_records import (
    CALL_OUTCOMES,
    BasicVerdict,
    CallAnswer,
    CallCheck,
    EnvControls,
    ExposureScope,
    ExposureWalk,
    LaunchArgs,
    Launcher,
    LiveReport,
    LiveTarget,
    PolicyReach,
    SettingField,
    SuggestResult,
    TraceLine,
    Verdict,
)

if TYPE_CHECKING:
    from .catalog.model import Catalog, Registration
    from .envfile.load import ServerEnv
    from .fs.base import FileSystem
    from .vocab import Op

__all__ = [
    "CALL_OUTCOMES",
    "DEFAULT_SERVER",
    "PROBE_FILE",
    "BasicVerdict",
    "BatchChecks",
    "CallAnswer",
    "CallCheck",
    "EnvControls",
    "ExposureScope",
    "ExposureWalk",
    "LaunchArgs",
    "Launcher",
    "LiveError",
    "LiveReport",
    "LiveTarget",
    "PolicyReach",
    "Server",
    "ServerError",
    "ServerOptions",
    "ServerPolicy",
    "SettingField",
    "Setup",
    "SingleChecks",
    "SuggestResult",
    "TraceLine",
    "Verdict",
    "get_server",
    "iter_servers",
    "list_servers",
    "register_server",
    "server_of",
    "summary_tail",
    "unregister_server",
]

#: The server a configuration means when it names none.
DEFAULT_SERVER = "mcp-gee-sweet"

#: The file name a generated probe puts inside a directory (``<root>/probe.txt``).
PROBE_FILE = "probe.txt"


class ServerError(LocalfsError):
    """An unknown server id, an unsupported version, or options the server can't use.

    ``part`` names the input at fault, as :class:`~localfs_explorer.config.ConfigError`
    does (``server``, ``profile``, ``policy``, ...).
    """

    def __init__(self, message: str, *, part: str = "server") -> None:
        super().__init__(message)
        self.part = part


class LiveError(ServerError):
    """A running server could not be asked (not started, not listening, no SDK)."""


# --- what a server answers (its records: :mod:`.server_records`) -----------------------


class BatchChecks(Protocol):
    """The checks of a walk (what :meth:`ServerPolicy.many_checks` yields)."""

    def check(self, path: Any, op: Op = "read", *,
              over_http: bool | None = None) -> Verdict: ...  # pragma: no cover - protocol


@runtime_checkable
class ServerPolicy(Protocol):
    """A server's resolved configuration and the check that enforces it.

    The attributes are what the shared machinery reads: the registry id of the server it
    belongs to (``server_id``, so :func:`server_of` finds its catalog and rules), the
    target host (``fs``), the
    startup directory (``cwd``), the process environment (``env``, for ``HOME`` and
    secrets), whether the server starts (``serves``, ``errors``, ``exit_message``,
    ``exit_line``), ``warnings``, the release it reproduces (``server_version``), the
    default of "did this request come over HTTP" (``over_http_default``; False for a
    server without HTTP transports) and a JSON-ready ``summary()`` for ``validate``.
    """

    @property
    def server_id(self) -> str: ...  # pragma: no cover - protocol

    @property
    def fs(self) -> FileSystem: ...  # pragma: no cover - protocol

    @property
    def cwd(self) -> str: ...  # pragma: no cover - protocol

    @property
    def env(self) -> ServerEnv: ...  # pragma: no cover - protocol

    @property
    def serves(self) -> bool: ...  # pragma: no cover - protocol

    @property
    def errors(self) -> list[str]: ...  # pragma: no cover - protocol

    @property
    def warnings(self) -> list[str]: ...  # pragma: no cover - protocol

    @property
    def exit_message(self) -> str | None: ...  # pragma: no cover - protocol

    @property
    def exit_line(self) -> str | None: ...  # pragma: no cover - protocol

    @property
    def server_version(self) -> str: ...  # pragma: no cover - protocol

    @property
    def over_http_default(self) -> bool: ...  # pragma: no cover - protocol

    def check(self, path: Any, op: Op = "read", *,
              over_http: bool | None = None) -> Verdict: ...  # pragma: no cover - protocol

    def many_checks(self) -> contextlib.AbstractContextManager[Any]:
        ...  # pragma: no cover - protocol

    def summary(self) -> dict[str, Any]: ...  # pragma: no cover - protocol


class SingleChecks:
    """``many_checks()`` for a server whose walk asks the same check as a single call:
    ``with SingleChecks(policy) as batch: batch.check(...)``."""

    def __init__(self, policy: ServerPolicy) -> None:
        self._policy = policy

    def __enter__(self) -> SingleChecks:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def check(self, path: Any, op: Op = "read", *, over_http: bool | None = None) -> Verdict:
        return self._policy.check(path, op, over_http=over_http)


# --- what a server is given -------------------------------------------------------------


class ServerOptions(BaseModel):
    """Base of a server's own configuration object (:attr:`Server.options_model`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class Setup:
    """Everything the shared configuration code hands a server to resolve.

    ``env`` is the process environment (``.env`` + ``--set``, already loaded), ``fs`` the
    target host, ``cwd`` the startup directory (None: the host's own default),
    ``package_dir`` where a server keeps its own files (None: not given), ``base_dir``
    the directory relative names on this machine mean, ``transport``/``platform`` as
    configured, ``profile`` a file replacing the server's shipped assumptions, or such
    assumptions already read (None: the shipped ones), ``version`` the release asked for
    (None: the server's default) and ``options`` the server's own validated
    :attr:`Server.options_model`.
    """

    env: ServerEnv
    fs: FileSystem
    base_dir: str
    cwd: str | None = None
    package_dir: str | None = None
    transport: str = "stdio"
    platform: str = "posix"
    profile: Any = None
    version: str | None = None
    options: ServerOptions = field(default_factory=ServerOptions)


# --- the interface ----------------------------------------------------------------------


class Server:
    """One server the explorer answers for. Subclass it and :func:`register_server` it.

    Class attributes: :attr:`id` (the registry id), :attr:`title` (for people),
    :attr:`versions` (the releases whose behaviour is reproduced, newest first; the
    first is the default), :attr:`options_model`, :attr:`transports` (what
    ``--transport`` may say; empty for a server that has none), :attr:`reasons` (the
    words its verdicts give) and :attr:`live_fields`.
    """

    id: ClassVar[str] = ""
    title: ClassVar[str] = ""
    versions: ClassVar[tuple[str, ...]] = ()
    options_model: ClassVar[type[ServerOptions]] = ServerOptions
    transports: ClassVar[tuple[str, ...]] = ("stdio",)
    #: The words its verdicts give as ``reason`` (scenario files may expect them; a
    #: scenario run counts each as a rule to exercise).
    reasons: ClassVar[tuple[str, ...]] = ()
    #: Every label its deny-list entries can carry (the setting naming a refused file),
    #: in display order; a scenario run counts each as a rule to exercise (default: none,
    #: a server without a deny-list).
    deny_labels: ClassVar[tuple[str, ...]] = ()
    #: The fields :meth:`predict` fills and ``verify`` compares, in report order.
    live_fields: ClassVar[tuple[str, ...]] = ()
    #: Whether the server reads a ``.env`` (``--env``); one that doesn't refuses it.
    env_file: ClassVar[bool] = True
    #: The variants of its status answer ``auth-status --branch`` may name.
    status_variants: ClassVar[tuple[str, ...]] = ()
    #: The words a scenario file's policy or status expectation may give for a key that
    #: holds one of this server's own words, by key (``{"mode": (...)}``); default: none.
    #: A key this server declares no words for is held to every server's words for it.
    scenario_words: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    #: Its own settings as a form edits them (the dashboard renders these; a server
    #: whose settings are its environment has none and is edited as a ``.env``).
    setting_fields: ClassVar[tuple[SettingField, ...]] = ()
    #: The settings of its ``.env`` the dashboard's policy bar edits (None, the default:
    #: the bar edits none).
    env_controls: ClassVar[EnvControls | None] = None
    #: How its launch is recognised in an MCP client's config (none: it isn't).
    launcher: ClassVar[Launcher] = Launcher()
    #: The kinds of host (a host spec's ``platform``) whose path rules it reproduces;
    #: on any other the configuration is refused in one line.
    host_platforms: ClassVar[tuple[str, ...]] = ("posix",)
    #: How long ``verify`` waits for a running server by default, in seconds.
    verify_timeout: ClassVar[float] = 15.0
    #: Claude Desktop built-in extensions that run this server: the extension's id (its
    #: settings file's name) -> (a command line that starts the same server, the
    #: ``userConfig`` key whose list is appended to it as arguments).
    desktop_extensions: ClassVar[Mapping[str, tuple[tuple[str, ...], str]]] = {}

    # -- settings

    def version(self, asked: str | None) -> str:
        """The release to reproduce: ``asked`` when it is one of :attr:`versions`."""
        if asked is None or asked == "":
            return self.versions[0] if self.versions else ""
        if asked not in self.versions:
            known = ", ".join(self.versions) or "none"
            raise ServerError(f"{self.id} {asked} isn't modelled (known versions: {known})")
        return asked

    def options(self, raw: Mapping[str, Any] | ServerOptions | None) -> ServerOptions:
        """``raw`` validated as this server's :attr:`options_model` (one-line errors)."""
        if isinstance(raw, self.options_model):
            return raw
        try:
            return self.options_model.model_validate(dict(raw or {}))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "options"
            raise ServerError(f"{self.id} option {where}: {first['msg']}") from None

    def add_cli_options(self, group: argparse._ArgumentGroup) -> None:
        """Add this server's own command-line options to ``group`` (default: none).

        Give each option a ``dest`` that no shared option uses (prefix it with the
        server's own word), and ``default=None`` so an option left out is told apart.
        """

    def options_from_args(self, args: argparse.Namespace) -> dict[str, Any]:
        """The :attr:`options_model` fields the options of :meth:`add_cli_options` say."""
        return {}

    # -- resolution and verdicts

    def resolve(self, setup: Setup) -> ServerPolicy:
        """The policy the server would enforce, started as ``setup`` describes."""
        raise ServerError(f"{self.id} can't resolve a configuration")

    def cli_words(self, options: Mapping[str, Any]) -> list[str]:
        """Its own ``options`` (``server_options``) as its command-line options spell
        them: the inverse of :meth:`options_from_args`, so a screen can offer the command
        that reproduces it (default: none)."""
        return []

    def with_settings(self, policy: ServerPolicy, set: Mapping[str, str],
                      unset: Sequence[str] = (), *, transport: str | None = None
                      ) -> ServerPolicy:
        """``policy``'s server started the same way (host, directories) with ``set`` and
        ``unset`` applied to its environment, and ``transport`` (None: the same). A
        server whose settings are not its environment says so (the default)."""
        raise ServerError(f"{self.id} takes no settings from its environment")

    # -- tools and status

    def catalog(self, path: str | None = None) -> Catalog:
        """The server's tool catalog: the shipped one, or one read from ``path``
        (default: none, which the commands that need one say)."""
        raise ServerError(f"{self.id} has no tool catalog")

    def register_tools(self, policy: ServerPolicy, catalog: Catalog) -> Registration:
        """Which of ``catalog``'s tools the server registers under ``policy``."""
        raise ServerError(f"{self.id} has no tool registration")

    def status(self, policy: ServerPolicy, registration: Registration | None = None,
               variant: str | None = None) -> dict[str, Any]:
        """What the server's own status answer shows for ``policy`` (JSON-ready; ``variant``
        one of :attr:`status_variants`, None: the plain answer; default: none, which
        ``auth-status`` says)."""
        raise ServerError(f"{self.id} has no status answer")

    def summary_lines(self, policy: ServerPolicy) -> list[str]:
        """``validate``'s text: the configuration as the server resolves it, its warnings
        and errors, and whether it would start. Default: the fields of
        :meth:`ServerPolicy.summary`, one a line."""
        import json

        from .textsafe import one_line

        out = [f"server: {policy.server_id} {policy.server_version}"]
        out += [f"{key}: {one_line(json.dumps(value, ensure_ascii=False))}"
                for key, value in policy.summary().items()
                if key not in ("errors", "warnings", "serves", "exit_message", "exit_line")]
        return [*out, *summary_tail(policy, policy.warnings)]

    def verdict_lines(self, verdict: Verdict) -> list[str]:
        """``check``'s text for one verdict (default: ``ALLOWED`` with the path it
        resolves to, or ``REFUSED`` with the reason, the model's message and the hint)."""
        from .textsafe import one_line

        shown = one_line(verdict.path)
        if verdict.allowed:
            return [f"ALLOWED  {verdict.op:<10} {shown} -> {one_line(verdict.resolved or '')}"]
        lines = [f"REFUSED  {verdict.op:<10} {shown}  [{verdict.reason}]",
                 f"    message: {one_line(verdict.message)}"]
        if verdict.hint:
            lines.append(f"    hint:    {one_line(verdict.hint)}")
        return lines

    def config_facts(self, policy: ServerPolicy) -> dict[str, Any]:
        """The facts of ``policy`` a report lists, by name (``settings``: the process
        environment, which the report masks). Default: its :meth:`ServerPolicy.summary`
        (findings apart) and the environment it was given."""
        values = {k.replace("_", " "): v for k, v in policy.summary().items()
                  if k != "findings"}
        if policy.env.values:
            values["settings"] = dict(sorted(policy.env.values.items()))
        return values

    def entry_state(self, policy: ServerPolicy, entry: str) -> tuple[str, str]:
        """``(badge kind, text)`` for one directory of :attr:`env_controls`' list as
        ``policy`` reads it. Default: whether it exists on the policy's host (a relative
        one: under the startup directory)."""
        path = entry if entry.startswith("/") else f"{policy.cwd.rstrip('/')}/{entry}"
        return self.existence_state(policy, path)

    @staticmethod
    def existence_state(policy: ServerPolicy, path: str) -> tuple[str, str]:
        """``(badge kind, text)``: whether ``path`` exists on the policy's host."""
        try:
            exists = policy.fs.exists(path)
        except (OSError, ValueError):
            exists = False
        return ("ok", "✔ exists") if exists else ("refused", "✘ missing")

    def headline(self, policy: ServerPolicy) -> list[tuple[str, str]]:
        """``(label, value)``: what a glance at ``policy`` should show beside whether the
        server would start (the dashboard's badge; default: nothing more)."""
        return []

    def findings(self, policy: ServerPolicy) -> list[dict[str, Any]]:
        """What is risky in ``policy``'s configuration (default: nothing to say)."""
        return []

    def answer_call(self, policy: ServerPolicy, name: str, arguments: Mapping[str, Any],
                    *, walk_limit: int = 10_000) -> CallAnswer | None:
        """The call ``name(arguments)`` answered by the server's own tool rules, or None
        (the default) to let the shared probe follow the catalog. ``walk_limit`` bounds
        the entries a walking tool checks (say so in a note when it stops the walk)."""
        return None

    def refusal_directories(self, policy: ServerPolicy, message: str
                            ) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """The directories a refusal text of this server names as the ones it enforces,
        beside the ones ``policy`` configures: ``(named, configured)``; None (the
        default) when the text names none. A recorded session's refusal read this way
        shows a server enforcing a list other than its configuration (a stale list, or
        one that roots replaced)."""
        return None

    def after_call(self, policy: ServerPolicy, name: str, arguments: Mapping[str, Any]
                   ) -> ServerPolicy | None:
        """The policy in force after the call ``name(arguments)`` succeeded, when the call
        changes the server's own settings at run time (a tool that edits its allowed
        directories); None (the default): the call changes no setting. A recorded
        session (``shadow``) predicts the calls after it under the policy returned."""
        return None

    def exposure_scope(self, policy: ServerPolicy) -> ExposureScope | None:
        """What the allowed-directories walk covers for ``policy`` (None, the default:
        nothing to say, so without an :meth:`exposure_walk` there is no ``exposure``)."""
        return None

    def exposure_walk(self, policy: ServerPolicy) -> ExposureWalk | None:
        """The server's own exposure walk, or None (the default) for the shared
        allowed-directories walk over :meth:`exposure_scope`."""
        return None

    def reach(self, policy: ServerPolicy) -> PolicyReach:
        """What ``policy`` lets the tools reach, as ``deployment`` states it. Default: the
        directories its summary lists as ``allowed_directories``; when it lists none,
        those :meth:`exposure_scope` starts from (a server allowing every path walks
        ``/``); nothing said of every file or of none."""
        listed = policy.summary().get("allowed_directories")
        directories = [str(d) for d in listed] if isinstance(listed, list) else []
        if not directories:
            scope = self.exposure_scope(policy)
            directories = list(scope.starts) if scope is not None else []
        return PolicyReach(tuple(directories))

    def places(self, policy: ServerPolicy) -> list[tuple[str, str]]:
        """``(path, why)``: the places of ``policy`` a comparison asks every configuration
        about. Default: the home directory and a file in it, the startup directory and
        ``/``; a server adds what its own rules turn on (roots, look-alike siblings)."""
        home = _home(policy)
        return [(home, "home directory"), (_join(home, PROBE_FILE), "inside the home directory"),
                (policy.cwd, "startup directory"), ("/", "filesystem root")]

    def call_places(self, policy: ServerPolicy) -> list[tuple[str, str]]:
        """``(directory, why)``: where a comparison's generated tool calls point (each
        catalog tool once per place). Default: the home and startup directories."""
        return [(_home(policy), "home directory"), (policy.cwd, "startup directory")]

    def suggest(self, policy: ServerPolicy, require: Sequence[Any], *, calls: Any = None,
                session: Any = None, env_file: str | None = None,
                env_text: str | None = None, delta: bool = True,
                max_entries: int = 200_000) -> SuggestResult:
        """A narrower configuration that still allows every check of ``require``
        (requirements or ``OP:PATH`` texts), of the tool ``calls`` and of an approval
        ``session``. ``env_file``/``env_text`` are the ``.env`` a server with one edits;
        ``delta`` compares what both configurations expose. Default: no suggest."""
        raise ServerError(f"{self.id} has no suggest: it can't propose a narrower "
                          "configuration")

    def read_args(self, args: Sequence[str]) -> LaunchArgs:
        """What the server's own command-line arguments ``args`` say (default: nothing)."""
        return LaunchArgs()
    def run_command(self, name: str, policy: ServerPolicy, args: argparse.Namespace,
                    out: Any, err: Any) -> int | None:
        """Answer the command-line command ``name`` (``tools``: a listing with columns the
        shared one lacks) for ``policy`` (built from the shared options) by this server's
        own rules, returning its exit status; None lets the shared command answer. A
        server that doesn't override it is never asked (no policy is built)."""
        return None

    # -- live checks

    def predict(self, policy: ServerPolicy, catalog: Catalog | None = None
                ) -> dict[str, Any]:
        """What ``verify`` expects the running server to report, by :attr:`live_fields`."""
        raise ServerError(f"{self.id} has no live prediction")

    def verify(self, policy: ServerPolicy, target: LiveTarget,
               catalog: Catalog | None = None) -> LiveReport:
        """Ask the running server at ``target`` and compare it with ``policy``'s
        prediction. Raises :class:`LiveError` when it can't be asked, and
        :class:`ServerError` for a target it can't use (default: no live checks)."""
        raise ServerError(f"{self.id} has no live check: verify can't compare it with a "
                          "running server")


def summary_tail(policy: ServerPolicy, warnings: Sequence[str]) -> list[str]:
    """The end of ``validate``'s text: warnings, errors, whether the server starts."""
    out = [f"warning: {w}" for w in warnings] + [f"error: {e}" for e in policy.errors]
    out.append("the server would start" if policy.serves
               else f"the server would exit, printing: {policy.exit_line}")
    return out


def _home(policy: ServerPolicy) -> str:
    return policy.env.get("HOME") or policy.fs.home()


def _join(directory: str, name: str) -> str:
    return directory.rstrip("/") + "/" + name


# --- the registry -----------------------------------------------------------------------

#: The entry-point group servers register under (``[project.entry-points]`` of a
#: package's ``pyproject.toml``: ``<id> = "module:ServerClass"``); the shipped ones too.
ENTRY_POINT_GROUP = "localfs_explorer.servers"

#: Servers made known in this process (:func:`register_server`), and those loaded from
#: their entry points, by id.
_REGISTRY: dict[str, Server] = {}
_FOUND: dict[str, Any] = {}


def _entry_points() -> dict[str, Any]:
    """The installed servers' entry points by id, read once (none imported yet)."""
    if not _FOUND:
        from importlib.metadata import entry_points

        for point in entry_points(group=ENTRY_POINT_GROUP):
            _FOUND.setdefault(point.name, point)
    return _FOUND


def default_engine() -> Any:
    """The default server's public engine module (its package's ``api``), found by its
    entry point: what ``import localfs_explorer`` re-exports, named by no shared path."""
    import importlib

    point = _entry_points().get(DEFAULT_SERVER)
    if point is None:
        raise LocalfsError(f"the default server {DEFAULT_SERVER!r} is not installed "
                           f"(no entry point in the {ENTRY_POINT_GROUP!r} group)")
    package = point.value.split(":")[0].rpartition(".")[0]
    return importlib.import_module(f"{package}.api")


def register_server(server: Server | type[Server], *, replace: bool = False) -> Server:
    """Make ``server`` known by its :attr:`Server.id`; returns the instance kept.

    Registering an id twice is an error unless ``replace`` (a test's stand-in, say).
    """
    instance = server() if isinstance(server, type) else server
    if not instance.id:
        raise ServerError(f"{type(instance).__name__} has no id")
    if not replace and (instance.id in _REGISTRY or instance.id in _entry_points()):
        raise ServerError(f"a server with the id {instance.id!r} is already registered")
    _REGISTRY[instance.id] = instance
    return instance


def unregister_server(server_id: str) -> None:
    """Forget a server registered with :func:`register_server` (an installed one is
    loaded again from its entry point when next asked for)."""
    _REGISTRY.pop(server_id, None)


def get_server(name: str | None = None) -> Server:
    """The server registered as ``name`` (None: :data:`DEFAULT_SERVER`).

    Raises :class:`ServerError` naming the known ids for an unknown one, and saying why
    for an installed one whose package can't be loaded.
    """
    key = name or DEFAULT_SERVER
    found = _REGISTRY.get(key)
    if found is not None:
        return found
    point = _entry_points().get(key)
    if point is None:
        raise ServerError(f"unknown server {key!r}: use one of {', '.join(list_servers())}")
    try:
        cls = point.load()
        instance = cls() if isinstance(cls, type) else cls
    except Exception as exc:  # a third party's package: any import error is possible
        raise ServerError(f"server {key!r} ({point.value}) can't be loaded: "
                          f"{type(exc).__name__}: {exc}") from None
    if not isinstance(instance, Server) or instance.id != key:
        raise ServerError(f"server {key!r} ({point.value}) is not a Server with that id")
    _REGISTRY[key] = instance
    return instance


def server_of(policy: Any) -> Server:
    """The server a resolved policy belongs to (by its ``server_id``; the default server
    for a policy that names none)."""
    return get_server(getattr(policy, "server_id", None) or DEFAULT_SERVER)


def list_servers() -> list[str]:
    """Every known server id, the default first, the rest sorted."""
    rest = sorted((set(_entry_points()) | set(_REGISTRY)) - {DEFAULT_SERVER})
    return [DEFAULT_SERVER, *rest]


def iter_servers() -> Iterator[Server]:
    """Every known server that loads, in :func:`list_servers` order (importing each); one
    that can't be loaded is left out here, and :func:`get_server` says why."""
    for name in list_servers():
        try:
            yield get_server(name)
        except ServerError:
            continue
