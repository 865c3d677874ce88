"""Approval sessions: a conversation's tool calls replayed through the approval gate.

A verdict of "held for approval" says a person is asked, not how often. This module
walks a whole conversation in order, with a simulated person answering the prompts, and
reports for every call whether the person is asked now or the call goes through on an
approval given earlier in the same answer.

A *session* is a list of answers (the model's turns, one per question the person asked),
each a list of tool calls as MCP ``tools/call`` params::

    [
      [{"name": "get_doc_content", "arguments": {"document_id": "d1", "local_path": "a.md"}},
       {"name": "get_doc_content", "arguments": {"document_id": "d1", "local_path": "a.md"}}],
      [{"name": "download_file", "arguments": {"file_id": "f1", "local_path": "a.md"},
        "approval": "deny"}]
    ]

Answers and calls are numbered from 1, the way a person counts turns, in error
messages, tables, JSON and the ``approvals`` mapping alike.

The approval ledger (the default :class:`LedgerRules`):

- An approval is remembered under the key (tool, operation, resolved target) of every
  local path the call touches; a call is covered when each of its keys is. Keying on the
  resolved target means two spellings of one file share an approval, while a spelling
  whose symlink now points elsewhere is a new target and asks again. A call that touches
  no local path is keyed on its whole arguments, so only an identical call reuses it.
- The ledger lasts until the end of the current answer: a second identical call in the
  same answer goes through, the next answer asks again.
- Destructive calls (the server's annotations mark the tool destructive, or, for a tool
  without annotations, its name says it deletes or moves something) skip the ledger
  entirely: they ask every time and their approval is never remembered, because consent
  to edit a file is not consent to remove or overwrite it.
- A refusal by the person is final for that call; the model is told so in the exact
  words of :data:`PERSON_REFUSAL`. A prompt nobody answers within the access lists'
  ``approval_timeout_seconds`` is a refusal too (:data:`TIMEOUT_REFUSAL`).
- An approval never overrides anything: a tool the access lists hide stays hidden, and
  an approved call still gets the file policy's verdict for every path.

The gate is modelled in front of the server (where tool access lists sit), so by default
the person is asked even for a call the file policy will then refuse; set
``LedgerRules(gate_checks_paths_first=True)`` for a gate that checks paths before its
dialog and never asks about a call that would be refused anyway.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..access import DEFAULT_APPROVAL_TIMEOUT_SECONDS, load_access
from ..catalog import Catalog, Tool
from ..probe import CallVerdict, PathVerdict, probe_call
from ..server import server_of
from ..vocab import Gate
from .session_file import (
    AnswerLike,
    ScriptedAnswer,
    Session,
    SessionCall,
    SessionError,
    load_session,
)

if TYPE_CHECKING:
    import pandas as pd

    from ..server import ServerPolicy as Policy

__all__ = [
    "PERSON_REFUSAL",
    "TIMEOUT_REFUSAL",
    "ApprovalLedger",
    "CallReplay",
    "LedgerRules",
    "Prompt",
    "ScriptedAnswer",
    "Session",
    "SessionCall",
    "SessionError",
    "SessionReplay",
    "SessionSummary",
    "approval_target",
    "call_keys",
    "is_destructive",
    "ledger_key",
    "load_session",
    "replay_session",
]

#: What the model is told when the person refuses a call. Final by design: a model that
#: reads a refusal as "try again" turns one "no" into a stream of prompts.
PERSON_REFUSAL = (
    "{name} was not run: the person refused to approve it. This refusal is final: do not "
    "call {name} again for this, and do not try to reach the same result another way."
)
#: What the model is told when nobody answers the prompt in time.
TIMEOUT_REFUSAL = (
    "{name} was not run: nobody answered the approval prompt within {seconds} seconds, "
    "which counts as a refusal. This refusal is final: do not call {name} again for this, "
    "and do not try to reach the same result another way."
)

#: How a call's approval was settled (see :class:`CallReplay`).
ApprovalDecision = Literal[
    "none", "approved", "covered", "refused", "timeout", "refused_earlier", "not_asked"
]
Status = Literal["executed", "held", "blocked"]
SessionOutcome = Literal["ok", "partial", "refused", "error", "absent", "declined"]
#: (tool, operation, target): what one approval is remembered under.
LedgerKey = tuple[str, str, str]
Position = tuple[int, int]

# Words in a tool name that mean it removes or relocates something (split on _ - . / and
# camelCase), for tools the catalog doesn't describe.
DEFAULT_DESTRUCTIVE_WORDS: tuple[str, ...] = (
    "delete", "remove", "rm", "rmdir", "unlink", "trash", "move", "mv", "rename",
)
# The operation a path-less call is remembered under; keyed on its whole arguments.
_WHOLE_CALL = "call"


# --- The ledger ------------------------------------------------------------------------------


class LedgerRules(BaseModel):
    """How approvals are remembered. The defaults are the per-answer ledger; each option is
    a place where a deployment may differ."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: How long an approval is remembered: to the end of the current answer, for the
    #: whole conversation, or not at all (every prompt is shown).
    lasts: Literal["answer", "conversation", "call"] = "answer"
    #: Destructive calls skip the ledger: asked every time, never remembered.
    destructive_asks_every_time: bool = True
    #: Words in a tool's name that make it destructive when the catalog doesn't say so.
    destructive_words: tuple[str, ...] = DEFAULT_DESTRUCTIVE_WORDS
    #: Refuse a repeat of a refused call without asking again (within the ledger's life).
    remember_refusals: bool = False
    #: The gate knows the file policy: a call it would refuse is refused without a prompt.
    gate_checks_paths_first: bool = False


def approval_target(path: PathVerdict) -> str:
    """What an approval for ``path`` is about: the file it resolves to.

    A path the policy couldn't resolve (off mode, a NUL byte) is marked as such, so it
    can never share an approval with a resolved file of the same spelling.
    """
    if path.resolved is not None:
        return path.resolved
    return f"unresolved:{path.path}"


def _shown_target(path: PathVerdict) -> str:
    """``op target`` as a prompt names it: the file the path resolves to."""
    if path.resolved is not None:
        return f"{path.op} {path.resolved}"
    return f"{path.op} {path.path} (unresolved)"


def ledger_key(tool: str, operation: str, target: str) -> LedgerKey:
    """The key one approval is remembered under."""
    return (tool, operation, target)


def _arguments_text(arguments: Mapping[str, Any]) -> str:
    try:
        return json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):  # built in Python with values JSON can't hold
        return repr(sorted(arguments.items(), key=lambda kv: str(kv[0])))


def _target_paths(verdict: CallVerdict) -> list[PathVerdict]:
    # The paths a prompt names: not walked entries (the folder stands for them) and not
    # guesses that never decide anything.
    return [p for p in verdict.paths if not p.advisory and p.kind != "entry"]


def call_keys(name: str, arguments: Mapping[str, Any], verdict: CallVerdict
              ) -> frozenset[LedgerKey]:
    """Every ledger key of one call: one per local path it touches, or its whole arguments."""
    keys = {ledger_key(name, p.op, approval_target(p)) for p in _target_paths(verdict)}
    if not keys:
        keys.add(ledger_key(name, _WHOLE_CALL, _arguments_text(arguments)))
    return frozenset(keys)


_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")


def is_destructive(name: str, tool: Tool | None, rules: LedgerRules) -> bool:
    """Whether a call to ``name`` removes, moves or overwrites something.

    The catalog's ``destructive`` flag decides for tools it describes. For the shipped
    catalog that flag is the server's own annotation (``readOnlyHint``/``destructiveHint``),
    which then settles it alone. For a tool without annotations, any tool whose name
    contains one of ``rules.destructive_words`` as a word is destructive too.
    """
    if tool is not None and tool.destructive:
        return True
    if tool is not None and tool.hints is not None:
        return False  # the server's annotations said: not destructive
    words = {w.lower() for w in _WORD_SPLIT.split(_CAMEL.sub(r"\1_\2", name)) if w}
    return bool(words & {w.lower() for w in rules.destructive_words})


class ApprovalLedger:
    """Approvals (and, optionally, refusals) remembered while replaying one conversation."""

    def __init__(self) -> None:
        self._approved: dict[LedgerKey, Position] = {}
        self._refused: dict[LedgerKey, Position] = {}

    def covering(self, keys: frozenset[LedgerKey]) -> Position | None:
        """The approval that covers every key (the latest needed), or None."""
        found = [self._approved.get(k) for k in keys]
        if not keys or any(f is None for f in found):
            return None
        return max(found)  # type: ignore[type-var]

    def refusal(self, keys: frozenset[LedgerKey]) -> Position | None:
        """An earlier refusal of any of these keys, or None."""
        found = [self._refused[k] for k in keys if k in self._refused]
        return min(found) if found else None

    def approve(self, keys: frozenset[LedgerKey], where: Position) -> None:
        """Remember an approval given at ``where``."""
        for key in keys:
            self._approved[key] = where

    def refuse(self, keys: frozenset[LedgerKey], where: Position) -> None:
        """Remember a refusal given at ``where``."""
        for key in keys:
            self._refused.setdefault(key, where)

    def forget(self) -> None:
        """End of the ledger's life: everything must be asked again."""
        self._approved.clear()
        self._refused.clear()

    def __len__(self) -> int:
        return len(self._approved)


# --- The replay --------------------------------------------------------------------------------


class Prompt(BaseModel):
    """What the person is shown: the call, the files it touches, how long they have."""

    model_config = ConfigDict(frozen=True)

    answer: int
    call: int
    name: str
    arguments: dict[str, Any] = Field(repr=False)
    #: ``op target`` for each local path the call touches (resolved).
    targets: tuple[str, ...]
    destructive: bool
    timeout_seconds: int
    #: The answer the session file scripts for this call, if any.
    scripted: ScriptedAnswer | None = None


class CallReplay(BaseModel):
    """One call of a replayed session.

    ``status``: ``blocked`` (the model can't see the tool), ``held`` (stopped at the
    approval gate: refused, unanswered) or ``executed`` (reached the server, whose own
    verdict is ``verdict``). ``decision``: ``none`` (no approval needed or possible),
    ``approved`` (asked, yes), ``covered`` (went through on the approval at
    ``covered_by``), ``refused`` / ``timeout`` (asked, no / no answer),
    ``refused_earlier`` (a remembered refusal, with ``remember_refusals``), or
    ``not_asked`` (the gate saw the file policy refuse it first). ``outcome`` is what the
    model gets: the server's ``ok``/``partial``/``refused``/``error``, ``absent`` for a
    hidden tool, ``declined`` when the person said no.
    """

    model_config = ConfigDict(frozen=True)

    answer: int
    call: int
    name: str
    visible: bool
    gate: Gate
    destructive: bool
    status: Status
    asked: bool
    decision: ApprovalDecision
    outcome: SessionOutcome
    reason: str
    #: The exact text the model gets back when the call doesn't run cleanly, else "".
    message: str = ""
    covered_by: Position | None = None
    #: ``op target`` for each local path, as the prompt names them.
    targets: tuple[str, ...] = ()
    verdict: CallVerdict

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON object ``localfs-explorer replay --json`` prints for this call."""
        return {
            "answer": self.answer,
            "call": self.call,
            "name": self.name,
            "visible": self.visible,
            "gate": self.gate,
            "destructive": self.destructive,
            "status": self.status,
            "asked": self.asked,
            "decision": self.decision,
            "outcome": self.outcome,
            "reason": self.reason,
            "message": self.message,
            "covered_by": list(self.covered_by) if self.covered_by else None,
            "targets": list(self.targets),
            "verdict": self.verdict.to_json_dict(),
        }


class SessionSummary(BaseModel):
    """Counts over a replay: how often a person is asked, and what got through."""

    model_config = ConfigDict(frozen=True)

    answers: int
    calls: int
    prompts: int
    #: Prompts shown in each answer, keyed by answer number (every answer listed).
    prompts_per_answer: dict[int, int]
    #: Calls that ran without a prompt on an earlier approval: (answer, call) -> approval.
    covered: dict[Position, Position]
    #: Calls the model can't make: the tool is hidden or not registered.
    blocked: list[Position]
    #: Calls the person refused or left unanswered.
    declined: list[Position]
    #: Calls that ran and that the file policy refused (wholly or partly) or couldn't model.
    refused_by_server: list[Position]

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready: positions as ``[answer, call]`` lists."""
        return {
            "answers": self.answers,
            "calls": self.calls,
            "prompts": self.prompts,
            "prompts_per_answer": {str(k): v for k, v in self.prompts_per_answer.items()},
            "covered": [{"call": list(k), "by": list(v)} for k, v in self.covered.items()],
            "blocked": [list(p) for p in self.blocked],
            "declined": [list(p) for p in self.declined],
            "refused_by_server": [list(p) for p in self.refused_by_server],
        }

    def to_text(self) -> str:
        """A few lines for people."""
        per = ", ".join(f"answer {a}: {n}" for a, n in self.prompts_per_answer.items())
        lines = [
            f"{self.calls} call(s) in {self.answers} answer(s); "
            f"{self.prompts} prompt(s) ({per or 'none'})",
        ]
        if self.covered:
            lines.append("ran on an earlier approval: " + ", ".join(
                f"{_pos(k)} (approved at {_pos(v)})" for k, v in self.covered.items()))
        for label, items in (("blocked (hidden from the model)", self.blocked),
                             ("declined by the person", self.declined),
                             ("refused by the server", self.refused_by_server)):
            if items:
                lines.append(f"{label}: " + ", ".join(_pos(p) for p in items))
        return "\n".join(lines)


def _pos(p: Position) -> str:
    return f"{p[0]}.{p[1]}"


#: DataFrame columns of :meth:`SessionReplay.to_dataframe`, in order.
COLUMNS: tuple[str, ...] = (
    "answer", "call", "name", "visible", "gate", "destructive", "status", "asked",
    "decision", "outcome", "covered_by", "targets", "reason", "message",
)


class SessionReplay(BaseModel):
    """A replayed session: one :class:`CallReplay` per call, in order."""

    model_config = ConfigDict(frozen=True)

    calls: list[CallReplay]
    answers: int
    rules: LedgerRules
    timeout_seconds: int

    def _repr_html_(self) -> str:
        """Rich display in a notebook (the dashboard's renderer)."""
        from ..render import replay_repr

        return replay_repr(self)

    def __iter__(self) -> Iterator[CallReplay]:  # type: ignore[override]
        return iter(self.calls)

    def __len__(self) -> int:
        return len(self.calls)

    def at(self, answer: int, call: int) -> CallReplay:
        """The call at (answer, call), numbered from 1."""
        for c in self.calls:
            if (c.answer, c.call) == (answer, call):
                return c
        raise KeyError(f"no call {answer}.{call} in this session")

    @property
    def all_ran(self) -> bool:
        """Every call reached the server and came back ``ok``."""
        return all(c.outcome == "ok" for c in self.calls)

    def summary(self) -> SessionSummary:
        """Prompts per answer, calls covered by an earlier approval, calls blocked."""
        per = dict.fromkeys(range(1, self.answers + 1), 0)
        for c in self.calls:
            if c.asked:
                per[c.answer] += 1
        return SessionSummary(
            answers=self.answers,
            calls=len(self.calls),
            prompts=sum(per.values()),
            prompts_per_answer=per,
            covered={(c.answer, c.call): c.covered_by for c in self.calls
                     if c.decision == "covered" and c.covered_by is not None},
            blocked=[(c.answer, c.call) for c in self.calls if c.status == "blocked"],
            declined=[(c.answer, c.call) for c in self.calls if c.outcome == "declined"],
            refused_by_server=[(c.answer, c.call) for c in self.calls
                               if c.outcome in ("refused", "partial", "error")],
        )

    def rows(self) -> list[dict[str, Any]]:
        """One plain dict per call, with the :data:`COLUMNS` keys."""
        return [{
            "answer": c.answer, "call": c.call, "name": c.name, "visible": c.visible,
            "gate": c.gate, "destructive": c.destructive, "status": c.status,
            "asked": c.asked, "decision": c.decision, "outcome": c.outcome,
            "covered_by": _pos(c.covered_by) if c.covered_by else None,
            "targets": "; ".join(c.targets), "reason": c.reason, "message": c.message,
        } for c in self.calls]

    def to_dataframe(self) -> pd.DataFrame:
        """One row per call with the :data:`COLUMNS` columns."""
        from ..optional import pandas  # only this view needs pandas

        pd = pandas("the replay DataFrame")

        return pd.DataFrame(self.rows(), columns=list(COLUMNS))


Approvals = AnswerLike | Mapping[Position, AnswerLike] | Callable[[Prompt], AnswerLike]


def _answerer(approvals: Any) -> Callable[[Prompt], ScriptedAnswer]:
    """Turn the ``approvals`` option into one function from a prompt to an answer."""
    if callable(approvals) and not isinstance(approvals, ScriptedAnswer):
        def ask(prompt: Prompt) -> ScriptedAnswer:
            try:
                return ScriptedAnswer.parse(approvals(prompt))
            except ValueError as exc:
                raise SessionError(f"answer {prompt.answer}, call {prompt.call}: {exc}") from None
        return ask
    is_blanket = isinstance(approvals, (str, ScriptedAnswer, tuple)) or (
        isinstance(approvals, Mapping) and "decision" in approvals
    )
    if is_blanket:
        try:
            blanket = ScriptedAnswer.parse(approvals)
        except ValueError as exc:
            raise SessionError(f"approvals: {exc}") from None
        return lambda prompt: prompt.scripted or blanket
    if isinstance(approvals, Mapping):
        by_position: dict[Position, ScriptedAnswer] = {}
        for key, value in approvals.items():
            if (not isinstance(key, tuple) or len(key) != 2
                    or not all(isinstance(i, int) and i >= 1 for i in key)):
                raise SessionError(
                    f"approvals: keys are (answer, call) numbered from 1, not {key!r}")
            try:
                by_position[key] = ScriptedAnswer.parse(value)
            except ValueError as exc:
                raise SessionError(f"approvals[{key!r}]: {exc}") from None
        default = ScriptedAnswer(decision="approve")
        return lambda prompt: (by_position.get((prompt.answer, prompt.call))
                               or prompt.scripted or default)
    raise SessionError(
        "approvals must be 'approve', 'deny', 'timeout', a mapping of (answer, call) to "
        f"answers, or a function of a Prompt; not {type(approvals).__name__}"
    )


def _server_reason(verdict: CallVerdict) -> str:
    """The server's side of a call that ran, in a few words."""
    if verdict.outcome == "ok":
        return "the server runs it"
    if verdict.outcome == "error":
        return f"the probe can't model it: {verdict.message}"
    refused = sorted({p.reason for p in verdict.paths if not p.allowed and not p.advisory})
    which = ", ".join(refused) or "a path"
    if verdict.outcome == "partial":
        return f"the server runs it, some items refused ({which})"
    return f"the file policy refuses it ({which})"


def _hidden_reason(verdict: CallVerdict, access: Any) -> str:
    if verdict.registered and access is not None:
        # explain() opens with "blocked: "; say it once, as "hidden from the model".
        why = access.explain(verdict.name).removeprefix("blocked: ")
        return f"hidden from the model: {why}"
    notes = [n for n in verdict.notes if not n.startswith("the server would exit")]
    return "hidden from the model: " + ("; ".join(notes) or "not registered")


def replay_session(
    policy: Policy,
    session: Session | str | os.PathLike[str] | Sequence[Any] | Mapping[str, Any],
    *,
    access: Any = None,
    approvals: Approvals = "approve",
    rules: LedgerRules | None = None,
    catalog: Catalog | None = None,
    over_http: bool | None = None,
    walk_limit: int = 10000,
    before_call: Callable[[int, int, SessionCall], None] | None = None,
) -> SessionReplay:
    """Walk a conversation's calls in order through the approval gate and the file policy.

    Args:
        policy: the resolved server policy.
        session: a :class:`Session`, a session file, or the lists to build one from.
        access: tool access lists (a ``ToolAccess``, a hangar route's ``HangarAccess``,
            or a file/mapping to load): which tools are hidden, which are held, and how
            long a prompt waits (per tool, for a hangar route).
        approvals: the simulated person. ``"approve"``, ``"deny"`` or ``"timeout"`` (or a
            :class:`ScriptedAnswer`) answers every prompt the session doesn't script
            itself; a mapping ``{(answer, call): answer}`` answers by position (others
            use the session's own answer, else approve); a function of a :class:`Prompt`
            answers everything.
        rules: the ledger's rules; :class:`LedgerRules` defaults when None.
        catalog: the server's tools (the shipped catalog by default).
        over_http: whether requests arrive over HTTP; None means by transport.
        walk_limit: passed to :func:`~localfs_explorer.probe.probe_call`.
        before_call: called with ``(answer, call, SessionCall)`` before each call is
            judged, e.g. to change the host between calls the way a tool would.

    Returns:
        A :class:`SessionReplay`. Raises :class:`SessionError` for a malformed session
        or approvals script.
    """
    session = load_session(session)
    rules = rules or LedgerRules()
    server = server_of(policy)
    catalog = catalog or server.catalog()
    registration = server.register_tools(policy, catalog)
    # A ToolAccess, or a hangar route (HangarAccess); anything else is a file or mapping.
    tool_access: Any = access
    if tool_access is not None and not hasattr(tool_access, "gate"):
        tool_access = load_access(tool_access)
    timeout = tool_access.approval_timeout_seconds if tool_access is not None else (
        DEFAULT_APPROVAL_TIMEOUT_SECONDS)
    # Hangar waits per tool (the policy of the first scope that holds it).
    timeout_for = getattr(tool_access, "timeout_for", None)
    ask = _answerer(approvals)
    ledger = ApprovalLedger()
    replayed: list[CallReplay] = []
    current_answer = 0
    for a, c, call in session.iter_calls():
        if a != current_answer and rules.lasts != "conversation":
            ledger.forget()  # a new answer: every approval must be given again
        current_answer = a
        if before_call is not None:
            before_call(a, c, call)
        verdict = probe_call(
            policy, call.name, call.arguments, over_http=over_http, access=tool_access,
            catalog=catalog, registration=registration,
            expected_paths=call.expected_paths, walk_limit=walk_limit,
            drive_names=call.drive_names,
        )
        replayed.append(_judge(
            a, c, call, verdict, tool_access, rules, ledger, ask,
            timeout_for(call.name) if timeout_for is not None else timeout,
            is_destructive(call.name, catalog.get(call.name), rules),
        ))
    return SessionReplay(calls=replayed, answers=len(session.answers), rules=rules,
                         timeout_seconds=timeout)


def _judge(
    a: int, c: int, call: SessionCall, verdict: CallVerdict, access: Any,
    rules: LedgerRules, ledger: ApprovalLedger, ask: Callable[[Prompt], ScriptedAnswer],
    timeout: int, destructive: bool,
) -> CallReplay:
    """Settle one call's approval and say what the model gets."""
    targets = tuple(_shown_target(p) for p in _target_paths(verdict))
    base: dict[str, Any] = dict(
        answer=a, call=c, name=call.name, visible=verdict.visible, gate=verdict.gate,
        destructive=destructive, targets=targets, verdict=verdict)

    def ran(decision: ApprovalDecision, asked: bool, why: str,
            covered_by: Position | None = None) -> CallReplay:
        server = _server_reason(verdict)
        return CallReplay(**base, status="executed", asked=asked, decision=decision,
                          outcome=verdict.outcome,
                          reason=f"{why}; {server}" if why else server,
                          message=verdict.message, covered_by=covered_by)

    def held(decision: ApprovalDecision, asked: bool, why: str, message: str) -> CallReplay:
        return CallReplay(**base, status="held", asked=asked, decision=decision,
                          outcome="declined", reason=why, message=message)

    if not verdict.visible:
        # Consent can't reach a tool the model never sees: no prompt, nothing runs.
        return CallReplay(**base, status="blocked", asked=False, decision="none",
                          outcome="absent", reason=_hidden_reason(verdict, access))
    if verdict.gate == "execute":
        return ran("none", False, "")
    if rules.gate_checks_paths_first and verdict.outcome in ("refused", "error"):
        return ran("not_asked", False, "not asked: the gate saw the server would refuse it")

    keys = call_keys(call.name, call.arguments, verdict)
    every_time = destructive and rules.destructive_asks_every_time
    final = PERSON_REFUSAL.format(name=call.name)
    if rules.remember_refusals:
        earlier = ledger.refusal(keys)
        if earlier is not None:
            return held("refused_earlier", False,
                        f"refused without asking: the person refused it at {_pos(earlier)}",
                        final)
    if not every_time and rules.lasts != "call":
        covered = ledger.covering(keys)
        if covered is not None:
            return ran("covered", False, f"approved earlier in this answer at {_pos(covered)}",
                       covered_by=covered)

    answer = ask(Prompt(answer=a, call=c, name=call.name, arguments=call.arguments,
                        targets=targets, destructive=destructive, timeout_seconds=timeout,
                        scripted=call.approval))
    settled = answer.settle(timeout)
    asked_why = "destructive, asked every time" if every_time else "asked"
    if settled == "approve":
        if not every_time and rules.lasts != "call":
            ledger.approve(keys, (a, c))
        return ran("approved", True, f"{asked_why}: approved")
    if rules.remember_refusals:
        ledger.refuse(keys, (a, c))
    if settled == "timeout":
        return held("timeout", True, f"{asked_why}: no answer within {timeout} s",
                    TIMEOUT_REFUSAL.format(name=call.name, seconds=timeout))
    return held("refused", True, f"{asked_why}: refused by the person", final)
