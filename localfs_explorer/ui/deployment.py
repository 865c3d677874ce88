"""A small picker on the Server panel: upload an MCP client config, pick an entry, use it.

The upload is read as text (a page served to others must not open files by name): its
entries are listed with the server each one starts, and "Use this entry" puts the entry's
environment into the process-environment overrides, its transport and startup directory
into the model (with the server it starts and, for the filesystem server, its
directories), and shows what came from the entry and what was defaulted. Secret values
stay in the kernel: the overrides editor keeps them out of its fields, and they are
masked wherever the page shows text.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from ..deployments import Deployment, DeploymentError, list_entries, load_deployment
from ..deployments.view import deployment_lines
from ..secrets import hide_everywhere
from . import render
from .model import ExplorerModel
from .panel import button, css, html, layout, style

__all__ = ["ClientConfigPicker"]


class ClientConfigPicker(widgets.VBox):
    """Upload -> entries -> pick -> the model takes the entry's settings."""

    def __init__(self, model: ExplorerModel) -> None:
        super().__init__(layout=layout(width="100%"))
        css(self, "lfe-client-config")
        self.model = model
        self.upload = css(widgets.FileUpload(
            description="Upload client config", accept=".json,.yaml,.yml", multiple=False,
            layout=layout(width="210px"), style=style(widgets.Button)), "lfe-client-upload")
        self.entries = css(widgets.Dropdown(options=[], description="entry",
                                            layout=layout(width="60%")), "lfe-client-entry")
        self.use = button("Use this entry", "lfe-client-use", layout=layout(width="140px"))
        self.info = html("lfe-client-info")
        self.use.disabled = True
        #: The uploaded file's name and text; the deployment last put into the model.
        self.name = ""
        self.text: str | None = None
        self.deployment: Deployment | None = None
        self.upload.observe(model.guarded(lambda _c: self._uploaded(), where="client config"),
                            names="value")
        self.use.on_click(model.guarded(lambda _b: self.apply(), where="client config"))
        self.children = [widgets.HBox([self.upload, self.entries, self.use],
                                      layout=layout(width="100%")), self.info]

    def _uploaded(self) -> None:
        value: Any = self.upload.value
        if not value:
            return
        item = value[0] if isinstance(value, (tuple, list)) else next(iter(value.values()))
        content = item["content"]
        data = content.tobytes() if hasattr(content, "tobytes") else bytes(content)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self._error(f"{item.get('name', 'upload')}: not UTF-8 text (byte {exc.start})")
            return
        self.load_text(str(item.get("name") or "client config"), text)

    def load_text(self, name: str, text: str) -> None:
        """List the entries of an uploaded config (the upload's handler, and tests')."""
        self.name, self.text, self.deployment = name, text, None
        try:
            rows = list_entries(name, text=text, environ=self._environ(),
                                read_files=self.model.host_access)
        except DeploymentError as exc:
            self.entries.options = []
            self._error(str(exc))
            return
        options = []
        for row in rows:
            what = row["server"] or (row["problem"] or "not a known server")
            if row["server"] and row["version"]:
                what += f" {row['version']}"
            options.append((f"{row['name']} — {what}", row["name"]))
        self.entries.options = options
        known = [r["name"] for r in rows if r["server"]]
        if known:
            self.entries.value = known[0]
        self.use.disabled = not options
        self.info.value = render.box(
            "note", f"{len(rows)} entr{'y' if len(rows) == 1 else 'ies'} in "
            f"<code>{render.esc(name)}</code> ({render.esc(rows[0]['format'])} format); "
            "pick one and use it" if rows else "no entries", "lfe-client-listed")

    def _environ(self) -> dict[str, str] | None:
        # A page served to others expands nothing from the serving machine's environment.
        return None if self.model.host_access else {}

    def _error(self, message: str) -> None:
        self.use.disabled = True
        self.info.value = render.box("error", render.esc(message), "lfe-client-error")

    def apply(self) -> None:
        """Put the picked entry's settings into the model, and show where they came from."""
        if self.text is None or self.entries.value is None:
            return
        overridden = [k for k, _ in self.model.overrides]
        try:
            found = load_deployment(self.name, self.entries.value, text=self.text,
                                    environ=self._environ(), overridden=overridden,
                                    read_files=self.model.host_access)
        except DeploymentError as exc:
            self._error(str(exc))
            return
        hide_everywhere(found.secrets)  # secret-named, and expanded from secret variables
        m = self.model
        config = found.server_config()
        # Variables given here for prompts the file leaves open stay as given.
        kept = {k: v for k, v in m.overrides if "${input:" in found.env.get(k, "")}
        with m.hold():
            m.server = config.server
            m.server_version = config.server_version or ""
            m.server_options = dict(config.server_options)
            m.overrides = sorted({**found.settings(), **kept}.items())
            m.transport = found.transport
            m.cwd = found.cwd or ""
        self.deployment = found
        lines = deployment_lines(found)
        self.info.value = render.box(
            "ok", "<br>".join(render.esc(line) for line in lines), "lfe-client-provenance")
