"""Reports a reviewer can attach to a change request: CSV, JSON and one HTML file.

Four kinds of result become a :class:`Report`: a batch of probed calls (and checked
paths), a before/after diff, a scenario run, and an exposure inventory (its findings
as the table, counts per severity and per root as charts). A report holds the configuration(s) it
was computed for with every secret masked, a summary, counts by reason and by tool, and
the verdict table. It is written as:

- CSV: the verdict table alone, one row per verdict;
- JSON: everything, for scripts;
- HTML: one self-contained page (inline CSS and inline SVG charts, no scripts, no fonts,
  no links to anything) that opens from an attachment with no network.

A configuration is shown the way its server describes it: mcp-gee-sweet's mode, roots
and deny-list, or another server's own ``summary()`` (the filesystem server's allowed
directories and roots). What the server's findings say about the configuration
(:meth:`~localfs_explorer.server.Server.findings`) is listed in every format but CSV.

Secret values (``CREDENTIALS_CONFIG``; names with SECRET, PASSWORD, TOKEN or KEY and not
PATH or FILE) are masked in the configuration, and every text of the report is also
scrubbed of those values, in case one turns up somewhere else (a path, a message).
"""

from __future__ import annotations

import html
import json
import math
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from ..errors import LocalfsError
from ..probe import COLUMNS, CallVerdict, decision_row, verdict_rows
from ..secrets import masked, scrub, secret_values
from ..textsafe import csv_table, table_text
from ..userfiles import write_output

if TYPE_CHECKING:
    from ..exposure import Inventory
    from ..server import ServerPolicy as Policy
    from ..server import Verdict as Decision
    from .diff import DiffResult
    from .scenarios import RunResult

__all__ = [
    "FORMATS",
    "Chart",
    "Report",
    "ReportError",
    "Section",
    "batch_report",
    "config_section",
    "diff_report",
    "exposure_report",
    "scenario_report",
    "server_findings",
    "to_csv",
    "to_html",
    "to_json",
    "write_report",
]

#: File suffixes and the format each one selects.
FORMATS: dict[str, str] = {".html": "html", ".htm": "html", ".csv": "csv", ".json": "json"}


class ReportError(LocalfsError):
    """A report that can't be written (an unknown format, an unwritable file)."""


class Section(BaseModel):
    """A titled list of facts: one configuration, shown as a key/value table."""

    title: str
    values: dict[str, Any] = Field(default_factory=dict)


class Chart(BaseModel):
    """Counts to draw as a bar chart."""

    title: str
    counts: dict[str, int] = Field(default_factory=dict)


class Report(BaseModel):
    """Everything a report shows; write it with :func:`write_report`."""

    kind: Literal["batch", "diff", "scenarios", "exposure"]
    title: str
    summary: list[str] = Field(default_factory=list)
    configurations: list[Section] = Field(default_factory=list)
    charts: list[Chart] = Field(default_factory=list)
    columns: list[str] = Field(default_factory=list)
    rows: list[dict[str, Any]] = Field(default_factory=list)
    #: What the server's findings say about the configuration(s): ``severity``,
    #: ``kind``, ``path``, ``why``, ``fix`` (and ``configuration`` in a diff).
    findings: list[dict[str, Any]] = Field(default_factory=list)


def _version() -> str:
    from .. import __version__

    return __version__


def _clean(value: Any, secrets: set[str]) -> Any:
    """``value`` with every string scrubbed of ``secrets``, recursively."""
    if not secrets:
        return value
    if isinstance(value, str):
        return scrub(value, secrets)
    if isinstance(value, Mapping):
        return {_clean(k, secrets): _clean(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v, secrets) for v in value]
    return value


def _scrubbed(report: Report, secrets: set[str]) -> Report:
    if not secrets:
        return report
    return Report.model_validate(_clean(report.model_dump(), secrets))


def _plain(value: Any) -> Any:
    """A DataFrame cell as plain JSON: NaN and pandas' missing values become None."""
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            return _plain(value.item())  # numpy scalars
        except (ValueError, TypeError):
            return str(value)
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    return value


# --------------------------------------------------------------------------- sections


def server_findings(policy: Any) -> list[dict[str, Any]]:
    """What the policy's server finds risky in it (:meth:`Server.findings`), as rows."""
    from ..server import server_of

    keep = ("severity", "kind", "path", "why", "fix")
    return [{k: f.get(k, "") for k in keep} for f in server_of(policy).findings(policy)]


def _findings_summary(findings: Sequence[Mapping[str, Any]]) -> list[str]:
    if not findings:
        return []
    counts = Counter(f["severity"] for f in findings)
    shown = ", ".join(f"{k} {v}" for k, v in counts.items())
    return [f"{len(findings)} finding{'s' if len(findings) != 1 else ''} about the "
            f"configuration ({shown})"]


def config_section(policy: Policy, title: str = "Configuration") -> Section:
    """The facts of one resolved configuration as its server states them
    (:meth:`~localfs_explorer.server.Server.config_facts`), secrets masked."""
    from ..server import server_of

    values = dict(server_of(policy).config_facts(policy))
    if "settings" in values:
        values["settings"] = masked(dict(values["settings"]))
    return Section(title=title, values=values)


# ------------------------------------------------------------------------------ batch

#: The batch report's columns: the one verdict table's (see :mod:`localfs_explorer.probe`).
BATCH_COLUMNS = COLUMNS


def _batch_rows(data: Any) -> list[dict[str, Any]]:
    if data is None:
        return []
    if hasattr(data, "to_dict") and hasattr(data, "columns"):  # a pandas DataFrame
        return [{k: _plain(v) for k, v in r.items()} for r in data.to_dict("records")]
    rows: list[dict[str, Any]] = []
    for item in data:
        if isinstance(item, CallVerdict):
            rows.extend(verdict_rows(item))
        elif isinstance(item, Mapping):
            rows.append(dict(item))
        else:
            raise ReportError(f"a batch holds call verdicts or rows, not {type(item).__name__}")
    return rows


def batch_report(
    policy: Policy,
    calls: Any = None,
    decisions: Iterable[Decision] = (),
    *,
    title: str = "localfs-explorer batch report",
) -> Report:
    """A report of probed calls and checked paths under one configuration.

    ``calls`` is :func:`~localfs_explorer.probe.probe_calls`'s DataFrame, a list of
    :class:`~localfs_explorer.probe.CallVerdict`, or rows in its columns; ``decisions``
    are the verdicts of ``policy.check`` (:class:`~localfs_explorer.Decision` for the
    default server).
    """
    rows = _batch_rows(calls)
    rows.extend(decision_row(d) for d in decisions)
    reasons = Counter(r["reason"] for r in rows if r.get("reason"))
    calls_seen: dict[Any, dict[str, Any]] = {}
    for r in rows:
        if r.get("name"):
            calls_seen.setdefault((r.get("call"), r.get("line"), r["name"]), r)
    by_tool = Counter(r["name"] for r in calls_seen.values())
    by_outcome = Counter(r["outcome"] for r in calls_seen.values() if r.get("outcome"))
    refused_paths = sum(1 for r in rows if r.get("allowed") is False)
    summary = [
        f"{len(calls_seen)} calls, {len(rows)} verdict rows, {refused_paths} refused paths",
        "outcomes: " + (", ".join(f"{k} {v}" for k, v in sorted(by_outcome.items()))
                        or "no calls"),
    ]
    findings = server_findings(policy)
    summary += _findings_summary(findings)
    report = Report(
        kind="batch", title=title, summary=summary, findings=findings,
        configurations=[config_section(policy)],
        charts=[Chart(title="Verdicts by reason", counts=_ordered_reasons(reasons, policy)),
                Chart(title="Calls by tool", counts=dict(by_tool.most_common())),
                Chart(title="Calls by outcome", counts=dict(by_outcome.most_common()))],
        columns=list(BATCH_COLUMNS), rows=rows,
    )
    return _scrubbed(report, secret_values(policy.env.values))


def _ordered_reasons(counts: Mapping[str, int], policy: Any) -> dict[str, int]:
    """``counts`` in the order the policy's server lists its reasons, others after."""
    from ..server import server_of

    ordered = {r: counts[r] for r in server_of(policy).reasons if counts.get(r)}
    ordered.update({k: v for k, v in counts.items() if k not in ordered and v})
    return ordered


# ------------------------------------------------------------------------------- diff


def diff_report(
    result: DiffResult,
    before: Policy,
    after: Policy,
    *,
    include_unchanged: bool = False,
    title: str = "localfs-explorer diff report",
) -> Report:
    """A report of a before/after comparison: changed verdicts, new access first."""
    from .diff import COLUMNS

    changes = result.changes if include_unchanged else result.changed
    counts = result.counts()
    summary = [
        f"{len(result.changes)} probes asked of both configurations",
        f"{counts['new_access']} new access, {counts['removed_access']} removed access, "
        f"{counts['changed_message']} changed message",
    ]
    if counts["new_access"]:
        summary.append("this change grants new access: review every new_access row")
    findings = [{"configuration": side, **f}
                for side, policy in (("before", before), ("after", after))
                for f in server_findings(policy)]
    summary += _findings_summary(findings)
    reasons = Counter(c.after["reason"] for c in result.changed
                      if c.kind == "path" and c.after.get("reason"))
    tools = Counter(c.tool for c in result.changed if c.kind == "call" and c.tool)
    report = Report(
        kind="diff", title=title, summary=summary, findings=findings,
        configurations=[config_section(before, "Before"), config_section(after, "After")],
        charts=[
            Chart(title="Changes by category",
                  counts={k: v for k, v in counts.items() if k != "unchanged"}),
            Chart(title="Changed path verdicts by reason (after)",
                  counts=_ordered_reasons(reasons, after)),
            Chart(title="Changed calls by tool", counts=dict(tools.most_common())),
        ],
        columns=list(COLUMNS), rows=[c.row() for c in changes],
    )
    secrets = secret_values(before.env.values) | secret_values(after.env.values)
    return _scrubbed(report, secrets)


# --------------------------------------------------------------------------- scenarios

SCENARIO_COLUMNS: tuple[str, ...] = (
    "result", "file", "line", "scenario", "kind", "name", "mismatches", "reason",
    "outcome", "message",
)


def scenario_report(run: RunResult, *, title: str = "localfs-explorer scenario report") -> Report:
    """A report of a scenario run: every expectation, its result and the coverage."""
    rows: list[dict[str, Any]] = []
    for case in run.cases:
        actual = case.actual
        rows.append({
            "result": "passed" if case.passed else ("error" if case.error else "failed"),
            "file": case.file, "line": case.line, "scenario": case.scenario,
            "kind": case.kind, "name": case.name,
            "mismatches": case.error or "; ".join(m.describe() for m in case.mismatches),
            "reason": actual.get("reason"), "outcome": actual.get("outcome"),
            "message": actual.get("message"),
        })
    sections = []
    for f in run.files:
        for s in f.scenarios:
            values = dict(s.config) if s.config else {"error": s.error}
            sections.append(Section(title=f"{s.name} ({f.path})", values=values))
    cov = run.coverage
    summary = [run.summary]
    summary += [f"error: {e}" for e in run.errors]
    summary.append(f"coverage: {cov.exercised}/{cov.total} rules exercised")
    missed = cov.missed()
    if missed:
        summary.append("not exercised: " + ", ".join(f"{c} {r}" for c, r in missed))
    return Report(
        kind="scenarios", title=title, summary=summary, configurations=sections,
        charts=[
            Chart(title="Expectations", counts={"passed": run.passed, "failed": run.failed}),
            Chart(title="Verdicts by reason", counts=dict(cov.reasons)),
            Chart(title="Calls by tool", counts=dict(cov.tools)),
        ],
        columns=list(SCENARIO_COLUMNS), rows=rows,
    )


# --------------------------------------------------------------------------- exposure


def exposure_report(
    inventory: Inventory, policy: Policy, *, title: str = "localfs-explorer exposure report"
) -> Report:
    """A report of an exposure inventory: counts per severity and per walked directory
    (as charts), the configuration, and one row per finding."""
    from ..exposure import FINDING_COLUMNS, SEVERITIES

    by_root: Counter[str] = Counter()
    for f in inventory.findings:
        if f.severity != "info":
            by_root[f.root or "(elsewhere)"] += 1
    # Another server's findings about its configuration are among the inventory's rows.
    report = Report(
        kind="exposure", title=title, summary=inventory.summary(),
        configurations=[config_section(policy)],
        charts=[Chart(title="Findings by severity", counts=inventory.counts()),
                Chart(title="Findings by root (info excluded)",
                      counts=dict(by_root.most_common())),
                Chart(title="Readable files by root",
                      counts={r.root: r.readable_files for r in inventory.roots if not r.note}),
                Chart(title="Writable files by root",
                      counts={r.root: r.writable_files for r in inventory.roots if not r.note})],
        columns=list(FINDING_COLUMNS),
        rows=sorted(inventory.rows(), key=lambda r: SEVERITIES.index(r["severity"])),
    )
    return _scrubbed(report, secret_values(policy.env.values))


# ----------------------------------------------------------------------------- writing


def _cell(value: Any) -> str:
    return table_text(_plain(value))


def to_csv(report: Report) -> str:
    """The verdict table as CSV (header row first)."""
    return csv_table(report.columns,
                     ([_plain(row.get(c)) for c in report.columns] for row in report.rows))


def to_json(report: Report) -> str:
    """The whole report as JSON."""
    data = {"generated_by": f"localfs-explorer {_version()}", **report.model_dump()}
    return json.dumps(data, ensure_ascii=False, indent=2, default=str)


_STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1f2328}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.meta{color:#59636e;margin:0 0 16px}
ul.summary{padding-left:20px}ul.summary li{margin:2px 0}
table{border-collapse:collapse;font-size:12.5px}.scroll{overflow-x:auto;max-width:100%}
th,td{border:1px solid #d1d9e0;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa;position:sticky;top:0}
td{min-width:6em;max-width:36em;overflow-wrap:break-word}
table.kv{width:100%}table.kv th{width:190px;position:static}
.yes{background:#dafbe1}.no{background:#ffebe9}.new_access{background:#ffebe9;font-weight:600}
.removed_access{background:#fff8c5}.changed_message{background:#ddf4ff}
.passed{background:#dafbe1}.failed,.error{background:#ffebe9;font-weight:600}
.critical{background:#ffebe9;font-weight:600}.high{background:#fff1e5}.medium{background:#fff8c5}
.charts{display:flex;flex-wrap:wrap;gap:24px}.chart h3{font-size:14px;margin:0 0 4px}
details{margin:4px 0}summary{cursor:pointer}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
"""

_CELL_CLASSES = {
    True: "yes", False: "no", "new_access": "new_access", "removed_access": "removed_access",
    "changed_message": "changed_message", "passed": "passed", "failed": "failed",
    "error": "error", "critical": "critical", "high": "high", "medium": "medium",
}


def _css(value: Any) -> str:
    """The class attribute a table cell with ``value`` gets ("" for none)."""
    value = _plain(value)
    css = _CELL_CLASSES.get(value) if isinstance(value, (bool, str)) else None
    return f' class="{css}"' if css else ""


def _svg_bars(chart: Chart) -> str:
    """A horizontal bar chart as inline SVG (no script, no external reference)."""
    items = [(k, v) for k, v in chart.counts.items()]
    if not items:
        return '<p class="meta">nothing to count</p>'
    label_w, bar_w, row_h = 260, 220, 20
    top = max(v for _k, v in items) or 1
    height = row_h * len(items) + 4
    width = label_w + bar_w + 60
    parts = [f'<svg width="{width}" height="{height}" '
             f'role="img" aria-label="{html.escape(chart.title)}">']
    for i, (label, value) in enumerate(items):
        y = i * row_h + 2
        w = round(bar_w * value / top) if value else 0
        shown = label if len(label) <= 36 else label[:35] + "…"
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 14}" text-anchor="end" font-size="12" '
            f'fill="#1f2328">{html.escape(shown)}</text>'
            f'<rect x="{label_w}" y="{y + 3}" width="{w}" height="{row_h - 6}" '
            f'fill="{"#0969da" if value else "#d1d9e0"}"><title>{html.escape(label)}: '
            f'{value}</title></rect>'
            f'<text x="{label_w + w + 6}" y="{y + 14}" font-size="12" fill="#59636e">'
            f"{value}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _value_html(value: Any) -> str:
    if isinstance(value, Mapping):
        if not value:
            return '<span class="meta">(none)</span>'
        inner = "".join(f"<tr><th>{html.escape(str(k))}</th><td><code>"
                        f"{html.escape(_cell(v))}</code></td></tr>" for k, v in value.items())
        return f'<table class="kv">{inner}</table>'
    if isinstance(value, (list, tuple)):
        if not value:
            return '<span class="meta">(none)</span>'
        return "<br>".join(f"<code>{html.escape(_cell(v))}</code>" for v in value)
    return html.escape(_cell(value))


def _section_html(section: Section, collapsed: bool) -> str:
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{_value_html(v)}</td></tr>"
                   for k, v in section.values.items())
    table = f'<table class="kv">{rows}</table>'
    if collapsed:
        return (f"<details><summary>{html.escape(section.title)}</summary>{table}"
                "</details>")
    return f"<h3>{html.escape(section.title)}</h3>{table}"


def _side_by_side(before: Section, after: Section) -> str:
    """Two configurations in one table, the rows that differ marked."""
    keys = list(dict.fromkeys([*before.values, *after.values]))
    rows = []
    for key in keys:
        b, a = before.values.get(key), after.values.get(key)
        mark = ' class="changed_message"' if b != a else ""
        rows.append(f"<tr{mark}><th>{html.escape(key)}</th><td>{_value_html(b)}</td>"
                    f"<td>{_value_html(a)}</td></tr>")
    head = (f"<tr><th></th><th>{html.escape(before.title)}</th>"
            f"<th>{html.escape(after.title)}</th></tr>")
    return f'<table class="kv"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'


def to_html(report: Report) -> str:
    """One self-contained HTML page: inline CSS and SVG, no scripts, no external assets."""
    title = html.escape(report.title)
    out = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{title}</h1>",
        f'<p class="meta">localfs-explorer {html.escape(_version())} · {report.kind} report · '
        "secret values are masked</p>",
    ]
    if report.summary:
        out.append('<ul class="summary">' + "".join(
            f"<li>{html.escape(line)}</li>" for line in report.summary) + "</ul>")
    if report.kind == "diff" and len(report.configurations) == 2:
        out.append("<h2>Configuration</h2>")
        out.append(_side_by_side(*report.configurations))
    elif report.configurations:
        out.append("<h2>Configuration</h2>")
        collapsed = len(report.configurations) > 2
        out.extend(_section_html(s, collapsed) for s in report.configurations)
    if report.findings:
        out.append(f"<h2>Findings about the configuration ({len(report.findings)})</h2>")
        keys = list(dict.fromkeys(k for f in report.findings for k in f))
        head = "".join(f"<th>{html.escape(k)}</th>" for k in keys)
        found = "".join(
            "<tr>" + "".join(
                f'<td{_css(f.get(k))}>{html.escape(_cell(f.get(k)))}</td>' for k in keys)
            + "</tr>" for f in report.findings)
        out.append(f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>'
                   f"{found}</tbody></table></div>")
    if report.charts:
        out.append('<h2>Counts</h2><div class="charts">')
        for chart in report.charts:
            out.append(f'<div class="chart"><h3>{html.escape(chart.title)}</h3>'
                       f"{_svg_bars(chart)}</div>")
        out.append("</div>")
    rows_title = "Findings" if report.kind == "exposure" else "Verdicts"
    out.append(f"<h2>{rows_title} ({len(report.rows)})</h2>")
    if report.rows:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in report.columns)
        body = []
        for row in report.rows:
            cells = []
            for c in report.columns:
                value = _plain(row.get(c))
                cells.append(f"<td{_css(value)}>{html.escape(_cell(value))}</td>")
            body.append("<tr>" + "".join(cells) + "</tr>")
        out.append(f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>'
                   f"{''.join(body)}</tbody></table></div>")
    else:
        out.append('<p class="meta">no verdicts</p>')
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def render(report: Report, fmt: str) -> str:
    """``report`` as ``html``, ``csv`` or ``json`` text."""
    writers = {"html": to_html, "csv": to_csv, "json": to_json}
    if fmt not in writers:
        raise ReportError(f"unknown report format {fmt!r}: use html, csv or json")
    return writers[fmt](report)


def format_for(path: str | os.PathLike[str]) -> str:
    """The format a file name selects by its suffix (``.html``, ``.csv``, ``.json``)."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ReportError(
            f"{path}: can't tell the report format from the name; end it in .html, .csv "
            "or .json"
        )
    return FORMATS[suffix]


def write_report(report: Report, path: str | os.PathLike[str],
                 fmt: str | None = None, *, force: bool = False) -> Path:
    """Write ``report`` to ``path`` (format from the suffix unless ``fmt`` is given).

    An existing file is replaced only with ``force`` (and kept as a ``.bak``); a symlink
    at ``path`` is never written through. Secrets noted while loading the environments
    (see :func:`~localfs_explorer.secrets.collecting`) are masked in the text.
    """
    fmt = fmt or format_for(path)
    write_output(path, render(report, fmt), ReportError, force=force)  # masks, too
    return Path(path)


def write_reports(report: Report, paths: Sequence[str | os.PathLike[str]], *,
                  force: bool = False) -> list[Path]:
    """Write ``report`` to each path, checking every name (format, and that an existing
    file may be replaced) before writing any."""
    for p in paths:
        format_for(p)
        if not force and os.path.lexists(p):
            raise ReportError(f"{p} exists; pass --force to replace it (the old file is "
                              "kept as a .bak)")
    return [write_report(report, p, force=force) for p in paths]
