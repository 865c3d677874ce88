"""The core stays light: importing the engine pulls in nothing from Jupyter or pandas."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("pandas", "ipywidgets", "IPython", "jupyter_core", "voila", "jupyterlab", "numpy")


@pytest.mark.slow
def test_import_does_not_load_heavy_packages():
    code = (
        "import json, sys, localfs_explorer, localfs_explorer.cli.main\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert json.loads(proc.stdout) == []


def test_public_api_names():
    import localfs_explorer as lfe

    for name in ("load_env", "resolve_policy", "Policy", "Decision", "FileSystem", "HostFS"):
        assert hasattr(lfe, name), name
    assert lfe.Policy.many_checks.__doc__


@pytest.mark.slow
def test_lazy_names_resolve_without_loading_pandas():
    code = (
        "import json, sys, localfs_explorer as l\n"
        "names = [n for n in dir(l) if not n.startswith('_')]\n"
        "missing = [n for n in names if getattr(l, n, None) is None]\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'ipywidgets'))\n"
        "print(json.dumps([missing, heavy]))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert json.loads(proc.stdout) == [[], []]
