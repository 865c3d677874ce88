"""The real DesktopCommanderMCP answering what the explorer predicts of it: its
tools/list is the shipped catalog, get_config is the status, verify agrees (and sees
drift), and each finding holds when tried on the running server."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import anyio
import pytest
from conftest import run_cli
from dc_npm import fixture_dc_dist, fixture_dc_server_js, write_settings  # noqa: F401

from localfs_explorer.envfile.load import load_env
from localfs_explorer.fs import HostFS
from localfs_explorer.server import Setup, get_server
from localfs_explorer.servers.desktop_commander.live import session
from localfs_explorer.servers.desktop_commander.tools import load_tools

pytestmark = [pytest.mark.slow, pytest.mark.real]
SERVER = get_server("desktop-commander")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = Path(os.path.realpath(tmp_path))
    for d in ("allowed", "Allowed", "outside", "home", "work"):
        (r / d).mkdir()
    (r / "allowed/a.txt").write_text("inside")
    (r / "Allowed/b.txt").write_text("case twin")
    (r / "outside/s.txt").write_text("secret")
    os.symlink("../outside/new.txt", r / "allowed/dangling")
    return r


def _live(root: Path, calls: list[tuple[str, dict]]) -> tuple[list, list, dict]:
    js = os.environ["DC_JS"]
    answers: list = []
    tools: list = []
    config: dict = {}

    async def run() -> None:
        nonlocal tools, config
        async with session(["node", js], home=str(root / "home"), cwd=str(root / "work")) as s:
            tools = await s.tools()
            config = await s.config()
            for name, args in calls:
                answers.append(await s.call(name, args))

    anyio.run(run)
    return answers, tools, config


@pytest.fixture(autouse=True)
def _js(dc_server_js: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DC_JS", dc_server_js)


def test_tools_list_and_get_config_are_the_prediction(root: Path) -> None:
    write_settings(root / "home", {"allowedDirectories": [str(root / "allowed")],
                                   "blockedCommands": ["sudo"]})
    _, tools, config = _live(root, [])
    assert [t["name"] for t in tools] == [t.name for t in load_tools()]
    assert [t["annotations"] for t in tools] == [t.annotations for t in load_tools()]
    policy = SERVER.resolve(Setup(env=load_env(None), fs=HostFS(), base_dir=str(root),
                                  cwd=str(root / "work"),
                                  options=SERVER.options({"home": str(root / "home")})))
    predicted = SERVER.status(policy)["config"]
    assert {k: config[k] for k in predicted} == predicted


def test_verify_agrees_and_sees_drift(root: Path, dc_server_js: str) -> None:
    write_settings(root / "home", {"allowedDirectories": [str(root / "allowed")]})
    base = ("verify", "--server", "desktop-commander", "--home", root / "home", "--cwd",
            root / "work", "--command", f"node {dc_server_js}", "--json")
    code, out, err = run_cli(*base)
    assert code == 0 and json.loads(out)["differences"] == [], err
    code, out, _ = run_cli(*base, "--allowed-dir", root / "outside")
    assert code == 1 and any("allowedDirectories" in d for d in json.loads(out)["differences"])
    # No list in the file: get_config shows none before a file tool runs, and the home
    # directory is what the probes meet.
    write_settings(root / "home", {"blockedCommands": ["sudo"]})
    code, out, err = run_cli(*base)
    assert code == 0 and json.loads(out)["differences"] == [], err


def test_the_findings_hold_on_the_running_server(root: Path) -> None:
    write_settings(root / "home", {"allowedDirectories": [str(root / "allowed")],
                                   "blockedCommands": ["sudo"]})
    outside = str(root / "outside/s.txt")
    answers, _, _ = _live(root, [
        ("read_file", {"path": outside}),                             # refused
        ("read_file", {"path": str(root / "Allowed/b.txt")}),         # case fold: read
        ("write_file", {"path": str(root / "allowed/dangling"), "content": "out",
                        "mode": "rewrite"}),                          # lands outside
        ("start_process", {"command": f"cp {outside} {root / 'copied-by-cp.txt'}",
                           "timeout_ms": 5000}),                      # bypass
        ("set_config_value", {"key": "allowedDirectories", "value": "[]"}),   # widening
        ("read_file", {"path": outside}),                             # now allowed
    ])
    (refused, _), (case_error, case_text), (w_error, _), (_, _), (_, _), (after, text) = \
        answers
    assert refused and not case_error and "case twin" in case_text
    assert not w_error and (root / "outside/new.txt").read_text() == "out"
    # What the process read is checked on disk: its output may reach the answer late.
    copied = root / "copied-by-cp.txt"
    deadline = time.monotonic() + 15
    while not copied.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert copied.read_text() == "secret"
    assert not after and "secret" in text
    saved = json.loads((root / "home/.claude-server-commander/config.json").read_text())
    assert saved["allowedDirectories"] == []  # it outlives the session


def test_read_multiple_files_gives_the_predicted_item_lines(root: Path) -> None:
    write_settings(root / "home", {"allowedDirectories": [str(root / "allowed")]})
    paths = [str(root / "allowed/a.txt"), str(root / "outside/s.txt")]
    ((is_error, text),), _, _ = _live(root, [("read_multiple_files", {"paths": paths})])
    policy = SERVER.resolve(Setup(env=load_env(None), fs=HostFS(), base_dir=str(root),
                                  cwd=str(root / "work"),
                                  options=SERVER.options({"home": str(root / "home")})))
    predicted = SERVER.answer_call(policy, "read_multiple_files", {"paths": paths})
    assert predicted is not None and not is_error
    assert predicted.message in text.splitlines()


def test_slash_as_a_string_in_the_file_means_the_home(root: Path) -> None:
    # Not a list: the server falls back to the home directory (the README's '/' is a
    # list entry, or what set_config_value makes of the string).
    write_settings(root / "home", {"allowedDirectories": "/"})
    ((is_error, text),), _, _ = _live(root, [("get_file_info",
                                              {"path": str(root / "outside/s.txt")})])
    assert is_error and text.endswith(f"directories: {root}/home")
    policy = SERVER.resolve(Setup(env=load_env(None), fs=HostFS(), base_dir=str(root),
                                  cwd=str(root / "work"),
                                  options=SERVER.options({"home": str(root / "home")})))
    assert "Error: " + policy.check(str(root / "outside/s.txt")).message == text


def test_paths_with_nul_bytes_fail_with_nodes_own_text(root: Path) -> None:
    write_settings(root / "home", {"allowedDirectories": []})
    paths = ["/tmp/a\0b", "/tmp/it's\0\n\t\x7f", "rel\0x", "/tmp/q'\"\0", "/tmp/q'\"`\0",
             "/tmp/q'\"`${\0"]
    answers, _, _ = _live(root, [("get_file_info", {"path": p}) for p in paths])
    policy = SERVER.resolve(Setup(env=load_env(None), fs=HostFS(), base_dir=str(root),
                                  cwd=str(root / "work"),
                                  options=SERVER.options({"home": str(root / "home")})))
    for path, (is_error, text) in zip(paths, answers, strict=True):
        assert is_error and text == "Error: " + policy.check(path).message, path


def test_blocking_one_shell_leaves_another(root: Path) -> None:
    # The finding stays critical while any shell is left unblocked: 'bash' blocked,
    # 'sh -c' still reads outside every allowed directory.
    write_settings(root / "home", {"allowedDirectories": [str(root / "allowed")],
                                   "blockedCommands": ["bash"]})
    outside = root / "outside/s.txt"
    # What the shell read is copied where the test can look: its output on the answer
    # may come after the server has already replied.
    copied = root / "copied-by-sh.txt"
    answers, _, _ = _live(root, [
        ("start_process", {"command": "bash", "timeout_ms": 3000}),
        ("start_process", {"command": f"sh -c 'cat {outside} > {copied}'",
                           "timeout_ms": 3000}),
    ])
    (blocked, said), (sh_error, _sh_out) = answers
    assert blocked and said == "Error: Command not allowed: bash"
    deadline = time.monotonic() + 15
    while not (copied.exists() and "secret" in copied.read_text()) \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not sh_error and "secret" in copied.read_text()
    policy = SERVER.resolve(Setup(env=load_env(None), fs=HostFS(), base_dir=str(root),
                                  cwd=str(root / "work"),
                                  options=SERVER.options({"home": str(root / "home")})))
    kinds = {f["kind"]: f["severity"] for f in SERVER.findings(policy)}
    assert kinds["terminal-bypass"] == "critical"
