"""The check itself (spec section 3 and its "As implemented" findings), on real files."""

from __future__ import annotations

import errno
import os

import policy_scenarios as scenarios
import pytest
from conftest import can_hardlink, case_insensitive

from localfs_explorer import Mode, load_env, resolve_policy
from localfs_explorer.fs import HostFS

OFF_EXPLICIT = "local file access is disabled on this server (LOCAL_FILE_ACCESS=off)"
TRIPWIRE = ("local file access is disabled for HTTP requests unless LOCAL_FILE_ACCESS is set "
            "explicitly")


def test_inside_a_root_is_allowed_and_resolved(layout):
    d = layout.roots().check_read(str(layout.data / "sub" / "notes.txt"))
    assert d.allowed and d.reason == "allowed" and d.message == ""
    assert d.resolved == str(layout.data / "sub" / "notes.txt")


def test_new_file_inside_a_root_can_be_written(layout):
    d = layout.roots().check_write(str(layout.data / "new" / "deeper" / "out.csv"))
    assert d.allowed
    assert d.resolved == str(layout.data / "new" / "deeper" / "out.csv")


def test_outside_a_root_gets_the_exact_message(layout):
    path = str(layout.outside / "other.txt")
    d = layout.roots(layout.data, layout.app).check_read(path)
    assert d.reason == "outside_roots"
    assert d.message == (f"{path} is outside this server's LOCAL_FILE_ROOTS. Allowed "
                         f"directories: {layout.data}, {layout.app}")


def test_dotdot_traversal_out_of_a_root_is_refused(layout):
    d = layout.roots().check_read(f"{layout.data}/sub/../../outside/other.txt")
    assert d.reason == "outside_roots"
    assert d.resolved == str(layout.outside / "other.txt")


def test_symlink_in_root_pointing_out(layout):
    scenarios.symlink_in_root_pointing_out(layout)


def test_trace_names_the_symlink_that_took_the_path_out(layout):
    (layout.data / "escape").symlink_to(layout.outside)
    d = layout.roots().check_read(str(layout.data / "escape" / "other.txt"))
    resolve = next(s for s in d.trace if s.step == "resolve")
    assert f"{layout.data}/escape -> {layout.outside}" in resolve.detail
    assert "symlink" in d.hint and str(layout.outside) in d.hint


def test_symlink_outside_pointing_in_is_allowed(layout):
    link = layout.outside / "into-data"
    link.symlink_to(layout.data)
    d = layout.roots().check_read(str(link / "report.csv"))
    assert d.allowed and d.resolved == str(layout.data / "report.csv")


def test_prefix_sibling(layout):
    scenarios.prefix_sibling_is_outside(layout)


def test_root_spelled_through_a_symlink_lists_the_configured_spelling(layout):
    link = layout.base / "data-link"
    link.symlink_to(layout.data)
    policy = layout.roots(link)
    assert policy.check_read(str(layout.data / "report.csv")).allowed
    refused = policy.check_read(str(layout.outside / "other.txt"))
    assert refused.message.endswith(f"Allowed directories: {link}")


def test_identical_refusal_for_existing_and_missing(layout):
    scenarios.refusal_reads_the_same_whether_or_not_the_path_exists(layout)


@pytest.mark.parametrize("op, verb", [("read", "read"), ("write", "written"),
                                      ("read_write", "read or written")])
def test_deny_list_message_names_the_operation(layout, op, verb):
    d = layout.policy().check(str(layout.app / "token.json"), op)
    assert d.reason == "denied"
    assert d.message == (f"{layout.app}/token.json is one of this server's own credential, "
                         f"config, cache, or log files and can't be {verb} by a tool")


def test_deny_list_applies_in_full_mode(layout):
    policy = layout.policy(LOCAL_FILE_ACCESS="full")
    assert policy.check_read(str(layout.app / "credentials.json")).reason == "denied"
    assert policy.check_read(str(layout.app / ".env")).reason == "denied"
    assert policy.check_read(str(layout.data / "report.csv")).allowed


def test_relative_token_path_in_the_call_is_denied(layout, monkeypatch):
    monkeypatch.chdir(layout.outside)  # the explorer's own cwd must not matter
    d = layout.policy().check_read("token.json")
    assert d.reason == "denied" and d.resolved == str(layout.app / "token.json")


def test_hardlink_to_token(layout):
    if not can_hardlink(layout.data):
        pytest.skip("this filesystem has no hardlinks")
    scenarios.hardlink_to_token_is_denied(layout)


def test_missing_token_path_as_write_target_is_denied(layout):
    (layout.app / "token.json").unlink()
    policy = layout.policy(TOKEN_PATH=str(layout.data / "tok.json"),
                           LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=str(layout.data))
    d = policy.check_write(str(layout.data / "tok.json"))
    assert d.reason == "denied"
    assert "written" in d.message


def test_missing_case_variant_of_an_entry_is_denied(layout):
    # A write to a missing TOKEN.json compares case-folded realpaths: it would plant a
    # token the server then loads on a case-insensitive disk.
    d = layout.policy().check_write(str(layout.app / "TOKEN.json"))
    assert d.reason == "denied"


def test_existing_distinct_case_variant_is_allowed(layout):
    if case_insensitive(layout.app):
        pytest.skip("needs a case-sensitive filesystem")
    (layout.app / "Token.json").write_text("not the token")
    d = layout.policy().check_read(str(layout.app / "Token.json"))
    assert d.allowed, "an existing distinct file must match by identity only"


def test_existing_case_variant_on_a_case_insensitive_disk_is_denied():
    # A described macOS-like host: TOKEN.json is the token itself there, found by identity.
    from localfs_explorer.fs import VirtualFS

    fs = VirtualFS(case_insensitive=True, home="/Users/op", cwd="/Users/op/mcp")
    for directory in ("/Users", "/Users/op", "/Users/op/mcp"):
        fs.mkdir(directory, exist_ok=True)
    fs.add_file("/Users/op/mcp/token.json")
    policy = resolve_policy(load_env(None), fs=fs, cwd="/Users/op/mcp")
    d = policy.check_read("/Users/op/mcp/TOKEN.json")
    assert d.reason == "denied"
    assert d.resolved == "/Users/op/mcp/TOKEN.json"  # realpath keeps the caller's spelling
    assert "same file as" in next(s for s in d.trace if s.step == "deny-list").detail


def test_env_file_and_cache_sidecar(layout):
    cache = layout.base / "cache.db"
    policy = layout.policy(CACHE_DB_PATH=str(cache))
    assert policy.check_write(str(layout.app / ".env")).reason == "denied"
    d = policy.check_write(str(layout.base / "cache.db-wal"))
    assert d.reason == "denied"
    assert any(s.step == "deny-list" and "CACHE_DB_PATH" in s.detail for s in d.trace)


def test_legacy_cache_is_denied_whatever_cache_db_path_says(layout):
    policy = layout.policy(CACHE_DB_PATH=str(layout.base / "elsewhere.db"))
    assert policy.check_write("/tmp/mcp_gee_sweet.db-shm").reason == "denied"


def test_default_cache_directory_is_denied_whole(layout):
    d = layout.policy().check_write(str(layout.home / ".cache/mcp-gee-sweet/other-file"))
    assert d.reason == "denied"
    assert "inside the deny-listed directory" in next(
        s for s in d.trace if s.step == "deny-list").detail


def test_cloudsdk_config_adc_is_denied(layout):
    gcloud = layout.base / "gcloud"
    policy = layout.policy(CLOUDSDK_CONFIG=str(gcloud))
    assert policy.check_read(str(gcloud / "application_default_credentials.json")).reason == (
        "denied")
    old = layout.home / ".config/gcloud/application_default_credentials.json"
    assert policy.check_read(str(old)).allowed


def test_tripwire_defaulted_full_over_http_is_refused(layout):
    policy = layout.policy("stdio")
    d = policy.check_read(str(layout.data / "report.csv"), over_http=True)
    assert d.reason == "tripwire" and d.message == TRIPWIRE and d.resolved is None


def test_tripwire_spares_explicit_full(layout):
    policy = layout.policy("stdio", LOCAL_FILE_ACCESS="full")
    assert policy.check_read(str(layout.data / "report.csv"), over_http=True).allowed


def test_tripwire_spares_stdio_requests(layout):
    policy = layout.policy("stdio")
    assert policy.check_read(str(layout.data / "report.csv")).allowed
    assert policy.check_read(str(layout.data / "report.csv"), over_http=False).allowed


def test_over_http_defaults_follow_the_transport(layout):
    assert layout.policy("sse", LOCAL_FILE_ACCESS="full").over_http_default is True
    assert layout.policy("stdio").over_http_default is False


def test_off_messages_explicit_and_defaulted(layout):
    explicit = layout.policy("stdio", LOCAL_FILE_ACCESS="off").check_read("/x")
    assert explicit.reason == "off" and explicit.message == OFF_EXPLICIT
    for transport in ("sse", "streamable-http"):
        defaulted = layout.policy(transport).check_read("/x")
        assert defaulted.message == (
            "local file access is disabled on this server: LOCAL_FILE_ACCESS is unset, "
            f"which means off for the {transport} transport")


def test_off_after_an_invalid_setting_explains_the_error(layout):
    d = layout.policy(LOCAL_FILE_ACCESS="roots").check_read("/x")
    assert d.reason == "off"
    assert "needs LOCAL_FILE_ROOTS" in d.trace[-1].detail
    assert d.hint.startswith("Fix the configuration first")


def test_nul_byte_is_a_refusal_not_a_crash(layout):
    d = layout.policy(LOCAL_FILE_ACCESS="full").check_read("/etc/pass\0wd")
    assert not d.allowed and d.reason == "invalid"
    # Worded as the real server words it: the path repr'd, then realpath's own error.
    assert d.message == "'/etc/pass\\x00wd' isn't a usable local path: embedded null byte"
    assert d.path == "/etc/pass\0wd"


def test_nul_byte_in_off_mode_is_refused_as_off(layout):
    # off comes before resolution, as in the server, so the NUL is never looked at.
    assert layout.policy("sse").check_read("a\0b").reason == "off"


def test_symlink_loop_gets_a_verdict_and_a_note(layout):
    loop_a, loop_b = layout.data / "loop-a", layout.data / "loop-b"
    loop_a.symlink_to(loop_b)
    loop_b.symlink_to(loop_a)
    d = layout.roots().check_read(str(loop_a / "x"))
    # Non-strict realpath gives up inside the loop and returns a path under the root, so
    # the server's check allows it; the open() after it is what fails.
    assert d.resolved == os.path.realpath(str(loop_a / "x"))
    assert d.allowed
    assert any(s.step == "io" and "ELOOP" in s.detail for s in d.trace)


def test_over_long_path_gets_a_verdict(layout):
    long_path = str(layout.data) + "/" + "x" * 300 + "/y"
    d = layout.roots().check_write(long_path)
    assert d.allowed  # realpath doesn't raise for it, so the check lets it through ...
    assert any(s.step == "io" and "ENAMETOOLONG" in s.detail for s in d.trace)  # ... I/O fails


def test_bytes_and_pathlike_paths(layout):
    policy = layout.roots()
    assert policy.check_read(layout.data / "report.csv").allowed
    assert policy.check_read(os.fsencode(str(layout.data / "report.csv"))).allowed
    assert policy.check_read(12345).reason == "invalid"


def test_unknown_operation_is_an_argument_error(layout):
    with pytest.raises(ValueError, match="unknown operation"):
        layout.policy().check("/x", "delete")


class CountingFS(HostFS):
    """HostFS that counts every question asked of it."""

    def __init__(self) -> None:
        self.calls = 0

    def realpath(self, path):
        self.calls += 1
        return super().realpath(path)

    def lstat(self, path):
        self.calls += 1
        return super().lstat(path)

    def stat(self, path):
        self.calls += 1
        return super().stat(path)


@pytest.mark.parametrize("settings, transport, over_http", [
    ({"LOCAL_FILE_ACCESS": "off"}, "stdio", False),
    ({}, "sse", True),
    ({}, "stdio", True),  # tripwire
])
def test_refusals_before_resolution_touch_no_filesystem(layout, settings, transport, over_http):
    fs = CountingFS()
    policy = resolve_policy(load_env(None, overrides={"HOME": str(layout.home), **settings}),
                            transport=transport, fs=fs, cwd=str(layout.app))
    fs.calls = 0
    d = policy.check_write(str(layout.outside / "other.txt"), over_http=over_http)
    assert not d.allowed
    assert fs.calls == 0


def test_hint_for_outside_roots_names_a_directory_that_would_work(layout):
    policy = layout.roots()
    d = policy.check_read(str(layout.outside / "other.txt"))
    assert d.hint.startswith(f"Add {layout.outside} to LOCAL_FILE_ROOTS")
    widened = layout.roots(layout.data, layout.outside)
    assert widened.check_read(str(layout.outside / "other.txt")).allowed


def test_hint_never_suggests_a_root_that_would_stop_the_server(layout):
    policy = layout.roots()
    target = layout.outside / "new" / "deeper" / "out.csv"  # its folders don't exist yet
    hint = policy.check_write(str(target)).hint
    folder = layout.outside / "new" / "deeper"
    assert hint.startswith(f"Create {folder}, then add it to LOCAL_FILE_ROOTS")
    assert f"{folder} doesn't exist on the target" in hint
    assert "the server exits at start-up" in hint
    assert f"its nearest existing parent is {layout.outside})" in hint
    # Added as it is, that root stops the server; created first, it serves and allows.
    assert not layout.roots(layout.data, folder).serves
    folder.mkdir(parents=True)
    assert layout.roots(layout.data, folder).check_write(str(target)).allowed
    assert policy.check_write(str(target)).hint.startswith(f"Add {folder} to LOCAL_FILE_ROOTS")


def test_the_trace_names_the_env_line_or_deny_list_entry_that_decided(layout):
    env_file = layout.app / ".env"
    env_file.write_text(
        "# access\n"
        "LOCAL_FILE_ACCESS=roots\n"
        f"LOCAL_FILE_ROOTS={layout.outside}\n"
        "\n"
        f"LOCAL_FILE_ROOTS={layout.data}\n"      # the later line wins, and is the one named
        f"TOKEN_PATH={layout.data / 'tok.json'}\n"
        f"HOME={layout.home}\n")
    env = load_env(env_file, overrides={"LOG_FILE": str(layout.data / "x.log")})
    policy = resolve_policy(env, cwd=str(layout.app), package_dir=str(layout.app))

    def steps(path, write=False):
        d = policy.check_write(path) if write else policy.check_read(path)
        return {s.step: s.detail for s in d.trace}

    inside = steps(str(layout.data / "report.csv"))
    assert inside["mode"] == "mode is roots (LOCAL_FILE_ACCESS at .env line 2)"
    assert inside["roots"] == f"inside {layout.data} (LOCAL_FILE_ROOTS at .env line 5)"
    outside = steps(str(layout.outside / "other.txt"))
    assert outside["roots"].startswith("not inside any root of LOCAL_FILE_ROOTS at .env line 5")
    token = steps(str(layout.data / "tok.json"))
    assert token["deny-list"].endswith("(deny-list entry from TOKEN_PATH at .env line 6)")
    # Set by the process, not the file: no line is claimed for it.
    log = steps(str(layout.data / "x.log"), write=True)
    assert log["deny-list"].endswith("(deny-list entry from LOG_FILE)")
    # An edit replaces the file's line: the trace no longer points at it.
    edited = resolve_policy(env.with_changes(set={"LOCAL_FILE_ROOTS": str(layout.data)}),
                            cwd=str(layout.app), package_dir=str(layout.app))
    d = edited.check_read(str(layout.data / "report.csv"))
    assert {s.step: s.detail for s in d.trace}["roots"] == (
        f"inside {layout.data} (LOCAL_FILE_ROOTS)")


def test_hint_for_denied_says_nothing_can(layout):
    assert layout.policy().check_read(str(layout.app / "token.json")).hint.startswith(
        "Nothing can allow this")


def test_decision_to_dict_fields(layout):
    d = layout.roots().check_read(str(layout.outside / "other.txt")).to_dict()
    assert set(d) == {"path", "op", "allowed", "reason", "message", "resolved", "trace", "hint"}
    assert [s["step"] for s in d["trace"]] == ["tripwire", "mode", "resolve", "roots"]


# --- batch checking ------------------------------------------------------------------


def _paths(layout):
    (layout.data / "escape").symlink_to(layout.outside)
    (layout.data / "sub" / "up").symlink_to(layout.outside / "..")
    return [
        str(layout.data / "report.csv"),
        str(layout.data / "sub" / "notes.txt"),
        str(layout.data / "escape" / "other.txt"),
        str(layout.data / "escape"),
        str(layout.data / "missing" / "x.txt"),
        str(layout.evil / "secret.txt"),
        str(layout.app / "token.json"),
        str(layout.app / "TOKEN.json"),
        f"{layout.data}/sub/../report.csv",
        f"{layout.data}/escape/../data/report.csv",
        f"{layout.data}/sub/",
        "relative.txt",
        "/",
        "a\0b",
    ]


@pytest.mark.parametrize("op", ["read", "write", "read_write"])
def test_batch_agrees_with_single_checks(layout, op):
    policy = layout.roots(layout.data, layout.app)
    paths = _paths(layout)
    singles = [policy.check(p, op) for p in paths]
    with policy.many_checks() as batch:
        batched = [batch.check(p, op) for p in paths]
        batched_again = [batch.check(p, op) for p in paths]  # cache warm
    key = lambda d: (d.path, d.allowed, d.reason, d.message, d.resolved)  # noqa: E731
    assert [key(d) for d in batched] == [key(d) for d in singles]
    assert [key(d) for d in batched_again] == [key(d) for d in singles]


def test_batch_parent_cache_never_collapses_symlink_dotdot(layout):
    # <symlink>/.. is the symlink target's parent, not the directory holding the link.
    deep = layout.outside / "deep"
    deep.mkdir()
    (layout.data / "jump").symlink_to(deep)
    path = f"{layout.data}/jump/../other.txt"
    policy = layout.roots()
    with policy.many_checks() as batch:
        warm = batch.check_write(f"{layout.data}/report.csv")  # fills the cache for data/
        d = batch.check_write(path)
    assert warm.allowed
    assert d.resolved == str(layout.outside / "other.txt")
    assert d.reason == "outside_roots"


def _token_made_after_the_policy(layout):
    """The policy resolved while the token was missing; then the token is made (the
    server authorised meanwhile) and hardlinked as ``data/copy.json``."""
    if not can_hardlink(layout.data):
        pytest.skip("this filesystem has no hardlinks")
    (layout.app / "token.json").unlink()
    policy = layout.policy()
    (layout.app / "token.json").write_text("{}")
    os.link(layout.app / "token.json", layout.data / "copy.json")
    return policy


def test_batch_restats_the_deny_list_once(layout):
    policy = _token_made_after_the_policy(layout)
    with policy.many_checks() as batch:
        assert batch.check_read(str(layout.data / "copy.json")).reason == "denied"


def test_batch_in_off_mode(layout):
    with layout.policy("sse").many_checks() as batch:
        assert batch.check_read(str(layout.data / "report.csv")).reason == "off"


def test_errno_constants_used_by_traces_exist():
    assert errno.ELOOP and errno.ENAMETOOLONG


def test_mode_enum_is_a_plain_string():
    assert Mode("roots") == "roots" and str(Mode.OFF) == "off"


def test_a_nul_in_a_refused_path_is_shown_visibly(layout):
    # The server refuses a path holding NUL as invalid; every table shows that NUL as \0.
    from localfs_explorer.paths import show_nul

    d = layout.roots().check_read(f"{layout.data}/a\0b")
    assert d.reason == "invalid" and not d.allowed
    assert show_nul(d.path) == f"{layout.data}/a\\0b"
    assert show_nul("no nul") == "no nul"


def test_a_path_that_is_no_string_is_named_by_its_repr_when_access_is_off(layout):
    # Off refuses before looking at the path, yet the refusal still names the argument.
    d = layout.policy("sse").check_read(123)  # type: ignore[arg-type]
    assert d.reason == "off" and not d.allowed
    assert d.path == "123"


def test_a_batch_keeps_the_deny_list_it_found_when_it_began(layout):
    # mirrors mcp-gee-sweet 0.9.5 many_checks: the deny-list entries are statted once when
    # the run of checks begins, so a hardlink to a token created during the run is judged
    # by that snapshot (the token was missing), while a single check stats afresh.
    if not can_hardlink(layout.data):
        pytest.skip("this filesystem has no hardlinks")
    (layout.app / "token.json").unlink()
    policy = layout.policy()
    with policy.many_checks() as batch:
        (layout.app / "token.json").write_text("{}")
        os.link(layout.app / "token.json", layout.data / "copy.json")
        # Asked directly and through a symlink (which the batch resolves whole).
        (layout.data / "link.json").symlink_to(layout.data / "copy.json")
        for name in ("copy.json", "link.json"):
            assert batch.check_read(str(layout.data / name)).allowed
            assert policy.check_read(str(layout.data / name)).reason == "denied"


def test_a_batch_names_a_deny_listed_file_whose_entry_went_since_it_began(layout):
    # The batch stats the deny-list once: a token made after the policy was resolved is in
    # its snapshot, so a hardlink to it stays refused after the token itself is deleted
    # mid-batch, though no entry leads to that file any more; the refusal says so.
    policy = _token_made_after_the_policy(layout)
    # While the token is there, its entry is found by the file it is now.
    assert policy.check_read(str(layout.data / "copy.json")).deny_setting == "TOKEN_PATH"
    with policy.many_checks() as batch:
        (layout.app / "token.json").unlink()
        d = batch.check_read(str(layout.data / "copy.json"))
    assert (d.allowed, d.reason, d.deny_setting) == (False, "denied", "deny-list")
    assert "when the batch began" in d.trace[-1].detail
    assert policy.check_read(str(layout.data / "copy.json")).allowed


def test_a_batch_names_the_entry_of_a_deny_listed_file_deleted_mid_batch(layout):
    # The token existed when the policy was resolved: the refusal of its hardlink, after
    # the token itself is deleted mid-batch, still names TOKEN_PATH by that identity.
    if not can_hardlink(layout.data):
        pytest.skip("this filesystem has no hardlinks")
    policy = layout.policy()
    os.link(layout.app / "token.json", layout.data / "copy.json")
    with policy.many_checks() as batch:
        (layout.app / "token.json").unlink()
        d = batch.check_read(str(layout.data / "copy.json"))
    assert (d.reason, d.deny_setting) == ("denied", "TOKEN_PATH")
    assert "same file as" in d.trace[-1].detail


def test_the_batch_resolves_only_a_plain_last_name_its_own_way(layout):
    # A path ending in "/", "." or ".." is resolved whole, as the single check does.
    with layout.policy().many_checks() as batch:
        sub = f"{layout.data}/sub"
        assert batch.resolution(f"{sub}/notes.txt") == f"{sub}/notes.txt"
        for tail in ("/", "/.", "/.."):
            assert batch.resolution(sub + tail) is None


def _windows_full(layout, **settings):
    return resolve_policy(
        load_env(None, overrides={"LOCAL_FILE_ACCESS": "full", "HOME": str(layout.home),
                                  "LOCALAPPDATA": str(layout.home / "lad"), **settings}),
        cwd=str(layout.app), platform="windows")


def test_on_windows_everything_inside_the_cache_directory_is_refused(layout):
    # mirrors mcp-gee-sweet 0.9.5 local_files._is_denied on windows: normcase makes the
    # paths "\\"-separated and WindowsPath.is_relative_to contains by those parts, so a
    # file deep in the cache directory is refused, and a sibling sharing its prefix is not.
    policy = _windows_full(layout)
    cache = policy.deny_dirs[0].resolved
    for op in ("read", "write"):
        d = policy.check(f"{cache}/Sub/f.db", op)
        assert d.reason == "denied", op
        assert "inside the deny-listed directory" in d.trace[-1].detail
    assert policy.check_write(f"{cache}-evil/f.db").allowed
    with policy.many_checks() as batch:
        assert batch.check_read(f"{cache}/Sub/f.db").reason == "denied"


def test_on_windows_a_missing_target_is_matched_to_its_entry_case_folded(layout):
    # normcase only lower-cases; casefold also makes "ß" "ss", as the server compares a
    # missing target (local_files._is_denied), and the trace names the entry it matched.
    policy = _windows_full(layout, TOKEN_PATH=str(layout.app / "straße.json"))
    d = policy.check_write(str(layout.app / "STRASSE.JSON"))
    assert d.reason == "denied"
    assert "case-folded path equals" in d.trace[-1].detail
    assert "TOKEN_PATH" in d.trace[-1].detail


def test_a_batch_explains_a_non_string_argument_without_checking_its_repr(layout):
    # Both the single check and many_checks refuse a non-string argument; the trace must
    # not check its repr ("123") as if it were a path and claim the other way allows it.
    with layout.policy().many_checks() as batch:
        d = batch.check_read(123)  # type: ignore[arg-type]
    assert d.reason == "invalid"
    assert [s.step for s in d.trace if s.step == "single-vs-batch"] == []


def test_a_windows_drive_path_is_refused_with_a_clear_message(layout):
    from localfs_explorer.servers.gee_sweet.check import UnsupportedPathError

    policy = _windows_full(layout)
    with pytest.raises(UnsupportedPathError) as info:
        policy.check_read("C:\\Users\\me\\notes.txt")
    assert str(info.value) == (
        "'C:\\\\Users\\\\me\\\\notes.txt': Windows drive-letter and backslash paths are not "
        "supported: the explorer checks paths by POSIX rules only (write them with '/' "
        "from the root)")


def test_on_windows_the_trace_names_the_batch_s_other_answer(layout):
    # The batch resolves an entry as its parent's realpath joined to its name on a Windows
    # host too (only drive-letter and backslash spellings are refused first), so a single
    # check whose path the batch resolves elsewhere says so, as on POSIX.
    from localfs_explorer.servers.gee_sweet.check import UnsupportedPathError

    loop = layout.data / "loop"
    loop.symlink_to(loop)
    policy = _windows_full(layout)
    path = f"{loop}//x"
    single = policy.check_read(path)
    assert single.resolved == os.path.realpath(path) == "/x"
    with policy.many_checks() as batch:
        assert batch.resolution(path) == f"{loop}/x"
        assert batch.check_read(path).resolved == f"{loop}/x"
        with pytest.raises(UnsupportedPathError):
            batch.resolution(f"{layout.data}\\x")
    notes = [s.detail for s in single.trace if s.step == "single-vs-batch"]
    assert notes and f"resolving to {loop}/x;" in notes[0]
