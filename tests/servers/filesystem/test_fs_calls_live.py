"""The probe's answer to whole tool calls against the real filesystem server.

The same calls go to ``probe_call`` (the shared probe, which hands them to the server's
own rules) and to the real server over stdio; what the model gets must agree: the
error text of a refused call, the per-file error lines inside read_multiple_files'
successful result, the entries search_files leaves out, the first directory
directory_tree may not enter, and move_file's refusal of a destination that exists
(which 2026.7.10 doesn't make: it renames over it).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fs_npm import (  # noqa: F401
    fixture_fs_old_dist,
    fixture_fs_server_dist,
    fixture_fs_server_js,
)

from localfs_explorer.config import ServerConfig, resolve_config
from localfs_explorer.probe import probe_call
from localfs_explorer.servers.filesystem.live import session

pytestmark = [pytest.mark.slow, pytest.mark.real]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    (root / "data" / "sub").mkdir(parents=True)
    (root / "data" / "a.txt").write_text("alpha", encoding="utf-8")
    (root / "data" / "b.txt").write_text("beta", encoding="utf-8")
    (root / "data" / "sub" / "c.txt").write_text("gamma", encoding="utf-8")
    (root / "outside").mkdir()
    (root / "outside" / "secret.txt").write_text("secret", encoding="utf-8")
    os.symlink(root / "outside", root / "data" / "sub" / "out")
    (root / "data'" / "inside").mkdir(parents=True)
    return root


def _policy(tree: Path, version: str) -> Any:
    return resolve_config(ServerConfig(
        server="server-filesystem", server_version=version, cwd=str(tree),
        server_options={"directories": [str(tree / "data")], "home": str(tree)})).policy


def _run(tree: Path, argv: list[str], version: str,
         calls: list[tuple[str, dict]]) -> list[tuple[Any, bool, str]]:
    """(predicted verdict, live is_error, live text) per call, each predicted just
    before the live call on the same tree."""
    import anyio

    policy = _policy(tree, version)
    out: list[tuple[Any, bool, str]] = []

    async def go() -> None:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tree)}
        async with session(argv, cwd=str(tree), env=env) as live:
            for name, arguments in calls:
                predicted = probe_call(policy, name, arguments)
                is_error, text = await live.call(name, arguments)
                out.append((predicted, is_error, text))

    anyio.run(go)
    return out


def test_calls_agree_with_the_pinned_release(tree: Path, fs_server_js: str) -> None:
    data, secret = f"{tree}/data", f"{tree}/outside/secret.txt"
    calls = [
        ("move_file", {"source": f"{data}/a.txt", "destination": f"{data}/b.txt"}),
        ("move_file", {"source": f"{data}/a.txt", "destination": f"{data}/sub"}),
        ("move_file", {"source": secret, "destination": f"{data}/new.txt"}),
        ("move_file", {"source": f"{data}/a.txt", "destination": f"{tree}/outside/x"}),
        ("read_multiple_files", {"paths": [f"{data}/a.txt", secret,
                                           f"{data}/sub/out/secret.txt"]}),
        ("read_text_file", {"path": f"{data}/sub/out/secret.txt"}),
        ("directory_tree", {"path": f"{data}'"}),
        ("directory_tree", {"path": data}),
        ("search_files", {"path": data, "pattern": "**/*"}),
    ]
    results = _run(tree, ["node", fs_server_js, f"{tree}/data"], "2026.8.31", calls)
    for (name, arguments), (v, is_error, text) in zip(calls, results, strict=True):
        where = f"{name} {arguments}: predicted {v.outcome} {v.message!r}, server {text!r}"
        if v.outcome == "refused":
            assert is_error and text == v.message, where
        elif v.outcome == "partial":
            assert not is_error, where
            for line in v.message.split("\n"):
                assert line in text.split("\n---\n"), where
            assert f"{data}/a.txt:\nalpha\n" in text, where
        else:
            assert v.outcome == "ok" and not is_error, where
    outcomes = [v.outcome for v, _, _ in results]
    assert outcomes == ["refused", "refused", "refused", "refused", "partial", "refused",
                        "refused", "ok", "ok"]
    # search_files: what it lists is what passed the check; the refused link isn't there.
    search, _, listed = results[-1]
    skipped = {p.path for p in search.paths if p.step == "skipped"}
    assert skipped == {f"{data}/sub/out"}
    assert set(listed.splitlines()) == {p.path for p in search.paths[1:] if p.allowed}
    # Nothing was moved by the refused calls.
    assert (tree / "data" / "a.txt").read_text(encoding="utf-8") == "alpha"
    assert (tree / "data" / "b.txt").read_text(encoding="utf-8") == "beta"


def test_2026_7_10_moves_onto_an_existing_destination(tree: Path, fs_old_dist: Path) -> None:
    data = f"{tree}/data"
    calls = [("move_file", {"source": f"{data}/a.txt", "destination": f"{data}/b.txt"})]
    ((v, is_error, text),) = _run(tree, ["node", str(fs_old_dist / "index.js"), data],
                                  "2026.7.10", calls)
    assert v.outcome == "ok" and not is_error, text
    assert (tree / "data" / "b.txt").read_text(encoding="utf-8") == "alpha"
