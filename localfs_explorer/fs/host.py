"""The filesystem of the machine this Python process runs on."""

from __future__ import annotations

import os
import pwd

from .base import FileSystem


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

    def home(self) -> str:
        """The account's home from the password database, not from ``$HOME``.

        The explorer's own environment must not leak into the simulated server's, so
        ``$HOME`` of the operator's shell is deliberately not consulted here.
        """
        try:
            return pwd.getpwuid(os.getuid()).pw_dir
        except KeyError:  # an account with no passwd entry (some containers)
            return "/"

    def default_cwd(self) -> str:
        """The directory the explorer was started from."""
        return os.getcwd()

    def __repr__(self) -> str:
        return "HostFS()"
