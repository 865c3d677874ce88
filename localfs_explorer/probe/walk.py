"""Folder walks: the entries a call lists and checks inside a folder.

The walks follow each tool's code in the server: the top-level files of a folder
(``upload_local_folder``), one destination per file of a Drive folder
(``download_folder``), a tree (``tree`` walks), and a sync's entries on both sides, each
entry spelt the way pathlib joins it and bounded by the call's walk limit. The server's
rules for entry names (system files, its partial downloads, names it won't join) live
here too.
"""

from __future__ import annotations

import posixpath
import stat as _stat
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..catalog import DIRECTIONS, PathParam, Tool
from ..vocab import Op
from .tool_paths import (
    DriveTree,
    _absolute,
    _is_file,
    _is_partial,
    _prefix,
    _spelled,
    _unsafe_name,
    _walked,
)

if TYPE_CHECKING:
    from ..server import Verdict as Decision
    from .tool_paths import ProbeState


#: How deep a folder walk descends before it stops and says so.
MAX_WALK_DEPTH = 64

# Which check a sync entry gets, by (local side, Drive side, direction); None = skipped
# unchecked, the way the server plans a name the direction never touches.
_SYNC_OPS: dict[tuple[bool, bool, str], str | None] = {
    (True, True, "upload"): "read",
    (True, True, "download"): "write",
    (True, True, "bidirectional"): "read_write",
    (True, False, "upload"): "read",
    (True, False, "download"): None,
    (True, False, "bidirectional"): "read",
    (False, True, "upload"): None,
    (False, True, "download"): "write",
    (False, True, "bidirectional"): "write",
}
_ROOT_OPS: dict[str, Op] = {"upload": "read", "download": "write", "bidirectional": "read_write"}


#: Names the server's folder tools leave out unless told not to (``skip_system_files``).
SYSTEM_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini", ".localized"})
#: ``export_format`` values the server's Drive tools accept.
EXPORT_FORMATS = (
    "pdf", "html", "txt", "docx", "odt", "rtf", "epub", "csv", "xlsx", "ods", "pptx")
def run_top_files(probe: ProbeState, tool: Tool, label: str, root: str, tier: str) -> None:
    """upload_local_folder: the folder, then each of its top-level regular files."""
    root_d = probe.check(root, "read")
    probe.record(root_d, label, kind="root", tier=tier)
    if not root_d.allowed:
        return
    fs = probe.policy.fs
    # The server lists the folder through its resolved path and checks each file
    # under that spelling.
    folder = root_d.resolved or _absolute(probe.policy, root)
    if not fs.is_dir(folder):
        probe.fail(f"{tool.name}: no directory found at {root!r} (the tool's own error)")
        return
    prefix = folder.rstrip("/") + "/"
    names = [n for n in probe.listdir(folder) if _is_file(fs, prefix + n)]
    names = [n for n in names if not _is_partial(n)]
    if probe.arg("skip_system_files") is not False:
        names = [n for n in names if n not in SYSTEM_FILES]
    in_drive: set[str] = set()
    if probe.arg("skip_if_exists") is not False:
        if probe.drive is None:
            probe.notes.append(
                "the Drive folder's files weren't given (drive_names): no local file is "
                "assumed to be skipped as already uploaded")
        elif probe.arg("convert"):
            probe.notes.append("with convert, a file is skipped only when Drive holds it "
                               "already converted; no file is assumed skipped")
        else:
            in_drive = probe.drive.files
    probe.note_dry_run()
    skipped = 0
    count = 0
    with probe.policy.many_checks() as batch:
        for n in sorted(names):
            if n in in_drive:
                skipped += 1
                continue
            if count >= probe.walk_limit:
                probe.walk_stopped(label, count)
                break
            count += 1
            d = batch.check(prefix + n, "read", over_http=probe.over_http)
            probe.record(d, label, kind="entry", tier=tier, step="failed", fails_call=False)
    if skipped:
        probe.notes.append(f"{skipped} file(s) skipped unchecked: already in the Drive "
                           "folder (skip_if_exists)")

def run_drive_files(probe: ProbeState, tool: Tool, label: str, root: str, tier: str) -> None:
    """download_folder: the destination, then each file of the Drive folder there."""
    root_d = probe.check(root, "write")
    probe.record(root_d, label, kind="root", tier=tier)
    if not root_d.allowed or probe.blocked(tool, label, root, True):
        return
    if probe.drive_names is None:
        probe.notes.append(
            f"the Drive folder's files weren't given (drive_names): no file under {label} "
            "is checked")
        return
    fs = probe.policy.fs
    raw_prefix = _prefix(_spelled(root))
    abs_prefix = _absolute(probe.policy, root).rstrip("/") + "/"
    skip_existing = probe.arg("skip_if_exists") is not False
    claimed: set[str] = set()
    unclaimed = 0
    folders: list[str] = []
    with probe.policy.many_checks() as batch:
        for name in probe.drive_names:
            if "/" in name.rstrip("/") or name.endswith("/"):
                folders.append(name.split("/", 1)[0])
                continue
            if _unsafe_name(name) or _is_partial(name):
                probe.notes.append(f"Drive name {name!r} can't be a local file name: "
                                   "failed without a check")
                continue
            if len(claimed) + unclaimed >= probe.walk_limit:
                probe.walk_stopped(label, probe.walk_limit)
                break
            d = batch.check(raw_prefix + name, "write", over_http=probe.over_http)
            probe.record(d, label, kind="entry", tier=tier, step="failed", fails_call=False)
            if not d.allowed or (skip_existing and fs.exists(abs_prefix + name)):
                unclaimed += 1  # refused or skipped: checked all the same
                continue
            if name in claimed:
                probe.notes.append(f"duplicate Drive name {name!r}: only the first is "
                                   "downloaded")
            claimed.add(name)
    if folders:
        probe.notes.append(
            f"{len(dict.fromkeys(folders))} Drive subfolder(s) skipped: download_folder "
            "never enters them")

def run_walk(probe: ProbeState, param: PathParam, label: str, root: Any, tier: str) -> None:
    """A folder a user catalog says is walked: every entry, descending."""
    root_d = probe.check(root, param.op)
    probe.record(root_d, label, kind="root", tier=tier)
    if not root_d.allowed:
        return
    if probe.refusal is not None:
        probe.notes.append(f"{label} not walked: the call is refused before it starts")
        return
    probe.note_dry_run()
    absolute = _absolute(probe.policy, root)
    if param.op == "write" and probe.drive is None:
        probe.notes.append(
            f"the Drive side of {label} wasn't given (drive_names): each existing "
            "local entry is checked as a file the download could overwrite"
        )
    with probe.policy.many_checks() as batch:
        walker = _CallFolderWalker(probe, label, tier, batch, root_d.resolved)
        if param.op == "write" and probe.drive is not None:
            walker.write_drive_files(root, probe.drive)
        elif probe.policy.fs.is_dir(absolute):
            walker.walk_local(root, absolute, param.op, 0)
        elif param.op == "read":
            probe.notes.append(
                f"{label} is not a directory on the target filesystem; the tool "
                "reports that as its own error"
            )
    walker.finish()

def run_sync(probe: ProbeState, tool: Tool, checked: set[str]) -> None:
    """sync_folder: its own validation, the root, the result file, then the walk."""
    spec = tool.direction
    assert spec is not None  # the caller checked
    direction = probe.arg(spec.argument)
    if direction is None:
        direction = spec.default
    # The tool's own validation, in its order and its words (the model reads them).
    if direction not in DIRECTIONS:
        probe.fail(f"Invalid direction '{direction}'. "
                   "Use 'upload', 'download', or 'bidirectional'.")
        return
    export_format = probe.arg("export_format")
    if export_format and export_format not in EXPORT_FORMATS:
        probe.fail(f"Unknown export_format '{export_format}'. "
                   f"Valid: {', '.join(EXPORT_FORMATS)}")
        return
    resolve = probe.arg("resolve")
    if resolve and isinstance(resolve, Mapping):
        bad = sorted(str(name) for name, mode in resolve.items()
                     if mode not in ("keep_drive", "keep_local"))
        if bad:
            probe.fail(f"Invalid resolve value for {', '.join(repr(n) for n in bad)}. "
                       "Use 'keep_drive' or 'keep_local'.")
            return
        if direction == "download" and "keep_local" in resolve.values():
            probe.fail("resolve 'keep_local' uploads, which direction='download' never does. "
                       "Use direction='upload' or 'bidirectional', or 'keep_drive'.")
            return
    walked = next(p for p in tool.params if p.op == "direction")
    root = probe.arguments.get(walked.location)
    if not isinstance(root, str):
        probe.fail(f"{tool.name}: {walked.location} must be a string")
        return
    checked.add(root)
    label = walked.location
    root_d = probe.check(root, _ROOT_OPS[direction])
    probe.record(root_d, label, kind="root")
    if not root_d.allowed or probe.blocked(tool, label, root, True):
        return
    result = next((p for p in tool.params if p.op == "write"), None)
    result_value = probe.arguments.get(result.location) if result is not None else None
    if result is not None and result_value:
        if not isinstance(result_value, str):
            probe.fail(f"{tool.name}: {result.location} must be a string")
            return
        checked.add(result_value)
        d = probe.check(result_value, "write")
        probe.record(d, result.location, kind="path")
        if not d.allowed:
            return
        if probe.blocked(tool, result.location, result_value,
                         posixpath.basename(result_value) in ("", ".", "..")):
            return
        # Both checks resolved their path already: the same realpath, not asked again.
        fs = probe.policy.fs
        inside = d.resolved or fs.realpath(_absolute(probe.policy, result_value))
        top = root_d.resolved or fs.realpath(_absolute(probe.policy, root))
        if inside == top or inside.startswith(top.rstrip("/") + "/"):
            probe.fail(f"{tool.name}: {result.location} ({result_value!r}) must not be "
                       f"{label} ({root!r}) or a path inside it")
            return
    probe.note_dry_run()
    if probe.drive is None:
        probe.notes.append(
            "the Drive side wasn't given (drive_names): each local file is treated "
            "as present on both sides"
        )
    if probe.arg("resolve"):
        probe.notes.append("with resolve, the server plans the sync twice: each entry "
                           "is checked twice, with the same verdict")
    with probe.policy.many_checks() as batch:
        walker = _CallFolderWalker(probe, label, "catalog", batch, root_d.resolved)
        walker.sync_level(root, _absolute(probe.policy, root), probe.drive, direction, 0,
                          recursive=probe.arg("recursive") is True,
                          skip_system=probe.arg("skip_system_files") is not False)
    walker.finish()
    if result is not None and result_value and isinstance(result_value, str):
        # The result is written after the walk; a directory gets its default name.
        probe.run_destination(tool, result.model_copy(update={"op": "write"}),
                              result.location, result_value, "catalog")

# -- Markdown/HTML images --


class _CallFolderWalker:
    """A bounded walk of a folder on the target filesystem, inside ``many_checks()``."""

    def __init__(
        self, probe: ProbeState, label: str, tier: str, batch: Any, root: str | None
    ) -> None:
        self.probe = probe
        self.label = label
        self.tier = tier
        self.batch = batch
        self.count = 0
        self.stopped: str | None = None
        self.skipped: list[str] = []
        # Folders already walked, by resolved path: a symlink back up the tree is a loop.
        self.seen: set[str] = {root} if root else set()

    def finish(self) -> None:
        """Report why the walk stopped early and which names it skipped."""
        if self.stopped:
            self.probe.notes.append(self.stopped)
        if self.skipped:
            shown = ", ".join(self.skipped[:5]) + (" …" if len(self.skipped) > 5 else "")
            self.probe.notes.append(
                f"{len(self.skipped)} name(s) skipped unchecked, the direction never "
                f"touches them: {shown}"
            )

    def _budget(self) -> bool:
        if self.stopped:
            return False
        if self.count >= self.probe.walk_limit:
            self._out_of_budget()
            return False
        self.count += 1
        return True

    def _out_of_budget(self) -> None:
        self.stopped = (
            f"walk of {self.label} stopped after {self.count} entries (walk_limit); "
            "entries beyond it were not checked"
        )

    def _deep(self, depth: int, where: str) -> bool:
        if depth >= MAX_WALK_DEPTH:
            self.stopped = (
                f"walk of {self.label} stopped at depth {MAX_WALK_DEPTH} ({where}); "
                "deeper entries were not checked"
            )
            return True
        return False

    def _list(self, absolute: str) -> list[str]:
        try:
            return sorted(self.probe.policy.fs.listdir(absolute))
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            self.probe.notes.append(f"can't list {absolute}: {reason}")
            return []

    def _first_visit(self, d: Decision) -> bool:
        key = d.resolved or d.path
        if key in self.seen:
            self.probe.notes.append(
                f"{d.path} leads back to a folder already walked; not entered again"
            )
            return False
        self.seen.add(key)
        return True

    def _entry(self, path: str, op: str, step: str) -> Decision:
        d = self.batch.check(path, op, over_http=self.probe.over_http)
        self.probe.record(d, self.label, kind="entry", tier=self.tier, step=step,
                          fails_call=False)
        return d

    def walk_local(self, raw_dir: str, abs_dir: str, op: str, depth: int) -> None:
        """Check every existing entry; descend into allowed subfolders.

        Depth first, each subfolder entered right after its own check, with the folders
        being listed kept on a list rather than the call stack: a deep tree costs no
        recursion.
        """
        if self._deep(depth, raw_dir):
            return
        # The per-entry steps of _budget, _child and _entry, written out: a walk makes
        # them once per entry, and entries are most of a walking call's cost.
        probe = self.probe
        is_dir, check, record = probe.policy.fs.is_dir, self.batch.check, probe.record
        over_http, label, tier, limit = probe.over_http, self.label, self.tier, probe.walk_limit
        folders: list[tuple[str, str, Iterator[str], int]] = [
            (_prefix(_spelled(raw_dir)), abs_dir.rstrip("/") + "/",
             iter(self._list(abs_dir)), depth)]
        while folders:
            raw_prefix, abs_prefix, names, level = folders[-1]
            name = next(names, None)
            if name is None:
                folders.pop()
                continue
            if self.count >= limit:
                self._out_of_budget()
                return
            self.count += 1
            raw, absolute = raw_prefix + name, abs_prefix + name
            d = check(raw, op, over_http=over_http)
            record(d, label, kind="entry", tier=tier, step="failed", fails_call=False)
            if d.allowed and is_dir(absolute) and self._first_visit(d):
                if self._deep(level + 1, raw):
                    return
                folders.append((_prefix(_spelled(raw)), absolute.rstrip("/") + "/",
                                iter(self._list(absolute)), level + 1))

    def write_drive_files(self, raw_root: str, drive: DriveTree) -> None:
        """download_folder with a known Drive side: each file at its destination."""
        for rel in drive.iter_files():
            if not self._budget():
                return
            parts = rel.split("/")
            raw = raw_root
            for part in parts:
                raw = _walked(raw, part)
            self._entry(raw, "write", "failed")

    def sync_level(
        self, raw_dir: str, abs_dir: str, drive: DriveTree | None, direction: str, depth: int,
        *, recursive: bool, skip_system: bool,
    ) -> None:
        """A sync from one folder down: its files by the direction table, then (recursive
        only) its subfolders, each checked before it is entered.

        ``drive`` is the Drive folder's side; None when unknown, and then each local
        file is taken as present on both sides. Each folder's subfolders are entered in
        order, depth first, from a list of pending folders rather than by recursion.
        """
        pending: list[tuple[Iterator[tuple[str, str, DriveTree | None]], int]] = [
            (iter([(raw_dir, abs_dir, drive)]), depth)]
        while pending:
            folders, level = pending[-1]
            folder = next(folders, None)
            if folder is None:
                pending.pop()
                continue
            children = self._sync_folder(*folder, direction, level, recursive=recursive,
                                         skip_system=skip_system)
            if self.stopped:
                return
            if children:
                pending.append((iter(children), level + 1))

    def _sync_folder(
        self, raw_dir: str, abs_dir: str, drive: DriveTree | None, direction: str, depth: int,
        *, recursive: bool, skip_system: bool,
    ) -> list[tuple[str, str, DriveTree | None]]:
        """One folder of a sync; the subfolders to enter next, in order."""
        fs = self.probe.policy.fs
        if self._deep(depth, raw_dir):
            return []
        local_files: set[str] = set()
        local_dirs: set[str] = set()
        abs_prefix = abs_dir.rstrip("/") + "/"
        if fs.is_dir(abs_dir):
            for name in self._list(abs_dir):
                if skip_system and name in SYSTEM_FILES:
                    continue
                try:  # one stat per entry, following symlinks as the server's listing does
                    mode = fs.stat(abs_prefix + name).st_mode
                except (OSError, ValueError):
                    continue
                if _stat.S_ISDIR(mode):
                    local_dirs.add(name)
                elif _stat.S_ISREG(mode) and not _is_partial(name) and "\\" not in name:
                    local_files.add(name)
        if drive is None:
            remote_files, remote_dirs = set(local_files), None
        else:
            remote_files = {n for n in drive.files if not _is_partial(n) and "\\" not in n}
            remote_dirs = drive.folders
        probe = self.probe
        check, record = self.batch.check, probe.record
        over_http, label, tier, limit = probe.over_http, self.label, self.tier, probe.walk_limit
        raw_prefix = _prefix(_spelled(raw_dir))
        for name in sorted(local_files | remote_files):
            op = _SYNC_OPS[(name in local_files, name in remote_files, direction)]
            if op is None:
                self.skipped.append(raw_prefix + name)
                continue
            if self.count >= limit:
                self._out_of_budget()
                return []
            self.count += 1
            d = check(raw_prefix + name, op, over_http=over_http)
            record(d, label, kind="entry", tier=tier, step="local_read_fail", fails_call=False)
        folders = local_dirs | (set(remote_dirs) if remote_dirs is not None else set())
        if not recursive:
            if folders:
                probe.notes.append(
                    f"{len(folders)} subfolder(s) of {raw_dir} not entered: recursive is false")
            return []
        children: list[tuple[str, str, DriveTree | None]] = []
        for name in sorted(folders):
            if name in (".", "..") or "\\" in name:
                continue
            in_local = name in local_dirs
            in_drive = True if remote_dirs is None else name in remote_dirs
            op = _SYNC_OPS[(in_local, in_drive, direction)]
            raw, absolute = raw_prefix + name, abs_prefix + name
            if op is None:
                self.skipped.append(raw + "/")
                continue
            if self.count >= limit:
                self._out_of_budget()
                return []
            self.count += 1
            d = check(raw, op, over_http=over_http)
            record(d, label, kind="entry", tier=tier, step="local_read_fail", fails_call=False)
            if not d.allowed:
                continue
            if not in_local and (fs.exists(absolute) or fs.is_symlink(absolute)):
                probe.notes.append(f"{raw}: a local file is in the way of the Drive folder; "
                                   "not synced")
                continue
            if in_local and not self._first_visit(d):
                continue
            sub = None if remote_dirs is None else remote_dirs.get(name) or DriveTree()
            children.append((raw, absolute, sub))
        return children
