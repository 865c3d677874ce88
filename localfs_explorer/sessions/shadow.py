"""Shadow verify: each recorded call held against the explorer's prediction for it.

:class:`Shadow` reads a client config once, then any number of logs
(:mod:`.readers`). Each call is predicted for the config entry that serves it, through
the shared probe and the entry's server (the seam of :mod:`localfs_explorer.server`),
in the order the session made them: a log is one session, so the host a call sees is
the one the calls before it left (:mod:`.effects`), and a call that changed the
server's own settings (:meth:`~localfs_explorer.server.Server.after_call`) changes the
policy of the calls after it. Each call gives one :class:`ShadowRow`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..deployments import DeploymentError, choose_entry, load_deployment, read_client_config
from ..errors import LocalfsError
from ..secrets import secret_values
from ..server import ServerError, server_of
from .compare import agreement
from .effects import SessionFS, apply_call
from .readers import TRUNCATED, LogStats, Progress, RecordedCall, read_log

__all__ = ["Shadow", "ShadowRow", "ShadowSummary", "entry_word"]

#: Characters Claude Code replaces with ``_`` when it names an entry's tools.
_NOT_A_NAME_CHAR = re.compile(r"[^A-Za-z0-9_-]")
#: The most verdicts an entry remembers for calls made again.
_REMEMBERED = 4096
#: The most of a recorded text a row shows (a refusal is short; a file read is not one).
_SHOWN = 400


def entry_word(name: str) -> str:
    """A config entry's name as Claude Code spells it in ``mcp__<entry>__<tool>``."""
    return _NOT_A_NAME_CHAR.sub("_", name)


@dataclass
class ShadowRow:
    """One recorded call, what it got, what the explorer predicts, and whether they agree.

    ``agree`` is None when the call can't be predicted (its entry's server isn't
    modelled, its arguments aren't whole, it never got an answer): ``why`` says which.
    ``enforced``/``configured`` are the directory lists a recorded refusal named and the
    configuration has, when they differ.
    """

    id: str
    entry: str | None
    tool: str
    paths: list[str]
    recorded: str
    predicted: str
    agree: bool | None
    why: str = ""
    #: The kind of difference (see :class:`~localfs_explorer.sessions.compare.Agreement`).
    kind: str = ""
    enforced: list[str] | None = None
    configured: list[str] | None = None
    source: str = ""
    line: int = 0
    notes: list[str] = field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON object ``shadow --json`` prints for the call."""
        out: dict[str, Any] = {
            "id": self.id, "entry": self.entry, "tool": self.tool, "paths": list(self.paths),
            "recorded": self.recorded, "predicted": self.predicted, "agree": self.agree,
            "why": self.why, "log": self.source, "line": self.line,
        }
        if self.kind:
            out["kind"] = self.kind
        if self.enforced is not None:
            out["enforced"] = list(self.enforced)
            out["configured"] = list(self.configured or ())
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass
class ShadowSummary:
    """Counts over every row: agreeing, disagreeing, not predicted; calls skipped."""

    agree: int = 0
    disagree: int = 0
    unknown: int = 0
    #: Calls to entries other than the one ``--entry`` names.
    skipped: int = 0
    logs: list[LogStats] = field(default_factory=list)
    #: Rows by entry and verdict (``{entry: Counter(agree=.., disagree=.., unknown=..)}``).
    by_entry: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, row: ShadowRow) -> None:
        key = "agree" if row.agree else "unknown" if row.agree is None else "disagree"
        setattr(self, key, getattr(self, key) + 1)
        self.by_entry.setdefault(row.entry or "(unnamed)", Counter())[key] += 1

    @property
    def exit_status(self) -> int:
        """0 when every predicted call agrees, 1 when any disagrees."""
        return 1 if self.disagree else 0

    def to_text(self) -> str:
        total = self.agree + self.disagree + self.unknown
        lines = [f"{total} call(s): {self.agree} agree, {self.disagree} disagree, "
                 f"{self.unknown} not predicted"]
        for entry, counts in sorted(self.by_entry.items()):
            lines.append(f"  {entry}: {counts['agree']} agree, {counts['disagree']} "
                         f"disagree, {counts['unknown']} not predicted")
        if self.skipped:
            lines.append(f"{self.skipped} call(s) to other entries skipped")
        return "\n".join(lines)


class _Served:
    """One config entry as a session sees it: its policy (changed by the session's
    calls), or why its calls can't be predicted."""

    def __init__(self, name: str, shadow: Shadow, fs: SessionFS) -> None:
        self.name = name
        self.problem = ""
        self.policy: Any = None
        self.tools: frozenset[str] = frozenset()
        self.remembered: dict[tuple[str, str], Any] = {}
        #: Path -> the remembered calls that looked at it; directory -> the remembered
        #: calls that looked at it or inside it.
        self._looked_at: dict[str, set[tuple[str, str]]] = {}
        self._under: dict[str, set[tuple[str, str]]] = {}
        self._generation = self._seen = 0
        try:
            dep = load_deployment(shadow.config.path, name, shadow.config.format,
                                  text=shadow.config.text)
            shadow.secrets |= secret_values(dep.env)
            from ..config import resolve_config

            resolved = resolve_config(dep.server_config(), fs=fs)
        except (DeploymentError, ServerError, LocalfsError) as exc:
            self.problem = str(exc)
            return
        self.policy = resolved.policy
        if not self.policy.serves:
            self.problem = ("the configured server would refuse to start: "
                            f"{self.policy.exit_message or 'no reason given'}")
            return
        self.server = server_of(self.policy)
        self.catalog = resolved.catalog
        self.registration = resolved.registration
        self.tools = frozenset(self.catalog.names())

    def predict(self, tool: str, arguments: dict[str, Any], flat: str, fs: SessionFS
                ) -> Any:
        """The probe's verdict on the call. A session repeats calls (the same file read
        again): the verdict is remembered until the session changes the host where the
        call looks (a path it checks, one inside it or one holding it) or the policy
        (:meth:`forget`)."""
        key = (tool, flat)
        if fs.generation != self._generation:
            for changed in fs.changes[self._seen:]:
                self.forget_at(changed)
            self._seen, self._generation = len(fs.changes), fs.generation
        found = self.remembered.get(key)
        if found is not None:
            return found
        from ..probe import probe_call

        verdict = probe_call(self.policy, tool, arguments, catalog=self.catalog,
                             registration=self.registration, discover=False)
        self.remember(key, verdict)
        return verdict

    def remember(self, key: tuple[str, str], verdict: Any) -> None:
        """Keep ``verdict`` for the call ``key``, indexed by every path it looked at."""
        if len(self.remembered) >= _REMEMBERED:
            self.forget()
        self.remembered[key] = verdict
        for path in {p.path for p in verdict.paths} | {p.resolved for p in verdict.paths
                                                       if p.resolved}:
            self._looked_at.setdefault(path, set()).add(key)
            for above in _and_above(path):
                self._under.setdefault(above, set()).add(key)

    def forget(self) -> None:
        """Drop every remembered verdict (the policy changed, or too many are kept)."""
        self.remembered.clear()
        self._looked_at.clear()
        self._under.clear()

    def forget_at(self, changed: str) -> None:
        """Drop the verdicts a change at ``changed`` may alter: those that looked at it or
        inside it, and those that looked at a directory holding it (a listing, a walk,
        a parent's check). Found through two indexes, never by going through them all."""
        stale = set(self._under.pop(changed, ()))
        for above in _and_above(changed):
            stale |= self._looked_at.get(above, set())
        for key in stale:
            self.remembered.pop(key, None)


def _and_above(path: str) -> list[str]:
    """``path`` and every directory holding it, as strings (``/a/b`` -> ``/a/b``,
    ``/a``, ``/``)."""
    out = [path]
    while True:
        parent = path.rpartition("/")[0] or "/"
        if parent == path or not path.startswith("/"):
            return out
        out.append(parent)
        path = parent


class Shadow:
    """Recorded sessions against one client config (``entry``: only that entry's calls)."""

    def __init__(self, client_config: str, entry: str | None = None, *,
                 text: str | None = None) -> None:
        # ``text``: the config's contents when they came from elsewhere (an upload);
        # ``client_config`` then only names it (its name still tells the client).
        self.config = read_client_config(client_config, text=text)
        names = [e.name for e in self.config.entries]
        if entry is not None and entry not in names:
            shown = ", ".join(repr(n) for n in names[:12]) or "none"
            raise DeploymentError(f"{client_config}: no entry named {entry!r} "
                                  f"(entries: {shown})")
        self.entry = entry
        self._by_word = {entry_word(n): n for n in names}
        self._by_word.update({n: n for n in names})
        #: The entry a log that names none is taken for: --entry, else the one entry
        #: that starts a server the explorer models (None: it can't be told).
        self.default_entry = entry
        if entry is None:
            try:
                self.default_entry = choose_entry(self.config, None).name
            except DeploymentError:
                self.default_entry = None
        self.summary = ShadowSummary()
        #: The values of secret settings of the entries read so far (to mask in output
        #: that doesn't pass through the command line's scrubbing, the dashboard's).
        self.secrets: set[str] = set()

    def run(self, logs: Iterable[str], *, format: str | None = None,
            progress: Progress | None = None) -> Iterator[ShadowRow]:
        """Every verified call of every log, in log order (each log a session of its own)."""
        for log in logs:
            stats = LogStats()
            yield from self.run_log(log, format=format, progress=progress, stats=stats)
            self.summary.logs.append(stats)

    def run_log(self, log: str, *, format: str | None = None,
                progress: Progress | None = None, stats: LogStats | None = None
                ) -> Iterator[ShadowRow]:
        fs = SessionFS()
        served: dict[str, _Served] = {}
        for rec in read_log(log, format, entry=self.default_entry, progress=progress,
                            stats=stats):
            name = self._by_word.get(rec.entry) if rec.entry is not None else None
            if self.entry is not None and name != self.entry:
                self.summary.skipped += 1
                continue
            entry = served.get(name) if name is not None else None
            if entry is None and name is not None:
                entry = served[name] = _Served(name, self, fs)
            row = self._row(rec, name, entry, fs)
            self.summary.add(row)
            yield row

    def _row(self, rec: RecordedCall, name: str | None, entry: _Served | None,
             fs: SessionFS) -> ShadowRow:
        row = ShadowRow(rec.id, name or rec.entry, rec.tool, _paths_of(rec.arguments),
                        _recorded(rec), "", None, source=rec.source, line=rec.line,
                        notes=list(rec.notes))
        if entry is None:
            row.why = (f"entry {rec.entry!r} isn't in the client config" if rec.entry
                       else "the log doesn't say which server answered: name its entry "
                       "with --entry")
            return row
        if entry.problem:
            row.why = f"entry {name!r}: {entry.problem}"
            return row
        if rec.arguments is None:
            row.why = "the log doesn't hold the call's arguments whole"
            return row
        try:
            flat = _flat(rec.arguments)
        except RecursionError:
            row.why = "the call's arguments nest too deeply to predict"
            return row
        if TRUNCATED.search(flat):
            row.why = "the call's arguments were cut by the log viewer"
            return row
        if rec.tool not in entry.tools:
            # The modelled servers' catalogs list every tool they have: a call to another
            # name gets the server's "no such tool" error (the probe, which takes
            # catalogs that may be partial, would assume it registered).
            row.predicted = "absent: not one of the server's tools"
            found = agreement("absent", "", is_error=rec.is_error, text=rec.text) \
                if rec.answered else None
            if found is None:
                row.why = "the log holds no answer to this call"
            else:
                row.agree, row.kind, row.why = found.agree, found.kind, found.why
            return row
        verdict = entry.predict(rec.tool, rec.arguments, flat, fs)
        row.paths = [p.path for p in verdict.paths if p.kind != "entry"] or row.paths
        row.predicted = verdict.outcome + (f": {verdict.message}" if verdict.message else "")
        row.notes.extend(verdict.notes)
        if not rec.answered:
            row.why = "the log holds no answer to this call"
            return row
        if rec.error_unknown:
            row.why = "the log line is cut before the answer says whether the call failed"
            return row
        if verdict.malformed:
            row.why = "the call can't be read as a tool call"
            return row
        # A success's text is read only where the comparison needs it (per-item errors).
        needs_text = rec.is_error or verdict.outcome == "partial"
        found = agreement(verdict.outcome, verdict.message, is_error=rec.is_error,
                          text=rec.text if needs_text else "")
        row.agree, row.kind = found.agree, found.kind
        if not found.agree:
            row.why = self._why(found.why, found.kind, rec, verdict, entry, row)
        if not rec.is_error:
            # The session's own effects, as the recording says they happened.
            apply_call(fs, rec.tool, [(p.argument, p.op, p.resolved) for p in verdict.paths
                                      if p.kind == "path" and p.allowed])
            changed = entry.server.after_call(entry.policy, rec.tool, rec.arguments)
            if changed is not None:
                entry.policy = changed
                entry.registration = entry.server.register_tools(changed, entry.catalog)
                entry.forget()
        return row

    def _why(self, why: str, kind: str, rec: RecordedCall, verdict: Any, entry: _Served,
             row: ShadowRow) -> str:
        """The sentence for a disagreement: which step decided differently, and the
        directory lists when the recorded refusal names the enforced one."""
        parts = [why]
        refused = next((p for p in verdict.paths if not p.allowed and not p.advisory), None)
        if kind == "answered_refused" and refused is not None:
            parts.append(f"the explorer refuses {refused.path} for {refused.op} "
                         f"({refused.reason})")
        elif kind == "refused_allowed":
            named = [p for p in verdict.paths if p.path and p.path in rec.text]
            target = named[0] if named else (verdict.paths[0] if verdict.paths else None)
            if target is not None:
                check = entry.policy.check(target.path, target.op)
                step = check.trace[-1] if check.trace else None
                how = f"{step.step}: {step.outcome}" if step is not None else target.reason
                parts.append(f"the explorer allows {target.path} for {target.op} ({how})")
        if rec.is_error:
            for relative, base in _resolved_against(rec.arguments or {}, rec.text):
                ours = _base_of(relative, verdict.paths)
                if ours is not None and base != ours:
                    parts.append(f"the server resolved {relative!r} against {base}, the "
                                 f"explorer against {ours}")
            lists = entry.server.refusal_directories(entry.policy, rec.text)
            if lists is not None and tuple(lists[0]) != tuple(lists[1]):
                row.enforced, row.configured = list(lists[0]), list(lists[1])
                parts.append(f"the server enforced [{', '.join(lists[0])}], the config "
                             f"has [{', '.join(lists[1])}] (a stale or replaced list)")
        return "; ".join(parts)


def _resolved_against(arguments: dict[str, Any], text: str) -> list[tuple[str, str]]:
    """``(relative path, directory)`` for each relative path argument that ``text`` names
    resolved: the directory the server resolved it against (its startup directory)."""
    found = []
    for value in arguments.values():
        if not isinstance(value, str) or not value or value.startswith(("/", "~", "\\")) \
                or _DRIVE.match(value) or "\n" in value:
            continue
        rel = value.removeprefix("./")
        m = re.search(r"((?:[A-Za-z]:)?[/\\][^\s:]*?)[/\\]" + re.escape(rel) + r"(?![^\s:,])",
                      text)
        if m:
            found.append((value, m.group(1)))
    return found


_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def _base_of(relative: str, paths: Iterable[Any]) -> str | None:
    """The directory the explorer resolved ``relative`` against (from its verdict)."""
    rel = relative.removeprefix("./")
    for p in paths:
        resolved = p.resolved or ""
        if p.path == relative and resolved.endswith("/" + rel):
            return resolved[:-len(rel) - 1] or "/"
    return None


def _recorded(rec: RecordedCall) -> str:
    """What the recording says the call got: a failure's text (shortened), or that it
    succeeded (a success's text is the tool's output, a file's contents, and not shown)."""
    if not rec.answered:
        return "(no answer)"
    if rec.is_error:
        text = rec.text if len(rec.text) <= _SHOWN else rec.text[:_SHOWN] + "…"
        return f"error: {text}"
    return "ok"


def _paths_of(arguments: dict[str, Any] | None) -> list[str]:
    """The string arguments that look like paths (before the probe says which it checks)."""
    if not arguments:
        return []
    out: list[str] = []
    for value in arguments.values():
        values = value if isinstance(value, list) else [value]
        out.extend(v for v in values if isinstance(v, str) and ("/" in v or "\\" in v))
    return out


def _flat(arguments: dict[str, Any]) -> str:
    """The arguments as one string: a key for calls made again, and where a cut shows."""
    return json.dumps(arguments, ensure_ascii=False, sort_keys=True)
