"""The Session tab's shadow mode in a real browser: upload a transcript and the client
config it ran with, see the disagreement first in the results grid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_browser import (  # noqa: F401
    browser_page,
    open_page,
    playwright,
    serve,
    shot,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FS_PACKAGE = "@modelcontextprotocol/server-filesystem@2026.8.31"


def test_a_recorded_session_verified_in_the_browser(browser_page, tmp_path: Path  # noqa: F811
                                                    ) -> None:
    from playwright.sync_api import expect

    root = tmp_path.resolve()
    data = root / "data"
    data.mkdir()
    (data / "a.txt").write_text("alpha", encoding="utf-8")
    config = root / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"files": {
        "command": "npx", "args": ["-y", FS_PACKAGE, str(data)]}}}), encoding="utf-8")
    stale = (f"Access denied - path outside allowed directories: {data}/a.txt not in "
             f"{root}/old")
    lines = []
    for i, (is_error, text) in enumerate([(False, "alpha"), (True, stale)]):
        lines.append({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": f"t{i}", "name": "mcp__files__read_text_file",
             "input": {"path": f"{data}/a.txt"}}]}})
        lines.append({"type": "user", "message": {"content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "content": text,
             "is_error": is_error}]}})
    log = root / "session.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    page = browser_page
    with serve(tmp_path / "voila.log") as url:
        open_page(page, url)
        page.get_by_role("tab", name="Session").click()
        page.locator(".lfe-session-mode button", has_text="Shadow-verify").click()
        # Each upload button says what it takes (the widget's own words are hidden).
        for button, words in ((".lfe-shadow-log", "Upload log"),
                              (".lfe-shadow-config", "Upload client config")):
            assert page.locator(button).evaluate(
                "(el) => getComputedStyle(el, '::before').content") == f'"{words}"'
        # The upload button opens the browser's file chooser (its input isn't in the page).
        for button, path in ((".lfe-shadow-log", log), (".lfe-shadow-config", config)):
            with page.expect_file_chooser() as chooser:
                page.locator(button).click()
            chooser.value.set_files(str(path))
        rows = page.locator(".lfe-session-table tbody tr")
        expect(rows.first).to_contain_text("✘ DISAGREES")
        expect(rows.nth(1)).to_contain_text("✔ agrees")
        expect(page.locator(".lfe-session-summary")).to_contain_text(
            "2 call(s): 1 agree, 1 disagree")
        rows.first.click()
        expect(page.locator(".lfe-shadow-detail")).to_contain_text(f"{root}/old")
        shot(page, "shadow.png")
        expect(page.locator(".lfe-error")).to_have_text("")
