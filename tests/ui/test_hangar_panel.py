"""The Hangar panel and the model's hangar route, driven without a browser."""

from __future__ import annotations

import json

import pytest
from ui_support import text_of, write_roots_env

from localfs_explorer.access import CallRoute, answer_tools, read_hangar
from localfs_explorer.ui import Explorer, ExplorerModel
from localfs_explorer.ui.panels.hangar import EXAMPLE

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

CONFIG = """\
mcp_servers:
  gee:
    command: [mcp-gee-sweet]
    tools: {approval_list: [get_doc_content], approval_timeout_seconds: 90,
            approval_channel: pager, deny_list: ["send_*"]}
    tool_access:
      member:
        acme: {deny_list: [get_doc_content]}
  listed:
    command: [x]
    tools: [{name: b}, {name: a}]
  core:
    mode: group
    tools: {allow_list: ["*"]}
    members:
      - id: gee
        tools: {allow_list: ["get_*"], deny_list: [get_file_metadata]}
"""


@pytest.fixture
def app(layout) -> Explorer:
    return Explorer(cwd=str(layout.app), debounce=0)


def test_loaded_config_answers_every_tool_findings_first(app) -> None:
    panel = app.show("hangar")
    m = app.model
    panel.text.value = CONFIG
    assert m.hangar_config is not None and m.hangar_error == ""
    assert list(panel.server.options) == ["gee", "listed"]
    panel.server.value = "gee"
    assert [label for label, _ in panel.via.options] == ["(named directly)", "core"]
    config = read_hangar(CONFIG, source="hangar config")
    expected = answer_tools(config, CallRoute("gee"), [a.tool for a in m.hangar_answers])
    assert {a.tool: (a.visible, a.held, a.timeout) for a in m.hangar_answers} == {
        a.tool: (a.visible, a.held, a.timeout) for a in expected}
    flags = [a.finding is not None for a in m.hangar_answers]
    assert any(flags) and flags == sorted(flags, reverse=True)  # findings first
    held = next(a for a in m.hangar_answers if a.tool == "get_doc_content")
    assert (held.held, held.timeout, held.channel) == (True, 90, "pager")
    assert "held 90 s (pager)" in text_of(panel.table.value)
    assert "finding(s)" in text_of(panel.status.value)


def test_route_and_tenant_change_the_answers(app) -> None:
    panel = app.show("hangar")
    m = app.model
    panel.text.value = CONFIG
    panel.server.value = "gee"
    panel.via.value = "core"
    assert m.hangar_via == "core"
    by_tool = {a.tool: a for a in m.hangar_answers}
    assert by_tool["list_files"].state == "hidden"
    # Hangar loses the member's deny list behind the group's allow list: a finding.
    lost = by_tool["get_file_metadata"]
    assert lost.state == "visible" and not lost.documented.visible and lost.finding
    assert m.hangar_answers[0].finding  # findings first
    assert "get_file_metadata" in text_of(panel.findings.value)
    panel.tenant.value = "acme"
    assert m.hangar_tenant == "acme" and list(panel.tenant.options) == ["acme"]
    assert {a.tool: a.state for a in m.hangar_answers}["get_doc_content"] == "hidden"
    panel.server.value = "listed"  # not a member of core: the route goes direct
    assert m.hangar_via == "" and [a.tool for a in m.hangar_answers] == ["b", "a"]


def test_refused_config_shows_file_and_line(app) -> None:
    panel = app.show("hangar")
    panel.text.value = "mcp_servers:\n  gee:\n    tools: {deny_list: send_mail}\n"
    assert app.model.hangar_config is None
    assert "hangar config:3:" in app.model.hangar_error
    assert "one string" in text_of(panel.status.value)


def test_example_and_upload(app) -> None:
    panel = app.show("hangar")
    panel.example.click()
    assert app.model.hangar_text == EXAMPLE and app.model.hangar_via == "core"
    assert any(a.finding for a in app.model.hangar_answers)
    from localfs_explorer.ui import hangar_model

    hangar_model.load_upload(app.model, "h.yaml", CONFIG.encode())
    assert app.model.hangar_name == "h.yaml" and app.model.hangar_config.servers[0] == "gee"


def test_tool_call_and_session_use_the_route_when_asked(layout) -> None:
    env = write_roots_env(layout.app, layout.data, layout.home)
    model = ExplorerModel(env_path=str(env), cwd=str(layout.app), debounce=0)
    model.tool_name = "get_doc_content"
    model.tool_args_text = json.dumps({"file_id": "d", "local_path": str(layout.data / "a")})
    model.hangar_text = CONFIG
    model.hangar_server = "gee"
    assert model.call_verdict.gate == "execute"  # not in use yet
    model.hangar_use = True
    assert model.call_verdict.gate == "approval"
    model.hangar_tenant = "acme"
    assert model.call_verdict.gate == "blocked"
    app = Explorer(model=model)
    session = app.show("session")
    session.text.value = json.dumps([[{"name": "get_doc_content", "arguments": {
        "file_id": "d", "local_path": str(layout.data / "a")}}]])
    session.refresh()
    assert session.replay.calls[0].status == "blocked"
    assert "tenant acme" in session.replay.calls[0].reason


def test_a_route_typed_into_the_access_lists_opens_no_file(layout, tmp_path) -> None:
    hangar = tmp_path / "h.yaml"
    hangar.write_text(CONFIG)
    model = ExplorerModel(cwd=str(layout.app), debounce=0)
    model.tool_name = "list_files"
    model.access_text = json.dumps({"hangar": str(hangar), "server": "gee"})
    assert "unknown key" in model.call_error and "hangar" in model.call_error
    model.hangar_use = True
    assert "Hangar tab" in model.call_error


def test_commands_name_the_hangar_route_when_it_is_in_use(layout) -> None:
    from localfs_explorer.ui.commands import access_link, probe_command, replay_command

    model = ExplorerModel(cwd=str(layout.app), debounce=0)
    model.access_text = '{"server": {"deny_list": ["x"]}}'
    call = {"name": "list_files", "arguments": {}}
    assert "--access access.json" in probe_command(model, call)
    model.hangar_text = CONFIG
    model.hangar_server = "gee"
    model.hangar_via = "core"
    model.hangar_tenant = "acme"
    model.hangar_use = True
    command = probe_command(model, call)
    assert "--hangar hangar.yaml --hangar-server gee --via core --tenant acme" in command
    assert "--access" not in command and access_link(model) == ""
    assert "--hangar hangar.yaml --hangar-server gee" in replay_command(model, "approve")


def test_pinned_answers_run_as_a_scenario(app, tmp_path) -> None:
    from localfs_explorer.review.scenarios import (
        ScenarioFile,
        dump_scenario_file,
        run_scenario_text,
    )

    panel = app.show("hangar")
    panel.text.value = CONFIG
    panel.server.value = "gee"
    panel.via.value = "core"
    panel.pin.click()
    [scenario] = app.model.pinned
    assert scenario.config.access == {"hangar": "hangar.yaml", "server": "gee", "via": "core"}
    assert len(scenario.hangar) == len(app.model.hangar_answers)
    (tmp_path / "hangar.yaml").write_text(CONFIG)
    text = dump_scenario_file(ScenarioFile(scenario=[scenario]))
    result = run_scenario_text(text, base_dir=tmp_path)
    cases = [c for s in result.scenarios for c in s.cases]
    assert cases and all(c.passed for c in cases)
    # The same pins fail once the configuration changes what hangar answers.
    (tmp_path / "hangar.yaml").write_text(CONFIG.replace("get_file_metadata", "get_doc_x"))
    result = run_scenario_text(text, base_dir=tmp_path)
    failed = [c.name for s in result.scenarios for c in s.cases if not c.passed]
    assert failed == ["hangar get_file_metadata"]


def test_the_tool_list_filters_by_what_the_route_does(app) -> None:
    panel = app.panel("hangar")
    panel.example.click()
    answers = app.model.hangar_answers
    kinds = {"visible": sum(1 for a in answers if a.visible and not a.held),
             "held": sum(1 for a in answers if a.held),
             "hidden": sum(1 for a in answers if not a.visible)}
    assert all(kinds.values())  # the example has each kind
    for kind, count in kinds.items():
        panel.state_filter.value = kind
        rows = panel.table.value.count("<tr") - 1  # less the header
        assert rows == count, kind
    panel.state_filter.value = "all"
    assert panel.table.value.count("<tr") - 1 == len(answers)
    # No emoji a page without the font would draw as a box; the label isn't cut short.
    assert panel.pin.description == "Pin answers"
    assert panel.use.layout.width == "auto"
