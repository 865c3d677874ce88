"""The ``.env`` edit as a pure function of text: the new text from the old and the changes.

:func:`edit_env_text` (and :func:`plan_edit`, its text alone) never touches the disk;
:mod:`localfs_explorer.envfile.export` validates the result with the engine and writes it.
python-dotenv's own parser (``dotenv.parser.parse_stream``) finds each binding's exact
span, so every line that isn't changed is copied byte for byte: comments, blank lines,
order, ``export`` prefixes, quoting, CRLF endings, a missing final newline, a byte-order
mark, and malformed lines (kept, and reported by line).

Editing rules (each chosen so that what python-dotenv reads is exactly what was asked):

- A changed key is rewritten where it stands, keeping its indentation, its ``export``
  prefix, an inline comment and its line ending; only ``KEY=VALUE`` is rewritten, in the
  quoting :func:`encode_value` chooses for the value.
- A key set more than once is edited at its last occurrence, the one python-dotenv
  uses. Earlier occurrences are left as they are (they can still feed a ``${KEY}``
  reference written between them, so deleting them could change other values); a
  warning names their lines.
- An unset key is removed, every occurrence of it, so that the key is really absent
  from what python-dotenv reads. It is removed rather than commented out: a commented
  copy of a removed secret would stay in the file. Blank lines around it stay.
- A new key is appended at the end, with the file's dominant line ending. If the file
  had no final newline it still has none afterwards. New keys take ``export`` only
  when every existing key has it.
- A value that python-dotenv (with ``${VAR}`` interpolation), pydantic-settings and
  docker compose's ``env_file`` would not all read back as the same string is refused
  with an :class:`ExportError` naming the key, never written differently.

Secret values (see :mod:`localfs_explorer.secrets`) never leave this module unmasked
except in the edited text itself: :func:`unified_diff` masks them, and messages carry key
names and line numbers only.
"""

from __future__ import annotations

import builtins
import difflib
import io
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from dotenv.parser import Binding, parse_stream
from pydantic import BaseModel, ConfigDict, Field

from ..errors import LocalfsError
from ..secrets import MASK, is_secret_key, mentions_secret_key, scrub, secret_values

__all__ = [
    "EditResult",
    "ExportError",
    "KeyChange",
    "edit_env_text",
    "encode_value",
    "plan_edit",
    "secret_values_in",
    "unified_diff",
]

_BOM = "\ufeff"
_KEY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# The line breaks python-dotenv's parser recognises; str.splitlines would also split on
# U+2028 and friends, which the parser treats as ordinary characters.
_LINE_BREAK = re.compile(r"\r\n|\n|\r")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+\Z")
# python-dotenv reads an optional ``export`` followed by blanks before every key; this
# mirrors that one regex so an edited line keeps the prefix exactly as it was written.
_EXPORT_PREFIX = re.compile(r"export[^\S\r\n]+")
_TRAILING_COMMENT = re.compile(r"[^\S\r\n]*#[^\r\n]*\Z")
_REFERENCE = re.compile(r"\$\{([^}:]*)")
# Characters that make an unquoted value mean something else to at least one reader:
# whitespace and '#' start a comment, quotes start a quoted value, '$' interpolates in
# compose. '`' is quoted too, for readers that hand the line to a shell.
_NEEDS_QUOTES = frozenset("'\"#$`")


class ExportError(LocalfsError):
    """An export that was refused. The message is one line and never holds a secret."""


Action = Literal["updated", "added", "removed", "unchanged", "not_present"]


class KeyChange(BaseModel):
    """What the export did to one key (values are never recorded here)."""

    model_config = ConfigDict(frozen=True)

    key: str
    action: Action
    #: 1-based line numbers in the original text that the change touched.
    lines: tuple[int, ...] = ()
    secret: bool = False

    def describe(self) -> str:
        """One line for people: ``KEY: updated (line 3)``."""
        where = ""
        if self.lines:
            label = "line" if len(self.lines) == 1 else "lines"
            where = f" ({label} {', '.join(map(str, self.lines))})"
        return f"{self.key}: {self.action.replace('_', ' ')}{where}"


class EditResult(BaseModel):
    """The outcome of :func:`edit_env_text`: the new text and what happened to get it."""

    model_config = ConfigDict(frozen=True)

    text: str = Field(repr=False)
    changes: tuple[KeyChange, ...] = ()
    warnings: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------
# Values


class WithReferences(str):
    """A new value whose ``${NAME}`` references are meant: written so that they expand.

    An edit built on a value as the file spells it (a root added to a
    ``LOCAL_FILE_ROOTS=${DATA}`` line) keeps the reference, rather than writing the
    expanded text, which would copy another setting's value (perhaps a secret) in clear
    and stop following it. Written unquoted, where python-dotenv and docker compose both
    expand ``${NAME}``; refused when anything else in it would need quotes.
    """


_REFERENCE_TOKEN = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def _unsafe_reason(value: str) -> str | None:
    """Why ``value`` can't be written for every reader, or None when it can."""
    if "\0" in value:
        return "contains a NUL byte"
    if "\n" in value or "\r" in value:
        return "contains a line break (multi-line values are read differently by each reader)"
    for char in value:
        category = unicodedata.category(char)
        if category == "Cc":
            return f"contains the control character U+{ord(char):04X}"
        if category in ("Zl", "Zp"):
            return f"contains the line separator U+{ord(char):04X}"
        if category == "Cs":
            return "contains an unpaired surrogate, which can't be written as UTF-8"
    if "${" in value:
        return "contains '${', which python-dotenv expands as a variable reference even in quotes"
    if value != value.strip():
        return "starts or ends with whitespace, which some readers trim"
    return None


def _is_plain(value: str) -> bool:
    return all(not c.isspace() and c not in _NEEDS_QUOTES for c in value)


def encode_value(key: str, value: str) -> str:
    """The text written after ``KEY=`` so every reader gets ``value`` back exactly.

    - unquoted when the value has no whitespace and none of ``' " # $ \\```: no reader
      treats anything else specially there (a backslash is literal unquoted in all three);
    - in single quotes otherwise, when it has no ``'``, no ``\\\\`` and doesn't end in a
      backslash (python-dotenv decodes ``\\\\`` and ``\\'`` inside single quotes, compose
      ends the value at the first ``'`` not preceded by a backslash); ``$`` is literal in
      single quotes for compose and python-dotenv expands only ``${``;
    - in double quotes when it has a ``'`` but no ``"``, ``$`` or backslash (so neither
      escapes nor compose's interpolation apply);
    - refused otherwise, with an :class:`ExportError` naming ``key`` (never the value).
    """
    if not _KEY_NAME.match(key):
        raise ExportError(
            f"{key!r} is not a valid variable name (letters, digits and '_', "
            "not starting with a digit)"
        )
    if isinstance(value, WithReferences):
        rest = _REFERENCE_TOKEN.sub("", value)
        reason = _unsafe_reason(rest)
        if reason is None and not _is_plain(rest):
            reason = "has ${NAME} references and something that would need quotes"
        if reason is not None:
            raise ExportError(f"{key}: refused, its new value {reason}")
        return str(value)
    reason = _unsafe_reason(value)
    if reason is None and not _is_plain(value):
        if "'" not in value and "\\\\" not in value and not value.endswith("\\"):
            return f"'{value}'"
        if '"' not in value and "$" not in value and "\\" not in value:
            return f'"{value}"'
        if "'" in value:
            reason = (
                "needs quotes and has a ' together with a \", $ or backslash: no quoting "
                "keeps that literal for python-dotenv, pydantic-settings and docker compose"
            )
        else:
            reason = (
                "needs quotes and has a double or trailing backslash, which python-dotenv "
                "and docker compose decode differently inside quotes"
            )
    if reason is not None:
        raise ExportError(f"{key}: refused, its new value {reason}")
    return value


# ---------------------------------------------------------------------------------------
# Parsing into spans


@dataclass(frozen=True)
class _Span:
    """One binding as python-dotenv parsed it, cut into the parts an edit needs."""

    binding: Binding
    lead: str  # whole lines of whitespace before the binding (kept when it is removed)
    indent: str  # blanks before the binding on its own line
    body: str  # the binding itself, without its line ending
    eol: str  # its line ending, "" at the end of the file
    line: int  # 1-based line of the body's first line

    @property
    def key(self) -> str | None:
        return None if self.binding.error else self.binding.key

    @property
    def text(self) -> str:
        return self.lead + self.indent + self.body + self.eol


def _line_starts(text: str) -> list[int]:
    return [m.end() for m in _LINE_BREAK.finditer(text)]


def _line_at(breaks: list[int], offset: int) -> int:
    # Counted over the whole text, so a CRLF python-dotenv split between two records
    # (it can, after a malformed line) still counts as one line break.
    lo, hi = 0, len(breaks)
    while lo < hi:
        mid = (lo + hi) // 2
        if breaks[mid] <= offset:
            lo = mid + 1
        else:
            hi = mid
    return lo + 1


def _spans(body_text: str) -> list[_Span]:
    """Cut ``body_text`` (no byte-order mark) into spans that concatenate back to it."""
    breaks = _line_starts(body_text)
    spans: list[_Span] = []
    offset = 0
    for binding in parse_stream(io.StringIO(body_text)):
        chunk = binding.original.string
        leading = re.match(r"\s*", chunk)  # the parser's leading-whitespace rule
        assert leading is not None  # \s* matches every string
        blank = leading.group()
        last_break = max(blank.rfind("\n"), blank.rfind("\r"))
        lead, indent = blank[: last_break + 1], blank[last_break + 1 :]
        rest = chunk[len(blank) :]
        eol_match = re.search(r"(?:\r\n|\n|\r)\Z", rest)
        eol = eol_match.group() if eol_match else ""
        body = rest[: len(rest) - len(eol)]
        line = _line_at(breaks, offset + len(lead))
        spans.append(_Span(binding, lead, indent, body, eol, line))
        offset += len(chunk)
    if offset != len(body_text):  # pragma: no cover - python-dotenv covers every char
        raise ExportError("python-dotenv's parser did not account for the whole file")
    return spans


def _split_bom(text: str) -> tuple[str, str]:
    # python-dotenv drops a leading byte-order mark before parsing; keep it aside so the
    # spans line up with the text and the mark is written back.
    return (_BOM, text[1:]) if text.startswith(_BOM) else ("", text)


def _dominant_eol(text: str) -> str:
    counts = {"\r\n": 0, "\n": 0, "\r": 0}
    for m in _LINE_BREAK.finditer(text):
        counts[m.group()] += 1
    best = max(counts, key=lambda eol: (counts[eol], eol == "\n"))
    return best if counts[best] else "\n"


def _inline_comment(span: _Span) -> str:
    """The comment after the binding's value (``" # note"``), or "" when it has none.

    The comment is whatever tail, starting at blanks followed by ``#``, can be cut off
    while python-dotenv still reads the same key and value from what is left: the
    shortest such cut is where the value ends.
    """
    body = span.body
    binding = span.binding
    for m in re.finditer(r"[^\S\r\n]*#", body):
        tail = body[m.start() :]
        if not _TRAILING_COMMENT.fullmatch(tail):
            continue
        head = list(parse_stream(io.StringIO(body[: m.start()])))
        if (
            len(head) == 1
            and not head[0].error
            and head[0].key == binding.key
            and head[0].value == binding.value
        ):
            # A comment must be separated by a blank from an unquoted value that now
            # precedes it, or it would become part of the value.
            return tail if tail[0] in " \t" else " " + tail
    return ""


# ---------------------------------------------------------------------------------------
# The edit


def edit_env_text(
    text: str,
    set: Mapping[str, str] | None = None,
    unset: Iterable[str] = (),
) -> EditResult:
    """Apply ``set`` and ``unset`` to ``.env`` text; a pure function (no I/O, no env).

    See the module docstring for the rules. Raises :class:`ExportError` for an invalid
    key name, a key both set and unset, or a value that can't be written safely.
    """
    set = dict(set or {})
    unset_keys = list(dict.fromkeys(unset))
    for key in unset_keys:
        if not _KEY_NAME.match(key):
            raise ExportError(f"{key!r} is not a valid variable name")
    both = sorted(k for k in set if k in unset_keys)
    if both:
        raise ExportError(f"{', '.join(both)}: both set and unset; choose one")
    for key, value in set.items():
        if not isinstance(value, str):
            raise ExportError(f"{key}: the new value must be a string, not {type(value).__name__}")
    encoded = {key: encode_value(key, value) for key, value in set.items()}

    bom, body_text = _split_bom(text)
    spans = _spans(body_text)
    eol = _dominant_eol(body_text)
    warnings: list[str] = []

    occurrences: dict[str, list[int]] = {}
    for index, span in enumerate(spans):
        if span.binding.error:
            warnings.append(
                f"line {span.line}: not a KEY=VALUE line python-dotenv can parse; "
                "kept as it is (the server skips it)"
            )
        elif span.key is not None:
            occurrences.setdefault(span.key, []).append(index)

    for key, indexes in occurrences.items():
        if len(indexes) > 1 and key not in unset_keys:
            lines = [spans[i].line for i in indexes]
            note = (
                f"; line {lines[-1]} is the one edited, the earlier ones are left as they are"
                if key in set
                else ""
            )
            warnings.append(
                f"{key} is defined on lines {', '.join(map(str, lines))}: python-dotenv "
                f"uses the last (line {lines[-1]}){note}"
            )

    edits: dict[int, str] = {}
    removals: builtins.set[int] = {i for key in unset_keys for i in occurrences.get(key, [])}
    changes: list[KeyChange] = []
    appended: list[str] = []
    all_exported = bool(occurrences) and all(
        _EXPORT_PREFIX.match(spans[i].body) for idx in occurrences.values() for i in idx
    )
    for key, value in encoded.items():
        secret = is_secret_key(key)
        if key in occurrences:
            index = occurrences[key][-1]
            span = spans[index]
            prefix = m.group() if (m := _EXPORT_PREFIX.match(span.body)) else ""
            new_body = f"{prefix}{key}={value}{_inline_comment(span)}"
            action: Action = "unchanged" if new_body == span.body else "updated"
            if action == "updated":
                edits[index] = new_body
            changes.append(KeyChange(key=key, action=action, lines=(span.line,), secret=secret))
        else:
            appended.append(f"{'export ' if all_exported else ''}{key}={value}")
            changes.append(KeyChange(key=key, action="added", secret=secret))
    for key in unset_keys:
        removed = tuple(spans[i].line for i in occurrences.get(key, []))
        if removed:
            changes.append(KeyChange(key=key, action="removed", lines=removed,
                                  secret=is_secret_key(key)))
        else:
            changes.append(KeyChange(key=key, action="not_present", secret=is_secret_key(key)))
            warnings.append(f"{key} is not in the file; nothing to remove")

    touched = _set_of(set) | _set_of(unset_keys)
    for span in spans:
        if span.key is None or span.key in touched:
            continue
        referenced = {name for name in _REFERENCE.findall(span.body) if name in touched}
        for name in sorted(referenced):
            warnings.append(
                f"line {span.line}: {span.key} refers to ${{{name}}}, whose value this "
                "export changes"
            )

    parts: list[str] = [bom]
    for index, span in enumerate(spans):
        if index in removals:
            parts.append(span.lead)
        elif index in edits:
            parts.append(span.lead + span.indent + edits[index] + span.eol)
        else:
            parts.append(span.text)
    new_text = "".join(parts)
    if appended:
        if new_text in ("", bom) or _LINE_BREAK.search(new_text[-1:]):
            new_text += "".join(line + eol for line in appended)
        else:
            # The file had no final newline: end the last line, and keep it that way.
            new_text += eol + eol.join(appended)

    _check_read_back(text, new_text, set, unset_keys)
    return EditResult(text=new_text, changes=tuple(changes), warnings=tuple(warnings))


def _set_of(items: Iterable[str]) -> frozenset[str]:
    # The builtin ``set`` is shadowed by the public ``set=`` parameter in this module.
    return frozenset(items)


def _raw_values(text: str) -> list[tuple[str, str | None]]:
    _, body_text = _split_bom(text)
    return [
        (b.key, b.value)
        for b in parse_stream(io.StringIO(body_text))
        if b.key is not None and not b.error
    ]


def _all_secret_values(pairs: Iterable[tuple[str, str | None]]) -> set[str]:
    # Every occurrence counts, not only the one python-dotenv keeps: an overridden
    # secret is still a secret.
    found: set[str] = set()
    for key, value in pairs:
        found |= secret_values({key: value})
    return found


def _check_read_back(
    old: str, new: str, set: Mapping[str, str], unset: Iterable[str]
) -> None:
    """Re-read the new text with python-dotenv: the edit must mean exactly what was asked.

    A safety net for the edit itself: any key not named keeps its raw bindings in order,
    every set key reads back as its value, every unset key is gone.
    """
    touched = _set_of(set) | _set_of(unset)
    before = [pair for pair in _raw_values(old) if pair[0] not in touched]
    after_all = _raw_values(new)
    after = [pair for pair in after_all if pair[0] not in touched]
    final = dict(after_all)
    problems = [key for key, value in set.items() if final.get(key) != value]
    problems += [key for key in unset if key in final]
    if before == after and not problems:
        return
    what = ", ".join(problems) or "keys the export did not name"
    malformed = [span.line for span in _spans(_split_bom(old)[1]) if span.binding.error]
    if malformed:
        # An unclosed quote on a malformed line can pair with a quote written later and
        # swallow the lines in between; python-dotenv would then not see the change.
        label = "line" if len(malformed) == 1 else "lines"
        raise ExportError(
            f"refused: python-dotenv would not read {what} back as written because of the "
            f"malformed {label} {', '.join(map(str, malformed))}; fix or remove "
            f"{'it' if len(malformed) == 1 else 'them'} first"
        )
    raise ExportError(  # pragma: no cover - would be a bug in this module
        f"internal check failed: the edited file would read back {what} differently; "
        "nothing was written"
    )


def plan_edit(
    text: str, set: Mapping[str, str] | None = None, unset: Iterable[str] = ()
) -> str:
    """The new ``.env`` text with ``set`` and ``unset`` applied (see :func:`edit_env_text`)."""
    return edit_env_text(text, set, unset).text


# ---------------------------------------------------------------------------------------
# Masked diff


def _display_text(text: str) -> tuple[str, set[str]]:
    """``text`` with every secret value replaced by the mask, line for line, and the
    secret values it holds (for :func:`scrub`)."""
    bom, body_text = _split_bom(text)
    parts = [bom]
    spans = _spans(body_text)
    secrets = _all_secret_values((s.key, s.binding.value) for s in spans if s.key is not None)
    for span in spans:
        binding = span.binding
        hide = (
            binding.error and mentions_secret_key(span.body)
        ) or (
            span.key is not None and binding.value is not None and is_secret_key(span.key)
        )
        if not hide:
            parts.append(span.text)
            continue
        lines = _LINE.findall(span.body) or [""]
        shown = []
        for number, line in enumerate(lines):
            end = _LINE_BREAK.search(line)
            brk = end.group() if end else ""
            if number == 0 and not binding.error:
                prefix = m.group() if (m := _EXPORT_PREFIX.match(span.body)) else ""
                shown.append(f"{prefix}{span.key}={MASK}{brk}")
            else:
                shown.append(MASK + brk)
        parts.append(span.lead + span.indent + "".join(shown) + span.eol)
    return "".join(parts), secrets


def _lines(text: str) -> list[str]:
    return _LINE.findall(text)


def _range(start: int, stop: int) -> str:
    length = stop - start
    first = start + 1 if length else start
    return f"{first}" if length == 1 else f"{first},{length}"


def unified_diff(
    old: str,
    new: str,
    *,
    fromfile: str = "before",
    tofile: str = "after",
    masked: bool = True,
    context: int = 3,
) -> str:
    """A unified diff of two ``.env`` texts; secret values masked on both sides by default.

    Lines are compared as they really are (so a changed secret still shows as changed)
    but printed from the masked texts. Line endings are compared exactly and printed as
    ``\\n``; a last line without one gets git's ``\\ No newline at end of file`` marker.
    """
    real_a, real_b = _lines(old), _lines(new)
    if masked:
        (display_a, secrets_a), (display_b, secrets_b) = _display_text(old), _display_text(new)
        shown_a, shown_b = _lines(display_a), _lines(display_b)
        secrets = secrets_a | secrets_b
    else:
        shown_a, shown_b, secrets = real_a, real_b, set()
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, real_a, real_b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        if not out:
            out += [f"--- {fromfile}", f"+++ {tofile}"]
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += _shown(" ", shown_a[a1:a2])
                continue
            if tag in ("replace", "delete"):
                out += _shown("-", shown_a[a1:a2])
            if tag in ("replace", "insert"):
                out += _shown("+", shown_b[b1:b2])
    if not out:
        return ""
    return "\n".join(scrub(line, secrets) for line in out) + "\n"


def _shown(sign: str, lines: list[str]) -> list[str]:
    result = []
    for line in lines:
        content = _LINE_BREAK.sub("", line)
        result.append(sign + content)
        if content == line:
            result.append("\\ No newline at end of file")
    return result


def secret_values_in(text: str) -> set[str]:
    """Every secret value ``text`` binds, each occurrence (an overridden secret counts)."""
    return _all_secret_values(_raw_values(text))
