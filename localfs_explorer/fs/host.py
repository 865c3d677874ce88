"""The filesystem of the machine this Python process runs on."""

from __future__ import annotations

import os
import pwd

from .base import FileSystem


class HostFS(FileSystem):
    """This machine's filesystem, asked through ``os`` exactly as the server would."""

    label = "this host"

    # Plain delegation: the verdicts must be those of os.path.realpath itself, so no
    # wrapper logic may sit between the engine and the real call.
    def realpath(self, path: str) -> str:
        """Non-strict ``os.path.realpath``."""
        return os.path.realpath(path)

    def lstat(self, path: str) -> os.stat_result:
        """``os.lstat``."""
        return os.lstat(path)

    def stat(self, path: str) -> os.stat_result:
        """``os.stat``."""
        return os.stat(path)

    def listdir(self, path: str) -> list[str]:
        """``os.listdir``."""
        return os.listdir(path)

    def readlink(self, path: str) -> str:
        """``os.readlink``."""
        return os.readlink(path)

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
