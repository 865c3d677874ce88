"""The Server panel's client-config picker, driven headless (no browser)."""

from __future__ import annotations

import json

import pytest
from ui_support import text_of, upload_value

from localfs_explorer.secrets import MASK
from localfs_explorer.ui import Explorer, ExplorerModel
from localfs_explorer.ui.deployment import ClientConfigPicker

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SECRET = "picker-secret-91c2"


def _config(data) -> str:
    return json.dumps({"mcpServers": {
        "notes": {"command": "node", "args": ["notes.js"]},
        "sheets": {"command": "uvx", "args": ["mcp-gee-sweet@0.9.5", "--transport", "sse"],
                   "env": {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(data),
                           "CREDENTIALS_CONFIG": SECRET}},
        "files": {"command": "npx", "args": ["@modelcontextprotocol/server-filesystem", "/w"]},
    }}, indent=2)


def test_an_upload_lists_the_entries_with_their_servers(layout):
    picker = ClientConfigPicker(ExplorerModel(debounce=0))
    picker.upload.value = upload_value("claude_desktop_config.json",
                                       _config(layout.data).encode())
    assert [label for label, _ in picker.entries.options] == [
        "notes — not a known server", "sheets — mcp-gee-sweet 0.9.5",
        "files — server-filesystem"]
    assert picker.entries.value == "sheets"
    assert "3 entries" in text_of(picker.info.value)
    assert not picker.use.disabled


def test_using_an_entry_sets_the_model_and_shows_provenance_masked(layout):
    app = Explorer(cwd=str(layout.app), debounce=0)
    picker = app.panel("server").client_config
    picker.load_text("claude_desktop_config.json", _config(layout.data))
    picker.use.click()
    m = app.model
    assert dict(m.overrides)["LOCAL_FILE_ROOTS"] == str(layout.data)
    assert m.transport == "sse"
    assert m.policy.mode.value == "roots" and m.policy.transport == "sse"
    shown = text_of(picker.info.value)
    assert "transport = sse [entry, line" in shown.replace("  ", " ")
    assert f"CREDENTIALS_CONFIG = {MASK}" in shown
    assert SECRET not in picker.info.value
    # The overrides editor keeps the secret out of its fields.
    editor = app.panel("server").overrides
    assert all(getattr(w, "value", None) != SECRET for row in editor._rows for w in row)


def test_a_filesystem_entry_switches_the_server(layout):
    model = ExplorerModel(debounce=0)
    picker = ClientConfigPicker(model)
    picker.load_text("claude_desktop_config.json", _config(layout.data))
    picker.entries.value = "files"
    picker.use.click()
    assert model.server == "server-filesystem"
    assert model.server_options == {"directories": ("/w",)}
    assert not model.config_error and model.policy is not None
    assert "allowed dir = /w [entry" in text_of(picker.info.value).replace("  ", " ")


def test_errors_show_in_the_picker_not_as_tracebacks(layout):
    model = ExplorerModel(debounce=0)
    picker = ClientConfigPicker(model)
    picker.load_text("client.json", '{"mcpServers": {')
    assert "client.json:1: not valid JSON" in text_of(picker.info.value)
    assert picker.use.disabled
    picker.load_text("claude_desktop_config.json", _config(layout.data))
    picker.entries.value = "notes"
    picker.use.click()
    assert "which the explorer doesn't model" in text_of(picker.info.value)
    assert model.transport == "stdio" and model.overrides == []  # nothing was applied


def test_a_served_page_reads_no_file_and_no_environment_of_its_host(layout, monkeypatch):
    monkeypatch.setenv("PICKER_DATA", str(layout.data))
    model = ExplorerModel(debounce=0, host_access=False)
    picker = ClientConfigPicker(model)
    text = json.dumps({"mcpServers": {"s": {"command": "mcp-gee-sweet", "env": {
        "LOCAL_FILE_ROOTS": "${PICKER_DATA:-unset}"}}}})
    picker.load_text(".mcp.json", text)
    picker.use.click()
    assert dict(model.overrides)["LOCAL_FILE_ROOTS"] == "unset"
    env_file = layout.app / "server.env"
    env_file.write_text("LOCAL_FILE_ACCESS=full\n")
    text = json.dumps({"servers": {"s": {"command": "mcp-gee-sweet",
                                          "envFile": str(env_file)}}})
    picker.load_text("mcp.json", text)
    picker.use.click()
    assert "which this page may not do" in text_of(picker.info.value)


def test_a_secret_variable_expanded_into_a_root_is_masked_on_the_page(layout, monkeypatch):
    token = "ghp_pickerRound3Token77"
    monkeypatch.setenv("GITHUB_TOKEN", token)
    (layout.data / token).mkdir()
    model = ExplorerModel(debounce=0, host_access=True)
    picker = ClientConfigPicker(model)
    picker.load_text(".mcp.json", json.dumps({"mcpServers": {"s": {
        "command": "mcp-gee-sweet", "env": {
            "LOCAL_FILE_ACCESS": "roots",
            "LOCAL_FILE_ROOTS": f"{layout.data}/${{GITHUB_TOKEN}}"}}}}))
    picker.use.click()
    assert dict(model.overrides)["LOCAL_FILE_ROOTS"] == f"{layout.data}/{token}"
    shown = text_of(picker.info.value)
    assert f"LOCAL_FILE_ROOTS = {layout.data}/{MASK}" in shown and token not in shown
    # Every other view of the page masks it too (a root shown in the policy bar).
    from localfs_explorer.ui import render

    assert render.esc(f"root {layout.data}/{token}") == f"root {layout.data}/{MASK}"
