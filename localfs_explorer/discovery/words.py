"""What looks like a local path: argument names, single values, shell command words.

The search in :mod:`localfs_explorer.discovery` asks these questions of every string it
meets; each answer is a pure function of the text.
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache
from typing import Literal

#: Longest path the server's OS accepts (Linux PATH_MAX); longer strings aren't paths.
_MAX_PATH_CHARS = 4096
#: Longest single name (NAME_MAX); a "path" with a longer component is data (base64).
_MAX_NAME_CHARS = 255


# --- argument names ------------------------------------------------------------------------

_STRONG_NOUNS = frozenset({
    "path", "paths", "filepath", "filepaths", "pathname", "pathnames", "file", "files",
    "filename", "filenames", "dir", "dirs", "directory", "directories", "dirname",
    "dirpath", "folder", "folders", "cwd", "workdir", "basedir", "rootdir", "outdir",
    "srcdir", "destdir", "tmpdir", "homedir", "outfile", "infile", "logfile", "keyfile",
    "certfile",
})
_WEAK_NOUNS = frozenset({
    "dest", "destination", "dst", "output", "out", "src", "source", "target", "input",
    "root", "roots", "location", "save",
})
_COMMAND_NOUNS = frozenset({"command", "cmd", "commands", "script", "shell", "cmdline",
                            "commandline"})
# Arguments whose values are encoded bytes, identifiers, addresses or types: never taken
# whole as a path. Their words are still searched (a ``file:`` URI in ``url`` is a local
# path), except for encoded bytes (_ENCODED_NOUNS): base64 is full of '/'.
_DATA_NOUNS = frozenset({"base64", "b64", "id", "ids", "url", "urls", "uri", "uris", "email",
                         "emails", "mimetype"})
_ENCODED_NOUNS = frozenset({"base64", "b64"})

# Words of a name: snake_case, kebab-case, camelCase, ACRONYMPath; digits stay attached
# ("base64", "file2") so a trailing number doesn't become the noun.
_NAME_WORDS = re.compile(r"[A-Z]+\d*(?![a-z])|[A-Z]?[a-z]+\d*|\d+")

ArgumentKind = Literal["path", "weak", "command", "data"]


def _name_words(name: str) -> list[str]:
    return [w.lower() for w in _NAME_WORDS.findall(name)]


@lru_cache(maxsize=4096)
def argument_name_kind(name: str) -> ArgumentKind | None:
    """What an argument's name says its value is: a path, maybe a path, a command, data.

    The last word of the name decides (``output_file`` → path, ``file_id`` → None);
    ``file_name``/``folder_name`` are ``weak`` because Drive names look the same;
    ``data`` (``content_base64``, ``file_id``, ``url``) is never searched.
    """
    # Cached: a batch asks about the same few argument names in every call.
    words = _name_words(name)
    if not words:
        return None
    if words[-1] in _DATA_NOUNS or (words[-2:] == ["mime", "type"]):
        return "data"
    last = words[-1].rstrip("0123456789") or words[-1]
    if last in _STRONG_NOUNS:
        return "path"
    if last in _COMMAND_NOUNS:
        return "command"
    if last in _WEAK_NOUNS or (last == "name" and len(words) > 1 and words[-2] in
                               ("file", "dir", "directory", "folder", "path")):
        return "weak"
    return None


@lru_cache(maxsize=4096)
def is_encoded_argument_name(name: str) -> bool:
    """Whether an argument's name says its value is encoded bytes (``content_base64``):
    such a value is never searched, since base64 text is full of ``/``."""
    words = _name_words(name)
    return bool(words) and words[-1] in _ENCODED_NOUNS


def is_path_argument_name(name: str) -> bool:
    """Whether an argument's name says it may hold a local path (strong or weak)."""
    return argument_name_kind(name) in ("path", "weak")


# --- values ---------------------------------------------------------------------------------

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")
_OPAQUE_URL = re.compile(
    r"^(?:mailto|data|urn|tel|javascript|about|blob|sms|news|magnet|cid|mid):", re.IGNORECASE
)
_SCP_LIKE = re.compile(r"^[\w.\-]+@[\w.\-]+:")
_MIME = re.compile(
    r"^(?:application|audio|font|image|message|model|multipart|text|video|chemical|"
    r"x-[\w\-]+)/[\w.+\-]+$",
    re.IGNORECASE,
)
_NUMERIC = re.compile(r"^[\d/.:,\-]+$")
_SHORT_PAIR = re.compile(r"^[A-Za-z]{1,3}/[A-Za-z]{1,3}$")
_FILE_NAME = re.compile(r"^[^/\s]+\.(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{1,8}$")
_NOISE = frozenset({"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty"})


def _is_url(text: str) -> bool:
    """A network reference rather than a local path (``file:`` URIs are local)."""
    match = _URL.match(text)
    if match:
        return match.group(1).lower() != "file"
    return bool(_OPAQUE_URL.match(text) or _SCP_LIKE.match(text))


def looks_like_path(text: str) -> bool:
    """Whether a single word looks like a local path on a POSIX host."""
    if not text or len(text) > _MAX_PATH_CHARS or "\n" in text or text.startswith("-"):
        return False
    if _is_url(text):
        return False
    if text.lower().startswith("file:"):
        return True
    if text in (".", ".."):
        return False  # too common as punctuation to count without an argument name
    if text.startswith(("/", "~/", "./", "../")) or text == "~":
        return _plausible_names(text)
    if text.startswith("~") and "/" in text:
        return _plausible_names(text)  # ~user/...
    if text[0] in "*?[":
        return False  # a glob with no location of its own
    if "/" not in text:
        return False
    if _MIME.match(text) or _NUMERIC.match(text) or _SHORT_PAIR.match(text):
        return False
    return _plausible_names(text)


def _plausible_names(text: str) -> bool:
    return all(len(part) <= _MAX_NAME_CHARS for part in text.split("/"))


def _looks_like_file_name(text: str) -> bool:
    return bool(_FILE_NAME.match(text)) and not _NUMERIC.match(text)


def _plausible_value(text: str) -> bool:
    """Whether a value given to a path-named argument could be a path at all."""
    stripped = text.strip()
    return (
        bool(stripped)
        and len(text) <= _MAX_PATH_CHARS
        and "\n" not in text
        and not text.startswith("-")
        and not _is_url(text)
        and _plausible_names(text)
    )


# --- shell words ------------------------------------------------------------------------------

_SHELL_SYNTAX = re.compile(r"[|<>;&`]|\$\(")
# Prose carrying HTML or Markdown links: its '<' and '>' are tags, not redirections. Only
# a known element (or a comment, a doctype) counts as a tag, so a redirection such as
# "sort </etc/passwd 2>&1" (which reads like "</etc/passwd 2>") is never taken for one.
_HTML_ELEMENTS = (
    "a|abbr|article|aside|audio|b|blockquote|body|br|button|caption|center|cite|code|col|"
    "colgroup|dd|del|details|div|dl|dt|em|figcaption|figure|font|footer|form|h[1-6]|head|"
    "header|hr|html|i|iframe|img|input|ins|kbd|label|li|link|main|mark|meta|nav|ol|option|"
    "p|picture|pre|q|s|script|section|select|small|source|span|strong|style|sub|summary|"
    "sup|svg|table|tbody|td|textarea|tfoot|th|thead|time|title|tr|tt|u|ul|video"
)
_TAG = re.compile(
    rf"<!--.*?-->|<!doctype\b[^<>]*>|</?(?:{_HTML_ELEMENTS})(?=\s|/?>)[^<>]*>",
    re.IGNORECASE | re.DOTALL,
)
_MARKUP = re.compile(rf"{_TAG.pattern}|\]\(", re.IGNORECASE | re.DOTALL)
_OPERATOR_CHARS = "();<>|&"
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
_OPTION = re.compile(r"^--?([A-Za-z][A-Za-z0-9_\-]*)=(.*)$", re.DOTALL)
_LONG_OPTION = re.compile(r"^--([A-Za-z][A-Za-z0-9_\-]*)$")
# A redirection target names a file: it has a name character and isn't a bare number
# (in "x > 5" the 5 is far more likely a comparison than a file called "5").
_REDIRECT_TARGET = re.compile(r"^(?!\d+$).*[\w./~$]", re.DOTALL)
_GLUED_REDIRECT = re.compile(r"^\d*(?:&>>?|>>?\|?|<)(?P<target>[^<>&|].*)$", re.DOTALL)
_HOME_VAR = re.compile(r"^(?:\$HOME|\$\{HOME\})(?=/|$)")
_MARKUP_TARGET = re.compile(
    r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"
    r"|\b(?:src|href)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')",
    re.IGNORECASE,
)
_TRIM_LEFT = "\"'`([{<"
_TRIM_RIGHT = "\"'`)]}>.,;:!?"


_NEEDS_SHLEX = re.compile(r"[\"'\\]")
_PLAIN_WORDS = re.compile(r"[();<>|&]+|[^ \t\r\n();<>|&]+")


def shell_words(text: str) -> tuple[list[str], bool]:
    """Split a shell command into words, with operators (``> | ;`` ...) as their own words.

    Returns ``(words, exact)``; ``exact`` is False when the quoting didn't parse and
    the text was split on whitespace instead.
    """
    if not _NEEDS_SHLEX.search(text):
        # Without quotes or escapes shlex only splits on whitespace and operator runs;
        # one regex does the same several times faster (tests hold them equal).
        return _PLAIN_WORDS.findall(text), True
    lexer = shlex.shlex(text, posix=True, punctuation_chars=_OPERATOR_CHARS)
    lexer.whitespace_split = True
    lexer.commenters = ""  # '#' is an ordinary character in a path
    try:
        return list(lexer), True
    except ValueError:
        return text.split(), False


# --- the reference design's token rule ----------------------------------------------------------

#: A token can only be path-like by the reference rule when it holds one of these.
_PATH_CHARS = re.compile(r"[/~\\]")


def reference_clean(token: str) -> tuple[str, str | None]:
    """A word cleaned the way the reference design cleans a token, and how it was
    unwrapped (None: not at all); see :func:`reference_candidate`."""
    how: str | None = None
    text = token
    if ">" in text:
        text, how = text.rpartition(">")[2], "redirection"
    if "<" in text:
        text, how = text.rpartition("<")[2], "redirection"
    text = text.strip()
    if text.startswith("$("):
        text, how = text[2:], "command substitution"
    text = text.strip("(){}").rstrip(";|&)").strip()
    if "=" in text:
        left, _, right = text.partition("=")
        if left and left.lstrip("-").replace("_", "").isalnum():
            how = "option value" if left.startswith("-") else "assignment"
            text = right
    return text, how


def reference_candidate(token: str) -> tuple[str, str | None] | None:
    """A word cleaned the way the reference design cleans a token, if what is left is
    path-like by its rule; with how it was unwrapped (None: not at all).

    The rule: keep what follows the last ``>``, then the last ``<`` (a redirection glued
    on, or inside a quoted word); drop a leading ``$(``, surrounding ``(){}`` and trailing
    ``;|&)``; unwrap ``NAME=value`` and ``--opt=value`` when the part before ``=`` is a
    word. Path-like: not a flag, a non-``file:`` URL, a bare glob or ``.``/``..``, and
    starts with ``~`` or holds ``/`` or ``\\``.
    """
    text, how = reference_clean(token)
    if not text or text[0] in "-*?[" or text in (".", ".."):
        return None
    if "://" in text and text.partition("://")[0].lower() != "file":
        return None
    if text[0] == "~" or "/" in text or "\\" in text:
        return text, how
    return None


def not_a_path_shape(text: str) -> bool:
    """Shapes the reference rule takes for paths and this explorer deliberately doesn't:
    network references (``user@host:path``, ``mailto:``), MIME types, dates and
    fractions, short ``and/or`` pairs, and strings no filesystem accepts as a path (a
    name over 255 characters, as in base64, or a newline)."""
    if text[:5].lower() == "file:":
        return False
    return (
        len(text) > _MAX_PATH_CHARS
        or "\n" in text
        or _is_url(text)
        or bool(_MIME.match(text) or _NUMERIC.match(text) or _SHORT_PAIR.match(text))
        or not _plausible_names(text)
    )


def _is_operator(word: str) -> bool:
    return bool(word) and all(ch in _OPERATOR_CHARS for ch in word)


def _redirects_to_file(operator: str, following: str | None) -> bool:
    """Whether ``operator`` makes the next word a file name."""
    if "(" in operator or ")" in operator:
        return False  # process substitution, subshells
    if "<<" in operator:
        return False  # here-documents and here-strings take text, not a file
    if ">" not in operator and "<" not in operator:
        return False
    if operator.endswith("&") and (following is None or following.isdigit() or following == "-"):
        return False  # 2>&1 duplicates a descriptor
    return following is not None
