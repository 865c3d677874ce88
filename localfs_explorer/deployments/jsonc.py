"""JSON, and VS Code's JSON with comments, parsed with the position of every value.

The write-back edits one object of a client's config in place and leaves every other
byte alone, so the reader has to know where each value starts and ends, not only what
it is. :func:`parse` returns a tree of :class:`Node` (a value with its span and line);
:func:`plain` turns it into ordinary Python values. With ``comments=True`` it accepts
what VS Code accepts in its settings files: ``//`` and ``/* */`` comments and a trailing
comma before ``]`` or ``}``; without it, exactly JSON (what ``JSON.parse`` accepts), so
a file a client would refuse is refused here too, with the line it fails on.
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import LocalfsError

__all__ = ["JsonSyntaxError", "Member", "Node", "collector_paused", "parse", "plain",
           "repeated_keys"]


class JsonSyntaxError(LocalfsError):
    """Text that isn't (JSON with comments, when allowed): ``line`` is 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


@dataclass
class Member:
    """One ``"key": value`` of an object."""

    key: str
    #: Offset of the key's opening quote.
    key_start: int
    value: Node
    #: The line of the key (1-based).
    key_line: int = 0


@dataclass
class Node:
    """A JSON value and where it is: ``text[start:end]`` is its source."""

    kind: str  # "object", "array", "string", "number", "true", "false", "null"
    start: int
    end: int
    line: int
    #: The value of a scalar (str, int, float, bool or None).
    scalar: Any = None
    #: An object's members in source order (a repeated key appears twice).
    members: list[Member] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)

    def get(self, key: str) -> Node | None:
        """The value of ``key`` in an object (the last one, as ``JSON.parse`` keeps)."""
        found = None
        for member in self.members:
            if member.key == key:
                found = member.value
        return found

    def member(self, key: str) -> Member | None:
        """The member holding ``key`` (the last one)."""
        found = None
        for member in self.members:
            if member.key == key:
                found = member
        return found


def plain(node: Node) -> Any:
    """``node`` as ordinary Python values (dict, list, str, ...)."""
    if node.kind == "object":
        return {m.key: plain(m.value) for m in node.members}
    if node.kind == "array":
        return [plain(item) for item in node.items]
    return node.scalar


def repeated_keys(node: Node) -> list[tuple[Node, str, int, int]]:
    """Every key an object in ``node`` holds twice: ``(the object, key, first line, later
    line)``.

    ``JSON.parse`` and VS Code's reader keep the last value of a repeated key, so a
    reader that answers for the first would answer for a file the client never runs.
    """
    found: list[tuple[Node, str, int, int]] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.kind == "object":
            first: dict[str, int] = {}
            for member in current.members:
                if member.key in first:
                    found.append((current, member.key, first[member.key], member.key_line))
                else:
                    first[member.key] = member.key_line
                stack.append(member.value)
        elif current.kind == "array":
            stack.extend(current.items)
    return sorted(found, key=lambda item: item[3])


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block.

    A parsed file is thousands of small objects that all stay alive: the collector would
    walk them again and again while they are made, so reading a big file would grow
    faster than the file. Nothing made while reading is garbage before the tree is.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


_WHITESPACE = " \t\r\n"
_NUMBER_CHARS = set("0123456789+-.eE")


class _Parser:
    def __init__(self, text: str, comments: bool) -> None:
        self.text = text
        self.pos = 0
        self.comments = comments
        # Where each line starts, found once: counting the line breaks before every
        # value would read the file again per value (quadratic on a big file).
        self._breaks = [m.start() for m in re.finditer("\n", text)]

    def line_of(self, pos: int) -> int:
        return bisect.bisect_left(self._breaks, pos) + 1

    def fail(self, message: str, pos: int | None = None) -> JsonSyntaxError:
        pos = self.pos if pos is None else pos
        line = self.line_of(pos)
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return JsonSyntaxError(message, line, column)

    def skip(self) -> None:
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch in _WHITESPACE:
                self.pos += 1
            elif ch == "/" and text.startswith(("//", "/*"), self.pos):
                if not self.comments:
                    raise self.fail("a comment, which JSON doesn't allow")
                if text.startswith("//", self.pos):
                    end = text.find("\n", self.pos)
                    self.pos = len(text) if end < 0 else end
                else:
                    end = text.find("*/", self.pos + 2)
                    if end < 0:
                        raise self.fail("a /* comment that is never closed")
                    self.pos = end + 2
            else:
                return

    def value(self, depth: int = 0) -> Node:
        if depth > 200:
            raise self.fail("nested too deeply")
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of file")
        ch = self.text[self.pos]
        if ch == "{":
            return self.obj(depth)
        if ch == "[":
            return self.array(depth)
        if ch == '"':
            start = self.pos
            value = self.string()
            return Node("string", start, self.pos, self.line_of(start), value)
        for word, scalar in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, self.pos):
                start = self.pos
                self.pos += len(word)
                return Node(word, start, self.pos, self.line_of(start), scalar)
        if ch == "-" or ch.isdigit():
            return self.number()
        raise self.fail(f"unexpected {ch!r}")

    def string(self) -> str:
        start = self.pos
        end = start + 1
        text = self.text
        while True:
            if end >= len(text):
                raise self.fail("a string that is never closed", start)
            ch = text[end]
            if ch == '"':
                break
            if ch == "\\":
                end += 2
                continue
            if ch == "\n":
                raise self.fail("a line break inside a string", end)
            end += 1
        try:
            value = json.loads(text[start:end + 1])
        except ValueError as exc:
            raise self.fail(f"a malformed string ({exc})", start) from None
        self.pos = end + 1
        return str(value)

    def number(self) -> Node:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in _NUMBER_CHARS:
            self.pos += 1
        source = self.text[start:self.pos]
        try:
            value = json.loads(source)
        except ValueError:
            raise self.fail(f"a malformed number {source!r}", start) from None
        return Node("number", start, self.pos, self.line_of(start), value)

    def obj(self, depth: int) -> Node:
        start = self.pos
        node = Node("object", start, start, self.line_of(start))
        self.pos += 1
        self.skip()
        if self.text.startswith("}", self.pos):
            self.pos += 1
            node.end = self.pos
            return node
        while True:
            self.skip()
            if self.pos >= len(self.text):
                raise self.fail("an object that is never closed", start)
            if self.text[self.pos] == "}" and node.members:
                if not self.comments:
                    raise self.fail("a trailing comma, which JSON doesn't allow")
                self.pos += 1
                break
            if self.text[self.pos] != '"':
                raise self.fail("expected a \"key\" in double quotes")
            key_start = self.pos
            key = self.string()
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise self.fail("expected ':' after the key")
            self.pos += 1
            node.members.append(Member(key, key_start, self.value(depth + 1),
                                       self.line_of(key_start)))
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith("}", self.pos):
                self.pos += 1
                break
            raise self.fail("expected ',' or '}'")
        node.end = self.pos
        return node

    def array(self, depth: int) -> Node:
        start = self.pos
        node = Node("array", start, start, self.line_of(start))
        self.pos += 1
        self.skip()
        if self.text.startswith("]", self.pos):
            self.pos += 1
            node.end = self.pos
            return node
        while True:
            self.skip()
            if self.text.startswith("]", self.pos) and node.items:
                if not self.comments:
                    raise self.fail("a trailing comma, which JSON doesn't allow")
                self.pos += 1
                break
            node.items.append(self.value(depth + 1))
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith("]", self.pos):
                self.pos += 1
                break
            if self.pos >= len(self.text):
                raise self.fail("an array that is never closed", start)
            raise self.fail("expected ',' or ']'")
        node.end = self.pos
        return node


def parse(text: str, *, comments: bool = False) -> Node:
    """Parse ``text``; :class:`JsonSyntaxError` (with its line) when it isn't valid.

    A byte-order mark at the start is skipped, as editors write one.
    """
    parser = _Parser(text, comments)
    if text.startswith("\ufeff"):
        parser.pos = 1
    with collector_paused():
        node = parser.value()
        parser.skip()
    if parser.pos != len(text):
        raise parser.fail("more text after the JSON value")
    return node
