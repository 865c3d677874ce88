"""One results grid for every table of verdicts: refusals first, filters, sort, any size.

The grid is itables' :class:`~itables.widget.ITable` (DataTables in the page, served from
the installed package: nothing is fetched from the network). Every row is kept here, in
pandas: filters by verdict, reason, tool, operation and text, and the sort, run here, so
their counts and order are exact whatever the size, and the page receives one window of
:data:`WINDOW` rows at a time (previous / next reach the rest), so a 20,000-row result
is interactive at once. Every new window rebuilds the DataTable in the page; what that
costs per row was measured (``benchmarks/bench_dashboard.py``) and cut where it went:
DataTables sizing columns over every row of the window (``autoWidth`` off: the browser
lays out the page shown) and the Select extension's own bookkeeping of deselected row
ids (see :func:`_data_options`), which our rows (no ids) never use.
Clicking a row opens its detail: the trace, the hint, every entry the call checked, a CLI
command that asks the same question (with a note of what else it needs), and "pin as
scenario".

Rows come from a DataFrame whose ``#`` column is the 1-based position of the row in its
source (the list of decisions, the batch, the replay), and whose ``_rank`` column orders
refusals before everything else (0 first). Both are set by the ``*_frame`` builders below.
"""

from __future__ import annotations

import html as _html
import json
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets

from ..paths import show_nul
from ..secrets import scrub_hidden
from . import render
from .panel import button, css, html, layout, style

#: The columns a filter dropdown is offered for, when the frame has them.
FILTERS = ("verdict", "reason", "tool", "op")
ALL = "(all)"
#: Columns kept on one line (short values a wrap would only make harder to scan).
NOWRAP = ("#", "line", "verdict", "op", "paths", "refused")
#: The DataTables controls around the rows: the page-length menu and the pager. No search
#: box: the kernel's search covers every row, not the window. No "showing 1 to 25 of 1,000"
#: either: the grid's own count line says how many rows there are and which are on the
#: page, and a second count (of the window only) read as a second, disagreeing pager.
LAYOUT: dict[str, Any] = {"topStart": "pageLength", "topEnd": None, "bottomStart": None,
                          "bottomEnd": "paging"}
#: Options itables recomputes with every new frame, so they go with each update too:
#: every row of the window (no sampling down to a size), cells are our escaped HTML, and
#: the controls. itables drops the controls of a frame that fits on one page, and the rows
#: are handed over after an empty frame (see ``_show_rows``): without the layout here,
#: the pager went with it and only the first page of a window could be seen.
DATA_OPTIONS: dict[str, Any] = {"maxBytes": 0, "allow_html": True, "layout": LAYOUT}


def _data_options() -> dict[str, Any]:
    """:data:`DATA_OPTIONS` and the one piece of script the page runs for the grid.

    itables clears every selection each time it rebuilds the table, and DataTables'
    Select extension then looks up the id of every row of the window to keep a list of
    selected row ids, about a third of a millisecond per row: a third of a second for a
    window of 1,000 rows, on every sort and filter. Our rows carry no ids, so that list
    stays empty whatever is clicked; its handler is taken off at the first draw, before
    itables adds its own (which reports selections to the kernel and stays). A function
    option must come with every update: itables evaluates only the ones it is given.
    """
    from itables import JavascriptFunction

    return {**DATA_OPTIONS, "drawCallback": JavascriptFunction(
        "function (settings) { if (!settings._lfeQuiet) { settings._lfeQuiet = true; "
        "settings.oInstance.api().off('deselect'); } }")}


#: Rows handed to the page at once; the pager moves the window over the rest.
WINDOW = 1_000
#: The sort that opens: refusals first, then in source order.
REFUSALS_FIRST = "refusals first"
#: Rows on one page of the grid; the menu offers more.
PAGE_LENGTH = 25

#: How refusals rank: smaller first.
_RANK = {"refused": 0, "declined": 0, "error": 1, "unknown": 1, "partial": 2, "absent": 3,
         "ok": 4, "allowed": 4}


def _reason_text(reason: str) -> str:
    return reason.replace("_", " ")


def paths_frame(decisions: Sequence[Any]) -> Any:
    """The Paths tab's rows: one per checked path."""
    import pandas as pd

    from ..probe import decision_row

    rows = []
    for i, d in enumerate(decisions):
        row = decision_row(d)  # the one verdict table's row, labelled for the page
        allowed = row["allowed"]
        rows.append({
            "#": i + 1,
            "verdict": "✔ ALLOWED" if allowed else "✘ REFUSED",
            "reason": "" if allowed else _reason_text(row["reason"]),
            "op": row["op"],
            "path": show_nul(row["path"]),
            "resolves to": row["resolved"] or "—",
            "what the model sees": row["path_message"] or "—",
            "_rank": _RANK["allowed" if allowed else "refused"],
        })
    return pd.DataFrame(rows, columns=["#", "verdict", "reason", "op", "path", "resolves to",
                                       "what the model sees", "_rank"])


def known_tools(server: str | None = None) -> frozenset[str]:
    """The tool names of ``server``'s shipped catalog (None: the default server's)."""
    from .forms import server_catalog

    return frozenset(server_catalog(server).names())


#: An unrefused call to a tool the catalog doesn't know: a guess, not an OK.
UNKNOWN_TOOL = "? UNKNOWN TOOL"

_OUTCOME = {"ok": "✔ OK", "refused": "✘ REFUSED", "partial": "◐ PARTIAL",
            "absent": "⊘ ABSENT", "error": "⚠ ERROR"}


#: The Batch grid's columns, in order.
BATCH_COLUMNS = ("#", "line", "tool", "verdict", "reason", "op", "paths", "refused",
                 "what the model gets", "_rank")


def call_rows(verdicts: Sequence[Any], known: frozenset[str]) -> list[dict[str, Any]]:
    """One row per call: outcome, the first refusal's reason and operation, counts."""
    columns = call_columns(verdicts, known)
    return [dict(zip(BATCH_COLUMNS, row, strict=True))
            for row in zip(*(columns[c] for c in BATCH_COLUMNS), strict=True)]


def call_columns(verdicts: Sequence[Any], known: frozenset[str]) -> dict[str, list[Any]]:
    """:func:`call_rows` as columns (one list per column): what a DataFrame is built from.

    A batch is tens of thousands of calls, nearly all of one path: this loop is the
    grid's largest cost in the kernel, so the common case takes no sets or sorts.
    """
    columns: dict[str, list[Any]] = {c: [] for c in BATCH_COLUMNS}
    (number, line, tool, verdict_col, reason_col, op_col, paths_col, refused_col,
     message_col, rank_col) = (columns[c] for c in BATCH_COLUMNS)
    for i, v in enumerate(verdicts):
        paths = v.paths
        refused = [p for p in paths if not p.allowed and not p.advisory]
        name = v.name
        unknown = bool(name) and name not in known
        outcome = v.outcome
        verdict = _OUTCOME.get(outcome) or outcome.upper()
        if unknown and outcome == "ok":
            # Nothing refused it, but nothing vouches for it either: the catalog doesn't
            # know the tool, so its paths are a guess. Never shown as OK.
            verdict = UNKNOWN_TOOL
        elif unknown:
            verdict += " · unknown tool"
        if len(refused) == 1:
            reason, op = _reason_text(refused[0].reason), refused[0].op
        elif refused:
            reason = ", ".join(sorted({_reason_text(p.reason) for p in refused}))
            op = ", ".join(sorted({p.op for p in refused}))
        else:
            reason = ""
            op = paths[0].op if len(paths) == 1 else ", ".join(sorted({p.op for p in paths}))
        number.append((v.index if v.index is not None else i) + 1)
        line.append(v.line if v.line is not None else "")
        tool.append(name or "(malformed)")
        verdict_col.append(verdict)
        reason_col.append(reason)
        op_col.append(op)
        paths_col.append(len(paths))
        refused_col.append(len(refused))
        message_col.append(v.message or "—")
        rank_col.append(1 if unknown and outcome == "ok" else _RANK.get(outcome, 1))
    return columns


def unknown_tool_calls(verdicts: Sequence[Any], known: frozenset[str] | None = None) -> int:
    """How many of ``verdicts`` call a tool the catalog (``known``'s names; default:
    the default server's) doesn't know."""
    known = known if known is not None else known_tools()
    return sum(1 for v in verdicts if v.name and v.name not in known)


def unknown_tool_note(v: Any, known: frozenset[str] | None = None) -> str:
    """A warning (HTML) above a call's verdict when its tool isn't in the catalog
    (``known``'s names; default: the default server's)."""
    if not v.name or v.name in (known if known is not None else known_tools()):
        return ""
    return render.box(
        "warning", f"<b>? UNKNOWN TOOL</b> — <code>{render.esc(v.name)}</code> is not in "
        "the catalog: the verdict below rests on guessed paths, not on the tool's rules.",
        "lfe-unknown-tool")


def batch_frame(verdicts: Sequence[Any], known: frozenset[str] | None = None) -> Any:
    """The Batch tab's rows: one per call."""
    import pandas as pd

    columns = call_columns(verdicts, known if known is not None else known_tools())
    names = list(BATCH_COLUMNS)
    if columns["line"] == columns["#"]:
        # Every call on the line of its number (no blank or comment lines): one column
        # says both, and the detail still names the line.
        names.remove("line")
        del columns["line"]
    return pd.DataFrame(columns, columns=names)


#: Columns holding paths: they wrap after a ``/`` and nowhere else.
PATH_COLUMNS = ("path", "resolves to", "probe")


def path_cell(value: Any) -> str:
    """A path as grid HTML: each component kept whole, a line break allowed after ``/``.

    Secrets are masked in the whole path before it is split: a secret holding a ``/``
    would otherwise reach the page as components too short to be recognised alone.
    """
    parts = scrub_hidden(str(value)).split("/")
    return "/<wbr>".join(f'<span class="lfe-seg">{render.esc(p)}</span>' if p else ""
                         for p in parts)


def as_cells(frame: Any) -> Any:
    """``frame`` as the grid's HTML cells: text escaped, paths wrapping only at ``/``."""
    from pandas.api.types import is_numeric_dtype

    cells = frame.copy()
    for column in cells.columns:
        if is_numeric_dtype(cells[column].dtype):
            continue
        if column in PATH_COLUMNS:
            cells[column] = cells[column].map(path_cell)
        else:
            cells[column] = cells[column].map(render.esc)
    return cells


def column_defs(cells: Any) -> list[dict[str, Any]]:
    """DataTables column settings: which columns stay on one line, and each column's type.

    Giving the types spares DataTables from guessing them over every row before its first
    sort, which over 20,000 rows takes seconds. Paths sort on their text without markup.
    """
    from pandas.api.types import is_numeric_dtype

    columns = list(cells.columns)
    numeric = [i for i, c in enumerate(columns) if is_numeric_dtype(cells[c].dtype)]
    paths = [i for i, c in enumerate(columns) if c in PATH_COLUMNS]
    text = [i for i in range(len(columns)) if i not in numeric and i not in paths]
    defs = [{"targets": [i for i, c in enumerate(columns) if c in NOWRAP],
             "className": "lfe-nowrap"}]
    for targets, kind in ((numeric, "num"), (paths, "html"), (text, "string")):
        if targets:
            defs.append({"targets": targets, "type": kind})
    return defs


def order_refusals_first(frame: Any) -> Any:
    """``frame`` with refusals (small ``_rank``) first, in source order within a rank."""
    if "_rank" not in frame.columns or frame.empty:
        return frame
    return frame.sort_values(["_rank", "#"], kind="stable").reset_index(drop=True)


class ResultsGrid(widgets.VBox):
    """A grid of result rows with filters and a detail area for the clicked row.

    Args:
        name: a short name for CSS classes (``lfe-grid-<name>``).
        detail: ``detail(source_index) -> html`` for the clicked row.
        command: ``command(source_index) -> str``, the CLI command asking the same
            question (None: no such button).
        pin: ``pin(source_index) -> str``, pins the row as a scenario and returns a note
            (HTML) to show (None: no such button).
        command_note: ``command_note(source_index) -> html`` shown under the command: what
            else it needs, or where it differs from the row (None: nothing).
        command_tip, pin_tip: the buttons' tooltips (what the command or scenario holds).
    """

    def __init__(
        self,
        name: str,
        *,
        detail: Callable[[int], str],
        command: Callable[[int], str] | None = None,
        pin: Callable[[int], str] | None = None,
        guard: Callable[[Callable[..., Any]], Callable[..., Any]] = lambda fn: fn,
        command_note: Callable[[int], str] | None = None,
        command_tip: str = "the localfs-explorer command asking the same question",
        pin_tip: str = "a scenario expecting this row's answer",
    ) -> None:
        super().__init__(layout=layout(width="100%"))
        css(self, "lfe-grid", f"lfe-grid-{name}")
        self.name = name
        self._detail, self._command, self._pin = detail, command, pin
        self._guard = guard
        self._command_note = command_note
        self.frame: Any = None
        self.view: Any = None
        self.selected_source: int | None = None
        self.filters: dict[str, widgets.Dropdown] = {}
        for column in FILTERS:
            dropdown = css(widgets.Dropdown(
                options=[ALL], value=ALL, description=column,
                style=style(widgets.Dropdown, description_width="52px"),
                layout=layout(width="210px")), f"lfe-filter-{column}")
            dropdown.observe(self._guard(lambda _c: self._apply()), names="value")
            self.filters[column] = dropdown
        self.search = css(widgets.Text(
            placeholder="rows containing…", continuous_update=False,
            tooltip="show only the rows containing this text",
            layout=layout(width="210px"), style=style(widgets.Text, description_width="0px")),
            "lfe-grid-search")
        self.search.observe(self._guard(lambda _c: self._apply()), names="value")
        self.sort = css(widgets.Dropdown(
            options=[REFUSALS_FIRST], value=REFUSALS_FIRST, description="sort by",
            style=style(widgets.Dropdown, description_width="52px"),
            layout=layout(width="230px")), "lfe-grid-sort")
        self.descending = css(widgets.Checkbox(
            value=False, description="descending", indent=False,
            layout=layout(width="110px"), style=style(widgets.Checkbox)), "lfe-grid-descending")
        for control in (self.sort, self.descending):
            control.observe(self._guard(lambda _c: self._apply()), names="value")
        self.filter_row = widgets.HBox(
            [*self.filters.values(), self.search, self.sort, self.descending],
            layout=layout(width="100%", flex_flow="row wrap", align_items="center"))
        self.offset = 0
        self.previous = button("◀ previous", "lfe-grid-previous", layout=layout(width="110px"))
        self.next = button("next ▶", "lfe-grid-next", layout=layout(width="110px"))
        self.previous.on_click(self._guard(lambda _b: self.move(-WINDOW)))
        self.next.on_click(self._guard(lambda _b: self.move(WINDOW)))
        # Their own layouts: each grid shows and hides its pager and actions.
        self.pager = widgets.HBox([self.previous, self.next],
                                  layout=widgets.Layout(width="100%", display="none"))
        self.count = html("lfe-grid-count")
        self.table = self._new_table()
        self.detail = html("lfe-grid-detail")
        self.cli_button = button("Copy as CLI command", "lfe-grid-cli",
                                 layout=layout(width="190px"))
        self.pin_button = button("Pin as scenario", "lfe-grid-pin", layout=layout(width="150px"))
        self.cli_button.tooltip, self.pin_button.tooltip = command_tip, pin_tip
        self.cli_button.on_click(self._guard(lambda _b: self.show_command()))
        self.pin_button.on_click(self._guard(lambda _b: self.pin_selected()))
        self.command_view = html("lfe-grid-command")
        self.pin_note = html("lfe-grid-pin-note")
        actions = [b for b, fn in ((self.cli_button, command), (self.pin_button, pin)) if fn]
        self.actions = widgets.HBox(actions, layout=widgets.Layout(
            width="100%", flex_flow="row wrap", display="none"))
        self.children = [self.filter_row, self.count, self.pager, self.table, self.actions,
                         self.command_view, self.pin_note, self.detail]

    def _new_table(self) -> Any:
        from itables.widget import ITable

        # Sorting and searching belong to the kernel (over every row, not the window).
        table = ITable(None, select={"style": "single"}, showIndex=False, order=[],
                       pageLength=PAGE_LENGTH, classes="display compact",
                       lengthMenu=[10, 25, 100, 500, WINDOW], ordering=False,
                       deferRender=True, autoWidth=False, **_data_options())
        table.add_class("lfe-grid-table")
        table.observe(self._guard(lambda c: self._selected(c["new"])), names="selected_rows")
        return table

    # ---- data

    def set_frame(self, frame: Any) -> None:
        """Show ``frame`` (see the module docstring), refusals first; keep the filters."""
        self.frame = order_refusals_first(frame)
        for column, dropdown in self.filters.items():
            if column not in self.frame.columns:
                dropdown.layout = layout(width="210px", display="none")
                continue
            values = sorted(v for v in self.frame[column].astype(str).unique() if v)
            if column in ("reason", "op"):
                values = sorted({r.strip() for v in values for r in v.split(",") if r.strip()})
            options = [ALL, *values]
            keep = dropdown.value if dropdown.value in options else ALL
            dropdown.layout = layout(width="210px")
            if list(dropdown.options) != options:
                dropdown.unobserve_all("value")
                dropdown.options = options
                dropdown.value = keep
                dropdown.observe(self._guard(lambda _c: self._apply()), names="value")
        sorts = [REFUSALS_FIRST, *(c for c in self.frame.columns if c != "_rank")]
        if list(self.sort.options) != sorts:
            keep = self.sort.value if self.sort.value in sorts else REFUSALS_FIRST
            self.sort.unobserve_all("value")
            self.sort.options = sorts
            self.sort.value = keep
            self.sort.observe(self._guard(lambda _c: self._apply()), names="value")
        self._apply()

    def filtered(self) -> Any:
        """The rows passing every filter, in display order."""
        frame = self.frame
        if frame is None:
            return None
        mask = None
        for column, dropdown in self.filters.items():
            if dropdown.value == ALL or column not in frame.columns:
                continue
            values = frame[column].astype(str)
            if column in ("reason", "op"):
                hit = values.str.split(", ").apply(lambda parts, v=dropdown.value: v in parts)
            elif column == "verdict":
                hit = values.str.startswith(dropdown.value)
            else:
                hit = values == dropdown.value
            mask = hit if mask is None else (mask & hit)
        needle = self.search.value.strip().lower()
        if needle:
            text = frame.drop(columns=["_rank"], errors="ignore").astype(str)
            hit = text.apply(lambda col: col.str.lower().str.contains(needle, regex=False))
            mask = hit.any(axis=1) if mask is None else (mask & hit.any(axis=1))
        view = frame if mask is None else frame[mask]
        if self.sort.value != REFUSALS_FIRST and self.sort.value in view.columns:
            # A stable sort: rows that tie keep their refusals-first order.
            view = view.sort_values(self.sort.value, ascending=not self.descending.value,
                                    kind="stable", key=_sort_key)
        elif self.descending.value:
            view = view.iloc[::-1]
        return view.reset_index(drop=True)

    def _apply(self) -> None:
        self.view = self.filtered()
        self.offset = 0
        self._show_window()

    def move(self, step: int) -> None:
        """Move the window of rows handed to the page by ``step`` rows."""
        if self.view is None:
            return
        last = max(0, (len(self.view) - 1) // WINDOW * WINDOW)
        self.offset = min(max(0, self.offset + step), last)
        self._show_window()

    def _show_window(self) -> None:
        view = self.view
        self.selected_source = None
        self.actions.layout.display = "none"
        self.detail.value = self.command_view.value = ""
        if view is None or self.frame is None or self.frame.empty:
            self.count.value = ""
            self.pager.layout.display = "none"
            self.table.update(df=_empty(), selected_rows=[], **_data_options())
            return
        window = view.iloc[self.offset:self.offset + WINDOW]
        total = len(self.frame)
        # Counted among the rows shown, like the row count beside it (a filter moves both).
        refused = int((view["_rank"] == 0).sum()) if "_rank" in view else 0
        order = ("refusals first" if self.sort.value == REFUSALS_FIRST
                 else f"sorted by {self.sort.value}")
        rows = (f"rows {self.offset + 1}–{self.offset + len(window)} of {len(view)}"
                if len(view) > WINDOW else f"{len(view)}")
        self.count.value = (
            f'<div class="lfe-muted">{len(view)} of {total} row(s) shown · {refused} of '
            f"them refused · {render.esc(order)} · on the page: {rows} · click a row (or "
            "Tab to it and press Enter) to see why</div>")
        self.pager.layout.display = "flex" if len(view) > WINDOW else "none"
        self.previous.disabled = self.offset == 0
        self.next.disabled = self.offset + WINDOW >= len(view)
        self._show_rows(as_cells(window.drop(columns=["_rank"], errors="ignore")))

    def _show_rows(self, cells: Any) -> None:
        """Send ``cells`` to the page as one state update.

        itables formats the header and options from the frame; the rows themselves are
        encoded here in one ``json.dumps`` of plain lists (cells are strings and ints
        already), which for 20,000 rows is a small fraction of a cell-by-cell format.
        """
        columns = [cells[c].tolist() for c in cells.columns]
        rows = [list(row) for row in zip(*columns, strict=True)]
        with self.table.hold_sync():
            self.table.update(df=cells.head(0), selected_rows=[], **_data_options(),
                              columnDefs=column_defs(cells))
            args = dict(self.table._dt_args)
            if "data_json" in args:  # the format this version of itables reads
                args["data_json"] = json.dumps(rows, ensure_ascii=False)
                self.table._dt_args = args
            else:  # another format: let itables encode the rows itself
                self.table.update(df=cells, selected_rows=[], **_data_options(),
                                  columnDefs=column_defs(cells))

    # ---- selection

    def select(self, view_row: int) -> None:
        """Select the ``view_row``-th row of the view (what a click on it does)."""
        if not self.offset <= view_row < self.offset + WINDOW:
            self.offset = view_row // WINDOW * WINDOW
            self._show_window()
        self.table.selected_rows = [view_row - self.offset]

    def _selected(self, rows: list[int]) -> None:
        view = self.view
        if not rows or view is None or not 0 <= self.offset + rows[0] < len(view):
            return
        source = int(view.iloc[self.offset + rows[0]]["#"]) - 1
        self.selected_source = source
        self.command_view.value = ""
        self.pin_note.value = ""
        self.actions.layout.display = "flex"
        self.detail.value = self._detail(source)

    def show_command(self) -> str:
        """Show (and return) the CLI command for the selected row, with a copy button."""
        if self.selected_source is None or self._command is None:
            return ""
        command = self._command(self.selected_source)
        self.command_view.value = (
            f'<pre class="lfe-pre lfe-cli-command">{render.esc(command)}</pre>'
            + copy_button(command))
        if self._command_note is not None:
            self.command_view.value += self._command_note(self.selected_source)
        return command

    def pin_selected(self) -> None:
        """Pin the selected row as a scenario."""
        if self.selected_source is None or self._pin is None:
            return
        self.pin_note.value = self._pin(self.selected_source)


#: A copy button's script: the clipboard API where the page may use it, else a hidden
#: text area copied the older way; the button says what happened (for a screen reader
#: too: it is a live region).
_COPY_SCRIPT = (
    "(function(b,t){var ok=function(){b.textContent='Copied ✔'};"
    "var old=function(){var a=document.createElement('textarea');a.value=t;"
    "a.setAttribute('readonly','');a.style.position='fixed';a.style.opacity='0';"
    "document.body.appendChild(a);a.select();var done=false;"
    "try{done=document.execCommand('copy')}catch(e){}a.remove();"
    "if(done){ok()}else{b.textContent='Select the text above to copy it'}};"
    "if(navigator.clipboard&&window.isSecureContext){"
    "navigator.clipboard.writeText(t).then(ok,old)}else{old()}})"
)


def copy_button(text: str, label: str = "Copy to the clipboard") -> str:
    """A button (HTML) copying ``text`` to the clipboard, by mouse or keyboard."""
    quoted = _html.escape(json.dumps(text), quote=True)
    return (f'<button type="button" class="lfe-copy" aria-live="polite" '
            f'onclick="{_COPY_SCRIPT}(this,{quoted})">{render.esc(label)}</button>')


def _sort_key(values: Any) -> Any:
    """Numbers as numbers, anything else case-insensitively as text."""
    from pandas.api.types import is_numeric_dtype

    return values if is_numeric_dtype(values.dtype) else values.astype(str).str.lower()


def _empty() -> Any:
    import pandas as pd

    return pd.DataFrame({"": []})
