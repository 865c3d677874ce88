"""The texts DesktopCommanderMCP 0.2.52 gives the model, as data with their rules.

Each one is what a tool's result says, character for character; the templates take the
path exactly as the caller spelled it (never the resolved one) where the server does.
"""

from __future__ import annotations

import errno as _errno

__all__ = ["CALL_ERROR_PREFIX", "ITEM_ERROR", "NOT_ALLOWED", "RESOLVE_FAILED", "node_error"]

#: validatePath's refusal: the path as the caller gave it, then the allow-list exactly as
#: configured (not normalised, not resolved), joined with ", ".
NOT_ALLOWED = "Path not allowed: {path}. Must be within one of these directories: {dirs}"

#: realpath failed for a reason other than "missing" (a file used as a directory, a
#: symlink loop, no permission): the absolute spelling, then node's own error text.
RESOLVE_FAILED = "Failed to resolve symlink for path: {absolute}. Error: {error}"

#: A failing single-path tool wraps the message in its error result with this prefix.
CALL_ERROR_PREFIX = "Error: "

#: read_multiple_files reports each refused file on its own line of a successful result.
ITEM_ERROR = "{path}: Error - {message}"

# libuv's descriptions of the errors realpath can meet (node puts them in its message,
# "<CODE>: <description>, realpath '<path>'"); they are libuv's words, not strerror's.
_UV_TEXT = {
    _errno.ENOTDIR: "not a directory",
    _errno.ELOOP: "too many symbolic links encountered",
    _errno.EACCES: "permission denied",
    _errno.ENAMETOOLONG: "name too long",
    _errno.EPERM: "operation not permitted",
    _errno.EIO: "i/o error",
}


def node_error(err: int, path: str, syscall: str = "realpath") -> str:
    """Node's message for a failed ``fs`` call on ``path``."""
    import os

    code = _errno.errorcode.get(err, f"E{err}")
    text = _UV_TEXT.get(err) or os.strerror(err).lower()
    return f"{code}: {text}, {syscall} '{path}'"
