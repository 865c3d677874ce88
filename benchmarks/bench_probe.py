"""How fast are probed tool calls, compared with the path checks they make?

Builds a temporary tree (a data root with files, a small folder to walk, an escaping
symlink, a sibling outside the root, the server's own files), draws calls from the
shipped catalog with real paths in that tree, and measures in one run:

- calls per second of ``probe_call`` over the batch;
- the ratio of that time to the time of the same path checks alone (every path the
  probe reported, checked again with ``Policy.check``; walked entries inside
  ``many_checks()`` as the probe does). Target: at most 2x.

Run: ``python benchmarks/bench_probe.py [--calls N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.catalog import Catalog, Tool, load_catalog, register_tools
from localfs_explorer.probe import CallVerdict, probe_call


def build_tree(base: Path) -> dict[str, Any]:
    """The server layout the calls point into."""
    app, data, outside = base / "app", base / "data", base / "outside"
    walk = data / "folder"
    for d in (app, data / "sub", outside, walk / "nested"):
        d.mkdir(parents=True)
    (app / "token.json").write_text("{}")
    (app / "credentials.json").write_text("{}")
    (app / ".env").write_text("X=1\n")
    files = []
    for i in range(50):
        f = data / f"file{i}.txt"
        f.write_text("x")
        files.append(str(f))
    for i in range(6):
        (walk / f"w{i}.txt").write_text("x")
    (walk / "nested" / "deep.txt").write_text("x")
    (walk / "escape.txt").symlink_to(outside / "secret.txt")
    (outside / "secret.txt").write_text("s")
    return {
        "app": str(app), "data": str(data), "outside": str(outside), "walk": str(walk),
        "files": files, "token": str(app / "token.json"),
    }


def pick_path(rng: random.Random, tree: dict[str, Any], write: bool) -> str:
    """Mostly allowed paths, some outside the root, a few deny-listed."""
    roll = rng.random()
    if roll < 0.7:
        return rng.choice(tree["files"]) if not write else f"{tree['data']}/out{rng.randrange(99)}"
    if roll < 0.9:
        return f"{tree['outside']}/x{rng.randrange(99)}.txt"
    return tree["token"]


def make_arguments(rng: random.Random, tool: Tool, tree: dict[str, Any]) -> dict[str, Any]:
    """Arguments for one call of ``tool`` with real paths in the tree."""
    args: dict[str, Any] = {"id": f"X{rng.randrange(1000)}"}
    for p in tool.params:
        if p.optional and rng.random() < 0.3:
            continue
        if p.op == "direction":
            args["local_path"] = tree["walk"]
            args["direction"] = rng.choice(["upload", "download", "bidirectional"])
            continue
        if p.walks:
            args["local_path"] = tree["walk"]
            continue
        write = p.op == "write"
        if "[]" in p.location:
            list_name, _, key = p.location.partition("[].")
            args[list_name] = [
                {key: pick_path(rng, tree, write)} for _ in range(rng.randint(1, 3))
            ]
        else:
            args[p.location] = pick_path(rng, tree, write)
    for ip in tool.image_params:
        if not ip.in_file:
            imgs = " ".join(f"![i]({pick_path(rng, tree, False)})" for _ in range(2))
            args[ip.location] = f"# Doc\n{imgs}\n![w](https://example.com/a.png)"
    return args


def same_checks_alone(policy: Any, verdicts: list[CallVerdict]) -> float:
    """Seconds to redo exactly the checks the probe reported, with nothing around them."""
    plans = []
    for v in verdicts:
        single = [(p.path, p.op) for p in v.paths if p.kind != "entry"]
        walked = [(p.path, p.op) for p in v.paths if p.kind == "entry"]
        plans.append((single, walked))
    start = time.process_time()
    for single, walked in plans:
        for path, op in single:
            policy.check(path, op)
        if walked:
            with policy.many_checks() as batch:
                for path, op in walked:
                    batch.check(path, op)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--chunk", type=int, default=5_000)
    opts = parser.parse_args(argv)
    rng = random.Random(opts.seed)
    catalog: Catalog = load_catalog()
    with tempfile.TemporaryDirectory() as tmp:
        tree = build_tree(Path(tmp).resolve())
        env = load_env(None, overrides={
            "LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": tree["data"],
            "TOKEN_PATH": tree["token"], "HOME": tmp,
        })
        policy = resolve_policy(env, transport="stdio", cwd=tree["app"],
                                package_dir=tree["app"])
        registration = register_tools(policy, catalog)
        calls = []
        for _ in range(opts.calls):
            tool = rng.choice(catalog.tools)
            calls.append((tool.name, make_arguments(rng, tool, tree)))

        # Alternate chunks of probing with the same checks alone, so drift in the
        # machine's load during the run affects both sides alike. Each chunk runs twice:
        # with path discovery of undescribed arguments (the default) and without it.
        totals = {True: [0.0, 0.0, 0], False: [0.0, 0.0, 0]}  # probe s, checks s, paths
        outcomes: dict[str, int] = {}
        for at in range(0, len(calls), opts.chunk):
            chunk = calls[at:at + opts.chunk]
            for discover in (True, False):
                start = time.process_time()
                got = [
                    probe_call(policy, name, args, catalog=catalog,
                               registration=registration, discover=discover)
                    for name, args in chunk
                ]
                totals[discover][0] += time.process_time() - start
                totals[discover][1] += same_checks_alone(policy, got)
                # Keep counts, not verdicts: a report keeps rows, and a heap of 100,000
                # verdicts would make the garbage collector's passes the thing measured.
                totals[discover][2] += sum(len(v.paths) for v in got)
                if discover:
                    for v in got:
                        outcomes[v.outcome] = outcomes.get(v.outcome, 0) + 1
                del got

    print(f"calls: {len(calls)}   outcomes: {outcomes}   (CPU time of this process)")
    for discover, label in ((True, "with discovery"), (False, "catalog paths only")):
        probe_s, checks_s, n_paths = totals[discover]
        ratio = probe_s / checks_s if checks_s else float("inf")
        print(f"{label}: {n_paths} paths checked")
        print(f"  probe: {probe_s:.2f} s  ({len(calls) / probe_s:,.0f} calls/s)")
        print(f"  same checks alone: {checks_s:.2f} s  ({n_paths / checks_s:,.0f} checks/s)")
        print(f"  ratio probe / checks alone: {ratio:.2f}x  (target <= 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
