"""The Exposure panel: what tools can read and overwrite under the loaded configuration.

The walk runs in a worker thread so the page stays responsive: a progress bar moves, and
Cancel stops the walk, which then shows what it saw. A walk is started by hand (it can be
long) and marked stale when the configuration changes.
"""

from __future__ import annotations

import threading
from typing import Any

import ipywidgets as widgets

from ...exposure import SEVERITIES, WALKING_AGAIN
from ...textsafe import frame_csv_text
from .. import render
from ..panel import Panel, button, css, heading, html, label_style, layout, wide

_SEVERITY_COLOURS = {"critical": "#b42318", "high": "#c4320a", "medium": "#9a6700",
                     "info": "#57606a"}
#: Findings shown in the table (the CSV download has them all).
MAX_ROWS = 300


def severity_chart(counts: dict[str, int]) -> str:
    """Counts per severity as horizontal bars (inline SVG, the number written beside)."""
    top = max(counts.values(), default=0) or 1
    rows = []
    for i, (severity, n) in enumerate(counts.items()):
        y = i * 22
        w = round(220 * n / top)
        rows.append(
            f'<text x="70" y="{y + 15}" text-anchor="end" font-size="12" '
            f'fill="currentColor">{render.esc(severity)}</text>'
            f'<rect x="76" y="{y + 4}" width="{w}" height="14" '
            f'fill="{_SEVERITY_COLOURS.get(severity, "#57606a")}"></rect>'
            f'<text x="{82 + w}" y="{y + 15}" font-size="12" fill="currentColor">{n}</text>')
    height = 22 * len(counts) + 4
    return (f'<svg class="lfe-exposure-chart" width="360" height="{height}" role="img" '
            f'aria-label="findings by severity">{"".join(rows)}</svg>')


class ExposurePanel(Panel):
    """Run the exposure inventory on the target host and show its findings."""

    name = "exposure"
    title = "Exposure"

    def build(self) -> list[widgets.Widget]:
        self.scope = css(widgets.Text(
            description="scope", placeholder="default: the roots, or home and startup dir",
            continuous_update=False, style=label_style(widgets.Text, "60px"),
            layout=layout(width="50%")), "lfe-exposure-scope")
        self.max_entries = css(widgets.BoundedIntText(
            value=200_000, min=1, max=5_000_000, description="max entries",
            style=label_style(widgets.BoundedIntText, "90px"), layout=layout(width="220px")),
            "lfe-exposure-max")
        self.sizes = css(widgets.Checkbox(value=True, description="count bytes", indent=False,
                                          layout=layout(width="120px")), "lfe-exposure-sizes")
        self.run_button = button("Walk", "lfe-exposure-run",
                                 layout=layout(width="90px"))
        self.cancel_button = button("Cancel", "lfe-exposure-cancel",
                                    layout=layout(width="90px"), disabled=True)
        self.progress = css(widgets.IntProgress(value=0, min=0, max=1, description="walked",
                                                layout=layout(width="60%")),
                            "lfe-exposure-progress")
        self.progress_label = html("lfe-exposure-progress-label")
        self.status = html("lfe-exposure-status")
        self.chart = html("lfe-exposure-chart-view")
        self.summary = html("lfe-exposure-summary")
        self.findings = html("lfe-exposure-findings")
        # Narrowing the findings table (a walk may find hundreds).
        self.severity_filter = css(widgets.Dropdown(
            options=["(all)", *SEVERITIES], value="(all)", description="severity",
            tooltip="show only the findings of one severity",
            style=label_style(widgets.Dropdown, "64px"), layout=layout(width="200px")),
            "lfe-exposure-severity")
        self.text_filter = css(widgets.Text(
            placeholder="filter by path, op or why", tooltip="show only the findings "
            "whose path, operation or reason holds this text", continuous_update=False,
            layout=layout(width="300px")), "lfe-exposure-filter")
        self.on_change(self.severity_filter, lambda _v: self._show_findings())
        self.on_change(self.text_filter, lambda _v: self._show_findings())
        self.csv = html("lfe-exposure-csv")
        #: The last inventory and the error of the last run, for the page and for tests.
        self.inventory: Any = None
        self.error = ""
        self._walked_policy: Any = None
        self._cancel = threading.Event()
        self._worker: threading.Thread | None = None
        self.on_click(self.run_button, lambda: self.start())
        self.on_click(self.cancel_button, self.cancel)
        intro = html("", (
            '<div class="lfe-muted">Every entry below the walked directories gets the '
            "server's verdict for read and for write. Findings: <b>critical</b> writable "
            "files something executes, <b>high</b> readable credentials (and their "
            "hardlinks), <b>medium</b> deny-listed files inside roots and risky roots, "
            "<b>info</b> counts. Scope: directories separated by <code>:</code>, walked "
            "first, before the roots (or home and startup directory).</div>"))
        self.required = css(widgets.Textarea(
            placeholder="read:/data/in.csv\nwrite:/data/out/\n(one OP:PATH per line)",
            tooltip="paths the server must reach, one OP:PATH per line",
            layout=layout(width="70%", height="80px")), "lfe-suggest-required")
        self.suggest_button = button("Suggest roots", "lfe-suggest-run",
                                     layout=layout(width="140px"))
        self.suggestion_view = html("lfe-suggest-view")
        #: The last suggestion, for the page and for tests.
        self.suggestion: Any = None
        self.on_click(self.suggest_button, self.suggest)
        suggest_intro = html("", (
            '<div class="lfe-muted">The work that must keep working, one '
            "<code>read:</code>, <code>write:</code> or <code>read_write:</code> path a "
            "line: the narrowest roots allowing all of it, what can't be allowed, what "
            "stops being reachable, and the <code>.env</code> change (secrets masked).</div>"))
        return [
            intro,
            widgets.HBox([self.scope, self.max_entries, self.sizes, self.run_button,
                          self.cancel_button], layout=wide()),
            widgets.HBox([self.progress, self.progress_label], layout=wide()),
            self.status, heading("Findings by severity"), self.chart, self.summary,
            self.csv, heading("Findings"),
            widgets.HBox([self.severity_filter, self.text_filter], layout=wide()),
            self.findings,
            heading("Least-privilege roots"), suggest_intro,
            widgets.HBox([self.required, self.suggest_button], layout=wide()),
            self.suggestion_view,
        ]

    # ---- suggesting

    def suggest(self) -> None:
        """Suggest roots for the required checks typed in, under the loaded configuration."""
        from ...errors import LocalfsError
        from ...fs import HostFS
        from ...review.suggest import parse_requirement
        from ...server import server_of

        policy = self.model.policy
        if policy is None:
            self.suggestion_view.value = render.box("error", render.esc(
                self.model.config_error or "no configuration loaded"))
            return
        if isinstance(policy.fs, HostFS) and not self.model.host_access:
            self.suggestion_view.value = render.box("error", render.esc(
                "looking at the serving machine is off for a page served to other machines"))
            return
        m = self.model
        try:
            required = [parse_requirement(line.strip(), "the required paths")
                        for line in self.required.value.splitlines() if line.strip()]
            self.suggestion = s = server_of(policy).suggest(
                policy, required, env_file=(m.env_name or None) if m.env_text is not None
                else (m.env_path or None), env_text=m.env_text,
                max_entries=self.max_entries.value)
        except LocalfsError as exc:  # a requirement, or a server without suggest
            self.suggestion = None
            self.suggestion_view.value = render.box("error", render.esc(m.clean(str(exc))))
            return
        kind = "ok" if s.ok else "warning"
        lines = "".join(f"<div>{render.esc(m.clean(line))}</div>" for line in s.lines())
        # The .env change, for a server that reads one.
        diff = (render.diff_html(m.clean(getattr(s, "diff", "")))
                if server_of(policy).env_file else "")
        self.suggestion_view.value = render.box(kind, lines, "lfe-suggest-result") + diff

    # ---- running

    def start(self, *, wait: bool = False) -> None:
        """Start a walk (in a worker thread; ``wait`` runs it here, for scripts and tests)."""
        if self._worker is not None and self._worker.is_alive():
            return
        policy = self.model.policy
        self.error = ""
        if policy is None:
            self.error = self.model.config_error or "no configuration loaded"
            self.refresh()
            return
        from ...fs import HostFS

        if isinstance(policy.fs, HostFS) and not self.model.host_access:
            self.error = ("walking the serving machine is off for a page served to other "
                          "machines; pick an example host or upload a host spec")
            self.refresh()
            return
        scope = [s for s in self.scope.value.split(":") if s.strip()] or None
        self._cancel = threading.Event()
        self._walked_policy = policy
        self.cancel_button.disabled = False
        self.run_button.disabled = True
        # The bar runs up to the walk's cap (the number of entries isn't known before):
        # said beside it, and filled when the walk is done.
        self.progress.max = self.max_entries.value
        self.progress.value = 0
        self.progress_label.value = (f'<span class="lfe-muted">walking… (at most '
                                     f"{self.max_entries.value:,} entries)</span>")
        # What the last walk found goes: it would read as this walk's answer.
        self.inventory = None
        self.status.value = '<div class="lfe-muted">Walking…</div>'
        self.chart.value = self.summary.value = self.findings.value = self.csv.value = ""
        args = (policy, scope, self.max_entries.value, self.sizes.value)
        if wait:
            self._run(*args)
        else:
            self._worker = threading.Thread(target=self._run, args=args, daemon=True,
                                            name="lfe-exposure")
            self._worker.start()

    def wait(self, timeout: float | None = None) -> None:
        """Block until the running walk (if any) has finished."""
        if self._worker is not None:
            self._worker.join(timeout)

    def cancel(self) -> None:
        """Stop the running walk; the findings so far are shown, marked as cut short."""
        self._cancel.set()

    def _on_progress(self, p: Any) -> None:
        self.progress.value = min(p.entries, self.progress.max)
        again = f"{WALKING_AGAIN}: " if p.again else ""
        self.progress_label.value = (
            f'<span class="lfe-muted">{again}{p.entries:,} entries, {p.directories:,} '
            f"directories</span>")

    def _run(self, policy: Any, scope: list[str] | None, max_entries: int,
             sizes: bool) -> None:
        from ...exposure import ExposureError, exposure

        try:
            self.inventory = exposure(policy, scope, sizes=sizes, max_entries=max_entries,
                                      progress=self._on_progress, cancel=self._cancel)
        except ExposureError as exc:
            self.inventory, self.error = None, self.model.clean(str(exc))
        except Exception as exc:  # a worker thread's failure must reach the page
            self.inventory = None
            self.model.report("exposure panel", exc)
            self.error = self.model.clean(f"{type(exc).__name__}: {exc}")
        finally:
            self.cancel_button.disabled = True
            self.run_button.disabled = False
            self.model.guarded(self.refresh, where="exposure panel")()

    # ---- showing

    def refresh(self) -> None:
        inv = self.inventory
        stale = inv is not None and self.model.policy is not self._walked_policy
        if self.error:
            self.status.value = render.box("error", render.esc(self.error))
        elif inv is None:
            self.status.value = ('<div class="lfe-muted">Not walked yet: press Walk.</div>')
        elif inv.cancelled:
            self.status.value = render.box("warning", render.esc(
                "Cancelled: " + "; ".join(inv.stopped)))
        elif not inv.complete:
            self.status.value = render.box("warning", render.esc(
                "; ".join(inv.stopped + inv.problems[:3])))
        else:
            self.status.value = render.box("ok", render.esc(
                f"Walked {inv.entries:,} entries on {inv.target}."))
        if stale and not self.error:
            self.status.value += render.box("note", render.esc(
                "The configuration changed since this walk: press Walk again."),
                "lfe-exposure-stale")
        if inv is None:
            self.chart.value = self.summary.value = self.findings.value = self.csv.value = ""
            return
        if inv.cancelled or not inv.complete:
            self.progress.value = min(inv.entries, self.progress.max)
            state = "cancelled" if inv.cancelled else "cut short"
        else:
            self.progress.max = max(inv.entries, 1)  # done: a full bar, whatever the cap
            self.progress.value = self.progress.max
            state = "done"
        self.progress_label.value = (f'<span class="lfe-muted">{inv.entries:,} entries, '
                                     f"{state}</span>")
        self.chart.value = severity_chart(inv.counts())
        by_root = inv.counts_by_root()
        per_root = render.table(
            ("walked directory", *SEVERITIES),
            [(f"<code>{render.esc(root)}</code>", *(str(c[s]) for s in SEVERITIES))
             for root, c in by_root.items()],
            css_class="lfe-exposure-roots")
        self.summary.value = "".join(
            f'<div class="lfe-muted">{render.esc(line)}</div>' for line in inv.summary()
        ) + per_root
        self._show_findings()
        self.csv.value = render.download_link(
            self._csv(inv), "localfs-explorer-exposure.csv", "text/csv",
            f"⬇ Download the findings as CSV ({len(inv.findings)})", "lfe-exposure-csv-link")

    def shown_findings(self) -> list[Any]:
        """The findings passing the severity and text filters."""
        inv = self.inventory
        if inv is None:
            return []
        severity = self.severity_filter.value
        needle = self.text_filter.value.strip().lower()
        return [f for f in inv.findings
                if (severity == "(all)" or f.severity == severity)
                and (not needle or needle in f"{f.path} {f.op} {f.why}".lower())]

    def _show_findings(self) -> None:
        inv = self.inventory
        if inv is None:
            self.findings.value = ""
            return
        shown = self.shown_findings()
        rows = [
            (render.badge("refused" if f.severity in ("critical", "high") else "warning",
                          f.severity.upper()) if f.severity != "info"
             else render.esc("info"),
             render.esc(f.op), f"<code>{render.esc(f.path)}</code>", render.esc(f.why),
             render.esc(f.fix))
            for f in shown[:MAX_ROWS]
        ]
        # One count line: how many match, and how many of those the table holds.
        parts = []
        if len(shown) != len(inv.findings):
            parts.append(f"{len(shown)} of {len(inv.findings)} findings match the filters")
        if len(shown) > len(rows):
            parts.append(f"the first {len(rows)} shown (the CSV has them all)")
        note = (f'<div class="lfe-muted lfe-exposure-filtered">{" · ".join(parts)}</div>'
                if parts else "")
        self.findings.value = note + render.table(
            ("severity", "op", "path", "why", "what would remove it"), rows,
            css_class="lfe-exposure-table")

    def _csv(self, inv: Any) -> bytes:
        # The package's one CSV writer: no formulas, no line break inside a cell.
        return self.model.clean(frame_csv_text(inv.dataframe())).encode("utf-8")
