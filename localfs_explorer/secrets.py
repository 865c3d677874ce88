"""Which settings are secret, and how their values are hidden.

This is the one place that decides it, so that every view (a diff, a preview, a log line,
an error message) hides the same values. The rule follows the server's own logging rule:
``CREDENTIALS_CONFIG`` holds the OAuth client itself, and a name that says SECRET,
PASSWORD, TOKEN or KEY names a secret, unless it also says PATH or FILE, in which case
its value is only where a secret lives (``TOKEN_PATH``, ``GOOGLE_APPLICATION_CREDENTIALS``
is not matched at all), which the policy has to show.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, TextIO

#: What a hidden value is shown as. Fixed, so it reveals nothing, not even the length.
MASK = "••••••"

#: Keys that are secret whatever their name says.
SECRET_KEYS: frozenset[str] = frozenset({"CREDENTIALS_CONFIG"})

_SECRET_WORDS = ("SECRET", "PASSWORD", "TOKEN", "KEY")
_LOCATION_WORDS = ("PATH", "FILE")

#: Secret values shorter than this are not searched for in free text by :func:`scrub`:
#: replacing every "1" or "on" in a message would mangle it while hiding nothing.
MIN_SCRUB_LENGTH = 4

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_secret_key(name: str) -> bool:
    """Whether the value of setting ``name`` must never be shown.

    >>> is_secret_key("CREDENTIALS_CONFIG"), is_secret_key("API_KEY")
    (True, True)
    >>> is_secret_key("TOKEN_PATH"), is_secret_key("LOCAL_FILE_ROOTS")
    (False, False)
    """
    upper = name.upper()
    if upper in SECRET_KEYS:
        return True
    if any(word in upper for word in _LOCATION_WORDS):
        return False
    return any(word in upper for word in _SECRET_WORDS)


def mask(value: str | None) -> str:
    """The text shown in place of a secret value: always :data:`MASK`, whatever the value."""
    del value  # deliberately unused: nothing about the value may reach the output
    return MASK


def shown_value(name: str, value: str | None) -> str | None:
    """``value`` as it may be displayed for setting ``name`` (masked when secret)."""
    if value is None:
        return None
    return mask(value) if is_secret_key(name) else value


def masked(values: Mapping[str, str | None]) -> dict[str, str | None]:
    """A copy of ``values`` with every secret setting's value masked."""
    return {name: shown_value(name, value) for name, value in values.items()}


def secret_values(values: Mapping[str, str | None]) -> set[str]:
    """The values of the secret settings in ``values`` that :func:`scrub` should hide."""
    return {
        value
        for name, value in values.items()
        if value and len(value) >= MIN_SCRUB_LENGTH and is_secret_key(name)
    }


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of a known secret value replaced by :data:`MASK`.

    A second line of defence for free text (a comment, a malformed line, an error from
    another library) that might quote a secret outside its own setting. Longer values are
    replaced first, so a secret that contains another is hidden whole.
    """
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= MIN_SCRUB_LENGTH:
            text = text.replace(secret, MASK)
    return text


def mentions_secret_key(text: str) -> bool:
    """Whether ``text`` contains a name that :func:`is_secret_key` calls secret.

    Used for text that can't be parsed as ``KEY=VALUE`` (a malformed ``.env`` line): if it
    names a secret setting anywhere, the whole text is treated as secret.
    """
    return any(is_secret_key(word) for word in _NAME.findall(text))


# ----------------------------------------------------------- output that can't leak them
#
# A secret can reach another setting's value (``LOCAL_FILE_ROOTS=/tmp/${CREDENTIALS_CONFIG}``
# interpolates it), and from there every path, message and table built from that setting.
# Rather than mask each of those, the command line scrubs everything it prints: while
# :func:`collecting` is active, every environment loaded adds its secret values to the
# set, and :class:`ScrubbingWriter` replaces them in whatever is written.

_collected: ContextVar[set[str] | None] = ContextVar("localfs_explorer_secrets", default=None)


_LIST_SEPARATORS = re.compile(r"[,;:\s]+")


def _spellings(value: str) -> set[str]:
    """``value`` as it may appear in output: whole, as the pieces a list setting splits
    it into (``LOCAL_FILE_ROOTS`` splits at commas), each also as inside JSON strings."""
    pieces = {value, *_LIST_SEPARATORS.split(value)}
    forms = set()
    for piece in pieces:
        forms |= {piece, json.dumps(piece)[1:-1], json.dumps(piece, ensure_ascii=False)[1:-1],
                  html.escape(piece), html.escape(piece, quote=False)}
    return {form for form in forms if len(form) >= MIN_SCRUB_LENGTH}


@contextlib.contextmanager
def collecting() -> Iterator[set[str]]:
    """Collect the secret values of every environment loaded inside the block."""
    bag: set[str] = set()
    token = _collected.set(bag)
    try:
        yield bag
    finally:
        _collected.reset(token)


def note_secrets(values: Mapping[str, str | None]) -> None:
    """Add the secret values in ``values`` to the active :func:`collecting` set, if any."""
    bag = _collected.get()
    if bag is not None:
        for value in secret_values(values):
            bag |= _spellings(value)


#: Secret values a long-lived view (the dashboard) has seen; see :func:`hide_everywhere`.
_hidden: set[str] = set()


def hide_everywhere(values: Iterable[str]) -> None:
    """Remember secret values so that :func:`scrub_hidden` masks them in any text.

    For views that render many pieces of text over time (the dashboard escapes every
    piece through one function): a secret interpolated into a root or a message is then
    masked wherever it appears. Values are only ever added; masking more is harmless.
    """
    for value in values:
        if value and len(value) >= MIN_SCRUB_LENGTH:
            _hidden.update(_spellings(value))


def scrub_hidden(text: str) -> str:
    """``text`` with every value passed to :func:`hide_everywhere` masked."""
    return scrub(text, _hidden) if _hidden else text


def scrub_noted(text: str) -> str:
    """``text`` with the secrets collected so far (by :func:`collecting`) masked."""
    bag = _collected.get()
    return scrub(text, bag) if bag else text


class ScrubbingWriter:
    """A text stream wrapper that masks every value in ``secrets`` as it is written."""

    def __init__(self, stream: TextIO, secrets: set[str]) -> None:
        self._stream = stream
        self._secrets = secrets

    def write(self, text: str) -> int:
        self._stream.write(scrub(text, self._secrets) if self._secrets else text)
        return len(text)

    def rewrite_line(self, text: str) -> None:
        """Rewrite the current line with ``text``, masked (see ``SafeWriter.rewrite_line``)."""
        shown = scrub(text, self._secrets) if self._secrets else text
        rewrite = getattr(self._stream, "rewrite_line", None)
        if rewrite is not None:
            rewrite(shown)
        else:
            self._stream.write("\r" + shown)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
