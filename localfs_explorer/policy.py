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
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from . import check as _check_module
from .env import ServerEnv
from .errors import LocalfsError
from .fs import FileSystem, HostFS
from .paths import containment_prefixes, fold
from .profile import DEFAULT_PROFILE, ServerProfile
from .vocab import TRANSPORTS, Mode, Op

if TYPE_CHECKING:
    from .check import BatchChecker, Decision

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


class CompiledPolicy:
    """A Policy flattened into plain attributes and sets for the check's hot path.

    Pydantic attribute access costs microseconds per lookup; a walk checks thousands
    of paths, so the check reads everything it needs from this object instead.
    """

    __slots__ = (
        "cwd", "deny_dir_prefixes", "deny_dirs", "deny_folded", "deny_ids", "deny_paths",
        "explicit", "fs", "mode", "over_http_default", "platform", "policy", "root_dirs",
        "root_prefixes", "roots_mode", "roots_text", "transport", "tripwire_armed",
    )

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.mode = policy.mode
        self.explicit = policy.explicit
        self.transport = policy.transport
        self.platform = policy.platform
        self.fs = policy.fs
        self.cwd = policy.cwd
        self.over_http_default = policy.transport != "stdio"
        # A defaulted full mode refuses every HTTP request (the launch argv can't see).
        self.tripwire_armed = policy.mode is Mode.FULL and not policy.explicit
        self.roots_mode = policy.mode is Mode.ROOTS
        roots = [r.resolved for r in policy.roots if r.resolved and not r.problem]
        self.root_dirs = frozenset(roots)
        self.root_prefixes = containment_prefixes(roots)
        self.roots_text = ", ".join(r.configured for r in policy.roots)
        self.deny_paths = frozenset(e.resolved for e in policy.deny_list)
        self.deny_folded = frozenset(fold(e.resolved, policy.platform) for e in policy.deny_list)
        self.deny_ids = frozenset(e.identity for e in policy.deny_list if e.identity)
        self.deny_dirs = frozenset(d.resolved for d in policy.deny_dirs)
        self.deny_dir_prefixes = containment_prefixes(self.deny_dirs)

    def with_deny_ids(self, ids: frozenset[tuple[int, int]]) -> CompiledPolicy:
        """A copy whose deny-list identities are ``ids`` (a batch's fresh stat)."""
        twin = object.__new__(CompiledPolicy)
        for name in CompiledPolicy.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.deny_ids = ids
        return twin


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
        from .render import policy_repr

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
        """The one-line message the server's serving path exits with, if it refuses."""
        return "; ".join(self.errors) if self.errors else None

    @property
    def over_http_default(self) -> bool:
        """Whether requests reach the server over HTTP, judging by its transport."""
        return self.transport != "stdio"

    def check_read(self, path: str, *, over_http: bool | None = None) -> Decision:
        """May a tool read ``path``? Returns the server's :class:`Decision`."""
        return _check_module._check(self.compiled, path, "read", over_http)

    def check_write(self, path: str, *, over_http: bool | None = None) -> Decision:
        """May a tool write ``path``? Returns the server's :class:`Decision`."""
        return _check_module._check(self.compiled, path, "write", over_http)

    def check_read_write(self, path: str, *, over_http: bool | None = None) -> Decision:
        """May a tool both read and write ``path`` (a sync entry on both sides)?"""
        return _check_module._check(self.compiled, path, "read_write", over_http)

    def check(self, path: str, op: Op = "read", *, over_http: bool | None = None) -> Decision:
        """The check for ``op`` in ``read``, ``write`` or ``read_write``."""
        return _check_module._check(self.compiled, path, op, over_http)

    @contextlib.contextmanager
    def many_checks(self) -> Iterator[BatchChecker]:
        """Batch checking for walks: deny-list statted once, each parent resolved once."""
        yield _check_module.BatchChecker(self)

    def summary(self) -> dict[str, Any]:
        """The JSON shape of ``localfs-explorer validate --json``."""
        return {
            "mode": self.mode.value,
            "explicit": self.explicit,
            "transport": self.transport,
            "serves": self.serves,
            "exit_message": self.exit_message,
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
        # getcwd() returns a resolved path, so relative paths resolve against the real cwd.
        self.cwd = self._realpath_or_none(raw_cwd) or raw_cwd
        if not fs.is_dir(self.cwd):
            self.warnings.append(
                f"the startup directory {raw_cwd} does not exist on {fs.label}; "
                "the server could not start there"
            )
        self.package_dir = self.absolute(package_dir) if package_dir else self.cwd
        self.home = env.get("HOME") or fs.home()

    def _realpath_or_none(self, path: str) -> str | None:
        try:
            return self.fs.realpath(path)
        except (ValueError, OSError):
            return None

    def absolute(self, path: str) -> str:
        """Join a relative path to the startup directory, as open() would."""
        return path if posixpath.isabs(path) else posixpath.join(self.cwd, path)

    def expand_home(self, path: str) -> str:
        if path == "~" or path.startswith("~/"):
            return self.home.rstrip("/") + path[1:] if path != "~" else self.home
        return path

    def mode(self) -> tuple[Mode, bool, str | None]:
        raw = self.env.get("LOCAL_FILE_ACCESS")
        if raw is not None and not raw.strip() and self.profile.empty_access_means_unset:
            raw = None
        if raw is None:
            default = Mode.FULL if self.transport == "stdio" else Mode.OFF
            return default, False, None
        value = raw.strip().lower()
        try:
            return Mode(value), True, raw
        except ValueError:
            self.errors.append(
                f"LOCAL_FILE_ACCESS={_describe(raw)} is not one of full, roots, off"
            )
            return Mode.OFF, True, raw

    def roots(self, mode: Mode) -> list[Root]:
        raw = self.env.get("LOCAL_FILE_ROOTS")
        sep = ";" if self.platform == "windows" else ":"
        entries = []
        for part in (raw or "").split(sep):
            part = part.strip() if self.profile.strip_root_whitespace else part
            if part:
                entries.append(part)
        if mode is not Mode.ROOTS:
            if entries:
                self.warnings.append(
                    f"LOCAL_FILE_ROOTS is set but ignored: LOCAL_FILE_ACCESS resolves to {mode}"
                )
            return [Root(configured=e) for e in entries]
        if not entries:
            self.errors.append(
                "LOCAL_FILE_ACCESS=roots needs LOCAL_FILE_ROOTS: one or more directories "
                f"separated by '{sep}'"
            )
            return []
        roots = []
        for entry in entries:
            problem = None
            resolved = None
            if "\0" in entry:
                problem = "contains a NUL byte"
            else:
                resolved = self._realpath_or_none(self.absolute(entry))
                if resolved is None or not self.fs.exists(resolved):
                    problem = "does not exist"
                elif not self.fs.is_dir(resolved):
                    problem = "is not a directory"
            if problem:
                self.errors.append(f"LOCAL_FILE_ROOTS entry {_describe(entry, 400)} {problem}")
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

    def deny_list(self) -> tuple[list[DenyEntry], list[DenyDir]]:
        env, prof = self.env, self.profile
        planned: list[tuple[str, str, bool]] = []
        for setting in ("CREDENTIALS_PATH", "TOKEN_PATH"):
            value = env.get(setting)
            if value:
                planned.append((setting, value, False))
            elif setting in prof.setting_defaults:
                planned.append((setting, prof.setting_defaults[setting], True))
        if env.get("SERVICE_ACCOUNT_PATH"):
            planned.append(("SERVICE_ACCOUNT_PATH", env.values["SERVICE_ACCOUNT_PATH"], False))
        planned.append(
            ("server .env", posixpath.join(self.package_dir, prof.package_env_name), False)
        )
        if env.get("GOOGLE_APPLICATION_CREDENTIALS"):
            planned.append(
                ("GOOGLE_APPLICATION_CREDENTIALS",
                 env.values["GOOGLE_APPLICATION_CREDENTIALS"], False)
            )
        # gcloud's own ADC file: CLOUDSDK_CONFIG replaces its directory when set.
        adc_dir: str | None
        if env.get("CLOUDSDK_CONFIG"):
            adc_dir = env.values["CLOUDSDK_CONFIG"]
            adc_setting, adc_default = "CLOUDSDK_CONFIG", False
        elif self.platform == "windows":
            appdata = env.get("APPDATA")
            adc_dir = prof.adc_dir_windows.replace("%APPDATA%", appdata) if appdata else None
            adc_setting, adc_default = "APPDATA", True
            if adc_dir is None:
                self.warnings.append("APPDATA is unset: gcloud's default ADC file can't be located")
        else:
            adc_dir, adc_setting, adc_default = self.expand_home(prof.adc_dir_posix), "HOME", True
        if adc_dir:
            planned.append(
                (f"{adc_setting} (ADC file)", posixpath.join(adc_dir, prof.adc_file_name),
                 adc_default)
            )
        deny_dirs: list[DenyDir] = []
        cache = env.get("CACHE_DB_PATH")
        if cache:
            cache_path, cache_default = cache, False
        else:
            cache_dir = self.expand_home(prof.default_cache_dir)
            cache_path = posixpath.join(cache_dir, prof.default_cache_db_name)
            cache_default = True
            absolute = self.absolute(cache_dir)
            deny_dirs.append(
                DenyDir(setting="CACHE_DB_PATH", path=cache_dir,
                        resolved=self._realpath_or_none(absolute) or absolute)
            )
        for suffix in ("", *prof.sqlite_sidecars):
            planned.append(("CACHE_DB_PATH", cache_path + suffix, cache_default))
        for suffix in ("", *prof.sqlite_sidecars):
            planned.append(("legacy cache (pre-0.9.3)", prof.legacy_cache_db + suffix, True))
        for setting in ("LOG_FILE", "ACCESS_LOG_FILE"):
            if env.get(setting):
                planned.append((setting, env.values[setting], False))
        entries = [self.deny_entry(*p) for p in planned]
        return [e for e in entries if e is not None], deny_dirs


def resolve_policy(
    env: ServerEnv | None = None,
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
        env: the server's environment (see :func:`~localfs_explorer.load_env`).
        transport: ``stdio`` (default), ``sse`` or ``streamable-http``.
        fs: the target host's filesystem; this machine's (:class:`HostFS`) by default.
        cwd: the server's startup directory (relative settings resolve there).
        package_dir: the directory holding the server's own ``.env`` (deny-listed).
        profile: assumptions about the server; the shipped profile by default.
        platform: ``posix``, or ``windows`` to split ``LOCAL_FILE_ROOTS`` on ``;``.

    An invalid configuration never raises: like the server, the policy falls back to
    ``off`` and the reason is in ``errors`` (and ``exit_message``).
    """
    if transport not in TRANSPORTS:
        raise PolicyError(f"unknown transport {transport!r}: use one of {', '.join(TRANSPORTS)}")
    if platform not in ("posix", "windows"):
        raise PolicyError(f"unknown platform {platform!r}: use posix or windows")
    env = env if env is not None else ServerEnv()
    fs = fs if fs is not None else HostFS()
    resolver = _Resolver(env, transport, fs, cwd, package_dir, profile or DEFAULT_PROFILE,
                         platform)
    mode, explicit, configured = resolver.mode()
    roots = resolver.roots(mode)
    if resolver.errors:
        mode = Mode.OFF  # the server's fail-safe: an invalid setting resolves to off
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

