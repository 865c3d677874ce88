"""The policy as lookup tables: what the check reads on its hot path.

:class:`CompiledPolicy` flattens a resolved policy into plain attributes and sets, once
per policy; :class:`EntryTables` takes its deny-list apart so that a batch asks it once
per directory rather than per entry. :class:`PolicyLike` is what the check needs of the
policy object itself (for explanations, and to find which deny-list entry matched): the
check imports no policy module, so the policy can import the check.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ....paths import _irregular, containment_prefixes, fold, normcase
from ....vocab import Mode
from ..messages import off_message

if TYPE_CHECKING:
    from ....envfile.load import ServerEnv
    from ....fs.base import FileSystem


class RootLike(Protocol):
    """A configured root: its spelling, where it resolved, and what is wrong with it."""

    @property
    def configured(self) -> str: ...  # pragma: no cover - protocol

    @property
    def resolved(self) -> str | None: ...  # pragma: no cover - protocol

    @property
    def problem(self) -> str | None: ...  # pragma: no cover - protocol


class DenyEntryLike(Protocol):
    """A deny-listed file: the setting it came from, its spelling, where it resolved."""

    @property
    def setting(self) -> str: ...  # pragma: no cover - protocol

    @property
    def path(self) -> str: ...  # pragma: no cover - protocol

    @property
    def resolved(self) -> str: ...  # pragma: no cover - protocol

    @property
    def identity(self) -> tuple[int, int] | None: ...  # pragma: no cover - protocol


class PolicyLike(Protocol):
    """What the check reads of a resolved policy (mcp-gee-sweet's ``Policy`` is one)."""

    @property
    def mode(self) -> Mode: ...  # pragma: no cover - protocol

    @property
    def explicit(self) -> bool: ...  # pragma: no cover - protocol

    @property
    def transport(self) -> str: ...  # pragma: no cover - protocol

    @property
    def platform(self) -> str: ...  # pragma: no cover - protocol

    @property
    def fs(self) -> FileSystem: ...  # pragma: no cover - protocol

    @property
    def cwd(self) -> str: ...  # pragma: no cover - protocol

    @property
    def env(self) -> ServerEnv: ...  # pragma: no cover - protocol

    @property
    def roots(self) -> Sequence[RootLike]: ...  # pragma: no cover - protocol

    @property
    def deny_list(self) -> Sequence[DenyEntryLike]: ...  # pragma: no cover - protocol

    @property
    def deny_dirs(self) -> Sequence[Any]: ...  # pragma: no cover - protocol

    @property
    def errors(self) -> list[str]: ...  # pragma: no cover - protocol

    @property
    def configured_mode(self) -> str | None: ...  # pragma: no cover - protocol

    @property
    def compiled(self) -> CompiledPolicy: ...  # pragma: no cover - protocol

    # The decision is a check.verdict.Decision, typed loosely so that the tables, which
    # the verdict reads, import nothing of it.
    def explain(self, decision: Any, *,
                other: Any = None) -> list[Any]: ...  # pragma: no cover - protocol

    def hint_for(self, decision: Any) -> str: ...  # pragma: no cover - protocol


class CompiledPolicy:
    """A Policy flattened into plain attributes and sets for the check's hot path.

    Pydantic attribute access costs microseconds per lookup; a walk checks thousands
    of paths, so the check reads everything it needs from this object instead.
    """

    __slots__ = (
        "cwd", "deny_dir_folded", "deny_dir_prefixes", "deny_dirs", "deny_entries",
        "deny_folded", "deny_ids", "deny_paths", "explicit", "fast_batch", "fs",
        "irregular_dirs", "mode",
        "off_message", "over_http_default", "platform", "policy", "root_dirs",
        "root_prefixes", "root_reals", "roots_mode", "roots_text", "transport",
        "tripwire_armed",
    )

    def __init__(self, policy: PolicyLike) -> None:
        self.policy = policy
        self.mode = policy.mode
        self.explicit = policy.explicit
        self.transport = policy.transport
        self.platform = policy.platform
        self.fs = policy.fs
        self.cwd = policy.cwd
        self.over_http_default = policy.transport != "stdio"
        # mirrors mcp-gee-sweet 0.9.5 local_files._tripped: armed only by a defaulted full; an
        # explicit LOCAL_FILE_ACCESS=full is the operator's choice and serves HTTP
        self.tripwire_armed = policy.mode is Mode.FULL and not policy.explicit
        self.roots_mode = policy.mode is Mode.ROOTS
        roots = [r.resolved for r in policy.roots if r.resolved and not r.problem]
        self.root_reals = tuple(roots)
        self.root_dirs = frozenset(roots)
        self.root_prefixes = containment_prefixes(roots)
        self.roots_text = ", ".join(r.configured for r in policy.roots)
        self.deny_entries = tuple(e.resolved for e in policy.deny_list)
        # Exact matches compare normcase'd paths: the strings themselves on POSIX.
        self.deny_paths = frozenset(normcase(e, policy.platform) for e in self.deny_entries)
        self.deny_folded = frozenset(fold(e.resolved, policy.platform) for e in policy.deny_list)
        self.deny_ids = frozenset(e.identity for e in policy.deny_list if e.identity)
        self.deny_dirs = frozenset(d.resolved for d in policy.deny_dirs)
        # Deny dirs are matched case-folded, existing targets included.
        self.deny_dir_folded = tuple(fold(d, policy.platform) for d in self.deny_dirs)
        self.deny_dir_prefixes = containment_prefixes(self.deny_dir_folded)
        self.irregular_dirs = any(_irregular(d) for d in (*roots, *self.deny_dir_folded))
        # Whether the batch's inline test applies: POSIX rules, regular directories, and
        # deny-dir prefixes that can't match the empty tuple's way (startswith(()) is False).
        self.fast_batch = policy.platform != "windows" and not self.irregular_dirs
        self.off_message = off_message(policy.errors, policy.explicit, policy.transport)

    def with_deny_ids(self, ids: frozenset[tuple[int, int]]) -> CompiledPolicy:
        """A copy whose deny-list identities are ``ids`` (a batch's fresh stat)."""
        twin = object.__new__(CompiledPolicy)
        for name in CompiledPolicy.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.deny_ids = ids
        return twin


def _split_last(paths: Iterable[str]) -> dict[str, frozenset[str]]:
    """Paths grouped by everything up to their last ``/`` (kept): {head: {last parts}}."""
    out: dict[str, set[str]] = {}
    for path in paths:
        cut = path.rfind("/") + 1
        out.setdefault(path[:cut], set()).add(path[cut:])
    return {head: frozenset(tails) for head, tails in out.items()}


class EntryTables:
    """The batch's deny-list, arranged so that a directory asks it once.

    :func:`_entry_verdict` tests a resolved path ``head + name`` (``head`` ending in
    ``/``, ``name`` holding none) against the deny-list. Each of its tests splits into a
    part about ``head`` and a part about ``name`` or the identity:

    - ``resolved in deny_paths``: ``name`` is the last part of a deny path whose head is
      ``head`` (:attr:`paths`);
    - ``identity in deny_ids``: the inode is one of the deny-listed ones on the entry's
      device (:attr:`inodes`);
    - the folded path in or under a folded deny dir: casefold works character by character, so the
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
