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

from . import render
from .fsbar import DirectorySettings
from .model import ExplorerModel
from .panel import css, html, layout, no_null_tooltips, style

#: The server whose settings these are.
DC_SERVER = "desktop-commander"


class DesktopCommanderSettings(DirectorySettings):
    """allowedDirectories (chips, replacing the file's list), HOME, the settings file and
    the working directory."""

    option = "allowed_directories"

    def __init__(self, model: ExplorerModel, guard: Any) -> None:
        super().__init__(model, guard, "lfe-dc-settings",
                         "add an entry to allowedDirectories (replaces the settings "
                         "file's list)")
        self.home = self._text("HOME", "the server's HOME: where its settings file is, "
                               "what ~ means and the default allow-list", "lfe-dc-home")
        self.settings_file = self._text("settings", "its settings file (default: HOME/"
                                        ".claude-server-commander/config.json)",
                                        "lfe-dc-file")
        self.cwd = self._text("working dir", "the server's working directory: relative "
                              "paths are taken from it", "lfe-dc-cwd")
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

    def _write_text(self, key: str, value: str) -> None:
        if not self._syncing:
            self._write_option(key, value.strip() or None)

    def _cwd_typed(self, change: dict[str, Any]) -> None:
        if not self._syncing and change["new"] != self.model.cwd:
            self.model.cwd = change["new"]

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
