"""The real DesktopCommanderMCP, installed once per test session from npm.

``@wonderwhy-er/desktop-commander`` at the pinned release goes into a scratch folder with
``npm install --ignore-scripts`` (its install scripts report the installation over the
network and fetch ripgrep; none of that is needed to answer tool calls). Set
LOCALFS_DC_SERVER_PREFIX to a folder to keep the install between sessions. Tests that
need it skip, saying why, where node or npm is missing or the registry can't be reached.

The fixtures are imported by the test modules that use them (a conftest.py here would
shadow the suite's own ``conftest`` module).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from npm_packages import install_package

PACKAGE = "@wonderwhy-er/desktop-commander"
PINNED = "0.2.52"


def install(prefix: Path, version: str = PINNED) -> Path:
    """The ``dist`` folder of ``version`` under ``prefix``, installed when missing."""
    return install_package(prefix, PACKAGE, version, needed_for="DesktopCommanderMCP",
                           extra_args=("--ignore-scripts",), timeout=900)


@pytest.fixture(scope="session", name="dc_dist")
def fixture_dc_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pinned release's ``dist`` folder, installed for this session."""
    kept = os.environ.get("LOCALFS_DC_SERVER_PREFIX")
    prefix = (Path(kept) / PINNED if kept
              else tmp_path_factory.getbasetemp() / f"npm-desktop-commander-{PINNED}")
    return install(prefix)


@pytest.fixture(scope="session", name="dc_server_js")
def fixture_dc_server_js(dc_dist: Path) -> str:
    """The entry point: ``node <it>`` starts the server on stdio."""
    return str(dc_dist / "index.js")


def write_settings(home: Path, settings: dict | None) -> None:
    """Write ``$HOME/.claude-server-commander/config.json`` (None: leave none), with
    telemetry off so the server doesn't try to report tool calls."""
    folder = home / ".claude-server-commander"
    folder.mkdir(parents=True, exist_ok=True)
    if settings is not None:
        (folder / "config.json").write_text(json.dumps({"telemetryEnabled": False,
                                                        **settings}), encoding="utf-8")
