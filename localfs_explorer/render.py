"""HTML fragments for engine results: pure functions of them, no widgets.

The dashboard and the notebook reprs (``_repr_html_``) share them, so the core package
can show rich results without ipywidgets.

Every verdict is rendered as colour *and* text (``ALLOWED`` / ``REFUSED · outside roots``)
so that nothing depends on seeing colour. Everything interpolated is HTML-escaped here,
once, so views can't forget to: a path may contain ``<`` as easily as any other byte.
Values of secret settings are masked through :mod:`localfs_explorer.secrets`.
"""

from __future__ import annotations

import base64
import contextlib
import html
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .paths import show_nul
from .secrets import hidden_json, is_secret_key, scrub_hidden, shown_value
from .textsafe import escape_surrogates

#: Rows shown in one HTML table; the rest are summarised, so a pasted list of 50,000
#: paths doesn't send megabytes of HTML to the browser on every keystroke.
MAX_TABLE_ROWS = 300

# Colours pass WCAG AA contrast with white text; the text carries the meaning anyway.
_COLOURS = {
    "allowed": "#1a7f37",
    "ok": "#1a7f37",
    "refused": "#b42318",
    "partial": "#9a6700",
    "absent": "#57606a",
    "error": "#6f42c1",
    "warning": "#9a6700",
}

STYLE = """
<style>
/* Colours come from JupyterLab's theme variables (with light fallbacks), so the page is
   readable in the light and the dark theme; the few colours of our own have a dark
   variant below. */
.lfe-app {
  --lfe-fg: var(--jp-content-font-color1, #1f2328);
  --lfe-fg-muted: var(--jp-content-font-color2, #57606a);
  --lfe-bg: var(--jp-layout-color0, #ffffff);
  --lfe-bg-alt: var(--jp-layout-color2, #f6f8fa);
  --lfe-border: var(--jp-border-color1, #d0d7de);
  --lfe-ok: #1a7f37; --lfe-bad: #b42318; --lfe-warn: #9a6700; --lfe-info: #6f42c1;
  --lfe-ok-bg: rgba(26, 127, 55, 0.12); --lfe-bad-bg: rgba(180, 35, 24, 0.12);
  --lfe-warn-bg: rgba(154, 103, 0, 0.14); --lfe-note-bg: var(--lfe-bg-alt);
  --lfe-selected-bg: rgba(212, 167, 44, 0.28);
  max-width: 1400px; font-size: 14px; color: var(--lfe-fg); }
body[data-jp-theme-light="false"] .lfe-app, .lfe-app.lfe-dark {
  --lfe-ok: #57d364; --lfe-bad: #ff8a80; --lfe-warn: #e3b341; --lfe-info: #d2a8ff;
  --lfe-ok-bg: rgba(87, 211, 100, 0.14); --lfe-bad-bg: rgba(255, 138, 128, 0.14);
  --lfe-warn-bg: rgba(227, 179, 65, 0.16); --lfe-selected-bg: rgba(227, 179, 65, 0.30); }
.lfe-app .widget-html-content { line-height: 1.45; color: var(--lfe-fg);
  word-break: normal; overflow-wrap: normal; }
/* Full-width HTML areas: without side margins, 100% fits the column exactly. */
.lfe-app .widget-html { margin-left: 0; margin-right: 0; }
/* Labels and buttons say the whole word or wrap between words, never inside one. */
.lfe-app .widget-label, .lfe-app .widget-button, .lfe-app .widget-toggle-button {
  word-break: normal; overflow-wrap: normal; }
.lfe-app .widget-label { overflow: visible; }
.lfe-app table.lfe-table { border-collapse: collapse; margin: 4px 0 8px 0; width: 100%; }
.lfe-app table.lfe-table th, .lfe-app table.lfe-table td {
  border: 1px solid var(--lfe-border); padding: 3px 6px; text-align: left;
  vertical-align: top; font-size: 13px; color: var(--lfe-fg);
  word-break: normal; overflow-wrap: normal; }
.lfe-app table.lfe-table th { background: var(--lfe-bg-alt); }
.lfe-app table.lfe-trace td:nth-child(-n+2), .lfe-app table.lfe-verdicts td:nth-child(3),
.lfe-app table.lfe-call-paths td:nth-child(4) { white-space: nowrap; }
.lfe-app table.lfe-table tr.lfe-selected td { background: var(--lfe-selected-bg); }
.lfe-app code, .lfe-app .lfe-path { word-break: normal; overflow-wrap: normal;
  color: var(--lfe-fg); }
.lfe-app .lfe-badge { display: inline-block; color: #fff; border-radius: 3px;
  padding: 0 6px; font-weight: 600; font-size: 12px; white-space: nowrap; }
.lfe-app pre.lfe-pre { background: var(--lfe-bg-alt); color: var(--lfe-fg);
  border: 1px solid var(--lfe-border); padding: 6px; white-space: pre-wrap;
  overflow-wrap: anywhere; font-size: 12.5px; margin: 4px 0; }
.lfe-app .lfe-diff-add { color: var(--lfe-ok); } .lfe-app .lfe-diff-del { color: var(--lfe-bad); }
.lfe-app .lfe-diff-hunk { color: var(--lfe-info); }
.lfe-app .lfe-box { border-left: 4px solid var(--lfe-border); padding: 4px 8px; margin: 4px 0;
  color: var(--lfe-fg); }
.lfe-app .lfe-box-error { border-color: var(--lfe-bad); background: var(--lfe-bad-bg); }
.lfe-app .lfe-box-warning { border-color: var(--lfe-warn); background: var(--lfe-warn-bg); }
.lfe-app .lfe-box-ok { border-color: var(--lfe-ok); background: var(--lfe-ok-bg); }
.lfe-app .lfe-box-note { border-color: var(--lfe-fg-muted); background: var(--lfe-note-bg); }
.lfe-app .lfe-muted { color: var(--lfe-fg-muted); }
.lfe-app h3.lfe-h { margin: 8px 0 4px 0; font-size: 15px; color: var(--lfe-fg); }
.lfe-app .lfe-mode-line { font-size: 15px; margin: 2px 0; }
.lfe-app h1.lfe-title { font-size: 22px; margin: 4px 0 2px 0; color: var(--lfe-fg); }
.lfe-app .lfe-steps { display: flex; flex-wrap: wrap; gap: 6px; margin: 4px 0 6px 0; }
.lfe-app .lfe-step { border: 1px solid var(--lfe-border); border-radius: 12px;
  padding: 1px 10px; color: var(--lfe-fg-muted); white-space: nowrap; }
.lfe-app .lfe-step-done { border-color: var(--lfe-ok); color: var(--lfe-fg);
  background: var(--lfe-ok-bg); }
.lfe-app .lfe-policy-bar { border: 1px solid var(--lfe-border); border-radius: 4px;
  padding: 4px 8px; margin: 4px 0 8px 0; background: var(--lfe-bg); }
.lfe-app .lfe-verdict-big { font-size: 15px; margin: 2px 0; color: var(--lfe-fg); }
.lfe-app .lfe-verdict-big .lfe-big { display: inline-block; font-size: 20px;
  font-weight: 700; padding: 2px 12px; border-radius: 4px; color: #fff; }
.lfe-app .lfe-verdict-start .lfe-big { background: #1a7f37; }
.lfe-app .lfe-verdict-exit .lfe-big { background: #b42318; }
.lfe-app .lfe-chip { border: 1px solid var(--lfe-border); border-radius: 12px;
  padding: 0 0 0 8px; margin: 2px 4px 2px 0; }
.lfe-app .lfe-bar-label { font-weight: 600; }
.lfe-app .lfe-kernel-banner { display: none; }
/* Upload buttons: the widget writes "(0)", a count of files nobody asked for; the button
   shows its own words instead. */
.lfe-app .widget-upload { font-size: 0 !important; }
.lfe-app .widget-upload::before { font-size: 13px; }
.lfe-app .lfe-env-upload::before { content: "Upload .env"; }
.lfe-app .lfe-spec-upload::before { content: "Upload host spec"; }
.lfe-app .lfe-batch-upload::before { content: "Upload JSONL"; }
.lfe-app .lfe-session-upload::before { content: "Upload JSON"; }
.lfe-app .lfe-shadow-log::before { content: "Upload log"; }
.lfe-app .lfe-shadow-config::before { content: "Upload client config"; }
.lfe-app .lfe-scenarios-upload::before { content: "Upload TOML"; }
.lfe-app .lfe-client-upload::before { content: "Upload client config"; }
.lfe-app .lfe-hangar-upload::before { content: "Upload YAML"; }
.lfe-app .lfe-compare-env-upload::before { content: "Upload the other .env"; }
.lfe-app .lfe-paths-upload::before { content: "Upload paths"; }
.lfe-app .lfe-compare-paths-upload::before { content: "Upload paths"; }
.lfe-app .widget-upload i { display: none; }
/* The results grid: full width, numbers and verdicts on one line. */
.lfe-app .lfe-grid-table table.dataTable { width: 100% !important; margin: 0; }
.lfe-app .lfe-grid-table .dt-layout-table { overflow-x: auto; }
.lfe-app .lfe-grid-table td.lfe-nowrap, .lfe-app .lfe-seg { white-space: nowrap; }
.lfe-app .lfe-grid-table, .lfe-app .lfe-grid-table td, .lfe-app .lfe-grid-table th {
  color: var(--lfe-fg); }
.lfe-app .lfe-grid-table tr.selected td { background: var(--lfe-selected-bg) !important;
  color: var(--lfe-fg) !important; box-shadow: none !important; }
.lfe-app button.lfe-copy { font: inherit; font-size: 12px; }
/* Narrow windows: inputs and columns take the whole width instead of overflowing. */
@media (max-width: 800px) {
  .lfe-app .widget-text, .lfe-app .widget-textarea, .lfe-app .widget-dropdown {
    width: 100% !important; }
  .lfe-app .widget-hbox { flex-wrap: wrap; }
  .lfe-app .lfe-verdict-big .lfe-big { font-size: 17px; }
  /* A grid fits the window: long words (paths, messages) wrap rather than push the
     columns past the edge. */
  .lfe-app .lfe-grid-table td:not(.lfe-nowrap), .lfe-app .lfe-grid-table th {
    white-space: normal !important; overflow-wrap: anywhere; word-break: break-word; }
}
</style>
"""


def esc(value: Any) -> str:
    """HTML-escape ``value`` (None as an empty string); NUL shown as ``\\0``."""
    if value is None:
        return ""
    # Every value the page shows passes here: a secret that found its way into another
    # setting (a root built with ${CREDENTIALS_CONFIG}) is masked wherever it lands.
    # A lone surrogate (a file name that isn't UTF-8) can't travel to the browser: its
    # \uXXXX escape does.
    return html.escape(escape_surrogates(show_nul(scrub_hidden(str(value)))), quote=True)


def path_html(path: Any) -> str:
    """An escaped path that the browser may wrap after a ``/`` and nowhere else."""
    text = esc(path)
    return f'<span class="lfe-path">{text.replace("/", "/<wbr>")}</span>'


def badge(kind: str, text: str) -> str:
    """A coloured label whose text says the same thing as its colour."""
    colour = _COLOURS.get(kind, "#57606a")
    return (
        f'<span class="lfe-badge lfe-badge-{esc(kind)}" style="background:{colour}">'
        f"{esc(text)}</span>"
    )


def verdict_badge(allowed: bool, reason: str) -> str:
    """``✔ ALLOWED`` or ``✘ REFUSED · <reason>``."""
    if allowed:
        return badge("allowed", "✔ ALLOWED")
    return badge("refused", f"✘ REFUSED · {reason.replace('_', ' ')}")


_OUTCOME_TEXT = {
    "ok": "✔ OK",
    "refused": "✘ REFUSED",
    "partial": "◐ PARTIAL",
    "absent": "⊘ ABSENT",
    "error": "⚠ ERROR",
}


def outcome_badge(outcome: str) -> str:
    """The outcome of a tool call as the model experiences it."""
    return badge(outcome, _OUTCOME_TEXT.get(outcome, outcome.upper()))


def box(kind: str, body_html: str, css_class: str = "") -> str:
    """A bordered note: ``error``, ``warning``, ``ok`` or ``note``."""
    extra = f" {css_class}" if css_class else ""
    return f'<div class="lfe-box lfe-box-{kind}{extra}">{body_html}</div>'


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    css_class: str = "",
    selected: int | None = None,
    total: int | None = None,
) -> str:
    """An HTML table. Cells are HTML already (escape with :func:`esc`).

    ``total`` is the number of rows before truncation, to say how many were left out.
    """
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    shown = 0
    for i, row in enumerate(rows):
        cls = ' class="lfe-selected"' if selected is not None and i == selected else ""
        body.append(f"<tr{cls}>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
        shown += 1
    more = ""
    if total is not None and total > shown:
        more = f'<div class="lfe-muted">{total - shown} more row(s) not shown.</div>'
    cls = f"lfe-table {css_class}".strip()
    return (
        f'<table class="{cls}"><thead><tr>{head}</tr></thead>'
        f'<tbody>{"".join(body)}</tbody></table>{more}'
    )


def pre(text: str, css_class: str = "") -> str:
    """Preformatted, escaped text."""
    cls = f"lfe-pre {css_class}".strip()
    return f'<pre class="{cls}">{esc(text)}</pre>'


def yes_no(value: bool | None) -> str:
    """``yes``/``no``/``—`` for booleans in tables."""
    if value is None:
        return "—"
    return "yes" if value else "no"


# ---------------------------------------------------------------------- the server


def mode_summary(policy: Any) -> str:
    """The one line that names LOCAL_FILE_ACCESS, the resolved mode and how it got there."""
    mode = policy.mode.value
    if policy.explicit:
        how = f"explicit (LOCAL_FILE_ACCESS={policy.configured_mode})"
        if policy.errors:
            how += ", invalid configuration: falls back to off"
    else:
        how = f"defaulted: unset, so {mode} for the {policy.transport} transport"
    kind = {"full": "allowed", "roots": "ok", "off": "refused"}.get(mode, "absent")
    if not policy.explicit:
        kind = "warning"  # a mode nobody chose is worth a second look, whatever it is
    return (
        f'<div class="lfe-mode-line"><b>LOCAL_FILE_ACCESS</b> resolves to '
        f'{badge(kind, mode.upper())} <span class="lfe-mode-how">{esc(how)}</span></div>'
    )


def serve_line(policy: Any) -> str:
    """Whether the server would start, and its exit message when it wouldn't."""
    if policy.serves:
        return box("ok", "✔ The server would start with this configuration.", "lfe-serves")
    return box(
        "error",
        f"✘ The server would exit at startup: {esc(policy.exit_message)}",
        "lfe-serves",
    )


def roots_table(policy: Any) -> str:
    """LOCAL_FILE_ROOTS entries: configured spelling, resolution, problem."""
    if not policy.roots:
        return '<div class="lfe-muted">LOCAL_FILE_ROOTS: not set.</div>'
    rows = []
    for r in policy.roots:
        if r.problem:
            state = badge("refused", f"✘ {r.problem}")
        elif r.resolved:
            state = badge("ok", "✔ ok")
        else:  # not resolved: the mode isn't roots, so the entry is set but not used
            state = badge("absent", f"not used: the mode is {policy.mode.value}")
        rows.append([esc(r.configured), esc(r.resolved or "—"), state])
    return table(["LOCAL_FILE_ROOTS entry", "resolves to", "state"], rows,
                 css_class="lfe-roots-table")


def messages(kind: str, items: Sequence[str], label: str, css_class: str) -> str:
    """A list of errors or warnings, each with its word as well as its colour."""
    if not items:
        return ""
    body = "".join(f"<div><b>{esc(label)}:</b> {esc(m)}</div>" for m in items)
    return box(kind, body, css_class)


def env_table(env: Any, edited: Any = ()) -> str:
    """Every key the simulated server sees, where it came from, secrets masked
    (``edited``: keys an edit set, not the file as it is on disk)."""
    if env is None or not env.values:
        return '<div class="lfe-muted">The server sees no variables (no .env, no overrides).</div>'
    rows = []
    for key in sorted(env.values):
        value = shown_value(key, env.values[key])
        origin = ("override" if key in env.from_process
                  else "edit (policy bar)" if key in edited else "file")
        shown = esc(value) if not is_secret_key(key) else f"{esc(value)} (secret, hidden)"
        rows.append([f"<code>{esc(key)}</code>", shown, origin])
    return table(["variable", "value", "from"], rows, css_class="lfe-env-table")


def deny_list_table(policy: Any) -> str:
    """The deny-list: setting, configured path, resolved path, exists, defaulted."""
    rows = [
        [
            esc(e.setting),
            f"<code>{esc(e.path)}</code>",
            f"<code>{esc(e.resolved)}</code>",
            badge("warning", "exists") if e.exists else badge("absent", "missing"),
            yes_no(e.default),
        ]
        for e in policy.deny_list
    ]
    return table(
        ["setting", "path", "resolves to", "on the target", "default location"],
        rows,
        css_class="lfe-deny-table",
    )


def deny_dirs_table(policy: Any) -> str:
    """Directories whose whole content is deny-listed."""
    if not policy.deny_dirs:
        return '<div class="lfe-muted">No deny-listed directories.</div>'
    rows = [
        [esc(d.setting), f"<code>{esc(d.path)}</code>", f"<code>{esc(d.resolved)}/</code>"]
        for d in policy.deny_dirs
    ]
    return table(["setting", "path", "everything under"], rows, css_class="lfe-deny-dirs")


# ---------------------------------------------------------------------- paths


def trace_table(steps: Sequence[Any]) -> str:
    """The check's steps in order, each with what it found."""
    kinds = {"refused": "refused", "passed": "allowed", "done": "ok", "skipped": "absent",
             "note": "warning"}
    rows = [[esc(s.step), badge(kinds.get(s.outcome, "absent"), s.outcome), esc(s.detail)]
            for s in steps]
    return table(["step", "outcome", "detail"], rows, css_class="lfe-trace")


def decision_detail(d: Any) -> str:
    """Message, trace and hint for one decision."""
    parts = [
        f"<div><b>Path:</b> <code>{esc(d.path)}</code> ({esc(d.op)}) "
        f"{verdict_badge(d.allowed, d.reason)}</div>"
    ]
    if d.allowed:
        parts.append(box("ok", f"Allowed: the I/O happens on <code>{esc(d.resolved)}</code>.",
                         "lfe-detail-message"))
    else:
        parts.append(box("error", f"<b>The model sees:</b> {esc(d.message)}",
                         "lfe-detail-message"))
    parts.append('<h3 class="lfe-h">Trace</h3>' + trace_table(d.trace))
    if d.hint:
        parts.append(box("note", f"<b>Hint:</b> {esc(d.hint)}", "lfe-detail-hint"))
    return "".join(parts)


# ---------------------------------------------------------------------- tool calls


#: Entries listed in one call's detail (a sync of a big folder checks many).
MAX_DETAIL_ENTRIES = 5_000


def call_verdict_html(v: Any, *, limit: int = MAX_TABLE_ROWS) -> str:
    """A tool call's verdict: visibility, approval gate, outcome, each path, notes.

    The checked entries are listed refusals first, at most ``limit`` of them.
    """
    gate = {"execute": "runs without approval", "approval": "held for approval first",
            "blocked": "blocked by the tool access lists"}.get(v.gate, v.gate)
    head = (
        f"<div><b>{esc(v.name)}</b> {outcome_badge(v.outcome)} · "
        f"registered: <b>{yes_no(v.registered)}</b> · visible to the model: "
        f"<b>{yes_no(v.visible)}</b> · {esc(gate)}</div>"
    )
    parts = [head]
    if v.outcome == "refused":
        parts.append(box("error", f"<b>The model gets back:</b> {esc(v.message)}",
                         "lfe-call-message"))
    elif v.outcome == "error":
        parts.append(box("warning", f"<b>Can't be modelled:</b> {esc(v.message)}",
                         "lfe-call-message"))
    elif v.outcome == "absent":
        parts.append(box("note", "The model never sees this tool.", "lfe-call-message"))
    elif v.outcome == "partial" and v.message:
        # The server's own per-item error lines, as they sit inside the result.
        lines = "".join(f"<div><code>{esc(line)}</code></div>" for line in v.message.split("\n"))
        parts.append(box("warning", "<b>The call runs; its result holds these errors:</b>"
                         + lines, "lfe-call-message"))
    elif v.outcome == "partial":
        parts.append(box("warning", "The call runs, but some items fail (see below).",
                         "lfe-call-message"))
    else:
        parts.append(box("ok", "The call runs with nothing refused.", "lfe-call-message"))
    if v.paths:
        entries = sorted(v.paths, key=lambda p: p.allowed or p.advisory)  # refusals first
        rows = [
            [esc(p.argument), f"<code>{esc(p.path)}</code>", esc(p.op),
             verdict_badge(p.allowed, p.reason) + (" (advisory)" if p.advisory else ""),
             esc(p.kind) + (f" · {esc(p.step)}" if p.step else ""),
             esc(p.message) or '<span class="lfe-muted">—</span>',
             esc(p.sensitive or "")]
            for p in entries[:limit]
        ]
        parts.append(table(
            ["argument", "path", "op", "verdict", "kind", "refusal text", "sensitive?"],
            rows, css_class="lfe-call-paths", total=len(v.paths),
        ))
    else:
        parts.append('<div class="lfe-muted">No local path is touched.</div>')
    if v.notes:
        parts.append(box("note", "".join(f"<div>{esc(n)}</div>" for n in v.notes),
                         "lfe-call-notes"))
    return "".join(parts)


# ---------------------------------------------------------------------- batches


def batch_tables(verdicts: Sequence[Any]) -> tuple[str, str, str]:
    """(counts by outcome, counts by tool and outcome, table of calls)."""
    outcomes = Counter(v.outcome for v in verdicts)
    order = ["ok", "partial", "refused", "absent", "error"]
    by_outcome = table(
        ["outcome", "calls"],
        [[outcome_badge(o), str(outcomes[o])] for o in order if outcomes[o]],
        css_class="lfe-batch-outcomes",
    )
    per_tool: dict[str, Counter[str]] = {}
    for v in verdicts:
        per_tool.setdefault(v.name or "(malformed)", Counter())[v.outcome] += 1
    tool_rows = [
        [f"<code>{esc(name)}</code>", *[str(c[o]) if c[o] else "" for o in order],
         str(sum(c.values()))]
        for name, c in sorted(per_tool.items())
    ]
    by_tool = table(["tool", *order, "total"], tool_rows, css_class="lfe-batch-tools")
    rows = []
    for v in verdicts[:MAX_TABLE_ROWS]:
        refused = [p for p in v.paths if not p.allowed]
        rows.append([
            str((v.index or 0) + 1), esc(v.line if v.line is not None else ""),
            f"<code>{esc(v.name)}</code>", outcome_badge(v.outcome), esc(v.gate),
            str(len(v.paths)), str(len(refused)),
            esc(v.message) or '<span class="lfe-muted">—</span>',
        ])
    calls = table(
        ["#", "line", "tool", "outcome", "gate", "paths", "refused", "what the model gets"],
        rows, css_class="lfe-batch-calls", total=len(verdicts),
    )
    return by_outcome, by_tool, calls


def download_link(data: bytes, filename: str, mime: str, label: str, css_class: str,
                  *, mask_secrets: bool = True) -> str:
    """An anchor that downloads ``data``; works in Voila, which has no kernel-side download.

    Text files are masked like everything else the page shows (a report can quote a path
    built from a secret); only the ``.env`` export, whose point is its values, passes
    ``mask_secrets=False``.
    """
    if mask_secrets:
        with contextlib.suppress(UnicodeDecodeError):
            data = scrub_hidden(data.decode("utf-8")).encode("utf-8")
    encoded = base64.b64encode(data).decode("ascii")
    return (
        f'<a class="{esc(css_class)}" download="{esc(filename)}" '
        f'href="data:{esc(mime)};base64,{encoded}">{esc(label)}</a>'
    )


# ---------------------------------------------------------------------- export


def diff_html(diff_text: str) -> str:
    """A unified diff, each line coloured by its sign (the sign itself stays visible)."""
    if not diff_text:
        return box("note", "No changes: the export would write the file as it is.",
                   "lfe-export-diff")
    lines = []
    for line in diff_text.splitlines():
        if line.startswith(("+++", "---")):
            cls = ""
        elif line.startswith("+"):
            cls = "lfe-diff-add"
        elif line.startswith("-"):
            cls = "lfe-diff-del"
        elif line.startswith("@@"):
            cls = "lfe-diff-hunk"
        else:
            cls = ""
        lines.append(f'<span class="{cls}">{esc(line)}</span>' if cls else esc(line))
    return '<pre class="lfe-pre lfe-export-diff">' + "\n".join(lines) + "</pre>"


def json_html(obj: Mapping[str, Any], css_class: str) -> str:
    """Indented JSON in a ``<pre>``: secrets are masked inside its strings, so the block
    stays JSON and a word that merely occurs inside a secret is shown as itself."""
    text = hidden_json(obj, indent=2)  # checked for every spelling of a hidden secret
    cls = f"lfe-pre {css_class}".strip()
    return (f'<pre class="{cls}">'
            f"{html.escape(escape_surrogates(show_nul(text)), quote=True)}</pre>")


# ---------------------------------------------------------------------- notebook reprs
#
# ``_repr_html_`` of the engine's results: the dashboard's own fragments, wrapped with the
# stylesheet so a notebook cell shows them the same way without any widget.


def notebook(body_html: str) -> str:
    """A self-styled block for a notebook output."""
    return f'{STYLE.strip()}<div class="lfe-app lfe-repr">{body_html}</div>'


def decision_repr(d: Any) -> str:
    """One checked path: verdict, message, trace and hint."""
    return notebook(decision_detail(d))


def policy_repr(policy: Any) -> str:
    """The resolved policy: mode, whether it serves, roots, deny-list, warnings."""
    return notebook("".join([
        mode_summary(policy),
        serve_line(policy),
        messages("error", list(policy.errors), "error", "lfe-errors"),
        messages("warning", [*policy.env.warnings, *policy.warnings], "warning",
                 "lfe-warnings"),
        '<h3 class="lfe-h">Roots</h3>', roots_table(policy),
        '<h3 class="lfe-h">Deny-list</h3>', deny_list_table(policy), deny_dirs_table(policy),
    ]))


def call_verdict_repr(verdict: Any) -> str:
    """One probed tool call as the model experiences it."""
    return notebook(call_verdict_html(verdict))


def export_plan_repr(plan: Any) -> str:
    """An ``.env`` export plan: its masked diff, changes, and why it would be refused."""
    state = (box("ok", "✔ The server would accept this .env.", "lfe-serves") if plan.ok
             else box("error", esc(plan.refusal() or "refused"), "lfe-serves"))
    changes = "".join(f"<li>{esc(c.describe())}</li>" for c in plan.changes)
    diff = plan.diff(masked=True)
    return notebook("".join([
        state,
        messages("warning", list(plan.warnings), "warning", "lfe-warnings"),
        f'<ul class="lfe-changes">{changes}</ul>' if changes else
        '<div class="lfe-muted">No changes.</div>',
        diff_html(diff) if diff else "",
    ]))


def run_result_repr(run: Any) -> str:
    """A scenario run: the summary, then every expectation that failed, with its trace."""
    kind = "error" if run.errors else ("refused" if run.failed else "ok")
    head = f'<div class="lfe-mode-line">{badge(kind, run.summary)}</div>'
    rows = []
    for c in run.cases:
        if c.passed:
            continue
        where = f"{c.file}:{c.line}" if c.line else c.file
        why = "; ".join([*([c.error] if c.error else []), *(m.describe() for m in c.mismatches)])
        rows.append([esc(where), esc(f"{c.scenario} > {c.name}"), esc(why)])
    failed = (table(["where", "expectation", "why"], rows[:MAX_TABLE_ROWS],
                    css_class="lfe-failures", total=len(rows)) if rows else "")
    return notebook(head + messages("error", list(run.errors), "error", "lfe-errors") + failed)


def replay_repr(replay: Any) -> str:
    """A replayed session: one row per call through the approval gate."""
    rows = [[esc(f"{c.answer}.{c.call}"), f"<code>{esc(c.name)}</code>", esc(c.gate),
             yes_no(c.asked), esc(c.decision), outcome_badge(c.outcome), esc(c.reason)]
            for c in replay.calls[:MAX_TABLE_ROWS]]
    summary = replay.summary().to_text()
    return notebook(
        table(["call", "tool", "gate", "asked", "decision", "outcome", "reason"], rows,
              css_class="lfe-replay", total=len(replay.calls))
        + pre(summary))


_CHANGE_HEADINGS = (("new_access", "New access (refused → allowed)", "refused"),
                    ("removed_access", "Removed access (allowed → refused)", "ok"),
                    ("changed_message", "Changed message", "warning"))


def diff_repr(result: Any) -> str:
    """Verdicts that changed between two configurations, grouped by kind of change."""
    counts = result.counts()
    parts = ['<div class="lfe-mode-line">' + " ".join(
        badge(kind, f"{counts[name]} {heading.split(' (')[0].lower()}")
        for name, heading, kind in _CHANGE_HEADINGS) + "</div>"]
    for name, heading, _kind in _CHANGE_HEADINGS:
        changes = result.of(name)
        if not changes:
            continue
        rows = [[esc(c.kind), f"<code>{esc(c.probe)}</code>", esc(c.source), esc(c.detail)]
                for c in changes[:MAX_TABLE_ROWS]]
        parts.append(f'<h3 class="lfe-h">{esc(heading)}</h3>')
        parts.append(table(["kind", "probe", "source", "detail"], rows,
                           css_class=f"lfe-diff-{name}", total=len(changes)))
    return notebook("".join(parts))
