"""The dashboard's second round in a real browser: every row reachable, every command
reproducing its row, and the page usable by keyboard and screen reader.

The fixtures (a served page, the system Chromium) are :mod:`test_browser`'s.
"""

# ruff: noqa: F811  (pytest fixtures imported from test_browser, used by name)
from __future__ import annotations

import pytest
from test_browser import (  # noqa: F401 - the fixtures are used by name
    SECRET,
    browser_page,
    deployment,
    open_page,
    playwright,
    serve,
    shot,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def paste(locator, text: str) -> None:
    """Put ``text`` into a text box at once, as a paste does (one input event)."""
    locator.evaluate("(el, text) => { el.focus(); el.value = text; "
                     "el.dispatchEvent(new Event('input', {bubbles: true})); }", text)


def _numbers(page, grid: str) -> list[int]:
    """The ``#`` cells of the rows the grid's current page shows."""
    return [int(t) for t in page.locator(f"{grid} tbody tr td:first-child").all_inner_texts()]


def _page_through(page, grid: str) -> list[int]:
    """Every ``#`` of the window, collected by clicking DataTables' own "next" page."""
    seen: list[int] = []
    following = page.locator(f"{grid} .dt-paging-button.next")
    while True:
        seen += _numbers(page, grid)
        if "disabled" in (following.get_attribute("class") or ""):
            return seen
        first = f"{grid} tbody tr td:first-child"
        before = page.locator(first).first.inner_text()
        following.click()
        page.wait_for_function(
            "([sel, text]) => document.querySelector(sel).innerText !== text",
            arg=[first, before])


def test_every_row_of_every_window_is_reachable(browser_page, deployment, tmp_path) -> None:
    from playwright.sync_api import expect

    page = browser_page
    data, outside = deployment["data"], deployment["outside"]
    # 2,400 paths: refusals spread through them, so "refusals first" reorders the rows.
    lines = [str((outside if i % 97 == 0 else data) / f"f-{i}.csv") for i in range(2400)]
    refused = [i + 1 for i in range(2400) if i % 97 == 0]
    order = refused + [i + 1 for i in range(2400) if i % 97]
    with serve(tmp_path / "voila.log", "--env", str(deployment["env"])) as url:
        open_page(page, url)
        page.get_by_role("tab", name="Paths").click()
        area = page.locator(".lfe-paths-input textarea")
        expect(area).to_be_editable(timeout=60_000)
        paste(area, "\n".join(lines))
        grid = ".lfe-grid-paths"
        expect(page.locator(f"{grid} .lfe-grid-count")).to_contain_text("rows 1–1000 of 2400")
        # DataTables' controls stay once the rows are in: the page-length menu and pager;
        # its count of the window doesn't (the grid's count line above is the one).
        expect(page.locator(f"{grid} .dt-paging")).to_be_visible()
        expect(page.locator(f"{grid} .dt-info")).to_have_count(0)
        page.select_option(f"{grid} .dt-length select", "100")
        expect(page.locator(f"{grid} tbody tr")).to_have_count(100)
        assert _page_through(page, grid) == order[:1000]
        # The kernel's window moves on: the next 1000 rows, paged the same way.
        page.click(f"{grid} .lfe-grid-next")
        expect(page.locator(f"{grid} .lfe-grid-count")).to_contain_text(
            "rows 1001–2000 of 2400")
        expect(page.locator(f"{grid} tbody tr td:first-child").first).to_have_text(
            str(order[1000]))
        page.select_option(f"{grid} .dt-length select", "500")
        assert _page_through(page, grid) == order[1000:2000]
        page.click(f"{grid} .lfe-grid-next")
        expect(page.locator(f"{grid} tbody tr td:first-child").first).to_have_text(
            str(order[2000]))
        page.select_option(f"{grid} .dt-length select", "1000")
        expect(page.locator(f"{grid} tbody tr")).to_have_count(400)
        assert _numbers(page, grid) == order[2000:]
        # A row on a later page of a window opens its own detail.
        page.click(f"{grid} .lfe-grid-previous")
        expect(page.locator(f"{grid} tbody tr td:first-child").first).to_have_text(
            str(order[1000]))
        page.select_option(f"{grid} .dt-length select", "100")
        page.click(f"{grid} .dt-paging-button.last")
        last = page.locator(f"{grid} tbody tr").last
        expect(last).to_contain_text(str(order[1999]))
        last.click()
        expect(page.locator(".lfe-path-detail")).to_contain_text(f"f-{order[1999] - 1}.csv")
        shot(page, "grid-every-row.png")
        expect(page.locator(".lfe-error")).to_have_text("")


#: The inputs of the page (visible ones) that have no accessible name of their own: a
#: placeholder alone doesn't count, it disappears once something is typed.
UNNAMED = """
() => Array.from(document.querySelectorAll('.lfe-app input, .lfe-app textarea, .lfe-app select'))
  .filter((el) => el.type !== 'hidden' && el.type !== 'file' && el.offsetParent !== null)
  .filter((el) => {
    if ((el.getAttribute('aria-label') || '').trim()) return false;
    if (el.getAttribute('aria-labelledby')) return false;
    const label = el.id && document.querySelector('label[for="' + CSS.escape(el.id) + '"]');
    if (label && label.textContent.trim()) return false;
    if (el.closest('label') && el.closest('label').textContent.trim()) return false;
    return true;
  })
  .map((el) => el.outerHTML.slice(0, 160))
"""

FOCUSED = "() => { const a = document.activeElement; return a ? a.outerHTML.slice(0, 200) : ''; }"


def _tab_until(page, selector: str, most: int = 12) -> int:
    """Press Tab until the focused element matches ``selector``; how many presses it took."""
    for presses in range(1, most + 1):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return presses
    raise AssertionError(f"{selector} not reached by Tab; focus is on {page.evaluate(FOCUSED)}")


def test_the_page_by_keyboard_and_screen_reader(browser_page, deployment, tmp_path) -> None:
    from playwright.sync_api import expect

    page = browser_page
    data, outside = deployment["data"], deployment["outside"]
    with serve(tmp_path / "voila.log", "--env", str(deployment["env"])) as url:
        open_page(page, url)
        expect(page).to_have_title("Local-file access explorer")
        # Headings to move by: the page's, the bar's, and one per tab opened.
        assert page.locator(".lfe-app h1").count() == 1
        expect(page.locator(".lfe-app h2", has_text="Would the server start?")).to_have_count(1)
        # At 768 px every tab says its whole name (the strip wraps instead of cutting).
        page.set_viewport_size({"width": 768, "height": 900})
        page.wait_for_timeout(300)
        cut = page.evaluate("""() => Array.from(document.querySelectorAll(
            '.lfe-tabs .lm-TabBar-tabLabel')).filter((e) => e.scrollWidth > e.clientWidth + 1)
            .map((e) => e.textContent)""")
        assert cut == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 768
        page.set_viewport_size({"width": 1280, "height": 900})
        # Every tab's inputs have a name a screen reader can say.
        tabs = page.get_by_role("tab")
        for i in range(tabs.count()):
            tab = tabs.nth(i)
            name = tab.inner_text()
            tab.click()
            expect(page.locator(".lfe-app h2", has_text=name).first).to_be_attached(
                timeout=30_000)
            page.wait_for_timeout(300)  # the labelling runs on the next animation frame
            assert page.evaluate(UNNAMED) == [], name
        # Toggles say whether they are pressed.
        modes = page.locator(".lfe-mode-select .widget-toggle-button")
        expect(page.locator(".lfe-mode-select [aria-pressed=true]")).to_have_text("roots")
        assert modes.count() == 4
        expect(page.locator(".lfe-mode-select [aria-pressed=false]")).to_have_count(3)
        # The live region says when the verdict turns.
        live = page.locator(".lfe-live[role=status][aria-live=polite]")
        expect(live).to_have_text("Would start: the server serves with this configuration.")
        page.fill(".lfe-root-input input", str(deployment["base"] / "gone"))
        page.press(".lfe-root-input input", "Enter")
        expect(live).to_contain_text("Would exit at startup:")
        expect(live).to_contain_text("isn't an existing directory")
        page.locator(".lfe-chip-remove").nth(1).click()
        expect(live).to_contain_text("Would start")
        page.locator(".lfe-mode-select button", has_text="full").click()
        expect(page.locator(".lfe-mode-select [aria-pressed=true]")).to_have_text("full")
        page.locator(".lfe-mode-select button", has_text="roots").click()

        # Into the grid by Tab, through its rows by arrows, opened by Enter.
        page.get_by_role("tab", name="Paths").click()
        paths = [str(outside / "payroll.csv"), str(data / "report.csv"), str(data / "b.csv")]
        page.fill(".lfe-paths-input textarea", "\n".join(paths))
        rows = page.locator(".lfe-verdicts tbody tr")
        expect(rows).to_have_count(3)
        expect(rows.first).to_have_attribute("tabindex", "0")
        expect(rows.nth(1)).to_have_attribute("tabindex", "-1")
        page.focus(".lfe-grid-paths .lfe-grid-search input")
        _tab_until(page, ".lfe-verdicts tbody tr")
        assert page.evaluate("document.activeElement.rowIndex") == 1  # the first row
        page.keyboard.press("ArrowDown")
        assert page.evaluate("document.activeElement.rowIndex") == 2
        expect(rows.nth(1)).to_have_attribute("tabindex", "0")
        page.keyboard.press("Enter")
        detail = page.locator(".lfe-path-detail")
        expect(detail).to_contain_text("Allowed: the I/O happens on")
        expect(detail).to_contain_text("Trace")
        expect(rows.nth(1)).to_have_attribute("aria-selected", "true")
        page.keyboard.press("ArrowUp")
        page.keyboard.press(" ")
        expect(detail).to_contain_text("The model sees:")
        expect(detail).to_contain_text("Hint:")
        # Then Copy, Pin, and the detail itself (trace and hint), each by keyboard.
        _tab_until(page, ".lfe-grid-paths .lfe-grid-cli")
        page.keyboard.press("Enter")
        expect(page.locator(".lfe-grid-paths .lfe-cli-command")).to_contain_text(
            "localfs-explorer check")
        _tab_until(page, ".lfe-grid-paths .lfe-grid-pin")
        page.keyboard.press("Enter")
        expect(page.locator(".lfe-grid-paths .lfe-grid-pin-note")).to_contain_text(
            "Pinned: 1 scenario(s)")
        _tab_until(page, ".lfe-grid-paths .lfe-copy")  # the command's own copy button
        _tab_until(page, ".lfe-path-detail[role=region]")
        assert page.locator(".lfe-path-detail").get_attribute("tabindex") == "0"
        # The focus can be seen: a 2 px ring.
        ring = page.evaluate("getComputedStyle(document.activeElement).outlineWidth")
        assert ring == "2px", ring
        shot(page, "keyboard-grid.png")
        assert SECRET not in page.content()
        expect(page.locator(".lfe-error")).to_have_text("")
