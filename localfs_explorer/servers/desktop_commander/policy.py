"""DesktopCommanderMCP's path check (``validatePath``, 0.2.52), over a :class:`FileSystem`.

Every file tool runs a path through the same steps before it touches the disk; each rule
below carries the reason the verdict depends on it.

1. ``~`` and ``~/...`` become the home directory (node's ``os.homedir()``, i.e. ``HOME``);
   ``~user`` is left alone and so is relative to the working directory.
2. The path is made absolute against the server process's working directory and folded
   (node's ``path.resolve``: ``..`` is undone by text, before any symlink is followed).
3. Its real path is taken. When it doesn't exist (``ENOENT``), the real path of its
   parent plus the last name; when the parent is missing too, the real path of the
   deepest ancestor that resolves plus the rest. A dangling symlink is "missing", so
   it is checked as the link's own name -- and a write through it lands at its target.
   Any other failure (a file used as a directory, a symlink loop) refuses the call with
   node's error text.
4. An allow-list that is empty or holds ``"/"`` lets everything through.
5. Otherwise the path and each allowed directory are normalised (``~`` expanded on the
   directory too), **lower-cased**, stripped of one trailing ``/``, and compared: equal,
   or the path starts with the directory plus ``/``. Allowed directories are never
   resolved: one reached through a symlink matches nothing below it, and a relative one
   matches nothing at all. The case fold lets ``/data/Allowed`` through for
   ``/data/allowed`` on a case-sensitive filesystem, where those are two directories.
6. The tool then works on the path of step 3 (the resolved one).
"""

from __future__ import annotations

import errno as _errno
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal, NamedTuple

from ...fs.base import FileSystem
from . import nodepath
from .messages import NOT_ALLOWED, NUL_IN_PATH, RESOLVE_FAILED, inspect_string, node_error
from .settings import DcSettings

__all__ = ["REASONS", "DcPolicy", "DcReason", "DcVerdict", "case_twin", "matches"]

DcReason = Literal["inside", "everything", "outside", "resolve-failed"]
#: The words a verdict's ``reason`` takes.
REASONS: tuple[str, ...] = ("inside", "everything", "outside", "resolve-failed")


class DcVerdict(NamedTuple):
    """One path through the check: the answer and how it was reached.

    ``resolved`` is the path the tool does its I/O on (None when the check failed before
    resolving); ``absolute`` the spelling after steps 1-2; ``matched`` the allowed
    directory (as configured) that let it through; ``case_only`` says it passed only
    because both sides were lower-cased.
    """

    path: str
    allowed: bool
    reason: DcReason
    message: str
    resolved: str | None
    absolute: str
    matched: str | None = None
    case_only: bool = False


def _folded(path: str, home: str) -> str:
    """Step 5's spelling of a path or allowed directory: ``~`` expanded, normalised,
    lower-cased, one trailing separator dropped."""
    text = nodepath.normalize(expand_home(path, home)).lower()
    return text[:-1] if text.endswith("/") else text


def _plain(path: str, home: str) -> str:
    """Step 5 without the case fold (to tell a case-only match apart)."""
    text = nodepath.normalize(expand_home(path, home))
    return text[:-1] if text.endswith("/") else text


def expand_home(path: str, home: str) -> str:
    """Step 1: ``~`` and ``~/...`` only."""
    if path == "~" or path.startswith("~/"):
        return nodepath.join(home, path[1:])
    return path


def case_twin(path: str) -> str:
    """``path`` with its last name's case swapped: another directory on a case-sensitive
    filesystem, the same one to the check."""
    parent, _, name = path.rpartition("/")
    return f"{parent}/{name.swapcase()}"


def matches(candidate: str, directory: str) -> bool:
    """Equal, or ``candidate`` below ``directory`` at a separator (both already folded)."""
    return candidate == directory or candidate.startswith(directory + "/")


class DcPolicy:
    """The check of one server process: its settings, ``HOME`` and working directory."""

    def __init__(self, settings: DcSettings, *, home: str, cwd: str, fs: FileSystem) -> None:
        self.settings = settings
        self.home = home
        self.cwd = cwd
        self.fs = fs
        self.allowed = settings.allowed
        self.everything = settings.everything
        # Folded once: the check compares against these for every path.
        # (entry as configured, folded, folded + "/", unfolded, unfolded + "/")
        self._dirs = tuple((d, f, f + "/", e, e + "/") for d in self.allowed
                           for f, e in [(_folded(d, home), _plain(d, home))])
        self._listed = ", ".join(self.allowed)

    # -- step 3

    def _realpath(self, path: str) -> str:
        """Strict real path (``OSError`` with the errno when it can't be resolved)."""
        real, st = self.fs.resolve(path)
        if st is None:
            self.fs.stat(path)  # raises when missing, dangling, or not a directory
        return real

    def _resolve(self, absolute: str) -> str:
        """Step 3 (``OSError`` for a failure other than a missing path)."""
        try:
            return self._realpath(absolute)
        except OSError as exc:
            if exc.errno != _errno.ENOENT:
                raise
        try:
            parent = self._realpath(nodepath.dirname(absolute))
            return nodepath.join(parent, nodepath.basename(absolute))
        except OSError:
            pass
        current, rest = absolute, list[str]()
        while True:
            parent = nodepath.dirname(current)
            if parent == current:
                return absolute
            rest.insert(0, nodepath.basename(current))
            current = parent
            try:
                return nodepath.join(self._realpath(current), *rest)
            except OSError:
                continue

    # -- the check

    def absolute(self, path: str) -> str:
        """Steps 1-2."""
        return nodepath.resolve(self.cwd, expand_home(path, self.home))

    def validate(self, path: str) -> DcVerdict:
        """The verdict for ``path`` as a tool's argument."""
        absolute = self.absolute(path)
        if "\x00" in absolute:
            # node refuses the argument before any system call (not ENOENT: a failure).
            error = NUL_IN_PATH.format(shown=inspect_string(absolute))
            return DcVerdict(path, False, "resolve-failed",
                             RESOLVE_FAILED.format(absolute=absolute, error=error), None,
                             absolute)
        try:
            resolved = self._resolve(absolute)
        except OSError as exc:
            return self._failed(path, absolute, exc)
        return self._judge(path, absolute, resolved)

    def _failed(self, path: str, absolute: str, exc: OSError) -> DcVerdict:
        err = exc.errno or _errno.EIO
        message = RESOLVE_FAILED.format(absolute=absolute, error=node_error(err, absolute))
        return DcVerdict(path, False, "resolve-failed", message, None, absolute)

    def _match(self, resolved: str) -> tuple[str, bool] | None:
        """Step 5 for a resolved path: the entry (as configured) that lets it through and
        whether only the case fold did, or None."""
        # A resolved path is absolute and folded already (a realpath, then plain names),
        # so step 5's normalisation leaves it as it is, bar a trailing separator.
        plain = resolved[:-1] if resolved.endswith("/") else resolved
        if "//" in plain or "/." in plain:
            plain = _plain(resolved, self.home)
        folded = plain.lower()
        for given, directory, below, exact, exact_below in self._dirs:
            # matches(), inlined: this runs for every entry a walk meets.
            if folded == directory or folded.startswith(below):
                return given, not (plain == exact or plain.startswith(exact_below))
        return None

    def _judge(self, path: str, absolute: str, resolved: str) -> DcVerdict:
        if self.everything:
            return DcVerdict(path, True, "everything", "", resolved, absolute)
        hit = self._match(resolved)
        if hit is not None:
            return DcVerdict(path, True, "inside", "", resolved, absolute, hit[0], hit[1])
        message = NOT_ALLOWED.format(path=path, dirs=self._listed)
        return DcVerdict(path, False, "outside", message, None, absolute)

    @contextmanager
    def many_checks(self) -> Iterator[DcBatch]:
        """Checks for a walk: the real path of each directory is looked up once."""
        yield DcBatch(self)


class DcBatch:
    """The same verdicts as :meth:`DcPolicy.validate`, for many paths in a row: an entry
    that is not a symlink, under a directory already resolved, costs one ``lstat``."""

    def __init__(self, policy: DcPolicy) -> None:
        self.policy = policy
        #: directory as spelled -> its real path (None: it doesn't resolve).
        self._real: dict[str, str | None] = {}
        self._lstat = policy.fs.lstat
        #: real directory -> the entry every name in it passes by (and whether only by
        #: case), for directories inside an entry whose names can't match another entry
        #: first (no entry is a name in them).
        self._inside: dict[str, tuple[str, bool]] = {}
        self._entry_parents = {f.rpartition("/")[0] for _, f, _, _, _ in policy._dirs}

    def _remember(self, directory: str) -> None:
        try:
            self._real[directory] = self.policy._realpath(directory or "/")
        except OSError:
            self._real[directory] = None

    def validate(self, path: str) -> DcVerdict:
        policy = self.policy
        if "\x00" in path:
            return policy.validate(path)
        if path[:1] == "/" and "//" not in path and "/." not in path and path[-1:] != "/":
            absolute = path  # plainly spelled: path.resolve would leave it as it is
        else:
            absolute = policy.absolute(path)
        parent, _, name = absolute.rpartition("/")
        if parent not in self._real:
            self._remember(parent)
        real_parent = self._real[parent]
        if real_parent is None or not name:
            return policy.validate(path)
        try:
            mode = self._lstat(absolute).st_mode
        except FileNotFoundError:
            mode = 0  # missing: realpath fails with ENOENT and the parent's is used
        except OSError:
            return policy.validate(path)
        if _is_link(mode):
            return policy.validate(path)
        # Not a link, under a resolved directory: its real path is the parent's plus its
        # name (a folded absolute path has no '.' or '..' names for path.join to undo).
        resolved = real_parent + "/" + name if real_parent != "/" else "/" + name
        hit = self._inside.get(real_parent)
        if hit is None and not policy.everything:
            hit = self._inside_of(real_parent)
        if hit is not None:
            return DcVerdict(path, True, "inside", "", resolved, absolute, hit[0], hit[1])
        return policy._judge(path, absolute, resolved)

    def _inside_of(self, real_dir: str) -> tuple[str, bool] | None:
        """The entry a name in ``real_dir`` passes by, when that is the directory's own
        (remembered); None to judge each name."""
        hit = self.policy._match(real_dir)
        folded = real_dir.lower() if real_dir != "/" else ""
        if hit is not None and folded not in self._entry_parents:
            # Inside an entry, so every name in it is too; and no entry is one of its
            # names, so no entry listed earlier can match a name first.
            self._inside[real_dir] = hit
        return hit if real_dir in self._inside else None


_is_link = stat.S_ISLNK
