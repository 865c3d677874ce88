"""The Export panel: the loaded ``.env`` with the overrides written in, validated first."""

from __future__ import annotations

import ipywidgets as widgets

from .. import render
from ..panel import Panel, button, css, heading, html, label_style, layout, style


class ExportPanel(Panel):
    """A masked diff; blocked with reasons when invalid; download or write to a path."""

    name = "export"
    title = "Export"
    watches = ("config_rev",)

    def build(self) -> list[widgets.Widget]:
        m = self.model
        intro = html("", (
            '<div class="lfe-muted">The loaded .env with every override written in and every '
            "unset key removed. Untouched lines stay byte for byte. Secret values are masked "
            "here and appear only in the file itself.</div>"))
        self.status = html("lfe-export-status")
        self.changes = html("lfe-export-changes")
        self.diff = html("lfe-export-diff-view")
        self.warnings = html("lfe-export-warnings")
        self.prepare = button("Prepare download", "lfe-export-prepare", icon="download",
                              layout=layout(width="170px"))
        self.download = html("lfe-export-download")
        self.dest = css(widgets.Text(description="write to", placeholder="/path/to/new/.env",
                                     style=label_style(widgets.Text, "70px"),
                                     layout=layout(width="55%")), "lfe-export-dest")
        self.force = css(widgets.Checkbox(description="replace an existing file (a backup "
                                                      "is kept)", indent=False,
                                          layout=layout(width="auto"),
                                          style=style(widgets.Checkbox)),
                         "lfe-export-force")
        self.write = button("Write", "lfe-export-write", icon="save", button_style="warning",
                            layout=layout(width="90px"))
        self.result = html("lfe-export-result")
        self.dest.disabled = self.force.disabled = self.write.disabled = not m.host_access
        self.on_click(self.prepare, self._prepare)
        self.on_click(self.write, self._write)
        write_row = [widgets.HBox([self.dest, self.force, self.write], layout=layout())]
        if not m.host_access:
            write_row.append(html("", '<div class="lfe-muted">Writing on the serving machine '
                                      "is off for a page served to other machines.</div>"))
            write_row.append(html("lfe-export-secrets-rule", (
                '<div class="lfe-muted">No secret this page holds leaves it: the download '
                "keeps secret settings as they are in your own uploaded file (secret "
                "overrides are not written into it), and the .env this page was started "
                "with is not offered if it holds secrets.</div>")))
        return [
            intro, self.status, self.warnings, heading("Changes"), self.changes,
            heading("Diff"), self.diff,
            heading("Save"), widgets.HBox([self.prepare, self.download], layout=layout()),
            *write_row,
            self.result,
        ]

    def _prepare(self) -> None:
        data, note = self.model.download_text()
        if data is None:
            self.download.value = render.box("error", render.esc(note),
                                             "lfe-export-download-refused")
            return
        name = (self.model.env_name or self.model.env_path or ".env").rsplit("/", 1)[-1]
        # The link carries the file itself, so it is made on request and dropped as soon
        # as the plan changes. Served to other machines, it holds no secret of the kernel's
        # (the note says what was left out).
        self.download.value = render.download_link(
            data, name or ".env", "text/plain",
            f"⬇ Download {name}", "lfe-export-download-link", mask_secrets=False) + (
            f'<div class="lfe-muted lfe-export-download-note">{render.esc(note)}</div>'
            if note else "")

    def _write(self) -> None:
        from ...dotenv_export import ExportError
        from ..model import ExplorerError

        try:
            result = self.model.write_export(self.dest.value, force=self.force.value)
        except (ExportError, ExplorerError) as exc:
            self.result.value = render.box("error", f"Not written: {render.esc(exc)}",
                                           "lfe-export-refused")
            return
        self.result.value = render.box("ok", render.esc(result.describe()),
                                       "lfe-export-written")

    def refresh(self) -> None:
        m = self.model
        self.download.value = ""
        plan = m.export_plan
        if plan is None:
            self.status.value = render.box(
                "error", f"<b>Can't export:</b> {render.esc(m.export_error or 'no plan')}")
            self.changes.value = self.diff.value = self.warnings.value = ""
            self.prepare.disabled = self.write.disabled = True
            return
        if plan.ok:
            self.status.value = render.box(
                "ok", "✔ Valid: the server would start with this .env.", "lfe-export-ok")
        else:
            self.status.value = render.box(
                "error", f"<b>Blocked</b> — {render.esc(plan.refusal())}", "lfe-export-blocked")
        self.prepare.disabled = not plan.ok
        self.write.disabled = not plan.ok or not m.host_access
        changed = [c for c in plan.changes if c.action not in ("unchanged", "not_present")]
        self.changes.value = (
            "<ul>" + "".join(f"<li>{render.esc(c.describe())}</li>" for c in changed) + "</ul>"
            if changed else '<div class="lfe-muted">No key changes.</div>'
        )
        self.warnings.value = render.messages("warning", list(plan.warnings), "warning",
                                              "lfe-export-warning-list")
        self.diff.value = render.diff_html(plan.diff(masked=True))
