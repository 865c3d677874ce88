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
    # The answers themselves are hangar's, unmasked: only what is shown is masked.
    assert config.server_blocks["gee"].approval_list == (SECRET,)
    assert read_hangar(SECRET_TOOL.replace("AWS_SECRET_ACCESS_KEY", "TOOL_NAME"),
                       environ={"TOOL_NAME": "plain_tool"}).secrets == frozenset()


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


# -------------------------------------------------------------- alias bombs (Medium 5)

def alias_bomb(levels: int = 9, width: int = 10) -> str:
    """A few hundred bytes whose aliases expand to ``width ** levels`` strings."""
    lines = ["x_anchors:", '  a0: &a0 ["xxxxxxxxxx"]']
    for i in range(1, levels + 1):
        lines.append(f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    lines += ["mcp_servers:", "  g:", "    command: [mcp-gee-sweet]",
              f"    volumes: *a{levels}", f"    tools: {{deny_list: *a{levels}}}"]
    return "\n".join(lines) + "\n"


BOMB_LINE = 7  # a5, the first anchor whose expansion passes the bound (211,111 values)


def test_an_alias_bomb_is_refused_at_its_line_quickly(tmp_path):
    text = alias_bomb()
    assert len(text) < 700
    path = tmp_path / "bomb.yaml"
    path.write_text(text)
    for argv in (("access", "--hangar", path, "--server", "g"),
                 ("validate", "--client-config", path)):
        code, out, err = run(*argv)  # (minutes, or gigabytes, without the bound)
        assert code == 2, (argv, out, err)
        assert f"{path}:{BOMB_LINE}: its aliases expand to more than" in err, err


def test_aliases_within_the_bound_are_read_as_hangar_reads_them():
    from localfs_explorer.access.yaml_lines import load_with_lines

    document = load_with_lines(alias_bomb(levels=3, width=4))
    assert len(document["mcp_servers"]["g"]["volumes"]) == 4
    assert document["mcp_servers"]["g"]["volumes"][0][0] == [["xxxxxxxxxx"]] * 4


@pytest.mark.parametrize("text, line", [
    ("a: &a [*a]\nmcp_servers: {}\n", 1),
    ("mcp_servers:\n  g: &g\n    command: [x]\n    again: *g\n", 2),
])
def test_an_alias_inside_its_own_anchor_is_refused(text, line):
    with pytest.raises(HangarConfigError, match=f"h.yaml:{line}: an alias inside"):
        read_hangar(text, source="h.yaml")


def test_the_bound_counts_characters_too():
    import yaml

    from localfs_explorer.access.yaml_lines import YamlProblem, check_expanded_size

    root = yaml.compose("a: &a " + "x" * 1000 + "\nb: [*a, *a, *a]\n")
    check_expanded_size(root, max_chars=4002)  # 4000 x and the keys a and b
    with pytest.raises(YamlProblem) as caught:
        check_expanded_size(root, max_chars=4001)
    assert caught.value.line == 1  # the document as a whole passes the bound


def test_the_dashboard_refuses_an_alias_bomb_in_both_places(layout):
    from ui_support import text_of

    from localfs_explorer.ui import Explorer, ExplorerModel
    from localfs_explorer.ui.deployment import ClientConfigPicker

    app = Explorer(model=ExplorerModel(debounce=0, host_access=False))
    panel = app.show("hangar")
    panel.text.value = alias_bomb()
    assert f"hangar config:{BOMB_LINE}: its aliases expand" in app.model.hangar_error
    assert "its aliases expand" in text_of(panel.status.value)
    picker = ClientConfigPicker(app.model)
    picker.load_text("hangar.yaml", alias_bomb())
    assert f"hangar.yaml:{BOMB_LINE}: its aliases expand" in text_of(picker.info.value)
    assert picker.use.disabled


# ----------------------------------------------------------------- parse errors (Low)

def test_a_parse_error_quoting_a_secret_line_masks_it(tmp_path):
    text = ("mcp_servers:\n  g:\n    command: [mcp-gee-sweet]\n    env:\n"
            "      API_TOKEN: !ghp_tagValue9 x\n")
    path = tmp_path / "h.yaml"
    path.write_text(text)
    for argv in (("access", "--hangar", path, "--server", "g"),
                 ("validate", "--client-config", path)):
        code, out, err = run(*argv)
        assert code == 2 and f"{path}:5:" in err, err
        assert "ghp_tagValue9" not in out + err and "••••••" in err
    # The same error on a line naming no secret is shown as it is.
    path.write_text(text.replace("API_TOKEN", "LOG_STYLE"))
    _, _, err = run("access", "--hangar", path, "--server", "g")
    assert "'!ghp_tagValue9'" in err


def test_a_complex_key_is_refused_not_shown_as_a_node(tmp_path):
    path = tmp_path / "h.yaml"
    path.write_text("mcp_servers:\n  ? [a, b]\n  : {command: [mcp-gee-sweet]}\n")
    code, _, err = run("validate", "--client-config", path)
    assert code == 2 and f"{path}:2: a server id under 'mcp_servers' must be a plain" in err
    assert "Node" not in err
    path.write_text("mcp_servers:\n  g:\n    command: [mcp-gee-sweet]\n    ? [x]\n    : 1\n")
    code, _, err = run("validate", "--client-config", path)
    assert code == 2 and f"{path}:4: mcp_servers.g: a key must be a plain name" in err


# --------------------------------------------------------- a key given twice (High 2)

def test_a_repeated_key_is_its_last_value_with_a_warning_naming_both_lines(tmp_path):
    text = ("mcp_servers:\n  gee:\n    command: [mcp-gee-sweet]\n"
            "    tools: {deny_list: [get_doc_content]}\n"
            "    tools: {deny_list: [send_email]}\n")
    config = read_hangar(text, source="h.yaml")
    assert config.server_blocks["gee"].deny_list == ("send_email",)
    assert "h.yaml:5: 'tools' is given twice in one mapping (lines 4 and 5)" in \
        "\n".join(config.warnings)
    path = tmp_path / "h.yaml"
    path.write_text(text)
    code, _, err = run("access", "--hangar", path, "--server", "gee", "--tool", "send_email")
    assert code == 0 and "is given twice in one mapping (lines 4 and 5)" in err


def test_the_hangar_panel_shows_the_configurations_warnings():
    from ui_support import text_of

    from localfs_explorer.ui import Explorer, ExplorerModel

    app = Explorer(model=ExplorerModel(debounce=0, host_access=False))
    panel = app.show("hangar")
    panel.text.value = ("mcp_servers:\n  gee:\n    command: [x]\n    command: [mcp-gee-sweet]\n")
    assert "'command' is given twice in one mapping (lines 3 and 4)" in \
        text_of(panel.status.value)


def test_a_variable_holding_a_secret_variables_value_is_masked_too():
    with pytest.raises(HangarConfigError) as caught:
        read_hangar(BAD_TIMEOUT.replace("AWS_SECRET_ACCESS_KEY", "WAIT"), source="h.yaml",
                    environ={"AWS_SECRET_ACCESS_KEY": SECRET, "WAIT": SECRET})
    assert SECRET not in str(caught.value) and "••••••" in str(caught.value)


def test_a_value_reached_through_an_alias_is_filled_in_once():
    text = ("mcp_servers:\n  gee:\n    command: [x]\n"
            "    tools: {deny_list: &t ['${TOOL}'], approval_list: *t}\n")
    # The variable's value looks like a variable: filled in once, it stays as it is.
    config = read_hangar(text, environ={"TOOL": "${OTHER}", "OTHER": "expanded-twice"})
    assert config.server_blocks["gee"].deny_list == ("${OTHER}",)
    assert config.server_blocks["gee"].approval_list == ("${OTHER}",)
