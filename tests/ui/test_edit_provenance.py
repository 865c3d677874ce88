"""A value the policy bar set is credited to the bar, not to a line of the .env."""

from __future__ import annotations

import pytest
from ui_support import text_of

from localfs_explorer.servers.gee_sweet.check.explain import explain
from localfs_explorer.ui import Explorer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_traces_and_what_the_server_sees_credit_the_bar(layout):
    env = layout.app / "deploy.env"
    env.write_text(f"# deployed\nLOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={layout.data}\n")
    app = Explorer(env_path=str(env), host_cwd=str(layout.app), debounce=0)
    m = app.model
    m.paths_text = str(layout.outside / "other.txt")
    trace = " ".join(s.detail for s in explain(m.decisions[0]))
    assert "LOCAL_FILE_ROOTS at deploy.env line 3" in trace  # from the file: its line
    app.bar.add_root(str(layout.home))
    trace = " ".join(s.detail for s in explain(m.decisions[0]))
    assert "line 3" not in trace and "LOCAL_FILE_ROOTS" in trace
    assert m.env.line_of("LOCAL_FILE_ACCESS") == 2  # not edited: still the file's
    table = text_of(app.panel("server").env_view.value)
    assert "LOCAL_FILE_ROOTS" in table and "edit (policy bar)" in table
    assert table.count("edit (policy bar)") == 1
