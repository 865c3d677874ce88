"""The inventory's records: findings, per-root summaries, progress, the whole inventory."""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from ..errors import LocalfsError

Severity = Literal["critical", "high", "medium", "info"]
#: Most severe first.
SEVERITIES: tuple[str, ...] = ("critical", "high", "medium", "info")
_RANK = {s: i for i, s in enumerate(SEVERITIES)}

#: Columns of :meth:`Inventory.rows` (CSV and the report's table), in order.
FINDING_COLUMNS: tuple[str, ...] = (
    "severity", "kind", "path", "op", "why", "fix", "root", "resolved",
)


class ExposureError(LocalfsError):
    """An inventory request that can't be carried out (a bad scope, a bad limit)."""


def severity_at_least(severity: str, threshold: str) -> bool:
    """Whether ``severity`` is ``threshold`` or more severe."""
    if threshold not in _RANK:
        raise ExposureError(f"unknown severity {threshold!r}: use {', '.join(SEVERITIES)}")
    return _RANK[severity] <= _RANK[threshold]


class Finding(BaseModel):
    """One thing an operator should know about what tools can reach."""

    model_config = ConfigDict(frozen=True)

    severity: Severity
    #: A stable label: ``executed``, ``credential``, ``credential-alias``,
    #: ``deny-in-root``, ``symlink-root``, ``case-insensitive-root``, ``overlapping-roots``,
    #: ``counts``, ``largest-directory``.
    kind: str
    path: str
    #: ``read``, ``write`` or ``read_write``.
    op: str
    why: str
    fix: str = ""
    #: The walked directory (root or scope) it was found in; None when found elsewhere.
    root: str | None = None
    resolved: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (``exposure --json`` prints one such object per line)."""
        return self.model_dump()


class RootSummary(BaseModel):
    """What the walk of one root (or scope directory) found."""

    model_config = ConfigDict(frozen=True)

    root: str
    #: The ``LOCAL_FILE_ROOTS`` entry as configured (roots mode), else None.
    configured: str | None = None
    entries: int = 0
    readable_files: int = 0
    writable_files: int = 0
    #: None when the walk ran without sizes.
    readable_bytes: int | None = 0
    writable_bytes: int | None = 0
    #: Set when this directory was not walked on its own (it lies in another one).
    note: str | None = None


class DirSize(BaseModel):
    """The files directly inside one directory that tools can read."""

    model_config = ConfigDict(frozen=True)

    path: str
    files: int
    bytes: int | None


#: What a progress report says while the tree is walked a second time.
WALKING_AGAIN = "walking again to count files with several names once"


class WalkProgress(NamedTuple):
    """Where a running walk is: passed to the ``progress`` callback."""

    entries: int
    directories: int
    current: str
    max_entries: int
    #: True while the tree is walked a second time, to count files met under several
    #: names once (the counts start again from zero).
    again: bool = False


class Inventory(BaseModel):
    """The result of :func:`exposure`: findings, per-root counts and where the walk ended."""

    model_config = ConfigDict(frozen=True)

    mode: str
    transport: str
    over_http: bool
    target: str
    walked: list[str] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    roots: list[RootSummary] = Field(default_factory=list)
    largest: list[DirSize] = Field(default_factory=list)
    entries: int = 0
    directories: int = 0
    sizes: bool = True
    complete: bool = True
    cancelled: bool = False
    #: Why the walk did not cover everything (entry limit, depth limit, cancellation).
    stopped: list[str] = Field(default_factory=list)
    #: Directories that could not be listed, with the reason.
    problems: list[str] = Field(default_factory=list)
    #: Resolved paths (files and directories below the walked ones) tools may read /
    #: write; only with ``keep_paths=True``.
    readable: frozenset[str] | None = Field(default=None, exclude=True, repr=False)
    writable: frozenset[str] | None = Field(default=None, exclude=True, repr=False)

    def counts(self) -> dict[str, int]:
        """Findings per severity, every severity present (zeros included)."""
        out = dict.fromkeys(SEVERITIES, 0)
        for f in self.findings:
            out[f.severity] += 1
        return out

    def counts_by_root(self) -> dict[str, dict[str, int]]:
        """Findings per walked directory and severity (``(elsewhere)`` for the rest)."""
        out: dict[str, dict[str, int]] = {}
        for f in self.findings:
            key = f.root or "(elsewhere)"
            out.setdefault(key, dict.fromkeys(SEVERITIES, 0))[f.severity] += 1
        return out

    def at_least(self, severity: str) -> list[Finding]:
        """Findings of ``severity`` or more severe."""
        return [f for f in self.findings if severity_at_least(f.severity, severity)]

    def rows(self) -> list[dict[str, Any]]:
        """One dict per finding in :data:`FINDING_COLUMNS` (CSV, tables)."""
        return [f.to_dict() for f in self.findings]

    def dataframe(self) -> Any:
        """The findings as a pandas DataFrame (columns :data:`FINDING_COLUMNS`)."""
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=list(FINDING_COLUMNS))

    def summary(self) -> list[str]:
        """A few lines a person can take in at a glance."""
        counts = self.counts()
        lines = [
            f"mode {self.mode} on {self.target}: "
            + ", ".join(f"{counts[s]} {s}" for s in SEVERITIES),
            f"walked {self.entries} entries in {self.directories} directories under "
            + (", ".join(self.walked) or "nothing"),
        ]
        for root, per in self.counts_by_root().items():
            lines.append(f"findings in {root}: "
                         + ", ".join(f"{per[s]} {s}" for s in SEVERITIES if per[s]))
        for r in self.roots:
            if r.note:
                lines.append(f"{r.root}: {r.note}")
                continue
            sizes = ""
            if r.readable_bytes is not None:
                sizes = (f" ({_human(r.readable_bytes)} readable, "
                         f"{_human(r.writable_bytes or 0)} writable)")
            lines.append(f"{r.root}: {r.readable_files} readable files, "
                         f"{r.writable_files} writable files{sizes}")
        lines.extend(f"stopped: {s}" for s in self.stopped)
        if self.problems:
            lines.append(f"{len(self.problems)} directories could not be listed "
                         f"(first: {self.problems[0]})")
        return lines


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size < 1024 or unit == "TB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover - the loop always returns
