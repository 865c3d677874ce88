"""Engine results show as rich HTML in a notebook, through the dashboard's renderers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.fs.spec import load_fs

ROOT = Path(__file__).resolve().parent.parent
TRAPS = {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/data",
         "TOKEN_PATH": "/app/token.json", "CREDENTIALS_PATH": "/app/credentials.json"}


def _policy(**settings: str):
    env = load_env(None, overrides={**TRAPS, **settings})
    return resolve_policy(env, fs=load_fs("traps"), package_dir="/app", transport="stdio")


def _styled(html: str) -> None:
    assert html.startswith("<style>") and '<div class="lfe-app lfe-repr">' in html


def test_decision_repr_shows_verdict_message_trace_and_escapes() -> None:
    d = _policy().check_read("/data/escape/<b>passwd")
    html = d._repr_html_()
    _styled(html)
    assert "REFUSED" in html and "Trace" in html
    assert "<b>passwd" not in html and "&lt;b&gt;passwd" in html
    assert "ALLOWED" in _policy().check_read("/data/report.csv")._repr_html_()


def test_policy_repr_names_the_mode_roots_and_deny_list() -> None:
    html = _policy()._repr_html_()
    _styled(html)
    assert "LOCAL_FILE_ACCESS" in html and "ROOTS" in html
    assert "/app/token.json" in html and "/data" in html
    broken = _policy(LOCAL_FILE_ACCESS="sometimes")._repr_html_()
    assert "would exit at startup" in broken


def test_call_verdict_repr() -> None:
    from localfs_explorer.probe import probe_call

    v = probe_call(_policy(), "upload_local_file",
                   {"local_path": "/data/escape/passwd", "parent_folder_id": "F"})
    html = v._repr_html_()
    _styled(html)
    assert "upload_local_file" in html and "/data/escape/passwd" in html


def test_export_plan_repr_masks_secrets() -> None:
    from localfs_explorer.envfile.export import export_env

    plan = export_env(".env", text="GEE_SECRET_TOKEN=hunter2-value\n",
                      set={"LOCAL_FILE_ACCESS": "off"})
    html = plan._repr_html_()
    _styled(html)
    assert "LOCAL_FILE_ACCESS" in html and "hunter2" not in html
    refused = export_env(None, set={"LOCAL_FILE_ACCESS": "sometimes"})._repr_html_()
    assert "lfe-box-error" in refused


def test_run_result_repr_lists_failures(tmp_path) -> None:
    from localfs_explorer.review.scenarios import run_scenarios

    ok = run_scenarios([str(ROOT / "scenarios" / "spec-000.toml")])
    html = ok._repr_html_()
    _styled(html)
    assert f"{ok.passed} passed, 0 failed" in html and "lfe-failures" not in html
    bad = tmp_path / "bad.toml"
    bad.write_text('[config.settings]\nLOCAL_FILE_ACCESS = "off"\n[[scenario]]\n'
                   'name = "wrong on purpose"\n[[scenario.path]]\npath = "/tmp/x"\n'
                   'allowed = true\n')
    run = run_scenarios([str(bad)])
    assert run.failed == 1, run.to_dict()
    html = run._repr_html_()
    assert "1 failed" in html and "wrong on purpose" in html and "lfe-failures" in html


def test_replay_and_diff_reprs() -> None:
    from localfs_explorer.review.diff import compare_policies
    from localfs_explorer.review.sessions import replay_session

    session = [[{"name": "upload_local_file", "arguments": {"local_path": "/data/a.csv"}}]]
    replay = replay_session(_policy(LOCAL_FILE_ACCESS="off"), session)
    html = replay._repr_html_()
    _styled(html)
    assert "upload_local_file" in html and "1.1" in html

    result = compare_policies(_policy(LOCAL_FILE_ACCESS="off"), _policy(), ["/data/a.csv"],
                              generated=False)
    html = result._repr_html_()
    _styled(html)
    assert result.counts()["new_access"] >= 1
    assert "New access" in html and "/data/a.csv" in html


@pytest.mark.slow
def test_reprs_need_no_widgets() -> None:
    code = (
        "import json, sys\n"
        "from localfs_explorer import load_env, resolve_policy\n"
        "p = resolve_policy(load_env(None, overrides={'LOCAL_FILE_ACCESS': 'off'}))\n"
        "assert 'REFUSED' in p.check_read('/x')._repr_html_()\n"
        "assert 'OFF' in p._repr_html_()\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('ipywidgets', 'IPython', 'pandas'))))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert json.loads(proc.stdout) == []


# ------------------------------------------------------------------- in a real kernel

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

CELLS = {
    "ending": "from localfs_explorer.ui import explorer\nexplorer()",
    "semicolon": "explorer();",
    "assigned": "app = explorer()",
    "twice": "explorer()\nexplorer()",
    "decision": "from localfs_explorer import load_env, resolve_policy\n"
                "policy = resolve_policy(load_env(None, overrides={'LOCAL_FILE_ACCESS': 'off'}))\n"
                "policy.check_read('/etc/passwd')",
    "policy": "policy",
    "verdict": "from localfs_explorer.probe import probe_call\n"
               "probe_call(policy, 'upload_local_file', {'local_path': '/etc/passwd'})",
}


@pytest.mark.slow
def test_notebook_cells_show_one_app_per_explorer_call_and_html_reprs(tmp_path,
                                                                        monkeypatch) -> None:
    spec = tmp_path / "kernels" / "lfe-display"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "lfe", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    monkeypatch.delenv("LOCALFS_EXPLORER_HOST_FS", raising=False)
    monkeypatch.delenv("LOCALFS_EXPLORER_PRELOAD", raising=False)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src)
                                         for src in CELLS.values()])
    nbclient.NotebookClient(nb, kernel_name="lfe-display", timeout=180,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    shown = dict(zip(CELLS, (cell.outputs for cell in nb.cells), strict=True))
    widget = "application/vnd.jupyter.widget-view+json"
    for name, count in (("ending", 1), ("semicolon", 1), ("assigned", 1), ("twice", 2)):
        outs = shown[name]
        assert [o["output_type"] for o in outs] == ["display_data"] * count, (name, outs)
        assert all(widget in o["data"] for o in outs), name
    for name, text in (("decision", "REFUSED"), ("policy", "OFF"), ("verdict", "upload")):
        outs = shown[name]
        assert [o["output_type"] for o in outs] == ["execute_result"], (name, outs)
        assert text in outs[0]["data"]["text/html"], name


@pytest.mark.slow
def test_jupyterlab_has_the_widget_manager_the_app_needs() -> None:
    """The lab extra: JupyterLab renders the Explorer through the ipywidgets manager."""
    pytest.importorskip("jupyterlab")
    import subprocess as sp

    proc = sp.run([sys.executable, "-m", "jupyterlab.labextensions", "list"],
                  capture_output=True, text=True, timeout=120)
    listing = proc.stdout + proc.stderr
    assert proc.returncode == 0, listing
    assert "@jupyter-widgets/jupyterlab-manager" in listing and "enabled" in listing
