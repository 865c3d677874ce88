"""Whether a recorded answer is the one the explorer predicts, and if not, why.

The prediction is a :class:`~localfs_explorer.probe.CallVerdict`; the recording says
whether the call failed and with what text. They agree when:

- ``refused``: the recording is an error whose text holds the predicted refusal (a
  client may put words before it, as "Error: ...");
- ``partial``: the call succeeded and each predicted per-item error line is in its text;
- ``ok``: the call succeeded;
- ``error`` (the tool's own error: a missing file, a bad argument) and ``absent`` (the
  tool isn't there for the model): the call failed. Those texts are the tool's or the
  client's own and aren't compared.

A text a log viewer cut (``…[N chars truncated]…``) is matched on what remains: the
predicted text must fit the pieces left and the gaps between them (:func:`fits`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .readers import TRUNCATED, truncation_pieces

__all__ = ["Agreement", "agreement", "fits"]


@dataclass(frozen=True)
class Agreement:
    """The comparison of one call: ``agree`` and, when False, which side said what."""

    agree: bool
    #: What differs, in a sentence ("" when they agree).
    why: str = ""
    #: The kind of difference: ``answered_refused`` (the server answered a call the
    #: explorer refuses), ``refused_allowed`` (it refused one the explorer allows),
    #: ``other_text`` (both refuse, in other words), ``missing_item`` (a per-item error
    #: not in the answer), ``answered_error`` (it answered where the tool should fail).
    kind: str = ""


def fits(text: str, message: str) -> bool:
    """Whether ``message`` occurs in ``text``, where ``text`` may have been cut
    (``…[N chars truncated]…``): then the message must agree with every character left
    and may run through the N missing ones."""
    if not TRUNCATED.search(text):
        return message in text
    pieces = truncation_pieces(text)
    if any(p for p, _ in pieces if message in p):
        return True
    if any(gap >= len(message) for _, gap in pieces):
        return True  # the message may sit wholly in what was cut
    # Lay the pieces out at their offsets in the whole text, and try every start of the
    # message that overlaps a piece.
    spans: list[tuple[int, str]] = []
    at = 0
    for piece, gap in pieces:
        spans.append((at, piece))
        at += len(piece) + gap
    total = at
    # Every gap is shorter than the message here, so the text laid out stays short.
    return any(_agrees(spans, start, message)
               for start in range(max(total - len(message) + 1, 0)))


def _agrees(spans: list[tuple[int, str]], start: int, message: str) -> bool:
    end = start + len(message)
    for offset, piece in spans:
        lo, hi = max(start, offset), min(end, offset + len(piece))
        if lo < hi and piece[lo - offset:hi - offset] != message[lo - start:hi - start]:
            return False
    return True


def agreement(outcome: str, message: str, *, is_error: bool, text: str) -> Agreement:
    """The predicted ``outcome``/``message`` held against the recorded answer."""
    if outcome == "refused":
        if not is_error:
            return Agreement(False, "the server answered a call the explorer refuses",
                             "answered_refused")
        if fits(text, message):
            return Agreement(True)
        return Agreement(False, "both refuse, but the server's text isn't the predicted one",
                         "other_text")
    if outcome == "partial":
        if is_error:
            return Agreement(False, "the call failed; the explorer predicts it runs with "
                             "per-item errors", "refused_allowed")
        for line in message.split("\n"):
            if line and not fits(text, line):
                return Agreement(False, f"the predicted item error {line!r} isn't in the "
                                 "answer", "missing_item")
        return Agreement(True)
    if outcome == "ok":
        if is_error:
            return Agreement(False, "the server refused or failed a call the explorer "
                             "allows", "refused_allowed")
        return Agreement(True)
    # error (the tool's own) and absent (not there for the model): the call fails.
    if is_error:
        return Agreement(True)
    what = "the tool isn't there for the model" if outcome == "absent" \
        else f"the tool fails with its own error ({message})" if message \
        else "the tool fails with its own error"
    return Agreement(False, f"the server answered; the explorer predicts {what}",
                     "answered_error")
