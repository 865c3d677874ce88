"""Shared fixtures: a real server layout on disk under pytest's tmp_path."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from localfs_explorer import Policy, load_env, resolve_policy

# Property tests judge behaviour, never speed: a loaded CI machine must not fail them on
# hypothesis's per-example deadline.
settings.register_profile(
    "localfs", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("localfs")


@dataclass
class Layout:
    """A server deployment on disk: its package dir, data roots, home and neighbours."""

    base: Path
    app: Path  # startup directory and package directory (holds .env, credentials, token)
    data: Path  # the usual root
    evil: Path  # a sibling sharing the root's prefix
    outside: Path
    home: Path

    def policy(self, transport: str = "stdio", **settings: str) -> Policy:
        """The policy for these settings; HOME points into the layout unless given."""
        overrides = {"HOME": str(self.home), **settings}
        return resolve_policy(
            load_env(None, overrides=overrides),
            transport=transport,
            cwd=str(self.app),
            package_dir=str(self.app),
        )

    def roots(self, *dirs: Path | str, **settings: str) -> Policy:
        """A roots-mode policy over ``dirs`` (default: the data directory)."""
        spelled = ":".join(str(d) for d in (dirs or (self.data,)))
        return self.policy(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=spelled, **settings)


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    base = tmp_path.resolve()
    app, data, evil = base / "app", base / "data", base / "data-evil"
    outside, home = base / "outside", base / "home"
    for d in (app, data / "sub", evil, outside, home):
        d.mkdir(parents=True)
    (app / ".env").write_text("CREDENTIALS_CONFIG=do-not-show\n")
    (app / "credentials.json").write_text("{}")
    (app / "token.json").write_text("{}")
    (data / "report.csv").write_text("a,b\n")
    (data / "sub" / "notes.txt").write_text("hi")
    (evil / "secret.txt").write_text("x")
    (outside / "other.txt").write_text("x")
    return Layout(base, app, data, evil, outside, home)


def can_hardlink(directory: Path) -> bool:
    """Whether this filesystem supports hardlinks (some CI mounts don't)."""
    probe = directory / ".hardlink-probe"
    probe.write_text("")
    try:
        os.link(probe, directory / ".hardlink-probe-2")
    except OSError:
        return False
    finally:
        for name in (".hardlink-probe", ".hardlink-probe-2"):
            (directory / name).unlink(missing_ok=True)
    return True


def case_insensitive(directory: Path) -> bool:
    """Whether ``directory``'s filesystem ignores case."""
    probe = directory / "CaseProbe"
    probe.write_text("")
    try:
        return (directory / "caseprobe").exists()
    finally:
        probe.unlink()


@pytest.fixture
def quiet_dotenv():
    # python-dotenv logs a warning per malformed line it reads; the tests read many on
    # purpose, and the export reports them itself.
    logger = logging.getLogger("dotenv.main")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


@pytest.fixture
def scratch_tempdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Send this process's temporary files and folders (mkdtemp, mkstemp) into the test's
    own directory, so what a test leaves behind (a serve plan's token config, a preload
    file) is removed with it rather than left in the system's temporary folder."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return scratch


def run_cli(*argv: object, stdin: str = "") -> tuple[int, str, str]:
    """Run the command line in this process: ``(exit status, stdout, stderr)``.

    ``stdin`` is what a ``-`` argument reads (never the test runner's own stdin)."""
    from localfs_explorer.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out=out, err=err, stdin=io.StringIO(stdin))
    return code, out.getvalue(), err.getvalue()



def stop_process_group(proc: subprocess.Popen) -> None:
    """End a server started in a process group of its own: TERM, then KILL after 15 s."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
