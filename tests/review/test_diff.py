"""Before/after diffs: widening is new access, narrowing isn't, and the probe set covers both."""

from __future__ import annotations

import subprocess
import sys

import pytest

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.fs.spec import load_fs
from localfs_explorer.review.diff import (
    COLUMNS,
    compare_policies,
    diff_policies,
    generate_calls,
    generate_paths,
)

BASE = {"TOKEN_PATH": "/app/token.json", "CREDENTIALS_PATH": "/app/credentials.json",
        "CACHE_DB_PATH": "/data/cache/app.db"}


def traps(transport: str = "stdio", **settings: str):
    """A policy on the shipped traps host."""
    env = load_env(None, overrides={**BASE, **settings})
    return resolve_policy(env, transport=transport, fs=load_fs("traps"), cwd="/app",
                          package_dir="/app")


def roots(spec: str, **settings: str):
    return traps(LOCAL_FILE_ACCESS="roots", LOCAL_FILE_ROOTS=spec, **settings)


def test_widening_roots_is_new_access_found_without_any_given_probe() -> None:
    result = compare_policies(roots("/data"), roots("/data:/srv/outside"))
    new = {c.probe for c in result.new_access if c.kind == "path"}
    assert {"read /srv/outside", "write /srv/outside/probe.txt"} <= new
    assert result.removed_access == []
    calls = {c.tool for c in result.new_access if c.kind == "call"}
    assert {"upload_local_file", "download_file", "send_message"} <= calls
    # /data/up points into the new root: walks inside the old root now reach further.
    walk = next(c for c in result.new_access
                if c.tool == "sync_folder" and c.arguments.get("local_path") == "/data")
    assert "/data/up now allowed" in walk.detail


def test_narrowing_roots_is_not_new_access() -> None:
    result = compare_policies(roots("/data:/srv/outside"), roots("/data"))
    assert result.new_access == []
    assert {c.probe for c in result.removed_access if c.kind == "path"} >= {
        "read /srv/outside", "write /srv/outside/probe.txt"}


def test_an_identical_configuration_changes_nothing() -> None:
    result = compare_policies(roots("/data"), roots("/data"))
    assert result.changed == []
    assert len(result.changes) > 50  # the generated set was asked all the same


def test_a_changed_root_list_rewords_refusals_outside_both() -> None:
    result = compare_policies(roots("/data"), roots("/data:/srv/outside/inner"),
                              ["/etc/passwd"], generated=False, ops=("read",))
    (change,) = result.changes
    assert change.change == "changed_message"
    assert change.before["message"].endswith("Allowed directories: /data")
    assert change.after["message"].endswith("Allowed directories: /data, /srv/outside/inner")


def test_moving_token_path_exposes_the_old_token() -> None:
    """The generated set covers the *before* deny-list too, so the old token is asked."""
    before = traps(LOCAL_FILE_ACCESS="full")
    after = traps(LOCAL_FILE_ACCESS="full", TOKEN_PATH="/srv/keys/token.json")
    result = compare_policies(before, after, ops=("read",))
    new = {c.path for c in result.new_access if c.kind == "path"}
    assert "/app/token.json" in new
    # The hardlink of the old token is no longer the token either, but only a given
    # path finds it: it isn't one of either configuration's places.
    assert "/data/innocent.json" not in new
    given = compare_policies(before, after, ["/data/innocent.json"], generated=False)
    assert [c.change for c in given.changes] == ["new_access", "new_access"]


def test_a_prefix_sibling_is_in_the_generated_set_and_stays_refused() -> None:
    paths = dict(generate_paths(roots("/data")))
    assert paths["/data-sibling"].startswith("sibling sharing the prefix")
    assert "/data/cache/app.db-wal" in paths and "/data/cache/app.db-shm" in paths
    assert "/data/cache/app.db-wal-wal" not in paths
    assert "/home/op" in paths and "/" in paths and "/app" in paths
    result = compare_policies(roots("/data"), roots("/data:/srv/outside"))
    sibling = [c for c in result.changes if c.path == "/data-sibling"]
    assert sibling and all(c.change == "changed_message" for c in sibling)


def test_generated_calls_fill_every_local_path_argument() -> None:
    calls = dict((c["name"] + str(sorted(c["arguments"])), c)
                 for c, _why in generate_calls(roots("/data")))
    send = next(c for c in calls.values() if c["name"] == "send_message")
    assert send["arguments"]["attachments"][0]["local_path"].endswith("/probe.txt")
    syncs = [c for c in calls.values() if c["name"] == "sync_folder"]
    # The walk on its own (recursive, the widest), and with the result file beside it.
    assert {frozenset(c["arguments"]) for c in syncs} == {
        frozenset({"folder_id", "local_path", "recursive"}),
        frozenset({"folder_id", "local_path", "result_local_path", "recursive"})}
    assert any(c["name"] == "export_file" and set(c["arguments"]) == {"file_id", "export_format"}
               for c in calls.values())


def test_turning_off_local_access_removes_tools_without_new_access() -> None:
    result = compare_policies(traps(LOCAL_FILE_ACCESS="full"), traps(LOCAL_FILE_ACCESS="off"))
    assert result.new_access == []
    gone = {c.tool for c in result.removed_access if c.kind == "call"}
    assert {"sync_folder", "upload_local_file", "get_sheet_data"} <= gone
    upload = next(c for c in result.removed_access if c.tool == "upload_local_file")
    assert "the tool is no longer visible" in upload.detail


def test_enabling_a_tool_is_new_access() -> None:
    before = traps(LOCAL_FILE_ACCESS="full", ENABLED_TOOLS="get_sheet_data")
    after = traps(LOCAL_FILE_ACCESS="full", ENABLED_TOOLS="get_sheet_data,upload_local_file")
    result = compare_policies(before, after, generated=False,
                              calls=[{"name": "upload_local_file",
                                      "arguments": {"local_path": "/data/notes.txt"}}])
    (change,) = result.changes
    assert change.change == "new_access" and "the tool became visible" in change.detail


def test_lifting_an_approval_gate_is_new_access() -> None:
    from localfs_explorer.access import load_access

    policy = traps(LOCAL_FILE_ACCESS="full")
    held = load_access({"server": {"approval_list": ["upload_*"]}})
    call = [{"name": "upload_local_file", "arguments": {"local_path": "/data/notes.txt"}}]
    lifted = compare_policies(policy, policy, calls=call, generated=False,
                              before_access=held, after_access=None)
    assert [c.change for c in lifted.changes] == ["new_access"]
    added = compare_policies(policy, policy, calls=call, generated=False,
                             before_access=None, after_access=held)
    assert [c.change for c in added.changes] == ["removed_access"]


def test_a_defaulted_full_moving_to_http_trips_the_wire() -> None:
    """Same settings, stdio -> sse: unset means full, then off; nothing widens."""
    result = compare_policies(traps("stdio"), traps("sse"), ["/data/notes.txt"],
                              generated=False, ops=("read",))
    (change,) = result.changes
    assert change.change == "removed_access"
    assert change.after["reason"] == "off"


def test_diff_policies_is_a_dataframe_with_every_probe() -> None:
    pytest.importorskip("pandas")
    frame = diff_policies(roots("/data"), roots("/data:/srv/outside"), ["/srv/outside/a"],
                          generated=False, ops=("read", "write"))
    assert list(frame.columns) == list(COLUMNS)
    assert list(frame["change"]) == ["new_access", "new_access"]
    assert list(frame["op"]) == ["read", "write"]
    same = diff_policies(roots("/data"), roots("/data"), ["/data/notes.txt"], generated=False)
    assert set(same["change"]) == {"unchanged"}


def test_a_calls_file_and_a_malformed_line(tmp_path) -> None:

    good = tmp_path / "calls.jsonl"
    good.write_text('{"name": "download_file",'
                    ' "arguments": {"file_id": "F", "local_path": "/srv/outside/x"}}\n'
                    "\n")
    result = compare_policies(roots("/data"), roots("/data:/srv/outside"), calls=good,
                              generated=False)
    assert [c.change for c in result.changes] == ["new_access"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"name": "x"}\n{oops\n')
    # The one rule for calls files: the bad line is reported, the good one still asked.
    result = compare_policies(roots("/data"), roots("/data"), calls=bad, generated=False)
    assert [c.tool for c in result.changes] == ["x"]
    assert len(result.errors) == 1 and result.errors[0].startswith(f"{bad}:2: not valid JSON")
    assert result.to_dict()["errors"] == result.errors


@pytest.mark.slow
def test_the_review_modules_do_not_import_pandas() -> None:
    code = ("import sys, localfs_explorer.review.diff, localfs_explorer.review.report, "
            "localfs_explorer.review.scenarios, localfs_explorer.cli.review; "
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


# --- the Explorer's "compare with…" view ----------------------------------------------------


def _compare_panel(**traits):
    pytest.importorskip("ipywidgets")
    from localfs_explorer.ui.app import Explorer, PanelSpec
    from localfs_explorer.ui.model import ExplorerModel

    model = ExplorerModel(target="example:traps", cwd="/app", package_dir="/app", **traits)
    spec = PanelSpec("compare", "Compare", "localfs_explorer.ui.panels.compare:ComparePanel")
    return model, Explorer(model, panels=[spec]).panel("compare")


def test_compare_with_a_wider_copy_shows_new_access() -> None:
    _model, panel = _compare_panel(overrides=[("LOCAL_FILE_ACCESS", "roots"),
                                              ("LOCAL_FILE_ROOTS", "/data")])
    panel.changes.value = "LOCAL_FILE_ROOTS=/data:/srv/outside\n# a comment\n"
    panel.compare()
    assert "this change grants new access" in panel.summary.value
    new_table = panel.groups.value.split("lfe-compare-new_access")[1].split("</table>")[0]
    assert "read /srv/outside/probe.txt" in new_table
    assert 'download="localfs-explorer-diff.html"' in panel.downloads.value
    # The same change seen the other way round takes access away instead.
    panel.direction.value = "current_after"
    panel.compare()
    assert "grants no new access" in panel.summary.value
    removed = panel.result.counts()["removed_access"]
    assert removed > 0 and panel.result.counts()["new_access"] == 0
    assert f"Removed access (allowed → refused): {removed}" in panel.groups.value


def test_compare_change_lines_are_checked() -> None:
    from localfs_explorer.ui.panels.compare import CompareError, parse_changes

    assert parse_changes("A=1\n-B\n\n# c\nC = x=y") == ({"A": "1", "C": " x=y"}, ["B"])
    with pytest.raises(CompareError, match="line 2: expected KEY=VALUE or -KEY"):
        parse_changes("A=1\njust words")
    _model, panel = _compare_panel()
    panel.changes.value = "-\n"
    panel.compare()
    assert "line 1: write -KEY to unset a setting" in panel.status.value
