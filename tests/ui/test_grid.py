"""The results grid's rows and the options it hands the page, without a browser."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from localfs_explorer.ui.grid import BATCH_COLUMNS, ResultsGrid, batch_frame, call_rows

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _path(op: str, allowed: bool, reason: str = "allowed", advisory: bool = False):
    return SimpleNamespace(op=op, allowed=allowed, reason=reason, advisory=advisory)


def _verdicts() -> list[SimpleNamespace]:
    """One call of each shape the batch grid labels differently."""
    call = SimpleNamespace
    return [
        call(index=0, line=1, name="upload_local_file", outcome="ok", message="",
             paths=[_path("read", True)]),
        call(index=1, line=2, name="sync_folder", outcome="partial", message="some",
             paths=[_path("read", False, "outside_roots"), _path("write", False, "denied"),
                    _path("read", False, "outside_roots"), _path("read", True)]),
        call(index=2, line=3, name="mystery", outcome="ok", message="", paths=[]),
        call(index=3, line=None, name="mystery", outcome="refused", message="no",
             paths=[_path("write", False, "tripwire")]),
        call(index=None, line=5, name="", outcome="error", message="bad JSON", paths=[]),
        call(index=5, line=6, name="download_file", outcome="ok", message="",
             paths=[_path("write", True), _path("read", True),
                    _path("read", False, "denied", advisory=True)]),
    ]


def test_call_rows_label_every_shape_of_call() -> None:
    known = frozenset({"upload_local_file", "sync_folder", "download_file"})
    rows = call_rows(_verdicts(), known)
    assert [list(r) for r in rows] == [list(BATCH_COLUMNS)] * 6
    assert [(r["#"], r["line"], r["tool"], r["verdict"], r["reason"], r["op"], r["paths"],
             r["refused"], r["what the model gets"], r["_rank"]) for r in rows] == [
        (1, 1, "upload_local_file", "✔ OK", "", "read", 1, 0, "—", 4),
        (2, 2, "sync_folder", "◐ PARTIAL", "denied, outside roots", "read, write", 4, 3,
         "some", 2),
        (3, 3, "mystery", "? UNKNOWN TOOL", "", "", 0, 0, "—", 1),
        (4, "", "mystery", "✘ REFUSED · unknown tool", "tripwire", "write", 1, 1, "no", 0),
        (5, 5, "(malformed)", "⚠ ERROR", "", "", 0, 0, "bad JSON", 1),
        # An advisory refusal doesn't count: the call's operations are all of its paths'.
        (6, 6, "download_file", "✔ OK", "", "read, write", 3, 0, "—", 4),
    ]
    frame = batch_frame(_verdicts(), known)
    assert list(frame.columns) == list(BATCH_COLUMNS)
    assert frame.to_dict("records") == rows
    # Each call on the line of its number: no second column saying the same number.
    plain = [v for v in _verdicts() if v.index is not None and v.line == v.index + 1]
    frame = batch_frame(plain, known)
    assert "line" not in frame.columns and list(frame["#"]) == [1, 2, 3, 6]


def test_filters_offer_single_operations_and_reasons_that_match_rows() -> None:
    known = frozenset({"upload_local_file", "sync_folder", "download_file"})
    grid = ResultsGrid("t", detail=lambda i: "")
    grid.set_frame(batch_frame(_verdicts(), known))
    assert list(grid.filters["op"].options) == ["(all)", "read", "write"]
    assert list(grid.filters["reason"].options) == [
        "(all)", "denied", "outside roots", "tripwire"]
    # Every option offered keeps at least one row: no "read, write" that matches nothing.
    for column in ("op", "reason"):
        for option in grid.filters[column].options[1:]:
            grid.filters[column].value = option
            assert len(grid.view) > 0, (column, option)
        grid.filters[column].value = "(all)"
    grid.filters["op"].value = "write"
    assert sorted(grid.view["#"]) == [2, 4, 6]


def test_the_pages_options_survive_every_update() -> None:
    """Settings the page needs for a fast grid go with every update, not only the first.

    itables drops a JavaScript option's "evaluate me" mark unless the option comes with
    the update; the page would then call a string and draw no table at all.
    """
    grid = ResultsGrid("t", detail=lambda i: "")
    known = frozenset({"upload_local_file"})
    for verdicts in (_verdicts(), [], _verdicts()[:2]):
        grid.set_frame(batch_frame(verdicts, known))
        args = grid.table._dt_args
        assert args["autoWidth"] is False and args["deferRender"] is True
        assert ["drawCallback"] in args["keys_to_be_evaluated"]
        assert args["drawCallback"].startswith("function (settings)")
        assert "off('deselect')" in args["drawCallback"]
    assert json.loads(grid.table._dt_args["data_json"])[0][:3] == [
        2, "sync_folder", "◐ PARTIAL · unknown tool"]  # each call on its own line: no "line"
