"""One description of a simulated server, and the one place it is turned into answers.

Every entry point -- the command line's environment options, a scenario file's
``[config]``, the dashboard's model, ``serve``'s preload, the ``.env`` export and both
sides of a diff -- fills a :class:`ServerConfig`; :func:`resolve_config` turns it into the
environment, the target filesystem, the policy, the tool catalog and registration, and
the tool access lists. The rules below live here and nowhere else, so the same inputs get
the same verdicts whichever way they were given:

- **Relative names.** ``env``, ``profile``, ``catalog``, ``access`` and a host spec file
  are files on this machine: a relative one means relative to ``base_dir`` (the
  directory the configuration was written from: where the command runs, the scenario
  file's folder, the directory ``serve`` was started in). ``~`` is expanded.
- **The startup directory** (``cwd``). On this machine a relative ``cwd`` is relative to
  ``base_dir``, and no ``cwd`` means ``base_dir`` itself: the server is started from
  where the configuration was written. On a described host ``cwd`` is a path on that
  host, left as given; none means the host's own working directory.
- **The package directory** (``package_dir``, where the server's own ``.env`` sits and is
  deny-listed). Given: as given, relative ones like ``cwd``. Not given and the target
  is this machine and ``env`` names a file on it: that file's directory, since the
  server reads its ``.env`` from its package directory. Otherwise the server's startup
  directory (the engine's default).
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .envfile.load import ServerEnv, load_env
from .errors import LocalfsError
from .fs import FileSystem, HostFS
from .fs.spec import list_example_hosts, load_fs
from .secrets import secret_values
from .server import DEFAULT_SERVER, Server, ServerError, ServerPolicy, Setup, get_server
from .vocab import Platform, Transport

if TYPE_CHECKING:
    from .access import ToolAccess
    from .catalog import Catalog, Registration

__all__ = ["ConfigError", "ResolvedConfig", "ServerConfig", "resolve_config"]

#: Which part of a configuration a :class:`ConfigError` is about.
ConfigPart = Literal["env", "host", "profile", "policy", "catalog", "access", "server"]


class ConfigError(LocalfsError):
    """A configuration that can't be used; ``part`` says which input is at fault.

    The message is the underlying problem; each entry point prefixes it with its own
    name for the input (``--fs container.json: ...``, ``host: ...``).
    """

    def __init__(self, part: ConfigPart, value: Any, message: str) -> None:
        super().__init__(message)
        self.part = part
        self.value = value


class ServerConfig(BaseModel):
    """How the simulated server is run: its environment, transport and target host.

    Every field has the meaning the module docstring gives; see there for how relative
    paths, the startup directory and the package directory are resolved.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: Which server answers: a registry id (see :mod:`localfs_explorer.server`).
    server: str = DEFAULT_SERVER
    #: The release of that server to reproduce (None: the newest modelled).
    server_version: str | None = None
    #: The server's own settings, validated by its options model (e.g. the allowed
    #: directories of a server configured by its command line).
    server_options: dict[str, Any] = Field(default_factory=dict)
    #: The server's ``.env``: a file on this machine (None: no file).
    env: str | None = None
    #: The ``.env``'s contents when they did not come from reading ``env`` (an upload,
    #: an edit being validated); ``env`` or ``env_name`` then only names it.
    env_text: str | None = None
    #: A name for ``env_text`` in messages when there is no ``env`` (an upload's name).
    env_name: str | None = None
    #: The server process's own variables; they win over the file.
    settings: dict[str, str] = Field(default_factory=dict)
    #: Variables removed whatever set them.
    unset: list[str] = Field(default_factory=list)
    #: Also give the server this process's environment (off: the operator's shell must
    #: not leak into verdicts).
    inherit_environ: bool = False
    #: Skip ``.env`` lines that can't be parsed, as the server does, instead of failing.
    lenient: bool = False
    transport: Transport = "stdio"
    #: Whether requests arrive over HTTP (None: by transport).
    over_http: bool | None = None
    #: The server's startup directory.
    cwd: str | None = None
    #: The directory holding the server's own ``.env``.
    package_dir: str | None = None
    #: The target host: None or ``"host"`` for this machine, a shipped example's name, a
    #: host spec JSON file, or a host spec as a mapping.
    host: str | dict[str, Any] | None = None
    #: A server profile JSON replacing the shipped assumptions.
    profile: str | None = None
    platform: Platform = "posix"
    #: A tool catalog file replacing the shipped one.
    catalog: str | None = None
    #: Tool access lists: a file, or the lists themselves as a mapping, or a hangar route
    #: (``{"hangar": FILE, "server": ID, "via": GROUP, "tenant": ID}``).
    access: str | dict[str, Any] | None = None
    #: The directory relative names mean on this machine (None: the current directory).
    base_dir: str | None = None


def _on_this_machine(base: str, name: str) -> str:
    """A file or directory name on this machine, made absolute against ``base``.

    Lexically, as ``os.path.abspath`` does: symlinks are the engine's to resolve.
    """
    return os.path.abspath(os.path.join(base, os.path.expanduser(name)))


def _host(config: ServerConfig, base: str, fs: FileSystem | None) -> FileSystem:
    """The target host: ``fs`` when given, else the one ``config.host`` names."""
    if fs is not None:
        return fs
    host = config.host
    try:
        if isinstance(host, str) and host != "host" and host not in list_example_hosts():
            path = _on_this_machine(base, host)
            bare = "/" not in host and not host.endswith(".json")
            # A bare word that names no file is left to load_fs, which lists the examples.
            return load_fs(host if bare and not os.path.exists(path) else path)
        return load_fs(host)
    except (OSError, ValueError) as exc:
        raise ConfigError("host", host, str(exc)) from None


class ResolvedConfig:
    """A :class:`ServerConfig` turned into the engine's objects.

    The policy is resolved at once; the catalog, the registration and the access lists
    on first use, so a question about paths never reads the tool catalog.
    """

    def __init__(self, config: ServerConfig, env: ServerEnv, fs: FileSystem,
                 policy: ServerPolicy, base_dir: str,
                 server: Server | None = None) -> None:
        self.server = server if server is not None else get_server(config.server)
        self.config = config
        self.env = env
        self.fs = fs
        #: The server's :class:`~localfs_explorer.server.ServerPolicy`; typed loosely
        #: because code that knows which server it asked reads that server's own fields.
        self.policy: Any = policy
        self.base_dir = base_dir

    @property
    def on_this_machine(self) -> bool:
        """Whether the target is the machine the explorer runs on."""
        return isinstance(self.fs, HostFS)

    @property
    def over_http(self) -> bool | None:
        return self.config.over_http

    @property
    def env_path(self) -> str | None:
        """The ``.env`` file read, made absolute (None when there is none)."""
        if self.config.env is None:
            return None
        return _on_this_machine(self.base_dir, self.config.env)

    @functools.cached_property
    def secrets(self) -> set[str]:
        """Values of secret settings, for scrubbing free text."""
        return secret_values(self.env.values)

    @functools.cached_property
    def catalog(self) -> Catalog:
        """The tool catalog: the configured file, or the shipped one."""
        from .catalog import CatalogError

        name = self.config.catalog
        if name is None:
            return self.server.catalog()
        try:
            return self.server.catalog(_on_this_machine(self.base_dir, name))
        except CatalogError as exc:
            raise ConfigError("catalog", name, str(exc)) from None

    @functools.cached_property
    def registration(self) -> Registration:
        """Which tools the server registers under this policy."""
        return self.server.register_tools(self.policy, self.catalog)

    @functools.cached_property
    def access(self) -> ToolAccess | None:
        """The tool access lists (None when none are configured)."""
        from .access import load_access

        source = self.config.access
        if source is None:
            return None
        if isinstance(source, str):
            source = _on_this_machine(self.base_dir, source)
        elif isinstance(source.get("hangar"), str):
            # A hangar route: its configuration file is relative like every other file.
            source = {**source, "hangar": _on_this_machine(self.base_dir, source["hangar"])}
        try:
            return load_access(source)
        except (OSError, ValueError) as exc:
            raise ConfigError("access", self.config.access, str(exc)) from None


def resolve_config(config: ServerConfig, *, fs: FileSystem | None = None) -> ResolvedConfig:
    """Resolve ``config`` into its environment, filesystem and policy (the rest lazily).

    ``fs``, when given, is the target host as an object (it replaces ``config.host``).
    Raises :class:`ConfigError` for an input that can't be used: a missing or malformed
    ``.env``, an unknown host, a bad profile, an unknown transport.
    """
    base = os.path.abspath(os.path.expanduser(config.base_dir or os.curdir))
    env_path = _on_this_machine(base, config.env) if config.env else None
    try:
        # Uploaded text is named by its upload's name; a file by its path.
        name = env_path if env_path is not None or config.env_text is None \
            else config.env_name
        env = load_env(name, overrides=config.settings, unset=config.unset,
                       inherit_environ=config.inherit_environ, strict=not config.lenient,
                       text=config.env_text)
    except LocalfsError as exc:
        raise ConfigError("env", config.env, str(exc)) from None
    target = _host(config, base, fs)
    cwd, package_dir = config.cwd, config.package_dir
    if isinstance(target, HostFS):
        cwd = _on_this_machine(base, cwd) if cwd else base
        if package_dir:
            package_dir = _on_this_machine(base, package_dir)
        elif env_path is not None:
            package_dir = os.path.dirname(env_path)
    try:
        server = get_server(config.server)
        options = server.options(config.server_options)
    except ServerError as exc:
        raise ConfigError("server", config.server, str(exc)) from None
    host_platform = getattr(target, "platform", "posix")
    if host_platform not in server.host_platforms:
        raise ConfigError("host", config.host if isinstance(config.host, str) else None,
                          f"{server.title} on a {host_platform} host isn't modelled: its "
                          "path rules there aren't reproduced")
    profile = _on_this_machine(base, config.profile) if config.profile else None
    setup = Setup(env=env, fs=target, base_dir=base, cwd=cwd, package_dir=package_dir,
                  transport=config.transport, platform=config.platform, profile=profile,
                  version=config.server_version, options=options)
    try:
        policy = server.resolve(setup)
    except ServerError as exc:
        part = exc.part if exc.part in ("profile", "server") else "policy"
        value = {"profile": config.profile, "server": config.server}.get(part)
        raise ConfigError(part, value, str(exc)) from None  # type: ignore[arg-type]
    except LocalfsError as exc:
        raise ConfigError("policy", None, str(exc)) from None
    return ResolvedConfig(config, env, target, policy, base, server)
