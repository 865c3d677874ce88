"""The explorer against the real DesktopCommanderMCP over stdio, on random trees.

Each tree (see dc_trees) gets its own server with its own ``HOME``; every path is asked
with ``get_file_info`` and then ``write_file``, and each answer must be the explorer's.
LOCALFS_DC_TREES sets how many trees (the suite's default is small; the README gives the
larger figure run before a release); LOCALFS_DC_SEED moves the seeds.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from dc_differential import compare_tree
from dc_npm import fixture_dc_dist, fixture_dc_server_js  # noqa: F401
from dc_trees import build

TREES = int(os.environ.get("LOCALFS_DC_TREES", "4"))
FIRST_SEED = int(os.environ.get("LOCALFS_DC_SEED", "0"))

pytestmark = [pytest.mark.slow, pytest.mark.real]


@pytest.mark.parametrize("seed", range(FIRST_SEED, FIRST_SEED + TREES))
def test_real_server_over_stdio_agrees(seed: int, tmp_path: Path, dc_server_js: str) -> None:
    tree = build(tmp_path, seed)
    assert compare_tree(tree, dc_server_js) == []
