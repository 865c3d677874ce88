"""The filesystem server's allowed directories and its ``validatePath``, per release.

The server (``@modelcontextprotocol/server-filesystem``) keeps one list of allowed
directories and passes every path a tool is given through ``validatePath`` before the
tool touches it. What ``validatePath`` returns is the path the tool then acts on; what
it throws is the tool's error, word for word, with no prefix. This module answers both
for a configuration (argv directories, working directory, ``HOME``, MCP roots) on any
:class:`~localfs_explorer.fs.base.FileSystem`, for three releases:

- ``2026.8.31`` (npm's ``latest``, the default). It compares a *trimmed* spelling of the
  path (JavaScript whitespace and one leading/trailing quote removed) but returns the
  untrimmed one, so with ``/data`` allowed, ``/data'`` or ``/data `` (a sibling) passes:
  a write creates it, a read reaches it when it exists.
- ``2.0.1`` (newer, needs node 24). It compares the path as given (no trimming), matches
  names that differ only in Unicode normal form or in the kind of space, and reports an
  empty allow-list in its own words.
- ``2026.7.10`` (older). No Windows-path refusal, and a missing path is checked by its
  parent only (``Parent directory does not exist`` for a parent outside, too).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from ...errors import LocalfsError
from ...fs.base import FileSystem
from .nodefs import NodeFsError, node_lstat_exists, node_readdir, node_realpath, node_stat
from .nodepath import (
    JS_WHITESPACE,
    dirname,
    join,
    normalize_path,
    normalize_path_format,
    relative,
    resolve,
    utf16_length,
)

__all__ = [
    "DEFAULT_VERSION",
    "REASONS",
    "VERSIONS",
    "AllowedDirectories",
    "FilesystemConfig",
    "FilesystemPolicy",
    "FilesystemReason",
    "ValidatePathVerdict",
    "resolve_allowed_directories",
]

#: Why ``validatePath`` allowed or refused a path (:attr:`ValidatePathVerdict.reason`).
FilesystemReason = Literal["inside", "outside", "symlink-outside", "windows-path",
                           "parent-missing", "ambiguous-unicode", "system-error",
                           "no-allowed-dirs"]
REASONS: tuple[str, ...] = ("inside", "outside", "symlink-outside", "windows-path",
                            "parent-missing", "ambiguous-unicode", "system-error",
                            "no-allowed-dirs")

#: The releases whose behaviour is reproduced; the first is the default (npm's latest).
VERSIONS: tuple[str, ...] = ("2026.8.31", "2.0.1", "2026.7.10")
DEFAULT_VERSION = VERSIONS[0]
V_LATEST, V_2, V_OLD = VERSIONS

# "C:", "C:\x", "c:/x": a drive path, which 2026.8.31 and 2.0.1 refuse on a POSIX host
# rather than resolve as a relative name inside an allowed directory (2026.7.10 does).
_DRIVE = re.compile(r"[A-Za-z]:(?:[\\/]|\Z)")
# 2.0.1 treats every Unicode space separator (Zs) as a plain space when matching names.
_ZS = re.compile(r"[\u0020\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")

#: What the server prints and does when started with no usable directory at all.
NONE_ACCESSIBLE = "Error: None of the specified directories are accessible"
#: What 2026.x throws after the handshake with neither argv directories nor roots.
CANNOT_OPERATE = (
    "Server cannot operate: No allowed directories available. Server was started without "
    "command-line directories and client either does not support MCP roots protocol or "
    "provided empty roots. Please either: 1) Start server with directory arguments, or 2) "
    "Use a client that supports MCP roots protocol and provides valid root directories."
)
CANNOT_OPERATE_2 = (
    "Server cannot operate: No allowed directories available. Server was started without "
    "command-line directories and client does not support MCP roots protocol. Please "
    "either: 1) Start server with directory arguments, or 2) Use a client that supports "
    "MCP roots protocol and provides valid root directories."
)


@dataclass(frozen=True)
class FilesystemConfig:
    """How the server is started: its argv directories, working directory, ``HOME``,
    the MCP roots its client advertises (None: the client has no roots capability) and
    the release. ``cwd``/``home`` None mean the filesystem's own defaults."""

    directories: tuple[str, ...] = ()
    cwd: str | None = None
    home: str | None = None
    roots: tuple[str, ...] | None = None
    version: str = DEFAULT_VERSION

    def __post_init__(self) -> None:
        if self.version not in VERSIONS:
            known = ", ".join(VERSIONS)
            raise ValueError(f"server-filesystem {self.version} isn't modelled "
                             f"(known versions: {known})")


@dataclass(frozen=True)
class AllowedDirectories:
    """The allow-list the server ends up with, and how it got there.

    ``from_argv`` is the list built from the command line (each directory, plus its
    realpath when that is spelled differently); ``from_roots`` the valid roots (None when
    the client advertises none); ``directories`` the list in force once the roots
    exchange has settled. ``exit_message`` is set when the server would not serve.
    """

    directories: tuple[str, ...]
    from_argv: tuple[str, ...]
    from_roots: tuple[str, ...] | None
    warnings: tuple[str, ...] = ()
    exit_message: str | None = None
    #: argv entry -> the allowed spellings it produced (before the directory filter).
    argv_spellings: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def roots_replace_argv(self) -> bool:
        """Whether valid roots replaced the argv list (silently, as the server does)."""
        return bool(self.from_roots)

    @property
    def serves(self) -> bool:
        return self.exit_message is None


@dataclass(frozen=True)
class ValidatePathVerdict:
    """``validatePath``'s answer for one path: allowed or the error it throws.

    ``message`` is the tool's error text exactly ("" when allowed); ``resolved`` the
    path the tool acts on (None when refused). ``reason`` is a short code:
    ``inside``, ``outside``, ``symlink-outside``, ``windows-path``, ``parent-missing``,
    ``ambiguous-unicode``, ``system-error`` or ``no-allowed-dirs``. ``by_trim`` is True
    when only the trimmed spelling was inside an allowed directory (2026.8.31's escape).
    """

    path: str
    allowed: bool
    message: str
    resolved: str | None
    reason: str
    by_trim: bool = False
    steps: tuple[tuple[str, str, str], ...] = field(default=(), compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "allowed": self.allowed, "message": self.message,
                "resolved": self.resolved, "reason": self.reason}


class _Refused(LocalfsError):
    """validatePath's refusal on its way out of the check (becomes a ValidatePathVerdict)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def _nfc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def _match_key_2(text: str) -> str:
    """2.0.1's name key: NFC, every Unicode space separator read as a space."""
    return _ZS.sub(" ", _nfc(text))


def expand_home(path: str, home: str) -> str:
    """``expandHome``: ``~`` or a leading ``~/`` becomes the home directory."""
    if path == "~" or path.startswith("~/"):
        return join(home, path[1:])
    return path


def file_url_to_path(uri: str) -> str:
    """node's ``fileURLToPath`` for a POSIX host: only an empty or ``localhost`` host,
    no encoded slash, percent-decoded. Raises ValueError where node throws."""
    parts = urlsplit(uri)
    host = parts.hostname or ""
    if host not in ("", "localhost"):
        raise ValueError(f"File URL host must be \"localhost\" or empty on {host}")
    path = parts.path or "/"
    if "%2f" in path.lower():
        raise ValueError("File URL path must not include encoded / characters")
    if _BAD_PERCENT.search(path):
        raise ValueError("URI malformed")
    try:
        return unquote(path, errors="strict")
    except UnicodeDecodeError:
        raise ValueError("URI malformed") from None


def _norm_for(version: str) -> Any:
    return normalize_path_format if version == V_2 else normalize_path


def resolve_allowed_directories(config: FilesystemConfig, fs: FileSystem
                                ) -> AllowedDirectories:
    """The allow-list the server builds at startup, then after the roots exchange.

    From argv: each entry ``~``-expanded, resolved against the working directory,
    normalised (trimmed too: the server's ``normalizePath``), and its realpath added when
    spelled differently; entries that are not directories are dropped with the server's
    warning, and if nothing is left of a non-empty list the server exits. From roots
    (when the client advertises them): each URI's realpath, if it is a directory; a
    non-empty result replaces the whole list, argv included.
    """
    home = config.home if config.home is not None else fs.home()
    cwd = config.cwd if config.cwd is not None else fs.default_cwd()
    spellings: list[tuple[str, tuple[str, ...]]] = []
    flat: list[str] = []
    # mirrors server-filesystem 2026.8.31 index.js (startup): each argv directory kept as spelled
    # and as its realpath when the two differ, so /tmp and /private/tmp both match on macOS
    for entry in config.directories:
        absolute = resolve(expand_home(entry, home), cwd=cwd)
        original = normalize_path(absolute)
        try:
            real = normalize_path(node_realpath(fs, absolute))
            found = (original, real) if real != original else (real,)
        except NodeFsError:
            found = (original,)
        spellings.append((entry, found))
        flat.extend(found)
    # mirrors server-filesystem 2026.8.31 index.js (startup): what isn't a directory now is dropped
    # with a warning, and the server exits only when nothing is left of a non-empty list
    warnings: list[str] = []
    accessible: list[str] = []
    for d in flat:
        try:
            is_dir = node_stat(fs, d)
        except NodeFsError:
            warnings.append(f"Warning: Cannot access directory {d}, skipping")
            continue
        if is_dir:
            accessible.append(d)
        else:
            warnings.append(f"Warning: {d} is not a directory, skipping")
    if flat and not accessible:
        return AllowedDirectories((), (), None, tuple(warnings), NONE_ACCESSIBLE,
                                  tuple(spellings))
    directories = tuple(accessible)
    from_roots: tuple[str, ...] | None = None
    exit_message = None
    if config.roots is not None:
        valid: list[str] = []
        # mirrors server-filesystem 2026.8.31 roots-utils.js getValidRootDirectories: each root's
        # realpath, kept only if it is a directory; the others are skipped with a line on stderr
        for uri in config.roots:
            try:
                raw = file_url_to_path(uri) if uri.startswith("file://") else uri
                absolute = resolve(expand_home(raw, home), cwd=cwd)
                candidate = normalize_path(node_realpath(fs, absolute))
            except (ValueError, NodeFsError):
                warnings.append(f"Skipping invalid path or inaccessible: {uri}")
                continue
            try:
                is_dir = node_stat(fs, candidate)
            except NodeFsError as exc:
                warnings.append(f"Skipping invalid directory: {candidate} due to error: {exc}")
                continue
            if is_dir:
                valid.append(candidate)
            else:
                warnings.append(f"Skipping non-directory root: {candidate}")
        from_roots = tuple(valid)
        # mirrors server-filesystem 2026.8.31 index.js updateAllowedDirectoriesFromRoots: valid
        # roots replace the whole list, argv included; none valid keeps the list as it was
        if valid:
            directories = from_roots
    elif not directories:
        # mirrors server-filesystem 2026.8.31 index.js oninitialized: with no roots capability and
        # no argv directory there is nothing to allow, so the server refuses to operate
        exit_message = CANNOT_OPERATE_2 if config.version == V_2 else CANNOT_OPERATE
    return AllowedDirectories(directories, tuple(accessible), from_roots, tuple(warnings),
                              exit_message, tuple(spellings))


class FilesystemPolicy:
    """The allow-list in force and ``validatePath`` over it, for one release.

    ``validate(path)`` answers as the server's ``validatePath`` would on ``fs``, now:
    every existence and symlink question is asked of ``fs`` at call time.
    """

    def __init__(self, config: FilesystemConfig, fs: FileSystem,
                 allowed: AllowedDirectories | None = None) -> None:
        self.config = config
        self.fs = fs
        self.version = config.version
        self.home = config.home if config.home is not None else fs.home()
        self.cwd = config.cwd if config.cwd is not None else fs.default_cwd()
        self.allowed = allowed or resolve_allowed_directories(config, fs)
        self.directories = self.allowed.directories
        self._norm = _norm_for(self.version)
        self._joined = ", ".join(self.directories)
        # Each allowed directory as the containment check compares it: resolved, and
        # with the separator that a path inside must continue with.
        self._bounds = tuple(
            (d, d + "/", d == "/")
            for d in (resolve(x) for x in self.directories if x and "\0" not in x)
        )
        # Longest first (JavaScript lengths, a stable sort): the directory a missing
        # path's walk starts from.
        self._by_length = sorted(self.directories, key=lambda d: -utf16_length(d))

    #: node's ``path.join`` on this host (the tools join a directory and an entry's name).
    join = staticmethod(join)

    # -- the containment check (isPathWithinAllowedDirectories)

    def _within(self, path: str, bounds: Sequence[tuple[str, str, bool]] | None = None
                ) -> bool:
        # mirrors server-filesystem 2026.8.31 path-validation.js isPathWithinAllowedDirectories:
        # equal, or continuing with a separator ("/" holds everything), so /data-evil is outside
        # /data
        if not path or "\0" in path:
            return False
        p = resolve(path)
        for d, d_sep, is_root in self._bounds if bounds is None else bounds:
            if p == d or is_root or p.startswith(d_sep):
                return True
        return False

    def _inside_plain(self, path: str) -> bool:
        """The containment check for a path already in ``resolve``'s form."""
        for d, d_sep, is_root in self._bounds:
            if path == d or is_root or path.startswith(d_sep):
                return True
        return False

    def _within_one(self, path: str, directory: str) -> bool:
        if not directory or "\0" in directory:
            return False
        d = resolve(directory)
        return self._within(path, ((d, d + "/", d == "/"),))

    # -- validatePath

    def validate(self, requested: str) -> ValidatePathVerdict:
        """``validatePath(requested)``: the verdict, its exact message, the path acted on."""
        # The common case first: a plainly spelled absolute path (nothing for the text
        # rules to change, nothing to trim) inside an allowed directory, which the
        # filesystem confirms is its own realpath. Every step of the full check would
        # return it unchanged, so its answer is the same.
        if (
            requested[:1] == "/"
            and requested[-1] not in _TRIMMABLE_END
            and "//" not in requested
            and "/." not in requested
            and "\0" not in requested
            and self._inside_plain(requested)
            and self.fs.is_own_realpath(requested)
        ):
            return ValidatePathVerdict(requested, True, "", requested, "inside")
        try:
            resolved, by_trim = self._validate(requested)
        except _Refused as exc:
            return ValidatePathVerdict(requested, False, exc.message, None, exc.reason)
        return ValidatePathVerdict(requested, True, "", resolved, "inside", by_trim)

    def _outside(self, absolute: str) -> _Refused:
        if self.version == V_2 and not self.directories:
            return _Refused("no-allowed-dirs", "Access denied - no allowed directories: the "
                            f"client exposes no valid roots ({absolute})")
        return _Refused("outside", "Access denied - path outside allowed directories: "
                        f"{absolute} not in {self._joined}")

    def _symlink_outside(self, real: str) -> _Refused:
        return _Refused("symlink-outside", "Access denied - symlink target outside allowed "
                        f"directories: {real} not in {self._joined}")

    def _resolve_relative(self, rel: str) -> str:
        # mirrors server-filesystem 2026.8.31 lib.js resolveRelativePathAgainstAllowedDirectories:
        # the first allowed directory that keeps the path inside, else the first one; the working
        # directory only when there is none
        if not self.directories:
            return resolve(rel, cwd=self.cwd)
        for d in self.directories:
            candidate = resolve(d, rel)
            if self._within(self._norm(candidate)):
                return candidate
        return resolve(self.directories[0], rel)

    def _validate(self, requested: str) -> tuple[str, bool]:
        expanded = expand_home(requested, self.home)
        # mirrors server-filesystem 2026.8.31 lib.js validatePath: a drive path on a POSIX host is
        # refused, not created as a literal "C:\\..." name inside a root (2026.7.10 had no such
        # check)
        if self.version != V_OLD and _DRIVE.match(expanded):
            raise _Refused("windows-path", "Access denied - Windows-style path received on "
                           f"a POSIX host: {requested}")
        if expanded.startswith("/"):
            absolute = resolve(expanded)
        else:
            absolute = self._resolve_relative(expanded)
        if self.version == V_2 and not self._within(absolute):
            absolute = self._respell(absolute)
        normalized = self._norm(absolute)
        # mirrors server-filesystem 2026.8.31 lib.js validatePath: a "// Security" check,
        # containment before any file operation, on normalizePath's trimmed spelling, while the
        # untrimmed one is used
        if not self._within(normalized):
            raise self._outside(absolute)
        by_trim = normalized != absolute and not self._within(absolute)
        try:
            real = node_realpath(self.fs, absolute)
        except NodeFsError as exc:
            if exc.code != "ENOENT":
                raise _Refused("system-error", str(exc)) from None
            return self._missing(absolute), by_trim
        # mirrors server-filesystem 2026.8.31 lib.js validatePath: a "// Security" check, the
        # realpath must be inside too, so a symlink inside can't lead out; only ENOENT (above) falls
        # through to the walk
        if not self._within(self._norm(real)):
            raise self._symlink_outside(real)
        return real, by_trim

    def _missing(self, absolute: str) -> str:
        """A path whose realpath is ENOENT: 2026.7.10 checks its parent; later releases
        walk down from the allowed directory, name by name."""
        parent = dirname(absolute)
        # mirrors server-filesystem 2026.7.10 lib.js validatePath: a missing path is judged by its
        # parent's realpath, and one error text for a parent missing or outside
        if self.version == V_OLD:
            try:
                real_parent = node_realpath(self.fs, parent)
            except NodeFsError:
                real_parent = None
            if real_parent is not None and self._within(normalize_path(real_parent)):
                return absolute
            # A parent outside throws inside the same try, so it reads the same.
            raise _Refused("parent-missing", f"Parent directory does not exist: {parent}")
        try:
            return self._walk(absolute)
        except NodeFsError as exc:
            if exc.code == "ENOENT":
                raise _Refused("parent-missing",
                               f"Parent directory does not exist: {parent}") from None
            raise _Refused("system-error", str(exc)) from None

    def _walk(self, absolute: str) -> str:
        """``resolveUnicodeEquivalentPath``: from the realpath of the longest allowed
        directory holding the (normalised) path, each name is looked up in its parent's
        listing (exactly, else by an equivalent spelling), resolved and re-checked; the
        first name that isn't there starts the missing tail, appended as given."""
        key = self._norm(absolute)
        start = next((d for d in self._by_length if self._within_one(key, d)), None)
        if start is None:  # pragma: no cover - the containment check above found one
            return absolute
        current = node_realpath(self.fs, start)
        parts = [p for p in relative(start, absolute).split("/") if p]
        v2 = self.version == V_2
        for index, part in enumerate(parts):
            entries = node_readdir(self.fs, current)
            if part in entries:
                matches = [part]
            else:
                if v2:
                    want = _match_key_2(part)
                    matches = [e for e in entries if _match_key_2(e) == want]
                else:
                    want = _nfc(part)
                    matches = [e for e in entries if _nfc(e) == want]
            # mirrors server-filesystem 2026.8.31 lib.js resolveUnicodeEquivalentPath: two names
            # equal under NFC can't be told apart, so the path is refused rather than one picked
            if len(matches) > 1:
                raise _Refused("ambiguous-unicode", f"Ambiguous Unicode path component: {part}")
            if not matches:
                if not v2 or not node_lstat_exists(self.fs, join(current, part)):
                    return join(current, *parts[index:])
                name = part
            else:
                name = matches[0]
            current = node_realpath(self.fs, join(current, name))
            # mirrors server-filesystem 2026.8.31 lib.js resolveUnicodeEquivalentPath: each existing
            # name is resolved and re-checked, so a symlink on the way to a new file can't lead out
            if not self._within(self._norm(current)):
                raise self._symlink_outside(current)
        return current

    def _respell(self, absolute: str) -> str:
        """2.0.1: a path spelling an allowed directory in another normal form (or with
        another kind of space) is re-spelled onto the directory's own spelling."""
        wanted = [p for p in absolute.split("/") if p]
        for directory in sorted((resolve(d) for d in self.directories),
                                key=lambda d: -utf16_length(d)):
            dparts = [p for p in directory.split("/") if p]
            pairs = zip(dparts, wanted, strict=False)
            if len(dparts) <= len(wanted) and all(
                    _match_key_2(a) == _match_key_2(b) for a, b in pairs):
                return join(directory, *wanted[len(dparts):])
        return absolute

    # -- what the server says about itself

    def list_allowed_directories(self) -> str:
        """The text of the ``list_allowed_directories`` tool."""
        return "Allowed directories:\n" + "\n".join(self.directories)

    # -- the batch check

    def many_checks(self) -> FilesystemBatch:
        """A batch of checks against one look at the filesystem (see :class:`FilesystemBatch`)."""
        return FilesystemBatch(self)


_TRIMMABLE_END = frozenset(JS_WHITESPACE | {"'", '"'})


class FilesystemBatch:
    """``validatePath`` for many paths at once, with the same answers as one by one.

    Each parent directory is resolved and listed once (its realpath, its entry names,
    which of them are symlinks); a path whose last name is a plain entry of its parent
    then resolves to the parent's realpath plus that name without another system call.
    Anything else (a symlink, a missing name, an unusual spelling) is answered by the
    single check. The listings are a snapshot: use a batch for one pass over a tree,
    as a walk does, and a new one after the tree changes. Usable as a context manager.
    """

    def __init__(self, policy: FilesystemPolicy) -> None:
        self.policy = policy
        self._parents: dict[str, tuple[str, frozenset[str], frozenset[str], bool] | None] = {}

    def __enter__(self) -> FilesystemBatch:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def _parent(self, parent: str) -> tuple[str, frozenset[str], frozenset[str], bool] | None:
        try:
            return self._parents[parent]
        except KeyError:
            pass
        policy = self.policy
        state: tuple[str, frozenset[str], frozenset[str], bool] | None
        try:
            real = node_realpath(policy.fs, parent)
            names, links = policy.fs.list_with_links(real)
        except (NodeFsError, OSError, ValueError):
            state = None
        else:
            state = (real if real != "/" else "", frozenset(names), frozenset(links),
                     policy._within(policy._norm(real)))
        self._parents[parent] = state
        return state

    def validate(self, requested: str) -> ValidatePathVerdict:
        """The same verdict as :meth:`FilesystemPolicy.validate`, faster in bulk."""
        # Only a plainly spelled absolute path inside, with nothing to trim, takes the
        # short way; every other one is the single check's.
        if (
            not requested.startswith("/")
            or "//" in requested
            or "/." in requested
            or requested[-1] in _TRIMMABLE_END
            or requested[-1] == "/"
            or "\0" in requested
        ):
            return self.policy.validate(requested)
        policy = self.policy
        if not policy._within(requested):
            return policy.validate(requested)
        cut = requested.rfind("/")
        state = self._parent(requested[:cut] or "/")
        name = requested[cut + 1:]
        if state is None or name not in state[1] or name in state[2] or not state[3]:
            return policy.validate(requested)
        return ValidatePathVerdict(requested, True, "", f"{state[0]}/{name}", "inside")

    def check(self, path: str, op: str = "read") -> ValidatePathVerdict:
        return self.validate(path)
