"""Resolve a server's settings into its local-file access policy.

``resolve_policy`` is a pure function of (environment, transport, target filesystem,
startup directory, package directory, profile). It reproduces the server's resolution:
the mode with its transport default, root validation with the fail-safe to ``off``, and
the deny-list of the server's own files, each entry carrying the setting it came from.
"""

from __future__ import annotations

import contextlib
import functools
import posixpath
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from ...envfile.load import ServerEnv, load_env
from ...errors import LocalfsError
from ...fs import FileSystem, HostFS
from ...vocab import PLATFORMS, TRANSPORTS, Mode, Op
from .check import explain as _explain
from .check import verdict as _verdict
from .check.batch import BatchChecker
from .check.tables import CompiledPolicy
from .profile import DEFAULT_PROFILE, ServerProfile

if TYPE_CHECKING:
    from .check.verdict import Decision, TraceStep


class PolicyError(LocalfsError):
    """An argument to ``resolve_policy`` that isn't a server setting (e.g. a bad transport)."""


class Root(BaseModel):
    """One ``LOCAL_FILE_ROOTS`` entry: its configured spelling and where it resolves."""

    model_config = ConfigDict(frozen=True)

    configured: str
    resolved: str | None = None
    problem: str | None = None


class DenyEntry(BaseModel):
    """A file the server refuses to read or write, whatever the mode."""

    model_config = ConfigDict(frozen=True)

    setting: str
    #: The path as the setting (or its default) spells it, before resolution.
    path: str
    resolved: str
    exists: bool
    #: True when the setting was unset and the server's default applies.
    default: bool = False
    identity: tuple[int, int] | None = Field(default=None, exclude=True, repr=False)


class DenyDir(BaseModel):
    """A directory whose whole content is deny-listed (the default cache directory)."""

    model_config = ConfigDict(frozen=True)

    setting: str
    path: str
    resolved: str


class Policy(BaseModel):
    """A server's resolved local-file access policy, and the check that enforces it.

    Build one with :func:`resolve_policy`. ``check_read`` / ``check_write`` /
    ``check_read_write`` answer for one path; ``many_checks()`` answers for a walk.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    mode: Mode
    explicit: bool
    transport: str
    platform: str = "posix"
    env: ServerEnv
    fs: FileSystem = Field(exclude=True, repr=False)
    cwd: str
    package_dir: str
    roots: list[Root] = Field(default_factory=list)
    deny_list: list[DenyEntry] = Field(default_factory=list)
    deny_dirs: list[DenyDir] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    #: The configured LOCAL_FILE_ACCESS value when it was set (for explanations).
    configured_mode: str | None = None
    profile: ServerProfile = Field(default=DEFAULT_PROFILE, exclude=True, repr=False)

    def _repr_html_(self) -> str:
        """Rich display in a notebook (the dashboard's renderer)."""
        from ...render import policy_repr

        return policy_repr(self)

    @functools.cached_property
    def compiled(self) -> CompiledPolicy:
        """The policy as plain lookup tables for the check's hot path, built once."""
        return CompiledPolicy(self)

    @property
    def serves(self) -> bool:
        """Whether the server would start serving with this configuration."""
        return not self.errors

    @property
    def exit_message(self) -> str | None:
        """Why the server refuses to serve (its one error), if it does."""
        return self.errors[0] if self.errors else None

    @property
    def exit_line(self) -> str | None:
        """The exact line the server exits with when it refuses to serve."""
        return f"{self.profile.name}: {self.errors[0]}" if self.errors else None

    @property
    def server_version(self) -> str:
        """The release of the server whose behaviour this policy reproduces."""
        return self.profile.server_version

    @property
    def over_http_default(self) -> bool:
        """Whether requests reach the server over HTTP, judging by its transport."""
        return self.transport != "stdio"

    def check_read(self, path: str, *, over_http: bool | None = None) -> Decision:
        """May a tool read ``path``? Returns the server's :class:`Decision`."""
        return _verdict._check(self.compiled, path, "read", over_http)

    def check_write(self, path: str, *, over_http: bool | None = None) -> Decision:
        """May a tool write ``path``? Returns the server's :class:`Decision`."""
        return _verdict._check(self.compiled, path, "write", over_http)

    def check_read_write(self, path: str, *, over_http: bool | None = None) -> Decision:
        """May a tool both read and write ``path`` (a sync entry on both sides)?"""
        return _verdict._check(self.compiled, path, "read_write", over_http)

    def check(self, path: str, op: Op = "read", *, over_http: bool | None = None) -> Decision:
        """The check for ``op`` in ``read``, ``write`` or ``read_write``."""
        return _verdict._check(self.compiled, path, op, over_http)

    @contextlib.contextmanager
    def many_checks(self) -> Iterator[BatchChecker]:
        """Batch checking for walks: deny-list statted once, each parent resolved once."""
        yield BatchChecker(self)

    def explain(self, decision: Decision, *, other: BatchChecker | None = None
                ) -> list[TraceStep]:
        """The steps of the check that gave ``decision`` (see
        :func:`localfs_explorer.servers.gee_sweet.check.explain.explain`)."""
        return _explain.explain(decision, other=other)

    def hint_for(self, decision: Decision) -> str:
        """What configuration change would allow ``decision``'s path, or that nothing can."""
        return _explain.hint(decision)

    @property
    def server_id(self) -> str:
        """The registry id of the server this policy is (see :mod:`localfs_explorer.server`)."""
        return "mcp-gee-sweet"

    def summary(self) -> dict[str, Any]:
        """The JSON shape of ``localfs-explorer validate --json``."""
        return {
            "mode": self.mode.value,
            "explicit": self.explicit,
            "transport": self.transport,
            "serves": self.serves,
            "exit_message": self.exit_message,
            "exit_line": self.exit_line,
            "server_version": self.server_version,
            "roots": [r.model_dump() for r in self.roots],
            "errors": list(self.errors),
            "warnings": list(self.warnings),
            "deny_list": [
                {"setting": e.setting, "path": e.path, "resolved": e.resolved,
                 "exists": e.exists, "default": e.default}
                for e in self.deny_list
            ],
            "deny_dirs": [d.model_dump() for d in self.deny_dirs],
            "cwd": self.cwd,
            "package_dir": self.package_dir,
        }


def _describe(value: str, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "…'"


class _Resolver:
    """Builds a Policy step by step; one instance per resolve_policy call."""

    def __init__(
        self,
        env: ServerEnv,
        transport: str,
        fs: FileSystem,
        cwd: str | None,
        package_dir: str | None,
        profile: ServerProfile,
        platform: str,
    ) -> None:
        self.env, self.transport, self.fs = env, transport, fs
        self.profile, self.platform = profile, platform
        self.errors: list[str] = []
        self.warnings: list[str] = []
        raw_cwd = cwd if cwd is not None else fs.default_cwd()
        if not posixpath.isabs(raw_cwd):
            raise PolicyError(f"the startup directory must be absolute: {raw_cwd!r}")
        # mirrors mcp-gee-sweet 0.9.5 local_files._realpath: os.path.realpath joins a relative path
        # to os.getcwd(), which is already resolved, so relative paths land in the real cwd
        self.cwd = self._realpath_or_none(raw_cwd) or raw_cwd
        if not fs.is_dir(self.cwd):
            self.warnings.append(
                f"the startup directory {raw_cwd} does not exist on {fs.label}; "
                "the server could not start there"
            )
        self.package_dir = self.absolute(package_dir) if package_dir else self.cwd
        self.home = self._user_home()

    def _realpath_or_none(self, path: str) -> str | None:
        try:
            return self.fs.realpath(path)
        except (ValueError, OSError):
            return None

    def absolute(self, path: str) -> str:
        """Join a relative path to the startup directory, as open() would."""
        return path if posixpath.isabs(path) else posixpath.join(self.cwd, path)

    def _user_home(self) -> str:
        """What ``os.path.expanduser("~")`` gives the server: ``$HOME`` when it is set
        (trailing slashes dropped, an empty value meaning ``/``), else the account's
        home directory."""
        # mirrors mcp-gee-sweet 0.9.5 local_files._adc_default_path: os.path.expanduser("~") reads
        # $HOME first, so a server's HOME moves its ADC file and default cache
        if self.env.is_set("HOME"):
            return (self.env.values["HOME"].rstrip("/")) or "/"
        return self.fs.home().rstrip("/") or "/"

    def expand_home(self, path: str) -> str:
        """``~`` and ``~/...`` expanded as ``os.path.expanduser`` does."""
        if path == "~" or path.startswith("~/"):
            home = self.home
            return (home.rstrip("/") + path[1:]) or "/"
        return path

    def mode(self) -> tuple[Mode, bool, str | None]:
        raw = self.env.get("LOCAL_FILE_ACCESS")
        if raw is not None and not raw.strip() and self.profile.empty_access_means_unset:
            raw = None
        if raw is None:
            # mirrors mcp-gee-sweet 0.9.5 local_files.resolve_policy: unset means full under stdio
            # and off under a network transport, whose caller isn't the operator
            default = Mode.FULL if self.transport == "stdio" else Mode.OFF
            return default, False, None
        value = raw.strip().lower()
        try:
            return Mode(value), True, raw
        except ValueError:
            # mirrors mcp-gee-sweet 0.9.5 local_files.resolve_policy: an unknown mode never raises;
            # it resolves to off with the reason (the fail-safe for registration)
            self.errors.append(f"LOCAL_FILE_ACCESS={value!r} isn't valid (use full, roots, or off)")
            return Mode.OFF, True, raw

    def roots(self, mode: Mode) -> list[Root]:
        raw = self.env.get("LOCAL_FILE_ROOTS")
        # mirrors mcp-gee-sweet 0.9.5 local_files.resolve_policy: split on os.pathsep, each entry
        # stripped and empty ones dropped, so "a: b:" is two roots
        sep = ";" if self.platform == "windows" else ":"
        entries = []
        for part in (raw or "").split(sep):
            part = part.strip() if self.profile.strip_root_whitespace else part
            if part:
                entries.append(part)
        if mode is not Mode.ROOTS or self.errors:
            if entries and not self.errors:
                self.warnings.append(
                    f"LOCAL_FILE_ROOTS is set but ignored: LOCAL_FILE_ACCESS resolves to {mode}"
                )
            return [Root(configured=e) for e in entries]
        if not entries:
            # mirrors mcp-gee-sweet 0.9.5 local_files._config_error: roots without a root would
            # allow nothing, so it is an error (off), not an empty allow-list
            self.errors.append(
                f"LOCAL_FILE_ACCESS=roots needs LOCAL_FILE_ROOTS, a {sep!r}-separated list "
                "of directories"
            )
            return []
        roots = []
        for entry in entries:
            problem = None
            resolved = None
            if "\0" in entry:
                problem = "contains a NUL byte"
            elif not self.fs.is_dir(self.absolute(entry)):
                # mirrors mcp-gee-sweet 0.9.5 local_files._config_error: os.path.isdir of the entry
                # as spelled, so a symlink to a directory counts and a loop doesn't
                problem = "isn't an existing directory"
            else:
                resolved = self._realpath_or_none(self.absolute(entry))
            if problem and not self.errors:
                # mirrors mcp-gee-sweet 0.9.5 local_files._config_error: it returns at the first bad
                # entry, so only that one is reported
                self.errors.append(f"LOCAL_FILE_ROOTS entry {entry!r} {problem}")
            roots.append(Root(configured=entry, resolved=resolved, problem=problem))
        return roots

    def deny_entry(self, setting: str, path: str, default: bool = False) -> DenyEntry | None:
        if "\0" in path:
            self.warnings.append(f"{setting} contains a NUL byte; the server could not use it")
            return None
        absolute = self.absolute(path)
        resolved = self._realpath_or_none(absolute) or absolute
        identity = self.fs.identity(resolved)
        return DenyEntry(
            setting=setting, path=path, resolved=resolved, exists=identity is not None,
            default=default, identity=identity,
        )

    def _setting_or_default(self, setting: str) -> tuple[str, bool] | None:
        """The value the server reads for a path setting: the default when unset, the
        value when set (an empty one names no file, so None)."""
        if self.env.is_set(setting):
            value = self.env.values[setting]
            return (value, False) if value else None
        default = self.profile.setting_defaults.get(setting)
        return (default, True) if default else None

    def _adc_file(self) -> tuple[str, str, bool]:
        """gcloud's default ADC file: (setting it follows, path, whether defaulted)."""
        # mirrors mcp-gee-sweet 0.9.5 local_files._adc_default_path: google-auth falls back to this
        # file when GOOGLE_APPLICATION_CREDENTIALS is unset, so it is the server's too
        prof = self.profile
        config_dir = self.env.get("CLOUDSDK_CONFIG")
        if config_dir:
            return ("CLOUDSDK_CONFIG (ADC file)", posixpath.join(config_dir, prof.adc_file_name),
                    False)
        if self.platform == "windows":
            base = self.env.get(prof.adc_base_windows_setting) or self.expand_home(
                prof.adc_base_windows)
            return (f"{prof.adc_base_windows_setting} (ADC file)",
                    posixpath.join(base, "gcloud", prof.adc_file_name), True)
        return ("HOME (ADC file)",
                posixpath.join(self.expand_home(prof.adc_dir_posix), prof.adc_file_name), True)

    def default_cache_path(self) -> str:
        """The server's default cache DB path for this platform and environment."""
        prof = self.profile
        platform = self.platform
        base = self.expand_home(prof.cache_base.get(platform, prof.cache_base["posix"]))
        setting = prof.cache_base_setting.get(platform)
        value = self.env.get(setting) if setting else None
        if value and (platform == "windows" or posixpath.isabs(value)):
            # mirrors mcp-gee-sweet 0.9.5 cache.default_db_path: a relative XDG_CACHE_HOME is
            # ignored, as the XDG specification says
            base = value
        return posixpath.join(base, prof.cache_app_dir, prof.default_cache_db_name)

    def deny_list(self) -> tuple[list[DenyEntry], list[DenyDir]]:
        """The server's own files, in the server's order, and the denied directories."""
        # mirrors mcp-gee-sweet 0.9.5 local_files._deny_list_paths: every file the server reads its
        # identity or settings from, listed whether or not it exists yet, so a download can't plant
        # a token the server then loads
        env, prof = self.env, self.profile
        planned: list[tuple[str, str, bool]] = []
        for setting in ("CREDENTIALS_PATH", "TOKEN_PATH", "SERVICE_ACCOUNT_PATH"):
            found = self._setting_or_default(setting)
            if found is not None:
                planned.append((setting, found[0], found[1]))
        planned.append(
            ("server .env", posixpath.join(self.package_dir, prof.package_env_name), False)
        )
        planned.append(self._adc_file())
        deny_dirs: list[DenyDir] = []
        default_cache = self.default_cache_path()
        # mirrors mcp-gee-sweet 0.9.5 cache.db_path: an empty CACHE_DB_PATH means the default
        cache_path = env.get("CACHE_DB_PATH") or default_cache
        cache_default = not env.get("CACHE_DB_PATH")
        if cache_path == default_cache:
            # mirrors mcp-gee-sweet 0.9.5 local_files._deny_list_dirs: only the default cache
            # directory is the server's alone (GHSA-8jqx-w7j8-6xwm); an explicit one may be shared,
            # so only its files are denied (spelled as the default, it counts too)
            cache_dir = posixpath.dirname(cache_path)
            absolute = self.absolute(cache_dir)
            deny_dirs.append(
                DenyDir(setting="CACHE_DB_PATH", path=cache_dir,
                        resolved=self._realpath_or_none(absolute) or absolute)
            )
        for suffix in ("", *prof.sqlite_sidecars):
            planned.append(("CACHE_DB_PATH", cache_path + suffix, cache_default))
        # mirrors mcp-gee-sweet 0.9.5 local_files._deny_list_paths: the pre-0.9.3 shared cache stays
        # on disk with what it cached for every identity (GHSA-8jqx-w7j8-6xwm)
        for suffix in ("", *prof.sqlite_sidecars):
            planned.append(("legacy cache (pre-0.9.3)", prof.legacy_cache_db + suffix, True))
        for setting in ("GOOGLE_APPLICATION_CREDENTIALS", "LOG_FILE", "ACCESS_LOG_FILE"):
            if env.get(setting):
                planned.append((setting, env.values[setting], False))
        entries = [self.deny_entry(*p) for p in planned]
        return [e for e in entries if e is not None], deny_dirs


def _server_env(env: object) -> ServerEnv:
    """``env`` as a :class:`ServerEnv`: a mapping is the process environment (``--set``)."""
    if env is None:
        return ServerEnv()
    if isinstance(env, ServerEnv):
        return env
    if isinstance(env, Mapping):
        bad = [k for k, v in env.items() if not isinstance(k, str) or not isinstance(v, str)]
        if bad:
            raise TypeError(f"resolve_policy: env maps setting names to strings; {bad[0]!r} "
                            "is not a string or its value isn't")
        return load_env(overrides=env)
    raise TypeError(f"resolve_policy: env must be a ServerEnv (from load_env) or a mapping of "
                    f"settings to strings, not {type(env).__name__}")


def resolve_policy(
    env: ServerEnv | Mapping[str, str] | None = None,
    *,
    transport: str = "stdio",
    fs: FileSystem | None = None,
    cwd: str | None = None,
    package_dir: str | None = None,
    profile: ServerProfile | None = None,
    platform: str = "posix",
) -> Policy:
    """Resolve the policy a server started with ``env`` and ``transport`` would enforce.

    Args:
        env: the server's environment (see :func:`~localfs_explorer.load_env`), or a
            plain mapping of its settings (``{"LOCAL_FILE_ACCESS": "roots", ...}``),
            taken as the server process's environment with no ``.env`` file.
        transport: ``stdio`` (default), ``sse`` or ``streamable-http``.
        fs: the target host's filesystem; this machine's (:class:`HostFS`) by default.
        cwd: the server's startup directory (relative settings resolve there).
        package_dir: the directory holding the server's own ``.env`` (deny-listed).
        profile: assumptions about the server; the shipped profile by default.
        platform: ``posix``; ``macos`` for its default cache directory; or ``windows``
            to split ``LOCAL_FILE_ROOTS`` on ``;`` and place the defaults under
            ``%LOCALAPPDATA%`` and ``%APPDATA%`` (paths are still checked by POSIX rules;
            see :func:`~localfs_explorer.servers.gee_sweet.check.check_path` for what that refuses).

    An invalid configuration never raises: like the server, the policy falls back to
    ``off`` and the reason is in ``errors`` (and ``exit_message``).
    """
    if transport not in TRANSPORTS:
        raise PolicyError(f"unknown transport {transport!r}: use one of {', '.join(TRANSPORTS)}")
    if platform not in PLATFORMS:
        raise PolicyError(f"unknown platform {platform!r}: use posix, macos or windows")
    env = _server_env(env)
    fs = fs if fs is not None else HostFS()
    resolver = _Resolver(env, transport, fs, cwd, package_dir, profile or DEFAULT_PROFILE,
                         platform)
    mode, explicit, configured = resolver.mode()
    roots = resolver.roots(mode)
    if resolver.errors:
        # mirrors mcp-gee-sweet 0.9.5 local_files.resolve_policy: an invalid setting resolves to off
        # (the fail-safe), and only serving refuses to start on it (exit_if_invalid)
        mode = Mode.OFF
    deny_list, deny_dirs = resolver.deny_list()
    return Policy(
        mode=mode,
        explicit=explicit,
        transport=transport,
        platform=platform,
        env=env,
        fs=fs,
        cwd=resolver.cwd,
        package_dir=resolver.package_dir,
        roots=roots,
        deny_list=deny_list,
        deny_dirs=deny_dirs,
        errors=resolver.errors,
        warnings=resolver.warnings,
        configured_mode=configured,
        profile=resolver.profile,
    )

