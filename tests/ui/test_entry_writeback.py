"""A client-config entry in the page: the bar shows and edits the entry's own settings,
and Export writes them back into the config exactly as ``export-env --client-config
... --in-place`` does."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import run_cli
from ui_support import text_of

from localfs_explorer.secrets import MASK
from localfs_explorer.ui import Explorer
from localfs_explorer.ui.entry_model import entry_changes, write_back

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SECRET = "entry-secret-77ab10"


def _config(layout) -> str:
    # A neighbouring entry that a write-back must keep byte for byte.
    return ('{\n  "mcpServers": {\n'
            '    "files": {"command": "npx", "args": ["@modelcontextprotocol/server-filesystem",'
            ' "/w"]},\n'
            '    "sheets": {\n      "command": "uvx",\n'
            '      "args": ["mcp-gee-sweet@0.9.5"],\n'
            '      "env": {\n'
            '        "LOCAL_FILE_ACCESS": "roots",\n'
            f'        "LOCAL_FILE_ROOTS": {json.dumps(str(layout.data))},\n'
            f'        "CREDENTIALS_CONFIG": "{SECRET}"\n'
            '      }\n    }\n  }\n}\n')


@pytest.fixture
def opened(layout, tmp_path):
    """The page with entry ``sheets`` of a config on this machine in use, and a copy of
    the same file for the command line."""
    folder = tmp_path / "proj"
    folder.mkdir()
    path = folder / ".mcp.json"
    path.write_text(_config(layout))
    twin = tmp_path / "twin" / ".mcp.json"
    twin.parent.mkdir()
    shutil.copy(path, twin)
    # The page was started with a .env of its own: the entry replaces it.
    app = Explorer(env_path=str(layout.app / ".env"), cwd=str(layout.app), debounce=0)
    picker = app.panel("server").client_config
    picker.load_path(str(path))
    picker.entries.value = "sheets"
    picker.use.click()
    return app, path, twin


def test_the_bar_shows_and_edits_the_entrys_own_settings(opened, layout):
    app, _path, _twin = opened
    m, bar = app.model, app.bar
    assert m.env_path == "" and m.client_entry == "sheets"
    assert bar.mode.value == "roots"  # not "unset": the entry says roots
    assert bar.roots() == [str(layout.data)]
    assert "entry sheets in" in text_of(bar.note.value).replace("  ", " ")
    assert "process environment sets" not in bar.note.value
    bar.add_root(str(layout.outside))
    # Applied, not only shown: the policy now allows the new root.
    assert m.policy.check(str(layout.outside / "other.txt"), "read").allowed
    assert dict(m.overrides)["LOCAL_FILE_ROOTS"].endswith(str(layout.outside))
    assert entry_changes(m) == ({"LOCAL_FILE_ROOTS": dict(m.overrides)["LOCAL_FILE_ROOTS"]},
                                 [])


def test_export_writes_back_exactly_as_the_command_line(opened, layout):
    app, path, twin = opened
    m = app.model
    app.bar.add_root(str(layout.outside))
    app.bar.mode.value = "full"
    panel = app.show("export")
    assert panel.entry_box.layout.display == "" and panel.env_box.layout.display == "none"
    assert f"Write back to {path}" in text_of(panel.entry_heading.value)
    diff = text_of(panel.entry_diff.value)
    assert '+ "LOCAL_FILE_ACCESS": "full",' in diff.replace("+  ", "+ ") or \
        '"LOCAL_FILE_ACCESS": "full"' in diff
    assert SECRET not in panel.entry_diff.value and SECRET not in panel.entry_status.value
    assert panel.entry_write.description == "Write back to .mcp.json"
    assert not panel.entry_write.disabled
    pending = entry_changes(m)
    panel.entry_write.click()
    assert "lfe-writeback-written" in panel.entry_result.value
    assert SECRET not in panel.entry_result.value
    code, _out, err = run_cli("export-env", "--client-config", twin, "--entry", "sheets",
                              *[w for k, v in pending[0].items() for w in ("--set", f"{k}={v}")],
                              "--in-place")
    assert code == 0, err
    # The same file, byte for byte, and the same backup of the one it replaced.
    assert path.read_bytes() == twin.read_bytes()
    assert path.with_name(".mcp.json.bak").read_bytes() == _config(layout).encode()
    assert twin.with_name(".mcp.json.bak").read_bytes() == _config(layout).encode()
    assert json.loads(path.read_text())["mcpServers"]["files"]["args"][1] == "/w"
    assert SECRET in path.read_text()  # the file itself keeps its secret
    # Written: nothing is pending, and a second write keeps the first backup.
    assert entry_changes(m) == ({}, [])
    assert panel.entry_write.disabled
    assert "No changes yet" in panel.entry_changes.value


def test_an_uploaded_config_is_handed_back_as_a_download(layout):
    app = Explorer(cwd=str(layout.app), debounce=0)
    picker = app.panel("server").client_config
    picker.load_text(".mcp.json", _config(layout))
    picker.entries.value = "sheets"
    picker.use.click()
    app.bar.mode.value = "off"
    panel = app.show("export")
    assert panel.entry_write.layout.display == "none"  # nothing of the server's to write
    assert "lfe-writeback-download-link" in panel.entry_download.value
    assert "Download the new .mcp.json" in panel.entry_download.value


def test_a_refused_entry_is_blocked_with_the_servers_reason(opened, layout):
    app, path, _twin = opened
    app.bar.add_root(str(layout.base / "gone"))
    panel = app.show("export")
    assert "lfe-writeback-blocked" in panel.entry_status.value
    assert panel.entry_write.disabled
    with pytest.raises(Exception, match="would not start"):
        write_back(app.model)
    assert path.read_text() == _config(layout)  # nothing written
    assert not path.with_name(".mcp.json.bak").exists()
    assert MASK not in path.read_text()
