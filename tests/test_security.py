"""Hostile input and leaks: every file option, outputs, secrets, the served page's model.

Each test is one case an attacker would try. The browser cases (the real Voila server
started in exposed mode) are in ``test_browser.py``; the random-input fuzzing of every
reader is in ``test_fuzz_readers.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import run_cli

from localfs_explorer.cli.serve import is_loopback, plan_serve
from localfs_explorer.secrets import MASK
from localfs_explorer.userfiles import MAX_FILE_BYTES, MAX_NESTING

# Serve plans write a token config and preload files: keep them in the test's folder.
pytestmark = pytest.mark.usefixtures("scratch_tempdir")

#: No hostile input may make one command allocate more than this (Python heap, traced).
MEMORY_BOUND = 48 * 1024 * 1024
#: A command that hasn't answered in this long is hung (a guard, not a speed measure).
HANG_GUARD_S = 20

CALL = json.dumps({"name": "upload_local_file", "arguments": {"local_path": "/tmp/x"}})


@contextlib.contextmanager
def hang_guard(seconds: int = HANG_GUARD_S) -> Iterator[None]:
    def hung(*_args: object) -> None:
        raise TimeoutError(f"no answer within {seconds}s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run(*argv: object) -> tuple[int, str, str]:
    with hang_guard():
        return run_cli(*argv)


def run_bounded(*argv: object) -> tuple[int, str, str, int]:
    """``run`` measuring the peak of traced allocations while it runs."""
    tracemalloc.start()
    try:
        code, out, err = run(*argv)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return code, out, err, peak


@pytest.fixture(autouse=True, scope="module")
def _warm_imports() -> None:
    # Imports done once up front, so the traced peak is the input's cost, not theirs.
    import pandas  # noqa: F401

    import localfs_explorer.cli.review
    import localfs_explorer.review.report  # noqa: F401

    run("validate")


# ------------------------------------------------------------------ hostile input files

# Each option that takes a file, as a command line with the file in it.
FILE_OPTIONS: dict[str, Callable[[Path, Path], list[object]]] = {
    "--env": lambda f, tmp: ["validate", "--env", f],
    "--fs": lambda f, tmp: ["check", "--fs", f, "/x"],
    "--access": lambda f, tmp: ["probe", "--access", f, "--call", CALL],
    "--calls": lambda f, tmp: ["probe", "--calls", f],
    "--paths-file": lambda f, tmp: ["check", "--paths-file", f],
    "--profile": lambda f, tmp: ["validate", "--profile", f],
    "--catalog": lambda f, tmp: ["probe", "--catalog", f, "--call", CALL],
    "--tools-list": lambda f, tmp: ["probe", "--tools-list", f, "--call", CALL],
    "replay": lambda f, tmp: ["replay", f],
    "test": lambda f, tmp: ["test", f],
    "report --calls": lambda f, tmp: ["report", "--calls", f, "-o", tmp / "r.json"],
    "report --paths-file": lambda f, tmp: ["report", "--paths-file", f, "-o", tmp / "r.json"],
    "diff --calls": lambda f, tmp: ["diff", "--calls", f],
}
# The suffix each option's files carry (the loaders pick JSON or TOML by it).
SUFFIX = {"--access": ".toml", "--catalog": ".json", "test": ".toml", "--fs": ".json",
          "--profile": ".json", "--tools-list": ".json", "replay": ".json"}
TOML_OPTIONS = {"--access", "test"}
# Options whose content isn't structured: nesting means nothing to a .env.
FLAT_OPTIONS = {"--env"}
# Call files report a bad line by its number and go on with the others.
LINE_OPTIONS = {"--calls", "report --calls", "diff --calls"}


def _hostile(kind: str, option: str, tmp: Path) -> Path:
    path = tmp / f"hostile{SUFFIX.get(option, '.jsonl')}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        return Path("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    elif kind == "huge":
        with open(path, "wb") as fh:  # sparse: costs no disk
            fh.truncate(MAX_FILE_BYTES + 1)
    elif kind == "deep":
        depth = 100_000
        if option in TOML_OPTIONS:
            path.write_text("a = " + "[" * depth + "]" * depth + "\n")
        else:
            path.write_text("[" * depth + "]" * depth + "\n")
    return path


KINDS = {
    "fifo": "FIFO",
    "device": "character device",
    "directory": "directory",
    "huge": "limit",
    "deep": f"nested deeper than {MAX_NESTING} levels",
}


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("option", list(FILE_OPTIONS))
def test_every_file_option_refuses_hostile_files_in_one_line(option, kind, tmp_path) -> None:
    if kind == "deep" and option in FLAT_OPTIONS:
        pytest.skip("a .env has no nesting")
    if kind == "directory" and option == "test":
        pytest.skip("test takes folders of scenario files")
    if kind == "device" and not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    hostile = _hostile(kind, option, tmp_path)
    code, out, err, peak = run_bounded(*FILE_OPTIONS[option](hostile, tmp_path))
    said = out + err
    assert code == 2, said
    assert "Traceback" not in said
    assert KINDS[kind] in said, said
    if kind == "deep" and option in LINE_OPTIONS:
        assert f"{hostile}:1: not valid JSON" in said
    else:
        assert str(hostile) in said, said
    assert peak < MEMORY_BOUND, f"{peak / 2**20:.1f} MiB"
    if option not in ("test",):  # test also prints its summary line
        assert len(err.strip().splitlines()) <= 2, err


def _chain_spec(tmp: Path, length: int) -> Path:
    entries: dict[str, dict[str, str]] = {"/d": {"type": "dir"}}
    for i in range(length):
        entries[f"/d/l{i}"] = {"type": "symlink", "target": f"/d/l{i + 1}"}
    path = tmp / "chain.json"
    path.write_text(json.dumps({"version": 1, "entries": entries}))
    return path


def test_a_20000_link_symlink_chain_is_refused_at_load(tmp_path) -> None:
    spec = _chain_spec(tmp_path, 20_000)
    code, _out, err, peak = run_bounded("check", "--fs", spec, "/d/l0")
    assert code == 2 and "Traceback" not in err
    assert "chain of 20000 symlinks, more than the limit of 256" in err and str(spec) in err
    assert peak < MEMORY_BOUND


def test_a_chain_through_directory_links_is_refused_at_load(tmp_path) -> None:
    # l_i -> /d/x_i/l_(i+1) with x_i -> /d: no link's text names the next link, yet
    # resolving l_0 walks through all of them.
    entries: dict[str, dict[str, str]] = {"/d": {"type": "dir"}}
    for i in range(3000):
        entries[f"/d/x{i}"] = {"type": "symlink", "target": "/d"}
        entries[f"/d/l{i}"] = {"type": "symlink", "target": f"/d/x{i}/l{i + 1}"}
    spec = tmp_path / "evade.json"
    spec.write_text(json.dumps({"version": 1, "entries": entries}))
    code, _out, err = run("check", "--fs", spec, "/d/l0")
    assert code == 2 and "Traceback" not in err
    assert f"{spec}: entry '/d/l0': resolving it follows symlinks" in err
    assert "the limit is 256 in a chain" in err


def test_a_short_symlink_chain_still_loads(tmp_path) -> None:
    code, out, err = run("check", "--fs", _chain_spec(tmp_path, 200), "/d/l0")
    assert code in (0, 1), err
    assert "ALLOWED" in out or "REFUSED" in out


def test_a_20000_component_path_is_refused_at_load(tmp_path) -> None:
    spec = tmp_path / "deep.json"
    spec.write_text(json.dumps({"version": 1, "entries": {"/d" + "/a" * 20_000: {"type": "file"}}}))
    code, _out, err, peak = run_bounded("check", "--fs", spec, "/d")
    assert code == 2 and "Traceback" not in err
    assert "4096 bytes or more (Linux's PATH_MAX)" in err and str(spec) in err
    assert peak < MEMORY_BOUND


def test_a_deep_json_line_in_a_calls_file_names_the_line(tmp_path) -> None:
    calls = tmp_path / "calls.jsonl"
    calls.write_text(CALL + "\n" + "[" * 50_000 + "]" * 50_000 + "\n")
    code, out, err = run("probe", "--calls", calls)
    assert code == 2 and "Traceback" not in out + err
    assert f"{calls}:2: not valid JSON (nested deeper than {MAX_NESTING} levels)" in out + err


def test_a_huge_integer_literal_is_an_error_not_a_traceback(tmp_path) -> None:
    spec = tmp_path / "big.json"
    spec.write_text('{"version": ' + "9" * 10_000 + "}")
    code, _out, err = run("check", "--fs", spec, "/x")
    assert code == 2 and "Traceback" not in err and str(spec) in err


# ------------------------------------------------------------------------ NUL in .env


@pytest.mark.slow
@pytest.mark.real
def test_the_real_server_does_not_start_with_a_nul_byte_in_its_env(tmp_path) -> None:
    """The premise, checked on the shipped server: its import runs load_dotenv, which
    raises for a NUL byte (only its package's __init__ is needed to see it)."""
    real = pytest.importorskip("mcp_gee_sweet")
    package = tmp_path / "mcp_gee_sweet"
    package.mkdir()
    shutil.copy(Path(real.__file__), package / "__init__.py")
    (package / ".env").write_bytes(b"LOCAL_FILE_ACCESS=full\nLOG_FILE=/tmp/a\x00b\n")
    env = {k: v for k, v in os.environ.items() if k not in ("LOG_FILE", "LOCAL_FILE_ACCESS")}
    env["PYTHONPATH"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-c", "import mcp_gee_sweet"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "ValueError" in proc.stderr and "null" in proc.stderr


def test_validate_says_a_nul_byte_stops_the_server(tmp_path) -> None:
    env = tmp_path / ".env"
    env.write_bytes(b"LOCAL_FILE_ACCESS=full\nLOG_FILE=/tmp/a\x00b\n")
    code, _out, err = run("validate", "--env", env)
    assert code == 2
    assert "LOG_FILE contains a NUL byte" in err and "the server would not start" in err
    code, _out, err = run("validate", "--env", env, "--lenient")
    assert code == 2 and "would not start" in err


def test_a_nul_value_the_process_already_sets_is_not_loaded_from_the_file(tmp_path) -> None:
    env = tmp_path / ".env"
    env.write_bytes(b"LOCAL_FILE_ACCESS=full\nLOG_FILE=/tmp/a\x00b\n")
    # load_dotenv skips a key the process already has: the server then starts.
    code, _out, err = run("validate", "--env", env, "--set", "LOG_FILE=/tmp/log")
    assert code == 0, err


def test_export_env_refuses_a_nul_byte(tmp_path) -> None:
    env = tmp_path / ".env"
    env.write_bytes(b"LOCAL_FILE_ACCESS=full\nTOKEN_PATH=/tmp/a\x00b\n")
    out_file = tmp_path / "new.env"
    code, _out, err = run("export-env", "--env", env, "--set", "LOG_FILE=/tmp/l",
                          "-o", out_file)
    assert code == 2 and "NUL byte" in err and not out_file.exists()


# -------------------------------------------------------------- text and CSV output


FORGED = "/tmp/a\nALLOWED  read       /etc/shadow -> /etc/shadow\x1b[31m\x1b]0;owned\x07"


def test_a_newline_or_escape_in_a_path_cannot_forge_a_row_or_a_colour(tmp_path) -> None:
    paths = tmp_path / "paths.jsonl"
    paths.write_text(json.dumps(FORGED) + "\n")
    _code, out, err = run("check", "--paths-file", paths)
    lines = out.splitlines()
    assert lines[0].startswith("REFUSED") or lines[0].startswith("ALLOWED")
    assert not any(line.startswith("ALLOWED  read       /etc/shadow") for line in lines)
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "\\n" in lines[0] and "\\x1b[31m" in lines[0]


def test_control_characters_from_any_command_never_reach_the_terminal(tmp_path) -> None:
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"name": "upload_local_file",
                                 "arguments": {"local_path": FORGED}}) + "\n")
    for argv in (["probe", "--calls", calls], ["probe", "--calls", calls, "--json"],
                 ["probe", "--calls", calls, "--csv"]):
        _code, out, err = run(*argv)
        assert "\x1b" not in out + err and "\x07" not in out + err, argv
    _code, out, _err = run("probe", "--calls", calls, "--json")
    # JSON output still parses to the same value: escapes are valid JSON escapes.
    assert json.loads(out.splitlines()[0])["name"] == "upload_local_file"


@pytest.mark.parametrize("start", ["=", "+", "-", "@"])
def test_csv_cells_that_would_be_formulas_are_neutralised(tmp_path, start) -> None:
    bad = f"{start}HYPERLINK(\"http://127.0.0.1/\")"
    report = tmp_path / "r.csv"
    code, _out, err = run("report", f"--path={bad}", "-o", report)
    assert code == 0, err
    cells = [cell for row in report.read_text().splitlines()[1:] for cell in row.split(",")]
    assert all(not c.strip('"').startswith(start) for c in cells), cells
    assert any(c.strip('"').startswith("'" + start) for c in cells)
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"name": "upload_local_file",
                                 "arguments": {"local_path": bad,
                                               "parent_folder_id": "F"}}) + "\n")
    code, out, _err = run("probe", "--calls", calls, "--csv")
    assert "\\u000d" not in out  # CSV line ends pass untouched
    assert f",'{start}HYPERLINK" in out or f",\"'{start}HYPERLINK" in out, out
    assert f",{start}HYPERLINK" not in out and f',"{start}HYPERLINK' not in out


# ----------------------------------------------------------------------------- outputs


@pytest.mark.parametrize("flag", ["-o", "--junit-xml"])
def test_test_outputs_need_force_and_keep_the_old_file(tmp_path, flag) -> None:
    scenarios = tmp_path / "s.toml"
    scenarios.write_text('[[scenario]]\nname = "x"\nconfig = { host = "traps" }\n'
                         'policy = { mode = "off" }\n')
    target = tmp_path / ("out.json" if flag == "-o" else "junit.xml")
    target.write_text("precious\n")
    code, _out, err = run("test", scenarios, flag, target)
    assert code == 2 and "exists; pass --force" in err
    assert target.read_text() == "precious\n"
    code, _out, err = run("test", scenarios, flag, target, "--force")
    assert code in (0, 1), err
    assert target.read_text() != "precious\n"
    assert (tmp_path / (target.name + ".bak")).read_text() == "precious\n"


def test_report_output_needs_force_and_is_never_written_through_a_symlink(tmp_path) -> None:
    target = tmp_path / "r.json"
    target.write_text("precious\n")
    code, _out, err = run("report", "--path", "/x", "-o", target)
    assert code == 2 and "exists; pass --force" in err and target.read_text() == "precious\n"
    elsewhere = tmp_path / "victim"
    elsewhere.write_text("keep me\n")
    link = tmp_path / "link.json"
    link.symlink_to(elsewhere)
    code, _out, err = run("report", "--path", "/x", "-o", link, "--force")
    assert code == 2 and "symlink" in err and elsewhere.read_text() == "keep me\n"


def test_snapshot_never_follows_a_symlinked_output(tmp_path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    victim = tmp_path / "bashrc"
    victim.write_text("alias ls=ls\n")
    link = tmp_path / "spec.json"
    link.symlink_to(victim)
    for extra in ([], ["--force"]):
        code, _out, err = run("snapshot", tree, "-o", link, *extra)
        assert code == 2 and "symlink" in err
    assert victim.read_text() == "alias ls=ls\n" and link.is_symlink()


@pytest.mark.parametrize("command", [["probe", "--call", CALL], ["diff"]])
@pytest.mark.parametrize("value", ["0", "-5"])
def test_walk_limit_must_be_positive(command, value, capsys) -> None:
    code, _out, _err = run(*command, f"--walk-limit={value}")
    assert code == 2 and "must be at least 1" in capsys.readouterr().err


# ------------------------------------------------------------- secrets, interpolated

SECRET = "s3cr3t-oauth-client"


@pytest.fixture
def interpolated_env(tmp_path) -> Path:
    env = tmp_path / ".env"
    env.write_text("LOCAL_FILE_ACCESS=roots\n"
                   f'CREDENTIALS_CONFIG={{"installed":"{SECRET}"}}\n'
                   "LOCAL_FILE_ROOTS=/tmp/${CREDENTIALS_CONFIG}\n")
    return env


def test_a_secret_interpolated_into_a_setting_is_masked_in_every_command(
        interpolated_env, tmp_path) -> None:
    env = interpolated_env
    commands = [
        ["validate", "--env", env], ["validate", "--env", env, "--json"],
        ["check", "--env", env, "/tmp/x"], ["auth-status", "--env", env],
        ["tools", "--env", env, "--json"], ["diff", "--before-env", env],
        ["probe", "--env", env, "--call", CALL, "--json"],
    ]
    for argv in commands:
        _code, out, err = run(*argv)
        assert SECRET not in out + err and '{"installed"' not in out + err, argv
    _code, out, _err = run("validate", "--env", env)
    assert f"/tmp/{MASK}" in out
    reports = [tmp_path / f"r.{s}" for s in ("html", "csv", "json")]
    code, _out, err = run("report", "--env", env, "--path", "/tmp/x",
                          *[a for r in reports for a in ("-o", r)])
    assert code == 0, err
    for report in reports:
        assert SECRET not in report.read_text(), report


# --------------------------------------------------------------------------- hints


@pytest.mark.parametrize(("path", "words"), [
    ("/x", "a root of / exposes every file"),
    ("/etc/hostname", "/etc holds system configuration"),
    ("{home}/notes.txt", "is the home directory, and every credential folder"),
    ("{home}/.ssh/known_hosts", "is ~/.ssh: SSH private keys"),
    ("{home}/.config/gcloud/x.json", "is ~/.config/gcloud"),
])
def test_hints_say_what_a_broad_root_would_expose(tmp_path, path, words) -> None:
    home = tmp_path / "home"
    (tmp_path / "shared").mkdir()
    env = tmp_path / ".env"
    env.write_text(f"LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={tmp_path / 'shared'}\n"
                   f"HOME={home}\n")
    _code, out, _err = run("check", "--env", env, path.format(home=home))
    hint = next(line for line in out.splitlines() if "hint:" in line)
    assert words in hint and "prefer a narrower directory" in hint, hint


def test_an_ordinary_directory_gets_the_plain_hint(tmp_path) -> None:
    env = tmp_path / ".env"
    env.write_text(f"LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={tmp_path / 'a'}\n"
                   f"HOME={tmp_path / 'home'}\n")
    (tmp_path / "a").mkdir()
    (tmp_path / "data").mkdir()
    _code, out, _err = run("check", "--env", env, tmp_path / "data" / "f.csv")
    assert f"hint:    Add {tmp_path / 'data'} to LOCAL_FILE_ROOTS" in out


# ------------------------------------------------------------------------------ serve


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.3.4.5", True), ("::1", True), ("[::1]", True),
    ("localhost", True), ("::ffff:127.0.0.1", True),
    ("127.evil.example", False), ("127.0.0.1.nip.io", False), ("0.0.0.0", False),
    ("::", False), ("10.0.0.1", False), ("127.1", False), ("2130706433", False),
])
def test_loopback_is_decided_from_the_address_not_its_spelling(host, loopback) -> None:
    assert is_loopback(host) is loopback


def test_a_name_that_looks_loopback_keeps_host_files_off(monkeypatch) -> None:
    import socket

    def no_lookups(*_a: object, **_k: object) -> None:
        raise AssertionError("is_loopback must not look names up")

    monkeypatch.setattr(socket, "getaddrinfo", no_lookups)
    plan = plan_serve(host="127.evil.example", token=False)
    try:
        assert not plan.host_fs
    finally:
        from localfs_explorer.cli.serve import cleanup_plan

        cleanup_plan(plan)


def test_serve_makes_a_token_kept_out_of_the_command_line() -> None:
    from localfs_explorer.cli.serve import cleanup_plan

    plan = plan_serve(port=8899, open_browser=False)
    try:
        assert plan.token and "?token=" in plan.url
        token = plan.url.split("?token=", 1)[1]
        assert len(token) >= 32 and not any(token in arg for arg in plan.argv)
        config_dir = Path(plan.cwd)
        assert f"--Voila.config_file_paths={config_dir}" in plan.argv
        assert stat.S_IMODE(config_dir.stat().st_mode) == 0o700
        assert json.loads((config_dir / "voila.json").read_text()) == {
            "Voila": {"token": token}}
    finally:
        cleanup_plan(plan)
    assert not config_dir.exists()
    other = plan_serve(port=8899, open_browser=False)
    try:
        assert other.url != plan.url  # a new token each time
    finally:
        cleanup_plan(other)


def test_no_token_serves_without_one() -> None:
    plan = plan_serve(port=8899, token=False)
    assert not plan.token and "token" not in plan.url
    assert not (Path(plan.cwd) / "voila.json").exists()
    assert "JUPYTER_CONFIG_PATH" not in plan.env or not any(
        (Path(p) / "voila.json").exists() and "localfs-explorer-voila" in p
        for p in plan.env["JUPYTER_CONFIG_PATH"].split(os.pathsep))


def test_serve_options_reach_the_page(monkeypatch, tmp_path) -> None:
    from localfs_explorer.cli import serve

    seen: dict[str, object] = {}
    monkeypatch.setattr(serve, "_check_voila", lambda: None)
    monkeypatch.setattr(serve, "run_plan", lambda plan, out, err: seen.update(plan=plan) or 0)
    assert serve.main(["--no-token", "--allow-any-output-name", "--no-browser"]) == 0
    plan = seen["plan"]
    assert not plan.token and plan.env[serve.ANY_OUTPUT_NAME_ENV] == "1"
    serve.cleanup_plan(plan)
    assert serve.main(["--no-browser"]) == 0
    plan = seen["plan"]
    assert plan.token and plan.env[serve.ANY_OUTPUT_NAME_ENV] == "0"
    serve.cleanup_plan(plan)


# ------------------------------------------------------------ the page's model (exposed)

MARKER = "MARKER_KEY_ONLY_IN_THE_FILE"


@pytest.fixture
def marker_file(tmp_path) -> Path:
    """A file of the serving machine the page must never read (its key names leak)."""
    path = tmp_path / "private.json"
    path.write_text(json.dumps({"server": {MARKER: 1}, "answers": [[{MARKER: 1}]]}))
    return path


def exposed_model(**options: object):
    from localfs_explorer.ui import ExplorerModel

    return ExplorerModel(host_access=False, debounce=0, target="example:traps", **options)


def test_a_json_string_in_the_access_lists_box_is_content_not_a_path(marker_file) -> None:
    model = exposed_model(tool_args_text=json.dumps({"local_path": "/data/tok"}),
                          tool_name="upload_local_file")
    model.access_text = json.dumps(str(marker_file))
    assert "tool access lists: expected a JSON object, not str" in model.call_error
    assert MARKER not in model.call_error
    model.access_text = "[" * 100_000
    assert f"nested deeper than {MAX_NESTING} levels" in model.call_error


def test_a_json_string_in_the_session_box_is_content_not_a_path(marker_file) -> None:
    from localfs_explorer.ui import Explorer

    app = Explorer(exposed_model(), lazy=False)
    session = app.panel("session")
    session.text.value = json.dumps(str(marker_file))
    assert "session: expected a JSON object or a JSON list, not str" in session.status.value
    assert MARKER not in session.status.value


def test_the_scenario_and_compare_panels_take_access_text_as_content(marker_file) -> None:
    from localfs_explorer.ui import Explorer
    from localfs_explorer.ui.inputs import ExplorerError

    app = Explorer(exposed_model(), lazy=False)
    app.model.access_text = json.dumps(str(marker_file))
    with pytest.raises(ExplorerError, match="expected a JSON object, not str"):
        app.panel("scenarios").current_config()
    compare = app.panel("compare")
    with pytest.raises(Exception, match="expected a JSON object, not str") as caught:
        compare._access()
    assert MARKER not in str(caught.value)


def test_an_uploaded_host_spec_that_is_a_string_is_refused(marker_file) -> None:
    model = exposed_model()
    model.load_spec_upload("host.json", json.dumps(str(marker_file)).encode())
    assert "expected a JSON object, not str" in model.config_error
    assert MARKER not in model.config_error


def test_uploads_past_the_size_limit_are_refused() -> None:
    from localfs_explorer.ui.inputs import ExplorerError

    model = exposed_model()
    huge = b" " * (MAX_FILE_BYTES + 1)
    for load in (model.load_env_upload, model.load_spec_upload, model.load_batch_upload):
        with pytest.raises(ExplorerError, match="larger than the 16 MiB limit"):
            load("big", huge)


def test_exposed_the_batch_path_and_env_path_read_nothing(marker_file) -> None:
    model = exposed_model()
    model.load_batch_path(str(marker_file))
    assert "upload the calls instead" in model.batch_error
    model.load_env_path(str(marker_file))
    assert "upload the file instead" in model.config_error and MARKER not in model.config_error


ENV_WITH_SECRET = f'LOCAL_FILE_ACCESS=full\nCREDENTIALS_CONFIG={{"installed":"{SECRET}"}}\n'


def test_exposed_export_of_the_operators_env_offers_no_download() -> None:
    model = exposed_model(env_text=ENV_WITH_SECRET, env_name=".env", env_from_operator=True)
    data, note = model.download_text()
    assert data is None and "holds secret values" in note and SECRET not in note


def test_exposed_export_keeps_secrets_as_in_the_visitors_own_file() -> None:
    model = exposed_model(overrides=[("CREDENTIALS_CONFIG", "operator-secret-value"),
                                     ("LOG_FILE", "/tmp/server.log")])
    model.load_env_upload(".env", ENV_WITH_SECRET.encode())
    data, note = model.download_text()
    assert data is not None
    text = data.decode()
    assert "operator-secret-value" not in text and SECRET in text  # the visitor's own
    assert "LOG_FILE=/tmp/server.log" in text
    assert "left as they are in the source" in note and "CREDENTIALS_CONFIG" in note
    # On the operator's own machine the file is handed over whole.
    own = exposed_model(overrides=[("LOG_FILE", "/tmp/server.log")])
    own.host_access = True
    own.load_env_upload(".env", ENV_WITH_SECRET.encode())
    data, note = own.download_text()
    assert data is not None and note == ""


@pytest.mark.parametrize(("name", "allowed"), [
    (".env", True), ("prod.env", True), (".env.local", True),
    (".bashrc", False), ("authorized_keys", False), ("env", False), ("x.envy", False),
])
def test_the_page_writes_only_env_looking_names(tmp_path, name, allowed) -> None:
    from localfs_explorer.ui import ExplorerModel
    from localfs_explorer.ui.inputs import ExplorerError

    model = ExplorerModel(debounce=0, env_text="LOCAL_FILE_ACCESS=full\n", env_name=".env",
                          host_access=True, any_output_name=False)
    dest = tmp_path / name
    if allowed:
        model.write_export(str(dest))
        assert dest.exists()
    else:
        with pytest.raises(ExplorerError, match=r"only files named like a \.env"):
            model.write_export(str(dest))
        assert not dest.exists()
        ExplorerModel(debounce=0, env_text="LOCAL_FILE_ACCESS=full\n", host_access=True,
                      any_output_name=True).write_export(str(dest))
        assert dest.exists()


def test_the_serve_option_lets_any_name_through(monkeypatch) -> None:
    from localfs_explorer.cli.serve import ANY_OUTPUT_NAME_ENV
    from localfs_explorer.ui import ExplorerModel

    monkeypatch.setenv(ANY_OUTPUT_NAME_ENV, "1")
    assert ExplorerModel(debounce=0).any_output_name
    monkeypatch.setenv(ANY_OUTPUT_NAME_ENV, "0")
    assert not ExplorerModel(debounce=0).any_output_name


def _widget_strings(root) -> list[str]:
    found = []
    stack = [root]
    while stack:
        widget = stack.pop()
        value = getattr(widget, "value", None)
        if isinstance(value, str):
            found.append(value)
        for name in ("placeholder", "description", "tooltip"):
            extra = getattr(widget, name, None)
            if isinstance(extra, str):
                found.append(extra)
        stack.extend(getattr(widget, "children", ()) or ())
    return found


def test_a_preloaded_secret_override_never_reaches_a_widget() -> None:
    from localfs_explorer.ui import Explorer

    app = Explorer(exposed_model(overrides=[("API_TOKEN", "tok-preloaded-9d2e"),
                                            ("LOG_FILE", "/tmp/log")]), lazy=False)
    editor = app.panel("server").overrides
    assert not any("tok-preloaded-9d2e" in s for s in _widget_strings(app))
    key_w, value_w, _remove = editor._rows[0]
    assert value_w.value == "" and MASK in value_w.placeholder
    assert app.model.overrides[0] == ("API_TOKEN", "tok-preloaded-9d2e")  # kept, in use
    key_w.value = "LOG_LEVEL"  # renamed to a shown key: the kept value is dropped
    assert not any("tok-preloaded-9d2e" in s for s in _widget_strings(app))
    assert ("LOG_LEVEL", "") in app.model.overrides


def test_a_secret_interpolated_into_a_root_is_masked_in_every_widget() -> None:
    from localfs_explorer.ui import Explorer

    text = ("LOCAL_FILE_ACCESS=roots\nCREDENTIALS_CONFIG=interp-secret-77\n"
            "LOCAL_FILE_ROOTS=/data/${CREDENTIALS_CONFIG}\n")
    app = Explorer(exposed_model(env_text=text, env_name=".env",
                                 paths_text="/data/interp-secret-77/x"), lazy=False)
    strings = _widget_strings(app)
    assert any(f"/data/{MASK}" in s for s in strings)
    leaked = [s for s in strings if "interp-secret-77" in s and s != app.model.paths_text]
    assert leaked == []


def test_the_example_target_takes_only_shipped_names(marker_file) -> None:
    model = exposed_model()
    model.target = f"example:{marker_file}"
    assert model.config_error == f"no example host named {str(marker_file)!r}"
    assert MARKER not in model.config_error


def test_an_upload_past_the_limit_is_refused_by_every_upload_box(monkeypatch) -> None:
    from ui_support import upload_value

    import localfs_explorer.ui.panel as panel_module
    from localfs_explorer.ui import Explorer

    monkeypatch.setattr(panel_module, "MAX_FILE_BYTES", 1000)
    app = Explorer(exposed_model(), lazy=False)
    for name in ("session", "scenarios", "batch"):
        panel = app.panel(name)
        panel.upload.value = upload_value("big.json", b"[" * 1001)
        assert "big.json: larger than the 1000 bytes limit; refused" in app.model.last_error
        app.model.last_error = ""


def test_the_export_panel_says_what_an_exposed_download_leaves_out() -> None:
    from localfs_explorer.ui import Explorer

    exposed = Explorer(exposed_model(), lazy=False).panel("export")
    assert "No secret this page holds leaves it" in "".join(_widget_strings(exposed))
    own = exposed_model()
    own.host_access = True
    assert "No secret this page holds" not in "".join(
        _widget_strings(Explorer(own, lazy=False).panel("export")))


def test_serving_without_a_token_warns_and_prints_no_token(monkeypatch) -> None:
    from localfs_explorer.cli import serve

    class FakeVoila:
        def __init__(self, argv: list[str], env: dict[str, str], cwd: str | None) -> None:
            self.argv = argv

        def wait(self, timeout: float | None = None) -> int:
            return 0

        def poll(self) -> int:
            return 0

    monkeypatch.setattr(serve.subprocess, "Popen", FakeVoila)
    plan = serve.plan_serve(host="0.0.0.0", token=False, open_browser=False)
    out, err = io.StringIO(), io.StringIO()
    assert serve.run_plan(plan, out, err) == 0
    assert "--no-token: anyone who can reach the port can use the page" in err.getvalue()
    assert "token" not in out.getvalue()
    plan = serve.plan_serve(token=True, open_browser=False)
    out, err = io.StringIO(), io.StringIO()
    serve.run_plan(plan, out, err)
    assert out.getvalue().count("?token=") == 1 and "--no-token" not in err.getvalue()


def test_report_downloads_in_the_page_mask_an_interpolated_secret() -> None:
    import base64
    import re

    from localfs_explorer.ui import Explorer, render

    text = ("LOCAL_FILE_ACCESS=roots\nCREDENTIALS_CONFIG=dl-secret-4411\n"
            "LOCAL_FILE_ROOTS=/data/${CREDENTIALS_CONFIG}\n")
    Explorer(exposed_model(env_text=text, env_name=".env"), lazy=False)
    link = render.download_link(b"path,/data/dl-secret-4411/x\n", "r.csv", "text/csv",
                                "CSV", "c")
    data = base64.b64decode(re.search(r"base64,([^\"]+)", link).group(1))
    assert b"dl-secret-4411" not in data and MASK.encode() in data
    raw = render.download_link(b"K=dl-secret-4411\n", ".env", "text/plain", "env", "e",
                               mask_secrets=False)
    assert b"dl-secret-4411" in base64.b64decode(re.search(r"base64,([^\"]+)", raw).group(1))
