"""desktop-commander: the explorer's check against DesktopCommanderMCP's own check.

    python benchmarks/bench_desktop_commander.py [--files N] [--rounds R] [--package DIR]

A tree of N files (default 5,000) two levels below one allowed directory, with a case
twin, a prefix sibling, symlinks out and in and missing names among the paths. In one
run, rounds alternate between:

- the server's own ``validatePath`` (``dist/tools/filesystem.js`` of an installed
  ``@wonderwhy-er/desktop-commander``, imported by a small node harness written here and
  timed in node, each path awaited in turn as a tool does; ``HOME`` is a scratch folder
  whose settings file holds the allow-list). ``--package`` is the folder holding
  ``node_modules``; without it the pinned release is installed into a temporary folder
  with ``npm install --ignore-scripts``;
- the explorer's single check (``DcPolicy.validate``);
- the explorer's batch check (``many_checks()``, as a folder walk uses it);
- ``os.lstat`` of each path.

It prints the medians and the per-round ratios the project targets:

- single check <= 0.5 x the server's validatePath
- batch check  <= 2.0 x os.lstat
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from localfs_explorer.fs import HostFS
from localfs_explorer.servers.desktop_commander import DcPolicy, DcSettings

PACKAGE = "@wonderwhy-er/desktop-commander"
PINNED = "0.2.52"

# Times validatePath over the paths given on stdin, once to warm up, then `rounds` times;
# prints the seconds per path of each timed round.
HARNESS = """
const [paths, rounds] = JSON.parse(require('fs').readFileSync(0, 'utf8'));
(async () => {
  const { validatePath } = await import(process.argv[1]);
  const pass = async () => { for (const p of paths) { try { await validatePath(p); } catch {} } };
  await pass();
  const each = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    await pass();
    each.push(Number(process.hrtime.bigint() - start) / 1e9 / paths.length);
  }
  process.stdout.write(JSON.stringify(each));
  process.exit(0);
})();
"""


def make_tree(base: Path, files: int) -> tuple[Path, list[str]]:
    allowed = base / "allowed"
    out: list[str] = []
    for i in range(files):
        folder = allowed / f"d{i // 100}"
        if i % 100 == 0:
            folder.mkdir(parents=True)
        (folder / f"f{i}.txt").touch()
        out.append(str(folder / f"f{i}.txt"))
    for d in ("Allowed", "allowed-evil", "outside"):
        (base / d).mkdir()
    os.symlink(base / "outside", allowed / "out")
    os.symlink("d0", allowed / "in")
    out += [str(base / "Allowed/x"), str(base / "allowed-evil/x"), str(allowed / "out/x"),
            str(allowed / "in/f0.txt"), str(allowed / "missing/deeper.txt"), str(base / "x")]
    return allowed, out


def filesystem_js(package: str | None, scratch: Path) -> Path:
    if package:
        found = Path(package) / "node_modules" / PACKAGE / "dist" / "tools" / "filesystem.js"
        if not found.exists():
            sys.exit(f"{found} not found: --package is the folder holding node_modules")
        return found
    if not shutil.which("npm"):
        sys.exit("npm is needed to install the server (or give --package DIR)")
    subprocess.run(["npm", "install", "--prefix", str(scratch), "--ignore-scripts",
                    "--no-audit", "--no-fund", "--loglevel=error", f"{PACKAGE}@{PINNED}"],
                   check=True)
    return scratch / "node_modules" / PACKAGE / "dist" / "tools" / "filesystem.js"


def node_round(js: Path, home: Path, paths: list[str]) -> float:
    done = subprocess.run(["node", "-e", HARNESS, js.as_uri()],
                          input=json.dumps([paths, 1]), capture_output=True, text=True,
                          check=True, env={**os.environ, "HOME": str(home)})
    return float(json.loads(done.stdout)[0])


def timed(fn: Callable[[list[str]], object], paths: list[str]) -> float:
    start = time.perf_counter()
    fn(paths)
    return (time.perf_counter() - start) / len(paths)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--package", help="folder holding node_modules with the server")
    args = ap.parse_args()
    if not shutil.which("node"):
        sys.exit("node is needed to time the server's own check")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(os.path.realpath(tmp))
        js = filesystem_js(args.package, base / "npm")
        allowed, paths = make_tree(base / "tree", args.files)
        home = base / "home"
        (home / ".claude-server-commander").mkdir(parents=True)
        (home / ".claude-server-commander/config.json").write_text(json.dumps(
            {"allowedDirectories": [str(allowed)], "telemetryEnabled": False}))
        policy = DcPolicy(DcSettings((str(allowed),), (str(allowed),), "bench"),
                          home=str(home), cwd=str(base), fs=HostFS())

        def single(ps: list[str]) -> None:
            for p in ps:
                policy.validate(p)

        def batch(ps: list[str]) -> None:
            with policy.many_checks() as b:
                for p in ps:
                    b.validate(p)

        def lstat(ps: list[str]) -> None:
            st = os.lstat
            for p in ps:
                try:  # noqa: SIM105 - the baseline: no context manager per call
                    st(p)
                except OSError:
                    pass

        for fn in (single, batch, lstat):
            fn(paths)  # warm up the caches, as the harness does for node
        rows: dict[str, list[float]] = {"node": [], "single": [], "batch": [], "lstat": []}
        for _ in range(args.rounds):
            rows["node"].append(node_round(js, home, paths))
            rows["single"].append(timed(single, paths))
            rows["batch"].append(timed(batch, paths))
            rows["lstat"].append(timed(lstat, paths))
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"{len(paths)} paths, {args.rounds} rounds (median per path)")
    print(f"  server validatePath (node) {med['node'] * 1e6:9.2f} us")
    print(f"  explorer single check      {med['single'] * 1e6:9.2f} us")
    print(f"  explorer batch check       {med['batch'] * 1e6:9.2f} us")
    print(f"  os.lstat                   {med['lstat'] * 1e6:9.2f} us")
    single_ratio = statistics.median(s / n for s, n in zip(rows["single"], rows["node"],
                                                           strict=True))
    batch_ratio = statistics.median(b / s for b, s in zip(rows["batch"], rows["lstat"],
                                                          strict=True))
    print(f"single / server validatePath = {single_ratio:.2f}  (target <= 0.5)")
    print(f"batch  / os.lstat            = {batch_ratio:.2f}  (target <= 2.0)")


if __name__ == "__main__":
    main()
