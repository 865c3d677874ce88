"""The dashboard with DesktopCommanderMCP picked: its own settings bar, its badge and
findings, and the Paths tab answering as ``check --server desktop-commander``."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest
from conftest import run_cli
from ui_support import text_of

from localfs_explorer.ui import Explorer
from localfs_explorer.ui.commands import screen_command

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
DC = "desktop-commander"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path))
    for d in ("data", "Data", "other", "home/.claude-server-commander"):
        (root / d).mkdir(parents=True)
    (root / "data/f.txt").write_text("x")
    (root / "Data/g.txt").write_text("y")
    (root / "home/.claude-server-commander/config.json").write_text(
        json.dumps({"allowedDirectories": [str(root / "other")], "blockedCommands": ["sudo"]}))
    return root


@pytest.fixture
def app(tree: Path) -> Explorer:
    return Explorer(cwd=str(tree), debounce=0)


def test_picking_it_shows_its_own_settings_and_badge(app, tree) -> None:
    bar = app.bar
    assert DC in [v for _, v in bar.server.options]
    bar.server.value = DC
    assert app.model.last_error == ""
    assert bar.fs.layout.display == "" and bar.env_controls.layout.display == "none"
    assert list(bar.fs.fields) == ["allowed_directories", "home", "settings_file"]
    dirs = bar.fs.fields["allowed_directories"]
    home, settings_file = bar.fs.fields["home"].text, bar.fs.fields["settings_file"].text
    for widget in (dirs.input, home, settings_file, bar.fs.cwd):
        assert widget.tooltip and widget.tooltip.strip()
    settings_file.value = "  "  # blank: not given, the file under HOME
    assert app.model.server_options == {}
    home.value = str(tree / "home")
    assert app.model.server_options == {"home": str(tree / "home")}
    badge = text_of(bar.badge.value)
    assert f"allowedDirectories: {tree / 'other'}" in badge and "LOCAL_FILE_ACCESS" not in badge
    assert "critical: start_process runs shell commands" in badge
    dirs.add(str(tree / "data"))
    assert app.model.server_options["allowed_directories"] == [str(tree / "data")]
    assert f"allowedDirectories: {tree / 'data'}" in text_of(bar.badge.value)
    (chip,) = [c for c in dirs.chips.children if "lfe-chip" in c._dom_classes]
    chip.children[1].click()  # the file's list applies again
    assert "allowed_directories" not in app.model.server_options
    home.value = ""  # a blank line takes the setting away, and the box shows it
    assert "home" not in app.model.server_options and home.value == ""
    home.value = str(tree / "home")
    bar.server.value = "mcp-gee-sweet"  # its settings are not carried to another server
    assert app.model.server_options == {} and bar.fs.layout.display == "none"
    assert app.model.last_error == ""


def test_the_paths_tab_answers_as_the_command_line(app, tree) -> None:
    app.bar.server.value = DC
    app.bar.fs.fields["home"].text.value = str(tree / "home")
    app.bar.fs.fields["allowed_directories"].add(str(tree / "data"))
    paths = app.show("paths")
    wanted = [str(tree / "data/f.txt"), str(tree / "Data/g.txt"), str(tree / "other")]
    paths.paths.value = "\n".join(wanted)
    view = paths.grid.view.sort_values("#")
    shown = [(r["path"], r["verdict"] == "✔ ALLOWED") for _, r in view.iterrows()]
    assert sorted(shown) == sorted(zip(wanted, [True, True, False], strict=True))
    # The command the screen offers reproduces the screen.
    argv = shlex.split(screen_command(app.model))[1:]
    assert "--server" in argv and "--allowed-dir" in argv and "--home" in argv
    split = argv.index("--")
    code, out, _ = run_cli(*argv[:split], "--json", *argv[split:])
    got = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and [g["allowed"] for g in got] == [True, True, False]
    assert got[2]["message"] == (f"Path not allowed: {tree / 'other'}. Must be within one "
                                 f"of these directories: {tree / 'data'}")


def test_every_tab_opens_with_it(app, tree) -> None:
    from localfs_explorer.ui.app import PANELS

    app.bar.server.value = DC
    app.bar.fs.fields["home"].text.value = str(tree / "home")
    for spec in PANELS:
        app.show(spec.name)
        assert app.model.last_error == "", spec.name
    assert "has no deny-list" in text_of(app.panel("deny").entries.value)

