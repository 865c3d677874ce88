"""A client config entry that launches DesktopCommanderMCP: recognised by npx, node and
docker, its HOME (and so its settings file) taken from the entry's environment."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_cli

from localfs_explorer.cli.main import build_parser
from localfs_explorer.cli.options import apply_deployment
from localfs_explorer.deployments.launch import identify

DESKTOP_COMMANDER = "desktop-commander"


@pytest.mark.parametrize(("argv", "version"), [
    (["npx", "-y", "@wonderwhy-er/desktop-commander@0.2.52"], "0.2.52"),
    (["npx", "-y", "@wonderwhy-er/desktop-commander"], None),
    (["node", "/opt/node_modules/@wonderwhy-er/desktop-commander/dist/index.js"], None),
    (["docker", "run", "-i", "--rm", "mcp/desktop-commander:0.2.52"], "0.2.52"),
])
def test_its_launches_are_recognised(argv: list[str], version: str | None) -> None:
    launch = identify(argv)
    assert launch.server == DESKTOP_COMMANDER and launch.version == version


def test_other_packages_are_not_it() -> None:
    assert identify(["npx", "-y", "@someone/desktop-commander-lite"]).server is None


def _entry(tmp_path: Path) -> tuple[Path, Path]:
    root = Path(os.path.realpath(tmp_path))
    home = root / "home"
    (home / ".claude-server-commander").mkdir(parents=True)
    (home / ".claude-server-commander/config.json").write_text(
        json.dumps({"allowedDirectories": [str(root / "data")]}))
    (root / "data").mkdir()
    config = root / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"dc": {
        "command": "npx", "args": ["-y", "@wonderwhy-er/desktop-commander@0.2.52"],
        "env": {"HOME": str(home)}}}}))
    return root, config


def test_check_reads_the_settings_under_the_entrys_home(tmp_path: Path) -> None:
    root, config = _entry(tmp_path)
    code, out, err = run_cli("check", "--client-config", config, "--json",
                             root / "data/x.txt", root / "elsewhere")
    verdicts = [json.loads(line) for line in out.splitlines()]
    assert code == 1, err
    assert [v["allowed"] for v in verdicts] == [True, False]
    assert verdicts[1]["message"].endswith(f"directories: {root}/data")


def test_verify_of_the_entry_starts_the_entrys_command(tmp_path: Path) -> None:
    _, config = _entry(tmp_path)
    args = build_parser().parse_args(["verify", "--client-config", str(config)])
    apply_deployment(args)
    assert args.server == DESKTOP_COMMANDER
    # verify starts exactly the entry's words: a program that isn't there says so.
    root = Path(os.path.realpath(tmp_path))
    missing = root / "no-such-dir" / "node"
    config.write_text(json.dumps({"mcpServers": {"dc": {
        "command": str(missing),
        "args": [str(root / "node_modules/@wonderwhy-er/desktop-commander/dist/index.js")],
        "env": {"HOME": str(root / "home")}}}}))
    code, _, err = run_cli("verify", "--client-config", config, "--timeout", "10")
    assert code == 2 and "can't run the server" in err and str(missing) in err, err


@pytest.mark.parametrize("listed", [[], ["/"]])
def test_an_empty_or_root_allow_list_reaches_everything(tmp_path: Path, listed) -> None:
    root, config = _entry(tmp_path)
    (root / "home/.claude-server-commander/config.json").write_text(
        json.dumps({"allowedDirectories": listed}))
    _code, out, err = run_cli("deployment", "--client-config", config, "--json")
    (answer,) = [json.loads(line) for line in out.splitlines()]
    assert answer["server"] == DESKTOP_COMMANDER, err
    assert answer["directories"] == ["/"], answer
    assert answer["summary"] == "reads and writes under /"
