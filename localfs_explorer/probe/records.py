"""The probe's records and the one verdict table.

:class:`PathVerdict` (one path a call touches) and :class:`CallVerdict` (what the model
gets back from one call), and the table every output of them shares: its columns
(:data:`COLUMNS`), its row builders (:func:`verdict_rows`, :func:`decision_row`), its CSV
(:class:`VerdictCsv`) and its DataFrame (:func:`verdicts_frame`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from ..errors import LocalfsError
from ..textsafe import CsvWriter
from ..vocab import Gate, Outcome

if TYPE_CHECKING:
    import pandas as pd

    from ..server import Verdict as Decision


class ProbeError(LocalfsError):
    """A probe input the user supplied that can't be used (e.g. an unreadable calls file)."""


# Verdict records are plain slotted dataclasses: the probe builds one for every path it
# checks (100,000s in a batch), and each field is a value it produced itself, so there is
# nothing to validate. pydantic stays for what users hand in. They are not frozen: a
# frozen dataclass sets each field through object.__setattr__, which made building them
# several times slower (measured: 4.5 against 0.75 microseconds for a path verdict) and
# the probe measurably slower. Records are built once and never changed; a path verdict
# still hashes by value.


@dataclass(slots=True, unsafe_hash=True)
class PathVerdict:
    """The server's verdict on one local path a call touches."""

    #: Where the path came from: ``local_path``, ``attachments[0].local_path``, ...
    argument: str
    #: The path as given, or as the walk spells it (never resolved).
    path: str
    resolved: str | None
    #: ``read``, ``write`` or ``read_write``.
    op: str
    #: ``catalog`` for catalog-described parameters, else the discovery tier.
    tier: str
    allowed: bool
    #: ``allowed``, ``off``, ``outside_roots``, ``denied``, ``tripwire`` or ``invalid``.
    reason: str
    #: The refusal text the server produces for this path ("" when allowed).
    message: str
    #: Advice when the path looks like a credential file; never changes the verdict.
    sensitive: str | None = None
    #: ``path``, ``attachment``, ``image``, ``root``, ``entry`` or ``discovered``.
    kind: str = "path"
    #: For walked entries the server reports per item: ``failed`` or ``local_read_fail``.
    step: str | None = None
    #: Found by discovery's guess tier: shown, but it doesn't decide the outcome.
    advisory: bool = False

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {name: getattr(self, name) for name in _PATH_FIELDS}


@dataclass(slots=True)
class CallVerdict:
    """What the model would get back from one tool call."""

    name: str
    registered: bool
    #: Registered and not blocked by the tool access lists.
    visible: bool
    gate: Gate
    outcome: Outcome
    #: What the model sees when the call is refused (the exact refusal text); for a
    #: partial call, the per-item error lines its successful result carries, one per
    #: line, when the server reports them that way (server-filesystem's
    #: read_multiple_files); else "".
    message: str = ""
    paths: list[PathVerdict] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    #: Position of the call in a batch (0-based), and its line in a JSONL file.
    index: int | None = None
    line: int | None = None
    #: The call itself is unusable (a calls-file line that isn't a call, arguments that
    #: aren't an object): an input error, told apart from a tool error the server would
    #: return for a well-formed call (``probe`` exits 2 for the first, 1 for the second).
    malformed: bool = False

    def _repr_html_(self) -> str:
        """Rich display in a notebook (the dashboard's renderer)."""
        from ..render import call_verdict_repr

        return call_verdict_repr(self)

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON object ``localfs-explorer probe --json`` prints for this call."""
        out: dict[str, Any] = {
            "name": self.name,
            "registered": self.registered,
            "visible": self.visible,
            "gate": self.gate,
            "outcome": self.outcome,
            "message": self.message,
            "paths": [p.to_json_dict() for p in self.paths],
            "notes": list(self.notes),
        }
        if self.index is not None:
            out["index"] = self.index
        if self.line is not None:
            out["line"] = self.line
        return out


_PATH_FIELDS = tuple(f.name for f in dataclasses.fields(PathVerdict))


# --- The one verdict table ------------------------------------------------------------------
#
# One row per (call, path): CSV (``probe --csv``), the report (CSV, JSON, HTML), the
# DataFrame of :func:`probe_calls` and the dashboard's tables all take their columns from
# here and their rows from :func:`verdict_rows` / :func:`decision_row`. Rows hold the
# values as they are (a NUL stays a NUL); what shows them applies
# :func:`localfs_explorer.paths.show_nul`.

#: Columns that describe the call, repeated on each of its rows.
CALL_COLUMNS: tuple[str, ...] = (
    "call", "line", "name", "registered", "visible", "gate", "outcome", "message",
)
#: Columns that describe one path (``path_message`` is the path's refusal text).
PATH_COLUMNS: tuple[str, ...] = (
    "argument", "path", "resolved", "op", "tier", "allowed", "reason", "path_message",
    "sensitive", "kind", "step", "advisory",
)
#: The verdict table's columns, in order.
COLUMNS: tuple[str, ...] = (*CALL_COLUMNS, *PATH_COLUMNS, "notes")

_NO_PATH = dict.fromkeys(PATH_COLUMNS)


def verdict_rows(verdict: CallVerdict) -> list[dict[str, Any]]:
    """One row per (call, path) for a verdict; one row with empty path fields when none."""
    base = {
        "call": verdict.index, "line": verdict.line, "name": verdict.name,
        "registered": verdict.registered, "visible": verdict.visible, "gate": verdict.gate,
        "outcome": verdict.outcome, "message": verdict.message,
    }
    notes = "; ".join(verdict.notes)
    if not verdict.paths:
        return [{**base, **_NO_PATH, "notes": notes}]
    return [{
        **base, "argument": p.argument, "path": p.path, "resolved": p.resolved,
        "op": p.op, "tier": p.tier, "allowed": p.allowed, "reason": p.reason,
        "path_message": p.message, "sensitive": p.sensitive, "kind": p.kind,
        "step": p.step, "advisory": p.advisory, "notes": notes,
    } for p in verdict.paths]


def decision_row(decision: Decision) -> dict[str, Any]:
    """A path checked alone (``check``, the Paths tab), as a row of the same table."""
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update({
        "path": decision.path, "resolved": decision.resolved, "op": decision.op,
        "allowed": decision.allowed, "reason": decision.reason,
        "path_message": decision.message, "kind": "check",
    })
    return row


class VerdictCsv:
    """The verdict table as CSV, written one call at a time (``probe --csv``, the dashboard's
    batch download): the header first, every cell by :func:`~localfs_explorer.textsafe.csv_text`.
    """

    def __init__(self, out: TextIO) -> None:
        self._writer = CsvWriter(out, lineterminator="\r\n")
        self._writer.writerow(COLUMNS)

    def write(self, verdict: CallVerdict) -> None:
        """The rows of one call."""
        self._writer.writerows([row[c] for c in COLUMNS] for row in verdict_rows(verdict))


def verdicts_frame(verdicts: Iterable[CallVerdict], *,
                   wanted_by: str = "the verdict table's DataFrame") -> pd.DataFrame:
    """The verdict table of ``verdicts`` as a DataFrame, one row per (call, path).

    Without pandas, :class:`~localfs_explorer.optional.MissingDependency` names
    ``wanted_by``, what the caller asked for, before any verdict is computed.
    """
    from ..optional import pandas  # only this view needs pandas

    pd = pandas(wanted_by)
    rows = [row for verdict in verdicts for row in verdict_rows(verdict)]
    return pd.DataFrame(rows, columns=list(COLUMNS))
