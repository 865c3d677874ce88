"""Registration (design §7): off mode drops the nine local-only tools; ENABLED_TOOLS narrows."""

from __future__ import annotations

import pytest

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.catalog import load_catalog
from localfs_explorer.servers.gee_sweet.registration import parse_enabled_tools, register_tools

CATALOG = load_catalog()
LOCAL_ONLY = [
    "sync_folder", "upload_local_file", "upload_local_folder", "download_folder",
    "insert_local_images", "create_doc_from_file", "update_doc_from_file", "download_file",
    "import_csv_to_sheet",
]


def policy(transport: str = "stdio", **settings: str):
    return resolve_policy(load_env(None, overrides=settings), transport=transport, cwd="/")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("", None),
        (" , ,", None),
        ("sync_folder", {"sync_folder"}),
        (" get_message ,sync_folder,, send_message ", {"get_message", "sync_folder",
                                                       "send_message"}),
        ("Sync_Folder", {"Sync_Folder"}),  # names match exactly, as the server compares them
    ],
)
def test_parse_enabled_tools(value: str | None, expected: set[str] | None) -> None:
    assert parse_enabled_tools(value) == expected


@pytest.mark.parametrize(
    ("transport", "settings"),
    [
        ("stdio", {"LOCAL_FILE_ACCESS": "off"}),
        ("sse", {}),  # defaulted off for a network transport
        ("streamable-http", {}),
        ("stdio", {"LOCAL_FILE_ACCESS": "sometimes"}),  # invalid: fail-safe off
    ],
)
def test_off_mode_drops_exactly_the_nine(transport: str, settings: dict) -> None:
    reg = register_tools(policy(transport, **settings), CATALOG)
    assert reg.mode == "off"
    # In the server's registration order, as its own list of unregistered tools is.
    assert sorted(reg.unregistered) == sorted(LOCAL_ONLY)
    assert reg.unregistered == CATALOG.local_only_names()
    assert set(reg.registered) == set(CATALOG.names()) - set(LOCAL_ONLY)
    assert "get_sheet_data" in reg.registered and "send_message" in reg.registered
    assert reg.not_enabled == [] and reg.warnings == []
    assert not reg.is_registered("sync_folder") and reg.is_registered("create_doc")
    assert "local file access is off" in reg.why_absent("download_file")


@pytest.mark.parametrize(
    ("transport", "settings"),
    [("stdio", {}), ("sse", {"LOCAL_FILE_ACCESS": "full"}),
     ("sse", {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/"})],
)
def test_other_modes_register_everything(transport: str, settings: dict) -> None:
    reg = register_tools(policy(transport, **settings), CATALOG)
    assert reg.registered == CATALOG.names()
    assert reg.unregistered == [] and reg.warnings == []


def test_enabled_tools_narrows_and_warns_about_what_off_mode_dropped() -> None:
    reg = register_tools(
        policy("sse", ENABLED_TOOLS="sync_folder, get_sheet_data,download_file,made_up_tool"),
        CATALOG,
    )
    assert reg.enabled_tools == ["download_file", "get_sheet_data", "made_up_tool",
                                 "sync_folder"]
    assert reg.registered == ["get_sheet_data"]
    assert reg.unregistered == ["download_file", "sync_folder"]  # the server's order
    assert set(reg.not_enabled) == set(CATALOG.names()) - {
        "sync_folder", "get_sheet_data", "download_file"
    }
    assert len(reg.warnings) == 1
    warning = reg.warnings[0]
    assert "sync_folder" in warning and "download_file" in warning
    assert "get_sheet_data" not in warning and "upload_local_file" not in warning
    assert "LOCAL_FILE_ACCESS" in warning
    assert reg.unknown_enabled == ["made_up_tool"]
    assert reg.why_absent("send_message") == "send_message is not in ENABLED_TOOLS"
    assert reg.why_absent("get_sheet_data") is None


def test_no_warning_when_enabled_tools_names_no_local_only_tool() -> None:
    reg = register_tools(policy("sse", ENABLED_TOOLS="get_message,send_message"), CATALOG)
    assert reg.registered == ["get_message", "send_message"]
    assert reg.unregistered == [] and reg.warnings == []


def test_no_warning_when_the_mode_keeps_local_tools() -> None:
    reg = register_tools(policy("stdio", ENABLED_TOOLS="sync_folder"), CATALOG)
    assert reg.registered == ["sync_folder"] and reg.warnings == []


def test_empty_enabled_tools_means_every_tool() -> None:
    reg = register_tools(policy("stdio", ENABLED_TOOLS=" "), CATALOG)
    assert reg.enabled_tools is None and reg.registered == CATALOG.names()


def test_json_shape_for_the_cli() -> None:
    data = register_tools(policy("sse", ENABLED_TOOLS="sync_folder"), CATALOG).to_json_dict()
    assert {"registered", "unregistered", "warnings"} <= set(data)
    assert data["unregistered"] == ["sync_folder"]
