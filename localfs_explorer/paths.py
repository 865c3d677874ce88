"""Path comparisons the policy and the check share: containment and case folding; and the
one rule for showing a NUL byte in a path.

Pure string functions on already-resolved paths; nothing here touches a filesystem.
Kept apart from any server's policy module so that a server's check can use them
without importing the policy it is called from.
"""

from __future__ import annotations

import ntpath
import posixpath
from collections.abc import Iterable
from pathlib import PurePosixPath, PureWindowsPath

__all__ = ["containment_prefixes", "fold", "folded_within", "is_within", "normcase", "show_nul"]


def show_nul(text: str) -> str:
    """``text`` with each NUL byte shown as ``\\0``.

    A NUL can't be in a real path (the server refuses it as invalid), but a call can carry
    one; every table, report and page shows it the same visible way, never as a raw NUL
    that a terminal drops or a CSV reader chokes on.
    """
    return text.replace("\0", "\\0") if "\0" in text else text


def is_within(path: str, directory: str) -> bool:
    """``PurePosixPath(path).is_relative_to(directory)``, the server's containment test.

    Component-wise, so ``/data-evil`` is not within ``/data`` (a plain prefix test would
    say it is). Spellings ``PurePosixPath`` parses specially (``//`` at the start is a
    root of its own, empty and ``.`` components vanish, ``..`` stays) go through
    ``PurePosixPath`` itself; the common, already normalised case is a string test.
    """
    if _irregular(path) or _irregular(directory):
        return PurePosixPath(path).is_relative_to(directory)
    if path == directory or directory == "/":
        return path.startswith("/") or directory != "/"
    return path.startswith(directory + "/")


def folded_within(path: str, directory: str, platform: str = "posix") -> bool:
    """Containment of two :func:`fold`-ed paths on the target platform.

    On windows ``normcase`` turns every ``/`` into ``\\``, and the server's
    ``Path.is_relative_to`` (a ``WindowsPath`` there) splits at it; a POSIX test would
    find nothing inside a folded windows directory.
    """
    if platform == "windows":
        return PureWindowsPath(path).is_relative_to(directory)
    return is_within(path, directory)


def _irregular(path: str) -> bool:
    """Whether ``PurePosixPath`` reads ``path`` other than as its plain components."""
    return (
        not path.startswith("/")
        or "//" in path
        or "/./" in path
        or (path.endswith(("/", "/.")) and path != "/")
    )


def normcase(path: str, platform: str = "posix") -> str:
    """``os.path.normcase`` of the target platform (the path itself on POSIX)."""
    return ntpath.normcase(path) if platform == "windows" else path


def fold(path: str, platform: str = "posix") -> str:
    """The comparison key for a missing target: ``normcase`` then ``casefold``."""
    normcase = ntpath.normcase if platform == "windows" else posixpath.normcase
    return normcase(path).casefold()


def containment_prefixes(directories: Iterable[str]) -> tuple[str, ...]:
    """Prefixes for a component-wise containment test with ``str.startswith``.

    Each directory gets a trailing separator, so ``/data-evil`` doesn't start with
    ``/data/``; the directory itself is matched separately by equality.
    """
    return tuple(d if d.endswith("/") else d + "/" for d in directories)
