"""The dashboard in a real browser: `serve` starts Voila, headless Chromium drives the page.

Chromium is the system's (``LOCALFS_EXPLORER_CHROMIUM``, default ``/usr/bin/chromium``);
Playwright's own browser download isn't used. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import stop_process_group

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("LOCALFS_EXPLORER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
SECRET = "oauth-client-9d2e7b"
#: Voila starts a kernel and executes the notebook before the page is interactive.
PAGE_TIMEOUT_MS = 120_000
STEP_TIMEOUT_MS = 30_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_listening(url: str, proc: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode}")
        try:
            # Not the page itself: loading it would start a kernel just to check.
            with urllib.request.urlopen(url + "api/kernelspecs", timeout=2):
                return
        except urllib.error.HTTPError:
            return  # any HTTP answer means the server is up
        except (urllib.error.URLError, OSError):
            time.sleep(0.3)
    raise RuntimeError(f"nothing listening at {url} after {timeout:.0f}s")


def printed_url(log: Path, proc: subprocess.Popen, timeout: float = 30) -> str:
    """The URL ``serve`` printed (with its token), read from its output."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = re.search(r"dashboard: (http://\S+)", log.read_text(errors="replace"))
        if match:
            return match.group(1)
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode}")
        time.sleep(0.1)
    raise RuntimeError("serve printed no URL")


@contextlib.contextmanager
def serve(log: Path, *options: str, procs: list | None = None) -> Iterator[str]:
    """Run the real ``serve`` command on a free loopback port; stop it whatever happens.

    Yields the URL ``serve`` printed, token included. With ``--host``, the server is
    still reached through 127.0.0.1 only. ``procs``, when given, receives the server's
    process (to stop it early).
    """
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("LOCALFS_EXPLORER_HOST_FS", "LOCALFS_EXPLORER_PRELOAD")}
    with log.open("w") as out:
        # Its own process group, so that Voila and the kernels it starts stop together.
        proc = subprocess.Popen(
            [sys.executable, "-m", "localfs_explorer.cli.serve", "--port", str(port),
             "--no-browser", *options],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
        if procs is not None:
            procs.append(proc)
        try:
            url = printed_url(log, proc)
            assert url.startswith(f"http://127.0.0.1:{port}/")
            wait_until_listening(f"http://127.0.0.1:{port}/", proc)
            yield url
        finally:
            stop_process_group(proc)


@pytest.fixture(scope="module")
def playwright():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.skip(f"no Chromium at {CHROMIUM} (install Debian's chromium, or set "
                    "LOCALFS_EXPLORER_CHROMIUM to a Chromium executable)")
    pytest.importorskip("voila")
    with sync_api.sync_playwright() as p:
        yield p


@pytest.fixture
def browser_page(playwright, tmp_path):
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "chromium-profile"),  # a fresh profile every time
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True,
        viewport={"width": 1280, "height": 900},
    )
    try:
        page = context.pages[0] if context.pages else context.new_page()
        page.set_default_timeout(STEP_TIMEOUT_MS)
        yield page
    finally:
        context.close()


@pytest.fixture
def deployment(tmp_path) -> dict[str, Path]:
    """A server deployment: its .env in roots mode, a data root and a file outside it."""
    base = tmp_path.resolve()
    app, data, outside = base / "app", base / "data", base / "outside"
    for d in (app, data, outside):
        d.mkdir()
    (data / "report.csv").write_text("a,b\n")
    (outside / "payroll.csv").write_text("x\n")
    env = app / ".env"
    env.write_text(
        "# deployed settings\n"
        "LOCAL_FILE_ACCESS=roots\n"
        f"LOCAL_FILE_ROOTS={data}\n"
        f"CREDENTIALS_CONFIG={SECRET}\n"
    )
    return {"env": env, "data": data, "outside": outside, "base": base}


def shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    return path


#: WCAG 2 contrast ratio of an element's text against what is behind it, computed from
#: the page's styles: translucent backgrounds are blended down to the first opaque one.
CONTRAST = """
(el) => {
  const parse = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    const p = m[1].split(',').map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const layers = [];
  for (let n = el; n; n = n.parentElement) {
    const c = parse(getComputedStyle(n).backgroundColor);
    if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
  }
  let bg = [255, 255, 255];
  for (let i = layers.length - 1; i >= 0; i--) {
    const c = layers[i];
    bg = [0, 1, 2].map((k) => c[k] * c[3] + bg[k] * (1 - c[3]));
  }
  const f = parse(getComputedStyle(el).color);
  const fg = [0, 1, 2].map((k) => f[k] * f[3] + bg[k] * (1 - f[3]));
  const lum = (c) => {
    const s = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92
                                                  : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * s[0] + 0.7152 * s[1] + 0.0722 * s[2];
  };
  const a = lum(fg), b = lum(bg);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}
"""


def off_machine(urls: list[str]) -> list[str]:
    """The requested URLs that would leave this machine (page-local blob:/data: stay)."""
    local = ("http://127.0.0.1:", "ws://127.0.0.1:", "blob:", "data:", "about:")
    return [u for u in urls if not u.startswith(local)]


def open_page(page, url: str, requests: list[str] | None = None) -> None:
    if requests is not None:
        page.on("request", lambda r: requests.append(r.url))
    page.goto(url, timeout=PAGE_TIMEOUT_MS)
    page.wait_for_selector(".lfe-serve-badge", timeout=PAGE_TIMEOUT_MS)


def test_first_run_is_offline_titled_and_guided(browser_page, tmp_path) -> None:
    from playwright.sync_api import expect

    page = browser_page
    requests: list[str] = []
    with serve(tmp_path / "voila.log") as url:
        open_page(page, url, requests)
        expect(page.locator(".lfe-title")).to_have_text("Local-file access explorer")
        expect(page.locator(".lfe-steps")).to_contain_text("1 · load a .env")
        expect(page.locator(".lfe-header")).to_contain_text("WOULD START")
        assert page.locator('[title="null"]').count() == 0
        # The upload button shows its own words; the widget's "(0)" count is not drawn.
        assert page.locator(".lfe-env-upload").evaluate(
            "e => [getComputedStyle(e).fontSize, getComputedStyle(e, '::before').content]"
        ) == ["0px", '"Upload .env"']
        page.get_by_role("tab", name="Tool call").click()
        expect(page.locator(".lfe-panel-tool")).to_contain_text("upload_local_file")
        page.click(".lfe-try-traps")
        first = page.locator(".lfe-verdicts tbody tr").first
        expect(first).to_contain_text("✘ REFUSED")
        expect(page.locator(".lfe-header")).to_contain_text("target example host traps")
        expect(page.locator(".lfe-steps")).to_contain_text("✔ 2 · probe paths and calls")
        shot(page, "first-run-light.png")
        expect(page.locator(".lfe-error")).to_have_text("")
        # Usable at 768 px: nothing sticks out sideways, the grid and the bar still show.
        page.set_viewport_size({"width": 768, "height": 900})
        page.wait_for_timeout(300)
        assert page.evaluate("document.documentElement.scrollWidth") <= 768
        expect(page.locator(".lfe-verdicts tbody tr").first).to_be_visible()
        expect(page.locator(".lfe-mode-select")).to_be_visible()
        shot(page, "first-run-768.png")
    assert requests and off_machine(requests) == []


def test_a_refusal_at_row_401_is_shown_first_and_opens(browser_page, deployment,
                                                        tmp_path) -> None:
    from playwright.sync_api import expect

    page = browser_page
    data, outside = deployment["data"], deployment["outside"]
    with serve(tmp_path / "voila.log", "--env", str(deployment["env"])) as url:
        open_page(page, url)
        expect(page.locator(".lfe-header")).to_contain_text("explicit (LOCAL_FILE_ACCESS=roots)")
        page.get_by_role("tab", name="Paths").click()
        lines = [str(data / f"file-{i}.csv") for i in range(400)]
        page.fill(".lfe-paths-input textarea", "\n".join([*lines, str(outside / "payroll.csv")]))
        expect(page.locator(".lfe-paths-counts")).to_contain_text(
            "401 path(s): 400 allowed, 1 refused")
        first = page.locator(".lfe-verdicts tbody tr").first
        expect(first).to_contain_text("401")
        expect(first).to_contain_text("✘ REFUSED")
        expect(first).to_contain_text(f"{outside / 'payroll.csv'} is outside this server's "
                                      f"LOCAL_FILE_ROOTS. Allowed directories: {data}")
        first.click()
        expect(page.locator(".lfe-path-detail")).to_contain_text(
            f"Add {outside} to LOCAL_FILE_ROOTS")
        page.click(".lfe-grid-paths .lfe-grid-cli")
        expect(page.locator(".lfe-grid-paths .lfe-cli-command")).to_contain_text(
            "localfs-explorer check")
        # A filter: only the allowed rows.
        page.select_option(".lfe-grid-paths .lfe-filter-verdict select", label="✔ ALLOWED")
        expect(page.locator(".lfe-grid-paths .lfe-grid-count")).to_contain_text(
            "400 of 401 row(s) shown")
        expect(page.locator(".lfe-verdicts tbody tr").first).to_contain_text("✔ ALLOWED")
        shot(page, "paths-401.png")
        assert SECRET not in page.content()
        expect(page.locator(".lfe-error")).to_have_text("")


def test_policy_bar_edit_and_export_writes_where_the_page_said(browser_page, deployment,
                                                              tmp_path) -> None:
    from playwright.sync_api import expect

    page = browser_page
    env = deployment["env"]
    with serve(tmp_path / "voila.log", "--env", str(env)) as url:
        open_page(page, url)
        expect(page.locator(".lfe-root-chips")).to_contain_text("✔ exists")
        page.fill(".lfe-root-input input", str(deployment["base"] / "gone"))
        page.press(".lfe-root-input input", "Enter")
        expect(page.locator(".lfe-header")).to_contain_text("✘ WOULD EXIT")
        expect(page.locator(".lfe-header")).to_contain_text("isn't an existing directory")
        page.locator(".lfe-chip-remove").nth(1).click()
        expect(page.locator(".lfe-header")).to_contain_text("✔ WOULD START")
        page.locator(".lfe-mode-select button", has_text="full").click()
        expect(page.locator(".lfe-header")).to_contain_text("explicit (LOCAL_FILE_ACCESS=full)")

        page.get_by_role("tab", name="Export").click()
        expect(page.locator(".lfe-export-changes")).to_contain_text(
            "LOCAL_FILE_ACCESS → .env (policy bar)")
        diff = page.locator(".lfe-export-diff").first
        expect(diff).to_contain_text("+LOCAL_FILE_ACCESS=full")
        expect(diff).to_contain_text("CREDENTIALS_CONFIG=••••••")
        wanted = env.parent / ".env.new"
        expect(page.locator(".lfe-export-dest input")).to_have_value(str(wanted))
        expect(page.locator(".lfe-export-dest-info")).to_contain_text(f"Writes {wanted}")
        page.fill(".lfe-export-dest input", "staged/../prod.env")
        page.press(".lfe-export-dest input", "Tab")
        said = env.parent / "prod.env"
        info = page.locator(".lfe-export-dest-info")
        expect(info).to_contain_text(f"Writes {said}")
        expect(info).to_contain_text("taken against the loaded .env's directory")
        page.click(".lfe-export-write")
        expect(page.locator(".lfe-export-result")).to_contain_text(f"wrote {said}")
        assert "LOCAL_FILE_ACCESS=full" in said.read_text()
        assert SECRET in said.read_text()  # the file itself keeps the secret
        expect(page.locator(".lfe-steps")).to_contain_text("✔ 3 · export the .env")
        shot(page, "export-panel.png")
        assert SECRET not in page.content()


def test_dark_theme_is_readable(browser_page, deployment, tmp_path) -> None:
    from playwright.sync_api import expect

    page = browser_page
    with serve(tmp_path / "voila.log", "--env", str(deployment["env"])) as url:
        open_page(page, url + ("&" if "?" in url else "?") + "theme=dark")
        assert page.evaluate("document.body.dataset.jpThemeLight") == "false"
        page.get_by_role("tab", name="Paths").click()
        page.fill(".lfe-paths-input textarea",
                  f"{deployment['outside'] / 'payroll.csv'}\n{deployment['data'] / 'report.csv'}")
        verdict = page.locator(".lfe-verdicts tbody tr").first.locator("td").nth(1)
        expect(verdict).to_have_text("✘ REFUSED")
        page.locator(".lfe-verdicts tbody tr").first.click()
        shot(page, "dark-paths.png")
        ratios = {
            "verdict cell": verdict.evaluate(CONTRAST),
            "selected row": page.locator(".lfe-verdicts tbody tr.selected td").nth(4)
            .evaluate(CONTRAST),
            "start badge": page.locator(".lfe-big").evaluate(CONTRAST),
            "mode line": page.locator(".lfe-mode-line").evaluate(CONTRAST),
            "refusal box": page.locator(".lfe-path-detail .lfe-box-error").evaluate(CONTRAST),
        }
        page.locator(".lfe-mode-select button", has_text="full").click()
        page.get_by_role("tab", name="Export").click()
        diff = page.locator(".lfe-export-diff").first
        expect(diff).to_contain_text("CREDENTIALS_CONFIG=••••••")
        ratios["masked diff line"] = diff.evaluate(CONTRAST)  # a context line: the pre's text
        ratios["added diff line"] = diff.locator(".lfe-diff-add").first.evaluate(CONTRAST)
        ratios["ok box"] = page.locator(".lfe-export-ok").evaluate(CONTRAST)
        shot(page, "dark-export.png")
        low = {k: round(v, 2) for k, v in ratios.items() if v < 4.5}
        assert low == {}, f"below WCAG AA (4.5:1) in the dark theme: {low}"


def test_a_3000_call_batch_and_a_session_in_the_browser(browser_page, deployment,
                                                        tmp_path) -> None:
    import json

    from playwright.sync_api import expect

    page = browser_page
    data, outside = deployment["data"], deployment["outside"]
    calls = tmp_path / "calls.jsonl"
    for i in range(2998):  # the server reads what it uploads: the files exist
        (data / f"{i}.csv").write_text("x")
    lines = [{"name": "upload_local_file",
              "arguments": {"local_path": str(data / f"{i}.csv"), "parent_folder_id": "F"}}
             for i in range(2998)]
    lines.append({"name": "no_such_tool", "arguments": {"local_path": str(data / "x.csv")}})
    lines.append({"name": "upload_local_file",
                  "arguments": {"local_path": str(outside / "payroll.csv"),
                                "parent_folder_id": "F"}})
    calls.write_text("\n".join(json.dumps(c) for c in lines) + "\n")
    with serve(tmp_path / "voila.log", "--env", str(deployment["env"])) as url:
        open_page(page, url)
        page.get_by_role("tab", name="Batch").click()
        page.fill(".lfe-batch-path input", str(calls))
        page.click(".lfe-batch-load")
        expect(page.locator(".lfe-batch-progress-label")).to_contain_text(
            "3000 / 3000 calls, done")
        rows = page.locator(".lfe-batch-calls tbody tr")
        expect(rows.nth(0)).to_contain_text("✘ REFUSED")  # call 3000, shown first
        expect(rows.nth(0)).to_contain_text("3000")
        expect(rows.nth(1)).to_contain_text("? UNKNOWN TOOL")
        rows.nth(0).click()
        expect(page.locator(".lfe-call-detail")).to_contain_text("outside roots")
        page.click(".lfe-grid-batch .lfe-grid-cli")
        expect(page.locator(".lfe-grid-batch .lfe-cli-command")).to_contain_text(
            "localfs-explorer probe")

        page.get_by_role("tab", name="Session").click()
        page.click(".lfe-session-example")
        session_rows = page.locator(".lfe-session-table tbody tr")
        # Approved by the person, then the file policy answers (roots mode: outside).
        expect(session_rows.first).to_contain_text("✔ approved")
        expect(session_rows.first).to_contain_text("✘ REFUSED")
        expect(page.locator(".lfe-session-summary")).to_contain_text("2 prompt(s)")
        page.locator(".lfe-session-answers button", has_text="Deny").click()
        expect(session_rows.first).to_contain_text("✘ DECLINED")
        expect(page.locator(".lfe-session-summary")).to_contain_text("3 prompt(s)")
        shot(page, "session.png")
        expect(page.locator(".lfe-error")).to_have_text("")


def test_a_lost_kernel_shows_a_reload_banner(browser_page, tmp_path) -> None:
    from playwright.sync_api import expect

    page = browser_page
    procs: list = []
    with serve(tmp_path / "voila.log", procs=procs) as url:
        open_page(page, url)
        expect(page.locator("#lfe-kernel-banner")).to_have_count(0)
        os.killpg(procs[0].pid, signal.SIGTERM)  # the server and its kernel go away
        banner = page.locator("#lfe-kernel-banner")
        expect(banner).to_be_visible(timeout=30_000)  # the server takes a while to go
        expect(banner).to_contain_text("the verdicts on this page are stale")
        expect(banner.get_by_role("button", name="Reload")).to_be_visible()
        # The verdict no longer looks live: greyed and marked stale.
        big = page.locator(".lfe-verdict-big .lfe-big")
        assert big.evaluate("e => getComputedStyle(e, '::after').content") == '" (stale)"'
        assert big.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(87, 96, 106)"


def test_a_preloaded_example_host_in_the_browser(browser_page, tmp_path) -> None:
    """`serve --fs traps --set ...` opens on the described host, nothing of this machine."""
    from playwright.sync_api import expect

    page = browser_page
    preload = ["--fs", "traps", "--package-dir", "/app", "--set", "LOCAL_FILE_ACCESS=roots",
               "--set", "LOCAL_FILE_ROOTS=/data", "--set", "TOKEN_PATH=/app/token.json"]
    with serve(tmp_path / "voila.log", *preload) as url:
        page.goto(url, timeout=PAGE_TIMEOUT_MS)
        page.wait_for_selector(".lfe-serve-badge", timeout=PAGE_TIMEOUT_MS)
        expect(page.locator(".lfe-header")).to_contain_text("target example host traps")
        page.get_by_role("tab", name="Paths").click()
        page.fill(".lfe-paths-input textarea",
                  "/data/escape/passwd\n/data/innocent.json\n/data/up/../secret.txt\n"
                  "/data/notes.txt")
        table = page.locator(".lfe-verdicts")
        expect(table).to_contain_text("/data/escape/passwd is outside this server's "
                                      "LOCAL_FILE_ROOTS. Allowed directories: /data")
        expect(table).to_contain_text("/data/innocent.json is one of this server's own "
                                      "credential, config, cache, or log files and can't be "
                                      "read by a tool")
        expect(page.locator(".lfe-paths-counts")).to_contain_text(
            "4 path(s): 1 allowed, 3 refused (1 denied, 2 outside roots)")
        page.locator(".lfe-verdicts tbody tr", has_text="/data/up/../secret.txt").click()
        expect(page.locator(".lfe-path-detail")).to_contain_text(
            "Add /srv/outside to LOCAL_FILE_ROOTS")
        shot(page, "example-host.png")

        # Typed key by key, faster than recomputes are allowed to run: the edits are
        # coalesced, and the last one still lands on screen.
        area = page.locator(".lfe-paths-input textarea")
        area.fill("")
        area.press_sequentially("/data/tok", delay=20)
        expect(table).to_contain_text("/data/tok is outside this server's LOCAL_FILE_ROOTS")
        expect(page.locator(".lfe-paths-counts")).to_contain_text("1 path(s)")
        expect(page.locator(".lfe-error")).to_have_text("")
