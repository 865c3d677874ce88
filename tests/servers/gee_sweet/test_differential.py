"""Differential tests: random trees built on disk and in memory must get the same answers.

Hypothesis draws a tree (nested directories, files, hardlinks, symlinks with relative and
absolute targets, ``..``, trailing slashes, dangling links and loops) and a set of probe
paths (inside, outside, through links, with ``..``, relative, missing). The tree is built
under a fresh temporary directory and, at the same absolute paths, as a VirtualFS. Then:

- the filesystem answers (realpath, lstat, stat, readlink, listdir, identity) must agree;
- the engine's Decisions (allowed, reason, message, resolved) for read and write, single
  and batched, must agree under ``full``, ``roots`` (a root drawn from the tree) and
  ``off``, with the token and credentials deny-listed inside the tree;
- a snapshot of the tree, loaded after the tree is deleted, must give the same Decisions.

Each test runs 300 examples by default; set ``LOCALFS_HYPOTHESIS_EXAMPLES`` (e.g. 5000)
for a longer search. A disagreement found this way becomes a named regression test at
the bottom of this module.
"""

from __future__ import annotations

import errno
import os
import posixpath
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.fs import FileSystem, HostFS
from localfs_explorer.fs.snapshot import snapshot
from localfs_explorer.fs.spec import from_spec, to_spec
from localfs_explorer.fs.virtual import VirtualFS

EXAMPLES = int(os.environ.get("LOCALFS_HYPOTHESIS_EXAMPLES", "300"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Few names, so that draws collide: links land on files that exist, probes hit entries.
NAMES = ["a", "b", "r", "tok.json", "cred.json", ".env", "Tok.json"]
STEPS = [*NAMES, "..", ".", ""]
TOKEN = "r/tok.json"  # TOKEN_PATH, inside the root
CREDENTIALS = "cred.json"  # CREDENTIALS_PATH, relative: resolves against the cwd
PLACEHOLDER = "{T}"


@dataclass
class Tree:
    """Operations relative to the tree's base; ``{T}`` in a target is the base."""

    ops: list[tuple[str, ...]] = field(default_factory=list)
    dirs: list[str] = field(default_factory=lambda: ["", "r"])
    files: list[str] = field(default_factory=list)  # what a hardlink may name
    taken: set[str] = field(default_factory=lambda: {"r"})


@st.composite
def trees(draw: st.DrawFn) -> Tree:
    tree = Tree()
    tree.ops.append(("dir", "r"))
    # The deny-listed files exist in about half the trees, so hardlinks and symlinks to
    # them (and writes to them while missing) are both common.
    for rel in (TOKEN, CREDENTIALS):
        if draw(st.booleans()):
            tree.ops.append(("file", rel))
            tree.files.append(rel)
            tree.taken.add(rel)
    for _ in range(draw(st.integers(0, 14))):
        parent = draw(st.sampled_from(tree.dirs))
        name = draw(st.sampled_from(NAMES))
        rel = f"{parent}/{name}" if parent else name
        if rel in tree.taken:
            continue
        tree.taken.add(rel)
        kind = draw(st.sampled_from(["dir", "file", "symlink", "symlink", "hardlink"]))
        if kind == "dir":
            tree.ops.append(("dir", rel))
            tree.dirs.append(rel)
        elif kind == "file" or (kind == "hardlink" and not tree.files):
            tree.ops.append(("file", rel))
            tree.files.append(rel)
        elif kind == "hardlink":
            tree.ops.append(("link", draw(st.sampled_from(tree.files)), rel))
            tree.files.append(rel)
        else:
            tree.ops.append(("symlink", draw(targets(tree)), rel))
            # link(2) gives a symlink a second name without following it; allow that.
            tree.files.append(rel)
    return tree


def relative_parts(draw: st.DrawFn, max_size: int) -> str:
    return "/".join(draw(st.lists(st.sampled_from(STEPS), min_size=1, max_size=max_size)))


@st.composite
def targets(draw: st.DrawFn, tree: Tree) -> str:
    style = draw(st.sampled_from(["relative", "absolute", "entry"]))
    if style == "entry":
        # Straight at something that exists (the token, a directory, another link).
        text = f"{PLACEHOLDER}/{draw(st.sampled_from(sorted(tree.taken)))}"
    else:
        text = relative_parts(draw, 4)
        if style == "absolute":
            text = f"{PLACEHOLDER}/{text}"
    if draw(st.integers(0, 5)) == 0:
        text += "/"
    return text or "."


@st.composite
def probes(draw: st.DrawFn, tree: Tree) -> list[str]:
    out = []
    entries = sorted(tree.taken)
    for _ in range(draw(st.integers(1, 6))):
        where = draw(st.sampled_from(["entry", "entry", "inside", "relative", "outside"]))
        if where == "entry":
            text = f"{PLACEHOLDER}/{draw(st.sampled_from(entries))}"
            if draw(st.booleans()):
                text += "/" + relative_parts(draw, 3)
        else:
            text = relative_parts(draw, 5)
            if where == "inside":
                text = f"{PLACEHOLDER}/{text}"
            elif where == "outside":
                text = f"{PLACEHOLDER}/../elsewhere/{text}"
        if draw(st.integers(0, 6)) == 0:
            text += "/"
        out.append(text)
    return out


@st.composite
def worlds(draw: st.DrawFn) -> tuple[Tree, list[str], str]:
    """A tree, probes into it, and the root to configure (maybe not a directory)."""
    tree = draw(trees())
    root = draw(st.sampled_from(["r", "r", "missing", *sorted(tree.taken)]))
    return tree, draw(probes(tree)), root


@contextmanager
def built(tree: Tree) -> Iterator[tuple[str, str, HostFS, VirtualFS]]:
    """(scratch dir, base, HostFS, VirtualFS) with ``tree`` built on disk and in memory.

    The base sits a few directories below a fresh temporary directory, so targets that
    climb with ``..`` land in directories that look the same on both sides.
    """
    scratch = os.path.realpath(tempfile.mkdtemp(prefix="localfs-diff-"))
    base = f"{scratch}/w1/w2/t"
    os.makedirs(base)
    virtual = VirtualFS(home=f"{base}/home", cwd=base)
    virtual.mkdir(base)
    try:
        for op, *args in tree.ops:
            path = f"{base}/{args[-1]}"
            if op == "dir":
                os.mkdir(path)
                virtual.mkdir(path)
            elif op == "file":
                Path(path).touch()
                virtual.add_file(path)
            elif op == "link":
                os.link(f"{base}/{args[0]}", path)
                virtual.link(f"{base}/{args[0]}", path)
            else:
                target = args[0].replace(PLACEHOLDER, base)
                os.symlink(target, path)
                virtual.symlink(target, path)
        note(f"tree: {tree.ops}")
        yield scratch, base, HostFS(), virtual
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def outcome(call: Callable[[], object]) -> object:
    try:
        value = call()
    except OSError as exc:
        return (type(exc).__name__, errno.errorcode.get(exc.errno or 0))
    except ValueError as exc:
        return ("ValueError", str(exc))
    if hasattr(value, "st_mode"):
        return stat.S_IFMT(value.st_mode)  # type: ignore[attr-defined]
    return sorted(value) if isinstance(value, list) else value


def identity_classes(fs: FileSystem, paths: list[str]) -> list[int | None]:
    """For each path, the index of the first path naming the same file (None: nothing)."""
    ids = [fs.identity(p) for p in paths]
    return [None if i is None else ids.index(i) for i in ids]


def fs_answers(fs: FileSystem, paths: list[str], scratch: str) -> dict[str, object]:
    answers: dict[str, object] = {"identity": identity_classes(fs, paths)}
    for path in paths:
        answers[f"realpath {path}"] = outcome(lambda p=path: fs.realpath(p))
        for name in ("lstat", "stat", "readlink"):
            answers[f"{name} {path}"] = outcome(lambda p=path, n=name: getattr(fs, n)(p))
        real = fs.realpath(path)
        # Above the scratch directory the two sides differ by design (the VirtualFS has
        # bare ancestors), so directory listings are compared inside it only.
        if real.startswith(scratch + "/"):
            answers[f"listdir {path}"] = outcome(lambda p=path: fs.listdir(p))
    return answers


def settings_for(base: str, root: str) -> dict[str, dict[str, str]]:
    common = {
        "TOKEN_PATH": f"{base}/{TOKEN}",
        "CREDENTIALS_PATH": CREDENTIALS,
        "HOME": f"{base}/home",
    }
    return {
        "full": {**common, "LOCAL_FILE_ACCESS": "full"},
        "roots": {**common, "LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": root},
        "off": {**common, "LOCAL_FILE_ACCESS": "off"},
    }


def decisions(fs: FileSystem, base: str, root: str, paths: list[str]) -> dict[str, object]:
    """Every Decision the engine reaches for ``paths``, keyed by mode, op and path."""
    out: dict[str, object] = {}
    for mode, values in settings_for(base, root).items():
        policy = resolve_policy(
            load_env(None, overrides=values),
            transport="stdio",
            fs=fs,
            cwd=base,
            package_dir=f"{base}/pkg",
        )
        out[f"{mode} policy"] = (
            policy.mode,
            [e.replace(fs.label, "<fs>") for e in policy.errors],
            [(d.setting, d.resolved, d.exists) for d in policy.deny_list],
        )
        with policy.many_checks() as batch:
            for path in paths:
                for op in ("read", "write"):
                    single = policy.check(path, op)
                    batched = batch.check_read(path) if op == "read" else batch.check_write(path)
                    for how, d in (("single", single), ("batch", batched)):
                        out[f"{mode} {op} {how} {path}"] = (
                            d.allowed,
                            d.reason,
                            d.message,
                            d.resolved,
                        )
    return out


def expand(paths: list[str], base: str) -> list[str]:
    return [p.replace(PLACEHOLDER, base) for p in paths]


# ----------------------------------------------------------------------------- tests


@SETTINGS
@given(world=worlds())
def test_filesystem_answers_agree(world: tuple[Tree, list[str], str]) -> None:
    tree, raw_probes, _ = world
    with built(tree) as (scratch, base, host, virtual):
        # Relative probes are compared by the engine (its cwd is the base); here they
        # would resolve against the test process's cwd on one side only.
        paths = [posixpath.join(base, p) for p in expand(raw_probes, base)]
        paths += [f"{base}/{TOKEN}", f"{base}/{CREDENTIALS}"]
        assert fs_answers(virtual, paths, scratch) == fs_answers(host, paths, scratch)


@SETTINGS
@given(world=worlds())
def test_decisions_agree(world: tuple[Tree, list[str], str]) -> None:
    tree, raw_probes, root_rel = world
    with built(tree) as (_, base, host, virtual):
        root = f"{base}/{root_rel}"
        paths = [*expand(raw_probes, base), f"{base}/{TOKEN}", CREDENTIALS]
        assert decisions(virtual, base, root, paths) == decisions(host, base, root, paths)


@settings(SETTINGS, max_examples=max(50, EXAMPLES // 3))
@given(world=worlds())
def test_a_snapshot_decides_like_the_tree_after_the_tree_is_gone(
    world: tuple[Tree, list[str], str],
) -> None:
    tree, raw_probes, root_rel = world
    with built(tree) as (_, base, host, _virtual):
        root = f"{base}/{root_rel}"
        paths = [*expand(raw_probes, base), f"{base}/{TOKEN}", CREDENTIALS]
        expected = decisions(host, base, root, paths)
        taken = snapshot(base, home=f"{base}/home")
        assert taken.complete
    assert not os.path.exists(base)
    assert decisions(taken.to_fs(), base, root, paths) == expected


@settings(SETTINGS, max_examples=max(50, EXAMPLES // 3))
@given(world=worlds())
def test_spec_round_trip_keeps_every_answer(world: tuple[Tree, list[str], str]) -> None:
    tree, raw_probes, _ = world
    with built(tree) as (scratch, base, _host, virtual):
        copy = from_spec(to_spec(virtual))
        assert to_spec(copy) == to_spec(virtual)
        paths = [posixpath.join(base, p) for p in expand(raw_probes, base)]
        assert fs_answers(copy, paths, scratch) == fs_answers(virtual, paths, scratch)


# ----------------------------------------------------------------------------- regressions
# Disagreements met while building VirtualFS, pinned by name.


def test_regression_loop_then_double_slash_follows_the_python_version(tmp_path: Path) -> None:
    # CPython 3.10-3.12 join the rest after a loop with posixpath.join, so "loop//x"
    # becomes "/x"; 3.13 keeps going. An early VirtualFS normalised the rest instead.
    base = os.path.realpath(tmp_path)
    os.symlink("loop", f"{base}/loop")
    virtual = VirtualFS()
    virtual.symlink("loop", f"{base}/loop")
    for probe in (f"{base}/loop//x", f"{base}/loop/./../x", f"{base}/loop/x/"):
        assert virtual.realpath(probe) == os.path.realpath(probe)


def test_regression_trailing_slash_makes_lstat_follow_the_link(tmp_path: Path) -> None:
    base = os.path.realpath(tmp_path)
    os.mkdir(f"{base}/d")
    os.symlink("d", f"{base}/l")
    os.symlink("d/", f"{base}/slashed")
    virtual = VirtualFS()
    virtual.mkdir(f"{base}/d")
    virtual.symlink("d", f"{base}/l")
    virtual.symlink("d/", f"{base}/slashed")
    for probe in (f"{base}/l/", f"{base}/l/.", f"{base}/slashed", f"{base}/slashed/"):
        assert stat.S_IFMT(virtual.lstat(probe).st_mode) == stat.S_IFMT(os.lstat(probe).st_mode)
