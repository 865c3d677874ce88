"""Shareable configurations: a command line and a URL query that reproduce the screen."""

from __future__ import annotations

import io
import json
import shlex

import pytest

from localfs_explorer.cli.main import main
from localfs_explorer.ui.share import command_line, options_from_query, query_string

OPTIONS = {
    "target": "example:traps", "transport": "sse", "package_dir": "/app", "cwd": "/app",
    "overrides": [("LOCAL_FILE_ACCESS", "roots"), ("LOCAL_FILE_ROOTS", "/data"),
                  ("TOKEN_PATH", "/app/token.json"),
                  ("CREDENTIALS_CONFIG", '{"private_key": "hunter2-key"}')],
    "unset": ["HOME"],
    "paths_text": "/data/report.csv\n/data/escape/passwd\n/data/it's here.txt\n",
    "op": "read",
}


def _cli(line: str) -> tuple[int, list[dict]]:
    argv = shlex.split(line, comments=True)
    assert argv[0] == "localfs-explorer"
    out, err = io.StringIO(), io.StringIO()
    code = main([argv[1], "--json", *argv[2:]], out=out, err=err)
    return code, [json.loads(x) for x in out.getvalue().splitlines()]


def test_the_command_line_reproduces_the_verdicts_and_leaves_secrets_out() -> None:
    from localfs_explorer import load_env, resolve_policy
    from localfs_explorer.fs.spec import load_fs

    line = command_line(OPTIONS)
    assert "hunter2" not in line and "CREDENTIALS_CONFIG=" not in line
    assert line.endswith("# left out (secret): CREDENTIALS_CONFIG")
    code, rows = _cli(line)
    env = load_env(None, overrides=dict(OPTIONS["overrides"][:3]), unset=["HOME"])
    policy = resolve_policy(env, fs=load_fs("traps"), transport="sse", cwd="/app",
                            package_dir="/app")
    expected = [policy.check(p, "read").to_dict() for p in OPTIONS["paths_text"].split("\n")
                if p]
    assert rows == expected and code == 1  # the escaping symlink is refused
    assert [r["path"] for r in rows][2] == "/data/it's here.txt"


def test_the_command_line_for_other_commands_drops_the_paths() -> None:
    line = command_line({**OPTIONS, "op": "write"}, command="validate")
    assert line.startswith("localfs-explorer validate ") and "/data/report.csv" not in line
    assert "--op" not in line
    assert "--op write" in command_line({**OPTIONS, "op": "write"})


def test_the_query_round_trips_without_secrets() -> None:
    query = query_string(OPTIONS)
    assert "hunter2" not in query and "CREDENTIALS_CONFIG" not in query
    options, problems = options_from_query(query)
    assert problems == []
    assert options == {
        "transport": "sse", "target": "example:traps", "cwd": "/app", "package_dir": "/app",
        "overrides": OPTIONS["overrides"][:3], "unset": ["HOME"],
        "paths_text": "/data/report.csv\n/data/escape/passwd\n/data/it's here.txt",
    }


@pytest.mark.parametrize(("query", "problem"), [
    ("transport=carrier-pigeon", "transport='carrier-pigeon' is not one of"),
    ("fs=/etc/spec.json", "neither 'host' nor a shipped example host"),
    ("env=/root/.env", "unknown parameter 'env' ignored"),
    ("set=CREDENTIALS_CONFIG%3D%7B%7D", "CREDENTIALS_CONFIG is a secret setting"),
    ("set=novalue", "is not KEY=VALUE"),
])
def test_the_query_ignores_what_it_must_not_take(query, problem) -> None:
    options, problems = options_from_query(query)
    assert options == {} and len(problems) == 1 and problem in problems[0]


def test_the_served_dashboard_opens_on_the_query(monkeypatch) -> None:
    pytest.importorskip("ipywidgets")
    from localfs_explorer.ui import make_explorer

    monkeypatch.delenv("LOCALFS_EXPLORER_PRELOAD", raising=False)
    monkeypatch.setenv("QUERY_STRING", query_string(OPTIONS) + "&bogus=1")
    app = make_explorer(debounce=0)
    m = app.model
    assert (m.transport, m.target, m.package_dir) == ("sse", "example:traps", "/app")
    assert m.policy.mode.value == "roots"
    assert "bogus" in m.last_error
    # What the caller passes still wins.
    assert make_explorer(transport="stdio", debounce=0).model.transport == "stdio"


def test_copy_as_command_shows_the_line_and_the_link(monkeypatch) -> None:
    pytest.importorskip("ipywidgets")
    from localfs_explorer.ui import make_explorer

    monkeypatch.delenv("QUERY_STRING", raising=False)
    monkeypatch.delenv("LOCALFS_EXPLORER_PRELOAD", raising=False)
    app = make_explorer(debounce=0, **OPTIONS)
    assert app.share.value == ""
    app.share_button.click()
    shown = app.share.value
    assert "localfs-explorer check" in shown and "--fs traps" in shown
    assert "hunter2" not in shown and 'href="?transport=sse' in shown
    app.model.transport = "stdio"  # kept up to date once shown
    assert "--transport" not in app.share.value


def test_the_servers_own_query_parameters_are_not_configuration() -> None:
    from localfs_explorer.ui.share import options_from_query

    options, problems = options_from_query("token=abc123&theme=dark&transport=sse&bogus=1")
    assert options.get("transport") == "sse"
    assert problems == ["unknown parameter 'bogus' ignored"]
    assert "abc123" not in repr(options)


FS_OPTIONS = {
    "server": "server-filesystem", "server_version": "2026.7.10", "cwd": "/srv",
    "server_options": {"directories": ["/data", "rel dir", "~/notes"],
                       "roots": ["file:///data/in", "/data/out"], "home": "/home/op"},
    "paths_text": "/data/a.csv\n",
}


def test_the_query_carries_the_servers_settings() -> None:
    query = query_string(FS_OPTIONS)
    options, problems = options_from_query(query)
    assert problems == []
    assert options == {
        "cwd": "/srv", "server": "server-filesystem", "server_version": "2026.7.10",
        "server_options": FS_OPTIONS["server_options"], "paths_text": "/data/a.csv",
    }
    # The allowed directories keep their order (the server's list is in argv order).
    assert query.index("dir=%2Fdata") < query.index("dir=rel+dir")


@pytest.mark.parametrize(("roots", "carried"), [
    (None, None),        # the client has no roots capability
    ([], []),            # it advertises roots, and none at all: not the same thing
    (["file:///x"], ["file:///x"]),
])
def test_the_query_tells_roots_advertised_from_none(roots, carried) -> None:
    own = {"directories": ["/data"], **({"roots": roots} if roots is not None else {})}
    options, problems = options_from_query(query_string(
        {"server": "server-filesystem", "server_options": own}))
    assert problems == []
    assert options["server_options"].get("roots", None) == carried
    assert ("roots" in options["server_options"]) is (roots is not None)


@pytest.mark.parametrize(("query", "problem"), [
    ("server=nope", "server='nope' is not one of"),
    ("server=server-filesystem&server_version=1.0", "server_version='1.0' is not one of"),
    ("dir=%2Fdata", "dir ignored: mcp-gee-sweet option directories"),  # not its setting
])
def test_the_query_refuses_a_server_release_or_setting_it_cant_use(query, problem) -> None:
    options, problems = options_from_query(query)
    assert "server_version" not in options and "server_options" not in options
    assert len(problems) == 1 and problem in problems[0]


def test_the_command_line_names_the_server_and_its_settings() -> None:
    line = command_line(FS_OPTIONS)
    argv = shlex.split(line)
    assert argv[argv.index("--server") + 1] == "server-filesystem"
    assert argv[argv.index("--server-version") + 1] == "2026.7.10"
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--allowed-dir"] == [
        "/data", "rel dir", "~/notes"]
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--root"] == [
        "file:///data/in", "/data/out"]
    assert argv[argv.index("--home") + 1] == "/home/op"
    assert "--server" not in command_line(OPTIONS)  # the default server needs no word


def test_the_link_opens_the_dashboard_on_the_same_filesystem_server(
        monkeypatch, tmp_path) -> None:
    pytest.importorskip("ipywidgets")
    from localfs_explorer.ui import make_explorer

    (tmp_path / "data").mkdir()
    (tmp_path / "other").mkdir()
    monkeypatch.delenv("QUERY_STRING", raising=False)
    monkeypatch.delenv("LOCALFS_EXPLORER_PRELOAD", raising=False)
    first = make_explorer(debounce=0, cwd=str(tmp_path))
    bar = first.bar
    bar.server.value = "server-filesystem"
    bar.fs.fields["directories"].add("data")
    bar.fs.version.value = "2026.7.10"
    bar.fs.fields["roots"].toggle.value = True
    bar.fs.fields["roots"].text.value = (tmp_path / "other").as_uri()
    m = first.model
    assert m.policy.directories == (str(tmp_path / "other"),)  # the roots replaced argv
    first.share_button.click()
    link = first.share.value.split('href="?', 1)[1].split('"', 1)[0]
    import html

    monkeypatch.setenv("QUERY_STRING", html.unescape(link))
    second = make_explorer(debounce=0)
    n = second.model
    assert second.model.last_error == ""
    assert (n.server, n.server_version, n.cwd) == ("server-filesystem", "2026.7.10",
                                                   str(tmp_path))
    assert n.server_options == m.server_options
    assert n.policy.directories == m.policy.directories
    assert second.bar.fs.fields["roots"].toggle.value is True
    assert second.bar.fs.fields["directories"].entries() == ["data"]
    # The same settings without roots advertised: argv's directory is allowed again.
    first.bar.fs.fields["roots"].toggle.value = False
    link = first.share.value.split('href="?', 1)[1].split('"', 1)[0]
    monkeypatch.setenv("QUERY_STRING", html.unescape(link))
    third = make_explorer(debounce=0)
    assert "roots" not in third.model.server_options
    assert third.model.policy.directories == (str(tmp_path / "data"),)
