"""Drive the real filesystem server over stdio and compare it with the explorer.

For one tree: start the server with the tree's directories, ask ``get_file_info`` of every
path, then ``write_file`` to every path, and compare each answer with the explorer's
verdict computed just before the call on the same (live) tree. Returns the differences
as readable lines; an empty list is agreement.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from localfs_explorer.fs import HostFS
from localfs_explorer.servers.filesystem import FilesystemConfig, FilesystemPolicy
from localfs_explorer.servers.filesystem.live import session

# Errors the checks themselves raise, as opposed to the tool's own I/O afterwards.
_CHECK_ERROR = re.compile(
    r"^(Access denied - |Parent directory does not exist: |Ambiguous Unicode path "
    r"component: |E[A-Z]+: [^,]*, (realpath|scandir|lstat) ')"
)


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return None


def compare_tree(tree: Any, server_js: str, version: str = "2026.8.31") -> list[str]:
    import anyio

    config = FilesystemConfig(directories=tuple(tree.allow), cwd=str(tree.root),
                              home=tree.home, version=version)
    fs = HostFS()
    diffs: list[str] = []
    env = {"PATH": os.environ.get("PATH", ""), "HOME": tree.home}

    def verdict(path: str) -> Any:
        return FilesystemPolicy(config, fs).validate(path)

    async def run() -> None:
        async with session(["node", server_js, *tree.allow], cwd=str(tree.root),
                           env=env) as live:
            predicted = FilesystemPolicy(config, fs).directories
            got = await live.allowed_directories()
            if list(predicted) != got:
                diffs.append(f"allowed directories: predicted {predicted!r}, server {got!r}")
                return
            for path in tree.paths:
                v = verdict(path)
                is_error, text = await live.call("get_file_info", {"path": path})
                diffs.extend(_compare_read(path, v, is_error, text))
            for n, path in enumerate(tree.paths):
                v = verdict(path)
                content = f"written {n}"
                before = _read_text(v.resolved) if v.resolved else None
                is_error, text = await live.call("write_file",
                                                 {"path": path, "content": content})
                diffs.extend(_compare_write(path, v, is_error, text, content, before))

    anyio.run(run)
    return diffs


def _compare_read(path: str, v: Any, is_error: bool, text: str) -> list[str]:
    where = f"get_file_info {path!r}"
    if not v.allowed:
        if not is_error or text != v.message:
            return [f"{where}: predicted refusal {v.message!r}, server "
                    f"{'error ' + repr(text) if is_error else 'answered'}"]
        return []
    if is_error and _CHECK_ERROR.match(text):
        return [f"{where}: predicted allowed ({v.resolved!r}), server refused {text!r}"]
    exists = os.path.exists(v.resolved)
    if not exists and text != f"ENOENT: no such file or directory, stat '{v.resolved}'":
        return [f"{where}: predicted {v.resolved!r} (missing), server said {text!r}"]
    if exists and is_error:
        return [f"{where}: predicted {v.resolved!r} (exists), server said {text!r}"]
    return []


def _compare_write(path: str, v: Any, is_error: bool, text: str, content: str,
                   before: str | None) -> list[str]:
    where = f"write_file {path!r}"
    if not v.allowed:
        if not is_error or text != v.message:
            return [f"{where}: predicted refusal {v.message!r}, server "
                    f"{'error ' + repr(text) if is_error else 'wrote'}"]
        return []
    if is_error:
        if _CHECK_ERROR.match(text):
            return [f"{where}: predicted allowed ({v.resolved!r}), server refused {text!r}"]
        return []  # the write itself failed (a directory, a missing parent): not a check
    if _read_text(v.resolved) != content:
        return [f"{where}: the server wrote somewhere else than {v.resolved!r}"]
    return []


def quick(root: Path, seeds: range, server_js: str, version: str = "2026.8.31") -> int:
    """Run seeds from the command line (for long runs); prints and counts differences."""
    import shutil

    from fs_trees import build

    total = 0
    for seed in seeds:
        where = root / f"t{seed}"
        if where.exists():
            shutil.rmtree(where)
        where.mkdir(parents=True)
        tree = build(where, seed)
        diffs = compare_tree(tree, server_js, version)
        total += len(diffs)
        for d in diffs:
            print(f"seed {seed}: {d}")
    return total
