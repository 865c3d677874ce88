"""The check: one path in, the server's :class:`Decision` out.

The order is the server's and matters:

1. tripwire: a defaulted ``full`` mode refuses every request that arrived over HTTP;
2. ``off`` refuses;
3. resolve with realpath (symlinks included, against the startup directory), with no
   stat of the target first, so a refusal reads the same whether the path exists;
4. ``roots`` requires the resolved path to sit inside a resolved root, by components;
5. the deny-list: an existing target matches an entry by exact path or file identity
   (hardlinks, bind mounts, case variants); a missing one by ``normcase``+``casefold`` of
   its realpath (the write case); deny dirs by containment. It applies in every mode.

A Decision's ``trace`` and ``hint`` are worked out only when read, so batch checks pay
for the verdict alone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import stat as _stat
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .paths import fold, is_within
from .vocab import OPS, Mode, Op, Reason

if TYPE_CHECKING:
    from .fs import FileSystem
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
# The design names no text for this one; it echoes the caller's path with the NUL shown.
INVALID_NUL = "{path} is not a valid local path: it contains a NUL byte"
INVALID_TYPE = "{path} is not a valid local path: expected a string"

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

    __slots__ = ("_deny_hit", "_over_http", "_policy", "allowed", "message", "op", "path",
                 "reason", "resolved")

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


def _shown(path: str) -> str:
    return path.replace("\0", "\\0")


def _early(c: CompiledPolicy, path: str, op: Op, over_http: bool) -> Decision | None:
    """Steps 1 and 2, which need no filesystem at all."""
    if over_http and c.tripwire_armed:
        return Decision(path, op, False, "tripwire", TRIPWIRE, None, c.policy, over_http, None)
    if c.mode is Mode.OFF:
        message = OFF_EXPLICIT if c.explicit else OFF_DEFAULTED.format(transport=c.transport)
        return Decision(path, op, False, "off", message, None, c.policy, over_http, None)
    return None


def _verdict(
    c: CompiledPolicy,
    path: str,
    op: Op,
    over_http: bool,
    resolved: str,
    identity: tuple[int, int] | None,
) -> Decision:
    """Steps 4 and 5 on a resolved path whose identity (None: missing) is known."""
    if c.roots_mode and not (resolved.startswith(c.root_prefixes) or resolved in c.root_dirs):
        message = OUTSIDE_ROOTS.format(path=path, roots=c.roots_text)
        return Decision(path, op, False, "outside_roots", message, resolved, c.policy,
                        over_http, None)
    if (
        identity is not None
        and identity not in c.deny_ids
        and resolved not in c.deny_paths
        and not resolved.startswith(c.deny_dir_prefixes)
        and resolved not in c.deny_dirs
    ):
        # The common case of a walk, decided without a further call.
        return Decision(path, op, True, "allowed", "", resolved, c.policy, over_http, None)
    hit = _deny_hit(c, resolved, identity)
    if hit is not None:
        message = DENIED.format(path=path, verb=DENY_VERBS[op])
        return Decision(path, op, False, "denied", message, resolved, c.policy, over_http, hit)
    return Decision(path, op, True, "allowed", "", resolved, c.policy, over_http, None)


def _deny_hit(
    c: CompiledPolicy, resolved: str, identity: tuple[int, int] | None
) -> tuple[str, str] | None:
    """(setting, how) of the deny-list match for a resolved target, or None."""
    if identity is not None:
        # An existing target: exact path or file identity, never a case-folded string,
        # so a distinct Token.json beside token.json on a case-sensitive disk is allowed.
        if resolved in c.deny_paths or identity in c.deny_ids:
            return _which_entry(c.policy, resolved, identity)
    elif fold(resolved, c.platform) in c.deny_folded:
        return _which_entry(c.policy, resolved, None)
    if c.deny_dirs and (resolved in c.deny_dirs or resolved.startswith(c.deny_dir_prefixes)):
        entry = next(d for d in c.policy.deny_dirs if is_within(resolved, d.resolved))
        return (entry.setting, f"inside the deny-listed directory {entry.path}")
    return None


def _which_entry(
    policy: Policy, resolved: str, identity: tuple[int, int] | None
) -> tuple[str, str]:
    """Name the entry a deny-list hit came from (only run on refusals)."""
    entry: DenyEntry
    for entry in policy.deny_list:
        if entry.resolved == resolved:
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


def _invalid(c: CompiledPolicy, path: Any, op: Op, over_http: bool, template: str) -> Decision:
    shown = _shown(path) if isinstance(path, str) else repr(path)
    raw = path if isinstance(path, str) else shown
    return Decision(raw, op, False, "invalid", template.format(path=shown), None, c.policy,
                    over_http, None)


def _check_op(op: str) -> None:
    if op not in OPS:
        raise ValueError(f"unknown operation {op!r}: use read, write or read_write")


def check_path(policy: Policy, path: Any, op: Op, over_http: bool | None = None) -> Decision:
    """The server's check of one path for ``op``; see the module docstring for the order."""
    return _check(policy.compiled, path, op, over_http)


def _check(c: CompiledPolicy, path: Any, op: Op, over_http: bool | None) -> Decision:
    if op not in OPS:
        _check_op(op)
    if over_http is None:
        over_http = c.over_http_default
    text = _coerce(path)
    early = _early(c, text if text is not None else repr(path), op, over_http)
    if early is not None:
        return early
    if text is None:
        return _invalid(c, path, op, over_http, INVALID_TYPE)
    if "\0" in text:
        # os.path.realpath raises ValueError here; the server turns it into a refusal.
        return _invalid(c, text, op, over_http, INVALID_NUL)
    absolute = text if text.startswith("/") else posixpath.join(c.cwd, text)
    resolved, identity = _resolve(c.fs, absolute, None)
    return _verdict(c, text, op, over_http, resolved, identity)


def _resolve(
    fs: FileSystem, absolute: str, parents: dict[str, str] | None
) -> tuple[str, tuple[int, int] | None]:
    """realpath of ``absolute`` and the identity of what it names (None: missing).

    Resolves the parent, then lstats the last component: the same system calls
    realpath makes, but the last lstat also yields the target's identity for the
    deny-list. ``parents`` caches parent resolutions by their raw spelling (batches).
    """
    parent, _, name = absolute.rpartition("/")
    if name in ("", ".", ".."):
        resolved = fs.realpath(absolute)
        return resolved, _identity(fs, resolved)
    real_parent: str | None
    if parents is None:
        real_parent = fs.realpath(parent or "/")
    else:
        real_parent = parents.get(parent)
        if real_parent is None:
            real_parent = parents[parent] = fs.realpath(parent or "/")
    candidate = real_parent + "/" + name if real_parent != "/" else "/" + name
    try:
        st = fs.lstat(candidate)
    except OSError:
        # Missing or unreachable: non-strict realpath keeps the component as it is.
        return candidate, None
    if _stat.S_ISLNK(st.st_mode):
        resolved = fs.realpath(candidate)
        return resolved, _identity(fs, resolved)
    return candidate, (st.st_dev, st.st_ino)


def _identity(fs: FileSystem, path: str) -> tuple[int, int] | None:
    try:
        st = fs.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino)


class BatchChecker:
    """Checks for a walk: the deny-list statted once, each parent directory resolved once.

    The parent cache is keyed by the raw spelling of the parent and never normalised
    lexically: collapsing ``<symlink>/..`` before the symlink is resolved would check one
    directory and let the walk write into another. Relative paths bypass the cache.
    """

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._parents: dict[str, str] = {}
        # Re-stat the deny-list once for this batch, so a walk sees entries created since
        # the policy was resolved (a token written after authorising, for instance).
        compiled = policy.compiled
        fresh = {policy.fs.identity(e.resolved) for e in policy.deny_list}
        fresh.discard(None)
        self._c = compiled.with_deny_ids(compiled.deny_ids | frozenset(fresh))  # type: ignore

    def check(self, path: Any, op: Op = "read", *, over_http: bool | None = None) -> Decision:
        """The batched check for ``op``; same verdict as ``Policy.check``."""
        c = self._c
        if over_http is None:
            over_http = c.over_http_default
        if (
            op not in OPS
            or c.mode is Mode.OFF
            or (over_http and c.tripwire_armed)
            or path.__class__ is not str
            or not path.startswith("/")
            or "\0" in path
        ):
            # Refusals that need no filesystem, odd input and relative paths: no cache.
            return _check(c, path, op, over_http)
        # The walk's hot path, written out: resolve the parent once, lstat the entry.
        parent, _, name = path.rpartition("/")
        if name == "" or name == "." or name == "..":
            return _check(c, path, op, over_http)
        real_parent = self._parents.get(parent)
        if real_parent is None:
            real_parent = self._parents[parent] = c.fs.realpath(parent or "/")
        if real_parent == parent:
            candidate = path  # no symlink above the entry: the caller's string is the path
        elif real_parent == "/":
            candidate = "/" + name
        else:
            candidate = real_parent + "/" + name
        try:
            st = c.fs.lstat(candidate)
        except OSError:
            # Missing or unreachable: non-strict realpath keeps the component as it is.
            return _verdict(c, path, op, over_http, candidate, None)
        if st.st_mode & 0o170000 == 0o120000:  # a symlink: resolve it fully
            resolved = c.fs.realpath(candidate)
            return _verdict(c, path, op, over_http, resolved, _identity(c.fs, resolved))
        return _verdict(c, path, op, over_http, candidate, (st.st_dev, st.st_ino))

    def check_read(self, path: Any, *, over_http: bool | None = None) -> Decision:
        """Batched ``check_read``."""
        return self.check(path, "read", over_http=over_http)

    def check_write(self, path: Any, *, over_http: bool | None = None) -> Decision:
        """Batched ``check_write``."""
        return self.check(path, "write", over_http=over_http)

    def check_read_write(self, path: Any, *, over_http: bool | None = None) -> Decision:
        """Batched ``check_read_write``."""
        return self.check(path, "read_write", over_http=over_http)


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
