"""The Explorer's widgets, driven headless: set values, click buttons, read HTML values."""

from __future__ import annotations

import json

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
    assert "LOCAL_FILE_ACCESS resolves to FULL" in text_of(app.panel("server").mode.value)


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
    message = f"{layout.base / 'missing.env'}: can't be read (no such file)"
    assert message in text_of(app.header.value)
    assert message in text_of(app.panel("server").config_error.value)
    assert app.model.last_error == ""  # a user's mistake, not a crash


def test_paths_table_shows_exact_messages_with_text_and_colour(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    paths = app.show("paths")
    paths.paths.value = f"{layout.outside / 'other.txt'}\n{layout.data / 'report.csv'}"
    table = text_of(paths.table.value)
    assert outside_message(layout) in table
    assert "✘ REFUSED · outside roots" in table and "✔ ALLOWED" in table
    assert "background:#b42318" in paths.table.value  # colour as well as the words
    assert "2 path(s): 1 allowed, 1 refused (1 outside roots)" in text_of(paths.counts.value)
    detail = text_of(paths.detail.value)
    assert f"The model sees: {outside_message(layout)}" in detail
    assert "not inside any root" in detail
    assert f"Hint: Add {layout.outside} to LOCAL_FILE_ROOTS" in detail
    paths.select.value = 1
    assert app.model.selected == 1
    assert "Allowed: the I/O happens on" in text_of(paths.detail.value)


def test_operation_toggle_rechecks(app, layout) -> None:
    paths = app.show("paths")
    paths.paths.value = str(layout.app / "token.json")
    assert "can't be read by a tool" in text_of(paths.table.value)
    paths.op.value = "write"
    assert "can't be written by a tool" in text_of(paths.table.value)


def test_tool_form_writes_the_arguments_and_shows_the_verdict(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    tool = app.show("tool")
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
    assert labels["upload_local_file"] == "✗ upload_local_file (not registered)"
    assert labels["get_sheet_data"] == "✓ get_sheet_data"
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
    ]
    content = "\n".join(json.dumps(c) for c in calls).encode()
    batch.upload.value = upload_value("calls.jsonl", content)
    assert batch.progress.value == batch.progress.max == 3
    assert "3 / 3 calls, done" in text_of(batch.progress_label.value)
    outcomes = text_of(batch.outcomes.value)
    assert "✔ OK 2" in " ".join(outcomes.split()) and "✘ REFUSED 1" in " ".join(outcomes.split())
    assert "download_file" in batch.tools.value
    assert 'download="localfs-explorer-batch.csv"' in batch.csv.value
    assert 'href="data:text/csv;base64,' in batch.csv.value


def test_auth_status_panel_is_live(app, layout) -> None:
    auth = app.show("auth")
    assert '"mode": "full"' in text_of(auth.view.value)
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    shown = text_of(auth.view.value)
    assert '"mode": "roots"' in shown and str(layout.data) in shown


def test_export_panel_diff_blocking_and_writing(app, layout) -> None:
    load(app, write_roots_env(layout.app, layout.data, layout.home))
    export = app.show("export")
    app.model.set_override("LOG_FILE", str(layout.base / "server.log"))
    diff = text_of(export.diff.value)
    assert f"+LOG_FILE={layout.base / 'server.log'}" in diff
    assert SECRET not in export.diff.value and f"CREDENTIALS_CONFIG={MASK}" in diff
    assert "Valid: the server would start" in text_of(export.status.value)
    export.prepare.click()
    assert 'download=".env"' in export.download.value
    dest = layout.base / "out.env"
    dest.write_text("OLD=1\n")
    export.dest.value = str(dest)
    export.write.click()
    assert "Not written" in text_of(export.result.value)
    assert "already exists" in text_of(export.result.value)
    assert dest.read_text() == "OLD=1\n"
    export.force.value = True
    export.write.click()
    assert "wrote" in text_of(export.result.value) and "LOG_FILE=" in dest.read_text()
    # An invalid change blocks the export, with the reason.
    app.model.set_override("LOCAL_FILE_ROOTS", str(layout.base / "gone"))
    status = text_of(export.status.value)
    assert "Blocked" in status and "does not exist" in status
    assert export.write.disabled and export.prepare.disabled
    assert export.download.value == ""  # a prepared link never outlives its plan


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
