"""DesktopCommanderMCP through the seam: registry, catalog, tool calls, findings,
exposure scope and status, without the real server (test_dc_live asks it)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from localfs_explorer.envfile.load import load_env
from localfs_explorer.fs import HostFS
from localfs_explorer.server import Setup, get_server, list_servers
from localfs_explorer.servers.desktop_commander.findings import findings
from localfs_explorer.servers.desktop_commander.tools import load_tools

SERVER = get_server("desktop-commander")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = Path(os.path.realpath(tmp_path))
    for d in ("data", "Data", "outside", "home/.claude-server-commander", "work"):
        (r / d).mkdir(parents=True)
    (r / "data/f.txt").write_text("x")
    os.symlink("data", r / "link")
    return r


def resolve(root: Path, settings: dict | None = None, **options: object):
    if settings is not None:
        (root / "home/.claude-server-commander/config.json").write_text(json.dumps(settings))
    return SERVER.resolve(Setup(env=load_env(None), fs=HostFS(), base_dir=str(root),
                                cwd=str(root / "work"),
                                options=SERVER.options({"home": str(root / "home"),
                                                        **options})))


def test_registered_by_its_id() -> None:
    assert "desktop-commander" in list_servers() and SERVER.versions == ("0.2.52",)


def test_catalog_marks_the_checked_arguments() -> None:
    catalog = SERVER.catalog()
    assert len(catalog.tools) == len(load_tools()) == 26
    by_name = {t.name: t for t in catalog.tools}
    assert [p.location for p in by_name["move_file"].params] == ["source", "destination"]
    assert by_name["read_multiple_files"].params[0].fails_call is False
    assert by_name["get_config"].params == () and by_name["start_process"].touches_disk
    assert by_name["read_file"].hints is not None and by_name["read_file"].hints.openWorldHint


def test_calls_answer_as_its_tools_do(root: Path) -> None:
    policy = resolve(root, allowed_directories=(str(root / "data"),))
    refused = SERVER.answer_call(policy, "move_file", {"source": str(root / "data/f.txt"),
                                                       "destination": "/etc/x"})
    assert refused is not None and refused.outcome == "refused"
    assert refused.message == ("Error: Path not allowed: /etc/x. Must be within one of "
                               f"these directories: {root}/data")
    assert [c.argument for c in refused.checks] == ["source", "destination"]
    many = SERVER.answer_call(policy, "read_multiple_files",
                              {"paths": [str(root / "data/f.txt"), "/etc/passwd"]})
    assert many is not None and many.outcome == "partial"
    assert many.message == ("/etc/passwd: Error - Path not allowed: /etc/passwd. Must be "
                            f"within one of these directories: {root}/data")
    assert [c.step for c in many.checks] == ["item_error", "item_error"]
    shell = SERVER.answer_call(policy, "start_process", {"command": "cat /etc/passwd"})
    assert shell is not None and shell.outcome == "ok" and shell.checks == ()
    url = SERVER.answer_call(policy, "read_file", {"path": "/etc/passwd", "isUrl": True})
    assert url is not None and url.outcome == "ok"
    assert SERVER.answer_call(policy, "no_such_tool", {}) is None
    bad = SERVER.answer_call(policy, "get_file_info", {"path": 3})
    assert bad is not None and bad.outcome == "error"


def _kinds(policy) -> dict[str, str]:
    return {f["kind"]: f["severity"] for f in SERVER.findings(policy)}


def test_findings_follow_the_settings(root: Path) -> None:
    data = str(root / "data")
    # Default block-list: no shell blocked -> critical; every shell blocked -> high.
    assert _kinds(resolve(root, {"allowedDirectories": [data]}))["terminal-bypass"] == "critical"
    from localfs_explorer.servers.desktop_commander.findings import SHELLS

    blocked = resolve(root, {"allowedDirectories": [data], "blockedCommands": list(SHELLS)})
    assert _kinds(blocked)["terminal-bypass"] == "high"
    assert _kinds(resolve(root, {"allowedDirectories": []}))["everything"] == "critical"
    assert _kinds(resolve(root, {"allowedDirectories": ["/"]}))["everything"] == "critical"
    assert "everything" in _kinds(resolve(root, None, settings_file=str(root / "none.json")))
    assert _kinds(resolve(root, {}))["home-default"] == "high"
    # A case twin that exists is high; a name that could get one is medium.
    assert _kinds(resolve(root, {"allowedDirectories": [data]}))["case-fold"] == "high"
    twinless = resolve(root, {"allowedDirectories": [str(root / "outside")]})
    assert _kinds(twinless)["case-fold"] == "medium"
    linked = resolve(root, {"allowedDirectories": [str(root / "link"), "rel"]})
    paths = {f["path"] for f in SERVER.findings(linked) if f["kind"] == "unresolved-directory"}
    assert paths == {str(root / "link"), "rel"}


def test_findings_drop_with_the_tools_the_client_blocks(root: Path) -> None:
    policy = resolve(root, {"allowedDirectories": [str(root / "data")]})
    left = {f.code for f in findings(policy.policy, {"read_file", "write_file"})}
    assert "terminal-bypass" not in left and "self-widening" not in left


def test_exposure_scope_and_status(root: Path) -> None:
    scope = SERVER.exposure_scope(resolve(root, {"allowedDirectories": ["~", "rel"]}))
    assert scope.starts == (str(root / "home"),) and scope.home == str(root / "home")
    assert SERVER.exposure_scope(resolve(root, {"allowedDirectories": []})).starts == ("/",)
    status = SERVER.status(resolve(root, {"blockedCommands": ["sudo"]}))
    assert status == {"tool": "get_config", "config": {"blockedCommands": ["sudo"]}}


def test_places_use_the_servers_own_home(root: Path) -> None:
    # --home is the server's option, not the environment's HOME.
    policy = resolve(root, {"allowedDirectories": [str(root / "data")]})
    places = dict(SERVER.places(policy))
    assert places[str(root / "home")] == "home directory"
    assert places[str(root / "DATA")].startswith("case twin")
    assert str(root / "data-sibling") in places
    calls = [p for p, _ in SERVER.call_places(policy)]
    assert calls == [str(root / "data"), str(root / "home"), str(root / "work")]



def test_a_refusal_names_the_list_the_server_enforces(root: Path) -> None:
    policy = resolve(root, {"allowedDirectories": [str(root / "data"), "~/notes"]})
    refusal = policy.check(str(root / "outside/s.txt")).message
    configured = (str(root / "data"), "~/notes")
    assert SERVER.refusal_directories(policy, "Error: " + refusal) == (configured, configured)
    stale = (f"Path not allowed: {root}/outside/s.txt. Must be within one of these "
             f"directories: {root}/old, {root}/older")
    assert SERVER.refusal_directories(policy, stale) == (
        (f"{root}/old", f"{root}/older"), configured)
    assert SERVER.refusal_directories(policy, "ENOENT: no such file") is None


@pytest.mark.parametrize(("value", "now_allowed"), [
    (["OUTSIDE"], True), ("OUTSIDE", True), ([], True), (["DATA"], False)])
def test_set_config_value_changes_the_allow_list_for_later_calls(root: Path, value,
                                                                 now_allowed) -> None:
    policy = resolve(root, {"allowedDirectories": [str(root / "data")]})
    target = str(root / "outside/s.txt")
    assert not policy.check(target).allowed
    spelled = {"OUTSIDE": str(root / "outside"), "DATA": str(root / "data")}
    value = [spelled[v] for v in value] if isinstance(value, list) else spelled[value]
    after = SERVER.after_call(policy, "set_config_value",
                              {"key": "allowedDirectories", "value": value})
    assert after is not None and after.check(target).allowed is now_allowed
    assert not after.check(str(root / "data-x")).allowed or not value
    # Other keys and other tools leave the policy as it was.
    assert SERVER.after_call(policy, "set_config_value",
                             {"key": "blockedCommands", "value": []}) is None
    assert SERVER.after_call(policy, "read_file", {"path": target}) is None
