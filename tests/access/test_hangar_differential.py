"""The explorer's hangar answers against hangar's own decide(), on random configurations.

Each configuration is written as YAML the way operators write it, read by the explorer
and by hangar 2.34.4 (``prepare_config`` + ``build_config``), and every tool is asked on
every route (named directly with the groups that own it, or through a group; no tenant
or one of two), sometimes under a run-time ``_global`` policy. Visible, held, the
approval timeout and the channel must agree on every answer. ``LOCALFS_HANGAR_CONFIGS``
sets how many configurations (default 100; docs/hangar.md gives the larger count run
before a release).
"""

from __future__ import annotations

import os
import random

import pytest
import yaml

oracle = pytest.importorskip("hangar_oracle")

from localfs_explorer.access.hangar import CallRoute, answer_tools  # noqa: E402
from localfs_explorer.access.hangar_config import read_hangar  # noqa: E402
from localfs_explorer.access.hangar_policy import ScopeBlock  # noqa: E402


def _scope_block(block: dict | None) -> ScopeBlock | None:
    if block is None:
        return None
    return ScopeBlock("_global", allow_list=tuple(block.get("allow_list", ())),
                      deny_list=tuple(block.get("deny_list", ())),
                      approval_list=tuple(block.get("approval_list", ())),
                      approval_timeout_seconds=block.get("approval_timeout_seconds", 300),
                      approval_channel=block.get("approval_channel", ""))


COUNT = int(os.environ.get("LOCALFS_HANGAR_CONFIGS", "100"))
SEED = int(os.environ.get("LOCALFS_HANGAR_SEED", "29"))


@pytest.mark.slow
@pytest.mark.real
def test_answers_match_hangars_decide_on_random_configs() -> None:
    differences: list[str] = []
    checks = findings = held = hidden = 0
    for index in range(COUNT):
        rng = random.Random(SEED * 100_003 + index)
        config, routes = oracle.random_config(rng)
        global_block = oracle.random_global(rng)
        text = yaml.safe_dump(config, sort_keys=False)
        ours = read_hangar(text, source=f"config-{index}.yaml",
                           global_block=_scope_block(global_block))
        theirs = oracle.HangarOracle(text, global_block)
        for route in routes:
            expected = theirs.answers(route["server"], route["via"], route["tenant"],
                                      list(oracle.TOOLS))
            answers = answer_tools(ours, CallRoute(**route), oracle.TOOLS)
            for want, got in zip(expected, answers, strict=True):
                checks += 1
                findings += got.finding is not None
                held += got.held
                hidden += not got.visible
                mine = (got.tool, got.visible, got.held, got.timeout, got.channel)
                if mine != want and len(differences) < 10:
                    differences.append(f"config {index} {route}: hangar {want}, explorer {mine}")
    assert differences == []
    # The configurations exercise every answer, and multi-scope ones break the rule.
    assert checks > COUNT * 40 and held and hidden and findings
