"""Cost of refusing a hostile input file, against reading an ordinary one.

    python benchmarks/bench_hostile_inputs.py [--rounds R]

Times, side by side in one run and interleaved round by round, the command line
(``cli.main``, in process) given an ordinary host spec of 20,000 entries, and the same
command given
each hostile input the limits exist for: a FIFO, ``/dev/zero``, a directory, a sparse
file past the size limit, JSON nested 100,000 deep, a 20,000-link symlink chain and a
20,000-component path. Prints the median time of each and its ratio to the ordinary
read; the project's target is that no refusal costs more than 2 x reading an ordinary
spec of the same size (and so stays well under a second).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from localfs_explorer.cli import main as cli
from localfs_explorer.userfiles import MAX_FILE_BYTES

TARGET_RATIO = 2.0


def build_inputs(base: Path) -> dict[str, Path]:
    ordinary = base / "ordinary.json"
    # As big as the largest hostile spec below, so the ratios compare like with like.
    ordinary.write_text(json.dumps({"version": 1, "entries": {
        f"/data/f{i}": {"type": "file"} for i in range(20_000)}}))
    fifo = base / "fifo.json"
    os.mkfifo(fifo)
    directory = base / "dir.json"
    directory.mkdir()
    huge = base / "huge.json"
    with open(huge, "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)
    deep = base / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    chain = base / "chain.json"
    entries: dict[str, dict[str, str]] = {"/d": {"type": "dir"}}
    for i in range(20_000):
        entries[f"/d/l{i}"] = {"type": "symlink", "target": f"/d/l{i + 1}"}
    chain.write_text(json.dumps({"version": 1, "entries": entries}))
    long_path = base / "components.json"
    long_path.write_text(json.dumps({"version": 1, "entries": {
        "/d" + "/a" * 20_000: {"type": "file"}}}))
    inputs = {"ordinary": ordinary, "fifo": fifo, "directory": directory, "huge": huge,
              "deep JSON": deep, "20k-link chain": chain, "20k components": long_path}
    if os.path.exists("/dev/zero"):
        inputs["/dev/zero"] = Path("/dev/zero")
    return inputs


def run_once(spec: Path) -> float:
    start = time.perf_counter()
    cli.main(["check", "--fs", str(spec), "/data/f1"], out=io.StringIO(), err=io.StringIO())
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        inputs = build_inputs(Path(tmp))
        run_once(inputs["ordinary"])  # imports and caches warmed once
        times: dict[str, list[float]] = {name: [] for name in inputs}
        for _ in range(args.rounds):
            for name, path in inputs.items():
                times[name].append(run_once(path))
    base = statistics.median(times["ordinary"])
    print(f"{'input':<16} {'median':>10} {'x ordinary':>11}")
    worst = 0.0
    for name, samples in times.items():
        median = statistics.median(samples)
        ratio = median / base
        worst = max(worst, ratio if name != "ordinary" else 0.0)
        print(f"{name:<16} {median * 1000:>8.1f}ms {ratio:>10.2f}x")
    verdict = "ok" if worst <= TARGET_RATIO else "OVER"
    print(f"worst refusal: {worst:.2f}x the ordinary read (target <= {TARGET_RATIO}x): "
          f"{verdict}")
    return 0 if worst <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
