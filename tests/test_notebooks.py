"""Both notebooks run from top to bottom in a fresh kernel of this interpreter."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
KERNEL = "localfs-explorer-test"


@pytest.fixture
def kernel(tmp_path, monkeypatch) -> str:
    """A kernel spec for exactly this interpreter, ahead of any other on JUPYTER_PATH.

    A user-wide ``python3`` kernel could belong to another Python without this package.
    """
    spec = tmp_path / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "localfs-explorer tests",
        "language": "python",
    }))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    # The kernel must see neither a served page's restrictions nor a preload.
    monkeypatch.delenv("LOCALFS_EXPLORER_HOST_FS", raising=False)
    monkeypatch.delenv("LOCALFS_EXPLORER_PRELOAD", raising=False)
    return KERNEL


def run(name: str, kernel: str):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = nbclient.NotebookClient(
        nb, kernel_name=kernel, timeout=180,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()
    return nb


def outputs(nb) -> list[dict]:
    return [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]


def test_the_dashboard_shows_only_the_app(kernel) -> None:
    nb = run("explorer.ipynb", kernel)
    shown = outputs(nb)
    assert [o["output_type"] for o in shown] == ["display_data"]
    assert WIDGET_VIEW in shown[0]["data"]


def test_the_walkthrough_runs_and_teaches_each_trap(kernel) -> None:
    nb = run("walkthrough.ipynb", kernel)
    shown = outputs(nb)
    assert not [o for o in shown if o["output_type"] == "error"]
    text = "".join(
        "".join(o.get("text", "")) for o in shown if o["output_type"] == "stream"
    )
    assert "-> /etc/passwd" in text  # the escaping symlink
    assert "same file as /app/token.json" in text  # the hardlinked token
    assert "HTTP:  tripwire | local file access is disabled for HTTP requests" in text
    assert "hint:        Add /srv/outside to LOCAL_FILE_ROOTS" in text  # refusal and hint
    assert WIDGET_VIEW in shown[-1]["data"]  # ends in the Explorer itself


def test_binder_installs_the_project_with_the_dashboard_extra() -> None:
    """mybinder ignores pyproject.toml when binder/ exists: postBuild must install it."""
    import os
    import re

    root = NOTEBOOKS.parent
    post_build = root / "binder" / "postBuild"
    script = post_build.read_text()
    assert os.access(post_build, os.X_OK)
    assert re.search(r"^set -e", script, re.MULTILINE)  # a failed install fails the build
    assert re.search(r"pip install .*\"\.\[dashboard\]\"", script)
    pyproject = (root / "pyproject.toml").read_text()
    dashboard = pyproject.split("dashboard = [", 1)[1].split("]", 1)[0]
    assert "voila" in dashboard and "ipywidgets" in dashboard
