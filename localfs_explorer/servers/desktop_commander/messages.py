"""The texts DesktopCommanderMCP 0.2.52 gives the model, as data with their rules.

Each one is what a tool's result says, character for character; the templates take the
path exactly as the caller spelled it (never the resolved one) where the server does.
"""

from __future__ import annotations

import errno as _errno

__all__ = ["CALL_ERROR_PREFIX", "ITEM_ERROR", "NOT_ALLOWED", "NUL_IN_PATH", "RESOLVE_FAILED",
           "inspect_string", "node_error"]

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


#: node's refusal of a path holding a NUL byte, before any system call (its code is
#: ERR_INVALID_ARG_VALUE, not ENOENT, so the check reports it as a resolve failure).
NUL_IN_PATH = ("The argument 'path' must be a string, Uint8Array, or URL without null "
               "bytes. Received {shown}")

# How node's util.inspect escapes a character inside a quoted string.
_META = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r", 0x5C: "\\\\"}


def inspect_string(text: str) -> str:
    """``util.inspect`` of a string, as node's error messages show it: single quotes,
    else double, else backticks; control characters as ``\\xNN``."""
    if "'" not in text:
        quote = "'"
    elif '"' not in text:
        quote = '"'
    elif "`" not in text and "${" not in text:
        quote = "`"
    else:
        quote = "'"
    out = []
    for ch in text:
        code = ord(ch)
        if ch == quote:
            out.append("\\" + ch)
        elif code in _META:
            out.append(_META[code])
        elif code < 0x20 or 0x7F <= code <= 0x9F:
            out.append(f"\\x{code:02X}")
        else:
            out.append(ch)
    return quote + "".join(out) + quote

