"""server-filesystem: the explorer's check against the server's own ``validatePath``.

    python benchmarks/bench_fsserver.py [--files N] [--rounds R] [--package DIR]

Builds N files (default 5,000) three levels below one allowed directory, plus a few
symlinks, missing names and quote siblings among them, then times side by side in one
run, per path:

- the server's own ``validatePath`` (its ``dist/lib.js`` imported by a small node
  script written here, timed in node over the same paths, awaited one by one as the
  tools do), from an installed ``@modelcontextprotocol/server-filesystem`` (``--package``
  is the folder holding ``node_modules``; without it the pinned release is installed
  into a temporary folder with npm);
- the explorer's single check (``FilesystemPolicy.validate``);
- the explorer's batch check (``many_checks()``);
- ``os.lstat`` of each path.

Rounds alternate node and Python; the medians and the per-round ratios the project
targets are printed:

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
from pathlib import Path

from localfs_explorer.fs import HostFS
from localfs_explorer.servers.filesystem import FilesystemConfig, FilesystemPolicy

PACKAGE = "@modelcontextprotocol/server-filesystem"
PINNED = "2026.8.31"

NODE_TIMER = """
import { validatePath, setAllowedDirectories } from %s;
import fs from 'fs';
const [dirs, paths, rounds] = JSON.parse(fs.readFileSync(0, 'utf8'));
setAllowedDirectories(dirs);
async function once() {
  for (const p of paths) { try { await validatePath(p); } catch {} }
}
await once();  // warm up: the JIT and the OS caches, as for the Python side
const out = [];
for (let r = 0; r < rounds; r++) {
  const t = process.hrtime.bigint();
  await once();
  out.push(Number(process.hrtime.bigint() - t) / 1e9 / paths.length);
}
process.stdout.write(JSON.stringify(out));
"""


def build_tree(base: Path, files: int, per_dir: int = 100) -> tuple[Path, list[str]]:
    data = base / "data"
    paths = []
    for i in range(files):
        d = data / f"group{i // (per_dir * 10)}" / f"dir{i // per_dir}"
        if i % per_dir == 0:
            d.mkdir(parents=True, exist_ok=True)
        p = d / f"file{i}.txt"
        p.touch()
        paths.append(str(p))
    (base / "outside").mkdir()
    os.symlink(base / "outside", data / "out")
    os.symlink("group0", data / "in")
    paths += [str(data / "out" / "x"), str(data / "in" / "dir0" / "file0.txt"),
              str(data / "missing.txt"), str(data) + "'", str(base / "elsewhere")]
    return data, paths


def lib_js(package: str | None, scratch: Path) -> Path:
    if package:
        found = Path(package) / "node_modules" / PACKAGE / "dist" / "lib.js"
        if not found.exists():
            sys.exit(f"{found} not found: --package is the folder holding node_modules")
        return found
    if not shutil.which("npm"):
        sys.exit("npm is needed to install the server (or give --package DIR)")
    subprocess.run(["npm", "install", "--prefix", str(scratch), "--no-audit", "--no-fund",
                    "--loglevel=error", f"{PACKAGE}@{PINNED}"], check=True)
    return scratch / "node_modules" / PACKAGE / "dist" / "lib.js"


def node_times(lib: Path, dirs: list[str], paths: list[str], rounds: int) -> list[float]:
    script = NODE_TIMER % json.dumps(lib.as_uri())
    done = subprocess.run(["node", "--input-type=module", "-e", script],
                          input=json.dumps([dirs, paths, rounds]), capture_output=True,
                          text=True, check=True)
    return list(json.loads(done.stdout))


def per_path(fn, paths: list[str]) -> float:
    t = time.perf_counter()
    fn(paths)
    return (time.perf_counter() - t) / len(paths)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--package", help="folder holding node_modules with the server")
    args = ap.parse_args()
    if not shutil.which("node"):
        sys.exit("node is needed to time the server's own validatePath")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(os.path.realpath(tmp))
        lib = lib_js(args.package, base / "npm")
        data, paths = build_tree(base / "tree", args.files)
        policy = FilesystemPolicy(FilesystemConfig(directories=(str(data),)), HostFS())
        dirs = list(policy.directories)

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

        for fn in (single, batch, lstat):  # warm up
            fn(paths)
        rows: dict[str, list[float]] = {"node": [], "single": [], "batch": [], "lstat": []}
        for _ in range(args.rounds):
            rows["node"] += node_times(lib, dirs, paths, 1)
            rows["single"].append(per_path(single, paths))
            rows["batch"].append(per_path(batch, paths))
            rows["lstat"].append(per_path(lstat, paths))
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
