"""A hangar route wherever access lists are taken: probe, replay, report, scenarios, API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli as run

from localfs_explorer.access import HangarAccess, load_access
from localfs_explorer.review.scenarios import run_scenario_text

HANGAR = """\
mcp_servers:
  gee:
    command: [mcp-gee-sweet]
    tools:
      deny_list: ["send_*"]
      approval_list: [get_doc_content]
      approval_timeout_seconds: 600
      approval_channel: pager
    tool_access:
      member:
        acme: {deny_list: [get_doc_content]}
  core:
    mode: group
    tools: {allow_list: ["*"], deny_list: [upload_local_file]}
    members:
      - id: gee
        tools: {allow_list: ["get_*"], deny_list: [get_drive_file]}
"""


@pytest.fixture
def setup(layout, tmp_path: Path):
    env = layout.app / ".env"
    env.write_text(f"LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={layout.data}\n"
                   f"HOME={layout.home}\n")
    hangar = tmp_path / "hangar.yaml"
    hangar.write_text(HANGAR)
    return layout, ["--env", str(env), "--cwd", str(layout.app)], hangar


def doc(path: str) -> dict:
    return {"name": "get_doc_content", "arguments": {"file_id": "d1", "local_path": path}}


def test_load_access_takes_a_route_mapping(setup) -> None:
    _, _, hangar = setup
    access = load_access({"hangar": str(hangar), "server": "gee"})
    assert isinstance(access, HangarAccess)
    assert access.gate("get_doc_content") == "approval" and access.timeout_for(
        "get_doc_content") == 600
    assert access.gate("send_mail") == "blocked" and access.gate("get_sheet_data") == "execute"
    # Named directly, the group that owns gee still decides: its member scope allows get_*.
    assert access.gate("list_files") == "blocked"
    # Hangar waits 600 s (gee's own policy holds it first); the rule says the shortest.
    assert access.answer("get_doc_content").documented.timeout == 300
    assert "finding" in access.explain("get_doc_content")
    assert "pager" in access.explain("get_doc_content")
    assert load_access({"hangar": str(hangar), "server": "gee", "tenant": "acme"}).gate(
        "get_doc_content") == "blocked"


def test_probe_answers_with_the_hangar_route(setup) -> None:
    layout, opts, hangar = setup
    call = json.dumps(doc(str(layout.data / "doc.md")))
    code, out, _ = run("probe", *opts, "--call", call, "--json",
                       "--hangar", hangar, "--hangar-server", "gee")
    assert code == 0 and json.loads(out)["gate"] == "approval"
    # The tenant's own block on gee hides it.
    code, out, _ = run("probe", *opts, "--call", call, "--json",
                       "--hangar", hangar, "--hangar-server", "gee", "--via", "core",
                       "--tenant", "acme")
    row = json.loads(out)
    assert row["gate"] == "blocked" and row["visible"] is False


@pytest.mark.parametrize(("args", "words"), [
    (["--hangar-server", "gee"], "--hangar-server need --hangar"),
    (["--hangar", "{hangar}"], "--hangar needs --hangar-server"),
    (["--hangar", "{hangar}", "--hangar-server", "gee", "--access", "{hangar}"],
     "not both"),
    (["--hangar", "{hangar}", "--hangar-server", "nope"], "no server 'nope'"),
])
def test_probe_route_usage_errors(setup, args: list[str], words: str) -> None:
    layout, opts, hangar = setup
    call = json.dumps(doc(str(layout.data / "doc.md")))
    code, _, err = run("probe", *opts, "--call", call,
                       *[a.format(hangar=hangar) for a in args])
    assert code == 2 and words in err


def test_replay_waits_hangars_timeout_for_the_tool(setup) -> None:
    layout, opts, hangar = setup
    session = layout.base / "session.json"
    late = {**doc(str(layout.data / "doc.md")),
            "approval": {"decision": "approve", "after_seconds": 400}}
    session.write_text(json.dumps([[late]]))
    code, out, _ = run("replay", session, *opts, "--json", "--hangar", hangar,
                       "--hangar-server", "gee")
    row = json.loads(out)
    # 400 s is within the 600 s hangar waits for this tool (not the 300 s default).
    assert code == 0 and row["decision"] == "approved" and row["gate"] == "approval"
    # Through the group the merged policy waits 300 s: the same answer comes too late.
    code, out, _ = run("replay", session, *opts, "--json", "--hangar", hangar,
                       "--hangar-server", "gee", "--via", "core")
    row = json.loads(out)
    assert code == 1 and row["decision"] == "timeout"
    code, out, _ = run("replay", session, *opts, "--json", "--hangar", hangar,
                       "--hangar-server", "gee", "--tenant", "acme")
    row = json.loads(out)
    assert code == 1 and row["status"] == "blocked" and "tenant acme" in row["reason"]


def test_report_takes_the_route(setup, tmp_path: Path) -> None:
    layout, opts, hangar = setup
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps(doc(str(layout.data / "doc.md"))) + "\n")
    output = tmp_path / "report.json"
    code, _, err = run("report", *opts, "--calls", calls, "-o", output,
                       "--hangar", hangar, "--hangar-server", "gee", "--via", "core",
                       "--tenant", "acme")
    assert code in (0, 1), err
    [row] = json.loads(output.read_text())["rows"]
    assert row["gate"] == "blocked"


SCENARIO = """\
[config]
access = {{ hangar = "{hangar}", server = "gee" }}

[[scenario]]
name = "hangar pins"

[[scenario.hangar]]
tool = "get_sheet_data"
visible = true
held = false
finding = false

[[scenario.hangar]]
tool = "get_doc_content"
held = true
timeout = 600
channel = "pager"
finding = true
finding_contains = "300 s"

[[scenario.hangar]]
tool = "get_doc_content"
via = "core"
held = true
timeout = 300
finding = false

[[scenario.hangar]]
tool = "get_doc_content"
tenant = "acme"
visible = false
documented_visible = false
scope_contains = "tenant acme"

[[scenario.hangar]]
tool = "list_files"
visible = true
"""


def test_scenario_pins_hangar_answers(setup) -> None:
    _, _, hangar = setup
    result = run_scenario_text(SCENARIO.format(hangar=hangar.name), base_dir=hangar.parent)
    cases = [c for s in result.scenarios for c in s.cases]
    failed = [(c.name, [m.field for m in c.mismatches], c.error) for c in cases if not c.passed]
    assert len(cases) == 5
    # The last case is wrong on purpose: list_files is hidden by core's member scope.
    assert failed == [("hangar list_files", ["visible"], None)]
