"""Helpers the probe's tests share: calls with their required arguments filled in, a
filesystem that records what it was asked, snapshots of a tree."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import Layout

from localfs_explorer import HostFS, load_env, resolve_policy
from localfs_explorer.catalog import load_catalog
from localfs_explorer.probe import probe_call as probe_exactly

CATALOG = load_catalog()
_PLACEHOLDERS = {"array": [], "boolean": False, "integer": 1, "number": 1}


def full(name: str, arguments: dict | None) -> dict:
    """``arguments`` with each required argument the test doesn't care about filled in."""
    tool = CATALOG.get(name)
    out = dict(arguments or {})
    for a in (tool.arguments or ()) if tool is not None else ():
        if a.required and a.name not in out:
            kind = next((t for t in a.types if t != "null"), "string")
            out[a.name] = _PLACEHOLDERS.get(kind, f"<{a.name}>")
    return out


def probe_call(policy, name, arguments=None, **options):
    """The probe, on a call whose required arguments are all given (see :func:`full`)."""
    return probe_exactly(policy, name, full(name, arguments), **options)


class RecordingFS(HostFS):
    """This host's filesystem, remembering every path it was asked about."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.listed: list[str] = []

    def realpath(self, path: str) -> str:
        self.asked.append(path)
        return super().realpath(path)

    def lstat(self, path: str):
        self.asked.append(path)
        return super().lstat(path)

    def stat(self, path: str):
        self.asked.append(path)
        return super().stat(path)

    def listdir(self, path: str) -> list[str]:
        self.asked.append(path)
        self.listed.append(path)
        return super().listdir(path)

    def readlink(self, path: str) -> str:
        self.asked.append(path)
        return super().readlink(path)


def snapshot(base: Path) -> list[tuple[str, bool, int, int]]:
    """Every entry under ``base`` with its kind, size and mtime, not following links."""
    out = []
    for dirpath, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            out.append((os.path.relpath(p, base), os.path.islink(p), st.st_size, st.st_mtime_ns))
    return sorted(out)


def recorded_policy(layout: Layout, transport: str = "stdio", **settings: str):
    fs = RecordingFS()
    policy = resolve_policy(
        load_env(None, overrides={"HOME": str(layout.home), **settings}),
        transport=transport, fs=fs, cwd=str(layout.app), package_dir=str(layout.app),
    )
    fs.asked.clear()
    return policy, fs


def verdict_paths(verdict) -> dict[str, tuple[bool, str]]:
    return {p.path: (p.allowed, p.op) for p in verdict.paths}
