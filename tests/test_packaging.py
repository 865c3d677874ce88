"""The built wheel works on its own, and the repository's CI hooks work from outside.

Slow: each test builds or installs into a fresh environment (packages come from PyPI
through pip's cache; nothing else is fetched).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from localfs_explorer.cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

CALL = json.dumps({"name": "upload_local_file", "arguments": {"local_path": "/etc/passwd"}})
OFF = ("--set", "LOCAL_FILE_ACCESS=off")

#: One real invocation per command and the exit status it must give in a plain install.
#: A command missing here still runs (its --help) so a new one is never left untried.
INVOCATIONS: dict[str, tuple[tuple[str, ...], int]] = {
    "check": (("check", *OFF, "/tmp/x"), 1),
    "validate": (("validate", *OFF), 0),
    "snapshot": (("snapshot", "tree", "-o", "tree.json"), 0),
    "hosts": (("hosts", "--json"), 0),
    "tools": (("tools", "--json"), 0),
    "probe": (("probe", *OFF, "--call", CALL), 1),
    "export-env": (("export-env", *OFF, "--dry-run", "--json"), 0),
    "auth-status": (("auth-status", *OFF), 0),
    "test": (("test", str(ROOT / "scenarios" / "spec-000.toml")), 0),
    "diff": (("diff", *OFF, "--path", "/tmp/x", "--no-generated", "--sarif", "d.sarif"), 0),
    "report": (("report", *OFF, "--path", "/tmp/x", "-o", "r.html", "-o", "r.csv"), 0),
    "replay": (("replay", "session.json", *OFF), 1),
    # Voila is in the dashboard extra: a one-line message says so.
    "serve": (("serve", "--no-browser"), 2),
    "schema": (("schema", "scenarios"), 0),
    "completion": (("completion", "bash"), 0),
}


def _commands() -> list[str]:
    action = next(a for a in build_parser()._actions if a.dest == "command_name")
    return list(action.choices)


def _pip_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH", "LOCALFS_EXPLORER"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["HOME"] = os.environ.get("HOME", str(tmp_path))  # keeps pip's cache
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
                   check=True, capture_output=True, text=True)
    (built,) = out.glob("localfs_explorer-*.whl")
    return built


def test_the_wheel_alone_runs_every_command(wheel, tmp_path) -> None:
    env = _pip_env(tmp_path)
    fresh = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(fresh)
    py = fresh / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheel)], check=True, env=env)
    # A plain install: nothing from the extras came along.
    probe = subprocess.run(
        [str(py), "-c", "import importlib.util as u, json; print(json.dumps("
         "[m for m in ('pandas', 'ipywidgets', 'voila', 'IPython') if u.find_spec(m)]))"],
        check=True, capture_output=True, text=True, env=env)
    assert json.loads(probe.stdout) == []

    work = tmp_path / "work"
    (work / "tree" / "sub").mkdir(parents=True)
    (work / "tree" / "sub" / "f.txt").write_text("x")
    (work / "session.json").write_text(json.dumps([[json.loads(CALL)]]))
    exe = fresh / "bin" / "localfs-explorer"
    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True, env=env)
    from localfs_explorer import __version__

    assert version.returncode == 0 and version.stdout.strip() == f"localfs-explorer {__version__}"
    failures = []
    for command in _commands():
        argv, expected = INVOCATIONS.get(command, ((command, "--help"), 0))
        proc = subprocess.run([str(exe), *argv], cwd=work, capture_output=True, text=True,
                              env=env, stdin=subprocess.DEVNULL, timeout=120)
        if proc.returncode != expected or "Traceback" in proc.stderr:
            failures.append(f"{command}: exit {proc.returncode} (expected {expected}): "
                            f"{proc.stderr.strip()[-500:]}")
        if expected == 2:
            assert proc.stderr.count("\n") == 1, proc.stderr  # one line, not a traceback
    assert failures == []
    assert "localfs-explorer[dashboard]" in subprocess.run(
        [str(exe), "serve", "--no-browser"], capture_output=True, text=True, env=env).stderr
    assert (work / "tree.json").is_file() and (work / "r.html").is_file()


def _other_pythons() -> list[str]:
    """Another interpreter the pure wheel must install on: the oldest release on this
    machine other than the one running the tests (pyenv's 3.10, for instance), else the
    system's own. One is enough: the wheel is the same file for every Python, and the
    running one installs it in the test above."""
    import glob

    found = []
    for pattern in (os.path.expanduser("~/.pyenv/versions/3.10.*/bin/python3"),
                    "/usr/bin/python3.10", "/usr/local/bin/python3.10", "/usr/bin/python3"):
        found += sorted(glob.glob(pattern))[:1]
    running = sys.version_info[:2]
    versions = {}
    for path in dict.fromkeys(os.path.realpath(p) for p in found):
        asked = subprocess.run([path, "-c", "import sys; print(*sys.version_info[:2])"],
                               capture_output=True, text=True, check=False)
        if asked.returncode == 0:
            versions[path] = tuple(int(n) for n in asked.stdout.split())
    others = sorted((v, p) for p, v in versions.items() if v != running)
    if others:
        return [others[0][1]]
    return list(versions)[:1]


@pytest.mark.parametrize("python", _other_pythons() or ["none"])
def test_the_pure_wheel_runs_the_engine_on_another_python(wheel, tmp_path, python) -> None:
    """One py3-none-any wheel, installed with no extras on another interpreter, answers
    check, probe, test and exposure."""
    if python == "none":
        pytest.skip("no other Python interpreter on this machine")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    env = _pip_env(tmp_path)
    fresh = tmp_path / "venv"
    made = subprocess.run([python, "-m", "venv", str(fresh)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"{python} can't make a virtualenv: {made.stderr.strip()[-200:]}")
    py = fresh / "bin" / "python"
    installed = subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheel)],
                               capture_output=True, text=True, env=env, timeout=600)
    assert installed.returncode == 0, installed.stderr[-2000:]
    exe = fresh / "bin" / "localfs-explorer"
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "sub" / "f.txt").write_text("x")
    (tree / "server.pem").write_text("x")
    roots = ("--set", "LOCAL_FILE_ACCESS=roots", "--set", f"LOCAL_FILE_ROOTS={tree}")
    runs = {
        "check": ((*roots, str(tree / "sub" / "f.txt"), "/etc/passwd"), 1),
        "probe": ((*OFF, "--call", CALL), 1),
        "test": ((str(ROOT / "scenarios" / "spec-000.toml"),), 0),
        "exposure": ((*roots, "--json"), 1),
    }
    for command, (argv, expected) in runs.items():
        proc = subprocess.run([str(exe), command, *argv], capture_output=True, text=True,
                              env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, timeout=300)
        assert proc.returncode == expected, (command, proc.stderr[-1000:])
        assert "Traceback" not in proc.stderr, command
        if command == "check":
            assert proc.stdout.startswith("ALLOWED  read")
            assert "outside this server's LOCAL_FILE_ROOTS" in proc.stdout
        if command == "exposure":
            findings = [json.loads(line) for line in proc.stdout.splitlines()]
            assert {"severity": "high", "kind": "credential",
                    "path": str(tree / "server.pem")}.items() <= findings[0].items()


def test_the_wheel_ships_its_data_and_license(wheel) -> None:
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    # Pure Python, one wheel for every platform and supported Python.
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    assert not [n for n in names if n.endswith((".so", ".pyd", ".c", ".pyi"))]
    for needed in ("localfs_explorer/py.typed", "localfs_explorer/data/explorer.ipynb",
                   "localfs_explorer/data/completion/bash",
                   "localfs_explorer/data/scenarios/spec-000.toml"):
        assert needed in names, needed
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(meta).decode()
    assert "Classifier: Typing :: Typed" in text
    assert "Requires-Dist: tomli>=2; python_version < \"3.11\"" in text
    assert "Project-URL: Source," in text
    assert "Provides-Extra: lab" in text


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_pre_commit_hooks_run_in_another_repository(tmp_path) -> None:
    scratch = tmp_path / "scratch"
    (scratch / "scenarios").mkdir(parents=True)
    (scratch / ".env").write_text("LOCAL_FILE_ACCESS=sometimes\n")
    shutil.copy(ROOT / "scenarios" / "spec-000.toml", scratch / "scenarios" / "spec.toml")
    git = ["git", "-c", "user.email=ci@example.invalid", "-c", "user.name=ci"]
    subprocess.run(["git", "init", "-q"], cwd=scratch, check=True)
    subprocess.run([*git, "add", "-A"], cwd=scratch, check=True)
    env = {**_pip_env(tmp_path), "PRE_COMMIT_HOME": str(tmp_path / "pre-commit")}
    pre_commit = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT)]

    bad = subprocess.run([*pre_commit, "--all-files"], cwd=scratch, capture_output=True,
                         text=True, env=env, timeout=600)
    report = bad.stdout + bad.stderr
    assert bad.returncode == 1, report
    assert "localfs-explorer validate" in report and "LOCAL_FILE_ACCESS='sometimes'" in report
    assert "Failed" in report and "Passed" in report  # validate fails, test passes

    (scratch / ".env").write_text("LOCAL_FILE_ACCESS=off\n")
    good = subprocess.run([*pre_commit, "localfs-explorer-validate", "--files", ".env"],
                          cwd=scratch, capture_output=True, text=True, env=env, timeout=600)
    assert good.returncode == 0, good.stdout + good.stderr
