"""One tool call (localfs_explorer.probe.call): outcomes, attachments, registration and
access gates, the off-mode choke points, discovery."""

from __future__ import annotations

import pytest
from conftest import Layout
from hypothesis import example, given
from hypothesis import strategies as st
from probe_support import CATALOG, probe_call, probe_exactly, recorded_policy, snapshot

from localfs_explorer.probe import (
    iter_call_verdicts,
)
from localfs_explorer.servers.gee_sweet.messages import DENIED, OFF_EXPLICIT, TRIPWIRE

# --- outcomes of single-path calls -------------------------------------------------------


def test_a_refused_required_path_is_the_refusal_message(layout: Layout) -> None:
    policy = layout.roots()
    target = str(layout.outside / "other.txt")
    v = probe_call(policy, "upload_local_file", {"local_path": target, "parent_folder_id": "F"})
    assert v.outcome == "refused" and v.registered and v.visible and v.gate == "execute"
    assert v.message == policy.check_read(target).message
    assert v.message.startswith(f"{target} is outside this server's LOCAL_FILE_ROOTS")
    (p,) = [p for p in v.paths if p.tier == "catalog"]
    assert (p.argument, p.path, p.op, p.allowed, p.reason) == (
        "local_path", target, "read", False, "outside_roots"
    )


def test_an_allowed_path_is_ok_and_carries_its_resolution(layout: Layout) -> None:
    policy = layout.roots()
    v = probe_call(policy, "download_file", {"file_id": "x", "local_path": "../data/new.bin"})
    assert v.outcome == "ok" and v.message == ""
    p = v.paths[0]
    assert p.path == "../data/new.bin"  # as given, not resolved
    assert p.resolved == str(layout.data / "new.bin")
    assert (p.op, p.allowed, p.tier) == ("write", True, "catalog")


def test_optional_local_path_is_checked_only_when_used(layout: Layout) -> None:
    policy = layout.roots()
    assert probe_call(policy, "get_sheet_data", {"spreadsheet_id": "S"}).outcome == "ok"
    v = probe_call(policy, "get_sheet_data",
                   {"spreadsheet_id": "S", "local_path": str(layout.app / "dump.json")})
    assert v.outcome == "refused"
    assert v.paths[0].op == "write"


def test_the_deny_list_applies_in_full_mode(layout: Layout) -> None:
    policy = layout.policy()
    token = str(layout.app / "token.json")
    v = probe_call(policy, "download_file", {"file_id": "x", "local_path": token})
    assert v.outcome == "refused" and v.paths[0].reason == "denied"
    assert v.message == DENIED.format(path=token, verb="written")


def test_result_local_path_is_checked_after_the_sync_root_before_the_walk(
    layout: Layout,
) -> None:
    policy = layout.roots()
    result = str(layout.outside / "result.json")
    v = probe_call(policy, "sync_folder", {"local_path": str(layout.data), "folder_id": "F",
                                           "result_local_path": result})
    assert v.outcome == "refused"
    assert v.message == policy.check_write(result).message
    assert [p.argument for p in v.paths] == ["local_path", "result_local_path"]
    assert not any(p.kind == "entry" for p in v.paths)  # nothing walked
    # A refused root ends the call before result_local_path is looked at.
    v = probe_call(policy, "sync_folder", {"local_path": str(layout.evil), "folder_id": "F",
                                           "result_local_path": result})
    assert [p.argument for p in v.paths] == ["local_path"]


def test_sync_validates_its_own_arguments_before_touching_files(layout: Layout) -> None:
    policy, fs = recorded_policy(layout, LOCAL_FILE_ACCESS="roots",
                                 LOCAL_FILE_ROOTS=str(layout.data))
    for extra, words in (({"direction": "sideways"}, "Invalid direction 'sideways'. Use"),
                         ({"export_format": "gif"}, "Unknown export_format 'gif'. Valid"),
                         ({"resolve": {"a.md": "keep_both"}}, "Invalid resolve value for")):
        v = probe_call(policy, "sync_folder", {"local_path": str(layout.outside), **extra})
        assert (v.outcome, v.paths) == ("error", []) and words in v.message
    assert fs.asked == []
    # result_local_path inside local_path: the tool's own error after both checks.
    v = probe_call(policy, "sync_folder", {"local_path": str(layout.data),
                                           "result_local_path": str(layout.data / "r.json")})
    assert v.outcome == "error" and "must not be local_path" in v.message
    assert [p.kind for p in v.paths] == ["root", "path"]


def test_sync_descends_only_when_recursive(layout: Layout) -> None:
    args = {"local_path": str(layout.data), "direction": "upload"}
    flat = probe_call(layout.roots(), "sync_folder", args)
    assert [p.path for p in flat.paths if p.kind == "entry"] == [str(layout.data / "report.csv")]
    assert any("not entered: recursive is false" in n for n in flat.notes)
    deep = probe_call(layout.roots(), "sync_folder", {**args, "recursive": True})
    assert [p.path for p in deep.paths if p.kind == "entry"] == [
        str(layout.data / "report.csv"), str(layout.data / "sub"),
        str(layout.data / "sub" / "notes.txt")]


def test_entry_checks_run_before_the_other_parameters(layout: Layout) -> None:
    """Whatever the catalog's order, an entry check's refusal is what the model sees."""
    from localfs_explorer.catalog import Catalog

    catalog = Catalog.model_validate({"tools": [{
        "name": "export_rows",
        "params": [
            {"location": "source_path", "op": "read"},
            {"location": "local_path", "op": "write", "optional": True,
             "checked_at_entry": True},
        ],
    }]})
    policy = layout.roots()
    first, second = str(layout.outside / "a.csv"), str(layout.evil / "b.json")
    v = probe_call(policy, "export_rows", {"source_path": first, "local_path": second},
                   catalog=catalog)
    assert v.outcome == "refused"
    assert v.message == policy.check_write(second).message
    # The refusal ends the call, as the server's raise does: the read is never checked.
    assert [p.argument for p in v.paths] == ["local_path"]


def test_a_nul_byte_is_a_refusal_not_a_crash(layout: Layout) -> None:
    v = probe_call(layout.roots(), "upload_local_file", {"local_path": "bad\0name"})
    assert v.outcome == "refused" and v.paths[0].reason == "invalid"


def test_a_missing_required_argument_is_an_error(layout: Layout) -> None:
    v = probe_exactly(layout.roots(), "download_file", {"file_id": "x"})
    assert v.outcome == "error" and "missing required argument 'local_path'" in v.message
    assert v.paths == []


def test_argument_errors_come_before_any_path_check(layout: Layout) -> None:
    policy, fs = recorded_policy(layout, LOCAL_FILE_ACCESS="roots",
                                 LOCAL_FILE_ROOTS=str(layout.data))
    bad = str(layout.outside / "x.json")
    for arguments in (
        {"file_id": "x", "local_path": bad, "dest": "y"},  # unknown argument
        {"local_path": bad},  # missing required
        {"file_id": "x", "local_path": 5},  # wrong type
    ):
        v = probe_exactly(policy, "download_file", arguments)
        assert (v.outcome, v.paths) == ("error", []), arguments
        assert v.message.startswith("download_file: the server rejects the arguments")
    assert fs.asked == []
    # The shipped scenarios' real argument names pass.
    ok = probe_exactly(policy, "send_message", {"to": "a@b.c", "subject": "S", "body": "B"})
    assert ok.outcome == "ok"


def test_an_empty_optional_local_path_is_not_given(layout: Layout) -> None:
    policy, fs = recorded_policy(layout, LOCAL_FILE_ACCESS="off")
    v = probe_call(policy, "get_sheet_data", {"local_path": ""})
    assert (v.outcome, v.paths) == ("ok", []) and fs.asked == []
    v = probe_call(policy, "send_message", {"attachments": [
        {"local_path": "", "content_base64": "eA=="}]})
    assert (v.outcome, v.paths) == ("ok", [])
    v = probe_call(policy, "send_message", {"attachments": [{"local_path": ""}]})
    assert v.outcome == "error" and "needs either local_path or content_base64" in v.message


def test_a_directory_destination_gets_the_default_name_checked_too(layout: Layout) -> None:
    policy = layout.policy(LOCAL_FILE_ACCESS="full")
    (layout.data / "Sheet1_data.json").symlink_to(layout.app / "token.json")
    v = probe_call(policy, "get_sheet_data", {"sheet": "Sheet1", "local_path": str(layout.data)})
    assert [(p.path, p.allowed) for p in v.paths] == [
        (str(layout.data), True), (str(layout.data / "Sheet1_data.json"), False)]
    assert v.outcome == "refused" and "own credential" in v.message
    v = probe_call(policy, "get_message", {"message_id": "m/1", "local_path": "out/"})
    assert [p.path for p in v.paths] == ["out/", "out/message_m_1.json"]
    # A file destination is checked once; a missing name part is said in a note.
    v = probe_call(policy, "get_thread", {"thread_id": "T",
                                          "local_path": str(layout.data / "t.json")})
    assert len(v.paths) == 1
    v = probe_call(policy, "download_file", {"file_id": "F", "local_path": str(layout.data)})
    assert len(v.paths) == 1 and any("{drive_name}" in n for n in v.notes)
    v = probe_call(policy, "download_file", {"file_id": "F", "local_path": str(layout.data)},
                   drive_names=["report.csv"])
    assert [p.path for p in v.paths] == [str(layout.data), str(layout.data / "report.csv")]


def test_sensitive_files_are_flagged_without_changing_the_verdict(layout: Layout) -> None:
    key = layout.data / "id_rsa"
    key.write_text("k")
    v = probe_call(layout.roots(), "upload_local_file", {"local_path": str(key)})
    assert v.outcome == "ok"
    assert v.paths[0].allowed and v.paths[0].sensitive


# --- attachments --------------------------------------------------------------------------


def test_one_refused_attachment_fails_the_whole_message(layout: Layout) -> None:
    policy = layout.roots()
    bad = str(layout.evil / "secret.txt")
    v = probe_call(policy, "send_message", {
        "to": "a@example.com",
        "attachments": [
            {"local_path": str(layout.data / "report.csv")},
            {"filename": "x.txt", "content_base64": "eA=="},
            {"local_path": bad},
        ],
    })
    assert v.outcome == "refused"
    assert v.message == policy.check_read(bad).message
    assert [(p.argument, p.allowed) for p in v.paths if p.kind == "attachment"] == [
        ("attachments[0].local_path", True), ("attachments[2].local_path", False)
    ]


def test_inline_attachments_work_in_off_mode(layout: Layout) -> None:
    policy, fs = recorded_policy(layout, LOCAL_FILE_ACCESS="off")
    v = probe_call(policy, "send_message",
                   {"to": "a@example.com", "attachments": [{"content_base64": "eA=="}]})
    assert v.outcome == "ok" and v.visible
    assert not [p for p in v.paths if p.tier == "catalog"]
    assert fs.asked == []


# --- registration, visibility, access lists -------------------------------------------------


def test_off_mode_local_only_tool_is_absent(layout: Layout) -> None:
    policy, fs = recorded_policy(layout, "sse")  # defaulted off
    v = probe_call(policy, "sync_folder", {"local_path": str(layout.data), "folder_id": "F"})
    assert (v.outcome, v.registered, v.visible, v.paths) == ("absent", False, False, [])
    assert any("local-only" in n for n in v.notes)
    assert fs.asked == []


def test_off_mode_optional_local_path_refuses_when_used(layout: Layout) -> None:
    policy, fs = recorded_policy(layout, LOCAL_FILE_ACCESS="off")
    v = probe_call(policy, "get_thread", {"thread_id": "T", "local_path": "out.json"})
    assert v.outcome == "refused" and v.registered and v.visible
    assert v.message == OFF_EXPLICIT
    assert fs.asked == []
    assert probe_call(policy, "get_thread", {"thread_id": "T"}).outcome == "ok"


def test_enabled_tools_keeps_a_tool_out(layout: Layout) -> None:
    policy = layout.policy(ENABLED_TOOLS="get_message")
    v = probe_call(policy, "upload_local_file", {"local_path": "x"})
    assert v.outcome == "absent" and not v.registered
    assert "ENABLED_TOOLS" in v.notes[-1]
    # A tool the catalog doesn't know is absent too when ENABLED_TOOLS doesn't name it.
    assert probe_call(policy, "someone_elses_tool", {}).outcome == "absent"


def test_access_lists_block_and_hold(layout: Layout) -> None:
    policy = layout.roots()
    access = {"server": {"deny_list": ["download_*"], "approval_list": ["upload_*"]}}
    blocked = probe_call(policy, "download_file", {"local_path": "x"}, access=access)
    assert (blocked.registered, blocked.visible, blocked.gate, blocked.outcome) == (
        True, False, "blocked", "absent"
    )
    assert blocked.paths == []
    held = probe_call(policy, "upload_local_file",
                      {"local_path": str(layout.data / "report.csv")}, access=access)
    assert (held.visible, held.gate, held.outcome) == (True, "approval", "ok")


# --- §5 choke points: in off mode, refused or absent, nothing on disk touched ----------------

CHOKE_POINTS = [
    # (design §5 row, tool, arguments); {d} is the data folder, {o} a file outside.
    ("upload_local_file read", "upload_local_file", {"local_path": "{d}/report.csv"}),
    ("upload_local_folder per file", "upload_local_folder", {"local_path": "{d}"}),
    ("insert_local_images", "insert_local_images",
     {"doc_id": "D", "folder_id": "F",
      "images": [{"marker": "M", "local_path": "{d}/report.csv"}]}),
    ("markdown images", "create_doc",
     {"title": "T", "content": "![x]({d}/report.csv)", "content_format": "markdown"}),
    ("html images", "write_doc_content",
     {"doc_id": "D", "content": "<img src=\"{d}/report.csv\">"}),
    ("upload_local_folder root", "upload_local_folder", {"local_path": "{d}/sub"}),
    ("create_doc_from_file", "create_doc_from_file", {"local_path": "{d}/report.csv"}),
    ("update_doc_from_file", "update_doc_from_file",
     {"doc_id": "D", "local_path": "{d}/report.csv"}),
    ("import_csv_to_sheet", "import_csv_to_sheet",
     {"title": "S", "local_path": "{d}/report.csv"}),
    ("send_message attachments", "send_message",
     {"to": "a@example.com", "attachments": [{"local_path": "{d}/report.csv"}]}),
    ("create_draft attachments", "create_draft",
     {"to": "a@example.com", "attachments": [{"local_path": "{d}/report.csv"}]}),
    ("download_file", "download_file", {"file_id": "F", "local_path": "{d}/new.bin"}),
    ("download_folder", "download_folder", {"folder_id": "F", "local_path": "{d}/dl"}),
    ("sync_folder downloads", "sync_folder",
     {"folder_id": "F", "local_path": "{d}", "direction": "download"}),
    ("sync_folder uploads", "sync_folder",
     {"folder_id": "F", "local_path": "{d}", "direction": "upload"}),
    ("sync_folder result_local_path", "sync_folder",
     {"folder_id": "F", "local_path": "{d}", "result_local_path": "{d}/result.json"}),
    *[
        (f"{name} local_path", name, {"local_path": "{d}/result.json"})
        for name in ("get_sheet_data", "get_multiple_sheet_data",
                     "get_multiple_spreadsheet_summary", "find_in_spreadsheet",
                     "get_doc_content", "find_in_doc", "get_doc_as_markdown", "get_message",
                     "get_thread", "export_revision")
    ],
]


def _fill(value, layout: Layout):
    if isinstance(value, str):
        return value.format(d=layout.data, o=layout.outside)
    if isinstance(value, list):
        return [_fill(v, layout) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, layout) for k, v in value.items()}
    return value


@pytest.mark.parametrize(("row", "tool", "arguments"), CHOKE_POINTS,
                         ids=[c[0] for c in CHOKE_POINTS])
def test_choke_point_in_off_mode(layout: Layout, row: str, tool: str, arguments: dict) -> None:
    before = snapshot(layout.base)
    policy, fs = recorded_policy(layout, LOCAL_FILE_ACCESS="off")
    v = probe_call(policy, tool, _fill(arguments, layout))
    local_only = CATALOG.get(tool).local_only
    if local_only:
        assert v.outcome == "absent" and not v.registered
    elif CATALOG.get(tool).image_params:
        assert v.outcome == "partial"  # the document is still written
    else:
        assert v.outcome == "refused" and v.message == OFF_EXPLICIT
    assert [p for p in v.paths if p.allowed] == []
    assert not [a for a in fs.asked if a.startswith(str(layout.base))]
    assert snapshot(layout.base) == before


@pytest.mark.parametrize(("row", "tool", "arguments"), CHOKE_POINTS,
                         ids=[c[0] for c in CHOKE_POINTS])
def test_choke_point_behind_the_tripwire(
    layout: Layout, row: str, tool: str, arguments: dict
) -> None:
    """A stdio default leaking onto HTTP: local-only tools registered, every call refused."""
    before = snapshot(layout.base)
    policy, fs = recorded_policy(layout, "stdio")  # defaulted full
    v = probe_call(policy, tool, _fill(arguments, layout), over_http=True)
    assert v.registered
    entry = CATALOG.get(tool)
    per_item = entry.params and not any(p.fails_call for p in entry.params)
    expected = "partial" if (entry.image_params and not entry.params) or per_item \
        else "refused"
    assert v.outcome == expected
    assert all(p.message == TRIPWIRE for p in v.paths if p.tier == "catalog")
    assert not any(p.kind == "entry" for p in v.paths)
    assert not [a for a in fs.asked if a.startswith(str(layout.base))]
    assert snapshot(layout.base) == before


def test_explicit_full_over_http_is_honoured(layout: Layout) -> None:
    policy = layout.policy("sse", LOCAL_FILE_ACCESS="full")
    v = probe_call(policy, "upload_local_file", {"local_path": str(layout.outside / "other.txt")})
    assert v.outcome == "ok"


# --- the guard: every local-path tool is covered by the lists above --------------------------

GUARDED_PARAM_NAMES = {"local_path", "result_local_path", "attachments", "images"}
COVERED = {
    "sync_folder", "upload_local_file", "upload_local_folder", "download_folder",
    "insert_local_images", "create_doc_from_file", "update_doc_from_file", "download_file",
    "import_csv_to_sheet", "get_sheet_data", "get_multiple_sheet_data",
    "get_multiple_spreadsheet_summary", "find_in_spreadsheet", "get_doc_content",
    "find_in_doc", "get_doc_as_markdown", "get_message", "get_thread", "send_message",
    "create_draft", "export_revision",
}


def test_every_local_path_tool_is_in_the_covered_list() -> None:
    """A new local-path tool fails here until someone decides where its check goes."""
    having = set()
    for tool in CATALOG.tools:
        names = {seg.removesuffix("[]") for p in tool.params for seg in p.location.split(".")}
        if names & GUARDED_PARAM_NAMES:
            having.add(tool.name)
    assert having == COVERED
    assert {c[1] for c in CHOKE_POINTS} >= COVERED
    image_tools = {t.name for t in CATALOG.tools if t.image_params}
    assert image_tools <= {c[1] for c in CHOKE_POINTS}


# --- discovery for what the catalog doesn't describe ------------------------------------------


def test_undescribed_arguments_are_advisory(layout: Layout) -> None:
    pytest.importorskip("localfs_explorer.discovery")
    policy = layout.roots()
    v = probe_call(policy, "find_in_doc", {"doc_id": "D",
                                           "query": str(layout.outside / "other.txt")})
    assert v.outcome == "ok"
    found = [p for p in v.paths if p.kind == "discovered"]
    assert found and all(p.advisory and p.tier == "guess" for p in found)
    assert not found[0].allowed


def test_expected_paths_decide_the_outcome(layout: Layout) -> None:
    pytest.importorskip("localfs_explorer.discovery")
    policy = layout.roots()
    target = str(layout.outside / "other.txt")
    v = probe_call(policy, "export_file", {"file_id": "F"}, expected_paths=[target])
    assert v.outcome == "refused" and v.message == policy.check_read(target).message
    assert v.paths[0].tier == "expected"


def test_a_tool_outside_the_catalog_is_assumed_registered(layout: Layout) -> None:
    v = probe_call(layout.roots(), "third_party_tool", {"query": "x"})
    assert v.registered and v.outcome in ("ok", "refused")
    assert any("not in the catalog" in n for n in v.notes)


def test_discovery_can_be_skipped_for_catalog_tools(layout: Layout) -> None:
    pytest.importorskip("localfs_explorer.discovery")
    policy = layout.roots()
    args = {"doc_id": "D", "query": str(layout.outside / "other.txt")}
    v = probe_call(policy, "find_in_doc", args, discover=False)
    assert v.paths == [] and v.outcome == "ok"
    # Expected paths are the caller's word about the call, so they are still checked.
    target = str(layout.outside / "other.txt")
    v = probe_call(policy, "get_message", {"message_id": "M"}, discover=False,
                   expected_paths=[target])
    assert v.outcome == "refused"


def test_discovery_leaves_catalog_locations_alone(layout: Layout) -> None:
    pytest.importorskip("localfs_explorer.discovery")
    policy = layout.roots()
    outside = str(layout.outside / "other.txt")
    v = probe_call(policy, "send_message", {
        "to": "a@example.com",
        "attachments": [{"local_path": outside, "note": f"copy of {outside}"}],
    })
    # The attachment is checked once, as a catalog path: the prose naming the same file
    # doesn't add a second row for it.
    assert [(p.argument, p.tier) for p in v.paths] == [("attachments[0].local_path", "catalog")]
    assert v.outcome == "refused"
    # Prose naming another file is searched (the item isn't skipped as a whole) and
    # only advises.
    other = str(layout.evil / "secret.txt")
    v = probe_call(policy, "send_message", {
        "attachments": [{"local_path": str(layout.data / "report.csv"), "note": other}],
    })
    found = [p for p in v.paths if p.kind == "discovered"]
    assert [(p.path, p.argument, p.advisory, p.allowed) for p in found] == [
        (other, "attachments[0].note", True, False)
    ]
    assert v.outcome == "ok"


def test_a_discovery_cut_short_says_so_in_the_notes(layout: Layout) -> None:
    pytest.importorskip("localfs_explorer.discovery")
    # Deeper than discovery's max_depth: what lies below the bound is never searched,
    # and the verdict must not read as if nothing were there.
    nested: dict = {"path": str(layout.outside / "other.txt")}
    for _ in range(20):
        nested = {"inner": nested}
    v = probe_call(layout.roots(), "third_party_tool", {"options": nested})
    assert [p for p in v.paths if p.kind == "discovered"] == []
    assert any("max_depth" in n and "not searched" in n for n in v.notes)


def test_a_bad_expected_path_is_the_calls_error_not_a_crash(layout: Layout) -> None:
    pytest.importorskip("localfs_explorer.discovery")
    policy = layout.roots()
    v = probe_call(policy, "export_file", {"file_id": "F"}, expected_paths=[3])  # type: ignore[list-item]
    assert v.outcome == "error"
    assert v.message.startswith("export_file: ") and "expected[0]" in v.message
    assert "int" in v.message
    # In a batch the same mistake is reported on each call, and every call still runs.
    verdicts = list(iter_call_verdicts(policy, [
        {"name": "export_file", "arguments": {"file_id": "F", "export_format": "pdf"}},
        {"name": "download_file",
         "arguments": {"file_id": "F", "local_path": str(layout.data / "x")}},
    ], expected_paths=[None]))  # type: ignore[list-item]
    assert [(v.index, v.outcome) for v in verdicts] == [(0, "error"), (1, "error")]
    assert all("expected[0]" in v.message for v in verdicts)


def test_caveats_of_found_paths_are_in_the_call_notes(layout: Layout) -> None:
    pytest.importorskip("localfs_explorer.discovery")
    v = probe_call(layout.roots(), "third_party_tool", {
        "path": "~bob/notes.txt",
        "link": "file://fileserver/srv/share/a.txt",
    })
    found = {p.argument: p.path for p in v.paths if p.kind == "discovered"}
    assert found["path"] == "~bob/notes.txt"
    assert any(n.startswith("path: ") and "not expanded" in n for n in v.notes)
    assert found["link"] == "/srv/share/a.txt"
    assert any(n.startswith("link: ") and "'fileserver'" in n for n in v.notes)


@example("a.txt/")
@example("a/b.txt/.")
@example(".bashrc")
@example("a.")
@given(st.lists(st.sampled_from(["a", ".", "/", "x", "tar", "gz", " ", "..", "é", "~"]),
                max_size=8).map("".join))
def test_the_extension_check_reads_suffixes_the_way_pathlib_does(path: str) -> None:
    from pathlib import PurePosixPath

    from localfs_explorer.probe.call import _suffix

    assert _suffix(path) == PurePosixPath(path).suffix
