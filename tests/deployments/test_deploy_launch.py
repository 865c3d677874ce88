"""Telling the server from a command line, and reading its arguments as it reads them."""

from __future__ import annotations

import pytest

from localfs_explorer.deployments.launch import Mount, identify

GEE_SWEET, FILESYSTEM = "mcp-gee-sweet", "server-filesystem"


@pytest.mark.parametrize(("argv", "version"), [
    (["mcp-gee-sweet"], None),
    (["/home/u/.local/bin/mcp-gee-sweet"], None),
    (["uvx", "mcp-gee-sweet"], None),
    (["uvx", "mcp-gee-sweet@0.9.5"], "0.9.5"),
    (["uvx", "mcp-gee-sweet==0.9.5"], "0.9.5"),
    (["uvx", "--python", "3.12", "mcp-gee-sweet@0.9.5"], "0.9.5"),
    (["uvx", "--from", "mcp-gee-sweet==0.9.5", "mcp-gee-sweet"], "0.9.5"),
    (["uv", "tool", "run", "mcp-gee-sweet@0.9.5"], "0.9.5"),
    (["uv", "run", "--with", "mcp-gee-sweet", "mcp-gee-sweet"], None),
    (["pipx", "run", "mcp-gee-sweet==0.9.5"], "0.9.5"),
    (["python3", "-m", "mcp_gee_sweet"], None),
    (["/opt/venv/bin/python3.11", "-m", "mcp_gee_sweet"], None),
    (["docker", "run", "-i", "--rm", "ghcr.io/acme/mcp-gee-sweet:0.9.5"], "0.9.5"),
    (["cmd", "/c", "uvx", "mcp-gee-sweet@0.9.5"], "0.9.5"),
    (["C:\\Users\\u\\.local\\bin\\mcp-gee-sweet.exe"], None),
    (["bash", "-c", "exec uvx mcp-gee-sweet==0.9.5 --transport stdio"], "0.9.5"),
    (["uvx", "--from", "git+https://example.org/acme/mcp-gee-sweet", "mcp-gee-sweet"], None),
])
def test_mcp_gee_sweet_launches(argv, version):
    launch = identify(argv)
    assert (launch.server, launch.version) == (GEE_SWEET, version)


@pytest.mark.parametrize(("argv", "version", "dirs"), [
    (["npx", "-y", "@modelcontextprotocol/server-filesystem", "/a", "/b"], None, ["/a", "/b"]),
    (["npx", "-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/a"], "2026.8.31",
     ["/a"]),
    (["npx", "--yes", "--package=@modelcontextprotocol/server-filesystem@2026.8.31",
      "mcp-server-filesystem", "/a"], "2026.8.31", ["/a"]),
    (["npm", "exec", "@modelcontextprotocol/server-filesystem", "/a"], None, ["/a"]),
    (["mcp-server-filesystem", "/a", "~/docs"], None, ["/a", "~/docs"]),
    (["node", "/x/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "/a"],
     None, ["/a"]),
    (["docker", "run", "-i", "--rm", "mcp/filesystem", "/projects"], None, ["/projects"]),
    (["cmd", "/c", "npx", "-y", "@modelcontextprotocol/server-filesystem", "C:\\data"], None,
     ["C:\\data"]),
])
def test_filesystem_server_launches(argv, version, dirs):
    launch = identify(argv)
    assert (launch.server, launch.version) == (FILESYSTEM, version)
    assert list(launch.options["directories"]) == dirs
    assert launch.shown == [("allowed dir", d) for d in dirs]


@pytest.mark.parametrize("argv", [
    ["node", "server.js"], ["uvx", "mcp-gee-sweet-fork"], ["python", "-m", "other"],
    ["npx", "-y", "@modelcontextprotocol/server-memory"], ["docker", "run", "-i", "redis"],
    ["uvx", "--from", "other-package", "mcp-gee-sweet"], ["mcp-gee-sweetener"],
    ["cmd", "/c", "node", "x.js"], ["bash", "-c", "echo mcp-gee-sweet"], ["sh", "-c", "'"],
])
def test_other_commands_are_no_known_server(argv):
    assert identify(argv).server is None


def test_gee_sweet_reads_the_last_transport_word_and_not_the_equals_form():
    assert identify(["mcp-gee-sweet", "--transport", "sse"]).transport == "sse"
    assert identify(["mcp-gee-sweet", "--transport", "sse", "--transport",
                     "streamable-http"]).transport == "streamable-http"
    launch = identify(["mcp-gee-sweet", "--transport=sse"])
    assert launch.transport is None
    assert any("--transport=sse" in n for n in launch.notes)


def test_include_tools_is_read_and_auth_is_noticed():
    launch = identify(["uvx", "mcp-gee-sweet", "--include-tools", "a,b", "--include-tools", "c"])
    assert launch.settings == {"ENABLED_TOOLS": "a,b"}
    assert launch.settings_from == {"ENABLED_TOOLS": "--include-tools"}
    assert not launch.notes
    assert any("auth" in n for n in identify(["mcp-gee-sweet", "auth"]).notes)
    # A value named "auth" is an option's value, not the subcommand.
    assert not identify(["mcp-gee-sweet", "--include-tools", "auth"]).notes


def test_python_dash_m_is_noticed_as_not_starting_the_server():
    launch = identify(["python", "-m", "mcp_gee_sweet"])
    assert any("no __main__" in n for n in launch.notes)


def test_docker_run_keeps_env_env_files_mounts_and_workdir():
    launch = identify([
        "docker", "run", "-i", "--rm", "-e", "LOCAL_FILE_ACCESS=roots", "-e", "TOKEN",
        "--env=CACHE_DB_PATH=/c.db", "--env-file", "srv.env", "-v", "/srv/data:/data:ro",
        "--mount", "type=bind,src=/home/u/docs,dst=/docs", "--mount", "type=volume,src=v,dst=/v",
        "-w", "/data", "--name", "gee", "ghcr.io/acme/mcp-gee-sweet", "--transport", "sse",
    ], environ={"TOKEN": "from-the-client"})
    assert launch.server == GEE_SWEET and launch.container
    assert launch.container_env == {"LOCAL_FILE_ACCESS": "roots", "TOKEN": "from-the-client",
                                    "CACHE_DB_PATH": "/c.db"}
    assert launch.env_files == ["srv.env"]
    assert launch.mounts == [Mount("/srv/data", "/data", True), Mount("/home/u/docs", "/docs")]
    assert launch.workdir == "/data"
    assert launch.transport == "sse"


def test_docker_of_another_image_running_a_known_server_inside():
    launch = identify(["docker", "run", "-i", "node:22", "npx", "-y",
                       "@modelcontextprotocol/server-filesystem", "/w"])
    assert launch.server == FILESYSTEM and launch.container
    assert list(launch.options["directories"]) == ["/w"]
    assert launch.how.startswith("docker image node:22, running npx")
