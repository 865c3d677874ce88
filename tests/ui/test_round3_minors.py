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


def _walked(app):
    panel = app.show("exposure")
    panel.start(wait=True)
    assert panel.error == "" and panel.inventory is not None
    return panel


def test_the_exposure_walk_fills_its_bar_filters_and_says_cancelled(layout, monkeypatch):
    app = Explorer(host_cwd=str(layout.app), debounce=0, target="example:traps",
                   package_dir="/app",
                   overrides=[("LOCAL_FILE_ACCESS", "roots"), ("LOCAL_FILE_ROOTS", "/data")])
    panel = _walked(app)
    inv = panel.inventory
    assert inv.complete and len(inv.findings) >= 2
    # Done: a full bar, whatever the cap it ran up to.
    assert panel.progress.value == panel.progress.max == max(inv.entries, 1)
    assert "done" in text_of(panel.progress_label.value)
    severities = {f.severity for f in inv.findings}
    one = sorted(severities)[0]
    panel.severity_filter.value = one
    assert {f.severity for f in panel.shown_findings()} == {one}
    assert f"{len(panel.shown_findings())} of {len(inv.findings)} findings" in text_of(
        panel.findings.value)
    panel.severity_filter.value = "(all)"
    path = inv.findings[0].path
    panel.text_filter.value = path
    assert panel.shown_findings() and all(path in f.path or path in f.why
                                          for f in panel.shown_findings())
    # A new walk doesn't show the old one's summary while it runs.
    import localfs_explorer.exposure as walker

    seen = []
    real = walker.exposure

    def watched(*args, **kwargs):
        seen.append((panel.summary.value, panel.findings.value, panel.chart.value))
        return real(*args, **kwargs)

    monkeypatch.setattr(walker, "exposure", watched)
    panel.start(wait=True)
    assert seen == [("", "", "")]
    assert panel.summary.value  # and shows its own once done
    # A cancelled walk says so, never "done".
    import dataclasses

    panel.inventory = dataclasses.replace(inv, cancelled=True, complete=False,
                                          stopped=["cancelled"]) \
        if dataclasses.is_dataclass(inv) else inv.model_copy(
            update={"cancelled": True, "complete": False, "stopped": ["cancelled"]})
    panel.refresh()
    assert "cancelled" in text_of(panel.progress_label.value)
    assert "done" not in text_of(panel.progress_label.value)


def test_process_environment_rows_have_names_of_their_own(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0,
                   overrides=[("LOCAL_FILE_ACCESS", "roots"), ("API_TOKEN", SECRET)])
    editor = app.panel("server").overrides
    names = [w.tooltip for row in editor._rows for w in row]
    assert len(names) == len(set(names)) == 6
    assert "remove process-environment variable 2 (API_TOKEN)" in names
    assert all(SECRET not in n for n in names)
    editor._rows[0][0].value = "LOCAL_FILE_ROOTS"
    assert editor._rows[0][2].tooltip == "remove process-environment variable 1 (LOCAL_FILE_ROOTS)"
