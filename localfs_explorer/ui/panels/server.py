"""The Server panel: the configuration being explored, and what the server makes of it."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from ...envfile.load import EnvFileError
from ...secrets import MASK, is_secret_key, scrub_hidden
from ...server import get_server
from ...vocab import TRANSPORTS
from .. import render
from ..entry_model import edited_keys
from ..model import EXAMPLE_PREFIX, HOST_TARGET, UPLOAD_TARGET, ExplorerModel
from ..panel import Panel, button, css, heading, html, label_style, layout, style, wide


class DeploymentTable(widgets.VBox):
    """Every entry of the uploaded client config, as ``localfs-explorer deployment``
    answers for it (line, entry, server, reach, worst finding, what it can touch);
    picking a row loads that entry through the picker. A page served to others checks
    nothing of the machine serving it (the answer says so)."""

    HEADERS = ("line", "entry", "server", "reach", "worst", "what it can touch")

    def __init__(self, picker: Any) -> None:
        super().__init__(layout=wide())
        css(self, "lfe-deployment")
        self.picker = picker
        self.model: ExplorerModel = picker.model
        self.table = html("lfe-deployment-table")
        self.rows = css(widgets.Select(options=[], rows=4, description="load entry",
                                       # its own layout: the rows are shown and hidden
                                       layout=widgets.Layout(width="100%", display="none"),
                                       style=label_style(widgets.Select)),
                        "lfe-deployment-rows")
        #: The answer shown (None before an upload, or when the file can't be read).
        self.answer: Any = None
        self._filling = False
        # Every upload (even one listing the same entries as the last) refreshes the
        # table: the picker's own loading is followed by this answer.
        loaded = picker.load_text

        def load_text(name: str, text: str, *, path: str = "") -> None:
            loaded(name, text, path=path)
            self.model.guarded(self.refresh, where="client config")()

        picker.load_text = load_text
        self.rows.observe(self.model.guarded(lambda c: self._picked(c["new"]),
                                             where="client config"), names="value")
        self.children = [self.table, self.rows]
        self.refresh()

    def refresh(self) -> None:
        """Answer for the picker's uploaded file (an empty table without one)."""
        from ...deployments import DeploymentError
        from ...deployments.reach import answer_deployment

        self.answer = None
        rows: list[tuple[str, str | None]] = []
        if self.picker.text is not None:
            try:
                self.answer = answer_deployment(
                    self.picker.name, text=self.picker.text,
                    environ=self.picker._environ(), read_files=self.model.host_access)
            except DeploymentError:
                self.answer = None  # the picker already shows why
        if self.answer is None:
            self.table.value = ""
        else:
            cells = [(render.esc(str(e.line or "")), render.esc(e.entry),
                      render.esc(e.server or "—"), render.esc(e.reach),
                      render.esc(e.worst or "—"), render.esc(e.summary))
                     for e in self.answer.entries]
            self.table.value = render.table(self.HEADERS, cells, css_class="lfe-deployment")
            rows = [(f"{e.entry} — {e.reach}", e.entry) for e in self.answer.entries
                    if e.reach in ("modelled", "container")]
        self._filling = True
        try:
            self.rows.options = rows
            self.rows.value = None
        finally:
            self._filling = False
        self.rows.layout.display = "" if rows else "none"

    def _picked(self, name: str | None) -> None:
        if self._filling or name is None:
            return
        self.picker.entries.value = name
        self.picker.apply()


class OverridesEditor(widgets.VBox):
    """Key/value rows for the server process's own variables.

    The value of a secret-named key (``CREDENTIALS_CONFIG``, ``*_TOKEN``...) is typed
    into a password field, so it is never shown on screen either. A password field's
    value is still sent to the browser, so a secret the kernel already holds (preloaded
    by ``serve --set``) is never put into one: its field stays empty with a placeholder
    saying a value is set, and the kernel keeps the value until something is typed over
    it. Renaming such a row's key to a non-secret name drops the kept value rather than
    showing it.
    """

    def __init__(self, model: ExplorerModel) -> None:
        super().__init__(layout=wide())
        css(self, "lfe-overrides")
        self.model = model
        self.add_button = button("+ Add variable", "lfe-override-add",
                                 layout=layout(width="140px"))
        self.add_button.on_click(model.guarded(lambda _b: self.add_row(), where="overrides"))
        self._rows: list[tuple[widgets.Text, widgets.Widget, widgets.Button]] = []
        #: Secret values held for rows whose field shows none: id(value widget) -> value.
        self._kept: dict[int, str] = {}
        self._syncing = False
        model.observe(model.guarded(lambda _c: self._from_model(), where="overrides"),
                      names="overrides")
        self._layout()
        self._from_model()

    def add_row(self, key: str = "", value: str = "") -> None:
        """Append one editable row (a secret ``value`` stays in the kernel)."""
        key_w = css(widgets.Text(value=key, placeholder="KEY", layout=layout(width="34%"),
                                 tooltip="process-environment variable: name",
                                 style=label_style(widgets.Text, "0px")),
                    "lfe-override-key")
        value_w = self._value_widget(key, value, keep=True)
        remove = button("×", tooltip="remove this variable",
                        layout=layout(width="40px"))
        row = (key_w, value_w, remove)
        self._rows.append(row)
        key_w.observe(self.model.guarded(lambda c: self._key_changed(row, c["new"]),
                                         where="overrides"), names="value")
        self._watch_value(value_w)
        remove.on_click(self.model.guarded(lambda _b: self._remove(row), where="overrides"))
        self._layout()

    def _value_widget(self, key: str, value: str, *, keep: bool = False) -> widgets.Widget:
        secret = is_secret_key(key)
        cls = widgets.Password if secret else widgets.Text
        kept = keep and secret and bool(value)
        placeholder = f"{MASK} set (kept hidden); type to replace" if kept else "value"
        widget = css(cls(value="" if kept else value, placeholder=placeholder,
                         tooltip="process-environment variable: value",
                         layout=layout(width="52%"), style=label_style(widgets.Text, "0px")),
                     "lfe-override-value")
        if kept:
            self._kept[id(widget)] = value
        return widget

    def _value_of(self, widget: widgets.Widget) -> str:
        if not widget.value and id(widget) in self._kept:
            return self._kept[id(widget)]
        return widget.value

    def _watch_value(self, widget: widgets.Widget) -> None:
        def changed(change: dict) -> None:
            if change["new"]:
                self._kept.pop(id(widget), None)  # typed over: the new value counts
            self._to_model()

        widget.observe(self.model.guarded(changed, where="overrides"), names="value")

    def _key_changed(self, row: tuple, key: str) -> None:
        key_w, value_w, remove = row
        if isinstance(value_w, widgets.Password) != is_secret_key(key):
            # A kept secret is never moved into a field that shows it: it is dropped.
            self._kept.pop(id(value_w), None)
            new_value_w = self._value_widget(key, value_w.value)
            self._watch_value(new_value_w)
            index = self._rows.index(row)
            self._rows[index] = (key_w, new_value_w, remove)
            # The key observer holds the old tuple: rebind it to the new one.
            key_w.unobserve_all("value")
            new_row = self._rows[index]
            key_w.observe(self.model.guarded(lambda c: self._key_changed(new_row, c["new"]),
                                             where="overrides"), names="value")
            self._layout()
        self._name_rows()
        self._to_model()

    def _remove(self, row: tuple) -> None:
        self._kept.pop(id(row[1]), None)
        self._rows.remove(row)
        self._layout()
        self._to_model()

    def _layout(self) -> None:
        rows = [widgets.HBox(list(r), layout=wide()) for r in self._rows]
        self.children = [*rows, self.add_button]
        self._name_rows()

    def _name_rows(self) -> None:
        """Give each row's fields and × a name of their own (a screen reader lists them)."""
        for number, (key_w, value_w, remove) in enumerate(self._rows, 1):
            name = scrub_hidden(key_w.value.strip()) or "no name yet"
            key_w.tooltip = f"process-environment variable {number}: name"
            value_w.tooltip = f"process-environment variable {number} ({name}): value"
            remove.tooltip = f"remove process-environment variable {number} ({name})"

    def rows(self) -> list[tuple[str, str]]:
        """The rows as (key, value), in order; blank keys are kept out."""
        return [(k.value.strip(), self._value_of(v)) for k, v, _ in self._rows
                if k.value.strip()]

    def _to_model(self) -> None:
        if self._syncing:
            return
        self.model.overrides = self.rows()

    def _from_model(self) -> None:
        wanted = [tuple(r) for r in self.model.overrides]
        if wanted == self.rows():
            return
        self._syncing = True
        try:
            self._rows = []
            self._kept = {}
            for key, value in wanted:
                self.add_row(key, value)
            self._layout()
        finally:
            self._syncing = False


class ServerPanel(Panel):
    """Load a ``.env``, pick transport and target host; see mode, roots, errors, warnings."""

    name = "server"
    title = "Server"
    watches = ("config_rev", "server", "env_path", "env_name", "env_text", "examples",
               "spec_name")

    def build(self) -> list[widgets.Widget]:
        m = self.model
        label = label_style(widgets.Text)
        dropdown_label = label_style()
        self.env_path = css(
            widgets.Text(placeholder="/path/to/the/server/.env", description=".env path",
                         continuous_update=False, style=label, layout=wide()),
            "lfe-env-path",
        )
        self.env_load = button("Load", "lfe-env-load",
                               button_style="primary", layout=layout(width="90px"))
        self.env_upload = css(widgets.FileUpload(description="Upload .env", multiple=False,
                                                 layout=layout(width="150px"),
                                                 style=style(widgets.Button)),
                              "lfe-env-upload")
        self.env_clear = button("No .env", "lfe-env-clear", tooltip="explore overrides only",
                                layout=layout(width="90px"))
        self.env_source = html("lfe-env-source")
        # Pasted text is an upload by another road: same size limit, same reader.
        self.env_paste = css(widgets.Textarea(
            placeholder="or paste the .env here, then press Use pasted .env",
            tooltip="the .env's text, pasted", layout=wide(height="70px")), "lfe-env-paste")
        self.env_paste_use = button("Use pasted .env", "lfe-env-paste-use",
                                    layout=layout(width="150px"))
        self.on_click(self.env_paste_use, self._pasted_env)
        self.lenient = self.bind(widgets.Checkbox(
            description="skip lines the server can't parse (it skips them too)",
            indent=False, layout=wide(), style=style(widgets.Checkbox)), "lenient")
        self.transport = css(self.bind(widgets.Dropdown(
            options=list(TRANSPORTS), description="transport", style=dropdown_label,
            layout=layout()),
            "transport"),
            "lfe-transport")
        self.target = css(widgets.Dropdown(description="target host", style=dropdown_label,
                                           layout=wide()), "lfe-target")
        self.spec_upload = css(widgets.FileUpload(description="Upload host spec",
                                                  accept=".json", multiple=False,
                                                  layout=layout(width="170px"),
                                                  style=style(widgets.Button)),
                               "lfe-spec-upload")
        self.target_info = html("lfe-target-info")
        self.cwd = css(self.bind(widgets.Text(
            description="startup dir", placeholder="default: the target's working directory",
            style=label, layout=wide()), "cwd"), "lfe-cwd")
        self.package_dir = css(self.bind(widgets.Text(
            description="package dir",
            placeholder="default: the .env's directory (else the startup dir)",
            style=label, layout=wide()), "package_dir"), "lfe-package-dir")
        self.platform = self.bind(widgets.Dropdown(options=["posix", "windows"],
                                                   description="platform",
                                                   style=dropdown_label, layout=layout()),
                                  "platform")
        self.overrides = OverridesEditor(m)
        self.unset = css(widgets.Text(description="unset keys", style=label, layout=wide(),
                                      placeholder="KEY, KEY (removed whatever set them)"),
                         "lfe-unset")
        self.unset.value = ", ".join(m.unset)
        self.on_change(self.unset, self._unset_changed)

        self.on_change(self.env_path,
                       lambda v: m.load_env_path(v) if v.strip() != m.env_path else None)
        self.on_click(self.env_load, lambda: m.load_env_path(self.env_path.value))
        self.on_change(self.env_upload, lambda _v: self._uploaded_env())
        self.on_click(self.env_clear, self._clear_env)
        self.on_change(self.target, self._target_changed)
        self.on_change(self.spec_upload, lambda _v: self._uploaded_spec())

        self.mode = html("lfe-mode")
        self.config_error = html("lfe-config-error")
        self.roots = html("lfe-roots")
        self.messages = html("lfe-messages")
        self.env_view = html("lfe-env")

        host_note = []
        if not m.host_access:
            host_note = [html("lfe-host-note", render.box(
                "warning",
                "This page is served to other machines, so the machine it runs on can't be "
                "probed: pick an example host or upload a host spec, and upload the .env."))]
        from ..deployment import ClientConfigPicker

        self.client_config = ClientConfigPicker(m)
        self.deployment = DeploymentTable(self.client_config)
        # The controls only a server that reads a .env has, each group in a box with a
        # layout of its own, so hiding one never touches a layout other widgets share.
        self.env_section = _section(
            heading("The server's .env"),
            widgets.HBox([self.env_path, self.env_load], layout=wide()),
            widgets.HBox([self.env_upload, self.env_clear], layout=layout()),
            self.env_paste, self.env_paste_use,
            self.env_source,
            self.lenient)
        self.transport_section = _section(self.transport)
        self.package_dir_section = _section(self.package_dir)
        self.process_env_section = _section(
            heading("Process environment (wins over the .env; not written to it)"),
            self.overrides,
            self.unset)
        self.env_sections = (self.env_section, self.transport_section,
                             self.package_dir_section, self.process_env_section)
        self.configured_by = html("lfe-configured-by")
        inputs = widgets.VBox([
            heading("From an MCP client config (Claude Desktop, Claude Code, Cursor, VS Code, "
                    "mcp-hangar)"),
            self.client_config,
            self.deployment,
            self.configured_by,
            self.env_section,
            heading("How it runs"),
            self.transport_section,
            widgets.HBox([self.target, self.spec_upload], layout=wide()),
            self.target_info,
            self.cwd, self.package_dir_section, self.platform,
            self.process_env_section,
        ], layout=layout(flex="1 1 420px", min_width="0", padding="0 12px 0 0"))
        status = widgets.VBox([
            self.mode, self.config_error, self.roots, self.messages,
            heading("What the server sees"), self.env_view,
        ], layout=layout(flex="1 1 420px", min_width="0"))
        # Served to other machines: no reading of the serving machine's files by path.
        self.env_path.disabled = self.env_load.disabled = not m.host_access
        return [*host_note, widgets.HBox(
            [inputs, status], layout=layout(width="100%", flex_flow="row wrap"))]

    # ---- inputs

    def _unset_changed(self, value: str) -> None:
        self.model.unset = [k.strip() for k in value.replace("\n", ",").split(",") if k.strip()]

    def _uploaded_env(self) -> None:
        got = self.upload_contents(self.env_upload)
        if got is None:
            return
        name, data = got
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EnvFileError(f"{name}: not UTF-8 text (byte {exc.start})") from None
        self.model.load_env_upload(name, text)

    def _pasted_env(self) -> None:
        if self.env_paste.value.strip():
            self.model.load_env_upload("pasted .env", self.env_paste.value)
            self.env_paste.value = ""  # its secrets in clear stay in the kernel only

    def _uploaded_spec(self) -> None:
        got = self.upload_contents(self.spec_upload)
        if got is None:
            return
        name, data = got
        self.model.load_spec_upload(name, data.decode("utf-8", errors="replace"))

    def _clear_env(self) -> None:
        self.env_path.value = ""
        self.model.clear_env()

    def _target_changed(self, value: str | None) -> None:
        if value is not None and value != self.model.target:
            self.model.target = value

    def _target_options(self) -> list[tuple[str, str]]:
        m = self.model
        options: list[tuple[str, str]] = []
        if m.host_access:
            options.append(("this machine", HOST_TARGET))
        options += [(f"example: {name}", f"{EXAMPLE_PREFIX}{name}") for name in m.examples]
        if m.spec_text:
            options.append((f"uploaded: {m.spec_name}", UPLOAD_TARGET))
        return options

    # ---- outputs

    def _show_env_controls(self) -> None:
        """Show the .env, transport, package-dir and process-environment controls only
        for a server that reads a .env; for one that doesn't, say what configures it."""
        server = get_server(self.model.server)
        for section in self.env_sections:
            section.layout.display = "" if server.env_file else "none"
        if server.env_file:
            self.configured_by.value = ""
            return
        named = ", ".join(f.label for f in server.setting_fields) or "its own options"
        self.configured_by.value = render.box(
            "note", f"<b>{render.esc(server.title or 'This server')}</b> reads no .env, "
            "transport setting or process environment: it is configured by "
            f"<b>{render.esc(named)}</b>, set in the bar above the tabs (or taken from a "
            "client-config entry). Its startup directory below still places relative "
            "paths.")

    def refresh(self) -> None:
        m = self.model
        self._show_env_controls()
        options = self._target_options()
        if list(self.target.options) != options:
            self.target.options = options
        if m.target in [v for _, v in options] and self.target.value != m.target:
            self.target.value = m.target
        self.target_info.value = (
            render.box("note", render.esc(m.target_description)) if m.target_description
            else ""
        )
        if m.env_text is not None:
            source = f"Uploaded: <code>{render.esc(m.env_name)}</code>"
        elif m.env_path:
            source = f"Loaded from this machine: <code>{render.esc(m.env_path)}</code>"
            if self.env_path.value != m.env_path:
                self.env_path.value = m.env_path
        else:
            source = "No .env: the server sees only the process environment below."
        self.env_source.value = f'<div class="lfe-muted">{source}</div>'

        policy = m.policy
        if m.config_error:
            self.config_error.value = render.box(
                "error", f"<b>Can't resolve the policy:</b> {render.esc(m.config_error)}")
        else:
            self.config_error.value = ""
        if policy is None:
            self.mode.value = (
                '<div class="lfe-mode-line"><b>LOCAL_FILE_ACCESS</b>: '
                "unknown until the configuration loads</div>")
            self.roots.value = ""
            self.messages.value = ""
            self.env_view.value = render.env_table(m.env, edited_keys(m))
            return
        self.cwd.placeholder = f"default: {policy.cwd}"
        # A server with no .env (server-filesystem) has no package directory or roots list:
        # its settings are in the policy bar.
        package_dir = getattr(policy, "package_dir", None)
        self.package_dir.placeholder = f"default: {package_dir}" if package_dir else ""
        # The mode itself is in the policy bar above the tabs; here, only the startup check.
        self.mode.value = render.serve_line(policy) + _reproduces_line(m.server, policy)
        self.roots.value = render.roots_table(policy) if hasattr(policy, "roots") else ""
        registration_warnings = list(getattr(m.registration, "warnings", []) or [])
        self.messages.value = (
            render.messages("error", policy.errors, "error", "lfe-errors")
            + render.messages("warning",
                              [*policy.env.warnings, *policy.warnings, *registration_warnings],
                              "warning", "lfe-warnings")
        )
        self.env_view.value = render.env_table(policy.env, edited_keys(m))


def _section(*children: widgets.Widget) -> widgets.VBox:
    """A box of controls shown or hidden together, with a layout of its own."""
    return widgets.VBox(list(children), layout=widgets.Layout(width="100%"))


def _reproduces_line(server: str, policy) -> str:
    """Which server release the verdicts reproduce (named by the server profile)."""
    profile = getattr(policy, "profile", None)
    release = (f"{profile.name} {profile.server_version}" if profile is not None
               else f"{server} {policy.server_version}").strip()
    return (f'<div class="lfe-muted lfe-server-version">Verdicts reproduce '
            f"<code>{render.esc(release)}</code>.</div>")
