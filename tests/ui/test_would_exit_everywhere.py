"""A server that would exit at startup says so in every results tab, whichever server it
is, and the bar's chip for a directory the server skips says so."""

from __future__ import annotations

import pytest
from ui_support import text_of

from localfs_explorer.ui import Explorer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FILESYSTEM = "server-filesystem"


def _tabs(app) -> dict[str, str]:
    return {name: text_of(app.panel(name).exit_note.value) for name in ("paths", "tool", "batch")}


def test_the_filesystem_servers_exit_is_in_every_tab_and_on_the_chip(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    m = app.model
    gone = str(layout.base / "gone")
    with m.hold():
        m.server = FILESYSTEM
        m.server_options = {"directories": [gone]}
        m.paths_text = str(layout.data / "report.csv")
    m.recompute()
    assert not m.policy.serves
    for name, shown in _tabs(app).items():
        assert shown.startswith("✘ WOULD EXIT at startup: "), name
        assert m.policy.exit_message in shown, name
    chips = text_of(app.bar.fs.fields["directories"].chips.children[0].children[0].value)
    assert gone in chips and "✘ skipped: can't access it" in chips
    # One directory that is there: it starts; the tabs say nothing, the chips tell apart.
    m.server_options = {"directories": [gone, str(layout.data)]}
    assert m.policy.serves
    assert set(_tabs(app).values()) == {""}
    labels = [text_of(c.children[0].value) for c in app.bar.fs.fields["directories"].chips.children
              if hasattr(c, "children") and c.children]
    assert any(gone in t and "skipped" in t for t in labels)
    assert any(str(layout.data) in t and "✔ allowed" in t for t in labels)


def test_mcp_gee_sweets_exit_is_said_the_same_way(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0,
                   overrides=[("LOCAL_FILE_ACCESS", "roots"),
                              ("LOCAL_FILE_ROOTS", str(layout.base / "gone"))])
    assert not app.model.policy.serves
    assert all(t.startswith("✘ WOULD EXIT at startup: ") for t in _tabs(app).values())
