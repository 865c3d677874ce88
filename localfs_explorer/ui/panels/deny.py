"""The Deny-list panel: the server's own files, refused in every mode."""

from __future__ import annotations

import ipywidgets as widgets

from .. import render
from ..panel import Panel, heading, html


class DenyListPanel(Panel):
    """Every deny-list entry with the setting it came from, and the deny dirs."""

    name = "deny"
    title = "Deny-list"

    def build(self) -> list[widgets.Widget]:
        self.intro = html("lfe-deny-intro", (
            '<div class="lfe-muted">Refused in every mode, whatever the roots say. An '
            "existing file is matched by identity (so a hardlink or a case variant is "
            "refused too); a missing one by its resolved spelling, folded for case.</div>"))
        self.entries = html("lfe-deny")
        self.dirs = html("lfe-deny-dirs-view")
        return [self.intro, heading("Files"), self.entries, heading("Directories"), self.dirs]

    def refresh(self) -> None:
        policy = self.model.policy
        if policy is None:
            message = self.model.config_error or "no configuration loaded"
            self.entries.value = render.box("error", render.esc(message))
            self.dirs.value = ""
            return
        if not hasattr(policy, "deny_list"):
            # A server without a deny-list.
            self.entries.value = (f'<div class="lfe-muted">{render.esc(self.model.server)} '
                                  "has no deny-list: its allowed directories are the whole "
                                  "of its file policy.</div>")
            self.dirs.value = ""
            return
        self.entries.value = render.deny_list_table(policy)
        self.dirs.value = render.deny_dirs_table(policy)
