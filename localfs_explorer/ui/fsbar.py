"""The policy bar's settings for a server configured by its command line, not a ``.env``.

The reference filesystem server (``server-filesystem``) reads its allowed directories
from its arguments, resolves them against its working directory, and may have them
replaced by the MCP roots its client advertises. These widgets edit exactly those
inputs of :class:`~localfs_explorer.ui.model.ExplorerModel` (``server_options``'
``directories`` and ``roots``, ``cwd``, ``server_version``); every verdict, the startup
one included, is the server's, read back from the model.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from ..secrets import scrub_hidden
from ..server import get_server
from . import render
from .model import ExplorerModel
from .panel import button, chip, chips_or_none, css, html, layout, no_null_tooltips, style

#: The server whose settings these are.
FILESYSTEM_SERVER = "server-filesystem"


class DirectorySettings(widgets.VBox):
    """A list of directories a server is given, as chips with an input to add one; the
    list is the model's ``server_options[option]`` (left out when empty). The settings
    bars of the servers configured this way build on it."""

    #: The ``server_options`` key holding the list.
    option = "directories"

    def __init__(self, model: ExplorerModel, guard: Any, css_class: str,
                 input_tooltip: str) -> None:
        super().__init__(layout=widgets.Layout(width="100%"))  # its own: display changes
        css(self, css_class)
        self.model = model
        self._guard = guard
        self._syncing = False
        self.chips = css(widgets.HBox(layout=layout(flex_flow="row wrap", align_items="center",
                                                    width="100%")), "lfe-dir-chips")
        self.dir_input = css(widgets.Text(
            placeholder="add an allowed directory", continuous_update=False,
            tooltip=input_tooltip,
            layout=layout(width="260px"), style=style(widgets.Text, description_width="0px")),
            "lfe-dir-input")
        self.dir_add = button("+ add directory", "lfe-dir-add", layout=layout(width="130px"))
        self.dir_add.on_click(guard(lambda _b: self.add_directory(self.dir_input.value)))
        self.dir_input.observe(guard(lambda c: self.add_directory(c["new"])), names="value")

    def _set(self, widget: widgets.Widget, value: Any) -> None:
        if widget.value != value:
            self._syncing = True
            try:
                widget.value = value
            finally:
                self._syncing = False

    # ---- edits (the model's inputs only)

    def directories(self) -> list[str]:
        """The directories given, in order."""
        return [str(d) for d in self.model.server_options.get(self.option) or ()]

    def _write_option(self, key: str, value: Any) -> None:
        options = {k: v for k, v in self.model.server_options.items() if k != key}
        if value is not None:
            options[key] = value
        self.model.server_options = options

    def add_directory(self, entry: str) -> None:
        """Append ``entry`` to the directories (spelling kept; no duplicates)."""
        if self._syncing or not entry.strip():
            return
        entries = self.directories()
        if entry not in entries:
            self._write_option(self.option, [*entries, entry])
        self._set(self.dir_input, "")

    def remove_directory(self, entry: str) -> None:
        """Take ``entry`` off the directories."""
        self._write_option(self.option, [e for e in self.directories() if e != entry]
                           or None)

    def _chips(self) -> list[widgets.Widget]:
        chips: list[widgets.Widget] = []
        for entry in self.directories():
            chips.append(chip(
                f'<span class="lfe-chip-path">{render.path_html(entry)}</span>',
                f"remove {scrub_hidden(entry)}",
                self._guard(lambda _b, e=entry: self.remove_directory(e))))
        return chips_or_none(chips)


class FilesystemSettings(DirectorySettings):
    """Allowed directories (chips), working directory, release and MCP roots."""

    def __init__(self, model: ExplorerModel, guard: Any) -> None:
        super().__init__(model, guard, "lfe-fs-settings",
                         "add an allowed directory to the server's command line")
        self.cwd = css(widgets.Text(
            description="working dir", continuous_update=False,
            tooltip="the server's working directory: relative directories are taken from it",
            style=style(widgets.Text, description_width="80px"), layout=layout(width="360px")),
            "lfe-fs-cwd")
        versions = get_server(FILESYSTEM_SERVER).versions
        self.version = css(widgets.Dropdown(
            options=[(f"{versions[0]} (default)", ""), *[(v, v) for v in versions[1:]]],
            value="", description="release", tooltip="the server release to reproduce",
            style=style(widgets.Dropdown, description_width="56px"),
            layout=layout(width="240px")), "lfe-fs-version")
        self.roots_on = css(widgets.Checkbox(
            value=False, description="client advertises MCP roots", indent=False,
            tooltip="the client has the roots capability: valid roots replace the "
                    "directories above", layout=layout(width="230px")), "lfe-fs-roots-on")
        self.roots_text = css(widgets.Textarea(
            placeholder="one root per line: file:// URI or path", rows=2,
            continuous_update=False, tooltip="the MCP roots the client advertises, one per line",
            layout=layout(width="420px")), "lfe-fs-roots")
        self.cwd.observe(guard(self._cwd_typed), names="value")
        self.version.observe(guard(self._version_picked), names="value")
        self.roots_on.observe(guard(lambda _c: self._write_roots()), names="value")
        self.roots_text.observe(guard(lambda _c: self._write_roots()), names="value")
        label = html("", '<span class="lfe-bar-label">allowed directories</span>')
        label.layout = layout(width="140px")
        self.children = [
            widgets.HBox([label, self.chips], layout=layout(width="100%",
                                                             align_items="center")),
            widgets.HBox([self.cwd, self.version],
                         layout=layout(flex_flow="row wrap", align_items="center",
                                       width="100%")),
            widgets.HBox([self.roots_on, self.roots_text],
                         layout=layout(flex_flow="row wrap", align_items="center",
                                       width="100%")),
        ]
        self.refresh()

    def _cwd_typed(self, change: dict[str, Any]) -> None:
        if not self._syncing and change["new"] != self.model.cwd:
            self.model.cwd = change["new"]

    def _version_picked(self, change: dict[str, Any]) -> None:
        if not self._syncing and change["new"] != self.model.server_version:
            self.model.server_version = change["new"]

    def _write_roots(self) -> None:
        if self._syncing:
            return
        uris = [line.strip() for line in self.roots_text.value.splitlines() if line.strip()]
        self._write_option("roots", uris if self.roots_on.value else None)

    # ---- view

    def refresh(self) -> None:
        """Re-read the model's inputs into the widgets."""
        m = self.model
        self._set(self.cwd, m.cwd)
        policy = m.policy
        cwd = getattr(policy, "cwd", "") or m.host_cwd
        self.cwd.placeholder = f"default: {cwd}" if cwd else "the startup directory"
        if any(v == m.server_version for _, v in self.version.options):
            self._set(self.version, m.server_version)
        roots = m.server_options.get("roots")
        self._set(self.roots_on, roots is not None)
        if roots is not None:
            self._set(self.roots_text, "\n".join(str(r) for r in roots))
        self.roots_text.disabled = roots is None
        self.chips.children = [*self._chips(), self.dir_input, self.dir_add]
        no_null_tooltips(self)

    def _chips(self) -> list[widgets.Widget]:
        chips: list[widgets.Widget] = []
        policy = self.model.policy
        for entry in self.directories():
            state = directory_badge(policy, entry) if policy is not None else ""
            chips.append(chip(
                f'<span class="lfe-chip-path">{render.path_html(entry)}</span> {state}',
                f"remove {scrub_hidden(entry)}",
                self._guard(lambda _b, e=entry: self.remove_directory(e))))
        return chips_or_none(chips)


def directory_badge(policy: Any, entry: str) -> str:
    """The badge of one allowed directory as the server takes it: allowed, or skipped
    (the server's own warning names it) -- all skipped is why it would exit."""
    import posixpath

    absolute = posixpath.expanduser(entry) if entry.startswith("~") else entry
    if not posixpath.isabs(absolute):
        absolute = posixpath.normpath(posixpath.join(getattr(policy, "cwd", "/"), absolute))
    for warning in getattr(policy, "warnings", ()):
        if f" {absolute}," in warning or warning.endswith(f" {absolute}"):
            return render.badge("refused", "✘ skipped: can't access it")
    return render.badge("ok", "✔ allowed")


def badge(model: ExplorerModel, policy: Any) -> str:
    """WOULD START / WOULD EXIT as the server decides it, and the directories it allows."""
    if policy.serves:
        verdict = ('<div class="lfe-verdict-big lfe-verdict-start">'
                   '<span class="lfe-big">✔ WOULD START</span> '
                   '<span class="lfe-reason">the server serves with these '
                   "directories</span></div>")
    else:
        verdict = ('<div class="lfe-verdict-big lfe-verdict-exit">'
                   '<span class="lfe-big">✘ WOULD EXIT</span> '
                   f'<span class="lfe-reason">at startup: '
                   f"{render.esc(policy.exit_message)}</span></div>")
    allowed = ", ".join(render.esc(d) for d in policy.directories) or "none"
    line = (f'<div class="lfe-mode-line lfe-fs-allowed"><b>Allowed directories:</b> '
            f"{allowed}</div>")
    warnings = render.messages("warning", list(policy.warnings), "warning",
                               "lfe-bar-warnings")
    context = (f'<div class="lfe-muted lfe-bar-context">server '
               f"<b>{render.esc(model.server)}</b> {render.esc(policy.server_version)} · "
               f"target <b>{render.esc(model.target_label)}</b></div>")
    return verdict + line + warnings + context
