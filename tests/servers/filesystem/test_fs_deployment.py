"""A filesystem-server entry of an MCP client config, verified against the real server
(npm, the pinned release): the entry's own command line is what runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from fs_npm import fixture_fs_server_dist, fixture_fs_server_js  # noqa: F401

pytestmark = [pytest.mark.slow, pytest.mark.real]


def test_verify_of_an_entry_runs_its_command_and_agrees(tmp_path: Path,
                                                        fs_server_js: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    config = tmp_path / "proj" / ".vscode" / "mcp.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"servers": {
        "files": {"type": "stdio", "command": "node", "args": [fs_server_js, str(data)]},
        "other": {"command": "node", "args": ["x.js"]},
    }}))
    code, out, err = run_cli("verify", "--client-config", str(config), "--json",
                             "--timeout", "90")
    assert code == 0, (out, err)
    report = json.loads(out)
    assert report["agree"] and report["allowed_directories"]["live"] == [str(data)]
    # An override the entry doesn't run is a difference.
    code, out, _ = run_cli("verify", "--client-config", str(config), "--allowed-dir",
                           str(tmp_path), "--timeout", "90")
    assert code == 1 and "difference: list_allowed_directories" in out


def test_a_local_build_and_an_npm_prefix_install_are_the_pinned_release(
        tmp_path: Path, fs_server_js: str) -> None:
    """The published package's own package.json (above dist/index.js) names it: `node` on
    its script and `npm --prefix` on its install folder are that release; the command the
    package installs runs from any directory, the package's name only from the prefix."""
    from localfs_explorer.deployments import load_deployment

    data = tmp_path / "data"
    data.mkdir()
    prefix = Path(fs_server_js).parents[4]  # PREFIX/node_modules/@scope/pkg/dist/index.js
    config = tmp_path / "proj" / ".mcp.json"  # Claude Code starts servers in proj/
    config.parent.mkdir()
    config.write_text(json.dumps({"mcpServers": {
        "build": {"command": "node", "args": [fs_server_js, str(data)]},
        "bin": {"command": "npm", "args": [
            "--prefix", str(prefix), "exec", "--", "mcp-server-filesystem", str(data)]},
        "package": {"command": "npm", "args": [
            "--prefix", str(prefix), "exec", "--", "@modelcontextprotocol/server-filesystem",
            str(data)]},
    }}, indent=2))
    for entry in ("build", "bin", "package"):
        found = load_deployment(config, entry)
        assert (found.server, found.server_version) == ("server-filesystem", "2026.8.31"), (
            entry, found.notes)
        assert found.arg_paths == [str(data)]
    code, out, err = run_cli("verify", "--client-config", str(config), "--entry", "bin",
                             "--json", "--timeout", "120")
    assert code == 0, (out, err)
    assert json.loads(out)["allowed_directories"]["live"] == [str(data)]
    # The package's name: npm finds it under the prefix but can't run its command from
    # proj/, as the note on the entry says.
    assert any("'not found'" in n for n in load_deployment(config, "package").notes)
    code, out, err = run_cli("verify", "--client-config", str(config), "--entry", "package",
                             "--timeout", "120")
    assert code == 2 and "not found" in err
