"""Probing tool calls: what the model gets back, per the server's design (§5-§7, §11)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import Layout
from hypothesis import example, given
from hypothesis import strategies as st

from localfs_explorer import HostFS, load_env, resolve_policy
from localfs_explorer.catalog import load_catalog
from localfs_explorer.check import DENIED, OFF_EXPLICIT, TRIPWIRE
from localfs_explorer.probe import (
    COLUMNS,
    ProbeError,
    extract_image_sources,
    iter_call_verdicts,
    probe_calls,
)
from localfs_explorer.probe import probe_call as probe_exactly

CATALOG = load_catalog()
_PLACEHOLDERS = {"array": [], "boolean": False, "integer": 1, "number": 1}


def full(name: str, arguments: dict | None) -> dict:
    """``arguments`` with each required argument the test doesn't care about filled in."""
    tool = CATALOG.get(name)
    out = dict(arguments or {})
    for a in (tool.arguments or ()) if tool is not None else ():
        if a.required and a.name not in out:
            kind = next((t for t in a.types if t != "null"), "string")
            out[a.name] = _PLACEHOLDERS.get(kind, f"<{a.name}>")
    return out


def probe_call(policy, name, arguments=None, **options):
    """The probe, on a call whose required arguments are all given (see :func:`full`)."""
    return probe_exactly(policy, name, full(name, arguments), **options)


class RecordingFS(HostFS):
    """This host's filesystem, remembering every path it was asked about."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.listed: list[str] = []

    def realpath(self, path: str) -> str:
        self.asked.append(path)
        return super().realpath(path)

    def lstat(self, path: str):
        self.asked.append(path)
        return super().lstat(path)

    def stat(self, path: str):
        self.asked.append(path)
        return super().stat(path)

    def listdir(self, path: str) -> list[str]:
        self.asked.append(path)
        self.listed.append(path)
        return super().listdir(path)

    def readlink(self, path: str) -> str:
        self.asked.append(path)
        return super().readlink(path)


def snapshot(base: Path) -> list[tuple[str, bool, int, int]]:
    """Every entry under ``base`` with its kind, size and mtime, not following links."""
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            out.append((os.path.relpath(p, base), os.path.islink(p), st.st_size, st.st_mtime_ns))
    return sorted(out)


def recorded_policy(layout: Layout, transport: str = "stdio", **settings: str):
    fs = RecordingFS()
    policy = resolve_policy(
        load_env(None, overrides={"HOME": str(layout.home), **settings}),
        transport=transport, fs=fs, cwd=str(layout.app), package_dir=str(layout.app),
    )
    fs.asked.clear()
    return policy, fs


def verdict_paths(verdict) -> dict[str, tuple[bool, str]]:
    return {p.path: (p.allowed, p.op) for p in verdict.paths}


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
    for extra, words in (({"direction": "sideways"}, "invalid direction"),
                         ({"export_format": "gif"}, "unknown export_format"),
                         ({"resolve": {"a.md": "keep_both"}}, "invalid resolve")):
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


# --- images ---------------------------------------------------------------------------------


def test_extract_image_sources_follows_content_format() -> None:
    text = (
        "![a](pics/one.png) ![ref][r] <img alt='x' src='two.png'> "
        "![remote](https://example.com/x.png) ![d](drive:abc123) ![u](HTTP://x/y.png) "
        "![inline](data:image/png;base64,AAAA) ![f](file:///srv/pic.png) [not](image.png)"
        "\n\n[r]: ref.png\n\n    ![code](in-block.png)\n\n`![span](in-span.png)`\n\n"
        "| a |\n|---|\n| ![t](in-table.png) |\n"
    )
    # Markdown: rendered first, so reference images count and code doesn't; only
    # http(s):// (as spelled) and drive: are not local paths; table images are dropped.
    assert extract_image_sources(text, "markdown") == [
        "pics/one.png", "ref.png", "two.png", "HTTP://x/y.png",
        "data:image/png;base64,AAAA", "file:///srv/pic.png",
    ]
    # HTML: only <img> tags, outside tables and <pre>.
    html = ("<p><img src='a.png'> ![md](b.png)</p><pre><img src='c.png'></pre>"
            "<table><tr><td><img src='d.png'></td></tr></table><IMG SRC=\"e&amp;f.png\">")
    assert extract_image_sources(html, "html") == ["a.png", "e&f.png"]


def test_a_refused_image_fails_that_image_and_the_doc_is_still_written(layout: Layout) -> None:
    policy = layout.roots()
    good, bad = str(layout.data / "report.csv"), str(layout.outside / "other.txt")
    content = f"# Title\n![ok]({good})\n<img src=\"{bad}\">\n![web](https://example.com/p.png)"
    v = probe_call(policy, "create_doc", {"title": "T", "content": content,
                                          "content_format": "markdown"})
    assert v.outcome == "partial" and v.message == ""
    images = [(p.path, p.allowed, p.kind, p.step) for p in v.paths if p.kind == "image"]
    assert images == [(good, True, "image", None), (bad, False, "image", "failed")]


def test_images_only_remote_is_ok(layout: Layout) -> None:
    v = probe_call(layout.roots(), "write_doc_content",
                   {"doc_id": "D", "content": "![w](https://example.com/a.png)"})
    assert v.outcome == "ok" and not [p for p in v.paths if p.kind == "image"]


def test_local_images_in_off_mode_fail_per_image_without_touching_disk(layout: Layout) -> None:
    policy, fs = recorded_policy(layout, LOCAL_FILE_ACCESS="off")
    v = probe_call(policy, "create_doc", {"title": "T", "content": "![a](data/report.csv)",
                                          "content_format": "markdown"})
    assert v.outcome == "partial" and v.visible
    assert v.paths[0].message == OFF_EXPLICIT
    assert fs.asked == []


def test_images_inside_a_source_file_are_noted(layout: Layout) -> None:
    (layout.data / "doc.md").write_text("# x")
    v = probe_call(layout.roots(), "create_doc_from_file",
                   {"local_path": str(layout.data / "doc.md")})
    assert v.outcome == "ok"
    assert any("images inside the file" in n for n in v.notes)
    # The tool's own checks of the file it reads come after the path check.
    v = probe_call(layout.roots(), "create_doc_from_file",
                   {"local_path": str(layout.data / "report.csv")})
    assert v.outcome == "error" and "unsupported file extension '.csv'" in v.message
    assert [p.allowed for p in v.paths] == [True]


def test_insert_local_images_fails_per_image_after_its_own_checks(layout: Layout) -> None:
    policy = layout.roots()
    good, bad = str(layout.data / "report.csv"), str(layout.outside / "other.txt")
    images = [{"marker": "A", "local_path": good}, {"local_path": bad},
              {"marker": "C", "local_path": bad}, {"marker": "D"}]
    v = probe_call(policy, "insert_local_images", {"images": images, "folder_id": "F"})
    # The image without a marker fails without a check; a refusal fails its image only.
    assert [(p.argument, p.allowed) for p in v.paths] == [
        ("images[0].local_path", True), ("images[2].local_path", False)]
    assert v.outcome == "partial"
    # Argument errors of the tool's own come before any path check.
    v = probe_call(policy, "insert_local_images", {"images": images})
    assert (v.outcome, v.paths) == ("error", []) and "folder_id" in v.message
    assert probe_call(policy, "insert_local_images", {"images": images, "folder_id": "F"},
                      ).outcome == "partial"
    env_folder = layout.roots(DRIVE_FOLDER_ID="F0")
    assert probe_call(env_folder, "insert_local_images", {"images": images}).outcome == "partial"
    v = probe_call(policy, "insert_local_images", {"images": [], "folder_id": "F"})
    assert v.outcome == "error" and "empty" in v.message


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


# --- folder walks (§6, §11) ------------------------------------------------------------------


@pytest.fixture
def walked(layout: Layout) -> Layout:
    """The data root with an escaping symlink beside ordinary files."""
    (layout.data / "escape.txt").symlink_to(layout.outside / "other.txt")
    (layout.data / "inner.txt").symlink_to(layout.data / "report.csv")
    return layout


def test_upload_folder_takes_only_its_top_level_files(walked: Layout) -> None:
    (walked.data / ".DS_Store").write_text("x")
    (walked.data / ".gee-sweet-partial-0123456789abcdef").write_text("x")
    policy = walked.roots()
    v = probe_call(policy, "upload_local_folder",
                   {"local_path": str(walked.data), "parent_folder_id": "F"})
    assert v.outcome == "partial" and v.message == ""
    entries = [(p.path, p.allowed, p.step) for p in v.paths if p.kind == "entry"]
    d = str(walked.data)
    # Regular files only, sorted, system and temporary files left out; no descent.
    assert entries == [
        (f"{d}/escape.txt", False, "failed"),
        (f"{d}/inner.txt", True, None),
        (f"{d}/report.csv", True, None),
    ]
    v = probe_call(policy, "upload_local_folder",
                   {"local_path": str(walked.data), "parent_folder_id": "F",
                    "skip_system_files": False}, drive_names=["report.csv"])
    # Without the system-file skip .DS_Store is checked; a name already in the Drive
    # folder is skipped (skip_if_exists) before any check.
    assert [Path(p.path).name for p in v.paths if p.kind == "entry"] == [
        ".DS_Store", "escape.txt", "inner.txt"]


def test_upload_folder_checks_files_under_the_folders_resolved_path(layout: Layout) -> None:
    (layout.data / "link").symlink_to(layout.data / "sub")
    v = probe_call(layout.roots(), "upload_local_folder",
                   {"local_path": str(layout.data / "link"), "parent_folder_id": "F"})
    assert [p.path for p in v.paths] == [str(layout.data / "link"),
                                         str(layout.data / "sub" / "notes.txt")]
    v = probe_call(layout.roots(), "upload_local_folder",
                   {"local_path": str(layout.data / "report.csv")})
    assert v.outcome == "error" and "no directory found" in v.message


@pytest.mark.parametrize("dry_run", [False, True])
def test_sync_upload_with_an_escaping_symlink(walked: Layout, dry_run: bool) -> None:
    v = probe_call(walked.roots(), "sync_folder",
                   {"local_path": str(walked.data), "folder_id": "F", "direction": "upload",
                    "dry_run": dry_run, "recursive": True})
    assert v.outcome == "partial"
    failed = [(p.path, p.step, p.op) for p in v.paths if not p.allowed]
    assert failed == [(str(walked.data / "escape.txt"), "local_read_fail", "read")]
    assert sum(p.allowed for p in v.paths if p.kind == "entry") == 4
    assert any("dry run" in n for n in v.notes) == dry_run


def test_download_folder_checks_each_drive_file_and_skips_subfolders(walked: Layout) -> None:
    v = probe_call(walked.roots(), "download_folder",
                   {"folder_id": "F", "local_path": str(walked.data)},
                   drive_names=["report.csv", "escape.txt", "sub/new.txt", "new.bin"])
    assert v.outcome == "partial"
    got = [(p.path, p.allowed, p.op) for p in v.paths if p.kind == "entry"]
    d = str(walked.data)
    # In the Drive listing's order; the subfolder is never entered. An existing file is
    # checked first, then skipped (skip_if_exists).
    assert got == [
        (f"{d}/report.csv", True, "write"),
        (f"{d}/escape.txt", False, "write"),
        (f"{d}/new.bin", True, "write"),
    ]
    assert any("subfolder" in n and "never enters" in n for n in v.notes)
    v = probe_call(walked.roots(), "download_folder",
                   {"folder_id": "F", "local_path": str(walked.data / "report.csv")},
                   drive_names=["x.txt"])
    assert v.outcome == "error" and len(v.paths) == 1  # a file where the folder goes


def test_a_symlinked_folder_outside_the_root_is_not_descended(layout: Layout) -> None:
    (layout.data / "elsewhere").symlink_to(layout.outside)
    v = probe_call(layout.roots(), "sync_folder",
                   {"local_path": str(layout.data), "direction": "upload", "recursive": True})
    refused = [p.path for p in v.paths if not p.allowed]
    assert refused == [str(layout.data / "elsewhere")]
    assert not any("other.txt" in p.path for p in v.paths)
    assert v.outcome == "partial"
    # upload_local_folder never looks into a folder at all.
    v = probe_call(layout.roots(), "upload_local_folder", {"local_path": str(layout.data)})
    assert [p.path for p in v.paths if p.kind == "entry"] == [str(layout.data / "report.csv")]


def test_walked_paths_keep_the_callers_spelling(layout: Layout) -> None:
    policy = layout.policy(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=str(layout.data))
    v = probe_call(policy, "sync_folder", {"local_path": "../data/./sub/",
                                           "direction": "upload"})
    assert [p.path for p in v.paths] == ["../data/./sub/", "../data/sub/notes.txt"]
    assert v.paths[1].resolved == str(layout.data / "sub" / "notes.txt")


def test_a_refused_root_is_not_walked(layout: Layout) -> None:
    policy, fs = recorded_policy(layout, LOCAL_FILE_ACCESS="roots",
                                 LOCAL_FILE_ROOTS=str(layout.data))
    v = probe_call(policy, "upload_local_folder", {"local_path": str(layout.outside)})
    assert v.outcome == "refused" and len(v.paths) == 1
    assert fs.listed == []
    assert not any(a.startswith(str(layout.outside) + "/") for a in fs.asked)


def test_walks_are_bounded_and_say_so(layout: Layout) -> None:
    for i in range(5):
        (layout.data / f"f{i}.txt").write_text("x")
    v = probe_call(layout.roots(), "upload_local_folder", {"local_path": str(layout.data)},
                   walk_limit=3)
    assert len([p for p in v.paths if p.kind == "entry"]) == 3
    assert any("stopped after 3 entries" in n for n in v.notes)


def test_a_symlink_loop_inside_the_root_ends(layout: Layout) -> None:
    (layout.data / "sub" / "up").symlink_to(layout.data)
    v = probe_call(layout.roots(), "sync_folder",
                   {"local_path": str(layout.data), "direction": "upload", "recursive": True})
    assert v.outcome == "ok"
    assert any("already walked" in n for n in v.notes)
    assert len(v.paths) < 10


# --- sync_folder's direction table ("As implemented") ----------------------------------------


@pytest.fixture
def sync_tree(layout: Layout) -> Layout:
    """data holds both.txt and local_only.txt; the Drive side has both.txt and drive_only."""
    (layout.data / "both.txt").write_text("b")
    (layout.data / "local_only.txt").write_text("l")
    return layout


DRIVE = ["both.txt", "drive_only.txt"]


@pytest.mark.parametrize(
    ("direction", "root_op", "expected", "skipped"),
    [
        ("upload", "read", {"both.txt": "read", "local_only.txt": "read"}, "drive_only.txt"),
        ("download", "write", {"both.txt": "write", "drive_only.txt": "write"},
         "local_only.txt"),
        ("bidirectional", "read_write",
         {"both.txt": "read_write", "local_only.txt": "read", "drive_only.txt": "write"}, None),
    ],
)
def test_sync_direction_table(
    sync_tree: Layout, direction: str, root_op: str, expected: dict, skipped: str | None
) -> None:
    # Keep only the three names of interest in the folder.
    (sync_tree.data / "report.csv").unlink()
    (sync_tree.data / "sub" / "notes.txt").unlink()
    (sync_tree.data / "sub").rmdir()
    v = probe_call(sync_tree.roots(), "sync_folder",
                   {"local_path": str(sync_tree.data), "direction": direction},
                   drive_names=DRIVE)
    root = v.paths[0]
    assert (root.kind, root.op) == ("root", root_op)
    got = {Path(p.path).name: p.op for p in v.paths if p.kind == "entry"}
    assert got == expected
    assert v.outcome == "ok"
    if skipped:
        assert any(skipped in n and "skipped unchecked" in n for n in v.notes)


def test_a_drive_only_file_is_checked_where_it_would_be_written(layout: Layout) -> None:
    """A Drive file named like a token that doesn't exist yet can't plant it."""
    token = layout.data / "token.json"
    policy = layout.roots(TOKEN_PATH=str(token))
    assert not token.exists()
    v = probe_call(policy, "sync_folder",
                   {"local_path": str(layout.data), "direction": "download"},
                   drive_names=["token.json", "ok.txt"])
    assert v.outcome == "partial"
    bad = [p for p in v.paths if not p.allowed]
    assert [(p.path, p.reason, p.step) for p in bad] == [
        (str(token), "denied", "local_read_fail")]
    assert bad[0].message == DENIED.format(path=str(token), verb="written")


def test_bidirectional_both_sides_entry_says_read_or_written(layout: Layout) -> None:
    policy = layout.policy()  # full mode: only the deny-list refuses
    token = str(layout.app / "token.json")
    v = probe_call(policy, "sync_folder",
                   {"local_path": str(layout.app), "direction": "bidirectional"},
                   drive_names=["token.json"])
    bad = {p.path: p for p in v.paths if not p.allowed}
    # token.json is on both sides; .env and credentials.json are local-only (read).
    assert {path: p.op for path, p in bad.items()} == {
        token: "read_write",
        str(layout.app / ".env"): "read",
        str(layout.app / "credentials.json"): "read",
    }
    assert bad[token].message.endswith("can't be read or written by a tool")
    assert bad[token].step == "local_read_fail"
    assert bad[str(layout.app / ".env")].message.endswith("can't be read by a tool")


def test_sync_root_is_a_both_sides_entry(layout: Layout) -> None:
    policy = layout.policy()
    v = probe_call(policy, "sync_folder", {"local_path": str(layout.app / "token.json"),
                                           "direction": "bidirectional"})
    assert v.outcome == "refused" and v.paths[0].op == "read_write"
    assert v.message.endswith("can't be read or written by a tool")


def test_unknown_direction_and_assumed_default(layout: Layout) -> None:
    policy = layout.roots()
    bad = probe_call(policy, "sync_folder", {"local_path": str(layout.data), "direction": "up"})
    assert bad.outcome == "error" and "'up'" in bad.message
    default = probe_call(policy, "sync_folder", {"local_path": str(layout.data)})
    # The default is the server's own (from its schema), not a guess.
    assert default.paths[0].op == "read_write"
    assert not any("assuming" in n for n in default.notes)


def test_a_drive_only_folder_is_created_under_the_root(layout: Layout) -> None:
    (layout.data / "linkdir").symlink_to(layout.outside)
    v = probe_call(layout.roots(), "sync_folder",
                   {"local_path": str(layout.data), "direction": "download", "recursive": True},
                   drive_names=["newdir/a.txt", "linkdir/b.txt"])
    got = {p.path: p.allowed for p in v.paths if p.kind == "entry"}
    assert got[str(layout.data / "newdir" / "a.txt")] is True
    # The local symlinked folder is refused as a whole and not entered.
    assert got[str(layout.data / "linkdir")] is False
    assert str(layout.data / "linkdir" / "b.txt") not in got


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


# --- many calls ---------------------------------------------------------------------------------


def test_probe_calls_one_row_per_path(layout: Layout) -> None:
    pytest.importorskip("pandas")
    policy = layout.roots()
    calls = [
        {"name": "export_file", "arguments": {"file_id": "F", "export_format": "pdf"}},
        {"name": "send_message", "arguments": {
            "to": "a@example.com", "subject": "S", "body": "B", "attachments": [
            {"local_path": str(layout.data / "report.csv")},
            {"local_path": str(layout.outside / "other.txt")},
        ]}},
        {"jsonrpc": "2.0", "method": "tools/call",
         "params": {"name": "download_file",
                    "arguments": {"file_id": "F", "local_path": str(layout.data / "x")}}},
        "not a call",
    ]
    df = probe_calls(policy, calls)
    assert list(df.columns) == list(COLUMNS)
    assert df.groupby("call").size().to_dict() == {0: 1, 1: 2, 2: 1, 3: 1}
    assert df.loc[df.call == 0, "path"].isna().all()
    outcomes = df.drop_duplicates("call").set_index("call")["outcome"].to_dict()
    assert outcomes == {0: "ok", 1: "refused", 2: "ok", 3: "error"}
    row = df[(df.call == 1) & (df.allowed == False)].iloc[0]  # noqa: E712
    assert row.reason == "outside_roots" and row.path_message == row.message


def test_jsonl_with_a_malformed_line(layout: Layout, tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    lines = [
        json.dumps({"name": "get_message", "arguments": {"message_id": "M"}}),
        "{not json",
        "",
        json.dumps({"name": "download_file", "arguments": "oops"}),
        json.dumps({"name": "sync_folder",
                    "arguments": {"folder_id": "F", "local_path": str(layout.data),
                                  "direction": "download"},
                    "drive_names": ["a.txt"]}),
    ]
    calls = tmp_path / "calls.jsonl"
    calls.write_bytes(("\n".join(lines) + "\n").encode() + b"\xff\xfe{}\n")
    df = probe_calls(layout.roots(), calls)
    first = df.drop_duplicates("call").set_index("line")
    assert first.loc[1, "outcome"] == "ok"
    assert first.loc[2, "outcome"] == "error"
    assert first.loc[2, "message"].startswith(f"{calls}:2: not valid JSON")
    assert first.loc[4, "outcome"] == "error"
    assert first.loc[4, "message"] == f"{calls}:4: download_file: 'arguments' must be an object"
    assert first.loc[5, "outcome"] == "ok"
    assert first.loc[6, "message"] == f"{calls}:6: not UTF-8 text"
    sync_rows = df[df.line == 5]
    assert str(layout.data / "a.txt") in set(sync_rows.path)


def test_iter_call_verdicts_and_json_shape(layout: Layout) -> None:
    verdicts = list(iter_call_verdicts(layout.roots(), [
        {"name": "download_file",
         "arguments": {"file_id": "F", "local_path": str(layout.outside / "x")}},
    ]))
    data = verdicts[0].to_json_dict()
    assert {"name", "registered", "visible", "gate", "outcome", "message", "paths"} <= set(data)
    assert data["index"] == 0 and data["outcome"] == "refused"
    assert {"argument", "path", "resolved", "op", "tier", "allowed", "reason",
            "message"} <= set(data["paths"][0])
    json.dumps(data)  # JSON-ready


def test_an_unreadable_calls_file_is_a_clear_error(layout: Layout, tmp_path: Path) -> None:
    with pytest.raises(ProbeError, match=r"missing\.jsonl: can.t be read"):
        list(iter_call_verdicts(layout.roots(), tmp_path / "missing.jsonl"))


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


def test_verdicts_are_plain_frozen_records(layout: Layout) -> None:
    import dataclasses

    from localfs_explorer.probe import CallVerdict, PathVerdict

    policy = layout.roots()
    v = probe_call(policy, "send_message", {"attachments": [
        {"local_path": str(layout.data / "report.csv")},
        {"local_path": str(layout.app / "token.json")},
    ]})
    assert v.outcome == "refused" and len(v.paths) == 2
    for p in v.paths:
        again = PathVerdict(**p.to_json_dict())
        assert p == again and hash(p) == hash(again)
        assert not hasattr(p, "__dict__")  # slotted: cheap to build one per path
    assert v == CallVerdict(**{f.name: getattr(v, f.name) for f in dataclasses.fields(v)})
    assert dataclasses.replace(v, index=4).index == 4 and v.index is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.paths[0].allowed = True  # type: ignore[misc]


def test_batches_number_their_calls(layout: Layout, tmp_path: Path) -> None:
    calls = tmp_path / "calls.jsonl"
    calls.write_text("\n".join([
        json.dumps({"name": "export_file",
                    "arguments": {"file_id": "F", "export_format": "pdf"}}),
        "",
        json.dumps({"name": "download_file",
                    "arguments": {"file_id": "F", "local_path": str(layout.outside / "x")}}),
    ]) + "\n")
    got = [(v.index, v.line, v.outcome) for v in iter_call_verdicts(layout.roots(), calls)]
    assert got == [(0, 1, "ok"), (1, 3, "refused")]
    single = probe_call(layout.roots(), "export_file", {"file_id": "F"})
    assert single.index is None and single.line is None


@pytest.mark.parametrize("parent", [".", "/", "//", "a", "/data", "/data/sub", "../x", "a/b"])
def test_walked_names_are_joined_the_way_pathlib_joins_them(parent: str) -> None:
    from localfs_explorer.probe import _prefix, _spelled, _walked

    for name in ("f.txt", ".env", "sub dir"):
        assert _walked(parent, name) == str(Path(parent) / name)
        assert _prefix(_spelled(parent)) + name == str(Path(parent) / name)


@pytest.mark.parametrize("tool", ["sync_folder", "download_folder"])
def test_drive_names_that_climb_out_are_skipped_unchecked(layout: Layout, tool: str) -> None:
    # A Drive name such as ../token.json is the server's unsafe-name skip: planned, never
    # mapped to a local path, so it is neither checked nor written.
    dest = layout.data / "reports"
    dest.mkdir()
    arguments = {"local_path": str(dest)}
    if tool == "sync_folder":
        arguments["direction"] = "download"
    v = probe_call(layout.policy(), tool, arguments,
                   drive_names=["../token.json", "a/../../x.txt", "ok.txt"])
    walked = [p.path for p in v.paths if p.kind == "entry"]
    assert walked == [str(dest / "ok.txt")]
    assert not any(".." in p.path for p in v.paths)
    assert any("../token.json" in note and "unsafe" in note for note in v.notes)
    assert v.outcome == "ok"


def test_plain_markdown_images_are_read_exactly_as_rendering_reads_them() -> None:
    """The shortcut that skips the Markdown renderer gives the renderer's answer or none."""
    import random

    from localfs_explorer.probe import _image_sources, _markdown_to_html, _plain_markdown_images

    pieces = ["![a](x.png)", "![b c](d/e.png)", "![](f.png)", "text", " ", "\n", "\n\n",
              "# ", "    ", "- ", "1. ", "`", "<img src='g.png'>", "[r]: h.png", "![r][r]",
              "\\", "&amp;", "|", "![t](i.png \"t\")", "*", "_", "(", ")", "!", "---", "\t",
              "![p](j(1).png)", "~~~", "> ", "![w](https://k/l.png)", "![d](drive:m)"]
    rng = random.Random(5)
    shortcuts = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        plain = _plain_markdown_images(text)
        if plain is None:
            continue
        shortcuts += 1
        rendered = _image_sources.__wrapped__(_markdown_to_html(text), False)
        local = tuple(src for src in plain if not src.startswith(("https://", "drive:")))
        assert local == rendered, text
    assert shortcuts > 300  # the shortcut is taken, and checked, often


@given(st.lists(st.sampled_from(["a", ".", "/", "x", "tar", "gz", " ", "..", "é", "~"]),
                max_size=8).map("".join))
@example("a.txt/")
@example("a/b.txt/.")
@example(".bashrc")
@example("a.")
def test_the_extension_check_reads_suffixes_the_way_pathlib_does(path: str) -> None:
    from pathlib import PurePosixPath

    from localfs_explorer.probe import _suffix

    assert _suffix(path) == PurePosixPath(path).suffix
