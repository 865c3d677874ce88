"""Explanations of a verdict: the steps the check took, and what would change it.

:func:`explain` lists the steps (tripwire, mode, resolve, roots, deny-list, and a note
where the I/O after an allowed check would fail or where the single and batch checks
answer differently); :func:`hint` says what configuration change would allow a refused
path, or that nothing can. Both read only what the :class:`~.verdict.Decision` recorded,
and run only when asked (a walk never pays for them).
"""

from __future__ import annotations

import contextlib
import errno
import posixpath
import stat as _stat
from typing import TYPE_CHECKING, Any

from ....paths import is_within
from ....vocab import Mode
from ..messages import INVALID_TYPE
from . import verdict as _single
from .batch import BatchChecker
from .verdict import TraceStep

if TYPE_CHECKING:
    from .tables import PolicyLike
    from .verdict import Decision


def _symlinks_on_the_way(policy: PolicyLike, absolute: str) -> list[str]:
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


def _io_problem(policy: PolicyLike, resolved: str) -> str | None:
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


def explain(d: Decision, *, other: BatchChecker | None = None) -> list[TraceStep]:
    """The steps of the check that gave ``d``, and where the other way of checking
    (single or batch) would answer differently, a note saying so.

    ``other`` is the batch to compare a single check's answer with; a caller
    explaining many paths passes one for all of them (None: a new batch).
    """
    steps = _explain_steps(d)
    note = _other_path_answer(d, other)
    if note is not None:
        steps.append(note)
    return steps


def _other_path_answer(d: Decision, other: BatchChecker | None) -> TraceStep | None:
    """Where the server's single check and its batch (``many_checks``) answer this path
    differently, say so: the explorer gives each path's own answer.

    The two differ only where they resolve the path differently (the verdict is a
    function of the resolved path and the object found there), so the other way's
    resolution is asked first and the other verdict only when it differs: a path is
    checked once, not twice.
    """
    if d.reason in ("tripwire", "off") or not isinstance(d.path, str):
        return None
    if d.reason == "invalid" and d.message == INVALID_TYPE.format(path=d.path):
        return None  # no string at all: both ways refuse it alike; its repr is no path
    policy = d._policy
    try:
        if d._batch:
            absolute = d.path if d.path.startswith("/") else posixpath.join(policy.cwd, d.path)
            if policy.fs.realpath(absolute) == d.resolved:
                return None
            answer = _single._check(policy.compiled, d.path, d.op, d._over_http)
            kind, this = "single check", "a folder walk (the server's many_checks)"
        else:
            batch = other if other is not None else BatchChecker(policy)
            resolved = batch.resolution(d.path)
            if resolved is None or resolved == d.resolved:
                return None
            answer = batch.check(d.path, d.op, over_http=d._over_http)
            kind, this = "batch check (many_checks, as in a folder walk)", "a single check"
    except ValueError:
        return None
    if (answer.allowed, answer.message, answer.resolved) == (d.allowed, d.message, d.resolved):
        return None
    verdict = "allows" if answer.allowed else f"refuses ({answer.reason})"
    return TraceStep(
        step="single-vs-batch", outcome="note",
        detail=f"the server's {kind} answers this path differently: it {verdict}, resolving "
        f"to {answer.resolved}; this is the answer of {this}",
    )


def _where(policy: Any, key: str) -> str:
    """Where ``key``'s value came from, for a trace: `` at .env line 3`` when the server
    reads it from its ``.env``, else "" (a default, the process environment or an edit)."""
    env = getattr(policy, "env", None)
    if env is None or not hasattr(env, "line_of"):
        return ""
    line = env.line_of(key)
    if line is None:
        return ""
    name = posixpath.basename(env.source or "") or ".env"
    return f" at {name} line {line}"


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
            why = f"LOCAL_FILE_ACCESS={policy.configured_mode}{_where(policy, 'LOCAL_FILE_ACCESS')}"
        else:
            why = f"LOCAL_FILE_ACCESS is unset and the transport is {policy.transport}"
        steps.append(TraceStep("mode", "refused", why))
        return steps
    mode = f"mode is {policy.mode.value}"
    if policy.explicit:
        mode += f" (LOCAL_FILE_ACCESS{_where(policy, 'LOCAL_FILE_ACCESS')})"
    steps.append(TraceStep("mode", "passed", mode))
    if d.reason == "invalid":
        if d._deny_hit and d._deny_hit.setting == "unhandled":
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
        where = _where(policy, "LOCAL_FILE_ROOTS")
        if d.reason == "outside_roots":
            steps.append(TraceStep("roots", "refused",
                                   f"not inside any root of LOCAL_FILE_ROOTS{where}: {roots}"))
            return steps
        inside = next(r for r in policy.roots if r.resolved and is_within(d.resolved or "",
                                                                          r.resolved))
        steps.append(TraceStep("roots", "passed",
                               f"inside {inside.configured} (LOCAL_FILE_ROOTS{where})"))
    else:
        steps.append(TraceStep("roots", "skipped", "mode is full: any directory"))
    if d.reason == "denied" and d._deny_hit:
        setting, how = d._deny_hit
        steps.append(TraceStep("deny-list", "refused",
                               f"{how} (deny-list entry from {setting}{_where(policy, setting)})"))
        return steps
    detail = f"not one of the {len(policy.deny_list)} deny-listed files"
    if policy.deny_dirs:
        detail += " nor inside " + ", ".join(dd.resolved for dd in policy.deny_dirs)
    steps.append(TraceStep("deny-list", "passed", detail))
    problem = _io_problem(policy, d.resolved or "")
    if problem:
        steps.append(TraceStep("io", "note", problem))
    return steps


def hint(d: Decision) -> str:
    """What configuration change would allow ``d``, or that nothing can."""
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
    if _single._deny_hit(policy.compiled, resolved, policy.fs.identity(resolved)) is not None:
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
    missing = ""
    if not policy.fs.is_dir(directory):
        # mirrors mcp-gee-sweet 0.9.5 local_files.exit_if_invalid: serving stops on a root that
        # isn't a directory, so "add it" alone would trade this refusal for no server
        missing = (f" {directory} doesn't exist on the target, and the server exits at "
                   "start-up when a LOCAL_FILE_ROOTS entry isn't an existing directory: "
                   "create it first (its nearest existing parent is "
                   f"{_nearest_existing(directory, policy)}).")
    exposure = _root_exposure(directory, policy)
    if exposure:
        return (f"Adding {directory} to LOCAL_FILE_ROOTS would allow this, but {exposure}; "
                "prefer a narrower directory that holds only the data to share (entries "
                f"separated by '{sep}').{missing}{note}")
    if missing:
        return (f"Create {directory}, then add it to LOCAL_FILE_ROOTS (entries separated by "
                f"'{sep}').{missing}{note}")
    return f"Add {directory} to LOCAL_FILE_ROOTS (entries separated by '{sep}').{note}"


def _nearest_existing(directory: str, policy: Any) -> str:
    """The closest ancestor of ``directory`` that is a directory on the target."""
    current = directory
    while current not in ("", "/"):
        current = posixpath.dirname(current.rstrip("/")) or "/"
        if policy.fs.is_dir(current):
            return current
    return "/"


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
    from ....sensitive import sensitive_match, sensitive_patterns

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
