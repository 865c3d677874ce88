"""server://auth-status: the local_file_access object, as the server reports it (spec §9)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.servers.gee_sweet.auth_status import (
    BRANCHES,
    AuthStatusError,
    auth_status_json,
    auth_status_preview,
    local_file_access,
)

LOCAL_ONLY = [
    "sync_folder",
    "upload_local_file",
    "upload_local_folder",
    "download_folder",
    "insert_local_images",
    "create_doc_from_file",
    "update_doc_from_file",
    "download_file",
    "import_csv_to_sheet",
]

KEYS = {"mode", "explicit", "roots", "unregistered_tools"}


def policy_for(transport: str = "stdio", **settings: str):
    return resolve_policy(load_env(None, overrides=settings), transport=transport)


def fake_registration(*names: str) -> SimpleNamespace:
    return SimpleNamespace(registered=[], unregistered=list(names), warnings=[])


def test_roots_mode_reports_the_configured_spellings(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "exports").mkdir()
    # Spelled with a trailing slash and a '..' hop: the object shows them as configured,
    # not resolved, because that is the spelling the refusal message lists too.
    spelled = [f"{tmp_path}/data/", f"{tmp_path}/exports/../exports"]
    policy = policy_for(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=":".join(spelled))
    # A registration with names in it must not leak into a mode other than off.
    obj = local_file_access(policy, fake_registration("sync_folder"))
    assert obj == {"mode": "roots", "explicit": True, "roots": spelled,
                   "unregistered_tools": []}


def test_full_mode_shows_no_roots_even_when_roots_are_set(tmp_path: Path) -> None:
    policy = policy_for(LOCAL_FILE_ACCESS="full", LOCAL_FILE_ROOTS=str(tmp_path))
    assert local_file_access(policy, fake_registration("sync_folder")) == {
        "mode": "full", "explicit": True, "roots": [], "unregistered_tools": []}


def test_defaulted_full_under_stdio_is_not_explicit() -> None:
    obj = local_file_access(policy_for("stdio"))
    assert obj["mode"] == "full" and obj["explicit"] is False


def test_off_mode_lists_what_the_registration_dropped() -> None:
    policy = policy_for("sse")
    obj = local_file_access(policy, fake_registration("download_file", "sync_folder"))
    assert obj == {"mode": "off", "explicit": False, "roots": [],
                   "unregistered_tools": ["download_file", "sync_folder"]}


def test_off_mode_without_a_registration_uses_the_catalog() -> None:
    obj = local_file_access(policy_for("streamable-http"))
    assert sorted(obj["unregistered_tools"]) == sorted(LOCAL_ONLY)


def test_enabled_tools_narrows_the_unregistered_list() -> None:
    policy = policy_for(LOCAL_FILE_ACCESS="off",
                        ENABLED_TOOLS="sync_folder,get_doc_content,download_file")
    obj = local_file_access(policy)
    assert obj["explicit"] is True
    assert sorted(obj["unregistered_tools"]) == ["download_file", "sync_folder"]


def test_an_invalid_configuration_reports_the_fail_safe_off(tmp_path: Path) -> None:
    policy = policy_for(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=str(tmp_path / "missing"))
    obj = local_file_access(policy)
    assert obj["mode"] == "off" and obj["roots"] == []
    assert sorted(obj["unregistered_tools"]) == sorted(LOCAL_ONLY)


def test_the_object_has_exactly_the_four_fields() -> None:
    for policy in (policy_for("stdio"), policy_for("sse")):
        assert set(local_file_access(policy)) == KEYS


def test_the_preview_is_identical_in_every_branch(tmp_path: Path) -> None:
    policy = policy_for(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=str(tmp_path))
    objects = [auth_status_preview(policy, branch)["local_file_access"]
               for branch in (*BRANCHES, None)]
    assert all(obj == objects[0] for obj in objects)
    assert objects[0]["roots"] == [str(tmp_path)]


def test_the_preview_says_what_is_not_modelled_and_is_valid_json() -> None:
    text = auth_status_json(policy_for("sse"), "service_account",
                            registration=fake_registration("sync_folder"))
    data = json.loads(text)
    assert set(data) == {"local_file_access", "_preview"}
    assert data["local_file_access"]["unregistered_tools"] == ["sync_folder"]
    assert data["_preview"]["branch"] == "service_account"
    assert "not modelled" in data["_preview"]["not_modelled"]
    assert data["_preview"]["local_file_access_identical_in"] == list(BRANCHES)


def test_an_unknown_branch_is_a_clear_error() -> None:
    with pytest.raises(AuthStatusError, match="unknown auth-status branch 'admin'"):
        auth_status_preview(policy_for(), "admin")


def test_unregistered_tools_are_sorted_as_the_server_reports_them() -> None:
    # The catalog lists sync_folder before download_file; the server sorts the names.
    obj = local_file_access(policy_for("sse"), fake_registration("sync_folder", "download_file"))
    assert obj["unregistered_tools"] == ["download_file", "sync_folder"]
