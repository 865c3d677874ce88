"""Every grid says how many rows it has in one line, however many rows there are."""

from __future__ import annotations

import re

import ipywidgets as widgets
import pytest
from ui_support import text_of

from localfs_explorer.ui import Explorer
from localfs_explorer.ui.grid import WINDOW

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROWS = WINDOW + 200


def _html_texts(widget: widgets.Widget) -> list[str]:
    out = []
    if isinstance(widget, (widgets.HTML, widgets.Label)):
        out.append(text_of(widget.value))
    for child in getattr(widget, "children", ()):
        out.extend(_html_texts(child))
    return out


def _frame(rows: int):
    import pandas as pd

    return pd.DataFrame({"#": range(1, rows + 1),
                         "verdict": ["✘ REFUSED" if i % 3 == 0 else "✔ ALLOWED"
                                     for i in range(rows)],
                         "path": [f"/data/f{i}.txt" for i in range(rows)],
                         "_rank": [0 if i % 3 == 0 else 4 for i in range(rows)]})


@pytest.mark.parametrize("tab", ["paths", "batch", "compare", "session"])
def test_a_grid_of_more_than_a_window_shows_one_count_line(layout, tab):
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    panel = app.panel(tab)
    grid = panel.grid
    grid.set_frame(_frame(ROWS))
    # The table's own "showing 1 to 25 of 1,000 entries" is not drawn: ours is the one.
    options = grid.table._dt_args
    assert "info" not in options["layout"].values()
    assert "paging" in options["layout"].values()
    counted = [t for t in _html_texts(panel)
               if re.search(rf"\b{ROWS}\b", t) or re.search(rf"\b{WINDOW}\b", t)]
    assert len(counted) == 1, counted
    assert f"{ROWS} of {ROWS} row(s) shown" in counted[0]
    assert f"rows 1–{WINDOW} of {ROWS}" in counted[0]
    # One window pager beside it, and the count follows it.
    assert grid.pager.layout.display == "flex"
    grid.next.click()
    assert f"rows {WINDOW + 1}–{ROWS} of {ROWS}" in text_of(grid.count.value)


def test_the_exposure_findings_say_their_count_in_one_line(layout, monkeypatch):
    import localfs_explorer.ui.panels.exposure as exposure_panel

    monkeypatch.setattr(exposure_panel, "MAX_ROWS", 1)
    app = Explorer(host_cwd=str(layout.app), debounce=0, target="example:traps",
                   package_dir="/app",
                   overrides=[("LOCAL_FILE_ACCESS", "roots"), ("LOCAL_FILE_ROOTS", "/data")])
    panel = app.show("exposure")
    panel.start(wait=True)
    inv = panel.inventory
    assert inv is not None and len(inv.findings) >= 2
    shown = text_of(panel.findings.value)
    assert shown.count(f"of {len(inv.findings)}") + shown.count("not shown") == 0
    assert "the first 1 shown (the CSV has them all)" in shown
    panel.text_filter.value = inv.findings[0].path
    matching = len(panel.shown_findings())
    shown = text_of(panel.findings.value)
    assert shown.count("findings match") == 1 and "not shown" not in shown
    assert f"{matching} of {len(inv.findings)} findings match the filters" in shown
