"""The Export panel: the .env being prepared, validated, shown and saved safely.

Every pending change says where it goes: into the ``.env`` (the policy bar's edits, and
the process-environment overrides only when asked) or nowhere (an override stays in the
process environment). Before writing, the panel shows the full destination path, what is
there now, and the diff against it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import ipywidgets as widgets

from ...deployments.writeback import git_checkout_of
from .. import render
from ..panel import Panel, button, css, heading, html, label_style, layout, style


def _env_at(path: str) -> tuple[dict[str, str | None] | None, str]:
    """The settings of the ``.env`` at ``path``, or (None, why they aren't shown).

    Only a file named like a ``.env`` whose every line is a ``KEY=VALUE`` setting is
    read: any other file there (a password database, a private key) is not the page's to
    show, on a page that may be served to someone else.
    """
    from ...envfile.load import EnvFileError, parse_env_text, read_env_text
    from ..inputs import looks_like_env_name

    if not looks_like_env_name(path):
        return None, "it isn't named like a .env"
    try:
        pairs, _ = parse_env_text(read_env_text(Path(path)), name=path, strict=True)
    except (EnvFileError, OSError, ValueError):
        return None, "it can't be read as a .env"
    if any(value is None or not _KEY.fullmatch(key) for key, value in pairs):
        return None, "not every line of it is a KEY=VALUE setting"
    return dict(pairs), ""


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _key_changes(current: dict[str, str | None], new_text: str) -> str:
    """What writing would change at the destination, key by key (names only, no value)."""
    from ...envfile.load import parse_env_text

    after = dict(parse_env_text(new_text, strict=False)[0])
    rows = [("added", sorted(k for k in after if k not in current)),
            ("changed", sorted(k for k in after if k in current and after[k] != current[k])),
            ("removed", sorted(k for k in current if k not in after)),
            ("unchanged", sorted(k for k in after if k in current and after[k] == current[k]))]
    items = "".join(f"<li><b>{what}:</b> {', '.join(f'<code>{render.esc(k)}</code>' for k in keys)}"
                    "</li>" for what, keys in rows if keys)
    return ('<div class="lfe-muted">Against the .env at the destination now (setting names '
            f'only; values aren\'t shown):</div><ul class="lfe-dest-changes">{items}</ul>')


class ExportPanel(Panel):
    """A masked diff; blocked with reasons when invalid; download or write to a path."""

    name = "export"
    title = "Export"
    watches = ("config_rev",)

    def build(self) -> list[widgets.Widget]:
        m = self.model
        intro = html("", (
            '<div class="lfe-muted">The .env being prepared: the loaded file with the policy '
            "bar's edits written in. Untouched lines stay byte for byte. Secret values are "
            "masked here and appear only in the file itself.</div>"))
        self.status = html("lfe-export-status")
        self.include_overrides = css(self.bind(widgets.Checkbox(
            description="also write the process-environment overrides into the .env",
            indent=False, layout=layout(width="auto"), style=style(widgets.Checkbox)),
            "export_overrides"), "lfe-export-overrides")
        self.changes = html("lfe-export-changes")
        self.diff = html("lfe-export-diff-view")
        self.warnings = html("lfe-export-warnings")
        self.prepare = button("⬇ Prepare download", "lfe-export-prepare",
                              layout=layout(width="170px"))
        self.download = html("lfe-export-download")
        self.dest = css(widgets.Text(description="write to", placeholder="name.env.new",
                                     style=label_style(widgets.Text, "70px"),
                                     layout=layout(width="60%")), "lfe-export-dest")
        self.dest_info = html("lfe-export-dest-info")
        self.dest_diff = html("lfe-export-dest-diff")
        self.force = css(widgets.Checkbox(description="replace an existing file (a backup "
                                                      "is kept)", indent=False,
                                          layout=layout(width="auto"),
                                          style=style(widgets.Checkbox)),
                         "lfe-export-force")
        self.write = button("Write", "lfe-export-write", button_style="warning",
                            layout=layout(width="90px"))
        self.result = html("lfe-export-result")
        self.dest.disabled = self.force.disabled = self.write.disabled = not m.host_access
        self.on_click(self.prepare, self._prepare)
        self.on_click(self.write, self._write)
        self.on_change(self.dest, lambda _v: self._dest_changed())
        self._default_dest = ""
        write_row = [widgets.HBox([self.dest, self.force, self.write],
                                  layout=layout(width="100%", flex_flow="row wrap")),
                     self.dest_info, self.dest_diff]
        if not m.host_access:
            write_row = [html("", '<div class="lfe-muted">Writing on the serving machine '
                                  "is off for a page served to other machines.</div>")]
            write_row.append(html("lfe-export-secrets-rule", (
                '<div class="lfe-muted">No secret this page holds leaves it: the download '
                "keeps secret settings as they are in your own uploaded file (secret "
                "overrides are not written into it), and the .env this page was started "
                "with is not offered if it holds secrets.</div>")))
        # A client-config entry in use: its settings are written back into the config.
        self.entry_heading = html("lfe-writeback-heading")
        self.entry_status = html("lfe-writeback-status")
        self.entry_changes = html("lfe-writeback-changes")
        self.entry_diff = html("lfe-writeback-diff")
        self.entry_write = button("Write back", "lfe-writeback-write", button_style="warning",
                                  layout=widgets.Layout(width="auto"))  # its own: hidden
        self.entry_download = html("lfe-writeback-download")
        self.entry_result = html("lfe-writeback-result")
        self.on_click(self.entry_write, self._write_back)
        self.entry_box = css(widgets.VBox([
            self.entry_heading, self.entry_status, self.entry_changes, self.entry_diff,
            widgets.HBox([self.entry_write, self.entry_download], layout=layout()),
            self.entry_result], layout=widgets.Layout(width="100%", display="none")),
            "lfe-writeback")
        self.env_box = widgets.VBox([
            intro, self.status, self.warnings, heading("Changes and where they go"),
            self.include_overrides, self.changes,
            heading("Diff against the loaded .env"), self.diff,
            heading("Save"), widgets.HBox([self.prepare, self.download], layout=layout()),
            *write_row,
            self.result,
        ], layout=widgets.Layout(width="100%"))
        return [self.entry_box, self.env_box]

    def _write_back(self) -> None:
        from ..entry_model import write_back
        from ..inputs import ExplorerError

        try:
            done = write_back(self.model)
        except ExplorerError as exc:
            self.entry_result.value = render.box("error", f"Not written: {render.esc(exc)}",
                                                 "lfe-writeback-refused")
            return
        self.entry_result.value = render.box(
            "ok", "<br>".join(render.esc(self.model.clean(line)) for line in done),
            "lfe-writeback-written")

    def _refresh_entry(self) -> bool:
        """Show the write-back of the entry in use (True), or hide it (False)."""
        m = self.model
        entry = bool(m.client_entry)
        self.entry_box.layout.display = "" if entry else "none"
        self.env_box.layout.display = "none" if entry else ""
        if not entry:
            return False
        name = m.client_config_path or m.client_config_name
        where = f"{render.esc(m.clean(name))}"
        self.entry_heading.value = (
            f'<h3 class="lfe-heading">Write back to <code>{where}</code></h3>'
            f'<div class="lfe-muted">Entry <code>{render.esc(m.client_entry)}</code>: the '
            "bar's changes go into its own settings, as <code>localfs-explorer export-env "
            "--client-config … --entry … --in-place</code> writes them (the file replaced "
            "atomically, the previous one kept as a backup). Secret values are masked "
            "here.</div>")
        plan = m.writeback_plan
        self.entry_download.value = ""
        if m.export_done != m.client_config_path:
            self.entry_result.value = ""
        rows = "".join(f"<li><code>{render.esc(k)}</code> → {render.esc(w)}</li>"
                       for k, w in m.change_destinations())
        self.entry_changes.value = (f'<ul class="lfe-change-list">{rows}</ul>' if rows else
                                    '<div class="lfe-muted">No changes yet: edit the mode '
                                    "or roots in the bar above.</div>")
        if plan is None:
            self.entry_status.value = render.box(
                "error", f"<b>Can't write back:</b> {render.esc(m.writeback_error)}",
                "lfe-writeback-blocked")
            self.entry_diff.value = ""
            self.entry_write.disabled = True
            return True
        notes = render.messages("warning", list(plan.warnings), "warning",
                                "lfe-writeback-warnings")
        if plan.ok:
            self.entry_status.value = render.box(
                "ok", "✔ Valid: the server would start with this entry.",
                "lfe-writeback-ok") + notes
        else:
            self.entry_status.value = render.box(
                "error", "<b>Blocked</b> — the server would not start with this entry: "
                + render.esc("; ".join(plan.errors)), "lfe-writeback-blocked") + notes
        self.entry_diff.value = render.diff_html(plan.diff())
        local = bool(m.client_config_path) and m.host_access
        self.entry_write.description = f"Write back to {os.path.basename(name)}"
        self.entry_write.layout.display = "" if local else "none"
        self.entry_write.disabled = not plan.ok or plan.text == plan.original
        if not local and plan.ok and plan.text != plan.original:
            # An upload: the new file is handed back as a download, never written here.
            base = os.path.basename(name) or "client-config.json"
            self.entry_download.value = render.download_link(
                plan.text.encode("utf-8"), base, "application/octet-stream",
                f"⬇ Download the new {base}", "lfe-writeback-download-link",
                mask_secrets=False)
        return True

    def _prepare(self) -> None:
        data, note = self.model.download_text()
        if data is None:
            self.download.value = render.box("error", render.esc(note),
                                             "lfe-export-download-refused")
            return
        name = self.model.export_download_name()
        source = os.path.basename(self.model.env_name if self.model.env_text is not None
                                  else self.model.env_path) or ".env"
        if name != source:
            note = (f"Saved as {name} (browsers drop a leading dot): rename it to {source} "
                    "where the server reads it. " + (note or "")).strip()
        # The link carries the file itself, so it is made on request and dropped as soon
        # as the plan changes. Served to other machines, it holds no secret of the kernel's
        # (the note says what was left out). application/octet-stream: a browser keeps the
        # name as it is instead of adding ".txt".
        self.download.value = render.download_link(
            data, name, "application/octet-stream",
            f"⬇ Download {name}", "lfe-export-download-link", mask_secrets=False) + (
            f'<div class="lfe-muted lfe-export-download-note">{render.esc(note)}</div>'
            if note else "")
        self.model.export_done = name

    def _write(self) -> None:
        from ...envfile.export import ExportError
        from ..inputs import ExplorerError

        try:
            result = self.model.write_export(self.dest.value, force=self.force.value)
        except (ExportError, ExplorerError) as exc:
            self.result.value = render.box("error", f"Not written: {render.esc(exc)}",
                                           "lfe-export-refused")
            return
        self.result.value = render.box("ok", render.esc(result.describe()),
                                       "lfe-export-written")
        self.force.value = False  # a replace is asked for each time, never left ticked
        self._show_destination()

    def _dest_changed(self) -> None:
        self.result.value = ""  # what was said about another destination is stale
        self.force.value = False
        self._show_destination()

    def _show_destination(self) -> None:
        """The full path the Write button would write, what is there, and the diff to it."""
        m = self.model
        if not m.host_access:
            return
        from ..inputs import executable_name

        if not self.dest.value.strip():
            self.dest_diff.value = ""
            self.dest_info.value = render.box(
                "note", "The uploaded .env has no place on this machine: download it "
                "(Prepare download), or type where to write it.", "lfe-export-upload-note") \
                if m.env_text is not None and not m.env_from_operator else ""
            return
        folder, what = m.export_base()
        path = m.export_path(self.dest.value)
        lines = [f"Writes <b><code>{render.path_html(path)}</code></b>"]
        if not os.path.isabs(os.path.expanduser(self.dest.value.strip())):
            lines.append(f"(a relative path is taken against {render.esc(what)}, "
                         f"<code>{render.path_html(folder)}</code>)")
        kind, current = "note", None
        if os.path.lexists(path):
            kind = "warning"
            lines.append("— a file is there now: writing needs “replace”, and it is kept "
                         "as a backup")
            current, why = _env_at(path)
            if current is None:
                lines.append(f"(what it holds isn't shown: {render.esc(why)})")
        else:
            lines.append("— nothing is there yet")
        if executable_name(path):
            lines.append("— refused: a name that is run or imported where it lands")
            kind = "error"
        checkout = git_checkout_of(path)
        parts = [render.box(kind, " ".join(lines), "lfe-export-dest-path")]
        if checkout:
            parts.append(render.box(
                "warning",
                f"⚠ This is inside the git checkout <code>{render.path_html(checkout)}</code>: "
                "the file holds the secrets; keep it out of commits (or write it elsewhere).",
                "lfe-export-git-warning"))
        self.dest_info.value = "".join(parts)
        plan = m.export_plan
        if current is not None and plan is not None:
            self.dest_diff.value = _key_changes(current, plan.text)
        else:
            self.dest_diff.value = ""

    def refresh(self) -> None:
        m = self.model
        if self._refresh_entry():
            return
        self.download.value = ""
        if m.export_done != self.model.export_path(self.dest.value or "."):
            self.result.value = ""  # the plan moved on: an old "wrote ..." would mislead
        if m.host_access:
            default = m.default_export_dest()
            if self.dest.value in ("", self._default_dest) and default != self.dest.value:
                self.dest.value = default
            self._default_dest = default
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
        actions = {c.key: c.describe() for c in plan.changes
                   if c.action not in ("unchanged", "not_present")}
        rows = []
        for key, where in m.change_destinations():
            done = actions.get(key, f"{key}: no change to the file")
            rows.append(f"<li><code>{render.esc(key)}</code> → <b>{render.esc(where)}</b>"
                        f' <span class="lfe-muted">({render.esc(done)})</span></li>')
        self.changes.value = (f'<ul class="lfe-change-list">{"".join(rows)}</ul>' if rows
                              else '<div class="lfe-muted">No changes yet: edit the mode or '
                                   "roots in the bar above.</div>")
        self.warnings.value = render.messages("warning", list(plan.warnings), "warning",
                                              "lfe-export-warning-list")
        self.diff.value = render.diff_html(plan.diff(masked=True))
        self._show_destination()
