"""Scenarios that pin the check's rules, shared by test_check.py and test_mutations.py.

Each scenario builds what it needs under a layout and raises AssertionError when the
engine gets it wrong. test_check.py runs them against the real engine; test_mutations.py
runs each against a deliberately broken engine and requires it to fail, which proves the
scenario can catch that bug.
"""

from __future__ import annotations

import os


def symlink_in_root_pointing_out(layout) -> None:
    """A symlink inside a root is judged by where it lands, not where it sits."""
    link = layout.data / "escape"
    if not link.is_symlink():
        link.symlink_to(layout.outside)
    decision = layout.roots().check_read(str(link / "other.txt"))
    assert not decision.allowed, "a symlink out of the root was let through"
    assert decision.reason == "outside_roots"
    assert decision.resolved == str(layout.outside / "other.txt")


def prefix_sibling_is_outside(layout) -> None:
    """/data-evil is not inside /data: containment is by path components."""
    decision = layout.roots().check_read(str(layout.evil / "secret.txt"))
    assert not decision.allowed, "a sibling sharing the root's prefix was let through"
    assert decision.reason == "outside_roots"


def hardlink_to_token_is_denied(layout) -> None:
    """A hardlink to the token, inside a root, is the token: identity, not spelling."""
    alias = layout.data / "innocent.json"
    if not alias.exists():
        os.link(layout.app / "token.json", alias)
    decision = layout.roots().check_read(str(alias))
    assert not decision.allowed, "a hardlink to the token was let through"
    assert decision.reason == "denied"


def refusal_reads_the_same_whether_or_not_the_path_exists(layout) -> None:
    """No existence oracle: a missing and an existing path outside a root read alike."""
    policy = layout.roots()
    existing = policy.check_read(str(layout.outside / "other.txt"))
    missing = policy.check_read(str(layout.outside / "nothing-here.txt"))
    leak = "the refusal text reveals whether the path exists"
    assert existing.reason == missing.reason == "outside_roots", leak
    assert existing.message.replace("other.txt", "X") == missing.message.replace(
        "nothing-here.txt", "X"), leak
