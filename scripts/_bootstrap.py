"""Shared set-up for scripts/test and scripts/dashboard: a project virtualenv, kept current.

Only the Python standard library is used here, because this runs before anything is
installed. Re-running is cheap: the install step is skipped while pyproject.toml is
unchanged since the last successful install.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
STAMP = VENV / ".localfs-explorer-installed"
EXTRAS = "dashboard,test"
#: The toy server the tests run every command against: a package of its own that
#: registers through the servers' entry-point group, as one outside this tree would.
TOY_SERVER = ROOT / "tests" / "toy_server_pkg"


def _say(message: str) -> None:
    print(f"[localfs-explorer] {message}", flush=True)


def venv_python() -> Path:
    """The interpreter inside the project virtualenv."""
    sub = "Scripts/python.exe" if os.name == "nt" else "bin/python"
    return VENV / sub


def _wanted_stamp() -> str:
    digest = hashlib.sha256()
    # The build's input: a change to it means installing again.
    digest.update((ROOT / "pyproject.toml").read_bytes())
    digest.update((TOY_SERVER / "pyproject.toml").read_bytes())
    digest.update(f"{EXTRAS}|{sys.version_info[:2]}".encode())
    return digest.hexdigest()


def ensure_venv() -> Path:
    """Create .venv and install the project with its extras when out of date."""
    # This file runs under whatever python3 the user has, so the floor is checked here.
    if sys.version_info < (3, 10):  # noqa: UP036
        sys.exit("localfs-explorer needs Python 3.10 or newer; this is " + sys.version.split()[0])
    py = venv_python()
    if not py.exists():
        _say(f"creating a virtualenv in {VENV.name}/")
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    wanted = _wanted_stamp()
    if not STAMP.exists() or STAMP.read_text().strip() != wanted:
        _say(f"installing localfs-explorer[{EXTRAS}] into {VENV.name}/ "
             "(the first run takes a few minutes)")
        pip = [str(py), "-m", "pip", "--disable-pip-version-check", "install", "--quiet"]
        subprocess.run([*pip, "--upgrade", "pip"], check=True)
        subprocess.run([*pip, "-e", f"{ROOT}[{EXTRAS}]"], check=True)
        subprocess.run([*pip, "--no-deps", "-e", str(TOY_SERVER)], check=True)
        STAMP.write_text(wanted + "\n")
    return py


def ensure_chromium() -> str | None:
    """Path of a Chromium for the browser tests, installing Debian's when we are root."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    can_install = hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get")
    if not can_install:
        _say("no chromium found and not root with apt-get: browser tests will be skipped")
        return None
    _say("installing Debian's chromium for the browser tests")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"],
        check=True,
        env=env,
    )
    return shutil.which("chromium")
