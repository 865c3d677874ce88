"""The shipped catalog matches the server's own tools/list, and bad catalogs fail clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localfs_explorer.catalog import (
    Catalog,
    CatalogError,
    catalog_from_tools_list,
    iter_locations,
    load_catalog,
)

LOCAL_ONLY = {
    "sync_folder", "upload_local_file", "upload_local_folder", "download_folder",
    "insert_local_images", "create_doc_from_file", "update_doc_from_file", "download_file",
    "import_csv_to_sheet",
}
RESPONSE_CAP = {
    "get_sheet_data", "get_multiple_sheet_data", "get_multiple_spreadsheet_summary",
    "find_in_spreadsheet", "get_doc_content", "find_in_doc", "get_doc_as_markdown",
    "get_message", "get_thread", "export_revision",
}
IMAGE_TOOLS = {"create_doc", "write_doc_content", "create_doc_from_file", "update_doc_from_file"}
NO_DISK = {"export_file", "list_revisions", "upload_file"}
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def test_every_tool_touching_local_files_is_described(catalog: Catalog) -> None:
    touching = {t.name for t in catalog.tools if t.touches_disk}
    assert touching == LOCAL_ONLY | RESPONSE_CAP | IMAGE_TOOLS | {"send_message", "create_draft"}
    # The tool list is the server's: far more tools than touch local files.
    assert len(catalog.tools) > 100 and set(catalog.names()) >= NO_DISK


def test_exactly_the_nine_local_only_tools(catalog: Catalog) -> None:
    assert set(catalog.local_only_names()) == LOCAL_ONLY
    assert len(catalog.local_only_names()) == 9


def test_optional_local_paths_are_write_checked_at_entry(catalog: Catalog) -> None:
    at_entry = {
        (t.name, p.location) for t in catalog.tools for p in t.params if p.checked_at_entry
    }
    assert at_entry == {(n, "local_path") for n in RESPONSE_CAP}
    for name in RESPONSE_CAP:
        (param,) = catalog.get(name).params
        assert param.op == "write" and param.optional and param.default_name
    # sync_folder checks result_local_path after the sync root, not at its entry.
    result = next(p for p in catalog.get("sync_folder").params
                  if p.location == "result_local_path")
    assert result.op == "write" and result.optional and not result.checked_at_entry


def test_attachments_are_nested_reads_with_a_base64_alternative(catalog: Catalog) -> None:
    for name in ("send_message", "create_draft"):
        tool = catalog.get(name)
        assert not tool.local_only
        (param,) = tool.params
        assert param.location == "attachments[].local_path"
        assert param.op == "read" and param.optional
        assert tool.alternatives == ("attachments[].content_base64",)


def test_image_parameters(catalog: Catalog) -> None:
    assert {t.name for t in catalog.tools if t.image_params} == IMAGE_TOOLS
    # The *_from_file tools take their Markdown from the file they read.
    assert catalog.get("create_doc_from_file").image_params[0].in_file
    assert not catalog.get("create_doc").image_params[0].in_file


def test_exports_touch_no_disk(catalog: Catalog) -> None:
    for name in NO_DISK:
        tool = catalog.get(name)
        assert tool.touches_disk is False and not tool.params
    assert catalog.get("download_file").touches_disk is True


def test_walking_tools_and_the_sync_direction(catalog: Catalog) -> None:
    assert {t.name for t in catalog.tools if t.walks} == {
        "sync_folder", "upload_local_folder", "download_folder"
    }
    sync = catalog.get("sync_folder")
    root = next(p for p in sync.params if p.location == "local_path")
    assert root.op == "direction"
    assert sync.direction is not None and sync.direction.argument == "direction"
    assert catalog.get("upload_local_folder").params[0].op == "read"
    assert catalog.get("download_folder").params[0].op == "write"


def test_operations_of_the_single_path_tools(catalog: Catalog) -> None:
    ops = {t.name: t.params[0].op for t in catalog.tools if len(t.params) == 1}
    assert ops["download_file"] == "write"
    for name in ("upload_local_file", "import_csv_to_sheet", "create_doc_from_file",
                 "update_doc_from_file", "insert_local_images"):
        assert ops[name] == "read"


def test_nothing_is_assumed_where_the_server_settles_it(catalog: Catalog) -> None:
    assert not [(t.name, p.location) for t in catalog.tools for p in t.params if p.assumed]
    assert not [(t.name, i.location) for t in catalog.tools for i in t.image_params
                if i.assumed]
    sync = catalog.get("sync_folder")
    assert sync.direction.default == "bidirectional" and not sync.direction.assumed
    # Every local path sits on an argument the server declares.
    for tool in catalog.tools:
        declared = {a.name for a in tool.arguments or ()}
        for p in tool.params:
            assert p.argument in declared, (tool.name, p.location)


@pytest.mark.slow
@pytest.mark.real
def test_the_generated_layer_matches_the_pinned_server() -> None:
    """Regenerating server_tools.json from the installed server changes nothing."""
    pytest.importorskip("mcp_gee_sweet")
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "server_tools"), "--check"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def test_destructive_comes_from_the_servers_annotations(catalog: Catalog) -> None:
    for name in ("download_file", "download_folder", "get_sheet_data", "export_revision"):
        assert not catalog.get(name).destructive, name
    for name in ("upload_local_file", "upload_local_folder", "sync_folder", "send_message",
                 "import_csv_to_sheet", "insert_local_images"):
        assert catalog.get(name).destructive, name
    # No annotation saying otherwise: MCP's default (destructive) applies.
    assert catalog.get("freeze").hints.destructiveHint is None
    assert catalog.get("freeze").destructive


def test_argument_validation_names_unknown_missing_and_mistyped(catalog: Catalog) -> None:
    tool = catalog.get("download_file")
    assert tool.argument_error({"file_id": "F", "local_path": "x"}) is None
    message = tool.argument_error({"file_id": "F", "dest": "x"})
    assert "missing required argument 'local_path'" in message
    assert "unknown argument 'dest'" in message
    assert "'local_path' must be string" in tool.argument_error(
        {"file_id": "F", "local_path": 5})
    # Each problem alone, among otherwise valid string arguments, is still reported.
    assert "missing required argument 'local_path'" in tool.argument_error({"file_id": "F"})
    assert "unknown argument 'dest'" in tool.argument_error(
        {"file_id": "F", "local_path": "x", "dest": "y"})
    assert "'file_id' must be string" in tool.argument_error(
        {"file_id": None, "local_path": "x"})
    folder = catalog.get("download_folder")
    assert "'progress_unit' must be one of" in folder.argument_error(
        {"folder_id": "F", "local_path": "x", "progress_unit": "pages"})
    assert folder.argument_error({"folder_id": "F", "local_path": "x",
                                  "progress_unit": "bytes"}) is None


def test_the_local_layer_cannot_drift_from_the_server() -> None:
    from localfs_explorer.catalog import layer_catalog

    server = {"server": "s", "tools": [{"name": "t", "arguments": [
        {"name": "local_path", "required": True}], "annotations": {"readOnlyHint": True}}]}
    ok = layer_catalog(server, {"tools": [{"name": "t", "params": [
        {"location": "local_path", "op": "read"}]}]})
    assert ok.get("t").params[0].op == "read" and not ok.get("t").destructive
    with pytest.raises(CatalogError, match="doesn't list: gone"):
        layer_catalog(server, {"tools": [{"name": "gone"}]})
    with pytest.raises(CatalogError, match="'dest' is not an argument the server declares"):
        layer_catalog(server, {"tools": [{"name": "t", "params": [
            {"location": "dest", "op": "write"}]}]})
    with pytest.raises(CatalogError, match="comes from the server's tools/list"):
        layer_catalog(server, {"tools": [{"name": "t", "destructive": True}]})


def test_get_answers_none_for_an_unknown_tool(catalog: Catalog) -> None:
    assert catalog.get("no_such_tool") is None
    assert "sync_folder" in catalog and "no_such_tool" not in catalog


def test_iter_locations_labels_each_item() -> None:
    args = {
        "attachments": [
            {"local_path": "a.pdf"}, {"content_base64": "AA=="}, "junk", {"local_path": "b"}
        ],
        "local_path": None,
    }
    assert list(iter_locations(args, "attachments[].local_path")) == [
        ("attachments[0].local_path", "a.pdf"), ("attachments[3].local_path", "b")
    ]
    assert list(iter_locations(args, "local_path")) == []  # None means "not given"
    assert list(iter_locations({"paths": ["x", "y"]}, "paths[]")) == [
        ("paths[0]", "x"), ("paths[1]", "y")
    ]
    assert list(iter_locations({"attachments": "nope"}, "attachments[].local_path")) == []


def test_round_trip_through_a_file(tmp_path: Path, catalog: Catalog) -> None:
    target = tmp_path / "mine.json"
    target.write_text(json.dumps(catalog.to_json_dict()))
    again = load_catalog(target)
    assert again.tools == catalog.tools


def test_toml_catalog(tmp_path: Path) -> None:
    pytest.importorskip("tomllib" if __import__("sys").version_info >= (3, 11) else "tomli")
    target = tmp_path / "c.toml"
    target.write_text(
        '[[tools]]\nname = "fetch"\n[[tools.params]]\nlocation = "dest"\nop = "write"\n'
    )
    assert load_catalog(target).get("fetch").params[0].op == "write"


def _tool(**fields: object) -> dict:
    return {"tools": [{"name": "ok_tool"}, {"name": "bad_tool", **fields}]}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (_tool(params=[{"location": "x", "op": "delete"}]), "params[0].op"),
        (_tool(params=[{"location": "a..b", "op": "read"}]), "location 'a..b'"),
        (_tool(local_only=True), "local-only tool needs"),
        (_tool(touches_disk=False, params=[{"location": "p", "op": "read"}]), "touches_disk"),
        (_tool(params=[{"location": "p", "op": "direction"}]), '"direction"'),
        (_tool(params=[{"location": "p", "op": "read", "colour": "red"}]), "colour"),
        (_tool(params=[{"location": "p", "op": "read"}, {"location": "p", "op": "write"}]),
         "listed twice"),
    ],
)
def test_a_bad_entry_is_named(tmp_path: Path, raw: dict, expected: str) -> None:
    target = tmp_path / "cat.json"
    target.write_text(json.dumps(raw))
    with pytest.raises(CatalogError) as err:
        load_catalog(target)
    text = str(err.value)
    assert str(target) in text
    assert "tool 'bad_tool' (tools[1])" in text
    assert expected in text


def test_duplicate_tools_and_unreadable_files(tmp_path: Path) -> None:
    target = tmp_path / "dup.json"
    target.write_text(json.dumps({"tools": [{"name": "a"}, {"name": "a"}]}))
    with pytest.raises(CatalogError, match="'a' is listed twice"):
        load_catalog(target)
    bad = tmp_path / "bad.json"
    bad.write_text('{"tools": [\n  {"name": }\n]}')
    with pytest.raises(CatalogError, match=r"bad\.json: not valid JSON \(line 2"):
        load_catalog(bad)
    with pytest.raises(CatalogError, match="can't be read"):
        load_catalog(tmp_path / "missing.json")
    listed = tmp_path / "list.json"
    listed.write_text("[]")
    with pytest.raises(CatalogError, match="JSON object"):
        load_catalog(listed)


TOOLS_LIST = {
    "tools": [
        {
            "name": "fetch_report",
            "description": "Fetch a report.\nMore text.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "report_id": {"type": "string"},
                    "file_id": {"type": "string"},
                    "output_path": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "source_file": {"type": "string"},
                    "attachments": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "path": {"type": "string"},
                                "mimeType": {"type": "string"},
                            },
                        },
                    },
                    "extra_dirs": {"type": "array", "items": {"type": "string"}},
                    "options": {
                        "type": "object",
                        "properties": {"cacheDir": {"type": "string"}},
                        "required": ["cacheDir"],
                    },
                    "count": {"type": "integer"},
                },
                "required": ["source_file"],
            },
        },
        {"name": "download_thing", "inputSchema": {"properties": {"file": {"type": "string"}}}},
        {"name": "no_schema"},
    ]
}


def test_tools_list_infers_path_parameters() -> None:
    cat = catalog_from_tools_list(TOOLS_LIST)
    tool = cat.get("fetch_report")
    assert tool.guessed and tool.description == "Fetch a report."
    params = {p.location: p for p in tool.params}
    assert set(params) == {
        "output_path", "source_file", "attachments[].path", "extra_dirs[]", "options.cacheDir"
    }
    assert all(p.guessed for p in params.values())
    assert params["output_path"].op == "write" and params["output_path"].optional
    assert params["source_file"].op == "read" and not params["source_file"].optional
    assert params["attachments[].path"].optional
    assert params["extra_dirs[]"].walks
    # Nested under an optional object, a required key is still optional for the call.
    assert params["options.cacheDir"].optional
    # A tool whose name says it downloads writes its path.
    assert cat.get("download_thing").params[0].op == "write"
    assert cat.get("no_schema").params == ()
    assert not any(t.local_only for t in cat.tools)


def test_tools_list_accepts_a_json_rpc_response_and_a_saved_file(tmp_path: Path) -> None:
    wrapped = {"jsonrpc": "2.0", "id": 1, "result": TOOLS_LIST}
    assert catalog_from_tools_list(wrapped).names() == ["fetch_report", "download_thing",
                                                        "no_schema"]
    saved = tmp_path / "tools.json"
    saved.write_text(json.dumps(TOOLS_LIST))
    assert load_catalog(saved).get("fetch_report").guessed


def test_tools_list_errors_name_the_entry() -> None:
    with pytest.raises(CatalogError, match="expected a 'tools' list"):
        catalog_from_tools_list({"nope": 1})
    with pytest.raises(CatalogError, match=r"tools\[1\]: each tool needs a 'name'"):
        catalog_from_tools_list({"tools": [{"name": "a"}, {"inputSchema": {}}]})
    with pytest.raises(CatalogError, match="tool 'a': inputSchema is not an object"):
        catalog_from_tools_list([{"name": "a", "inputSchema": "x"}])
