"""What an operator should know about a DesktopCommanderMCP configuration.

Each finding is computed from the settings the server would run with and, where a path is
involved, from its own check (:class:`~.policy.DcPolicy`), so it is true of this
configuration rather than of a reading of the README:

- ``terminal-bypass``: ``start_process`` and ``interact_with_process`` run shell commands
  that read and write wherever the account can; ``allowedDirectories`` is never asked.
  Only ``blockedCommands`` stands in the way, by command name: critical while it lets a
  shell start (a shell then takes any command as input), high otherwise (``cat`` is
  enough to read outside).
- ``everything``: an empty ``allowedDirectories`` (also what a missing settings file
  becomes) or one holding ``/``: every path passes the file tools' check.
- ``home-default``: no ``allowedDirectories`` in the settings: the whole home directory,
  credentials included.
- ``case-fold``: the check lower-cases both sides, so on a case-sensitive filesystem a
  directory differing only by case from an allowed one (existing now, or creatable
  beside it) passes as if it were inside.
- ``dangling-symlink-write``: a dangling symlink is checked by its own name, so a write
  through one inside an allowed directory lands at its target, outside.
- ``unresolved-directory``: an allowed directory that is a symlink or relative is
  compared as written, never resolved: nothing below it passes (the real path never
  matches), which surprises more than it exposes.
- ``self-widening``: ``set_config_value`` lets the model rewrite ``allowedDirectories``
  and ``blockedCommands`` at run time unless the client blocks that tool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .policy import DcPolicy, expand_home
from .settings import DcSettings

__all__ = ["SHELLS", "DcFinding", "findings", "shells_left"]

#: Programs that take further commands as input once started: if blockedCommands leaves
#: one of them, a started process runs anything (its first word is all that is checked).
SHELLS: tuple[str, ...] = ("sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh",
                           "python3", "python", "node", "perl")


@dataclass(frozen=True)
class DcFinding:
    """One finding: a stable ``code``, ``severity`` (critical/high/medium/low), one-line
    ``message``, the ``paths`` it is about and what to change (``fix``)."""

    code: str
    severity: str
    message: str
    paths: tuple[str, ...] = ()
    fix: str = ""
    op: str = "read_write"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the seam's names too (``kind``, ``path``, ``why``)."""
        return {"code": self.code, "severity": self.severity, "message": self.message,
                "paths": list(self.paths), "fix": self.fix, "op": self.op,
                "kind": self.code, "path": self.paths[0] if self.paths else "",
                "why": self.message}


def shells_left(settings: DcSettings) -> list[str]:
    """The shells ``blockedCommands`` doesn't block (the check is by base name)."""
    blocked = {c.strip() for c in settings.blocked_commands}
    return [s for s in SHELLS if s not in blocked]


def _terminal(settings: DcSettings, registered: set[str]) -> list[DcFinding]:
    tools = [t for t in ("start_process", "interact_with_process") if t in registered]
    if "start_process" not in tools:
        return []
    left = shells_left(settings)
    if left:
        return [DcFinding(
            "terminal-bypass", "critical",
            f"start_process runs shell commands outside allowedDirectories, and "
            f"blockedCommands lets a shell start ({', '.join(left[:4])}...): any file the "
            "account can reach can be read, written or deleted",
            ("/",), "block start_process and interact_with_process in the client, or run "
            "the server in a container that only mounts the allowed directories")]
    return [DcFinding(
        "terminal-bypass", "high",
        "start_process runs commands outside allowedDirectories (blockedCommands stops "
        "shells by name, not cat, cp or tee): files outside can be read and written",
        ("/",), "block start_process and interact_with_process in the client")]


def findings(policy: DcPolicy, registered: set[str] | None = None) -> list[DcFinding]:
    """Every finding for ``policy``, most severe first (``registered``: the tools the
    client lets through; None: all of them)."""
    from .tools import load_tools

    settings = policy.settings
    names = registered if registered is not None else {t.name for t in load_tools()}
    out = _terminal(settings, names)
    if "set_config_value" in names:
        out.append(DcFinding(
            "self-widening", "high",
            "set_config_value lets the model rewrite allowedDirectories (to [] or '/', "
            "every path) and blockedCommands at run time; the change is saved to the "
            "settings file and outlives the session",
            (), "block set_config_value in the client; review the settings file's changes",
            op="write"))
    if settings.everything:
        why = ("allowedDirectories is empty" if not settings.allowed
               else "allowedDirectories holds '/'")
        out.append(DcFinding(
            "everything", "critical",
            f"{why}: every path passes the file tools' check ({settings.source})",
            ("/",), "list the directories the work needs in allowedDirectories"))
    elif settings.configured is None:
        out.append(DcFinding(
            "home-default", "high",
            f"no allowedDirectories: the whole home directory {policy.home} is allowed, "
            "its credentials and start-up files included", (policy.home,),
            "list the directories the work needs in allowedDirectories"))
    if not settings.everything:
        out.extend(_case_fold(policy))
        out.extend(_directory_shapes(policy))
        out.append(DcFinding(
            "dangling-symlink-write", "low",
            "a dangling symlink inside an allowed directory is checked by its own name: "
            "write_file through it creates its target, wherever that is",
            tuple(policy.allowed), "remove dangling symlinks from the allowed directories",
            op="write"))
    order = {"critical": 0, "high": 1, "medium": 2, "low": 3}
    return sorted(out, key=lambda f: order.get(f.severity, 9))


def _case_fold(policy: DcPolicy) -> list[DcFinding]:
    """Directories differing from an allowed one only by case: those that exist now are
    readable and writable; the swapped-case spelling can be created (on a case-sensitive
    filesystem) and then used."""
    out: list[DcFinding] = []
    fs = policy.fs
    for directory in policy.allowed:
        full = policy.absolute(directory)
        if full == "/":
            continue
        parent, _, name = full.rpartition("/")
        parent = parent or "/"
        twins: list[str] = []
        try:
            siblings = fs.listdir(parent)
        except (OSError, ValueError):
            siblings = []
        twins = [f"{parent.rstrip('/')}/{s}" for s in siblings
                 if s != name and s.lower() == name.lower()]
        swapped = name.swapcase()
        if swapped == name:
            continue
        if twins:
            out.append(DcFinding(
                "case-fold", "high",
                f"{', '.join(twins)} differ from the allowed {directory} only by case and "
                "pass the check (it lower-cases both sides) although they are other "
                "directories here", tuple(twins),
                "rename or remove the look-alike directories, or allow a path without "
                "look-alikes beside it"))
        else:
            probe = f"{parent.rstrip('/')}/{swapped}"
            out.append(DcFinding(
                "case-fold", "medium",
                f"the check lower-cases both sides: {probe}, another directory on a "
                f"case-sensitive filesystem, would pass as if inside {directory} (create_"
                "directory can make it)", (probe,),
                "keep no writable parent above an allowed directory, or run on a "
                "case-insensitive filesystem where the fold is harmless", op="write"))
    return out


def _directory_shapes(policy: DcPolicy) -> list[DcFinding]:
    out: list[DcFinding] = []
    for directory in policy.allowed:
        expanded = expand_home(directory, policy.home)
        if not expanded.startswith("/"):
            out.append(DcFinding(
                "unresolved-directory", "low",
                f"allowed directory {directory!r} is relative: the check never makes it "
                "absolute, so nothing passes through it", (directory,),
                "give allowed directories as absolute paths"))
            continue
        try:
            real = policy.fs.realpath(policy.absolute(directory))
        except (OSError, ValueError):
            continue
        if real.rstrip("/").lower() != policy.absolute(directory).rstrip("/").lower():
            out.append(DcFinding(
                "unresolved-directory", "low",
                f"allowed directory {directory} is reached through a symlink ({real}); the "
                "check compares real paths with it as written, so nothing below it passes",
                (directory,), f"allow {real} instead"))
    return out
