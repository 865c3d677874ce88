"""The composite GitHub Action and the pre-commit hook definitions call real commands."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from localfs_explorer.cli.main import build_parser

yaml = pytest.importorskip("yaml")
ROOT = Path(__file__).resolve().parent.parent


def _parses(argv: list[str]) -> None:
    """argv (after the program name) is accepted by the parser."""
    try:
        build_parser().parse_args(argv)
    except SystemExit as exc:  # pragma: no cover - the failure message says which
        raise AssertionError(f"not a valid command line: {argv}") from exc


def test_the_action_declares_every_input_it_uses_and_quotes_them_through_env() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    declared = set(action["inputs"])
    used = set(re.findall(r"inputs\.([a-z-]+)", (ROOT / "action.yml").read_text()))
    assert used <= declared and declared <= used
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert step.get("shell") == "bash", step
            # Inputs reach scripts as environment variables, never pasted into the script.
            assert "${{" not in step["run"], step["run"]


def test_the_action_runs_test_and_diff_with_junit_and_sarif() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    script = "\n".join(s["run"] for s in action["runs"]["steps"] if "run" in s)
    script = script.replace("\\\n", " ")
    lines = [line.strip() for line in script.splitlines()
             if line.strip().startswith("localfs-explorer ")]
    commands = {}
    for line in lines:
        argv = shlex.split(line.replace('"${targets[@]}"', "scenarios")
                           .replace('"${extra[@]}"', "--allow-new-access"))
        argv = [re.sub(r"\$[A-Z_]+", "x", a.replace("$TRANSPORT", "stdio"))
                for a in argv[1:]]
        _parses(argv)
        commands[argv[0]] = argv
    assert set(commands) == {"test", "diff"}
    assert "--junit-xml" in commands["test"]
    assert "--junit-xml" in commands["diff"] and "--sarif" in commands["diff"]


def test_the_pre_commit_hooks_call_real_commands() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    ids = {h["id"] for h in hooks}
    assert ids == {"localfs-explorer-validate", "localfs-explorer-test"}
    files = {"localfs-explorer-validate": ["deploy/.env", "prod.env"],
             "localfs-explorer-test": ["scenarios/a.toml", "x/ci.scenarios.toml"]}
    for hook in hooks:
        entry = shlex.split(hook["entry"])
        assert entry[0] == "localfs-explorer" and hook["language"] == "python"
        for name in files[hook["id"]]:
            assert re.search(hook["files"], name), (hook["id"], name)
        _parses([*entry[1:], *files[hook["id"]]])
    validate = next(h for h in hooks if h["id"] == "localfs-explorer-validate")
    assert not re.search(validate["files"], "README.md")
    assert not re.search(validate["files"], ".env.example")
