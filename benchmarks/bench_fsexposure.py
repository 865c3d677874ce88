"""server-filesystem: the exposure walk of its allowed directories against a bare walk.

    python benchmarks/bench_fsexposure.py [--dirs D] [--files F] [--rounds R]

Builds D directories of F files each (default 200 x 100) under one allowed directory,
then times side by side in one run, alternating:

- ``exposure`` for ``--server server-filesystem`` with that directory allowed (every entry
  checked by the server's ``validatePath`` batch, plus the credential and start-up-file
  rules), with and without byte counts;
- a bare ``os.scandir`` walk of the same tree, and one that lstats every entry.

Prints the medians and the ratios (no target: a reference for changes to the walk).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from localfs_explorer.config import ServerConfig, resolve_config
from localfs_explorer.exposure import exposure


def scandir_walk(top: str, stat: bool) -> int:
    n, stack = 0, [top]
    while stack:
        with os.scandir(stack.pop()) as it:
            for entry in it:
                n += 1
                if stat:
                    entry.stat(follow_symlinks=False)
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dirs", type=int, default=200)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(os.path.realpath(tmp))
        data, home = root / "data", root / "home"
        home.mkdir()
        for d in range(args.dirs):
            sub = data / f"d{d}"
            sub.mkdir(parents=True)
            for f in range(args.files):
                (sub / f"f{f}.txt").write_bytes(b"x")
        policy = resolve_config(ServerConfig(
            server="server-filesystem",
            server_options={"directories": [str(data)], "home": str(home)})).policy
        timings: dict[str, list[float]] = {k: [] for k in (
            "exposure", "exposure, no sizes", "scandir", "scandir + lstat")}
        entries = 0
        for _ in range(args.rounds):
            for name, run in (
                    ("exposure", lambda: exposure(policy).entries),
                    ("exposure, no sizes", lambda: exposure(policy, sizes=False).entries),
                    ("scandir", lambda: scandir_walk(str(data), False)),
                    ("scandir + lstat", lambda: scandir_walk(str(data), True))):
                started = time.perf_counter()
                entries = run()
                timings[name].append(time.perf_counter() - started)
        med = {k: statistics.median(v) for k, v in timings.items()}
        print(f"{entries:,} entries, {args.rounds} rounds (medians)")
        for name, seconds in med.items():
            print(f"  {name:<20} {seconds:8.3f} s   {entries / seconds:12,.0f} entries/s")
        print(f"exposure / scandir + lstat: {med['exposure'] / med['scandir + lstat']:.1f}x")
        print(f"exposure, no sizes / scandir: {med['exposure, no sizes'] / med['scandir']:.1f}x")


if __name__ == "__main__":
    main()
