"""A session's own effects on the host, as later calls of the same session see them.

A recorded session changes the machine as it goes: a file written by one call is there
for the next; a file moved away is gone. The prediction of each call must see the host
as the session had left it by then, not as it is when the log is read, so the host is
asked through :class:`SessionFS`: this machine's filesystem with the paths the session
has created or removed laid over it. The overlay is filled from the calls the recording
says succeeded (:func:`apply_call`); until a session changes something, every question
goes straight to the host.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat as _stat
from collections.abc import Iterable
from typing import Any

from ..fs.host import HostFS

__all__ = ["SessionFS", "apply_call"]

#: Argument names that say a call takes its first path away (a move or a rename).
_MOVED_FROM = ("source", "src", "from", "old_path", "oldPath", "from_path")
#: Tool name words that say the path written is a directory.
_DIRECTORY_WORDS = ("director", "folder", "mkdir")


class _Made:
    """The stat of a path the session created (a regular file or a directory)."""

    __slots__ = ("st_dev", "st_ino", "st_mode", "st_size")

    def __init__(self, is_dir: bool, number: int) -> None:
        self.st_mode = (_stat.S_IFDIR | 0o755) if is_dir else (_stat.S_IFREG | 0o644)
        # No real device uses 0: the identity can't be taken for a host file's.
        self.st_dev = 0
        self.st_ino = number
        self.st_size = 0


class SessionFS(HostFS):
    """This machine, with what the session created or removed so far laid over it."""

    label = "this host, as the session left it"

    def __init__(self) -> None:
        self.made: dict[str, _Made] = {}
        self.removed: set[str] = set()
        #: Counts the changes the session made: an answer worked out before the last
        #: change may no longer hold. ``changes`` says where each was, in order.
        self.generation = 0
        self.changes: list[str] = []
        #: Directory -> the names made in it (what a listing adds).
        self._children: dict[str, set[str]] = {}

    @property
    def changed(self) -> bool:
        return bool(self.made or self.removed)

    # -- what the session did

    def create(self, path: str, *, is_dir: bool = False) -> None:
        p = posixpath.normpath(path)
        if p in self.removed:
            self.removed.discard(p)
            self._note(p)
        made = self.made.get(p)
        if made is None and not os.path.lexists(p):
            self.made[p] = _Made(is_dir, len(self.made) + 1)
            self._children.setdefault(posixpath.dirname(p), set()).add(posixpath.basename(p))
            self._note(p)
        elif made is not None and is_dir and not _stat.S_ISDIR(made.st_mode):
            self.made[p] = _Made(True, made.st_ino)
            self._note(p)
        parent = posixpath.dirname(p)
        # A path created inside another made one makes that one a directory.
        if parent in self.made and not _stat.S_ISDIR(self.made[parent].st_mode):
            self.made[parent] = _Made(True, self.made[parent].st_ino)
            self._note(parent)

    def remove(self, path: str) -> None:
        p = posixpath.normpath(path)
        if p in self.removed and p not in self.made:
            return
        if self.made.pop(p, None) is not None:
            self._children.get(posixpath.dirname(p), set()).discard(posixpath.basename(p))
        self.removed.add(p)
        self._note(p)

    def _note(self, path: str) -> None:
        self.generation += 1
        self.changes.append(path)

    def _gone(self, path: str) -> bool:
        if not self.removed:
            return False
        p = posixpath.normpath(path)
        while True:
            if p in self.removed:
                return True
            parent = posixpath.dirname(p)
            if parent == p:
                return False
            p = parent

    # -- the questions the policy asks (the host's answers when nothing changed)

    def lstat(self, path: Any) -> Any:  # type: ignore[override]
        return self._stat(path, os.lstat)

    def stat(self, path: Any) -> Any:  # type: ignore[override]
        return self._stat(path, os.stat)

    def _stat(self, path: Any, host: Any) -> Any:
        if not self.changed or not isinstance(path, str):
            return host(path)
        made = self.made.get(posixpath.normpath(path))
        if made is not None:
            return made
        if self._gone(path):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        return host(path)

    def readlink(self, path: Any) -> str:  # type: ignore[override]
        if not self.changed or not isinstance(path, str):
            return os.readlink(path)
        if posixpath.normpath(path) in self.made:
            raise OSError(errno.EINVAL, "Invalid argument (not a symlink)", path)
        if self._gone(path):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        return os.readlink(path)

    def listdir(self, path: Any) -> list[str]:  # type: ignore[override]
        if not self.changed or not isinstance(path, str):
            return os.listdir(path)
        p = posixpath.normpath(path)
        if p in self.made:
            names: list[str] = []
        elif self._gone(p):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        else:
            names = os.listdir(path)
        if self.removed:
            names = [n for n in names if posixpath.join(p, n) not in self.removed]
        added = self._children.get(p)
        if added:
            present = set(names)
            names += [n for n in added if n not in present]
        return names

    def resolve(self, path: str) -> tuple[str, Any]:
        if not self.changed:
            return super().resolve(path)
        return os.path.realpath(path), None

    def identities(self, paths: Iterable[str]) -> frozenset[tuple[int, int]]:
        if not self.changed:
            return super().identities(paths)
        found = set()
        for path in paths:
            ident = self.identity(path)
            if ident is not None:
                found.add(ident)
        return frozenset(found)

    def is_own_realpath(self, path: str) -> bool:
        return False if self.changed else super().is_own_realpath(path)

    def list_with_links(self, path: str) -> tuple[list[str], set[str]]:
        if not self.changed:
            return super().list_with_links(path)
        names = self.listdir(path)
        prefix = path if path.endswith("/") else path + "/"
        return names, {n for n in names if self.is_symlink(prefix + n)}

    def __repr__(self) -> str:
        return f"SessionFS(made={len(self.made)}, removed={len(self.removed)})"


def apply_call(fs: SessionFS, tool: str, paths: Iterable[tuple[str, str, str | None]]
               ) -> None:
    """What a call the recording says succeeded did to the host: ``paths`` are its
    checked ``(argument, op, resolved)``. A path written exists afterwards (a directory
    when the tool's name says it makes one); the first path of a call that moves
    (``source`` beside another written path) is gone."""
    written = [(arg, res) for arg, op, res in paths if op in ("write", "read_write") and res]
    if not written:
        return
    is_dir = any(word in tool for word in _DIRECTORY_WORDS) and len(written) == 1
    moves = len(written) > 1 and written[0][0] in _MOVED_FROM
    for i, (_, resolved) in enumerate(written):
        if moves and i == 0:
            fs.remove(resolved)
        else:
            fs.create(resolved, is_dir=is_dir)

