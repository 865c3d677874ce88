"""The command line follows the conventions its users expect: help, version, stdin, JSON."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest
from conftest import run_cli as _run

from localfs_explorer import __version__
from localfs_explorer.cli import main as cli
from localfs_explorer.cli.main import build_parser, main


def _walk(parser: argparse.ArgumentParser, prog: str = "localfs-explorer"):
    """Every (command path, parser) pair, subcommands of subcommands included."""
    yield prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, f"{prog} {name}")


def test_every_command_option_and_argument_has_help() -> None:
    missing = []
    for prog, parser in _walk(build_parser()):
        assert parser.description or prog == "localfs-explorer" or _help_of(prog), prog
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    if not (choice.help or "").strip():
                        missing.append(f"{prog} {choice.dest}")
                continue
            if action.help == argparse.SUPPRESS:
                continue
            if not (action.help or "").strip():
                missing.append(f"{prog} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def _help_of(prog: str) -> str:
    name = prog.split()[-1]
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                if choice.dest == name:
                    return choice.help or ""
    return ""


def test_every_help_shows_examples_or_exit_statuses(capsys) -> None:
    for prog, parser in _walk(build_parser()):
        text = parser.format_help()
        assert "exit status:" in text, prog
        assert "  2  usage or configuration error" in text, prog
        # Epilog lines are printed as written, not re-wrapped into one paragraph.
        assert "\n  0  the answer is yes" in text, prog
    top = build_parser().format_help()
    assert "examples:\n  localfs-explorer check" in top


def test_version_comes_from_the_installed_metadata() -> None:
    from importlib.metadata import version

    assert __version__ == version("localfs-explorer")
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args(["--version"])
    assert info.value.code == 0
    code, _, _ = _run("--version")
    assert code == 0


def test_version_is_printed(capsys) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"localfs-explorer {__version__}"


def test_paths_file_dash_reads_stdin() -> None:
    code, out, _ = _run("check", "--set", "LOCAL_FILE_ACCESS=full", "--paths-file", "-",
                        "--json", stdin='"/tmp/a"\n\n"/tmp/b\\u0000c"\n')
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["path"] for r in rows] == ["/tmp/a", "/tmp/b\0c"]
    assert code == 1  # the NUL path is refused


def test_errors_in_stdin_name_stdin_not_a_scratch_file() -> None:
    code, out, err = _run("check", "--paths-file", "-", stdin='"/tmp/a"\nnot json\n')
    assert code == 2 and out == ""
    assert err.startswith("localfs-explorer check: <stdin>:2: not a JSON string")
    assert "\n" not in err.rstrip("\n")


def test_only_one_option_may_read_stdin() -> None:
    code, _, err = _run("probe", "--calls", "-", "--access", "-", stdin="")
    assert code == 2
    assert "only one option can read stdin" in err and "--calls" in err and "--access" in err


def test_probe_calls_dash_reads_stdin(tmp_path) -> None:
    call = {"name": "upload_local_file",
            "arguments": {"local_path": "/etc/passwd", "parent_folder_id": "F"}}
    code, out, err = _run("probe", "--set", "LOCAL_FILE_ACCESS=roots",
                          "--set", f"LOCAL_FILE_ROOTS={tmp_path}", "--calls", "-", "--json",
                          stdin=json.dumps(call) + "\n")
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 1 and rows[0]["name"] == "upload_local_file", err
    assert rows[0]["outcome"] != "ok" and code == 1


def test_replay_dash_reads_stdin() -> None:
    session = [[{"name": "upload_local_file", "arguments": {"local_path": "/etc/passwd"}}]]
    code, out, err = _run("replay", "-", "--set", "LOCAL_FILE_ACCESS=off", "--json",
                          stdin=json.dumps(session))
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["name"] for r in rows] == ["upload_local_file"], err
    assert code == 1


def test_replay_dash_with_bad_json_is_one_line() -> None:
    code, out, err = _run("replay", "-", stdin="[[{")
    assert code == 2 and out == ""
    assert re.match(r"localfs-explorer replay: <stdin>: not valid JSON \(line 1", err)
    assert err.count("\n") == 1


def test_help_exits_zero_without_a_traceback(capsys) -> None:
    assert main(["check", "--help"]) == 0
    text = capsys.readouterr().out
    assert "examples:" in text and "--paths-file FILE" in text
    assert cli.EXIT_STATUS.splitlines()[1] in text


def test_hosts_json_lists_every_shipped_example() -> None:
    from localfs_explorer.fs.spec import list_example_hosts

    code, out, _ = _run("hosts", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert [r["name"] for r in rows] == list(list_example_hosts())
    assert all(r["description"] for r in rows)


def test_export_env_dry_run_json_masks_secrets(tmp_path) -> None:
    env = tmp_path / ".env"
    env.write_text("LOCAL_FILE_ACCESS=off\nGEE_SECRET_TOKEN=hunter2-secret\n")
    code, out, _ = _run("export-env", "--env", str(env), "--set", "LOCAL_FILE_ACCESS=full",
                        "--dry-run", "--json")
    plan = json.loads(out)
    assert code == 0 and plan["ok"] and plan["changed"]
    assert "+LOCAL_FILE_ACCESS=full" in plan["diff"]
    assert "hunter2" not in out
    assert env.read_text().startswith("LOCAL_FILE_ACCESS=off")  # nothing written


def test_export_env_json_needs_dry_run(tmp_path) -> None:
    code, _, err = _run("export-env", "-o", str(tmp_path / "x.env"), "--json")
    assert code == 2 and "--json goes with --dry-run" in err
    assert not (tmp_path / "x.env").exists()


def test_test_json_is_the_whole_run(tmp_path) -> None:
    from localfs_explorer.review.scenarios import run_scenarios

    shipped = str(Path(__file__).resolve().parents[2] / "scenarios" / "spec-000.toml")
    code, out, _ = _run("test", shipped, "--json")
    data = json.loads(out)  # one object and nothing else on stdout
    expected = run_scenarios([shipped])
    assert code == expected.exit_code == 0
    assert (data["passed"], data["failed"]) == (expected.passed, expected.failed)
    assert len(data["cases"]) == len(expected.cases) > 0


def test_auth_status_accepts_json() -> None:
    code, out, _ = _run("auth-status", "--json", "--set", "LOCAL_FILE_ACCESS=off")
    assert code == 0 and json.loads(out)["local_file_access"]["mode"] == "off"


def test_env_dash_reads_stdin_with_this_directory_as_the_package_dir(tmp_path,
                                                                     monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run("validate", "--env", "-", "--json",
                        stdin="LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS=/definitely/missing\n")
    summary = json.loads(out)
    assert code == 2 and summary["mode"] == "off" and not summary["serves"]
    env_entry = [e for e in summary["deny_list"] if e["setting"] == "server .env"]
    assert env_entry and env_entry[0]["path"] == str(tmp_path / ".env")


def test_export_env_in_place_refuses_stdin() -> None:
    code, out, err = _run("export-env", "--env", "-", "--in-place", stdin="A=1\n")
    assert code == 2 and out == "" and "--in-place can't replace stdin" in err


@pytest.mark.slow
def test_dataframe_views_without_pandas_say_which_extra(tmp_path) -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "sys.modules['pandas'] = None  # as if it were not installed\n"
        "from localfs_explorer import load_env, resolve_policy\n"
        "from localfs_explorer.optional import MissingDependency\n"
        "from localfs_explorer.probe import probe_calls\n"
        "p = resolve_policy(load_env(None, overrides={'LOCAL_FILE_ACCESS': 'off'}))\n"
        "try:\n"
        "    probe_calls(p, [{'name': 'upload_local_file', 'arguments': {}}])\n"
        "except MissingDependency as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert proc.stdout.strip() == ("probe_calls' DataFrame needs pandas: pip install "
                                   "'localfs-explorer[dashboard]' (or just pandas)")


def test_a_command_with_its_own_epilog_still_lists_the_exit_statuses(monkeypatch) -> None:
    from types import SimpleNamespace

    def register(sub, env_options):
        p = sub.add_parser("extra", help="a command another module adds",
                           epilog="note: its own closing words")
        p.add_argument("--flag", action="store_true", help="a flag")

    real = cli._command_modules()
    monkeypatch.setattr(cli, "_command_modules", lambda: [*real, SimpleNamespace(
        register=register)])
    parser = dict(_walk(build_parser()))["localfs-explorer extra"]
    text = parser.format_help()
    assert "note: its own closing words" in text and "\nexit status:\n  0  " in text


def test_test_dash_runs_a_scenario_file_from_stdin(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").mkdir()
    scenario = (
        '[[scenario]]\nname = "roots from stdin"\n'
        '[scenario.config]\nsettings = { LOCAL_FILE_ACCESS = "roots", '
        'LOCAL_FILE_ROOTS = "data" }\ncwd = "."\n'
        '[[scenario.path]]\npath = "data/a.csv"\nallowed = true\n'
    )
    code, out, err = _run("test", "-", "--json", stdin=scenario)
    assert code == 0, err + out
    result = json.loads(out)
    assert result["passed"] == 1 and result["failed"] == 0
    assert "<stdin>" in out and "stdin.toml" not in out
    # A relative root means the current directory's "data", not the scratch file's folder.
    code, out, err = _run("test", "-", stdin=scenario.replace('"data/a.csv"', '"elsewhere/a"'))
    assert code == 1, err + out


def test_diff_sides_read_their_env_from_stdin(tmp_path) -> None:
    before = tmp_path / "before.env"
    before.write_text("LOCAL_FILE_ACCESS=off\n")
    code, out, err = _run("diff", "--before-env", str(before), "--after-env", "-",
                          "--path", "/tmp/x", stdin="LOCAL_FILE_ACCESS=full\n")
    assert code == 1, err  # full after off: new access
    assert "new" in out.lower() and "stdin" not in err
