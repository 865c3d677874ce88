"""Which argument locations discovery leaves alone, and the cheap question whether a
call leaves it anything to find (:func:`nothing_to_find`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from os import PathLike, fspath
from typing import Any

from ..catalog import locations
from .records import DiscoveryError, DiscoveryLimits
from .words import argument_name_kind, is_encoded_argument_name

# --- argument locations --------------------------------------------------------------------------

def _select(arguments: Mapping[str, Any], location: str) -> list[tuple[str, Any]]:
    """``(label, value)`` for every value at ``location``; ``[]`` means every item."""
    if location in arguments:
        # A top-level key spelt exactly as given wins over reading it as a location.
        return [(locations.child_label("", location), arguments[location])]
    try:
        return locations.values_at(arguments, location, keep_none=True)
    except locations.LocationError as exc:
        raise DiscoveryError(f"checkpaths {exc}") from None


def _strings_at(label: str, value: Any) -> Iterator[tuple[str, str]]:
    """A declared value's path strings: the string itself, or each string of a list."""
    if isinstance(value, (str, PathLike)):
        yield label, fspath(value)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            if isinstance(item, (str, PathLike)):
                yield f"{label}[{i}]", fspath(item)


_SKIPPED, _DATA_NAME, _SEARCHED, _PLAIN_NAME = 0, 1, 2, 3
# One word with no '/', '.', '~', ':' or '\\': under a name that says nothing about paths
# (_PLAIN_NAME) the walk takes it whole as a single word, and such a word is never a
# path, a file: URI or a credential file's name, so it finds nothing there.
_INERT_WORD = re.compile(r"[^\s/.~:\\]+")


class _Skip:
    """Argument locations not to search, exactly (``a[0].b``) or for every item (``a[].b``).

    Built once per distinct tuple of locations (:func:`_skip_filter`); its locations
    never change, and it remembers how it classified the names it was asked about.
    """

    def __init__(self, locations: tuple[str, ...]) -> None:
        self.locations = locations
        exact: set[str] = set()
        generic: set[str] = set()
        for location in locations:
            canonical = _canonical(location)
            (generic if "[]" in canonical else exact).add(canonical)
        self.exact = frozenset(exact)
        self.generic = frozenset(generic)
        #: (generic label of the container, name, is a list item) -> (generic label of
        #: the entry, kind): the answers of :meth:`entry_kind` so far.
        self.kinds: dict[tuple[str, str, bool], tuple[str, int]] = {}

    def entry_kind(self, generic: str, name: str, item: bool) -> tuple[str, int]:
        """The generic label of an entry and how the walk treats it: skipped, a data name
        (a string there is never searched), a plain name (a string there is searched as
        a word or text, never taken whole as a path or a command) or searched.

        ``item`` says the entry is a list item of the list called ``name`` (its label
        is ``generic[]``); else it is the mapping entry ``name``. Judged by the generic
        label alone, an entry skipped only by an indexed location (``a[0].b``) counts as
        searched: the answer errs towards searching, never towards skipping.
        """
        key = (generic, name, item)
        found = self.kinds.get(key)
        if found is None:
            label = f"{generic}[]" if item else locations.child_label(generic, name)
            if label in self.exact or label in self.generic:
                kind = _SKIPPED
            else:
                name_kind = argument_name_kind(name)
                if name_kind == "data":
                    # Encoded bytes are never searched; an id or URL is, word by word.
                    kind = _DATA_NAME if is_encoded_argument_name(name) else _PLAIN_NAME
                else:
                    kind = _PLAIN_NAME if name_kind is None else _SEARCHED
            if len(self.kinds) >= 4096:
                self.kinds.clear()  # names are few; a flood of odd ones isn't kept
            found = self.kinds[key] = (label, kind)
        return found

    def covers(self, label: str, generic: str) -> bool:
        """Whether this very value is skipped (the walk stops here, so ancestors count)."""
        return label in self.exact or generic in self.generic

    def covers_path(self, label: str) -> bool:
        """Whether the value at ``label`` or any value above it is skipped."""
        return any(self.covers(prefix, locations.generic_label(prefix))
                   for prefix in locations.label_prefixes(label))


@lru_cache(maxsize=256)
def _skip_filter(locations: tuple[str, ...]) -> _Skip:
    """The skip filter for ``locations``; a catalog tool passes the same tuple every call."""
    return _Skip(locations)


@lru_cache(maxsize=1024)
def _canonical(location: str) -> str:
    """A location spelt the way the walk labels values (``a.b[0]``, ``a["x y"]``).

    A string that doesn't parse as a location is taken as one top-level key, so a
    catalog's odd argument name ("my file") still works.
    """
    try:
        return locations.format_location(locations.parse_location(location))
    except locations.LocationError:
        return locations.child_label("", location)


# --- entry point -------------------------------------------------------------------------------

_DEFAULT_LIMITS = DiscoveryLimits()


def nothing_to_find(
    arguments: Mapping[str, Any],
    *,
    skip: Iterable[str] = (),
    limits: DiscoveryLimits | None = None,
) -> bool:
    """Whether :func:`discover_paths` would surely find nothing here, asked cheaply.

    For a call with no ``checkpaths`` and no ``expected`` paths. True means the result
    would be empty with nothing in ``stopped``; False means: ask :func:`discover_paths`
    (it may still find nothing). A catalog tool's calls are mostly the True case.
    """
    # True when every value the guess walk would visit is skipped, a number, boolean or
    # null, a blank string or a string under a data name (``file_id``, items of
    # ``file_ids``), no list or object sits as deep as ``max_depth``, and the values are
    # too few for ``max_nodes`` or ``max_strings`` to stop the walk.
    if type(arguments) is not dict and not isinstance(arguments, Mapping):
        return False
    limits = limits or _DEFAULT_LIMITS
    if limits.max_depth < 1:
        return False
    # Values below the root the walk may visit: it stops before one more than this.
    budget = [min(limits.max_nodes, limits.max_strings) - 1]
    return _quiet_entries(arguments, "", _skip_filter(tuple(skip)), 0, limits.max_depth,
                          budget)


def _quiet_entries(
    mapping: Mapping[Any, Any], generic: str, skip: _Skip, depth: int, max_depth: int,
    budget: list[int],
) -> bool:
    """:func:`nothing_to_find` for the entries of a mapping at ``depth``."""
    budget[0] -= len(mapping)
    if budget[0] < 0:
        return False
    kinds = skip.kinds
    inert = _INERT_WORD.fullmatch
    for key, value in mapping.items():
        name = key if type(key) is str else str(key)
        # The remembered answer straight from the dict: one lookup per argument.
        found = kinds.get((generic, name, False))
        label, kind = found if found is not None else skip.entry_kind(generic, name, False)
        if kind == _SKIPPED:
            continue
        if isinstance(value, str):
            # _quiet_string, written out: most top-level arguments are strings.
            if kind != _DATA_NAME and not (kind == _PLAIN_NAME and inert(value)) \
                    and value.strip():
                return False
        elif not _quiet_value(value, label, name, skip, depth + 1, max_depth, budget):
            return False
    return True


def _quiet_string(value: str, kind: int) -> bool:
    """Whether the walk finds nothing in a string under a name of this (searched) kind:
    a blank one, or under a plain name a single inert word (an identifier, a title)."""
    if kind == _PLAIN_NAME and _INERT_WORD.fullmatch(value):
        return True
    return not value.strip()


def _quiet_value(
    value: Any, generic: str, name: str, skip: _Skip, depth: int, max_depth: int,
    budget: list[int],
) -> bool:
    """:func:`nothing_to_find` for a value that isn't a string and isn't skipped."""
    if type(value) is dict or isinstance(value, Mapping):
        return depth < max_depth and _quiet_entries(value, generic, skip, depth, max_depth,
                                                    budget)
    if not isinstance(value, (list, tuple)):
        return True  # numbers, booleans, None: the walk passes them over
    if depth >= max_depth:
        return False  # the walk would stop here and say so
    budget[0] -= len(value)
    if budget[0] < 0:
        return False
    label, kind = skip.entry_kind(generic, name, True)
    if kind == _SKIPPED:
        return True
    for item in value:
        if isinstance(item, str):
            if kind != _DATA_NAME and not _quiet_string(item, kind):
                return False
        elif not _quiet_value(item, label, name, skip, depth + 1, max_depth, budget):
            return False
    return True
