"""What an operator should know about a filesystem-server configuration before deploying it.

Three findings, each computed with the release's own ``validatePath`` so it is true of
the release chosen, not of a reading of its changelog:

- ``trim-sibling``: an allowed directory whose quote or whitespace siblings (``/data'``,
  ``/data ``) pass the check because only a trimmed spelling was compared. A write can
  create them (2026.8.31) and a read reaches those that exist (2026.8.31, 2026.7.10).
- ``symlinked-directory``: an allowed directory given through a symlink, so both the
  link's spelling and its target's are allowed (and stay so if the link is re-pointed).
- ``roots-replace-argv``: MCP roots that would replace the command-line directories
  without a word, and which directories that drops.

On a host that ignores case (Windows, macOS's default volume):

- ``case-symlink-escape``: a symlink inside an allowed directory that leads out. Spelled
  in another case, a path to a new file under it is never resolved (the walk down from
  the allowed directory matches names exactly), so a write creates the file through it.

On a Windows host also ``case-respelled-directory`` (an allowed directory given in
another case than it is stored in, so both spellings are allowed and paths in any third
spelling are refused), and the siblings Windows can't hold (``"``, control characters)
or reads as the directory itself (a trailing space) are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .policy import FilesystemPolicy

__all__ = ["TRIM_SUFFIXES", "FsConfigFinding", "findings"]

#: The sibling spellings probed: each quote, and whitespace JavaScript's trim removes.
TRIM_SUFFIXES: tuple[str, ...] = ("'", '"', " ", "\t", "\u00a0", "\ufeff", "\u3000")


@dataclass(frozen=True)
class FsConfigFinding:
    """One finding: a stable ``code``, ``severity`` (high/medium/low), one-line
    ``message``, the ``paths`` it is about and what to change (``fix``)."""

    code: str
    severity: str
    message: str
    paths: tuple[str, ...] = ()
    fix: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: this finding's own fields, plus the seam's names for them
        (``kind``, ``path``, ``why``; see :meth:`localfs_explorer.server.Server.findings`)."""
        return {"code": self.code, "severity": self.severity, "message": self.message,
                "paths": list(self.paths), "fix": self.fix, "kind": self.code,
                "path": self.paths[0] if self.paths else "", "why": self.message}


def _shown(path: str) -> str:
    """``path`` with each character that doesn't print written as its escape."""
    if path.isprintable():
        return path
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in path)


#: Sibling suffixes a Windows host can't hold as a new name (``"`` and control
#: characters are invalid there) or reads as the directory itself (a trailing space).
_NOT_ON_WINDOWS = frozenset({'"', " ", "\t"})
#: How many entries the Windows symlink search lists under the allowed directories.
LINK_SEARCH_LIMIT = 20_000


def _windows(policy: FilesystemPolicy) -> bool:
    return getattr(policy, "platform", "posix") == "windows"


def _trim_siblings(policy: FilesystemPolicy) -> list[FsConfigFinding]:
    out: list[FsConfigFinding] = []
    windows = _windows(policy)
    for directory in policy.directories:
        if directory == "/":
            continue
        writable: list[str] = []
        readable: list[str] = []
        for suffix in TRIM_SUFFIXES:
            if windows and suffix in _NOT_ON_WINDOWS:
                continue
            sibling = directory + suffix
            v = policy.validate(sibling)
            if not (v.allowed and v.by_trim):
                continue
            exists = True
            try:
                policy.fs.lstat(sibling)
            except (OSError, ValueError):
                exists = False
            (readable if exists else writable).append(v.resolved or sibling)
            # A file that exists is readable and, being allowed, replaceable too.
            if exists:
                writable.append(v.resolved or sibling)
        if readable:
            out.append(FsConfigFinding(
                "trim-sibling", "high",
                f"{len(readable)} existing sibling(s) of the allowed directory {directory} "
                f"pass the check only because it compares a trimmed spelling: "
                f"{', '.join(_shown(p) for p in readable)}",
                tuple(readable), _trim_fix(policy.version)))
        new = [p for p in writable if p not in readable]
        if new:
            out.append(FsConfigFinding(
                "trim-sibling", "high",
                f"a write through server-filesystem {policy.version} can create "
                f"{len(new)} sibling(s) of the allowed directory {directory} (quote or "
                f"whitespace added): {', '.join(_shown(p) for p in new)}",
                tuple(new), _trim_fix(policy.version)))
    return out


def _trim_fix(version: str) -> str:
    from .policy import V_2

    if version == V_2:  # pragma: no cover - 2.0.1 compares the untrimmed path
        return ""
    return (f"upgrade to server-filesystem {V_2}, which checks the path as given and "
            "refuses these siblings")


def _symlinked(policy: FilesystemPolicy) -> list[FsConfigFinding]:
    out: list[FsConfigFinding] = []
    for entry, spellings in policy.allowed.argv_spellings:
        if len(spellings) == 2 and all(s in policy.directories for s in spellings):
            link, real = spellings
            if _windows(policy) and link.lower() == real.lower():
                out.append(FsConfigFinding(
                    "case-respelled-directory", "low",
                    f"{entry} is spelled in another case than the folder's own {real}: both "
                    f"spellings are allowed, and a path in any other case is refused",
                    (link, real), f"give the directory as {real}"))
                continue
            out.append(FsConfigFinding(
                "symlinked-directory", "medium",
                f"{entry} is given through a symlink: both {link} and its target {real} "
                "are allowed, and the target stays allowed if the link is re-pointed",
                (link, real), f"give the real directory {real} instead of {entry}"))
    return out


def _roots(policy: FilesystemPolicy) -> list[FsConfigFinding]:
    allowed = policy.allowed
    if not allowed.roots_replace_argv or not allowed.from_argv:
        return []
    dropped = [d for d in allowed.from_argv if d not in allowed.directories]
    added = [d for d in allowed.directories if d not in allowed.from_argv]
    parts = []
    if dropped:
        parts.append(f"drops {', '.join(dropped)}")
    if added:
        parts.append(f"allows {', '.join(added)}")
    return [FsConfigFinding(
        "roots-replace-argv", "high" if added else "medium",
        "the client's MCP roots replace the command-line directories without a word"
        + (f" ({'; '.join(parts)})" if parts else ""),
        tuple(dropped + added),
        "list on the command line exactly the directories the client's roots name, or "
        "have the client advertise no roots")]


def _case_links(policy: FilesystemPolicy) -> list[FsConfigFinding]:
    """On a host that ignores case (Windows, macOS's default volume): the symlinks under
    the allowed directories that lead out, each reachable for a new file by spelling it
    in another case."""
    if not (_windows(policy) or getattr(policy.fs, "case_insensitive", False)):
        return []
    fs = policy.fs
    out: list[FsConfigFinding] = []
    seen = 0
    queue = list(dict.fromkeys(policy.directories))
    visited: set[str] = set()
    while queue and seen < LINK_SEARCH_LIMIT:
        folder = queue.pop(0)
        key = folder.lower()
        if key in visited:
            continue
        visited.add(key)
        try:
            names, links = fs.list_with_links(folder)
        except (OSError, ValueError):
            continue
        for name in names:
            seen += 1
            path = policy.join(folder, name)
            if name not in links:
                if fs.is_dir(path):
                    queue.append(path)
                continue
            if policy.validate(path).reason != "symlink-outside":
                continue
            respelled = path[: len(folder)] + path[len(folder):].swapcase()
            probe = policy.join(respelled, "new.txt")
            if policy.validate(probe).allowed:
                out.append(FsConfigFinding(
                    "case-symlink-escape", "high",
                    f"{path} leads out of the allowed directories (to {fs.realpath(path)}); "
                    f"spelled {respelled}, a new file's path under it passes the check "
                    f"unresolved, and the host, which ignores case, creates the file "
                    f"through the link "
                    f"({probe} is allowed)",
                    (path, probe), f"remove the link {path} or move it out of the allowed "
                    "directories"))
    return out


def findings(policy: FilesystemPolicy) -> list[FsConfigFinding]:
    """Every finding for ``policy``, most severe first."""
    found = (_trim_siblings(policy) + _case_links(policy) + _symlinked(policy)
             + _roots(policy))
    order = {"high": 0, "medium": 1, "low": 2}
    return sorted(found, key=lambda f: order[f.severity])
