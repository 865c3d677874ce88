"""The policy bar: always above the tabs, it says whether the server would start and why.

Its server selector picks which server answers (``ExplorerModel.server``). For a server
with a ``.env`` the bar edits the ``.env`` being prepared (``ExplorerModel.file_edits``)
through the settings the server names (:attr:`~localfs_explorer.server.Server.env_controls`):
the mode selector writes its choice setting, the chips and the add box its list of
directories (each chip's state: :meth:`~localfs_explorer.server.Server.entry_state`).
The process environment (the Server tab's overrides) stays apart: when it sets one of
these keys it wins, and the bar says so. For a server with no ``.env`` (the reference
filesystem server), those controls are hidden and :mod:`.settings` renders the settings
the server describes (its allowed directories and MCP roots), its working directory and
release instead.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from ..envfile.edit import WithReferences
from ..secrets import scrub_hidden
from ..server import DEFAULT_SERVER, EnvControls, get_server, list_servers
from ..vocab import TRANSPORTS
from . import render, settings
from .model import ExplorerModel
from .panel import button, chip, chips_or_none, css, html, layout, no_null_tooltips, style

#: What the mode selector offers besides the server's choices: the setting left out.
UNSET = "unset"


def _shown_controls(server_id: str) -> EnvControls:
    """The controls the bar's widgets show: the server's own, else the default server's
    (they are hidden then), else empty ones."""
    return (get_server(server_id).env_controls or get_server(DEFAULT_SERVER).env_controls
            or EnvControls(choice="", choices=(), tooltips=(), entries="", entry_word=""))


class PolicyBar(widgets.VBox):
    """Mode, roots, transport and the one WOULD START / WOULD EXIT badge."""

    def __init__(self, model: ExplorerModel) -> None:
        super().__init__(layout=layout(width="100%"))
        css(self, "lfe-policy-bar")
        self.model = model
        self._syncing = False
        self.server = css(widgets.Dropdown(
            options=[(f"{s} ({get_server(s).title or s})" if s != DEFAULT_SERVER else s, s)
                     for s in list_servers()],
            value=model.server, description="server", tooltip="which MCP server answers",
            style=style(widgets.Dropdown, description_width="50px"),
            layout=layout(width="560px")), "lfe-bar-server")
        self.controls = _shown_controls(model.server)
        self.mode = css(widgets.ToggleButtons(
            options=[], value=None, description="mode",
            style=style(widgets.ToggleButtons, button_width="64px", description_width="44px"),
        ), "lfe-mode-select")
        self.transport = css(widgets.Dropdown(
            options=list(TRANSPORTS), value=model.transport, description="transport",
            style=style(widgets.Dropdown, description_width="64px"),
            layout=layout(width="190px")), "lfe-bar-transport")
        self.chips = css(widgets.HBox(layout=layout(flex_flow="row wrap", align_items="center",
                                                    width="100%")), "lfe-root-chips")
        self.root_input = css(widgets.Text(
            continuous_update=False,
            layout=layout(width="260px"), style=style(widgets.Text, description_width="0px")),
            "lfe-root-input")
        self.root_add = button("", "lfe-root-add", layout=layout(width="100px"))
        self.roots_label = roots_label = html("")
        self._name_controls()
        self.badge = html("lfe-serve-badge")
        self.note = html("lfe-bar-note")
        self.fs = settings.ServerSettings(model, self._guard)
        self.server.observe(self._guard(self._server_picked), names="value")
        self.mode.observe(self._guard(self._mode_picked), names="value")
        self.transport.observe(self._guard(self._transport_picked), names="value")
        self.root_add.on_click(self._guard(lambda _b: self.add_root(self.root_input.value)))
        self.root_input.observe(self._guard(lambda c: self.add_root(c["new"])), names="value")
        model.observe(self._guard(lambda _c: self.refresh()), names=["config_rev"])
        model.observe(self._guard(lambda c: self._set(self.transport, c["new"])),
                      names="transport")
        roots_label.layout = layout(width="44px")
        #: The controls that edit the .env: shown only for the server that reads one.
        self.env_controls = widgets.VBox([
            widgets.HBox([self.mode, self.transport],
                         layout=layout(flex_flow="row wrap", align_items="center",
                                       width="100%")),
            widgets.HBox([roots_label, self.chips], layout=layout(width="100%",
                                                                   align_items="center")),
        ], layout=widgets.Layout(width="100%"))  # its own layout: its display changes
        self.children = [
            html("", '<h2 class="lfe-sr-only">Would the server start?</h2>'),
            self.badge, self.server, self.env_controls, self.fs, self.note,
        ]
        self.refresh()
        no_null_tooltips(self)

    def _guard(self, fn: Any) -> Any:
        return self.model.guarded(fn, where="policy bar")

    def modes(self) -> tuple[str, ...]:
        """The mode selector's choices: ``unset`` (the setting out of the file), then the
        server's words."""
        return (UNSET, *self.controls.choices)

    def _set(self, widget: widgets.Widget, value: Any) -> None:
        if widget.value != value:
            self._syncing = True
            try:
                widget.value = value
            finally:
                self._syncing = False

    # ---- edits

    def _mode_picked(self, change: dict[str, Any]) -> None:
        value = change["new"]
        if self._syncing or value is None:
            return
        self.model.set_file_value(self.controls.choice, None if value == UNSET else value)

    def _server_picked(self, change: dict[str, Any]) -> None:
        value = change["new"]
        if self._syncing or value is None or value == self.model.server:
            return
        with self.model.hold():  # one server's release and settings mean nothing to another
            self.model.server_version = ""
            self.model.server_options = {}
            self.model.server = value

    def _transport_picked(self, change: dict[str, Any]) -> None:
        if not self._syncing and change["new"] != self.model.transport:
            self.model.transport = change["new"]

    def roots(self) -> list[str]:
        """The entries of the list setting in the ``.env`` being prepared."""
        return self.controls.split(self.model.file_value(self.controls.entries),
                                   self.model.platform)

    def _write_roots(self, entries: list[str]) -> None:
        sep = self.controls.separator(self.model.platform)
        value = sep.join(entries) if entries else None
        if value is not None and "${" in value:
            # Entries as the file spells them: their references stay references.
            value = WithReferences(value)
        self.model.set_file_value(self.controls.entries, value)

    def add_root(self, entry: str) -> None:
        """Add ``entry`` to the list setting in the ``.env`` being prepared."""
        entry = entry.strip()
        if self._syncing or not entry:
            return
        entries = self.roots()
        if entry not in entries:
            self._write_roots([*entries, entry])
        self._set(self.root_input, "")

    def remove_root(self, entry: str) -> None:
        """Take ``entry`` out of the list setting in the ``.env`` being prepared."""
        self._write_roots([e for e in self.roots() if e != entry])

    # ---- view

    def refresh(self) -> None:
        """Re-read the model: selector, chips, badge and notes."""
        m = self.model
        policy = m.policy
        self._set(self.server, m.server)
        server = get_server(m.server)
        uses_env = server.env_file
        self._show_controls(server.env_controls)
        self.env_controls.layout.display = "" if uses_env else "none"
        self.fs.layout.display = "none" if uses_env else ""
        if not uses_env:
            self.fs.refresh()
            named = ", ".join(f.label for f in server.setting_fields) or "its own options"
            self.note.value = ('<div class="lfe-muted">This server has no .env: its settings '
                               f"are {render.esc(named)}.</div>")
            self.badge.value = self._badge(policy)
            return
        controls = self.controls
        modes = self.modes()
        configured = m.file_value(controls.choice, expanded=True)
        wanted = UNSET if configured is None else configured.strip().lower()
        self._set(self.mode, wanted if wanted in modes else None)
        self._set(self.transport, m.transport)
        self.chips.children = [*self._chips(policy), self.root_input, self.root_add]
        no_null_tooltips(self.chips)
        notes = []
        process = {} if m.client_entry else dict(m.overrides)
        for key in (controls.choice, controls.entries):
            if key in process:
                notes.append(f"The process environment sets <code>{key}</code>, which wins "
                             "over the .env (Server tab).")
        if configured is not None and wanted not in modes:
            notes.append(f"The .env's <code>{controls.choice}</code> is "
                         f"<code>{render.esc(configured)}</code>, not one of "
                         f"{', '.join(controls.choices)}.")
        if m.client_entry:
            notes.append(f"These are the settings of entry <code>{render.esc(m.client_entry)}"
                         f"</code> in <code>{render.esc(m.clean(m.client_config_name))}</code>:"
                         " changes here go into that entry (Export writes them back).")
        else:
            notes.append("Changes here go into the .env being prepared (see Export).")
        self.note.value = '<div class="lfe-muted">' + " ".join(notes) + "</div>"
        if m.env_text is not None and not m.package_dir.strip() and policy is not None:
            # An upload has no directory: the page has to assume where the server keeps
            # it, and the deny-list protects the .env there. Said loudly, not silently.
            self.note.value += render.box(
                "warning",
                f"⚠ Assumed: the uploaded .env is the server's own, in "
                f"<code>{render.path_html(policy.package_dir)}</code> (its package "
                "directory, whose .env the deny-list protects). If the server runs from "
                "elsewhere, set its package directory in the Server tab: the verdicts for "
                "its .env and credential files depend on it.", "lfe-bar-assumption")
        self.badge.value = self._badge(policy)

    def _show_controls(self, controls: EnvControls | None) -> None:
        """Make the widgets show ``controls`` when the server picked has its own."""
        if controls is None or controls == self.controls:
            return
        self.controls = controls
        self._name_controls()

    def _name_controls(self) -> None:
        """The mode selector's choices and the list's words, from :attr:`controls`."""
        controls = self.controls
        word = controls.entry_word
        self._syncing = True
        try:
            self.mode.options = [(m, m) for m in self.modes()]
            self.mode.tooltips = list(controls.tooltips)
            self.mode.value = None
        finally:
            self._syncing = False
        self.root_input.placeholder = f"add a {word} directory"
        self.root_input.tooltip = f"add a {word} directory to {controls.entries}"
        self.root_add.description = self.root_add.tooltip = f"+ add {word}"
        self.roots_label.value = f'<span class="lfe-bar-label">{word}s</span>'

    def _chips(self, policy: Any) -> list[widgets.Widget]:
        chips: list[widgets.Widget] = []
        written = self.roots()
        # What each entry means once ${VAR} references are expanded (paired by position
        # when the expansion keeps the count of entries, else the entry as written).
        meant = self.controls.split(self.model.file_value(self.controls.entries,
                                                          expanded=True),
                                    self.model.platform)
        if len(meant) != len(written):
            meant = written
        server = get_server(self.model.server)
        for entry, means in zip(written, meant, strict=True):
            kind, text = (server.entry_state(policy, means) if policy is not None
                          else ("absent", "?"))
            shown = f'<span class="lfe-chip-path">{render.path_html(entry)}</span>'
            if means != entry:  # a reference: say what it expands to (secrets masked)
                shown += (f' <span class="lfe-muted lfe-chip-means">→ '
                          f"{render.esc(self.model.clean(means))}</span>")
            chips.append(chip(f"{shown} {render.badge(kind, text)}",
                              f"remove {scrub_hidden(entry)}",
                              self._guard(lambda _b, e=entry: self.remove_root(e))))
        return chips_or_none(chips)

    def _badge(self, policy: Any) -> str:
        m = self.model
        if policy is None:
            return (
                '<div class="lfe-verdict-big lfe-verdict-exit">'
                '<span class="lfe-big">✘ CAN\'T TELL</span> '
                f'<span class="lfe-reason">Configuration problem: '
                f"{render.esc(m.config_error)}</span></div>"
                f'<div class="lfe-mode-line"><b>{self.controls.choice}</b>: unknown</div>'
            )
        server = get_server(m.server)
        if not server.env_file:
            return settings.badge(m, policy)
        context = (f'<div class="lfe-muted lfe-bar-context">transport '
                   f"<b>{render.esc(policy.transport)}</b> · target "
                   f"<b>{render.esc(m.target_label)}</b></div>")
        if policy.serves:
            verdict = ('<div class="lfe-verdict-big lfe-verdict-start">'
                       '<span class="lfe-big">✔ WOULD START</span> '
                       '<span class="lfe-reason">the server serves with this '
                       "configuration</span></div>")
        else:
            verdict = ('<div class="lfe-verdict-big lfe-verdict-exit">'
                       '<span class="lfe-big">✘ WOULD EXIT</span> '
                       f'<span class="lfe-reason">at startup: '
                       f"{render.esc(policy.exit_message)}</span></div>")
        risk = ""
        warning = self.controls.everything_warning
        if warning and server.reach(policy).everything:
            # Starting is not the same as safe: say what every file reachable hands a model.
            risk = render.box("warning", warning, "lfe-bar-full-risk")
        return verdict + render.mode_summary(policy) + risk + context
