"""The envfile package: its names, loaded where they live, and the edit kept off the import."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import localfs_explorer.envfile as envfile
from localfs_explorer.envfile import edit, export, load


def test_each_public_name_is_the_object_of_the_module_that_defines_it() -> None:
    homes = {"load": load, "edit": edit, "export": export}
    for name in envfile.__all__:
        shown = getattr(envfile, name)
        assert any(getattr(m, name, None) is shown for m in homes.values()), name
    assert set(dir(envfile)) == set(envfile.__all__)


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        envfile.no_such_thing  # noqa: B018


@pytest.mark.slow
def test_the_engine_import_leaves_the_edit_and_the_export_unloaded() -> None:
    code = ("import json, sys, localfs_explorer, localfs_explorer.envfile as e\n"
            "before = sorted(m for m in sys.modules if m.startswith('localfs_explorer.envfile'))\n"
            "e.export_env\n"
            "after = sorted(m for m in sys.modules if m.startswith('localfs_explorer.envfile'))\n"
            "print(json.dumps([before, after]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    before, after = json.loads(proc.stdout)
    assert before == ["localfs_explorer.envfile", "localfs_explorer.envfile.load"]
    assert {"localfs_explorer.envfile.edit", "localfs_explorer.envfile.export"} <= set(after)
