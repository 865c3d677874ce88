"""The real reference filesystem server, installed once per test session from npm.

The fixtures are imported by the test modules that use them (a conftest.py here would
shadow the suite's own ``conftest`` module, which other tests import by name).

``@modelcontextprotocol/server-filesystem`` at the pinned release is installed into a
scratch folder with npm (once per session; set LOCALFS_FS_SERVER_PREFIX to a folder to
keep the install between sessions). Tests that need it skip, saying why, where node or
npm is missing or the registry can't be reached.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from npm_packages import install_package

PACKAGE = "@modelcontextprotocol/server-filesystem"
#: The release the explorer models by default (npm's ``latest``).
PINNED = "2026.8.31"


def _install(prefix: Path, version: str) -> Path:
    return install_package(prefix, PACKAGE, version,
                           needed_for="the reference filesystem server")


def _prefix(tmp_path_factory: pytest.TempPathFactory, version: str) -> Path:
    kept = os.environ.get("LOCALFS_FS_SERVER_PREFIX")
    if kept:
        return Path(kept) / version
    return tmp_path_factory.getbasetemp() / f"npm-server-filesystem-{version}"


@pytest.fixture(scope="session", name="fs_server_dist")
def fixture_fs_server_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``dist`` folder of the pinned release, installed for this session."""
    return _install(_prefix(tmp_path_factory, PINNED), PINNED)


@pytest.fixture(scope="session", name="fs_server_js")
def fixture_fs_server_js(fs_server_dist: Path) -> str:
    """The pinned server's entry point (``node <it> DIR...`` starts it on stdio)."""
    return str(fs_server_dist / "index.js")


@pytest.fixture(scope="session", name="fs_new_dist")
def fixture_fs_new_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``dist`` folder of 2.0.1 (newer, untagged; its server needs node 24, but its
    ``validatePath`` runs in the node here)."""
    return _install(_prefix(tmp_path_factory, "2.0.1"), "2.0.1")


@pytest.fixture(scope="session", name="fs_old_dist")
def fixture_fs_old_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``dist`` folder of 2026.7.10, the release before the pinned one."""
    return _install(_prefix(tmp_path_factory, "2026.7.10"), "2026.7.10")


def node_validate(dist: Path, directories: list[str], paths: list[str],
                  home: str, version: str = PINNED) -> list[list]:
    """The package's own ``validatePath`` run in node on each path:
    ``[allowed, message, resolved]`` per path. (2.0.1 takes the allow-list as an
    argument; the earlier releases keep it in the module.)"""
    call = "validatePath(p, dirs)" if version == "2.0.1" else "validatePath(p)"
    script = (
        f"import * as lib from {json.dumps((dist / 'lib.js').as_uri())};\n"
        "const { validatePath } = lib;\n"
        "import fs from 'fs';\n"
        "const [dirs, paths] = JSON.parse(fs.readFileSync(0, 'utf8'));\n"
        "if (lib.setAllowedDirectories) lib.setAllowedDirectories(dirs);\n"
        "const out = [];\n"
        "for (const p of paths) {\n"
        f"  try {{ out.push([true, '', await {call}]); }}\n"
        "  catch (e) { out.push([false, e.message, null]); }\n"
        "}\n"
        "process.stdout.write(JSON.stringify(out));\n"
    )
    done = subprocess.run(["node", "--input-type=module", "-e", script],
                          input=json.dumps([directories, paths]), capture_output=True,
                          text=True, timeout=120, check=True, env={**os.environ, "HOME": home})
    return json.loads(done.stdout)
