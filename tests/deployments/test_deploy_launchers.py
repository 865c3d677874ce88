"""Local launchers: ``uv run --directory``, ``npm --prefix``, ``node`` on a local build,
``pnpm dlx``, ``bunx``: the server they start, its version and startup directory."""

from __future__ import annotations

import json

import pytest
from client_configs import mcp_servers, write

from localfs_explorer.deployments import load_deployment
from localfs_explorer.deployments.launchers import package_words, unwrap


def _checkout(folder, name="mcp-gee-sweet", version="0.9.5"):
    write(folder / "pyproject.toml", f'[project]\nname = "{name}"\nversion = "{version}"\n')
    return folder


def test_uv_run_directory_is_the_startup_directory_and_the_checkout_gives_the_version(
        tmp_path, layout):
    checkout = _checkout(tmp_path / "src" / "gee")
    config = write(tmp_path / "claude_desktop_config.json", mcp_servers({"gee": {
        "command": "uv",
        "args": ["run", "--directory", str(checkout), "mcp-gee-sweet", "--transport",
                 "stdio"],
        "env": {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(layout.data)}}}))
    found = load_deployment(config, "gee")
    assert found.server == "mcp-gee-sweet"
    assert found.cwd == str(checkout)  # the deny-list and .env are read from there
    assert found.server_version == "0.9.5"
    sources = {p.setting: p for p in found.provenance}
    assert "pyproject.toml" in sources["version"].detail
    assert sources["cwd"].source == "entry" and "--directory" in sources["cwd"].detail
    # The deny-list follows the startup directory: credentials.json there is refused.
    from localfs_explorer.config import resolve_config

    policy = resolve_config(found.server_config(
        settings={"LOCAL_FILE_ACCESS": "full"})).policy
    write(checkout / "credentials.json", "{}")
    assert not policy.check(str(checkout / "credentials.json")).allowed


def test_uv_run_directory_of_another_checkout_version_is_named(tmp_path):
    checkout = _checkout(tmp_path / "gee", version="0.9.9")
    config = write(tmp_path / "claude_desktop_config.json", mcp_servers({"gee": {
        "command": "uv", "args": ["run", "--directory", str(checkout), "mcp-gee-sweet"]}}))
    found = load_deployment(config)
    assert found.server_version == "0.9.9"
    assert any("doesn't model" in n for n in found.notes)


def test_uv_run_relative_directory_is_relative_to_the_project(tmp_path):
    _checkout(tmp_path / "tools" / "gee")
    config = write(tmp_path / ".mcp.json", mcp_servers({"gee": {
        "command": "uv", "args": ["run", "--directory", "tools/gee", "mcp-gee-sweet"]}}))
    found = load_deployment(config)
    assert found.cwd == str(tmp_path / "tools" / "gee")


def test_uv_run_directory_without_a_project_still_names_the_directory(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    config = write(tmp_path / "claude_desktop_config.json", mcp_servers({"gee": {
        "command": "uv", "args": ["run", "--directory", str(empty), "mcp-gee-sweet"]}}))
    found = load_deployment(config)
    assert found.cwd == str(empty) and found.server_version is None
    assert any("no pyproject.toml" in n for n in found.notes)


def _installed(prefix, name, version):
    write(prefix / "node_modules" / name / "package.json",
          json.dumps({"name": name, "version": version}))


def test_npm_prefix_runs_the_copy_installed_there(tmp_path, layout):
    _installed(tmp_path / "mcp", "@modelcontextprotocol/server-filesystem", "2026.8.31")
    config = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "npm",
        "args": ["--prefix", str(tmp_path / "mcp"), "exec", "--",
                 "@modelcontextprotocol/server-filesystem", str(layout.data)]}}))
    found = load_deployment(config)
    assert found.server == "server-filesystem"
    assert found.server_version == "2026.8.31"
    assert found.arg_paths == [str(layout.data)]


def test_npm_prefix_without_the_install_says_so(tmp_path, layout):
    config = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "npx",
        "args": ["--prefix", str(tmp_path / "none"), "@modelcontextprotocol/server-filesystem",
                 str(layout.data)]}}))
    found = load_deployment(config)
    assert found.server == "server-filesystem" and found.server_version is None
    assert any("not installed under" in n for n in found.notes)


def test_node_on_a_local_build_is_recognised_by_its_package_json(tmp_path, layout):
    build = tmp_path / "checkouts" / "servers" / "src" / "filesystem"
    write(build / "package.json", json.dumps(
        {"name": "@modelcontextprotocol/server-filesystem", "version": "2026.8.31"}))
    write(build / "dist" / "index.js", "// built\n")
    config = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "node", "args": [str(build / "dist" / "index.js"), str(layout.data)]}}))
    found = load_deployment(config)
    assert found.server == "server-filesystem" and found.server_version == "2026.8.31"
    assert found.arg_paths == [str(layout.data)]
    assert "a local build of" in next(p.detail for p in found.provenance
                                      if p.setting == "version")
    assert found.argv[0] == "node"  # the command as the client runs it is kept


def test_node_on_a_build_of_another_package_is_not_taken_for_a_known_server(tmp_path):
    build = tmp_path / "mine"
    write(build / "package.json", json.dumps({"name": "my-files-server", "version": "1.0.0"}))
    write(build / "dist" / "index.js", "")
    from localfs_explorer.deployments.launch import identify

    result = unwrap(["node", str(build / "dist" / "index.js"), "/x"], str(tmp_path),
                    known=lambda argv: identify(argv).server is not None)
    assert result.argv[0] == "node" and result.version is None


@pytest.mark.parametrize("argv", [
    ["pnpm", "dlx", "@modelcontextprotocol/server-filesystem@2026.8.31", "/srv/data"],
    ["bunx", "@modelcontextprotocol/server-filesystem@2026.8.31", "/srv/data"],
])
def test_pnpm_dlx_and_bunx_start_the_package(tmp_path, argv):
    config = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": argv[0], "args": argv[1:]}}))
    found = load_deployment(config)
    assert (found.server, found.server_version, found.arg_paths) == (
        "server-filesystem", "2026.8.31", ["/srv/data"])


@pytest.mark.parametrize(("argv", "words"), [
    (["npx", "-y", "@scope/pkg", "--token", "s3cret"], "npx -y @scope/pkg ..."),
    (["npx", "-y", "@scope/pkg@1.2.3"], "npx -y @scope/pkg@1.2.3"),
    (["uvx", "some-server", "--key", "k"], "uvx some-server ..."),
    (["uv", "run", "--with", "x", "server.py"], "uv run --with x server.py"),
    (["pnpm", "dlx", "pkg", "a"], "pnpm dlx pkg ..."),
    (["docker", "run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/o/img:1", "x"],
     "docker run ghcr.io/o/img:1 ..."),
    (["python", "-m", "my_server", "--secret", "x"], "python -m my_server ..."),
    (["node", "build/index.js"], "node build/index.js"),
    (["cmd", "/c", "npx", "-y", "pkg", "t"], "cmd /c npx -y pkg ..."),
    (["/usr/local/bin/my-server", "--token", "t"], "/usr/local/bin/my-server ..."),
])
def test_package_words_name_the_package_and_leave_the_arguments_out(argv, words):
    assert package_words(argv) == words


def test_npm_prefix_exec_of_the_installed_command_is_read_through_its_link(tmp_path, layout):
    package = tmp_path / "mcp" / "node_modules" / "@modelcontextprotocol" / "server-filesystem"
    write(package / "package.json", json.dumps(
        {"name": "@modelcontextprotocol/server-filesystem", "version": "2026.8.31"}))
    write(package / "dist" / "index.js", "")
    bin_dir = tmp_path / "mcp" / "node_modules" / ".bin"
    bin_dir.mkdir()
    (bin_dir / "mcp-server-filesystem").symlink_to(package / "dist" / "index.js")
    config = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "npm", "args": ["--prefix", str(tmp_path / "mcp"), "exec", "--",
                                   "mcp-server-filesystem", str(layout.data)]}}))
    found = load_deployment(config)
    assert (found.server, found.server_version) == ("server-filesystem", "2026.8.31")
    assert not any("'not found'" in n for n in found.notes)


def test_npm_prefix_exec_of_the_package_name_warns_it_runs_only_from_the_prefix(
        tmp_path, layout):
    _installed(tmp_path / "mcp", "@modelcontextprotocol/server-filesystem", "2026.8.31")
    config = write(tmp_path / "claude_desktop_config.json", mcp_servers({"files": {
        "command": "npm", "args": ["--prefix", str(tmp_path / "mcp"), "exec", "--",
                                   "@modelcontextprotocol/server-filesystem",
                                   str(layout.data)]}}))
    assert any("'not found'" in n for n in load_deployment(config).notes)


def test_uv_run_project_takes_the_version_but_not_the_directory(tmp_path):
    checkout = _checkout(tmp_path / "gee", version="0.9.5")
    config = write(tmp_path / "proj" / ".mcp.json", mcp_servers({"gee": {
        "command": "uv", "args": ["run", "--project", str(checkout), "mcp-gee-sweet"]}}))
    found = load_deployment(config)
    assert found.server_version == "0.9.5"
    assert found.cwd == str(tmp_path / "proj")  # Claude Code's project folder, unchanged


def test_uv_run_directory_wins_over_the_entrys_cwd_and_is_relative_to_it(tmp_path):
    _checkout(tmp_path / "work" / "gee")
    config = write(tmp_path / ".vscode" / "mcp.json", mcp_servers({"gee": {
        "command": "uv", "cwd": str(tmp_path / "work"),
        "args": ["run", "--directory", "gee", "mcp-gee-sweet"]}}, "servers"))
    found = load_deployment(config)
    assert found.cwd == str(tmp_path / "work" / "gee") and found.server_version == "0.9.5"


def test_without_reading_files_no_local_copy_is_opened(tmp_path, monkeypatch):
    import localfs_explorer.deployments.launchers as launchers
    from localfs_explorer.deployments import list_entries

    checkout = _checkout(tmp_path / "gee")
    config = write(tmp_path / "claude_desktop_config.json", mcp_servers({"gee": {
        "command": "uv", "args": ["run", "--directory", str(checkout), "mcp-gee-sweet"]}}))

    def refuse(path):
        raise AssertionError(f"opened {path}")

    monkeypatch.setattr(launchers, "_read_small", refuse)
    (row,) = list_entries(config, read_files=False)
    assert (row["server"], row["version"]) == ("mcp-gee-sweet", None)
    found = load_deployment(config, read_files=False)
    assert found.server_version is None and found.cwd == str(checkout)
