"""Random directory trees that exercise the filesystem server's path checks.

Each tree lives under one scratch folder: one or two directories to allow (sometimes
named through a symlink), their prefix, quote and whitespace siblings, symlinks in and
out, dangling and looping links, names in NFC and NFD (and a third spelling of the same
name), files used as directories, and the paths to ask about: every entry, spelled with
``..``, ``//``, a trailing slash, a missing tail, a sibling suffix, another normal form,
relative and ``~`` forms.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path

NFC = "\u1e69"  # s with dot below and dot above
NFD = "s\u0323\u0307"
ODD = "s\u0307\u0323"  # neither form, canonically equal to both
ACUTE_NFC = "caf\u00e9"
ACUTE_NFD = "cafe\u0301"
SUFFIXES = ("'", '"', " ", "  ", "\t", "\u00a0", "\ufeff", "\u0085", "\u2028", "' ", " '")


@dataclass
class Tree:
    """A built tree: what to allow (as argv gives it) and which paths to ask about."""

    root: Path
    allow: list[str]
    home: str
    paths: list[str] = field(default_factory=list)


def _touch(p: Path) -> None:
    p.write_text("x")


def build(root: Path, seed: int) -> Tree:
    """A random tree under ``root`` (which must exist and be empty)."""
    rnd = random.Random(seed)
    root = Path(os.path.realpath(root))
    outside = root / "outside"
    outside.mkdir()
    _touch(outside / "secret")
    names = ["data", "work"]
    allowed_dirs: list[Path] = []
    for name in names[: rnd.choice((1, 1, 2))]:
        d = root / name
        d.mkdir()
        allowed_dirs.append(d)
    entries: list[Path] = []
    for d in allowed_dirs:
        (d / "sub").mkdir()
        _touch(d / "file.txt")
        _touch(d / "sub" / "inner.txt")
        entries += [d, d / "sub", d / "file.txt", d / "sub" / "inner.txt"]
        if rnd.random() < 0.7:
            os.symlink(outside, d / "out")
            entries.append(d / "out")
        if rnd.random() < 0.7:
            os.symlink("sub", d / "in")
            entries.append(d / "in")
        if rnd.random() < 0.5:
            os.symlink("missing-target", d / "dangling")
            entries.append(d / "dangling")
        if rnd.random() < 0.4:
            os.symlink("loop", d / "loop")
            entries.append(d / "loop")
        if rnd.random() < 0.4:
            os.symlink(str(outside / "secret"), d / "secret-link")
            entries.append(d / "secret-link")
        if rnd.random() < 0.6:
            for spelling in rnd.sample([NFC, NFD], rnd.choice((1, 2))):
                (d / spelling).mkdir(exist_ok=True)
                entries.append(d / spelling)
        if rnd.random() < 0.5:
            spelling = rnd.choice([ACUTE_NFC, ACUTE_NFD])
            _touch(d / spelling)
            entries.append(d / spelling)
        if rnd.random() < 0.4:
            (d / "space ").mkdir()
            entries.append(d / "space ")
        # Siblings that only the trimmed comparison would take for the directory.
        for suffix in rnd.sample(SUFFIXES, rnd.randint(0, 3)):
            sib = Path(str(d) + suffix)
            if rnd.random() < 0.5:
                sib.mkdir(exist_ok=True)
                _touch(sib / "inside")
                entries.append(sib / "inside")
            else:
                _touch(sib)
            entries.append(sib)
        if rnd.random() < 0.5:
            prefix = Path(str(d) + "-evil")
            prefix.mkdir()
            _touch(prefix / "f")
            entries += [prefix, prefix / "f"]
        if rnd.random() < 0.3:
            os.symlink(str(d) + "'", d / "to-quote-sibling")
            entries.append(d / "to-quote-sibling")
    allow: list[str] = []
    for d in allowed_dirs:
        if rnd.random() < 0.3:
            link = root / f"link-{d.name}"
            os.symlink(d, link)
            allow.append(str(link))
            entries.append(link)
            entries.append(link / "file.txt")
        else:
            allow.append(str(d) + rnd.choice(("", "", "/", "//.")))
    paths: list[str] = []
    for e in entries:
        s = str(e)
        paths.append(s)
        variants = [
            s + "/missing", s + "/missing/deeper", s + "/", s + "//", s + "/.", s + "/..",
            s.replace(str(root), str(root) + "//", 1), s + "/../" + e.name,
            s + rnd.choice(SUFFIXES), s + "/" + rnd.choice((NFC, NFD, ODD, ACUTE_NFC, ACUTE_NFD)),
        ]
        paths += rnd.sample(variants, 4)
    for d in allowed_dirs:
        for suffix in rnd.sample(SUFFIXES, 4):
            paths.append(str(d) + suffix)
            paths.append(str(d) + suffix + "/new")
        paths += [f"{d}/{ODD}", f"{d}/{ODD}/x", f"{d}/{NFC}/x", f"{d}/{NFD}/new",
                  f"{d}/{ACUTE_NFC}/x", f"{d}/{ACUTE_NFD}", f"{d}/file.txt/x",
                  f"{d}/loop/x", f"{d}/dangling/x", f"{d}/../{d.name}-evil/f"]
    paths += ["sub/inner.txt", "missing.txt", "../outside/secret", "~/data/file.txt", "~",
              "C:\\x", "c:/x", "", "file.txt/", f"{root}/data/nul\0byte", str(root),
              str(outside / "secret"), "/"]
    rnd.shuffle(paths)
    return Tree(root, allow, str(root), paths)
