"""Per-path cost of the check against the system calls it is built on.

    python benchmarks/bench_check.py [--files N] [--rounds R]

Builds N real files (default 10,000) in a temporary directory, then times, side by side
in one run and interleaved chunk by chunk, per path: ``os.lstat``, ``os.path.realpath``,
a single ``check_read`` and ``check_read`` inside ``many_checks()``. Prints the best
the median of each and of the per-round ratios the project targets:

- batch check  <= 2.0 x os.lstat
- single check <= 1.5 x os.path.realpath
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from localfs_explorer import load_env, resolve_policy


def build_tree(base: Path, files: int, per_dir: int = 100) -> list[str]:
    """``files`` empty files, ``per_dir`` to a directory, three levels below ``base``."""
    paths = []
    for i in range(files):
        d = base / "data" / f"group{i // (per_dir * 10)}" / f"dir{i // per_dir}"
        if i % per_dir == 0:
            d.mkdir(parents=True, exist_ok=True)
        p = d / f"file{i}.txt"
        p.touch()
        paths.append(str(p))
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp).resolve()
        (base / "app").mkdir()
        (base / "app" / "token.json").write_text("{}")
        paths = build_tree(base, args.files)
        env = load_env(None, overrides={"LOCAL_FILE_ACCESS": "roots",
                                        "LOCAL_FILE_ROOTS": str(base / "data"),
                                        "HOME": str(base)})
        policy = resolve_policy(env, cwd=str(base / "app"))
        assert all(policy.check_read(p).allowed for p in paths[:100])

        def batch(chunk: list[str]) -> None:
            with policy.many_checks() as b:
                for p in chunk:
                    b.check_read(p)

        cases: dict[str, Callable[[list[str]], object]] = {
            "os.lstat": lambda chunk: [os.lstat(p) for p in chunk],
            "os.path.realpath": lambda chunk: [os.path.realpath(p) for p in chunk],
            "check_read (single)": lambda chunk: [policy.check_read(p) for p in chunk],
            "check_read (batch)": batch,
        }
        # Cases alternate chunk by chunk, so a burst of load elsewhere on the machine
        # lands on all of them alike; each round yields one ratio, and the median is kept.
        chunks = [paths[i:i + 1000] for i in range(0, len(paths), 1000)]
        rounds: list[dict[str, float]] = []
        for _ in range(args.rounds):
            spent = dict.fromkeys(cases, 0.0)
            for chunk in chunks:
                for name, fn in cases.items():
                    start = time.perf_counter()
                    fn(chunk)
                    spent[name] += time.perf_counter() - start
            rounds.append({name: t / len(paths) * 1e6 for name, t in spent.items()})
    print(f"{len(paths)} files, {args.rounds} interleaved rounds, Python "
          f"{sys.version.split()[0]}")
    for name in cases:
        print(f"  {name:<22} {statistics.median(r[name] for r in rounds):8.2f} µs/path "
              "(median)")
    batch_ratio = statistics.median(
        r["check_read (batch)"] / r["os.lstat"] for r in rounds)
    single_ratio = statistics.median(
        r["check_read (single)"] / r["os.path.realpath"] for r in rounds)
    print(f"batch / lstat      = {batch_ratio:5.2f}  (target <= 2.0) "
          f"{'ok' if batch_ratio <= 2.0 else 'MISSED'}")
    print(f"single / realpath  = {single_ratio:5.2f}  (target <= 1.5) "
          f"{'ok' if single_ratio <= 1.5 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
