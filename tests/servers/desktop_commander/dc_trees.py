"""Random trees for comparing the explorer with the real DesktopCommanderMCP.

Each seed builds, under a fresh folder: an allowed directory ``a`` (with a file, a
subdirectory and symlinks in, out, dangling and looping), its prefix sibling
``a-evil``, its case twin ``A``, an outside folder with a symlink back in, a home
directory and a working directory; then picks the settings (an allow-list spelled in one
of many ways, ``[]``, ``["/"]``, none at all, no settings file) and the paths to ask
(absolute, relative to the working directory, with ``~``, ``..``, doubled or trailing
separators, case variants, through each symlink, below a file, ``/``).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path

#: Settings beyond the allow-list (no settings file: None).
NO_FILE = "no settings file"
UNSET = "no allowedDirectories"


@dataclass
class Tree:
    root: Path
    home: str
    cwd: str
    #: The allow-list written to the settings file; UNSET: the key left out; NO_FILE: no
    #: file at all.
    allowed: list[str] | str
    paths: list[str] = field(default_factory=list)


def _touch(path: Path, text: str = "x") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def build(root: Path, seed: int) -> Tree:
    rng = random.Random(seed)
    r = root
    for d in ("a/sub", "a-evil", "A", "out", "home/proj", "work"):
        (r / d).mkdir(parents=True, exist_ok=True)
    _touch(r / "a/f.txt")
    _touch(r / "a/sub/g.txt")
    _touch(r / "a-evil/f.txt")
    _touch(r / "A/f.txt")
    _touch(r / "out/s.txt")
    _touch(r / "home/h.txt")
    _touch(r / "home/proj/p.txt")
    os.symlink("../out", r / "a/link-out")
    os.symlink("sub", r / "a/link-in")
    os.symlink("../a", r / "out/link-back")
    os.symlink(f"../out/new-{seed}", r / "a/dangling-out")
    os.symlink("missing-dir/x", r / "a/dangling-in")
    os.symlink("loop2", r / "a/loop1")
    os.symlink("loop1", r / "a/loop2")
    os.symlink("a", r / "link-to-a")
    os.symlink("a/f.txt", r / "link-to-file")
    home, cwd = str(r / "home"), str(r / "work")
    a = str(r / "a")
    choices: list[list[str] | str] = [
        [a], [a + "/"], [a.upper()], [str(r / "A")], [a, str(r / "out")],
        [str(r / "link-to-a")], ["a"], ["~/proj"], ["~"], [], ["/"], [a, "/"],
        [a + "/sub"], ["//" + a.lstrip("/")], [a + "/../a"], UNSET, NO_FILE,
    ]
    allowed = choices[seed % len(choices)] if seed < len(choices) else rng.choice(choices)
    pool = [
        a, a + "/", a + "/f.txt", a + "/F.TXT", a + "/sub/g.txt", a + "/new.txt",
        a + "/new-dir/deeper/x.txt", a + "/f.txt/x", a + "/link-out/s.txt", a + "/link-out",
        a + "/link-in/g.txt", a + "/dangling-out", a + "/dangling-in", a + "/dangling-in/y",
        a + "/loop1", a + "/loop1/z", a + "/../out/s.txt", a + "/./f.txt", a + "//f.txt",
        str(r / "a-evil/f.txt"), str(r / "a-evil"), str(r / "A/f.txt"), str(r / "A"),
        str(r / "A/new.txt"), str(r / "out/s.txt"), str(r / "out/link-back/f.txt"),
        str(r / "link-to-a/f.txt"), str(r / "link-to-file"), str(r / "nowhere/x/y"),
        "../a/f.txt", "../A/f.txt", "../a-evil/f.txt", "../out/s.txt", "f.txt", ".",
        "../a/../out/s.txt", "~", "~/h.txt", "~/proj/p.txt", "~/proj/../h.txt",
        "~nobody/x", "~/../a/f.txt", "/", str(r), str(r).upper() + "/A/F.TXT",
    ]
    rng.shuffle(pool)
    return Tree(r, home, cwd, allowed, pool[: rng.randint(30, len(pool))])
