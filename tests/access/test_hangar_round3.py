"""Hostile hangar YAML, round three: what a pasted or committed configuration could make
the explorer print or spend.

A secret filled in from the environment stays masked in every message and output; a
page served to other machines fills in nothing from the serving machine's environment.
"""

from __future__ import annotations

import json

import pytest
from conftest import run_cli as run

from localfs_explorer.access import HangarConfigError, read_hangar

SECRET = "wJalrXUtnFEMI-K7MDENG"

BAD_TIMEOUT = """\
mcp_servers:
  gee:
    command: [mcp-gee-sweet]
    tools:
      deny_list: ["x"]
      approval_timeout_seconds: ${AWS_SECRET_ACCESS_KEY}
"""

SECRET_TOOL = """\
mcp_servers:
  gee:
    command: [mcp-gee-sweet]
    tools:
      deny_list: ["${AWS_SECRET_ACCESS_KEY}-tool"]
      approval_list: ["${AWS_SECRET_ACCESS_KEY}"]
"""


def test_a_secret_filled_into_a_refused_value_is_masked_in_the_refusal():
    with pytest.raises(HangarConfigError) as caught:
        read_hangar(BAD_TIMEOUT, source="h.yaml", environ={"AWS_SECRET_ACCESS_KEY": SECRET})
    message = str(caught.value)
    assert message.startswith("h.yaml:6:") and "approval_timeout_seconds" in message
    assert SECRET not in message and SECRET.lower() not in message.lower()
    assert "••••••" in message


def test_a_plain_variable_is_not_masked():
    with pytest.raises(HangarConfigError) as caught:
        read_hangar(BAD_TIMEOUT.replace("AWS_SECRET_ACCESS_KEY", "WAIT"), source="h.yaml",
                    environ={"WAIT": "soon-ish"})
    assert "'soon-ish'" in str(caught.value)


def test_the_secrets_filled_in_are_kept_for_views_to_mask():
    config = read_hangar(SECRET_TOOL, environ={"AWS_SECRET_ACCESS_KEY": SECRET})
    assert config.secrets == frozenset({SECRET})
    assert read_hangar(SECRET_TOOL, environ={"AWS_SECRET_ACCESS_KEY": SECRET,
                                             "X": "y"}).server_blocks["gee"].approval_list \
        == (SECRET,)  # the answers themselves are hangar's, unmasked


@pytest.mark.parametrize("extra", [(), ("--json",)])
def test_access_prints_no_secret_filled_in(tmp_path, monkeypatch, extra):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    path = tmp_path / "h.yaml"
    path.write_text(SECRET_TOOL)
    code, out, err = run("access", "--hangar", path, "--server", "gee", "--tool",
                         f"{SECRET}-tool", "--tool", SECRET, *extra)
    assert code == 0, err
    assert SECRET.lower() not in (out + err).lower()
    if extra:
        rows = [json.loads(line) for line in out.splitlines()]
        assert len(rows) == 2 and all("••••••" in r["tool"] for r in rows)


def test_access_refusal_masks_the_secret(tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    path = tmp_path / "h.yaml"
    path.write_text(BAD_TIMEOUT)
    code, out, err = run("access", "--hangar", path, "--server", "gee")
    assert code == 2 and f"{path}:6:" in err
    assert SECRET not in out + err


def test_expanding_nothing_uses_defaults_only_and_says_so():
    with pytest.raises(HangarConfigError) as caught:
        read_hangar(BAD_TIMEOUT, source="h.yaml", expand_environ=False,
                    environ={"AWS_SECRET_ACCESS_KEY": SECRET})
    assert "expands nothing from the serving machine's environment" in str(caught.value)
    config = read_hangar(SECRET_TOOL.replace("${AWS_SECRET_ACCESS_KEY}", "${TOOL:-get_doc}"),
                         expand_environ=False, environ={"TOOL": "from-the-environment"})
    assert config.server_blocks["gee"].approval_list == ("get_doc",)


# --------------------------------------------------- the Hangar panel, served (High 1)

def test_a_served_panel_expands_nothing_from_the_kernel_environment(monkeypatch):
    from ui_support import text_of

    from localfs_explorer.ui import Explorer, ExplorerModel

    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    app = Explorer(model=ExplorerModel(debounce=0, host_access=False))
    panel = app.show("hangar")
    panel.text.value = BAD_TIMEOUT
    m = app.model
    assert m.hangar_config is None
    assert "expands nothing" in m.hangar_error and SECRET not in m.hangar_error
    shown = text_of(panel.status.value)
    assert "This page expands nothing from the serving machine's environment" in shown
    assert "hangar config:6: ${AWS_SECRET_ACCESS_KEY} is not set" in shown
    assert SECRET not in shown


def test_a_local_panel_expands_from_the_environment_and_masks_the_secret(monkeypatch):
    from ui_support import text_of

    from localfs_explorer.ui import Explorer, ExplorerModel

    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    app = Explorer(model=ExplorerModel(debounce=0, host_access=True))
    panel = app.show("hangar")
    panel.text.value = ("mcp_servers:\n  gee:\n    command: [x]\n"
                        "    tools: [{name: list_files}, {name: '${AWS_SECRET_ACCESS_KEY}'}]\n")
    panel.server.value = "gee"
    m = app.model
    assert m.hangar_error == "" and SECRET in {a.tool for a in m.hangar_answers}
    shown = text_of(panel.table.value)
    assert "••••••" in shown and SECRET not in shown
    assert "expands nothing" not in text_of(panel.status.value)
