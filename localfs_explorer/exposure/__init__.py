"""What can a model reach? The exposure inventory of a policy on a host.

:func:`exposure` walks what a tool call could name and asks the engine, for every entry,
whether a tool may read it and whether it may write it (``Policy.many_checks()``: the
server's own verdict, never a second implementation of the policy). From the verdicts
it draws findings, each with a severity, the path, the operation, why it matters and
what would remove it:

- ``critical``: writable files that a shell, the server or the system runs or trusts
  (shell start-up files, ``authorized_keys``, crontabs, systemd user units, git hooks,
  site-packages, the server's own code); listed in ``data/exposure_rules.json``;
- ``high``: readable credentials (``data/sensitive_patterns.json``) and hardlinks or
  bind-mounted aliases of them;
- ``medium``: deny-listed files inside a root (refused, but one rename or one setting
  away), roots that are symlinks or sit on a case-insensitive volume, overlapping roots;
- ``info``: readable and writable files and bytes per walked directory, and the largest
  directories.

Which walk runs is the server's to say (:meth:`~localfs_explorer.server.Server.exposure_walk`):
by default the directories the server allows
(:meth:`~localfs_explorer.server.Server.exposure_scope`) are walked, with its own
findings (see :mod:`.allowed`); mcp-gee-sweet has a walk of its own (in its folder) over
its resolved roots in ``roots`` mode, otherwise the server account's home and the
startup directory. Each directory of ``scope`` is walked besides. Symlinks are
never descended: each is checked as the tool call would name it, so a link to a file
inside a root is that file again (counted once) and a link leading out of the roots is a
refusal, not a walk. The walk is bounded (entries, depth), says where it stopped, reports
progress and can be cancelled.

Speed. The walk is one ``os.scandir`` listing per directory. Entry types and inodes come
from the listing instead of a second system call where that is exactly what lstat would
say: on filesystems whose listing carries the real inode number (ext2/3/4, xfs, btrfs,
tmpfs, f2fs) and for entries that are not mount points; a subdirectory is lstat'ed only
on btrfs, whose subvolumes have their own device without being mount points. It isn't
exact on overlayfs, network and FUSE filesystems (a listing's inode may differ from what
stat reports) nor for a mount point (the listing names the directory below the mount),
so there every entry is lstat'ed. On the others, a directory is decided at once where
that gives what the entry-by-entry walk gives: the batch states the verdict of all its
files together (``BatchChecker.check_entries``), only the names a sensitive-file glob can
match are looked at one by one, and the files' inodes are kept in a flat array. A
directory holding a symlink, a deny-listed entry, a file a rule names by path, an inode
listed twice or one already met entry by entry is walked entry by entry instead. Whether
two directories decided at once shared a file (a hardlink) is answered once the walk is
over; if any did, the tree is walked a second time knowing those files, so that each is
counted once under its first name (see mcp-gee-sweet's ``walk_exposure``). ``sizes=True``
(the default) adds one lstat per file for the byte counts; ``sizes=False`` gives counts
without bytes and the fastest walk.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..server import server_of
from .records import (
    FINDING_COLUMNS,
    SEVERITIES,
    WALKING_AGAIN,
    DirSize,
    ExposureError,
    Finding,
    Inventory,
    RootSummary,
    WalkProgress,
    severity_at_least,
)

__all__ = [
    "FINDING_COLUMNS",
    "SEVERITIES",
    "WALKING_AGAIN",
    "DirSize",
    "ExposureError",
    "Finding",
    "Inventory",
    "RootSummary",
    "WalkProgress",
    "default_scope",
    "exposure",
    "severity_at_least",
]


def _no_walk(policy: Any) -> ExposureError:
    server = server_of(policy)
    return ExposureError(f"{server.title or server.id} has no exposure walk: the server "
                         "names no directories a tool call can reach into")


def default_scope(policy: Any) -> list[str]:
    """The directories :func:`exposure` walks when given no scope: what the server's own
    walk starts from (mcp-gee-sweet: the resolved roots in roots mode, else the account's
    home and the startup directory), else each directory the server allows, resolved."""
    server = server_of(policy)
    own = server.exposure_walk(policy)
    if own is not None:
        return own.starts(policy)
    allowed = server.exposure_scope(policy)
    if allowed is None:
        raise _no_walk(policy)
    from .allowed import _AllowedWalk

    walk = _AllowedWalk(policy, allowed.starts, allowed.home, sizes=False,
                        max_entries=1, max_depth=0, progress=None, cancel=None,
                        keep_paths=False, server_dirs=())
    return [path for path, _configured in walk.starts(None)]


def exposure(
    policy: Any,
    scope: Iterable[str] | None = None,
    *,
    sizes: bool = True,
    max_entries: int = 1_000_000,
    max_depth: int = 64,
    over_http: bool | None = None,
    progress: Callable[[WalkProgress], Any] | None = None,
    cancel: threading.Event | Callable[[], bool] | None = None,
    keep_paths: bool = False,
    server_dirs: Sequence[str] | None = None,
) -> Inventory:
    """The exposure inventory of ``policy`` on its filesystem.

    Args:
        policy: the resolved policy (its ``fs`` is the host walked: this machine, a
            snapshot or a described host).
        scope: directories to walk besides the default ones (:func:`default_scope`);
            ``/`` allowed.
        sizes: count bytes too (one lstat per entry); False is faster.
        max_entries, max_depth: where the walk stops; the inventory says so.
        over_http: whether the tool calls arrive over HTTP (default: by transport).
        progress: called with a :class:`WalkProgress` every few thousand entries.
        cancel: a ``threading.Event`` (or a callable) that stops the walk when set;
            the inventory then has ``cancelled`` set and says where it stopped.
        keep_paths: keep the resolved paths tools can read and write
            (``Inventory.readable`` / ``writable``), for comparing two policies.
        server_dirs: directories holding the server's code (default: its package
            directory); writable code there is critical.

    Raises :class:`ExposureError` for limits out of range and for a server that has no
    exposure walk.
    """
    if max_entries < 1 or max_depth < 0:
        raise ExposureError("the entry limit must be at least 1 and the depth limit at least 0")
    server = server_of(policy)
    scope_list = list(scope) if scope is not None else None
    own = server.exposure_walk(policy)
    if own is not None:
        inventory: Inventory = own.walk(
            policy, scope_list, sizes=sizes, max_entries=max_entries, max_depth=max_depth,
            over_http=over_http, progress=progress, cancel=cancel, keep_paths=keep_paths,
            server_dirs=server_dirs)
        return inventory
    allowed = server.exposure_scope(policy)
    if allowed is None:
        raise _no_walk(policy)
    # The shared walk of the directories the server allows, through the policy's own
    # checks (no HTTP transport, no deny-list of its own).
    from .allowed import allowed_exposure

    return allowed_exposure(
        policy, allowed.starts, allowed.home, scope_list,
        sizes=sizes, max_entries=max_entries, max_depth=max_depth, progress=progress,
        cancel=cancel, keep_paths=keep_paths, server_dirs=server_dirs or (),
        same_for_write=allowed.same_for_write)


def progress_line(p: WalkProgress, started: float | None = None) -> str:
    """One line describing a running walk (the CLI rewrites it in place on a terminal)."""
    rate = ""
    if started is not None:
        elapsed = max(time.monotonic() - started, 1e-6)
        rate = f", {p.entries / elapsed:,.0f}/s"
    current = p.current if len(p.current) <= 60 else "…" + p.current[-59:]
    again = f"{WALKING_AGAIN}: " if p.again else ""
    return (f"{again}walked {p.entries:,} entries in {p.directories:,} directories{rate}: "
            f"{current}")
