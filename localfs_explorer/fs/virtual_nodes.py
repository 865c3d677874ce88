"""The records a :class:`~localfs_explorer.fs.virtual.VirtualFS` is built of, and the
checks ``os`` makes on a path's text before any system call, told apart from the tree
that uses them so each stays readable on its own."""

from __future__ import annotations

import os
import posixpath
import stat as _stat
import unicodedata
from typing import NamedTuple

#: Longest file name, in bytes, that Linux filesystems accept.
NAME_MAX = 255
#: Linux's PATH_MAX counts the terminating NUL: a path of this many bytes is too long.
PATH_MAX = 4096
#: Symlinks the kernel follows in one lookup before giving up with ELOOP.
MAXSYMLINKS = 40

# CPython 3.10-3.12 resolve with a recursive helper that gives up at a symlink loop and
# returns the rest of the path lexically normalised; 3.13 walks a stack and keeps going
# after the loop. Later patch releases of either family keep their family's non-strict
# behaviour, so the presence of the helper is the reliable switch.
_LEGACY_REALPATH = hasattr(posixpath, "_joinrealpath")

_DIR, _FILE, _LINK = "dir", "file", "symlink"
_MODES = {_DIR: _stat.S_IFDIR | 0o755, _FILE: _stat.S_IFREG | 0o644, _LINK: _stat.S_IFLNK | 0o777}


def _nul_message(call: str) -> str:
    """What ``os.<call>`` says about a NUL byte ("embedded null byte" until 3.12, then
    "<call>: embedded null character in path"). The argument check fails before any
    system call, so asking costs nothing."""
    try:
        getattr(os, call)("\0")
    except ValueError as exc:
        return str(exc)
    return "embedded null byte"  # pragma: no cover - every os call refuses NUL


_NUL_MESSAGES = {call: _nul_message(call) for call in ("lstat", "stat", "listdir", "readlink")}

# Memoised realpath results are dropped wholesale past this many, to bound memory.
_REALPATH_CACHE_LIMIT = 200_000


class VirtualStat(NamedTuple):
    """The stat fields a VirtualFS can answer (a look-alike of ``os.stat_result``)."""

    st_mode: int
    st_ino: int
    st_dev: int
    st_nlink: int
    st_size: int


class _Node:
    """One inode: a directory, a file or a symlink."""

    __slots__ = (
        "children",
        "device",
        "device_explicit",
        "ino",
        "inode_key",
        "kind",
        "nlink",
        "st",
        "target",
    )

    def __init__(self, kind: str, ino: int, device: str, *, target: str | None = None) -> None:
        self.kind = kind
        self.ino = ino
        self.device = device
        self.device_explicit = False
        self.target = target
        self.inode_key: str | None = None
        self.nlink = 1
        # folded name -> (name as stored, node)
        self.children: dict[str, tuple[str, _Node]] | None = {} if kind == _DIR else None
        self.st: VirtualStat | None = None


def _oserror(code: int, path: str) -> OSError:
    # OSError(errno, ...) instantiates the matching subclass (FileNotFoundError, ...).
    return OSError(code, os.strerror(code), path)


def _check_path_text(path: str, call: str) -> None:
    """Raise what ``os.<call>`` raises for a path string it can't pass to the kernel."""
    if not path.isascii():
        os.fsencode(path)  # lone surrogates: UnicodeEncodeError, a ValueError, as os does
    if "\0" in path:
        raise ValueError(_NUL_MESSAGES[call])


def _byte_len(text: str) -> int:
    return len(text) if text.isascii() else len(os.fsencode(text))


def _too_long(path: str) -> bool:
    # A str of fewer than PATH_MAX/4 characters can't reach PATH_MAX bytes in UTF-8.
    return len(path) >= PATH_MAX // 4 and _byte_len(path) >= PATH_MAX


def _fold_caseless(text: str) -> str:
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", text).casefold())


def _fold_exact(text: str) -> str:
    return text
