"""The Server tab shows the .env-reading server's controls only for such a server."""

from __future__ import annotations

import pytest
from ui_support import text_of

from localfs_explorer.server import DEFAULT_SERVER, get_server, list_servers
from localfs_explorer.ui import Explorer
from localfs_explorer.ui import panel as ui_panel

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _without_env() -> str:
    return next(s for s in list_servers() if not get_server(s).env_file)


def _shown(widget) -> bool:
    return widget.layout.display != "none"


def _inside(section, widget) -> bool:
    if section is widget:
        return True
    return any(_inside(child, widget) for child in getattr(section, "children", ()))


def test_env_controls_hide_for_a_server_without_a_env_and_come_back(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    panel = app.panel("server")
    controls = [panel.env_path, panel.env_upload, panel.env_paste, panel.env_paste_use,
                panel.lenient, panel.transport, panel.package_dir, panel.overrides,
                panel.unset]
    sections = panel.env_sections
    # Every such control sits in one of the boxes that hide; the boxes' layouts are theirs.
    for control in controls:
        assert any(_inside(s, control) for s in sections), control
    for s in sections:
        assert s.layout is not ui_panel.wide()
        assert sum(other.layout is s.layout for other in sections) == 1
    assert get_server(DEFAULT_SERVER).env_file
    assert all(_shown(s) for s in sections)
    assert text_of(panel.configured_by.value) == ""

    other = _without_env()
    app.model.server = other
    assert not any(_shown(s) for s in sections)
    said = text_of(panel.configured_by.value)
    assert "reads no .env" in said
    for field in get_server(other).setting_fields:
        assert field.label in said
    # The rest of the tab stays: where it runs, and its startup directory.
    assert _shown(panel.cwd) and _shown(panel.target)
    assert not any(_inside(s, panel.cwd) for s in sections)

    app.model.server = DEFAULT_SERVER
    assert all(_shown(s) for s in sections)
    assert text_of(panel.configured_by.value) == ""


def test_hiding_them_changes_no_shared_layout(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    shared = ui_panel.wide()
    app.model.server = _without_env()
    assert shared.display in (None, "")
    assert app.panel("server").cwd.layout.display in (None, "")
