"""The single check: one path in, the server's :class:`Decision` out.

The steps run in mcp-gee-sweet 0.9.5's order, which matters (each carries its reason
where it is written): 1. the HTTP tripwire, 2. ``off``, 3. ``realpath``, 4. ``roots``
containment, 5. the deny-list, in every mode. A batch resolves each parent once and
joins the name (:class:`.batch.BatchChecker`).

The refusal texts are the server's own (:mod:`localfs_explorer.servers.gee_sweet.messages`).
A Decision's ``trace`` and ``hint`` are worked out only when read (by the policy that
made it, see :mod:`.explain`), so batch checks pay for the verdict alone.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from ....errors import LocalfsError
from ....paths import _irregular, fold, folded_within, is_within, normcase
from ....vocab import OPS, Mode, Op, Reason
from ..messages import (
    DENIED,
    DENY_VERBS,
    INVALID_TYPE,
    OUTSIDE_ROOTS,
    TRIPWIRE,
    UNUSABLE,
)

if TYPE_CHECKING:
    from .tables import CompiledPolicy, PolicyLike

_DRIVE = re.compile(r"[A-Za-z]:")
# An enum member read from its class costs a lookup through the enum's metaclass: the
# checks a walk makes per entry compare with this module constant instead.
_OFF = Mode.OFF


class UnsupportedPathError(LocalfsError):
    """A path only the target platform's own rules could judge (Windows drive letters and
    backslashes): the explorer refuses to guess rather than answer by POSIX rules."""


class DenyHit(NamedTuple):
    """Which deny-list entry a refusal came from: its setting, and how it matched."""

    setting: str
    how: str


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
    _policy: PolicyLike
    _over_http: bool
    _deny_hit: DenyHit | None
    # Whether the batch check (the server's many_checks) gave this verdict.
    _batch: bool

    def _repr_html_(self) -> str:
        """Rich display in a notebook (the dashboard's renderer)."""
        from ....render import decision_repr

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
        return self._deny_hit.setting if self._deny_hit else None

    @property
    def trace(self) -> list[TraceStep]:
        """The ordered steps the check took, each with what it found."""
        return self._policy.explain(self)

    @property
    def hint(self) -> str:
        """What configuration change would allow this, or that nothing can."""
        return self._policy.hint_for(self)

    def to_dict(self, *, other: Any = None) -> dict[str, Any]:
        """JSON-ready fields, as ``localfs-explorer check --json`` prints them.

        ``other`` is the checker whose answer the trace compares with (a batch for a
        single check; see :func:`.explain.explain`): a caller
        describing many paths passes one, so each path is not checked by a new one.
        """
        trace = self._policy.explain(self, other=other) if other is not None else self.trace
        return {
            "path": self.path,
            "op": self.op,
            "allowed": self.allowed,
            "reason": self.reason,
            "message": self.message,
            "resolved": self.resolved,
            "trace": [s.to_dict() for s in trace],
            "hint": self.hint,
        }


def _early(c: CompiledPolicy, path: str, op: Op, over_http: bool, batch: bool) -> Decision | None:
    """Steps 1 and 2, which need no filesystem at all."""
    # mirrors mcp-gee-sweet 0.9.5 local_files._tripped: a defaulted full mode reached over HTTP
    # means the server was launched some way argv didn't show, so it refuses
    if over_http and c.tripwire_armed:
        return Decision(
            path=path, op=op, allowed=False, reason="tripwire", message=TRIPWIRE, resolved=None,
            _policy=c.policy, _over_http=over_http, _deny_hit=None, _batch=batch,
        )
    # mirrors mcp-gee-sweet 0.9.5 local_files._check: off refuses before any filesystem call, naming
    # an invalid setting when that is why (_off_message)
    if c.mode is _OFF:
        return Decision(
            path=path, op=op, allowed=False, reason="off", message=c.off_message, resolved=None,
            _policy=c.policy, _over_http=over_http, _deny_hit=None, _batch=batch,
        )
    return None


def _inside_roots(c: CompiledPolicy, resolved: str) -> bool:
    """``Path(resolved).is_relative_to(root)`` for some root, as the server asks it."""
    # mirrors mcp-gee-sweet 0.9.5 local_files._check: containment by path components of the realpath
    # against each root's realpath, so /data-evil is not inside /data
    if c.irregular_dirs or _irregular(resolved):
        return any(is_within(resolved, root) for root in c.root_reals)
    return resolved in c.root_dirs or resolved.startswith(c.root_prefixes)


def _in_deny_dir(c: CompiledPolicy, resolved: str) -> bool:
    """Whether the case-folded target sits in a case-folded deny dir (any target)."""
    # mirrors mcp-gee-sweet 0.9.5 local_files._is_denied: the default cache directory is refused
    # whole, case-folded so a case variant can't be planted in it (GHSA-8jqx-w7j8-6xwm)
    if not c.deny_dir_folded:
        return False
    folded = fold(resolved, c.platform)
    if c.irregular_dirs or _irregular(folded):
        return any(folded_within(folded, d, c.platform) for d in c.deny_dir_folded)
    return folded in c.deny_dir_folded or folded.startswith(c.deny_dir_prefixes)


def _fresh_deny_ids(c: CompiledPolicy) -> frozenset[tuple[int, int]]:
    """The deny-list entries' identities now: a single check stats them every time."""
    # mirrors mcp-gee-sweet 0.9.5 local_files._deny_stats: outside many_checks the entries are
    # statted per check, so a hardlink to a deny-listed file made a moment ago is caught
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
    # mirrors mcp-gee-sweet 0.9.5 local_files._check: roots before the deny-list, and no stat of the
    # target before either, so a refusal reads the same whether it exists
    if c.roots_mode and not _inside_roots(c, resolved):
        message = OUTSIDE_ROOTS.format(path=path, roots=c.roots_text)
        return Decision(
            path=path, op=op, allowed=False, reason="outside_roots", message=message,
            resolved=resolved, _policy=c.policy, _over_http=over_http, _deny_hit=None,
            _batch=batch,
        )
    if identity is _UNKNOWN:
        try:
            st = c.fs.stat(resolved)
        except OSError:
            identity = None
        except ValueError as exc:
            # mirrors mcp-gee-sweet 0.9.5 local_files._is_denied: os.stat's ValueError (a name the
            # OS can't encode) isn't caught there; it escapes and the tool shows it
            return Decision(
                path=path, op=op, allowed=False, reason="invalid", message=str(exc),
                resolved=resolved, _policy=c.policy, _over_http=over_http,
                _deny_hit=DenyHit(setting="unhandled", how=str(exc)), _batch=batch,
            )
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
        # Positional, in Decision's field order: the walk's hot path, where keyword
        # arguments make the construction 2.5x as costly (timeit: 2.7 against 6.9 µs;
        # bench_check and bench_exposure slowed by a third with them).
        return Decision(path, op, True, "allowed", "", resolved, c.policy, over_http, None,
                        batch)
    hit = _deny_hit(c, resolved, identity, deny_ids)
    if hit is not None:
        message = DENIED.format(path=path, verb=DENY_VERBS[op])
        return Decision(
            path=path, op=op, allowed=False, reason="denied", message=message, resolved=resolved,
            _policy=c.policy, _over_http=over_http, _deny_hit=hit, _batch=batch,
        )
    return Decision(
        path=path, op=op, allowed=True, reason="allowed", message="", resolved=resolved,
        _policy=c.policy, _over_http=over_http, _deny_hit=None, _batch=batch,
    )


def _deny_hit(
    c: CompiledPolicy, resolved: str, identity: tuple[int, int] | None,
    deny_ids: frozenset[tuple[int, int]] | None = None,
) -> DenyHit | None:
    """The deny-list match for a resolved target, or None."""
    if deny_ids is None:
        deny_ids = _fresh_deny_ids(c)
    key = resolved if c.platform != "windows" else normcase(resolved, c.platform)
    if key in c.deny_paths:
        return _which_entry(c.policy, resolved, identity)
    if identity is not None:
        # mirrors mcp-gee-sweet 0.9.5 local_files._is_denied: an existing target matches by exact
        # path or os.path.samestat (hardlinks, bind mounts, case variants on a case-insensitive
        # disk), never a folded string: a distinct Token.json is allowed
        if identity in deny_ids:
            return _which_entry(c.policy, resolved, identity)
    elif fold(resolved, c.platform) in c.deny_folded:
        # mirrors mcp-gee-sweet 0.9.5 local_files._is_denied: a target not there yet (a write)
        # matches case-folded, so TOKEN.JSON can't be planted where macOS reads token.json
        return _which_entry(c.policy, resolved, None)
    if _in_deny_dir(c, resolved):
        folded = fold(resolved, c.platform)
        entry = next(d for d in c.policy.deny_dirs
                     if folded_within(folded, fold(d.resolved, c.platform), c.platform))
        return DenyHit(setting=entry.setting, how=f"inside the deny-listed directory "
                       f"{entry.path} (compared case-insensitively)")
    return None


def _which_entry(
    policy: PolicyLike, resolved: str, identity: tuple[int, int] | None
) -> DenyHit:
    """Name the entry a deny-list hit came from (only run on refusals)."""
    key = normcase(resolved, policy.platform)
    for entry in policy.deny_list:
        if normcase(entry.resolved, policy.platform) == key:
            return DenyHit(setting=entry.setting, how=f"same path as {entry.path}")
    if identity is not None:
        for entry in policy.deny_list:
            if entry.identity == identity or policy.fs.identity(entry.resolved) == identity:
                how = f"same file as {entry.path} (a hardlink, bind mount or case variant)"
                return DenyHit(setting=entry.setting, how=how)
    key = fold(resolved, policy.platform)
    for entry in policy.deny_list:
        if fold(entry.resolved, policy.platform) == key:
            return DenyHit(setting=entry.setting,
                           how=f"missing target whose case-folded path equals {entry.path}")
    # A batch's snapshot of the deny-list (statted when it began) holds a file that no
    # entry names any more: the entry was removed or replaced since.
    return DenyHit(setting="deny-list", how="same file as a deny-list entry when the batch "
                   "began (the entry has since been removed or replaced)")


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
    return Decision(
        path=shown, op=op, allowed=False, reason="invalid", message=template.format(path=shown),
        resolved=None, _policy=c.policy, _over_http=over_http, _deny_hit=None, _batch=batch,
    )


def _unusable(c: CompiledPolicy, text: str, op: Op, over_http: bool, exc: ValueError,
              absolute: str, batch: bool) -> Decision:
    """The server's refusal of a path its realpath raised on (a NUL byte, a lone
    surrogate): the caller's spelling, repr'd, and the error's own text."""
    # mirrors mcp-gee-sweet 0.9.5 local_files._check: realpath's ValueError becomes a refusal rather
    # than an error, so a per-item tool fails that item, not the whole call
    if isinstance(exc, UnicodeEncodeError) and absolute != text:
        # The server resolved the relative spelling, so the error counts positions in
        # it, not in the startup directory joined in front of it here.
        prefix = c.cwd.rstrip("/") + "/"
        if exc.object.startswith(prefix) and exc.start >= len(prefix):
            n = len(prefix)
            exc = UnicodeEncodeError(exc.encoding, exc.object[n:], exc.start - n,
                                     exc.end - n, exc.reason)
    message = UNUSABLE.format(path=repr(text), error=exc)
    return Decision(
        path=text, op=op, allowed=False, reason="invalid", message=message, resolved=None,
        _policy=c.policy, _over_http=over_http, _deny_hit=None, _batch=batch,
    )


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


def check_path(policy: PolicyLike, path: Any, op: Op, over_http: bool | None = None) -> Decision:
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
    # mirrors mcp-gee-sweet 0.9.5 local_files._realpath: realpath of the raw string (a relative one
    # against the startup directory), never collapsed lexically first, since link/.. is the parent
    # of link's target (PR #1039 QA round 2)
    absolute = text if text.startswith("/") else posixpath.join(c.cwd, text)
    try:
        resolved, st = c.fs.resolve(absolute)
    except ValueError as exc:
        return _unusable(c, text, op, over_http, exc, absolute, batch)
    identity = _UNKNOWN if st is None else (st.st_dev, st.st_ino)
    return _verdict(c, text, op, over_http, resolved, identity, batch)

