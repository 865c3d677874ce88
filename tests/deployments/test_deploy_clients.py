"""Which client reads a file (its name and folder before its shape), Claude Desktop's
Filesystem extension settings, and each argument's own line."""

from __future__ import annotations

import json

import pytest
from client_configs import mcp_servers, write
from conftest import run_cli as run

from localfs_explorer.deployments import DeploymentError, load_deployment, read_client_config

EXTENSION = "ant.dir.ant.anthropic.filesystem"


@pytest.mark.parametrize(("where", "fmt"), [
    (".cursor/mcp.json", "cursor"),
    (".vscode/mcp.json", "vscode"),
    ("Code/User/mcp.json", "vscode"),
    ("Code - Insiders/User/mcp.json", "vscode"),
    ("project/.mcp.json", "claude-code"),
    ("Claude/claude_desktop_config.json", "claude-desktop"),
])
def test_the_name_and_folder_decide_the_client(tmp_path, where, fmt):
    key = "servers" if fmt == "vscode" else "mcpServers"
    path = write(tmp_path / where, mcp_servers({"a": {"command": "x"}}, key))
    config = read_client_config(path)
    assert config.format == fmt and [e.name for e in config.entries] == ["a"]
    assert config.warnings == []


@pytest.mark.parametrize(("where", "key", "fmt", "other"), [
    (".vscode/mcp.json", "mcpServers", "vscode", "claude-desktop"),
    ("Code/User/mcp.json", "mcpServers", "vscode", "claude-desktop"),
    (".cursor/mcp.json", "servers", "cursor", "vscode"),
    ("proj/.mcp.json", "servers", "claude-code", "vscode"),
])
def test_a_shape_for_another_client_gets_its_clients_answer_and_a_note(tmp_path, where, key,
                                                                        fmt, other):
    path = write(tmp_path / where, mcp_servers(
        {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem",
                                             str(tmp_path)]}}, key))
    config = read_client_config(path)
    assert config.format == fmt and config.entries == []
    assert len(config.warnings) == 1
    assert f"--client-format {other}" in config.warnings[0]
    assert "starts none of them" in config.warnings[0]
    # Asked to read it as the other client, it does.
    assert read_client_config(path, other).entries[0].name == "files"
    # A command taking one entry says why there is none.
    with pytest.raises(DeploymentError, match="no server entries"):
        load_deployment(path)


def test_a_file_without_any_servers_key_is_still_refused(tmp_path):
    path = write(tmp_path / ".vscode" / "mcp.json", '{"other": {}}\n')
    with pytest.raises(DeploymentError, match="no 'servers' object"):
        read_client_config(path)


def _extension(tmp_path, dirs, enabled="true"):
    items = ",\n".join(f"      {json.dumps(str(d))}" for d in dirs)
    text = ("{\n"
            f'  "isEnabled": {enabled},\n'
            '  "userConfig": {\n'
            '    "allowed_directories": [\n'
            f"{items}\n"
            "    ]\n"
            "  }\n"
            "}\n")
    return write(tmp_path / "Claude" / "Claude Extensions Settings" / f"{EXTENSION}.json",
                 text)


def test_the_filesystem_extension_settings_are_the_filesystem_server(tmp_path, layout):
    path = _extension(tmp_path, [layout.data, layout.outside])
    found = load_deployment(path)
    assert found.format == "claude-extension" and found.entry == EXTENSION
    assert found.server == "server-filesystem"
    assert found.arg_paths == [str(layout.data), str(layout.outside)]
    lines = [p.line for p in found.provenance if p.setting == "allowed dir"]
    assert lines == [5, 6]  # each directory's own line
    version = next(p for p in found.provenance if p.setting == "version")
    assert "bundles" in version.detail


def test_the_extension_settings_are_read_by_name_or_by_shape(tmp_path, layout):
    path = _extension(tmp_path, [layout.data])
    elsewhere = write(tmp_path / "copy.json", path.read_text())
    assert read_client_config(elsewhere).format == "claude-extension"
    other = write(tmp_path / "Claude Extensions Settings" / "some.other.extension.json",
                  path.read_text())
    entry = read_client_config(other).entries[0]
    assert entry.problems and "not one whose server the explorer models" in entry.problems[0]


def test_a_turned_off_extension_is_not_started(tmp_path, layout):
    path = _extension(tmp_path, [layout.data], enabled="false")
    with pytest.raises(DeploymentError, match=r":2: the extension is turned off"):
        load_deployment(path)


@pytest.mark.parametrize("command", ["check", "validate", "tools", "exposure"])
def test_every_command_taking_a_client_config_reads_the_extension_file(tmp_path, layout,
                                                                       command):
    path = _extension(tmp_path, [layout.data])
    extra = {"check": [str(layout.data / "report.csv"), str(layout.outside / "other.txt")],
             "validate": [], "tools": [], "exposure": ["--fail-on", "none"]}[command]
    by_file = run(command, "--client-config", path, *extra)
    by_hand = run(command, "--server", "server-filesystem", "--allowed-dir", layout.data,
                  *extra)
    assert by_file[0] == by_hand[0] != 2, by_file[2]
    if command in ("check", "tools"):
        assert by_file[1] == by_hand[1]


def test_each_argument_has_its_own_line(tmp_path, layout):
    text = ('{\n  "mcpServers": {\n    "gee": {\n      "command": "uvx",\n      "args": [\n'
            '        "mcp-gee-sweet@0.9.5",\n        "--transport",\n        "bogus"\n'
            "      ]\n    },\n"
            '    "files": {\n      "command": "npx",\n      "args": [\n        "-y",\n'
            '        "@modelcontextprotocol/server-filesystem",\n'
            f"        {json.dumps(str(layout.data))},\n"
            f"        {json.dumps(str(layout.outside))}\n"
            "      ]\n    }\n  }\n}\n")
    path = write(tmp_path / "claude_desktop_config.json", text)
    with pytest.raises(DeploymentError, match=r"claude_desktop_config.json:8: entry 'gee': "
                       "--transport 'bogus'"):
        load_deployment(path, "gee")
    found = load_deployment(path, "files")
    assert [p.line for p in found.provenance if p.setting == "allowed dir"] == [16, 17]


@pytest.mark.parametrize("directory", ["C:\\Users\\me\\proj", "C:/Users/me/proj",
                                       "\\\\fileserver\\share\\proj"])
def test_a_windows_path_is_named_as_one_by_every_command(tmp_path, directory):
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem",
                                   directory]}}))
    found = load_deployment(path)
    assert any(n.startswith(f"{directory}: Windows paths") for n in found.notes)
    _, out, err = run("validate", "--client-config", path)
    assert "Windows paths; the directories can't be checked on this machine" in out + err


@pytest.mark.parametrize("directory", ["C:\\Users\\me\\proj", "\\\\fileserver\\share\\proj"])
def test_validate_of_windows_paths_says_unchecked_and_not_would_exit(tmp_path, directory):
    # As `deployment` answers: this machine can't say whether the server would start, so
    # validate names the paths, predicts no exit and exits 0 (nothing was found wrong).
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem",
                                   directory]}}))
    code, out, err = run("validate", "--client-config", path)
    assert code == 0
    assert "the directories can't be checked here" in out
    assert "would exit" not in out + err and "Cannot access" not in out + err
    code, out, _ = run("validate", "--client-config", path, "--json")
    answer = json.loads(out)
    assert code == 0
    assert answer["checked"] is False and answer["windows_paths"] == [directory]
    assert answer["serves"] is None


def test_validate_of_a_missing_posix_directory_still_would_exit(tmp_path):
    # The unchecked answer is for Windows paths only: a missing POSIX directory is judged.
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem",
                                   str(tmp_path / "missing")]}}))
    code, out, err = run("validate", "--client-config", path)
    assert code == 2 and "would exit" in out + err


def test_a_posix_path_is_not_taken_for_a_windows_one(tmp_path, layout):
    path = write(tmp_path / "claude_desktop_config.json",
                 mcp_servers({"files": {"command": "npx", "args": [
                     "-y", "@modelcontextprotocol/server-filesystem", str(layout.data),
                     "relative/C:/x"]}}))
    assert not any("Windows" in n for n in load_deployment(path).notes)


def test_each_argument_of_a_hangar_command_has_its_own_line(tmp_path, layout):
    path = write(tmp_path / "hangar.yaml", f"""mcp_servers:
  files:
    command:
      - npx
      - -y
      - "@modelcontextprotocol/server-filesystem"
    args:
      - {layout.data}
      - {layout.outside}
""")
    found = load_deployment(path)
    assert [p.line for p in found.provenance if p.setting == "allowed dir"] == [8, 9]


@pytest.mark.parametrize("argv", [
    ("probe", "--call", '{"name": "list_allowed_directories", "arguments": {}}'),
    ("auth-status",),
    ("diff", "--after-set", "X=1"),
    ("suggest", "--require", "read:{data}/report.csv"),
    ("report", "--path", "{data}/report.csv", "-o", "{tmp}/r.json"),
])
def test_the_other_commands_read_the_extension_file_too(tmp_path, layout, argv):
    path = _extension(tmp_path, [layout.data])
    argv = [a.replace("{data}", str(layout.data)).replace("{tmp}", str(tmp_path))
            for a in argv]
    code, _, err = run(*argv, "--client-config", path)
    assert code in (0, 1), err
    # export-env reads it and says why there is nothing to write.
    code, _, err = run("export-env", "--dry-run", "--set", "X=1", "--client-config", path)
    assert code == 2 and "takes no settings from its environment" in err
