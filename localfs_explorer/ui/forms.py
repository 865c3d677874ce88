"""Read and write a catalog parameter's value in a tool call's arguments (no widgets).

The Tool call panel generates one form field per catalog parameter. A parameter's
*location* says where its path sits (``local_path``, ``paths[]``,
``attachments[].local_path``); these helpers turn a field's text into that shape and
back, so the form and the raw JSON stay two views of one arguments object.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..catalog import locations
from ..errors import LocalfsError
from ..userfiles import parse_json


class ArgumentsError(LocalfsError):
    """Arguments JSON that can't be used: the message says where it is wrong."""


def form_shape(location: str) -> str | None:
    """How a location is edited: ``single``, ``list``, ``list_of_objects``, or None.

    None means the form can't express it (deeper nesting); the JSON editor still can.
    """
    found = locations.shape(location)
    return None if found is None else found.kind


def parse_arguments(text: str) -> dict[str, Any]:
    """The arguments object in ``text`` (empty text means ``{}``)."""
    if not text.strip():
        return {}
    value = parse_json(text, "arguments", ArgumentsError)
    if not isinstance(value, dict):
        raise ArgumentsError(f"arguments: expected a JSON object, got {type(value).__name__}")
    return value


def read_location(arguments: dict[str, Any], location: str) -> str:
    """The form text for ``location``: one path, or one path per line for lists."""
    shape = locations.shape(location)
    if shape is None:
        return ""
    value = arguments.get(shape.argument)
    if shape.kind == "single":
        return value if isinstance(value, str) else ("" if value is None else json.dumps(value))
    if not isinstance(value, list):
        return ""
    if shape.kind == "list":
        return "\n".join(v for v in value if isinstance(v, str))
    key = shape.key
    return "\n".join(
        item[key] for item in value if isinstance(item, dict) and isinstance(item.get(key), str)
    )


def write_location(arguments: dict[str, Any], location: str, text: str) -> dict[str, Any]:
    """A copy of ``arguments`` with ``location`` set from form ``text``.

    Empty text removes the argument (a missing optional path is "not given"). For a list
    of objects, other keys of existing items are kept, item by item.
    """
    shape = locations.shape(location)
    if shape is None:
        raise ArgumentsError(f"{location}: edit this argument in the JSON")
    out = dict(arguments)
    head = shape.argument
    if shape.kind == "single":
        if text == "":
            out.pop(head, None)
        else:
            out[head] = text
        return out
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        out.pop(head, None)
        return out
    if shape.kind == "list":
        out[head] = lines
        return out
    key = shape.key
    old = arguments.get(head)
    old_items = old if isinstance(old, list) else []
    items = []
    for i, line in enumerate(lines):
        base = old_items[i] if i < len(old_items) and isinstance(old_items[i], dict) else {}
        items.append({**base, key: line})
    out[head] = items
    return out


#: Each server's shipped catalog, read once (the Tool call tab asks on every refresh).
_CATALOGS: dict[str, Any] = {}


def server_catalog(server: str | None) -> Any:
    """``server``'s shipped tool catalog (the default server's for an unknown id)."""
    from ..server import DEFAULT_SERVER, ServerError, get_server

    key = server or DEFAULT_SERVER
    cached = _CATALOGS.get(key)
    if cached is None:
        try:
            cached = get_server(key).catalog()
        except ServerError:
            return get_server(DEFAULT_SERVER).catalog()
        _CATALOGS[key] = cached
    return cached


def starting_arguments(tool: Any) -> dict[str, Any]:
    """The arguments a picked tool starts with: a placeholder for each required argument;
    for a tool whose catalog entry describes no arguments beyond its paths (the
    filesystem server's), each required path parameter present and empty instead, so
    the form shows what to fill in."""
    start: dict[str, Any] = tool.complete_arguments({})
    if tool.arguments:
        return start
    for param in tool.params:
        shape = locations.shape(param.location)
        if param.optional or shape is None or shape.argument in start:
            continue
        start[shape.argument] = [] if shape.kind == "list" else ""
    return start


#: A value standing for "fill this in", as a generated call holds one: ``<local_path>``.
_PLACEHOLDER = re.compile(r"<[A-Za-z_][A-Za-z0-9_.\[\]-]*>")


def is_placeholder(value: str) -> bool:
    """Whether ``value`` is a placeholder such as ``<local_path>``, not a path."""
    return _PLACEHOLDER.fullmatch(value.strip()) is not None


def placeholders_judged(verdict: Any) -> str:
    """The arguments of a call's ``verdict`` whose path is still a placeholder, as
    ``local_path (<local_path>)``, comma-separated; empty when every path is real."""
    seen = dict.fromkeys(f"{p.argument} (it still says {p.path.strip()})"
                         for p in getattr(verdict, "paths", ()) if is_placeholder(p.path))
    return ", ".join(seen)
