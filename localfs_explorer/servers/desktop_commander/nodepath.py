"""Node's POSIX ``path`` functions, as DesktopCommanderMCP's check calls them.

They differ from Python's in ways a verdict turns on: ``normalize`` collapses a leading
``//`` (``os.path.normpath`` keeps it), keeps a trailing separator and turns an empty
string into ``.``; ``join`` drops empty parts and normalises the result; ``resolve``
never leaves a trailing separator.
"""

from __future__ import annotations

__all__ = ["basename", "dirname", "join", "normalize", "resolve"]


def _collapse(path: str, above_root: bool) -> str:
    """The parts of ``path`` with ``.``, empty parts and ``..`` folded (a relative path
    keeps the ``..`` that climb above its start)."""
    out: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if out and out[-1] != "..":
                out.pop()
            elif above_root:
                out.append("..")
            continue
        out.append(part)
    return "/".join(out)


def normalize(path: str) -> str:
    """``path.normalize``: ``.``/``..`` folded, repeated separators collapsed, a trailing
    separator kept, ``""`` -> ``"."``."""
    if path == "":
        return "."
    absolute = path.startswith("/")
    body = _collapse(path, not absolute)
    if not body and not absolute:
        body = "."
    if body and path.endswith("/"):
        body += "/"
    return "/" + body if absolute else body


def resolve(cwd: str, path: str) -> str:
    """``path.resolve(cwd, path)``: absolute, folded, no trailing separator."""
    joined = path if path.startswith("/") else f"{cwd}/{path}"
    return "/" + _collapse(joined, False)


def join(*parts: str) -> str:
    """``path.join``: the non-empty parts joined with ``/``, then normalised."""
    kept = [p for p in parts if p]
    return normalize("/".join(kept)) if kept else "."


def dirname(path: str) -> str:
    """``path.dirname`` of an absolute path without a trailing separator."""
    head = path.rsplit("/", 1)[0]
    return head or "/"


def basename(path: str) -> str:
    """``path.basename`` of a path without a trailing separator."""
    return path.rsplit("/", 1)[-1]
