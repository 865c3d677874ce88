"""Whether reading a client config grows linearly with its size.

    python benchmarks/bench_jsonc.py [--entries N] [--rounds R]

Builds a VS Code ``mcp.json`` (comments, many entries, each with an env) of N entries,
and the same with 2N and 4N, then times :func:`read_client_config` on each, side by side
in one run and interleaved round by round. Prints the median of each and the ratios
2N/N and 4N/N: a linear reader gives about 2 and 4 (the project's bound is 4N/N at most
5); a reader that counts lines from the start of the file for every value gives about 4
and 16.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

from localfs_explorer.deployments import read_client_config

TARGET_4N = 5.0


def config_text(entries: int) -> str:
    lines = ["{", "  // servers of a big workspace", '  "servers": {']
    for i in range(entries):
        comma = "," if i < entries - 1 else ""
        lines += [
            f'    "server-{i}": {{',
            '      "type": "stdio", "command": "npx",',
            f'      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/data/{i}"],',
            f'      "env": {{"LOG_LEVEL": "info", "ROOT_{i}": "/srv/{i}"}} /* note */',
            f"    }}{comma}",
        ]
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    sizes = {"N": args.entries, "2N": 2 * args.entries, "4N": 4 * args.entries}
    times: dict[str, list[float]] = {k: [] for k in sizes}
    with tempfile.TemporaryDirectory() as scratch:
        files = {}
        for label, count in sizes.items():
            path = Path(scratch) / ".vscode" / f"{label}" / "mcp.json"
            path.parent.mkdir(parents=True)
            path.write_text(config_text(count), encoding="utf-8")
            files[label] = path
        for path in files.values():
            read_client_config(path, "vscode")  # a warm-up round, not timed
        for _ in range(args.rounds):
            for label, path in files.items():
                gc.collect()
                start = time.perf_counter()
                config = read_client_config(path, "vscode")
                times[label].append(time.perf_counter() - start)
                if len(config.entries) != sizes[label]:
                    raise SystemExit("the reader lost entries")
        medians = {k: statistics.median(v) for k, v in times.items()}
        for label, path in files.items():
            size = path.stat().st_size
            print(f"{label:>3}: {sizes[label]:6d} entries, {size / 1024:8.0f} KB, "
                  f"median {medians[label] * 1000:8.1f} ms")
    two, four = medians["2N"] / medians["N"], medians["4N"] / medians["N"]
    print(f"ratio 2N/N: {two:.2f}x   ratio 4N/N: {four:.2f}x   (linear: ~2 and ~4; "
          f"bound for 4N/N: {TARGET_4N:.0f})")
    return 0 if four <= TARGET_4N else 1


if __name__ == "__main__":
    sys.exit(main())
