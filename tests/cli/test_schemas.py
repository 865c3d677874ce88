"""JSON Schemas of the user files accept what the readers accept and name what they don't."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import run_cli as _run

from localfs_explorer.cli.schemas import SCHEMAS, SchemaError, json_schema

jsonschema = pytest.importorskip("jsonschema")

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "localfs_explorer" / "data"


def _errors(name: str, document: object) -> list[str]:
    validator = jsonschema.Draft202012Validator(json_schema(name))
    return [e.message for e in validator.iter_errors(document)]


def test_every_schema_is_a_valid_draft_2020_12_schema() -> None:
    for name in SCHEMAS:
        schema = json_schema(name)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$schema"].endswith("2020-12/schema") and schema["description"]


def test_shipped_files_match_their_schemas() -> None:
    scenarios = tomllib.loads((ROOT / "scenarios" / "spec-000.toml").read_text())
    assert _errors("scenarios", scenarios) == []
    for host in (DATA / "hosts").glob("*.json"):
        assert _errors("host", json.loads(host.read_text())) == [], host.name
    shipped_catalog = ROOT / "localfs_explorer" / "servers" / "gee_sweet" / "data" / "catalog.json"
    assert _errors("catalog", json.loads(shipped_catalog.read_text())) == []


def test_access_and_session_schemas_follow_the_readers() -> None:
    from localfs_explorer.access import AccessListError, load_access
    from localfs_explorer.review.sessions import SessionError, load_session

    good = {"server": {"deny_list": ["delete_*"]},
            "member": {"approval_list": ["upload_*"], "approval_timeout_seconds": 30}}
    assert _errors("access", good) == [] and load_access(good)
    bad = {"server": {"allow": ["*"]}}
    assert _errors("access", bad) != []
    with pytest.raises(AccessListError):
        load_access(bad)

    session = [[{"name": "upload_local_file", "arguments": {"local_path": "/data/a"}}]]
    assert _errors("session", session) == [] and len(load_session(session)) == 1
    wrapped = {"answers": session, "description": "one upload"}
    assert _errors("session", wrapped) == [] and len(load_session(wrapped)) == 1
    misspelt = [[{"name": "upload_local_file", "argumnts": {}}]]
    assert _errors("session", misspelt) != []
    with pytest.raises(SessionError):
        load_session(misspelt)


def test_a_scenario_file_with_a_schema_comment_runs_the_same(tmp_path) -> None:
    from localfs_explorer.review.scenarios import run_scenarios

    text = (ROOT / "scenarios" / "spec-000.toml").read_text()
    marked = tmp_path / "spec.toml"
    marked.write_text("#:schema ./scenarios.schema.json\n" + text)
    plain, commented = run_scenarios([str(ROOT / "scenarios" / "spec-000.toml")]), \
        run_scenarios([str(marked)])
    assert (commented.passed, commented.failed) == (plain.passed, plain.failed)
    assert commented.passed > 0


def test_schema_command_prints_writes_and_lists(tmp_path) -> None:
    code, out, _ = _run("schema", "session")
    assert code == 0 and json.loads(out) == json_schema("session")
    code, out, _ = _run("schema", "--list")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == list(SCHEMAS)
    target = tmp_path / "scenarios.schema.json"
    code, _, err = _run("schema", "scenarios", "-o", str(target))
    assert code == 0 and json.loads(target.read_text()) == json_schema("scenarios")
    assert "#:schema ./scenarios.schema.json" in err


def test_schema_command_never_replaces_a_file(tmp_path) -> None:
    target = tmp_path / "mine.json"
    target.write_text("keep me")
    code, out, err = _run("schema", "host", "-o", str(target))
    assert code == 2 and out == "" and "exists" in err and err.count("\n") == 1
    assert target.read_text() == "keep me"


def test_schema_command_usage_errors() -> None:
    assert _run("schema")[0] == 2
    assert _run("schema", "nope")[0] == 2
    with pytest.raises(SchemaError, match="unknown schema 'nope'"):
        json_schema("nope")


def test_shipped_completion_scripts_match_the_parser() -> None:
    import runpy

    pytest.importorskip("shtab")
    script = runpy.run_path(str(ROOT / "scripts" / "completions"), run_name="completions")
    for shell in script["SHELLS"]:
        shipped = (DATA / "completion" / shell).read_text()
        assert shipped == script["generate"](shell), (
            f"the {shell} completion is out of date: run .venv/bin/python scripts/completions")


def test_completion_command_prints_the_shipped_script() -> None:
    code, out, _ = _run("completion", "bash")
    assert code == 0 and out == (DATA / "completion" / "bash").read_text()
    # Every command is offered.
    from localfs_explorer.cli.main import build_parser

    commands = next(a for a in build_parser()._actions if a.dest == "command_name").choices
    for name in commands:
        assert name in out, name
