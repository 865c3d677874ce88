"""The policy bar for the reference filesystem server: its settings, its startup verdict,
and the Paths tab answering as ``localfs-explorer check --server server-filesystem``."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest
from conftest import run_cli
from ui_support import text_of

from localfs_explorer.server import list_servers
from localfs_explorer.ui import Explorer
from localfs_explorer.ui.commands import screen_command

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FS = "server-filesystem"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "f.txt").write_text("x", encoding="utf-8")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "g.txt").write_text("y", encoding="utf-8")
    return tmp_path


@pytest.fixture
def app(tree: Path) -> Explorer:
    return Explorer(cwd=str(tree), debounce=0)


def cli(*argv: object) -> list[dict]:
    """``check --json`` for server-filesystem: one object per path."""
    code, out, err = run_cli("check", "--server", FS, *argv)
    assert code in (0, 1), err
    return [json.loads(line) for line in out.splitlines()]


def shown(app: Explorer) -> list[dict]:
    """What the Paths grid shows for each path, in the Paths text's order."""
    view = app.panel("paths").grid.view.sort_values("#")
    return [{"path": r["path"], "allowed": r["verdict"] == "✔ ALLOWED",
             "message": "" if r["what the model sees"] == "—" else r["what the model sees"],
             "resolved": None if r["resolves to"] == "—" else r["resolves to"]}
            for _, r in view.iterrows()]


def asked(rows: list[dict]) -> list[dict]:
    return [{k: r[k] for k in ("path", "allowed", "message", "resolved")} for r in rows]


def test_the_server_selector_swaps_the_env_controls_for_the_servers_settings(app) -> None:
    bar = app.bar
    assert [v for _, v in bar.server.options] == list_servers()
    assert FS in list_servers() and bar.server.value == "mcp-gee-sweet"
    assert bar.env_controls.layout.display == "" and bar.fs.layout.display == "none"
    bar.server.value = FS
    # The form is the one the server describes; every input has an accessible name.
    assert list(bar.fs.fields) == ["directories", "roots"]
    for widget in (bar.server, bar.fs.fields["directories"].input, bar.fs.cwd, bar.fs.version,
                   bar.fs.fields["roots"].toggle, bar.fs.fields["roots"].text):
        assert widget.tooltip and widget.tooltip.strip()
    assert app.model.server == FS and app.model.last_error == ""
    assert bar.env_controls.layout.display == "none" and bar.fs.layout.display == ""
    assert "has no .env" in text_of(bar.note.value)
    assert "LOCAL_FILE_ACCESS" not in text_of(bar.badge.value)
    bar.fs.fields["directories"].add("somewhere")
    bar.server.value = "mcp-gee-sweet"  # another server's settings are not carried over
    assert app.model.server_options == {} and app.model.server_version == ""
    assert bar.env_controls.layout.display == "" and bar.fs.layout.display == "none"
    assert "LOCAL_FILE_ACCESS" in text_of(bar.badge.value)
    assert app.model.last_error == ""


def test_would_exit_as_the_server_when_no_directory_is_usable(app, tree) -> None:
    bar = app.bar
    bar.server.value = FS
    bar.fs.fields["directories"].input.value = "missing"  # relative: to the working directory
    assert app.model.server_options["directories"] == ["missing"]
    assert bar.fs.fields["directories"].input.value == ""
    code, _out, err = run_cli("check", "--server", FS, "--cwd", tree, "--allowed-dir",
                              "missing", "--json", tree / "x")
    assert code == 2
    said = err.strip().splitlines()
    exit_message = said[-1].split("the server would refuse to serve: ", 1)[1]
    warning = said[0].split("warning: ", 1)[1]
    badge = text_of(bar.badge.value)
    assert f"✘ WOULD EXIT at startup: {exit_message}" in badge
    assert warning in badge
    # The chip's remove button takes the entry off again.
    chips = bar.fs.fields["directories"].chips.children
    (chip,) = [c for c in chips if "lfe-chip" in c._dom_classes]
    chip.children[1].click()
    assert "directories" not in app.model.server_options
    bar.fs.fields["directories"].add(str(tree / "data"))
    assert "✔ WOULD START" in text_of(bar.badge.value)
    assert f"Allowed directories: {tree / 'data'}" in text_of(bar.badge.value)
    assert app.model.last_error == ""


def test_the_paths_tab_answers_as_the_command_line(app, tree) -> None:
    data = tree / "data"
    app.bar.server.value = FS
    app.bar.fs.fields["directories"].add(str(data))
    paths = app.show("paths")
    wanted = [str(data / "f.txt"), str(tree / "other" / "g.txt"), f"{data}'", str(data)]
    paths.paths.value = "\n".join(wanted)
    expected = asked(cli("--allowed-dir", data, "--cwd", tree, "--json", *wanted))
    assert shown(app) == expected
    assert [r["allowed"] for r in expected] == [True, False, True, True]
    assert expected[1]["message"] == (f"Access denied - path outside allowed directories: "
                                      f"{tree / 'other' / 'g.txt'} not in {data}")
    paths.grid.select(0)  # the refusal is listed first; its detail shows the exact text
    assert expected[1]["message"] in text_of(paths.detail.value)
    # The command the screen offers reproduces the screen.
    argv = shlex.split(screen_command(app.model))[1:]
    split = argv.index("--")
    code, out, _err = run_cli(*argv[:split], "--json", *argv[split:])
    assert code == 1  # one path refused
    assert asked([json.loads(line) for line in out.splitlines()]) == expected

    # The release: 2.0.1 refuses the quote sibling 2026.8.31 lets through.
    app.bar.fs.version.value = "2.0.1"
    assert app.model.server_version == "2.0.1"
    newer = asked(cli("--server-version", "2.0.1", "--allowed-dir", data, "--cwd", tree,
                      "--json", *wanted))
    assert shown(app) == newer and not newer[2]["allowed"]
    assert "2.0.1" in text_of(app.bar.badge.value)


def test_advertised_roots_replace_the_directories(app, tree) -> None:
    data, other = tree / "data", tree / "other"
    app.bar.server.value = FS
    app.bar.fs.fields["directories"].add(str(data))
    fs = app.bar.fs
    assert fs.fields["roots"].text.disabled
    fs.fields["roots"].text.value = other.as_uri()
    assert "roots" not in app.model.server_options  # not advertised: no roots at all
    fs.fields["roots"].toggle.value = True
    assert app.model.server_options["roots"] == [other.as_uri()]
    assert not fs.fields["roots"].text.disabled
    wanted = [str(data / "f.txt"), str(other / "g.txt")]
    app.show("paths").paths.value = "\n".join(wanted)
    expected = asked(cli("--allowed-dir", data, "--root", other.as_uri(), "--cwd", tree,
                         "--json", *wanted))
    assert shown(app) == expected
    assert [r["allowed"] for r in expected] == [False, True]
    assert f"Allowed directories: {other}" in text_of(app.bar.badge.value)
    fs.fields["roots"].toggle.value = False
    assert "roots" not in app.model.server_options
    assert [r["allowed"] for r in shown(app)] == [True, False]


def test_the_working_directory_box_edits_the_model(app, tree) -> None:
    app.bar.server.value = FS
    app.bar.fs.fields["directories"].add("data")
    app.bar.fs.cwd.value = str(tree / "other")
    assert app.model.cwd == str(tree / "other")
    assert "✘ WOULD EXIT" in text_of(app.bar.badge.value)  # other/data doesn't exist
    app.bar.fs.cwd.value = str(tree)
    assert f"Allowed directories: {tree / 'data'}" in text_of(app.bar.badge.value)


def test_the_screen_pinned_as_a_scenario_names_the_server_and_passes(app, tree) -> None:
    data = tree / "data"
    app.bar.server.value = FS
    app.bar.fs.fields["directories"].add(str(data))
    app.bar.fs.version.value = "2.0.1"
    app.show("paths").paths.value = "\n".join([str(data / "f.txt"), f"{data}'"])
    panel = app.show("scenarios")
    panel.save_current()
    text = panel.saved.value
    assert 'server = "server-filesystem"' in text and 'server_version = "2.0.1"' in text
    assert "allowed_directories" in text
    scenario = tree / "pinned.toml"
    scenario.write_text(text, encoding="utf-8")
    code, out, _err = run_cli("test", scenario, "--json")
    run = json.loads(out)
    assert code == 0, out
    assert run["failed"] == 0
    kinds = [c["kind"] for c in run["cases"]]
    assert kinds.count("path") == 2 and {"policy", "auth_status"} <= set(kinds)
    assert {c["actual"].get("reason") for c in run["cases"] if c["kind"] == "path"} == {
        "inside", "outside"}


def test_the_tool_call_tab_answers_with_the_servers_own_tool_rules(app, tree) -> None:
    m = app.model
    app.bar.server.value = FS
    tool = app.panel("tool")
    # The selected server's tools, and the tab starts on one of them.
    names = [v for _, v in tool.tool.options]
    assert "move_file" in names and "upload_local_file" not in names
    assert m.tool_name in names
    app.bar.fs.fields["directories"].add(str(tree / "data"))
    (tree / "data" / "g.txt").write_text("z", encoding="utf-8")
    tool.tool.value = "move_file"
    # A tool picked starts with each of its path arguments, to fill in.
    assert json.loads(m.tool_args_text) == {"source": "", "destination": ""}
    m.tool_args_text = json.dumps({"source": str(tree / "data" / "f.txt"),
                                   "destination": str(tree / "data" / "g.txt")})
    v = m.call_verdict
    assert v.outcome == "refused"
    assert v.message == f"Destination already exists: {tree}/data/g.txt"
    page = text_of(tool.verdict.value)
    assert f"Destination already exists: {tree}/data/g.txt" in page
    assert "UNKNOWN TOOL" not in page
    # The command line says the same.
    code, out, _ = run_cli("probe", "--server", FS, "--allowed-dir", tree / "data", "--json",
                           "--call", json.dumps({"name": "move_file",
                                                 "arguments": json.loads(m.tool_args_text)}))
    assert code == 1 and json.loads(out)["message"] == v.message
    tool.tool.value = "read_multiple_files"
    m.tool_args_text = json.dumps({"paths": [str(tree / "data" / "f.txt"),
                                             str(tree / "other" / "g.txt")]})
    line = (f"{tree}/other/g.txt: Error - Access denied - path outside allowed directories: "
            f"{tree}/other/g.txt not in {tree}/data")
    assert m.call_verdict.outcome == "partial" and m.call_verdict.message == line
    assert line in text_of(tool.verdict.value)


def test_the_batch_tab_knows_the_servers_tools(app, tree) -> None:
    m = app.model
    app.bar.server.value = FS
    app.bar.fs.fields["directories"].add(str(tree / "data"))
    calls = [{"name": "move_file", "arguments": {"source": f"{tree}/data/f.txt",
                                                 "destination": f"{tree}/data"}},
             {"name": "search_files", "arguments": {"path": f"{tree}/data", "pattern": "*"}},
             # Tools only this server has (mcp-gee-sweet has a move_file too).
             {"name": "read_multiple_files", "arguments": {"paths": [f"{tree}/data/f.txt"]}},
             {"name": "directory_tree", "arguments": {"path": f"{tree}/data"}}]
    m.load_batch_upload("calls.jsonl", "\n".join(json.dumps(c) for c in calls))
    assert [v.outcome for v in m.batch_verdicts] == ["refused", "ok", "ok", "ok"]
    assert m.batch_verdicts[0].message == f"Destination already exists: {tree}/data"
    batch = app.panel("batch")
    assert "UNKNOWN TOOL" not in text_of(batch.outcomes.value)
    assert "name a tool the catalog doesn't know" not in text_of(batch.outcomes.value)
    assert "unknown" not in " ".join(batch.grid.view["verdict"]).lower()


def test_the_exposure_tab_walks_the_allowed_directories(app, tree) -> None:
    app.bar.server.value = FS
    app.bar.fs.fields["directories"].add(str(tree / "data"))
    panel = app.panel("exposure")
    panel.start(wait=True)
    inv = panel.inventory
    assert panel.error == "" and inv is not None
    assert inv.mode == "allowed-directories"
    assert [os.path.realpath(w) for w in inv.walked] == [os.path.realpath(tree / "data")]
    assert "trim-sibling" in {f.kind for f in inv.findings}
