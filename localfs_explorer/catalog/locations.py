"""The argument-location grammar: where a value sits inside a tool call's arguments.

A *location* is a path into the arguments object:

- ``local_path`` is the top-level argument of that name;
- ``attachments[].local_path`` is the ``local_path`` key of every item of the
  ``attachments`` list, ``paths[]`` every item of a list;
- ``a[0].b`` names one item by its index, and ``["odd key"]`` a key that isn't a plain
  name (backslash escapes ``"`` and ``\\`` inside the quotes).

A parsed location is a tuple of segments: a key (``str``), an item index (``int``) or
None for "every item" (``[]``). *Labels* spell one concrete position the same way
(``attachments[1].local_path``); they are what verdicts and findings show.

The catalog writes its locations in the plain form only (names, each optionally ending in
``[]``: :func:`check_plain`); the caller's ``checkpaths`` may use the whole grammar.

Every other module reads, spells and walks locations through this one, so the catalog, path
discovery, the probe, the dashboard's forms and the diff's generated calls agree on what a
location means.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from ..errors import LocalfsError

__all__ = [
    "LocationError",
    "Segment",
    "Shape",
    "check_plain",
    "child_label",
    "format_location",
    "generic_label",
    "is_argument_name",
    "iter_values",
    "label_prefixes",
    "parse_location",
    "set_value",
    "shape",
    "top_argument",
    "values_at",
]

#: A key, one item's index, or None for every item (``[]``).
Segment = str | int | None


class LocationError(LocalfsError):
    """A location that doesn't follow the grammar; the message says where it goes wrong."""


# A plain argument or key name: what a label writes without quotes.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
# One segment of the plain form the catalog writes: a name, optionally marked as a list.
_PLAIN_SEGMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*(?:\[\])?")
# One token of the whole grammar: ``.name`` (the dot optional), ``[N]``, ``[]``, ``["k"]``.
_TOKEN = re.compile(r'\.?([A-Za-z0-9_\-]+)|\[(\d*)\]|\["((?:[^"\\]|\\.)*)"\]')
# One step of a label, for walking up its ancestors.
_LABEL_PART = re.compile(r'\.?[A-Za-z_][A-Za-z0-9_\-]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\]')
_INDEX = re.compile(r"\[\d+\]")
_ESCAPE = re.compile(r"\\(.)")


@functools.lru_cache(maxsize=1024)
def parse_location(location: str) -> tuple[Segment, ...]:
    """``a.b[0].c`` / ``a[].b`` / ``["odd key"]`` → keys, indexes and None for ``[]``.

    Cached (hence a tuple): a batch names the same few locations in every call.
    Raises :class:`LocationError` naming the first character that doesn't fit.
    """
    segments: list[Segment] = []
    pos = 0
    while pos < len(location):
        match = _TOKEN.match(location, pos)
        if not match or match.end() == pos or (pos == 0 and location.startswith(".")):
            raise LocationError(f"location {location!r} can't be parsed at character {pos + 1}")
        key, index, quoted = match.groups()
        if key is not None:
            segments.append(key)
        elif quoted is not None:
            segments.append(_ESCAPE.sub(r"\1", quoted))
        else:
            segments.append(int(index) if index else None)
        pos = match.end()
    if not segments:
        raise LocationError("location is empty")
    return tuple(segments)


def check_plain(location: str) -> str:
    """``location`` itself when it is in the catalog's plain form, else :class:`LocationError`.

    The plain form is dot-separated names, each optionally ending in ``[]``: no indexes,
    no quoted keys. It is what a catalog author describes a tool's arguments with.
    """
    if not location or any(not _PLAIN_SEGMENT.fullmatch(seg) for seg in location.split(".")):
        raise LocationError(
            f"location {location!r} must be dot-separated names, each optionally ending in [] "
            "(e.g. local_path or attachments[].local_path)"
        )
    return location


def is_argument_name(location: str) -> bool:
    """Whether ``location`` is one plain top-level argument (``local_path``, not ``a[]``)."""
    return _NAME.fullmatch(location) is not None


def top_argument(location: str) -> str:
    """The top-level argument a location starts in (``attachments`` for ``attachments[].x``)."""
    first = parse_location(location)[0]
    if not isinstance(first, str):
        raise LocationError(f"location {location!r} must start with an argument name")
    return first


@functools.lru_cache(maxsize=4096)
def child_label(label: str, key: str) -> str:
    """How ``key`` below ``label`` is spelt (``a.b``, ``a["odd key"]``)."""
    # Cached: every call of a tool repeats the same argument names.
    if _NAME.fullmatch(key):
        return f"{label}.{key}" if label else key
    quoted = key.replace("\\", "\\\\").replace('"', '\\"')
    return f'{label}["{quoted}"]'


def format_location(segments: Sequence[Segment]) -> str:
    """Segments spelt as a location: the inverse of :func:`parse_location`."""
    label = ""
    for segment in segments:
        if isinstance(segment, str):
            label = child_label(label, segment)
        else:
            label += "[]" if segment is None else f"[{segment}]"
    return label


def generic_label(label: str) -> str:
    """A label with its item indexes generalised: ``a[3].b`` → ``a[].b``."""
    return _INDEX.sub("[]", label)


def label_prefixes(label: str) -> Iterator[str]:
    """The positions from the top down to ``label``: ``a``, ``a[0]``, ``a[0].b``."""
    prefix = ""
    for match in _LABEL_PART.finditer(label):
        prefix += match.group(0)
        yield prefix


class Shape(NamedTuple):
    """A location of one of the three shapes the catalog's tools use."""

    #: ``single`` (``local_path``), ``list`` (``paths[]``) or ``list_of_objects``
    #: (``attachments[].local_path``).
    kind: Literal["single", "list", "list_of_objects"]
    #: The top-level argument.
    argument: str
    #: The key inside each item (``list_of_objects`` only).
    key: str = ""


@functools.lru_cache(maxsize=1024)
def shape(location: str) -> Shape | None:
    """The location's :class:`Shape`, or None for anything else (deeper, indexed, malformed)."""
    try:
        segments = parse_location(location)
    except LocationError:
        return None
    match segments:
        case (str(argument),):
            return Shape("single", argument)
        case (str(argument), None):
            return Shape("list", argument)
        case (str(argument), None, str(key)):
            return Shape("list_of_objects", argument, key)
    return None


def values_at(arguments: Any, location: str, *, keep_none: bool = False
              ) -> list[tuple[str, Any]]:
    """``(label, value)`` for every value present at ``location`` in ``arguments``.

    Missing keys and items of the wrong shape yield nothing: the server would treat them
    as "not given"; so do None values unless ``keep_none``. The label spells the concrete
    position, e.g. ``attachments[1].local_path``.
    """
    # The two shapes nearly every catalog location takes, without the general walk: a
    # probe asks this for every parameter of every call.
    found = shape(location)
    if found is not None and found.kind != "list" and isinstance(arguments, Mapping):
        value = arguments.get(found.argument)
        if found.kind == "single":
            if value is None and (not keep_none or found.argument not in arguments):
                return []
            return [(child_label("", found.argument), value)]
        if not isinstance(value, (list, tuple)):
            return []
        key = found.key
        out = []
        for i, item in enumerate(value):
            if isinstance(item, Mapping) and key in item:
                field = item[key]
                if field is not None or keep_none:
                    out.append((f"{found.argument}[{i}].{key}", field))
        return out
    return list(_walk(arguments, parse_location(location), keep_none))


def iter_values(arguments: Any, location: str, *, keep_none: bool = False
                ) -> Iterator[tuple[str, Any]]:
    """:func:`values_at` one value at a time."""
    return iter(values_at(arguments, location, keep_none=keep_none))


def _walk(arguments: Any, segments: tuple[Segment, ...], keep_none: bool
          ) -> Iterator[tuple[str, Any]]:
    """The general walk: every segment of the grammar, level by level."""
    found: list[tuple[str, Any]] = [("", arguments)]
    for segment in segments:
        step: list[tuple[str, Any]] = []
        for label, value in found:
            if isinstance(segment, str):
                if isinstance(value, Mapping) and segment in value:
                    step.append((child_label(label, segment), value[segment]))
            elif isinstance(value, (list, tuple)):
                if segment is None:
                    step.extend((f"{label}[{i}]", v) for i, v in enumerate(value))
                elif segment < len(value):
                    step.append((f"{label}[{segment}]", value[segment]))
        found = step
    for label, value in found:
        if value is not None or keep_none:
            yield label, value


@functools.lru_cache(maxsize=256)
def _plain_steps(location: str) -> tuple[tuple[str, bool], ...]:
    """``"a[].b"`` -> ``(("a", True), ("b", False))``, for a location in the plain form."""
    return tuple((seg.removesuffix("[]"), seg.endswith("[]"))
                 for seg in check_plain(location).split("."))


def set_value(arguments: dict[str, Any], location: str, value: Any) -> None:
    """Put ``value`` at the plain-form ``location`` in ``arguments``, for building a call.

    Missing mappings are created on the way; a ``[]`` in the middle descends into the
    list's first item (a one-item list of ``{}`` when missing), a final ``[]`` appends.
    """
    node: Any = arguments
    steps = _plain_steps(location)
    for i, (name, is_list) in enumerate(steps):
        last = i == len(steps) - 1
        if is_list:
            items = node.setdefault(name, [] if last else [{}])
            if last:
                items.append(value)
                return
            node = items[0]
        elif last:
            node[name] = value
        else:
            node = node.setdefault(name, {})
