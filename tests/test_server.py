"""The server seam: the registry and mcp-gee-sweet behind the interface."""

from __future__ import annotations

import json

import pytest
from toy_server import ToyOptions
from toy_server import ToyPolicy as FolderPolicy

from localfs_explorer.catalog import Argument, Catalog, PathParam, Registration, Tool, ToolHints
from localfs_explorer.config import ConfigError, ServerConfig, resolve_config
from localfs_explorer.server import (
    DEFAULT_SERVER,
    CallAnswer,
    CallCheck,
    ExposureScope,
    Server,
    ServerError,
    Setup,
    Verdict,
    get_server,
    list_servers,
    register_server,
    unregister_server,
)


def test_the_default_server_is_mcp_gee_sweet_and_listed_first() -> None:
    assert DEFAULT_SERVER == "mcp-gee-sweet"
    assert list_servers()[0] == "mcp-gee-sweet"
    server = get_server()
    assert server.id == "mcp-gee-sweet"
    assert get_server("mcp-gee-sweet") is server
    assert server.versions[0] == "0.9.5"


def test_an_unknown_server_is_a_one_line_error_naming_the_known_ones() -> None:
    with pytest.raises(ServerError, match="unknown server 'nope': use one of mcp-gee-sweet"):
        get_server("nope")
    with pytest.raises(ConfigError, match="unknown server 'nope'") as info:
        resolve_config(ServerConfig(server="nope"))
    assert info.value.part == "server"


def test_an_unmodelled_version_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"mcp-gee-sweet 0\.1\.0 isn't modelled") as info:
        resolve_config(ServerConfig(server_version="0.1.0"))
    assert info.value.part == "server"
    assert resolve_config(ServerConfig(server_version="0.9.5")).policy.serves


def test_an_id_is_registered_once() -> None:
    class Twin(Server):
        id = "mcp-gee-sweet"

    with pytest.raises(ServerError, match="already registered"):
        register_server(Twin)

    class Nameless(Server):
        pass

    with pytest.raises(ServerError, match="has no id"):
        register_server(Nameless)

    class Other(Server):
        id = "other-server"

    try:
        register_server(Other)
        assert "other-server" in list_servers()
        assert isinstance(get_server("other-server"), Other)
    finally:
        unregister_server("other-server")
    assert "other-server" not in list_servers()


def test_gee_sweet_answers_through_the_interface(tmp_path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    resolved = resolve_config(ServerConfig(
        settings={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(data)},
        base_dir=str(tmp_path)))
    assert resolved.server is get_server()
    inside = resolved.policy.check(str(data / "a.txt"))
    outside = resolved.policy.check(str(tmp_path / "b.txt"), "write")
    assert isinstance(inside, Verdict) and inside.allowed
    assert not outside.allowed and outside.reason == "outside_roots"
    assert outside.message.startswith(f"{tmp_path / 'b.txt'} is outside this server's")
    status = resolved.server.status(resolved.policy, resolved.registration)
    assert status["local_file_access"]["roots"] == [str(data)]


def test_the_prediction_through_the_interface_is_what_an_off_server_reports(tmp_path) -> None:
    from localfs_explorer.catalog import default_catalog

    resolved = resolve_config(ServerConfig(settings={"LOCAL_FILE_ACCESS": "off"},
                                           base_dir=str(tmp_path)))
    predicted = get_server().predict(resolved.policy)
    local_only = sorted(t.name for t in default_catalog().tools if t.local_only)
    assert predicted["serves"] is True
    assert predicted["local_file_access"]["mode"] == "off"
    assert predicted["local_file_access"]["unregistered_tools"] == local_only
    assert not set(local_only) & set(predicted["registered"])
    assert set(predicted) >= {"transport", "registered", "not_registered", "catalog"}


# --- a second server: an added class plus a registry entry --------------------------------
#
# The toy server has two rules and one tool: a path must be inside its one allowed
# directory (its own setting, given by its own command-line option), and a name ending
# in ".secret" is refused wherever it is. It has no .env, no transport and no HTTP. Its
# policy is the installed toy package's; the server class here is written against the
# seam's defaults only (no exposure walk, no live check), registered in the process.


class ToyPolicy(FolderPolicy):
    """The installed toy's policy (tests/toy_server_pkg), under this test's id."""

    server_id = "toy"


class ToyServer(Server):
    id = "toy"
    title = "a toy server"
    versions = ("1.0",)
    options_model = ToyOptions
    transports = ()

    def add_cli_options(self, group) -> None:
        group.add_argument("--toy-allowed", metavar="DIR", default=None,
                           help="the toy server's one allowed directory")

    def options_from_args(self, args) -> dict:
        value = getattr(args, "toy_allowed", None)
        return {} if value is None else {"allowed": value}

    def resolve(self, setup: Setup) -> ToyPolicy:
        return ToyPolicy(setup)

    def catalog(self, path=None) -> Catalog:
        return Catalog(server="toy", tools=(Tool(
            name="read_file", params=(PathParam(location="path", op="read"),),
            arguments=(Argument(name="path", required=True, types=("string",)),),
            hints=ToolHints(readOnlyHint=True)),))

    def register_tools(self, policy, catalog) -> Registration:
        return Registration(mode="on", registered=list(catalog.names()))

    def status(self, policy, registration=None) -> dict:
        return {"allowed_directories": [policy.allowed]}


@pytest.fixture
def toy(tmp_path):
    server = register_server(ToyServer)
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "notes.txt").write_text("x")
    (allowed / "keys.secret").write_text("x")
    (tmp_path / "outside.txt").write_text("x")
    try:
        yield server, allowed
    finally:
        unregister_server("toy")


def test_a_toy_server_answers_the_check_command(toy, tmp_path, capsys) -> None:
    from localfs_explorer.cli.main import main

    _server, allowed = toy
    paths = [str(allowed / "notes.txt"), str(allowed / "keys.secret"),
             str(tmp_path / "outside.txt")]
    code = main(["check", "--server", "toy", "--toy-allowed", str(allowed), "--json",
                 *paths])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    assert [(r["allowed"], r["reason"]) for r in rows] == [
        (True, "allowed"), (False, "secret"), (False, "outside")]
    assert rows[2]["message"] == f"toy refuses {paths[2]}: outside {allowed}"
    assert rows[1]["trace"] == [{"step": "secret", "outcome": "refused",
                                 "detail": "a .secret name"}]
    # The batch answer is the toy's own, and its one option is its own.
    assert main(["check", "--server", "toy", "--toy-allowed", str(allowed), "--batch",
                 paths[0]]) == 0
    capsys.readouterr()
    assert main(["check", "--toy-allowed", str(allowed), paths[0]]) == 2
    assert "allowed: a setting of toy, not of mcp-gee-sweet (add --server toy)" in \
        capsys.readouterr().err


def test_a_toy_server_answers_the_probe_command_and_probe_call(toy, tmp_path, capsys) -> None:
    from localfs_explorer.cli.main import main
    from localfs_explorer.probe import probe_call

    _server, allowed = toy
    call = json.dumps({"name": "read_file", "arguments": {"path": str(allowed / "keys.secret")}})
    assert main(["probe", "--server", "toy", "--toy-allowed", str(allowed), "--json",
                 "--call", call]) == 1
    (verdict,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert verdict["outcome"] == "refused"
    assert verdict["message"] == f"toy refuses {allowed / 'keys.secret'}: a secret"
    resolved = resolve_config(ServerConfig(server="toy",
                                           server_options={"allowed": str(allowed)}))
    ok = probe_call(resolved.policy, "read_file", {"path": str(allowed / "notes.txt")})
    assert ok.outcome == "ok" and ok.paths[0].resolved == str(allowed / "notes.txt")
    # The toy's catalog is the one read: mcp-gee-sweet's tools are not the toy's.
    other = probe_call(resolved.policy, "upload_local_file", {"local_path": "/x"})
    assert any("upload_local_file is not in the catalog" in n for n in other.notes)


def test_the_dashboard_model_answers_for_a_toy_server(toy, tmp_path) -> None:
    pytest.importorskip("traitlets")
    from localfs_explorer.ui.model import ExplorerModel

    _server, allowed = toy
    model = ExplorerModel(server="toy", server_options={"allowed": str(allowed)},
                          host_cwd=str(tmp_path), debounce=0,
                          paths_text=f"{allowed / 'notes.txt'}\n{tmp_path / 'outside.txt'}",
                          tool_name="read_file",
                          tool_args_text=json.dumps({"path": str(allowed / "keys.secret")}))
    model.recompute(everything=True)
    assert model.config_error == ""
    assert [d.reason for d in model.decisions] == ["allowed", "outside"]
    assert model.auth_status == {"allowed_directories": [str(allowed)]}
    assert model.call_verdict is not None and model.call_verdict.outcome == "refused"
    # Back to the default server: the toy's own setting is not mcp-gee-sweet's...
    model.server = "mcp-gee-sweet"
    model.recompute(everything=True)
    assert "mcp-gee-sweet option allowed" in model.config_error
    # ...and without it the same paths are answered as mcp-gee-sweet answers them.
    model.server_options = {}
    model.recompute(everything=True)
    assert model.config_error == "" and "local_file_access" in model.auth_status
    assert [d.reason for d in model.decisions] == ["allowed", "allowed"]


def test_a_toy_server_answers_diff_report_and_test(toy, tmp_path, capsys) -> None:
    """The review commands ask everything of the seam: a new server needs no edit."""
    from localfs_explorer.cli.main import main

    _server, allowed = toy
    outside = tmp_path / "outside.txt"
    # diff: the toy's own option for one side (--after-toy-allowed), default places.
    code = main(["diff", "--server", "toy", "--toy-allowed", str(allowed),
                 "--after-toy-allowed", str(tmp_path), "--cwd", str(tmp_path),
                 "--path", str(outside), "--op", "read", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == 1
    changes = {c["probe"]: c for c in result["changes"]}
    assert changes[f"read {outside}"]["change"] == "new_access"
    assert changes[f"read {tmp_path}"]["source"] == "generated: startup directory"
    # report: the configuration is the toy's own summary.
    report = tmp_path / "r.json"
    assert main(["report", "--server", "toy", "--toy-allowed", str(allowed), "--path",
                 str(outside), "-o", str(report)]) == 0
    data = json.loads(report.read_text())
    assert data["configurations"][0]["values"]["allowed"] == str(allowed)
    assert data["rows"][0]["path_message"] == f"toy refuses {outside}: outside {allowed}"
    # test: a scenario naming the toy and its option.
    scenario = tmp_path / "toy.toml"
    scenario.write_text(f"""
[config]
server = "toy"
[config.options]
allowed = "{allowed}"
[[scenario]]
name = "toy"
[[scenario.path]]
path = "{outside}"
allowed = false
message = "toy refuses {outside}: outside {allowed}"
""")
    capsys.readouterr()
    assert main(["test", str(scenario)]) == 0
    assert capsys.readouterr().out.strip().endswith("1 passed, 0 failed")


class RulesToy(ToyServer):
    """The toy with tool rules of its own and a list of directories it allows."""

    def answer_call(self, policy, name, arguments, *, walk_limit=10_000):
        if name != "read_file":
            return None
        # Its read_file reads a list: each refusal is an error line inside the result.
        paths = arguments.get("path", "").split(",")
        checks = tuple(CallCheck(f"path[{i}]", policy.check(p), step="item_error")
                       for i, p in enumerate(paths))
        errors = [f"{c.verdict.path}: {c.verdict.message}" for c in checks
                  if not c.verdict.allowed]
        return CallAnswer("partial" if errors else "ok", "\n".join(errors), checks,
                          ("read as a list",))

    def exposure_scope(self, policy):
        return ExposureScope((policy.allowed,), policy.allowed)


def test_a_server_answers_calls_and_names_what_exposure_walks(toy, tmp_path) -> None:
    from localfs_explorer.exposure import exposure
    from localfs_explorer.probe import probe_call

    _server, allowed = toy
    register_server(RulesToy, replace=True)
    policy = resolve_config(ServerConfig(server="toy",
                                         server_options={"allowed": str(allowed)})).policy
    both = f"{allowed / 'notes.txt'},{allowed / 'keys.secret'}"
    v = probe_call(policy, "read_file", {"path": both})
    assert v.outcome == "partial" and "read as a list" in v.notes
    assert v.message == f"{allowed / 'keys.secret'}: toy refuses {allowed / 'keys.secret'}: " \
                        "a secret"
    assert [(p.argument, p.allowed, p.step) for p in v.paths] == [
        ("path[0]", True, None), ("path[1]", False, "item_error")]
    with pytest.raises(ValueError, match="outcome is one of"):
        CallAnswer("maybe")
    # Exposure walks the toy's directory through its check: the .secret file is refused.
    inv = exposure(policy, keep_paths=True)
    assert inv.mode == "allowed-directories" and inv.walked == [str(allowed)]
    assert inv.readable == frozenset({str(allowed / "notes.txt")})
    assert inv.writable == inv.readable


def test_the_inline_toy_answers_auth_status_tools_and_exposure(toy, tmp_path) -> None:
    """A server written against the seam's defaults: what it has answers, what it lacks
    (an exposure walk) is one line and exit 2, never a traceback."""
    from conftest import run_cli

    _server, allowed = toy
    given = ("--server", "toy", "--toy-allowed", str(allowed))
    code, out, err = run_cli("auth-status", *given)
    assert code == 0 and json.loads(out) == {"allowed_directories": [str(allowed)]}
    code, out, err = run_cli("tools", *given, "--json")
    assert code == 0 and json.loads(out)["registered"] == ["read_file"]
    code, out, err = run_cli("exposure", *given)
    assert code == 2 and out == ""
    assert err == ("localfs-explorer exposure: a toy server has no exposure walk: the "
                   "server names no directories a tool call can reach into\n")
    code, _out, err = run_cli("verify", *given, "--command", "x")
    assert code == 2 and err == ("localfs-explorer verify: toy has no live check: verify "
                                 "can't compare it with a running server\n")


def test_an_installed_server_that_cant_be_loaded_is_one_line(monkeypatch) -> None:
    from importlib.metadata import EntryPoint

    from localfs_explorer import server as registry

    registry._entry_points()
    broken = EntryPoint(name="broken", value="no_such_module_here:Server",
                        group=registry.ENTRY_POINT_GROUP)
    monkeypatch.setitem(registry._FOUND, "broken", broken)
    with pytest.raises(ServerError, match=r"^server 'broken' \(no_such_module_here:Server\) "
                                          r"can't be loaded: ModuleNotFoundError"):
        get_server("broken")
    assert "broken" in list_servers()
    # The others still load: the command line is built from those.
    from localfs_explorer.server import iter_servers

    assert "broken" not in [s.id for s in iter_servers()]
    assert "mcp-gee-sweet" in [s.id for s in iter_servers()]


def test_the_auth_status_variants_are_the_resources_branches() -> None:
    from localfs_explorer.servers.gee_sweet.auth_status import BRANCHES

    assert get_server().status_variants == BRANCHES
