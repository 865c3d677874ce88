"""The serve command: what it binds to, and when the page may probe this machine."""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import stop_process_group

from localfs_explorer.cli import serve
from localfs_explorer.cli.serve import (
    HOST_FS_ENV,
    PRELOAD_ENV,
    ServeError,
    cleanup_plan,
    load_preload,
    plan_serve,
    preload_options,
)

ROOT = Path(__file__).resolve().parents[2]

# Serve plans write a token config and preload files: keep them in the test's folder.
pytestmark = pytest.mark.usefixtures("scratch_tempdir")


def parse(*argv: str) -> argparse.Namespace:
    from localfs_explorer.cli.options import environment_options

    parser = argparse.ArgumentParser(prog="localfs-explorer")
    sub = parser.add_subparsers(dest="command")
    serve.register(sub, environment_options())
    return parser.parse_args(["serve", *argv])


def test_binds_to_loopback_by_default_with_this_machine_probeable() -> None:
    plan = plan_serve(port=8899, open_browser=False, token=False)
    assert "--Voila.ip=127.0.0.1" in plan.argv and "--port=8899" in plan.argv
    assert "--no-browser" in plan.argv and "--Voila.port_retries=0" in plan.argv
    assert plan.argv[1] == "-c" and plan.argv[3] == str(plan.notebook)
    assert plan.host_fs and plan.env[HOST_FS_ENV] == "1"
    assert plan.url == "http://127.0.0.1:8899/"


def test_another_host_turns_off_probing_this_machine() -> None:
    plan = plan_serve(host="0.0.0.0", port=8899)
    assert "--Voila.ip=0.0.0.0" in plan.argv
    assert not plan.host_fs and plan.env[HOST_FS_ENV] == "0"
    allowed = plan_serve(host="0.0.0.0", port=8899, allow_host_fs=True)
    assert allowed.host_fs and allowed.env[HOST_FS_ENV] == "1"
    # Naming loopback explicitly is still this machine only.
    assert plan_serve(host="localhost").host_fs


def test_bad_port_and_empty_host_are_errors() -> None:
    with pytest.raises(ServeError, match="not a TCP port"):
        plan_serve(port=70000)
    with pytest.raises(ServeError, match="needs an address"):
        plan_serve(host=" ")


def test_register_adds_the_serve_command_with_its_options() -> None:
    args = parse("--port", "9000", "--host", "0.0.0.0", "--allow-host-fs", "--no-browser")
    assert (args.port, args.host, args.allow_host_fs, args.no_browser) == (
        9000, "0.0.0.0", True, True)
    assert args.handler is serve.cmd_serve
    defaults = parse()
    assert (defaults.port, defaults.host, defaults.allow_host_fs) == (8866, None, False)


def test_the_dashboard_notebook_is_one_cell_showing_the_app() -> None:
    shipped = json.loads((ROOT / "notebooks" / "explorer.ipynb").read_text())
    code = [c for c in shipped["cells"] if c["cell_type"] == "code"]
    assert len(shipped["cells"]) == 1 and len(code) == 1
    source = "".join(code[0]["source"])
    assert source == serve.DASHBOARD_SOURCE
    assert code[0]["outputs"] == []


def test_the_package_ships_the_dashboard_notebook() -> None:
    path, generated = serve.dashboard_notebook()
    assert not generated
    assert path == Path(serve.__file__).resolve().parent.parent / "data" / "explorer.ipynb"
    assert json.loads(path.read_text()) == json.loads(
        (ROOT / "notebooks" / "explorer.ipynb").read_text())


def test_the_dashboard_is_generated_when_the_repository_isnt_there(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(serve, "__file__", str(tmp_path / "pkg" / "cli" / "serve.py"))
    path, generated = serve.dashboard_notebook()
    try:
        assert generated and path.name == "explorer.ipynb"
        assert json.loads(path.read_text())["cells"][0]["source"] == serve.DASHBOARD_SOURCE
    finally:
        shutil.rmtree(path.parent)


def test_env_options_preload_the_dashboard(tmp_path, monkeypatch) -> None:
    env = tmp_path / "deploy" / ".env"
    env.parent.mkdir()
    env.write_text("LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS=/data\n")
    args = parse("--env", str(env), "--set", "LOG_FILE=/var/log/s.log", "--transport", "sse",
                 "--fs", "container")
    local = preload_options(args, host_fs=True)
    assert local["env_path"] == str(env.resolve()) and "env_text" not in local
    assert local["overrides"] == [["LOG_FILE", "/var/log/s.log"]]
    assert local["transport"] == "sse" and local["target"] == "example:container"
    assert local["host_cwd"] == os.getcwd()  # relative paths as `check` run here reads them
    # Served to other machines: the operator's file is handed over as text, not a path.
    public = preload_options(args, host_fs=False)
    assert "env_path" not in public and public["env_text"].startswith("LOCAL_FILE_ACCESS=roots")
    # The target is then a described host: the .env's folder here is no directory there.
    assert "package_dir" not in public
    assert "host_cwd" not in public
    with pytest.raises(ServeError, match="--inherit-env"):
        preload_options(parse("--inherit-env"), host_fs=True)
    listed = tmp_path / "list.json"
    listed.write_text("[]")
    with pytest.raises(ServeError, match="a host spec is a JSON object"):
        preload_options(parse("--fs", str(listed)), host_fs=False)
    spec = tmp_path / "host.json"
    spec.write_text(json.dumps({"version": 1, "cwd": "/", "entries": {}}))
    uploaded = preload_options(parse("--fs", str(spec)), host_fs=False)
    assert uploaded["target"] == "upload" and uploaded["spec_name"] == "host.json"
    assert json.loads(uploaded["spec_text"])["cwd"] == "/"


def test_a_client_config_entry_preloads_the_dashboard(tmp_path) -> None:
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"sheets": {
        "command": "mcp-gee-sweet", "args": ["--transport", "sse"],
        "env": {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/data"}}}}))
    local = preload_options(parse("--client-config", str(config), "--set", "A=1"),
                            host_fs=True)
    assert local["transport"] == "sse"
    assert sorted(map(tuple, local["overrides"])) == [
        ("A", "1"), ("LOCAL_FILE_ACCESS", "roots"), ("LOCAL_FILE_ROOTS", "/data")]


def test_the_kernel_picks_up_the_preload(tmp_path, monkeypatch) -> None:
    plan = plan_serve(preload={"transport": "sse", "overrides": [["A", "1"]]})
    try:
        monkeypatch.setenv(PRELOAD_ENV, plan.env[PRELOAD_ENV])
        assert load_preload() == {"transport": "sse", "overrides": [("A", "1")]}
        assert Path(plan.env[PRELOAD_ENV]).stat().st_mode & 0o077 == 0  # owner-only file
    finally:
        cleanup_plan(plan)
    monkeypatch.setenv(PRELOAD_ENV, str(tmp_path / "gone.json"))
    assert load_preload() == {}


def test_main_reports_a_missing_voila(monkeypatch, capsys) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "voila" else real(name, *a))
    assert serve.main(["--no-browser"]) == 2
    assert "Voila is not installed" in capsys.readouterr().err


def test_the_dashboard_opens_with_what_serve_preloaded(tmp_path, monkeypatch) -> None:
    from localfs_explorer.ui import make_explorer

    preload = tmp_path / "preload.json"
    preload.write_text(json.dumps({
        "transport": "sse", "target": "example:traps", "package_dir": "/app",
        "overrides": [["LOCAL_FILE_ACCESS", "roots"], ["LOCAL_FILE_ROOTS", "/data"]],
    }))
    monkeypatch.setenv(PRELOAD_ENV, str(preload))
    app = make_explorer(debounce=0)
    assert app.model.transport == "sse" and app.model.target == "example:traps"
    assert app.model.policy.mode.value == "roots"
    assert app.model.overrides == [("LOCAL_FILE_ACCESS", "roots"), ("LOCAL_FILE_ROOTS", "/data")]
    # What the caller passes wins over the preload.
    assert make_explorer(transport="stdio", debounce=0).model.transport == "stdio"


def test_the_dashboard_is_served_with_its_own_offline_template() -> None:
    import re

    from localfs_explorer.cli.serve import TEMPLATE, TEMPLATES_ROOT, plan_serve

    plan = plan_serve(port=8866, open_browser=False)
    assert f"--template={TEMPLATE}" in plan.argv
    assert plan.env["JUPYTER_PATH"].split(os.pathsep)[0] == str(TEMPLATES_ROOT)
    folder = TEMPLATES_ROOT / "voila" / "templates" / TEMPLATE
    page = (folder / "index.html.j2").read_text(encoding="utf-8")
    assert (folder / "conf.json").is_file()
    # Nothing in the page template points off the machine (the icon font CDN is gone).
    assert re.findall(r"https?://", page) == []
    assert "lfe-kernel-banner" in page


# ------------------------------------------------- the directory serve is started in


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(port: int, target: str) -> tuple[int, str, bytes]:
    """One GET to loopback, redirects not followed: (status, Location, body)."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", target)
        response = conn.getresponse()
        return response.status, response.getheader("Location") or "", response.read()
    finally:
        conn.close()


def test_plan_reads_no_configuration_and_imports_nothing_from_the_callers_directory(
        tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    plan = plan_serve(open_browser=False)
    try:
        assert "-m" not in plan.argv[1:3]  # `-m voila` would put this directory first
        assert plan.cwd is not None and Path(plan.cwd) != tmp_path
        assert not os.listdir(plan.cwd) or os.listdir(plan.cwd) == ["voila.json"]
        assert stat_mode(plan.cwd) == 0o700
        paths = [a for a in plan.argv if a.startswith("--Voila.config_file_paths=")]
        assert paths == [f"--Voila.config_file_paths={plan.cwd}"]
    finally:
        cleanup_plan(plan)


def stat_mode(path: str) -> int:
    import stat

    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.slow
def test_serve_ignores_a_hostile_working_directory(tmp_path) -> None:
    """Started in a folder holding a voila.py and a voila.json, serve runs Voila, not the
    folder's code, with its own token, and serves none of the folder's files."""
    import re
    import subprocess
    import sys
    import time

    pytest.importorskip("voila")
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    marker = tmp_path / "marker"
    (hostile / "voila.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n")
    (hostile / "voila.json").write_text(json.dumps({
        "Voila": {"token": "", "root_dir": "/"},
        "VoilaConfiguration": {"file_allowlist": [".*"]},
        "IdentityProvider": {"token": ""},
    }))
    (hostile / "jupyter_server_config.json").write_text(
        json.dumps({"IdentityProvider": {"token": ""}}))
    (hostile / "operator.env").write_text("CREDENTIALS_CONFIG=served-secret-71\n")
    port = _free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("LOCALFS_EXPLORER_HOST_FS", "LOCALFS_EXPLORER_PRELOAD")}
    # Relative Jupyter paths would mean the directory serve is started in.
    env.update(JUPYTER_CONFIG_DIR=".", JUPYTER_CONFIG_PATH=".", JUPYTER_PATH=".")
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "localfs_explorer.cli.serve", "--port", str(port),
             "--no-browser"],
            cwd=hostile, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        url = None
        while time.monotonic() < deadline and proc.poll() is None:
            match = re.search(r"dashboard: (http://\S+)", log.read_text(errors="replace"))
            if match:
                url = match.group(1)
                try:
                    _get(port, "/api/kernelspecs")
                    break
                except OSError:
                    pass
            time.sleep(0.3)
        assert proc.poll() is None, log.read_text()
        assert url is not None and "?token=" in url, log.read_text()
        token = url.split("?token=", 1)[1]
        assert not marker.exists(), "serve imported the folder's voila.py"
        # Without the token: refused (the login page), with the printed one: answered.
        status, location, _body = _get(port, "/")
        assert status in (302, 403) and (status == 403 or "login" in location), status
        status, location, _body = _get(port, "/api/kernelspecs")
        assert status == 403 or (status == 302 and "login" in location), status
        # The printed URL itself opens the page: the token it carries is the one enforced.
        status, location, body = _get(port, url.split(f":{port}", 1)[1])
        assert status == 200, (status, location)
        assert b"lfe-kernel-banner" in body
        # The folder's files (and /etc/passwd) are not served, token or not.
        for target in ("/voila/files/operator.env", "/voila/files/etc/passwd",
                       f"/voila/files/operator.env?token={token}",
                       f"/voila/files/etc/passwd?token={token}",
                       f"/voila/files{hostile}/operator.env?token={token}"):
            status, _location, body = _get(port, target)
            assert status != 200, target
            assert b"served-secret-71" not in body and b"root:" not in body, target
        assert not marker.exists()
    finally:
        stop_process_group(proc)
