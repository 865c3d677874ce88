"""Showing untrusted text: paths and arguments can't forge rows, colours or formulas.

Paths and tool arguments come from sessions a model composed, from call files and from
host specs written by someone else. Printed as they are, a newline in a path would start
a fake row of ``check`` output, an ANSI escape would recolour or erase the terminal, and
a CSV cell starting with ``=`` would run as a formula in a spreadsheet. So:

- :func:`one_line` shows a value on one line: line breaks, other control characters and
  invisible direction overrides become visible escapes (``\\n``, ``\\x1b``, ``\\u202e``).
- :class:`SafeWriter` wraps the command line's output streams and escapes every control
  character but newline and tab as ``\\uXXXX``, whatever printed it: no escape sequence
  reaches the terminal, and JSON output still parses to the same values.
- :func:`csv_cell` neutralises a CSV cell that a spreadsheet would take for a formula
  (starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return) by prefixing ``'``,
  the convention spreadsheets show as a literal.
- :func:`csv_text` is every CSV cell this package writes (:func:`csv_table`,
  :class:`CsvWriter`): control characters and line separators of every kind become
  escapes first (a bare carriage return would end the row in many readers, and what
  follows it would start a new row's first cell), then the formula guard applies.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from .paths import show_nul

__all__ = ["FORMULA_PREFIXES", "CsvWriter", "SafeWriter", "csv_cell", "csv_table",
           "csv_text", "escape_controls", "escape_surrogates", "frame_csv_text", "one_line",
           "table_text"]

#: First characters that make a spreadsheet read a cell as a formula.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

# C0 controls, DEL, C1 controls, the bidirectional overrides/isolates that can make
# text display in a different order than it is stored, and lone surrogates (a file name
# that isn't UTF-8, as os.fsdecode gives it: "\udcff"), which no UTF-8 output can carry.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069"
                       "\ud800-\udfff]")
# Newline and tab are layout; so is a carriage return ending a CRLF line (CSV uses them).
_CONTROLS_BUT_LINES = re.compile("\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f"
                                 "\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SURROGATES = re.compile("[\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(value: Any) -> str:
    """``value`` as text on one line, every control character shown as an escape.

    >>> one_line("/tmp/a\\nALLOWED  read  /etc/shadow")
    '/tmp/a\\\\nALLOWED  read  /etc/shadow'
    """
    text = str(value)
    return _CONTROLS.sub(_escape, text) if _CONTROLS.search(text) else text


def _escape_u(match: re.Match[str]) -> str:
    # \uXXXX reads clearly in text and is also a valid escape inside a JSON string, so
    # JSON output passing through a SafeWriter still parses to the same value.
    return f"\\u{ord(match.group()):04x}"


def escape_controls(text: str) -> str:
    """``text`` with control characters shown as ``\\uXXXX``, except newlines and tabs."""
    if not _CONTROLS_BUT_LINES.search(text):
        return text
    return _CONTROLS_BUT_LINES.sub(_escape_u, text)


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as ``\\uXXXX``: text any UTF-8 file can
    hold, and inside a JSON string the escape that reads back as the same character."""
    if not _SURROGATES.search(text):
        return text
    return _SURROGATES.sub(_escape_u, text)


def csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a leading ``'`` before formula starters.

    Non-strings (numbers, booleans, None) are returned unchanged: they can't be formulas.

    >>> csv_cell("=HYPERLINK(\\"http://x\\")"), csv_cell("-1"), csv_cell("/tmp/a")
    ('\\'=HYPERLINK("http://x")', "'-1", '/tmp/a')
    """
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def table_text(value: Any) -> str:
    """A table value as text, the same in every table this package writes: None is empty,
    lists and mappings are JSON, a NUL shows as ``\\0``
    (:func:`~localfs_explorer.paths.show_nul`)."""
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return show_nul(str(value))


# What ends a line somewhere (str.splitlines, spreadsheets, editors) beyond the controls.
_LINE_SEPARATORS = re.compile("[\u2028\u2029]")


def csv_text(value: Any) -> str:
    """A table value as one CSV cell: :func:`table_text` on one line (every control
    character and line separator escaped, as :func:`one_line` shows them), then a formula
    starter neutralised.

    >>> csv_text("/tmp/a\\r=cmd()"), csv_text("=1+1"), csv_text(None)
    ('/tmp/a\\\\r=cmd()', "'=1+1", '')
    """
    text = one_line(table_text(value))
    if _LINE_SEPARATORS.search(text):
        text = _LINE_SEPARATORS.sub(_escape, text)
    return csv_cell(text)


def _plain_cell(value: Any) -> Any:
    # A float NaN (pandas' missing value) is an empty cell, as pandas writes it.
    return None if isinstance(value, float) and value != value else value


class CsvWriter:
    """The one CSV writer of this package: every cell by :func:`csv_text`."""

    def __init__(self, out: TextIO, *, lineterminator: str = "\n") -> None:
        self._writer = csv.writer(out, lineterminator=lineterminator)

    def writerow(self, values: Iterable[Any]) -> None:
        """One row; each value becomes a safe cell."""
        self._writer.writerow([csv_text(_plain_cell(v)) for v in values])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        """Several rows."""
        for row in rows:
            self.writerow(row)


def csv_table(columns: Sequence[Any], rows: Iterable[Iterable[Any]], *,
              lineterminator: str = "\n") -> str:
    """A header and rows as CSV text, every cell by :func:`csv_text`."""
    import io

    buffer = io.StringIO()
    writer = CsvWriter(buffer, lineterminator=lineterminator)
    writer.writerow(columns)
    writer.writerows(rows)
    return buffer.getvalue()


def frame_csv_text(frame: Any) -> str:
    """A pandas DataFrame as :func:`csv_table` writes it (missing values empty)."""
    plain = frame.astype(object).where(frame.notna(), None)
    return csv_table(list(plain.columns), plain.itertuples(index=False, name=None))


class SafeWriter:
    """A text stream wrapper that escapes control characters (not newline or tab)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(escape_controls(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        """Each line through :meth:`write` (the wrapped stream's own would skip it)."""
        for line in lines:
            self.write(line)

    def rewrite_line(self, text: str) -> None:
        """Return to the start of the line and write ``text`` there (a progress line).

        The carriage return is the writer's own; one inside ``text`` is escaped.
        """
        self._stream.write("\r" + escape_controls(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
