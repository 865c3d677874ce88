"""Which settings are secret, and how their values are hidden.

This is the one place that decides it, so that every view (a diff, a preview, a log line,
an error message) hides the same values. The rule follows the server's own logging rule:
``CREDENTIALS_CONFIG`` holds the OAuth client itself, and a name that says SECRET,
PASSWORD, TOKEN or KEY names a secret, unless it also says PATH or FILE, in which case
its value is only where a secret lives (``TOKEN_PATH``, ``GOOGLE_APPLICATION_CREDENTIALS``
is not matched at all), which the policy has to show.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

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
