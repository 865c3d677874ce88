"""The Explorer's widgets, driven headless: set values, click buttons, read HTML values."""

from __future__ import annotations

import json
import re

import ipywidgets as widgets
import pytest
from ui_support import SECRET, text_of, upload_value, write_roots_env

from localfs_explorer.secrets import MASK
from localfs_explorer.ui import PANELS, Explorer, ExplorerModel, Panel, PanelSpec

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def app(layout) -> Explorer:
    """An Explorer on this machine, startup directory in the server's package directory."""
    return Explorer(cwd=str(layout.app), debounce=0)


def load(app: Explorer, path) -> None:
    server = app.panel("server")
    server.env_path.value = str(path)
    server.env_load.click()


def outside_message(layout) -> str:
    return (f"{layout.outside / 'other.txt'} is outside this server's LOCAL_FILE_ROOTS. "
            f"Allowed directories: {layout.data}")


def test_the_server_panel_opens_first_and_names_the_mode(app) -> None:
    assert app.names[0] == "server" and app.tabs.selected_index == 0
    assert app.tabs.titles[0] == "Server"
    header = text_of(app.header.value)
    assert "LOCAL_FILE_ACCESS resolves to FULL" in header
    assert "defaulted: unset, so full for the stdio transport" in header
    assert "WOULD START" in header


def test_other_panels_are_built_when_first_opened(app) -> None:
    assert list(app._built) == ["server"]
    assert app._slots[2].children == ()
    paths = app.show("paths")
    assert app.tabs.selected_index == 2 and app._slots[2].children == (paths,)
    app.tabs.selected_index = 6
    assert "export" in app._built


def test_loading_a_roots_env_through_the_path_field(app, layout) -> None:
    env = write_roots_env(layout.app, layout.data, layout.home)
    load(app, env)
    server = app.panel("server")
    assert "resolves to ROOTS explicit (LOCAL_FILE_ACCESS=roots)" in text_of(app.header.value)
    assert str(layout.data) in text_of(server.roots.value)
    assert "The server would start" in text_of(server.mode.value)
    assert f"Loaded from this machine: {env}" in text_of(server.env_source.value)


def test_secrets_are_masked_in_the_environment_table_and_override_rows(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    server = app.panel("server")
    assert SECRET not in server.env_view.value
    assert f"{MASK} (secret, hidden)" in text_of(server.env_view.value)
    server.overrides.add_button.click()
    key, value, _remove = server.overrides._rows[0]
    key.value = "API_TOKEN"
    key, value, _remove = server.overrides._rows[0]
    assert isinstance(value, widgets.Password)  # typed into a password field
    value.value = "tok-abcdef-123"
    assert app.model.overrides == [("API_TOKEN", "tok-abcdef-123")]
    assert "tok-abcdef-123" not in server.env_view.value
    key.value = "LOG_FILE"  # no longer secret: an ordinary field, value kept
    assert isinstance(server.overrides._rows[0][1], widgets.Text)
    assert app.model.overrides == [("LOG_FILE", "tok-abcdef-123")]


def test_a_bad_env_path_is_shown_in_the_page(app, layout) -> None:
    load(app, layout.base / "missing.env")
    assert "✔ 1" not in text_of(app.steps.value)  # tried is not done
    message = f"{layout.base / 'missing.env'}: can't be read (no such file)"
    assert message in text_of(app.header.value)
    assert message in text_of(app.panel("server").config_error.value)
    assert app.model.last_error == ""  # a user's mistake, not a crash


def test_paths_grid_shows_exact_messages_refusals_first(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    paths = app.show("paths")
    paths.paths.value = f"{layout.data / 'report.csv'}\n{layout.outside / 'other.txt'}"
    first = paths.grid.view.iloc[0]
    assert first["verdict"] == "✘ REFUSED" and first["reason"] == "outside roots"
    assert first["what the model sees"] == outside_message(layout) and first["#"] == 2
    assert paths.grid.view.iloc[1]["verdict"] == "✔ ALLOWED"
    assert "2 path(s): 1 allowed, 1 refused (1 outside roots)" in text_of(paths.counts.value)
    paths.grid.select(0)  # a click on the first row
    detail = text_of(paths.detail.value)
    assert f"The model sees: {outside_message(layout)}" in detail
    # The verdict names the line of the .env that decided it.
    assert "not inside any root of LOCAL_FILE_ROOTS at .env line 3" in detail
    assert f"Hint: Add {layout.outside} to LOCAL_FILE_ROOTS" in detail
    assert "background:#b42318" in paths.detail.value  # colour as well as the words
    paths.grid.select(1)
    assert app.model.selected == 0
    assert "Allowed: the I/O happens on" in text_of(paths.detail.value)


def test_operation_toggle_rechecks(app, layout) -> None:
    paths = app.show("paths")
    paths.paths.value = str(layout.app / "token.json")
    assert "can't be read by a tool" in paths.grid.view.iloc[0]["what the model sees"]
    paths.op.value = "write"
    assert "can't be written by a tool" in paths.grid.view.iloc[0]["what the model sees"]


def test_a_refusal_at_row_401_is_the_first_row(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    paths = app.show("paths")
    lines = [str(layout.data / f"f{i}.csv") for i in range(400)]
    paths.paths.value = "\n".join([*lines, str(layout.outside / "other.txt")])
    table = json.loads(paths.grid.table._dt_args["data_json"])
    assert len(table) == 401  # every row is in the grid, none cut off
    assert table[0][0] == 401 and table[0][1] == "✘ REFUSED"
    assert "401 of 401 row(s) shown · 1 of them refused · refusals first" in text_of(
        paths.grid.count.value)
    # The page keeps DataTables' page-length menu and pager with the rows: without them
    # only the first page of the window could be seen. Its "showing" line stays off: the
    # grid's count line is the one.
    assert paths.grid.table._dt_args["layout"] == {
        "topStart": "pageLength", "topEnd": None, "bottomStart": None, "bottomEnd": "paging"}
    assert 1000 in paths.grid.table._dt_args["lengthMenu"]  # a whole window on one page


def test_grid_filters_by_verdict_reason_and_op(app, layout) -> None:
    paths = app.show("paths")
    paths.paths.value = "\n".join([str(layout.app / "token.json"), str(layout.data / "a"),
                                   str(layout.app / ".env")])
    grid = paths.grid
    assert list(grid.filters["verdict"].options) == ["(all)", "✔ ALLOWED", "✘ REFUSED"]
    assert grid.filters["tool"].layout.display == "none"  # no tool column here
    grid.filters["verdict"].value = "✔ ALLOWED"
    assert list(grid.view["#"]) == [2]
    # The counts speak of the same rows: none of the one shown is refused.
    assert "1 of 3 row(s) shown · 0 of them refused" in text_of(grid.count.value)
    grid.filters["verdict"].value = "(all)"
    grid.filters["reason"].value = "denied"
    assert sorted(grid.view["#"]) == [1, 3]
    grid.filters["op"].value = "read"
    assert len(grid.view) == 2
    # Sorting is the kernel's, over every row: the page doesn't re-sort its window.
    assert grid.table._dt_args["ordering"] is False
    assert "2 of 3 row(s) shown" in text_of(grid.count.value)


def test_copy_as_cli_command_asks_the_same_question(app, layout, capsys) -> None:
    import shlex

    from localfs_explorer.cli.main import main

    load(app, write_roots_env(layout.app, layout.data, layout.home))
    app.bar.add_root(str(layout.base / "home"))
    paths = app.show("paths")
    paths.paths.value = str(layout.outside / "other.txt")
    paths.grid.select(0)
    command = paths.grid.show_command()
    assert SECRET not in command and SECRET not in paths.grid.command_view.value
    argv = shlex.split(command)
    assert argv[:2] == ["localfs-explorer", "check"]
    capsys.readouterr()
    main(argv[1:])
    printed = capsys.readouterr().out
    roots = f"{layout.data}, {layout.base / 'home'}"
    assert f"{layout.outside / 'other.txt'} is outside this server's LOCAL_FILE_ROOTS. " \
           f"Allowed directories: {roots}" in printed
    assert "navigator.clipboard.writeText" in paths.grid.command_view.value


def test_a_rows_command_gives_the_rows_verdict_where_batch_and_single_differ(
        app, layout) -> None:
    import shlex

    from conftest import run_cli

    # A symlink loop followed by "//": the single check resolves the path to /x (outside
    # the root), the batch check to <loop>/x (inside). The grid answers as a batch does.
    loop = layout.data / "loop"
    loop.symlink_to(loop)
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    paths = app.show("paths")
    tricky = f"{loop}//x"
    paths.paths.value = f"{tricky}\n{layout.outside / 'other.txt'}"
    grid = paths.grid
    row = grid.view.index[grid.view["path"] == tricky][0]
    assert grid.view.iloc[row]["verdict"] == "✔ ALLOWED"
    grid.select(int(row))
    argv = shlex.split(grid.show_command())
    assert "--batch" in argv
    argv.insert(argv.index("--"), "--json")
    code, out, _err = run_cli(*argv[1:])
    assert code == 0 and json.loads(out)["allowed"] is True
    # Without --batch the same command answers otherwise: the flag is what reproduces it.
    argv.remove("--batch")
    code, out, _err = run_cli(*argv[1:])
    assert code == 1 and json.loads(out)["reason"] == "outside_roots"


def test_copy_as_command_answers_as_the_screen_with_the_bars_edits(layout) -> None:
    import shlex

    from conftest import run_cli

    # Served from the package directory; the .env is uploaded (the page can't know where
    # the server keeps it), and the bar's edits make it roots mode over data/ and home/.
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    app.model.load_env_upload(".env", f"CREDENTIALS_CONFIG={SECRET}\n".encode())
    app.bar.mode.value = "roots"
    app.bar.add_root(str(layout.data))
    app.bar.add_root(str(layout.home))
    paths = [str(layout.data / "report.csv"), str(layout.app / ".env"),
             str(layout.outside / "other.txt"), "token.json"]
    app.model.paths_text = "\n".join(paths)
    screen = {d.path: d.allowed for d in app.model.decisions}
    assumed = text_of(app.bar.note.value)
    assert f"Assumed: the uploaded .env is the server's own, in {layout.app}" in assumed
    app.model.package_dir = str(layout.app)  # said by the operator: no assumption left
    assert "Assumed" not in text_of(app.bar.note.value)
    assert screen == {paths[0]: True, paths[1]: False, paths[2]: False, paths[3]: False}
    app.share_button.click()
    command = text_of(app.share.value.split("</pre>")[0])
    assert SECRET not in app.share.value and "lfe-copy" in app.share.value
    argv = shlex.split(command)
    assert argv[argv.index("--cwd") + 1] == argv[argv.index("--package-dir") + 1] == \
        str(layout.app)
    # The uploaded file travels in the command (stdin, its secret a placeholder), and the
    # command run as shown gives the screen's verdicts.
    import html
    import re

    shown = html.unescape(re.sub(r"<[^>]+>", "", app.share.value.split("</pre>")[0]))
    line, _, heredoc = shown.partition(" <<'ENV'\n")
    assert argv[argv.index("--env") + 1] == "-" and heredoc.endswith("\nENV")
    stdin = heredoc[: -len("ENV")]
    assert "CREDENTIALS_CONFIG='<your CREDENTIALS_CONFIG>'" in stdin
    words = shlex.split(line)
    words.insert(words.index("--"), "--json")
    code, out, err = run_cli(*words[1:], stdin=stdin)
    assert code == 1  # some refused
    answers = {json.loads(line)["path"]: json.loads(line)["allowed"]
               for line in out.splitlines() if line.strip()}
    assert answers == screen, err


def test_a_second_env_starts_without_the_firsts_edits_and_traps_asks_first(
        app, layout) -> None:
    first = write_roots_env(layout.app, layout.data, layout.home)
    load(app, first)
    app.bar.mode.value = "full"
    assert app.model.file_edits == {"LOCAL_FILE_ACCESS": "full"}
    second = layout.base / "second.env"
    second.write_text("LOCAL_FILE_ACCESS=off\n")
    load(app, second)
    assert app.model.file_edits == {}
    assert app.bar.mode.value == "off" and "resolves to OFF" in text_of(app.header.value)
    app.bar.mode.value = "roots"
    app.model.load_env_upload("third.env", b"LOCAL_FILE_ACCESS=full\n")
    assert app.model.file_edits == {} and app.bar.mode.value == "full"
    # The example would replace that work: it asks, and "keep" keeps everything.
    app.traps.click()
    assert app.traps_ask.layout.display == "flex"
    assert "Replace them?" in text_of(app.traps_question.value)
    assert app.model.env_name == "third.env" and app.model.target == "host"
    app.traps_cancel.click()
    assert app.traps_ask.layout.display == "none" and app.model.env_name == "third.env"
    app.traps.click()
    app.traps_confirm.click()
    assert app.model.target == "example:traps" and app.model.env_text is None
    assert app.traps_ask.layout.display == "none"


def test_the_traps_example_opens_at_once_on_a_fresh_page(app) -> None:
    app.traps.click()
    assert app.model.target == "example:traps" and app.traps_ask.layout.display == "none"


def test_the_live_region_speaks_when_the_verdict_turns_and_only_then(app, layout) -> None:
    from localfs_explorer.ui.a11y import PageAccess

    load(app, write_roots_env(layout.app, layout.data, layout.home))
    assert isinstance(app.children[1], PageAccess)
    said: list[str] = []
    app.access.observe(lambda c: said.append(c["new"]), names="announcement")
    app.bar.add_root(str(layout.base / "gone"))
    app.bar.add_root(str(layout.base / "gone-too"))  # still exits: nothing new to say
    app.bar.remove_root(str(layout.base / "gone"))
    app.bar.remove_root(str(layout.base / "gone-too"))
    assert len(said) == 2
    assert said[0].startswith("Would exit at startup:") and "gone" in said[0]
    assert said[1] == "Would start: the server serves with this configuration."


def test_a_pasted_env_and_pasted_calls_are_read_like_uploads(app, layout) -> None:
    server = app.panel("server")
    server.env_paste.value = (f"LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={layout.data}\n"
                              f"CREDENTIALS_CONFIG={SECRET}\n")
    server.env_paste_use.click()
    assert app.model.env_name == "pasted .env"
    assert "explicit (LOCAL_FILE_ACCESS=roots)" in text_of(app.header.value)
    batch = app.show("batch")
    call = {"name": "upload_local_file",
            "arguments": {"local_path": str(layout.outside / "other.txt"),
                          "parent_folder_id": "F"}}
    batch.paste.value = json.dumps(call)
    batch.paste_run.click()
    assert app.model.batch_name == "pasted calls"
    assert batch.grid.view.iloc[0]["verdict"] == "✘ REFUSED"
    assert SECRET not in app.panel("server").env_view.value


def test_pinned_rows_are_listed_in_scenarios_and_run_there(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    scenarios = app.panel("scenarios")
    assert scenarios.pinned_load.disabled and "None yet" in text_of(scenarios.pinned.value)
    paths = app.show("paths")
    paths.paths.value = str(layout.outside / "other.txt")
    paths.grid.select(0)
    paths.grid.pin_selected()
    assert f"path {layout.outside / 'other.txt'} (read)" in text_of(scenarios.pinned.value)
    scenarios.pinned_load.click()
    assert "[[scenario]]" in scenarios.text.value and SECRET not in scenarios.text.value
    scenarios.run.click()
    assert text_of(scenarios.summary.value) == "1 passed, 0 failed"
    assert "lfe-box-ok" in scenarios.summary.value


def test_pin_as_scenario_makes_a_passing_scenario(app, layout) -> None:
    from localfs_explorer.review.scenarios import run_scenario_text
    from localfs_explorer.ui.commands import pinned_toml

    load(app, write_roots_env(layout.app, layout.data, layout.home))
    paths = app.show("paths")
    paths.paths.value = f"{layout.outside / 'other.txt'}\n{layout.data / 'report.csv'}"
    paths.grid.select(0)
    paths.grid.pin_selected()
    assert "Pinned: 1 scenario(s)" in text_of(paths.grid.pin_note.value)
    text = pinned_toml(app.model)
    assert SECRET not in text and "outside roots" in text.replace("_", " ")
    result = run_scenario_text(text)
    assert result.error is None and result.cases
    assert all(c.passed for c in result.cases)
    # The pinned expectation fails once the answer changes.
    broken = text.replace("allowed = false", "allowed = true")
    assert not all(c.passed for c in run_scenario_text(broken).cases)


def test_tool_form_writes_the_arguments_and_shows_the_verdict(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    tool = app.show("tool")
    tool.tool.value = "download_file"
    tool.tool.value = "upload_local_file"
    assert app.model.tool_name == "upload_local_file"
    # Picking a tool starts its arguments with the server's required ones.
    assert json.loads(app.model.tool_args_text) == {
        "local_path": "<local_path>", "parent_folder_id": "<parent_folder_id>"}
    field = tool._fields["local_path"]
    field.value = str(layout.outside / "other.txt")
    assert json.loads(app.model.tool_args_text) == {
        "local_path": str(layout.outside / "other.txt"), "parent_folder_id": "<parent_folder_id>"}
    verdict = text_of(tool.verdict.value)
    assert "✘ REFUSED" in verdict
    assert f"The model gets back: {outside_message(layout)}" in verdict
    # Editing the JSON updates the form.
    tool.args.value = json.dumps({"local_path": str(layout.data / "report.csv"),
                                  "parent_folder_id": "F"})
    assert field.value == str(layout.data / "report.csv")
    assert "✔ OK" in text_of(tool.verdict.value)


def test_a_placeholder_is_a_blank_to_fill_in_not_a_path_to_judge(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    (layout.app / "<local_path>").write_text("a file by that very name")
    tool = app.show("tool")
    tool.tool.value = "download_file"
    tool.tool.value = "upload_local_file"
    assert json.loads(app.model.tool_args_text)["local_path"] == "<local_path>"
    assert app.model.call_verdict is None
    shown = text_of(tool.verdict.value)
    assert "fill in local_path (it still says <local_path>)" in shown
    assert "no verdict until it names a path" in shown
    assert "REFUSED" not in shown and "OK" not in shown
    # Other arguments may keep theirs: only a path waits to be filled in.
    tool._fields["local_path"].value = str(layout.data / "report.csv")
    assert app.model.call_verdict.outcome == "ok"
    assert "✔ OK" in text_of(tool.verdict.value)
    # In a list, each placeholder is named; the real paths aren't.
    tool.tool.value = "send_message"
    tool._fields["attachments[].local_path"].value = f"{layout.data / 'report.csv'}\n<file>"
    assert app.model.call_verdict is None
    assert "fill in attachments[1].local_path (it still says <file>)" in text_of(
        tool.verdict.value)
    # A tool the configuration doesn't register is refused whatever its paths say.
    app.model.set_override("LOCAL_FILE_ACCESS", "off")
    tool.tool.value = "upload_local_file"
    assert app.model.call_verdict.outcome == "absent"
    assert "⊘ ABSENT" in text_of(tool.verdict.value)


def test_list_of_objects_form_field(app, layout) -> None:
    tool = app.show("tool")
    tool.tool.value = "send_message"
    tool._fields["attachments[].local_path"].value = f"{layout.data / 'report.csv'}\n/tmp/b"
    assert json.loads(app.model.tool_args_text) == {
        "to": "<to>", "subject": "<subject>", "body": "<body>",
        "attachments": [{"local_path": str(layout.data / "report.csv")}, {"local_path": "/tmp/b"}]
    }


def test_unregistered_tools_are_marked_in_the_picker(app) -> None:
    app.panel("server").transport.value = "sse"  # unset over SSE: off
    tool = app.show("tool")
    labels = dict((value, label) for label, value in tool.tool.options)
    assert labels["upload_local_file"] == "upload_local_file (not registered)"
    assert labels["get_sheet_data"] == "get_sheet_data"
    # Every label starts with the tool's name (typing its first letters finds it), and
    # the registered tools come first.
    values = [value for _label, value in tool.tool.options]
    assert all(label.startswith(value) for label, value in tool.tool.options)
    assert values.index("get_sheet_data") < values.index("upload_local_file")
    tool.tool.value = "upload_local_file"
    assert "local-only and local file access is off" in text_of(tool.tool_info.value)
    assert "⊘ ABSENT" in text_of(tool.verdict.value)


def test_batch_upload_progress_counts_and_csv_link(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    batch = app.show("batch")
    calls = [
        {"name": "upload_local_file",
         "arguments": {"local_path": str(layout.data / "report.csv"), "parent_folder_id": "F"}},
        {"name": "upload_local_file",
         "arguments": {"local_path": str(layout.outside / "x"), "parent_folder_id": "F"}},
        {"name": "download_file",
         "arguments": {"file_id": "F", "local_path": str(layout.data / "new.csv")}},
        {"name": "no_such_tool", "arguments": {"local_path": str(layout.data / "report.csv")}},
    ]
    content = "\n".join(json.dumps(c) for c in calls).encode()
    batch.upload.value = upload_value("calls.jsonl", content)
    assert batch.progress.value == batch.progress.max == 4
    assert "4 / 4 calls, done" in text_of(batch.progress_label.value)
    outcomes = " ".join(text_of(batch.outcomes.value).split())
    assert "✔ OK 3" in outcomes and "✘ REFUSED 1" in outcomes
    assert "download_file" in batch.tools.value
    assert batch.csv.value == ""  # megabytes for a big batch: made only when asked for
    batch.csv_prepare.click()
    assert 'download="localfs-explorer-batch.csv"' in batch.csv.value
    assert 'href="data:text/csv;base64,' in batch.csv.value
    view = batch.grid.view
    assert list(view["#"]) == [2, 4, 1, 3]  # the refusal, then the unknown tool
    assert view.iloc[1]["verdict"] == "? UNKNOWN TOOL"  # never counted as OK
    assert "✔" not in view.iloc[1]["verdict"]
    assert "1 call(s) name a tool the catalog doesn't know" in text_of(batch.outcomes.value)
    batch.grid.select(1)
    assert "? UNKNOWN TOOL — no_such_tool is not in the catalog" in text_of(
        batch.grid.detail.value)
    batch.grid.filters["verdict"].value = "? UNKNOWN TOOL"
    assert list(batch.grid.view["#"]) == [4]
    batch.grid.filters["verdict"].value = "(all)"
    batch.grid.filters["tool"].value = "download_file"
    assert list(batch.grid.view["#"]) == [3]
    batch.grid.filters["tool"].value = "(all)"
    batch.grid.select(0)
    detail = text_of(batch.grid.detail.value)
    assert "call 2, line 2" in detail and "REFUSED · outside roots" in detail
    assert '"local_path": "' + str(layout.outside / "x") in batch.grid.show_command()
    assert "access.json" not in batch.grid.command_view.value
    # With access lists the command names access.json, and the note offers it.
    app.model.access_text = '{"server": {"deny_list": ["download_file"]}}'
    assert "--access access.json" in batch.grid.show_command()
    assert 'download="access.json"' in batch.grid.command_view.value


def test_every_refused_entry_of_a_partial_sync_is_in_its_detail(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    for i in range(350):
        (layout.data / "sub" / f"f{i:03}.txt").write_text("x")
    (layout.data / "sub" / "token-link.json").symlink_to(layout.app / "token.json")
    batch = app.show("batch")
    call = {"name": "sync_folder", "arguments": {"local_path": str(layout.data / "sub"),
                                                 "direction": "upload", "recursive": True,
                                                 "folder_id": "F"}}
    batch.upload.value = upload_value("calls.jsonl", json.dumps(call).encode())
    assert batch.grid.view.iloc[0]["verdict"] == "◐ PARTIAL"
    batch.grid.select(0)
    detail = batch.grid.detail.value
    assert "token-link.json" in detail  # the refused entry, though 350 others were fine
    assert detail.count("<tr>") > 300  # every entry, not the first 300


def test_auth_status_panel_is_live(app, layout) -> None:
    auth = app.show("auth")
    assert '"mode": "full"' in text_of(auth.view.value)
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    shown = text_of(auth.view.value)
    assert '"mode": "roots"' in shown and str(layout.data) in shown


def test_export_panel_diff_blocking_and_writing(app, layout) -> None:
    env = write_roots_env(layout.app, layout.data, layout.home)
    load(app, env)
    export = app.show("export")
    app.model.set_file_value("LOG_FILE", str(layout.base / "server.log"))
    diff = text_of(export.diff.value)
    assert f"+LOG_FILE={layout.base / 'server.log'}" in diff
    assert SECRET not in export.diff.value and f"CREDENTIALS_CONFIG={MASK}" in diff
    assert "Valid: the server would start" in text_of(export.status.value)
    export.prepare.click()
    assert 'download="server.env"' in export.download.value
    assert "rename it to .env" in text_of(export.download.value)
    assert "data:application/octet-stream;base64," in export.download.value
    assert app.model.export_done == "server.env"
    dest = layout.base / "out.env"
    dest.write_text("OLD=1\n")
    export.dest.value = str(dest)
    info = text_of(export.dest_info.value)
    assert f"Writes {dest}" in info and "a file is there now" in info
    against = text_of(export.dest_diff.value)  # what writing changes there, names only
    assert "removed: OLD" in against and "added: " in against and "LOG_FILE" in against
    export.write.click()
    assert "Not written" in text_of(export.result.value)
    assert "already exists" in text_of(export.result.value)
    assert dest.read_text() == "OLD=1\n"
    export.force.value = True
    export.write.click()
    assert "wrote" in text_of(export.result.value) and "LOG_FILE=" in dest.read_text()
    assert app.model.export_done == str(dest)
    # An invalid change blocks the export, with the reason.
    app.model.set_file_value("LOCAL_FILE_ROOTS", str(layout.base / "gone"))
    status = text_of(export.status.value)
    assert "Blocked" in status and "isn't an existing directory" in status
    assert export.write.disabled and export.prepare.disabled
    assert export.download.value == ""  # a prepared link never outlives its plan


def test_export_destination_shows_no_other_files_body_and_refuses_executable_names(
        app, layout) -> None:
    from localfs_explorer.ui.inputs import looks_like_env_name

    load(app, write_roots_env(layout.app, layout.data, layout.home))
    export = app.show("export")
    body = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB"
    shadow = layout.base / "shadow"
    shadow.write_text("root:$6$saltsalt$hashhashhash:19000:0:99999:7:::\n")
    key = layout.base / "id_ed25519.env"  # named like a .env, holding a private key
    key.write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n"
                   "-----END OPENSSH PRIVATE KEY-----\n")
    bare = layout.base / "bare.env"  # base64 lines parse as keys without a value
    bare.write_text(f"{body}\n")
    for path, why in ((shadow, "it isn't named like a .env"),
                      (key, "it can't be read as a .env"),
                      (bare, "not every line of it is a KEY=VALUE setting")):
        export.dest.value = str(path)
        shown = export.dest_info.value + export.dest_diff.value
        assert "hashhash" not in shown and body not in shown and "root:" not in shown
        assert f"what it holds isn't shown: {why}" in text_of(export.dest_info.value)
        assert export.dest_diff.value == ""
    # A .env there is summarised by setting name: no value of it reaches the page.
    other = layout.base / "prod.env"
    other.write_text("LOCAL_FILE_ACCESS=roots\nAPI_KEY=plain-looking-value-77\n")
    export.dest.value = str(other)
    assert "plain-looking-value-77" not in export.dest_diff.value
    assert "removed: API_KEY" in text_of(export.dest_diff.value)
    # Names Python (or a shell) runs are never destinations, even with any name allowed.
    app.model.any_output_name = True
    for name in (".env.pth", "x.env.py", ".env.sh", "sitecustomize.env"):
        assert not looks_like_env_name(name)
        export.dest.value = str(layout.base / name)
        assert "refused: a name that is run or imported" in text_of(export.dest_info.value)
        export.write.click()
        assert "Not written" in text_of(export.result.value)
        assert not (layout.base / name).exists()
    assert looks_like_env_name(".env.local") and looks_like_env_name("prod.env")


def test_export_defaults_beside_the_env_and_takes_relative_paths_against_it(app, layout) -> None:
    env = write_roots_env(layout.app, layout.data, layout.home)
    load(app, env)
    export = app.show("export")
    assert export.dest.value == str(layout.app / ".env.new")
    export.dest.value = "staged.env"
    info = text_of(export.dest_info.value)
    assert f"Writes {layout.app / 'staged.env'}" in info
    assert f"taken against the loaded .env's directory, {layout.app}" in info
    assert "nothing is there yet" in info
    assert "git checkout" not in info
    export.write.click()
    assert (layout.app / "staged.env").read_text() == env.read_text()
    assert not (layout.base / "staged.env").exists()


def test_export_warns_inside_a_git_checkout(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    (layout.base / ".git").mkdir()
    export = app.show("export")
    export.dest.value = str(layout.app / "x.env")
    warning = text_of(export.dest_info.value)
    assert f"inside the git checkout {layout.base}" in warning


def test_export_says_where_each_change_goes(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    export = app.show("export")
    app.model.set_override("LOG_FILE", str(layout.base / "server.log"))
    app.bar.mode.value = "full"
    changes = text_of(export.changes.value)
    assert "LOCAL_FILE_ACCESS → .env (policy bar)" in changes
    assert "LOG_FILE → process environment only: not written to the .env" in changes
    assert "LOG_FILE" not in app.model.export_plan.text
    assert "LOCAL_FILE_ACCESS=full" in app.model.export_plan.text
    export.include_overrides.value = True
    assert "LOG_FILE → .env (process-environment override, written too)" in text_of(
        export.changes.value)
    assert f"LOG_FILE={layout.base / 'server.log'}" in app.model.export_plan.text


def test_policy_bar_edits_the_env_being_prepared(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    bar = app.bar
    assert bar.mode.value == "roots"
    assert [c for c in bar.roots()] == [str(layout.data)]
    assert "✔ exists" in text_of(bar.chips.children[0].children[0].value)
    assert "WOULD START" in text_of(app.header.value)
    bar.root_input.value = str(layout.base / "missing")
    assert app.model.file_edits["LOCAL_FILE_ROOTS"] == f"{layout.data}:{layout.base / 'missing'}"
    header = text_of(app.header.value)
    assert "✘ WOULD EXIT" in header and "isn't an existing directory" in header
    assert "✘ isn't an existing directory" in text_of(bar.chips.children[1].children[0].value)
    bar.chips.children[1].children[1].click()  # the chip's remove button
    assert bar.roots() == [str(layout.data)]
    assert "WOULD START" in text_of(app.header.value)
    bar.mode.value = "unset"
    assert app.model.file_edits["LOCAL_FILE_ACCESS"] is None
    assert "LOCAL_FILE_ACCESS" not in app.model.export_plan.text.replace("# ", "")
    assert app.model.overrides == []  # the process environment is untouched
    bar.transport.value = "sse"
    assert app.model.transport == "sse"
    assert "LOCAL_FILE_ACCESS resolves to OFF" in text_of(app.header.value)


def test_policy_bar_roots_outside_roots_mode_still_say_whether_they_exist(app, layout) -> None:
    app.bar.mode.value = "full"
    app.bar.add_root(str(layout.base / "nowhere"))
    app.bar.add_root(str(layout.data))
    labels = [text_of(chip.children[0].value) for chip in app.bar.chips.children[:2]]
    assert "✘ missing" in labels[0] and "✔ exists" in labels[1]
    assert all("not used: the mode is full" in label for label in labels)
    assert "ignored" not in " ".join(labels)
    assert "⚠ Full access : a tool may read and write every file" in text_of(app.header.value)
    assert "not used: the mode is full" in text_of(app.panel("server").roots.value)
    app.bar.mode.value = "roots"
    assert "Full access" not in text_of(app.header.value)
    assert "not used" not in text_of(app.bar.chips.children[1].children[0].value)


def test_adding_a_root_keeps_the_files_references_and_no_secret_in_clear(app, layout) -> None:
    # The roots are written with references; one of them names the secret setting.
    env = write_roots_env(layout.app, layout.data, layout.home)
    text = env.read_text().replace(f"LOCAL_FILE_ROOTS={layout.data}\n", "")
    env.write_text(f"DATA_DIR={layout.data}\n{text}"
                   "LOCAL_FILE_ROOTS=${DATA_DIR}:" f"{layout.base}/" "${CREDENTIALS_CONFIG}\n")
    (layout.base / SECRET).mkdir()
    load(app, env)
    bar = app.bar
    assert bar.roots() == ["${DATA_DIR}", f"{layout.base}/" "${CREDENTIALS_CONFIG}"]
    labels = [text_of(chip.children[0].value) for chip in bar.chips.children[:2]]
    assert f"→ {layout.data}" in labels[0] and "✔ exists" in labels[0]
    assert SECRET not in " ".join(labels) and f"→ {layout.base}/{MASK}" in labels[1]
    bar.add_root(str(layout.home))
    line = [ln for ln in app.model.export_plan.text.splitlines()
            if ln.startswith("LOCAL_FILE_ROOTS=")]
    assert line == ["LOCAL_FILE_ROOTS=${DATA_DIR}:" f"{layout.base}/" "${CREDENTIALS_CONFIG}:"
                    f"{layout.home}"]
    # The server reads the new file as the page does: three roots, the first one exists.
    assert "✔ exists" in text_of(bar.chips.children[0].children[0].value)
    assert len(app.model.policy.roots) == 3


def test_policy_bar_says_when_the_process_environment_wins(app, layout) -> None:
    app.model.set_override("LOCAL_FILE_ACCESS", "off")
    app.bar.mode.value = "full"
    assert "The process environment sets LOCAL_FILE_ACCESS" in text_of(app.bar.note.value)
    assert "LOCAL_FILE_ACCESS resolves to OFF" in text_of(app.header.value)


def test_first_run_title_steps_and_traps_example(app) -> None:
    assert "Local-file access explorer" in text_of(app.title.value)
    assert "✔" not in text_of(app.steps.value)
    assert "defaulted: unset" in text_of(app.header.value)
    assert "lfe-badge-warning" in app.header.value  # a defaulted mode is not shown green
    app.traps.click()
    assert app.tabs.selected_index == app.names.index("paths")
    assert "target example host traps" in text_of(app.header.value)
    assert "✔ 1 · load a .env" in text_of(app.steps.value)
    assert "✔ 2 · probe paths and calls" in text_of(app.steps.value)
    assert [d.allowed for d in app.model.decisions].count(False) == 3


def test_a_failing_callback_is_shown_and_can_be_dismissed(app, monkeypatch) -> None:
    import localfs_explorer.probe as probe

    def broken(*args, **kwargs):
        raise RuntimeError("probe blew up")

    monkeypatch.setattr(probe, "probe_call", broken)
    tool = app.show("tool")
    tool.args.value = '{"local_path": "/x"}'
    assert "Something failed: tool: RuntimeError: probe blew up" in text_of(app.error.value)
    assert app.error_row.layout.display == "flex"
    app.dismiss.click()
    assert app.error.value == "" and app.error_row.layout.display == "none"


def test_a_panel_that_cannot_be_imported_says_so(layout) -> None:
    specs = [*PANELS, PanelSpec("later", "Later", "localfs_explorer.ui.no_such_panel:Nope")]
    app = Explorer(panels=specs, cwd=str(layout.app), debounce=0)
    shown = app.show("later")
    # The import error is reported as the failure it is, not passed off as a plan.
    assert "Later could not be built" in text_of(shown.value)
    assert "no_such_panel" in text_of(shown.value)
    assert "ModuleNotFoundError" in app.model.last_error
    assert "LOCAL_FILE_ACCESS" in text_of(app.header.value)  # the rest still works


def test_adding_a_panel_is_one_registry_entry(layout) -> None:
    class Counter(Panel):
        name = "count"
        title = "Count"
        watches = ("paths_rev",)

        def build(self):
            self.out = widgets.HTML()
            return [self.out]

        def refresh(self):
            self.out.value = f"{len(self.model.decisions)} paths"

    app = Explorer(panels=[*PANELS, PanelSpec("count", "Count", Counter)], debounce=0,
                   cwd=str(layout.app))
    assert app.tabs.titles[-1] == "Count"
    counter = app.show("count")
    app.model.paths_text = "/a\n/b"
    assert counter.out.value == "2 paths"


def test_explorer_accepts_an_existing_model(layout) -> None:
    model = ExplorerModel(cwd=str(layout.app), debounce=0, paths_text="/etc/hostname")
    app = Explorer(model)
    assert app.model is model
    assert "1 path(s)" in text_of(app.show("paths").counts.value)


def test_the_server_panel_names_the_server_release_it_reproduces(app) -> None:
    version = app.model.policy.profile.server_version
    assert version
    assert f"Verdicts reproduce mcp-gee-sweet {version}" in text_of(
        app.panel("server").mode.value)


def test_tool_call_opens_on_a_real_call_not_an_error(app) -> None:
    tool = app.show("tool")
    assert app.model.tool_name == "upload_local_file"
    assert json.loads(app.model.tool_args_text) == {
        "local_path": "~/Documents/quarterly-report.pdf", "parent_folder_id": "root"}
    assert app.model.call_error == "" and app.model.call_verdict is not None
    assert "upload_local_file" in text_of(tool.verdict.value)


def test_buttons_need_no_icon_font(app) -> None:
    for name in app.names:
        app.panel(name)
    found = []

    def walk(widget) -> None:
        if isinstance(widget, widgets.Button) and widget.icon:
            found.append(widget.description)
        for child in getattr(widget, "children", ()):
            walk(child)

    walk(app)
    assert found == []


def test_session_example_changes_with_approve_or_deny(app) -> None:
    session = app.show("session")
    session.example.click()
    assert app.model.access_text.strip() and session.access.value == app.model.access_text
    summary = text_of(session.summary.value)
    assert "2 prompt(s)" in summary
    approved = list(session.grid.frame["verdict"])
    assert approved == ["✔ OK", "✔ OK", "✔ OK"]
    session.answers.value = "deny"
    assert list(session.grid.frame["verdict"]) == ["✘ DECLINED"] * 3
    assert "3 prompt(s)" in text_of(session.summary.value)
    session.grid.select(0)
    assert "refused" in text_of(session.grid.detail.value)
    # The tab's own access lists: emptied, nothing waits for the person any more.
    session.access.value = ""
    assert list(session.grid.frame["verdict"]) == ["✔ OK"] * 3
    assert "0 prompt(s)" in text_of(session.summary.value)


def test_compare_lists_every_change_in_the_grid_new_access_first() -> None:
    from localfs_explorer.ui.model import ExplorerModel

    model = ExplorerModel(target="example:traps", cwd="/app", package_dir="/app", debounce=0,
                          file_edits={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/data"})
    compare = Explorer(model).show("compare")
    compare.changes.value = "LOCAL_FILE_ROOTS=/data:/srv/outside\n"
    compare.compare()
    counts = compare.result.counts()
    frame = compare.grid.frame
    assert len(frame) == len(compare.result.changes) == sum(counts.values())
    assert counts["new_access"] > 0 and frame.iloc[0]["verdict"] == "new access"
    assert frame.iloc[0]["before"].startswith("REFUSED") and frame.iloc[0]["after"] == "ALLOWED"
    compare.grid.select(0)
    assert "/srv/outside" in text_of(compare.grid.detail.value)


def test_grid_cells_are_escaped_and_paths_wrap_only_at_slashes(app, layout) -> None:
    paths = app.show("paths")
    paths.paths.value = f"{layout.data}/a-b/<x>.csv"
    row = json.loads(paths.grid.table._dt_args["data_json"])[0]
    cell = row[4]
    assert '<span class="lfe-seg">a-b</span>/<wbr>' in cell  # "a-b" stays whole
    assert '<span class="lfe-seg">&lt;x&gt;.csv</span>' in cell and "<x>" not in cell
    assert re.sub(r"<[^>]+>", "", cell) == f"{layout.data}/a-b/&lt;x&gt;.csv"
    assert "<x>" not in row[6]  # the message is escaped too


def test_the_grid_keeps_every_one_of_20000_rows(app, layout) -> None:
    from localfs_explorer.ui.grid import WINDOW

    paths = app.show("paths")
    grid = paths.grid
    lines = [str(layout.data / f"f{i}.csv") for i in range(19_999)]
    paths.paths.value = "\n".join([*lines, str(layout.app / "token.json")])
    assert len(grid.view) == 20_000  # every row kept, none sampled away
    table = json.loads(grid.table._dt_args["data_json"])
    assert len(table) == WINDOW  # the page gets one window at a time
    assert table[0][0] == 20_000 and "REFUSED" in table[0][1]
    assert "rows 1–1000 of 20000" in text_of(grid.count.value)
    assert grid.previous.disabled and not grid.next.disabled
    for _ in range(25):
        grid.next.click()
    assert grid.next.disabled and "rows 19001–20000 of 20000" in text_of(grid.count.value)
    assert json.loads(grid.table._dt_args["data_json"])[-1][0] == 19_999
    grid.select(5)  # a row outside the window brings its window back
    assert "rows 1–1000" in text_of(grid.count.value)
    assert app.model.decisions[grid.selected_source].path == lines[4]


def test_grid_sorts_and_searches_every_row(app, layout) -> None:
    paths = app.show("paths")
    grid = paths.grid
    names = ["b.csv", "C.csv", "a.csv"]
    paths.paths.value = "\n".join([*(str(layout.data / n) for n in names),
                                   str(layout.app / "token.json")])
    assert list(grid.view["#"]) == [4, 1, 2, 3]  # refusals first
    grid.sort.value = "path"
    names_of = lambda: [p.rsplit("/", 1)[-1] for p in grid.view["path"]]  # noqa: E731
    assert names_of() == ["token.json", "a.csv", "b.csv", "C.csv"]  # case-insensitive
    grid.descending.value = True
    assert names_of() == ["C.csv", "b.csv", "a.csv", "token.json"]
    first = json.loads(grid.table._dt_args["data_json"])[0]
    assert first[0] == 2  # the page shows the kernel's order
    grid.search.value = "B.CS"
    assert names_of() == ["b.csv"]
    assert "1 of 4 row(s) shown" in text_of(grid.count.value)


def _view_row(grid, column: str, value: str) -> int:
    """The view position of the first row whose ``column`` is ``value``."""
    return next(i for i, v in enumerate(grid.view[column]) if v == value)


def test_compare_with_a_second_env_file_pasted_or_uploaded(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    compare = app.show("compare")
    other_secret = "other-client-secret-5e1d"
    second = (f"LOCAL_FILE_ACCESS=roots\nLOCAL_FILE_ROOTS={layout.data}:{layout.outside}\n"
              f"CREDENTIALS_CONFIG={other_secret}\nLOG_FILE={layout.data / 'x.log'}\n")
    compare.other_paste.value = second
    compare.other_use.click()
    # The change list says what differs; HOME, missing from the second file, is unset.
    assert sorted(compare.changes.value.splitlines()) == sorted([
        f"LOCAL_FILE_ROOTS={layout.data}:{layout.outside}",
        f"LOG_FILE={layout.data / 'x.log'}", "-HOME"])
    note = text_of(compare.other_note.value)
    assert "3 setting(s) set, 1 unset" in note and "CREDENTIALS_CONFIG also differ" in note
    for shown in (compare.changes.value, compare.other_note.value):
        assert other_secret not in shown and SECRET not in shown
    # The secret's change is applied all the same: the other side is the second file.
    other = compare.other_policy()
    assert other.env.get("CREDENTIALS_CONFIG") == other_secret
    assert other.env.get("HOME") is None
    compare.paths.value = str(layout.outside / "other.txt")
    compare.compare()
    assert compare.result.counts()["new_access"] > 0
    assert compare.change[0]["CREDENTIALS_CONFIG"] == other_secret  # the row commands too
    # Clearing the list drops the unseen change with it.
    compare.changes.value = ""
    assert compare.other_policy().env.get("CREDENTIALS_CONFIG") == SECRET
    # Uploaded the same way; a bad file is named with its lines, nothing replaced.
    compare.changes.value = "LOG_FILE=/kept"
    compare.other_upload.value = upload_value("staging.env", b"A B\nC D\n")
    assert "2 lines can't be parsed" in text_of(compare.other_note.value)
    assert compare.changes.value == "LOG_FILE=/kept"
    compare.other_upload.value = upload_value("staging.env", second.encode())
    assert "into staging.env's" in text_of(compare.other_note.value)
    assert "-HOME" in compare.changes.value.splitlines()


def test_compare_row_copies_and_pins_the_after_sides_question(app, layout, capsys) -> None:
    import shlex

    from localfs_explorer.cli.main import main
    from localfs_explorer.review.scenarios import run_scenario_text
    from localfs_explorer.ui.commands import pinned_toml

    load(app, write_roots_env(layout.app, layout.data, layout.home))
    compare = app.show("compare")
    other = str(layout.outside / "other.txt")
    compare.changes.value = (f"LOCAL_FILE_ROOTS={layout.data}:{layout.outside}\n"
                             "CREDENTIALS_CONFIG=changed-secret-77\n")
    compare.paths.value = other
    compare.generated.value = False
    compare.compare()
    grid = compare.grid
    assert "after side" in grid.cli_button.tooltip
    grid.select(_view_row(grid, "probe", f"read {other}"))
    assert grid.view.iloc[grid.table.selected_rows[0]]["after"] == "ALLOWED"
    command = grid.show_command()
    for secret in (SECRET, "changed-secret-77"):
        assert secret not in command and secret not in grid.command_view.value
    argv = shlex.split(command)
    assert argv[:2] == ["localfs-explorer", "check"] and argv[-1] == other
    assert "the changed configuration" in text_of(grid.command_view.value)
    capsys.readouterr()
    assert main(argv[1:]) == 0  # the after side allows it, as the row says
    assert "ALLOWED" in capsys.readouterr().out
    # Pinned: a scenario on the changed configuration that passes, and fails once the
    # expected answer is the before side's.
    grid.pin_selected()
    assert "Pinned: 1 scenario(s)" in text_of(grid.pin_note.value)
    assert "CREDENTIALS_CONFIG" in text_of(grid.pin_note.value)  # named as left out
    text = pinned_toml(app.model)
    assert "changed-secret-77" not in text and SECRET not in text
    assert "allowed = true" in text and str(layout.outside) in text
    result = run_scenario_text(text)
    assert result.error is None and result.cases and all(c.passed for c in result.cases)
    broken = text.replace("allowed = true", "allowed = false")
    assert not all(c.passed for c in run_scenario_text(broken).cases)
    # The other direction: the current configuration is the after side, which refuses.
    compare.direction.value = "current_after"
    compare.compare()
    grid.select(_view_row(grid, "probe", f"read {other}"))
    argv = shlex.split(grid.show_command())
    assert "--set" not in " ".join(a for a in argv if a.startswith("LOCAL_FILE_ROOTS"))
    capsys.readouterr()
    assert main(argv[1:]) == 1
    assert "outside this server's LOCAL_FILE_ROOTS" in capsys.readouterr().out
    assert "changed since this comparison" not in text_of(grid.command_view.value)
    app.bar.add_root(str(layout.home))  # the current configuration moves on
    grid.show_command()
    assert "changed since this comparison" in text_of(grid.command_view.value)


def test_compare_call_row_copies_a_probe_line(app, layout, capsys) -> None:
    import shlex

    from localfs_explorer.cli.main import main

    load(app, write_roots_env(layout.app, layout.data, layout.home))
    compare = app.show("compare")
    compare.changes.value = f"LOCAL_FILE_ROOTS={layout.data}:{layout.outside}\n"
    compare.compare()
    grid = compare.grid
    row = _view_row(grid, "kind", "call")
    after = grid.view.iloc[row]["after"]
    grid.select(row)
    argv = shlex.split(grid.show_command())
    assert argv[:2] == ["localfs-explorer", "probe"] and "--call" in argv
    capsys.readouterr()
    main(argv[1:])
    assert after.split()[0] in capsys.readouterr().out.upper()
    assert 'download="access.json"' not in grid.command_view.value  # no access lists


def test_session_row_copies_the_replay_and_pins_the_call(app, layout, capsys,
                                                         monkeypatch) -> None:
    import shlex

    from localfs_explorer.cli.main import main
    from localfs_explorer.review.scenarios import run_scenario_text
    from localfs_explorer.ui.commands import pinned_toml

    session = app.show("session")
    session.example.click()
    session.answers.value = "deny"
    grid = session.grid
    assert "session.json" in grid.cli_button.tooltip
    grid.select(1)
    command = grid.show_command()
    note = grid.command_view.value
    assert "do-not-show" not in command and "do-not-show" not in note
    assert 'download="session.json"' in note and 'download="access.json"' in note
    assert "call 1.2 of the table" in text_of(note)
    argv = shlex.split(command)
    assert argv[:2] == ["localfs-explorer", "replay"]
    assert argv[argv.index("--answers") + 1] == "deny"
    monkeypatch.chdir(layout.base)
    (layout.base / "session.json").write_text(session.text.value)
    (layout.base / "access.json").write_text(app.model.access_text)
    capsys.readouterr()
    assert main(argv[1:]) == 1  # declined calls did not run
    printed = capsys.readouterr().out
    assert re.search(r"^1\.2\s+download_file\s.*\brefused\s+declined", printed, re.M)
    # Rules the command can't carry are said so.
    session.lasts.value = "conversation"
    grid.select(1)
    grid.show_command()
    assert "may differ" in text_of(grid.command_view.value)
    # Pinned with the access lists: the scenario holds them and passes.
    grid.pin_selected()
    assert "person's answer" in text_of(grid.pin_note.value)
    text = pinned_toml(app.model)
    assert "approval_list" in text and 'tool = "download_file"' in text
    assert 'outcome = "ok"' in text  # the server's answer, not the person's "declined"
    result = run_scenario_text(text)
    assert result.error is None and result.cases and all(c.passed for c in result.cases)


def test_sensitive_file_patterns_typed_in_the_tool_panel_reach_the_advice(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    tool = app.show("tool")
    tool.tool.value = "upload_local_file"
    vault = layout.data / "team.kdbx"
    tool._fields["local_path"].value = str(vault)
    assert "advice" not in text_of(tool.verdict.value).lower() or "kdbx" not in text_of(
        tool.verdict.value)
    tool.sensitive.value = "*.kdbx, vault.*"
    assert app.model.sensitive_text == "*.kdbx, vault.*"
    assert app.model.call_verdict.paths[0].sensitive == "matches *.kdbx"
    assert "matches *.kdbx" in text_of(tool.verdict.value)
    # A glob that can't match a file name is an error shown in the panel, not a crash.
    tool.sensitive.value = "keys/*.kdbx"
    assert "sensitive pattern 'keys/*.kdbx'" in text_of(tool.verdict.value)
    assert app.model.call_verdict is None
    tool.sensitive.value = ""
    assert app.model.call_verdict.paths[0].sensitive is None


def test_sensitive_file_patterns_reach_a_batchs_advice(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    batch = app.show("batch")
    call = {"name": "upload_local_file",
            "arguments": {"local_path": str(layout.data / "team.kdbx"), "parent_folder_id": "F"}}
    batch.upload.value = upload_value("calls.jsonl", json.dumps(call).encode())
    assert app.model.batch_verdicts[0].paths[0].sensitive is None
    app.show("tool").sensitive.value = "*.kdbx"
    assert app.model.batch_verdicts[0].paths[0].sensitive == "matches *.kdbx"
