"""The Explorer: a header naming the resolved mode, an error area, and one tab per panel.

Panels come from a small registry, :data:`PANELS`, so that a new one is one line::

    PanelSpec("audit", "Audit", "localfs_explorer.ui.panels.audit:AuditPanel")

(``audit`` is an example name; each shipped panel is a module in ``ui/panels/``.)

A factory is a callable ``factory(model) -> widget`` or a ``"module:Class"`` string that
is imported only when the tab is first opened. A panel that can't be built (its engine
isn't installed yet, or it raised) shows why in its tab; the rest of the app still works.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from . import render
from .a11y import PageAccess, verdict_words
from .grid import copy_button
from .model import ExplorerModel
from .panel import button, css, html, layout, no_null_tooltips, style

Factory = Callable[[ExplorerModel], widgets.Widget]

#: The paths the "try the traps example" button probes on the traps host.
TRAPS_PATHS = "\n".join([
    "/data/notes.txt", "/data/escape/passwd", "/data/innocent.json", "/data/up/../secret.txt",
])


@dataclass(frozen=True)
class PanelSpec:
    """A tab of the Explorer: its name, its title, and how to build it."""

    name: str
    title: str
    factory: Factory | str

    def build(self, model: ExplorerModel) -> widgets.Widget:
        """Build the panel for ``model`` (importing a ``"module:Class"`` factory first)."""
        factory = self.factory
        if isinstance(factory, str):
            module_name, _, attr = factory.partition(":")
            factory = getattr(importlib.import_module(module_name), attr)
        return factory(model)


#: The Explorer's tabs, in order. The Server panel comes first: it is what opens.
PANELS: list[PanelSpec] = [
    PanelSpec("server", "Server", "localfs_explorer.ui.panels.server:ServerPanel"),
    PanelSpec("deny", "Deny-list", "localfs_explorer.ui.panels.deny:DenyListPanel"),
    PanelSpec("paths", "Paths", "localfs_explorer.ui.panels.paths:PathsPanel"),
    PanelSpec("tool", "Tool call", "localfs_explorer.ui.panels.tool:ToolCallPanel"),
    PanelSpec("batch", "Batch", "localfs_explorer.ui.panels.batch:BatchPanel"),
    PanelSpec("auth", "auth-status", "localfs_explorer.ui.panels.auth:AuthStatusPanel"),
    PanelSpec("export", "Export", "localfs_explorer.ui.panels.export:ExportPanel"),
    PanelSpec("scenarios", "Scenarios", "localfs_explorer.ui.panels.scenarios:ScenariosPanel"),
    PanelSpec("compare", "Compare", "localfs_explorer.ui.panels.compare:ComparePanel"),
    PanelSpec("session", "Session", "localfs_explorer.ui.panels.session:SessionPanel"),
    PanelSpec("hangar", "Hangar", "localfs_explorer.ui.panels.hangar:HangarPanel"),
    PanelSpec("exposure", "Exposure", "localfs_explorer.ui.panels.exposure:ExposurePanel"),
]


def register_panel(spec: PanelSpec, *, after: str | None = None) -> None:
    """Add (or replace, by name) a panel in :data:`PANELS`, at the end or after ``after``."""
    existing = [i for i, p in enumerate(PANELS) if p.name == spec.name]
    if existing:
        PANELS[existing[0]] = spec
        return
    if after is None:
        PANELS.append(spec)
        return
    names = [p.name for p in PANELS]
    PANELS.insert(names.index(after) + 1 if after in names else len(PANELS), spec)


class Explorer(widgets.VBox):
    """The whole app over one :class:`ExplorerModel`.

    Args:
        model: the model to show; a new one (with ``model_options``) by default.
        panels: the tabs to show (default :data:`PANELS`).
        lazy: build a tab's panel only when it is first opened, so the page becomes
            interactive sooner. :meth:`panel` builds any tab on demand.
        **model_options: traits for a new model (``env_path=...``, ``transport=...``).
    """

    def __init__(
        self,
        model: ExplorerModel | None = None,
        *,
        panels: Sequence[PanelSpec] | None = None,
        lazy: bool = True,
        **model_options: Any,
    ) -> None:
        super().__init__(layout=layout(width="100%"))
        css(self, "lfe-app")
        self.model = model if model is not None else ExplorerModel(**model_options)
        self.specs = list(panels if panels is not None else PANELS)
        self._built: dict[str, widgets.Widget] = {}
        from .policybar import PolicyBar

        self.title = html("lfe-title-area", (
            '<h1 class="lfe-title">Local-file access explorer</h1>'
            '<div class="lfe-muted">What an MCP server with this configuration lets a '
            "model read and write on this host, and the exact words it refuses with.</div>"))
        self.steps = html("lfe-steps-area")
        self.traps = button("Try the traps example", "lfe-try-traps",
                            tooltip="a described host full of symlink and deny-list traps",
                            layout=layout(width="190px"))
        self.traps.on_click(self.model.guarded(lambda _b: self.try_traps(ask=True),
                                               where="app"))
        # Asked first when the example would replace the operator's own work.
        self.traps_confirm = button("Replace my work with the example", "lfe-traps-confirm",
                                    button_style="warning", layout=layout(width="260px"))
        self.traps_cancel = button("Keep my work", "lfe-traps-cancel",
                                   layout=layout(width="130px"))
        self.traps_question = html("lfe-traps-question")
        self.traps_ask = widgets.HBox(
            [self.traps_question, self.traps_confirm, self.traps_cancel],
            layout=widgets.Layout(width="100%", display="none", flex_flow="row wrap",
                                  align_items="center"))
        self.traps_confirm.on_click(self.model.guarded(lambda _b: self.try_traps(),
                                                       where="app"))
        self.traps_cancel.on_click(self.model.guarded(lambda _b: self._close_traps_ask(),
                                                      where="app"))
        self.bar = PolicyBar(self.model)
        #: Keyboard and screen-reader help; its live region says when the verdict turns.
        self.access = PageAccess()
        self._announced = ""
        self.model.observe(self.model.guarded(lambda _c: self._announce(), where="app"),
                           names=["config_rev"])
        self._announce()
        #: The policy bar's verdict: WOULD START / WOULD EXIT, the mode and the target.
        self.header = css(self.bar.badge, "lfe-header")
        self.error = html("lfe-error")
        self.dismiss = button("× Dismiss", "lfe-error-dismiss",
                              layout=layout(width="100px"))
        self.dismiss.on_click(self.model.guarded(lambda _b: self._dismiss(), where="app"))
        self.error_row = widgets.HBox([self.error, self.dismiss],
                                      layout=widgets.Layout(width="100%", display="none"))
        self._slots = [css(widgets.VBox(layout=layout(width="100%")),
                           f"lfe-slot-{spec.name}") for spec in self.specs]
        self.tabs = css(widgets.Tab(children=self._slots, layout=layout(),
                                    titles=tuple(s.title for s in self.specs)), "lfe-tabs")
        self.tabs.observe(self.model.guarded(lambda c: self._opened(c["new"]), where="app"),
                          names="selected_index")
        self.model.observe(self.model.guarded(lambda _c: self._refresh_steps(), where="app"),
                           names=["config_rev", "paths_rev", "batch_rev", "export_done",
                                  "client_entry"])
        self.model.observe(self.model.guarded(lambda _c: self._refresh_error(), where="app"),
                           names=["last_error"])
        # "Copy as command": the command line reproducing this screen, and a link to it.
        self.share_button = button("Copy as command", "lfe-share-button",
                                   layout=layout(width="170px"))
        self.share = html("lfe-share")
        self.share_button.on_click(self.model.guarded(lambda _b: self._refresh_share(True),
                                                      where="app"))
        self.model.observe(self.model.guarded(lambda _c: self._refresh_share(), where="app"),
                           names=["config_rev", "paths_text", "op"])
        #: On a page opened from a share link: what the link could not carry, and a box
        #: per secret setting it named only, for the recipient to fill in.
        self.link_note = html("lfe-link-note")
        self.link_fill = css(widgets.VBox(layout=layout(width="100%")), "lfe-link-fill")
        self.model.observe(self.model.guarded(lambda _c: self._refresh_link_note(),
                                              where="app"),
                           names=["link_secrets", "link_missing"])
        self._refresh_link_note()
        self.children = [
            html("", render.STYLE), self.access, self.title,
            widgets.HBox([self.steps, self.traps],
                         layout=layout(width="100%", flex_flow="row wrap",
                                       align_items="center")),
            self.link_note, self.link_fill, self.traps_ask, self.bar, self.error_row,
            self.share_button, self.share,
            self.tabs,
        ]
        self._refresh_steps()
        self._refresh_error()
        no_null_tooltips(self)
        if lazy:
            self._opened(self.tabs.selected_index or 0)
        else:
            for spec in self.specs:
                self.panel(spec.name)

    # ---- panels

    def panel(self, name: str) -> widgets.Widget:
        """The panel called ``name``, built now if it wasn't yet."""
        for index, spec in enumerate(self.specs):
            if spec.name == name:
                if name not in self._built:
                    self._built[name] = self._build(spec)
                    self._slots[index].children = [self._built[name]]
                return self._built[name]
        raise KeyError(f"no panel named {name!r} (panels: {', '.join(self.names)})")

    def show(self, name: str) -> widgets.Widget:
        """Open the tab called ``name`` and return its panel."""
        panel = self.panel(name)
        self.tabs.selected_index = self.names.index(name)
        return panel

    @property
    def names(self) -> list[str]:
        """Panel names in tab order."""
        return [s.name for s in self.specs]

    def _build(self, spec: PanelSpec) -> widgets.Widget:
        try:
            return spec.build(self.model)
        except Exception as exc:  # an import error too: shown, never hidden
            self.model.report(f"building the {spec.title} panel", exc)
            return html("lfe-unavailable", render.box(
                "error", f"{render.esc(spec.title)} could not be built: "
                         f"{render.esc(self.model.clean(str(exc)))}"))

    def _opened(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self.specs):
            self.panel(self.specs[index].name)

    # ---- header and errors

    def _refresh_steps(self) -> None:
        m = self.model
        # A step is done when it worked, not when it was tried: a .env that can't be read
        # leaves step 1 (and what depends on it) open.
        loaded = m.policy is not None and not m.config_error
        done = [
            loaded and bool(m.env_path or m.env_text is not None or m.file_edits
                            or m.overrides),
            loaded and bool(m.decisions or m.batch_verdicts),
            bool(m.export_done),
        ]
        # A client-config entry is the server's configuration: the steps say so, not ".env".
        entry = bool(m.client_entry)
        names = ["1 · use a client-config entry" if entry else "1 · load a .env",
                 "2 · probe paths and calls",
                 "3 · write the entry back" if entry else "3 · export the .env"]
        steps = "".join(
            f'<span class="lfe-step{" lfe-step-done" if ok else ""}">'
            f'{"✔ " if ok else ""}{render.esc(name)}</span>'
            for name, ok in zip(names, done, strict=True)
        )
        self.steps.value = f'<div class="lfe-steps">{steps}</div>'

    def _close_traps_ask(self) -> None:
        self.traps_ask.layout.display = "none"
        self.traps_question.value = ""

    def try_traps(self, *, ask: bool = False) -> None:
        """Load the ``traps`` example host in roots mode and probe its tricky paths.

        ``ask``: when the operator has work in the page (a .env, edits, a batch, pins),
        ask before replacing it instead of doing it at once.
        """
        m = self.model
        if "traps" not in m.examples:
            raise ValueError("the traps example host isn't installed")
        if ask and has_work(m):
            self.traps_question.value = render.box(
                "warning", "The example replaces your .env, the bar's edits and the paths "
                "you typed. Replace them?", "lfe-traps-warning")
            self.traps_ask.layout.display = "flex"
            return
        self._close_traps_ask()
        with m.hold():
            m.clear_env()
            m.client_entry = ""  # the example is a .env of its own
            m.target = "example:traps"
            m.package_dir = "/app"
            m.file_edits = {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/data",
                            "TOKEN_PATH": "/app/token.json"}
            m.paths_text = TRAPS_PATHS
        self.show("paths")

    def _refresh_share(self, show: bool = False) -> None:
        """Show (or keep up to date, once shown) the command line and the share link."""
        if not (show or self.share.value):
            return
        from .commands import screen_command
        from .share import page_query

        query, missing = page_query(self.model)
        command = screen_command(self.model)
        cannot = ("" if not missing else
                  " It can't carry: " + "; ".join(render.esc(m) for m in missing)
                  + " (the page it opens says so).")
        self.share.value = (
            render.pre(command, "lfe-share-command") + copy_button(command)
            + f'<div class="lfe-muted">The command asks every path above with the '
              f"configuration on screen (the bar's edits included); secret settings are "
              f'named as placeholders. <a class="lfe-share-link" href="?{render.esc(query)}" '
              f'target="_blank">This configuration as a link</a> (for the served '
              f"dashboard): it carries every setting the page uses, the .env's as values "
              f"and the bar's edits included; a secret setting only by its name, for the "
              f"recipient to fill in.{cannot}</div>"
              '<div class="lfe-muted lfe-share-token">The link holds no login token. In '
              "this browser it opens as it is; anyone else needs the page's token too: it "
              "is the <code>?token=…</code> part of the address "
              "<code>localfs-explorer serve</code> printed (<code>jupyter server list</code> "
              "shows it again), and the login page asks for it.</div>")

    def _refresh_link_note(self) -> None:
        """What the share link this page was opened from could not carry, in view."""
        m = self.model
        items = [render.esc(m.clean(x)) for x in m.link_missing]
        if m.link_secrets:
            items.append("secret settings, named only: "
                         + ", ".join(f"<code>{render.esc(k)}</code>" for k in m.link_secrets)
                         + " (a placeholder stands in for each; fill in the real value "
                         "below if it matters to you)")
        if not items:
            self.link_note.value = ""
            self.link_fill.children = []
            return
        self.link_note.value = render.box(
            "warning", "<b>Opened from a share link.</b> The link could not carry: "
            + "; ".join(items) + ".", "lfe-link-missing")
        rows = []
        for key in m.link_secrets:
            box = css(widgets.Password(
                description=key, placeholder=f"your {key}",
                style=style(widgets.Password, description_width="initial"),
                layout=layout(width="420px")), "lfe-link-secret")
            use = button(f"Use this {key}", "lfe-link-secret-use",
                         layout=layout(width="auto"))
            use.on_click(self.model.guarded(
                lambda _b, k=key, w=box: self._fill_secret(k, w), where="share link"))
            rows.append(widgets.HBox([box, use], layout=layout(align_items="center")))
        self.link_fill.children = rows

    def _fill_secret(self, key: str, box: widgets.Password) -> None:
        value, box.value = box.value, ""  # not kept in the box (nor synced back) once used
        from .entry_model import fill_link_secret

        fill_link_secret(self.model, key, value)

    def _announce(self) -> None:
        """Have the live region say the verdict, when it turned (not on every recompute)."""
        m = self.model
        words = verdict_words(m.policy, m.clean(m.config_error))
        state = words.split(":")[0]
        if state != self._announced:
            self._announced = state
            self.access.announce(words)

    def _refresh_error(self) -> None:
        message = self.model.last_error
        if message:
            self.error.value = render.box(
                "error", f"<b>Something failed:</b> {render.esc(message)}", "lfe-error-box")
            self.error_row.layout.display = "flex"
        else:
            self.error.value = ""
            self.error_row.layout.display = "none"

    def _dismiss(self) -> None:
        self.model.last_error = ""


def has_work(m: ExplorerModel) -> bool:
    """Whether the operator has put anything into the page that a reset would lose."""
    return bool(m.env_path or m.env_text is not None or m.file_edits or m.overrides
                or m.unset or m.batch_text is not None or m.batch_path or m.pinned)


def make_explorer(**options: Any) -> Explorer:
    """A new :class:`Explorer`, not displayed yet (a cell ending with it shows it).

    ``options`` go to :class:`Explorer` (``panels=``, ``lazy=``) or the new model
    (``env_path="deploy/.env"``, ``transport="sse"``, ``paths_text="/data/a.csv"``),
    over any configuration the ``serve`` command preloaded.
    """
    import os

    from ..handoff import load_preload
    from .share import options_from_query

    # `localfs-explorer serve --env ...` leaves its configuration for the kernel to pick up,
    # and Voila passes the page's URL query (?transport=sse&set=K%3DV...) as QUERY_STRING.
    from_query, problems = options_from_query(os.environ.get("QUERY_STRING", ""))
    app = Explorer(**{**load_preload(), **from_query, **options})
    if problems:
        app.model.last_error = "URL: " + "; ".join(problems)
    return app


def explorer(**options: Any) -> None:
    """Display an :class:`Explorer` in the notebook, once.

    Returns None, so a cell ending with ``explorer()`` shows the app once rather than
    once for the call and again for its value; :func:`make_explorer` gives the app
    itself. ``options`` are :func:`make_explorer`'s.
    """
    from IPython.display import display

    display(make_explorer(**options))
