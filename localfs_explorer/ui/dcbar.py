"""The policy bar's settings for DesktopCommanderMCP (``desktop-commander``).

Its settings are a file under its ``HOME``, not a ``.env``: the allow-list
(``allowedDirectories``) and the command block-list. These widgets edit the model's
inputs for it (``server_options``' ``allowed_directories``, ``home``,
``settings_file``, and ``cwd``); the badge and every verdict are the server's, read back
from the model.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from ..secrets import scrub_hidden
from . import render
from .model import ExplorerModel
from .panel import button, chip, chips_or_none, css, html, layout, no_null_tooltips, style

#: The server whose settings these are.
DC_SERVER = "desktop-commander"


class DesktopCommanderSettings(widgets.VBox):
    """allowedDirectories (chips, replacing the file's list), HOME, the settings file and
    the working directory."""

    def __init__(self, model: ExplorerModel, guard: Any) -> None:
        super().__init__(layout=widgets.Layout(width="100%"))  # its own: display changes
        css(self, "lfe-dc-settings")
        self.model = model
        self._syncing = False
        self._guard = guard
        self.chips = css(widgets.HBox(layout=layout(flex_flow="row wrap", align_items="center",
                                                    width="100%")), "lfe-dc-chips")
        self.dir_input = css(widgets.Text(
            placeholder="add an allowed directory", continuous_update=False,
            tooltip="add an entry to allowedDirectories (replaces the settings file's list)",
            layout=layout(width="260px"), style=style(widgets.Text, description_width="0px")),
            "lfe-dc-input")
        self.dir_add = button("+ add directory", "lfe-dc-add", layout=layout(width="130px"))
        self.home = self._text("HOME", "the server's HOME: where its settings file is, "
                               "what ~ means and the default allow-list", "lfe-dc-home")
        self.settings_file = self._text("settings", "its settings file (default: HOME/"
                                        ".claude-server-commander/config.json)",
                                        "lfe-dc-file")
        self.cwd = self._text("working dir", "the server's working directory: relative "
                              "paths are taken from it", "lfe-dc-cwd")
        self.dir_add.on_click(guard(lambda _b: self.add_directory(self.dir_input.value)))
        self.dir_input.observe(guard(lambda c: self.add_directory(c["new"])), names="value")
        self.home.observe(guard(lambda c: self._write_text("home", c["new"])), names="value")
        self.settings_file.observe(guard(lambda c: self._write_text("settings_file",
                                                                   c["new"])), names="value")
        self.cwd.observe(guard(self._cwd_typed), names="value")
        label = html("", '<span class="lfe-bar-label">allowedDirectories</span>')
        label.layout = layout(width="140px")
        self.children = [
            widgets.HBox([label, self.chips], layout=layout(width="100%",
                                                             align_items="center")),
            widgets.HBox([self.home, self.settings_file, self.cwd],
                         layout=layout(flex_flow="row wrap", align_items="center",
                                       width="100%")),
        ]
        self.refresh()

    @staticmethod
    def _text(description: str, tooltip: str, css_class: str) -> widgets.Text:
        return css(widgets.Text(description=description, continuous_update=False,
                                tooltip=tooltip, layout=layout(width="330px"),
                                style=style(widgets.Text, description_width="80px")),
                   css_class)

    def _set(self, widget: widgets.Widget, value: Any) -> None:
        if widget.value != value:
            self._syncing = True
            try:
                widget.value = value
            finally:
                self._syncing = False

    # ---- edits (the model's inputs only)

    def directories(self) -> list[str] | None:
        """The allow-list given here (None: the settings file's)."""
        given = self.model.server_options.get("allowed_directories")
        return None if given is None else [str(d) for d in given]

    def _write_option(self, key: str, value: Any) -> None:
        options = {k: v for k, v in self.model.server_options.items() if k != key}
        if value is not None:
            options[key] = value
        self.model.server_options = options

    def _write_text(self, key: str, value: str) -> None:
        if not self._syncing:
            self._write_option(key, value.strip() or None)

    def add_directory(self, entry: str) -> None:
        """Append ``entry`` to allowedDirectories (spelling kept; no duplicates)."""
        if self._syncing or not entry.strip():
            return
        entries = self.directories() or []
        if entry not in entries:
            self._write_option("allowed_directories", [*entries, entry])
        self._set(self.dir_input, "")

    def remove_directory(self, entry: str) -> None:
        """Take ``entry`` off; with none left, the settings file's list applies again."""
        left = [e for e in self.directories() or [] if e != entry]
        self._write_option("allowed_directories", left or None)

    def _cwd_typed(self, change: dict[str, Any]) -> None:
        if not self._syncing and change["new"] != self.model.cwd:
            self.model.cwd = change["new"]

    # ---- view

    def refresh(self) -> None:
        """Re-read the model's inputs into the widgets."""
        m = self.model
        options = m.server_options
        self._set(self.home, str(options.get("home") or ""))
        self._set(self.settings_file, str(options.get("settings_file") or ""))
        self._set(self.cwd, m.cwd)
        policy = m.policy
        home = getattr(getattr(policy, "policy", None), "home", "")
        self.home.placeholder = f"default: {home}" if home else "the account's home"
        self.settings_file.placeholder = (f"default: {policy.settings_file}"
                                          if getattr(policy, "settings_file", None)
                                          else "HOME/.claude-server-commander/config.json")
        self.chips.children = [*self._chips(), self.dir_input, self.dir_add]
        no_null_tooltips(self)

    def _chips(self) -> list[widgets.Widget]:
        chips: list[widgets.Widget] = []
        for entry in self.directories() or []:
            chips.append(chip(
                f'<span class="lfe-chip-path">{render.path_html(entry)}</span>',
                f"remove {scrub_hidden(entry)}",
                self._guard(lambda _b, e=entry: self.remove_directory(e))))
        return chips_or_none(chips)


def badge(model: ExplorerModel, policy: Any) -> str:
    """WOULD START (it always does), the allow-list in force and where it came from, and
    the configuration's critical and high findings."""
    from ..server import server_of

    settings = policy.settings
    verdict = ('<div class="lfe-verdict-big lfe-verdict-start">'
               '<span class="lfe-big">✔ WOULD START</span> '
               '<span class="lfe-reason">its file tools check every path against '
               "allowedDirectories</span></div>")
    allowed = ("every path" if settings.everything
               else ", ".join(render.esc(d) for d in settings.allowed))
    line = (f'<div class="lfe-mode-line lfe-dc-allowed"><b>allowedDirectories:</b> '
            f"{allowed} <span class=\"lfe-muted\">({render.esc(settings.source)})</span>"
            "</div>")
    serious = [f for f in server_of(policy).findings(policy)
               if f["severity"] in ("critical", "high")]
    findings = render.messages(
        "warning", [f"{f['severity']}: {f['why']}" for f in serious], "finding",
        "lfe-dc-findings")
    context = (f'<div class="lfe-muted lfe-bar-context">server '
               f"<b>{render.esc(model.server)}</b> {render.esc(policy.server_version)} · "
               f"target <b>{render.esc(model.target_label)}</b></div>")
    return verdict + line + findings + context
