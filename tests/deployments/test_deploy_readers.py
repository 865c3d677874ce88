"""Reading client configs: JSON with positions, the five formats, their errors."""

from __future__ import annotations

import pytest
from client_configs import fs_entry, gee_entry, mcp_servers, write

from localfs_explorer.deployments import DeploymentError, read_client_config
from localfs_explorer.deployments.jsonc import JsonSyntaxError, parse, plain

# --- JSON with positions -----------------------------------------------------------------


def test_parse_gives_each_value_its_exact_span_and_line():
    text = '{\n  "a": {"b": [1, "x\\"y"]},\n  "c": null\n}'
    tree = parse(text)
    b = tree.get("a").get("b")
    assert text[b.start:b.end] == '[1, "x\\"y"]'
    assert b.line == 2
    assert plain(tree) == {"a": {"b": [1, 'x"y']}, "c": None}
    member = tree.member("c")
    assert text[member.key_start:member.key_start + 3] == '"c"'
    assert member.value.line == 3


def test_comments_and_trailing_commas_only_when_asked():
    text = '{\n  // a comment\n  "a": [1, 2,], /* more */\n}\n'
    assert plain(parse(text, comments=True)) == {"a": [1, 2]}
    with pytest.raises(JsonSyntaxError) as exc:
        parse(text)
    assert exc.value.line == 2 and "comment" in str(exc.value)
    with pytest.raises(JsonSyntaxError) as exc:
        parse('{\n"a": 1,\n}')
    assert exc.value.line == 3 and "trailing comma" in str(exc.value)


@pytest.mark.parametrize(("text", "line"), [
    ('{"a": 1', 1), ('{\n"a": }', 2), ('{\n\n"a": 1} x', 3), ('{"a": "b\nc"}', 1),
    ("[1,\n2,\n3", 1), ('{\n"a" 1}', 2), ("", 1), ("{\n  /* open", 2),
])
def test_malformed_json_names_the_line(text, line):
    with pytest.raises(JsonSyntaxError) as exc:
        parse(text, comments=True)
    assert exc.value.line == line


def test_the_last_of_a_repeated_key_wins_as_in_json_parse():
    assert plain(parse('{"a": 1, "a": 2}')) == {"a": 2}
    assert parse('{"a": 1, "a": 2}').get("a").scalar == 2


# --- formats -----------------------------------------------------------------------------


def test_claude_desktop_by_its_file_name(tmp_path):
    path = write(tmp_path / "claude_desktop_config.json",
                 mcp_servers({"sheets": gee_entry(tmp_path), "files": fs_entry(tmp_path)}))
    config = read_client_config(path)
    assert config.format == "claude-desktop"
    assert [e.name for e in config.entries] == ["sheets", "files"]
    sheets = config.entries[0]
    assert sheets.command == "uvx" and sheets.args == ["mcp-gee-sweet@0.9.5"]
    lines = path.read_text().splitlines()
    assert sheets.line == 3 and '"sheets"' in lines[2]
    assert '"LOCAL_FILE_ROOTS"' in lines[sheets.lines["env.LOCAL_FILE_ROOTS"] - 1]


def test_claude_code_by_its_file_name_and_the_others_by_folder(tmp_path):
    text = mcp_servers({"sheets": gee_entry(tmp_path)})
    assert read_client_config(write(tmp_path / ".mcp.json", text)).format == "claude-code"
    assert read_client_config(write(tmp_path / ".cursor" / "mcp.json", text)).format == "cursor"
    vscode = mcp_servers({"sheets": gee_entry(tmp_path)}, key="servers")
    assert read_client_config(write(tmp_path / "any.json", vscode)).format == "vscode"


def test_an_unnamed_file_is_told_by_the_variables_it_uses(tmp_path):
    entry = gee_entry(tmp_path)
    entry["env"]["LOCAL_FILE_ROOTS"] = "${env:DATA}"
    assert read_client_config(write(tmp_path / "a.json", mcp_servers({"s": entry}))).format \
        == "cursor"
    entry["env"]["LOCAL_FILE_ROOTS"] = "${DATA:-/srv}"
    assert read_client_config(write(tmp_path / "b.json", mcp_servers({"s": entry}))).format \
        == "claude-code"
    entry["env"]["LOCAL_FILE_ROOTS"] = "/srv"
    assert read_client_config(write(tmp_path / "c.json", mcp_servers({"s": entry}))).format \
        == "claude-desktop"


def test_the_format_option_wins_over_the_shape(tmp_path):
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({"s": gee_entry(tmp_path)}))
    assert read_client_config(path, "cursor").format == "cursor"
    with pytest.raises(DeploymentError, match="unknown client format 'emacs'"):
        read_client_config(path, "emacs")


def test_vscode_reads_comments_and_its_inputs(tmp_path):
    path = write(tmp_path / ".vscode" / "mcp.json", """{
  // prompts
  "inputs": [{"type": "promptString", "id": "creds", "password": true},],
  "servers": {
    "sheets": {"type": "stdio", "command": "mcp-gee-sweet", "envFile": "${workspaceFolder}/.env",
               "cwd": "srv",},
  },
}
""")
    config = read_client_config(path)
    assert config.format == "vscode"
    assert config.inputs["creds"]["password"] is True
    entry = config.entries[0]
    assert (entry.type, entry.env_file, entry.cwd) == ("stdio", "${workspaceFolder}/.env", "srv")
    assert entry.line == 5


def test_clients_that_read_strict_json_refuse_comments_with_the_line(tmp_path):
    path = write(tmp_path / "claude_desktop_config.json",
                 '{\n  "mcpServers": {\n    // no\n  }\n}\n')
    with pytest.raises(DeploymentError) as exc:
        read_client_config(path)
    assert str(exc.value).startswith(f"{path}:3: not valid JSON")
    assert "Claude Desktop reads strict JSON" in str(exc.value)


@pytest.mark.parametrize(("text", "message"), [
    ('{"mcpServers": {"a": {"command": "x"}', ":1: not valid JSON"),
    ('{\n"mcpServers": [1]\n}', ":2: 'mcpServers' must be an object"),
    ('{"other": {}}', "no mcpServers, servers or mcp_servers"),
    ("[1, 2]", "the top level is not an object"),
])
def test_malformed_files_are_one_line_errors(tmp_path, text, message):
    path = write(tmp_path / "client.json", text)
    with pytest.raises(DeploymentError) as exc:
        read_client_config(path)
    assert message in str(exc.value) and "\n" not in str(exc.value)
    assert str(exc.value).startswith(str(path))


def test_an_entry_with_a_wrongly_typed_field_is_kept_with_its_problem(tmp_path):
    path = write(tmp_path / ".mcp.json", '{"mcpServers": {\n"a": {"command": "x", '
                 '"args": "not-a-list"},\n"b": 3}}')
    a, b = read_client_config(path).entries
    assert a.problems == [f"{path}:2: entry 'a': 'args' must be a list of strings"]
    assert b.problems == [f"{path}:3: entry 'b' is not an object"]


def test_numbers_in_env_reach_the_server_as_written(tmp_path):
    path = write(tmp_path / ".mcp.json",
                 '{"mcpServers": {"a": {"command": "x", "env": {"N": 8080, "F": false, '
                 '"GONE": null}}}}')
    assert read_client_config(path).entries[0].env == {"N": "8080", "F": "false"}


# --- mcp-hangar's YAML -------------------------------------------------------------------


HANGAR = """\
# gateway
mcp_servers:
  sheets:
    mode: subprocess
    command: [uvx, mcp-gee-sweet@0.9.5]
    args: [--transport, stdio]
    env:
      LOCAL_FILE_ACCESS: roots
      LOCAL_FILE_ROOTS: /srv/data
  files:
    mode: docker
    image: mcp/filesystem:2026.8.31
    volumes: ["/srv/data:/projects/data:ro"]
    args: [/projects/data]
"""


def test_hangar_yaml_entries_with_their_lines(tmp_path):
    config = read_client_config(write(tmp_path / "hangar.yaml", HANGAR))
    assert config.format == "hangar"
    sheets, files = config.entries
    assert (sheets.command, sheets.args) == ("uvx", ["mcp-gee-sweet@0.9.5", "--transport",
                                                     "stdio"])
    assert sheets.line == 3 and sheets.lines["env.LOCAL_FILE_ROOTS"] == 9
    assert sheets.env == {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/srv/data"}
    assert (files.type, files.image, files.volumes) == (
        "docker", "mcp/filesystem:2026.8.31", ["/srv/data:/projects/data:ro"])


def test_malformed_yaml_names_the_line(tmp_path):
    path = write(tmp_path / "hangar.yml", "mcp_servers:\n  a:\n    command: [x\n  b: 1\n")
    with pytest.raises(DeploymentError) as exc:
        read_client_config(path)
    assert str(exc.value).startswith(f"{path}:4: not valid YAML")
    path = write(tmp_path / "other.yaml", "servers: {}\n")
    with pytest.raises(DeploymentError, match="no 'mcp_servers' section"):
        read_client_config(path)
