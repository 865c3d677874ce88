"""The Session tab's shadow mode: a log and a client config uploaded, the grid filled with
the rows ``shadow`` prints, disagreements first; errors shown in the page."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from ui_support import text_of, upload_value

from localfs_explorer.ui import Explorer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FS_PACKAGE = "@modelcontextprotocol/server-filesystem@2026.8.31"


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, bytes, bytes]:
    root = Path(os.path.realpath(tmp_path))
    (root / "data").mkdir()
    (root / "data" / "a.txt").write_text("alpha", encoding="utf-8")
    data, secret = f"{root}/data", f"{root}/outside/s.txt"
    config = json.dumps({"mcpServers": {"files": {
        "command": "npx", "args": ["-y", FS_PACKAGE, data],
        "env": {"API_TOKEN": "tok-77aa1b2c3d"}}}}).encode()
    lines = []
    calls = [
        ("read_text_file", {"path": f"{data}/a.txt"}, False, "alpha"),
        # A stale list: the server refuses a path of the configured directory.
        ("read_text_file", {"path": f"{data}/a.txt"}, True,
         f"Access denied - path outside allowed directories: {data}/a.txt not in {root}/old"),
        ("read_text_file", {"path": secret}, True,
         f"Access denied - path outside allowed directories: {secret} not in {data}"),
    ]
    for i, (tool, arguments, is_error, text) in enumerate(calls):
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{i}", "name": f"mcp__files__{tool}",
             "input": arguments}]}})
        lines.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "content": text,
             "is_error": is_error}]}})
    log = "".join(json.dumps(line) + "\n" for line in lines).encode()
    return root, log, config


def test_shadow_mode_fills_the_grid_disagreements_first(setup, tmp_path: Path) -> None:
    root, log, config = setup
    app = Explorer(cwd=str(root), debounce=0)
    session = app.show("session")
    session.mode.value = "shadow"
    assert session.replay_box.layout.display == "none" and session.shadow_box.layout.display == ""
    assert "Upload a log" in text_of(session.status.value)
    session.log_upload.value = upload_value("session.jsonl", log)
    session.config_upload.value = upload_value(".mcp.json", config)
    frame = session.grid.frame
    assert list(frame["verdict"]) == ["✘ DISAGREES", "✔ agrees", "✔ agrees"]
    assert list(frame["#"]) == [2, 1, 3]
    assert "the server enforced" in frame["why"].iloc[0]
    summary = text_of(session.summary.value)
    assert "3 call(s): 2 agree, 1 disagree, 0 not predicted" in summary
    session.grid.select(0)
    detail = text_of(session.grid.detail.value)
    assert f"directories the server enforced {root}/old" in detail
    assert f"directories the config has {root}/data" in detail
    assert session.grid.show_command() == (
        "localfs-explorer shadow session.jsonl --client-config .mcp.json")
    assert "verifies the whole log" in text_of(session.grid.command_view.value)
    session.shadow_entry.value = "files"  # verified again: the same rows
    assert list(session.grid.frame["#"]) == [2, 1, 3]
    session.grid.select(0)
    assert session.grid.show_command().endswith("--entry files")
    session.grid.pin_selected()
    assert "not pinned as a scenario" in text_of(session.grid.pin_note.value)
    # The Explorer's own configuration doesn't enter a verification: editing it leaves
    # the rows as they are; the Verify button runs it again.
    shown = session.shadow_rows
    app.model.transport = "sse"
    session.refresh()
    assert session.shadow_rows is shown
    session.shadow_run.click()
    assert session.shadow_rows is not shown and len(session.shadow_rows) == 3
    # The entry's secret never reaches the page, and the replay's table comes back.
    assert "tok-77aa1b2c3d" not in session.summary.value + session.grid.detail.value
    session.mode.value = "replay"
    assert session.shadow_box.layout.display == "none"
    assert "verdict" in session.grid.frame.columns and "why" not in session.grid.frame.columns


def test_shadow_mode_errors_are_shown_in_the_page(setup) -> None:
    root, _log, config = setup
    app = Explorer(cwd=str(root), debounce=0)
    session = app.show("session")
    session.mode.value = "shadow"
    session.config_upload.value = upload_value(".mcp.json", config)
    session.log_upload.value = upload_value("notes.txt", b"just words\n")
    assert "not a log this command reads" in text_of(session.status.value)
    assert session.grid.frame.empty
    session.config_upload.value = upload_value(".mcp.json", b"{not json")
    assert ".mcp.json" in text_of(session.status.value)
    assert session.grid.frame.empty
