"""Predicted against recorded: each outcome, and texts a log viewer cut."""

from __future__ import annotations

import pytest

from localfs_explorer.sessions import agreement, fits

REFUSAL = "Access denied - path outside allowed directories: /x/s.txt not in /data"


def test_fits_whole_text_is_a_plain_search() -> None:
    assert fits(f"Error: {REFUSAL}", REFUSAL)
    assert not fits(REFUSAL.replace("/data", "/old"), REFUSAL)


def test_fits_matches_what_remains_of_a_cut_text() -> None:
    cut = REFUSAL[:30] + "…[12 chars truncated]…" + REFUSAL[42:]
    assert fits(cut, REFUSAL)
    # The same cut, but what remains after it says another list: no fit.
    other = REFUSAL.replace("/data", "/olds")
    assert not fits(other[:30] + "…[12 chars truncated]…" + other[42:], REFUSAL)
    # A cut of the wrong length can't hold the missing part.
    assert not fits(REFUSAL[:30] + "…[3 chars truncated]…" + REFUSAL[42:], REFUSAL)
    # The message may lie wholly in what was cut.
    assert fits("Error: …[500 chars truncated]… end", REFUSAL)
    # Or start in one piece and end in the next.
    assert fits("xx" + REFUSAL[:10] + "…[5 chars truncated]…" + REFUSAL[15:] + "yy", REFUSAL)


@pytest.mark.parametrize(("outcome", "message", "is_error", "text", "agree", "kind"), [
    ("refused", REFUSAL, True, REFUSAL, True, ""),
    ("refused", REFUSAL, True, f"MCP error: {REFUSAL}", True, ""),
    ("refused", REFUSAL, False, "contents", False, "answered_refused"),
    ("refused", REFUSAL, True, REFUSAL.replace("/data", "/old"), False, "other_text"),
    ("ok", "", False, "contents", True, ""),
    ("ok", "", True, REFUSAL, False, "refused_allowed"),
    ("partial", "/x/a: Error - no\n/x/b: Error - no", False,
     "/x/a: Error - no\n---\n/x/b: Error - no", True, ""),
    ("partial", "/x/a: Error - no\n/x/b: Error - no", False, "/x/a: Error - no", False,
     "missing_item"),
    ("partial", "/x/a: Error - no", True, "boom", False, "refused_allowed"),
    ("error", "not a file", True, "ENOENT: whatever the tool says", True, ""),
    ("error", "not a file", False, "contents", False, "answered_error"),
    ("absent", "", True, "Unknown tool", True, ""),
    ("absent", "", False, "contents", False, "answered_error"),
])
def test_agreement_per_outcome(outcome: str, message: str, is_error: bool, text: str,
                               agree: bool, kind: str) -> None:
    found = agreement(outcome, message, is_error=is_error, text=text)
    assert (found.agree, found.kind) == (agree, kind)
    assert bool(found.why) == (not agree)
