"""What a scenario run returns: per-expectation results, and the coverage of the rules."""

from __future__ import annotations

import json
import typing
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ...vocab import OUTCOMES


@dataclass
class Mismatch:
    """One expected field that came out differently."""

    field: str
    expected: Any
    actual: Any

    def describe(self) -> str:
        """``reason: expected 'allowed', got 'outside_roots'``."""
        return f"{self.field}: expected {_show(self.expected)}, got {_show(self.actual)}"


def _show(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, default=str)


@dataclass
class CaseResult:
    """The result of one expectation."""

    file: str
    scenario: str
    #: ``path``, ``call``, ``tools``, ``auth_status`` or ``policy``.
    kind: str
    #: A short name for the expectation, e.g. ``read /data/x.csv``.
    name: str
    line: int | None = None
    mismatches: list[Mismatch] = field(default_factory=list)
    #: The check's trace (or the call's per-path verdicts and notes).
    trace: list[str] = field(default_factory=list)
    #: Set when the expectation couldn't be evaluated at all.
    error: str | None = None
    #: The actual verdict, JSON-ready (for reports).
    actual: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """No mismatch and no error."""
        return not self.mismatches and self.error is None

    @property
    def id(self) -> str:
        """``file::scenario::name``, unique enough for test reports."""
        return f"{self.file}::{self.scenario}::{self.name}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "file": self.file, "scenario": self.scenario, "kind": self.kind,
            "name": self.name, "line": self.line, "passed": self.passed,
            "mismatches": [
                {"field": m.field, "expected": m.expected, "actual": m.actual}
                for m in self.mismatches
            ],
            "trace": list(self.trace), "error": self.error, "actual": self.actual,
        }


@dataclass
class ScenarioResult:
    """The results of one scenario."""

    file: str
    name: str
    line: int | None
    cases: list[CaseResult] = field(default_factory=list)
    #: The configuration as it may be shown (secrets masked), when it could be built.
    config: dict[str, Any] = field(default_factory=dict)
    #: Why the configuration couldn't be built (then there are no cases).
    error: str | None = None


@dataclass
class FileResult:
    """The results of one scenario file, or why it couldn't be run."""

    path: str
    title: str | None = None
    scenarios: list[ScenarioResult] = field(default_factory=list)
    error: str | None = None

    @property
    def cases(self) -> list[CaseResult]:
        """Every expectation of every scenario."""
        return [c for s in self.scenarios for c in s.cases]


@dataclass
class Coverage:
    """Which rules of the check a run exercised, in the spirit of ``opa test --coverage``.

    Each category maps a rule to how many verdicts exercised it: ``reasons`` (every
    verdict reason, ``allowed`` included), ``deny_settings`` (which deny-list setting a
    refusal came from), ``tools`` (catalog tools called) and ``outcomes`` (call outcomes).
    """

    #: Filled by the run with the rules of each scenario's server (an empty run has
    #: none; :meth:`add_rules`).
    reasons: dict[str, int] = field(default_factory=dict)
    deny_settings: dict[str, int] = field(default_factory=dict)
    tools: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))

    CATEGORIES: typing.ClassVar[tuple[tuple[str, str], ...]] = (
        ("reasons", "refusal reason"),
        ("deny_settings", "deny-list setting"),
        ("tools", "catalog tool"),
        ("outcomes", "call outcome"),
    )

    def add_decision(self, reason: str, deny_setting: str | None = None) -> None:
        """Count one verdict (and the deny-list setting a refusal came from)."""
        self.reasons[reason] = self.reasons.get(reason, 0) + 1
        if deny_setting:
            self.deny_settings[deny_setting] = self.deny_settings.get(deny_setting, 0) + 1

    def add_rules(self, reasons: Iterable[str], deny_settings: Iterable[str] = ()) -> None:
        """Make a server's reasons (and deny-list settings) rules, exercised or not."""
        for reason in reasons:
            self.reasons.setdefault(reason, 0)
        for setting in deny_settings:
            self.deny_settings.setdefault(setting, 0)

    def add_catalog(self, names: Iterable[str]) -> None:
        """Make every tool of a catalog a rule (exercised or not)."""
        for name in names:
            self.tools.setdefault(name, 0)

    def add_call(self, name: str, outcome: str) -> None:
        """Count one call of ``name`` ending in ``outcome``."""
        self.tools[name] = self.tools.get(name, 0) + 1
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1

    def rules(self) -> list[tuple[str, str, int]]:
        """``(category label, rule, count)`` for every rule, in a stable order."""
        out = []
        for attr, label in self.CATEGORIES:
            for rule, count in getattr(self, attr).items():
                out.append((label, rule, count))
        return out

    @property
    def exercised(self) -> int:
        """How many rules at least one verdict exercised."""
        return sum(1 for _c, _r, n in self.rules() if n)

    @property
    def total(self) -> int:
        """How many rules there are."""
        return len(self.rules())

    def missed(self) -> list[tuple[str, str]]:
        """``(category label, rule)`` of every rule nothing exercised."""
        return [(c, r) for c, r, n in self.rules() if not n]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: per category, each rule's count; plus the totals."""
        return {
            "exercised": self.exercised, "total": self.total,
            **{attr: dict(getattr(self, attr)) for attr, _ in self.CATEGORIES},
        }


@dataclass
class RunResult:
    """The results of a whole run: files, and the coverage of the rules."""

    files: list[FileResult] = field(default_factory=list)
    coverage: Coverage = field(default_factory=Coverage)

    def _repr_html_(self) -> str:
        """Rich display in a notebook (the dashboard's renderer)."""
        from ...render import run_result_repr

        return run_result_repr(self)

    @property
    def cases(self) -> list[CaseResult]:
        """Every expectation of every file."""
        return [c for f in self.files for c in f.cases]

    @property
    def passed(self) -> int:
        """Expectations that held."""
        return sum(1 for c in self.cases if c.passed)

    @property
    def failed(self) -> int:
        """Expectations that didn't."""
        return sum(1 for c in self.cases if not c.passed)

    @property
    def errors(self) -> list[str]:
        """Files and scenarios that couldn't be run, one message each."""
        out = [f.error for f in self.files if f.error]
        for f in self.files:
            out.extend(f"{f.path}: scenario {s.name!r}: {s.error}"
                       for s in f.scenarios if s.error)
        return out

    @property
    def summary(self) -> str:
        """``N passed, N failed``."""
        return f"{self.passed} passed, {self.failed} failed"

    @property
    def exit_code(self) -> int:
        """0 all passed, 1 something failed, 2 a file or scenario couldn't be run."""
        if self.errors:
            return 2
        return 1 if self.failed else 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary, cases and coverage."""
        return {
            "passed": self.passed, "failed": self.failed, "errors": self.errors,
            "cases": [c.to_dict() for c in self.cases],
            "scenarios": [
                {"file": f.path, "name": s.name, "config": s.config, "error": s.error}
                for f in self.files for s in f.scenarios
            ],
            "coverage": self.coverage.to_dict(),
        }
