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
        before = page.locator(f"{grid} .dt-info").inner_text()
        following.click()
        page.wait_for_function(
            "([sel, text]) => document.querySelector(sel).innerText !== text",
            arg=[f"{grid} .dt-info", before])


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
        # DataTables' controls stay once the rows are in: the page-length menu and pager.
        expect(page.locator(f"{grid} .dt-paging")).to_be_visible()
        expect(page.locator(f"{grid} .dt-info")).to_contain_text("of 1,000 entries")
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
