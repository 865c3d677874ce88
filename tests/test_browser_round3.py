"""The dashboard's third round in a real browser: links and commands that stand on their
own, and client configs that round-trip in the page.

The fixtures (a served page, the system Chromium) are :mod:`test_browser`'s.
"""

# ruff: noqa: F811  (pytest fixtures imported from test_browser, used by name)
from __future__ import annotations

import pytest
from test_browser import (  # noqa: F401 - the fixtures are used by name
    PAGE_TIMEOUT_MS,
    SECRET,
    browser_page,
    open_page,
    playwright,
    serve,
    shot,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_share_link_opens_the_same_verdicts_in_a_new_tab(browser_page, tmp_path) -> None:
    from playwright.sync_api import expect

    page = browser_page
    base = tmp_path.resolve()
    app, data, outside = base / "app", base / "data", base / "outside"
    for d in (app, data, outside):
        d.mkdir()
    (outside / "payroll.csv").write_text("x\n")
    (data / "report.csv").write_text("a\n")
    (data / "escape.csv").symlink_to(outside / "payroll.csv")
    env = app / ".env"
    env.write_text(f"LOCAL_FILE_ACCESS=full\nCREDENTIALS_CONFIG={SECRET}\n")
    paths = [str(data / "report.csv"), str(data / "escape.csv"), str(outside / "payroll.csv")]
    with serve(tmp_path / "voila.log", "--env", str(env)) as url:
        open_page(page, url)
        # The sender limits the server in the bar: roots mode, the data directory.
        page.locator(".lfe-mode-select button", has_text="roots").click()
        page.fill(".lfe-root-input input", str(data))
        page.press(".lfe-root-input input", "Enter")
        expect(page.locator(".lfe-header")).to_contain_text("explicit (LOCAL_FILE_ACCESS=roots)")
        page.get_by_role("tab", name="Paths").click()
        page.fill(".lfe-paths-input textarea", "\n".join(paths))
        counts = "3 path(s): 1 allowed, 2 refused"
        expect(page.locator(".lfe-paths-counts")).to_contain_text(counts)
        page.click(".lfe-share-button")
        expect(page.locator(".lfe-share-token")).to_contain_text("localfs-explorer serve")
        link = page.locator(".lfe-share-link")
        assert SECRET not in (link.get_attribute("href") or "")
        with page.context.expect_page() as opened:
            link.click()
        tab = opened.value
        tab.set_default_timeout(30_000)
        tab.wait_for_selector(".lfe-serve-badge", timeout=PAGE_TIMEOUT_MS)
        expect(tab.locator(".lfe-link-missing")).to_contain_text("CREDENTIALS_CONFIG")
        expect(tab.locator(".lfe-header")).to_contain_text("explicit (LOCAL_FILE_ACCESS=roots)")
        expect(tab.locator(".lfe-root-chips")).to_contain_text(str(data))
        tab.get_by_role("tab", name="Paths").click()
        expect(tab.locator(".lfe-paths-counts")).to_contain_text(counts)
        expect(tab.locator(".lfe-verdicts tbody tr").first).to_contain_text("✘ REFUSED")
        # The recipient fills the secret the link named only.
        tab.fill(".lfe-link-secret input", "their-own-secret-value")
        tab.click(".lfe-link-secret-use")
        expect(tab.locator(".lfe-link-secret")).to_have_count(0)
        expect(tab.locator(".lfe-paths-counts")).to_contain_text(counts)
        shot(tab, "share-link-opened.png")
        assert SECRET not in tab.content()
        assert "their-own-secret-value" not in tab.content()


def test_a_client_config_entry_is_edited_and_written_back(browser_page, tmp_path) -> None:
    import json
    import shutil

    from conftest import run_cli
    from playwright.sync_api import expect

    page = browser_page
    base = tmp_path.resolve()
    data, extra = base / "data", base / "extra"
    for d in (data, extra):
        d.mkdir()
    (extra / "more.csv").write_text("x\n")
    config = base / "proj" / ".mcp.json"
    config.parent.mkdir()
    text = json.dumps({"mcpServers": {
        "sheets": {"command": "uvx", "args": ["mcp-gee-sweet@0.9.5"],
                   "env": {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(data),
                           "CREDENTIALS_CONFIG": SECRET}},
        "files": {"command": "npx", "args": ["@modelcontextprotocol/server-filesystem", "/w"]},
    }}, indent=2) + "\n"
    config.write_text(text)
    twin = base / "twin" / ".mcp.json"
    twin.parent.mkdir()
    shutil.copy(config, twin)
    with serve(tmp_path / "voila.log") as url:
        open_page(page, url)
        page.fill(".lfe-client-path input", str(config))
        page.press(".lfe-client-path input", "Enter")
        expect(page.locator(".lfe-client-listed")).to_contain_text("2 entries")
        page.click(".lfe-client-use")
        expect(page.locator(".lfe-client-provenance")).to_be_visible()
        # The bar shows the entry's own settings, and edits them.
        expect(page.locator(".lfe-header")).to_contain_text("explicit (LOCAL_FILE_ACCESS=roots)")
        expect(page.locator(".lfe-root-chips")).to_contain_text(str(data))
        expect(page.locator(".lfe-bar-note")).to_contain_text("entry sheets")
        page.fill(".lfe-root-input input", str(extra))
        page.press(".lfe-root-input input", "Enter")
        expect(page.locator(".lfe-root-chips")).to_contain_text(str(extra))
        page.get_by_role("tab", name="Paths").click()
        page.fill(".lfe-paths-input textarea", str(extra / "more.csv"))
        expect(page.locator(".lfe-paths-counts")).to_contain_text("1 allowed, 0 refused")

        page.get_by_role("tab", name="Export").click()
        expect(page.locator(".lfe-writeback-heading")).to_contain_text(
            f"Write back to {config}")
        expect(page.locator(".lfe-writeback-diff")).to_contain_text(str(extra))
        expect(page.locator(".lfe-writeback-diff")).not_to_contain_text(SECRET)
        page.click(".lfe-writeback-write")
        expect(page.locator(".lfe-writeback-written")).to_contain_text(
            f"previous version kept as {config}.bak")
        shot(page, "client-config-written-back.png")
        assert SECRET not in page.content()
    roots = f"{data}:{extra}"
    code, _out, err = run_cli("export-env", "--client-config", twin, "--entry", "sheets",
                              "--set", f"LOCAL_FILE_ROOTS={roots}", "--in-place")
    assert code == 0, err
    assert config.read_bytes() == twin.read_bytes()
    assert config.with_name(".mcp.json.bak").read_text() == text


def _before(page, selector: str) -> str:
    return page.locator(selector).first.evaluate(
        "(el) => getComputedStyle(el, '::before').content")


def test_commands_uploads_provenance_exit_and_keyboard(browser_page, tmp_path) -> None:
    import json
    import os
    import shlex
    import subprocess
    import sys

    from playwright.sync_api import expect

    page = browser_page
    base = tmp_path.resolve()
    data, outside = base / "data", base / "outside"
    for d in (data, outside):
        d.mkdir()
    (data / "report.csv").write_text("a\n")
    (outside / "payroll.csv").write_text("x\n")
    pasted = f"LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={data}\nCREDENTIALS_CONFIG={SECRET}\n"
    with serve(tmp_path / "voila.log") as url:
        open_page(page, url)
        # 4: the client-config upload button says what it takes (so do hangar's, Compare's).
        assert _before(page, ".lfe-client-upload") == '"Upload client config"'
        # 3: a pasted .env's command runs as shown and gives the page's verdicts.
        page.fill(".lfe-env-paste textarea", pasted)
        page.click(".lfe-env-paste-use")
        expect(page.locator(".lfe-header")).to_contain_text("explicit (LOCAL_FILE_ACCESS=roots)")
        # 7: Enter in the add-root box and on a chip's × keeps the focus in the box.
        box = page.locator(".lfe-root-input input")
        box.fill(str(outside))
        box.press("Enter")
        expect(page.locator(".lfe-root-chips")).to_contain_text(str(outside))
        page.wait_for_timeout(500)
        assert page.evaluate("document.activeElement.closest('.lfe-root-input') !== null")
        removes = page.locator(".lfe-root-chips .lfe-chip-remove")
        expect(removes).to_have_count(2)
        names = [removes.nth(i).get_attribute("aria-label") for i in range(2)]
        assert names == [f"remove {data}", f"remove {outside}"]
        removes.nth(1).focus()
        page.keyboard.press("Enter")
        expect(removes).to_have_count(1)
        page.wait_for_timeout(500)
        assert page.evaluate("document.activeElement.closest('.lfe-root-input') !== null")
        box.fill(str(outside))
        box.press("Enter")
        expect(removes).to_have_count(2)
        # 5: the bar's value is credited to the bar in What the server sees.
        expect(page.locator(".lfe-env-table")).to_contain_text("edit (policy bar)")
        page.get_by_role("tab", name="Paths").click()
        page.fill(".lfe-paths-input textarea",
                  "\n".join([str(data / "report.csv"), str(outside / "payroll.csv"),
                             str(base / "elsewhere.txt")]))
        expect(page.locator(".lfe-paths-counts")).to_contain_text("2 allowed, 1 refused")
        page.click(".lfe-share-button")
        command = page.locator(".lfe-share-command").inner_text()
        assert SECRET not in command and "--env -" in command
        env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}:{os.environ['PATH']}"}
        done = subprocess.run(["bash", "-c", command.replace(" --batch", " --batch --json")],
                              capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 1, done.stderr  # some refused
        assert done.stdout.count('"allowed": true') == 2, (shlex.quote(command), done.stdout)
        assert done.stdout.count('"allowed": false') == 1
        # 6: server-filesystem with a directory it can't access: WOULD EXIT in every tab.
        choice = page.locator(".lfe-bar-server select option",
                              has_text="server-filesystem").inner_text()
        page.select_option(".lfe-bar-server select", label=choice)
        page.fill(".lfe-server-settings .lfe-setting-input input", str(base / "gone"))
        page.press(".lfe-server-settings .lfe-setting-input input", "Enter")
        expect(page.locator(".lfe-header")).to_contain_text("✘ WOULD EXIT")
        expect(page.locator(".lfe-setting-directories")).to_contain_text(
            "✘ skipped: can't access it")
        expect(page.locator(".lfe-panel-paths .lfe-exit-banner")).to_contain_text(
            "✘ WOULD EXIT at startup")
        page.get_by_role("tab", name="Tool call").click()
        expect(page.locator(".lfe-panel-tool .lfe-exit-banner")).to_contain_text(
            "✘ WOULD EXIT at startup")
        page.get_by_role("tab", name="Hangar").click()
        assert _before(page, ".lfe-hangar-upload") == '"Upload YAML"'
        page.get_by_role("tab", name="Compare").click()
        assert _before(page, ".lfe-compare-env-upload") == '"Upload the other .env"'
        # 7: at 768 px the Batch grid fits: no column is cut at the window's edge.
        page.set_viewport_size({"width": 768, "height": 900})
        page.get_by_role("tab", name="Batch").click()
        calls = "\n".join(json.dumps({"name": "read_file", "arguments": {
            "path": f"{data}/a-long-directory-name/for-a-long-path/file-{i}.csv"}})
            for i in range(30))
        page.locator(".lfe-batch-paste textarea").evaluate(
            "(el, t) => { el.value = t; el.dispatchEvent(new Event('input', {bubbles: true})); }",
            calls)
        page.click(".lfe-batch-paste-run")
        expect(page.locator(".lfe-batch-calls tbody tr").first).to_contain_text("read_file")
        page.wait_for_timeout(500)
        fit = page.locator(".lfe-batch-calls table.dataTable").evaluate(
            "(t) => [t.getBoundingClientRect().right, "
            "t.closest('.lfe-batch-calls').getBoundingClientRect().right]")
        assert fit[0] <= fit[1] + 1, fit
        selects = page.locator(".dt-length select")
        assert selects.count() >= 1
        named = [selects.nth(i).evaluate(
            "(el) => el.getAttribute('aria-label') || Array.from(el.labels || [])"
            ".map((l) => l.offsetParent !== null ? l.textContent.trim() : '').join('')")
            for i in range(selects.count())]
        assert all(named), named
        shot(page, "round3-majors.png")
        assert SECRET not in page.content()


def test_a_grid_header_click_sorts_every_row(browser_page, tmp_path) -> None:
    from playwright.sync_api import expect

    page = browser_page
    base = tmp_path.resolve()
    env = base / ".env"
    (base / "data").mkdir()
    env.write_text(f"LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={base / 'data'}\n")
    # Refusals first by default: the refused path (line 3) opens the grid.
    paths = [str(base / "data" / f"f-{i}.csv") for i in range(2)] + ["/etc/hostname"]
    with serve(tmp_path / "voila.log", "--env", str(env)) as url:
        open_page(page, url)
        page.get_by_role("tab", name="Paths").click()
        page.fill(".lfe-paths-input textarea", "\n".join(paths))
        first = page.locator(".lfe-verdicts tbody tr").first.locator("td").first
        expect(first).to_have_text("3")
        header = page.locator(".lfe-verdicts thead th", has_text="#").first
        expect(header).to_have_attribute("aria-sort", "none")
        header.click()
        expect(first).to_have_text("1")
        expect(header).to_have_attribute("aria-sort", "ascending")
        header.focus()
        page.keyboard.press("Enter")  # the same column again: the other way round
        expect(first).to_have_text("3")
        expect(header).to_have_attribute("aria-sort", "descending")


def test_a_browser_preferring_dark_gets_the_dark_theme(playwright, tmp_path) -> None:
    from test_browser import CHROMIUM, CHROMIUM_ARGS

    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "chromium-profile"), executable_path=CHROMIUM, args=CHROMIUM_ARGS,
        headless=True, color_scheme="dark", viewport={"width": 1280, "height": 900})
    try:
        page = context.pages[0] if context.pages else context.new_page()
        with serve(tmp_path / "voila.log") as url:
            open_page(page, url)
            assert page.evaluate("document.body.dataset.jpThemeLight") == "false"
            assert "theme=dark" in page.url
            # A theme named in the address wins over the browser's preference.
            open_page(page, url + ("&" if "?" in url else "?") + "theme=light")
            assert page.evaluate("document.body.dataset.jpThemeLight") == "true"
    finally:
        context.close()
