"""Node's POSIX path arithmetic and JavaScript's string trimming, reproduced as text rules.

The filesystem server is written in JavaScript: every path it compares went through
node's ``path`` module (``resolve``, ``join``, ``relative``, ``dirname``) and its own
``normalizePath``. Python's ``posixpath`` differs in small ways that change verdicts
(``normpath`` keeps a leading ``//``; ``relpath`` needs a working directory; ``str.strip``
trims other code points than ``String.prototype.trim``), so the rules are restated here
as node applies them to POSIX paths. Nothing here touches a filesystem.
"""

from __future__ import annotations

import re

__all__ = [
    "JS_WHITESPACE",
    "dirname",
    "is_absolute",
    "join",
    "js_trim",
    "normalize",
    "normalize_path",
    "normalize_path_format",
    "relative",
    "resolve",
    "utf16_length",
]

#: What ``String.prototype.trim`` removes: ECMAScript's WhiteSpace (TAB, VT, FF, SPACE,
#: NBSP, ZWNBSP/BOM and every Zs space) and LineTerminator (LF, CR, LS, PS). U+0085
#: (NEL) and U+180E are not in it, although Python's ``str.strip`` removes the first.
JS_WHITESPACE = frozenset(
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_WHITESPACE_CHARS = "".join(sorted(JS_WHITESPACE))
_QUOTES = "\"'"
# A run of slashes, and the one trailing slash normalizePath drops (never the first).
_SLASHES = re.compile(r"/{2,}")


def js_trim(text: str) -> str:
    """``text.trim()`` as JavaScript does it."""
    return text.strip(_JS_WHITESPACE_CHARS)


def _normalize_segments(path: str, allow_above_root: bool) -> str:
    """The segment walk under node's ``normalize``/``resolve``: empty and ``.`` segments
    dropped, ``..`` removing the one before it (kept when relative and nothing is left)."""
    out: list[str] = []
    for seg in path.split("/"):
        if seg == "" or seg == ".":
            continue
        if seg == "..":
            if out and out[-1] != "..":
                out.pop()
            elif allow_above_root:
                out.append("..")
            continue
        out.append(seg)
    return "/".join(out)


def _plain_absolute(path: str) -> bool:
    """An absolute path already in ``resolve``'s form (the common case, answered fast)."""
    return (
        path.startswith("/")
        and "//" not in path
        and "/." not in path
        and (len(path) == 1 or not path.endswith("/"))
    )


def is_absolute(path: str) -> bool:
    """``path.isAbsolute``: it starts with a slash."""
    return path.startswith("/")


def normalize(path: str) -> str:
    """``path.normalize``: keeps a trailing slash, ``.`` for an empty result."""
    if path == "":
        return "."
    absolute = path.startswith("/")
    trailing = path.endswith("/")
    body = _normalize_segments(path, not absolute)
    if body == "":
        if absolute:
            return "/"
        return "./" if trailing else "."
    if trailing:
        body += "/"
    return "/" + body if absolute else body


def resolve(*paths: str, cwd: str = "/") -> str:
    """``path.resolve(...paths)`` with ``cwd`` standing for ``process.cwd()``: the last
    absolute argument and those after it, normalised, no trailing slash."""
    if len(paths) == 1 and _plain_absolute(paths[0]):
        return paths[0]
    joined = ""
    absolute = False
    for part in reversed((cwd, *paths)):
        if part == "":
            continue
        joined = f"{part}/{joined}" if joined else part
        if part.startswith("/"):
            absolute = True
            break
    body = _normalize_segments(joined, not absolute)
    if absolute:
        return "/" + body
    return body or "."


def join(*parts: str) -> str:
    """``path.join``: the non-empty parts joined with ``/`` and normalised."""
    joined = "/".join(p for p in parts if p)
    return normalize(joined) if joined else "."


def dirname(path: str) -> str:
    """``path.dirname`` for a path in ``resolve``'s form (absolute, no trailing slash)."""
    cut = path.rfind("/")
    if cut <= 0:
        return "/" if path.startswith("/") else "."
    return path[:cut]


def relative(start: str, target: str) -> str:
    """``path.relative(start, target)`` for two absolute paths: ``..`` for each segment
    of ``start`` past the common ones, then the rest of ``target``."""
    a = [s for s in resolve(start).split("/") if s]
    b = [s for s in resolve(target).split("/") if s]
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return "/".join([".."] * (len(a) - common) + b[common:])


def utf16_length(text: str) -> int:
    """A JavaScript string's ``length``: UTF-16 code units (astral characters count 2)."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def normalize_path_format(path: str) -> str:
    """The server's path normalisation without trimming (2.0.1's ``normalizePathFormat``).

    Every path it is given here is absolute, so only the POSIX branch applies: runs of
    slashes collapsed, one trailing slash dropped. (A relative input, which the server
    never passes, gets node's ``normalize``.)
    """
    if path.startswith("/"):
        if "//" in path:
            path = _SLASHES.sub("/", path)
        if len(path) > 1 and path.endswith("/"):
            path = path[:-1]
        return path
    return normalize(path)


def strip_surroundings(path: str) -> str:
    """The trim the server applies before comparing (2026.x ``normalizePath``):
    JavaScript whitespace, then one leading and one trailing quote (``'`` or ``"``)."""
    # mirrors server-filesystem 2026.8.31 path-utils.js normalizePath: trimmed before every
    # comparison, which is what lets a quote or whitespace sibling of an allowed directory pass
    # (2.0.1 doesn't)
    path = js_trim(path)
    if path and path[0] in _QUOTES:
        path = path[1:]
    if path and path[-1] in _QUOTES:
        path = path[:-1]
    return path


def normalize_path(path: str) -> str:
    """2026.x's ``normalizePath``: :func:`strip_surroundings`, then the format rules."""
    return normalize_path_format(strip_surroundings(path))
