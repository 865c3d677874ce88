"""Round three's smaller fixes, model-level: what the page says and keeps."""

from __future__ import annotations

import json

import pytest
from ui_support import text_of

from localfs_explorer.ui import Explorer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SECRET = "minor-secret-5b7d21"


def test_the_paste_box_keeps_no_secret_after_use(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    server = app.panel("server")
    server.env_paste.value = f"LOCAL_FILE_ACCESS=full\nCREDENTIALS_CONFIG={SECRET}\n"
    server.env_paste_use.click()
    assert app.model.env_text is not None and SECRET in app.model.env_text
    assert server.env_paste.value == ""


def test_a_client_config_entry_is_not_called_a_env_in_the_steps(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    assert "1 · load a .env" in text_of(app.steps.value)
    picker = app.panel("server").client_config
    picker.load_text(".mcp.json", json.dumps({"mcpServers": {"sheets": {
        "command": "uvx", "args": ["mcp-gee-sweet@0.9.5"],
        "env": {"LOCAL_FILE_ACCESS": "full"}}}}))
    picker.use.click()
    steps = text_of(app.steps.value)
    assert "✔ 1 · use a client-config entry" in steps and ".env" not in steps
    assert "3 · write the entry back" in steps
    app.model.load_env_path(str(layout.app / ".env"))
    assert "✔ 1 · load a .env" in text_of(app.steps.value)


def test_what_a_tilde_meant_is_said_under_the_paths(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0,
                   overrides=[("LOCAL_FILE_ACCESS", "full")])
    paths = app.panel("paths")
    assert "~/..." not in paths.paths.placeholder
    app.model.paths_text = "~/notes.txt"
    note = text_of(paths.counts.value)
    # mcp-gee-sweet takes ~ as a folder of that name in its startup directory.
    resolved = app.model.decisions[0].resolved
    assert resolved == str(layout.app / "~" / "notes.txt")
    assert "~/ is not expanded by this server" in note and resolved in note
    app.model.paths_text = str(layout.data / "report.csv")
    assert "~/" not in text_of(paths.counts.value)


def test_an_uploaded_env_is_offered_as_a_download_not_a_file_here(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    app.model.load_env_upload("prod.env", b"LOCAL_FILE_ACCESS=full\n")
    export = app.show("export")
    assert export.dest.value == ""
    assert "download it" in text_of(export.dest_info.value)
    app.model.load_env_path(str(layout.app / ".env"))
    assert export.dest.value == str(layout.app / ".env.new")


def test_an_empty_path_in_a_tool_call_is_not_a_quiet_ok(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0, server="server-filesystem",
                   server_options={"directories": [str(layout.app)]})
    tool = app.show("tool")
    m = app.model
    m.tool_name = "read_file"
    m.tool_args_text = json.dumps({"path": ""})
    shown = text_of(tool.verdict.value)
    assert "path is empty: the server takes an empty path as its startup directory" in shown
    assert str(layout.app) in shown
    m.tool_args_text = json.dumps({"path": str(layout.app / ".env")})
    assert "is empty" not in text_of(tool.verdict.value)
