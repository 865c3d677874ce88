"""Resolving the policy: the mode matrix, validation, and the deny-list's composition."""

from __future__ import annotations

import os

import pytest

from localfs_explorer import Mode, PolicyError, load_env, resolve_policy
from localfs_explorer.fs import HostFS

TRANSPORTS = ["stdio", "sse", "streamable-http"]


@pytest.mark.parametrize("transport", [*TRANSPORTS, None])
@pytest.mark.parametrize(
    "value, expected",
    [
        (None, None),
        ("full", Mode.FULL),
        ("roots", Mode.ROOTS),
        ("off", Mode.OFF),
        ("FULL", Mode.FULL),
        ("Roots", Mode.ROOTS),
        (" oFF ", Mode.OFF),
    ],
)
def test_mode_matrix(layout, value, expected, transport):
    settings = {}
    if value is not None:
        settings["LOCAL_FILE_ACCESS"] = value
    if expected is Mode.ROOTS:
        settings["LOCAL_FILE_ROOTS"] = str(layout.data)
    policy = layout.policy(transport or "stdio", **settings)  # None: the --transport default
    if expected is None:
        expected = Mode.FULL if transport in (None, "stdio") else Mode.OFF
    assert policy.mode is expected
    assert policy.explicit is (value is not None)
    assert policy.errors == []
    assert policy.serves


def test_empty_setting_counts_as_unset(layout):
    policy = layout.policy("sse", LOCAL_FILE_ACCESS="")
    assert policy.mode is Mode.OFF and not policy.explicit


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_invalid_value_fails_safe_to_off(layout, transport):
    policy = layout.policy(transport, LOCAL_FILE_ACCESS="everything")
    assert policy.mode is Mode.OFF
    assert not policy.serves
    # The real server's wording (0.9.5): the value stripped and lower-cased, repr'd.
    assert policy.errors == ["LOCAL_FILE_ACCESS='everything' isn't valid (use full, roots, or off)"]
    assert policy.exit_message == policy.errors[0]
    assert policy.exit_line == f"mcp-gee-sweet: {policy.errors[0]}"
    assert "\n" not in policy.exit_message


@pytest.mark.parametrize("roots", [None, "", " : "])
def test_roots_mode_without_roots_is_an_error(layout, roots):
    settings = {"LOCAL_FILE_ACCESS": "roots"}
    if roots is not None:
        settings["LOCAL_FILE_ROOTS"] = roots
    policy = layout.policy(**settings)
    assert policy.mode is Mode.OFF
    assert policy.errors and "needs LOCAL_FILE_ROOTS" in policy.errors[0]


def test_missing_root_is_an_error_naming_it(layout):
    missing = layout.base / "not-mounted-yet"
    policy = layout.roots(layout.data, missing)
    assert policy.mode is Mode.OFF
    # The real server words every bad entry the same way and reports only the first.
    assert policy.errors == [f"LOCAL_FILE_ROOTS entry '{missing}' isn't an existing directory"]


def test_a_usable_root_has_no_problem_and_a_missing_one_says_why(layout):
    missing = layout.base / "not-mounted-yet"
    good, bad = layout.roots(layout.data, missing).roots
    assert (good.configured, good.resolved, good.problem) == (str(layout.data),
                                                              str(layout.data), None)
    assert bad.configured == str(missing) and bad.problem


def test_the_configured_mode_is_kept_for_the_explanation(layout):
    policy = layout.policy(LOCAL_FILE_ACCESS="off")
    assert policy.configured_mode == "off"
    steps = policy.check_read(str(layout.data / "report.csv")).trace
    assert [s.detail for s in steps if s.step == "mode"] == ["LOCAL_FILE_ACCESS=off"]
    assert layout.policy().configured_mode is None


def test_home_keeps_its_spaces_and_loses_its_trailing_slash(layout):
    # $HOME is taken as spelled but for trailing slashes, as os.path.expanduser does.
    spaced = layout.base / "home "
    spaced.mkdir()
    for home, expected in ((f"{spaced}", spaced), (f"{layout.home}/", layout.home)):
        policy = layout.policy(HOME=home, LOCAL_FILE_ACCESS="full")
        cache = f"{expected}/.cache/mcp-gee-sweet"
        assert [(d.path, d.resolved) for d in policy.deny_dirs] == [(cache, cache)], home


def test_root_that_is_a_file_is_an_error(layout):
    policy = layout.roots(layout.data / "report.csv")
    assert policy.mode is Mode.OFF
    assert policy.errors[0].endswith("isn't an existing directory")


def test_roots_set_while_mode_is_not_roots_warns_only(layout):
    policy = layout.policy(LOCAL_FILE_ACCESS="full", LOCAL_FILE_ROOTS=str(layout.data))
    assert policy.mode is Mode.FULL and policy.serves
    assert policy.errors == []
    assert any("LOCAL_FILE_ROOTS is set but ignored" in w for w in policy.warnings)


def test_roots_split_on_the_target_platform_separator(layout):
    spelled = f"{layout.data};{layout.outside}"
    posix = layout.policy(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=spelled)
    assert posix.mode is Mode.OFF  # one entry named "a;b" does not exist
    windows = resolve_policy(
        load_env(None, overrides={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": spelled,
                                  "HOME": str(layout.home)}),
        cwd=str(layout.app), platform="windows",
    )
    assert windows.mode is Mode.ROOTS
    assert [r.configured for r in windows.roots] == [str(layout.data), str(layout.outside)]


def test_root_keeps_configured_spelling_and_resolves(layout):
    link = layout.base / "data-link"
    link.symlink_to(layout.data)
    policy = layout.roots(str(link) + "/")
    assert policy.roots[0].configured == str(link) + "/"
    assert policy.roots[0].resolved == str(layout.data)


def test_relative_root_resolves_against_startup_directory(layout):
    (layout.app / "inbox").mkdir()
    policy = layout.roots("inbox")
    assert policy.roots[0].resolved == str(layout.app / "inbox")


def test_unknown_transport_is_an_argument_error(layout):
    with pytest.raises(PolicyError) as info:
        resolve_policy(load_env(None), transport="websocket", cwd=str(layout.app))
    assert str(info.value) == ("unknown transport 'websocket': use one of stdio, sse, "
                               "streamable-http")


def _deny(policy):
    return {(e.setting, e.resolved) for e in policy.deny_list}


def test_deny_list_defaults_resolve_against_startup_directory(layout):
    policy = layout.policy()
    entries = _deny(policy)
    assert ("CREDENTIALS_PATH", str(layout.app / "credentials.json")) in entries
    assert ("TOKEN_PATH", str(layout.app / "token.json")) in entries
    assert ("server .env", str(layout.app / ".env")) in entries
    token = next(e for e in policy.deny_list if e.setting == "TOKEN_PATH")
    assert token.default and token.exists


def test_optional_entries_only_when_set(layout):
    bare = {s for s, _ in _deny(layout.policy())}
    # SERVICE_ACCOUNT_PATH has a default (service_account.json), so it is always there.
    assert not bare & {"GOOGLE_APPLICATION_CREDENTIALS", "LOG_FILE", "ACCESS_LOG_FILE"}
    full = layout.policy(SERVICE_ACCOUNT_PATH="sa.json", GOOGLE_APPLICATION_CREDENTIALS="/k.json",
                         LOG_FILE="/var/log/s.log", ACCESS_LOG_FILE="access.log")
    settings = {s for s, _ in _deny(full)}
    assert {"SERVICE_ACCOUNT_PATH", "GOOGLE_APPLICATION_CREDENTIALS", "LOG_FILE",
            "ACCESS_LOG_FILE"} <= settings
    assert ("ACCESS_LOG_FILE", str(layout.app / "access.log")) in _deny(full)


def test_unset_log_file_adds_no_entry(layout):
    assert len(layout.policy(LOG_FILE="/var/log/s.log").deny_list) == len(
        layout.policy().deny_list) + 1


def test_cloudsdk_config_replaces_the_adc_default(layout):
    default_adc = str(layout.home / ".config/gcloud/application_default_credentials.json")
    assert default_adc in {p for _, p in _deny(layout.policy())}
    moved = layout.policy(CLOUDSDK_CONFIG=str(layout.base / "gcloud"))
    paths = {p for _, p in _deny(moved)}
    assert default_adc not in paths
    assert str(layout.base / "gcloud/application_default_credentials.json") in paths


def test_cache_entries_sidecars_and_legacy_file(layout):
    default = layout.policy()
    paths = {p for _, p in _deny(default)}
    cache_dir = layout.home / ".cache/mcp-gee-sweet"
    assert {str(cache_dir / "cache.db"), str(cache_dir / "cache.db-wal"),
            str(cache_dir / "cache.db-shm")} <= paths
    assert [d.resolved for d in default.deny_dirs] == [str(cache_dir)]
    custom = layout.policy(CACHE_DB_PATH=str(layout.base / "c.db"))
    custom_paths = {p for _, p in _deny(custom)}
    assert str(layout.base / "c.db-wal") in custom_paths
    assert custom.deny_dirs == []  # only the default location is the server's alone
    for suffix in ("", "-wal", "-shm"):
        assert os.path.realpath("/tmp/mcp_gee_sweet.db" + suffix) in custom_paths


def test_explorers_own_environment_never_leaks(layout, monkeypatch):
    monkeypatch.setenv("LOCAL_FILE_ACCESS", "off")
    monkeypatch.setenv("HOME", "/nonexistent-operator-home")
    policy = resolve_policy(load_env(None), cwd=str(layout.app))
    assert policy.mode is Mode.FULL and not policy.explicit
    adc = next(e for e in policy.deny_list if "ADC" in e.setting)
    assert not adc.resolved.startswith("/nonexistent-operator-home")
    assert adc.resolved.startswith(HostFS().home().rstrip("/") or "/")
    inherited = resolve_policy(load_env(None, inherit_environ=True), cwd=str(layout.app))
    assert inherited.mode is Mode.OFF and inherited.explicit


def test_summary_has_the_validate_fields(layout):
    summary = layout.roots().summary()
    for key in ("mode", "explicit", "transport", "roots", "errors", "warnings", "deny_list",
                "deny_dirs"):
        assert key in summary
    assert {"setting", "path", "exists"} <= set(summary["deny_list"][0])


# --- inputs the resolver checks before it looks at the filesystem ---------------------------


def test_a_root_entry_with_a_nul_byte_is_the_start_up_error_and_keeps_its_problem() -> None:
    from localfs_explorer.fs.virtual import VirtualFS

    policy = resolve_policy({"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/a\0b"},
                            fs=VirtualFS())
    assert policy.errors == ["LOCAL_FILE_ROOTS entry '/a\\x00b' contains a NUL byte"]
    assert [(r.configured, r.resolved, r.problem) for r in policy.roots] == [
        ("/a\0b", None, "contains a NUL byte")]


def test_each_unusable_root_keeps_its_own_problem() -> None:
    from localfs_explorer.fs.virtual import VirtualFS

    policy = resolve_policy({"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/nope"},
                            fs=VirtualFS())
    assert [r.problem for r in policy.roots] == ["isn't an existing directory"]
    assert not policy.serves


@pytest.mark.parametrize(("home", "adc"), [
    # The account's home as the password database gives it: only trailing slashes go,
    # so a name ending in a space keeps it, and "/" stays "/".
    ("/home/u ", "/home/u /.config/gcloud/application_default_credentials.json"),
    ("/", "/.config/gcloud/application_default_credentials.json"),
])
def test_without_home_set_the_account_s_home_places_the_credentials(home, adc) -> None:
    from localfs_explorer.fs.virtual import VirtualFS

    policy = resolve_policy({"LOCAL_FILE_ACCESS": "full"}, fs=VirtualFS(home=home),
                            cwd="/", package_dir="/app")
    assert adc in [entry.path for entry in policy.deny_list]


def test_a_mapping_with_a_value_that_is_not_text_is_a_type_error_naming_the_key() -> None:
    with pytest.raises(TypeError) as info:
        resolve_policy({"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": 1})  # type: ignore[dict-item]
    assert str(info.value) == ("resolve_policy: env maps setting names to strings; "
                               "'LOCAL_FILE_ROOTS' is not a string or its value isn't")


def test_an_unknown_platform_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(PolicyError) as info:
        resolve_policy({}, platform="beos")
    assert str(info.value) == "unknown platform 'beos': use posix, macos or windows"
