"""Which settings are secret, and how their values are hidden.

This is the one place that decides it, so that every view (a diff, a preview, a log line,
an error message, a report file) hides the same values. The rule follows the server's own
logging rule: ``CREDENTIALS_CONFIG`` holds the OAuth client itself, and a name that says
SECRET, PASSWORD, PASSWD, PASSPHRASE, TOKEN, KEY or CREDENTIAL names a secret, as do
``DATABASE_URL`` and ``*_DSN`` (connection strings carry the password). A name whose last
word says where something lives (``TOKEN_PATH``, ``KEY_FILE``, ``SSL_KEYFILE``) holds only
a location, which the policy has to show; a location word anywhere else in the name
(``PROFILE_TOKEN``, ``FILESTACK_API_KEY``, ``SSL_KEYFILE_PASSWORD``) changes nothing.
``GOOGLE_APPLICATION_CREDENTIALS`` is the path of a key file, so it is shown too.

A secret is hidden in every spelling the tool itself derives from it: upper or lower case
(case-variant probes), a path normalised (repeated slashes collapsed, a trailing slash
dropped), split into path components or list items, escaped for JSON or HTML,
percent-encoded as in a URL, or (whole) base64-encoded.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import html
import json
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, TextIO
from urllib.parse import quote, quote_plus

#: What a hidden value is shown as. Fixed, so it reveals nothing, not even the length.
MASK = "••••••"

#: Keys that are secret whatever their name says.
SECRET_KEYS: frozenset[str] = frozenset({"CREDENTIALS_CONFIG", "DATABASE_URL"})
#: Keys whose value is where a secret lives, whatever their name says: the server reads
#: the key file named there, and the policy's deny-list is about exactly that file.
LOCATION_KEYS: frozenset[str] = frozenset({"GOOGLE_APPLICATION_CREDENTIALS"})

# Searched for anywhere in the name: API_KEY, APIKEY, PRIVATE_KEY, DB_PASSWORD, PASSWD...
_SECRET_WORDS = ("SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "TOKEN", "KEY", "CREDENTIAL")
# Whole words of the name that say it holds a connection string (with its password).
_CONNECTION_WORDS = frozenset({"DSN"})
# A name's last word that says its value is a location (TOKEN_PATH, KEY_FILE, CERT_DIR).
_LOCATION_WORDS = frozenset({"PATH", "PATHS", "FILE", "FILES", "FILENAME", "DIR", "DIRS",
                             "DIRECTORY", "FOLDER", "LOCATION"})
_WORD_SPLIT = re.compile(r"[^A-Z0-9]+")
# A URL that carries a password in its userinfo: scheme://user:password@host
_URL_PASSWORD = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#@\s]*:[^/?#@\s]+@")

#: Secret values shorter than this are not searched for in free text by :func:`scrub`:
#: replacing every "1" or "on" in a message would mangle it while hiding nothing.
MIN_SCRUB_LENGTH = 4
#: The path components and trailing parts of a secret holding JSON or a URL are hidden on
#: their own from this length (those of any other secret from :data:`MIN_SCRUB_LENGTH`).
MIN_PART_LENGTH = 8

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
    if upper in LOCATION_KEYS:
        return False
    words = [w for w in _WORD_SPLIT.split(upper) if w]
    if not words:
        return False
    if _names_a_location(words[-1]):
        return False
    if upper.endswith("DATABASE_URL") or _CONNECTION_WORDS.intersection(words):
        return True
    return any(word in upper for word in _SECRET_WORDS)


def _names_a_location(word: str) -> bool:
    """Whether a name ending in ``word`` holds a location: ``PATH``, ``FILE``... or a
    secret word joined to one (``KEYFILE``, ``TOKENPATH``), but not ``PROFILE``."""
    if word in _LOCATION_WORDS:
        return True
    return any(word.endswith(where) and any(secret in word[: -len(where)]
                                            for secret in _SECRET_WORDS)
               for where in ("FILE", "PATH", "DIR"))


def is_secret_value(value: str | None) -> bool:
    """Whether ``value`` is secret whatever its setting is called: a URL with a password
    (``postgres://app:hunter22@db/app``)."""
    return bool(value) and _URL_PASSWORD.match(value or "") is not None


def is_secret_setting(name: str, value: str | None) -> bool:
    """Whether setting ``name`` holding ``value`` must be hidden (by name or by value)."""
    return is_secret_key(name) or is_secret_value(value)


def mask(value: str | None) -> str:
    """The text shown in place of a secret value: always :data:`MASK`, whatever the value."""
    del value  # deliberately unused: nothing about the value may reach the output
    return MASK


def shown_value(name: str, value: str | None) -> str | None:
    """``value`` as it may be displayed for setting ``name`` (masked when secret)."""
    if value is None:
        return None
    return mask(value) if is_secret_setting(name, value) else value


def masked(values: Mapping[str, str | None]) -> dict[str, str | None]:
    """A copy of ``values`` with every secret setting's value masked."""
    return {name: shown_value(name, value) for name, value in values.items()}


def secret_values(values: Mapping[str, str | None]) -> set[str]:
    """The values of the secret settings in ``values`` that :func:`scrub` should hide."""
    return {
        value
        for name, value in values.items()
        if value and len(value) >= MIN_SCRUB_LENGTH and is_secret_setting(name, value)
    }


def scrub(text: str, secrets: Iterable[str], mask: str = MASK) -> str:
    """``text`` with every occurrence of a known secret value, in any spelling the tool
    derives from it (see :func:`_spellings`) and in any case, replaced by ``mask``
    (:data:`MASK`; a command to copy puts a placeholder there instead).

    A second line of defence for free text (a comment, a malformed line, an error from
    another library) that might quote a secret outside its own setting. Overlapping
    occurrences are hidden as one, so a secret that contains another is hidden whole.
    """
    spans = _spans(text, secrets)
    if not spans:
        return text
    pieces, done = [], 0
    for begin, finish in spans:
        pieces += [text[done:begin], mask]
        done = finish
    pieces.append(text[done:])
    return "".join(pieces)


def _spans(text: str, secrets: Iterable[str]) -> list[tuple[int, int]]:
    """Where :func:`scrub` would mask ``text``: sorted, overlapping occurrences joined."""
    matcher = _matcher(frozenset(secrets))
    if matcher is None:
        return []
    # Most text holds no secret: plain substring searches of the case-folded text decide
    # that quickly. Only the spellings that contain no other spelling are searched first;
    # the others are searched only when one they contain was found.
    haystack = text.casefold()
    found = [form for form in matcher if form in haystack]
    if not found:
        return []
    folded = {longer for form in found for longer in matcher[form]}
    spans: list[tuple[int, int]] = []
    if len(haystack) != len(text):  # folding changed lengths (ß -> ss): match by pattern
        hits = sorted((f for f in folded if f in haystack), key=len, reverse=True)
        pattern = re.compile("|".join(map(re.escape, hits)), re.IGNORECASE)
        spans = [m.span() for m in pattern.finditer(text)]
    else:
        for form in folded:
            at = haystack.find(form)
            while at >= 0:
                spans.append((at, at + len(form)))
                at = haystack.find(form, at + 1)
    spans.sort()
    joined: list[tuple[int, int]] = []
    for begin, finish in spans:  # overlapping spans are hidden as one
        if joined and begin < joined[-1][1]:
            joined[-1] = (joined[-1][0], max(joined[-1][1], finish))
        else:
            joined.append((begin, finish))
    return joined


def mask_within(obj: Any, secrets: Iterable[str]) -> Any:
    """A copy of the JSON-like ``obj`` whose strings (keys and values) hold no secret:
    each string that is or contains one, in any spelling :func:`scrub` knows, has it
    replaced by :data:`MASK` inside the string. Numbers, booleans and None are kept."""
    bag = frozenset(secrets)
    if isinstance(obj, str):
        return scrub(obj, bag)
    if isinstance(obj, Mapping):
        return {mask_within(str(k), bag): mask_within(v, bag) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [mask_within(v, bag) for v in obj]
    return obj


def safe_json(obj: Any, secrets: Iterable[str], *, indent: int | None = 2) -> str:
    """``obj`` as JSON text with every secret masked inside its strings (see
    :func:`mask_within`), so the text stays valid JSON and a plain word that merely
    occurs inside a secret (``"service_account"`` in a service account's key file) is
    shown where it is not the secret.

    A final check reads the text as :func:`scrub` would: the only spellings of a secret
    it may still hold are whole JSON strings whose own content holds no secret (the
    quoted word above). Anything else is masked in the text itself, valid JSON or not.
    """
    bag = frozenset(secrets)
    text = json.dumps(mask_within(obj, bag), indent=indent, ensure_ascii=False)
    for begin, finish in _spans(text, bag):
        token = text[begin:finish]
        if not (len(token) >= 2 and token[0] == '"' and token[-1] == '"'
                and (begin == 0 or text[begin - 1] != "\\")):
            return scrub(text, bag)
        try:
            content = json.loads(token)
        except ValueError:
            return scrub(text, bag)
        if not isinstance(content, str) or scrub(content, bag) != content:
            return scrub(text, bag)
    return text


@functools.lru_cache(maxsize=64)
def _matcher(secrets: frozenset[str]) -> dict[str, tuple[str, ...]] | None:
    """Every spelling of every secret, case-folded, grouped under the spellings that
    contain no other (if any spelling is in a text, one of those is): each of those maps
    to every spelling that contains it, itself included."""
    folded: set[str] = set()
    for secret in secrets:
        if len(secret) >= MIN_SCRUB_LENGTH:
            folded |= {form.casefold() for form in _spellings(secret)}
    if not folded:
        return None
    ordered = tuple(sorted(folded, key=len))
    minimal: list[str] = []
    for form in ordered:
        if not any(kept in form for kept in minimal):
            minimal.append(form)
    return {kept: tuple(form for form in ordered if kept in form) for kept in minimal}


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
_REPEATED_SLASHES = re.compile("/{2,}")


def _spellings(value: str) -> set[str]:
    """``value`` as it may appear in output: whole, as the pieces a list setting splits
    it into (``LOCAL_FILE_ROOTS`` splits at commas), as a path normalised (slashes
    collapsed, trailing slash dropped, ``.`` and ``..`` resolved), as the ancestors a
    path check walks (``a/b`` of ``a/b/c``) and the components a view shows apart, each in
    upper, lower and folded case, and as inside JSON, HTML or a URL (percent-encoded).

    In a secret holding JSON or a URL, components and trailing parts count only from
    :data:`MIN_PART_LENGTH` characters: an OAuth client's JSON holds ``.../oauth2/auth``,
    and hiding every "auth" would mangle the output while hiding nothing of the secret.
    """
    structured = "://" in value or value.lstrip().startswith(("{", "["))
    part_length = MIN_PART_LENGTH if structured else MIN_SCRUB_LENGTH
    # A URL's scheme ("http") is a piece of it, and no secret: list pieces of JSON or a
    # URL count from the longer length too; a URL's password counts on its own.
    pieces = {value, *(piece for piece in _LIST_SEPARATORS.split(value)
                       if len(piece) >= part_length)}
    if is_secret_value(value):
        match = _URL_PASSWORD.match(value)
        password = match.group(0).rsplit(":", 1)[-1].rstrip("@") if match else ""
        if len(password) >= MIN_SCRUB_LENGTH:
            pieces.add(password)
    for piece in list(pieces):
        collapsed = _REPEATED_SLASHES.sub("/", piece.replace("\\", "/"))
        pieces |= {collapsed, collapsed.rstrip("/"), posixpath.normpath(collapsed or ".")}
        trimmed = collapsed.strip("/")
        parts = trimmed.split("/")
        for i in range(1, len(parts)):
            head, tail = "/".join(parts[:i]), "/".join(parts[i:])
            if not structured or len(head) >= part_length:
                pieces.add(head)  # (a URL's "http:" is no secret)
            if len(tail) >= part_length:
                pieces.add(tail)
        pieces |= {part for part in parts if len(part) >= part_length}
    cased = set()
    for piece in pieces:
        cased |= {piece, piece.upper(), piece.lower(), piece.casefold()}
    forms = set()
    for piece in cased:
        forms |= {piece, json.dumps(piece)[1:-1], json.dumps(piece, ensure_ascii=False)[1:-1],
                  html.escape(piece), html.escape(piece, quote=False),
                  # as a URL carries it (a link's query, a proxy's userinfo)
                  quote(piece, safe=""), quote(piece), quote_plus(piece)}
    # The whole value base64-encoded (an Authorization header, a data: URL), without the
    # padding, which depends on what follows it.
    raw = value.encode("utf-8", errors="surrogatepass")
    forms |= {base64.b64encode(raw).decode().rstrip("="),
              base64.urlsafe_b64encode(raw).decode().rstrip("=")}
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
        bag |= secret_values(values)  # scrub() derives their other spellings


def note_secret_values(values: Iterable[str]) -> None:
    """Add ``values``, each secret whatever it is called (a secret-named variable's value
    expanded into another setting), to the active :func:`collecting` set, if any."""
    bag = _collected.get()
    if bag is not None:
        bag |= {v for v in values if v and len(v) >= MIN_SCRUB_LENGTH}


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
            _hidden.add(value)  # scrub() derives its other spellings


def hidden_values() -> frozenset[str]:
    """The values passed to :func:`hide_everywhere` so far."""
    return frozenset(_hidden)


def holds_secret(text: str, secrets: Iterable[str]) -> bool:
    """Whether ``text`` holds one of ``secrets`` in any spelling :func:`scrub` knows."""
    return bool(_spans(text, secrets))


def scrub_hidden(text: str) -> str:
    """``text`` with every value passed to :func:`hide_everywhere` masked."""
    return scrub(text, _hidden) if _hidden else text


def hidden_json(obj: Any, *, indent: int | None = 2) -> str:
    """``obj`` as JSON with every value passed to :func:`hide_everywhere` masked inside
    its strings (see :func:`safe_json`)."""
    return safe_json(obj, _hidden, indent=indent)


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

    def writelines(self, lines: Iterable[str]) -> None:
        """Each line through :meth:`write`, masked (the wrapped stream's own would not be)."""
        for line in lines:
            self.write(line)

    def write_json(self, obj: Any, *, indent: int | None = 2) -> None:
        """Write ``obj`` as JSON with the secrets masked inside its strings, so the
        output stays JSON (see :func:`safe_json`), and a line break."""
        self._stream.write(safe_json(obj, self._secrets, indent=indent) + "\n")

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
