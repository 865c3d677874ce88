"""mcp-hangar's tool access policies, and how hangar 2.34.4 combines them across scopes.

One scope's block (:class:`ScopeBlock`) answers by the ladder spec 003 documents: a
``deny_list`` match hides the tool; else an ``approval_list`` match shows it, held
for a person; else a non-empty ``allow_list`` shows only what it matches; else the
tool is shown. Patterns are :func:`fnmatch.fnmatch` globs, as hangar compares them
(so on a case-insensitive platform they fold case, as hangar's do there).

Across scopes the document's rule is a conjunction: a tool is shown only when every
scope's own ladder shows it, and held when any scope holds it. Hangar does not
always get there. Its merge of two policies keeps one flat set of lists where it
can and switches to a chain of checks once an allow list is involved, and the chain
it builds for a narrower scope with an allow list checks that allow list alone: the
narrower scope's deny list and its "approval outranks allow" are lost on that path.
:class:`Effective` models both shapes, with the scope each pattern came from, so an
answer can name the scope that decided it; :func:`narrow` is the merge as hangar
performs it, kept beside :func:`documented` so the two can be compared per tool.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from fnmatch import translate
from functools import lru_cache

__all__ = [
    "DEFAULT_TIMEOUT",
    "Documented",
    "Effective",
    "Labeled",
    "ScopeBlock",
    "documented",
    "narrow",
    "single",
]

#: Seconds hangar waits for an approval when a block names no timeout.
DEFAULT_TIMEOUT = 300

#: A pattern and the scope that wrote it.
Labeled = tuple[str, str]


@lru_cache(maxsize=8192)
def _compiled(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """One test for "matches any of ``patterns``", as :func:`fnmatch.fnmatch` answers."""
    if not patterns:
        return lambda _name: False
    regex = re.compile("|".join(f"(?:{translate(os.path.normcase(p))})" for p in patterns))
    return lambda name: regex.match(os.path.normcase(name)) is not None


def _first(name: str, patterns: Iterable[Labeled]) -> Labeled | None:
    """The first (pattern, scope) whose pattern matches ``name``."""
    for entry in patterns:
        if _compiled((entry[0],))(name):
            return entry
    return None


def _texts(patterns: tuple[Labeled, ...]) -> tuple[str, ...]:
    return tuple(p for p, _ in patterns)


def _union(a: tuple[Labeled, ...], b: tuple[Labeled, ...]) -> tuple[Labeled, ...]:
    """Both pattern lists, each pattern once (the first scope that wrote it kept)."""
    seen = {p for p, _ in a}
    extra = []
    for entry in b:
        if entry[0] not in seen:
            seen.add(entry[0])
            extra.append(entry)
    return a + tuple(extra)


@dataclass(frozen=True)
class ScopeBlock:
    """One access policy block as the operator wrote it, at one scope.

    ``label`` names the scope for people (``server api``, ``group core``,
    ``member core/api``, ``tenant acme on api``); ``line`` is where the block starts
    in its file (0 when it came from elsewhere).
    """

    label: str
    allow_list: tuple[str, ...] = ()
    deny_list: tuple[str, ...] = ()
    approval_list: tuple[str, ...] = ()
    approval_timeout_seconds: int = DEFAULT_TIMEOUT
    approval_channel: str = ""
    line: int = 0

    def is_blank(self) -> bool:
        """No list names anything: the block restricts nothing."""
        return not (self.allow_list or self.deny_list or self.approval_list)

    def shows(self, name: str) -> bool:
        """This block's own ladder: deny > approval > allow > everything."""
        if _compiled(self.deny_list)(name):
            return False
        if _compiled(self.approval_list)(name):
            return True
        return not self.allow_list or _compiled(self.allow_list)(name)

    def holds(self, name: str) -> bool:
        """Shown by this block and held for approval by it."""
        return not _compiled(self.deny_list)(name) and _compiled(self.approval_list)(name)

    def why_hidden(self, name: str) -> str:
        """Which list of this block hides ``name`` (call only when it does)."""
        denied = _first(name, ((p, self.label) for p in self.deny_list))
        if denied is not None:
            return f"the {self.label} deny_list matches {denied[0]!r}"
        return f"the {self.label} allow_list does not match it"


# -- the effective policy, in the two shapes hangar's merge produces ------------------


@dataclass(frozen=True)
class _Step:
    """One check of a chain: a block's whole ladder, or its allow list or deny list alone."""

    kind: str  # "ladder" | "allow" | "deny"
    label: str
    block: Effective | None = None
    patterns: tuple[str, ...] = ()

    def passes(self, name: str) -> bool:
        if self.kind == "ladder":
            assert self.block is not None
            return self.block.shows(name)
        if self.kind == "allow":
            return _compiled(self.patterns)(name)
        return not _compiled(self.patterns)(name)

    def why(self, name: str) -> str:
        if self.kind == "ladder":
            assert self.block is not None
            return self.block.why_hidden(name)
        if self.kind == "allow":
            return f"the {self.label} allow_list does not match it"
        denied = next(p for p in self.patterns if _compiled((p,))(name))
        return f"the {self.label} deny_list matches {denied!r}"


@dataclass(frozen=True)
class Effective:
    """The policy in force for one scope key, as hangar holds it after merging.

    Either flat (``chain`` empty): three lists, each pattern with the scope that wrote
    it, answered by the one-block ladder; or a chain: every step must pass, and the
    approval patterns then only say whether a shown tool is held (they no longer
    show a tool on their own). ``timeout`` and ``channel`` are the merged ones.
    """

    allow: tuple[Labeled, ...] = ()
    deny: tuple[Labeled, ...] = ()
    approval: tuple[Labeled, ...] = ()
    timeout: int = DEFAULT_TIMEOUT
    channel: str = ""
    chain: tuple[_Step, ...] = field(default=())

    @property
    def is_chain(self) -> bool:
        return bool(self.chain)

    def is_blank(self) -> bool:
        """Hangar's "unrestricted": a flat policy with no lists (a chain never is)."""
        return not self.chain and not (self.allow or self.deny or self.approval)

    def shows(self, name: str) -> bool:
        """Whether hangar lets the tool through this policy (held tools included)."""
        if self.chain:
            return all(step.passes(name) for step in self.chain)
        if self.deny and _compiled(_texts(self.deny))(name):
            return False
        if self.approval and _compiled(_texts(self.approval))(name):
            return True
        return not self.allow or _compiled(_texts(self.allow))(name)

    def holds(self, name: str) -> bool:
        """Whether hangar holds the tool for approval under this policy.

        Flat: not denied and matched by an approval pattern (the allow list is not
        asked, as in hangar). Chain: every step passes and an approval pattern matches.
        """
        if self.chain:
            return all(s.passes(name) for s in self.chain) and _compiled(
                _texts(self.approval))(name)
        return not _compiled(_texts(self.deny))(name) and _compiled(_texts(self.approval))(name)

    def why_hidden(self, name: str) -> str:
        """The scope and list that hide ``name`` here (call only when hidden)."""
        if self.chain:
            for step in self.chain:
                if not step.passes(name):
                    return step.why(name)
            return "no step hides it"
        denied = _first(name, self.deny)
        if denied is not None:
            return f"the {denied[1]} deny_list matches {denied[0]!r}"
        scopes = sorted({label for _, label in self.allow})
        return f"the allow_list of {', '.join(scopes)} does not match it"

    def why_held(self, name: str) -> str:
        """The scope and pattern that hold ``name`` (call only when held)."""
        held = _first(name, self.approval)
        assert held is not None
        return f"the {held[1]} approval_list matches {held[0]!r}"


def single(block: ScopeBlock) -> Effective:
    """One block as an effective policy (a blank block is the unrestricted policy)."""
    if block.is_blank():
        return Effective()
    return Effective(
        allow=tuple((p, block.label) for p in block.allow_list),
        deny=tuple((p, block.label) for p in block.deny_list),
        approval=tuple((p, block.label) for p in block.approval_list),
        timeout=block.approval_timeout_seconds,
        channel=block.approval_channel,
    )


def _ladder(policy: Effective) -> tuple[_Step, ...]:
    """``policy`` as chain steps: its own steps when it is a chain, else one ladder step."""
    if policy.chain:
        return policy.chain
    return (_Step("ladder", _labels((*policy.deny, *policy.allow, *policy.approval)),
                  block=policy),)


def _labels(patterns: tuple[Labeled, ...]) -> str:
    """The scopes that wrote ``patterns``, in order, each once."""
    return ", ".join(dict.fromkeys(label for _, label in patterns)) or "merged"


def narrow(broader: Effective, narrower: Effective) -> Effective:
    """``narrower`` applied within ``broader``, merged the way hangar 2.34.4 merges them.

    What is kept (our reading of the value object's ``merge``): a blank side gives the
    other side unchanged, timeout included. Otherwise approval patterns are the union,
    the timeout the shorter, the channel the narrower side's when it has an approval
    list. Then, in this order:

    - a broader chain gets one more step: the narrower allow list alone when it has
      one (its deny list and approval list do not count as checks), else its deny
      list alone, else the narrower chain's steps; an approval-only narrower side
      adds no step;
    - an allow list on either flat side: a chain of both sides' whole ladders;
    - deny lists on both sides: one flat policy denying the union;
    - an approval list on either side: one flat policy with the first non-empty
      allow and deny lists (a narrower chain's steps are lost here);
    - otherwise the narrower side.
    """
    if narrower.is_blank():
        return broader
    if broader.is_blank():
        return narrower
    approval = _union(broader.approval, narrower.approval)
    timeout = min(broader.timeout, narrower.timeout)
    channel = narrower.channel if narrower.approval else broader.channel
    merged = Effective(approval=approval, timeout=timeout, channel=channel)
    if broader.chain:
        if narrower.allow:
            step = _Step("allow", _labels(narrower.allow), patterns=_texts(narrower.allow))
            return replace(merged, chain=(*broader.chain, step))
        if narrower.deny:
            step = _Step("deny", _labels(narrower.deny), patterns=_texts(narrower.deny))
            return replace(merged, chain=(*broader.chain, step))
        if narrower.chain:
            return replace(merged, chain=(*broader.chain, *narrower.chain))
        return replace(merged, chain=broader.chain)
    if broader.allow or narrower.allow:
        steps = (*_ladder(broader), *_ladder(narrower))
        return replace(merged, chain=steps)
    if broader.deny and narrower.deny:
        return replace(merged, deny=_union(broader.deny, narrower.deny))
    if broader.approval or narrower.approval:
        return replace(merged, allow=broader.allow or narrower.allow,
                       deny=broader.deny or narrower.deny)
    return narrower


# -- the documented rule ------------------------------------------------------------


@dataclass(frozen=True)
class Documented:
    """What spec 003's rule gives for one tool across a set of scopes."""

    visible: bool
    held: bool
    timeout: int | None
    reason: str


def documented(name: str, blocks: Iterable[ScopeBlock]) -> Documented:
    """The answer by the documented rule: every block's own ladder must show the tool
    (each scope can only remove), any block may hold it (the approval list only grows),
    and the wait is the shortest timeout of the blocks that restrict anything (the
    rule's merge takes the shorter of two restricting scopes)."""
    restricting = [b for b in blocks if not b.is_blank()]
    for block in restricting:
        if not block.shows(name):
            return Documented(False, False, None, block.why_hidden(name))
    holders = [b for b in restricting if b.holds(name)]
    if not holders:
        return Documented(True, False, None, "no scope hides it or holds it")
    timeout = min(b.approval_timeout_seconds for b in restricting)
    first = holders[0]
    pattern = next(p for p in first.approval_list if _compiled((p,))(name))
    return Documented(True, True, timeout,
                      f"the {first.label} approval_list matches {pattern!r}")
