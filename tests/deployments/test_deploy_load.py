"""From an entry to the server's configuration: expansion per client, envFile, provenance,
the configuration equal to the one given by hand, and every error."""

from __future__ import annotations

import json

import pytest
from client_configs import CANARY, fs_entry, gee_entry, mcp_servers, write

from localfs_explorer import ServerConfig, resolve_config
from localfs_explorer.deployments import (
    DeploymentError,
    list_entries,
    load_deployment,
)
from localfs_explorer.secrets import MASK
from localfs_explorer.server import list_servers

FORMAT_FILES = {
    "claude-desktop": ("claude_desktop_config.json", "mcpServers"),
    "claude-code": (".mcp.json", "mcpServers"),
    "cursor": (".cursor/mcp.json", "mcpServers"),
    "vscode": (".vscode/mcp.json", "servers"),
}


def _file(tmp_path, fmt, entries):
    name, key = FORMAT_FILES[fmt]
    return write(tmp_path / "proj" / name, mcp_servers(entries, key=key))


@pytest.mark.parametrize("fmt", sorted(FORMAT_FILES))
def test_each_format_gives_the_configuration_given_by_hand(tmp_path, fmt, layout):
    path = _file(tmp_path, fmt, {
        "sheets": gee_entry(layout.data, args=["mcp-gee-sweet@0.9.5", "--transport", "sse"]),
        "files": fs_entry(layout.data, layout.outside),
    })
    found = load_deployment(path, "sheets")
    assert (found.format, found.server, found.server_version, found.transport) == (
        fmt, "mcp-gee-sweet", "0.9.5", "sse")
    by_hand = ServerConfig(settings={"LOCAL_FILE_ACCESS": "roots",
                                     "LOCAL_FILE_ROOTS": str(layout.data),
                                     "CREDENTIALS_CONFIG": CANARY},
                           transport="sse", cwd=found.cwd, base_dir=found.cwd)
    derived = found.server_config(base_dir=found.cwd)
    assert derived == by_hand
    assert resolve_config(derived).policy.summary() == resolve_config(by_hand).policy.summary()

    files = load_deployment(path, "files")
    assert files.server == "server-filesystem" and files.server_version == "2026.8.31"
    assert files.server_config() == ServerConfig(
        server="server-filesystem", cwd=files.cwd,
        server_options={"directories": (str(layout.data), str(layout.outside))})
    policy = resolve_config(files.server_config()).policy
    assert policy.server_version == "2026.8.31" and policy.summary()["roots"] is None
    assert policy.summary()["argv_directories"] == [str(layout.data), str(layout.outside)]


def test_hangar_gives_the_same_configuration(tmp_path, layout):
    path = write(tmp_path / "hangar.yaml", f"""\
mcp_servers:
  sheets:
    command: [uvx, mcp-gee-sweet@0.9.5]
    env:
      LOCAL_FILE_ACCESS: roots
      LOCAL_FILE_ROOTS: ${{DATA_DIR:-{layout.data}}}
""")
    found = load_deployment(path, environ={})
    assert found.settings() == {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(layout.data)}
    assert found.format == "hangar" and found.line == 2
    assert load_deployment(path, environ={"DATA_DIR": "/x"}).env["LOCAL_FILE_ROOTS"] == "/x"


# --- expansion, the way each client does it ----------------------------------------------


def _one(tmp_path, fmt, env, args=("mcp-gee-sweet",), **extra):
    entry = {"command": args[0], "args": list(args[1:]), "env": env, **extra}
    return _file(tmp_path, fmt, {"sheets": entry})


def test_claude_desktop_expands_nothing(tmp_path):
    path = _one(tmp_path, "claude-desktop", {"LOCAL_FILE_ROOTS": "${HOME}/data"})
    assert load_deployment(path, environ={"HOME": "/h"}).env["LOCAL_FILE_ROOTS"] == \
        "${HOME}/data"


def test_claude_code_expands_braces_and_defaults_but_not_bare_dollars(tmp_path):
    path = _one(tmp_path, "claude-code", {
        "LOCAL_FILE_ROOTS": "${DATA}/in:${MISSING:-/fallback}:$DATA", "E": "${EMPTY:-}"},
        args=("${BIN:-mcp-gee-sweet}", "--transport", "${T}"))
    found = load_deployment(path, environ={"DATA": "/d", "T": "sse"})
    assert found.env["LOCAL_FILE_ROOTS"] == "/d/in:/fallback:$DATA"
    assert found.env["E"] == ""
    assert found.argv == ["mcp-gee-sweet", "--transport", "sse"]
    assert found.transport == "sse"


def test_claude_code_refuses_an_unset_variable_without_default(tmp_path):
    path = _one(tmp_path, "claude-code", {"LOCAL_FILE_ROOTS": "${NOPE}"})
    with pytest.raises(DeploymentError) as exc:
        load_deployment(path, environ={})
    line = path.read_text().splitlines().index('        "LOCAL_FILE_ROOTS": "${NOPE}"') + 1
    assert str(exc.value).startswith(f"{path}:{line}: entry 'sheets' env.LOCAL_FILE_ROOTS: "
                                     "${NOPE} can't be resolved: NOPE is not set")


def test_vscode_variables(tmp_path):
    path = _one(tmp_path, "vscode", {
        "LOCAL_FILE_ROOTS": "${workspaceFolder}/data${pathSeparator}x",
        "CACHE_DB_PATH": "${userHome}/c.db", "B": "${workspaceFolderBasename}",
        "U": "${env:UNSET_ONE}", "S": "${env:SET_ONE}"})
    found = load_deployment(path, environ={"HOME": "/home/op", "SET_ONE": "v"})
    workspace = str(tmp_path / "proj")
    assert found.env == {"LOCAL_FILE_ROOTS": f"{workspace}/data/x",
                         "CACHE_DB_PATH": "/home/op/c.db", "B": "proj", "U": "", "S": "v"}
    assert found.cwd == workspace


def test_vscode_input_prompts_are_reported_never_guessed(tmp_path):
    path = _one(tmp_path, "vscode", {"CREDENTIALS_CONFIG": "${input:creds}"})
    with pytest.raises(DeploymentError, match=r"\$\{input:creds\} can't be resolved: VS Code "
                       "prompts for it.*--set CREDENTIALS_CONFIG=VALUE"):
        load_deployment(path)
    # Answered by the caller, or the key set by the caller: no error.
    assert load_deployment(path, inputs={"creds": CANARY}).env["CREDENTIALS_CONFIG"] == CANARY
    assert load_deployment(path, overridden=["CREDENTIALS_CONFIG"]).server == "mcp-gee-sweet"
    # In the arguments, --set can't stand in for it.
    path = _one(tmp_path, "vscode", {}, args=("mcp-gee-sweet", "--transport", "${input:t}"))
    with pytest.raises(DeploymentError, match="args"):
        load_deployment(path, overridden=["t"])


def test_vscode_editor_state_variables_are_reported(tmp_path):
    path = _one(tmp_path, "vscode", {"LOCAL_FILE_ROOTS": "${config:data.dir}"})
    with pytest.raises(DeploymentError, match="editor's state"):
        load_deployment(path)


def test_workspace_folder_outside_a_workspace_is_reported(tmp_path):
    path = write(tmp_path / "user-mcp.json", json.dumps({"servers": {"s": {
        "command": "mcp-gee-sweet", "env": {"LOCAL_FILE_ROOTS": "${workspaceFolder}"}}}}))
    with pytest.raises(DeploymentError, match="workspace folder is not known"):
        load_deployment(path)


def test_cursor_resolves_its_names_and_leaves_other_text(tmp_path):
    path = _one(tmp_path, "cursor", {"LOCAL_FILE_ROOTS": "${env:DATA}:${workspaceFolder}/x",
                                     "OTHER": "${input:x}${DATA}"})
    found = load_deployment(path, environ={"DATA": "/d"})
    assert found.env == {"LOCAL_FILE_ROOTS": f"/d:{tmp_path / 'proj'}/x",
                         "OTHER": "${input:x}${DATA}"}


# --- envFile -----------------------------------------------------------------------------


def test_env_file_is_read_with_env_over_it(tmp_path, layout):
    write(tmp_path / "proj" / "secrets.env",
          f"LOCAL_FILE_ACCESS=full\nCREDENTIALS_CONFIG={CANARY}\nLOCAL_FILE_ROOTS={layout.data}\n")
    path = _one(tmp_path, "vscode", {"LOCAL_FILE_ACCESS": "roots"},
                envFile="${workspaceFolder}/secrets.env")
    found = load_deployment(path)
    assert found.env == {"LOCAL_FILE_ACCESS": "roots", "CREDENTIALS_CONFIG": CANARY,
                         "LOCAL_FILE_ROOTS": str(layout.data)}
    assert found.env_file == str(tmp_path / "proj" / "secrets.env")
    sources = {p.setting: p.source for p in found.provenance}
    assert sources["env LOCAL_FILE_ACCESS"] == "entry"
    assert sources["env CREDENTIALS_CONFIG"] == "envFile"
    # Masked wherever it is shown.
    assert found.masked_env()["CREDENTIALS_CONFIG"] == MASK
    assert CANARY not in repr(found.provenance) and CANARY not in repr(found)


def test_a_missing_or_malformed_env_file_is_an_error_at_its_line(tmp_path):
    path = _one(tmp_path, "cursor", {}, envFile="nope.env")
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if "envFile" in t)
    with pytest.raises(DeploymentError, match=f"^{path}:{line}: envFile .*nope.env: no such"):
        load_deployment(path)
    write(tmp_path / "proj" / "bad.env", "GOOD=1\n'unterminated\n")
    path = _one(tmp_path, "cursor", {}, envFile="bad.env")
    with pytest.raises(DeploymentError, match=r"bad\.env"):
        load_deployment(path)


# --- provenance --------------------------------------------------------------------------


def test_provenance_says_what_came_from_the_entry_and_what_was_defaulted(tmp_path, layout):
    path = _file(tmp_path, "claude-desktop", {"s": gee_entry(layout.data, args=[
        "mcp-gee-sweet", "--include-tools", "list_files"])})
    found = load_deployment(path)
    rows = {p.setting: p for p in found.provenance}
    assert rows["server"].source == "entry"
    assert rows["version"].source == "default" and rows["version"].value is None
    assert rows["transport"].source == "default" and rows["transport"].value == "stdio"
    assert rows["cwd"].source == "default"
    assert rows["env LOCAL_FILE_ROOTS"].source == "entry"
    assert rows["env CREDENTIALS_CONFIG"].value == MASK
    assert rows["env ENABLED_TOOLS"].value == "list_files"
    assert found.settings()["ENABLED_TOOLS"] == "list_files"
    text = path.read_text().splitlines()
    assert '"LOCAL_FILE_ROOTS"' in text[rows["env LOCAL_FILE_ROOTS"].line - 1]


def test_an_entry_cwd_is_taken_relative_to_the_workspace(tmp_path):
    path = _one(tmp_path, "vscode", {}, cwd="srv")
    found = load_deployment(path)
    assert found.cwd == str(tmp_path / "proj" / "srv")
    assert {p.setting: p.source for p in found.provenance}["cwd"] == "entry"
    assert found.server_config().cwd == found.cwd


def test_claude_code_starts_servers_in_the_project_folder(tmp_path):
    path = _one(tmp_path, "claude-code", {})
    assert load_deployment(path).cwd == str(tmp_path / "proj")


# --- docker ------------------------------------------------------------------------------


def test_docker_entry_the_container_sees_only_what_docker_passes(tmp_path):
    write(tmp_path / "proj" / "c.env", "CACHE_DB_PATH=/cache/c.db\n")
    path = _one(tmp_path, "claude-desktop", {"LOCAL_FILE_ACCESS": "roots", "NOT_PASSED": "x"},
                args=("docker", "run", "-i", "--rm", "-e", "LOCAL_FILE_ACCESS",
                      "-e", "LOCAL_FILE_ROOTS=/data", "--env-file", "c.env",
                      "-v", "/srv/data:/data", "ghcr.io/acme/mcp-gee-sweet:0.9.5"))
    found = load_deployment(path, environ={})
    assert found.container
    assert found.env == {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/data",
                         "CACHE_DB_PATH": "/cache/c.db"}
    assert [m.describe() for m in found.mounts] == ["/srv/data -> /data"]
    assert any("NOT_PASSED" in n for n in found.notes)
    assert {p.setting: p.source for p in found.provenance}["env LOCAL_FILE_ROOTS"] == \
        "container"


# --- choosing the entry, and the errors --------------------------------------------------


def test_entry_may_be_left_out_when_one_entry_is_a_known_server(tmp_path, layout):
    path = _file(tmp_path, "claude-code", {"other": {"command": "node", "args": ["x.js"]},
                                           "sheets": gee_entry(layout.data)})
    assert load_deployment(path).entry == "sheets"
    rows = list_entries(path)
    assert [(r["name"], r["server"], r["version"]) for r in rows] == [
        ("other", None, None), ("sheets", "mcp-gee-sweet", "0.9.5")]


@pytest.mark.parametrize(("entries", "entry", "message"), [
    ({"a": {"command": "node"}}, "a", "entry 'a' runs 'node', which the explorer doesn't model"),
    ({"a": {"command": "node"}}, None, "no entry starts a server the explorer models "
     f"({', '.join(list_servers())}): 'a' runs 'node'; 'localfs-explorer deployment' "
     "answers for every entry"),
    ({"gh": {"command": "npx", "args": ["-y", "@scope/server-x", "--token", "t0k"]},
      "web": {"url": "https://x.example/mcp"}}, None,
     "'gh' runs 'npx -y @scope/server-x ...'; 'web' (a URL)"),
    ({"a": {"command": "node"}}, "b", "no entry named 'b' (entries: 'a')"),
    ({"a": {"command": "mcp-gee-sweet"}, "b": {"command": "uvx", "args": ["mcp-gee-sweet"]}},
     None, "2 entries start a known server ('a' (mcp-gee-sweet, line 3), 'b' "),
    ({"a": {"type": "http", "url": "http://u:pw@127.0.0.1:8000/mcp?key=k"}}, "a",
     "a remote server (http://127.0.0.1:8000/mcp)"),
    ({"a": {"command": "mcp-gee-sweet", "args": "--transport sse"}}, None,
     "entry 'a': 'args' must be a list of strings"),
    ({"a": {"command": "mcp-gee-sweet", "args": ["--transport", "websocket"]}}, "a",
     "--transport 'websocket' makes mcp-gee-sweet exit"),
    ({}, None, "no server entries"),
])
def test_errors_are_one_line(tmp_path, entries, entry, message):
    path = _file(tmp_path, "claude-code", entries)
    with pytest.raises(DeploymentError) as exc:
        load_deployment(path, entry)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value) and str(exc.value).startswith(str(path))


def test_an_unknown_command_is_named_without_its_later_arguments(tmp_path):
    path = _file(tmp_path, "claude-code", {"a": {"command": "node", "args": [
        "server.js", "--api-key", "sk-live-very-secret"]}})
    with pytest.raises(DeploymentError) as exc:
        load_deployment(path, "a")
    assert "runs 'node server.js ...'" in str(exc.value)
    assert "sk-live" not in str(exc.value)


def test_a_pin_on_an_older_modelled_release_is_asked_for(tmp_path):
    path = _file(tmp_path, "claude-code", {"f": {"command": "npx", "args": [
        "@modelcontextprotocol/server-filesystem@2026.7.10", "/a"]}})
    found = load_deployment(path)
    assert found.modelled_version() == "2026.7.10"
    assert found.server_config().server_version == "2026.7.10"


def test_a_release_the_explorer_does_not_model_is_noted_and_not_used(tmp_path):
    path = _file(tmp_path, "claude-code", {"s": {"command": "uvx",
                                                 "args": ["mcp-gee-sweet@0.8.0"]}})
    found = load_deployment(path)
    assert found.server_version == "0.8.0" and found.modelled_version() is None
    assert found.server_config().server_version is None
    assert any("0.8.0, which the explorer doesn't model" in n for n in found.notes)


def test_hangar_refuses_an_unset_variable_without_default(tmp_path):
    path = write(tmp_path / "hangar.yaml", "mcp_servers:\n  s:\n    command: [mcp-gee-sweet]\n"
                 "    env:\n      LOCAL_FILE_ROOTS: ${NOT_SET_ANYWHERE}\n")
    with pytest.raises(DeploymentError, match=r"^.*hangar.yaml:5: entry 's' "
                       r"env.LOCAL_FILE_ROOTS: \$\{NOT_SET_ANYWHERE\} can't be resolved"):
        load_deployment(path, environ={})
