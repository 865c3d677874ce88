"""The explorer against the real filesystem server, on random trees.

Each tree (see fs_trees) gets its own server, started over stdio with the tree's
directories; every path is asked with ``get_file_info`` and then ``write_file``, and each
answer must be the explorer's: refused with the same text, or carried out on the path the
explorer says. LOCALFS_FS_TREES sets how many trees (the suite's default is small; the
server's README gives the larger figure run before a release). LOCALFS_FS_SEED moves the seeds.

A second, quicker comparison runs the package's own ``validatePath`` in node (no MCP
round trip) on the same trees, for the pinned release, the one before it and 2.0.1 (whose
server needs a newer node than its check does).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fs_differential import compare_tree
from fs_npm import (  # noqa: F401
    fixture_fs_new_dist,
    fixture_fs_old_dist,
    fixture_fs_server_dist,
    fixture_fs_server_js,
    node_validate,
)
from fs_trees import build

from localfs_explorer.fs import HostFS
from localfs_explorer.servers.filesystem import FilesystemConfig, FilesystemPolicy

TREES = int(os.environ.get("LOCALFS_FS_TREES", "3"))
FIRST_SEED = int(os.environ.get("LOCALFS_FS_SEED", "0"))
SEEDS = range(FIRST_SEED, FIRST_SEED + TREES)

pytestmark = [pytest.mark.slow, pytest.mark.real]


@pytest.mark.parametrize("seed", SEEDS)
def test_real_server_over_stdio_agrees(seed: int, tmp_path: Path, fs_server_js: str) -> None:
    (tmp_path / "t").mkdir()
    tree = build(tmp_path / "t", seed)
    assert compare_tree(tree, fs_server_js) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_validate_path_in_node_agrees(seed: int, tmp_path: Path, fs_server_dist: Path,
                                      fs_old_dist: Path, fs_new_dist: Path) -> None:
    (tmp_path / "t").mkdir()
    tree = build(tmp_path / "t", seed)
    for version, dist in (("2026.8.31", fs_server_dist), ("2026.7.10", fs_old_dist),
                          ("2.0.1", fs_new_dist)):
        config = FilesystemConfig(directories=tuple(tree.allow), cwd=str(tree.root),
                                  home=tree.home, version=version)
        policy = FilesystemPolicy(config, HostFS())
        theirs = node_validate(dist, list(policy.directories), tree.paths, tree.home, version)
        for path, (allowed, message, resolved) in zip(tree.paths, theirs, strict=True):
            v = policy.validate(path)
            assert (v.allowed, v.message, v.resolved) == (allowed, message, resolved), (
                version, path)
