"""The filesystem server's allowed directories and ``validatePath`` on a Windows host.

The same steps as on POSIX (:mod:`.policy`), with node's ``path.win32`` and the server's
Windows ``normalizePath`` (:mod:`.winpath`), asked of a described Windows host
(:class:`~localfs_explorer.fs.windows.WindowsHost`). What changes an answer:

- a drive or UNC path is absolute, and ``C:/x``, ``c:\\x`` and ``/c/x`` are one path once
  normalised; a drive path is never refused as it is on POSIX;
- the containment check compares case-sensitively past the drive letter, although
  Windows opens ``C:\\users\\ME`` as ``C:\\Users\\me``: a path spelled in another case is
  refused even though the file is inside (safe, but a refusal an operator may not expect);
- ``realpath`` answers the stored spelling, so an allowed directory given in another case
  is kept twice (as given and as stored), and a symlink or junction leading out is caught;
- ``\\`` (a drive's root without its letter) holds every path that starts with a
  separator, a drive root holds its own drive, and a UNC share root holds only itself.

Only 2026.8.31 (npm's latest) is modelled on Windows.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote, urlsplit

from ...fs.base import FileSystem
from .nodefs import NodeFsError, node_readdir, node_stat
from .policy import (
    CANNOT_OPERATE,
    NONE_ACCESSIBLE,
    V_LATEST,
    AllowedDirectories,
    FilesystemConfig,
    FilesystemPolicy,
    ValidatePathVerdict,
    _Refused,
)
from .winpath import dirname, is_absolute, join, normalize_path, relative, resolve, within_allowed

__all__ = ["WindowsFilesystemPolicy", "resolve_allowed_directories_windows"]

_ENCODED_SEP = re.compile(r"%2f|%5c", re.IGNORECASE)
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def windows_realpath(fs: FileSystem, path: str) -> str:
    """``fs.promises.realpath`` on a Windows host: :meth:`WindowsHost.final_path`, its
    failure as node's error."""
    import errno

    final = getattr(fs, "final_path", None)
    if final is None:
        raise NodeFsError(errno.ENOENT, "realpath", path)
    try:
        return str(final(path))
    except OSError as exc:
        raise NodeFsError(exc.errno or errno.ENOENT, "realpath", path) from None
    except ValueError:
        raise NodeFsError(errno.ENOENT, "realpath", path) from None


def expand_home(path: str, home: str) -> str:
    """``expandHome`` with ``path.win32.join``: only ``~`` and ``~/`` (not ``~\\``)."""
    if path == "~" or path.startswith("~/"):
        return join(home, path[1:])
    return path


def file_url_to_path(uri: str) -> str:
    """node's ``fileURLToPath`` on Windows: a host makes a UNC path, otherwise the path
    must start with a drive letter; an encoded separator is refused."""
    parts = urlsplit(uri)
    host = parts.hostname or ""
    if host == "localhost":
        host = ""
    path = parts.path
    if _ENCODED_SEP.search(path):
        raise ValueError("File URL path must not include encoded \\ or / characters")
    if _BAD_PERCENT.search(path):
        raise ValueError("URI malformed")
    try:
        path = unquote(path.replace("/", "\\"), errors="strict")
    except UnicodeDecodeError:
        raise ValueError("URI malformed") from None
    if host:
        return f"\\\\{host}{path}"
    if len(path) < 3 or not path[1].isascii() or not path[1].isalpha() or path[2] != ":":
        raise ValueError("File URL path must be absolute")
    return path[1:]


def resolve_allowed_directories_windows(config: FilesystemConfig, fs: FileSystem
                                        ) -> AllowedDirectories:
    """The allow-list the server builds at startup on Windows, then after the roots
    exchange (the steps of :func:`~.policy.resolve_allowed_directories`)."""
    home = config.home if config.home is not None else fs.home()
    cwd = config.cwd if config.cwd is not None else fs.default_cwd()
    spellings: list[tuple[str, tuple[str, ...]]] = []
    flat: list[str] = []
    # mirrors server-filesystem 2026.8.31 index.js (startup): on Windows realpath answers the
    # stored case, so a directory given in another case is kept in both spellings
    for entry in config.directories:
        absolute = resolve(expand_home(entry, home), cwd=cwd)
        original = normalize_path(absolute)
        try:
            real = normalize_path(windows_realpath(fs, absolute))
            found = (original, real) if real != original else (real,)
        except NodeFsError:
            found = (original,)
        spellings.append((entry, found))
        flat.extend(found)
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
        for uri in config.roots:
            try:
                raw = file_url_to_path(uri) if uri.startswith("file://") else uri
                absolute = resolve(expand_home(raw, home), cwd=cwd)
                candidate = normalize_path(windows_realpath(fs, absolute))
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
        if valid:
            directories = from_roots
    elif not directories:
        exit_message = CANNOT_OPERATE
    return AllowedDirectories(directories, tuple(accessible), from_roots, tuple(warnings),
                              exit_message, tuple(spellings))


class WindowsFilesystemPolicy(FilesystemPolicy):
    """:class:`~.policy.FilesystemPolicy` on a Windows host (see the module docstring)."""

    platform = "windows"
    join = staticmethod(join)

    def __init__(self, config: FilesystemConfig, fs: FileSystem,
                 allowed: AllowedDirectories | None = None) -> None:
        if config.version != V_LATEST:
            raise ValueError(f"server-filesystem {config.version} isn't modelled on Windows "
                             f"(only {V_LATEST} is)")
        super().__init__(config, fs, allowed or resolve_allowed_directories_windows(config, fs))
        # Longest first by JavaScript length, as resolveUnicodeEquivalentPath sorts.
        self._by_length = sorted(self.directories, key=len, reverse=True)

    def _within(self, path: str, bounds: Any = None) -> bool:
        return within_allowed(path, self.directories, cwd=self.cwd)

    def _within_one(self, path: str, directory: str) -> bool:
        return within_allowed(path, (directory,), cwd=self.cwd)

    def validate(self, requested: str) -> ValidatePathVerdict:
        try:
            resolved, by_trim = self._validate(requested)
        except _Refused as exc:
            return ValidatePathVerdict(requested, False, exc.message, None, exc.reason)
        return ValidatePathVerdict(requested, True, "", resolved, "inside", by_trim)

    def _resolve_relative(self, rel: str) -> str:
        if not self.directories:
            return resolve(self.cwd, rel, cwd=self.cwd)
        for d in self.directories:
            candidate = resolve(d, rel, cwd=self.cwd)
            if self._within(normalize_path(candidate)):
                return candidate
        return resolve(self.directories[0], rel, cwd=self.cwd)

    def _validate(self, requested: str) -> tuple[str, bool]:
        # mirrors server-filesystem 2026.8.31 lib.js validatePath: on win32 there is no drive-path
        # refusal, so C:\\x and /c/x are checked as the paths they name
        expanded = expand_home(requested, self.home)
        if is_absolute(expanded):
            absolute = resolve(expanded, cwd=self.cwd)
        else:
            absolute = self._resolve_relative(expanded)
        normalized = normalize_path(absolute)
        if not self._within(normalized):
            raise self._outside(absolute)
        by_trim = not self._within(normalize_path(absolute, trim=False))
        try:
            real = windows_realpath(self.fs, absolute)
        except NodeFsError as exc:
            if exc.code != "ENOENT":
                raise _Refused("system-error", str(exc)) from None
            return self._missing(absolute), by_trim
        if not self._within(normalize_path(real)):
            raise self._symlink_outside(real)
        return real, by_trim

    def _missing(self, absolute: str) -> str:
        parent = dirname(absolute)
        try:
            return self._walk(absolute)
        except NodeFsError as exc:
            if exc.code == "ENOENT":
                raise _Refused("parent-missing",
                               f"Parent directory does not exist: {parent}") from None
            raise _Refused("system-error", str(exc)) from None

    def _walk(self, absolute: str) -> str:
        # mirrors server-filesystem 2026.8.31 lib.js resolveUnicodeEquivalentPath: on win32
        # path.relative ignores case but the lookup in each listing does not, so a name given
        # in another case (a symlink's too) starts the missing tail unresolved
        key = normalize_path(absolute)
        start = next((d for d in self._by_length if self._within_one(key, d)), None)
        if start is None:  # pragma: no cover - the containment check above found one
            return absolute
        current = windows_realpath(self.fs, start)
        parts = [p for p in relative(start, absolute, cwd=self.cwd).split("\\") if p]
        for index, part in enumerate(parts):
            entries = node_readdir(self.fs, current)
            if part in entries:
                matches = [part]
            else:
                want = _nfc(part)
                matches = [e for e in entries if _nfc(e) == want]
            if len(matches) > 1:
                raise _Refused("ambiguous-unicode", f"Ambiguous Unicode path component: {part}")
            if not matches:
                return join(current, *parts[index:])
            current = windows_realpath(self.fs, join(current, matches[0]))
            if not self._within(normalize_path(current)):
                raise self._symlink_outside(current)
        return current

    def many_checks(self) -> Any:
        """One check after another (the POSIX batch's shortcuts read ``/`` paths)."""
        return _OneByOne(self)


class _OneByOne:
    def __init__(self, policy: WindowsFilesystemPolicy) -> None:
        self.policy = policy

    def __enter__(self) -> _OneByOne:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def validate(self, requested: str) -> ValidatePathVerdict:
        return self.policy.validate(requested)

    def check(self, path: str, op: str = "read") -> ValidatePathVerdict:
        return self.policy.validate(path)


def _nfc(text: str) -> str:
    import unicodedata

    return text if text.isascii() else unicodedata.normalize("NFC", text)
