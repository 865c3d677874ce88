"""Approval sessions: the per-answer ledger, each of its rules, and the mutations it must catch.

The ledger's rules are written as scenarios (plain functions raising AssertionError with
a message saying which rule broke). Each runs against the real code, and each known way
to get the ledger or the check wrong is applied with monkeypatch to show that the
matching scenario then fails:

- containment checked before realpath (an approved write through a symlink out of a root);
- string prefixes instead of path components (an approved write to ``data-evil``);
- the ledger keyed on the wrong thing: the written path instead of the resolved target,
  without the operation, without the tool;
- a delete reusing a write approval (destructive calls consulting the ledger).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable
from typing import Any

import pytest

from localfs_explorer.access import ToolAccess, load_access
from localfs_explorer.catalog import Catalog
from localfs_explorer.review import sessions
from localfs_explorer.review.sessions import (
    PERSON_REFUSAL,
    TIMEOUT_REFUSAL,
    LedgerRules,
    Prompt,
    ScriptedAnswer,
    Session,
    SessionError,
    is_destructive,
    load_session,
    replay_session,
)
from localfs_explorer.servers.gee_sweet.check import tables as tables_module
from localfs_explorer.servers.gee_sweet.check import verdict as check_module

#: Tools shaped like a desktop agent's file tools, so each ledger rule has a clean case.
CATALOG = Catalog.model_validate({"tools": [
    {"name": "edit_file", "params": [{"location": "path", "op": "write"}]},
    {"name": "append_file", "params": [{"location": "path", "op": "write"}]},
    {"name": "read_file", "params": [{"location": "path", "op": "read"}]},
    {"name": "attach_files", "params": [{"location": "paths[]", "op": "read"}]},
    {"name": "delete_file", "destructive": True, "params": [{"location": "path", "op": "write"}]},
    {"name": "mirror_folder", "direction": {"default": "upload"},
     "params": [{"location": "path", "op": "direction"}]},
    {"name": "summarize"},
]})
#: Every tool is held for approval unless a test says otherwise.
HOLD_ALL = ToolAccess(approval_list=("*",))


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def replay(layout, answers, *, access=HOLD_ALL, policy=None, **options):
    return replay_session(policy or layout.roots(), answers, access=access, catalog=CATALOG,
                          **options)


def decisions(result) -> list[tuple[str, bool, str]]:
    return [(f"{c.answer}.{c.call}", c.asked, c.decision) for c in result]


# --- Scenarios ---------------------------------------------------------------------------


def second_identical_call_goes_through(layout) -> None:
    target = str(layout.data / "report.csv")
    result = replay(layout, [[call("edit_file", path=target), call("edit_file", path=target)]])
    first, second = result.calls
    assert first.asked and first.decision == "approved"
    assert not second.asked, "a second identical call in one answer asked again"
    assert second.decision == "covered" and second.covered_by == (1, 1)
    assert second.outcome == "ok"


def next_answer_asks_again(layout) -> None:
    target = str(layout.data / "report.csv")
    result = replay(layout, [[call("edit_file", path=target)], [call("edit_file", path=target)]])
    assert result.at(2, 1).asked, "an approval outlived its answer"
    assert result.summary().prompts_per_answer == {1: 1, 2: 1}


def two_spellings_share_an_approval(layout) -> None:
    link = layout.data / "alias.csv"
    if not link.is_symlink():
        link.symlink_to(layout.data / "report.csv")
    spellings = [str(layout.data / "report.csv"), f"{layout.data}/sub/../report.csv",
                 f"{layout.data}/./report.csv", str(link)]
    result = replay(layout, [[call("edit_file", path=p) for p in spellings]])
    assert [c.asked for c in result] == [True, False, False, False], (
        "two spellings of one file did not share an approval")


def spelling_that_now_resolves_elsewhere_asks_again(layout) -> None:
    (layout.data / "v1.txt").write_text("1")
    (layout.data / "v2.txt").write_text("2")
    current = layout.data / "current"
    if current.is_symlink():
        current.unlink()
    current.symlink_to(layout.data / "v1.txt")

    def repoint(answer: int, number: int, _call) -> None:
        if (answer, number) == (1, 2):  # between the calls, the link moves
            current.unlink()
            current.symlink_to(layout.data / "v2.txt")

    result = replay(layout, [[call("edit_file", path=str(current))] * 2], before_call=repoint)
    first, second = result.calls
    assert first.targets == (f"write {layout.data / 'v1.txt'}",)
    assert second.targets == (f"write {layout.data / 'v2.txt'}",)
    assert second.asked, "an approval followed a spelling to a file nobody approved"


def operation_is_part_of_the_key(layout) -> None:
    folder = str(layout.data / "sub")
    result = replay(layout, [[call("mirror_folder", path=folder, direction="upload"),
                              call("mirror_folder", path=folder, direction="download")]])
    assert result.at(1, 1).targets == (f"read {folder}",)
    assert result.at(1, 2).asked, "an approval to read a folder was reused to write it"


def tool_is_part_of_the_key(layout) -> None:
    target = str(layout.data / "report.csv")
    result = replay(layout, [[call("edit_file", path=target), call("append_file", path=target)]])
    assert result.at(1, 2).asked, "an approval for one tool was reused by another"


def destructive_asks_every_time(layout) -> None:
    target = str(layout.data / "report.csv")
    result = replay(layout, [[call("delete_file", path=target)] * 2])
    assert [c.asked for c in result] == [True, True], "a delete went through without asking"
    assert all(c.destructive for c in result)


def delete_never_reuses_an_edit_approval(layout) -> None:
    target = str(layout.data / "report.csv")
    result = replay(layout, [[call("edit_file", path=target), call("delete_file", path=target)]])
    assert result.at(1, 2).asked, "a delete reused the approval given for an edit"
    assert result.at(1, 2).decision == "approved"


def approved_write_through_symlink_out_of_root_stays_refused(layout) -> None:
    link = layout.data / "escape"
    if not link.is_symlink():
        link.symlink_to(layout.outside)
    result = replay(layout, [[call("edit_file", path=str(link / "other.txt"))]])
    only = result.at(1, 1)
    assert only.decision == "approved"
    assert only.outcome == "refused", "an approved write through a symlink out of the root ran"
    assert only.targets == (f"write {layout.outside / 'other.txt'}",)


def approved_write_to_prefix_sibling_stays_refused(layout) -> None:
    result = replay(layout, [[call("edit_file", path=str(layout.evil / "secret.txt"))]])
    only = result.at(1, 1)
    assert only.decision == "approved"
    assert only.outcome == "refused", "an approved write to a sibling sharing the prefix ran"
    assert "outside_roots" in only.reason


# --- The scenarios hold on the real code --------------------------------------------------

SCENARIOS = [
    second_identical_call_goes_through,
    next_answer_asks_again,
    two_spellings_share_an_approval,
    spelling_that_now_resolves_elsewhere_asks_again,
    operation_is_part_of_the_key,
    tool_is_part_of_the_key,
    destructive_asks_every_time,
    delete_never_reuses_an_edit_approval,
    approved_write_through_symlink_out_of_root_stays_refused,
    approved_write_to_prefix_sibling_stays_refused,
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__)
def test_scenario_holds(layout, scenario: Callable[[Any], None]) -> None:
    scenario(layout)


# --- Each broken rule is caught -------------------------------------------------------------


def test_ledger_that_never_covers_is_caught(layout, monkeypatch):
    monkeypatch.setattr(sessions.ApprovalLedger, "covering", lambda self, keys: None)
    with pytest.raises(AssertionError, match="second identical call"):
        second_identical_call_goes_through(layout)


def test_ledger_that_outlives_its_answer_is_caught(layout, monkeypatch):
    monkeypatch.setattr(sessions.ApprovalLedger, "forget", lambda self: None)
    with pytest.raises(AssertionError, match="outlived its answer"):
        next_answer_asks_again(layout)


def test_ledger_keyed_on_the_written_path_is_caught(layout, monkeypatch):
    monkeypatch.setattr(sessions, "approval_target", lambda p: p.path)
    with pytest.raises(AssertionError, match="two spellings of one file"):
        two_spellings_share_an_approval(layout)


def test_ledger_keyed_on_the_written_path_follows_a_moved_symlink(layout, monkeypatch):
    # The other half of the same bug: one spelling, two files, one approval.
    monkeypatch.setattr(sessions, "approval_target", lambda p: p.path)
    with pytest.raises(AssertionError, match="followed a spelling"):
        spelling_that_now_resolves_elsewhere_asks_again(layout)


def test_ledger_keyed_without_the_target_is_caught(layout, monkeypatch):
    monkeypatch.setattr(sessions, "ledger_key", lambda tool, op, target: (tool, op, ""))
    with pytest.raises(AssertionError, match="followed a spelling"):
        spelling_that_now_resolves_elsewhere_asks_again(layout)


def test_ledger_keyed_without_the_operation_is_caught(layout, monkeypatch):
    monkeypatch.setattr(sessions, "ledger_key", lambda tool, op, target: (tool, "", target))
    with pytest.raises(AssertionError, match="read a folder was reused to write"):
        operation_is_part_of_the_key(layout)


def test_ledger_keyed_without_the_tool_is_caught(layout, monkeypatch):
    monkeypatch.setattr(sessions, "ledger_key", lambda tool, op, target: ("", op, target))
    with pytest.raises(AssertionError, match="reused by another"):
        tool_is_part_of_the_key(layout)


def test_destructive_calls_using_the_ledger_is_caught(layout, monkeypatch):
    monkeypatch.setattr(sessions, "is_destructive", lambda name, tool, rules: False)
    with pytest.raises(AssertionError, match="without asking"):
        destructive_asks_every_time(layout)


def test_delete_reusing_a_write_approval_is_caught(layout, monkeypatch):
    # The mutant is the ledger of a per-path design in which deletes consult it: keyed on
    # (operation, path), with no destructive rule.
    monkeypatch.setattr(sessions, "is_destructive", lambda name, tool, rules: False)
    monkeypatch.setattr(sessions, "ledger_key", lambda tool, op, target: ("", op, target))
    with pytest.raises(AssertionError, match="reused the approval given for an edit"):
        delete_never_reuses_an_edit_approval(layout)


def test_containment_before_realpath_is_caught(layout, monkeypatch):
    real_verdict = check_module._verdict

    def lexical_first(compiled, path, op, over_http, resolved, identity, batch=False):
        absolute = path if path.startswith("/") else posixpath.join(compiled.cwd, path)
        return real_verdict(compiled, path, op, over_http, posixpath.normpath(absolute), identity,
                            batch)

    monkeypatch.setattr(check_module, "_verdict", lexical_first)
    with pytest.raises(AssertionError, match="symlink out of the root ran"):
        approved_write_through_symlink_out_of_root_stays_refused(layout)


def test_prefix_containment_is_caught(layout, monkeypatch):
    monkeypatch.setattr(tables_module, "containment_prefixes", lambda dirs: tuple(dirs))
    with pytest.raises(AssertionError, match="sibling sharing the prefix ran"):
        approved_write_to_prefix_sibling_stays_refused(layout)


# --- Destructive tools ---------------------------------------------------------------------


def test_destructive_by_catalog_flag_and_by_name():
    rules = LedgerRules()
    assert is_destructive("delete_file", CATALOG.get("delete_file"), rules)
    assert not is_destructive("edit_file", CATALOG.get("edit_file"), rules)
    for name in ("remove_path", "moveFile", "files.rename", "trash-item", "rm"):
        assert is_destructive(name, None, rules), name
    for name in ("remover_stats", "movie_search", "get_removed"):
        assert not is_destructive(name, None, rules), name
    assert not is_destructive("purge", None, rules)
    assert is_destructive("purge", None, LedgerRules(destructive_words=("purge",)))


def test_uncatalogued_delete_asks_every_time(layout):
    result = replay(layout, [[call("remove_path", path="x"), call("remove_path", path="x"),
                              call("summarize", text="x"), call("summarize", text="x")]])
    assert decisions(result) == [("1.1", True, "approved"), ("1.2", True, "approved"),
                                 ("1.3", True, "approved"), ("1.4", False, "covered")]


def test_shipped_catalog_destructive_tools_ask_every_time(layout):
    # The server's annotations decide: upload_local_file is destructiveHint, while
    # download_file and get_doc_content are readOnlyHint, so their approvals are reused.
    target = str(layout.data / "doc.md")
    source = str(layout.data / "report.csv")
    answers = [[call("get_doc_content", file_id="d", local_path=target),
                call("get_doc_content", file_id="d", local_path=target),
                call("download_file", file_id="f", local_path=target),
                call("download_file", file_id="f", local_path=target),
                call("upload_local_file", local_path=source, parent_folder_id="F"),
                call("upload_local_file", local_path=source, parent_folder_id="F")]]
    result = replay_session(layout.roots(), answers, access=HOLD_ALL)
    assert decisions(result) == [("1.1", True, "approved"), ("1.2", False, "covered"),
                                 ("1.3", True, "approved"), ("1.4", False, "covered"),
                                 ("1.5", True, "approved"), ("1.6", True, "approved")]
    assert [c.destructive for c in result] == [False] * 4 + [True] * 2


def test_destructive_rule_can_be_switched_off(layout):
    target = str(layout.data / "report.csv")
    result = replay(layout, [[call("delete_file", path=target)] * 2],
                    rules=LedgerRules(destructive_asks_every_time=False))
    assert [c.asked for c in result] == [True, False]


# --- Keys ------------------------------------------------------------------------------------


def test_call_with_several_paths_is_covered_only_by_all_of_them(layout):
    a, b = str(layout.data / "report.csv"), str(layout.data / "sub" / "notes.txt")
    result = replay(layout, [[call("attach_files", paths=[a, b]),
                              call("attach_files", paths=[b]),
                              call("attach_files", paths=[a, b, a]),
                              call("attach_files", paths=[a, str(layout.data / "new.txt")])]])
    assert decisions(result) == [("1.1", True, "approved"), ("1.2", False, "covered"),
                                 ("1.3", False, "covered"), ("1.4", True, "approved")]


def test_path_less_call_is_keyed_on_its_arguments(layout):
    result = replay(layout, [[call("summarize", text="a", n=1), call("summarize", n=1, text="a"),
                              call("summarize", text="b", n=1)]])
    assert [c.asked for c in result] == [True, False, True]


def test_walked_entries_are_not_prompt_targets(layout):
    result = replay(layout, [[call("mirror_folder", path=str(layout.data))]])
    assert result.at(1, 1).targets == (f"read {layout.data}",)
    assert any(p.kind == "entry" for p in result.at(1, 1).verdict.paths)


def test_unresolved_paths_never_share_a_key_with_resolved_ones(layout):
    off = layout.policy(LOCAL_FILE_ACCESS="off")
    result = replay(layout, [[call("edit_file", path="a.txt")]], policy=off)
    assert result.at(1, 1).targets == ("write a.txt (unresolved)",)
    paths = result.at(1, 1).verdict.paths
    assert sessions.approval_target(paths[0]) == "unresolved:a.txt"


# --- Refusals, timeouts, the person's script --------------------------------------------


def test_refusal_is_final_and_says_so(layout):
    target = str(layout.data / "report.csv")
    result = replay(layout, [[call("edit_file", path=target), call("edit_file", path=target)]],
                    approvals="deny")
    first, second = result.calls
    assert first.decision == "refused" and first.status == "held"
    assert first.outcome == "declined"
    assert first.message == PERSON_REFUSAL.format(name="edit_file")
    assert "final" in first.message and "edit_file" in first.message
    # A refusal is never an approval: the retry is asked again (and refused again).
    assert second.asked and second.decision == "refused"
    assert result.summary().declined == [(1, 1), (1, 2)]


def test_refusal_is_not_remembered_as_an_approval(layout):
    target = str(layout.data / "report.csv")
    result = replay(layout, [[call("edit_file", path=target)] * 3],
                    approvals={(1, 1): "deny", (1, 2): "approve"})
    assert decisions(result) == [("1.1", True, "refused"), ("1.2", True, "approved"),
                                 ("1.3", False, "covered")]


def test_remembered_refusals_refuse_the_retry_without_asking(layout):
    target = str(layout.data / "report.csv")
    edit = call("edit_file", path=target)
    result = replay(layout, [[edit, edit], [edit]],
                    approvals="deny", rules=LedgerRules(remember_refusals=True))
    assert decisions(result) == [("1.1", True, "refused"), ("1.2", False, "refused_earlier"),
                                 ("2.1", True, "refused")]
    assert result.at(1, 2).outcome == "declined"


def test_unanswered_prompt_is_a_refusal(layout):
    target = str(layout.data / "report.csv")
    access = ToolAccess(approval_list=("*",), approval_timeout_seconds=60)
    result = replay(layout, [[call("edit_file", path=target)] * 4], access=access,
                    approvals={(1, 1): "timeout", (1, 2): ("approve", 61),
                               (1, 3): ("approve", 60)})
    assert decisions(result) == [("1.1", True, "timeout"), ("1.2", True, "timeout"),
                                 ("1.3", True, "approved"), ("1.4", False, "covered")]
    assert result.at(1, 1).message == TIMEOUT_REFUSAL.format(name="edit_file", seconds=60)
    assert result.at(1, 1).outcome == "declined"
    assert result.timeout_seconds == 60


def test_timeout_is_the_shortest_of_the_scopes(layout):
    access = load_access({"server": {"approval_list": ["*"], "approval_timeout_seconds": 120},
                          "member": {"approval_list": ["edit_*"], "approval_timeout_seconds": 30}})
    result = replay(layout, [[call("edit_file", path=str(layout.data / "report.csv"))]],
                    access=access, approvals=("approve", 45))
    assert result.at(1, 1).decision == "timeout"


def test_session_file_answers_win_over_the_blanket_answer(layout):
    target = str(layout.data / "report.csv")
    answers = [[{**call("edit_file", path=target), "approval": "deny"},
                call("append_file", path=target)]]
    result = replay(layout, answers, approvals="approve")
    assert [c.decision for c in result] == ["refused", "approved"]
    by_position = replay(layout, answers, approvals={(1, 1): "approve"})
    assert [c.decision for c in by_position] == ["approved", "approved"]


def test_callable_person_sees_the_prompt(layout):
    seen: list[Prompt] = []

    def person(prompt: Prompt) -> str:
        seen.append(prompt)
        return "deny" if prompt.destructive else "approve"

    target = str(layout.data / "report.csv")
    result = replay(layout, [[call("edit_file", path=target), call("delete_file", path=target)]],
                    approvals=person)
    assert [c.decision for c in result] == ["approved", "refused"]
    assert [(p.answer, p.call, p.name, p.destructive) for p in seen] == [
        (1, 1, "edit_file", False), (1, 2, "delete_file", True)]
    assert seen[0].targets == (f"write {target}",) and seen[0].timeout_seconds == 300


@pytest.mark.parametrize("bad", ["maybe", True, 3, {"decision": "approve", "after": 2},
                                 ("approve", -1)])
def test_bad_approvals_are_clear_errors(layout, bad):
    with pytest.raises(SessionError, match="approvals"):
        replay(layout, [[call("summarize")]], approvals=bad)


def test_bad_answer_from_a_callable_names_the_call(layout):
    with pytest.raises(SessionError, match=r"answer 1, call 2: .*'approve', 'deny'"):
        replay(layout, [[call("summarize", a=1), call("summarize", a=2)]],
               approvals=lambda p: "approve" if p.call == 1 else "sure")


def test_scripted_answer_settles_against_the_timeout():
    assert ScriptedAnswer(decision="approve", after_seconds=10).settle(10) == "approve"
    assert ScriptedAnswer(decision="deny", after_seconds=11).settle(10) == "timeout"
    assert ScriptedAnswer.parse({"decision": "deny"}).settle(1) == "deny"


# --- Approval never overrides deny; scopes only add approval ------------------------------


def test_approval_never_revives_a_denied_tool(layout):
    access = ToolAccess(deny_list=("edit_*",), approval_list=("edit_file",))
    result = replay(layout, [[call("edit_file", path=str(layout.data / "report.csv"))]],
                    access=access, approvals="approve")
    only = result.at(1, 1)
    assert (only.visible, only.gate, only.status, only.asked) == (False, "blocked", "blocked",
                                                                    False)
    assert only.outcome == "absent" and "deny_list" in only.reason
    assert result.summary().blocked == [(1, 1)]


def test_approval_never_overrides_the_file_policy(layout):
    # Full access: only the deny-list stands between the call and the server's token.
    full = layout.policy(LOCAL_FILE_ACCESS="full")
    token = replay(layout, [[call("read_file", path=str(layout.app / "token.json"))]],
                   policy=full).at(1, 1)
    assert token.decision == "approved" and token.outcome == "refused"
    assert token.verdict.paths[0].reason == "denied"
    assert token.message == token.verdict.message and token.message
    result = replay(layout, [[call("read_file", path=str(layout.data / "report.csv")),
                              call("edit_file", path=str(layout.outside / "other.txt"))]])
    assert [c.decision for c in result] == ["approved", "approved"]
    assert [c.outcome for c in result] == ["ok", "refused"]
    assert result.summary().refused_by_server == [(1, 2)]


def test_gate_that_checks_paths_first_doesnt_ask_about_a_refused_call(layout):
    result = replay(layout, [[call("edit_file", path=str(layout.outside / "other.txt")),
                              call("edit_file", path=str(layout.data / "report.csv"))]],
                    rules=LedgerRules(gate_checks_paths_first=True))
    assert decisions(result) == [("1.1", False, "not_asked"), ("1.2", True, "approved")]
    assert result.at(1, 1).outcome == "refused"


def test_narrower_scope_adds_approval_but_never_removes_it(layout):
    target = str(layout.data / "report.csv")
    access = load_access({
        "server": {"approval_list": ["edit_*"]},
        # The member scope allows edit_file outright: that doesn't lift the server's hold.
        "member": {"allow_list": ["edit_file", "read_file"], "approval_list": ["read_*"]},
    })
    result = replay(layout, [[call("edit_file", path=target), call("read_file", path=target),
                              call("append_file", path=target)]], access=access)
    edit, read, append = result.calls
    assert edit.gate == "approval" and edit.asked
    assert read.gate == "approval" and read.asked  # added by the narrower scope
    assert append.status == "blocked"  # the member's allow_list hides it


def test_execute_gate_never_asks(layout):
    target = str(layout.data / "report.csv")
    result = replay(layout, [[call("delete_file", path=target)]], access=None)
    only = result.at(1, 1)
    assert (only.gate, only.asked, only.decision, only.status) == ("execute", False, "none",
                                                                   "executed")


def test_off_mode_hides_local_only_tools(layout):
    off = layout.policy(LOCAL_FILE_ACCESS="off")
    result = replay_session(off, [[call("download_file", file_id="f", local_path="x")]],
                            access=HOLD_ALL)
    only = result.at(1, 1)
    assert only.status == "blocked" and not only.asked and only.outcome == "absent"


# --- Ledger lifetimes ---------------------------------------------------------------------------


@pytest.mark.parametrize(("lasts", "asked"), [
    ("answer", [True, False, True]),
    ("conversation", [True, False, False]),
    ("call", [True, True, True]),
])
def test_ledger_lifetime_option(layout, lasts, asked):
    target = str(layout.data / "report.csv")
    edit = call("edit_file", path=target)
    result = replay(layout, [[edit, edit], [edit]],
                    rules=LedgerRules(lasts=lasts))
    assert [c.asked for c in result] == asked


# --- Output -----------------------------------------------------------------------------------


def test_dataframe_and_summary(layout):
    target = str(layout.data / "report.csv")
    access = ToolAccess(approval_list=("edit_*", "delete_*"), deny_list=("read_*",))
    result = replay(layout, [[call("edit_file", path=target), call("edit_file", path=target),
                              call("read_file", path=target)],
                             [call("delete_file", path=target), call("summarize")]],
                    access=access)
    frame = result.to_dataframe()
    assert list(frame.columns) == list(sessions.COLUMNS)
    assert {"answer", "call", "name", "gate", "asked", "decision", "outcome",
            "reason"} <= set(frame.columns)
    assert len(frame) == 5
    assert frame["asked"].tolist() == [True, False, False, True, False]
    assert frame["gate"].tolist() == ["approval", "approval", "blocked", "approval", "execute"]
    assert frame.loc[1, "covered_by"] == "1.1"
    summary = result.summary()
    assert summary.prompts == 2 and summary.prompts_per_answer == {1: 1, 2: 1}
    assert summary.covered == {(1, 2): (1, 1)}
    assert summary.blocked == [(1, 3)]
    text = summary.to_text()
    assert "1.2 (approved at 1.1)" in text and "blocked" in text
    assert summary.to_json_dict()["covered"] == [{"call": [1, 2], "by": [1, 1]}]


def test_every_answer_is_counted_even_without_prompts(layout):
    result = replay(layout, [[], [call("summarize")], []], access=None)
    assert result.summary().prompts_per_answer == {1: 0, 2: 0, 3: 0}


def test_arguments_stay_out_of_reprs_and_json(layout):
    canary = "canary-9f1e"
    result = replay(layout, [[call("summarize", api_token=canary)]])
    only = result.at(1, 1)
    assert canary not in repr(only) and canary not in str(only.to_json_dict())


# --- Loading sessions ---------------------------------------------------------------------------


def test_load_session_from_lists_objects_and_json_rpc(tmp_path):
    rpc = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
           "params": {"name": "summarize", "arguments": {"a": 1}}}
    session = load_session({"description": "d", "answers": [[call("summarize"), rpc], []]})
    assert isinstance(session, Session) and len(session) == 2
    assert [(a, c, x.name) for a, c, x in session.iter_calls()] == [
        (1, 1, "summarize"), (1, 2, "summarize")]
    path = tmp_path / "s.json"
    path.write_text('[[{"name": "summarize", "arguments": null, "approval": "deny"}]]')
    loaded = load_session(path)
    assert loaded.answers[0][0].approval == ScriptedAnswer(decision="deny")
    assert loaded.source == str(path)


@pytest.mark.parametrize(("raw", "where"), [
    (42, "a list of answers"),
    ({"calls": []}, "an object with an 'answers' list"),
    ([[call("a")], {"name": "b"}], "answer 2: an answer is a list of calls"),
    ([[call("a"), "b"]], "answer 1, call 2: a call is an object"),
    ([[call("a")], [call("b"), {"arguments": {}}]], "answer 2, call 2: a call needs"),
    ([[{"name": "a", "arguments": [1]}]],
     r"answer 1, call 1 \(a\): arguments: must be an object, not list"),
    ([[{"name": "a", "aproval": "deny"}]], r"answer 1, call 1: unknown key\(s\) 'aproval'"),
    ([[{"name": "a", "approval": "later"}]], r"answer 1, call 1 \(a\): .*'approve', 'deny'"),
    ([[{"name": "a", "expected_paths": "x"}]], r"answer 1, call 1 \(a\): expected_paths"),
])
def test_malformed_sessions_name_the_answer_and_call(raw, where):
    with pytest.raises(SessionError, match=where):
        load_session(raw)


def test_malformed_session_file_names_the_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('[[{"name": "a"},\n  {"name": }]]')
    with pytest.raises(SessionError, match=r"broken\.json: not valid JSON \(line 2"):
        load_session(path)
    with pytest.raises(SessionError, match=r"missing\.json: can't be read"):
        load_session(tmp_path / "missing.json")
    path.write_text('[[{"name": "a"}], [{"name": ""}]]')
    with pytest.raises(SessionError, match=r"broken\.json: answer 2, call 1"):
        load_session(path)


# --- The Session panel ------------------------------------------------------------------------


@pytest.fixture
def session_panel(layout):
    pytest.importorskip("ipywidgets")
    from localfs_explorer.ui import Explorer, PanelSpec

    spec = PanelSpec("session", "Session", "localfs_explorer.ui.panels.session:SessionPanel")
    app = Explorer(cwd=str(layout.app), debounce=0, panels=[spec])
    app.model.set_override("LOCAL_FILE_ACCESS", "roots")
    app.model.set_override("LOCAL_FILE_ROOTS", str(layout.data))
    return app, app.show("session")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_panel_replays_a_pasted_session_with_the_tool_tabs_access_lists(layout, session_panel):
    app, panel = session_panel
    target = str(layout.data / "doc.md")
    doc = call("get_doc_content", document_id="d", local_path=target)
    panel.text.value = json.dumps([[doc, doc], [doc]])
    assert "0 prompt(s)" in panel.summary.value.replace("<b>", "").replace("</b>", "")
    app.model.access_text = json.dumps({"server": {"approval_list": ["get_*"]}})
    assert [(c.asked, c.decision) for c in panel.replay] == [
        (True, "approved"), (False, "covered"), (True, "approved")]
    assert "1.2 (approved at 1.1)" in panel.summary.value
    assert "lfe-session-csv-link" in panel.csv.value
    panel.answers.value = "deny"
    assert [c.decision for c in panel.replay] == ["refused", "refused", "refused"]
    assert any("This refusal is final" in m for m in panel.grid.frame["what the model gets"])
    panel.lasts.value = "conversation"
    panel.answers.value = "approve"
    assert [c.asked for c in panel.replay] == [True, False, False]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_panel_shows_malformed_sessions_in_the_page(session_panel):
    app, panel = session_panel
    panel.text.value = '[[{"name": "a"}], [{"name": "b", "arguments": 1}]]'
    assert panel.replay is None
    assert "answer 2, call 1 (b): arguments: must be an object" in panel.status.value
    panel.text.value = "[["
    assert "not valid JSON" in panel.status.value
    assert app.model.last_error == ""


@pytest.mark.slow
def test_importing_sessions_loads_no_pandas():
    import subprocess
    import sys

    code = ("import sys, localfs_explorer.review.sessions, localfs_explorer.cli.sessions\n"
            "print(sorted(m for m in ('pandas', 'ipywidgets', 'numpy') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert proc.stdout.strip() == "[]"


def test_server_annotations_settle_destructive_over_name_words():
    from localfs_explorer.catalog import load_catalog

    shipped = load_catalog()
    rules = LedgerRules(destructive_words=("download", "trash"))
    # readOnlyHint from the server: the name word doesn't make it destructive.
    assert not is_destructive("download_file", shipped.get("download_file"), rules)
    assert is_destructive("trash_message", shipped.get("trash_message"), rules)
    assert is_destructive("upload_local_file", shipped.get("upload_local_file"), rules)
    # Without annotations the words still count.
    assert is_destructive("download_all", None, rules)
