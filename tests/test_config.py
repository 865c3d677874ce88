"""One server configuration: the same inputs give the same verdicts at every entry point.

The table below is run through the command line, a scenario file, the Python API and the
dashboard's model. Each row uses relative names, a missing startup or package directory,
or a described host, which are exactly where the entry points used to disagree.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from localfs_explorer.cli import main as cli
from localfs_explorer.config import ConfigError, ServerConfig, resolve_config
from localfs_explorer.review.scenarios import run_scenario_file
from localfs_explorer.ui.model import ExplorerModel

# Each row: the options as the CLI spells them, and the paths to ask about. Relative
# names are relative to the directory the configuration is written from (the test's
# base directory); "{base}" is replaced by it.
TABLE: list[dict[str, Any]] = [
    {   # relative .env, relative startup directory, package directory from the .env
        "id": "relative-names-on-this-machine",
        "env": "deploy/.env", "cwd": "srv", "host": None, "package_dir": None,
        "paths": ["data/report.csv", "{base}/deploy/.env", "{base}/srv/.env",
                  "{base}/srv/data/report.csv", "../outside.txt"],
    },
    {   # no startup directory: the server starts where the configuration was written
        "id": "no-cwd-on-this-machine",
        "env": "deploy/.env", "cwd": None, "host": None, "package_dir": None,
        "paths": ["data/report.csv", "srv/data/report.csv", "{base}/deploy/.env"],
    },
    {   # a relative package directory means the same place everywhere
        "id": "relative-package-dir",
        "env": "deploy/.env", "cwd": "srv", "host": None, "package_dir": "pkg",
        "paths": ["{base}/pkg/.env", "{base}/deploy/.env", "data/report.csv"],
    },
    {   # a described host: the local .env's folder is no directory there
        "id": "described-host", "roots": "/data:/srv/exports",
        "env": "deploy/.env", "cwd": None, "host": "container", "package_dir": None,
        "paths": ["/app/.env", "/app/token.json", "/data/latest.csv", "latest.csv",
                  "/srv/exports/shared/summary.pdf"],
    },
]

SETTINGS = "LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS=data:/data\n"


def _layout(base: Path, roots: str = "data") -> None:
    for d in ("deploy", "srv/data", "data", "pkg"):
        (base / d).mkdir(parents=True, exist_ok=True)
    (base / "deploy" / ".env").write_text(SETTINGS.replace("data:/data", roots))
    for f in ("srv/.env", "pkg/.env", "srv/data/report.csv", "data/report.csv",
              "outside.txt"):
        (base / f).write_text("x")


def _paths(row: dict[str, Any], base: Path) -> list[str]:
    return [p.replace("{base}", str(base)) for p in row["paths"]]


Verdict = tuple[str, bool, str, str, "str | None"]


def _via_cli(row: dict[str, Any], base: Path) -> list[Verdict]:
    argv = ["check", "--json", "--env", row["env"]]
    for option in ("cwd", "package_dir"):
        if row[option]:
            argv += [f"--{option.replace('_', '-')}", row[option]]
    if row["host"]:
        argv += ["--fs", row["host"]]
    out = io.StringIO()
    cli.main([*argv, *_paths(row, base)], out=out, err=io.StringIO())
    found = [json.loads(line) for line in out.getvalue().splitlines()]
    return [(d["path"], d["allowed"], d["reason"], d["message"], d["resolved"])
            for d in found]


def _via_api(row: dict[str, Any], base: Path) -> list[Verdict]:
    config = ServerConfig(env=row["env"], cwd=row["cwd"], package_dir=row["package_dir"],
                          host=row["host"], base_dir=str(base))
    policy = resolve_config(config).policy
    return [_key(policy.check(p)) for p in _paths(row, base)]


def _via_model(row: dict[str, Any], base: Path) -> list[Verdict]:
    model = ExplorerModel(
        env_path=row["env"], cwd=row["cwd"] or "", package_dir=row["package_dir"] or "",
        target=f"example:{row['host']}" if row["host"] else "host", host_cwd=str(base),
        paths_text="\n".join(_paths(row, base)), debounce=0, host_access=True,
    )
    assert model.config_error == ""
    return [_key(d) for d in model.decisions]


def _via_scenario(row: dict[str, Any], base: Path, expected: list[Verdict]) -> None:
    """Write the row as a scenario file expecting ``expected``; every case must pass."""
    config = {k: row[k] for k in ("env", "cwd", "package_dir", "host") if row[k]}
    lines = ["[config]", *(f"{k} = {json.dumps(v)}" for k, v in config.items()),
             "", "[[scenario]]", 'name = "the table row"']
    for path, allowed, reason, message, resolved in expected:
        lines += ["[[scenario.path]]", f"path = {json.dumps(path)}",
                  f"allowed = {json.dumps(allowed)}", f"reason = {json.dumps(reason)}",
                  f"message = {json.dumps(message)}"]
        if resolved is not None:
            lines.append(f"resolved = {json.dumps(resolved)}")
    file = base / "row.toml"
    file.write_text("\n".join(lines) + "\n")
    result = run_scenario_file(file)
    assert result.error is None
    assert [s.error for s in result.scenarios] == [None]
    failed = [(c.name, [m.describe() for m in c.mismatches]) for c in result.cases
              if c.mismatches]
    assert failed == []
    assert len(result.cases) == len(expected)


def _key(d: Any) -> Verdict:
    return (d.path, d.allowed, d.reason, d.message, d.resolved)


@pytest.mark.parametrize("row", TABLE, ids=[r["id"] for r in TABLE])
def test_every_entry_point_gives_the_same_verdicts(row, tmp_path, monkeypatch):
    base = tmp_path.resolve()
    _layout(base, row.get("roots", "data"))
    monkeypatch.chdir(base)  # the CLI reads relative names from where it runs
    from_cli = _via_cli(row, base)
    assert len(from_cli) == len(row["paths"])
    assert _via_api(row, base) == from_cli
    assert _via_model(row, base) == from_cli
    # The scenario is read from a file in the base directory, run from elsewhere.
    monkeypatch.chdir(tmp_path.parent)
    _via_scenario(row, base, from_cli)
    # The rows must tell the rules apart: each has a refused and an allowed path.
    assert {v[1] for v in from_cli} == {True, False}


def test_the_rules_the_table_pins(tmp_path):
    base = tmp_path.resolve()
    _layout(base)
    here = resolve_config(ServerConfig(env="deploy/.env", cwd="srv", base_dir=str(base)))
    assert here.policy.cwd == str(base / "srv")
    assert here.policy.package_dir == str(base / "deploy")  # the .env's own folder
    started_here = resolve_config(ServerConfig(env="deploy/.env", base_dir=str(base)))
    assert started_here.policy.cwd == str(base)
    there = resolve_config(ServerConfig(env="deploy/.env", host="container",
                                        base_dir=str(base)))
    assert (there.policy.cwd, there.policy.package_dir) == ("/app", "/app")
    uploaded = resolve_config(ServerConfig(env_text=SETTINGS, env_name="deploy.env",
                                           base_dir=str(base)))
    assert uploaded.policy.package_dir == str(base)  # an upload has no folder here
    assert uploaded.env.source == "deploy.env"


def test_home_is_expanded_in_names_on_this_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / ".env").write_text("LOCAL_FILE_ACCESS=full\n")
    resolved = resolve_config(ServerConfig(env="~/cfg/.env", base_dir="/"))
    assert resolved.env_path == str(tmp_path / "cfg" / ".env")
    assert resolved.policy.package_dir == str(tmp_path.resolve() / "cfg")


@pytest.mark.parametrize(("config", "part", "text"), [
    (ServerConfig(env="missing.env"), "env", "missing.env"),
    (ServerConfig(host="no-such-host"), "host", "neither a host spec file nor an example"),
    (ServerConfig(host="spec.json"), "host", "spec.json"),
    (ServerConfig(profile="profile.json"), "profile", "profile.json"),
])
def test_an_unusable_input_is_named(config, part, text, tmp_path):
    with pytest.raises(ConfigError) as caught:
        resolve_config(config.model_copy(update={"base_dir": str(tmp_path)}))
    assert caught.value.part == part
    assert text in str(caught.value)


def test_catalog_and_access_are_read_on_first_use(tmp_path):
    resolved = resolve_config(ServerConfig(catalog="nope.json", access="nope.toml",
                                           base_dir=str(tmp_path)))
    assert resolved.policy is not None  # a path question never needs them
    with pytest.raises(ConfigError) as caught:
        _ = resolved.catalog
    assert caught.value.part == "catalog"
    with pytest.raises(ConfigError) as caught:
        _ = resolved.access
    assert caught.value.part == "access"
    lists = resolve_config(ServerConfig(access={"server": {"approval_list": ["a_tool"]}},
                                        transport="sse"))
    assert lists.access.gate("a_tool") == "approval"
    assert lists.registration.mode == lists.policy.mode.value == "off"
    assert lists.registration.unregistered  # off mode drops the local-only tools


def test_the_cli_names_the_option_of_a_bad_host(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    err = io.StringIO()
    assert cli.main(["check", "--fs", "no-such-host", "/x"], out=io.StringIO(), err=err) == 2
    assert err.getvalue().startswith("localfs-explorer check: --fs no-such-host: ")
    assert len(err.getvalue().splitlines()) == 1


def test_the_model_round_trips_a_configuration(tmp_path):
    config = ServerConfig(env="deploy/.env", settings={"A": "1"}, unset=["B"],
                          transport="sse", cwd="srv", host="container", over_http=False,
                          platform="windows", base_dir=str(tmp_path))
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / ".env").write_text(SETTINGS)
    model = ExplorerModel(**ExplorerModel.options_for(config), debounce=0, host_access=True)
    back = model.server_config()
    assert back.model_dump(exclude={"env"}) == config.model_dump(exclude={"env"})
    assert back.env == str(tmp_path / "deploy" / ".env")


@pytest.mark.parametrize("host", [None, "container"])
def test_the_export_validates_with_the_same_rules(host, tmp_path):
    from localfs_explorer.envfile.export import export_env

    _layout(tmp_path, "data" if host is None else "/data")
    config = ServerConfig(env="deploy/.env", host=host, base_dir=str(tmp_path))
    plan = export_env(str(tmp_path / "deploy" / ".env"), set={"LOG_FILE": "/var/log/s.log"},
                      config=config)
    expected = resolve_config(config).policy
    assert (plan.policy.cwd, plan.policy.package_dir) == (expected.cwd, expected.package_dir)
    assert plan.policy.mode == expected.mode
    # The edit is what is validated: the new setting is deny-listed, the old file isn't read
    # twice with different rules.
    assert "LOG_FILE" in {e.setting for e in plan.policy.deny_list}
    assert "LOG_FILE" not in {e.setting for e in expected.deny_list}


def test_the_model_names_only_shipped_examples_as_hosts(tmp_path):
    spec = tmp_path / "host.json"
    spec.write_text(json.dumps({"version": 1, "cwd": "/", "entries": {"/": {"type": "dir"}}}))
    model = ExplorerModel(target=f"example:{spec}", debounce=0, host_access=False)
    assert model.policy is None
    assert model.config_error == f"no example host named {str(spec)!r}"
    shipped = ExplorerModel(target="example:container", debounce=0, host_access=False)
    assert shipped.policy is not None and shipped.policy.cwd == "/app"
