"""Tool access lists: precedence, validation, scope merging and access files."""

from __future__ import annotations

import json
import os
import sys
from fnmatch import fnmatchcase

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localfs_explorer.access import (
    AccessListError,
    ToolAccess,
    load_access,
    merge,
    merge_scopes,
    pattern_problem,
)

# -- strategies: small alphabets so random patterns and names collide often -----------

NAMES = st.text(alphabet="ab_", min_size=1, max_size=4)
PATTERNS = st.one_of(
    NAMES,
    st.text(alphabet="ab_*?", min_size=1, max_size=4),
    st.sampled_from(["*", "[ab]*", "*[!a]", "a[b_]?", "?"]),
)
LISTS = st.lists(PATTERNS, max_size=3).map(tuple)
POLICIES = st.builds(
    ToolAccess,
    allow_list=LISTS,
    deny_list=LISTS,
    approval_list=LISTS,
    approval_timeout_seconds=st.integers(min_value=1, max_value=900),
)
TOOL_LISTS = st.lists(NAMES, max_size=12)


def reference_gate(allow: tuple[str, ...], deny: tuple[str, ...], approval: tuple[str, ...],
                   name: str) -> str:
    """The one-scope ladder as the spec states it: deny > approval > allow > unrestricted."""
    if any(fnmatchcase(name, p) for p in deny):
        return "blocked"
    if any(fnmatchcase(name, p) for p in approval):
        return "approval"
    if allow and not any(fnmatchcase(name, p) for p in allow):
        return "blocked"
    return "execute"


# -- one scope ----------------------------------------------------------------------------


@given(POLICIES, NAMES)
def test_single_scope_follows_the_precedence_ladder(policy: ToolAccess, name: str) -> None:
    expected = reference_gate(policy.allow_list, policy.deny_list, policy.approval_list, name)
    assert policy.gate(name) == expected
    assert policy.is_visible(name) == (expected != "blocked")
    assert policy.requires_approval(name) == (expected == "approval")


def test_empty_lists_show_every_tool_and_hold_none() -> None:
    policy = ToolAccess()
    assert policy.is_unrestricted()
    assert policy.filter(["send_message", "delete_file"]) == ["send_message", "delete_file"]
    assert policy.gate("delete_file") == "execute"


def test_deny_only_hides_just_the_denied_tools() -> None:
    policy = ToolAccess(deny_list=("delete_*",))
    assert policy.filter(["delete_file", "read_file", "delete"]) == ["read_file", "delete"]
    assert not policy.is_unrestricted()


def test_allow_list_hides_everything_it_does_not_name() -> None:
    policy = ToolAccess(allow_list=("read_*", "list_files"))
    assert policy.filter(["read_doc", "list_files", "send_message"]) == ["read_doc", "list_files"]


def test_approval_outranks_allow() -> None:
    # A tool named only on the approval list is visible (held), not hidden by the allow list.
    policy = ToolAccess(allow_list=("read_*",), approval_list=("send_*",))
    assert policy.gate("send_message") == "approval"
    assert policy.gate("read_doc") == "execute"
    assert policy.gate("delete_file") == "blocked"


def test_approval_only_policy_is_restricted_but_hides_nothing() -> None:
    policy = ToolAccess(approval_list=("send_*",))
    assert not policy.is_unrestricted()
    assert policy.filter(["send_message", "read_doc"]) == ["send_message", "read_doc"]
    assert policy.gate("send_message") == "approval"


def test_filter_keeps_order_and_duplicates() -> None:
    policy = ToolAccess(deny_list=("b",))
    assert policy.filter(["c", "a", "b", "c"]) == ["c", "a", "c"]


def test_patterns_are_case_sensitive_on_every_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    # fnmatch.fnmatch folds case where os.path.normcase does (Windows); tool names don't.
    import ntpath

    monkeypatch.setattr(os.path, "normcase", ntpath.normcase)
    policy = ToolAccess(allow_list=("read_*",), deny_list=("delete_file",))
    assert policy.gate("READ_DOC") == "blocked"
    assert policy.gate("Delete_File") == "blocked"  # not on the allow list either
    assert ToolAccess(deny_list=("delete_file",)).gate("Delete_File") == "execute"


def test_explain_names_the_scope_and_pattern() -> None:
    policy = merge_scopes(
        ToolAccess(deny_list=("delete_*",), scope="server"),
        ToolAccess(allow_list=("read_*", "send_*"), approval_list=("send_*",), scope="member"),
    )
    assert policy.explain("delete_file") == (
        "blocked: the server scope's deny_list matches 'delete_*'"
    )
    assert policy.explain("export_file") == (
        "blocked: the member scope's allow_list doesn't match it"
    )
    assert "the member scope's approval_list matches 'send_*'" in policy.explain("send_message")
    assert policy.explain("read_doc").startswith("runs:")


# -- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "fragment"),
    [
        ("", "is empty"),
        ("read file", "whitespace"),
        ("read_file ", "whitespace"),
        ("read\x00", "control character"),
        ("read,write", "own list item"),
        ("a;b", "own list item"),
        ("delete\\*", "backslash"),
        ("/etc/passwd", "filesystem path"),
        ("./tools", "filesystem path"),
        ("~/x", "filesystem path"),
        ("!delete_*", "no negation"),
        ("read_[abc", "unclosed '['"),
        ("server:tool", "':'"),
        ("caf\u00e9", "'\u00e9'"),
        ("[a:b]*", "inside [...]"),
    ],
)
def test_patterns_that_cannot_name_a_tool_are_rejected(pattern: str, fragment: str) -> None:
    with pytest.raises(AccessListError) as info:
        ToolAccess(deny_list=("ok_*", pattern))
    message = str(info.value)
    assert message.startswith("deny_list[1] ")
    assert fragment in message


@pytest.mark.parametrize(
    "pattern",
    ["send_message", "delete_*", "*_alert_*", "admin.tools.list", "user-profile/update",
     "DATA_EXPORT_v2", "[!d]*", "read_?", "*"],
)
def test_tool_name_globs_are_accepted(pattern: str) -> None:
    assert pattern_problem(pattern) is None
    assert ToolAccess(allow_list=(pattern,)).allow_list == (pattern,)


def test_a_single_string_instead_of_a_list_is_rejected_clearly() -> None:
    with pytest.raises(AccessListError) as info:
        ToolAccess(allow_list="read_*")
    assert str(info.value) == (
        'allow_list: must be a list of patterns such as ["read_*"], not one string'
    )


@pytest.mark.parametrize("timeout", [0, -5, True, 2.5, "300"])
def test_timeout_must_be_positive_whole_seconds(timeout: object) -> None:
    with pytest.raises(AccessListError, match="approval_timeout_seconds"):
        ToolAccess(approval_timeout_seconds=timeout)


def test_policies_are_immutable() -> None:
    policy = ToolAccess(deny_list=("x",))
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen-instance error
        policy.deny_list = ()  # type: ignore[misc]


# -- merging: the invariant --------------------------------------------------------------


@settings(max_examples=400)
@given(POLICIES, POLICIES, TOOL_LISTS)
def test_merge_filters_like_applying_both_scopes(
    broader: ToolAccess, narrower: ToolAccess, tools: list[str]
) -> None:
    assert merge(broader, narrower).filter(tools) == narrower.filter(broader.filter(tools))


@settings(max_examples=300)
@given(POLICIES, POLICIES, POLICIES, TOOL_LISTS)
def test_three_scopes_filter_like_applying_each_in_turn(
    server: ToolAccess, group: ToolAccess, member: ToolAccess, tools: list[str]
) -> None:
    merged = merge_scopes(server, group, member)
    assert merged.filter(tools) == member.filter(group.filter(server.filter(tools)))


@settings(max_examples=300)
@given(POLICIES, POLICIES, NAMES)
def test_merged_approval_is_any_scope_holding_a_visible_tool(
    broader: ToolAccess, narrower: ToolAccess, name: str
) -> None:
    merged = merge(broader, narrower)
    held = broader.requires_approval(name) or narrower.requires_approval(name)
    assert merged.requires_approval(name) == (merged.is_visible(name) and held)


@settings(max_examples=200)
@given(POLICIES, POLICIES, POLICIES, NAMES)
def test_merge_is_associative(a: ToolAccess, b: ToolAccess, c: ToolAccess, name: str) -> None:
    assert merge(merge(a, b), c).gate(name) == merge(a, merge(b, c)).gate(name)


@given(POLICIES, POLICIES)
def test_merged_timeout_is_the_shorter_one(broader: ToolAccess, narrower: ToolAccess) -> None:
    merged = merge(broader, narrower)
    if narrower.is_unrestricted():
        assert merged is broader
    elif broader.is_unrestricted():
        assert merged is narrower
    else:
        expected = min(broader.approval_timeout_seconds, narrower.approval_timeout_seconds)
        assert merged.approval_timeout_seconds == expected


@given(POLICIES, LISTS, LISTS, NAMES)
def test_restating_lists_keeps_every_approval_pattern(
    policy: ToolAccess, allow: tuple[str, ...], deny: tuple[str, ...], name: str
) -> None:
    restated = ToolAccess.with_access_lists(allow, deny, carrying_from=policy)
    assert restated.approval_patterns == policy.approval_patterns
    assert restated.approval_timeout_seconds == policy.approval_timeout_seconds
    if restated.is_visible(name) and any(fnmatchcase(name, p) for p in policy.approval_patterns):
        assert restated.requires_approval(name)


# -- merging: one test per historical bug ------------------------------------------------


def test_restated_allow_list_keeps_the_broader_deny_list() -> None:
    # #1106: when both scopes had allow lists, the merge consulted neither deny list.
    server = ToolAccess(allow_list=("drive_*",), deny_list=("drive_delete",))
    group = ToolAccess(allow_list=("drive_*",))
    merged = merge(server, group)
    assert merged.gate("drive_delete") == "blocked"
    assert merged.gate("drive_list") == "execute"


def test_narrower_allow_list_keeps_the_broader_deny_list() -> None:
    # The mirrored branch: only the narrower scope has an allow list.
    server = ToolAccess(deny_list=("drive_delete",))
    group = ToolAccess(allow_list=("drive_*",))
    assert merge(server, group).filter(["drive_delete", "drive_list", "gmail_send"]) == [
        "drive_list"
    ]


def test_broader_allow_list_keeps_the_narrower_deny_list() -> None:
    # ... and the other mirror: only the broader scope has an allow list.
    server = ToolAccess(allow_list=("drive_*",))
    group = ToolAccess(deny_list=("drive_delete",))
    assert merge(server, group).filter(["drive_delete", "drive_list", "gmail_send"]) == [
        "drive_list"
    ]


def test_third_scope_keeps_its_own_deny_list_and_allow_list() -> None:
    # Chaining a third scope onto a merged policy once honoured only the third scope's
    # allow list, so its deny list was dropped.
    server = ToolAccess(deny_list=("admin_*",))
    group = ToolAccess(allow_list=("drive_*", "admin_*"))
    member = ToolAccess(allow_list=("drive_*",), deny_list=("drive_delete",))
    merged = merge_scopes(server, group, member)
    assert merged.filter(["drive_delete", "drive_list", "admin_reset"]) == ["drive_list"]


def test_restating_allow_and_deny_keeps_the_approval_gate() -> None:
    # #915 (startup replay) and #656 (the update command): rebuilding a policy from allow
    # and deny alone reset the approval list, silently removing consent.
    current = ToolAccess(allow_list=("gmail_*",), approval_list=("gmail_send",),
                         approval_timeout_seconds=60)
    updated = ToolAccess.with_access_lists(("gmail_*", "drive_*"), (), carrying_from=current)
    assert updated.gate("gmail_send") == "approval"
    assert updated.approval_timeout_seconds == 60
    assert updated.gate("drive_list") == "execute"


def test_restating_a_merged_policy_keeps_broader_gates_and_denials() -> None:
    server = ToolAccess(deny_list=("admin_*",), approval_list=("gmail_send",), scope="server")
    member = ToolAccess(allow_list=("gmail_*",), scope="member")
    updated = ToolAccess.with_access_lists(("*",), (), carrying_from=merge(server, member))
    assert updated.gate("gmail_send") == "approval"
    assert updated.gate("admin_reset") == "blocked"
    assert updated.scope == "member"


def test_restating_with_nothing_to_carry_starts_without_a_gate() -> None:
    fresh = ToolAccess.with_access_lists(("a",), ("b",), carrying_from=None)
    assert fresh == ToolAccess(allow_list=("a",), deny_list=("b",))


def test_approval_list_does_not_shrink_on_merge() -> None:
    server = ToolAccess(approval_list=("gmail_send",))
    group = ToolAccess(allow_list=("gmail_*",), approval_list=("drive_delete",))
    merged = merge(server, group)
    assert merged.gate("gmail_send") == "approval"
    assert set(merged.approval_patterns) == {"gmail_send", "drive_delete"}
    # An allow-only narrower scope doesn't drop the broader gate either.
    assert merge(server, ToolAccess(allow_list=("gmail_*",))).gate("gmail_send") == "approval"


def test_approval_never_overrides_deny() -> None:
    # In one scope ...
    assert ToolAccess(deny_list=("drive_delete",), approval_list=("drive_*",)).gate(
        "drive_delete"
    ) == "blocked"
    # ... and across scopes, in either order.
    deny = ToolAccess(deny_list=("drive_delete",))
    hold = ToolAccess(approval_list=("drive_delete",))
    assert merge(deny, hold).gate("drive_delete") == "blocked"
    assert merge(hold, deny).gate("drive_delete") == "blocked"


def test_narrower_approval_list_cannot_add_back_a_hidden_tool() -> None:
    # Approval outranks allow inside one scope; a flat merge would let a narrower
    # approval pattern revive a tool the broader allow list hid.
    server = ToolAccess(allow_list=("drive_*",))
    member = ToolAccess(approval_list=("gmail_send",))
    assert merge(server, member).gate("gmail_send") == "blocked"
    # Nor can a broader approval pattern copied into the narrower scope's lists.
    server = ToolAccess(approval_list=("gmail_send",))
    member = ToolAccess(allow_list=("drive_*",))
    assert merge(server, member).gate("gmail_send") == "blocked"


def test_unrestricted_scope_passes_the_other_through() -> None:
    policy = ToolAccess(deny_list=("x",), approval_timeout_seconds=30)
    assert merge(policy, ToolAccess()) is policy
    assert merge(ToolAccess(approval_timeout_seconds=5), policy) is policy
    assert merge_scopes(None, policy, None) is policy
    assert merge_scopes().is_unrestricted()


def test_merged_policy_lists_each_scope_once() -> None:
    a = ToolAccess(deny_list=("a",), scope="server")
    b = ToolAccess(deny_list=("b",), scope="group")
    c = ToolAccess(deny_list=("c",), scope="member")
    merged = merge(merge(a, b), c)
    assert [s.scope for s in merged.broader_scopes] == ["server", "group"]
    assert merged.scope == "member"
    assert merged.describe().splitlines() == [
        "server: deny_list=['a']",
        "group: deny_list=['b']",
        "member: deny_list=['c']",
    ]


# -- access files ----------------------------------------------------------------------------

TOML_FILE = """
[server]
deny_list = ["admin_*"]
approval_list = ["gmail_send"]
approval_timeout_seconds = 600

[group]
allow_list = ["gmail_*", "drive_*"]

[member]
deny_list = ["drive_delete"]
approval_list = ["drive_*"]
approval_timeout_seconds = 120
"""


def test_loads_toml_scopes_in_order(tmp_path) -> None:
    path = tmp_path / "access.toml"
    path.write_text(TOML_FILE, encoding="utf-8")
    policy = load_access(path)
    assert [s.scope for s in (*policy.broader_scopes, policy)] == ["server", "group", "member"]
    assert policy.gate("admin_reset") == "blocked"
    assert policy.gate("gmail_send") == "approval"
    assert policy.gate("gmail_list") == "execute"
    assert policy.gate("drive_delete") == "blocked"
    assert policy.gate("drive_list") == "approval"
    assert policy.gate("sheets_read") == "blocked"
    assert policy.approval_timeout_seconds == 120


def test_loads_json_and_mappings_alike(tmp_path) -> None:
    data = {"server": {"deny_list": ["admin_*"]}, "member": {"allow_list": ["drive_*"]}}
    path = tmp_path / "access.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    from_file = load_access(path)
    from_mapping = load_access(data)
    names = ["admin_drive", "drive_list", "gmail_send"]
    assert from_file.filter(names) == from_mapping.filter(names) == ["drive_list"]


def test_empty_file_is_unrestricted(tmp_path) -> None:
    path = tmp_path / "access.toml"
    path.write_text("", encoding="utf-8")
    assert load_access(path).is_unrestricted()


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"servers": {}}, "unknown key(s) 'servers'"),
        ({"allow_list": ["x"]}, "unknown key(s) 'allow_list'"),
        ({"group": {"deny_lists": ["x"]}}, "[group] unknown key(s) 'deny_lists'"),
        ({"member": {"deny_list": ["read file"]}}, "[member] deny_list[0] 'read file'"),
        ({"member": ["x"]}, "[member] must be a table"),
        ({"server": {"approval_timeout_seconds": 0}}, "[server] approval_timeout_seconds"),
        ({"server": {"allow_list": "drive_*"}}, "[server] allow_list: must be a list"),
    ],
)
def test_bad_access_files_name_the_entry(tmp_path, data: dict, fragment: str) -> None:
    path = tmp_path / "team.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(AccessListError) as info:
        load_access(path)
    assert str(info.value).startswith(f"{path}: ")
    assert fragment in str(info.value)


def test_unparsable_files_name_the_file(tmp_path) -> None:
    bad_toml = tmp_path / "a.toml"
    bad_toml.write_text('[server]\nallow = ["a"]\n[server\n', encoding="utf-8")
    # The one TOML reader every user file goes through names the line, as scenarios do.
    with pytest.raises(AccessListError, match=r"a\.toml:3: not valid TOML: .*\(column \d+\)"):
        load_access(bad_toml)
    bad_json = tmp_path / "a.json"
    bad_json.write_text('{"server": ', encoding="utf-8")
    with pytest.raises(AccessListError, match="not valid JSON"):
        load_access(bad_json)
    with pytest.raises(AccessListError, match="can't be read"):
        load_access(tmp_path / "missing.toml")


def test_toml_without_a_parser_says_how_to_proceed(tmp_path, monkeypatch) -> None:
    # Python 3.10 without tomli: TOML can't be read, JSON still can.
    monkeypatch.setitem(sys.modules, "tomllib", None)
    monkeypatch.setitem(sys.modules, "tomli", None)
    path = tmp_path / "access.toml"
    path.write_text(TOML_FILE, encoding="utf-8")
    with pytest.raises(AccessListError, match=r"needs Python 3\.11\+ or the 'tomli' package"):
        load_access(path)
    as_json = tmp_path / "access.json"
    as_json.write_text('{"server": {"deny_list": ["x"]}}', encoding="utf-8")
    assert load_access(as_json).gate("x") == "blocked"
