"""A directory's verdicts at once (``BatchChecker.check_entries``) are the batch's own.

Every entry of many random trees (files, directories, symlinks in and out, dangling and
looping links, hardlinks of deny-listed files, case variants of deny-listed names and of
the deny-listed cache directory, names with newlines) is asked both ways, for every
operation, under roots, full, off and a tripwire-armed full mode: ``decision(name, op)``
must be exactly ``check(path, op)`` of a separate batch, and what ``DirVerdicts`` says of
the whole directory (``refused``, ``uniform``, ``exceptions``, ``resolved_prefix``) must
hold for each entry it covers.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from conftest import can_hardlink
from random_trees import add_entry

from localfs_explorer import Policy, load_env, resolve_policy
from localfs_explorer.servers.gee_sweet.check import UnsupportedPathError, check_path
from localfs_explorer.vocab import OPS

NAMES = (
    "a", "B", "data.csv", "token.json", "TOKEN.JSON", "Token.json", "credentials.json",
    ".env", "x.pem", "id_rsa", "sub", "mcp-gee-sweet", "MCP-GEE-SWEET", "cache.db",
    "CACHE.DB", "weird\nname", "ß", ".hidden", "straße.txt", "back\\slash", "c:drive",
)


def _tree(base: Path, rng: random.Random) -> dict[str, Path]:
    """A server layout under ``base`` with random entries added all over it."""
    app, data, home, outside = base / "app", base / "data", base / "home", base / "outside"
    cache = home / ".cache" / "mcp-gee-sweet"
    for d in (app, data, cache, outside):
        d.mkdir(parents=True)
    for f in (app / "token.json", app / "credentials.json", app / ".env", cache / "cache.db",
              data / "plain.txt"):
        f.write_text("x")
    dirs = [app, data, home, home / ".cache", cache, outside, data]
    files = [app / "token.json", app / "credentials.json", cache / "cache.db",
             data / "plain.txt"]
    links = can_hardlink(base)
    for i in range(rng.randint(8, 30)):
        parent = rng.choice(dirs)
        name = rng.choice(NAMES)
        if rng.random() < 0.3:
            name = f"{name}{i}"
        path = parent / name
        if os.path.lexists(path):
            continue
        kind = rng.choice(("file", "file", "dir", "dir", "hardlink", "symlink", "symlink-dir",
                           "link-out", "dangling", "loop"))
        add_entry(path, kind, rng, files, dirs, links=links, outside=outside)
    (base / "data-link").symlink_to(data, target_is_directory=True)
    return {"app": app, "data": data, "home": home, "outside": outside, "base": base}


def _policies(t: dict[str, Path], rng: random.Random) -> list[tuple[Policy, bool]]:
    def make(transport: str = "stdio", platform: str = "posix", **settings: str) -> Policy:
        overrides = {"HOME": str(t["home"]), **settings}
        return resolve_policy(load_env(None, overrides=overrides), transport=transport,
                              cwd=str(t["app"]), package_dir=str(t["app"]),
                              platform=platform)

    roots = f"{t['data']}:{t['home']}"
    token_in_data = str(t["data"] / rng.choice(("token.json", "TOKEN.JSON", "a")))
    return [
        (make(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=str(t["data"])), False),
        (make(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=roots, TOKEN_PATH=token_in_data),
         False),
        (make(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=str(t["base"] / "data-link")),
         False),
        (make(LOCAL_FILE_ACCESS="full"), True),
        (make(LOCAL_FILE_ACCESS="full", platform="macos"), False),
        (make(), True),  # a defaulted full mode asked over HTTP: the tripwire
        (make(), None),  # the transport's own default (stdio: not over HTTP)
        (make(transport="streamable-http"), None),  # defaulted over HTTP: off
        (make(transport="streamable-http"), False),
        (make(LOCAL_FILE_ACCESS="off"), False),
        (make(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS="relative/dir"), False),
        (make(LOCAL_FILE_ACCESS="full", platform="windows"), False),
    ]


def _directories(t: dict[str, Path]) -> list[str]:
    """Every real directory of the tree, and a few spelled through a symlink or oddly."""
    found = [str(t["base"])]
    for top, dirnames, _files in os.walk(t["base"]):
        found.extend(os.path.join(top, d) for d in dirnames
                     if not os.path.islink(os.path.join(top, d)))
    data = str(t["data"])
    odd = [str(t["base"] / "data-link"), data + "/", data + "//", "/" + data,
           str(t["base"] / "data" / ".." / "data")]
    for top, _dirs, _files in os.walk(t["base"] / "data-link"):
        odd.append(top)
    return found + odd


def _listing(directory: str) -> tuple[list[str], list[int], list[str], list[str], int]:
    """Names and inodes of the non-symlinks, names of subdirectories and of symlinks,
    and the device, as a walk reads them from one scandir."""
    names, inodes, subdirs, links = [], [], [], []
    dev = os.lstat(directory).st_dev
    with os.scandir(directory) as it:
        for entry in it:
            if entry.is_symlink():
                links.append(entry.name)
                continue
            st = entry.stat(follow_symlinks=False)
            assert st.st_dev == dev  # one filesystem in the test's temporary directory
            names.append(entry.name)
            inodes.append(entry.inode())
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(entry.name)
    return names, inodes, subdirs, links, dev


def _same(a, b) -> bool:
    return (a.key() == b.key() and a.deny_setting == b.deny_setting and a._batch == b._batch
            and a._over_http is b._over_http and a._policy is b._policy)


def _answer(ask, *args, **kwargs):
    """A decision, or the type and text of what asking raised."""
    try:
        return ask(*args, **kwargs)
    except UnsupportedPathError as exc:
        return (type(exc), str(exc))


def _agree(got, expected) -> bool:
    if isinstance(expected, tuple) or isinstance(got, tuple):
        return got == expected
    return _same(got, expected)


@pytest.mark.parametrize("seed", range(24))
def test_decisions_equal_the_batch_check_for_every_entry(tmp_path: Path, seed: int):
    rng = random.Random(seed)
    tree = _tree(tmp_path.resolve(), rng)
    directories = _directories(tree)
    for policy, over_http in _policies(tree, rng):
        with policy.many_checks() as batch, policy.many_checks() as reference:
            for directory in directories:
                names, inodes, subdirs, links, dev = _listing(directory)
                verdicts = batch.check_entries(directory, names, inodes=inodes, dev=dev,
                                               over_http=over_http, dirs=subdirs)
                bare = batch.check_entries(directory, names, over_http=over_http)
                # A listing's names: the promise spares the search for odd names only.
                listed = batch.check_entries(directory, names, inodes=inodes, dev=dev,
                                             over_http=over_http, listed=True)
                assert (listed.uniform, listed.exceptions, listed.joined) == (
                    verdicts.uniform, verdicts.exceptions, verdicts.joined)
                head = verdicts.resolved_prefix
                assert verdicts.directory == directory
                if verdicts.uniform:
                    assert verdicts.joined == "\n" + "\n".join(names) + "\n"
                else:
                    assert verdicts.joined is None
                if head is not None:
                    for name in subdirs:
                        spelled = verdicts.prefix + name
                        assert batch._parents[spelled] == os.path.realpath(spelled)
                for name in [*names, *links]:
                    path = verdicts.prefix + name
                    for op in OPS:
                        expected = _answer(reference.check, path, op, over_http=over_http)
                        got = _answer(verdicts.decision, name, op)
                        assert _agree(got, expected), (directory, name, op, got, expected)
                        assert _agree(_answer(bare.decision, name, op), expected)
                        assert _agree(_answer(listed.decision, name, op), expected)
                        if isinstance(expected, tuple):
                            assert not verdicts.uniform
                            continue
                        if verdicts.refused is not None:
                            assert expected.reason == verdicts.refused
                        if (verdicts.uniform and name in names
                                and name not in verdicts.exceptions):
                            assert expected.allowed and expected.resolved == head + name


@pytest.mark.parametrize("odd", ["", ".", "..", "a/b", "nul\0byte"])
def test_each_name_the_batch_does_not_join_is_an_exception(tmp_path: Path, odd: str):
    base, policy = _one_file(tmp_path)
    ino, dev = os.lstat(base / "f").st_ino, os.lstat(base).st_dev
    with policy.many_checks() as batch, policy.many_checks() as reference:
        verdicts = batch.check_entries(str(base), ["f", odd], inodes=[ino, ino + 1], dev=dev)
        assert verdicts.uniform and verdicts.exceptions == {odd}
        for name in ("f", odd):
            assert _same(verdicts.decision(name, "write"),
                         reference.check(f"{base}/{name}", "write"))


def test_names_the_batch_does_not_join_are_exceptions(tmp_path: Path):
    base, policy = _one_file(tmp_path)
    ino, dev = os.lstat(base / "f").st_ino, os.lstat(base).st_dev
    odd = ["", ".", "..", "a/b", "nul\0byte"]
    with policy.many_checks() as batch, policy.many_checks() as reference:
        verdicts = batch.check_entries(str(base), ["f", *odd], inodes=[ino] * 6, dev=dev)
        assert verdicts.uniform and verdicts.exceptions == frozenset(odd)
        for name in ["f", *odd]:
            for op in OPS:
                assert _same(verdicts.decision(name, op),
                             reference.check(f"{base}/{name}", op))
        # Not strings at all, and an unknown operation: as the batch answers them.
        nonstr = batch.check_entries(str(base), [b"f"], inodes=[ino], dev=dev)  # type: ignore[list-item]
        assert not nonstr.uniform or b"f" in nonstr.exceptions
        with pytest.raises(ValueError):
            verdicts.decision("f", "delete")  # type: ignore[arg-type]
        # A name listed twice (a listing never does this) is asked of the batch itself.
        twice = batch.check_entries(str(base), ["f", "f"], inodes=[ino, ino + 1], dev=dev)
        assert _same(twice.decision("f", "read"), reference.check(f"{base}/f", "read"))


def _one_file(tmp_path: Path) -> tuple[Path, Policy]:
    """A directory holding one file, f, under a full-mode policy."""
    base = tmp_path.resolve()
    (base / "f").write_text("x")
    policy = resolve_policy(load_env(None, overrides={"LOCAL_FILE_ACCESS": "full",
                                                     "HOME": str(base)}),
                            cwd=str(base), package_dir=str(base))
    return base, policy


def _token_alias(tmp_path: Path, **settings: str) -> tuple[Path, Policy]:
    """A data root holding other.txt and alias.txt, a hardlink of the server's token,
    and the roots policy over it."""
    base = tmp_path.resolve()
    app, data = base / "app", base / "data"
    for d in (app, data):
        d.mkdir()
    (app / "token.json").write_text("x")
    (data / "other.txt").write_text("x")
    if not can_hardlink(base):
        pytest.skip("no hardlinks here")
    os.link(app / "token.json", data / "alias.txt")
    policy = resolve_policy(
        load_env(None, overrides={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(data),
                                  "HOME": str(base / "home"), **settings}),
        cwd=str(app), package_dir=str(app))
    return data, policy


def test_a_deny_listed_inode_or_name_is_an_exception(tmp_path: Path):
    data, policy = _token_alias(
        tmp_path, CREDENTIALS_PATH=str(tmp_path.resolve() / "data" / "credentials.json"))
    names, inodes, _subdirs, _links, dev = _listing(str(data))
    names.append("credentials.json")  # deny-listed by path, missing on disk
    inodes.append(10**9)
    with policy.many_checks() as batch:
        verdicts = batch.check_entries(str(data), names, inodes=inodes, dev=dev)
        assert verdicts.uniform
        assert verdicts.exceptions == {"alias.txt", "credentials.json"}
        assert verdicts.decision("alias.txt", "read").reason == "denied"
        assert verdicts.decision("other.txt", "write").allowed


def test_over_http_reaches_every_batch_answer(tmp_path: Path):
    """A defaulted full mode refuses HTTP requests (the tripwire): whether a batch
    answer is for one is passed on by every entry point, and None means the transport's
    own default."""
    base = tmp_path.resolve()
    (base / "f").write_text("x")
    policy = resolve_policy(load_env(None, overrides={"HOME": str(base)}),
                            cwd=str(base), package_dir=str(base))
    path = str(base / "f")
    st = os.lstat(path)
    assert check_path(policy, path, "read", over_http=True).reason == "tripwire"
    with policy.many_checks() as batch:
        for ask in (batch.check_read, batch.check_write, batch.check_read_write):
            assert ask(path, over_http=True).reason == "tripwire"
            assert ask(path, over_http=False).allowed
            assert ask(path).allowed  # stdio: not over HTTP
        for over_http, reason in ((True, "tripwire"), (False, "allowed"), (None, "allowed")):
            verdicts = batch.check_entries(str(base), ["f"], inodes=[st.st_ino],
                                           dev=st.st_dev, over_http=over_http)
            assert verdicts.over_http is bool(over_http)
            assert verdicts.refused == (reason if reason != "allowed" else None)
            for name in ("f", "not-listed"):
                assert verdicts.decision(name, "read").reason in (reason, "allowed")
            assert verdicts.decision("f", "read").reason == reason


def test_a_directory_spelled_with_a_trailing_slash_or_unusable(tmp_path: Path):
    base, policy = _one_file(tmp_path)
    st = os.lstat(base / "f")
    with policy.many_checks() as batch, policy.many_checks() as reference:
        slashed = batch.check_entries(str(base) + "/", ["f"], inodes=[st.st_ino], dev=st.st_dev)
        assert slashed.prefix == str(base) + "/" and slashed.uniform
        assert slashed.decision("f", "read").path == f"{base}/f"
        # realpath can't take the name (a lone surrogate): each entry as the batch says.
        odd = str(base / "bad\ud800")
        unusable = batch.check_entries(odd, ["f"], inodes=[st.st_ino], dev=st.st_dev)
        assert unusable.resolved_prefix is None and not unusable.uniform
        assert _same(unusable.decision("f", "read"), reference.check(f"{odd}/f", "read"))


def test_inodes_without_a_device_or_of_another_length_are_not_used(tmp_path: Path):
    data, policy = _token_alias(tmp_path)
    names, inodes, _subdirs, _links, dev = _listing(str(data))
    with policy.many_checks() as batch:
        for given in (dict(inodes=inodes, dev=None), dict(inodes=inodes[:-1], dev=dev)):
            verdicts = batch.check_entries(str(data), names, **given)
            assert not verdicts.uniform
            assert verdicts.decision("alias.txt", "read").reason == "denied"
            assert verdicts.decision("other.txt", "read").allowed


def test_a_case_variant_of_a_deny_dir_is_the_only_exception(tmp_path: Path):
    base = tmp_path.resolve()
    home = base / "home"
    cache = home / ".cache"
    (cache / "MCP-GEE-SWEET").mkdir(parents=True)
    (cache / "plain.txt").write_text("x")
    policy = resolve_policy(load_env(None, overrides={"HOME": str(home)}),
                            cwd=str(base), package_dir=str(base))
    names, inodes, _subdirs, _links, dev = _listing(str(cache))
    with policy.many_checks() as batch:
        verdicts = batch.check_entries(str(cache), names, inodes=inodes, dev=dev)
        assert verdicts.uniform and verdicts.exceptions == {"MCP-GEE-SWEET"}
        assert verdicts.decision("MCP-GEE-SWEET", "read").reason == "denied"


def test_a_name_listed_twice_is_checked_on_disk_not_by_its_last_inode(tmp_path: Path):
    # A listing giving alias.txt twice (the token's hardlink, then another inode) can't
    # say which inode is its own: the batch looks at the file, as the server does, and
    # refuses it; trusting the last inode would allow the token's alias.
    data, policy = _token_alias(tmp_path)
    alias, other = os.stat(data / "alias.txt"), os.stat(data / "other.txt")
    with policy.many_checks() as batch:
        twice = batch.check_entries(str(data), ["alias.txt", "alias.txt"],
                                    inodes=[alias.st_ino, other.st_ino], dev=alias.st_dev)
        assert twice.decision("alias.txt", "read").reason == "denied"
    assert policy.check_read(str(data / "alias.txt")).reason == "denied"


def test_a_name_that_is_no_string_is_refused_as_the_batch_refuses_it(tmp_path: Path):
    # decision() of a name that isn't a str is the batch's check of that value itself (not
    # of the directory joined to it): an invalid argument, shown as its repr.
    data, policy = _token_alias(tmp_path)
    st = os.stat(data / "other.txt")
    with policy.many_checks() as batch:
        verdicts = batch.check_entries(str(data), ["other.txt"], inodes=[st.st_ino],
                                       dev=st.st_dev)
        d = verdicts.decision(123)  # type: ignore[arg-type]
        assert d == batch.check(123)  # type: ignore[arg-type]
    assert (d.allowed, d.reason, d.path) == (False, "invalid", "123")
