"""Where a key of TOML source text is: the line a scenario error points at.

Pure text work, no TOML parser: it follows the table headers the way TOML does, so a
validation error's location in the parsed data maps back to a line of the file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any


def _split_key(text: str) -> list[str]:
    """``a."b.c".d`` -> ``["a", "b.c", "d"]`` (a TOML dotted key)."""
    parts: list[str] = []
    current = ""
    quote: str | None = None
    for ch in text.strip():
        if quote:
            if ch == quote:
                quote = None
            else:
                current += ch
        elif ch in "\"'":
            quote = ch
        elif ch == ".":
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    parts.append(current.strip())
    return parts


class Locator:
    """Finds the line of a key in TOML source text, from a validation error's location.

    It follows table headers the way TOML does (``[[a]]`` starts element n of array
    ``a``; ``[a.b]`` after it belongs to that element), so a location like
    ``("scenario", 2, "path", 0, "opp")`` maps to the line of ``opp`` in the first
    ``[[scenario.path]]`` of the third scenario.
    """

    _HEADER = re.compile(r"^\s*(\[\[?)\s*(.+?)\s*\]\]?\s*(?:#.*)?$")

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        #: (resolved table path, first line (1-based), last line) per header.
        self.tables: list[tuple[tuple[Any, ...], int, int]] = []
        latest: dict[tuple[str, ...], int] = {}
        counts: dict[tuple[Any, ...], int] = {}
        starts: list[tuple[tuple[Any, ...], int]] = [((), 1)]
        in_multiline: str | None = None
        for number, line in enumerate(self.lines, 1):
            if in_multiline:
                if line.count(in_multiline) % 2 == 1:
                    in_multiline = None
                continue
            for fence in ('"""', "'''"):
                if line.count(fence) % 2 == 1:
                    in_multiline = fence
            m = self._HEADER.match(line)
            if not m or in_multiline:
                continue
            is_array = m.group(1) == "[["
            names = _split_key(m.group(2))
            resolved: list[Any] = []
            for i, name in enumerate(names):
                resolved.append(name)
                prefix = tuple(names[: i + 1])
                last = i == len(names) - 1
                if last and is_array:
                    key = tuple(resolved)
                    index = counts.get(key, 0)
                    counts[key] = index + 1
                    latest[prefix] = index
                    resolved.append(index)
                elif prefix in latest:
                    resolved.append(latest[prefix])
            starts.append((tuple(resolved), number))
        for i, (path, start) in enumerate(starts):
            end = starts[i + 1][1] - 1 if i + 1 < len(starts) else len(self.lines)
            self.tables.append((path, start, end))

    def header_line(self, loc: Sequence[Any]) -> int | None:
        """The line of the table header whose path is exactly ``loc``."""
        target = tuple(loc)
        for path, start, _end in self.tables:
            if path == target and path:
                return start
        return None

    def line_of(self, loc: Sequence[Any]) -> int | None:
        """The best line for ``loc``: its header, its key inside its table, or None."""
        loc = tuple(loc)
        exact = self.header_line(loc)
        if exact is not None:
            return exact
        key = next((part for part in reversed(loc) if isinstance(part, str)), None)
        # The deepest table the location lies in, then the key's line inside that table.
        best: tuple[tuple[Any, ...], int, int] | None = None
        for table in self.tables:
            path = table[0]
            if loc[: len(path)] == path and (best is None or len(path) > len(best[0])):
                best = table
        if best is not None and key is not None:
            found = self._find_key(key, best[1], best[2])
            if found is not None:
                return found
        if best is not None and best[0]:
            return best[1]
        return self._find_key(key, 1, len(self.lines)) if key is not None else None

    def _find_key(self, key: str, first: int, last: int) -> int | None:
        k = re.escape(key)
        pattern = re.compile(rf"(?:^|[{{,\s.])(?:{k}|\"{k}\"|'{k}')\s*[=.]")
        for number in range(first, last + 1):
            line = self.lines[number - 1]
            code = line.split("#", 1)[0] if "#" in line and '"' not in line else line
            if pattern.search(code):
                return number
        return None


def case_lines(text: str) -> dict[tuple[Any, ...], int]:
    """Line of each case header (``("scenario", i, "path", j)`` -> line) in ``text``."""
    return {path: start for path, start, _end in Locator(text).tables if path}
