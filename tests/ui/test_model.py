"""The Explorer's model, driven without widgets: it must answer exactly as the engine does."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from ui_support import SECRET, write_roots_env

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.envfile.export import ExportError
from localfs_explorer.handoff import HOST_FS_ENV
from localfs_explorer.secrets import MASK
from localfs_explorer.ui import ExplorerError, ExplorerModel

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def roots_model(layout) -> ExplorerModel:
    env = write_roots_env(layout.app, layout.data, layout.home)
    return ExplorerModel(env_path=str(env), cwd=str(layout.app), debounce=0)


def test_loads_a_roots_env_and_resolves_like_the_engine(roots_model, layout) -> None:
    policy = roots_model.policy
    assert roots_model.config_error == ""
    assert policy.mode.value == "roots" and policy.explicit
    assert [r.resolved for r in policy.roots] == [str(layout.data)]
    # The server's own .env is deny-listed from the package directory the .env sits in.
    assert str(layout.app / ".env") in [e.resolved for e in policy.deny_list]


def test_path_verdicts_are_the_engines_exact_messages(roots_model, layout) -> None:
    outside = layout.outside / "other.txt"
    inside = layout.data / "report.csv"
    roots_model.paths_text = f"{outside}\n\n{inside}\n{layout.evil / 'secret.txt'}\n"
    verdicts = [(d.path, d.allowed, d.reason, d.message) for d in roots_model.decisions]
    assert verdicts == [
        (str(outside), False, "outside_roots",
         f"{outside} is outside this server's LOCAL_FILE_ROOTS. "
         f"Allowed directories: {layout.data}"),
        (str(inside), True, "allowed", ""),
        (str(layout.evil / "secret.txt"), False, "outside_roots",
         f"{layout.evil / 'secret.txt'} is outside this server's LOCAL_FILE_ROOTS. "
         f"Allowed directories: {layout.data}"),
    ]
    # Same inputs straight through the engine: same verdicts, field for field.
    engine = resolve_policy(load_env(layout.app / ".env"), cwd=str(layout.app),
                            package_dir=str(layout.app))
    assert [d.to_dict() for d in roots_model.decisions] == [
        engine.check_read(p).to_dict() for p in (str(outside), str(inside),
                                                 str(layout.evil / "secret.txt"))
    ]


def test_operation_and_over_http_change_the_verdict(layout) -> None:
    model = ExplorerModel(overrides=[("HOME", str(layout.home))], cwd=str(layout.app),
                          package_dir=str(layout.app), debounce=0)
    model.paths_text = str(layout.app / "token.json")
    assert model.decisions[0].reason == "denied"
    assert model.decisions[0].message.endswith("can't be read by a tool")
    model.op = "write"
    assert model.decisions[0].message.endswith("can't be written by a tool")
    model.paths_text = str(layout.data / "report.csv")
    assert model.decisions[0].allowed  # defaulted full over stdio
    model.over_http = "yes"
    assert model.decisions[0].reason == "tripwire"


def test_an_uploaded_env_gives_the_same_answers_as_the_file(roots_model, layout) -> None:
    text = (layout.app / ".env").read_text()
    uploaded = ExplorerModel(cwd=str(layout.app), package_dir=str(layout.app), debounce=0)
    uploaded.load_env_upload(".env", text.encode())
    probe = f"{layout.outside / 'other.txt'}\n{layout.data / 'report.csv'}"
    uploaded.paths_text = roots_model.paths_text = probe
    assert [d.to_dict() for d in uploaded.decisions] == [
        d.to_dict() for d in roots_model.decisions
    ]
    assert uploaded.env_path == ""


def test_overrides_win_over_the_file_and_unset_removes(roots_model, layout) -> None:
    roots_model.set_override("LOCAL_FILE_ACCESS", "full")
    assert roots_model.policy.mode.value == "full"
    assert roots_model.env.from_process == frozenset({"LOCAL_FILE_ACCESS"})
    roots_model.unset = ["LOCAL_FILE_ACCESS"]
    assert roots_model.policy.mode.value == "full" and not roots_model.policy.explicit
    roots_model.transport = "sse"
    assert roots_model.policy.mode.value == "off"


def test_a_missing_env_is_a_clear_configuration_error(layout) -> None:
    model = ExplorerModel(env_path=str(layout.base / "nope" / ".env"), debounce=0)
    assert model.policy is None
    assert model.config_error == f"{layout.base / 'nope' / '.env'}: can't be read (no such file)"
    assert model.last_error == ""
    model.paths_text = "/etc/passwd"
    assert model.decisions == []


def test_an_invalid_configuration_falls_back_to_off_and_says_why(layout) -> None:
    model = ExplorerModel(
        overrides=[("LOCAL_FILE_ACCESS", "roots"),
                   ("LOCAL_FILE_ROOTS", str(layout.base / "missing"))],
        debounce=0,
    )
    assert model.policy.mode.value == "off" and not model.policy.serves
    assert "isn't an existing directory" in model.policy.exit_message  # the server's words
    model.paths_text = str(layout.data / "report.csv")
    assert model.decisions[0].reason == "off"
    assert "Fix the configuration first" in model.decisions[0].hint
    assert model.export_plan is not None and not model.export_plan.ok


def test_host_access_off_keeps_this_machine_out_of_reach(layout, monkeypatch) -> None:
    monkeypatch.setenv(HOST_FS_ENV, "0")
    model = ExplorerModel(debounce=0)
    assert not model.host_access
    assert model.target.startswith("example:")
    model.target = "host"
    assert model.policy is None and "can't be probed" in model.config_error
    model.target = f"example:{model.examples[0]}"
    model.load_env_path(str(layout.app / ".env"))
    assert model.policy is None and "upload the file instead" in model.config_error
    with pytest.raises(ExplorerError, match="writing files on the serving machine is off"):
        model.write_export(str(layout.base / "new.env"))
    model.load_batch_path(str(layout.base / "calls.jsonl"))
    assert model.batch_error  # the serving machine's files can't be read by path either


def test_host_access_defaults_on(monkeypatch) -> None:
    monkeypatch.delenv(HOST_FS_ENV, raising=False)
    assert ExplorerModel(debounce=0).host_access


def test_example_host_answers_for_the_described_machine() -> None:
    model = ExplorerModel(
        target="example:traps", package_dir="/app",
        overrides=[("LOCAL_FILE_ACCESS", "roots"), ("LOCAL_FILE_ROOTS", "/data"),
                   ("TOKEN_PATH", "/app/token.json")],
        debounce=0,
    )
    assert "traps" in model.target_label and model.target_description
    model.paths_text = "/data/escape/passwd\n/data/innocent.json\n/data/notes.txt"
    assert [(d.reason, d.resolved) for d in model.decisions] == [
        ("outside_roots", "/etc/passwd"),
        ("denied", "/data/innocent.json"),  # a hardlink of the token
        ("allowed", "/data/notes.txt"),
    ]


def test_an_uploaded_host_spec_is_a_target(layout) -> None:
    spec = {"version": 1, "cwd": "/srv", "home": "/home/u",
            "entries": {"/srv/in/a.txt": {"type": "file"}, "/srv/out/b.txt": {"type": "file"}}}
    model = ExplorerModel(overrides=[("LOCAL_FILE_ACCESS", "roots"),
                                     ("LOCAL_FILE_ROOTS", "/srv/in")], debounce=0)
    model.load_spec_upload("host.json", json.dumps(spec).encode())
    assert model.target == "upload" and model.config_error == ""
    model.paths_text = "/srv/in/a.txt\n/srv/out/b.txt"
    assert [d.allowed for d in model.decisions] == [True, False]
    model.load_spec_upload("bad.json", b"{not json")
    assert model.policy is None and model.config_error.startswith("bad.json: not valid JSON")


def test_tool_call_verdict_and_registration(roots_model, layout) -> None:
    roots_model.tool_name = "upload_local_file"
    outside = layout.outside / "other.txt"
    roots_model.tool_args_text = json.dumps({"local_path": str(outside),
                                             "parent_folder_id": "F"})
    verdict = roots_model.call_verdict
    assert verdict.outcome == "refused"
    assert verdict.message == (
        f"{outside} is outside this server's LOCAL_FILE_ROOTS. Allowed directories: {layout.data}"
    )
    roots_model.tool_args_text = "{not json"
    assert roots_model.call_verdict is None
    assert roots_model.call_error.startswith("arguments: not valid JSON (line 1")
    # Over SSE with nothing set the mode is off and local-only tools aren't registered.
    roots_model.unset = ["LOCAL_FILE_ACCESS"]
    roots_model.transport = "sse"
    roots_model.tool_args_text = json.dumps({"local_path": str(layout.data / "report.csv"),
                                             "parent_folder_id": "F"})
    assert roots_model.call_verdict.outcome == "absent"
    assert "upload_local_file" in roots_model.registration.unregistered
    assert roots_model.auth_status["local_file_access"]["unregistered_tools"]


def test_tool_access_lists_hold_a_call_for_approval(roots_model, layout) -> None:
    roots_model.tool_name = "upload_local_file"
    roots_model.tool_args_text = json.dumps({"local_path": str(layout.data / "report.csv"),
                                             "parent_folder_id": "F"})
    roots_model.access_text = json.dumps({"server": {"approval_list": ["upload_*"]}})
    assert roots_model.call_verdict.gate == "approval"
    roots_model.access_text = json.dumps({"server": {"deny_lists": []}})
    assert roots_model.call_verdict is None and "deny_lists" in roots_model.call_error


def test_auth_status_follows_the_mode(roots_model, layout) -> None:
    assert roots_model.auth_status["local_file_access"] == {
        "mode": "roots", "explicit": True, "roots": [str(layout.data)],
        "unregistered_tools": [],
    }


def test_export_diff_is_masked_and_written_with_the_overwrite_rules(roots_model, layout) -> None:
    roots_model.set_file_value("LOG_FILE", str(layout.base / "server.log"))
    plan = roots_model.export_plan
    diff = plan.diff(masked=True)
    assert f"+LOG_FILE={layout.base / 'server.log'}" in diff
    assert SECRET not in diff and f"CREDENTIALS_CONFIG={MASK}" in diff
    dest = layout.base / "exported.env"
    result = roots_model.write_export(str(dest))
    assert result.written and f"LOG_FILE={layout.base / 'server.log'}" in dest.read_text()
    assert SECRET in dest.read_text()  # the file itself keeps the secret
    with pytest.raises(ExportError, match="already exists"):
        roots_model.write_export(str(dest))
    roots_model.set_file_value("ACCESS_LOG_FILE", str(layout.base / "access.log"))
    again = roots_model.write_export(str(dest), force=True)
    assert again.written and again.backup and Path(again.backup).exists()


def test_export_is_blocked_when_the_server_would_not_start(roots_model, layout) -> None:
    roots_model.set_file_value("LOCAL_FILE_ROOTS", str(layout.base / "gone"))
    plan = roots_model.export_plan
    assert not plan.ok and "isn't an existing directory" in plan.refusal()
    with pytest.raises(ExportError, match="refused"):
        roots_model.write_export(str(layout.base / "blocked.env"))
    assert not (layout.base / "blocked.env").exists()


def test_batch_from_an_upload_counts_outcomes_and_exports_csv(roots_model, layout) -> None:
    calls = [
        {"name": "upload_local_file",
         "arguments": {"local_path": str(layout.data / "report.csv"), "parent_folder_id": "F"}},
        {"name": "upload_local_file",
         "arguments": {"local_path": str(layout.outside / "other.txt"),
                       "parent_folder_id": "F"}},
    ]
    text = "\n".join(json.dumps(c) for c in calls) + "\n{broken\n"
    roots_model.load_batch_upload("calls.jsonl", text.encode())
    outcomes = [(v.outcome, v.line) for v in roots_model.batch_verdicts]
    assert outcomes == [("ok", 1), ("refused", 2), ("error", 3)]
    assert roots_model.batch_done == roots_model.batch_total == 3
    csv = roots_model.batch_csv().decode()
    assert csv.splitlines()[0].startswith("call,line,name,registered")
    assert "outside this server's LOCAL_FILE_ROOTS" in csv
    # The batch is re-run when the configuration changes.
    roots_model.set_override("LOCAL_FILE_ROOTS", f"{layout.data}:{layout.outside}")
    assert [v.outcome for v in roots_model.batch_verdicts] == ["ok", "ok", "error"]


def test_batch_from_a_path_and_a_missing_one(roots_model, layout) -> None:
    path = layout.base / "calls.jsonl"
    path.write_text(json.dumps({"name": "download_file",
                                "arguments": {"file_id": "F",
                                              "local_path": str(layout.app / "token.json")}}))
    roots_model.load_batch_path(str(path))
    assert [v.outcome for v in roots_model.batch_verdicts] == ["refused"]
    roots_model.load_batch_path(str(layout.base / "missing.jsonl"))
    assert roots_model.batch_verdicts == []
    assert "missing.jsonl: can't be read" in roots_model.batch_error


def test_an_unexpected_failure_is_reported_with_secrets_masked(roots_model, monkeypatch) -> None:
    import localfs_explorer.probe as probe

    def broken(*args, **kwargs):
        raise RuntimeError(f"engine exploded near {SECRET}")

    monkeypatch.setattr(probe, "probe_call", broken)
    roots_model.tool_args_text = '{"local_path": "/x"}'
    assert roots_model.last_error.startswith("tool: RuntimeError: engine exploded near ")
    assert SECRET not in roots_model.last_error and MASK in roots_model.last_error


def test_typing_is_coalesced_inside_an_event_loop(layout) -> None:
    model = ExplorerModel(cwd=str(layout.app), debounce=0.05)

    async def type_three_paths() -> tuple[list[str], list[str], int]:
        start = model.flushes
        model.paths_text = "/a"  # first change after a quiet spell: computed at once
        first = [d.path for d in model.decisions]
        model.paths_text = "/a\n/b"
        model.paths_text = "/a\n/b\n/c"  # both folded into one later recompute
        assert model.pending
        await asyncio.sleep(0.3)
        return first, [d.path for d in model.decisions], model.flushes - start

    first, last, flushes = asyncio.run(type_three_paths())
    assert first == ["/a"]
    assert last == ["/a", "/b", "/c"]
    assert flushes == 2
    assert not model.pending


def test_recompute_flushes_a_pending_change(layout) -> None:
    model = ExplorerModel(cwd=str(layout.app), debounce=10)

    async def edit() -> list[str]:
        model.paths_text = "/a"
        model.paths_text = "/b"  # would wait ten seconds
        model.recompute()
        return [d.path for d in model.decisions]

    assert asyncio.run(edit()) == ["/b"]


def test_file_edits_change_the_policy_as_the_edited_file_would(roots_model, layout) -> None:
    roots_model.set_file_value("LOCAL_FILE_ACCESS", "off")
    edited = roots_model.export_plan.text
    (layout.base / "edited.env").write_text(edited)
    expected = resolve_policy(load_env(layout.base / "edited.env"), cwd=str(layout.app),
                              package_dir=str(layout.app))
    assert roots_model.policy.mode == expected.mode and roots_model.policy.mode.value == "off"
    assert "LOCAL_FILE_ACCESS" not in roots_model.env.from_process  # the file, not the process
    roots_model.set_file_value("LOCAL_FILE_ACCESS", None)
    assert not roots_model.policy.explicit
    assert roots_model.file_value("LOCAL_FILE_ACCESS") is None
    assert roots_model.file_value("LOCAL_FILE_ROOTS") == str(layout.data)


def test_an_override_stays_in_the_process_unless_asked(roots_model, layout) -> None:
    roots_model.set_override("LOCAL_FILE_ACCESS", "full")
    assert roots_model.policy.mode.value == "full"  # the process environment wins
    assert roots_model.file_value("LOCAL_FILE_ACCESS") == "roots"  # the file still says roots
    assert "LOCAL_FILE_ACCESS=roots" in roots_model.export_plan.text
    roots_model.export_overrides = True
    assert "LOCAL_FILE_ACCESS=full" in roots_model.export_plan.text


def test_export_paths_resolve_against_the_env_directory(roots_model, layout) -> None:
    assert roots_model.default_export_dest() == str(layout.app / ".env.new")
    assert roots_model.export_path("x/y.env") == str(layout.app / "x" / "y.env")
    assert roots_model.export_path(str(layout.base / "abs.env")) == str(layout.base / "abs.env")
    roots_model.load_env_upload("prod.env", b"LOCAL_FILE_ACCESS=full\n")
    roots_model.host_cwd = str(layout.home)
    assert roots_model.export_base()[0] == str(layout.home)
    assert roots_model.export_download_name() == "prod.env"
    # An upload has no place here: no file is proposed in the dashboard's own directory.
    assert roots_model.default_export_dest() == ""
    assert roots_model.export_path("prod.env.new") == str(layout.home / "prod.env.new")
