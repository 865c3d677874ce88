"""The Batch panel: a JSONL of tool calls in, a table, counts and a CSV out."""

from __future__ import annotations

import ipywidgets as widgets

from .. import render
from ..commands import ACCESS_FILE, access_link, pin_row, probe_command
from ..grid import (
    ResultsGrid,
    batch_frame,
    known_tools,
    unknown_tool_calls,
    unknown_tool_note,
)
from ..panel import Panel, button, css, heading, html, label_style, layout, style, wide
from .paths import _pinned_note


class BatchPanel(Panel):
    """Upload or point at a JSONL of ``tools/call`` params; probe every call."""

    name = "batch"
    title = "Batch"
    shows_exit = True
    watches = ("batch_rev",)

    def build(self) -> list[widgets.Widget]:
        m = self.model
        self.upload = css(widgets.FileUpload(description="Upload JSONL", multiple=False,
                                             accept=".jsonl,.json,.txt,.ndjson",
                                             layout=layout(width="160px"),
                                             style=style(widgets.Button)),
                          "lfe-batch-upload")
        self.path = css(widgets.Text(description="or a file", placeholder="/path/to/calls.jsonl",
                                     continuous_update=False,
                                     style=label_style(widgets.Text, "80px"),
                                     layout=layout(width="60%")), "lfe-batch-path")
        self.load = button("▶ Run", "lfe-batch-load", layout=layout(width="80px"))
        self.paste = css(widgets.Textarea(
            placeholder='or paste calls here, one per line: {"name": ..., "arguments": {...}}',
            tooltip="calls to probe, pasted (JSONL)", layout=wide(height="70px")),
            "lfe-batch-paste")
        self.paste_run = button("▶ Run pasted calls", "lfe-batch-paste-run",
                                layout=layout(width="160px"))
        self.path.disabled = self.load.disabled = not m.host_access
        self.progress = css(widgets.IntProgress(value=0, min=0, max=1, description="probed",
                                                layout=layout(width="60%")),
                            "lfe-batch-progress")
        self.progress_label = html("lfe-batch-progress-label")
        self.status = html("lfe-batch-status")
        self.outcomes = html("lfe-batch-outcomes-view")
        self.tools = html("lfe-batch-tools-view")
        self.grid = ResultsGrid("batch", detail=self._detail, command=self._command,
                                pin=self._pin, command_note=self._command_note,
                                guard=lambda fn: m.guarded(fn, where="batch grid"))
        self.grid.table.add_class("lfe-batch-calls")
        self.grid.detail.add_class("lfe-call-detail")
        self.csv = html("lfe-batch-csv")
        # The CSV goes into the page only when asked for: for a big batch it is megabytes,
        # which would hold up the grid the moment the batch finishes.
        self.csv_prepare = button("⬇ Prepare the CSV", "lfe-batch-csv-prepare",
                                  layout=layout(width="170px"))
        self.on_click(self.csv_prepare, self.prepare_csv)
        self.on_change(self.upload, lambda _v: self._uploaded())
        self.on_click(self.load, lambda: m.load_batch_path(self.path.value))
        self.on_click(self.paste_run, lambda: m.load_batch_upload("pasted calls",
                                                                  self.paste.value)
                      if self.paste.value.strip() else None)
        m.observe(m.guarded(lambda _c: self._progress(), where="batch panel"),
                  names=["batch_done", "batch_total", "batch_running"])
        intro = html("", (
            '<div class="lfe-muted">One call per line: <code>{"name": "upload_local_file", '
            '"arguments": {"local_path": "/data/a.csv"}}</code> (a whole JSON-RPC '
            "<code>tools/call</code> request works too). Re-run automatically when the "
            "configuration changes.</div>"))
        return [
            intro, widgets.HBox([self.upload, self.path, self.load], layout=wide()),
            self.paste, self.paste_run,
            widgets.HBox([self.progress, self.progress_label], layout=wide()),
            self.status, heading("By outcome"), self.outcomes, heading("By tool"),
            self.tools, widgets.HBox([self.csv_prepare, self.csv], layout=wide()),
            heading("Calls"), self.grid,
        ]

    # ---- row actions

    def _verdict(self, index: int):
        return self.model.batch_verdicts[index]

    def _detail(self, index: int) -> str:
        v = self._verdict(index)
        where = f'<div class="lfe-muted">call {index + 1}, line {render.esc(v.line)}</div>'
        known = known_tools(self.model.server)
        return where + unknown_tool_note(v, known) + render.call_verdict_html(
            v, limit=render.MAX_DETAIL_ENTRIES)

    def _command(self, index: int) -> str:
        return probe_command(self.model, self.model.batch_call(self._verdict(index).line))

    def _command_note(self, _index: int) -> str:
        link = access_link(self.model)
        return (f'<div class="lfe-muted lfe-batch-command-note">Save the tool access lists '
                f"as {ACCESS_FILE} next to it: {link}</div>") if link else ""

    def _pin(self, index: int) -> str:
        v = self._verdict(index)
        call = self.model.batch_call(v.line)
        pin_row(self.model, f"call {index + 1}: {v.name}",
                call=(str(call["name"]), dict(call["arguments"]), v))
        return _pinned_note(self.model)

    def _uploaded(self) -> None:
        got = self.upload_contents(self.upload)
        if got is not None:
            name, data = got
            self.model.load_batch_upload(name, data.decode("utf-8", errors="replace"))

    def _progress(self) -> None:
        m = self.model
        self.progress.max = max(1, m.batch_total)
        self.progress.value = min(m.batch_done, self.progress.max)
        state = "running…" if m.batch_running else "done"
        if m.batch_total:
            self.progress_label.value = (
                f'<span class="lfe-muted">{m.batch_done} / {m.batch_total} calls, {state}'
                "</span>")
        else:
            self.progress_label.value = ""

    def refresh(self) -> None:
        m = self.model
        self._progress()
        source = m.batch_name or m.batch_path
        if m.batch_error:
            self.status.value = render.box("error", render.esc(m.batch_error))
        elif source:
            self.status.value = (f'<div class="lfe-muted">Calls from '
                                 f"<code>{render.esc(source)}</code></div>")
        else:
            self.status.value = '<div class="lfe-muted">No batch loaded.</div>'
        verdicts = m.batch_verdicts
        known = known_tools(m.server)  # the selected server's tools
        self.grid.set_frame(batch_frame(verdicts, known))
        if not verdicts:
            self.outcomes.value = self.tools.value = self.csv.value = ""
            self.csv_prepare.disabled = True
            return
        self.outcomes.value, self.tools.value, _calls = render.batch_tables(verdicts)
        unknown = unknown_tool_calls(verdicts, known)
        if unknown:
            self.outcomes.value = render.box(
                "warning", f"⚠ {unknown} call(s) name a tool the catalog doesn't know: "
                "counted under their outcome below, but no rule vouches for them (their "
                "paths are guessed); the grid shows them as ? UNKNOWN TOOL.",
                "lfe-batch-unknown") + self.outcomes.value
        self.csv.value = ""
        self.csv_prepare.disabled = False

    def prepare_csv(self) -> None:
        """Put the batch result's CSV (one row per call and path) in a download link."""
        m = self.model
        if not m.batch_verdicts:
            return
        self.csv.value = render.download_link(
            m.batch_csv(), "localfs-explorer-batch.csv", "text/csv",
            f"⬇ Download the result as CSV ({len(m.batch_verdicts)} calls)",
            "lfe-batch-csv-link")
