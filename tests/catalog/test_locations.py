"""The argument-location grammar: parse, spell, walk and set, and its clear errors."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from localfs_explorer.catalog import PathParam, iter_locations, locations
from localfs_explorer.catalog.locations import (
    LocationError,
    Shape,
    check_plain,
    format_location,
    parse_location,
    set_value,
    shape,
    values_at,
)
from localfs_explorer.discovery import DiscoveryError, discover_paths
from localfs_explorer.errors import LocalfsError


@pytest.mark.parametrize(("text", "segments"), [
    ("local_path", ("local_path",)),
    ("paths[]", ("paths", None)),
    ("attachments[].local_path", ("attachments", None, "local_path")),
    ("a.b[0].c", ("a", "b", 0, "c")),
    ('["odd key"].x', ("odd key", "x")),
    ('a["say \\"hi\\""]', ("a", 'say "hi"')),
    ("file-id", ("file-id",)),
])
def test_parse_and_format_are_inverse(text: str, segments: tuple) -> None:
    assert parse_location(text) == segments
    assert format_location(segments) == text


@pytest.mark.parametrize(("text", "where"), [
    (".a", "character 1"),
    ("a..b", "character 2"),
    ("a[x]", "character 2"),
    ("a[", "character 2"),
    ('a["open', "character 2"),
    ("a b", "character 2"),
])
def test_malformed_locations_name_the_character(text: str, where: str) -> None:
    with pytest.raises(LocationError, match=re.escape(f"location {text!r}")) as info:
        parse_location(text)
    assert str(info.value).endswith(f"can't be parsed at {where}")
    assert isinstance(info.value, LocalfsError)


def test_empty_location_is_a_clear_error() -> None:
    with pytest.raises(LocationError, match="location is empty"):
        parse_location("")


@pytest.mark.parametrize("text", ["", "a b", "a[0].b", '["x"]', "a[][]", "[]", "a.", "0a"])
def test_the_catalog_takes_only_the_plain_form(text: str) -> None:
    with pytest.raises(LocationError, match="dot-separated names"):
        check_plain(text)
    with pytest.raises(ValidationError, match="dot-separated names"):
        PathParam(location=text, op="read")


def test_plain_form_accepted_and_argument_named() -> None:
    for text in ("local_path", "paths[]", "attachments[].local_path", "a.b[].c"):
        assert check_plain(text) == text
    assert PathParam(location="attachments[].local_path", op="read").argument == "attachments"


@pytest.mark.parametrize(("text", "expected"), [
    ("local_path", Shape("single", "local_path")),
    ("paths[]", Shape("list", "paths")),
    ("attachments[].local_path", Shape("list_of_objects", "attachments", "local_path")),
    ("a.b", None), ("a[].b.c", None), ("a[0]", None), ("a[][]", None), ("a b", None),
])
def test_shapes_the_forms_and_the_probe_handle(text: str, expected: Shape | None) -> None:
    assert shape(text) == expected


def test_values_at_labels_each_item_and_skips_what_is_not_given() -> None:
    args = {"attachments": [{"local_path": "/a"}, {"drive_file_id": "x"},
                            {"local_path": None}, "junk", {"local_path": "/b"}]}
    assert values_at(args, "attachments[].local_path") == [
        ("attachments[0].local_path", "/a"), ("attachments[4].local_path", "/b")]
    assert values_at(args, "attachments[].local_path", keep_none=True) == [
        ("attachments[0].local_path", "/a"), ("attachments[2].local_path", None),
        ("attachments[4].local_path", "/b")]
    assert values_at({"a": {"b": [1, 2, 3]}}, "a.b[1]") == [("a.b[1]", 2)]
    assert values_at({"a": {"b": [1]}}, "a.b[5]") == []
    assert values_at({"x y": "v"}, '["x y"]') == [('["x y"]', "v")]
    assert values_at("not a mapping", "local_path") == []
    assert values_at({"local_path": None}, "local_path") == []
    assert values_at({"local_path": None}, "local_path", keep_none=True) == [("local_path", None)]


@pytest.mark.parametrize("location", ["a", "a[].k", "a.k", "a[]", "a[].k.z"])
def test_fast_shapes_agree_with_the_general_walk(location: str) -> None:
    shapes = [None, "x", 3, [], [None], [{"k": None}], ({"k": "t"},), {"k": "m"},
              [{"k": "a"}, "s", {"k": "b"}, {"j": 1}], [[{"k": 1}]]]
    segments = parse_location(location)
    for value in shapes:
        arguments = {"a": value}
        for keep_none in (False, True):
            general = list(locations._walk(arguments, segments, keep_none))
            assert values_at(arguments, location, keep_none=keep_none) == general
        assert list(iter_locations(arguments, location)) == values_at(arguments, location)


def test_malformed_location_in_a_walk_is_a_clear_error() -> None:
    with pytest.raises(LocationError, match="can't be parsed"):
        values_at({}, "a[x]")
    # discovery names where the location came from
    with pytest.raises(DiscoveryError, match=r"checkpaths location 'a\[x\]' can't be parsed"):
        discover_paths({"a": 1}, checkpaths=["a[x]"], home="/home/u")


def test_set_value_builds_the_shapes_a_call_needs() -> None:
    args: dict[str, Any] = {}
    set_value(args, "local_path", "/p")
    set_value(args, "paths[]", "/q")
    set_value(args, "paths[]", "/r")
    set_value(args, "attachments[].local_path", "/s")
    set_value(args, "attachments[].name", "n")
    set_value(args, "opts.dir", "/t")
    assert args == {"local_path": "/p", "paths": ["/q", "/r"],
                    "attachments": [{"local_path": "/s", "name": "n"}], "opts": {"dir": "/t"}}
    with pytest.raises(LocationError, match="dot-separated names"):
        set_value(args, "a[0]", "x")


_key = st.one_of(st.from_regex(r"[A-Za-z_][A-Za-z0-9_\-]{0,5}", fullmatch=True),
                 st.text(min_size=1, max_size=6))
_segment = st.one_of(_key, st.integers(min_value=0, max_value=99), st.none())


@given(st.tuples(_key).flatmap(lambda head: st.lists(_segment, max_size=5).map(
    lambda rest: (*head, *rest))))
def test_any_spelt_location_parses_back(segments: tuple) -> None:
    assert parse_location(format_location(segments)) == segments
