"""The Server panel's table of every entry of an uploaded client config."""

from __future__ import annotations

import json

import pytest
from ui_support import text_of, upload_value

from localfs_explorer.ui import Explorer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SECRET = "table-secret-4d1e"


def _config(layout) -> str:
    return json.dumps({"mcpServers": {
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": SECRET}},
        "sheets": {"command": "uvx", "args": ["mcp-gee-sweet@0.9.5"],
                   "env": {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(layout.data),
                           "CREDENTIALS_CONFIG": SECRET}},
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem",
                                             str(layout.outside)]},
        "search": {"url": "https://mcp.example.com/mcp"},
    }}, indent=2)


def test_an_upload_shows_every_entry_as_the_deployment_command_does(layout):
    app = Explorer(cwd=str(layout.app), debounce=0)
    panel = app.panel("server")
    panel.client_config.upload.value = upload_value("claude_desktop_config.json",
                                                    _config(layout).encode())
    table = text_of(panel.deployment.table.value)
    for words in ("github", "unmodelled", "sheets", "mcp-gee-sweet", "files", "search",
                  "remote", str(layout.data)):
        assert words in table
    assert SECRET not in panel.deployment.table.value
    # Only the entries the explorer can load are offered, and none is loaded yet.
    assert [name for _, name in panel.deployment.rows.options] == ["sheets", "files"]
    assert panel.deployment.rows.value is None and app.model.overrides == []


def test_picking_a_row_loads_that_entry(layout):
    app = Explorer(cwd=str(layout.app), debounce=0)
    panel = app.panel("server")
    panel.client_config.load_text("claude_desktop_config.json", _config(layout))
    panel.deployment.rows.value = "files"
    assert app.model.server == "server-filesystem"
    assert list(app.model.server_options["directories"]) == [str(layout.outside)]
    panel.deployment.rows.value = "sheets"
    assert app.model.server == "mcp-gee-sweet"
    assert dict(app.model.overrides)["LOCAL_FILE_ROOTS"] == str(layout.data)


def test_a_new_upload_replaces_the_table_and_a_bad_one_empties_it(layout):
    app = Explorer(cwd=str(layout.app), debounce=0)
    panel = app.panel("server")
    panel.client_config.load_text("claude_desktop_config.json", _config(layout))
    other = _config(layout).replace(str(layout.outside), str(layout.data / "sub"))
    panel.client_config.load_text("claude_desktop_config.json", other)
    assert str(layout.data / "sub") in text_of(panel.deployment.table.value)
    panel.client_config.load_text("claude_desktop_config.json", '{"mcpServers": {')
    assert panel.deployment.table.value == "" and panel.deployment.rows.options == ()
    assert "not valid JSON" in text_of(panel.client_config.info.value)
