"""The access command: hangar's answer per tool, JSON and table, listing mode, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli as run

from localfs_explorer.catalog import load_catalog

CONFIG = """\
approvals: {channel: slack}
mcp_servers:
  api:
    command: [true]
    tools: {allow_list: ["*"], approval_list: [deploy_repo], approval_timeout_seconds: 600}
    tool_access:
      member:
        acme: {deny_list: [get_repo]}
  gee:
    command: [mcp-gee-sweet]
    tools: {deny_list: ["upload_*"]}
  listed:
    command: [true]
    tools:
      - {name: b_tool}
      - {name: a_tool}
  core:
    mode: group
    tools: {deny_list: [drop_db], approval_list: ["deploy_*"], approval_timeout_seconds: 60}
    members:
      - id: api
        tools: {allow_list: ["*_repo"], deny_list: [delete_repo]}
      - id: gee
"""


@pytest.fixture
def hangar(tmp_path: Path) -> Path:
    path = tmp_path / "hangar.yaml"
    path.write_text(CONFIG)
    return path


def _json(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def test_json_is_one_object_per_tool_in_order(hangar: Path) -> None:
    code, out, err = run("access", "--hangar", hangar, "--server", "api", "--via", "core",
                         "--tool", "delete_repo", "--tool", "get_repo", "--tool", "drop_db",
                         "--json")
    assert code == 0, err
    rows = _json(out)
    assert [r["tool"] for r in rows] == ["delete_repo", "get_repo", "drop_db"]
    delete, get, drop = rows
    assert delete["visible"] is True and delete["documented"] == {
        "visible": False, "held": False, "timeout": None}
    assert "delete_repo" in delete["finding"]
    assert get == {**get, "visible": True, "held": False, "timeout": None, "finding": None}
    assert drop["visible"] is False and drop["finding"] is None
    assert "group core" in drop["scope"] and "drop_db" in drop["scope"]


def test_held_tool_carries_timeout_and_channel(hangar: Path) -> None:
    code, out, _ = run("access", "--hangar", hangar, "--server", "api", "--tool", "deploy_repo",
                       "--json")
    [row] = _json(out)
    # Named directly: api's own policy holds it first (600 s), the rule says the shortest.
    assert code == 0 and row["held"] is True and row["timeout"] == 600
    assert row["channel"] == "slack" and row["documented"]["timeout"] == 60
    assert "600 s" in row["finding"]


def test_tenant_changes_the_answer(hangar: Path) -> None:
    args = ("access", "--hangar", hangar, "--server", "api", "--tool", "get_repo", "--json")
    assert _json(run(*args)[1])[0]["visible"] is True
    [row] = _json(run(*args, "--tenant", "acme")[1])
    assert row["visible"] is False and "tenant acme" in row["scope"]


def test_table_puts_findings_first(hangar: Path) -> None:
    code, out, _ = run("access", "--hangar", hangar, "--server", "api", "--via", "core",
                       "--tool", "get_repo", "--tool", "delete_repo")
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split()[:2] == ["TOOL", "HANGAR"]
    assert lines[2].split()[:2] == ["delete_repo", "VISIBLE"]
    assert lines[3].split()[:2] == ["get_repo", "visible"]
    assert "1 finding(s)" in out


def test_listing_mode_uses_the_declared_tools_or_the_explorers_catalog(hangar: Path) -> None:
    code, out, _ = run("access", "--hangar", hangar, "--server", "listed", "--json")
    assert code == 0 and [r["tool"] for r in _json(out)] == ["b_tool", "a_tool"]
    code, out, _ = run("access", "--hangar", hangar, "--server", "gee", "--json")
    rows = _json(out)
    assert [r["tool"] for r in rows] == [t.name for t in load_catalog().tools]
    assert all(r["visible"] is not r["tool"].startswith("upload_") for r in rows)


@pytest.mark.parametrize(("text", "words"), [
    ("mcp_servers:\n  api:\n    tools: {deny_list: drop_db}\n", ":3: "),
    ("mcp_servers: [\n", "not valid YAML"),
])
def test_invalid_config_is_one_line_and_exit_2(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    code, out, err = run("access", "--hangar", path, "--server", "api", "--tool", "x")
    assert code == 2 and out == "" and words in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_unreadable_config_and_unknown_route_exit_2(tmp_path: Path, hangar: Path) -> None:
    code, _, err = run("access", "--hangar", tmp_path / "missing.yaml", "--server", "api",
                       "--tool", "x")
    assert code == 2 and "missing.yaml" in err
    code, _, err = run("access", "--hangar", hangar, "--server", "api", "--via", "nope",
                       "--tool", "x")
    assert code == 2 and "no group 'nope'" in err
    code, _, err = run("access", "--hangar", hangar, "--server", "api", "--tenant", "",
                       "--tool", "x")
    assert code == 2
