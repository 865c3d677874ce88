"""Widgets laid out alike share one Layout; changing a shared one changes them all.

The page once went blank: a Select of the Server tab, sharing the full-width layout,
was hidden while empty, and with it every full-width widget of the page, the app's own
box included. A shared layout now refuses a change where it is made, so a model test
fails at the line that does it.
"""

from __future__ import annotations

import pytest
from ui_support import upload_value

from localfs_explorer.ui import Explorer
from localfs_explorer.ui.panel import layout, wide

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_a_shared_layout_refuses_a_change() -> None:
    shared = wide()
    with pytest.raises(RuntimeError, match="display changed on a shared object"):
        shared.display = "none"
    # Refused, and undone: the widgets sharing it are not left hidden.
    assert shared.display is None
    assert layout(width="100%") is shared


def _hidden(widget, path=()) -> list[str]:
    """Every widget under ``widget`` whose layout is shared and hidden."""
    found = []
    own = getattr(widget, "layout", None)
    if own is not None and own.display == "none" and own is wide():
        found.append(" > ".join((*path, type(widget).__name__)))
    for child in getattr(widget, "children", ()) or ():
        found += _hidden(child, (*path, type(widget).__name__))
    return found


def test_the_page_stays_visible_when_the_server_tab_hides_its_rows(layout) -> None:
    app = Explorer(cwd=str(layout.app), debounce=0)
    panel = app.panel("server")
    # No config: the rows are hidden; a config with no loadable entry: hidden again.
    panel.client_config.upload.value = upload_value(
        "claude_desktop_config.json", b'{"mcpServers": {"web": {"url": "https://x.example/mcp"}}}')
    assert app.layout.display != "none"
    assert app.bar.badge.layout.display != "none"
    assert _hidden(app) == []
