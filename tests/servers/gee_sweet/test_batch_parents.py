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
from conftest import can_hardlink
from random_trees import add_entry

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.servers.gee_sweet.check import BatchChecker

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


def test_a_loop_followed_by_a_doubled_slash_is_left_to_realpath(tmp_path: Path):
    # On CPython 3.10-3.12 realpath("loop//a") gives "/a": the rest after a loop is
    # joined as an absolute path. Joining onto the loop's realpath gives "<base>/loop/a",
    # inside the root, where the server's many_checks (and the single check) refuse.
    base = tmp_path.resolve()
    (base / "a").symlink_to("a")
    policy = resolve_policy(load_env(None, overrides={
        "LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(base), "HOME": str(base)}),
        cwd=str(base))
    spelled = f"{base}/a//a/a"
    single = policy.check_read(spelled)
    with policy.many_checks() as batch:
        assert batch._real_parent(f"{base}/a//a") == os.path.realpath(f"{base}/a//a")
        batched = batch.check_read(spelled)
    assert (batched.allowed, batched.reason, batched.resolved) == (
        single.allowed, single.reason, single.resolved)


def test_a_symlink_met_last_is_followed(tmp_path: Path):
    base = tmp_path.resolve()
    (base / "real" / "dirX").mkdir(parents=True)
    (base / "real" / "dirX" / "f.txt").write_text("x")
    (base / "link").symlink_to(base / "real", target_is_directory=True)
    policy = resolve_policy(load_env(None, overrides={
        "LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(base / "real"),
        "HOME": str(base)}), cwd=str(base))
    with policy.many_checks() as batch:
        assert batch.check_read(str(base / "real" / "dirX" / "f.txt")).allowed
        d = batch.check_read(str(base / "link" / "dirX" / "f.txt"))
    assert d.allowed and d.resolved == str(base / "real" / "dirX" / "f.txt")


def test_the_batch_refuses_what_its_per_parent_shortcut_must_not_allow(layout):
    """Entries whose refusal depends on the parent (outside the roots, inside the deny-listed
    cache directory, a '//' spelling) or on the name or inode (a deny-listed name, the
    cache directory itself in another case, a hardlink of the token) are refused by the
    batch exactly as by the single check, whatever was asked before them."""
    cache = layout.home / ".cache" / "mcp-gee-sweet"
    cache.mkdir(parents=True)
    (cache / "cache.db").write_text("x")
    (cache / "other.txt").write_text("x")  # refused by the deny dir alone
    (layout.home / "plain.txt").write_text("x")
    (layout.home / ".cache" / "MCP-GEE-SWEET.txt").write_text("x")
    expected = {
        layout.home / "plain.txt": "allowed",
        cache / "cache.db": "denied",
        cache / "other.txt": "denied",
        layout.home / ".cache" / "mcp-gee-sweet": "denied",
        layout.app / "token.json": "denied",
        layout.app / "credentials.json": "denied",
        layout.app / ".env": "denied",
        layout.outside / "other.txt": "outside_roots",
        layout.data / "report.csv": "allowed",
    }
    if can_hardlink(layout.data):
        os.link(layout.app / "token.json", layout.data / "token-copy.json")
        expected[layout.data / "token-copy.json"] = "denied"
    policy = layout.roots(layout.data, layout.app, layout.home)
    paths = [str(p) for p in expected]
    paths.append("/" + str(layout.data / "report.csv"))  # "//": outside the roots
    paths.append(str(layout.home / ".cache" / "MCP-GEE-SWEET"))  # missing: no identity
    rng = random.Random(5)
    for _ in range(4):
        rng.shuffle(paths)
        with policy.many_checks() as batch:
            for p in paths:
                # Warm the parent first, so the shortcut is the one asked.
                batch.check_read(os.path.dirname(p) + "/plain.txt")
                got = batch.check_read(p)
                single = policy.check_read(p)
                assert (got.allowed, got.reason, got.message, got.resolved) == (
                    single.allowed, single.reason, single.message, single.resolved), p
                if Path(p) in expected:
                    assert got.reason == expected[Path(p)], p


def test_a_deny_listed_name_made_during_the_batch_is_refused(layout):
    """The batch's snapshot of the deny-list's identities predates the token; its path
    is still refused (the server compares paths as well as identities)."""
    (layout.app / "token.json").unlink()
    policy = layout.roots(layout.data, layout.app)
    with policy.many_checks() as batch:
        assert batch.check_write(str(layout.app / "credentials.json")).reason == "denied"
        assert batch.check_write(str(layout.app / "plain.txt")).reason == "allowed"
        (layout.app / "token.json").write_text("{}")
        d = batch.check_read(str(layout.app / "token.json"))
    assert (d.allowed, d.reason) == (False, "denied")


def test_the_batch_asks_for_read_unless_told(layout):
    policy = layout.roots()
    path = str(layout.data / "report.csv")
    st = os.lstat(path)
    with policy.many_checks() as batch:
        assert batch.policy is policy
        assert batch.check(path).op == "read"
        verdicts = batch.check_entries(str(layout.data), ["report.csv"], inodes=[st.st_ino],
                                       dev=st.st_dev)
        assert verdicts.decision("report.csv").op == "read"


def test_resolution_is_the_batch_s_own_only_for_a_plain_name_that_is_no_symlink(tmp_path) -> None:
    """``resolution`` says where the batch resolves a path its own way (the parent's
    realpath joined to the name): a regular file's, never a symlink's (resolved whole,
    as the single check does), nor ``..`` or a relative spelling."""
    real = tmp_path / "real"
    real.mkdir()
    (real / "file.txt").write_text("x")
    (real / "link.txt").symlink_to(real / "file.txt")
    (tmp_path / "via").symlink_to(real)
    policy = resolve_policy(load_env(None, overrides={"LOCAL_FILE_ACCESS": "full"}),
                            cwd=str(tmp_path), package_dir=str(tmp_path / "app"))
    batch = BatchChecker(policy)
    assert batch.resolution(str(tmp_path / "via" / "file.txt")) == str(real / "file.txt")
    assert batch.resolution(str(tmp_path / "via" / "link.txt")) is None
    assert batch.resolution(str(real / "link.txt")) is None
    assert batch.resolution(str(tmp_path / "via" / "..")) is None
    assert batch.resolution("via/file.txt") is None
    # A NUL byte: the batch refuses it as the single check does (no resolution of its own).
    assert batch.resolution(str(real / "fi\0le.txt")) is None
