"""The .env export: validated by the engine, written safely, secrets only in the file."""

from __future__ import annotations

import io
import logging
import os
import re
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest
from dotenv import dotenv_values

from localfs_explorer.envfile.export import (
    ExportError,
    export_env,
    run_export_env,
    template_text,
)
from localfs_explorer.secrets import MASK

pytestmark = pytest.mark.usefixtures("quiet_dotenv")


def read(text: str) -> dict[str, str | None]:
    return dict(dotenv_values(stream=io.StringIO(text)))


# ---------------------------------------------------------------------------------------
# Validation with the engine


def test_a_mode_the_server_rejects_is_refused_with_its_reason(tmp_path: Path) -> None:
    plan = export_env(None, set={"LOCAL_FILE_ACCESS": "everything"})
    assert plan.errors and "LOCAL_FILE_ACCESS" in plan.errors[0]
    assert not plan.ok
    # The real server's (0.9.5) wording of the error.
    with pytest.raises(ExportError, match=r"server would not start.*isn't valid \(use full, roots"):
        plan.write(tmp_path / "out.env")
    assert not (tmp_path / "out.env").exists()


def test_roots_mode_needs_roots_that_exist(tmp_path: Path) -> None:
    missing = export_env(None, set={"LOCAL_FILE_ACCESS": "roots",
                                    "LOCAL_FILE_ROOTS": str(tmp_path / "nope")})
    assert any("isn't an existing directory" in e for e in missing.errors)  # the server's words
    none = export_env(None, set={"LOCAL_FILE_ACCESS": "roots"})
    assert any("needs LOCAL_FILE_ROOTS" in e for e in none.errors)
    good = export_env(None, set={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(tmp_path)})
    assert good.ok and good.policy.mode == "roots"


def test_cwd_informs_the_validation_of_relative_roots(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    change = {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "data"}
    assert export_env(None, set=change, cwd=str(tmp_path)).ok
    assert not export_env(None, set=change, cwd=str(tmp_path / "data")).ok


def test_warnings_are_shown_but_not_fatal(tmp_path: Path) -> None:
    plan = export_env(None, set={"LOCAL_FILE_ACCESS": "full", "LOCAL_FILE_ROOTS": str(tmp_path)})
    assert plan.ok
    assert any("LOCAL_FILE_ROOTS is set but ignored" in w for w in plan.warnings)
    assert plan.write(tmp_path / "out.env").written


def test_unsetting_the_mode_is_judged_with_the_transport(tmp_path: Path) -> None:
    source = tmp_path / ".env"
    source.write_text("LOCAL_FILE_ACCESS=full\n")
    plan = export_env(source, unset=["LOCAL_FILE_ACCESS"], transport="sse")
    assert plan.ok and plan.policy.mode == "off" and plan.policy.explicit is False


def test_a_custom_validator_sees_the_new_values() -> None:
    seen = {}

    def validate(env):
        seen.update(env.values)
        return SimpleNamespace(errors=["no thanks"], warnings=["hm"])

    plan = export_env(None, text="A=1\n", set={"B": "2"}, validate=validate)
    assert seen == {"A": "1", "B": "2"}
    assert plan.errors == ("no thanks",) and "hm" in plan.warnings


def test_an_unreadable_source_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="no such file"):
        export_env(tmp_path / "missing.env")
    bad = tmp_path / "latin1.env"
    bad.write_bytes(b"A=caf\xe9\n")
    with pytest.raises(ExportError, match="not UTF-8"):
        export_env(bad)


# ---------------------------------------------------------------------------------------
# Writing


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "server.env"
    path.write_bytes(b"# server\r\nLOCAL_FILE_ACCESS=full\r\nLOG_FILE=/var/log/s.log")
    path.chmod(0o640)
    return path


def files_in(directory: Path) -> dict[str, bytes | str]:
    """Each entry's bytes (a directory or a link by what it is), to compare whole folders."""
    return {
        p.name: f"-> {os.readlink(p)}" if p.is_symlink() else "<dir>" if p.is_dir()
        else p.read_bytes()
        for p in directory.iterdir()
    }


def test_in_place_keeps_permissions_and_a_backup(source: Path) -> None:
    before = source.read_bytes()
    result = export_env(source, set={"LOCAL_FILE_ACCESS": "off"}).write(in_place=True)
    assert result.written and result.backup == f"{source}.bak"
    assert source.read_bytes() == b"# server\r\nLOCAL_FILE_ACCESS=off\r\nLOG_FILE=/var/log/s.log"
    assert stat.S_IMODE(source.stat().st_mode) == 0o640
    assert Path(result.backup).read_bytes() == before
    assert stat.S_IMODE(Path(result.backup).stat().st_mode) == 0o640
    assert sorted(files_in(source.parent)) == ["server.env", "server.env.bak"]  # no temp left


def test_backups_never_overwrite_older_backups(source: Path) -> None:
    export_env(source, set={"LOCAL_FILE_ACCESS": "off"}).write(in_place=True)
    first = (source.parent / "server.env.bak").read_bytes()
    second = export_env(source, set={"LOCAL_FILE_ACCESS": "full"}).write(in_place=True)
    assert second.backup == f"{source}.bak.1"
    assert (source.parent / "server.env.bak").read_bytes() == first
    assert b"LOCAL_FILE_ACCESS=off" in Path(second.backup).read_bytes()


def test_a_new_file_takes_the_source_permissions(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.env"
    result = export_env(source, set={"LOCAL_FILE_ACCESS": "off"}).write(out)
    assert result.written and result.backup is None
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert source.read_bytes().startswith(b"# server\r\nLOCAL_FILE_ACCESS=full")


def test_a_file_from_nothing_is_private(tmp_path: Path) -> None:
    out = tmp_path / "fresh.env"
    export_env(None, set={"CREDENTIALS_CONFIG": '{"a": 1}'}).write(out)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert out.read_text() == "CREDENTIALS_CONFIG='{\"a\": 1}'\n"


def test_an_existing_destination_needs_force_and_is_backed_up(source, tmp_path) -> None:
    out = tmp_path / "out.env"
    out.write_bytes(b"OLD=1\n")
    out.chmod(0o600)
    plan = export_env(source, set={"LOCAL_FILE_ACCESS": "off"})
    with pytest.raises(ExportError, match=r"already exists.*--force"):
        plan.write(out)
    assert out.read_bytes() == b"OLD=1\n"
    result = plan.write(out, force=True)
    assert result.backup == f"{out}.bak" and Path(result.backup).read_bytes() == b"OLD=1\n"
    assert out.read_bytes() == plan.text.encode()
    assert stat.S_IMODE(out.stat().st_mode) == 0o600  # the replaced file's bits


def test_nothing_is_written_when_the_file_already_says_it(source: Path) -> None:
    result = export_env(source, set={"LOCAL_FILE_ACCESS": "full"}).write(in_place=True)
    assert not result.written
    assert sorted(files_in(source.parent)) == ["server.env"]


def test_a_symlinked_destination_is_refused_unless_followed(source, tmp_path) -> None:
    target = tmp_path / "real.env"
    target.write_bytes(b"REAL=1\n")
    link = tmp_path / "link.env"
    link.symlink_to(target)
    plan = export_env(source, set={"LOCAL_FILE_ACCESS": "off"})
    with pytest.raises(ExportError, match=r"link\.env is a symbolic link \(to .*real\.env\)"):
        plan.write(link, force=True)
    assert target.read_bytes() == b"REAL=1\n" and link.is_symlink()
    result = plan.write(link, force=True, follow_symlinks=True)
    assert result.path == str(target.resolve())
    assert link.is_symlink() and link.read_bytes() == plan.text.encode()
    assert (tmp_path / "real.env.bak").read_bytes() == b"REAL=1\n"


def test_in_place_through_a_symlinked_source_is_refused(source, tmp_path) -> None:
    link = tmp_path / "link.env"
    link.symlink_to(source)
    with pytest.raises(ExportError, match="symbolic link"):
        export_env(link, set={"LOCAL_FILE_ACCESS": "off"}).write(in_place=True)


def test_in_place_refuses_a_file_that_changed_since_it_was_read(source: Path) -> None:
    plan = export_env(source, set={"LOCAL_FILE_ACCESS": "off"})
    source.write_bytes(b"LOCAL_FILE_ACCESS=roots\n")
    with pytest.raises(ExportError, match="changed since it was read"):
        plan.write(in_place=True)
    assert source.read_bytes() == b"LOCAL_FILE_ACCESS=roots\n"


REFUSALS = {
    "invalid mode": dict(change={"LOCAL_FILE_ACCESS": "sometimes"}, force=True),
    "roots without roots": dict(change={"LOCAL_FILE_ACCESS": "roots"}, force=True),
    "no force": dict(change={"LOCAL_FILE_ACCESS": "off"}, force=False),
    "unsafe value": dict(change={"LOCAL_FILE_ROOTS": "a\nb"}, force=True),
    "symlink": dict(change={"LOCAL_FILE_ACCESS": "off"}, force=True, link=True),
    "directory": dict(change={"LOCAL_FILE_ACCESS": "off"}, force=True, directory=True),
}


REFUSAL_CASES = [
    pytest.param(case, exists, id=f"{case}-{'existing' if exists else 'absent'}")
    for case in REFUSALS
    for exists in (True, False)
    if exists or case != "no force"  # an absent destination needs no force
]


@pytest.mark.parametrize(("case", "exists"), REFUSAL_CASES)
def test_refusals_write_nothing(case: str, exists: bool, source: Path, tmp_path) -> None:
    spec = REFUSALS[case]
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    dest = out_dir / "dest.env"
    if spec.get("directory"):
        dest.mkdir()
    elif spec.get("link"):
        target = out_dir / "target.env"
        if exists:
            target.write_bytes(b"KEEP=1\n")
        dest.symlink_to(target)
    elif exists:
        dest.write_bytes(b"KEEP=1\n")
    before = files_in(out_dir)
    with pytest.raises(ExportError):
        export_env(source, set=spec["change"]).write(dest, force=spec["force"])
    assert files_in(out_dir) == before


def test_a_failed_write_leaves_the_destination_and_no_backup(source, tmp_path, monkeypatch):
    out = tmp_path / "out.env"
    out.write_bytes(b"KEEP=1\n")
    plan = export_env(source, set={"LOCAL_FILE_ACCESS": "off"})

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(ExportError, match=r"out\.env: can't be written \(No space left"):
        plan.write(out, force=True)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.env", "server.env"]
    assert out.read_bytes() == b"KEEP=1\n"


def test_a_missing_directory_is_refused(source: Path, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="no such directory"):
        export_env(source).write(tmp_path / "nope" / "x.env")


# ---------------------------------------------------------------------------------------
# Secrets: only the written file holds them


CANARY = "canary-7f3c9a1e-secret-value"
NEW_CANARY = "canary-new-41d2"


def canary_source(tmp_path: Path) -> Path:
    path = tmp_path / ".env"
    path.write_text(
        "# server settings\n"
        f"CREDENTIALS_CONFIG='{{\"client_secret\": \"{CANARY}\"}}'\n"
        f"API_TOKEN={CANARY}-2\n"
        f"# an older copy of the token: {CANARY}-2\n"
        f"API_TOKEN={CANARY}-3\n"
        f"broken CREDENTIALS_CONFIG line {CANARY}\n"
        "LOCAL_FILE_ACCESS=full\n"
    )
    return path


def test_a_canary_secret_never_shows_in_a_diff(tmp_path: Path) -> None:
    plan = export_env(canary_source(tmp_path),
                      set={"LOCAL_FILE_ACCESS": "off", "API_TOKEN": NEW_CANARY})
    diff = plan.diff()
    assert CANARY not in diff and NEW_CANARY not in diff
    assert f"-API_TOKEN={MASK}" in diff and f"+API_TOKEN={MASK}" in diff
    assert "+LOCAL_FILE_ACCESS=off" in diff
    assert CANARY not in repr(plan) and CANARY not in str(plan.warnings)
    # Unmasked on request, for a user who asks to see their own file.
    assert NEW_CANARY in plan.diff(masked=False)


def test_a_canary_secret_stays_out_of_every_command_output(tmp_path, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    src = canary_source(tmp_path)
    outputs = []
    for kwargs in (
        dict(dry_run=True, set={"API_TOKEN": NEW_CANARY}),
        dict(dry_run=True, set={"LOCAL_FILE_ACCESS": "bogus"}),
        dict(output=tmp_path / "out.env", set={"LOCAL_FILE_ACCESS": "bogus"}),
        dict(output=tmp_path / "out.env", set={"CREDENTIALS_CONFIG": "a\nb"}),
        dict(output=tmp_path / "out.env", set={"API_TOKEN": NEW_CANARY}),
        dict(output=tmp_path / "out.env", set={"API_TOKEN": NEW_CANARY}),  # exists: refused
        dict(output=tmp_path / "out.env", force=True, set={"API_TOKEN": NEW_CANARY}),
    ):
        out, err = io.StringIO(), io.StringIO()
        code = run_export_env(src, out=out, err=err, **kwargs)
        outputs.append((code, out.getvalue(), err.getvalue()))
    assert [code for code, _, _ in outputs] == [0, 2, 2, 2, 0, 2, 0]
    everything = "".join(o + e for _, o, e in outputs) + caplog.text
    assert CANARY not in everything and NEW_CANARY not in everything
    written = (tmp_path / "out.env").read_text()
    assert CANARY in written and f"API_TOKEN={NEW_CANARY}\n" in written
    assert read(written)["CREDENTIALS_CONFIG"] == f'{{"client_secret": "{CANARY}"}}'


def test_the_command_exit_codes_and_reports(tmp_path: Path, source: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run_export_env(source, dry_run=True, set={"LOCAL_FILE_ACCESS": "off"},
                          out=out, err=err) == 0
    assert "-LOCAL_FILE_ACCESS=full" in out.getvalue()
    assert "LOCAL_FILE_ACCESS: updated (line 2)" in err.getvalue()
    assert source.read_bytes().count(b"full") == 1  # a dry run writes nothing
    err = io.StringIO()
    assert run_export_env(source, dry_run=True, in_place=True, out=out, err=err) == 2
    assert "exactly one of" in err.getvalue()
    err = io.StringIO()
    assert run_export_env(source, in_place=True, set={"LOCAL_FILE_ACCESS": "off"},
                          out=out, err=err) == 0
    assert "previous version kept as" in err.getvalue()
    out = io.StringIO()
    assert run_export_env(source, dry_run=True, out=out, err=io.StringIO()) == 0
    assert out.getvalue() == "no changes\n"


# ---------------------------------------------------------------------------------------
# The shipped template


def test_the_template_has_both_settings_commented_out() -> None:
    text = template_text()
    assert read(text) == {}  # nothing is set until the operator uncomments a line
    settings = [line[2:] for line in text.splitlines()
                if re.match(r"# LOCAL_FILE_(ACCESS|ROOTS)=", line)]
    values = read("\n".join(settings))
    assert sorted(values) == ["LOCAL_FILE_ACCESS", "LOCAL_FILE_ROOTS"]
    assert values["LOCAL_FILE_ACCESS"] in ("full", "roots", "off")


def test_a_new_env_can_start_from_the_template(tmp_path: Path) -> None:
    plan = export_env(None, text=template_text(),
                      set={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(tmp_path)})
    assert plan.ok
    assert plan.text.startswith(template_text())
    assert read(plan.text) == {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(tmp_path)}
