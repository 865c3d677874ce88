"""The whole deployment: every entry of a client config answered, in file order, with the
reach of what it starts (modelled, container, remote, unmodelled)."""

from __future__ import annotations

import json

import pytest
from client_configs import CANARY, fs_entry, gee_entry, mcp_servers, write
from conftest import run_cli as run

from localfs_explorer.deployments.reach import answer_deployment


@pytest.fixture
def account(tmp_path):
    """A home directory holding a private key."""
    home = tmp_path / "account"
    write(home / ".ssh" / "id_ed25519", "key")
    write(home / "notes.txt", "x")
    return home


@pytest.fixture
def desktop(tmp_path, layout):
    """A Claude Desktop config in the style people publish: one of every reach."""
    return write(tmp_path / "Claude" / "claude_desktop_config.json", mcp_servers({
        "sheets": gee_entry(layout.data),
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": CANARY}},
        "filesystem": fs_entry(layout.data),
        "docs": {"command": "docker", "args": [
            "run", "-i", "--rm",
            "--mount", f"type=bind,src={layout.data},dst=/projects/data,ro",
            "mcp/filesystem", "/projects"]},
        "search": {"url": "https://mcp.example.com/sse?api_key=" + CANARY},
    }))


def test_every_entry_is_answered_in_file_order_with_its_line(desktop, account, layout):
    answer = answer_deployment(desktop, home=str(account))
    rows = [(e.entry, e.server, e.reach) for e in answer.entries]
    assert rows == [("sheets", "mcp-gee-sweet", "modelled"),
                    ("github", None, "unmodelled"),
                    ("filesystem", "server-filesystem", "modelled"),
                    ("docs", "server-filesystem", "container"),
                    ("search", None, "remote")]
    text = desktop.read_text().splitlines()
    for entry in answer.entries:
        assert text[entry.line - 1].strip().startswith(f'"{entry.entry}"')


def test_a_modelled_entry_carries_its_policy(desktop, account, layout):
    sheets = answer_deployment(desktop, home=str(account)).entries[0]
    assert sheets.directories == [str(layout.data)]
    assert str(layout.data) in sheets.summary and sheets.version == "0.9.5"


def test_an_unmodelled_entry_names_its_package_and_is_graded_by_the_accounts_reach(
        desktop, account):
    github = answer_deployment(desktop, home=str(account)).entries[1]
    assert github.runs == "npx -y @modelcontextprotocol/server-github"
    (finding,) = github.findings
    assert finding.severity == "high" and "~/.ssh" in finding.message
    assert "@modelcontextprotocol/server-github" in finding.message


def test_without_readable_credentials_the_home_directory_is_a_medium_finding(desktop, tmp_path):
    home = tmp_path / "plain"
    write(home / "notes.txt", "x")
    github = answer_deployment(desktop, home=str(home)).entries[1]
    assert [(f.severity, f.code) for f in github.findings] == [("medium", "account-home")]


def test_a_docker_entry_is_judged_in_the_container(desktop, account, layout):
    docs = answer_deployment(desktop, home=str(account)).entries[3]
    # docker created /projects/data, so /projects exists and the server starts.
    assert docs.directories == ["/projects"]
    assert docs.mounts == [{"host": str(layout.data), "container": "/projects/data",
                            "read_only": True}]
    assert "would exit" not in docs.summary and "exits" not in docs.summary
    assert f"{layout.data} -> /projects/data (read-only)" in docs.summary


def test_a_container_mounting_the_home_directory_or_the_docker_socket_is_a_finding(
        tmp_path, account):
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({
        "fs": {"command": "docker", "args": ["run", "-i", "--rm", "-v",
                                             f"{account}:/projects/home", "mcp/filesystem",
                                             "/projects"]},
        "ops": {"command": "docker", "args": ["run", "-i", "-v",
                                              "/var/run/docker.sock:/var/run/docker.sock",
                                              "ghcr.io/example/ops-mcp:1.0"]},
        "ro": {"command": "docker", "args": ["run", "-i", "-v",
                                             f"{tmp_path / 'public'}:/data:ro",
                                             "ghcr.io/example/reader:2"]},
    }))
    fs, ops, ro = answer_deployment(path, home=str(account)).entries
    assert (fs.reach, fs.worst) == ("container", "high")
    assert any(f.code == "mount-home" for f in fs.findings)
    assert (ops.reach, ops.server, ops.worst) == ("container", None, "critical")
    assert (ro.reach, ro.findings, ro.mounts[0]["read_only"]) == ("container", [], True)


def test_a_remote_entry_has_no_local_reach_and_its_url_shows_no_secret(desktop, account):
    search = answer_deployment(desktop, home=str(account)).entries[4]
    assert search.runs == "https://mcp.example.com/sse" and search.findings == []
    assert CANARY not in json.dumps(search.to_dict())


def test_windows_paths_are_named_and_not_checked_here(tmp_path, account):
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem",
                                             "C:\\Users\\me\\Desktop", "C:/Users/me/proj"]}}))
    (files,) = answer_deployment(path, home=str(account)).entries
    assert files.reach == "modelled" and files.server == "server-filesystem"
    assert "Windows paths" in files.summary and "can't be checked here" in files.summary
    assert "exit" not in files.summary + " ".join(files.notes)
    assert "C:\\Users\\me\\Desktop" in files.notes[-1]


def test_platform_windows_says_so_for_any_path(desktop, account):
    answer = answer_deployment(desktop, home=str(account), platform="windows")
    assert all("can't be checked here" in e.summary for e in answer.entries
               if e.reach == "modelled")


def test_a_broken_entry_is_an_answer_not_an_error(tmp_path, account):
    path = write(tmp_path / ".mcp.json", mcp_servers({
        "bad": {"command": ["uvx"]},
        "prompt": {"command": "uvx", "args": ["mcp-gee-sweet"],
                   "env": {"LOCAL_FILE_ROOTS": "${MISSING_VARIABLE_FOR_TEST}"}},
        "ok": fs_entry(tmp_path)}))
    bad, prompt, ok = answer_deployment(path, home=str(account), environ={}).entries
    assert bad.reach == "invalid" and "'command' must be a string" in bad.notes[0]
    assert prompt.reach == "invalid" and prompt.server == "mcp-gee-sweet"
    assert ok.reach == "modelled"


def test_a_turned_off_extension_is_disabled(tmp_path, account):
    path = write(tmp_path / "Claude Extensions Settings" /
                 "ant.dir.ant.anthropic.filesystem.json",
                 json.dumps({"isEnabled": False,
                             "userConfig": {"allowed_directories": [str(tmp_path)]}}))
    (entry,) = answer_deployment(path, home=str(account)).entries
    assert entry.reach == "disabled" and entry.findings == []


# --- the command ---------------------------------------------------------------------

def test_the_command_prints_a_table_in_file_order_and_fails_on_high(desktop, account,
                                                                   monkeypatch):
    monkeypatch.setenv("HOME", str(account))
    code, out, err = run("deployment", "--client-config", desktop)
    assert code == 1, err
    table = out.splitlines()
    assert table[0].startswith("deployment: Claude Desktop config ")
    assert table[1].split()[:4] == ["LINE", "ENTRY", "SERVER", "REACH"]
    names = [line.split()[1] for line in table[2:7]]
    assert names == ["sheets", "github", "filesystem", "docs", "search"]
    assert "npx -y @modelcontextprotocol/server-github" in out
    assert CANARY not in out + err
    assert run("deployment", "--client-config", desktop, "--fail-on", "critical")[0] == 0
    assert run("deployment", "--client-config", desktop, "--fail-on", "none")[0] == 0


def test_the_command_json_is_one_object_per_entry(desktop, account, monkeypatch):
    monkeypatch.setenv("HOME", str(account))
    code, out, _ = run("deployment", "--client-config", desktop, "--json",
                       "--fail-on", "none")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert [(r["entry"], r["server"], r["reach"]) for r in rows][:2] == [
        ("sheets", "mcp-gee-sweet", "modelled"), ("github", None, "unmodelled")]
    assert all(isinstance(r["line"], int) for r in rows)
    assert rows[1]["findings"][0]["severity"] == "high"


@pytest.mark.parametrize(("text", "message"), [
    ('{"mcpServers": {', ":1: not valid JSON"),
    ('["not", "a", "config"]', "not an MCP client config"),
])
def test_the_command_refuses_a_bad_file_in_one_line(tmp_path, text, message):
    path = write(tmp_path / "claude_desktop_config.json", text)
    code, out, err = run("deployment", "--client-config", path)
    assert code == 2 and out == ""
    assert err.startswith("localfs-explorer deployment: ") and message in err
    assert len(err.splitlines()) == 1
    code, _, err = run("deployment", "--client-config", tmp_path / "missing.json")
    assert code == 2 and "Traceback" not in err


def test_the_command_warns_when_another_client_would_read_the_file(tmp_path):
    path = write(tmp_path / ".vscode" / "mcp.json", mcp_servers({"a": fs_entry(tmp_path)}))
    code, out, err = run("deployment", "--client-config", path)
    assert code == 0 and "0 entries" in out
    assert "warning: " in err and "--client-format claude-desktop" in err


# --- exposure over every entry -----------------------------------------------------------

@pytest.fixture
def two_servers(tmp_path, layout):
    """Two modelled entries reaching different folders, and one the explorer can't walk."""
    write(layout.data / "deploy.sh", "#!/bin/sh\n").chmod(0o755)
    write(layout.outside / ".env", "TOKEN=x\n")
    return write(tmp_path / "claude_desktop_config.json", mcp_servers({
        "reports": fs_entry(layout.data),
        "other": fs_entry(layout.outside),
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},
    }))


def test_exposure_without_entry_walks_every_modelled_entry_and_names_each(two_servers,
                                                                         layout):
    code, out, err = run("exposure", "--client-config", two_servers, "--json",
                         "--fail-on", "none", "--no-sizes")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    by_path = {r["path"]: r["entries"] for r in rows}
    # Each entry's own findings, named by the entry that reaches them.
    assert any(p.startswith(str(layout.data)) and e == ["reports"] for p, e in by_path.items())
    assert any(p.startswith(str(layout.outside)) and e == ["other"]
               for p, e in by_path.items())
    # The same as walking each entry alone, put together.
    for name in ("reports", "other"):
        alone = run("exposure", "--client-config", two_servers, "--entry", name, "--json",
                    "--fail-on", "none", "--no-sizes")[1]
        for line in alone.splitlines():
            finding = json.loads(line)
            assert name in by_path[finding["path"]]
    assert "entry 'github' (unmodelled) not walked" in err


def test_exposure_without_entry_exits_1_on_any_entrys_finding(two_servers):
    code, out, _ = run("exposure", "--client-config", two_servers, "--fail-on", "info",
                       "--no-sizes")
    assert code == 1 and "union of 2 entries" in out
    assert "reports: " in out and "other: " in out


def test_exposure_with_one_modelled_entry_answers_as_with_entry(tmp_path, layout):
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({
        "files": fs_entry(layout.data),
        "remote": {"url": "https://mcp.example.com/mcp"}}))
    every = run("exposure", "--client-config", path, "--json", "--no-sizes")
    named = run("exposure", "--client-config", path, "--entry", "files", "--json",
                "--no-sizes")
    assert every[:2] == named[:2]


def test_exposure_without_entry_refuses_a_report_and_a_file_with_nothing_to_walk(
        two_servers, tmp_path):
    code, _, err = run("exposure", "--client-config", two_servers, "--report",
                       tmp_path / "r.html")
    assert code == 2 and "name it with --entry" in err
    only = write(tmp_path / "only" / "claude_desktop_config.json", mcp_servers({
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}}))
    code, _, err = run("exposure", "--client-config", only)
    assert code == 2 and "deployment answers for each entry" in err


def test_without_reading_files_nothing_of_this_machine_is_probed(desktop, account, layout,
                                                                  monkeypatch):
    import localfs_explorer.deployments.reach as reach
    from localfs_explorer import config

    real = config.resolve_config

    def no_probe(*args, **kwargs):
        if kwargs.get("fs") is None:  # a described host (the container's) is fine
            raise AssertionError("probed this machine")
        return real(*args, **kwargs)

    monkeypatch.setattr(reach, "credentials_in", no_probe)
    monkeypatch.setattr(config, "resolve_config", no_probe)
    answer = answer_deployment(desktop, home=str(account), read_files=False)
    sheets, github = answer.entries[:2]
    assert "not checked" in sheets.summary and sheets.directories == []
    assert github.findings[0].severity == "medium" and "~/.ssh" not in github.findings[0].message


def test_a_vscode_workspace_config_with_prompts_comments_and_a_docker_mount(tmp_path,
                                                                            account):
    workspace = tmp_path / "repo"
    path = write(workspace / ".vscode" / "mcp.json", """{
  // tokens are asked for when a server starts
  "inputs": [
    {"type": "promptString", "id": "gh-token", "description": "GitHub token",
     "password": true}
  ],
  "servers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${input:gh-token}"}
    },
    "workspace-files": {
      "type": "stdio",
      "command": "docker",
      "args": [
        "run", "-i", "--rm",
        "-v", "${workspaceFolder}:/projects/workspace",
        "mcp/filesystem",
        "/projects"
      ]
    },
  }
}
""")
    github, files = answer_deployment(path, home=str(account)).entries
    assert (github.reach, github.line) == ("unmodelled", 8)
    assert (files.reach, files.server, files.line) == ("container", "server-filesystem", 13)
    assert files.mounts == [{"host": str(workspace), "container": "/projects/workspace",
                             "read_only": False}]
    assert files.directories == ["/projects"]


def test_a_hangar_docker_server_is_a_container_with_its_volumes(tmp_path, account):
    path = write(tmp_path / "hangar.yaml", f"""mcp_servers:
  files:
    mode: docker
    image: mcp/filesystem:latest
    command: [/projects]
    volumes:
      - "{tmp_path / 'data'}:/projects/data:ro"
  api:
    mode: remote
    endpoint: https://api.example.com/mcp
""")
    files, api = answer_deployment(path, home=str(account)).entries
    assert (files.reach, files.server, files.line) == ("container", "server-filesystem", 2)
    assert files.mounts[0]["read_only"] is True and files.directories == ["/projects"]
    assert api.reach == "remote"


def test_a_docker_mount_of_a_windows_drive_keeps_the_drive(tmp_path, account):
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "docker", "args": ["run", "-i", "--rm", "-v",
                                      "C:\\Users\\me\\src:/projects/src:ro",
                                      "mcp/filesystem", "/projects"]}}))
    (files,) = answer_deployment(path, home=str(account)).entries
    assert files.mounts == [{"host": "C:\\Users\\me\\src", "container": "/projects/src",
                             "read_only": True}]
    assert files.reach == "container" and files.directories == ["/projects"]


def test_a_one_letter_volume_name_is_not_taken_for_a_drive(tmp_path, account):
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "docker", "args": ["run", "-i", "-v", "d:/data:ro", "mcp/filesystem",
                                      "/data"]}}))
    (files,) = answer_deployment(path, home=str(account)).entries
    assert files.mounts == [{"host": "d", "container": "/data", "read_only": True}]


def test_the_reference_docker_example_mounts_folders_and_a_file(tmp_path, account):
    desktop, other = tmp_path / "Desktop", tmp_path / "shared"
    desktop.mkdir()
    other.mkdir()
    note = write(tmp_path / "todo.txt", "x")
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({"filesystem": {
        "command": "docker", "args": [
            "run", "-i", "--rm",
            "--mount", f"type=bind,src={desktop},dst=/projects/Desktop",
            "--mount", f"type=bind,src={other},dst=/projects/shared,ro",
            "--mount", f"type=bind,src={note},dst=/projects/notes/todo.txt",
            "mcp/filesystem", "/projects"]}}))
    (entry,) = answer_deployment(path, home=str(account)).entries
    assert entry.reach == "container" and entry.directories == ["/projects"]
    assert [m["read_only"] for m in entry.mounts] == [False, True, False]
    from localfs_explorer.deployments import load_deployment
    from localfs_explorer.deployments.reach import _container_policy

    policy = _container_policy(load_deployment(path))
    # The file mount is a file in the container, and inside the allowed directory.
    assert policy.fs.exists("/projects/notes/todo.txt")
    assert not policy.fs.is_dir("/projects/notes/todo.txt")
    assert policy.check("/projects/notes/todo.txt").allowed
    assert not policy.check("/etc/passwd").allowed


def test_a_mount_beside_the_home_directory_is_not_the_home_directory(tmp_path, account):
    beside = tmp_path / "acc"  # the home (tmp/account) starts with its name as a string
    beside.mkdir()
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "docker", "args": ["run", "-i", "-v", f"{beside}:/projects/b",
                                      "mcp/filesystem", "/projects"]}}))
    (entry,) = answer_deployment(path, home=str(account)).entries
    assert not any(f.code.startswith("mount-") for f in entry.findings)


def test_modelled_entries_say_full_off_and_exit_as_the_policy_does(tmp_path, account,
                                                                   layout):
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({
        "full": {"command": "uvx", "args": ["mcp-gee-sweet"],
                 "env": {"LOCAL_FILE_ACCESS": "full"}},
        "off": {"command": "uvx", "args": ["mcp-gee-sweet"],
                "env": {"LOCAL_FILE_ACCESS": "off"}},
        "gone": fs_entry(tmp_path / "no-such-folder"),
    }))
    full, off, gone = answer_deployment(path, home=str(account)).entries
    assert full.reach == "modelled" and full.worst == "high"
    assert any("mode full" in f.message and "~/.ssh" in f.message for f in full.findings)
    assert off.summary == "no local file access (mode off)" and off.findings == []
    assert gone.summary.startswith("the server exits: ") and gone.directories == []


def test_a_windows_config_through_cmd_c_is_modelled_and_named_windows(tmp_path, account):
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({
        "filesystem": {"command": "cmd", "args": [
            "/c", "npx", "-y", "@modelcontextprotocol/server-filesystem",
            "C:\\Users\\me\\Documents", "\\\\nas\\share\\team"]},
        "memory": {"command": "C:\\Program Files\\nodejs\\npx.cmd",
                   "args": ["-y", "@modelcontextprotocol/server-memory"]}}))
    files, memory = answer_deployment(path, home=str(account)).entries
    assert (files.reach, files.server) == ("modelled", "server-filesystem")
    assert files.windows_paths == ["C:\\Users\\me\\Documents", "\\\\nas\\share\\team"]
    assert memory.reach == "unmodelled"
    assert memory.runs == ("C:\\Program Files\\nodejs\\npx.cmd -y "
                           "@modelcontextprotocol/server-memory")


def test_a_mount_outside_the_servers_directories_is_not_reached(tmp_path, account, layout):
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "docker", "args": [
            "run", "-i", "--rm", "-v", f"{account}:/home/me", "-v",
            f"{layout.data}:/projects/data", "mcp/filesystem", "/projects"]}}))
    (entry,) = answer_deployment(path, home=str(account)).entries
    home = next(f for f in entry.findings if f.code == "mount-home")
    assert home.severity == "info" and "don't reach it" in home.message
    assert entry.summary.endswith(f"host folders reached: {layout.data} -> /projects/data")
    # The same mount under the allowed directory is reached, and graded high.
    reached = write(tmp_path / "other" / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "docker", "args": ["run", "-i", "--rm", "-v", f"{account}:/projects/me",
                                      "mcp/filesystem", "/projects"]}}))
    (entry,) = answer_deployment(reached, home=str(account)).entries
    assert entry.worst == "high"


def test_a_container_whose_server_exits_reaches_no_host_folder(tmp_path, account, layout):
    path = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "docker", "args": ["run", "-i", "--rm", "-v", f"{account}:/data",
                                      "mcp/filesystem", "/projects"]}}))
    (entry,) = answer_deployment(path, home=str(account)).entries
    assert entry.summary.startswith("the server exits in the container")
    assert entry.summary.endswith("host folders reached: none of the mounted host folders")
    assert entry.worst == "info"
