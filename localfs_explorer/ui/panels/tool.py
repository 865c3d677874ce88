"""The Tool call panel: one call in, what the model gets back out.

The form is generated from the catalog's description of the tool (one field per local
path parameter, Markdown image parameters and the sync direction); the JSON editor below
it is the same arguments object, so anything the form can't express can still be typed.
"""

from __future__ import annotations

import json
from typing import Any

import ipywidgets as widgets

from .. import render
from ..forms import (
    ArgumentsError,
    form_shape,
    parse_arguments,
    read_location,
    starting_arguments,
    write_location,
)
from ..grid import known_tools, unknown_tool_note
from ..panel import Panel, css, heading, html, label_style, layout, wide

_NOT_GIVEN = "(not given)"


class ToolCallPanel(Panel):
    """Pick a tool (registered ones marked), fill its arguments, see the call's verdict."""

    name = "tool"
    title = "Tool call"
    shows_exit = True
    watches = ("tool_rev", "config_rev")

    @property
    def catalog(self) -> Any:
        """The selected server's tool catalog."""
        return self.model.catalog()

    def build(self) -> list[widgets.Widget]:
        label = label_style()
        self.tool = css(widgets.Dropdown(description="tool", style=label,
                                         layout=layout(width="70%")), "lfe-tool")
        self.tool_info = html("lfe-tool-info")
        self.form = css(widgets.VBox(layout=wide()), "lfe-tool-form")
        self.form_note = html("lfe-tool-form-note")
        self.args = css(self.bind(widgets.Textarea(rows=6, continuous_update=True,
                                                   tooltip="the tool call's arguments (JSON)",
                                                   layout=wide()), "tool_args_text"),
                        "lfe-tool-args")
        self.access = css(self.bind(widgets.Textarea(
            rows=4, continuous_update=True, layout=wide(),
            tooltip="tool access lists (JSON, optional)",
            placeholder='{"server": {"approval_list": ["upload_*"], "deny_list": []}}'),
            "access_text"), "lfe-tool-access")
        access_box = widgets.Accordion(children=[widgets.VBox([
            html("", '<div class="lfe-muted">Optional tool access lists (JSON, scopes '
                     "server / group / member): which tools the model sees and which are "
                     "held for approval.</div>"),
            self.access])], titles=("Tool access lists",), selected_index=None)
        self.sensitive = css(self.bind(widgets.Text(
            description="sensitive files", placeholder="*.kdbx, vault.*",
            continuous_update=True, style=label_style(widgets.Text, "160px"),
            layout=layout(width="70%")), "sensitive_text"), "lfe-tool-sensitive")
        sensitive_row = widgets.HBox([self.sensitive, html("", (
            '<span class="lfe-muted">file-name globs added to the credential list the '
            "advice beside each path uses (comma-separated)</span>"))], layout=wide())
        self.verdict = html("lfe-call-verdict")
        self._fields: dict[str, widgets.Widget] = {}
        self._syncing = False
        self._form_tool: str | None = None
        self._form_server: str | None = None
        self.on_change(self.tool, self._tool_picked)
        self.model.observe(self.model.guarded(lambda _c: self._json_to_form(),
                                              where="tool panel"), names="tool_args_text")
        return [
            self.tool, self.tool_info,
            heading("Arguments"), self.form, self.form_note,
            html("", '<div class="lfe-muted">The same arguments as JSON (edit either):</div>'),
            self.args, access_box, sensitive_row,
            heading("What happens"), self.verdict,
        ]

    # ---- picking a tool and building its form

    def _tool_picked(self, value: str | None) -> None:
        m = self.model
        if value is None or value == m.tool_name:
            return
        tool = self.catalog.get(value) if self.catalog else None
        with m.hold():
            m.tool_name = value
            # The server rejects a call missing a required argument: start with each.
            start = starting_arguments(tool) if tool is not None else {}
            m.tool_args_text = json.dumps(start, indent=2, ensure_ascii=False)

    def _build_form(self) -> None:
        tool = self.catalog.get(self.model.tool_name) if self.catalog else None
        self._fields = {}
        self._form_tool = self.model.tool_name
        self._form_server = self.model.server
        if tool is None:
            self.form.children = []
            self.form_note.value = (
                '<div class="lfe-muted">Not in the catalog: edit the arguments as JSON; '
                "paths in them are found by discovery.</div>")
            return
        rows: list[widgets.Widget] = []
        unsupported = []
        for param in tool.params:
            shape = form_shape(param.location)
            if shape is None:
                unsupported.append(param.location)
                continue
            flags = [param.op if param.op != "direction" else "read/write by direction"]
            flags.append("optional" if param.optional else "required")
            if param.walks:
                flags.append("folder, walked")
            rows.append(self._field(param.location, shape, ", ".join(flags), param.note))
        for image in tool.image_params:
            if image.in_file or form_shape(image.location) != "single":
                continue
            rows.append(self._field(image.location, "markdown", "Markdown/HTML, local images "
                                    "read", image.note))
        if tool.direction is not None:
            from ...catalog import DIRECTIONS

            direction = css(widgets.Dropdown(
                options=[_NOT_GIVEN, *DIRECTIONS], value=_NOT_GIVEN,
                description=tool.direction.argument, style=label_style(width="160px")),
                "lfe-tool-field")
            self._fields[tool.direction.argument] = direction
            direction.observe(self.model.guarded(
                lambda c, a=tool.direction.argument: self._direction_changed(a, c["new"]),
                where="tool panel"), names="value")
            default = f"default {tool.direction.default}"
            if tool.direction.assumed:
                default += " (assumed)"
            rows.append(widgets.HBox([direction, html("", f'<span class="lfe-muted">'
                                                          f"{render.esc(default)}</span>")]))
        self.form.children = rows
        note = ""
        if not tool.params and not tool.image_params:
            note = "This tool takes no local path."
        if unsupported:
            note += " Edit in the JSON: " + ", ".join(unsupported)
        self.form_note.value = f'<div class="lfe-muted">{render.esc(note)}</div>' if note else ""
        self._json_to_form()

    def _field(self, location: str, shape: str, flags: str, note: str) -> widgets.Widget:
        multi = shape in ("list", "list_of_objects", "markdown")
        cls = widgets.Textarea if multi else widgets.Text
        placeholder = "one path per line" if shape in ("list", "list_of_objects") else (
            "Markdown or HTML" if shape == "markdown" else "a local path")
        field = css(cls(description=location, placeholder=placeholder, continuous_update=True,
                        style=label_style(widgets.Text, "160px"),
                        layout=layout(width="60%", **({"height": "64px"} if multi
                                                              else {}))),
                    "lfe-tool-field")
        field.observe(self.model.guarded(lambda c: self._field_changed(location, c["new"]),
                                         where="tool panel"), names="value")
        self._fields[location] = field
        hint = flags + (f" — {note}" if note else "")
        return widgets.HBox([field, html("", f'<span class="lfe-muted">{render.esc(hint)}'
                                             "</span>")], layout=wide())

    # ---- form <-> JSON

    def _current_arguments(self) -> dict[str, Any] | None:
        try:
            return parse_arguments(self.model.tool_args_text)
        except ArgumentsError as exc:
            self.form_note.value = render.box(
                "warning", f"Fix the JSON before using the form: {render.esc(exc)}")
            return None

    def _write(self, arguments: dict[str, Any]) -> None:
        self._syncing = True
        try:
            self.model.tool_args_text = json.dumps(arguments, indent=2, ensure_ascii=False)
        finally:
            self._syncing = False

    def _field_changed(self, location: str, text: str) -> None:
        if self._syncing:
            return
        arguments = self._current_arguments()
        if arguments is not None:
            self._write(write_location(arguments, location, text))

    def _direction_changed(self, argument: str, value: str) -> None:
        if self._syncing:
            return
        arguments = self._current_arguments()
        if arguments is None:
            return
        if value == _NOT_GIVEN:
            arguments.pop(argument, None)
        else:
            arguments[argument] = value
        self._write(arguments)

    def _json_to_form(self) -> None:
        if self._syncing or self._form_tool != self.model.tool_name:
            return
        try:
            arguments = parse_arguments(self.model.tool_args_text)
        except ArgumentsError:
            return  # the verdict area shows the JSON error
        self._syncing = True
        try:
            for location, field in self._fields.items():
                if isinstance(field, widgets.Dropdown):
                    value = arguments.get(location)
                    wanted = value if value in field.options else _NOT_GIVEN
                else:
                    wanted = read_location(arguments, location)
                if field.value != wanted:
                    field.value = wanted
        finally:
            self._syncing = False

    # ---- outputs

    def _options(self) -> list[tuple[str, str]]:
        names = self.catalog.names() if self.catalog else []
        reg = self.model.registration
        # The name comes first, so typing a tool's first letters finds it; registered
        # tools before the ones this configuration doesn't register.
        options, unregistered = [], []
        for name in names:
            if reg is None or reg.is_registered(name):
                options.append((name, name))
            else:
                unregistered.append((f"{name} (not registered)", name))
        options += unregistered
        if self.model.tool_name and self.model.tool_name not in names:
            options.append((f"? {self.model.tool_name} (not in the catalog)",
                            self.model.tool_name))
        return options

    def refresh(self) -> None:
        m = self.model
        options = self._options()
        if list(self.tool.options) != options:
            self.tool.options = options
        if self.tool.value != m.tool_name and m.tool_name in [v for _, v in options]:
            self.tool.value = m.tool_name
        if self._form_tool != m.tool_name or self._form_server != m.server:
            self._build_form()
        self.tool_info.value = self._tool_info()
        if m.policy is None:
            self.verdict.value = render.box("error", render.esc(m.config_error or "no policy"))
        elif m.call_error:
            self.verdict.value = render.box("warning", render.esc(m.call_error),
                                            "lfe-call-error")
        elif m.call_verdict is not None:
            self.verdict.value = (unknown_tool_note(m.call_verdict, known_tools(m.server))
                                  + empty_path_note(m.call_verdict)
                                  + render.call_verdict_html(m.call_verdict))
        else:
            self.verdict.value = ""

    def _tool_info(self) -> str:
        m = self.model
        tool = self.catalog.get(m.tool_name) if self.catalog else None
        parts = []
        if tool is not None:
            if tool.description:
                parts.append(render.esc(tool.description))
            if tool.local_only:
                parts.append("<b>Local-only</b>: not registered when local file access is off.")
        reg = m.registration
        if reg is not None and m.tool_name:
            why = reg.why_absent(m.tool_name)
            if why:
                parts.append(render.badge("absent", "not registered") + " " + render.esc(why))
            elif reg.is_registered(m.tool_name):
                parts.append(render.badge("ok", "registered"))
        return "<div>" + " ".join(parts) + "</div>" if parts else ""


def empty_path_note(verdict: Any) -> str:
    """A warning for each path argument left empty: the server takes ``""`` as its
    startup directory, so an allowed verdict is about that directory, not a file."""
    empty = [p for p in getattr(verdict, "paths", ()) or () if str(p.path) == ""]
    if not empty:
        return ""
    names = ", ".join(f"<code>{render.esc(p.argument)}</code>" for p in empty)
    where = render.path_html(str(empty[0].resolved or "its startup directory"))
    return render.box("warning", f"⚠ {names} is empty: the server takes an empty path as "
                      f"its startup directory (<code>{where}</code>), so the verdict below "
                      "is about that directory, not about a file you meant.",
                      "lfe-call-empty-path")
