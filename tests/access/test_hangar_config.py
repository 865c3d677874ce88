"""Reading hangar configurations: what is accepted, and FILE:LINE refusals for the rest."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from localfs_explorer.access.hangar import CallRoute, answer_tools
from localfs_explorer.access.hangar_config import HangarConfigError, load_hangar, read_hangar

HEADER = "mcp_servers:\n  api:\n    command: [true]\n"

# (name, text, the line the refusal names, words it must say)
REFUSED = [
    ("unknown block key", HEADER + "    tools:\n      allow: [read]\n", 5,
     "did you mean allow_list"),
    ("list written as a string", HEADER + "    tools:\n      deny_list: drop_db\n", 5,
     "one string"),
    ("approval list as a string", HEADER + "    tools:\n      approval_list: 'deploy_*'\n", 5,
     "one string"),
    ("timeout zero", HEADER + "    tools:\n      deny_list: [x]\n"
     "      approval_timeout_seconds: 0\n", 6, "approval_timeout_seconds"),
    ("timeout negative", HEADER + "    tools:\n      deny_list: [x]\n"
     "      approval_timeout_seconds: -5\n", 6, "above 0"),
    ("timeout a boolean", HEADER + "    tools:\n      deny_list: [x]\n"
     "      approval_timeout_seconds: yes\n", 6, "True"),
    ("timeout a string", HEADER + "    tools:\n      deny_list: [x]\n"
     "      approval_timeout_seconds: '60'\n", 6, "'60'"),
    ("blank pattern", HEADER + "    tools:\n      deny_list:\n        - x\n        - '  '\n", 7,
     "not a pattern"),
    ("blank channel", HEADER + "    tools:\n      deny_list: [x]\n"
     "      approval_channel: '  '\n", 6, "approval_channel"),
    ("null list beside a list", HEADER + "    tools:\n      deny_list: [x]\n"
     "      allow_list:\n", 6, "no value"),
    ("tools a string", HEADER + "    tools: add\n", 4, "must be a mapping"),
    ("tools list of names", HEADER + "    tools: [add]\n", 4, "tool schema"),
    ("unknown top-level key", HEADER + "loging: {}\n", 4, "unknown top-level key 'loging'"),
    ("unknown server key", HEADER + "    commandd: [x]\n", 4, "unknown key 'commandd'"),
    ("unknown section key", HEADER + "approvals:\n  chanel: slack\n", 5, "unknown key 'chanel'"),
    ("removed tool_access.rules", HEADER + "tool_access:\n  rules: []\n", 5, "rules"),
    ("bad mode", HEADER + "tool_access:\n  mode: front-door\n", 5, "front-door"),
    ("tenant block not a mapping", HEADER + "    tool_access:\n      member:\n"
     "        acme: add\n", 6, "must be a mapping"),
    ("tenant unknown key", HEADER + "    tool_access:\n      member:\n        acme:\n"
     "          deny: [x]\n", 7, "deny_list"),
    ("approval on a prompt policy", HEADER + "    access:\n      prompt:\n"
     "        approval_list: [p]\n", 6, "prompt"),
    ("member names no server", "mcp_servers:\n  core:\n    mode: group\n    members:\n"
     "      - id: ghost\n", 5, "names no server"),
    ("member tools a list", HEADER + "  core:\n    mode: group\n    members:\n"
     "      - id: api\n        tools: [x]\n", 8, "must be a mapping, not list"),
    ("not YAML", HEADER + "    tools: {deny_list: [x]\n", 5, "not valid YAML"),
    ("no mcp_servers", "logging: {level: INFO}\n", 1, "mcp_servers"),
    ("empty", "", 1, "mcp_servers"),
    ("missing variable", HEADER + "    tools:\n      deny_list: ['${NOT_SET_ANYWHERE}']\n", 5,
     "NOT_SET_ANYWHERE"),
]


@pytest.mark.parametrize(("name", "text", "line", "words"), REFUSED, ids=[r[0] for r in REFUSED])
def test_refusals_name_file_and_line(name: str, text: str, line: int, words: str,
                                     tmp_path: Path) -> None:
    path = tmp_path / "hangar.yaml"
    path.write_text(text)
    with pytest.raises(HangarConfigError) as caught:
        load_hangar(path, environ={})
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert words in message and "\n" not in message


ACCEPTED_PATTERNS = ["/*", "[!]]*", "Read File", "*", "a[", "\\x", "!drop", "~tool", "x,y"]


def test_every_pattern_hangars_loader_takes_is_taken() -> None:
    text = HEADER + "    tools:\n      deny_list:\n" + "".join(
        f"        - {json.dumps(p)}\n" for p in ACCEPTED_PATTERNS)
    config = read_hangar(text, source="h.yaml")
    assert config.server_blocks["api"].deny_list == tuple(ACCEPTED_PATTERNS)
    answers = answer_tools(config, CallRoute("api"), ["/etc", "]x", "Read File", "ok"])
    assert [a.visible for a in answers] == [False, False, False, False]  # "*" hides all


def test_a_block_without_patterns_is_no_policy_whatever_its_timeout() -> None:
    # Hangar reads the timeout only once a list names something.
    config = read_hangar(HEADER + "    tools:\n      allow_list: []\n"
                         "      approval_timeout_seconds: -1\n", source="h.yaml")
    assert "api" not in config.server_blocks


def test_variables_are_filled_from_the_environment_given() -> None:
    text = HEADER + "    tools:\n      deny_list: ['${DENY}', '${OTHER:-drop_db}']\n"
    config = read_hangar(text, source="h.yaml", environ={"DENY": "delete_*"})
    assert config.server_blocks["api"].deny_list == ("delete_*", "drop_db")


def test_skipped_ids_and_group_tenant_blocks_are_warnings() -> None:
    text = ("mcp_servers:\n  _global:\n    tools: {deny_list: [x]}\n  api:\n    command: [t]\n"
            "  core:\n    mode: group\n    tool_access:\n      member:\n        acme: {}\n"
            "    members:\n      - id: api\n      - weight: 2\n")
    config = read_hangar(text, source="h.yaml")
    assert config.servers == ("api",) and config.groups == {"core": ("api",)}
    joined = "\n".join(config.warnings)
    assert "h.yaml:2:" in joined and "_global" in joined
    assert "h.yaml:9:" in joined and "h.yaml:13:" in joined


def test_inline_member_is_a_server_with_its_own_block() -> None:
    text = ("mcp_servers:\n  core:\n    mode: group\n    members:\n      - id: tmp\n"
            "        command: [t]\n        tools: {deny_list: [drop_db]}\n")
    config = read_hangar(text, source="h.yaml")
    assert config.servers == ("tmp",)
    assert config.server_blocks["tmp"].deny_list == ("drop_db",)
    assert ("core", "tmp") in config.mapped
    [via] = answer_tools(config, CallRoute("tmp", via="core"), ["drop_db"])
    assert not via.visible and via.finding is None


def test_route_errors_name_what_exists() -> None:
    config = read_hangar(HEADER + "  core:\n    mode: group\n    members: [{id: api}]\n",
                         source="h.yaml")
    for route, words in ((CallRoute("nope"), "no server 'nope' (servers: api)"),
                         (CallRoute("api", via="ghost"), "no group 'ghost'"),
                         (CallRoute("core"), "is a group"),
                         (CallRoute("x", via="core"), "not a member of group 'core'")):
        with pytest.raises(HangarConfigError, match=re.escape(words)):
            answer_tools(config, route, ["t"])


@pytest.mark.real
@pytest.mark.skipif(importlib.util.find_spec("mcp_hangar") is None, reason="needs mcp-hangar")
@pytest.mark.parametrize(("name", "text", "line", "words"),
                         [r for r in REFUSED if r[0] not in ("not YAML", "missing variable")],
                         ids=[r[0] for r in REFUSED if r[0] not in ("not YAML",
                                                                    "missing variable")])
def test_hangar_refuses_the_same_configurations(name: str, text: str, line: int, words: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml

    oracle = pytest.importorskip("hangar_oracle")
    monkeypatch.setenv("HANGAR_CONFIG_STRICT", "1")  # what `mcp-hangar config check` does
    with pytest.raises(Exception):  # noqa: B017 -- hangar raises several kinds
        oracle.HangarOracle.check(yaml.safe_load(text))


@pytest.mark.real
@pytest.mark.skipif(importlib.util.find_spec("mcp_hangar") is None, reason="needs mcp-hangar")
def test_hangar_takes_the_patterns_too(monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml

    oracle = pytest.importorskip("hangar_oracle")
    monkeypatch.setenv("HANGAR_CONFIG_STRICT", "1")
    text = HEADER + "    tools:\n      deny_list:\n" + "".join(
        f"        - {json.dumps(p)}\n" for p in ACCEPTED_PATTERNS)
    oracle.HangarOracle.check(yaml.safe_load(text))
    answers = oracle.HangarOracle(text).answers("api", None, None, ["/etc", "]x", "ok"])
    assert [a[1] for a in answers] == [False, False, False]
