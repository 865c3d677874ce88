"""What shared code once knew of one server's words now comes through seam hooks.

Each hook has a default in :class:`~localfs_explorer.server.Server`; the shipped default
server answers it with its own words, and a server from outside the tree (the toy, with
a hook of its own given here) sees its answer flow through to the command's output.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_cli

from localfs_explorer import vocab
from localfs_explorer.config import ServerConfig, resolve_config
from localfs_explorer.server import Server, get_server, register_server, unregister_server

TOY = "toy-folder"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "notes.txt").write_text("x")
    return allowed


@contextlib.contextmanager
def _toy_with(**hooks: object) -> Iterator[Server]:
    """The toy server with some hooks of its own, registered in its place for a while."""
    toy = type(get_server(TOY))
    stand_in = type("ToyWithHooks", (toy,), dict(hooks))
    try:
        yield register_server(stand_in, replace=True)
    finally:
        unregister_server(TOY)


def _toy_scenario(folder: Path) -> str:
    return f"""
[config]
server = "{TOY}"
[config.options]
allowed = "{folder}"
[[scenario]]
name = "toy"
[[scenario.path]]
path = "{folder / 'notes.txt'}"
allowed = true
"""


# --- deny-list labels -------------------------------------------------------------------


def test_deny_labels_default_to_none() -> None:
    assert Server.deny_labels == ()
    assert get_server(TOY).deny_labels == ()


def test_the_default_server_gives_its_own_deny_labels() -> None:
    assert get_server().deny_labels == vocab.DENY_LABELS


def test_the_coverage_counts_the_servers_own_deny_labels(folder: Path, tmp_path: Path
                                                         ) -> None:
    scenario = tmp_path / "toy.toml"
    scenario.write_text(_toy_scenario(folder))
    code, out, err = run_cli("test", scenario, "--coverage", "--json")
    assert code == 0, err
    assert json.loads(out)["coverage"]["deny_settings"] == {}
    with _toy_with(deny_labels=("TOY_SECRET_FILE", "toy keyring")):
        code, out, err = run_cli("test", scenario, "--coverage", "--json")
        assert code == 0, err
        assert json.loads(out)["coverage"]["deny_settings"] == {"TOY_SECRET_FILE": 0,
                                                                 "toy keyring": 0}
        code, out, err = run_cli("test", scenario, "--coverage")
        assert "toy keyring" in out


def test_a_default_server_run_counts_every_deny_label() -> None:
    from localfs_explorer.review.scenarios import Coverage, run_scenario_text

    coverage = Coverage()
    result = run_scenario_text("""
[config]
host = "traps"
cwd = "/app"
package_dir = "/app"
[[scenario]]
name = "any"
[[scenario.path]]
path = "/data/report.csv"
allowed = true
""", coverage=coverage)
    assert result.error is None
    assert list(coverage.deny_settings)[:len(vocab.DENY_LABELS)] == list(vocab.DENY_LABELS)


# --- a scenario file's words of the server's own ----------------------------------------


def _mode_scenario(server: str, mode: str) -> str:
    return f"""
[config]
server = "{server}"
[[scenario]]
name = "a"
[scenario.policy]
mode = "{mode}"
"""


def test_scenario_words_default_to_none_and_the_default_server_gives_its_modes() -> None:
    assert Server.scenario_words == {}
    assert get_server(TOY).scenario_words == {}
    assert tuple(get_server().scenario_words["mode"]) == vocab.MODES


def test_a_scenario_is_held_to_its_own_servers_words() -> None:
    from localfs_explorer.review.scenarios import ScenarioError, parse_scenario_text

    with pytest.raises(ScenarioError) as info:
        parse_scenario_text(_mode_scenario(TOY, "open"), name="f.toml")
    # A server declaring no words of its own: every server's words hold.
    assert str(info.value) == ("f.toml:7: scenario 'a' > policy > mode: 'open' is not one "
                               "of 'full', 'roots' or 'off'")
    with _toy_with(scenario_words={"mode": ("open", "shut")}):
        parsed = parse_scenario_text(_mode_scenario(TOY, "open"), name="f.toml")
        assert parsed.scenario[0].policy is not None
        assert parsed.scenario[0].policy.mode == "open"
        with pytest.raises(ScenarioError) as info:
            parse_scenario_text(_mode_scenario(TOY, "full"), name="f.toml")
        assert str(info.value) == ("f.toml:7: scenario 'a' > policy > mode: 'full' is not "
                                   "one of 'open' or 'shut'")
        # The default server keeps its own words.
        with pytest.raises(ScenarioError, match="'open' is not one of 'full', 'roots' or "):
            parse_scenario_text(_mode_scenario(get_server().id, "open"), name="f.toml")


def test_the_scenario_schema_lists_every_servers_words() -> None:
    from localfs_explorer.review.scenarios import ScenarioFile

    def modes() -> list[str]:
        schema = ScenarioFile.model_json_schema()["$defs"]
        (words,) = {tuple(schema[case]["properties"]["mode"]["anyOf"][0]["enum"])
                    for case in ("PolicyCase", "AuthStatusCase")}
        return list(words)

    assert modes() == list(vocab.MODES)
    with _toy_with(scenario_words={"mode": ("open", "full")}):
        assert modes() == [*vocab.MODES, "open"]


# --- what a deployment entry reaches ------------------------------------------------------


def _toy_entry(tmp_path: Path, folder: Path) -> list:
    from localfs_explorer.deployments.reach import answer_deployment

    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"box": {
        "command": "toy-folder-server", "args": [str(folder)]}}}))
    return answer_deployment(config, environ={}, home=str(tmp_path)).entries


def test_the_default_reach_lists_the_exposure_scope(folder: Path, tmp_path: Path) -> None:
    from localfs_explorer.server import PolicyReach

    (entry,) = _toy_entry(tmp_path, folder)
    assert (entry.server, entry.reach) == (TOY, "modelled")
    assert entry.summary == f"reads and writes under {folder}"
    assert entry.directories == [str(folder)] and entry.findings == []
    policy = resolve_config(ServerConfig(server=TOY, server_options={
        "allowed": str(folder)})).policy
    assert get_server(TOY).reach(policy) == PolicyReach((str(folder),))


def test_a_servers_own_reach_is_what_deployment_says(folder: Path, tmp_path: Path) -> None:
    from localfs_explorer.server import PolicyReach

    wide = PolicyReach(("/srv/a", "/srv/b"), label="toy wide",
                       everything="toy wide lets the tools use every file the account can")
    with _toy_with(reach=lambda self, policy: wide):
        (entry,) = _toy_entry(tmp_path, folder)
    assert entry.summary == "toy wide: /srv/a, /srv/b"
    assert entry.directories == ["/srv/a", "/srv/b"]
    (finding,) = entry.findings
    assert finding.message.startswith("toy wide lets the tools use every file the account "
                                      "can: ")
    with _toy_with(reach=lambda self, policy: PolicyReach(("/srv",), label="toy shut",
                                                          nothing=True)):
        (entry,) = _toy_entry(tmp_path, folder)
    assert (entry.summary, entry.directories, entry.findings) == (
        "no local file access (toy shut)", ["/srv"], [])
    with _toy_with(reach=lambda self, policy: PolicyReach(label="toy closed")):
        (entry,) = _toy_entry(tmp_path, folder)
    assert entry.summary == "toy closed"


@pytest.mark.parametrize(("settings", "label", "nothing", "everything"), [
    ({"LOCAL_FILE_ACCESS": "roots"}, "mode roots", False, False),
    ({"LOCAL_FILE_ACCESS": "off"}, "mode off", True, False),
    ({"LOCAL_FILE_ACCESS": "full"}, "mode full", False, True),
])
def test_the_default_servers_reach_is_its_mode_and_roots(layout, settings, label, nothing,
                                                         everything) -> None:
    policy = layout.policy(LOCAL_FILE_ROOTS=str(layout.data), **settings)
    reach = get_server().reach(policy)
    assert reach.directories == (str(layout.data),)
    assert (reach.label, reach.nothing, bool(reach.everything)) == (label, nothing,
                                                                    everything)


# --- the dashboard's policy bar -----------------------------------------------------------


def test_env_controls_default_to_none_and_the_default_server_names_its_settings() -> None:
    assert Server.env_controls is None and get_server(TOY).env_controls is None
    controls = get_server().env_controls
    assert controls is not None
    assert (controls.choice, controls.entries) == ("LOCAL_FILE_ACCESS", "LOCAL_FILE_ROOTS")
    assert controls.choices == vocab.MODES
    assert len(controls.tooltips) == len(controls.choices) + 1  # unset, then each
    assert controls.split("/a:/b::", "posix") == ["/a", "/b"]
    assert controls.split("C:\\a;D:\\b", "windows") == ["C:\\a", "D:\\b"]


def test_the_default_entry_state_says_whether_the_directory_exists(folder: Path) -> None:
    server = get_server(TOY)
    policy = resolve_config(ServerConfig(server=TOY, cwd=str(folder.parent),
                                         server_options={"allowed": str(folder)})).policy
    assert server.entry_state(policy, str(folder)) == ("ok", "✔ exists")
    assert server.entry_state(policy, folder.name) == ("ok", "✔ exists")  # under cwd
    assert server.entry_state(policy, str(folder / "nope")) == ("refused", "✘ missing")


def test_the_default_servers_entry_state_reads_its_roots(layout) -> None:
    server = get_server()
    roots = server.entry_state(layout.roots(), str(layout.data))
    assert roots == ("ok", "✔ exists")
    full = server.entry_state(layout.policy(LOCAL_FILE_ACCESS="full"), str(layout.data))
    assert full == ("absent", "✔ exists · not used: the mode is full")


def test_the_policy_bar_edits_a_servers_own_env_controls(folder: Path, tmp_path: Path,
                                                         monkeypatch) -> None:
    pytest.importorskip("ipywidgets")
    from localfs_explorer.server import EnvControls
    from localfs_explorer.ui.app import Explorer
    from localfs_explorer.ui.policybar import PolicyBar

    # The badge of a server with a .env still reads the default server's policy shape
    # (its transport and mode line): not a hook yet, so not asked of the toy here.
    monkeypatch.setattr(PolicyBar, "_badge", lambda self, policy: "")

    controls = EnvControls(choice="TOY_MODE", choices=("open", "shut"),
                           tooltips=("no TOY_MODE", "everything", "nothing"),
                           entries="TOY_DIRS", entry_word="shelf",
                           separators={"posix": ","},
                           everything_warning="⚠ toy open: every file")
    hooks = {"env_file": True, "env_controls": controls,
             "entry_state": lambda self, policy, entry: ("ok", f"toy knows {entry}")}
    with _toy_with(**hooks):
        app = Explorer(server=TOY, server_options={"allowed": str(folder)},
                       cwd=str(tmp_path), debounce=0)
        bar = app.bar
        assert [value for _label, value in bar.mode.options] == ["unset", "open", "shut"]
        assert bar.root_input.placeholder == "add a shelf directory"
        assert bar.root_add.description == "+ add shelf"
        bar.mode.value = "open"
        bar.add_root("/srv/a")
        bar.add_root("/srv/b")
        assert app.model.file_edits == {"TOY_MODE": "open", "TOY_DIRS": "/srv/a,/srv/b"}
        chips = " ".join(c.children[0].value for c in bar.chips.children[:2])
        assert "toy knows /srv/a" in chips and "toy knows /srv/b" in chips
        app.model.set_file_value("TOY_MODE", "ajar")
        assert "not one of open, shut." in bar.note.value
