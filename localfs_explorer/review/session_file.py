"""A session file: the answers a model gave, each a list of tool calls, and the person's
scripted replies to the approval prompts they raise.

Read here (:func:`load_session`), replayed by :mod:`.sessions`. Every problem is a
:class:`SessionError` naming the file, the answer and the call.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import LocalfsError
from ..userfiles import parse_json, read_text

#: What the person does with an approval prompt.
Person = Literal["approve", "deny", "timeout"]


class SessionError(LocalfsError):
    """A session that can't be replayed; the message names the file, answer and call."""


# --- The simulated person -----------------------------------------------------------------


class ScriptedAnswer(BaseModel):
    """How the simulated person answers one prompt.

    ``after_seconds`` is how long they take; an answer arriving later than the access
    lists' ``approval_timeout_seconds`` is never seen, so it counts as ``timeout``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    decision: Person
    after_seconds: float | None = Field(default=None, ge=0)

    @classmethod
    def parse(cls, value: Any) -> ScriptedAnswer:
        """From ``"approve"``/``"deny"``/``"timeout"``, ``(decision, seconds)``, a mapping or
        a :class:`ScriptedAnswer`; raises ``ValueError`` with a readable message."""
        if isinstance(value, ScriptedAnswer):
            return value
        if isinstance(value, bool) or value is None:
            raise ValueError(f"an approval answer is 'approve', 'deny' or 'timeout', not {value!r}")
        if isinstance(value, str):
            value = {"decision": value}
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = {"decision": value[0], "after_seconds": value[1]}
        if not isinstance(value, Mapping):
            raise ValueError(f"an approval answer is 'approve', 'deny' or 'timeout', not {value!r}")
        try:
            return cls.model_validate(dict(value))
        except ValidationError as exc:
            raise ValueError(_first_problem(exc)) from None

    def settle(self, timeout_seconds: int) -> Person:
        """The answer as the gate sees it, given how long it waits."""
        if self.after_seconds is not None and self.after_seconds > timeout_seconds:
            return "timeout"
        return self.decision


AnswerLike = str | ScriptedAnswer | Mapping[str, Any] | tuple[str, float]


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors()[0]
    loc = ".".join(str(p) for p in error["loc"])
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "literal_error":
        message = f"must be 'approve', 'deny' or 'timeout', not {error.get('input')!r}"
    return f"{loc}: {message}" if loc else message


# --- The session ----------------------------------------------------------------------------


class SessionCall(BaseModel):
    """One tool call: MCP ``tools/call`` params, plus what the replay may be told about it.

    ``approval`` scripts the person's answer to this call's prompt (it wins over a blanket
    ``approvals`` answer); ``expected_paths`` and ``drive_names`` go to
    :func:`~localfs_explorer.probe.probe_call`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict, repr=False)
    approval: ScriptedAnswer | None = None
    expected_paths: tuple[str, ...] = ()
    drive_names: tuple[str, ...] | None = None
    meta: dict[str, Any] | None = Field(default=None, alias="_meta", repr=False)

    @field_validator("arguments", mode="before")
    @classmethod
    def _arguments(cls, value: Any) -> Any:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise ValueError(f"must be an object, not {type(value).__name__}")
        return value

    @field_validator("approval", mode="before")
    @classmethod
    def _approval(cls, value: Any) -> Any:
        return None if value is None else ScriptedAnswer.parse(value)


class Session(BaseModel):
    """A conversation: answers in order, each a list of calls in order."""

    model_config = ConfigDict(frozen=True)

    answers: tuple[tuple[SessionCall, ...], ...] = ()
    description: str = ""
    #: The file it was read from, for messages.
    source: str | None = None

    def iter_calls(self) -> Iterator[tuple[int, int, SessionCall]]:
        """``(answer, call, SessionCall)`` for every call, numbered from 1."""
        for a, answer in enumerate(self.answers, start=1):
            for c, call in enumerate(answer, start=1):
                yield a, c, call

    def __len__(self) -> int:
        return sum(len(answer) for answer in self.answers)


_CALL_KEYS = ("name", "arguments", "approval", "expected_paths", "drive_names", "_meta")


def _parse_call(raw: Any, where: str) -> SessionCall:
    if isinstance(raw, SessionCall):
        return raw
    if isinstance(raw, Mapping) and "name" not in raw and isinstance(raw.get("params"), Mapping):
        raw = raw["params"]  # a whole JSON-RPC tools/call request
    if not isinstance(raw, Mapping):
        raise SessionError(
            f"{where}: a call is an object with a 'name' and an 'arguments' object, "
            f"not {type(raw).__name__}"
        )
    unknown = [k for k in raw if k not in _CALL_KEYS]
    if unknown:
        # A misspelt "approval" would otherwise silently fall back to the default answer.
        raise SessionError(
            f"{where}: unknown key(s) {', '.join(repr(k) for k in unknown)} "
            f"(a call may have {', '.join(_CALL_KEYS)})"
        )
    if not isinstance(raw.get("name"), str) or not raw.get("name"):
        raise SessionError(f"{where}: a call needs a non-empty 'name' string")
    where = f"{where} ({raw['name']})"
    try:
        return SessionCall.model_validate(dict(raw))
    except ValidationError as exc:
        raise SessionError(f"{where}: {_first_problem(exc)}") from None


def _parse_answers(raw: Any, source: str | None) -> Session:
    prefix = f"{source}: " if source else ""
    description = ""
    if isinstance(raw, Mapping):
        unknown = [k for k in raw if k not in ("answers", "description")]
        if unknown or "answers" not in raw:
            raise SessionError(
                f"{prefix}a session is a list of answers, or an object with an 'answers' "
                "list (and optionally a 'description')"
            )
        description = raw.get("description") or ""
        if not isinstance(description, str):
            raise SessionError(f"{prefix}'description' must be a string")
        raw = raw["answers"]
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
        raise SessionError(f"{prefix}a session is a list of answers, each a list of calls")
    answers = []
    for a, answer in enumerate(raw, start=1):
        if isinstance(answer, (str, bytes, Mapping)) or not isinstance(answer, Sequence):
            raise SessionError(
                f"{prefix}answer {a}: an answer is a list of calls, not {type(answer).__name__}"
            )
        answers.append(tuple(
            _parse_call(call, f"{prefix}answer {a}, call {c}")
            for c, call in enumerate(answer, start=1)
        ))
    return Session(answers=tuple(answers), description=description, source=source)


def load_session(source: str | os.PathLike[str] | Sequence[Any] | Mapping[str, Any] | Session
                 ) -> Session:
    """Read a session from a JSON file, or build it from Python lists.

    ``source`` is a path, a list of answers (each a list of call objects), an object
    ``{"answers": [...], "description": "..."}``, or a :class:`Session` (returned as is).
    Raises :class:`SessionError` naming the file, answer and call of anything malformed.
    """
    if isinstance(source, Session):
        return source
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        raw = parse_json(read_text(path, SessionError), path, SessionError)
        return _parse_answers(raw, str(path))
    return _parse_answers(source, None)
