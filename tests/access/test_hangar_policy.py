"""The merge as hangar performs it, against hangar's own value object; the documented rule."""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localfs_explorer.access.hangar_policy import (
    Effective,
    ScopeBlock,
    documented,
    narrow,
    single,
)
from localfs_explorer.access.yaml_lines import LineDict, YamlProblem, load_with_lines

NAMES = ("get_repo", "delete_repo", "deploy_app", "drop_db", "a", "x_y")
PATTERNS = st.sampled_from(("*", "get_*", "*_repo", "d*", "deploy_app", "?", "[!d]*", "x_?"))
LISTS = st.lists(PATTERNS, max_size=2).map(tuple)
BLOCKS = st.builds(
    lambda allow, deny, approval, timeout, channel, i: ScopeBlock(
        label=f"scope {i}", allow_list=allow, deny_list=deny, approval_list=approval,
        approval_timeout_seconds=timeout, approval_channel=channel),
    LISTS, LISTS, LISTS, st.sampled_from((30, 300, 900)), st.sampled_from(("", "slack")),
    st.integers(0, 9))


def test_one_block_is_the_documented_ladder() -> None:
    block = ScopeBlock("server s", allow_list=("get_*",), deny_list=("get_secret",),
                       approval_list=("deploy_*", "get_secret"))
    policy = single(block)
    assert [policy.shows(n) for n in ("get_repo", "get_secret", "deploy_app", "drop_db")] == [
        True, False, True, False]
    assert policy.holds("deploy_app") and not policy.holds("get_secret")
    assert "deny_list matches 'get_secret'" in policy.why_hidden("get_secret")
    doc = documented("deploy_app", [block])
    assert (doc.visible, doc.held, doc.timeout) == (True, True, 300)


def test_narrower_allow_list_after_a_broader_one_loses_its_deny_list() -> None:
    server = single(ScopeBlock("server", allow_list=("*",)))
    group = single(ScopeBlock("group", deny_list=("drop_db",)))
    member = single(ScopeBlock("member", allow_list=("*_repo",), deny_list=("delete_repo",)))
    merged = narrow(narrow(server, group), member)
    assert merged.is_chain and merged.shows("delete_repo") and not merged.shows("drop_db")
    assert not documented("delete_repo", [ScopeBlock("member", allow_list=("*_repo",),
                                                     deny_list=("delete_repo",))]).visible


def test_blank_sides_pass_the_other_side_through() -> None:
    block = single(ScopeBlock("s", deny_list=("x",), approval_timeout_seconds=30))
    assert narrow(Effective(), block) is block and narrow(block, Effective()) is block


def test_yaml_keeps_lines_and_refuses_what_is_not_yaml() -> None:
    data = load_with_lines("a:\n  b: [1, 2]\n  c:\n    - x\n    - y\nbase: &b {k: 1}\nd:\n"
                           "  <<: *b\n")
    assert isinstance(data, LineDict) and data.line_of("a") == 1
    assert data["a"].line_of("c") == 3 and data["a"]["c"].line_of(1) == 5
    assert data["d"] == {"k": 1}
    for text, line in (("a: [1\n", 2), ("? [1, 2]\n: x\n", 1), ("a: !!python/name:os.system\n",
                                                              1)):
        with pytest.raises(YamlProblem) as caught:
            load_with_lines(text)
        assert caught.value.line == line


hangar_value_object = pytest.mark.skipif(importlib.util.find_spec("mcp_hangar") is None,
                                         reason="needs mcp-hangar")


@pytest.mark.real
@hangar_value_object
@settings(max_examples=300)
@given(st.lists(BLOCKS, min_size=1, max_size=4))
def test_narrow_is_hangars_merge(blocks: list[ScopeBlock]) -> None:
    from mcp_hangar.domain.value_objects import ToolAccessPolicy

    theirs = ToolAccessPolicy()
    ours = Effective()
    for block in blocks:
        theirs = ToolAccessPolicy.merge(theirs, ToolAccessPolicy(
            allow_list=block.allow_list, deny_list=block.deny_list,
            approval_list=block.approval_list,
            approval_timeout_seconds=block.approval_timeout_seconds,
            approval_channel=block.approval_channel))
        ours = narrow(ours, single(block))
    assert ours.is_blank() == theirs.is_unrestricted()
    for name in NAMES:
        assert ours.shows(name) == theirs.is_tool_allowed(name), name
        assert ours.holds(name) == theirs.requires_approval(name), name
    if not ours.is_blank():
        assert (ours.timeout, ours.channel) == (theirs.approval_timeout_seconds,
                                                theirs.approval_channel)
