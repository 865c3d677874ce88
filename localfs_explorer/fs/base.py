"""The filesystem questions the policy engine asks, behind one small interface.

The engine never calls ``os`` directly: every realpath, stat and directory listing goes
through a :class:`FileSystem`, so the same verdicts can be computed for this machine
(:class:`~localfs_explorer.fs.host.HostFS`) or for a described target host (an
in-memory filesystem with the same contract).

The contract mirrors the ``os`` module on purpose, because the server being modelled
uses ``os`` and the verdicts must match it exactly:

- ``realpath(path)`` behaves like non-strict ``os.path.realpath`` on an absolute path:
  it resolves the existing prefix, keeps missing components as given, never raises for
  a missing path or a symlink loop, and raises ``ValueError`` for an embedded NUL byte.
- ``lstat`` / ``stat`` return an object with ``st_mode``, ``st_dev`` and ``st_ino``
  (an ``os.stat_result`` or a look-alike) and raise ``OSError`` subclasses with the
  errno ``os`` would use (``FileNotFoundError``, ``NotADirectoryError``, ``ELOOP`` …).
- ``listdir`` returns entry names (unsorted is fine) and raises ``OSError`` likewise.
"""

from __future__ import annotations

import abc
import stat as _stat
from collections.abc import Iterable
from typing import Protocol


class StatLike(Protocol):
    """The three fields of a stat result the engine reads."""

    @property
    def st_mode(self) -> int: ...  # pragma: no cover - protocol

    @property
    def st_dev(self) -> int: ...  # pragma: no cover - protocol

    @property
    def st_ino(self) -> int: ...  # pragma: no cover - protocol


class FileSystem(abc.ABC):
    """Every filesystem question the policy engine asks about a target host."""

    #: Separator used by this filesystem's paths. Only POSIX-style paths are modelled.
    sep: str = "/"
    #: Short human-readable description, shown in traces and the dashboard.
    label: str = "filesystem"

    @abc.abstractmethod
    def realpath(self, path: str) -> str:
        """Resolve symlinks like non-strict ``os.path.realpath`` (absolute input)."""

    @abc.abstractmethod
    def lstat(self, path: str) -> StatLike:
        """Stat ``path`` without following a final symlink; raise ``OSError`` if absent."""

    @abc.abstractmethod
    def stat(self, path: str) -> StatLike:
        """Stat ``path`` following symlinks; raise ``OSError`` if absent or dangling."""

    @abc.abstractmethod
    def listdir(self, path: str) -> list[str]:
        """Names of the entries of directory ``path``; raise ``OSError`` otherwise."""

    @abc.abstractmethod
    def readlink(self, path: str) -> str:
        """The target of symlink ``path``; raise ``OSError`` if it is not one."""

    @abc.abstractmethod
    def home(self) -> str:
        """The home directory of the account the server runs as, when ``HOME`` is unset."""

    @abc.abstractmethod
    def default_cwd(self) -> str:
        """The working directory to assume when the caller names none."""

    def user_home(self, name: str) -> str | None:
        """The home directory of account ``name`` (what ``~name`` means), or None when
        this host has no such account or doesn't say."""
        return None

    # Derived questions: one implementation for every filesystem, so they can't drift.

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists, following symlinks (like ``os.path.exists``)."""
        try:
            self.stat(path)
        except (OSError, ValueError):
            return False
        return True

    def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a directory, following symlinks (like ``os.path.isdir``)."""
        try:
            return _stat.S_ISDIR(self.stat(path).st_mode)
        except (OSError, ValueError):
            return False

    def is_symlink(self, path: str) -> bool:
        """Whether ``path`` itself is a symlink (like ``os.path.islink``)."""
        try:
            return _stat.S_ISLNK(self.lstat(path).st_mode)
        except (OSError, ValueError):
            return False

    def identity(self, path: str) -> tuple[int, int] | None:
        """``(st_dev, st_ino)`` of what ``path`` names, or None when it doesn't exist."""
        try:
            st = self.stat(path)
        except (OSError, ValueError):
            return None
        return (st.st_dev, st.st_ino)

    def resolve(self, path: str) -> tuple[str, StatLike | None]:
        """``realpath(path)`` and, when it comes for free, the ``stat`` of what it names.

        The second item is None when the target wasn't statted (the caller stats it
        itself); a filesystem that can answer both at once (the host) overrides this.
        """
        return self.realpath(path), None

    def identities(self, paths: Iterable[str]) -> frozenset[tuple[int, int]]:
        """The ``(st_dev, st_ino)`` of each of ``paths`` that exists now (missing skipped)."""
        found = set()
        for path in paths:
            ident = self.identity(path)
            if ident is not None:
                found.add(ident)
        return frozenset(found)

    def is_own_realpath(self, path: str) -> bool:
        """True when ``path`` exists and is certainly its own realpath (no symlink on
        it), as cheaply as the filesystem can tell; False means "not known that way",
        and the caller resolves it. Only absolute paths are asked."""
        return False

    def list_with_links(self, path: str) -> tuple[list[str], set[str]]:
        """The entry names of directory ``path`` and the set of those that are symlinks,
        in one listing (``OSError`` like :meth:`listdir`). The host answers from the
        directory entries' types; elsewhere each entry is asked."""
        names = self.listdir(path)
        prefix = path if path.endswith("/") else path + "/"
        return names, {n for n in names if self.is_symlink(prefix + n)}

    def samefile(self, a: str, b: str) -> bool:
        """Whether two paths name one file (like ``os.path.samefile``, without raising)."""
        ia = self.identity(a)
        return ia is not None and ia == self.identity(b)
