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
def serve(log: Path, *options: str) -> Iterator[str]:
    """Run the real ``serve`` command on a free loopback port; stop it whatever happens.

    Yields the URL ``serve`` printed, token included. With ``--host``, the server is
    still reached through 127.0.0.1 only.
    """
    port = free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("LOCALFS_EXPLORER_HOST_FS", "LOCALFS_EXPLORER_PRELOAD")}
    with log.open("w") as out:
        # Its own process group, so that Voila and the kernels it starts stop together.
        proc = subprocess.Popen(
            [sys.executable, "-m", "localfs_explorer.serve", "--port", str(port),
             "--no-browser", *options],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
        try:
            url = printed_url(log, proc)
            assert url.startswith(f"http://127.0.0.1:{port}/")
            wait_until_listening(f"http://127.0.0.1:{port}/", proc)
            yield url
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


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


def test_roots_refusal_allowed_path_and_export_in_the_browser(browser_page, deployment,
                                                              tmp_path) -> None:
    from playwright.sync_api import expect

    page = browser_page
    data, outside = deployment["data"], deployment["outside"]
    with serve(tmp_path / "voila.log") as url:
        page.goto(url, timeout=PAGE_TIMEOUT_MS)
        page.wait_for_selector(".lfe-mode", timeout=PAGE_TIMEOUT_MS)
        expect(page.locator(".lfe-header")).to_contain_text("LOCAL_FILE_ACCESS")

        # Load the deployment's .env through the Server panel's path field.
        page.fill(".lfe-env-path input", str(deployment["env"]))
        page.click(".lfe-env-load")
        expect(page.locator(".lfe-header")).to_contain_text(
            "explicit (LOCAL_FILE_ACCESS=roots)")
        expect(page.locator(".lfe-roots")).to_contain_text(str(data))
        shot(page, "server-panel.png")

        # A path outside the root: the exact refusal the model would see.
        page.get_by_role("tab", name="Paths").click()
        page.fill(".lfe-paths-input textarea", str(outside / "payroll.csv"))
        refusal = (f"{outside / 'payroll.csv'} is outside this server's LOCAL_FILE_ROOTS. "
                   f"Allowed directories: {data}")
        expect(page.locator(".lfe-verdicts")).to_contain_text(refusal)
        expect(page.locator(".lfe-verdicts")).to_contain_text("REFUSED · outside roots")
        expect(page.locator(".lfe-path-detail")).to_contain_text(f"Add {outside} to "
                                                                 "LOCAL_FILE_ROOTS")
        # And one inside it: allowed.
        page.fill(".lfe-paths-input textarea", str(data / "report.csv"))
        expect(page.locator(".lfe-verdicts")).to_contain_text("✔ ALLOWED")
        expect(page.locator(".lfe-verdicts")).not_to_contain_text("REFUSED")
        three = [outside / "payroll.csv", data / "report.csv", data / ".." / "app" / ".env"]
        page.fill(".lfe-paths-input textarea", "\n".join(map(str, three)))
        expect(page.locator(".lfe-paths-counts")).to_contain_text("3 path(s): 1 allowed")
        shot(page, "paths-panel.png")

        # A change to export: add an override on the Server panel, see the masked diff.
        page.get_by_role("tab", name="Server").click()
        page.click(".lfe-override-add")
        page.fill(".lfe-override-key input", "LOG_FILE")
        page.fill(".lfe-override-value input", str(deployment["base"] / "server.log"))
        page.get_by_role("tab", name="Export").click()
        diff = page.locator(".lfe-export-diff")
        expect(diff).to_contain_text(f"+LOG_FILE={deployment['base'] / 'server.log'}")
        expect(diff).to_contain_text("CREDENTIALS_CONFIG=••••••")
        expect(page.locator(".lfe-export-status")).to_contain_text("Valid")
        shot(page, "export-panel.png")

        assert SECRET not in page.content()
        expect(page.locator(".lfe-error")).to_have_text("")


def test_a_preloaded_example_host_in_the_browser(browser_page, tmp_path) -> None:
    """`serve --fs traps --set ...` opens on the described host, nothing of this machine."""
    from playwright.sync_api import expect

    page = browser_page
    preload = ["--fs", "traps", "--package-dir", "/app", "--set", "LOCAL_FILE_ACCESS=roots",
               "--set", "LOCAL_FILE_ROOTS=/data", "--set", "TOKEN_PATH=/app/token.json"]
    with serve(tmp_path / "voila.log", *preload) as url:
        page.goto(url, timeout=PAGE_TIMEOUT_MS)
        page.wait_for_selector(".lfe-mode", timeout=PAGE_TIMEOUT_MS)
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
        page.select_option(".lfe-path-select select", index=2)
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
