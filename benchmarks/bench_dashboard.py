"""How quickly the dashboard becomes usable, and how quickly it answers, in a real browser.

    python benchmarks/bench_dashboard.py [--loads N] [--typings M]

Starts two Voila servers the way ``localfs-explorer serve`` does (same command, same
flags): one on the Explorer's dashboard, one on a notebook showing a single button. Opens
each N times (alternating, a fresh browser context each time) in headless Chromium
(``LOCALFS_EXPLORER_CHROMIUM``, default ``/usr/bin/chromium``) and measures from
navigation until the widget is on screen and accepting input. Then, in the Explorer's
Paths panel, completes a path M times and measures inside the page from the keystroke to
the path's verdict appearing in the table. Prints the medians and the ratios the project
targets:

- Explorer load  <= 1.5 x the one-widget notebook's
- typing a path -> its verdict on screen: median <= 200 ms
- a 20,000-call batch: its results grid on screen, then sorted and filtered by tool,
  within 1 s of the batch finishing (``--batch-calls``)
- a 300 KB list of paths (``--paste-kb``), pasted into the Paths box and, side by side,
  uploaded with the button beside it: from the paste (or the file chosen) to the count
  of its verdicts on screen, each well under the 15 s a paste once took (target <= 3 s)

``--loads 0 --typings 0 --batch-calls 0`` leaves only the paste and upload.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from localfs_explorer.cli.serve import dashboard_notebook_json, plan_serve

CHROMIUM = os.environ.get("LOCALFS_EXPLORER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
BASELINE_SOURCE = (
    "import ipywidgets as widgets\n"
    "button = widgets.Button(description='ready')\n"
    "button.add_class('lfe-baseline')\n"
    "button"
)
# The Explorer is usable once the Server panel's first input is on screen and enabled.
EXPLORER_READY = ".lfe-env-path input:not([disabled])"
BASELINE_READY = ".lfe-baseline"

# Runs in the page: complete the path with its last character the way a keystroke does
# (an input event on the textarea) and resolve with the milliseconds until the verdict
# table shows the completed path.
TYPE_AND_WAIT = """
async ([prefix, last]) => {
  const area = document.querySelector('.lfe-paths-input textarea');
  const wanted = prefix + last;
  const needle = wanted.split('\\n').pop();
  area.focus();
  area.value = prefix;
  return await new Promise((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error('no verdict for ' + needle)), 10000);
    const shown = () => {
      const table = document.querySelector('.lfe-verdicts');
      return table && table.textContent.includes(needle);
    };
    const observer = new MutationObserver(() => {
      if (shown()) {
        observer.disconnect(); clearTimeout(timeout); resolve(performance.now() - t0);
      }
    });
    observer.observe(document.body, {subtree: true, childList: true, characterData: true});
    area.value = wanted;
    const t0 = performance.now();
    area.dispatchEvent(new Event('input', {bubbles: true}));
  });
}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def voila(notebook: Path) -> Iterator[str]:
    """A Voila server on ``notebook``, started with exactly serve's command line."""
    port = free_port()
    plan = plan_serve(port=port, open_browser=False, notebook=notebook)
    proc = subprocess.Popen(plan.argv, env=plan.env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        url = plan.url
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(url + "api/kernelspecs", timeout=2):
                    break
            except urllib.error.HTTPError:
                break
            except (urllib.error.URLError, OSError):
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit(f"Voila didn't start for {notebook}") from None
                time.sleep(0.3)
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
        for path in plan.cleanup:
            with contextlib.suppress(OSError):
                path.unlink()


def write_notebook(path: Path, source: str) -> Path:
    nb = dashboard_notebook_json()
    nb["cells"][0]["source"] = source
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def time_load(browser, url: str, ready: str) -> float:
    """Seconds from navigation to the ``ready`` element being on screen."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        start = time.perf_counter()
        page.goto(url, timeout=120_000)
        page.wait_for_selector(ready, state="visible", timeout=120_000)
        return time.perf_counter() - start
    finally:
        context.close()


def time_typing(browser, url: str, count: int, root: Path) -> list[float]:
    """Milliseconds from completing a path to its verdict showing, ``count`` times."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(url, timeout=120_000)
        page.wait_for_selector(EXPLORER_READY, timeout=120_000)
        page.get_by_role("tab", name="Paths").click()
        page.wait_for_selector(".lfe-paths-input textarea", timeout=30_000)
        samples = []
        for i in range(count):
            # Several paths, as pasted, with the new one last.
            prefix = "\n".join(str(root / f"dir{j}" / f"file{j}.txt") for j in range(5))
            prefix += f"\n{root}/typed/path-{i}.cs"
            samples.append(page.evaluate(TYPE_AND_WAIT, [prefix, "v"]))
            time.sleep(0.3)  # a pause between edits, as between two people's keystrokes
        return samples
    finally:
        context.close()


# Runs in the page once the batch was started: resolves with the milliseconds from the
# progress line saying "done" to the grid showing the batch's rows.
GRID_AFTER_BATCH = """
async (total) => {
  const done = () => {
    const label = document.querySelector('.lfe-batch-progress-label');
    return label && label.textContent.includes(total + ' / ' + total + ' calls, done');
  };
  const shown = () => {
    const count = document.querySelector('.lfe-grid-batch .lfe-grid-count');
    const row = document.querySelector('.lfe-batch-calls tbody tr td:not(.dt-empty)');
    return count && count.textContent.includes('of ' + total + ' row(s)') && row;
  };
  return await new Promise((resolve, reject) => {
    let t0 = null;
    const timeout = setTimeout(() => reject(new Error('the batch grid never showed')), 600000);
    const check = () => {
      if (t0 === null && done()) { t0 = performance.now(); }
      if (t0 !== null && shown()) {
        observer.disconnect(); clearTimeout(timeout); resolve(performance.now() - t0);
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(document.body, {subtree: true, childList: true, characterData: true});
    check();
  });
}
"""

# Resolves with the milliseconds from sorting the grid by "#" (in the kernel, over every
# row) to its first row changing on screen (the unknown tools listed first give way to
# call 1).
SORT_GRID = """
async () => {
  const first = () => {
    const row = document.querySelector('.lfe-batch-calls tbody tr td:not(.dt-empty)');
    return row ? row.parentElement.textContent : '';
  };
  const before = first();
  const select = document.querySelector('.lfe-grid-batch .lfe-grid-sort select');
  return await new Promise((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error('no sort')), 30000);
    const observer = new MutationObserver(() => {
      if (first() && first() !== before) {
        observer.disconnect(); clearTimeout(timeout); resolve(performance.now() - t0);
      }
    });
    observer.observe(document.body, {subtree: true, childList: true, characterData: true});
    const t0 = performance.now();
    select.value = Array.from(select.options).find((o) => o.text === '#').value;
    select.dispatchEvent(new Event('change', {bubbles: true}));
  });
}
"""

# Resolves with the milliseconds from picking a tool in the grid's tool filter (filtered
# in the kernel) to the grid saying how many rows pass.
FILTER_GRID = """
async ([tool, expected]) => {
  const select = document.querySelector('.lfe-grid-batch .lfe-filter-tool select');
  const count = () => document.querySelector('.lfe-grid-batch .lfe-grid-count').textContent;
  return await new Promise((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error('no filter')), 30000);
    const observer = new MutationObserver(() => {
      if (count().includes(expected + ' of ')) {
        observer.disconnect(); clearTimeout(timeout); resolve(performance.now() - t0);
      }
    });
    observer.observe(document.body, {subtree: true, childList: true, characterData: true});
    const t0 = performance.now();
    select.value = Array.from(select.options).find((o) => o.text === tool).value;
    select.dispatchEvent(new Event('change', {bubbles: true}));
  });
}
"""


def write_batch(path: Path, total: int, root: Path) -> int:
    """``total`` calls, one in ten to a tool the catalog doesn't know; returns those.

    The files the calls upload are created under ``root``."""
    unknown = 0
    with path.open("w", encoding="utf-8") as fh:
        for i in range(total):
            name = "upload_local_file"
            if i % 10 == 7:
                name, unknown = "no_such_tool", unknown + 1
            # Every argument the server requires and a file that exists, so a call gets
            # past the tool's own checks and the grid shows verdicts, not call errors.
            local = root / f"f{i}.csv"
            local.touch()
            call = {"name": name, "arguments": {"local_path": str(local),
                                                "parent_folder_id": "folder-1"}}
            fh.write(json.dumps(call) + "\n")
    return unknown


def time_batch_grid(browser, url: str, total: int, root: Path) -> tuple[float, float, float]:
    """(grid on screen after the batch, sort, filter) in milliseconds."""
    calls = root / "calls.jsonl"
    unknown = write_batch(calls, total, root)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(url, timeout=120_000)
        page.wait_for_selector(EXPLORER_READY, timeout=120_000)
        page.get_by_role("tab", name="Batch").click()
        page.wait_for_selector(".lfe-batch-path input", timeout=30_000)
        page.fill(".lfe-batch-path input", str(calls))
        waiting = page.evaluate_handle(
            "(total) => { window.__grid = (" + GRID_AFTER_BATCH.strip() + ")(total); }", total)
        waiting.dispose()
        page.click(".lfe-batch-load")
        shown = page.evaluate("() => window.__grid")
        sort = page.evaluate(SORT_GRID)
        filtered = page.evaluate(FILTER_GRID, ["no_such_tool", unknown])
        return shown, sort, filtered
    finally:
        context.close()


PASTE_AND_WAIT = """
async ([text, count]) => {
  const area = document.querySelector('.lfe-paths-input textarea');
  const counts = document.querySelector('.lfe-paths-counts');
  const t0 = performance.now();
  area.focus();
  area.value = text;
  area.dispatchEvent(new Event('input', {bubbles: true}));
  return await new Promise((resolve, reject) => {
    const timeout = setTimeout(() => reject(new Error('no count for the paste')), 60000);
    const poll = () => {
      if (counts.textContent.includes(count + ' path(s)')) {
        clearTimeout(timeout); resolve(performance.now() - t0);
      } else { requestAnimationFrame(poll); }
    };
    poll();
  });
}
"""


def time_paste_and_upload(browser, url: str, kb: int, root: Path) -> tuple[int, float, float]:
    """(paths, paste -> count on screen, upload -> count on screen), in milliseconds."""
    line = str(root / "data" / "a-directory-of-reports" / "report-00000.csv")
    count = kb * 1024 // (len(line) + 1) + 1
    text = "\n".join(str(root / "data" / "a-directory-of-reports" / f"report-{i:05d}.csv")
                     for i in range(count))
    listing = root / "paths.txt"
    listing.write_text(text + "\n", encoding="utf-8")
    timings = []
    for how in ("paste", "upload"):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            page = context.new_page()
            page.goto(url, timeout=120_000)
            page.wait_for_selector(EXPLORER_READY, timeout=120_000)
            page.get_by_role("tab", name="Paths").click()
            page.wait_for_selector(".lfe-paths-input textarea", timeout=30_000)
            if how == "paste":
                timings.append(page.evaluate(PASTE_AND_WAIT, [text, count]))
            else:
                with page.expect_file_chooser(timeout=30_000) as chooser:
                    page.click(".lfe-paths-upload")
                start = time.perf_counter()
                chooser.value.set_files(str(listing))
                page.wait_for_function(
                    "(n) => document.querySelector('.lfe-paths-counts').textContent"
                    ".includes(n + ' path(s)')", arg=count, timeout=60_000, polling="raf")
                timings.append((time.perf_counter() - start) * 1000)
        finally:
            context.close()
    return count, timings[0], timings[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=5, help="page loads of each notebook")
    parser.add_argument("--typings", type=int, default=20, help="paths typed")
    parser.add_argument("--batch-calls", type=int, default=20_000,
                        help="calls in the batch whose grid is timed (0: skip)")
    parser.add_argument("--paste-kb", type=int, default=300,
                        help="size of the list of paths pasted and uploaded (0: skip)")
    args = parser.parse_args(argv)
    if not os.access(CHROMIUM, os.X_OK):
        print(f"no Chromium at {CHROMIUM}: set LOCALFS_EXPLORER_CHROMIUM", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    repo = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="lfe-bench-") as tmp, sync_playwright() as p:
        baseline_nb = write_notebook(Path(tmp) / "one_widget.ipynb", BASELINE_SOURCE)
        explorer_nb = repo / "notebooks" / "explorer.ipynb"
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                    headless=True)
        try:
            with voila(baseline_nb) as baseline_url, voila(explorer_nb) as explorer_url:
                # One warm-up of each: first imports fill the OS page cache for both.
                time_load(browser, baseline_url, BASELINE_READY)
                time_load(browser, explorer_url, EXPLORER_READY)
                base, explorer = [], []
                for _ in range(args.loads):
                    base.append(time_load(browser, baseline_url, BASELINE_READY))
                    explorer.append(time_load(browser, explorer_url, EXPLORER_READY))
                typing = (time_typing(browser, explorer_url, args.typings, Path(tmp))
                          if args.typings else [])
                grid = (time_batch_grid(browser, explorer_url, args.batch_calls, Path(tmp))
                        if args.batch_calls else None)
                pasted = (time_paste_and_upload(browser, explorer_url, args.paste_kb,
                                                Path(tmp)) if args.paste_kb else None)
        finally:
            browser.close()
    if base:
        b, e = statistics.median(base), statistics.median(explorer)
        ratio = e / b
        print(f"navigation -> interactive, median of {args.loads} loads each:")
        print(f"  one-widget notebook  {b:6.2f} s   "
              f"(all: {', '.join(f'{x:.2f}' for x in base)})")
        print(f"  Explorer             {e:6.2f} s   "
              f"(all: {', '.join(f'{x:.2f}' for x in explorer)})")
        print(f"  ratio                {ratio:6.2f} x   target <= 1.5 x  "
              f"{'OK' if ratio <= 1.5 else 'OVER'}")
    if typing:
        typed = statistics.median(typing)
        print(f"typing a path -> verdict on screen, median of {len(typing)}: {typed:.0f} ms "
              f"(min {min(typing):.0f}, max {max(typing):.0f})   target <= 200 ms  "
              f"{'OK' if typed <= 200 else 'OVER'}")
    if pasted is not None:
        count, paste_ms, upload_ms = pasted
        worst = max(paste_ms, upload_ms)
        print(f"{args.paste_kb} KB of paths ({count}) -> their count on screen: pasted "
              f"{paste_ms:.0f} ms, uploaded {upload_ms:.0f} ms (upload/paste "
              f"{upload_ms / paste_ms:.2f} x)   target <= 3000 ms  "
              f"{'OK' if worst <= 3000 else 'OVER'}")
    if grid is not None:
        shown, sort, filtered = grid
        worst = max(shown, shown + sort, shown + filtered)
        print(f"{args.batch_calls}-call batch, from 'done' to its grid: on screen {shown:.0f} ms, "
              f"then sorted by # in {sort:.0f} ms, filtered by tool in "
              f"{filtered:.0f} ms   target <= 1000 ms  {'OK' if worst <= 1000 else 'OVER'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
