"""How fast are probed tool calls, compared with the path checks they make?

    python benchmarks/bench_probe.py [--calls N] [--chunk C] [--seed S]

Builds a temporary tree (a data root with files, a small folder to walk, an escaping
symlink, a sibling outside the root, the server's own files) and draws N calls (default
100,000) from the shipped catalog's tools that touch local files, with real paths in that tree
(and the server's other required arguments filled in, so each call passes the argument
validation every probe now starts with). A first, untimed pass
probes every call once and writes down the checks it made: each (path, operation) and
the engine it used, a single ``Policy.check`` for a parameter, attachment, image,
walked folder's root or discovered path, and one ``many_checks()`` batch per folder walk
for its entries.

Then, chunk by chunk, it times side by side in one run:

- ``probe_call`` with path discovery of undescribed arguments (the default);
- ``probe_call(discover=False)``, catalog paths only;
- the same checks alone: the plan written down above, replayed with the same engine.

The cases take turns going first, so a burst of load elsewhere on the machine, and the
warm caches the first one leaves behind, land on all of them alike. Each chunk gives one
ratio of probe time to checks time; the median of those is the figure to read.
Target: at most 2x. Times are this process's CPU time. Verdicts are dropped as they
come, the way ``iter_call_verdicts`` streams them to the CLI and to ``probe_calls``;
a caller that holds every verdict of a batch also pays the garbage collector for them.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.catalog import Catalog, Tool, load_catalog
from localfs_explorer.probe import CallVerdict, probe_call
from localfs_explorer.servers.gee_sweet.registration import register_tools

#: One call's checks: single (path, op) checks, then one list of (path, op) per walk.
Plan = tuple[tuple[tuple[str, str], ...], tuple[tuple[tuple[str, str], ...], ...]]


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
    """Arguments for one call of ``tool`` with real paths in the tree; the server's other
    required arguments get placeholders, so the calls pass its argument validation."""
    args: dict[str, Any] = {}
    for p in tool.params:
        if p.optional and rng.random() < 0.3:
            continue
        if p.op == "direction":
            args["local_path"] = tree["walk"]
            args["direction"] = rng.choice(["upload", "download", "bidirectional"])
            args["recursive"] = rng.random() < 0.5
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
            args["content_format"] = "markdown"
    # Identifiers for the other required arguments, as a model would send them.
    return {k: f"X{rng.randrange(10**6)}" if isinstance(v, str) and v.startswith("<") else v
            for k, v in tool.complete_arguments(args).items()}


def plan_of(verdict: CallVerdict) -> Plan:
    """The checks a verdict reports, grouped by the engine the probe used for them."""
    single = tuple((p.path, p.op) for p in verdict.paths if p.kind != "entry")
    walks: dict[str, list[tuple[str, str]]] = {}
    for p in verdict.paths:
        if p.kind == "entry":
            walks.setdefault(p.argument, []).append((p.path, p.op))
    return single, tuple(tuple(entries) for entries in walks.values())


def replay(policy: Any, plans: list[Plan]) -> None:
    """The checks alone: single checks one by one, each walk's entries in one batch."""
    check = policy.check
    for single, walks in plans:
        for path, op in single:
            check(path, op)
        for entries in walks:
            with policy.many_checks() as batch:
                for path, op in entries:
                    batch.check(path, op)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--chunk", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=7)
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
        # The tools that touch local files: the others' calls check nothing.
        tools = [t for t in catalog.tools if t.touches_disk]
        for _ in range(opts.calls):
            tool = rng.choice(tools)
            calls.append((tool.name, make_arguments(rng, tool, tree)))

        def probe(chunk: list[tuple[str, dict[str, Any]]], discover: bool) -> None:
            for name, args in chunk:
                probe_call(policy, name, args, catalog=catalog, registration=registration,
                           discover=discover)

        # The untimed pass: what each call checks, and what it comes to.
        outcomes: dict[str, int] = {}
        plans: dict[bool, list[Plan]] = {True: [], False: []}
        for name, args in calls:
            for discover in (True, False):
                v = probe_call(policy, name, args, catalog=catalog,
                               registration=registration, discover=discover)
                plans[discover].append(plan_of(v))
                if discover:
                    outcomes[v.outcome] = outcomes.get(v.outcome, 0) + 1
        same_plan = plans[True] == plans[False]
        n_checks = {
            d: sum(len(s) + sum(len(w) for w in ws) for s, ws in plans[d]) for d in plans
        }
        n_walks = sum(len(ws) for _, ws in plans[True])

        cases: dict[str, Callable[[int, int], None]] = {
            "probe": lambda a, b: probe(calls[a:b], True),
            "probe, discover=False": lambda a, b: probe(calls[a:b], False),
            "checks alone": lambda a, b: replay(policy, plans[True][a:b]),
        }
        if not same_plan:
            cases["checks alone, discover=False"] = (
                lambda a, b: replay(policy, plans[False][a:b])
            )
        # Keep the calls and plans out of the collector's passes: scanning them again and
        # again would be the set-up being measured, not the probe.
        gc.collect()
        gc.freeze()
        rounds: list[dict[str, float]] = []
        order = list(cases)
        for at in range(0, len(calls), opts.chunk):
            end = min(at + opts.chunk, len(calls))
            spent: dict[str, float] = {}
            for name in order:
                start = time.process_time()
                cases[name](at, end)
                spent[name] = time.process_time() - start
            rounds.append(spent)
            order = order[1:] + order[:1]  # a different case goes first next time
        gc.unfreeze()

    total = {name: sum(r[name] for r in rounds) for name in cases}
    print(f"{len(calls)} calls drawn from the catalog, {len(rounds)} interleaved chunks of "
          f"{opts.chunk}; Python {sys.version.split()[0]}; CPU time of this process")
    print(f"outcomes: {outcomes}")
    print(f"checks per pass: {n_checks[True]} ({n_walks} folder walks)"
          + ("" if same_plan else f"; {n_checks[False]} with discover=False"))
    print("checks alone = the probe's own (path, op) checks replayed with its engine: "
          "Policy.check one by one, and one many_checks() batch per folder walk")
    for name in cases:
        print(f"  {name:<30} {total[name]:7.2f} s  {len(calls) / total[name]:>9,.0f} calls/s")
    alone_default = "checks alone"
    alone_catalog = "checks alone" if same_plan else "checks alone, discover=False"
    for name, alone in (("probe", alone_default), ("probe, discover=False", alone_catalog)):
        ratio = statistics.median(r[name] / r[alone] for r in rounds if r[alone] > 0)
        verdict = "ok" if ratio <= 2.0 else "MISSED"
        print(f"{name} / {alone}: {ratio:.2f}x median of per-chunk ratios "
              f"(whole run {total[name] / total[alone]:.2f}x; target <= 2x) {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
