"""The one reader of tool calls: a calls file (JSON lines) or calls handed in as a list.

A calls file holds one MCP ``tools/call`` params object per line (``{"name": ...,
"arguments": {...}}``, optionally with ``drive_names``/``expected_paths``; a whole
JSON-RPC request is accepted too). ``probe --calls``, ``diff --calls``, ``report``,
``verify --calls``, the dashboard's batch upload and the Python API all read it here, so a
bad line is treated the same everywhere:

- each bad line (not UTF-8, not JSON, not an object, no tool name, arguments that aren't
  an object) becomes a :class:`BadCall` whose message names the file and the line,
  ``FILE:LINE: what is wrong``; blank lines are skipped;
- the other lines still run, and the caller's exit status says some lines were bad;
- only a file that can't be read at all (missing, not a regular file, over the size
  limit) is an error for the whole run.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import LocalfsError
from ..userfiles import parse_json_line, read_bytes

__all__ = ["BadCall", "Call", "CallsFileError", "parse_calls", "read_calls", "unpack_call"]


class CallsFileError(LocalfsError):
    """A calls file that can't be read at all (each bad line is a :class:`BadCall`)."""


@dataclass(frozen=True, slots=True)
class Call:
    """One well-formed tool call."""

    name: str
    arguments: Mapping[str, Any]
    #: Names of Drive files the call's folder walk would meet (``download_folder``).
    drive_names: list[str] | None = None
    #: Paths the caller says the call will touch, beyond its arguments.
    expected_paths: tuple[str, ...] = ()
    #: The line of the calls file (from 1); None for calls handed in as a list.
    line: int | None = None


@dataclass(frozen=True, slots=True)
class BadCall:
    """A line or item that isn't a usable call; the run goes on without it."""

    #: ``FILE:LINE: what is wrong`` for a file; what is wrong for a list item.
    message: str
    #: The tool's name when the line got as far as naming one.
    name: str = ""
    line: int | None = None


def unpack_call(raw: Any, *, line: int | None = None, source: str | None = None
                ) -> Call | BadCall:
    """A :class:`Call` from one ``tools/call`` params object, or the :class:`BadCall` why not.

    ``source`` names the file the object was read from (with ``line``) in the message.
    """
    if isinstance(raw, (Call, BadCall)):
        return raw
    if isinstance(raw, Mapping) and "name" not in raw and isinstance(raw.get("params"), Mapping):
        raw = raw["params"]  # a whole JSON-RPC tools/call request
    name = raw.get("name") if isinstance(raw, Mapping) else None
    problem = _problem(raw)
    if problem is not None:
        where = f"{source}:{line}: " if source is not None else ""
        return BadCall(where + problem, name if isinstance(name, str) else "", line)
    return Call(str(name), raw.get("arguments") or {}, raw.get("drive_names"),
                tuple(raw.get("expected_paths") or ()), line)


def _problem(raw: Any) -> str | None:
    """What makes ``raw`` not a call, or None."""
    if not isinstance(raw, Mapping):
        return "a call is an object with a 'name' and an 'arguments' object"
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        return "a call needs a 'name' string"
    arguments = raw.get("arguments")
    if arguments is not None and not isinstance(arguments, Mapping):
        return f"{name}: 'arguments' must be an object"
    for key in ("drive_names", "expected_paths"):
        value = raw.get(key)
        if value is not None and (
            not isinstance(value, list) or not all(isinstance(v, str) for v in value)
        ):
            return f"{name}: '{key}' must be a list of strings"
    return None


def parse_calls(content: bytes | str, source: str) -> Iterator[Call | BadCall]:
    """Each non-blank line of a calls file's ``content``, read as a call.

    ``source`` is the file's name as messages show it (an upload's name, ``<stdin>``).
    Lines are decoded one at a time, so one line that isn't UTF-8 spoils only itself.
    """
    data = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    for number, raw_line in enumerate(data.splitlines(), start=1):
        try:
            text = raw_line.decode("utf-8")
        except UnicodeDecodeError:
            yield BadCall(f"{source}:{number}: not UTF-8 text", line=number)
            continue
        if not text.strip():
            continue
        value, problem = parse_json_line(text)
        if problem is not None:
            yield BadCall(f"{source}:{number}: not valid JSON ({problem})", line=number)
        else:
            yield unpack_call(value, line=number, source=source)


def read_calls(calls: Iterable[Any] | str | os.PathLike[str], *,
               error: type[Exception] = CallsFileError) -> Iterator[Call | BadCall]:
    """Every call of a calls file (a path) or of a list of ``tools/call`` params objects.

    A file that can't be read raises ``error`` (before anything is yielded); a bad line or
    item is yielded as a :class:`BadCall` and the rest still come.
    """
    if isinstance(calls, (str, Path, os.PathLike)):
        source = os.fspath(calls)
        return parse_calls(read_bytes(source, error), source)
    return (unpack_call(item) for item in calls)
