"""The Paths panel: many candidate paths in, the server's verdict for each out."""

from __future__ import annotations

from collections import Counter
from typing import Any

import ipywidgets as widgets

from ...check import OPS
from .. import render
from ..panel import Panel, css, heading, html, label_style, layout, style, wide

#: Entries in the selection dropdown; the table says how many more there are.
MAX_SELECT = 500


class PathsPanel(Panel):
    """Paste paths, pick the operation; a verdict table, then message/trace/hint."""

    name = "paths"
    title = "Paths"
    watches = ("paths_rev", "config_rev")

    def build(self) -> list[widgets.Widget]:
        label = label_style()
        self.paths = css(self.bind(widgets.Textarea(
            placeholder="one path per line: absolute, relative to the startup directory, "
                        "or ~/...",
            rows=7, continuous_update=True, layout=wide()), "paths_text"), "lfe-paths-input")
        self.op = css(self.bind(widgets.ToggleButtons(
            options=[(op.replace("_", "+"), op) for op in OPS],
            tooltips=["may a tool read it?", "may a tool write it?",
                      "both (a sync entry present on both sides)"],
            style=style(widgets.ToggleButtons, button_width="90px")), "op"), "lfe-op")
        self.over_http = css(self.bind(widgets.Dropdown(
            options=[("by transport", "auto"), ("yes", "yes"), ("no", "no")],
            description="over HTTP?", style=label), "over_http"), "lfe-over-http")
        self.counts = html("lfe-paths-counts")
        self.table = html("lfe-verdicts-view")
        self.select = css(widgets.Dropdown(description="explain", style=label,
                                           layout=wide()), "lfe-path-select")
        self.on_change(self.select, self._selected)
        self.detail = html("lfe-path-detail")
        return [
            self.paths,
            widgets.HBox([widgets.Label("operation", layout=layout(width="106px")),
                          self.op, self.over_http],
                         layout=wide(flex_flow="row wrap", align_items="center")),
            self.counts, self.table,
            heading("Why"), self.select, self.detail,
        ]

    def _selected(self, value: int | None) -> None:
        if value is not None and value != self.model.selected:
            self.model.selected = value

    def refresh(self) -> None:
        m = self.model
        if m.policy is None:
            self.counts.value = render.box(
                "error", render.esc(m.config_error or "no configuration loaded"))
            self.table.value = self.detail.value = ""
            self.select.options = []
            return
        decisions = m.decisions
        if not decisions:
            self.counts.value = '<div class="lfe-muted">Type or paste paths above.</div>'
            self.table.value = self.detail.value = ""
            self.select.options = []
            return
        reasons = Counter(d.reason for d in decisions if not d.allowed)
        allowed = sum(1 for d in decisions if d.allowed)
        refused = ", ".join(f"{n} {r.replace('_', ' ')}" for r, n in sorted(reasons.items()))
        summary = f"{len(decisions)} path(s): {allowed} allowed, {sum(reasons.values())} refused"
        if refused:
            summary += f" ({refused})"
        if m.paths_error:
            summary += f" — {m.paths_error}"
        self.counts.value = f"<div><b>{render.esc(summary)}</b></div>"
        selected = m.selected if 0 <= m.selected < len(decisions) else 0
        self.table.value = render.decisions_table(decisions, selected)
        options = [(_option_label(i, d), i) for i, d in enumerate(decisions[:MAX_SELECT])]
        if list(self.select.options) != options:
            self.select.options = options
        if selected < len(options) and self.select.value != selected:
            self.select.value = selected
        self.detail.value = render.decision_detail(decisions[selected])


def _option_label(index: int, decision: Any) -> str:
    path = decision.path.replace("\0", "\\0")
    verdict = "ALLOWED" if decision.allowed else f"REFUSED ({decision.reason})"
    return f"{index + 1}. {path} — {verdict}"
