"""A pinned npm package installed into a scratch prefix, once, for the real-system tests.

Each real server's fixtures (``fs_npm``, ``dc_npm``) call :func:`install_package`; a test
that needs node or the registry skips, saying why, where either is missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest


def install_package(prefix: Path, package: str, version: str, *, needed_for: str,
                    extra_args: tuple[str, ...] = (), timeout: int = 600) -> Path:
    """The ``dist`` folder of ``package@version`` under ``prefix``, installed when the
    prefix doesn't hold that version yet (``needed_for`` names what the skip is about)."""
    if not shutil.which("node") or not shutil.which("npm"):
        pytest.skip(f"node and npm are needed to run {needed_for} (not found on PATH)")
    package_dir = prefix / "node_modules" / package
    manifest = package_dir / "package.json"
    installed = None
    if manifest.exists():
        installed = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    if installed != version:
        prefix.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            ["npm", "install", "--prefix", str(prefix), *extra_args, "--no-audit",
             "--no-fund", "--loglevel=error", f"{package}@{version}"],
            capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0 or not manifest.exists():
            last = (done.stderr or done.stdout).strip().splitlines()[-1:]
            pytest.skip(f"npm could not install {package}@{version}: "
                        f"{last[0] if last else 'no output'}")
    return package_dir / "dist"
