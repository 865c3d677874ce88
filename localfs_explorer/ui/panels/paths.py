"""The Paths panel: many candidate paths in, the server's verdict for each out.

The verdicts go to the results grid (refusals first, filters, sort, every row); clicking a
row shows its message, trace and hint, the CLI command asking the same, and pins it.
"""

from __future__ import annotations

from collections import Counter

import ipywidgets as widgets

from ...vocab import OPS
from .. import render
from ..commands import check_command, pin_row, pinned_toml
from ..grid import ResultsGrid, paths_frame
from ..panel import Panel, css, html, label_style, layout, style, text_upload, wide


class PathsPanel(Panel):
    """Paste paths, pick the operation; a verdict grid, then message/trace/hint."""

    name = "paths"
    title = "Paths"
    shows_exit = True
    watches = ("paths_rev", "config_rev")

    def build(self) -> list[widgets.Widget]:
        label = label_style()
        self.paths = css(self.bind(widgets.Textarea(
            placeholder="one path per line: absolute, or relative to the server's startup "
                        "directory (whether ~/ means the home directory is the server's to "
                        "say: see the note under the box)",
            rows=7, continuous_update=True, layout=wide(),
            tooltip="paths to check, one per line"), "paths_text"), "lfe-paths-input")
        # A long list (hundreds of KB) goes in faster as a file than through the box.
        self.upload = text_upload("Upload paths", "lfe-paths-upload", ".txt,.lst,.csv")
        self.on_change(self.upload, lambda _v: self._uploaded())
        self.op = css(self.bind(widgets.ToggleButtons(
            options=[(op.replace("_", "+"), op) for op in OPS],
            tooltips=["may a tool read it?", "may a tool write it?",
                      "both (a sync entry present on both sides)"],
            style=style(widgets.ToggleButtons, button_width="110px")), "op"), "lfe-op")
        self.over_http = css(self.bind(widgets.Dropdown(
            options=[("by transport", "auto"), ("yes", "yes"), ("no", "no")],
            description="over HTTP?", style=label), "over_http"), "lfe-over-http")
        self.counts = html("lfe-paths-counts")
        self.grid = ResultsGrid("paths", detail=self._detail, command=self._command,
                                pin=self._pin,
                                guard=lambda fn: self.model.guarded(fn, where="paths grid"))
        self.grid.table.add_class("lfe-verdicts")
        self.detail = self.grid.detail
        self.detail.add_class("lfe-path-detail")
        self._shown: object = None
        return [
            self.paths,
            widgets.HBox([self.upload, html("", '<span class="lfe-muted">or a file of '
                                            "paths, one per line</span>")],
                         layout=wide(align_items="center")),
            widgets.HBox([widgets.Label("operation", layout=layout(width="106px")),
                          self.op, self.over_http],
                         layout=wide(flex_flow="row wrap", align_items="center")),
            self.counts, self.grid,
        ]

    def _uploaded(self) -> None:
        text = self.upload_text(self.upload)
        if text is not None:
            self.model.paths_text = text

    # ---- row actions

    def _detail(self, index: int) -> str:
        decisions = self.model.decisions
        if not 0 <= index < len(decisions):
            return ""
        self.model.selected = index
        return render.decision_detail(decisions[index])

    def _command(self, index: int) -> str:
        return check_command(self.model, self.model.decisions[index])

    def _pin(self, index: int) -> str:
        d = self.model.decisions[index]
        pin_row(self.model, f"path {d.path} ({d.op})", decision=d)
        return _pinned_note(self.model)

    def refresh(self) -> None:
        m = self.model
        if m.policy is None:
            self.counts.value = render.box(
                "error", render.esc(m.config_error or "no configuration loaded"))
            self._show([])
            return
        decisions = m.decisions
        if not decisions:
            self.counts.value = '<div class="lfe-muted">Type or paste paths above.</div>'
            self._show([])
            return
        reasons = Counter(d.reason for d in decisions if not d.allowed)
        allowed = sum(1 for d in decisions if d.allowed)
        refused = ", ".join(f"{n} {r.replace('_', ' ')}" for r, n in sorted(reasons.items()))
        summary = f"{len(decisions)} path(s): {allowed} allowed, {sum(reasons.values())} refused"
        if refused:
            summary += f" ({refused})"
        if m.paths_error:
            summary += f" — {m.paths_error}"
        self.counts.value = f"<div><b>{render.esc(summary)}</b></div>" + _tilde_note(decisions)
        self._show(decisions)

    def _show(self, decisions: list) -> None:
        if self._shown is not decisions:  # not on a mere change of the selected row
            self._shown = decisions
            self.grid.set_frame(paths_frame(decisions))


def _tilde_note(decisions: list) -> str:
    """What ``~/`` meant to this server, said when a path starts with it: a server that
    doesn't expand it takes ``~`` as a folder of that name in its startup directory."""
    for d in decisions:
        path, resolved = str(d.path), str(getattr(d, "resolved", "") or "")
        if path.startswith("~/") and resolved:
            kept = "/~/" in resolved or resolved.endswith("/~")
            what = ("is not expanded by this server: it means a folder named “~” in its "
                    "startup directory" if kept else "is expanded by this server to its "
                    "HOME")
            return (f'<div class="lfe-muted lfe-tilde-note">~/ {what} ('
                    f"<code>{render.path_html(path)}</code> → "
                    f"<code>{render.path_html(resolved)}</code>).</div>")
    return ""


def _pinned_note(model) -> str:
    text = pinned_toml(model)
    count = len(model.pinned)
    return render.box("ok", f"Pinned: {count} scenario(s) so far. " + render.download_link(
        text.encode("utf-8"), "pinned-scenarios.toml", "application/toml",
        "⬇ Download pinned-scenarios.toml", "lfe-pinned-download"))
