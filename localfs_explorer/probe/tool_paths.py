"""What a call's paths share between the call and its folder walks.

How the server's tools spell the local paths they touch (pathlib's joins, the names they
refuse to join, the default file name made safe, the Drive side as a tree), and
:class:`ProbeState`, what a walk records its verdicts into. :mod:`.call` and
:mod:`.walk` both build on this module; neither imports the other's internals (the call
runs the walks, the walks see the call only as a :class:`ProbeState`).
"""

from __future__ import annotations

import functools
import posixpath
import re
import stat as _stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..catalog import PathParam, Tool
    from .records import PathVerdict


class ProbeState(Protocol):
    """The probe of one call, as its folder walks use it (``call._CallProbe`` is one)."""

    policy: Any
    arguments: Mapping[str, Any]
    over_http: bool | None
    walk_limit: int
    drive: DriveTree | None
    drive_names: list[str] | None
    notes: list[str]
    refusal: str | None
    check: Callable[..., Any]

    def arg(self, name: str) -> Any: ...  # pragma: no cover - protocol

    def fail(self, message: str) -> None: ...  # pragma: no cover - protocol

    def record(self, d: Any, argument: str, *, kind: str, tier: str = ...,
               step: str | None = ..., advisory: bool = ..., sensitive: str | None = ...,
               fails_call: bool = ...) -> PathVerdict: ...  # pragma: no cover - protocol

    def listdir(self, absolute: str) -> list[str]: ...  # pragma: no cover - protocol

    def blocked(self, tool: Tool, label: str, value: str,
                wants_dir: bool) -> bool: ...  # pragma: no cover - protocol

    def run_destination(self, tool: Tool, param: PathParam, label: str, value: str,
                        tier: str) -> None: ...  # pragma: no cover - protocol

    def note_dry_run(self) -> None: ...  # pragma: no cover - protocol

    def walk_stopped(self, label: str, count: int) -> None: ...  # pragma: no cover - protocol


# The server's own temporary download files, never uploaded, synced or downloaded to.
_PARTIAL = re.compile(r"\.gee-sweet-partial-[0-9a-f]{16}")


def _is_partial(name: str) -> bool:
    return _PARTIAL.fullmatch(name) is not None


def _unsafe_name(name: str) -> bool:
    """A Drive name the server won't join onto a local folder (not one plain component)."""
    return (not name or "\0" in name or "/" in name or "\\" in name or name in (".", ".."))


def _safe_filename(name: str) -> str:
    """A caller-given default file name as one plain component, the server's way."""
    for ch in ("/", "\\", "\0"):
        name = name.replace(ch, "_")
    if name in ("", ".", "..") or _is_partial(name):
        name = "_" + name
    return name


def _is_file(fs: Any, path: str) -> bool:
    """Whether ``path`` is a regular file, following symlinks."""
    try:
        return _stat.S_ISREG(fs.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _absolute(policy: Any, path: str) -> str:
    """``path`` joined to the server's startup directory when relative."""
    return path if path.startswith("/") else posixpath.join(policy.cwd, path)


@functools.lru_cache(maxsize=4096)
def _spelled(path: str) -> str:
    """A folder as pathlib spells it: "." and doubled slashes dropped, ".." kept."""
    return str(PurePosixPath(path))


def _child(spelled_parent: str, name: str) -> str:
    """``str(Path(parent) / name)`` for a parent already in pathlib's spelling."""
    if spelled_parent == ".":
        return name
    if spelled_parent.endswith("/"):  # "/" (or "//")
        return spelled_parent + name
    return spelled_parent + "/" + name


def _prefix(spelled_parent: str) -> str:
    """What :func:`_child` puts before a name: ``_child(p, n) == _prefix(p) + n``."""
    if spelled_parent == ".":
        return ""
    return spelled_parent if spelled_parent.endswith("/") else spelled_parent + "/"


def _walked(parent: str, name: str) -> str:
    # The server walks with pathlib, so entries are spelled the way pathlib joins them.
    return _child(_spelled(parent), name)


class DriveTree:
    """The Drive side of a sync or download, built from relative names (``a/b.txt``)."""

    __slots__ = ("files", "folders", "unsafe")

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.folders: dict[str, DriveTree] = {}
        #: Names the server refuses to map to a local path (it skips them unchecked).
        self.unsafe: list[str] = []

    @classmethod
    def from_names(cls, names: Iterable[str]) -> DriveTree:
        tree = cls()
        for name in names:
            parts = [p for p in str(name).split("/") if p not in ("", ".")]
            if not parts:
                continue
            if any(p == ".." or "\0" in p or "\\" in p for p in parts):
                # A Drive name that would climb out of the destination (or can't be a
                # file name) is planned as the server's unsafe-name skip, never checked.
                tree.unsafe.append(str(name))
                continue
            node = tree
            for part in parts[:-1]:
                node = node.folders.setdefault(part, cls())
            if str(name).endswith("/"):
                node.folders.setdefault(parts[-1], cls())
            else:
                node.files.add(parts[-1])
        return tree

    def names(self) -> set[str]:
        return self.files | set(self.folders)

    def iter_files(self, prefix: str = "") -> Iterator[str]:
        """Every file's relative name: a folder's files, then each subfolder's, in name
        order (depth first, from a list of pending folders: no recursion per level)."""
        pending: list[Iterator[tuple[str, DriveTree]]] = [iter([(prefix, self)])]
        while pending:
            step = next(pending[-1], None)
            if step is None:
                pending.pop()
                continue
            where, node = step
            for f in sorted(node.files):
                yield where + f
            pending.append(iter([(f"{where}{name}/", node.folders[name])
                                 for name in sorted(node.folders)]))


