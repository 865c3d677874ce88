"""The places of an mcp-gee-sweet configuration a comparison asks about (``diff``).

Every root (as configured and as resolved), a file inside it and a sibling sharing its
prefix (``/data`` -> ``/data-sibling``: the prefix-match mistake); every deny-list entry
with its ``-wal``/``-shm`` sidecars and an upper-case variant of its name; each
deny-listed directory and a file inside it; the home directory and a file in it; the
startup and package directories; ``/``. Tool calls point at each resolved root, the
home and the startup directory.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...server import PROBE_FILE

if TYPE_CHECKING:
    from .policy import Policy

__all__ = ["call_places", "places"]

_SIDECARS = ("-wal", "-shm")


def _home(policy: Policy) -> str:
    return policy.env.get("HOME") or policy.fs.home()


def _absolute(policy: Policy, path: str) -> str:
    return path if path.startswith("/") else posixpath.join(policy.cwd, path)


def places(policy: Policy) -> Iterator[tuple[str, str]]:
    """(path, why) for the places of one policy worth asking about."""
    for root in policy.roots:
        spelled = _absolute(policy, root.configured)
        for directory in dict.fromkeys(p for p in (spelled, root.resolved) if p):
            yield directory, f"root {root.configured}"
            yield posixpath.join(directory, PROBE_FILE), f"inside root {root.configured}"
            if directory.rstrip("/"):
                sibling = directory.rstrip("/") + "-sibling"
                yield sibling, f"sibling sharing the prefix of root {root.configured}"
                yield posixpath.join(sibling, PROBE_FILE), (
                    f"inside a sibling of root {root.configured}")
    for entry in policy.deny_list:
        why = f"deny-list {entry.setting}"
        for path in dict.fromkeys((_absolute(policy, entry.path), entry.resolved)):
            yield path, why
        if not entry.resolved.endswith(_SIDECARS):  # no sidecars of sidecars
            for suffix in _SIDECARS:
                yield entry.resolved + suffix, f"{why} sidecar {suffix}"
        head, tail = posixpath.split(entry.resolved)
        if tail and tail.upper() != tail:
            yield posixpath.join(head, tail.upper()), f"{why}, case variant"
    for deny_dir in policy.deny_dirs:
        yield deny_dir.resolved, f"deny-listed directory ({deny_dir.setting})"
        yield posixpath.join(deny_dir.resolved, "probe.db"), (
            f"inside the deny-listed directory ({deny_dir.setting})")
    home = _home(policy)
    yield home, "home directory"
    yield posixpath.join(home, PROBE_FILE), "inside the home directory"
    yield policy.cwd, "startup directory"
    yield policy.package_dir, "package directory"
    yield "/", "filesystem root"


def call_places(policy: Policy) -> Iterator[tuple[str, str]]:
    """(directory, why): each resolved root, the home and the startup directory."""
    for root in policy.roots:
        if root.resolved:
            yield root.resolved, f"root {root.configured}"
    yield _home(policy), "home directory"
    yield policy.cwd, "startup directory"
