"""VirtualFS behaviour the host can't show here: case-insensitive lookups, devices and
bind mounts, building errors, caches that follow changes, and the engine on top of it.
The shared os semantics are in test_fs_contract.py."""

from __future__ import annotations

import errno
import posixpath
import stat

import pytest

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.fs.virtual import MAXSYMLINKS, HostSpecError, VirtualFS

LEGACY = hasattr(posixpath, "_joinrealpath")


@pytest.fixture
def mac() -> VirtualFS:
    """A case-insensitive host, like macOS's default volume."""
    fs = VirtualFS(case_insensitive=True, home="/Users/op", cwd="/Users/op/mcp")
    fs.add_file("/Users/op/mcp/token.json")
    fs.add_file("/Users/op/mcp/credentials.json")
    fs.mkdir("/Users/op/Documents")
    fs.symlink("/Users/op/Documents", "/Users/op/Docs")
    fs.mkdir("/private/tmp")
    fs.symlink("private/tmp", "/tmp")
    return fs


# ----------------------------------------------------------------------------- case


def test_case_insensitive_lookup_finds_the_stored_file(mac: VirtualFS) -> None:
    assert mac.exists("/Users/op/mcp/Token.json")
    assert mac.exists("/USERS/OP/MCP/TOKEN.JSON")
    assert mac.samefile("/users/op/mcp/TOKEN.json", "/Users/op/mcp/token.json")
    assert stat.S_ISREG(mac.lstat("/Users/op/MCP/token.JSON").st_mode)


def test_case_insensitive_realpath_keeps_the_callers_spelling(mac: VirtualFS) -> None:
    # macOS's realpath doesn't canonicalise case: the caller's spelling of existing,
    # non-symlink components survives, which is why containment can fail closed there.
    assert mac.realpath("/Users/op/mcp/TOKEN.json") == "/Users/op/mcp/TOKEN.json"
    assert mac.realpath("/users/OP/mcp/token.json") == "/users/OP/mcp/token.json"
    assert mac.realpath("/Users/op/mcp/TOKEN.json") != mac.realpath("/Users/op/mcp/token.json")


def test_case_insensitive_symlinks_contribute_their_stored_text(mac: VirtualFS) -> None:
    assert mac.realpath("/users/op/DOCS/x.txt") == "/Users/op/Documents/x.txt"
    assert mac.realpath("/TMP/report.csv") == "/private/tmp/report.csv"
    assert mac.readlink("/TMP") == "private/tmp"


def test_case_insensitive_listdir_shows_stored_names(mac: VirtualFS) -> None:
    assert sorted(mac.listdir("/users/op/MCP")) == ["credentials.json", "token.json"]


def test_case_insensitive_names_that_differ_only_in_case_collide(mac: VirtualFS) -> None:
    with pytest.raises(HostSpecError, match=r"stored as 'token\.json'.*case-insensitive"):
        mac.add_file("/Users/op/mcp/Token.json")


def test_case_sensitive_host_keeps_case_variants_apart() -> None:
    fs = VirtualFS()
    fs.add_file("/app/token.json")
    assert not fs.exists("/app/Token.json")
    fs.add_file("/app/Token.json")
    assert not fs.samefile("/app/Token.json", "/app/token.json")


def test_non_ascii_names_fold_on_a_case_insensitive_host() -> None:
    fs = VirtualFS(case_insensitive=True)
    fs.add_file("/docs/Übersicht.txt")
    assert fs.exists("/docs/übersicht.TXT")
    # NFC and NFD spellings of one name are one entry on APFS as well.
    assert fs.exists("/docs/U\u0308bersicht.txt")


# ----------------------------------------------------------------------------- devices


@pytest.fixture
def container() -> VirtualFS:
    fs = VirtualFS(home="/root", cwd="/app")
    fs.mkdir("/", device="overlay")
    fs.add_file("/app/token.json")
    fs.mkdir("/data", device="data-volume")
    fs.add_file("/data/reports/q3.csv")
    fs.mkdir("/srv/exports", device="exports-volume")
    fs.bind("/data", "/mnt/data-again")
    return fs


def test_mount_points_start_a_new_device(container: VirtualFS) -> None:
    dev = {p: container.stat(p).st_dev for p in ("/", "/app", "/data", "/srv/exports")}
    assert dev["/"] == dev["/app"]
    assert len({dev["/"], dev["/data"], dev["/srv/exports"]}) == 3
    assert container.stat("/data/reports/q3.csv").st_dev == dev["/data"]
    assert container.stat("/data/reports").st_dev == dev["/data"]


def test_a_bind_mount_shows_the_same_inodes_under_two_paths(container: VirtualFS) -> None:
    assert container.samefile("/mnt/data-again/reports/q3.csv", "/data/reports/q3.csv")
    # A mount is not a symlink: realpath keeps the path it was reached by.
    assert container.realpath("/mnt/data-again/reports/q3.csv") == (
        "/mnt/data-again/reports/q3.csv"
    )
    assert container.realpath("/mnt/data-again/..") == "/mnt"
    # Adding under the source shows up under the bind too.
    container.add_file("/data/new.txt")
    assert container.exists("/mnt/data-again/new.txt")


def test_a_bind_mount_can_not_contain_itself(container: VirtualFS) -> None:
    with pytest.raises(HostSpecError, match="inside itself"):
        container.bind("/data", "/data/reports/loop")
    with pytest.raises(HostSpecError, match="inside itself"):
        container.bind("/", "/srv/exports/everything")


def test_entries_can_not_be_added_below_a_bind(container: VirtualFS) -> None:
    with pytest.raises(HostSpecError, match="bind mount of /data"):
        container.add_file("/mnt/data-again/x.txt")


def test_a_hardlinked_file_keeps_its_device(container: VirtualFS) -> None:
    container.add_file("/data/a.txt", inode="shared")
    with pytest.raises(HostSpecError, match="can't span devices"):
        container.add_file("/app/b.txt", inode="shared", device="overlay")


# ----------------------------------------------------------------------------- building


def test_a_file_can_not_contain_entries() -> None:
    fs = VirtualFS()
    fs.add_file("/app/token.json")
    with pytest.raises(HostSpecError, match=r"'/app/token.json/x'.*is a file"):
        fs.add_file("/app/token.json/x")


def test_entries_can_not_be_described_through_a_symlink() -> None:
    fs = VirtualFS()
    fs.symlink("/etc", "/data/escape")
    with pytest.raises(HostSpecError, match="is a symlink"):
        fs.add_file("/data/escape/passwd")


def test_directories_can_not_be_hardlinked() -> None:
    fs = VirtualFS()
    fs.mkdir("/data")
    with pytest.raises(HostSpecError, match="directories can't be hardlinked"):
        fs.link("/data", "/data2")


@pytest.mark.parametrize(
    "path",
    ["relative/x", "/a/../b", "/a//b", "/a/./b", "/a/", "/a\0b", "/" + "n" * 256],
)
def test_paths_must_be_absolute_normalised_and_storable(path: str) -> None:
    with pytest.raises(HostSpecError, match="entry"):
        VirtualFS().add_file(path)


def test_hardlinks_share_identity_and_count_their_names() -> None:
    fs = VirtualFS()
    fs.add_file("/app/token.json")
    fs.link("/app/token.json", "/data/innocent.json")
    fs.add_file("/data/other.json", inode=fs.spec_entries()["/app/token.json"]["inode"])
    a, b = fs.stat("/app/token.json"), fs.stat("/data/innocent.json")
    assert (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
    assert a.st_nlink == 3
    assert fs.samefile("/data/other.json", "/app/token.json")


def test_changes_are_seen_by_later_lookups() -> None:
    # realpath results are memoised; a change to the tree must not serve stale ones.
    fs = VirtualFS()
    fs.mkdir("/data")
    assert fs.realpath("/data/link/x") == "/data/link/x"
    assert not fs.exists("/data/link")
    fs.symlink("/srv", "/data/link")
    fs.mkdir("/srv")
    assert fs.realpath("/data/link/x") == "/srv/x"
    assert fs.is_dir("/data/link")


def test_default_cwd_is_symlink_free_like_getcwd() -> None:
    fs = VirtualFS(cwd="/app")
    fs.mkdir("/srv/app")
    fs.symlink("/srv/app", "/app")
    assert fs.cwd == "/app"
    assert fs.default_cwd() == "/srv/app"
    assert fs.realpath("token.json") == "/srv/app/token.json"
    assert fs.lstat("../app").st_ino == fs.stat("/app").st_ino


def test_home_and_cwd_must_be_absolute() -> None:
    with pytest.raises(HostSpecError, match="home must be an absolute path"):
        VirtualFS(home="~op")


# ----------------------------------------------------------------------------- os details


def test_symlink_limit_is_the_kernels() -> None:
    fs = VirtualFS()
    fs.mkdir("/d")
    for n in range(MAXSYMLINKS + 1):
        fs.symlink(f"/l{n + 1}" if n < MAXSYMLINKS else "/d", f"/l{n}")
    assert fs.is_dir("/l1")  # 40 links: followed
    with pytest.raises(OSError) as info:
        fs.stat("/l0")  # 41 links: ELOOP
    assert info.value.errno == errno.ELOOP
    assert fs.realpath("/l0") == "/d"  # realpath counts nothing; it tracks what it saw


def test_unencodable_names_fail_like_os() -> None:
    fs = VirtualFS()
    with pytest.raises(UnicodeEncodeError):
        fs.lstat("/data/\ud800")
    with pytest.raises(UnicodeEncodeError):
        fs.realpath("/data/\ud800")
    # Undecodable bytes smuggled in as surrogate escapes are ordinary names to os.
    with pytest.raises(FileNotFoundError):
        fs.lstat("/data/\udcff")


def test_nul_is_refused_before_anything_is_looked_up() -> None:
    fs = VirtualFS()
    with pytest.raises(ValueError, match="embedded null"):
        fs.lstat("/missing/\0")
    with pytest.raises(ValueError, match="embedded null"):
        fs.realpath("/missing/a\0b")


def test_nul_after_a_loop_depends_on_the_python_version() -> None:
    # 3.10-3.12 stop lstat-ing at a loop, so a NUL after it is never seen; 3.13 goes on.
    fs = VirtualFS()
    fs.symlink("loop", "/loop")
    if LEGACY:
        assert fs.realpath("/loop/a\0b") == "/loop/a\0b"
    else:
        with pytest.raises(ValueError, match="embedded null"):
            fs.realpath("/loop/a\0b")


def test_stat_result_looks_like_os() -> None:
    fs = VirtualFS()
    fs.add_file("/f")
    fs.symlink("f", "/l")
    st = fs.lstat("/l")
    assert stat.S_ISLNK(st.st_mode) and st.st_size == 1
    assert stat.S_ISREG(fs.stat("/l").st_mode)
    assert stat.S_ISDIR(fs.stat("/").st_mode)


def test_iter_entries_lists_the_tree_once(container: VirtualFS) -> None:
    paths = [path for path, _, _ in container.iter_entries()]
    assert paths == sorted(paths)
    assert "/data/reports/q3.csv" in paths
    assert "/mnt/data-again" in paths
    assert not any(p.startswith("/mnt/data-again/") for p in paths)


# ----------------------------------------------------------------------------- engine


def test_the_engine_validates_roots_on_the_target(container: VirtualFS) -> None:
    env = load_env(None, overrides={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/data"})
    policy = resolve_policy(env, transport="stdio", fs=container)
    assert policy.errors == []
    assert policy.check_read("/data/reports/q3.csv").allowed
    missing = load_env(None, overrides={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/nfs"})
    assert resolve_policy(missing, transport="stdio", fs=container).errors


def test_the_deny_list_sees_a_case_variant_of_the_token(mac: VirtualFS) -> None:
    env = load_env(None, overrides={"TOKEN_PATH": "/Users/op/mcp/token.json"})
    policy = resolve_policy(env, transport="stdio", fs=mac)
    decision = policy.check_read("/Users/op/mcp/TOKEN.json")
    assert (decision.allowed, decision.reason) == (False, "denied")
    assert decision.resolved == "/Users/op/mcp/TOKEN.json"


def test_roots_fail_closed_for_a_case_variant_of_the_root(mac: VirtualFS) -> None:
    env = load_env(
        None,
        overrides={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/Users/op/Documents"},
    )
    policy = resolve_policy(env, transport="stdio", fs=mac)
    assert policy.check_write("/Users/op/Documents/a.txt").allowed
    refused = policy.check_write("/users/op/documents/a.txt")
    assert (refused.allowed, refused.reason) == (False, "outside_roots")
