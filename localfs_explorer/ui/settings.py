"""The policy bar's form for a server whose settings are its own options, not a ``.env``.

The server describes its settings through the seam
(:attr:`~localfs_explorer.server.Server.setting_fields`: the reference filesystem
server's allowed directories and MCP roots, for one); this form renders each field by
its kind, beside the working directory and the release every server has. The widgets
edit only the inputs of :class:`~localfs_explorer.ui.model.ExplorerModel`
(``server_options``, ``cwd``, ``server_version``); every verdict, the startup one
included, is the server's, read back from the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from ..secrets import scrub_hidden
from ..server import Server, SettingField, get_server
from . import render
from .model import ExplorerModel
from .panel import button, chip, chips_or_none, css, html, layout, no_null_tooltips, style


def _set_quietly(owner: Any, widget: widgets.Widget, value: Any) -> None:
    """Show ``value`` in ``widget`` without ``owner`` taking it for an edit."""
    if widget.value != value:
        owner._syncing = True
        try:
            widget.value = value
        finally:
            owner._syncing = False


class _Field:
    """One setting of the form, bound to ``model.server_options[spec.key]``."""

    def __init__(self, spec: SettingField, model: ExplorerModel, guard: Any) -> None:
        self.spec = spec
        self.model = model
        self._guard = guard
        self._syncing = False
        self.box: widgets.Widget = widgets.HBox()

    def _set(self, widget: widgets.Widget, value: Any) -> None:
        _set_quietly(self, widget, value)

    def value(self) -> Any:
        return self.model.server_options.get(self.spec.key)

    def write(self, value: Any) -> None:
        options = {k: v for k, v in self.model.server_options.items() if k != self.spec.key}
        if value is not None:
            options[self.spec.key] = value
        self.model.server_options = options

    def widgets(self) -> list[widgets.Widget]:
        """The inputs (each has an accessible name)."""
        raise NotImplementedError

    def refresh(self) -> None:
        raise NotImplementedError


class PathsField(_Field):
    """An ordered list of paths: one chip each (with its remove button), and an input."""

    def __init__(self, spec: SettingField, model: ExplorerModel, guard: Any) -> None:
        super().__init__(spec, model, guard)
        key = spec.key.replace("_", "-")
        self.chips = css(widgets.HBox(layout=layout(flex_flow="row wrap", align_items="center",
                                                    width="100%")), f"lfe-setting-{key}")
        self.input = css(widgets.Text(
            placeholder=spec.placeholder, continuous_update=False, tooltip=spec.help,
            layout=layout(width="260px"), style=style(widgets.Text, description_width="0px")),
            "lfe-setting-input")
        self.add_button = button("+ add", "lfe-setting-add", layout=layout(width="80px"))
        self.add_button.tooltip = spec.help
        self.add_button.on_click(guard(lambda _b: self.add(self.input.value)))
        self.input.observe(guard(lambda c: self.add(c["new"])), names="value")
        label = html("", f'<span class="lfe-bar-label">{render.esc(spec.label)}</span>')
        label.layout = layout(width="140px")
        self.box = widgets.HBox([label, self.chips],
                                layout=layout(width="100%", align_items="center"))

    def entries(self) -> list[str]:
        """The entries, in order."""
        return [str(e) for e in self.value() or ()]

    def add(self, entry: str) -> None:
        """Append ``entry`` (spelling kept; no repeats)."""
        if self._syncing or not entry.strip():
            return
        entries = self.entries()
        if entry not in entries:
            self.write([*entries, entry])
        self._set(self.input, "")

    def remove(self, entry: str) -> None:
        """Take ``entry`` off the list (an empty list is no setting)."""
        self.write([e for e in self.entries() if e != entry] or None)

    def widgets(self) -> list[widgets.Widget]:
        return [self.input, self.add_button]

    def refresh(self) -> None:
        policy = self.model.policy
        chips = [chip(f'<span class="lfe-chip-path">{render.path_html(e)}</span>'
                      + (f" {directory_badge(policy, e)}" if policy is not None else ""),
                      f"remove {scrub_hidden(e)}",
                      self._guard(lambda _b, e=e: self.remove(e)))
                 for e in self.entries()]
        self.chips.children = [*chips_or_none(chips), self.input, self.add_button]


def directory_badge(policy: Any, entry: str) -> str:
    """The badge of one listed directory as the server takes it: allowed, or skipped
    (a warning of the server's names it); all of them skipped is why a server exits."""
    import posixpath

    absolute = posixpath.expanduser(entry) if entry.startswith("~") else entry
    if not posixpath.isabs(absolute):
        absolute = posixpath.normpath(posixpath.join(getattr(policy, "cwd", "/"), absolute))
    for warning in getattr(policy, "warnings", ()):
        if f" {absolute}," in warning or warning.endswith(f" {absolute}"):
            return render.badge("refused", "✘ skipped: can't access it")
    return render.badge("ok", "✔ allowed")


class OptionalLinesField(_Field):
    """A list given one entry a line, absent altogether unless the toggle is ticked."""

    def __init__(self, spec: SettingField, model: ExplorerModel, guard: Any) -> None:
        super().__init__(spec, model, guard)
        key = spec.key.replace("_", "-")
        self.toggle = css(widgets.Checkbox(
            value=False, description=spec.toggle or spec.label, indent=False,
            tooltip=spec.help, layout=layout(width="230px")), f"lfe-setting-{key}-on")
        self.text = css(widgets.Textarea(
            placeholder=spec.placeholder, rows=2, continuous_update=False, tooltip=spec.help,
            layout=layout(width="420px")), f"lfe-setting-{key}")
        self.toggle.observe(guard(lambda _c: self._write()), names="value")
        self.text.observe(guard(lambda _c: self._write()), names="value")
        self.box = widgets.HBox([self.toggle, self.text],
                                layout=layout(flex_flow="row wrap", align_items="center",
                                              width="100%"))

    def _write(self) -> None:
        if self._syncing:
            return
        lines = [line.strip() for line in self.text.value.splitlines() if line.strip()]
        self.write(lines if self.toggle.value else None)

    def widgets(self) -> list[widgets.Widget]:
        return [self.toggle, self.text]

    def refresh(self) -> None:
        value = self.value()
        self._set(self.toggle, value is not None)
        if value is not None:
            self._set(self.text, "\n".join(str(v) for v in value))
        self.text.disabled = value is None


class TextField(_Field):
    """One value typed in a line (blank: the setting is not given, the server's default)."""

    def __init__(self, spec: SettingField, model: ExplorerModel, guard: Any) -> None:
        super().__init__(spec, model, guard)
        key = spec.key.replace("_", "-")
        self.text = css(widgets.Text(
            description=spec.label, placeholder=spec.placeholder, continuous_update=False,
            tooltip=spec.help, layout=layout(width="420px"),
            style=style(widgets.Text, description_width="140px")), f"lfe-setting-{key}")
        self.text.observe(guard(lambda c: self._typed(c["new"])), names="value")
        self.box = widgets.HBox([self.text], layout=layout(align_items="center",
                                                           width="100%"))

    def _typed(self, value: str) -> None:
        if not self._syncing:
            self.write(value.strip() or None)

    def widgets(self) -> list[widgets.Widget]:
        return [self.text]

    def refresh(self) -> None:
        value = self.value()
        self._set(self.text, "" if value is None else str(value))


_KINDS: dict[str, Callable[[SettingField, ExplorerModel, Any], _Field]] = {
    "paths": PathsField, "optional_lines": OptionalLinesField, "text": TextField,
}


class ServerSettings(widgets.VBox):
    """The chosen server's own settings, its working directory and its release."""

    def __init__(self, model: ExplorerModel, guard: Any) -> None:
        super().__init__(layout=widgets.Layout(width="100%"))  # its own: display changes
        css(self, "lfe-server-settings")
        self.model = model
        self._guard = guard
        self._syncing = False
        self._server: Server | None = None
        #: The fields of the server shown, by their option's name.
        self.fields: dict[str, _Field] = {}
        self.cwd = css(widgets.Text(
            description="working dir", continuous_update=False,
            tooltip="the server's working directory: relative paths are taken from it",
            style=style(widgets.Text, description_width="80px"), layout=layout(width="360px")),
            "lfe-settings-cwd")
        self.version = css(widgets.Dropdown(
            options=[("", "")], value="", description="release",
            tooltip="the server release to reproduce",
            style=style(widgets.Dropdown, description_width="56px"),
            layout=layout(width="240px")), "lfe-settings-version")
        self.cwd.observe(guard(self._cwd_typed), names="value")
        self.version.observe(guard(self._version_picked), names="value")
        self.refresh()

    def _set(self, widget: widgets.Widget, value: Any) -> None:
        _set_quietly(self, widget, value)

    def _cwd_typed(self, change: dict[str, Any]) -> None:
        if not self._syncing and change["new"] != self.model.cwd:
            self.model.cwd = change["new"]

    def _version_picked(self, change: dict[str, Any]) -> None:
        if not self._syncing and change["new"] != self.model.server_version:
            self.model.server_version = change["new"]

    def _build(self, server: Server) -> None:
        """The form of ``server``: its fields, then working directory and release."""
        self._server = server
        self.fields = {f.key: _KINDS[f.kind](f, self.model, self._guard)
                       for f in server.setting_fields if f.kind in _KINDS}
        versions = server.versions or ("",)
        self._syncing = True
        try:
            self.version.options = [(f"{versions[0]} (default)", ""),
                                    *[(v, v) for v in versions[1:]]]
            self.version.value = ""
        finally:
            self._syncing = False
        self.children = [
            *(f.box for f in self.fields.values()),
            widgets.HBox([self.cwd, self.version],
                         layout=layout(flex_flow="row wrap", align_items="center",
                                       width="100%")),
        ]

    def refresh(self) -> None:
        """Re-read the model's inputs into the widgets (rebuilt when the server changed)."""
        m = self.model
        server = get_server(m.server)
        if server is not self._server:
            self._build(server)
        self._set(self.cwd, m.cwd)
        cwd = getattr(m.policy, "cwd", "") or m.host_cwd
        self.cwd.placeholder = f"default: {cwd}" if cwd else "the startup directory"
        if any(v == m.server_version for _, v in self.version.options):
            self._set(self.version, m.server_version)
        for f in self.fields.values():
            f.refresh()
        no_null_tooltips(self)


def badge(model: ExplorerModel, policy: Any) -> str:
    """WOULD START / WOULD EXIT as the server decides it, and its headline."""
    if policy.serves:
        verdict = ('<div class="lfe-verdict-big lfe-verdict-start">'
                   '<span class="lfe-big">✔ WOULD START</span> '
                   '<span class="lfe-reason">the server serves with these '
                   "settings</span></div>")
    else:
        verdict = ('<div class="lfe-verdict-big lfe-verdict-exit">'
                   '<span class="lfe-big">✘ WOULD EXIT</span> '
                   f'<span class="lfe-reason">at startup: '
                   f"{render.esc(policy.exit_message)}</span></div>")
    lines = "".join(f'<div class="lfe-mode-line lfe-headline"><b>{render.esc(label)}:</b> '
                    f"{render.esc(value)}</div>"
                    for label, value in get_server(model.server).headline(policy))
    warnings = render.messages("warning", list(policy.warnings), "warning",
                               "lfe-bar-warnings")
    context = (f'<div class="lfe-muted lfe-bar-context">server '
               f"<b>{render.esc(model.server)}</b> {render.esc(policy.server_version)} · "
               f"target <b>{render.esc(model.target_label)}</b></div>")
    return verdict + lines + warnings + context
