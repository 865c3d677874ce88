"""Node's Windows path arithmetic and the server's Windows ``normalizePath``, as text rules.

On a Windows host the filesystem server's ``path`` is node's ``path.win32`` and
``process.platform`` is ``win32``, which changes every comparison it makes: drive and UNC
paths are absolute, ``/`` and ``\\`` both separate, ``normalizePath`` turns ``/c/x`` into
``C:\\x`` and upper-cases a drive letter, and ``path.relative`` ignores case while the
containment check (``isPathWithinAllowedDirectories``) does not. The rules are node 20's
(``path.win32`` changed in later majors: reserved device names, ``\\\\?\\`` roots), and
``tests/servers/filesystem/test_winpath_differential.py`` compares each function here with
node's own and with the server's functions run under node as on Windows. Nothing here
touches a filesystem.
"""

from __future__ import annotations

import re

from .nodepath import strip_surroundings

__all__ = [
    "dirname",
    "is_absolute",
    "join",
    "normalize",
    "normalize_path",
    "relative",
    "resolve",
    "within_allowed",
]

_SEPS = "\\/"
_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL"]
    + [f"{kind}{n}" for kind in ("COM", "LPT") for n in (*"123456789", "\u00b9", "\u00b2",
                                                           "\u00b3")]
)
_DRIVE_LETTER = re.compile(r"[A-Za-z]")
_UNIX_DRIVE = re.compile(r"^/[a-zA-Z]/")
_WSL = re.compile(r"^/mnt/[a-z]/", re.IGNORECASE)
_BARE_DRIVE = re.compile(r"^[a-zA-Z]:$")
_DRIVE_ROOT = re.compile(r"^[A-Za-z]:\\?$")


def _is_sep(ch: str) -> bool:
    return ch == "\\" or ch == "/"


def _device_root(ch: str) -> bool:
    return bool(ch) and ch.isascii() and ch.isalpha()


def _reserved(path: str, colon: int) -> bool:
    # node slices up to the colon, and to the last character when there is none (-1)
    return path[:colon].upper() in _RESERVED


def _normalize_string(path: str, allow_above_root: bool) -> str:
    """node's segment walk: empty and ``.`` segments dropped, ``..`` removing the one
    before it (kept when above the root is allowed and nothing is left to remove)."""
    out: list[str] = []
    for seg in re.split(r"[\\/]", path):
        if seg == "" or seg == ".":
            continue
        if seg == "..":
            if out and out[-1] != "..":
                out.pop()
            elif allow_above_root:
                out.append("..")
            continue
        out.append(seg)
    return "\\".join(out)


def _unc(path: str) -> tuple[str, str, int] | None:
    """A ``\\\\server\\share`` root at the start of ``path``: (server, share, end), the
    share empty when only ``\\\\server\\`` and a name stand there; None otherwise."""
    n = len(path)
    j = 2
    while j < n and not _is_sep(path[j]):
        j += 1
    if j >= n or j == 2:
        return None
    server = path[2:j]
    last = j
    while j < n and _is_sep(path[j]):
        j += 1
    if j >= n or j == last:
        return None
    last = j
    while j < n and not _is_sep(path[j]):
        j += 1
    return server, path[last:j], j


def is_absolute(path: str) -> bool:
    """``path.win32.isAbsolute``: a leading separator, or a drive letter, ``:`` and one."""
    if not path:
        return False
    return _is_sep(path[0]) or (
        len(path) > 2 and _device_root(path[0]) and path[1] == ":" and _is_sep(path[2]))


def normalize(path: str) -> str:
    """``path.win32.normalize`` (node 20)."""
    n = len(path)
    if n == 0:
        return "."
    if n == 1:
        return "\\" if path == "/" else path
    root_end = 0
    device: str | None = None
    absolute = False
    if _is_sep(path[0]):
        absolute = True
        if _is_sep(path[1]):
            unc = _unc(path)
            if unc is not None:
                server, share, j = unc
                if server in (".", "?"):
                    device, root_end = f"\\\\{server}", 4
                elif j == n:
                    return f"\\\\{server}\\{share}\\"
                else:
                    device, root_end = f"\\\\{server}\\{share}", j
        else:
            root_end = 1
    else:
        colon = path.find(":")
        if colon > 0:
            if _device_root(path[0]) and colon == 1:
                device, root_end = path[:2], 2
                if n > 2 and _is_sep(path[2]):
                    absolute, root_end = True, 3
            elif _reserved(path, colon):
                device, root_end = path[:colon + 1], colon + 1
    tail = _normalize_string(path[root_end:], not absolute) if root_end < n else ""
    if not tail and not absolute:
        tail = "."
    if tail and _is_sep(path[-1]):
        tail += "\\"
    if not absolute and device is None and ":" in path:
        # node's guard against a relative result Windows would read as a drive path
        if len(tail) >= 2 and _device_root(tail[0]) and tail[1] == ":":
            return f".\\{tail}"
        index = path.find(":")
        while index != -1:
            if index == n - 1 or _is_sep(path[index + 1]):
                return f".\\{tail}"
            index = path.find(":", index + 1)
    if _reserved(path, path.find(":")):
        return f".\\{device or ''}{tail}"
    if device is None:
        return f"\\{tail}" if absolute else tail
    return f"{device}\\{tail}" if absolute else f"{device}{tail}"


def resolve(*paths: str, cwd: str) -> str:
    """``path.win32.resolve(...paths)`` with ``cwd`` standing for ``process.cwd()`` (a
    drive's own working directory, ``=C:`` in the environment, is never set here)."""
    resolved_device = ""
    resolved_tail = ""
    resolved_absolute = False
    items = list(paths)
    i = len(items) - 1
    while i >= -1:
        if i >= 0:
            path = items[i]
            if not path:
                i -= 1
                continue
        elif not resolved_device:
            path = cwd
        else:
            path = cwd
            if path[:2].lower() != resolved_device.lower() and path[2:3] == "\\":
                path = f"{resolved_device}\\"
        n = len(path)
        root_end = 0
        device = ""
        absolute = False
        if n == 1:
            if _is_sep(path[0]):
                root_end, absolute = 1, True
        elif _is_sep(path[0]):
            absolute = True
            if _is_sep(path[1]):
                unc = _unc(path)
                if unc is not None:
                    server, share, j = unc
                    if server not in (".", "?"):
                        device, root_end = f"\\\\{server}\\{share}", j
                    else:
                        device, root_end = f"\\\\{server}", 4
            else:
                root_end = 1
        elif _device_root(path[0]) and path[1] == ":":
            device, root_end = path[:2], 2
            if n > 2 and _is_sep(path[2]):
                absolute, root_end = True, 3
        if device:
            if resolved_device:
                if device.lower() != resolved_device.lower():
                    i -= 1
                    continue
            else:
                resolved_device = device
        if resolved_absolute:
            if resolved_device:
                break
        else:
            resolved_tail = f"{path[root_end:]}\\{resolved_tail}"
            resolved_absolute = absolute
            if absolute and resolved_device:
                break
        i -= 1
    tail = _normalize_string(resolved_tail, not resolved_absolute)
    if resolved_absolute:
        return f"{resolved_device}\\{tail}"
    return f"{resolved_device}{tail}" or "."


def join(*parts: str) -> str:
    """``path.win32.join``: the non-empty parts joined with ``\\`` and normalised, a
    leading run of separators kept as a UNC start only when the first part begins so."""
    kept = [p for p in parts if p]
    if not kept:
        return "."
    first = kept[0]
    joined = "\\".join(kept)
    needs_replace = True
    slashes = 0
    if _is_sep(first[0]):
        slashes += 1
        if len(first) > 1 and _is_sep(first[1]):
            slashes += 1
            if len(first) > 2:
                if _is_sep(first[2]):
                    slashes += 1
                else:
                    needs_replace = False
    if needs_replace:
        while slashes < len(joined) and _is_sep(joined[slashes]):
            slashes += 1
        if slashes >= 2:
            joined = "\\" + joined[slashes:]
    return normalize(joined)


def dirname(path: str) -> str:
    """``path.win32.dirname``."""
    n = len(path)
    if n == 0:
        return "."
    if n == 1:
        return path if _is_sep(path[0]) else "."
    root_end = -1
    offset = 0
    if _is_sep(path[0]):
        root_end = offset = 1
        if _is_sep(path[1]):
            unc = _unc(path)
            if unc is not None:
                _, share, j = unc
                if j == n:
                    return path
                if share:
                    root_end = offset = j + 1
    elif _device_root(path[0]) and path[1] == ":":
        root_end = 3 if n > 2 and _is_sep(path[2]) else 2
        offset = root_end
    end = -1
    matched_sep = True
    for k in range(n - 1, offset - 1, -1):
        if _is_sep(path[k]):
            if not matched_sep:
                end = k
                break
        else:
            matched_sep = False
    if end == -1:
        if root_end == -1:
            return "."
        end = root_end
    return path[:end]


def relative(start: str, target: str, *, cwd: str) -> str:
    """``path.win32.relative(start, target)``: compared without regard to case (node
    lower-cases both), the result spelled as ``target`` is."""
    if start == target:
        return ""
    from_orig = resolve(start, cwd=cwd)
    to_orig = resolve(target, cwd=cwd)
    if from_orig == to_orig:
        return ""
    lower_from = from_orig.lower()
    lower_to = to_orig.lower()
    if lower_from == lower_to:
        return ""
    if len(from_orig) != len(lower_from) or len(to_orig) != len(lower_to):
        return _relative_by_parts(from_orig, to_orig)
    from_start = 0
    while from_start < len(lower_from) and lower_from[from_start] == "\\":
        from_start += 1
    from_end = len(lower_from)
    while from_end - 1 > from_start and lower_from[from_end - 1] == "\\":
        from_end -= 1
    from_len = from_end - from_start
    to_start = 0
    while to_start < len(lower_to) and lower_to[to_start] == "\\":
        to_start += 1
    to_end = len(lower_to)
    while to_end - 1 > to_start and lower_to[to_end - 1] == "\\":
        to_end -= 1
    to_len = to_end - to_start
    length = min(from_len, to_len)
    last_common = -1
    i = 0
    while i < length:
        ch = lower_from[from_start + i]
        if ch != lower_to[to_start + i]:
            break
        if ch == "\\":
            last_common = i
        i += 1
    if i != length:
        if last_common == -1:
            return to_orig
    else:
        if to_len > length:
            if lower_to[to_start + i] == "\\":
                return to_orig[to_start + i + 1:]
            if i == 2:
                return to_orig[to_start + i:]
        if from_len > length:
            if lower_from[from_start + i] == "\\":
                last_common = i
            elif i == 2:
                last_common = 3
        if last_common == -1:
            last_common = 0
    out = ""
    for k in range(from_start + last_common + 1, from_end + 1):
        if k == from_end or lower_from[k] == "\\":
            out += ".." if not out else "\\.."
    to_start += last_common
    if out:
        return f"{out}{to_orig[to_start:to_end]}"
    if to_orig[to_start:to_start + 1] == "\\":
        to_start += 1
    return to_orig[to_start:to_end]


def _relative_by_parts(from_orig: str, to_orig: str) -> str:
    """node's branch for names whose lower case has another length: compared part by
    part."""
    a = from_orig.split("\\")
    b = to_orig.split("\\")
    if a[-1] == "":
        a.pop()
    if b[-1] == "":
        b.pop()
    length = min(len(a), len(b))
    i = 0
    while i < length and a[i].lower() == b[i].lower():
        i += 1
    if i == 0:
        return to_orig
    if i == length:
        if len(b) > length:
            return "\\".join(b[i:])
        if len(a) > length:
            return "..\\" * (len(a) - 1 - i) + ".."
        return ""
    return "..\\" * (len(a) - i) + "\\".join(b[i:])


def _convert_to_windows_path(p: str) -> str:
    """The server's ``convertToWindowsPath`` on a Windows host: ``/mnt/...`` kept,
    ``/c/x`` becomes ``C:\\x``, a drive path gets backslashes."""
    if p.startswith("/mnt/"):
        return p
    if _UNIX_DRIVE.match(p):
        return f"{p[1].upper()}:{p[2:].replace('/', chr(92))}"
    if re.match(r"^[a-zA-Z]:", p):
        return p.replace("/", "\\")
    return p


def normalize_path(p: str, *, trim: bool = True) -> str:
    """The server's ``normalizePath`` with ``process.platform`` ``win32`` (2026.8.31).

    Trimmed as on every host; a ``/``-path that isn't ``/x/...`` (one letter) or is a WSL
    ``/mnt/x/`` path only loses doubled and trailing slashes; everything else has
    ``/c/`` turned into ``C:``, doubled backslashes collapsed (a UNC start kept), node's
    ``normalize`` applied, the drive letter upper-cased and ``/`` turned into ``\\``.
    """
    # mirrors server-filesystem 2026.8.31 path-utils.js normalizePath: on win32 the drive letter
    # is upper-cased but nothing else changes case, so the containment check that follows is
    # case-sensitive past the drive
    if trim:
        p = strip_surroundings(p)
    if p.startswith("/") and (_WSL.match(p) or not _UNIX_DRIVE.match(p)):
        p = re.sub(r"/+", "/", p)
        return p[:-1] if len(p) > 1 and p.endswith("/") else p
    p = _convert_to_windows_path(p)
    unc = p.startswith("\\\\")
    if unc:
        p = "\\\\" + re.sub(r"^\\{2,}", r"\\\\", p)[2:].replace("\\\\", "\\")
    else:
        p = p.replace("\\\\", "\\")
    if _BARE_DRIVE.match(p):
        p += "\\"
    normalized = normalize(p)
    if p.startswith("\\\\") and not normalized.startswith("\\\\"):
        normalized = "\\" + normalized
    if re.match(r"^[a-zA-Z]:", normalized):
        result = normalized.replace("/", "\\")
        if re.match(r"^[a-z]:", result):
            result = result[0].upper() + result[1:]
        return result
    return normalized.replace("/", "\\")


def within_allowed(path: str, directories: tuple[str, ...] | list[str], *, cwd: str) -> bool:
    """The server's ``isPathWithinAllowedDirectories`` with ``path`` being ``path.win32``.

    Raises ValueError where the server throws (a path or directory still relative after
    ``resolve``, which can't happen with a working directory that is absolute).
    """
    # mirrors server-filesystem 2026.8.31 path-validation.js isPathWithinAllowedDirectories:
    # with path.win32, equal or continuing with "\\"; a bare "\\" holds every path that starts
    # with one, a drive root its own drive only
    if not path or not directories or "\0" in path:
        return False
    p = resolve(normalize(path), cwd=cwd)
    if not is_absolute(p):
        raise ValueError("Path must be absolute after normalization")
    for directory in directories:
        if not directory or "\0" in directory:
            continue
        d = resolve(normalize(directory), cwd=cwd)
        if not is_absolute(d):
            raise ValueError("Allowed directories must be absolute paths after normalization")
        if p == d:
            return True
        if d == "\\":
            if p.startswith("\\"):
                return True
            continue
        if _DRIVE_ROOT.match(d):
            root = d if d.endswith("\\") else d + "\\"
            if p[:1].lower() == d[0].lower() and p.startswith(root):
                return True
            continue
        if p.startswith(d + "\\"):
            return True
    return False
