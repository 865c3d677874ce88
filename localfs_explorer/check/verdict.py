"""The check: one path in, the server's :class:`Decision` out.

The order is the server's (mcp-gee-sweet 0.9.5) and matters:

1. tripwire: a defaulted ``full`` mode refuses every request that arrived over HTTP;
2. ``off`` refuses (naming the invalid setting, when that is why);
3. resolve: a single check takes ``realpath`` of the whole string (a relative one against
   the startup directory); a batch resolves the parent once and joins the name (see
   :class:`BatchChecker`). No stat of the target comes first, so a refusal reads the same
   whether the path exists. A path ``realpath`` raises on (NUL byte, lone surrogate) is
   refused with the error's text;
4. ``roots`` requires ``Path(resolved).is_relative_to(root)`` for some resolved root;
5. the deny-list, in every mode: the target is statted; an existing one matches an entry
   by exact path or file identity (hardlinks, bind mounts, case variants), a missing one
   by ``normcase``+``casefold`` of its realpath (the write case); deny dirs match by
   case-folded containment, whatever the target. A single check stats the deny-list
   entries again each time; a batch uses the stats taken when it started.

A Decision's ``trace`` and ``hint`` are worked out only when read, so batch checks pay
for the verdict alone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import re
import stat as _stat
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import LocalfsError
from .paths import _irregular, fold, is_within, normcase
from .vocab import OPS, Mode, Op, Reason

if TYPE_CHECKING:
    from .fs.base import StatLike
    from .policy import CompiledPolicy, DenyEntry, Policy

# The model-visible refusal texts, worded exactly as the server words them.
OFF_EXPLICIT = "local file access is disabled on this server (LOCAL_FILE_ACCESS=off)"
OFF_DEFAULTED = (
    "local file access is disabled on this server: LOCAL_FILE_ACCESS is unset, "
    "which means off for the {transport} transport"
)
OUTSIDE_ROOTS = (
    "{path} is outside this server's LOCAL_FILE_ROOTS. Allowed directories: {roots}"
)
DENIED = (
    "{path} is one of this server's own credential, config, cache, or log files "
    "and can't be {verb} by a tool"
)
TRIPWIRE = (
    "local file access is disabled for HTTP requests unless LOCAL_FILE_ACCESS is set "
    "explicitly"
)
# A path the server's realpath raises on (a NUL byte, a lone surrogate): the caller's
# spelling as repr() shows it, and the error's own text.
UNUSABLE = "{path} isn't a usable local path: {error}"
# Not a string at all: the server's tools only ever pass strings, so no server text exists.
INVALID_TYPE = "{path} is not a valid local path: expected a string"

_DRIVE = re.compile(r"[A-Za-z]:")
# An enum member read from its class costs a lookup through the enum's metaclass: the
# checks a walk makes per entry compare with this module constant instead.
_OFF = Mode.OFF


class UnsupportedPathError(LocalfsError):
    """A path only the target platform's own rules could judge (Windows drive letters and
    backslashes): the explorer refuses to guess rather than answer by POSIX rules."""

DENY_VERBS = {"read": "read", "write": "written", "read_write": "read or written"}


class TraceStep(NamedTuple):
    """One step of the check and what it found."""

    step: str
    outcome: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"step": self.step, "outcome": self.outcome, "detail": self.detail}


@dataclass(eq=False, repr=False)
class Decision:
    """The server's answer for one path and operation.

    ``message`` is exactly what the model would see (empty when allowed); ``resolved``
    is the path the server would do its I/O on (None when it stopped before resolving).
    Treat it as read-only: it is a record of a verdict.
    """

    __slots__ = ("_batch", "_deny_hit", "_over_http", "_policy", "allowed", "message", "op",
                 "path", "reason", "resolved")

    path: str
    op: Op
    allowed: bool
    reason: Reason
    message: str
    resolved: str | None
    # Facts recorded during the check, from which trace and hint are derived on demand.
    _policy: Policy
    _over_http: bool
    _deny_hit: tuple[str, str] | None
    # Whether the batch check (the server's many_checks) gave this verdict.
    _batch: bool

    def _repr_html_(self) -> str:
        """Rich display in a notebook (the dashboard's renderer)."""
        from .render import decision_repr

        return decision_repr(self)

    def key(self) -> tuple[str, str, bool, str, str, str | None]:
        """The verdict's fields, for comparing decisions."""
        return (self.path, self.op, self.allowed, self.reason, self.message, self.resolved)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Decision) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return (f"Decision(path={self.path!r}, op={self.op!r}, allowed={self.allowed}, "
                f"reason={self.reason!r}, resolved={self.resolved!r})")

    @property
    def deny_setting(self) -> str | None:
        """The setting a deny-list refusal came from (e.g. ``TOKEN_PATH``), else None."""
        return self._deny_hit[0] if self._deny_hit else None

    @property
    def trace(self) -> list[TraceStep]:
        """The ordered steps the check took, each with what it found."""
        return _explain(self)

    @property
    def hint(self) -> str:
        """What configuration change would allow this, or that nothing can."""
        return _hint(self)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields, as ``localfs-explorer check --json`` prints them."""
        return {
            "path": self.path,
            "op": self.op,
            "allowed": self.allowed,
            "reason": self.reason,
            "message": self.message,
            "resolved": self.resolved,
            "trace": [s.to_dict() for s in self.trace],
            "hint": self.hint,
        }


def _early(c: CompiledPolicy, path: str, op: Op, over_http: bool, batch: bool) -> Decision | None:
    """Steps 1 and 2, which need no filesystem at all."""
    if over_http and c.tripwire_armed:
        return Decision(path, op, False, "tripwire", TRIPWIRE, None, c.policy, over_http, None,
                        batch)
    if c.mode is _OFF:
        return Decision(path, op, False, "off", c.off_message, None, c.policy, over_http, None,
                        batch)
    return None


def _inside_roots(c: CompiledPolicy, resolved: str) -> bool:
    """``Path(resolved).is_relative_to(root)`` for some root, as the server asks it."""
    if c.irregular_dirs or _irregular(resolved):
        return any(is_within(resolved, root) for root in c.root_reals)
    return resolved in c.root_dirs or resolved.startswith(c.root_prefixes)


def _in_deny_dir(c: CompiledPolicy, resolved: str) -> bool:
    """Whether the case-folded target sits in a case-folded deny dir (any target)."""
    if not c.deny_dir_folded:
        return False
    folded = fold(resolved, c.platform)
    if c.irregular_dirs or _irregular(folded):
        return any(is_within(folded, d) for d in c.deny_dir_folded)
    return folded in c.deny_dir_folded or folded.startswith(c.deny_dir_prefixes)


def _folded_in(folded: str, c: CompiledPolicy) -> bool:
    """Whether a regular, case-folded path is a case-folded deny dir or under one."""
    return folded in c.deny_dir_folded or folded.startswith(c.deny_dir_prefixes)


def _fresh_deny_ids(c: CompiledPolicy) -> frozenset[tuple[int, int]]:
    """The deny-list entries' identities now: a single check stats them every time."""
    return c.fs.identities(c.deny_entries)


#: Marks an identity not yet known: the verdict stats the target itself, as the server does.
_UNKNOWN: Any = object()


def _verdict(
    c: CompiledPolicy,
    path: str,
    op: Op,
    over_http: bool,
    resolved: str,
    identity: Any,
    batch: bool = False,
) -> Decision:
    """Steps 4 and 5 on a resolved path. ``identity`` is the target's (None: missing), or
    ``_UNKNOWN`` to stat it here; a batch uses its snapshot of the deny-list, a single
    check stats the deny-list again."""
    if c.roots_mode and not _inside_roots(c, resolved):
        message = OUTSIDE_ROOTS.format(path=path, roots=c.roots_text)
        return Decision(path, op, False, "outside_roots", message, resolved, c.policy,
                        over_http, None, batch)
    if identity is _UNKNOWN:
        try:
            st = c.fs.stat(resolved)
        except OSError:
            identity = None
        except ValueError as exc:
            # A name the OS can't encode, met only here: the server's check lets this
            # error escape rather than refusing, and the tool reports its text.
            return Decision(path, op, False, "invalid", str(exc), resolved, c.policy,
                            over_http, ("unhandled", str(exc)), batch)
        else:
            identity = (st.st_dev, st.st_ino)
    deny_ids = c.deny_ids if batch or identity is None else _fresh_deny_ids(c)
    key = resolved if c.platform != "windows" else normcase(resolved, c.platform)
    if (
        identity is not None
        and identity not in deny_ids
        and key not in c.deny_paths
        and not _in_deny_dir(c, resolved)
    ):
        # The common case of a walk, decided without a further call.
        return Decision(path, op, True, "allowed", "", resolved, c.policy, over_http, None,
                        batch)
    hit = _deny_hit(c, resolved, identity, deny_ids)
    if hit is not None:
        message = DENIED.format(path=path, verb=DENY_VERBS[op])
        return Decision(path, op, False, "denied", message, resolved, c.policy, over_http, hit,
                        batch)
    return Decision(path, op, True, "allowed", "", resolved, c.policy, over_http, None, batch)


def _deny_hit(
    c: CompiledPolicy, resolved: str, identity: tuple[int, int] | None,
    deny_ids: frozenset[tuple[int, int]] | None = None,
) -> tuple[str, str] | None:
    """(setting, how) of the deny-list match for a resolved target, or None."""
    if deny_ids is None:
        deny_ids = _fresh_deny_ids(c)
    key = resolved if c.platform != "windows" else normcase(resolved, c.platform)
    if key in c.deny_paths:
        return _which_entry(c.policy, resolved, identity)
    if identity is not None:
        # An existing target: exact path or file identity, never a case-folded string,
        # so a distinct Token.json beside token.json on a case-sensitive disk is allowed.
        if identity in deny_ids:
            return _which_entry(c.policy, resolved, identity)
    elif fold(resolved, c.platform) in c.deny_folded:
        return _which_entry(c.policy, resolved, None)
    if _in_deny_dir(c, resolved):
        folded = fold(resolved, c.platform)
        entry = next(d for d in c.policy.deny_dirs
                     if is_within(folded, fold(d.resolved, c.platform)))
        return (entry.setting, f"inside the deny-listed directory {entry.path} (compared "
                "case-insensitively)")
    return None


def _which_entry(
    policy: Policy, resolved: str, identity: tuple[int, int] | None
) -> tuple[str, str]:
    """Name the entry a deny-list hit came from (only run on refusals)."""
    entry: DenyEntry
    key = normcase(resolved, policy.platform)
    for entry in policy.deny_list:
        if normcase(entry.resolved, policy.platform) == key:
            return (entry.setting, f"same path as {entry.path}")
    if identity is not None:
        for entry in policy.deny_list:
            if entry.identity == identity or policy.fs.identity(entry.resolved) == identity:
                how = f"same file as {entry.path} (a hardlink, bind mount or case variant)"
                return (entry.setting, how)
    key = fold(resolved, policy.platform)
    for entry in policy.deny_list:
        if fold(entry.resolved, policy.platform) == key:
            return (entry.setting, f"missing target whose case-folded path equals {entry.path}")
    return ("deny-list", "matched")  # pragma: no cover - only if the tables disagree


def _coerce(path: Any) -> str | None:
    if isinstance(path, str):
        return path
    if isinstance(path, bytes):
        return os.fsdecode(path)
    if isinstance(path, os.PathLike):
        value = os.fspath(path)
        return value if isinstance(value, str) else os.fsdecode(value)
    return None


def _invalid(c: CompiledPolicy, path: Any, op: Op, over_http: bool, template: str,
             batch: bool) -> Decision:
    """A path that isn't a string at all, shown as its repr."""
    shown = repr(path)
    return Decision(shown, op, False, "invalid", template.format(path=shown), None, c.policy,
                    over_http, None, batch)


def _unusable(c: CompiledPolicy, text: str, op: Op, over_http: bool, exc: ValueError,
              absolute: str, batch: bool) -> Decision:
    """The server's refusal of a path its realpath raised on (a NUL byte, a lone
    surrogate): the caller's spelling, repr'd, and the error's own text."""
    if isinstance(exc, UnicodeEncodeError) and absolute != text:
        # The server resolved the relative spelling, so the error counts positions in
        # it, not in the startup directory joined in front of it here.
        prefix = c.cwd.rstrip("/") + "/"
        if exc.object.startswith(prefix) and exc.start >= len(prefix):
            n = len(prefix)
            exc = UnicodeEncodeError(exc.encoding, exc.object[n:], exc.start - n,
                                     exc.end - n, exc.reason)
    message = UNUSABLE.format(path=repr(text), error=exc)
    return Decision(text, op, False, "invalid", message, None, c.policy, over_http, None, batch)


def _entry_verdict(c: CompiledPolicy, path: str, op: Op, over_http: bool, resolved: str,
                   identity: tuple[int, int]) -> Decision:
    """The batch's verdict on an existing, non-symlink entry: ``resolved`` is its
    parent's realpath joined to its name, ``identity`` what ``lstat`` of it says.

    The common case (allowed) is decided before this by :meth:`BatchChecker.check` and
    :class:`DirVerdicts` from what they know of the parent (see :class:`_EntryTables`);
    what reaches this is the rest, given the full verdict on the known identity.
    """
    return _verdict(c, path, op, over_http, resolved, identity, True)


def _check_op(op: str) -> None:
    if op not in OPS:
        raise ValueError(f"unknown operation {op!r}: use read, write or read_write")


def _refuse_windows_spelling(c: CompiledPolicy, text: str) -> None:
    """Refuse what only Windows path rules could judge (drive letters, backslashes)."""
    if c.platform == "windows" and ("\\" in text or _DRIVE.match(text)):
        raise UnsupportedPathError(
            f"{text!r}: Windows drive-letter and backslash paths are not supported: the "
            "explorer checks paths by POSIX rules only (write them with '/' from the root)"
        )


def check_path(policy: Policy, path: Any, op: Op, over_http: bool | None = None) -> Decision:
    """The server's check of one path for ``op``; see the module docstring for the order.

    Raises :class:`UnsupportedPathError` for a drive-letter or backslash path under
    ``platform="windows"``, which the explorer doesn't simulate.
    """
    return _check(policy.compiled, path, op, over_http)


def _check(c: CompiledPolicy, path: Any, op: Op, over_http: bool | None,
           batch: bool = False) -> Decision:
    if op not in OPS:
        _check_op(op)
    if over_http is None:
        over_http = c.over_http_default
    text = _coerce(path)
    early = _early(c, text if text is not None else repr(path), op, over_http, batch)
    if early is not None:
        return early
    if text is None:
        return _invalid(c, path, op, over_http, INVALID_TYPE, batch)
    _refuse_windows_spelling(c, text)
    # The server's single check: realpath of the whole string (a relative one against
    # the startup directory), then a stat of the result.
    absolute = text if text.startswith("/") else posixpath.join(c.cwd, text)
    try:
        resolved, st = c.fs.resolve(absolute)
    except ValueError as exc:
        return _unusable(c, text, op, over_http, exc, absolute, batch)
    identity = _UNKNOWN if st is None else (st.st_dev, st.st_ino)
    return _verdict(c, text, op, over_http, resolved, identity, batch)


class BatchChecker:
    """Checks for a walk, answered as the server's ``many_checks()`` answers them.

    The deny-list is statted once when the batch starts. Each absolute path whose last
    component is not a symlink (asked with ``lstat`` of the path as spelled) resolves as
    its parent's realpath, cached by the parent's spelling as ``os.path.split`` gives it,
    joined to the last component. The parent is never normalised lexically: collapsing
    ``<symlink>/..`` before the symlink is resolved would check one directory and let
    the walk write into another. Relative paths, NUL bytes and a last component of
    ``.``, ``..`` or a symlink resolve whole, as a single check does.

    Where this differs from the single check (a symlink loop followed by ``//``, for
    one), the Decision's trace says so.
    """

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._parents: dict[str, str] = {}
        # Stat the deny-list once for this batch, as the server snapshots it, so a walk
        # sees entries created since the policy was resolved (a token written after
        # authorising, for instance) but not those created during the walk.
        compiled = policy.compiled
        self._c = compiled.with_deny_ids(_fresh_deny_ids(compiled))
        self._lstat = compiled.fs.lstat
        self._entry_tables: _EntryTables | None = None
        #: Whether :meth:`_realpath` may build on a parent's realpath: the filesystem's
        #: realpath and lstat are the host's own.
        fs_type = type(compiled.fs)
        self._derive = (getattr(fs_type, "realpath", None) is os.path.realpath
                        and getattr(fs_type, "lstat", None) is os.lstat)
        #: an entry's path up to its last "/" -> what :meth:`_head` says of its parent.
        self._heads: dict[str, tuple[str, bool, frozenset[str] | None,
                                     frozenset[str] | None]] = {}
        #: The deny-listed inode numbers on any device: an entry with none of them needs
        #: no identity comparison.
        self._deny_inodes = frozenset(ino for _dev, ino in self._c.deny_ids)

    def check(self, path: Any, op: Op = "read", *, over_http: bool | None = None) -> Decision:
        """The batched check for ``op``; see the class docstring for the resolution."""
        # The walk's hot path, one frame deep: check_read and friends come through here.
        c = self._c
        if over_http is None:
            over_http = c.over_http_default
        if (
            op not in OPS
            or c.mode is _OFF
            or (over_http and c.tripwire_armed)
            or path.__class__ is not str
            or not path.startswith("/")
            or "\0" in path
        ):
            # Refusals that need no filesystem, odd input and relative paths: no cache.
            return _check(c, path, op, over_http, True)
        if c.platform == "windows":
            _refuse_windows_spelling(c, path)
        # The walk's hot path, written out: lstat the entry, resolve its parent once.
        cut = path.rfind("/") + 1
        name = path[cut:]
        if name == "" or name == "." or name == "..":
            return _check(c, path, op, over_http, True)
        st: StatLike | None
        try:
            st = self._lstat(path)
        except (OSError, ValueError):
            st = None
        else:
            if st.st_mode & 0o170000 == 0o120000:  # a symlink: resolve it fully
                return _verdict(c, path, op, over_http, c.fs.realpath(path), _UNKNOWN, True)
        spelled = path[:cut]
        known = self._heads.get(spelled)
        if known is None:
            try:
                known = self._heads[spelled] = self._head(spelled)
            except ValueError as exc:
                return _unusable(c, path, op, over_http, exc, path, True)
        head, fast, tails, kids = known
        if st is None:
            # The path as spelled isn't there; the server stats what it resolved to.
            return _verdict(c, path, op, over_http, head + name, _UNKNOWN, True)
        # The entry as spelled exists and isn't a symlink: the object the kernel found
        # is the one its resolved path names, so its identity is already known.
        if (
            fast
            and st.st_ino not in self._deny_inodes
            and (tails is None or name not in tails)
            and (kids is None or name.casefold() not in kids)
        ):
            # _entry_verdict's common case with the parts about the parent asked once
            # per parent (see _EntryTables): allowed.
            return Decision(path, op, True, "allowed", "", head + name, c.policy, over_http,
                            None, True)
        return _entry_verdict(c, path, op, over_http, head + name, (st.st_dev, st.st_ino))

    def check_entries(
        self,
        directory: str,
        names: Sequence[str],
        *,
        inodes: Sequence[int] | None = None,
        dev: int | None = None,
        over_http: bool | None = None,
        dirs: Iterable[str] = (),
        listed: bool = False,
    ) -> DirVerdicts:
        """The batched checks of the entries ``names`` of ``directory``, decided together.

        ``inodes`` (with ``dev``), when given, are what ``lstat`` says of each entry and
        promise that none of them is a symlink: a directory listing's inode numbers, on
        a filesystem where they are the ones stat reports. ``DirVerdicts.decision(name,
        op)`` is then exactly :meth:`check` of ``directory/name``, and the directory's
        common case is stated once for all its names (see :class:`DirVerdicts`).
        Without them, or for a name not among ``names``, each decision is :meth:`check`.

        ``dirs`` names subdirectories of ``directory`` that are not symlinks: the batch
        takes the realpath of each to be the directory's realpath joined to its name,
        which is what ``realpath`` finds when the last component is no symlink, so a
        walk's next :meth:`check_entries` below it needs no realpath of its own.

        ``listed=True`` promises that ``names`` are a directory listing's (str, none
        empty, ``.`` or ``..``, none holding ``/`` or NUL), so they aren't searched for
        the names the batch never joins to their parent.
        """
        verdicts = DirVerdicts(self, directory, names, inodes, dev, over_http, listed)
        head = verdicts.resolved_prefix
        if head is not None:
            parents, prefix = self._parents, verdicts.prefix
            for name in dirs:
                if _plain_name(name):
                    parents.setdefault(prefix + name, head + name)
        return verdicts

    def _head(self, spelled: str) -> tuple[str, bool, frozenset[str] | None,
                                           frozenset[str] | None]:
        """What :meth:`check` needs of the parent of the entries spelled ``spelled +
        name`` (it keeps the answer for the batch): its realpath ending in ``/``, whether
        :func:`_entry_verdict`'s common case can hold for entries below it, and the last
        parts of deny paths and (case-folded) deny dirs directly in it (may raise
        ``ValueError`` as :meth:`_real_parent` does)."""
        # The parent as os.path.split spells it: trailing slashes dropped, unless all.
        parent = spelled.rstrip("/") or spelled
        real = self._real_parent(parent)
        head = real if real.endswith("/") else real + "/"
        c = self._c
        tables = self._entry_tables or self._tables()
        folded = head.casefold()
        fast = bool(
            c.fast_batch
            and not head.startswith("//")
            and (not c.roots_mode or head.startswith(c.root_prefixes))
            and not folded.startswith(c.deny_dir_prefixes)
        )
        return (head, fast, tables.paths.get(head), tables.dirs.get(folded))

    def _real_parent(self, parent: str) -> str:
        """``realpath`` of a parent as spelled, asked once per batch (may raise
        ``ValueError`` for a spelling ``realpath`` refuses)."""
        real = self._parents.get(parent)
        if real is None:
            real = self._parents[parent] = self._realpath(parent)
        return real

    def _realpath(self, parent: str) -> str:
        """``realpath(parent)``; on the host, from its own parent's (cached) realpath and
        one ``lstat`` when its last part is a plain name that is no symlink.

        ``os.path.realpath`` resolves a path part by part, so for ``head/name`` it finds
        ``realpath(head)`` and then joins ``name``, following it only if ``lstat`` of the
        join says symlink (an error counts as no symlink; so does anything after a loop,
        whose ``lstat`` fails with ELOOP). Anything else (``.``, ``..``, a symlink, NUL,
        another filesystem) is left to ``realpath`` itself."""
        fs = self._c.fs
        if not self._derive or "\0" in parent:
            return fs.realpath(parent)
        head, name = posixpath.split(parent)
        if not name or name == "." or name == ".." or not head.startswith("/"):
            return fs.realpath(parent)
        real_head = self._real_parent(head)
        joined = real_head + name if real_head.endswith("/") else real_head + "/" + name
        try:
            is_link = fs.lstat(joined).st_mode & 0o170000 == 0o120000
        except OSError:
            is_link = False
        return fs.realpath(parent) if is_link else joined

    def _tables(self) -> _EntryTables:
        """The deny-list taken apart for :class:`DirVerdicts`, built on first use."""
        if self._entry_tables is None:
            self._entry_tables = _EntryTables(self._c)
        return self._entry_tables

    def check_read(self, path: Any, *, over_http: bool | None = None) -> Decision:
        """Batched ``check_read``."""
        return self.check(path, "read", over_http=over_http)

    def check_write(self, path: Any, *, over_http: bool | None = None) -> Decision:
        """Batched ``check_write``."""
        return self.check(path, "write", over_http=over_http)

    def check_read_write(self, path: Any, *, over_http: bool | None = None) -> Decision:
        """Batched ``check_read_write``."""
        return self.check(path, "read_write", over_http=over_http)


def _split_last(paths: Iterable[str]) -> dict[str, frozenset[str]]:
    """Paths grouped by everything up to their last ``/`` (kept): {head: {last parts}}."""
    out: dict[str, set[str]] = {}
    for path in paths:
        cut = path.rfind("/") + 1
        out.setdefault(path[:cut], set()).add(path[cut:])
    return {head: frozenset(tails) for head, tails in out.items()}


class _EntryTables:
    """The batch's deny-list, arranged so that a directory asks it once.

    :func:`_entry_verdict` tests a resolved path ``head + name`` (``head`` ending in
    ``/``, ``name`` holding none) against the deny-list. Each of its tests splits into a
    part about ``head`` and a part about ``name`` or the identity:

    - ``resolved in deny_paths``: ``name`` is the last part of a deny path whose head is
      ``head`` (:attr:`paths`);
    - ``identity in deny_ids``: the inode is one of the deny-listed ones on the entry's
      device (:attr:`inodes`);
    - ``_folded_in(resolved.casefold())``: casefold works character by character, so the
      folded path is ``head.casefold() + name.casefold()``, which starts with a deny-dir
      prefix (ending in ``/``) exactly when the folded head does, and equals a folded
      deny dir exactly when the folded name is its last part under that head
      (:attr:`dirs`);
    - ``startswith("//")`` and ``startswith(root_prefixes)`` are likewise decided by
      ``head`` alone, every prefix ending in ``/``.
    """

    __slots__ = ("dirs", "inodes", "paths")

    def __init__(self, c: CompiledPolicy) -> None:
        self.paths = _split_last(c.deny_paths)
        self.dirs = _split_last(c.deny_dir_folded)
        inodes: dict[int, set[int]] = {}
        for dev, ino in c.deny_ids:
            inodes.setdefault(dev, set()).add(ino)
        self.inodes = {dev: frozenset(found) for dev, found in inodes.items()}


#: The names a batch never joins to their parent (besides those holding "/" or NUL).
_NO_NAMES: frozenset[str] = frozenset()


def _plain_name(name: Any) -> bool:
    """A name the batch resolves as its parent's realpath joined to it."""
    return (name.__class__ is str and name not in ("", ".", "..") and "/" not in name
            and "\0" not in name)


class DirVerdicts:
    """The batch's verdicts on the entries of one directory (see
    :meth:`BatchChecker.check_entries`).

    :meth:`decision` is, for every name and operation, exactly the batch's
    :meth:`BatchChecker.check` of the entry. Beside it, what holds for the whole
    directory, so that a walk pays per directory rather than per entry:

    - :attr:`refused`: ``"tripwire"`` or ``"off"`` when every entry is refused before
      anything is resolved (all operations), else None;
    - :attr:`uniform`: every entry given with an inode whose name is not in
      :attr:`exceptions` is allowed for every operation, resolving to
      :attr:`resolved_prefix` + its name. Names in :attr:`exceptions` (a deny-listed
      path, inode or case-folded directory; a name the batch doesn't join to its parent)
      need their own :meth:`decision`.

    Symlinks are never given with an inode: their decision is the batch's own check,
    which resolves them whole.
    """

    __slots__ = ("_batch", "_index", "_inodes", "dev", "directory", "exceptions", "joined",
                 "names", "over_http", "prefix", "refused", "resolved_prefix", "uniform")

    def __init__(self, batch: BatchChecker, directory: str, names: Sequence[str],
                 inodes: Sequence[int] | None, dev: int | None,
                 over_http: bool | None, listed: bool = False) -> None:
        # A walk makes one of these per directory: the common case runs few lines.
        c = batch._c
        self._batch = batch
        self.directory = directory
        self.names = names
        self.dev = dev
        self._index: dict[str, int] | None = None
        self.joined: str | None = None
        self.exceptions: frozenset[str] = _NO_NAMES
        self.uniform = False
        if over_http is None:
            over_http = c.over_http_default
        self.over_http = over_http
        # Entry paths as a listing spells them (os.path.join, DirEntry.path).
        prefix = self.prefix = directory if directory.endswith("/") else directory + "/"
        head = known = None
        if (directory.__class__ is str and directory.startswith("/") and "\0" not in directory
                and c.platform != "windows"):
            # What the batch knows of the parent of every prefix + name (a walk lists
            # each directory once: not kept).
            known = batch._heads.get(prefix)
            if known is None:
                try:
                    known = batch._head(prefix)
                except ValueError:  # then the batch refuses each entry
                    known = None
            if known is not None:
                head = known[0]
        self.resolved_prefix = head
        self.refused: Reason | None = (
            "tripwire" if over_http and c.tripwire_armed else "off" if c.mode is _OFF else None)
        if (
            self.refused is not None
            or known is None
            or inodes is None
            or dev is None
            or len(inodes) != len(names)
        ):
            self._inodes = None
            return  # refused whole, or every decision is the batch's own check
        self._inodes = inodes
        _head, fast, tails, folded_tails = known
        if not fast:
            return  # decided entry by entry
        odd: set[str] = set()
        if listed:  # plain names, as the caller promises
            self.joined = "\n" + "\n".join(names) + "\n"
        else:
            self._odd_names(names, odd)
        if tails:
            odd.update(tails.intersection(n for n in names if n not in odd))
        deny_inodes = (batch._entry_tables or batch._tables()).inodes.get(dev)
        if deny_inodes and not deny_inodes.isdisjoint(inodes):
            odd.update(n for n, i in zip(names, inodes, strict=True) if i in deny_inodes)
        if folded_tails:
            odd.update(n for n in names if n not in odd and n.casefold() in folded_tails)
        if odd:
            self.exceptions = frozenset(odd)
        self.uniform = True

    def _odd_names(self, names: Sequence[str], odd: set[str]) -> None:
        """Join the names (:attr:`joined`) and add to ``odd`` those the batch doesn't
        join to their parent."""
        try:
            joined = self.joined = "\n" + "\n".join(names) + "\n"
        except TypeError:
            odd.update(n for n in names if not _plain_name(n))
            return
        # Each name stands between newlines: "", "." and ".." show as "\n\n",
        # "\n.\n" and "\n..\n" (a newline inside a name can only add a false alarm).
        if ("/" in joined or "\0" in joined or "\n\n" in joined or "\n.\n" in joined
                or "\n..\n" in joined):
            odd.update(n for n in names if not _plain_name(n))

    def decision(self, name: str, op: Op = "read") -> Decision:
        """The batch's check of ``directory/name`` for ``op``."""
        path = self.prefix + name if name.__class__ is str else name
        head = self.resolved_prefix
        if (head is None or self._inodes is None or self.refused is not None
                or op not in OPS or name.__class__ is not str):
            return self._batch.check(path, op, over_http=self.over_http)
        index = self._index
        if index is None:
            assert self._inodes is not None
            index = dict(zip(self.names, self._inodes, strict=True))
            if len(index) != len(self.names):
                # A name listed twice: which inode is its own can't be told.
                for n, times in Counter(self.names).items():
                    if times > 1:
                        del index[n]
            self._index = index
        inode = index.get(name)
        if inode is None or not _plain_name(name):
            return self._batch.check(path, op, over_http=self.over_http)
        c = self._batch._c
        if self.uniform and name not in self.exceptions:
            return Decision(path, op, True, "allowed", "", head + name, c.policy,
                            self.over_http, None, True)
        assert self.dev is not None
        return _entry_verdict(c, path, op, self.over_http, head + name, (self.dev, inode))


# --- explanations -------------------------------------------------------------------


def _symlinks_on_the_way(policy: Policy, absolute: str) -> list[str]:
    """Each symlink met while resolving ``absolute``, as 'link -> target'."""
    fs = policy.fs
    found: list[str] = []
    current = "/"
    for part in absolute.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            current = posixpath.dirname(current) or "/"
            continue
        candidate = posixpath.join(current, part)
        try:
            if _stat.S_ISLNK(fs.lstat(candidate).st_mode):
                target = fs.readlink(candidate)
                found.append(f"{candidate} -> {target}")
                current = fs.realpath(candidate)
                continue
        except (OSError, ValueError):
            pass
        current = candidate
        if len(found) > 40:
            break
    return found


def _io_problem(policy: Policy, resolved: str) -> str | None:
    """Why the I/O after an allowed check would fail, for loops and over-long paths."""
    try:
        policy.fs.stat(resolved)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "the path runs into a symlink loop: the I/O after the check would fail (ELOOP)"
        if exc.errno == errno.ENAMETOOLONG:
            return "the path is too long: the I/O after the check would fail (ENAMETOOLONG)"
        if exc.errno == errno.ENOTDIR:
            return "a parent of the path is not a directory: the I/O would fail (ENOTDIR)"
    except ValueError:
        return None
    return None


def _explain(d: Decision) -> list[TraceStep]:
    steps = _explain_steps(d)
    other = _other_path_answer(d)
    if other is not None:
        steps.append(other)
    return steps


def _other_path_answer(d: Decision) -> TraceStep | None:
    """Where the server's single check and its batch (``many_checks``) answer this path
    differently, say so: the explorer gives each path's own answer."""
    if d.reason in ("tripwire", "off") or not isinstance(d.path, str):
        return None
    policy = d._policy
    try:
        if d._batch:
            other = _check(policy.compiled, d.path, d.op, d._over_http)
            kind, this = "single check", "a folder walk (the server's many_checks)"
        else:
            other = BatchChecker(policy).check(d.path, d.op, over_http=d._over_http)
            kind, this = "batch check (many_checks, as in a folder walk)", "a single check"
    except ValueError:
        return None
    if (other.allowed, other.message, other.resolved) == (d.allowed, d.message, d.resolved):
        return None
    verdict = "allows" if other.allowed else f"refuses ({other.reason})"
    return TraceStep(
        "single-vs-batch", "note",
        f"the server's {kind} answers this path differently: it {verdict}, resolving to "
        f"{other.resolved}; this is the answer of {this}",
    )


def _explain_steps(d: Decision) -> list[TraceStep]:
    policy = d._policy
    steps: list[TraceStep] = []
    fired = policy.mode is Mode.FULL and not policy.explicit and d._over_http
    steps.append(TraceStep(
        "tripwire", "refused" if fired else "passed",
        f"mode {policy.mode.value} ({'explicit' if policy.explicit else 'defaulted'}), "
        f"request {'over HTTP' if d._over_http else 'not over HTTP'}",
    ))
    if d.reason == "tripwire":
        return steps
    if policy.mode is Mode.OFF:
        if policy.errors:
            why = "the configuration is invalid, so the server falls back to off: " + "; ".join(
                policy.errors)
        elif policy.explicit:
            why = f"LOCAL_FILE_ACCESS={policy.configured_mode}"
        else:
            why = f"LOCAL_FILE_ACCESS is unset and the transport is {policy.transport}"
        steps.append(TraceStep("mode", "refused", why))
        return steps
    steps.append(TraceStep("mode", "passed", f"mode is {policy.mode.value}"))
    if d.reason == "invalid":
        if d._deny_hit and d._deny_hit[0] == "unhandled":
            steps.append(TraceStep("resolve", "done", f"{d.path} resolves to {d.resolved}"))
            steps.append(TraceStep(
                "deny-list", "raised",
                "the server's stat of the resolved path raises here and its check lets the "
                f"error through instead of refusing; the tool reports it: {d.message}"))
            return steps
        steps.append(TraceStep("resolve", "refused", d.message))
        return steps
    absolute = d.path if d.path.startswith("/") else posixpath.join(policy.cwd, d.path)
    detail = f"{d.path} resolves to {d.resolved}"
    if not d.path.startswith("/"):
        detail += f" (relative to the startup directory {policy.cwd})"
    links = _symlinks_on_the_way(policy, absolute)
    if links:
        detail += "; through " + ", ".join(links)
    exists = policy.fs.identity(d.resolved or "") is not None
    detail += "; the target exists" if exists else "; the target does not exist (yet)"
    steps.append(TraceStep("resolve", "done", detail))
    if policy.mode is Mode.ROOTS:
        roots = ", ".join(f"{r.configured} ({r.resolved})" for r in policy.roots)
        if d.reason == "outside_roots":
            steps.append(TraceStep("roots", "refused", f"not inside any root: {roots}"))
            return steps
        inside = next(r for r in policy.roots if r.resolved and is_within(d.resolved or "",
                                                                          r.resolved))
        steps.append(TraceStep("roots", "passed", f"inside {inside.configured}"))
    else:
        steps.append(TraceStep("roots", "skipped", "mode is full: any directory"))
    if d.reason == "denied" and d._deny_hit:
        setting, how = d._deny_hit
        steps.append(TraceStep("deny-list", "refused", f"{how} (from {setting})"))
        return steps
    detail = f"not one of the {len(policy.deny_list)} deny-listed files"
    if policy.deny_dirs:
        detail += " nor inside " + ", ".join(dd.resolved for dd in policy.deny_dirs)
    steps.append(TraceStep("deny-list", "passed", detail))
    problem = _io_problem(policy, d.resolved or "")
    if problem:
        steps.append(TraceStep("io", "note", problem))
    return steps


def _hint(d: Decision) -> str:
    policy = d._policy
    if d.reason == "allowed":
        return ""
    if d.reason == "invalid":
        return "Nothing can allow this: the server refuses a path that isn't a valid string."
    if d.reason == "denied":
        setting = d._deny_hit[0] if d._deny_hit else "its setting"
        return (
            "Nothing can allow this: the server's own files are refused in every mode. "
            f"If this path is meant to be ordinary data, point {setting} somewhere else."
        )
    if d.reason == "tripwire":
        return (
            "Set LOCAL_FILE_ACCESS explicitly (full, or roots with LOCAL_FILE_ROOTS): a "
            "defaulted full never serves HTTP requests."
        )
    if d.reason == "off":
        if policy.errors:
            return "Fix the configuration first: " + "; ".join(policy.errors)
        return (
            "Set LOCAL_FILE_ACCESS=roots with LOCAL_FILE_ROOTS naming a directory that "
            "contains this path (or LOCAL_FILE_ACCESS=full)."
        )
    # outside_roots: would adding the containing directory be enough?
    resolved = d.resolved or ""
    directory = resolved if policy.fs.is_dir(resolved) else posixpath.dirname(resolved) or "/"
    if _deny_hit(policy.compiled, resolved, policy.fs.identity(resolved)) is not None:
        return (
            "Nothing can allow this: outside the roots and also one of the server's own "
            "files, which are refused in every mode."
        )
    note = ""
    if resolved != posixpath.normpath(
        d.path if d.path.startswith("/") else posixpath.join(policy.cwd, d.path)
    ):
        note = f" It resolves through a symlink to {resolved}; a root must contain the target."
    sep = ";" if policy.platform == "windows" else ":"
    exposure = _root_exposure(directory, policy)
    if exposure:
        return (f"Adding {directory} to LOCAL_FILE_ROOTS would allow this, but {exposure}; "
                "prefer a narrower directory that holds only the data to share (entries "
                f"separated by '{sep}').{note}")
    return f"Add {directory} to LOCAL_FILE_ROOTS (entries separated by '{sep}').{note}"


#: System directories whose contents a root would hand out wholesale.
_SYSTEM_DIRS = {
    "/etc": "system configuration, some of it secret (password hashes, TLS private keys)",
    "/root": "the administrator's home, with its credential folders",
    "/home": "every user's home directory, with their credential folders",
    "/Users": "every user's home directory, with their credential folders",
    "/var": "system state, including logs, mail and databases",
    "/proc": "every process's environment and memory maps",
    "/sys": "kernel and device state",
    "/dev": "device files",
    "/boot": "the kernel and boot loader",
}


def _root_exposure(directory: str, policy: Any) -> str:
    """What adding ``directory`` as a root would expose beyond one path, or ""."""
    from .sensitive import sensitive_match, sensitive_patterns

    home = ""
    with contextlib.suppress(Exception):
        home = (policy.env.get("HOME") or policy.fs.home() or "").rstrip("/")
    directory = directory.rstrip("/") or "/"
    credential_dirs = [f"~/{p.pattern}" for p in sensitive_patterns() if p.kind == "home"][:5]
    listed = ", ".join(credential_dirs)
    if directory == "/":
        return (f"a root of / exposes every file the server's account can read, including "
                f"{home or 'the home directory'} and its credential folders ({listed})")
    found = sensitive_match(directory, home=home or "/nonexistent")
    if found is not None:
        return f"{directory} {found.reason}: {found.pattern.why}"
    if home and (directory == home or home.startswith(directory + "/")):
        whose = "the home directory" if directory == home else "a parent of the home directory"
        return (f"{directory} is {whose}, and every credential folder under it ({listed}) "
                "would be readable through the server")
    for system, what in _SYSTEM_DIRS.items():
        if directory == system:
            return f"{system} holds {what}"
        if directory.startswith(system + "/"):
            return f"{directory} is inside {system}, which holds {what}"
    return ""
