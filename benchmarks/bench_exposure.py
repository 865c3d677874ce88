"""The exposure inventory against the bare walk it is built on.

    python benchmarks/bench_exposure.py [--entries N] [--rounds R] [--unique-names]

Builds a tree of N entries (default 200,000: directories of 100 empty files, two levels
deep, a few symlinks, a hardlinked key and a git hook; ``--unique-names`` names every
file differently instead of ``file0.csv`` ... ``file99.csv`` in each directory) in a
temporary directory, then times side by side in one run, round after round in turn
(each after a garbage collection, the bare walk and the inventory without sizes next to
each other, as their ratio is the target):

- a bare recursive ``os.scandir`` walk of the tree (the floor: no stat, no check);
- ``find ROOT -printf ''`` (the same walk in C);
- the bare walk plus the engine's batch check for read and for write of every entry
  (what any inventory made of the engine's verdicts costs at least);
- ``exposure(policy, sizes=False)``: the inventory with read and write verdicts for
  every entry, entry types and inodes taken from the ``os.scandir`` listing (pure
  Python: the package has no compiled part);
- ``exposure(policy)``: the same with byte counts (one lstat per entry).

Prints the median time of each and the median per-round ratios (9 rounds by default:
single rounds spread widely on a shared machine). The target is inventory
(sizes=False) <= 2.0 x the bare walk; the walk-plus-checks line shows what the engine's
check asked entry by entry would cost.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.exposure import exposure


def build_tree(root: Path, entries: int, per_dir: int = 100, unique: bool = False) -> int:
    """About ``entries`` entries below ``root``; returns the number actually made."""
    made = 0
    group = 0
    while made < entries:
        g = root / f"group{group}"
        g.mkdir()
        made += 1
        for d in range(50):
            if made >= entries:
                break
            directory = g / f"dir{d}"
            directory.mkdir()
            made += 1
            for f in range(min(per_dir, entries - made)):
                name = f"g{group}d{d}file{f}.csv" if unique else f"file{f}.csv"
                fd = os.open(directory / name, os.O_CREAT | os.O_WRONLY, 0o644)
                os.close(fd)
                made += 1
        group += 1
    # A few entries that give the inventory something to report.
    (root / "repo" / ".git" / "hooks").mkdir(parents=True)
    (root / "repo" / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\n")
    (root / "server.pem").write_text("-----BEGIN-----\n")
    os.link(root / "server.pem", root / "group0" / "harmless.txt")
    os.symlink("/etc/passwd", root / "escape")
    os.symlink("group0/dir0/file0.csv", root / "alias.csv")
    return made + 7


BARE, FIND = "bare os.scandir walk", "find -printf ''"
FAST, SIZED = "exposure(sizes=False)", "exposure(sizes=True)"
CHECKED = "walk + engine checks"


def bare_walk(root: str) -> int:
    """The floor: every entry listed, directories descended, nothing else."""
    count = 0
    stack = [root]
    while stack:
        directory = stack.pop()
        with os.scandir(directory) as it:
            for entry in it:
                count += 1
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return count


def walk_and_check(root: str, policy: object) -> int:
    """The bare walk plus the engine's batch check for read and for write per entry:
    what any inventory built on the engine's verdicts costs at least."""
    count = 0
    stack = [root]
    with policy.many_checks() as batch:  # type: ignore[attr-defined]
        check = batch.check
        while stack:
            directory = stack.pop()
            with os.scandir(directory) as it:
                for entry in it:
                    count += 1
                    check(entry.path, "read")
                    check(entry.path, "write")
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--unique-names", action="store_true",
                        help="name every file differently (default: the same 100 names "
                             "in every directory)")
    args = parser.parse_args(argv)
    find = shutil.which("find")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp).resolve()
        data, home, app = base / "data", base / "home", base / "app"
        for d in (data, home, app):
            d.mkdir()
        started = time.perf_counter()
        made = build_tree(data, args.entries, unique=args.unique_names)
        print(f"built {made:,} entries in {time.perf_counter() - started:.1f} s")
        env = load_env(None, overrides={"LOCAL_FILE_ACCESS": "roots",
                                        "LOCAL_FILE_ROOTS": str(data), "HOME": str(home)})
        policy = resolve_policy(env, cwd=str(app), package_dir=str(app))
        root = str(data)
        inventory = exposure(policy, sizes=False)
        walked = bare_walk(root)
        assert inventory.entries == walked, (inventory.entries, walked)
        kinds = sorted({f.kind for f in inventory.findings})
        print(f"inventory: {inventory.entries:,} entries, findings {inventory.counts()}, "
              f"kinds {kinds}")

        cases: dict[str, Callable[[], object]] = {
            BARE: lambda: bare_walk(root),
            FAST: lambda: exposure(policy, sizes=False),
        }
        if find:
            cases[FIND] = lambda: subprocess.run(
                [find, root, "-printf", ""], check=True)
        cases[CHECKED] = lambda: walk_and_check(root, policy)
        cases[SIZED] = lambda: exposure(policy, sizes=True)
        rounds: list[dict[str, float]] = []
        for _ in range(args.rounds):
            spent = {}
            for name, fn in cases.items():
                gc.collect()  # no case pays for another's garbage
                start = time.perf_counter()
                fn()
                spent[name] = time.perf_counter() - start
            rounds.append(spent)
    names = "unique names" if args.unique_names else "the same 100 names in every directory"
    print(f"{walked:,} entries ({names}), {args.rounds} rounds, "
          f"Python {sys.version.split()[0]}")
    for name in cases:
        median = statistics.median(r[name] for r in rounds)
        print(f"  {name:<24} {median:7.3f} s  {median / walked * 1e6:6.2f} µs/entry (median)")

    def ratio(a: str, b: str) -> float:
        return statistics.median(r[a] / r[b] for r in rounds)

    fast = ratio(FAST, BARE)
    sized = ratio(SIZED, BARE)
    print(f"inventory (sizes=False) / bare walk = {fast:5.2f}  (target <= 2.0) "
          f"{'ok' if fast <= 2.0 else 'MISSED'}")
    print(f"inventory (sizes=True)  / bare walk = {sized:5.2f}")
    print(f"walk + engine checks / bare walk    = {ratio(CHECKED, BARE):5.2f}  "
          "(the engine's check asked per entry, read and write)")
    print(f"inventory (sizes=False) / walk + engine checks = {ratio(FAST, CHECKED):5.2f}")
    if find:
        print(f"bare walk / find                    = {ratio(BARE, FIND):5.2f}")
        print(f"inventory (sizes=False) / find      = {ratio(FAST, FIND):5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
