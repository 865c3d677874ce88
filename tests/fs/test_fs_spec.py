"""The host spec format: round trips, the shipped examples, load_fs, and bad specs."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.fs import HostFS
from localfs_explorer.fs.spec import (
    HostSpecError,
    format_spec,
    from_spec,
    list_example_hosts,
    load_fs,
    to_spec,
)
from localfs_explorer.fs.virtual import VirtualFS

EXAMPLES = ("container", "macos-laptop", "traps")


def example_text(name: str) -> str:
    return (
        resources.files("localfs_explorer")
        .joinpath("data", "hosts", f"{name}.json")
        .read_text(encoding="utf-8")
    )


def spec_of(entries: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"version": 1, **top, "entries": entries}


# ----------------------------------------------------------------------------- round trip


def test_the_shipped_examples_are_listed() -> None:
    assert set(EXAMPLES) <= set(list_example_hosts())


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_round_trip_byte_for_byte(name: str) -> None:
    text = example_text(name)
    fs = load_fs(name)
    assert isinstance(fs, VirtualFS)
    assert format_spec(to_spec(fs)) == text
    assert to_spec(from_spec(json.loads(text))) == json.loads(text)


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_say_what_they_show(name: str) -> None:
    spec = json.loads(example_text(name))
    assert len(spec["description"]) > 80
    assert spec["label"] == name


def test_a_hand_written_spec_round_trips() -> None:
    spec = spec_of(
        {
            "/": {"type": "dir", "device": "overlay"},
            "/app/token.json": {"type": "file", "inode": "tok"},
            "/data": {"type": "dir", "device": "vol"},
            "/data/empty": {"type": "dir"},
            "/data/hard.json": {"type": "file", "inode": "tok"},
            "/data/link": {"type": "symlink", "target": "../etc", "inode": "ln"},
            "/data/link2": {"type": "symlink", "target": "../etc", "inode": "ln"},
            "/etc/hosts": {"type": "file", "device": "hosts-file"},
            "/srv/again": {"type": "dir", "bind": "/data"},
        },
        label="mine",
        case_insensitive=False,
        home="/root",
        cwd="/app",
    )
    fs = from_spec(spec)
    assert to_spec(fs) == spec
    assert fs.samefile("/srv/again/hard.json", "/app/token.json")
    assert fs.lstat("/data/link").st_ino == fs.lstat("/data/link2").st_ino
    assert fs.stat("/etc/hosts").st_dev != fs.stat("/etc").st_dev


def test_a_bind_may_show_a_directory_reached_through_another_bind() -> None:
    spec = spec_of(
        {
            "/data/x.txt": {"type": "file"},
            "/a": {"type": "dir", "bind": "/z/b"},
            "/z/b": {"type": "dir", "bind": "/data"},
        }
    )
    fs = from_spec(spec)
    assert fs.samefile("/a/x.txt", "/data/x.txt")
    with pytest.raises(HostSpecError, match=r"entry '/a': the bind mount's source /nowhere"):
        from_spec(spec_of({"/a": {"type": "dir", "bind": "/nowhere"}}))


def test_from_spec_of_to_spec_answers_the_same_questions() -> None:
    original = load_fs("traps")
    assert isinstance(original, VirtualFS)
    copy = from_spec(to_spec(original))
    probes = [path for path, _, _ in original.iter_entries()]
    probes += ["/data/up/../secret.txt", "/data/loop-a/x", "/data/tok", "/nowhere"]
    for probe in probes:
        assert copy.realpath(probe) == original.realpath(probe)
        assert copy.identity(probe) == original.identity(probe)
        assert copy.is_dir(probe) == original.is_dir(probe)


def test_a_spec_file_path_loads(tmp_path: Path) -> None:
    path = tmp_path / "host.json"
    path.write_text(json.dumps(spec_of({"/data/x": {"type": "file"}}, cwd="/data")))
    for spec in (path, str(path)):
        fs = load_fs(spec)
        assert isinstance(fs, VirtualFS)
        assert fs.exists("/data/x")
        assert fs.default_cwd() == "/data"


def test_a_dangling_link_is_a_valid_spec() -> None:
    fs = from_spec(spec_of({"/data/gone": {"type": "symlink", "target": "/nowhere/x"}}))
    assert fs.is_symlink("/data/gone") and not fs.exists("/data/gone")


# ----------------------------------------------------------------------------- load_fs


def test_load_fs_host_means_this_machine() -> None:
    assert isinstance(load_fs(None), HostFS)
    assert isinstance(load_fs("host"), HostFS)


def test_load_fs_passes_a_filesystem_through() -> None:
    fs = VirtualFS()
    assert load_fs(fs) is fs
    assert isinstance(load_fs(spec_of({})), VirtualFS)


def test_load_fs_names_the_examples_when_a_name_is_unknown() -> None:
    with pytest.raises(HostSpecError, match=r"'laptop'.*container, macos-laptop, traps"):
        load_fs("laptop")


def test_load_fs_reports_a_missing_file() -> None:
    with pytest.raises(HostSpecError, match=r"missing/host\.json: can't be read"):
        load_fs("missing/host.json")


# ----------------------------------------------------------------------------- examples


def test_container_has_two_bind_mounted_volumes() -> None:
    fs = load_fs("container")
    assert (fs.home(), fs.default_cwd()) == ("/root", "/app")
    devices = {fs.stat(p).st_dev for p in ("/", "/data", "/srv/exports")}
    assert len(devices) == 3
    for path in (
        "/app/.env",
        "/app/credentials.json",
        "/app/token.json",
        "/root/.config/gcloud/application_default_credentials.json",
        "/root/.cache/mcp-gee-sweet/cache.db",
        "/root/.cache/mcp-gee-sweet/cache.db-wal",
    ):
        assert fs.exists(path), path


def test_macos_laptop_ignores_case() -> None:
    fs = load_fs("macos-laptop")
    assert fs.home() == "/Users/op"
    assert fs.samefile("/Users/op/mcp/Token.json", "/users/op/mcp/token.json")
    assert fs.is_dir("/Users/op/Documents")
    assert fs.realpath("/tmp/x") == "/private/tmp/x"


def test_container_description_holds() -> None:
    env = load_env(
        None, overrides={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/data:/srv/exports"}
    )
    policy = resolve_policy(env, transport="sse", fs=load_fs("container"))
    assert policy.errors == [] and policy.cwd == "/app"
    allowed = policy.check_read("/data/latest.csv")
    assert (allowed.allowed, allowed.resolved) == (True, "/data/reports/q3.csv")
    assert policy.check_write("/srv/exports/shared/new.pdf").allowed
    for path in ("/app/token.json", "/root/.cache/mcp-gee-sweet/cache.db-wal"):
        assert not policy.check_read(path).allowed


def test_macos_laptop_description_holds() -> None:
    fs = load_fs("macos-laptop")
    full = resolve_policy(load_env(None, overrides={}), transport="stdio", fs=fs)
    variant = full.check_read("/Users/op/mcp/TOKEN.json")  # TOKEN_PATH's default, respelled
    assert (variant.reason, variant.resolved) == ("denied", "/Users/op/mcp/TOKEN.json")
    env = load_env(
        None,
        overrides={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/Users/op/Documents"},
    )
    roots = resolve_policy(env, transport="stdio", fs=fs)
    assert roots.check_read("/Users/op/Documents/Budget.xlsx").allowed
    assert roots.check_read("/users/OP/documents/Budget.xlsx").reason == "outside_roots"


TRAPS_ENV = {
    "LOCAL_FILE_ACCESS": "roots",
    "LOCAL_FILE_ROOTS": "/data",
    "TOKEN_PATH": "/app/token.json",
    "CREDENTIALS_PATH": "/app/credentials.json",
    "CACHE_DB_PATH": "/data/cache/app.db",
}


@pytest.mark.parametrize(
    ("path", "op", "reason", "resolved"),
    [
        ("/data/escape/passwd", "read", "outside_roots", "/etc/passwd"),
        ("/data/tok", "read", "outside_roots", "/app/token.json"),
        ("/data/innocent.json", "read", "denied", "/data/innocent.json"),
        ("/data-evil/loot.txt", "read", "outside_roots", "/data-evil/loot.txt"),
        ("/data/up/../secret.txt", "read", "outside_roots", "/srv/outside/secret.txt"),
        ("/data/cache/app.db-wal", "write", "denied", "/data/cache/app.db-wal"),
        ("/data/cache/app.db-shm", "read", "denied", "/data/cache/app.db-shm"),
        ("/data/dangling", "write", "allowed", "/data/nowhere/report.csv"),
        ("/data/.env", "read", "allowed", "/data/.env"),
        ("/data/notes.txt", "read", "allowed", "/data/notes.txt"),
    ],
)
def test_traps_catch_what_they_describe(path: str, op: str, reason: str, resolved: str) -> None:
    policy = resolve_policy(
        load_env(None, overrides=TRAPS_ENV),
        transport="stdio",
        fs=load_fs("traps"),
        package_dir="/app",
    )
    decision = policy.check(path, op)
    assert (decision.reason, decision.resolved) == (reason, resolved)


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/app/.env", "denied"),
        ("/app/Token.json", "allowed"),  # a different file on a case-sensitive host
        ("/tmp/mcp_gee_sweet.db-shm", "denied"),
        # With CACHE_DB_PATH unset, the whole default cache directory is the server's.
        ("/home/op/.cache/mcp-gee-sweet/cache.db-wal", "denied"),
        ("/home/op/.cache/mcp-gee-sweet/other.db", "denied"),
        ("/data/cache/app.db-wal", "allowed"),
        ("/data/env-link", "denied"),
    ],
)
def test_traps_in_full_mode_still_deny_the_servers_files(path: str, reason: str) -> None:
    settings = {k: v for k, v in TRAPS_ENV.items() if k != "CACHE_DB_PATH"}
    env = load_env(None, overrides={**settings, "LOCAL_FILE_ACCESS": "full"})
    policy = resolve_policy(env, transport="stdio", fs=load_fs("traps"), package_dir="/app")
    assert policy.check_read(path).reason == reason


# ----------------------------------------------------------------------------- bad specs


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            spec_of({"/app/token.json": {"type": "file"}, "/app/token.json/x": {"type": "file"}}),
            r"entry '/app/token.json/x': /app/token.json is a file",
        ),
        (
            spec_of({"/a": {"type": "dir", "inode": "d"}, "/a/b": {"type": "dir", "inode": "d"}}),
            r"entry '/a': directories can't be hardlinked.*cycle",
        ),
        (
            spec_of({"/a": {"type": "dir", "inode": "d"}}),
            r"entry '/a': directories can't be hardlinked",
        ),
        (
            spec_of({"/a": {"type": "dir", "bind": "/a/b"}, "/a/b": {"type": "dir"}}),
            r"entry '/a/b'.*bind mount; list this entry under the mount's source",
        ),
        (
            spec_of({"/a/b": {"type": "dir"}, "/a/b/c": {"type": "dir", "bind": "/a"}}),
            r"entry '/a/b/c'.*inside itself",
        ),
        (spec_of({"/a": {"type": "file", "size": 3}}), r"entry '/a': unknown key 'size'"),
        ({"version": 1, "entries": {}, "owner": "op"}, r"spec: unknown key 'owner'"),
        (spec_of({"/a": {"type": "file", "inode": 5}}), r"entry '/a': inode: .*string"),
        (spec_of({}, case_insensitive="yes"), r"case_insensitive: .*boolean"),
        (spec_of({"/a": {"type": "symlink"}}), r"entry '/a': missing required key 'target'"),
        (spec_of({"/a": {"type": "fifo"}}), r"entry '/a': 'type' must be one of"),
        (spec_of({"/a": {}}), r"entry '/a': needs a 'type'"),
        (spec_of({"/a": "file"}), r"entry '/a'"),
        ({"version": 2, "entries": {}}, r"unsupported version 2"),
        (spec_of({"a/b": {"type": "file"}}), r"entry 'a/b': paths must be absolute"),
        (spec_of({"/a/../b": {"type": "file"}}), r"entry '/a/../b': paths must be normalised"),
        (spec_of({"/a": {"type": "file"}}, cwd="/app"), r"cwd '/app' is not a directory"),
        (spec_of({}, home="root"), r"home must be an absolute path"),
        (
            spec_of({"/l": {"type": "symlink", "target": "/x"}, "/l/f": {"type": "file"}}),
            r"entry '/l/f': /l is a symlink",
        ),
        (
            spec_of(
                {"/a/T.json": {"type": "file"}, "/a/t.json": {"type": "file"}},
                case_insensitive=True,
            ),
            r"entry '/a/t.json': already exists \(stored as 'T.json'",
        ),
        (spec_of({"/": {"type": "file"}}), r"entry '/': the root can only be a plain directory"),
        (spec_of({"/a": {"type": "symlink", "target": ""}}), r"entry '/a'.*non-empty target"),
        (
            spec_of(
                {
                    "/a": {"type": "file", "inode": "x", "device": "d1"},
                    "/b": {"type": "file", "inode": "x", "device": "d2"},
                }
            ),
            r"entry '/b': inode 'x' is on device 'd1'",
        ),
        (
            spec_of(
                {
                    "/a": {"type": "symlink", "target": "x", "inode": "k"},
                    "/b": {"type": "symlink", "target": "y", "inode": "k"},
                }
            ),
            r"entry '/b': inode 'k' is already a symlink to 'x'",
        ),
        (
            spec_of(
                {
                    "/a": {"type": "file", "inode": "k"},
                    "/b": {"type": "symlink", "target": "a", "inode": "k"},
                }
            ),
            r"entry '/b': inode 'k' is already a file",
        ),
        ([1, 2], r"a host spec is an object"),
    ],
)
def test_bad_specs_name_the_problem(spec: Any, message: str) -> None:
    with pytest.raises(HostSpecError, match=message):
        from_spec(spec)


def test_bad_spec_files_name_the_file(tmp_path: Path) -> None:
    cases = {
        "broken.json": ('{"version": 1, "entries": {', r"broken\.json: not valid JSON \(line 1"),
        "twice.json": (
            '{"version": 1, "entries": {"/a": {"type": "file"}, "/a": {"type": "dir"}}}',
            r"twice\.json: key '/a' appears twice",
        ),
        "list.json": ("[]", r"list\.json: a host spec is a JSON object"),
        "bad.json": (
            '{"version": 1, "entries": {"/a": {"type": "file", "mode": 420}}}',
            r"bad\.json: entry '/a': unknown key 'mode'",
        ),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(HostSpecError, match=message):
            load_fs(str(path))


def test_many_problems_are_all_counted() -> None:
    spec = spec_of({f"/f{n}": {"type": "file", "color": "red"} for n in range(12)})
    with pytest.raises(HostSpecError, match=r"and 4 more"):
        from_spec(spec)


# ----------------------------------------------------------------------------- accounts


def test_users_name_the_homes_of_other_accounts_and_round_trip() -> None:
    spec = {"version": 1, "case_insensitive": False, "home": "/home/ada", "cwd": "/",
            "users": {"root": "/root", "www-data": "/var/www"}, "entries": {}}
    fs = from_spec(spec)
    assert fs.user_home("root") == "/root"
    assert fs.user_home("www-data") == "/var/www"
    assert fs.user_home("bob") is None
    assert to_spec(fs) == spec
    assert json.loads(format_spec(to_spec(fs)))["users"] == spec["users"]
    # The order a spec lists them in is not kept: to_spec sorts, as it sorts entries.
    shuffled = from_spec({**spec, "users": {"www-data": "/var/www", "root": "/root"}})
    assert list(to_spec(shuffled)["users"]) == ["root", "www-data"]


def test_a_spec_without_users_writes_none_and_knows_no_one() -> None:
    fs = from_spec({"version": 1, "home": "/home/ada", "entries": {}})
    assert "users" not in to_spec(fs)
    assert fs.user_home("root") is None


def test_virtualfs_takes_users_directly() -> None:
    fs = VirtualFS(home="/home/ada", users={"ci": "/home/ci"})
    assert fs.user_home("ci") == "/home/ci"
    assert from_spec(to_spec(fs)).user_home("ci") == "/home/ci"


@pytest.mark.parametrize(
    ("users", "message"),
    [
        ({"bob": "home/bob"}, r"users: 'bob''s home must be an absolute path"),
        ({"": "/x"}, r"users: '' is not an account name"),
        ({"a/b": "/x"}, r"users: 'a/b' is not an account name"),
        ({"bob": 3}, r"users\.bob: Input should be a valid string"),
        (["bob"], r"users: Input should be a valid dictionary"),
    ],
)
def test_bad_users_name_the_problem(users: Any, message: str) -> None:
    with pytest.raises(HostSpecError, match=message):
        from_spec({"version": 1, "users": users, "entries": {}})


def test_the_host_looks_accounts_up_in_its_password_database() -> None:
    import pwd

    me = pwd.getpwuid(os.getuid())
    assert HostFS().user_home(me.pw_name) == me.pw_dir
    assert HostFS().user_home("no-such-account-here") is None
    assert HostFS().user_home("a\x00b") is None
    assert HostFS().user_home("") is None
