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
