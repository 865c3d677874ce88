"""How fast does the explorer answer a hangar route, compared with hangar deciding it?

    python benchmarks/bench_access.py [--tools N] [--rounds R] [--seed S]

Writes an mcp-hangar configuration with 50 policy blocks that all apply to one call
route: a server's own block, 40 per-tenant blocks on it, and five groups that own the
server, each with a group block and a member block (so a call naming the server directly
is decided under six scope keys). Every block has allow, deny and approval globs. Then
it answers N tool names (default 1,000) for that route, in rounds, timing side by side:

- ``answer_tools``: hangar's answer, the documented answer and the findings, per tool
  (the route resolved once per call of ``answer_tools``, as the CLI does);
- hangar's own ``decide()`` for the same tools, on the same configuration loaded by
  hangar (when mcp-hangar is installed: the test extra on Python 3.11+);
- the explorer's own access lists (``ToolAccess.gate``) merged from the same blocks.

The cases take turns going first each round. Reported: the median time per case for all
N tools and the ratios. Target: ``answer_tools`` under 50 ms for 1,000 tools. Times are
this process's CPU time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import yaml

from localfs_explorer.access import ToolAccess, merge_scopes
from localfs_explorer.access.hangar import CallRoute, answer_tools
from localfs_explorer.access.hangar_config import read_hangar

VERBS = ("get", "list", "create", "update", "delete", "deploy", "drop", "read", "write", "sync")
NOUNS = ("repo", "user", "file", "app", "db", "issue", "alert", "sheet", "doc", "token")


def tool_names(count: int, rng: random.Random) -> list[str]:
    names = [f"{v}_{n}" for v in VERBS for n in NOUNS]
    while len(names) < count:
        names.append(f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}_{len(names)}")
    return names[:count]


def block(rng: random.Random) -> dict[str, Any]:
    def globs(k: int) -> list[str]:
        return [rng.choice((f"{rng.choice(VERBS)}_*", f"*_{rng.choice(NOUNS)}",
                            f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}*", "*_[0-9]*"))
                for _ in range(k)]
    return {"allow_list": ["*", *globs(3)], "deny_list": globs(2), "approval_list": globs(2),
            "approval_timeout_seconds": rng.choice((60, 120, 300, 600))}


def config(rng: random.Random) -> dict[str, Any]:
    server: dict[str, Any] = {"command": ["server"], "tools": block(rng),
                              "tool_access": {"member": {f"t{i}": block(rng)
                                                         for i in range(40)}}}
    servers: dict[str, Any] = {"api": server}
    for g in range(5):
        servers[f"g{g}"] = {"mode": "group", "auto_start": False, "tools": block(rng),
                            "members": [{"id": "api", "tools": block(rng)}]}
    return {"mcp_servers": servers}


def timed(fn: Callable[[], Any]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    data = config(rng)
    text = yaml.safe_dump(data, sort_keys=False)
    names = tool_names(args.tools, rng)
    route = CallRoute("api", None, "t7")

    start = time.process_time()
    hangar_config = read_hangar(text, source="bench.yaml")
    read_s = time.process_time() - start
    print(f"config: {hangar_config.scope_count()} policy blocks, {len(names)} tools; "
          f"read in {read_s * 1000:.1f} ms")

    spec = data["mcp_servers"]
    blocks = [spec["api"]["tools"], spec["api"]["tool_access"]["member"]["t7"]]
    for g in range(5):
        blocks += [spec[f"g{g}"]["tools"], spec[f"g{g}"]["members"][0]["tools"]]
    lists = merge_scopes(*(ToolAccess(**b) for b in blocks))

    cases: dict[str, Callable[[], Any]] = {
        "explorer answer_tools": lambda: answer_tools(hangar_config, route, names),
        "explorer ToolAccess.gate": lambda: [lists.gate(n) for n in names],
    }
    try:
        import logging

        import structlog
        from mcp_hangar.domain.services.access_decision import decide
        from mcp_hangar.domain.value_objects.access import Caller, Target
        from mcp_hangar.server.config import build_config, prepare_config

        structlog.configure(
            wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
        logging.disable(logging.CRITICAL)  # hangar's own log lines, not its answers

        class NoWithdrawals:
            def withdrawal_status(self, *_a: Any, **_k: Any) -> None:
                return None

        staged = build_config(prepare_config(yaml.safe_load(text), source="b")["mcp_servers"])
        resolver = staged.policies
        target = Target.server("api", owning_groups=tuple(f"g{g}" for g in range(5)))
        caller, overlay = Caller(tenant_id="t7"), NoWithdrawals()

        def hangar() -> None:
            resolver.invalidate_cache()  # each round resolves the route once, like ours
            for n in names:
                decide(target, n, caller, resolver=resolver, withdrawals=overlay)

        cases["mcp-hangar decide()"] = hangar
    except ImportError:
        print("mcp-hangar not installed: its decide() is left out")

    # The same answers from both, before any timing.
    if "mcp-hangar decide()" in cases:
        ours = answer_tools(hangar_config, route, names)
        theirs = [decide(target, n, caller, resolver=resolver, withdrawals=overlay)
                  for n in names]
        assert [a.visible for a in ours] == [d.allowed for d in theirs]
        assert [a.held for a in ours] == [d.approval_policy is not None for d in theirs]

    times: dict[str, list[float]] = {name: [] for name in cases}
    order = list(cases)
    for _ in range(args.rounds):
        rng.shuffle(order)
        for name in order:
            times[name].append(timed(cases[name]))
    medians = {name: statistics.median(t) for name, t in times.items()}
    base = medians["explorer answer_tools"]
    for name, value in medians.items():
        print(f"{name:<26} {value * 1000:8.2f} ms for {len(names)} tools "
              f"(x{value / base:.2f} of answer_tools)")
    verdict = "OK" if base < 0.050 else "SLOWER than the 50 ms target"
    print(f"answer_tools: {base * 1000:.2f} ms for {len(names)} tools on one route: {verdict}")


if __name__ == "__main__":
    main()
