"""Rules the real server (mcp-gee-sweet 0.9.5) settles where the design was silent or wrong.

Each test pins one behaviour the conformance suite found or the server's source shows,
on a tree built under pytest's tmp_path, without needing the server itself.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import can_hardlink
from conftest import run_cli as run

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.paths import fold, is_within, normcase
from localfs_explorer.servers.gee_sweet.check import BatchChecker, UnsupportedPathError
from localfs_explorer.vocab import Mode


def policy_for(layout, cwd=None, platform="posix", transport="stdio", **settings):
    overrides = {"HOME": str(layout.home), **settings}
    return resolve_policy(load_env(None, overrides=overrides), transport=transport,
                          cwd=str(cwd or layout.app), package_dir=str(layout.app),
                          platform=platform)


def deny_settings(policy):
    return [e.setting for e in policy.deny_list]


# --- the deny-list's defaults ----------------------------------------------------------


def test_service_account_path_is_denied_even_when_unset(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    d = policy.check_write(str(layout.app / "service_account.json"))
    assert d.reason == "denied" and d.deny_setting == "SERVICE_ACCOUNT_PATH"


@pytest.mark.parametrize("setting,name", [("TOKEN_PATH", "token.json"),
                                          ("SERVICE_ACCOUNT_PATH", "service_account.json"),
                                          ("CREDENTIALS_PATH", "credentials.json")])
def test_a_setting_set_empty_names_no_file(layout, setting, name):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full", **{setting: ""})
    assert setting not in deny_settings(policy)
    assert policy.check_write(str(layout.app / name)).allowed


def test_deny_list_keeps_the_servers_order(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full", LOG_FILE="a.log",
                        GOOGLE_APPLICATION_CREDENTIALS="/k.json", ACCESS_LOG_FILE="b.log")
    assert deny_settings(policy) == [
        "CREDENTIALS_PATH", "TOKEN_PATH", "SERVICE_ACCOUNT_PATH", "server .env",
        "HOME (ADC file)", "CACHE_DB_PATH", "CACHE_DB_PATH", "CACHE_DB_PATH",
        "legacy cache (pre-0.9.3)", "legacy cache (pre-0.9.3)", "legacy cache (pre-0.9.3)",
        "GOOGLE_APPLICATION_CREDENTIALS", "LOG_FILE", "ACCESS_LOG_FILE",
    ]


def test_an_empty_cache_path_falls_back_to_the_default(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full", CACHE_DB_PATH="")
    cache_dir = layout.home / ".cache" / "mcp-gee-sweet"
    assert [d.resolved for d in policy.deny_dirs] == [str(cache_dir)]
    assert policy.check_write(str(cache_dir / "other.db")).reason == "denied"


def test_a_cache_path_spelled_as_the_default_still_denies_the_directory(layout):
    default = str(layout.home / ".cache" / "mcp-gee-sweet" / "cache.db")
    assert policy_for(layout, CACHE_DB_PATH=default).deny_dirs
    assert not policy_for(layout, CACHE_DB_PATH=str(layout.data / "c.db")).deny_dirs


def test_an_absolute_xdg_cache_home_moves_the_cache(layout):
    xdg = layout.base / "xdg"
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full", XDG_CACHE_HOME=str(xdg))
    assert [d.resolved for d in policy.deny_dirs] == [str(xdg / "mcp-gee-sweet")]
    assert policy.check_write(str(xdg / "mcp-gee-sweet" / "x")).reason == "denied"


def test_a_relative_xdg_cache_home_is_ignored(layout):
    policy = policy_for(layout, XDG_CACHE_HOME="relative/cache")
    assert [d.resolved for d in policy.deny_dirs] == [str(layout.home / ".cache/mcp-gee-sweet")]


def test_macos_keeps_its_cache_in_library_caches(layout):
    policy = policy_for(layout, platform="macos", XDG_CACHE_HOME=str(layout.base / "xdg"))
    assert [d.path for d in policy.deny_dirs] == [
        str(layout.home / "Library" / "Caches" / "mcp-gee-sweet")]


def test_windows_keeps_its_cache_in_localappdata(layout):
    policy = policy_for(layout, platform="windows", LOCALAPPDATA="/lad")
    assert [d.path for d in policy.deny_dirs] == ["/lad/mcp-gee-sweet"]
    fallback = policy_for(layout, platform="windows")
    assert fallback.deny_dirs[0].path == str(layout.home / "AppData/Local/mcp-gee-sweet")
    adc = next(e for e in fallback.deny_list if "ADC" in e.setting)
    assert adc.path == str(layout.home / "AppData/Roaming/gcloud"
                           "/application_default_credentials.json")


@pytest.mark.parametrize("home,expected", [("", "/.cache/mcp-gee-sweet"),
                                           ("/", "/.cache/mcp-gee-sweet")])
def test_home_is_expanded_as_expanduser_does(layout, home, expected):
    policy = policy_for(layout, HOME=home)
    assert policy.deny_dirs[0].path == expected


def test_deny_dir_is_matched_case_folded_for_existing_targets(layout):
    real = layout.home / ".cache" / "mcp-gee-sweet"
    real.mkdir(parents=True)
    variant = layout.home / ".Cache" / "MCP-Gee-Sweet"
    variant.mkdir(parents=True)
    (variant / "notes.txt").write_text("a distinct, existing file")
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    d = policy.check_read(str(variant / "notes.txt"))
    assert d.reason == "denied" and "case-insensitively" in d.trace[-1].detail


def test_deny_list_entries_are_resolved_through_symlinked_directories(layout):
    # TOKEN_PATH spelled through a symlinked directory; the token doesn't exist yet.
    (layout.base / "app-link").symlink_to(layout.app)
    (layout.app / "token.json").unlink()
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full",
                        TOKEN_PATH=str(layout.base / "app-link" / "token.json"))
    d = policy.check_write(str(layout.app / "token.json"))
    assert d.reason == "denied" and d.deny_setting == "TOKEN_PATH"


# --- the startup directory -------------------------------------------------------------


def test_a_startup_directory_reached_through_a_symlink_is_resolved(layout):
    elsewhere = layout.base / "links"
    elsewhere.mkdir()
    (elsewhere / "app").symlink_to(layout.app)
    policy = policy_for(layout, cwd=elsewhere / "app", LOCAL_FILE_ACCESS="full")
    assert policy.cwd == str(layout.app)
    d = policy.check_read("../outside/x")
    assert d.resolved == str(layout.base / "outside" / "x")
    assert policy.check_write("token.json").reason == "denied"
    with policy.many_checks() as batch:
        assert batch.check_read("../outside/x").resolved == str(layout.base / "outside" / "x")


# --- settings and the texts the server shows -------------------------------------------


def test_an_invalid_setting_is_in_every_refusal_and_the_exit_line(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS=" Bogus ")
    error = "LOCAL_FILE_ACCESS='bogus' isn't valid (use full, roots, or off)"
    assert policy.errors == [error]
    assert policy.exit_line == f"mcp-gee-sweet: {error}"
    d = policy.check_read(str(layout.data / "report.csv"))
    assert d.message == f"local file access is disabled on this server: {error}"


def test_roots_error_names_only_the_first_bad_entry(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="roots",
                        LOCAL_FILE_ROOTS=f"{layout.base}/gone:{layout.base}/also-gone")
    assert policy.errors == [f"LOCAL_FILE_ROOTS entry '{layout.base}/gone' isn't an existing "
                             "directory"]
    assert "':'-separated" in policy_for(layout, LOCAL_FILE_ACCESS="roots").errors[0]


def test_an_unknown_mode_skips_root_validation(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="rooots", LOCAL_FILE_ROOTS="/gone")
    assert len(policy.errors) == 1 and policy.mode is Mode.OFF


def test_nul_byte_refusal_is_worded_as_the_server_words_it(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    try:
        os.lstat("\0")
    except ValueError as exc:
        why = str(exc)
    d = policy.check_read("/data/a\0b")
    assert d.message == f"'/data/a\\x00b' isn't a usable local path: {why}"
    with policy.many_checks() as batch:
        assert batch.check_read("/data/a\0b").message == d.message


def test_a_lone_surrogate_is_a_refusal_not_a_traceback(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    path = str(layout.data) + "/\ud800.txt"
    d = policy.check_read(path)
    assert d.reason == "invalid" and not d.allowed
    position = len(str(layout.data)) + 1
    assert d.message == (f"{path!r} isn't a usable local path: 'utf-8' codec can't encode "
                         f"character '\\ud800' in position {position}: surrogates not allowed")
    # A relative spelling counts positions in the relative path, as the server's does.
    rel = policy.check_read("\ud800")
    assert "in position 0:" in rel.message


def test_a_relative_surrogate_counts_from_itself_whatever_the_startup_directory(layout):
    # The startup directory's own name (here one ending in "X") never shifts the position
    # the server's error gives for a relative spelling.
    cwd = layout.base / "appX"
    cwd.mkdir()
    policy = policy_for(layout, cwd=cwd, LOCAL_FILE_ACCESS="full")
    assert "in position 0:" in policy.check_read("\ud800").message


def test_without_home_the_account_s_home_is_used_without_its_trailing_slash(layout):
    from localfs_explorer.fs import HostFS

    class AccountHome(HostFS):
        def home(self) -> str:
            return str(layout.base / "userX") + "/"

    policy = resolve_policy(load_env(None, overrides={"LOCAL_FILE_ACCESS": "full"}),
                            cwd=str(layout.app), package_dir=str(layout.app),
                            fs=AccountHome())
    cache = layout.base / "userX" / ".cache" / "mcp-gee-sweet"
    assert [d.resolved for d in policy.deny_dirs] == [str(cache)]


def test_a_lone_surrogate_in_a_batched_name_is_the_servers_unhandled_error(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    with policy.many_checks() as batch:
        d = batch.check_read(str(layout.data) + "/\ud800")
    assert d.reason == "invalid"
    assert d.message.startswith("'utf-8' codec can't encode character '\\ud800'")
    assert any(step.outcome == "raised" for step in d.trace)


# --- containment and resolution --------------------------------------------------------


@pytest.mark.parametrize("path,directory,inside", [
    ("/data", "/data", True),
    ("/data/x", "/data", True),
    ("/data-evil/x", "/data", False),
    ("/anything", "/", True),
    ("//x", "/", False),  # a leading // is a root of its own for PurePosixPath
    ("//x/y", "//x", True),
    ("/data//x", "/data", True),
    ("/data/./x", "/data/", True),
    ("/./data/x", "/data", True),  # a "." component vanishes, wherever it stands
    ("/data", "/data/", True),  # so do a trailing "/" and a trailing "/."
    ("/data/x", "/data/.", True),
    ("/data-evil/x", "/data/.", False),
    ("/data/../x", "/data", True),  # PurePath keeps '..' as a component
])
def test_containment_is_path_is_relative_to(path, directory, inside):
    assert is_within(path, directory) is inside


@pytest.mark.parametrize("platform,normcased,folded", [
    ("posix", "/Data/STRASSE/Straße", "/data/strasse/strasse"),
    # os.path.normcase on Windows: lower case and "\\" for "/"; then casefold.
    ("windows", "\\data\\strasse\\straße", "\\data\\strasse\\strasse"),
])
def test_paths_compare_as_the_target_platform_normalises_them(platform, normcased, folded):
    assert normcase("/Data/STRASSE/Straße", platform) == normcased
    assert fold("/Data/STRASSE/Straße", platform) == folded


def test_a_loop_followed_by_double_slash_resolves_where_realpath_sends_it(layout):
    loop = layout.data / "loop"
    loop.symlink_to(loop)
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    path = f"{loop}//x"
    single = policy.check_read(path)
    assert single.resolved == os.path.realpath(path) == "/x"
    with policy.many_checks() as batch:
        batched = batch.check_read(path)
    assert batched.resolved == f"{loop}/x"
    note = {d._batch: [s.detail for s in d.trace if s.step == "single-vs-batch"]
            for d in (single, batched)}
    assert note[False] and "batch check" in note[False][0] and f"{loop}/x" in note[False][0]
    assert note[True] and "single check" in note[True][0] and "to /x;" in note[True][0]
    plain = policy.check_read(str(layout.data / "report.csv"))
    assert not any(s.step == "single-vs-batch" for s in plain.trace)


def test_a_loop_followed_by_a_triple_slash_is_outside_every_root(layout):
    loop = layout.data / "loop"
    loop.symlink_to(loop)
    policy = policy_for(layout, LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS="/")
    d = policy.check_read(f"{loop}///x")
    assert d.resolved == "//x" and d.reason == "outside_roots"


@pytest.mark.parametrize("op,verb", [("read", "read"), ("write", "written"),
                                     ("read_write", "read or written")])
def test_batch_checks_keep_their_verb(layout, op, verb):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    batch = BatchChecker(policy)
    method = {"read": batch.check_read, "write": batch.check_write,
              "read_write": batch.check_read_write}[op]
    d = method(str(layout.app / "token.json"))
    assert d.op == op and d.message.endswith(f"can't be {verb} by a tool")


def test_single_checks_stat_the_deny_list_each_time_batches_once(layout):
    (layout.app / "token.json").unlink()
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    hard = layout.data / "hard.json"
    before = BatchChecker(policy)
    (layout.app / "token.json").write_text("{}")
    os.link(layout.app / "token.json", hard)
    assert policy.check_read(str(hard)).reason == "denied"  # a fresh stat finds the token
    assert before.check_read(str(hard)).allowed  # the batch's snapshot predates it
    assert BatchChecker(policy).check_read(str(hard)).reason == "denied"


def test_windows_spellings_are_refused_as_unsupported(layout):
    policy = policy_for(layout, platform="windows", LOCAL_FILE_ACCESS="full")
    for path in ("C:/Users/op/token.json", "data\\x"):
        with pytest.raises(UnsupportedPathError, match="not supported"):
            policy.check_read(path)
    assert policy.check_read("/data/x").allowed


# --- the CLI ---------------------------------------------------------------------------


def test_check_answers_each_path_singly_and_batch_on_request(layout):
    loop = layout.data / "loop"
    loop.symlink_to(loop)
    common = ["--set", "LOCAL_FILE_ACCESS=full", "--set", f"HOME={layout.home}",
              "--cwd", str(layout.app), "--json"]
    _, out, _ = run("check", f"{loop}//x", str(layout.data / "report.csv"), *common)
    single = [json.loads(line)["resolved"] for line in out.splitlines()]
    _, out, _ = run("check", f"{loop}//x", str(layout.data / "report.csv"), "--batch", *common)
    batched = [json.loads(line)["resolved"] for line in out.splitlines()]
    assert single == ["/x", str(layout.data / "report.csv")]
    assert batched == [f"{loop}/x", str(layout.data / "report.csv")]


def test_check_refuses_windows_spellings_with_exit_2(layout):
    code, _out, err = run("check", "C:\\Users\\op\\token.json", "--platform", "windows",
                         "--set", "LOCAL_FILE_ACCESS=full")
    assert code == 2 and "not supported" in err and "Traceback" not in err
    assert err.count("\n") == 1


def test_validate_shows_the_server_version_and_exit_line(layout):
    code, out, _ = run("validate", "--json", "--set", "LOCAL_FILE_ACCESS=nope")
    summary = json.loads(out)
    assert code == 2
    assert summary["server_version"] == "0.9.5"
    assert summary["exit_line"] == ("mcp-gee-sweet: LOCAL_FILE_ACCESS='nope' isn't valid "
                                    "(use full, roots, or off)")


def test_the_deny_dir_itself_is_refused_single_and_batched(layout):
    cache_dir = layout.home / ".cache" / "mcp-gee-sweet"
    cache_dir.mkdir(parents=True)
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    assert policy.check_write(str(cache_dir)).reason == "denied"
    with policy.many_checks() as batch:
        assert batch.check_write(str(cache_dir)).reason == "denied"
        assert batch.check_write(str(cache_dir) + "-sibling").allowed


# --- every field of every kind of decision ---------------------------------------------

TOKEN_DENIED = "{path} is one of this server's own credential, config, cache, or log files " \
    "and can't be {verb} by a tool"
VERBS = {"read": "read", "write": "written", "read_write": "read or written"}


def _kinds(layout):
    """(settings, transport, path, over_http, allowed, reason, message, resolved)."""
    data, token = str(layout.data / "report.csv"), str(layout.app / "token.json")
    roots = {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(layout.data)}
    return [
        ({}, "stdio", data, True, False, "tripwire",
         "local file access is disabled for HTTP requests unless LOCAL_FILE_ACCESS is set "
         "explicitly", None),
        ({}, "stdio", data, False, True, "allowed", "", data),
        ({"LOCAL_FILE_ACCESS": "off"}, "stdio", data, False, False, "off",
         "local file access is disabled on this server (LOCAL_FILE_ACCESS=off)", None),
        ({}, "sse", data, True, False, "off",
         "local file access is disabled on this server: LOCAL_FILE_ACCESS is unset, which "
         "means off for the sse transport", None),
        ({"LOCAL_FILE_ACCESS": "roots"}, "stdio", data, False, False, "off",
         "local file access is disabled on this server: LOCAL_FILE_ACCESS=roots needs "
         "LOCAL_FILE_ROOTS, a ':'-separated list of directories", None),
        (roots, "streamable-http", str(layout.outside / "x"), True, False, "outside_roots",
         f"{layout.outside / 'x'} is outside this server's LOCAL_FILE_ROOTS. Allowed "
         f"directories: {layout.data}", str(layout.outside / "x")),
        (roots, "sse", data, True, True, "allowed", "", data),
        ({"LOCAL_FILE_ACCESS": "full"}, "sse", token, True, False, "denied", TOKEN_DENIED,
         token),
        ({"LOCAL_FILE_ACCESS": "full"}, "stdio", "/x\0y", False, False, "invalid",
         "'/x\\x00y' isn't a usable local path: embedded null byte", None),
    ]


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("op", ["read", "write", "read_write"])
def test_every_field_of_every_kind_of_decision(layout, batched, op):
    for settings, transport, path, over_http, allowed, reason, message, resolved in \
            _kinds(layout):
        policy = policy_for(layout, transport=transport, **settings)
        checker = BatchChecker(policy) if batched else policy
        d = checker.check(path, op, over_http=over_http)
        expected = message.format(path=path, verb=VERBS[op])
        assert (d.path, d.op, d.allowed, d.reason, d.message, d.resolved) == (
            path, op, allowed, reason, expected, resolved), (transport, settings, path)
        assert d._batch is batched and d._over_http is over_http
        first = d.trace[0].detail
        assert first.endswith("not over HTTP") is (not over_http)
        assert d.to_dict()["allowed"] is allowed


def test_the_same_path_reads_the_same_through_each_entry_point(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    token = str(layout.app / "token.json")
    with policy.many_checks() as batch:
        for op, method, batched in [("read", policy.check_read, batch.check_read),
                                    ("write", policy.check_write, batch.check_write),
                                    ("read_write", policy.check_read_write,
                                     batch.check_read_write)]:
            for d in (method(token), batched(token), policy.check(token, op)):
                assert d.op == op and d.message == TOKEN_DENIED.format(path=token,
                                                                       verb=VERBS[op])


def test_a_non_string_path_is_refused_with_its_repr(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    for checker in (policy, BatchChecker(policy)):
        d = checker.check(42, "write", over_http=False)
        assert (d.path, d.op, d.allowed, d.reason, d.resolved) == ("42", "write", False,
                                                                  "invalid", None)
        assert d.message == "42 is not a valid local path: expected a string"
    assert policy.check(b"/data/x", "read").path == "/data/x"


def test_windows_compares_deny_list_paths_case_insensitively(layout):
    (layout.app / "TOKEN.JSON").write_text("a distinct file on this case-sensitive disk")
    posix = policy_for(layout, LOCAL_FILE_ACCESS="full")
    windows = policy_for(layout, platform="windows", LOCAL_FILE_ACCESS="full")
    variant = str(layout.app / "TOKEN.JSON")
    assert posix.check_read(variant).allowed
    assert windows.check_read(variant).reason == "denied"
    with windows.many_checks() as batch:
        assert batch.check_read(variant).reason == "denied"
        assert batch.check_read(str(layout.data / "report.csv")).allowed
    assert windows.check_read(str(layout.data / "report.csv")).allowed


def test_an_unknown_operation_is_an_error(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    for checker in (policy, BatchChecker(policy)):
        with pytest.raises(ValueError, match="unknown operation 'delete'"):
            checker.check("/x", "delete")


# --- the server profile ----------------------------------------------------------------


def test_the_shipped_profile_is_the_servers_release(layout):
    from localfs_explorer.servers.gee_sweet.profile import DEFAULT_PROFILE, load_profile

    assert load_profile() == DEFAULT_PROFILE
    assert (DEFAULT_PROFILE.name, DEFAULT_PROFILE.server_version) == ("mcp-gee-sweet", "0.9.5")
    assert policy_for(layout).server_version == "0.9.5"


def test_a_profile_file_replaces_the_defaults(layout, tmp_path):
    from localfs_explorer.servers.gee_sweet.profile import load_profile

    raw = json.loads(json.dumps(
        load_profile().model_dump(mode="json")))
    raw["setting_defaults"]["TOKEN_PATH"] = "tok.json"
    raw["server_version"] = "9.9"
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(raw))
    profile = load_profile(path)
    policy = resolve_policy(load_env(None, overrides={"HOME": str(layout.home),
                                                      "LOCAL_FILE_ACCESS": "full"}),
                            cwd=str(layout.app), package_dir=str(layout.app), profile=profile)
    assert policy.server_version == "9.9"
    assert policy.check_write(str(layout.app / "tok.json")).reason == "denied"
    assert policy.check_write(str(layout.app / "token.json")).allowed


def test_a_profile_that_keeps_root_whitespace_takes_the_spaced_directory(layout):
    # strip_root_whitespace=False: "data " names the directory "data " itself, not data.
    from localfs_explorer.servers.gee_sweet.profile import DEFAULT_PROFILE

    spaced = layout.base / "data "
    spaced.mkdir()
    env = load_env(None, overrides={"HOME": str(layout.home), "LOCAL_FILE_ACCESS": "roots",
                                    "LOCAL_FILE_ROOTS": f"{layout.data} "})
    verdicts = {}
    for strip in (True, False):
        profile = DEFAULT_PROFILE.model_copy(update={"strip_root_whitespace": strip})
        policy = resolve_policy(env, cwd=str(layout.app), package_dir=str(layout.app),
                                profile=profile)
        verdicts[strip] = (policy.roots[0].configured,
                           policy.check_read(str(layout.data / "report.csv")).reason,
                           policy.check_read(f"{spaced}/x").reason)
    assert verdicts[True] == (str(layout.data), "allowed", "outside_roots")
    assert verdicts[False] == (f"{layout.data} ", "outside_roots", "allowed")


def test_a_profile_without_the_platform_s_cache_base_takes_the_posix_one(layout):
    from localfs_explorer.servers.gee_sweet.profile import DEFAULT_PROFILE

    bases = {k: v for k, v in DEFAULT_PROFILE.cache_base.items() if k != "macos"}
    profile = DEFAULT_PROFILE.model_copy(update={"cache_base": bases})
    policy = resolve_policy(load_env(None, overrides={"HOME": str(layout.home),
                                                      "LOCAL_FILE_ACCESS": "full"}),
                            cwd=str(layout.app), package_dir=str(layout.app),
                            profile=profile, platform="macos")
    cache = layout.home / ".cache" / "mcp-gee-sweet"
    assert [d.resolved for d in policy.deny_dirs] == [str(cache)]
    assert policy.check_write(str(cache / "x.db")).reason == "denied"


def test_a_bad_profile_file_is_one_clear_error(tmp_path):
    from localfs_explorer.servers.gee_sweet.profile import ProfileError, load_profile

    missing = tmp_path / "nope.json"
    with pytest.raises(ProfileError) as info:
        load_profile(missing)
    assert str(info.value) == f"{missing}: can't be read (no such file)"
    broken = tmp_path / "broken.json"
    broken.write_text('{\n"name": }')
    with pytest.raises(ProfileError) as info:
        load_profile(broken)
    assert str(info.value) == f"{broken}: not valid JSON (line 2, column 9: Expecting value)"
    shape = tmp_path / "shape.json"
    shape.write_text(json.dumps({"name": "x"}))
    with pytest.raises(ProfileError) as info:
        load_profile(shape)
    assert str(info.value) == f"{shape}: setting_defaults: Field required"


# --- every branch of the batch keeps the facts of its verdict --------------------------


def _fields(d):
    return (d.path, d.op, d.allowed, d.reason, d.resolved, d._over_http, d._batch)


def test_each_batch_branch_records_op_over_http_and_batch(layout):
    if not can_hardlink(layout.data):
        pytest.skip("this filesystem has no hardlinks")
    token = layout.app / "token.json"
    os.link(token, layout.data / "hard.json")
    (layout.data / "to-hard").symlink_to(layout.data / "hard.json")
    (layout.data / "to-report").symlink_to(layout.data / "report.csv")
    policy = policy_for(layout, transport="sse", LOCAL_FILE_ACCESS="full")
    data = str(layout.data)
    cases = [
        # a symlink as the last component: resolved whole, then statted
        (f"{data}/to-hard", False, "denied", str(layout.data / "hard.json")),
        (f"{data}/to-report", True, "allowed", f"{data}/report.csv"),
        # '.', '..' and a trailing slash: resolved whole, as realpath does
        (f"{data}/.", True, "allowed", data),
        (f"{data}/sub/..", True, "allowed", data),
        (f"{data}/sub/", True, "allowed", f"{data}/sub"),
        # relative: against the startup directory, no cache
        ("../data/report.csv", True, "allowed", f"{data}/report.csv"),
        # a missing entry: its parent's realpath and the name
        (f"{data}//sub//new.txt", True, "allowed", f"{data}/sub/new.txt"),
    ]
    for over_http in (True, False):
        with policy.many_checks() as batch:
            for path, allowed, reason, resolved in cases:
                d = batch.check(path, "write", over_http=over_http)
                assert _fields(d) == (path, "write", allowed, reason, resolved, over_http,
                                      True), path
    with policy.many_checks() as batch:
        assert batch.check_read(f"{data}/to-report")._over_http is True  # sse's default
        assert batch.check_write(f"{data}/to-report").op == "write"


def test_a_batch_keeps_each_parent_as_first_resolved(layout):
    """The server caches each parent's realpath for the batch: a directory swapped for a
    symlink mid-walk is still resolved as it was; a single check sees the swap."""
    sub = layout.data / "sub"
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    with policy.many_checks() as batch:
        assert batch.check_read(f"{sub}/notes.txt").resolved == f"{sub}/notes.txt"
        sub.rename(layout.base / "moved")
        sub.symlink_to(layout.outside)
        for spelled in (f"{sub}/new.txt", f"{sub}//new.txt", f"{sub}///new.txt"):
            assert batch.check_read(spelled).resolved == f"{sub}/new.txt", spelled
    assert policy.check_read(f"{sub}/new.txt").resolved == str(layout.outside / "new.txt")


def test_an_unusable_parent_in_a_batch_is_refused_with_the_servers_text(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    path = f"{layout.app}/d\ud800/x"
    with policy.many_checks() as batch:
        d = batch.check(path, "read_write", over_http=False)
    position = len(str(layout.app)) + 2
    assert _fields(d) == (path, "read_write", False, "invalid", None, False, True)
    assert d.message == (f"{path!r} isn't a usable local path: 'utf-8' codec can't encode "
                         f"character '\\ud800' in position {position}: surrogates not allowed")
    single = policy.check(path, "read_write", over_http=False)
    assert single.message == d.message and single._batch is False


def test_the_servers_unhandled_error_keeps_its_facts(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    path = f"{layout.data}/\ud800"
    with policy.many_checks() as batch:
        d = batch.check(path, "write", over_http=True)
    assert _fields(d) == (path, "write", False, "invalid", path, True, True)
    assert d._deny_hit[0] == "unhandled"


def test_windows_spellings_are_refused_in_a_batch_too(layout):
    policy = policy_for(layout, platform="windows", LOCAL_FILE_ACCESS="full")
    with policy.many_checks() as batch:
        with pytest.raises(UnsupportedPathError):
            batch.check_read("/data\\x")
        assert batch.check_read(str(layout.data / "report.csv")).allowed


def test_bytes_and_pathlike_paths_are_decoded(layout):
    from pathlib import Path as _Path

    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    report = layout.data / "report.csv"
    for given in (bytes(report), _Path(report), str(report)):
        d = policy.check(given, "read", over_http=False)
        assert (d.path, d.allowed, d.resolved) == (str(report), True, str(report))

    class BytesPath:
        def __fspath__(self):
            return bytes(report)

    assert policy.check(BytesPath(), "read").path == str(report)
    d = policy.check(None, "read", over_http=True)
    assert (d.path, d.message, d._over_http) == ("None", "None is not a valid local path: "
                                                 "expected a string", True)


def test_home_with_a_trailing_slash_is_trimmed_as_expanduser_does(layout):
    home = layout.base / "boX"
    home.mkdir()
    policy = policy_for(layout, HOME=f"{home}/")
    assert policy.deny_dirs[0].path == f"{home}/.cache/mcp-gee-sweet"
    adc = next(e for e in policy.deny_list if e.setting == "HOME (ADC file)")
    assert adc.path == f"{home}/.config/gcloud/application_default_credentials.json"
    assert adc.default is True


def test_windows_takes_appdata_and_a_relative_localappdata_as_given(layout):
    policy = policy_for(layout, platform="windows", APPDATA="/roaming", LOCALAPPDATA="rel")
    adc = next(e for e in policy.deny_list if "ADC" in e.setting)
    assert (adc.setting, adc.path, adc.default) == (
        "APPDATA (ADC file)", "/roaming/gcloud/application_default_credentials.json", True)
    assert policy.deny_dirs[0].path == "rel/mcp-gee-sweet"
    assert policy.deny_dirs[0].resolved == str(layout.app / "rel" / "mcp-gee-sweet")


def test_cloudsdk_config_names_the_adc_file_explicitly(layout):
    policy = policy_for(layout, CLOUDSDK_CONFIG="/gc")
    adc = next(e for e in policy.deny_list if "ADC" in e.setting)
    assert (adc.setting, adc.path, adc.default) == (
        "CLOUDSDK_CONFIG (ADC file)", "/gc/application_default_credentials.json", False)
    explicit = next(e for e in policy_for(layout, TOKEN_PATH="t.json").deny_list
                    if e.setting == "TOKEN_PATH")
    assert explicit.default is False


def test_a_relative_startup_directory_is_a_policy_error(layout):
    from localfs_explorer.servers.gee_sweet.policy import PolicyError

    with pytest.raises(PolicyError, match=r"^the startup directory must be absolute: 'rel'$"):
        policy_for(layout, cwd="rel")
    missing = layout.base / "nowhere"
    policy = policy_for(layout, cwd=missing)
    assert policy.warnings == [f"the startup directory {missing} does not exist on this host; "
                               "the server could not start there"]


def test_single_checks_take_the_transports_over_http_default(layout):
    sse = policy_for(layout, transport="sse", LOCAL_FILE_ACCESS="full")
    stdio = policy_for(layout, LOCAL_FILE_ACCESS="full")
    report = str(layout.data / "report.csv")
    assert sse.check_read(report)._over_http is True
    assert sse.check_read_write(report)._over_http is True
    assert stdio.check_write(report)._over_http is False


# --- what a deny-list refusal names, and the public helpers ------------------------------


def test_the_deny_list_summary_names_each_setting_path_and_default(layout):
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full", LOG_FILE="/logs/s.log")
    rows = [(e["setting"], e["default"]) for e in policy.summary()["deny_list"]]
    assert rows == [
        ("CREDENTIALS_PATH", True), ("TOKEN_PATH", True), ("SERVICE_ACCOUNT_PATH", True),
        ("server .env", False), ("HOME (ADC file)", True),
        ("CACHE_DB_PATH", True), ("CACHE_DB_PATH", True), ("CACHE_DB_PATH", True),
        ("legacy cache (pre-0.9.3)", True), ("legacy cache (pre-0.9.3)", True),
        ("legacy cache (pre-0.9.3)", True), ("LOG_FILE", False),
    ]
    assert policy.summary()["deny_dirs"] == [{
        "setting": "CACHE_DB_PATH", "path": f"{layout.home}/.cache/mcp-gee-sweet",
        "resolved": f"{layout.home}/.cache/mcp-gee-sweet"}]
    explicit = policy_for(layout, CACHE_DB_PATH=str(layout.data / "c.db"))
    cache = [e for e in explicit.deny_list if e.setting == "CACHE_DB_PATH"]
    assert [e.default for e in cache] == [False, False, False]


def test_a_refusal_names_the_entry_and_how_it_matched(layout):
    if not can_hardlink(layout.data):
        pytest.skip("this filesystem has no hardlinks")
    os.link(layout.app / "token.json", layout.data / "hard.json")
    (layout.app / "credentials.json").unlink()
    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    same = policy.check_read(str(layout.app / "token.json"))
    assert same.deny_setting == "TOKEN_PATH"
    assert same.trace[-1].detail == "same path as token.json (deny-list entry from TOKEN_PATH)"
    hard = policy.check_read(str(layout.data / "hard.json"))
    assert hard.deny_setting == "TOKEN_PATH"
    assert hard.trace[-1].detail.startswith("same file as token.json (a hardlink")
    folded = policy.check_write(str(layout.app / "CREDENTIALS.JSON"))
    assert folded.deny_setting == "CREDENTIALS_PATH"
    assert folded.trace[-1].detail == ("missing target whose case-folded path equals "
                                       "credentials.json (deny-list entry from CREDENTIALS_PATH)")
    in_dir = policy.check_write(str(layout.home / ".cache" / "mcp-gee-sweet" / "x"))
    assert in_dir.deny_setting == "CACHE_DB_PATH"
    assert in_dir.trace[-1].detail.startswith(
        f"inside the deny-listed directory {layout.home}/.cache/mcp-gee-sweet (compared")
    assert policy.check_read(str(layout.data / "report.csv")).deny_setting is None


def test_windows_names_a_case_variant_by_its_entry(layout):
    (layout.app / "TOKEN.JSON").write_text("x")
    policy = policy_for(layout, platform="windows", LOCAL_FILE_ACCESS="full")
    d = policy.check_read(str(layout.app / "TOKEN.JSON"))
    assert d.deny_setting == "TOKEN_PATH" and d.trace[-1].detail.startswith("same path as")


def test_check_path_and_decision_equality(layout):
    from localfs_explorer.servers.gee_sweet.check import check_path

    policy = policy_for(layout, LOCAL_FILE_ACCESS="full")
    report = str(layout.data / "report.csv")
    a = check_path(policy, report, "write", over_http=False)
    b = policy.check_write(report, over_http=False)
    assert a == b and hash(a) == hash(b) and a.key() == b.key()
    assert a != policy.check_read(report) and a != "not a decision"
    assert len({a, b, policy.check_read(report)}) == 2
    assert check_path(policy, report, "read")._over_http is False
    with pytest.raises(ValueError, match="unknown operation"):
        check_path(policy, report, "move")


def test_a_profile_with_a_wrongly_typed_nested_field_names_its_dotted_location(tmp_path):
    from localfs_explorer.servers.gee_sweet.profile import (
        DEFAULT_PROFILE,
        ProfileError,
        load_profile,
    )

    raw = json.loads(DEFAULT_PROFILE.model_dump_json())
    raw["cache_base"] = {"posix": 1}
    bad = tmp_path / "typed.json"
    bad.write_text(json.dumps(raw))
    with pytest.raises(ProfileError) as info:
        load_profile(bad)
    assert str(info.value) == f"{bad}: cache_base.posix: Input should be a valid string"
