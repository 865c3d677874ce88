"""The filesystem of the machine this Python process runs on."""

from __future__ import annotations

import os
import pwd
from collections.abc import Iterable

from .base import FileSystem

# Linux can name the object an O_PATH descriptor refers to (/proc/self/fd), which lets a
# path with no symlinks in it be confirmed as its own realpath in three system calls
# instead of one lstat per component. Elsewhere the plain realpath answers.
_O_PATH = getattr(os, "O_PATH", 0)
_FD_LINKS = "/proc/self/fd/"
_FAST_RESOLVE = bool(_O_PATH) and os.path.isdir(_FD_LINKS)
_OPEN_FLAGS = _O_PATH | getattr(os, "O_CLOEXEC", 0)
# Existence asked as the server's stat would ask it: with the effective user's rights.
_ACCESS_EFFECTIVE = os.access in os.supports_effective_ids


class HostFS(FileSystem):
    """This machine's filesystem, asked through ``os`` exactly as the server would."""

    label = "this host"

    # The os functions themselves, not wrappers: the verdicts must be those of
    # os.path.realpath and os.lstat exactly, and a walk makes one call per entry, so
    # no Python frame may sit between the engine and the system call.
    # typeshed's realpath is generic over str and bytes; the engine passes str only.
    realpath = staticmethod(os.path.realpath)  # type: ignore[assignment]
    lstat = staticmethod(os.lstat)
    stat = staticmethod(os.stat)
    listdir = staticmethod(os.listdir)
    readlink = staticmethod(os.readlink)

    def resolve(self, path: str) -> tuple[str, os.stat_result | None]:
        """``os.path.realpath(path)``, and the target's stat when that came for free.

        A plainly spelled absolute path is opened with ``O_PATH`` (no read access, no
        device or FIFO side effects) and the kernel asked which path it reached. When that
        is the path as given, no component was a symlink, so ``realpath`` would return it
        unchanged, and ``fstat`` of the descriptor is the target's stat. Anything else
        (a symlink on the way, a missing component, a case-insensitive match, an
        unusual spelling) is answered by ``os.path.realpath`` itself.
        """
        if _FAST_RESOLVE and _plain(path):
            try:
                fd = os.open(path, _OPEN_FLAGS)
            except (OSError, ValueError):
                pass
            else:
                try:
                    if os.readlink(f"{_FD_LINKS}{fd}") == path:
                        return path, os.fstat(fd)
                except OSError:
                    pass
                finally:
                    os.close(fd)
        return os.path.realpath(path), None

    def identities(self, paths: Iterable[str]) -> frozenset[tuple[int, int]]:
        """Identities of the paths that exist, statting only those ``access`` finds.

        ``access(F_OK)`` resolves a path exactly as ``stat`` does but reports a missing
        one without an exception, which is most of a deny-list on a typical host.
        """
        found = set()
        access, stat, f_ok = os.access, os.stat, os.F_OK
        for path in paths:
            try:
                if not access(path, f_ok, effective_ids=_ACCESS_EFFECTIVE):
                    continue
                st = stat(path)
            except (OSError, ValueError):
                continue
            found.add((st.st_dev, st.st_ino))
        return frozenset(found)

    def is_own_realpath(self, path: str) -> bool:
        """Opened with ``O_PATH`` and named back by the kernel unchanged (three system
        calls, however deep the path): no symlink was on the way, and it exists."""
        if not (_FAST_RESOLVE and _plain(path)):
            return False
        try:
            fd = os.open(path, _OPEN_FLAGS)
        except (OSError, ValueError):
            return False
        try:
            return os.readlink(f"{_FD_LINKS}{fd}") == path
        except OSError:
            return False
        finally:
            os.close(fd)

    def list_with_links(self, path: str) -> tuple[list[str], set[str]]:
        """Names and symlinks from one ``os.scandir``: an entry's type comes with the
        listing on most filesystems (``lstat`` only where it doesn't)."""
        names: list[str] = []
        links: set[str] = set()
        with os.scandir(path) as it:
            for entry in it:
                names.append(entry.name)
                if entry.is_symlink():
                    links.add(entry.name)
        return names, links

    def home(self) -> str:
        """The account's home from the password database, not from ``$HOME``.

        The explorer's own environment must not leak into the simulated server's, so
        ``$HOME`` of the operator's shell is deliberately not consulted here.
        """
        try:
            return pwd.getpwuid(os.getuid()).pw_dir
        except KeyError:  # an account with no passwd entry (some containers)
            return "/"

    def user_home(self, name: str) -> str | None:
        """Account ``name``'s home from this machine's password database, or None."""
        if not name or "/" in name:
            return None
        try:
            return pwd.getpwnam(name).pw_dir
        except (KeyError, ValueError):  # no such account; a NUL in the name
            return None

    def default_cwd(self) -> str:
        """The directory the explorer was started from."""
        return os.getcwd()

    def __repr__(self) -> str:
        return "HostFS()"


def _plain(path: str) -> bool:
    """An absolute path with no empty, ``.`` or ``..`` component and no trailing slash:
    the spelling the kernel reports back unchanged when no symlink is on the way."""
    return (
        path.startswith("/")
        and not path.endswith(("/", "/.", "/.."))
        and "//" not in path
        and "/./" not in path
        and "/../" not in path
    )
