"""Work that grows with hostile input grows linearly: doubling the input doubles the time.

    python benchmarks/bench_bounded_work.py [--size N] [--rounds R]

Times, side by side in one run and interleaved round by round, each input built to be
cheap to send and dear to take in, at size N and 2N: a ``.env`` of N ``K=1`` lines (and
of N distinct keys each referring to the one before), HTML of N unfinished ``<img src=``
tags, Markdown of N ``<img src=`` (nothing to render) and N ``![a](`` openings, and a
TOML dotted key of N parts (refused). Prints the median of each and the ratio of 2N to N;
the project's target is a ratio of at most 2.5 (2 is linear; quadratic work shows 4).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from localfs_explorer.env import load_env

from localfs_explorer.probe import images
from localfs_explorer.userfiles import parse_toml

TARGET_RATIO = 2.5


class _Refused(Exception):
    pass


def _toml(n: int) -> Callable[[], object]:
    text = "a" + ".a" * n + " = 1\n"

    def run() -> object:
        try:
            return parse_toml(text, "bench.toml", _Refused)
        except _Refused:
            return None

    return run


def _images(text: str, content_format: str) -> Callable[[], object]:
    def run() -> object:
        images._image_sources.cache_clear()
        return images.extract_image_sources(text, content_format)

    return run


def cases(n: int) -> dict[str, Callable[[], object]]:
    chain = "".join(f"K{i}=${{K{i - 1}}}x\n" if i else "K0=x\n" for i in range(n // 8))
    return {
        ".env K=1 lines": lambda: load_env(text="K=1\n" * n, path="b.env"),
        ".env chained keys": lambda: load_env(text=chain, path="b.env"),
        "html <img src=": _images("<img src=" * n, "html"),
        "markdown <img src=": _images("<img src=" * n, "markdown"),
        "markdown ![a](": _images("![a](" * n, "markdown"),
        "toml dotted key": _toml(n),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20_000, help="N (default 20000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    args = parser.parse_args(argv)
    small, large = cases(args.size), cases(2 * args.size)
    times: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in small}
    for _ in range(args.rounds):
        for name in small:
            for which, table in ((0, small), (1, large)):
                start = time.perf_counter()
                table[name]()
                times[name][which].append(time.perf_counter() - start)
    worst = 0.0
    print(f"{'input':<22} {'N':>10} {'2N':>10} {'2N/N':>6}")
    for name, (at_n, at_2n) in times.items():
        a, b = statistics.median(at_n), statistics.median(at_2n)
        ratio = b / a if a > 0 else 0.0
        worst = max(worst, ratio)
        print(f"{name:<22} {a * 1000:>8.2f}ms {b * 1000:>8.2f}ms {ratio:>6.2f}")
    print(f"worst ratio {worst:.2f} (target <= {TARGET_RATIO})")
    return 0 if worst <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
