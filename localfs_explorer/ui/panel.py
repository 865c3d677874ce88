"""The base of every Explorer panel: a VBox bound to the one model.

A panel builds its widgets once, binds its inputs to the model's input traits, and
re-renders its outputs when a model revision counter moves. Every callback it registers
goes through :meth:`ExplorerModel.guarded`, so a failure is shown in the page instead of
vanishing into the kernel log (Voila hides tracebacks).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets

from ..userfiles import MAX_FILE_BYTES, size_limit_text
from .inputs import ExplorerError
from .model import ExplorerModel


def css(widget: widgets.Widget, *classes: str) -> widgets.Widget:
    """Add stable CSS classes (``lfe-...``) to ``widget`` and return it."""
    for name in classes:
        widget.add_class(name)
    return widget


_SHARED: dict[tuple[Any, ...], widgets.Widget] = {}


def _shared(cls: type, **kwargs: Any) -> Any:
    # Every Layout and Style is a model the page has to create before it can show the
    # widget using it. The Explorer never changes one after creating it, so widgets laid
    # out alike share one: the first screen needs half as many models, and opens sooner.
    key = (cls, *sorted(kwargs.items()))
    found = _SHARED.get(key)
    if found is None or getattr(found, "comm", None) is None:  # closed: make a new one
        found = _SHARED[key] = cls(**kwargs)
        # Changing a shared one would change every widget laid out alike (hiding one
        # Select once hid the whole page), so a change is refused where it is made.
        found.observe(_refuse_change)
    return found


_RESTORING: dict[int, bool] = {}


def _refuse_change(change: dict[str, Any]) -> None:
    owner, name = change["owner"], change["name"]
    if name.startswith("_") or name in ("comm", "keys", "log") or _RESTORING.get(id(owner)):
        return
    # Put the old value back first: the refusal must not leave every widget changed.
    _RESTORING[id(owner)] = True
    try:
        setattr(owner, name, change["old"])
    finally:
        _RESTORING.pop(id(owner), None)
    raise RuntimeError(  # a mistake in the page's code, not the user's input
        f"{type(change['owner']).__name__}.{change['name']} changed on a shared object: "
        "give the widget its own (widgets.Layout(...)) before changing it")


def layout(**kwargs: Any) -> widgets.Layout:
    """A shared :class:`~ipywidgets.Layout` (never mutate it; make your own for that)."""
    return _shared(widgets.Layout, **kwargs)


def style(widget_cls: type[widgets.Widget], **kwargs: Any) -> Any:
    """A shared style for widgets of class ``widget_cls`` (its own style class)."""
    # ipywidgets doesn't export every style class; the widget's trait knows its own.
    return _shared(widget_cls.class_traits()["style"].klass, **kwargs)


def label_style(widget_cls: type = widgets.Dropdown, width: str = "110px") -> Any:
    """The style giving descriptions a fixed width, so a column of inputs lines up."""
    return style(widget_cls, description_width=width)


def no_null_tooltips(widget: widgets.Widget) -> widgets.Widget:
    """Give ``widget`` and everything inside it a tooltip, so none reads "null".

    A widget with no tooltip gets its description (or nothing) as its hover text; left
    None, the page labels it with the word "null".
    """
    if getattr(widget, "tooltip", "") is None and widget.has_trait("tooltip"):
        widget.tooltip = str(getattr(widget, "description", "") or "")
    for child in getattr(widget, "children", ()) or ():
        no_null_tooltips(child)
    return widget


def button(description: str = "", css_class: str = "", **kwargs: Any) -> widgets.Button:
    """A button with a shared style."""
    kwargs.setdefault("style", style(widgets.Button))
    kwargs.setdefault("tooltip", description)
    b = widgets.Button(description=description, **kwargs)
    return css(b, css_class) if css_class else b


def html(css_class: str, value: str = "") -> widgets.HTML:
    """An HTML output area with a stable class."""
    widget = widgets.HTML(value=value, layout=layout(width="100%"),
                          style=style(widgets.HTML), tooltip="")
    return css(widget, css_class) if css_class else widget


def chip(label_html: str, remove_tip: str, on_remove: Callable[[Any], None]) -> widgets.HBox:
    """One chip of a list the bar edits: its label and a × button calling ``on_remove``."""
    label = css(html("", label_html), "lfe-chip-label")
    label.layout = layout(width="auto")
    remove = button("×", "lfe-chip-remove", tooltip=remove_tip,
                    layout=layout(width="32px", padding="0"))
    remove.on_click(on_remove)
    return css(widgets.HBox([label, remove], layout=layout(
        width="auto", align_items="center")), "lfe-chip")


def chips_or_none(chips: list[widgets.Widget]) -> list[widgets.Widget]:
    """``chips``, or a muted "none" in their place when there are none."""
    if chips:
        return chips
    empty = html("", '<span class="lfe-muted">none</span>')
    empty.layout = layout(width="auto")
    return [empty]


def heading(text: str) -> widgets.HTML:
    """A small section heading."""
    from .render import esc

    return html("", f'<h3 class="lfe-h">{esc(text)}</h3>')


def wide(**kwargs: Any) -> widgets.Layout:
    """A shared layout that takes the full width of its column."""
    return layout(width="100%", **kwargs)


class Panel(widgets.VBox):
    """One tab of the Explorer. Subclasses set ``name``/``title`` and implement ``build``."""

    name = "panel"
    title = "Panel"
    #: Model traits whose change re-renders this panel.
    watches: Sequence[str] = ("config_rev",)
    #: A results tab: it says so at its top when the server would exit at startup.
    shows_exit = False

    def __init__(self, model: ExplorerModel) -> None:
        super().__init__(layout=wide(padding="4px 2px"))
        self.model = model
        css(self, "lfe-panel", f"lfe-panel-{self.name}")
        from .render import esc

        # A heading per tab, for moving through the page by headings (the tab strip shows
        # the same words, so it is for screen readers only).
        title = html("lfe-panel-heading", f'<h2 class="lfe-sr-only">{esc(self.title)}</h2>')
        self.exit_note = html("lfe-exit-note")
        self.children = (title, *([self.exit_note] if self.shows_exit else []), *self.build())
        if self.shows_exit:
            model.observe(self.model.guarded(lambda _c: self._refresh_exit(),
                                             where=f"{self.name} panel"), names="config_rev")
            self._refresh_exit()
        no_null_tooltips(self)
        if self.watches:
            model.observe(self.model.guarded(lambda _change: self.refresh(),
                                             where=f"{self.name} panel"),
                          names=list(self.watches))
        self.model.guarded(self.refresh, where=f"{self.name} panel")()

    def _refresh_exit(self) -> None:
        self.exit_note.value = exit_banner(self.model.policy)

    def build(self) -> list[widgets.Widget]:
        """Create the panel's widgets; returns its children."""
        raise NotImplementedError

    def refresh(self) -> None:
        """Re-render outputs from the model's current results."""

    # ---- wiring helpers, each guarded

    def on_change(self, widget: widgets.Widget, fn: Callable[[Any], None],
                  names: str = "value") -> None:
        """Call ``fn(new_value)`` when ``widget``'s trait changes."""
        guarded = self.model.guarded(lambda change: fn(change["new"]),
                                     where=f"{self.name} panel")
        widget.observe(guarded, names=names)

    def on_click(self, button: widgets.Button, fn: Callable[[], None]) -> None:
        """Call ``fn()`` when ``button`` is clicked."""
        guarded = self.model.guarded(lambda _b: fn(), where=f"{self.name} panel")
        button.on_click(guarded)

    def bind(self, widget: widgets.Widget, trait: str) -> widgets.Widget:
        """Keep ``widget.value`` and ``model.<trait>`` equal, both ways."""
        widget.value = getattr(self.model, trait)
        self.on_change(widget, lambda value: setattr(self.model, trait, value))
        self.model.observe(
            self.model.guarded(lambda change: _set_if_different(widget, change["new"]),
                               where=f"{self.name} panel"),
            names=trait,
        )
        return widget

    def upload_contents(self, upload: widgets.FileUpload) -> tuple[str, bytes] | None:
        """(name, bytes) of the file just uploaded, or None when nothing was."""
        value = upload.value
        if not value:
            return None
        item = value[0] if isinstance(value, (tuple, list)) else next(iter(value.values()))
        content = item["content"]
        name = str(item.get("name", ""))
        if len(content) > MAX_FILE_BYTES:
            # Bounded like every input file; the page says so instead of parsing it.
            raise ExplorerError(f"{name or 'upload'}: larger than the "
                                f"{size_limit_text(MAX_FILE_BYTES)} limit; refused")
        data = content.tobytes() if hasattr(content, "tobytes") else bytes(content)
        return name, data

    def upload_text(self, upload: widgets.FileUpload) -> str | None:
        """The text of the file just uploaded (UTF-8), or None when nothing was."""
        got = self.upload_contents(upload)
        if got is None:
            return None
        name, data = got
        upload.value = ()  # taken in: the same file may be uploaded again after an edit
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ExplorerError(f"{name or 'upload'}: not UTF-8 text (byte {exc.start}); "
                                "refused") from None


def text_upload(description: str, css_class: str, accept: str = "") -> widgets.FileUpload:
    """An upload button beside a paste box: a large text goes in as one file, without the
    browser putting it through the box keystroke by keystroke. Its label is CSS (see
    ``render.STYLE``), like every upload button's."""
    return css(widgets.FileUpload(description=description, multiple=False, accept=accept,
                                  layout=widgets.Layout(width="170px"),
                                  style=style(widgets.Button)), css_class)


def _set_if_different(widget: widgets.Widget, value: Any) -> None:
    if widget.value != value:
        widget.value = value


def exit_banner(policy: Any) -> str:
    """The server's WOULD EXIT, for a results tab: no call reaches a server that exited,
    whatever its checks would answer (every server, said the same way)."""
    from .render import box, esc

    if policy is None or policy.serves:
        return ""
    return box("error", "<b>✘ WOULD EXIT</b> at startup: "
               f"{esc(policy.exit_message or '')}. No call reaches the server: every answer "
               "below is what its checks would say if it ran.", "lfe-exit-banner")
