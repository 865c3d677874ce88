"""Batch checks on a VirtualFS against the same checks on this host's filesystem.

    python benchmarks/bench_virtualfs.py [--files N] [--rounds R]

Builds one tree shape twice: N real files (default 10,000) under a temporary directory,
and a VirtualFS with the same paths, symlinks and hardlink. Resolves one policy on each
(roots mode, the token deny-listed), checks that they decide alike on a sample, then
times per path, interleaved chunk by chunk so load elsewhere on the machine hits both
alike: ``check_read`` inside ``many_checks()`` (the walk case), a single ``check_read``
and a bare ``realpath``. Prints the median µs per path and the VirtualFS/HostFS ratios.

Target: batch checks on a VirtualFS no slower per path than on the host (ratio <= 1.0).
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
from localfs_explorer.fs import FileSystem, HostFS
from localfs_explorer.fs.virtual import VirtualFS


def tree_paths(base: str, files: int, per_dir: int = 100) -> list[str]:
    """The benchmark tree's files: ``per_dir`` per directory, three levels below base."""
    return [
        f"{base}/data/group{i // (per_dir * 10)}/dir{i // per_dir}/file{i}.txt"
        for i in range(files)
    ]


def build_both(base: str, files: int) -> tuple[list[str], VirtualFS]:
    """Create the tree on disk and in memory; return the probe paths and the VirtualFS."""
    virtual = VirtualFS(home=f"{base}/home", cwd=f"{base}/app")
    virtual.mkdir(base)
    os.makedirs(f"{base}/app")
    Path(f"{base}/app/token.json").touch()
    virtual.add_file(f"{base}/app/token.json")
    paths = tree_paths(base, files)
    for path in paths:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        Path(path).touch()
        virtual.add_file(path)
    # A few of the shapes a walk meets: links in and out of the root, and the token.
    extras = [
        ("symlink", "../group0/dir0", f"{base}/data/group1/back"),
        ("symlink", f"{base}/app", f"{base}/data/escape"),
        ("link", f"{base}/app/token.json", f"{base}/data/group0/innocent.json"),
    ]
    for kind, source, dest in extras:
        if kind == "symlink":
            os.symlink(source, dest)
            virtual.symlink(source, dest)
        else:
            os.link(source, dest)
            virtual.link(source, dest)
    paths += [
        f"{base}/data/group1/back/file0.txt",
        f"{base}/data/escape/token.json",
        f"{base}/data/group0/innocent.json",
        f"{base}/data/group0/dir0/missing.txt",
    ]
    return paths, virtual


def policy_for(fs: FileSystem, base: str):  # type: ignore[no-untyped-def]
    env = load_env(
        None,
        overrides={
            "LOCAL_FILE_ACCESS": "roots",
            "LOCAL_FILE_ROOTS": f"{base}/data",
            "TOKEN_PATH": f"{base}/app/token.json",
            "HOME": f"{base}/home",
        },
    )
    return resolve_policy(env, transport="stdio", fs=fs, cwd=f"{base}/app")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.realpath(tmp)
        start = time.perf_counter()
        paths, virtual = build_both(base, args.files)
        built = time.perf_counter() - start
        host = HostFS()
        policies = {"host": policy_for(host, base), "virtual": policy_for(virtual, base)}

        def summary(d: object) -> tuple[object, ...]:
            return (d.allowed, d.reason, d.message, d.resolved)  # type: ignore[attr-defined]

        sample = paths[:200] + paths[-4:]
        for path in sample:
            a = summary(policies["host"].check_read(path))
            b = summary(policies["virtual"].check_read(path))
            if a != b:
                print(f"DISAGREE on {path}: host {a} virtual {b}")
                return 1

        def batch(name: str) -> Callable[[list[str]], object]:
            def run(chunk: list[str]) -> object:
                with policies[name].many_checks() as b:
                    return [b.check_read(p) for p in chunk]

            return run

        cases: dict[str, Callable[[list[str]], object]] = {
            "host batch": batch("host"),
            "virtual batch": batch("virtual"),
            "host single": lambda c: [policies["host"].check_read(p) for p in c],
            "virtual single": lambda c: [policies["virtual"].check_read(p) for p in c],
            "host realpath": lambda c: [host.realpath(p) for p in c],
            # Cold lookups: without clearing, every round after the first would only
            # measure the memo of realpath results.
            "virtual realpath": lambda c: (
                virtual.clear_realpath_cache(),
                [virtual.realpath(p) for p in c],
            ),
        }
        chunks = [paths[i : i + 1000] for i in range(0, len(paths), 1000)]
        rounds: list[dict[str, float]] = []
        for _ in range(args.rounds):
            spent = dict.fromkeys(cases, 0.0)
            for chunk in chunks:
                for name, fn in cases.items():
                    t0 = time.perf_counter()
                    fn(chunk)
                    spent[name] += time.perf_counter() - t0
            rounds.append({name: t / len(paths) * 1e6 for name, t in spent.items()})

    print(
        f"{len(paths)} paths, {args.rounds} interleaved rounds, Python "
        f"{sys.version.split()[0]}; tree built on disk and in memory in {built:.1f} s"
    )
    for name in cases:
        print(f"  {name:<17} {statistics.median(r[name] for r in rounds):8.2f} µs/path (median)")
    ok = True
    for kind, target in (("batch", 1.0), ("single", None), ("realpath", None)):
        ratio = statistics.median(r[f"virtual {kind}"] / r[f"host {kind}"] for r in rounds)
        verdict = ""
        if target is not None:
            met = ratio <= target
            ok = ok and met
            verdict = f"(target <= {target}) {'ok' if met else 'MISSED'}"
        print(f"virtual/host {kind:<9} = {ratio:5.2f}  {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
