"""The batch resolves each parent once, building on its own parent's realpath.

``BatchChecker`` takes ``realpath(head/name)`` to be ``realpath(head)`` joined to
``name`` when ``lstat`` of that join is no symlink, and asks ``os.path.realpath`` itself
otherwise. On random trees (symlinks to directories, relative links out, dangling links,
links to themselves, files used as directories) and spellings with ``.``, ``..``, doubled
slashes and missing parts, asked in random order within one batch, every answer must be
``os.path.realpath``'s. The batch's verdicts on entries below such parents are held to
the server's own ``many_checks`` by the conformance tests.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from random_trees import add_entry

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.check import BatchChecker

KINDS = ("file", "dir", "dir", "dir", "symlink", "symlink-dir", "symlink-dir", "link-out",
         "dangling", "loop")


def _spellings(base: Path, rng: random.Random) -> list[str]:
    outside = base / "outside"
    outside.mkdir()
    dirs: list[Path] = [base, outside]
    files: list[Path] = []
    for i in range(rng.randint(10, 40)):
        parent = rng.choice(dirs)
        path = parent / rng.choice((f"d{i}", f"D{i}", "sub", "link", f"n{i}"))
        if os.path.lexists(path):
            continue
        kind = rng.choice(KINDS)
        if kind == "symlink" and not files:
            kind = "file"
        add_entry(path, kind, rng, files, dirs, links=False, outside=outside)
    names = [p.name for p in base.rglob("*")] + ["missing", ".", "..", ""]
    out = []
    for _ in range(300):
        parts = [str(base)]
        for _ in range(rng.randint(1, 5)):
            parts.append(rng.choice(names))
        spelled = "/".join(parts)
        if rng.random() < 0.1:
            spelled = "/" + spelled  # a leading "//"
        out.append(spelled.rstrip("/") or "/")
    return out


@pytest.mark.parametrize("seed", range(12))
def test_a_parent_resolves_as_realpath_does(tmp_path: Path, seed: int):
    rng = random.Random(seed)
    base = tmp_path.resolve()
    spellings = _spellings(base, rng)
    policy = resolve_policy(load_env(None, overrides={"HOME": str(base)}), cwd=str(base))
    batch = BatchChecker(policy)
    assert batch._derive  # on the host, parents are built on their parents
    for spelled in spellings:
        assert batch._real_parent(spelled) == os.path.realpath(spelled), spelled


def test_a_symlink_met_last_is_followed(tmp_path: Path):
    base = tmp_path.resolve()
    (base / "real" / "dir").mkdir(parents=True)
    (base / "real" / "dir" / "f.txt").write_text("x")
    (base / "link").symlink_to(base / "real", target_is_directory=True)
    policy = resolve_policy(load_env(None, overrides={
        "LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(base / "real"),
        "HOME": str(base)}), cwd=str(base))
    with policy.many_checks() as batch:
        assert batch.check_read(str(base / "real" / "dir" / "f.txt")).allowed
        d = batch.check_read(str(base / "link" / "dir" / "f.txt"))
    assert d.allowed and d.resolved == str(base / "real" / "dir" / "f.txt")
