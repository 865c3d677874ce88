"""Drive the real DesktopCommanderMCP over stdio and compare it with the explorer.

For one tree: write its settings file, start the server with ``HOME`` and the working
directory of the tree, ask ``get_file_info`` of every path, then ``write_file`` (mode
``rewrite``) to every path whose write stays inside the tree, and compare each answer
with the explorer's verdict computed just before the call on the same (live) tree:
refused with the same text, or carried out on the path the explorer says. Returns the
differences as readable lines; an empty list is agreement.
"""

from __future__ import annotations

import os
from typing import Any

from dc_npm import write_settings
from dc_trees import NO_FILE, UNSET

from localfs_explorer.fs import HostFS
from localfs_explorer.servers.desktop_commander.live import session
from localfs_explorer.servers.desktop_commander.policy import DcPolicy
from localfs_explorer.servers.desktop_commander.settings import config_path, read_settings

#: The beginnings of the check's own refusals (anything else is the tool's own I/O).
_CHECK = ("Error: Path not allowed: ", "Error: Failed to resolve symlink for path: ")


def _policy(tree: Any) -> DcPolicy:
    settings = read_settings(config_path(tree.home), tree.home)
    return DcPolicy(settings, home=tree.home, cwd=tree.cwd, fs=HostFS())


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return None


def compare_tree(tree: Any, server_js: str) -> list[str]:
    from pathlib import Path

    import anyio

    if tree.allowed == NO_FILE:
        write_settings(Path(tree.home), None)
    elif tree.allowed == UNSET:
        write_settings(Path(tree.home), {})
    else:
        write_settings(Path(tree.home), {"allowedDirectories": tree.allowed})
    diffs: list[str] = []
    root = str(tree.root)

    async def run() -> None:
        async with session(["node", server_js], home=tree.home, cwd=tree.cwd) as live:
            for path in tree.paths:
                v = _policy(tree).validate(path)
                is_error, text = await live.call("get_file_info", {"path": path})
                diffs.extend(_judged(f"get_file_info {path!r} (allowed {tree.allowed!r})",
                                     v, is_error, text))
            for n, path in enumerate(tree.paths):
                v = _policy(tree).validate(path)
                if v.allowed and not os.path.realpath(v.resolved or "/").startswith(root):
                    continue  # never write outside the scratch tree
                content = f"written {n}"
                is_error, text = await live.call(
                    "write_file", {"path": path, "content": content, "mode": "rewrite"})
                where = f"write_file {path!r} (allowed {tree.allowed!r})"
                diffs.extend(_judged(where, v, is_error, text))
                if v.allowed and not is_error and _read(v.resolved or "") != content:
                    diffs.append(f"{where}: written, but not at {v.resolved}")

    anyio.run(run)
    return diffs


def _judged(where: str, v: Any, is_error: bool, text: str) -> list[str]:
    """A refusal must be the predicted text; an allowed path must not meet the check's
    own refusal (the tool's own I/O errors afterwards are not the check's)."""
    if not v.allowed:
        if not is_error or text != "Error: " + v.message:
            return [f"{where}: predicted {v.message!r}, server {text[:300]!r}"]
    elif is_error and text.startswith(_CHECK):
        return [f"{where}: predicted allowed ({v.resolved}), server {text[:300]!r}"]
    return []
