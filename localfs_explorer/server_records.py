"""The records the server contract passes, apart so that :mod:`localfs_explorer.server`
(where the contract is described, and from where these are imported) stays readable."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .vocab import Op

__all__ = [
    "CALL_OUTCOMES",
    "BasicVerdict",
    "CallAnswer",
    "CallCheck",
    "EnvControls",
    "ExposureScope",
    "ExposureWalk",
    "LaunchArgs",
    "Launcher",
    "LiveReport",
    "LiveTarget",
    "PolicyReach",
    "SettingField",
    "SuggestResult",
    "TraceLine",
    "Verdict",
]


# --- what a server answers ---------------------------------------------------------------


@runtime_checkable
class Verdict(Protocol):
    """A server's answer for one path and operation (see the module docstring, 3)."""

    @property
    def path(self) -> str: ...  # pragma: no cover - protocol

    @property
    def op(self) -> Op: ...  # pragma: no cover - protocol

    @property
    def allowed(self) -> bool: ...  # pragma: no cover - protocol

    @property
    def reason(self) -> str: ...  # pragma: no cover - protocol

    @property
    def message(self) -> str: ...  # pragma: no cover - protocol

    @property
    def resolved(self) -> str | None: ...  # pragma: no cover - protocol

    @property
    def hint(self) -> str: ...  # pragma: no cover - protocol

    @property
    def trace(self) -> Sequence[Any]: ...  # pragma: no cover - protocol

    def to_dict(self, *, other: Any = None) -> dict[str, Any]:
        """JSON-ready fields (``check --json``): the six above, ``trace`` as a list of
        ``{step, outcome, detail}`` and ``hint``. ``other`` is a batch
        (``many_checks()``) of the same policy that a server with two ways of checking
        may compare this answer with; others ignore it."""
        ...  # pragma: no cover - protocol


@dataclass(frozen=True)
class TraceLine:
    """One step of a check and what it found (the shape every server's trace shares)."""

    step: str
    outcome: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"step": self.step, "outcome": self.outcome, "detail": self.detail}


@dataclass(frozen=True)
class BasicVerdict:
    """A :class:`Verdict` with everything computed up front; build it by keyword."""

    path: str
    op: Op
    allowed: bool
    reason: str
    message: str
    resolved: str | None
    hint: str = ""
    trace: tuple[TraceLine, ...] = ()

    def to_dict(self, *, other: Any = None) -> dict[str, Any]:
        """JSON-ready fields (``other`` is ignored: one way of checking)."""
        return {
            "path": self.path, "op": self.op, "allowed": self.allowed,
            "reason": self.reason, "message": self.message, "resolved": self.resolved,
            "trace": [s.to_dict() for s in self.trace], "hint": self.hint,
        }


@dataclass(frozen=True)
class CallCheck:
    """One path check a tool call makes (see :class:`CallAnswer`).

    ``argument`` says where the path came from (``source``, ``paths[1]``, or for an
    entry a walk meets, the argument it was found under); ``kind`` is ``path`` for an
    argument and ``entry`` for a walked entry; ``step`` says how a refusal shows when it
    doesn't fail the call: ``item_error`` (an error line inside a successful result) or
    ``skipped`` (the entry is left out without a word); None: the refusal fails the call.
    """

    argument: str
    verdict: Verdict
    kind: str = "path"
    step: str | None = None


#: What a :class:`CallAnswer` may conclude (the probe's outcomes for a visible tool).
CALL_OUTCOMES = ("ok", "refused", "partial", "error")


@dataclass(frozen=True)
class CallAnswer:
    """A tool call's answer by the server's own rules (:meth:`Server.answer_call`).

    ``outcome`` is one of :data:`CALL_OUTCOMES`: ``refused`` (the call fails on a check
    or on the tool's own rule after its checks, e.g. a destination that exists),
    ``partial`` (it succeeds with per-item errors), ``error`` (the server rejects the
    call's arguments before any check) or ``ok``. ``message`` is exactly what the model
    gets: the error text when refused, the per-item error lines (one per line, as each
    appears inside the result) when partial, "" when ok. ``checks`` are every check
    made, in the order the server makes them; ``notes`` what the answer leaves out.
    """

    outcome: str
    message: str = ""
    checks: tuple[CallCheck, ...] = ()
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.outcome not in CALL_OUTCOMES:
            raise ValueError(f"a call answer's outcome is one of {', '.join(CALL_OUTCOMES)}")


class ExposureWalk(Protocol):
    """A server's own exposure walk (:meth:`Server.exposure_walk`).

    ``starts`` are the directories it walks when given no scope, resolved; ``walk`` is
    the inventory (a :class:`~localfs_explorer.exposure.Inventory`) of ``policy`` with
    ``scope`` walked besides them, ``limits`` being
    :func:`~localfs_explorer.exposure.exposure`'s keyword arguments.
    """

    def starts(self, policy: Any) -> list[str]: ...  # pragma: no cover - protocol

    def walk(self, policy: Any, scope: list[str] | None,
             **limits: Any) -> Any: ...  # pragma: no cover - protocol


@dataclass(frozen=True)
class ExposureScope:
    """What ``exposure`` walks for a server (:meth:`Server.exposure_scope`).

    ``starts`` are the directories a tool call can reach into, as the server allows them
    (both spellings of a directory given through a symlink; the walk resolves and walks
    each directory once); ``home`` is the server account's home directory, which the
    credential and start-up-file rules are read against; ``same_for_write`` says that
    the server's check doesn't depend on the operation, so the walk asks it once.
    """

    starts: tuple[str, ...]
    home: str
    #: The server's check gives the same verdict for read and write (the walk asks once).
    same_for_write: bool = False


@dataclass(frozen=True)
class EnvControls:
    """What the dashboard's policy bar edits in a server's ``.env``
    (:attr:`Server.env_controls`): one setting picked from a few words, and one holding
    a list of directories.

    ``choice`` is the setting picked from ``choices`` (the bar adds ``unset``, which
    takes it out of the file), with ``tooltips`` for ``unset`` and then each choice;
    ``entries`` the setting listing directories, edited as chips (``entry_word`` names
    one: ``root``), its entries separated by ``separators`` by the target's platform
    (``:`` on any other); ``everything_warning`` the HTML warning the bar shows while
    :meth:`Server.reach` says every file is reachable.
    """

    choice: str
    choices: tuple[str, ...]
    tooltips: tuple[str, ...]
    entries: str
    entry_word: str
    separators: Mapping[str, str] = field(default_factory=dict)
    everything_warning: str = ""

    def separator(self, platform: str) -> str:
        """How the entries are separated on ``platform``."""
        return self.separators.get(platform, ":")

    def split(self, raw: str | None, platform: str) -> list[str]:
        """The entries of a value, blanks dropped, spelling kept."""
        return [part for part in (raw or "").split(self.separator(platform))
                if part.strip()]


@dataclass(frozen=True)
class PolicyReach:
    """What a resolved policy lets the tools reach, as ``deployment`` states it
    (:meth:`Server.reach`).

    ``directories`` are the directories it allows, as the server resolves them (empty:
    it names none); ``label`` is how the server's own setting names the state (shown
    when there is no directory to list, or before them when every file is reachable);
    ``everything`` says why the tools may use any file the account can (empty: they may
    not); ``nothing`` that the server gives no local file access at all.
    """

    directories: tuple[str, ...] = ()
    label: str = ""
    everything: str = ""
    nothing: bool = False


@dataclass(frozen=True)
class LaunchArgs:
    """What a server's own command-line arguments say (:meth:`Server.read_args`).

    ``transport`` is the transport they select (None: not given); ``env`` the settings
    the server takes from its arguments over its environment, each with the option that
    gives it in ``env_from`` (mcp-gee-sweet's ``--include-tools`` is its
    ``ENABLED_TOOLS``); ``options`` the server's own options they give (the filesystem
    server's directories); ``notes`` what a reader should know (an argument the server
    reads otherwise than it looks).
    """

    transport: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    env_from: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    #: ``(setting, value)``: how each of ``options`` reads in a deployment's provenance
    #: (``allowed dir``, one a directory).
    shown: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Launcher:
    """How a client entry's command line is recognised as this server
    (:attr:`Server.launcher`); ``deployments`` peels the launchers off and asks each
    server's launcher.

    ``pypi``: its PyPI packages (``uvx``, ``uv tool run``, ``pipx run``, pinned as
    ``pkg@1.2`` or ``pkg==1.2``); ``modules``: what ``python -m`` runs (``module_note``
    is said when it is started that way, ``{program}`` and ``{module}`` filled in);
    ``npm``: its npm packages (``npx``, ``npm exec``, ``bunx``, ``pnpm dlx``); ``bins``:
    the programs that start it when run by name; ``scripts``: a word in the path of the
    script ``node`` or ``bun`` runs; ``images``: docker repositories ending so;
    ``image_names``: the last part of a docker repository naming it.
    """

    pypi: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    module_note: str = ""
    npm: tuple[str, ...] = ()
    bins: tuple[str, ...] = ()
    scripts: tuple[str, ...] = ()
    images: tuple[str, ...] = ()
    image_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class LiveTarget:
    """Where ``verify`` finds a running server (:meth:`Server.verify`).

    Either ``url`` (an HTTP endpoint; ``token`` its bearer token) or ``argv`` (a command
    line to start over stdio; ``command`` as the user wrote it, for messages; ``env``
    its environment, None: this process's; ``cwd`` its working directory, None: this
    one). ``timeout`` is how long to wait, in seconds (None: :attr:`Server.verify_timeout`).
    """

    url: str | None = None
    argv: tuple[str, ...] | None = None
    command: str | None = None
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    token: str | None = None
    timeout: float | None = None


class LiveReport(Protocol):
    """The outcome of :meth:`Server.verify`: do the running server and the prediction
    agree, the whole report as JSON-ready data, and as lines for people."""

    @property
    def agree(self) -> bool: ...  # pragma: no cover - protocol

    def to_dict(self) -> dict[str, Any]: ...  # pragma: no cover - protocol

    def lines(self) -> list[str]: ...  # pragma: no cover - protocol


class SuggestResult(Protocol):
    """What :meth:`Server.suggest` proposes: whether every required check passes
    (``ok``), JSON-ready data and lines for people. A server with a ``.env``
    (:attr:`Server.env_file`) also gives ``diff`` (the masked change, "" for none) and
    ``plan`` (the change to write, None when none could be planned)."""

    @property
    def ok(self) -> bool: ...  # pragma: no cover - protocol

    def to_dict(self) -> dict[str, Any]: ...  # pragma: no cover - protocol

    def lines(self) -> list[str]: ...  # pragma: no cover - protocol


@dataclass(frozen=True)
class SettingField:
    """One of a server's own settings as a form shows it (:attr:`Server.setting_fields`).

    ``key`` is the :attr:`Server.options_model` field it edits; ``kind`` how it is
    edited: ``paths`` an ordered list of paths without repeats (one added at a time,
    each removable), ``optional_lines`` a list given one entry a line that may be absent
    altogether (None: ``toggle`` unticked), ``text`` one value typed in a line (blank:
    not given, the server's default). ``label`` names it; ``help`` says what it
    does (the inputs' accessible names); ``placeholder`` shows in an empty input.
    """

    key: str
    label: str
    kind: str
    help: str
    placeholder: str = ""
    toggle: str = ""
