"""A described Windows host: drive and UNC paths over an in-memory tree.

A host spec with ``"platform": "windows"`` names its entries, home, working directory,
symlink targets and bind sources as Windows paths (``C:\\Users\\me``, ``C:/Users/me`` or
``\\\\server\\share\\x``). :class:`WindowsHost` answers the filesystem questions for such a
host in those spellings, asking a :class:`~localfs_explorer.fs.virtual.VirtualFS` that
holds drive ``C:`` under ``/C:`` and share ``\\\\server\\share`` under
``/UNC/server/share``.

What it assumes of Windows (NTFS through the Win32 API, as node's ``fs`` reaches it):

- names are compared without regard to case, by upper-casing each character alone
  (``ß`` stays ``ß``; names in two Unicode normal forms are two names);
- a name's trailing dots and spaces are dropped when it is looked up (``C:\\data.`` and
  ``C:\\data `` are ``C:\\data``);
- ``realpath`` (``GetFinalPathNameByHandle``) answers the stored spelling of every name
  and resolves every symbolic link and junction; it fails for a missing path.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Mapping
from typing import Any

from .base import FileSystem, StatLike
from .virtual import HostSpecError, VirtualFS

__all__ = ["WindowsHost", "fold_ntfs", "inner_spec", "is_windows_absolute", "to_inner",
           "to_windows"]

_DRIVE = re.compile(r"^([A-Za-z]):(?:[\\/]|$)")
_SEP = re.compile(r"[\\/]+")


def is_windows_absolute(path: str) -> bool:
    """Whether ``path`` is a drive path (``C:\\x``, ``C:/x``, ``C:``) or a UNC path."""
    return bool(_DRIVE.match(path)) or (
        len(path) > 2 and path[0] in "\\/" and path[1] in "\\/" and path[2] not in "\\/")


def _win32_name(name: str) -> str:
    # Win32 drops a name's trailing dots and spaces ("." and ".." are walked before this).
    if name in (".", ".."):
        return name
    return name.rstrip(". ")


def to_inner(path: str) -> str:
    """The tree's POSIX spelling of a Windows path; ValueError for anything that isn't an
    absolute drive or UNC path (the server only asks about resolved paths)."""
    if "\0" in path:
        raise ValueError("embedded null character in path")
    text = path
    if text[:4] in ("\\\\?\\", "//?/"):
        text = text[4:]
        if text[:4].upper() in ("UNC\\", "UNC/"):
            text = "\\\\" + text[4:]
    m = _DRIVE.match(text)
    if m:
        head = f"/{m.group(1).upper()}:"
        rest = text[2:]
    elif is_windows_absolute(text):
        parts = [p for p in _SEP.split(text) if p]
        if len(parts) < 2:
            raise ValueError(f"{path!r}: a UNC path names a server and a share")
        head = f"/UNC/{parts[0]}/{parts[1]}"
        rest = "/".join(parts[2:])
    else:
        raise ValueError(f"{path!r} is not an absolute Windows path")
    names = [_win32_name(p) for p in _SEP.split(rest) if p]
    return head + "".join(f"/{n}" for n in names if n)


def to_windows(inner: str) -> str:
    """The Windows spelling of a path of the tree (the inverse of :func:`to_inner`)."""
    parts = [p for p in inner.split("/") if p]
    if not parts:
        return "\\"
    if parts[0] == "UNC" and len(parts) >= 3:
        head, rest = f"\\\\{parts[1]}\\{parts[2]}", parts[3:]
        return head + "\\" + "\\".join(rest) if rest else head + "\\"
    head, rest = parts[0], parts[1:]
    return head + "\\" + "\\".join(rest)


def fold_ntfs(text: str) -> str:
    """NTFS's name comparison: each character upper-cased alone (no full case mapping,
    no Unicode normalisation)."""
    if text.isascii():
        return text.upper()
    return "".join(u if len(u := ch.upper()) == 1 else ch for ch in text)


def _inner_target(target: str) -> str:
    # A symlink's stored text: absolute Windows targets move into the tree, relative
    # ones keep their names with "/" between them.
    if is_windows_absolute(target) or target[:4] in ("\\\\?\\", "//?/"):
        return to_inner(target)
    return "/".join(p for p in _SEP.split(target))


def inner_spec(data: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """A Windows host spec rewritten with the tree's POSIX paths (for the spec loader)."""
    def inner(value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise HostSpecError(f"{origin}: {where} must be a string")
        try:
            return to_inner(value)
        except ValueError as exc:
            raise HostSpecError(f"{origin}: {where}: {exc} (a Windows host names drive "
                                "paths such as C:\\\\Users\\\\me, or UNC paths)") from None

    out = {k: v for k, v in data.items() if k != "platform"}
    out.setdefault("case_insensitive", True)
    out["home"] = inner(data.get("home", "C:\\"), "home")
    out["cwd"] = inner(data.get("cwd", "C:\\"), "cwd")
    if isinstance(data.get("users"), Mapping):
        out["users"] = {u: inner(h, f"users.{u}") for u, h in data["users"].items()}
    entries = data.get("entries")
    if isinstance(entries, Mapping):
        moved: dict[str, Any] = {}
        for key, entry in entries.items():
            path = inner(key, f"entry {key!r}")
            if isinstance(entry, Mapping):
                entry = dict(entry)
                if isinstance(entry.get("target"), str):
                    entry["target"] = _inner_target(entry["target"])
                if isinstance(entry.get("bind"), str):
                    entry["bind"] = inner(entry["bind"], f"entry {key!r}: bind")
            if path in moved:
                raise HostSpecError(f"{origin}: entry {key!r} names a path already listed")
            moved[path] = entry
        out["entries"] = moved
    return out


def _enoent(path: str) -> OSError:
    return FileNotFoundError(errno.ENOENT, "No such file or directory", path)


class WindowsHost(FileSystem):
    """A Windows host described by a spec (see the module docstring); every path asked
    and answered is a Windows path."""

    sep = "\\"
    platform = "windows"

    def __init__(self, tree: VirtualFS) -> None:
        self.tree = tree
        self.label = tree.label
        self.description = tree.description

    def _in(self, path: str) -> str:
        try:
            return to_inner(path)
        except ValueError:
            raise _enoent(path) from None

    def _ask(self, method: Any, path: str) -> Any:
        """``method`` of the tree on ``path``'s tree spelling; an OSError names ``path``."""
        inner = self._in(path)
        try:
            return method(inner)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, path) from None

    def _true_case(self, inner: str) -> str:
        """``inner`` with every name spelled as the tree stores it."""
        out = ""
        for name in (p for p in inner.split("/") if p):
            try:
                names = self.tree.listdir(out or "/")
            except (OSError, ValueError):
                names = []
            key = fold_ntfs(name)
            out += "/" + next((n for n in names if fold_ntfs(n) == key), name)
        return out or "/"

    def final_path(self, path: str) -> str:
        """What ``realpath`` answers on Windows: the stored spelling with every link
        resolved; ``OSError`` (``ENOENT``, ``ENOTDIR``, ``ELOOP``) when it can't be opened."""
        try:
            self._ask(self.tree.stat, path)
        except NotADirectoryError:
            # a file used as a folder is ERROR_PATH_NOT_FOUND, which node reports as ENOENT
            raise _enoent(path) from None
        return to_windows(self._true_case(self.tree.realpath(self._in(path))))

    def realpath(self, path: str) -> str:
        try:
            return self.final_path(path)
        except (OSError, ValueError):
            return path

    def lstat(self, path: str) -> StatLike:
        return self._ask(self.tree.lstat, path)

    def stat(self, path: str) -> StatLike:
        return self._ask(self.tree.stat, path)

    def listdir(self, path: str) -> list[str]:
        return self._ask(self.tree.listdir, path)

    def readlink(self, path: str) -> str:
        target: str = self._ask(self.tree.readlink, path)
        return to_windows(target) if target.startswith("/") else target.replace("/", "\\")

    def home(self) -> str:
        return to_windows(self.tree.home())

    def default_cwd(self) -> str:
        return to_windows(self.tree.default_cwd())

    def user_home(self, name: str) -> str | None:
        found = self.tree.user_home(name)
        return None if found is None else to_windows(found)

    def list_with_links(self, path: str) -> tuple[list[str], set[str]]:
        names = self.listdir(path)
        prefix = self._in(path).rstrip("/") + "/"
        return names, {n for n in names if self.tree.is_symlink(prefix + n)}

    def __repr__(self) -> str:
        return f"WindowsHost({self.label!r})"
