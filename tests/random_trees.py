"""Random trees on disk for the randomized tests: one entry of a given kind at a time.

Kinds: ``file``, ``dir``, ``hardlink`` (of a file made before; nothing where the
filesystem can't hardlink), ``symlink`` (to a file), ``symlink-dir``, ``link-out`` (a
relative link to ``outside``), ``dangling`` and ``loop`` (a link to itself).
"""

from __future__ import annotations

import os
import random
from pathlib import Path


def add_entry(path: Path, kind: str, rng: random.Random, files: list[Path],
              dirs: list[Path], *, links: bool, outside: Path | None = None) -> None:
    """Create ``path`` as an entry of ``kind``, noting new files and directories."""
    if kind == "file":
        path.write_text("x")
        files.append(path)
    elif kind == "dir":
        path.mkdir()
        dirs.append(path)
    elif kind == "hardlink":
        if links and files:
            os.link(rng.choice(files), path)
            files.append(path)
    elif kind == "symlink":
        path.symlink_to(rng.choice(files))
    elif kind == "symlink-dir":
        path.symlink_to(rng.choice(dirs), target_is_directory=True)
    elif kind == "link-out" and outside is not None:
        path.symlink_to(os.path.relpath(outside, path.parent))
    elif kind == "dangling":
        path.symlink_to(path.parent / "missing-target")
    elif kind == "loop":
        path.symlink_to(path)
    else:
        raise ValueError(f"unknown entry kind {kind!r}")
