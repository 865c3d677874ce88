"""Secrets in every file and view the tool writes, and the files themselves.

Each test is one case an attacker or a careless operator would try: a secret interpolated
into a root reaching a SARIF or JUnit file, a secret recovered through a spelling the tool
derives from it (upper case, a normalised path, a path component), a secret setting whose
name merely contains FILE, report files written through symlinks or over a file, an
export readable by everyone, a carriage return forging a CSV row.
"""

from __future__ import annotations

import csv
import io
import json
import os
import stat
from pathlib import Path

import pytest
from conftest import run_cli

from localfs_explorer.secrets import MASK, is_secret_key

# Serve plans and scratch files stay in the test's folder.
pytestmark = pytest.mark.usefixtures("scratch_tempdir")

TOKEN = "tok-Abc123xyzQ"


def _leaks(text: str, secret: str) -> bool:
    """Whether ``text`` holds ``secret`` in any case."""
    return secret.casefold() in text.casefold()


# ------------------------------------------------ secrets in files that skipped masking


@pytest.fixture
def interpolated(tmp_path: Path) -> dict[str, Path]:
    """A before .env (off) and an after .env whose root interpolates a secret."""
    (tmp_path / "data" / TOKEN).mkdir(parents=True)
    before = tmp_path / "before.env"
    before.write_text("LOCAL_FILE_ACCESS=off\n")
    after = tmp_path / "after.env"
    after.write_text(f"API_TOKEN={TOKEN}\nLOCAL_FILE_ACCESS=roots\n"
                     f"LOCAL_FILE_ROOTS={tmp_path}/data/${{API_TOKEN}}\n")
    broken = tmp_path / "broken.env"
    broken.write_text(f"API_TOKEN={TOKEN}\nLOCAL_FILE_ACCESS=roots\n"
                      f"LOCAL_FILE_ROOTS={tmp_path}/data/${{API_TOKEN}},/x/${{API_TOKEN}}\n")
    return {"before": before, "after": after, "broken": broken}


def test_diff_sarif_and_junit_mask_an_interpolated_secret(interpolated, tmp_path) -> None:
    sarif, junit = tmp_path / "d.sarif", tmp_path / "d.xml"
    reports = [tmp_path / f"d.{suffix}" for suffix in ("json", "csv", "html")]
    code, out, err = run_cli("diff", "--before-env", interpolated["before"],
                             "--after-env", interpolated["after"], "--sarif", sarif,
                             "--junit-xml", junit, *[a for r in reports for a in ("-o", r)])
    assert code == 1, err  # new access
    assert not _leaks(out + err, TOKEN)
    for path in (sarif, junit, *reports):
        text = path.read_text(encoding="utf-8")
        assert not _leaks(text, TOKEN), path.name
        assert MASK in text, path.name
    assert json.loads(sarif.read_text())["runs"][0]["results"]


def test_validate_sarif_masks_an_interpolated_secret(interpolated, tmp_path) -> None:
    sarif = tmp_path / "v.sarif"
    code, out, err = run_cli("validate", "--env", interpolated["broken"], "--sarif", sarif)
    assert code == 2, err  # /x/<token> isn't a directory: the server would exit
    text = sarif.read_text(encoding="utf-8")
    assert not _leaks(text + out + err, TOKEN)
    assert f"/x/{MASK}" in text


def test_exposure_and_report_files_mask_an_interpolated_secret(interpolated, tmp_path) -> None:
    after = interpolated["after"]
    (tmp_path / "data" / TOKEN / "notes.txt").write_text("x\n")
    files = [tmp_path / f"e.{suffix}" for suffix in ("json", "csv", "html")]
    code, _out, err = run_cli("exposure", "--env", after, *[a for f in files
                                                            for a in ("--report", f)])
    assert code in (0, 1), err
    reports = [tmp_path / f"r.{suffix}" for suffix in ("json", "csv", "html")]
    code, _out, err = run_cli("report", "--env", after, "--path",
                              f"{tmp_path}/data/{TOKEN.upper()}/x",
                              *[a for r in reports for a in ("-o", r)])
    assert code == 0, err
    for path in (*files, *reports):
        assert not _leaks(path.read_text(encoding="utf-8"), TOKEN), path.name


# ------------------------------------------------------ spellings derived from a secret


def test_case_variant_probes_never_spell_a_secret(tmp_path) -> None:
    secret = "pw-Hunter2xyz"
    before = tmp_path / "before.env"
    before.write_text("LOCAL_FILE_ACCESS=full\n")
    after = tmp_path / "after.env"
    after.write_text("LOCAL_FILE_ACCESS=full\nTOKEN_PATH=/app/${DB_PASSWORD}.json\n")
    for argv in (["diff", "--before-env", before, "--after-env", after,
                  "--set", f"DB_PASSWORD={secret}"],
                 ["diff", "--before-env", before, "--after-env", after,
                  "--set", f"DB_PASSWORD={secret}", "--json", "--show-unchanged"]):
        _code, out, err = run_cli(*argv)
        assert "case variant" in out, out[-2000:]
        assert not _leaks(out + err, secret), argv
    # The variant is still asked: it is shown masked.
    _code, out, _err = run_cli("diff", "--before-env", before, "--after-env", after,
                               "--set", f"DB_PASSWORD={secret}")
    assert f"/app/{MASK}.JSON" in out


def test_a_case_variant_of_a_secrets_last_component_is_hidden(tmp_path) -> None:
    from localfs_explorer.secrets import scrub

    env = tmp_path / ".env"
    env.write_text("LOCAL_FILE_ACCESS=full\nTOKEN_PATH=/app/${DB_PASSWORD}.json\n")
    _code, out, err = run_cli("diff", "--before-env", env, "--after-env", env,
                              "--set", "DB_PASSWORD=q/shortpw", "--show-unchanged", "--json")
    assert "case variant" in out
    assert not _leaks(out + err, "shortpw")
    # A view that shows the last component alone, in another case.
    assert scrub("file SHORTPW.JSON", {"q/shortpw"}) == f"file {MASK}.JSON"


def test_a_secret_holding_slashes_stays_hidden_once_normalised(tmp_path) -> None:
    secret = "ab12//cd34efgh/"
    (tmp_path / "ab12" / "cd34efgh").mkdir(parents=True)
    env = tmp_path / ".env"
    env.write_text(f"API_TOKEN={secret}\nLOCAL_FILE_ACCESS=roots\n"
                   f"LOCAL_FILE_ROOTS={tmp_path}/${{API_TOKEN}}\n")
    for argv in (["validate", "--env", env], ["validate", "--env", env, "--json"],
                 ["check", "--env", env, f"{tmp_path}/ab12/cd34efgh/x"]):
        _code, out, err = run_cli(*argv)
        assert "cd34efgh" not in out + err, argv
        assert "ab12/" not in out + err, argv
    _code, out, _err = run_cli("validate", "--env", env)
    assert f"{tmp_path}/{MASK}" in out


def test_a_secret_split_into_two_roots_is_hidden_in_both(tmp_path) -> None:
    env = tmp_path / ".env"
    env.write_text("API_TOKEN=pieceOne1,/pieceTwo2\nLOCAL_FILE_ACCESS=roots\n"
                   f"LOCAL_FILE_ROOTS={tmp_path}/${{API_TOKEN}}\n")
    for argv in (["validate", "--env", env], ["validate", "--env", env, "--json"]):
        _code, out, err = run_cli(*argv)
        assert "LOCAL_FILE_ROOTS" in out + err
        assert not _leaks(out + err, "pieceOne1") and not _leaks(out + err, "pieceTwo2")


def test_scrub_hides_every_spelling_the_tool_derives() -> None:
    from localfs_explorer.secrets import scrub

    secret = "Ab12//Cd34Efgh/"
    for derived in ("AB12//CD34EFGH/", "ab12/cd34efgh", "/x/Ab12/Cd34Efgh", "Ab12",
                    "CD34EFGH.JSON", "\"Ab12/Cd34Efgh\""):
        shown = scrub(f"see {derived} here", {secret})
        assert "ab12" not in shown.casefold() and "cd34efgh" not in shown.casefold(), derived
        assert shown.startswith("see ") and shown.endswith(" here")
    # An OAuth client's JSON holds common words in its URLs: they are not masked alone.
    client = json.dumps({"installed": {"auth_uri": "https://accounts.example/o/oauth2/auth",
                                       "token_uri": "https://oauth2.example/token"}})
    assert scrub("auth-status TOKEN_PATH token", {client}) == "auth-status TOKEN_PATH token"


def test_the_grid_masks_a_secret_split_into_short_components() -> None:
    from localfs_explorer.secrets import hide_everywhere
    from localfs_explorer.ui.grid import path_cell

    hide_everywhere(["zq12/yx34"])
    cell = path_cell("/data/zq12/yx34/file.txt")
    assert "zq12" not in cell and "yx34" not in cell and MASK in cell
    assert "file.txt" in cell


def test_the_compare_tab_never_shows_a_case_variant_of_a_secret() -> None:
    from test_security import _widget_strings, exposed_model

    from localfs_explorer.ui import Explorer

    secret = "pw-Cmp4reSecret"
    model = exposed_model(env_text="LOCAL_FILE_ACCESS=full\n"
                                   "TOKEN_PATH=/data/${DB_PASSWORD}.json\n",
                          env_name=".env", overrides=[("DB_PASSWORD", secret)])
    app = Explorer(model, lazy=False)
    compare = app.panel("compare")
    compare.changes.value = "LOCAL_FILE_ACCESS=off"
    compare.compare()
    strings = _widget_strings(compare)
    assert any("case variant" in s for s in strings)
    assert not any(_leaks(s, secret) for s in strings)
    # Everything synced to the browser, the grid's rows included.
    states, stack = [], [app]
    while stack:
        widget = stack.pop()
        states.append(widget.get_state())
        stack.extend(getattr(widget, "children", ()) or ())
    synced = json.dumps(states, default=str, ensure_ascii=False)
    assert "case variant" in synced and f"{MASK}.JSON" in synced  # asked, masked
    assert not _leaks(synced, secret)


# --------------------------------------------------------- secret settings by substring

NAMED = ["PROFILE_TOKEN", "SSL_KEYFILE_PASSWORD", "FILESTACK_API_KEY", "PASSWD",
         "DATABASE_URL", "SENTRY_DSN", "GITHUB_CREDENTIALS"]


@pytest.mark.parametrize("name", NAMED)
def test_a_secret_name_holding_file_is_still_secret(name) -> None:
    assert is_secret_key(name)


@pytest.mark.parametrize("name", ["TOKEN_PATH", "KEY_FILE", "SSL_KEYFILE", "LOG_FILE",
                                  "LOCAL_FILE_ROOTS", "GOOGLE_APPLICATION_CREDENTIALS",
                                  "AWS_PROFILE", "CACHE_DB_PATH"])
def test_locations_stay_shown(name) -> None:
    assert not is_secret_key(name)


@pytest.mark.parametrize("name", NAMED)
def test_export_env_dry_run_masks_secrets_named_with_file(name, tmp_path) -> None:
    value = f"v4lue-{name.lower()}-9"
    env = tmp_path / ".env"
    env.write_text(f"{name}=old-{value}\nLOCAL_FILE_ACCESS=off\n")
    code, out, err = run_cli("export-env", "--env", env, "--set", f"{name}={value}",
                             "--dry-run")
    assert code == 0, err
    assert value not in out + err and f"old-{value}" not in out + err
    assert f"{name}={MASK}" in out


def test_a_connection_string_with_a_password_is_hidden_by_its_value(tmp_path) -> None:
    env = tmp_path / ".env"
    env.write_text("LOCAL_FILE_ACCESS=off\n")
    code, out, err = run_cli("export-env", "--env", env, "--set",
                             "REDIS_URL=redis://app:rEd1sPassw0rd@127.0.0.1/0", "--dry-run")
    assert code == 0, err
    assert "rEd1sPassw0rd" not in out + err


@pytest.mark.parametrize("name", NAMED)
def test_an_exposed_page_sends_no_secret_named_with_file(name) -> None:
    from test_security import _widget_strings, exposed_model

    from localfs_explorer.ui import Explorer

    preset, uploaded = f"pre-{name.lower()}-77", f"up-{name.lower()}-88"
    app = Explorer(exposed_model(overrides=[(name, preset)],
                                 env_text=f"LOCAL_FILE_ACCESS=off\n{name}={uploaded}\n",
                                 env_name=".env"), lazy=False)
    strings = _widget_strings(app)
    assert not any(preset in s for s in strings), name
    assert not any(uploaded in s for s in strings), name
    assert app.model.overrides[0] == (name, preset)  # kept, in use


# ------------------------------------------------------------------------ files written

WRITERS = {
    "diff --sarif": lambda env, out: ["diff", "--before-env", env, "--sarif", out],
    "diff --junit-xml": lambda env, out: ["diff", "--before-env", env, "--junit-xml", out],
    "validate --sarif": lambda env, out: ["validate", "--env", env, "--sarif", out],
}


@pytest.mark.parametrize("writer", list(WRITERS))
def test_report_writers_need_force_keep_a_backup_and_never_follow_links(writer,
                                                                        tmp_path) -> None:
    env = tmp_path / ".env"
    env.write_text("LOCAL_FILE_ACCESS=off\n")
    target = tmp_path / "out.file"
    target.write_text("precious\n")
    code, _out, err = run_cli(*WRITERS[writer](env, target))
    assert code == 2 and "exists; pass --force" in err, err
    assert target.read_text() == "precious\n"
    code, _out, err = run_cli(*WRITERS[writer](env, target), "--force")
    assert code in (0, 1), err
    assert target.read_text() != "precious\n"
    assert (tmp_path / "out.file.bak").read_text() == "precious\n"
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    link = tmp_path / "link.out"
    link.symlink_to(victim)
    for extra in ([], ["--force"]):
        code, _out, err = run_cli(*WRITERS[writer](env, link), *extra)
        assert code == 2 and "symlink" in err, err
    assert victim.read_text() == "keep me\n" and link.is_symlink()


SECRET_ENV = "LOCAL_FILE_ACCESS=off\nCREDENTIALS_CONFIG={\"installed\": 1}\n"


def test_an_export_of_stdin_is_private(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    os.umask(0o022)
    out = tmp_path / "out.env"
    code, _out, err = run_cli("export-env", "--env", "-", "--set", "LOG_LEVEL=INFO",
                              "-o", out, stdin=SECRET_ENV)
    assert code == 0, err
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert "CREDENTIALS_CONFIG" in out.read_text()


def test_an_export_of_an_upload_is_private_whatever_shares_its_name(tmp_path,
                                                                    monkeypatch) -> None:
    from localfs_explorer.ui import ExplorerModel

    # A world-readable file in the kernel's directory with the uploaded file's name: its
    # mode says nothing about the upload.
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("UNRELATED=1\n")
    (tmp_path / ".env").chmod(0o644)
    model = ExplorerModel(debounce=0, env_text=SECRET_ENV, env_name=".env",
                          overrides=[("LOG_LEVEL", "INFO")])
    dest = tmp_path / "deploy.env"
    model.write_export(str(dest))
    assert stat.S_IMODE(dest.stat().st_mode) == 0o600
    assert "CREDENTIALS_CONFIG" in dest.read_text()


def test_a_source_stricter_than_0600_keeps_its_mode(tmp_path) -> None:
    from localfs_explorer.envfile.export import export_env

    source = tmp_path / "strict.env"
    source.write_text(SECRET_ENV)
    source.chmod(0o400)
    dest = tmp_path / "out.env"
    export_env(source, set={"LOG_LEVEL": "INFO"}).write(dest)
    assert stat.S_IMODE(dest.stat().st_mode) == 0o400


FORGED = "/tmp/a\r=HYPERLINK(\"http://127.0.0.1/\")\u2028@SUM(1)\x0b+x\x85-y"


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def _check_csv(text: str, forged_cells: int = 1) -> None:
    """No line break of any kind inside a cell, no cell a spreadsheet runs as a formula."""
    assert "\r" not in text and "\u2028" not in text and "\x0b" not in text
    assert "\x85" not in text
    lines = text.split("\n")
    assert all(not line.startswith(("=", "+", "-", "@")) for line in lines), lines
    rows = _rows(text)
    assert len({len(row) for row in rows if row}) == 1, rows  # every row as wide
    cells = [cell for row in rows for cell in row]
    assert sum("HYPERLINK" in cell for cell in cells) >= forged_cells
    assert all(not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells)


def test_report_csv_keeps_a_bare_cr_inside_its_cell(tmp_path) -> None:
    out = tmp_path / "r.csv"
    code, _out, err = run_cli("report", f"--path={FORGED}", "-o", out)
    assert code == 0, err
    _check_csv(out.read_text(encoding="utf-8"))
    # A tool name carrying one, from a calls file.
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"name": "x" + FORGED,
                                 "arguments": {"local_path": "/tmp/x"}}) + "\n")
    tools = tmp_path / "t.csv"
    _code, _out, err = run_cli("report", "--calls", calls, "-o", tools)
    assert tools.exists(), err
    _check_csv(tools.read_text(encoding="utf-8"))


def test_probe_csv_keeps_a_bare_cr_in_a_tool_name_inside_its_cell(tmp_path) -> None:
    calls = tmp_path / "calls.jsonl"
    calls.write_text(json.dumps({"name": "x" + FORGED,
                                 "arguments": {"local_path": FORGED}}) + "\n")
    _code, out, _err = run_cli("probe", "--calls", calls, "--csv")
    # Rows end in CRLF here (as csv's default); a bare CR would be escaped by the output
    # stream, so undo that to see what the CSV writer itself produced.
    _check_csv(out.replace("\r\n", "\n").replace("\\u000d", "\r"), forged_cells=2)


def test_exposure_csv_keeps_odd_file_names_inside_their_cells(tmp_path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    name = "id_a\r=HYPERLINK(1)\u2028@x\x85-y"  # a credential name: a finding
    (root / name).write_text("SECRET=1\n")
    env = tmp_path / "deploy.env"
    env.write_text(f"LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={root}\n")
    out = tmp_path / "e.csv"
    code, stdout, err = run_cli("exposure", "--env", env, "--report", out)
    assert code in (0, 1), err
    _check_csv(out.read_text(encoding="utf-8"))
    code, stdout, err = run_cli("exposure", "--env", env, "--csv")
    _check_csv(stdout.replace("\\u000d", "\r").replace("\\u0085", "\x85"))


def test_the_dashboards_csv_downloads_keep_a_bare_cr_inside_its_cell(tmp_path) -> None:
    import base64
    import re

    from localfs_explorer.ui import Explorer, ExplorerModel

    model = ExplorerModel(debounce=0, batch_text=json.dumps(
        {"name": "x" + FORGED, "arguments": {"local_path": FORGED}}) + "\n")
    _check_csv(model.batch_csv().decode("utf-8").replace("\r\n", "\n"), forged_cells=2)
    root = tmp_path / "root"
    root.mkdir()
    (root / "id_a\r=HYPERLINK(1)\u2028@x").write_text("SECRET=1\n")
    model = ExplorerModel(debounce=0, overrides=[("LOCAL_FILE_ACCESS", "roots"),
                                                 ("LOCAL_FILE_ROOTS", str(root))])
    app = Explorer(model, lazy=False)
    panel = app.panel("exposure")
    panel.start(wait=True)
    link = panel.csv.value
    data = base64.b64decode(re.search(r"base64,([^\"]+)", link).group(1)).decode("utf-8")
    _check_csv(data)


def test_a_saved_host_spec_needs_force_and_never_follows_a_link(tmp_path) -> None:
    from localfs_explorer.fs.snapshot import snapshot
    from localfs_explorer.fs.spec import HostSpecError

    tree = tmp_path / "tree"
    tree.mkdir()
    shot = snapshot(tree)
    target = tmp_path / "spec.json"
    target.write_text("precious\n")
    with pytest.raises(HostSpecError, match="exists; pass --force"):
        shot.write(target)
    assert target.read_text() == "precious\n"
    shot.write(target, force=True)
    assert json.loads(target.read_text())["entries"]
    assert (tmp_path / "spec.json.bak").read_text() == "precious\n"
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    link = tmp_path / "link.json"
    link.symlink_to(victim)
    with pytest.raises(HostSpecError, match="symlink"):
        shot.write(link, force=True)
    assert victim.read_text() == "keep me\n"
