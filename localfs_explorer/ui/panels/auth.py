"""The auth-status panel: the ``local_file_access`` object the server reports, live."""

from __future__ import annotations

import ipywidgets as widgets

from .. import render
from ..panel import Panel, html


class AuthStatusPanel(Panel):
    """The JSON preview of ``server://auth-status`` as far as it is modelled."""

    name = "auth"
    title = "auth-status"

    def build(self) -> list[widgets.Widget]:
        self.intro = html("lfe-auth-intro", (
            '<div class="lfe-muted">What a client reading <code>server://auth-status</code> '
            "learns about local file access. The object is the same in all three branches "
            "of the resource; the <code>_preview</code> key is this tool's note, not part "
            "of the resource.</div>"))
        self.view = html("lfe-auth-json")
        return [self.intro, self.view]

    def refresh(self) -> None:
        m = self.model
        if m.policy is None:
            self.view.value = render.box("error", render.esc(m.config_error or "no policy"))
        elif m.auth_error:
            self.view.value = render.box("warning", render.esc(m.auth_error))
        else:
            self.view.value = render.json_html(m.auth_status, "lfe-auth-pre")
