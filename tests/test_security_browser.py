"""The served page, attacked through a real browser.

``serve`` is started in exposed mode (``--host 0.0.0.0``: this machine's files are off
limits) and reached only through 127.0.0.1. The page must ask for the token, read no
file of the serving machine whatever is typed into it, and put no secret the kernel
holds into the page.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from test_browser import (  # noqa: F401 - the fixtures are used by name
    PAGE_TIMEOUT_MS,
    browser_page,
    playwright,
    serve,
    shot,
)

pytestmark = pytest.mark.browser

SECRET = "oauth-client-5f1c0a"
TOKEN_SECRET = "tok-preloaded-77e1"
MARKER = "MARKER_KEY_ONLY_IN_THE_FILE"


def _status(url: str) -> tuple[int, str]:
    """Status and final URL of a GET to a loopback URL (redirects followed)."""
    assert urllib.parse.urlsplit(url).hostname == "127.0.0.1"
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.geturl()
    except urllib.error.HTTPError as exc:
        return exc.code, url


def test_the_exposed_page_needs_its_token_and_leaks_nothing(browser_page,  # noqa: F811
                                                            tmp_path) -> None:
    from playwright.sync_api import expect

    env = tmp_path / "operator.env"
    env.write_text("LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS=/data\n"
                   f"CREDENTIALS_CONFIG={SECRET}\n")
    private = tmp_path / "private.json"
    private.write_text(json.dumps({"server": {MARKER: 1}}))
    options = ["--host", "0.0.0.0", "--env", str(env), "--fs", "traps",
               "--set", f"API_TOKEN={TOKEN_SECRET}"]
    page = browser_page
    with serve(tmp_path / "voila.log", *options) as url:
        bare = url.split("?", 1)[0]
        # Without the token (or with a wrong one): the login page, no page, no API.
        for path in ("", "api/kernels", "api/contents", "?token=wrong"):
            status, landed = _status(bare + path)
            assert status in (401, 403) or "/login" in landed, (path, status, landed)

        page.goto(url, timeout=PAGE_TIMEOUT_MS)
        page.wait_for_selector(".lfe-mode", timeout=PAGE_TIMEOUT_MS)
        expect(page.locator(".lfe-header")).to_contain_text("target example host traps")

        # The preloaded secret override: a password field that holds nothing.
        expect(page.locator(".lfe-override-value input").first).to_have_value("")

        # A JSON string typed into the access lists is content, not a path to read.
        page.get_by_role("tab", name="Tool call").click()
        page.get_by_text("Tool access lists", exact=True).click()
        page.fill(".lfe-tool-access textarea", json.dumps(str(private)))
        expect(page.locator(".lfe-call-verdict")).to_contain_text(
            "tool access lists: expected a JSON object, not str")

        # Same in the session box.
        page.get_by_role("tab", name="Session").click()
        page.fill(".lfe-session-text textarea", json.dumps(str(private)))
        page.click(".lfe-session-run")
        expect(page.locator(".lfe-session-status")).to_contain_text(
            "session: expected a JSON object or a JSON list, not str")

        # The operator's .env holds a secret: no download, and the page says why.
        page.get_by_role("tab", name="Export").click()
        page.click(".lfe-export-prepare")
        expect(page.locator(".lfe-export-download-refused")).to_contain_text(
            "holds secret values")
        expect(page.locator(".lfe-export-download-link")).to_have_count(0)
        shot(page, "exposed-export-refused.png")

        # Nothing secret anywhere in the page: its markup, and every field's value (a
        # password field's value is synced from the kernel but not in the markup).
        values = page.evaluate(
            "() => Array.from(document.querySelectorAll('input, textarea'))"
            ".map(e => e.value).join('\\n')")
        everything = page.content() + values
        for leak in (SECRET, TOKEN_SECRET, MARKER):
            assert leak not in everything, leak
        expect(page.locator(".lfe-error")).to_have_text("")
    log = Path(tmp_path / "voila.log").read_text(errors="replace")
    assert SECRET not in log and TOKEN_SECRET not in log
    token = url.split("?token=", 1)[1]
    assert log.count(token) == 1  # printed once, in the URL


HANGAR_SECRET = "wJalrXUtnFEMI-served-3a9c"


def test_the_exposed_hangar_panel_expands_nothing_from_the_serving_machine(
        browser_page, tmp_path, monkeypatch) -> None:  # noqa: F811
    """Pasted hangar YAML asking for the serving machine's secret gets nothing of it."""
    from playwright.sync_api import expect

    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", HANGAR_SECRET)  # the kernel inherits it
    yaml_text = ("mcp_servers:\n  gee:\n    command: [mcp-gee-sweet]\n    tools:\n"
                 "      deny_list: [\"${AWS_SECRET_ACCESS_KEY:-x}\"]\n"
                 "      approval_timeout_seconds: ${AWS_SECRET_ACCESS_KEY}\n")
    page = browser_page
    with serve(tmp_path / "voila.log", "--host", "0.0.0.0") as url:
        page.goto(url, timeout=PAGE_TIMEOUT_MS)
        page.wait_for_selector(".lfe-mode", timeout=PAGE_TIMEOUT_MS)
        page.get_by_role("tab", name="Hangar").click()
        page.fill(".lfe-hangar-text textarea", yaml_text)
        page.locator(".lfe-hangar-text textarea").blur()
        status = page.locator(".lfe-hangar-status")
        expect(status).to_contain_text("${AWS_SECRET_ACCESS_KEY} is not set")
        expect(status).to_contain_text(
            "This page expands nothing from the serving machine's environment")
        shot(page, "exposed-hangar-expands-nothing.png")
        values = page.evaluate(
            "() => Array.from(document.querySelectorAll('input, textarea'))"
            ".map(e => e.value).join('\\n')")
        assert HANGAR_SECRET not in page.content() + values
