"""The filesystem calls the server makes, asked of a :class:`FileSystem` as node would.

The server's ``fs.promises.realpath`` is libuv's, which is the C library's
``realpath(3)``: it resolves strictly (a missing component is ``ENOENT``), follows at
most 40 symbolic links in the whole resolution (then ``ELOOP``), and walks the path one
component at a time with ``readlink``. Its failures reach the model as node's error
text, ``"<CODE>: <description>, <syscall> '<path>'"``, so both the walk and the
wording are reproduced here. The walk is a loop over the path's text (never a
recursion per component), so a path of thousands of components costs nothing extra.
"""

from __future__ import annotations

import errno as _errno
import os
import stat as _stat

from ...errors import LocalfsError
from ...fs.base import FileSystem

__all__ = ["NodeFsError", "node_lstat_exists", "node_readdir", "node_realpath", "node_stat"]

#: Symbolic links ``realpath(3)`` follows in one call before it gives up (glibc's
#: ``__eloop_threshold`` on Linux, which counts every link of the resolution).
REALPATH_MAX_LINKS = 40

# libuv's own descriptions (uv_strerror), which node puts in its messages; they are not
# the C library's strerror texts ("too many symbolic links encountered", not "Too many
# levels of symbolic links").
_UV_TEXT = {
    _errno.ENOENT: "no such file or directory",
    _errno.ENOTDIR: "not a directory",
    _errno.ELOOP: "too many symbolic links encountered",
    _errno.EACCES: "permission denied",
    _errno.ENAMETOOLONG: "name too long",
    _errno.EPERM: "operation not permitted",
    _errno.EIO: "i/o error",
    _errno.EISDIR: "illegal operation on a directory",
    _errno.EINVAL: "invalid argument",
    _errno.EEXIST: "file already exists",
    _errno.ENOMEM: "not enough memory",
    _errno.EBADF: "bad file descriptor",
    _errno.ESTALE: "stale file handle",
    _errno.EOVERFLOW: "value too large for defined data type",
}


class NodeFsError(LocalfsError):
    """A failed node ``fs`` call: ``code`` (``ENOENT`` ...), ``syscall`` and ``path``,
    and ``str()`` is node's message for it."""

    def __init__(self, err: int, syscall: str, path: str) -> None:
        self.errno = err
        self.code = _errno.errorcode.get(err, f"E{err}")
        self.syscall = syscall
        self.path = path
        text = _UV_TEXT.get(err) or os.strerror(err).lower()
        super().__init__(f"{self.code}: {text}, {syscall} '{path}'")

    @property
    def message(self) -> str:
        return str(self)


def _errno_of(exc: BaseException) -> int:
    if isinstance(exc, OSError) and exc.errno:
        return exc.errno
    return _errno.ENOENT  # a NUL byte: node refuses the argument; callers treat it as absent


def _suffix_needs_directory(text: str, i: int) -> bool:
    """Whether what follows a component (``text[i:]``) is a trailing slash, ``/.`` at
    the end or ``/..`` anywhere: then the component must be a directory, which the C
    library checks by asking for ``component/`` instead of trusting ``readlink``."""
    n = len(text)
    while i < n and text[i] == "/":
        while i < n and text[i] == "/":
            i += 1
        if i >= n:
            return True
        ch = text[i]
        i += 1
        if ch != ".":
            return False
        if i >= n or (text[i] == "." and (i + 1 >= n or text[i + 1] == "/")):
            return True
    return False


def node_realpath(fs: FileSystem, path: str) -> str:
    """``fs.promises.realpath(path)`` for an absolute ``path``; raises :class:`NodeFsError`.

    A path with no symlink on it is confirmed by the filesystem's own fast answer when it
    has one (the host opens it once); anything else is walked as ``realpath(3)`` walks.
    """
    if "\0" in path:
        raise NodeFsError(_errno.ENOENT, "realpath", path)
    if fs.is_own_realpath(path):
        return path
    text = path
    i = 0
    resolved = ""  # "" stands for "/"; otherwise "/a/b"
    links = 0
    while True:
        n = len(text)
        while i < n and text[i] == "/":
            i += 1
        if i >= n:
            break
        j = text.find("/", i)
        if j < 0:
            j = n
        comp = text[i:j]
        if comp == ".":
            i = j
            continue
        if comp == "..":
            resolved = resolved[: resolved.rfind("/")] if resolved else ""
            i = j
            continue
        candidate = f"{resolved}/{comp}"
        try:
            target = fs.readlink(candidate)
        except OSError as exc:
            if _suffix_needs_directory(text, j):
                try:
                    fs.stat(candidate + "/")
                except (OSError, ValueError) as exc2:
                    raise NodeFsError(_errno_of(exc2), "realpath", path) from None
            elif exc.errno != _errno.EINVAL:
                raise NodeFsError(_errno_of(exc), "realpath", path) from None
            resolved = candidate
            i = j
            continue
        except ValueError:
            raise NodeFsError(_errno.ENOENT, "realpath", path) from None
        links += 1
        if links > REALPATH_MAX_LINKS:
            raise NodeFsError(_errno.ELOOP, "realpath", path)
        text = target + text[j:]
        i = 0
        if target.startswith("/"):
            resolved = ""
    return resolved or "/"


def node_readdir(fs: FileSystem, path: str) -> list[str]:
    """``fs.promises.readdir(path)``: the entry names (their order never matters to the
    server's checks, which look for one name or count the equivalent ones)."""
    try:
        return fs.listdir(path)
    except OSError as exc:
        raise NodeFsError(_errno_of(exc), "scandir", path) from None


def node_stat(fs: FileSystem, path: str) -> bool:
    """``fs.promises.stat(path)``: whether it names a directory; raises on failure."""
    try:
        st = fs.stat(path)
    except (OSError, ValueError) as exc:
        raise NodeFsError(_errno_of(exc), "stat", path) from None
    return _stat.S_ISDIR(st.st_mode)


def node_lstat_exists(fs: FileSystem, path: str) -> bool:
    """Whether an entry of that name exists, unfollowed (2.0.1's ``entryExists``):
    False for ``ENOENT``, node's error for anything else."""
    try:
        fs.lstat(path)
    except OSError as exc:
        if exc.errno == _errno.ENOENT:
            return False
        raise NodeFsError(_errno_of(exc), "lstat", path) from None
    except ValueError:
        return False
    return True
