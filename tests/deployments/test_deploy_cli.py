"""--client-config on the command line: every command that takes server settings, the
same answers as the settings given by hand, and one-line errors."""

from __future__ import annotations

import json

import pytest
from client_configs import CANARY, fs_entry, gee_entry, mcp_servers, write
from conftest import run_cli as run

from localfs_explorer.cli.main import build_parser

#: The commands that answer for a server's configuration.
SERVER_COMMANDS = ("check", "validate", "tools", "probe", "auth-status", "export-env", "test",
                   "diff", "report", "exposure", "suggest", "verify", "serve", "replay")


def _options(command: str) -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return {o for a in sub.choices[command]._actions for o in a.option_strings}


@pytest.mark.parametrize("command", SERVER_COMMANDS)
def test_every_server_command_takes_the_client_config_options(command):
    assert {"--client-config", "--entry", "--client-format"} <= _options(command)


@pytest.fixture
def desktop(tmp_path, layout):
    return write(tmp_path / "claude_desktop_config.json", mcp_servers({
        "sheets": gee_entry(layout.data, args=["mcp-gee-sweet@0.9.5", "--transport", "sse"]),
        "files": fs_entry(layout.data),
    }))


def _hand(layout):
    return ["--set", "LOCAL_FILE_ACCESS=roots", "--set", f"LOCAL_FILE_ROOTS={layout.data}",
            "--set", f"CREDENTIALS_CONFIG={CANARY}", "--transport", "sse"]


def test_validate_equals_the_settings_given_by_hand_and_shows_provenance(desktop, layout):
    code, out, err = run("validate", "--json", "--client-config", str(desktop),
                         "--entry", "sheets")
    assert code == 0, err
    # The same JSON as the settings given by hand, byte for byte.
    assert (code, out) == run("validate", "--json", *_hand(layout))[:2]
    code, out, _ = run("validate", "--json", "--provenance", "--client-config", str(desktop),
                       "--entry", "sheets")
    deployment = json.loads(out)["deployment"]
    assert deployment["server"] == "mcp-gee-sweet" and deployment["transport"] == "sse"
    assert deployment["env"]["CREDENTIALS_CONFIG"] == "••••••"
    sources = {p["setting"]: p["source"] for p in deployment["provenance"]}
    assert sources["transport"] == "entry" and sources["cwd"] == "default"

    code, out, err = run("validate", "--client-config", str(desktop), "--entry", "sheets")
    assert code == 0
    assert out.startswith(f"deployment: Claude Desktop entry 'sheets' ({desktop}:3): "
                          "mcp-gee-sweet 0.9.5\n")
    assert "  transport = sse  [entry, line" in out
    assert "  version = 0.9.5  [entry, line" in out
    assert CANARY not in out + err


@pytest.mark.parametrize("command", ["check", "auth-status", "tools"])
def test_commands_answer_as_for_the_settings_given_by_hand(desktop, layout, command):
    extra = [str(layout.data / "a.csv"), str(layout.outside)] if command == "check" else []
    extra += ["--json"] if command != "auth-status" else []
    by_entry = run(command, "--client-config", str(desktop), "--entry", "sheets", *extra)
    by_hand = run(command, *_hand(layout), *extra)
    assert by_entry == by_hand
    assert CANARY not in by_entry[1] + by_entry[2]


def test_options_given_win_over_the_entry(desktop, layout):
    code, out, _ = run("auth-status", "--client-config", str(desktop), "--entry", "sheets",
                       "--set", "LOCAL_FILE_ACCESS=off", "--transport", "stdio")
    assert code == 0 and json.loads(out)["local_file_access"]["mode"] == "off"
    code, out, _ = run("validate", "--json", "--client-config", str(desktop), "--entry",
                       "sheets", "--unset", "LOCAL_FILE_ACCESS", "--transport", "stdio")
    # Unset and stdio: the server's own default, full.
    assert code == 0 and json.loads(out)["mode"] == "full"


def test_validate_marks_what_the_command_line_replaced(desktop):
    code, out, _ = run("validate", "--client-config", str(desktop), "--entry", "sheets",
                       "--set", "LOCAL_FILE_ACCESS=full", "--transport", "stdio")
    assert code == 0
    lines = {line.split("=")[0].strip(): line for line in out.splitlines() if "[" in line}
    assert lines["env LOCAL_FILE_ACCESS"].endswith("(replaced on the command line)")
    assert lines["transport"].endswith("(replaced on the command line)")
    assert not lines["env LOCAL_FILE_ROOTS"].endswith("(replaced on the command line)")
    code, out, _ = run("validate", "--json", "--provenance", "--client-config", str(desktop),
                       "--entry", "sheets", "--unset", "LOCAL_FILE_ROOTS", "--transport",
                       "stdio")
    assert json.loads(out)["deployment"]["overridden"] == ["env LOCAL_FILE_ROOTS",
                                                          "transport"]


def test_test_lays_each_scenario_over_the_entry(tmp_path, desktop, layout):
    scenario = write(tmp_path / "s.toml", f"""\
[[scenario]]
name = "the entry's roots"
[[scenario.path]]
path = "{layout.data}/a.csv"
allowed = true
[[scenario.path]]
path = "{layout.outside}/b.csv"
allowed = false
""")
    code, out, err = run("test", str(scenario), "--client-config", str(desktop), "--entry",
                         "sheets")
    assert code == 0, out + err
    # Without the entry the server is in full mode (stdio, nothing set): the second fails.
    assert run("test", str(scenario))[0] == 1
    # The filesystem server's entry: its argv directory is the scenario's allowed one.
    code, out, err = run("test", str(scenario), "--client-config", str(desktop), "--entry",
                         "files", "--json")
    run_ = json.loads(out)
    assert code == 0, out + err
    assert run_["scenarios"][0]["config"]["allowed_directories"] == [str(layout.data)]
    assert {c["actual"]["reason"] for c in run_["cases"]} == {"inside", "outside"}


def test_diff_starts_both_sides_from_the_entry(desktop, layout):
    code, out, err = run("diff", "--client-config", str(desktop), "--entry", "sheets",
                         "--after-set", f"LOCAL_FILE_ROOTS={layout.data}:{layout.outside}",
                         "--path", str(layout.outside / "x.csv"), "--json")
    assert code == 1, err  # new access: outside becomes readable
    assert str(layout.outside / "x.csv") in out


@pytest.mark.parametrize(("text", "args", "message"), [
    ('{"mcpServers": {', [], ":1: not valid JSON"),
    (None, ["--entry", "nope"], "no entry named 'nope'"),
    (None, [], "2 entries start a known server"),
    ('{"mcpServers": {"a": {"command": "node", "args": ["x.js"]}}}', ["--entry", "a"],
     "runs 'node x.js', which the explorer doesn't model"),
    ('{"servers": {"a": {"command": "mcp-gee-sweet", "env": {"TOKEN": "${input:t}"}}}}', [],
     "${input:t} can't be resolved"),
    (None, ["--entry", "sheets", "--server", "server-filesystem"],
     "--server server-filesystem, but entry 'sheets'"),
])
def test_errors_are_one_line_and_exit_2(tmp_path, desktop, text, args, message):
    path = desktop if text is None else write(tmp_path / "client.json", text)
    code, out, err = run("validate", "--client-config", str(path), *args)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_validate_a_filesystem_entry_as_given_by_hand(desktop, layout):
    by_entry = run("validate", "--json", "--client-config", str(desktop), "--entry", "files")
    by_hand = run("validate", "--json", "--server", "server-filesystem", "--allowed-dir",
                  str(layout.data))
    assert by_entry[0] == 0, by_entry[2]
    assert by_entry == by_hand
    code, out, _ = run("validate", "--client-config", str(desktop), "--entry", "files")
    assert code == 0
    assert out.startswith(f"deployment: Claude Desktop entry 'files' ({desktop}:")
    assert f"  allowed dir = {layout.data}  [entry, line" in out


def test_a_prompt_is_fine_when_set_gives_its_variable(tmp_path):
    path = write(tmp_path / ".vscode" / "mcp.json", json.dumps({"servers": {"a": {
        "command": "mcp-gee-sweet", "env": {"CREDENTIALS_CONFIG": "${input:creds}"}}}}))
    code, out, err = run("validate", "--client-config", str(path), "--set",
                         f"CREDENTIALS_CONFIG={CANARY}")
    assert code == 0, err
    assert CANARY not in out + err


def test_entry_without_client_config_is_a_usage_error():
    code, _, err = run("validate", "--entry", "sheets")
    assert code == 2 and "--entry and --client-format go with --client-config" in err


def test_client_format_choices_follow_the_readers():
    from localfs_explorer.cli.options import CLIENT_FORMATS
    from localfs_explorer.deployments import FORMATS

    assert CLIENT_FORMATS == FORMATS


@pytest.mark.parametrize(("name", "key"), [
    ("claude_desktop_config.json", "mcpServers"), (".mcp.json", "mcpServers"),
    (".vscode/mcp.json", "servers"), (".cursor/mcp.json", "mcpServers"),
])
def test_filesystem_entries_answer_as_allowed_dir_given_by_hand(tmp_path, layout, name, key):
    path = write(tmp_path / "proj" / name, mcp_servers({
        "sheets": gee_entry(layout.data), "files": fs_entry(layout.data, layout.home)}, key=key))
    probes = [str(layout.data / "a.csv"), str(layout.outside / "b.csv"), "--json"]
    by_entry = run("check", "--client-config", str(path), "--entry", "files", *probes)
    by_hand = run("check", "--server", "server-filesystem", "--allowed-dir", str(layout.data),
                  "--allowed-dir", str(layout.home), "--server-version", "2026.8.31", *probes)
    assert by_entry == by_hand
    assert by_entry[0] == 1 and '"allowed": true' in by_entry[1]


def test_a_relative_directory_means_the_workspace_folder(tmp_path):
    (tmp_path / "proj" / "data").mkdir(parents=True)
    (tmp_path / "data").mkdir()
    path = write(tmp_path / "proj" / ".vscode" / "mcp.json", mcp_servers({
        "files": fs_entry("data")}, key="servers"))
    inside = str(tmp_path / "proj" / "data" / "a.csv")
    by_entry = run("check", "--client-config", str(path), inside, "--json")
    by_hand = run("check", "--server", "server-filesystem", "--allowed-dir", "data",
                  "--cwd", str(tmp_path / "proj"), inside, "--json")
    assert by_entry == by_hand and by_entry[0] == 0
    # From elsewhere the same relative directory is another one.
    assert run("check", "--server", "server-filesystem", "--allowed-dir", "data",
               "--cwd", str(tmp_path), inside, "--json")[0] == 1


def test_hangar_filesystem_entry(tmp_path, layout):
    path = write(tmp_path / "hangar.yaml", f"""\
mcp_servers:
  files:
    command: [npx, -y, "@modelcontextprotocol/server-filesystem@2026.8.31"]
    args: ["{layout.data}"]
""")
    code, out, err = run("check", "--client-config", str(path), str(layout.data / "a"),
                         "--json")
    assert code == 0, err
    assert json.loads(out)["reason"] == "inside"


def test_server_option_against_the_entry_is_a_usage_error(tmp_path, layout):
    path = write(tmp_path / ".mcp.json", mcp_servers({"files": fs_entry(layout.data)}))
    code, _, err = run("check", "--client-config", str(path), "--server", "mcp-gee-sweet",
                       str(layout.data))
    assert code == 2 and "starts server-filesystem" in err


def test_verify_of_a_filesystem_entry_starts_the_entry_command(tmp_path, layout):
    from localfs_explorer.cli.options import apply_deployment, deployment, server_config

    path = write(tmp_path / ".mcp.json", mcp_servers({"files": fs_entry(layout.data)}))
    args = build_parser().parse_args(["verify", "--client-config", str(path)])
    apply_deployment(args)
    assert args.server == "server-filesystem"
    config = server_config(args)
    assert config.server_options == {"directories": (str(layout.data),)}
    assert args.server_version is None  # the pin is the default release
    # verify starts exactly the entry's command line.
    assert deployment(args).argv == ["npx", "-y",
                                     "@modelcontextprotocol/server-filesystem@2026.8.31",
                                     str(layout.data)]
    # Options given by hand win.
    args = build_parser().parse_args(["check", "--client-config", str(path), "--allowed-dir",
                                      "/other", "x"])
    apply_deployment(args)
    assert server_config(args).server_options == {"directories": ("/other",)}


def test_diff_of_a_filesystem_entry_starts_both_sides_from_it(tmp_path, layout):
    path = write(tmp_path / ".mcp.json", mcp_servers({"files": fs_entry(layout.data)}))
    code, out, err = run("diff", "--client-config", str(path), "--path",
                         str(layout.data / "a.csv"), "--path", str(layout.outside / "b"),
                         "--after-allowed-dir", str(layout.outside), "--no-generated",
                         "--op", "read", "--json")
    changes = json.loads(out)["changes"]
    assert code == 1, err  # new access: the after side's directory replaces the entry's
    by_probe = {c["probe"]: c for c in changes}
    assert by_probe[f"read {layout.outside}/b"]["change"] == "new_access"
    assert by_probe[f"read {layout.outside}/b"]["before"]["reason"] == "outside"
    assert by_probe[f"read {layout.data}/a.csv"]["change"] == "removed_access"


@pytest.mark.parametrize("command", ["tools", "auth-status", "probe"])
def test_other_commands_answer_for_a_filesystem_entry_as_by_hand(desktop, layout, command):
    extra = ["--json"] if command != "auth-status" else []
    if command == "probe":
        extra += ["--call", json.dumps({"name": "read_text_file",
                                        "arguments": {"path": str(layout.data / "a.txt")}})]
    by_entry = run(command, "--client-config", str(desktop), "--entry", "files", *extra)
    by_hand = run(command, "--server", "server-filesystem", "--allowed-dir", str(layout.data),
                  *extra)
    assert by_entry == by_hand
    assert by_entry[0] in (0, 1), by_entry[2]
