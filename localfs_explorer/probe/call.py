"""One tool call: its registration, its access gate, every path it touches, its outcome.

:class:`_CallProbe` follows one call the way the tool's code in the server does; the
folder walks it starts are in :mod:`.walk`, image sources in :mod:`.images`.
"""

from __future__ import annotations

import functools
import posixpath
import stat as _stat
import string
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from ..catalog import (
    Catalog,
    PathParam,
    Registration,
    Tool,
    locations,
)
from ..discovery import DiscoveryError, DiscoveryLimits, discover_paths, nothing_to_find
from ..sensitive import SensitivePatternsError, check_extra_patterns, sensitive_advice
from ..server import server_of
from ..vocab import Gate, Outcome
from .images import extract_image_sources
from .records import CallVerdict, PathVerdict, ProbeError
from .tool_paths import (
    DriveTree,
    _absolute,
    _child,
    _is_file,
    _safe_filename,
    _spelled,
    _unsafe_name,
)
from .walk import run_drive_files, run_sync, run_top_files, run_walk

if TYPE_CHECKING:
    from ..access import ToolAccess
    from ..server import CallAnswer
    from ..server import ServerPolicy as Policy
    from ..server import Verdict as Decision


@functools.lru_cache(maxsize=8192)
def _sensitive_advice(
    path: str, resolved: str | None, home: str, cwd: str, extra: tuple[str, ...] = ()
) -> str | None:
    """Sensitive-file advice for a checked path (None: nothing to say).

    The spelling as given is asked first (``id_rsa`` linking to a blob), then the
    resolved path, which catches a symlink to a key and names both paths. A pure
    function of strings, and batches repeat paths: answers are remembered.
    """
    return sensitive_advice(path, resolved, home=home, cwd=cwd, extra=extra)


#: Discovery's bounds, one object for every call: building it is a noticeable share of
#: a small call's discovery.
_LIMITS = DiscoveryLimits()


def _home(policy: Policy) -> str:
    """The home directory ``~`` means for the server (its HOME, else the account's)."""
    # Asked once per path and slow on its own (a password-database lookup): remember it
    # per policy object, keeping the policy alive so its id can't be reused meanwhile.
    cached = _HOMES.get(id(policy))
    if cached is not None and cached[0] is policy:
        return cached[1]
    home = policy.env.get("HOME") or policy.fs.home()
    if len(_HOMES) > 32:
        _HOMES.clear()
    _HOMES[id(policy)] = (policy, home)
    return home


_HOMES: dict[int, tuple[Any, str]] = {}


def _suffix(path: str) -> str:
    """``PurePosixPath(path).suffix`` without building the path object."""
    name = path.rpartition("/")[2]
    if not name or name.endswith("."):
        return PurePosixPath(path).suffix  # a trailing '/' or '.': pathlib's own rules
    dot = name.rfind(".")
    return name[dot:] if dot > 0 else ""


class _CallProbe:
    """The state of probing one call: the verdicts so far and the first refusal."""

    __slots__ = (
        "arguments", "check", "cwd", "drive", "drive_names", "error", "expected_paths",
        "extra_sensitive", "home", "item_errors", "name",
        "notes", "over_http", "partial", "paths", "policy", "refusal", "tool", "walk_limit",
    )

    def __init__(
        self,
        policy: Policy,
        name: str,
        tool: Tool | None,
        arguments: Mapping[str, Any],
        over_http: bool | None,
        walk_limit: int,
        drive_names: Sequence[str] | None,
        expected_paths: Sequence[str],
    ) -> None:
        self.policy = policy
        self.name = name
        self.tool = tool
        self.arguments = arguments
        self.over_http = over_http
        self.walk_limit = walk_limit
        self.drive = DriveTree.from_names(drive_names) if drive_names is not None else None
        self.drive_names = list(drive_names) if drive_names is not None else None
        self.expected_paths = tuple(expected_paths)
        self.paths: list[PathVerdict] = []
        self.notes: list[str] = []
        if self.drive is not None and self.drive.unsafe:
            self.notes.append(
                "skipped as unsafe Drive names (they would leave the destination): "
                + ", ".join(self.drive.unsafe)
            )
        self.refusal: str | None = None
        self.partial = False
        #: The per-item error lines a partial call's result carries, when the server
        #: reports them (one per line; "" otherwise).
        self.item_errors = ""
        self.error: str | None = None
        self.home = _home(policy)
        self.cwd = policy.cwd
        #: The operator's extra sensitive-name globs (checked once per batch).
        self.extra_sensitive: tuple[str, ...] = ()
        # Policy.check itself, bound once: a call checks several paths.
        self.check = (
            policy.check if over_http is None
            else functools.partial(policy.check, over_http=over_http)
        )

    # -- recording --

    def record(
        self,
        d: Decision,
        argument: str,
        *,
        kind: str,
        tier: str = "catalog",
        step: str | None = None,
        advisory: bool = False,
        sensitive: str | None = None,
        fails_call: bool = True,
    ) -> PathVerdict:
        """Add one verdict; a refusal either fails the call or makes it partial."""
        allowed = d.allowed
        v = PathVerdict(
            argument, d.path, d.resolved, d.op, tier, allowed, d.reason, d.message,
            sensitive if sensitive is not None
            else _sensitive_advice(d.path, d.resolved, self.home, self.cwd,
                                   self.extra_sensitive),
            kind, None if allowed else step, advisory,
        )
        self.paths.append(v)
        if not allowed and not advisory:
            if fails_call:
                if self.refusal is None:
                    self.refusal = d.message
            else:
                self.partial = True
        return v

    def take(self, answer: CallAnswer) -> set[str]:
        """Record a server's own answer to the call (:meth:`Server.answer_call`);
        returns the paths checked."""
        checked: set[str] = set()
        for c in answer.checks:
            d = c.verdict
            checked.add(d.path)
            self.paths.append(PathVerdict(
                c.argument, d.path, d.resolved, d.op, "catalog", d.allowed, d.reason,
                d.message,
                _sensitive_advice(d.path, d.resolved, self.home, self.cwd,
                                  self.extra_sensitive),
                c.kind, None if d.allowed else c.step, False,
            ))
        self.notes.extend(answer.notes)
        if answer.outcome == "refused":
            self.refusal = answer.message
        elif answer.outcome == "error":
            self.fail(answer.message)
        elif answer.outcome == "partial":
            self.partial = True
            self.item_errors = answer.message
        return checked

    # -- the tool's own parameters --

    def fail(self, message: str) -> None:
        """The call's own error, as the tool reports it (the first one stands)."""
        if self.error is None:
            self.error = message

    @property
    def done(self) -> bool:
        """The call has already failed or been refused: nothing after runs."""
        return self.error is not None or self.refusal is not None

    def arg(self, name: str) -> Any:
        """An argument as the tool sees it: the call's value, else the server's default."""
        if name in self.arguments:
            return self.arguments[name]
        for a in (self.tool.arguments or ()) if self.tool is not None else ():
            if a.name == name:
                return a.default
        return None

    def run_params(self, tool: Tool) -> set[str]:
        """Check every catalog parameter the way the tool does; returns the paths checked."""
        checked: set[str] = set()
        tier = "guess" if tool.guessed else "catalog"
        if tool.direction is not None and any(p.op == "direction" for p in tool.params):
            run_sync(self, tool, checked)
            return checked
        # Entry checks run first: the server makes them before any API call.
        for param in tool.params_in_check_order:
            if self.done:
                break
            shape = locations.shape(param.location)
            if shape is not None and shape.kind == "list_of_objects":
                self.run_items(tool, param, shape, tier, checked)
                continue
            values = locations.values_at(self.arguments, param.location)
            if shape is None or shape.kind == "list" or len(values) > 1:
                # A list of paths (``paths[]``) or a nested one: each value is checked.
                for label, value in values:
                    if self.done:
                        break
                    if isinstance(value, str):
                        checked.add(value)
                    self.run_path(tool, param, label, value, tier)
                continue
            value = values[0][1] if values else None
            if param.optional and (value is None or value == ""):
                # The server's `if local_path:`: an empty string is not given.
                continue
            if not values:
                if not param.optional:
                    self.fail(
                        f"{tool.name}: required argument {param.location} is missing; "
                        "the server would reject the call before touching any file"
                    )
                continue
            label = values[0][0]
            if not isinstance(value, str):
                if param.walks:
                    self.fail(f"{tool.name}: {label} must be a string")
                else:
                    d = self.check(value, param.op)  # type: ignore[arg-type]  # direction: run_sync
                    self.record(d, label, kind="path", tier=tier)
                continue
            checked.add(value)
            if param.walk == "top_files":
                run_top_files(self, tool, label, value, tier)
            elif param.walk == "drive_files":
                run_drive_files(self, tool, label, value, tier)
            elif param.walks:
                run_walk(self, param, label, value, tier)
            else:
                self.run_path(tool, param, label, value, tier)
        return checked

    def run_path(self, tool: Tool, param: PathParam, label: str, value: str, tier: str) -> None:
        """One path argument: its check, then what the tool wants of it."""
        d = self.check(value, param.op)  # type: ignore[arg-type]  # direction: run_sync
        self.record(d, label, kind="path", tier=tier)
        if not d.allowed or not isinstance(value, str):
            return
        if param.requires is not None and not self._requires(tool, param.requires, label, value):
            return
        if param.suffixes and not (param.suffix_unless and self.arg(param.suffix_unless)):
            suffix = _suffix(value)
            if suffix.lower() not in param.suffixes:
                if param.suffix_error:  # the tool's own words, from the catalog
                    self.fail(param.suffix_error.format(suffix=suffix,
                                                        suffix_lower=suffix.lower()))
                else:
                    self.fail(f"{tool.name}: unsupported file extension {suffix!r} at "
                              f"{label} (the tool takes {', '.join(param.suffixes)})")
                return
        if param.op == "write":
            self.run_destination(tool, param, label, value, tier)

    def _requires(self, tool: Tool, what: str, label: str, value: str) -> bool:
        try:
            mode: int | None = self.policy.fs.stat(_absolute(self.policy, value)).st_mode
        except (OSError, ValueError):
            mode = None
        if what == "dir":
            ok = mode is not None and _stat.S_ISDIR(mode)
            problem = "no directory found at"
        else:
            ok = mode is not None
            problem = "file not found:"
            if ok and what == "file":
                ok = _stat.S_ISREG(mode or 0)
                problem = "no regular file at"
        if not ok:
            self.fail(f"{tool.name}: {problem} {value!r} ({label}); the tool reports it as "
                      "its own error after the path check")
        return ok

    def listdir(self, absolute: str) -> list[str]:
        try:
            return sorted(self.policy.fs.listdir(absolute))
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            self.notes.append(f"can't list {absolute}: {reason}")
            return []

    def _blocker(self, value: str, wants_dir: bool) -> str | None:
        """What stops ``value`` from being written: a non-directory where a directory
        must be (or a symlink to nothing), as the server checks before writing."""
        fs = self.policy.fs
        dest = _spelled(_absolute(self.policy, value))  # as pathlib spells it
        if wants_dir:
            sp = dest
        elif fs.is_symlink(dest) and not fs.exists(dest):
            return dest
        else:
            sp = posixpath.dirname(dest)
        while True:
            try:  # the nearest existing component: one stat in the usual case
                mode = fs.stat(sp).st_mode
            except (OSError, ValueError):
                if fs.is_symlink(sp):
                    return sp  # a symlink to nothing: mkdir can't go through it
                parent = posixpath.dirname(sp)
                if parent == sp:
                    return None
                sp = parent
                continue
            return None if _stat.S_ISDIR(mode) else sp

    def blocked(self, tool: Tool, label: str, value: str, wants_dir: bool) -> bool:
        blocker = self._blocker(value, wants_dir)
        if blocker is not None:
            self.fail(f"{tool.name}: {label} {value!r} can't be written: {blocker!r} is not "
                      "a directory (the tool's own error)")
        return blocker is not None

    def _default_name(self, template: str) -> str | None:
        """The default file name for this call, or None when an argument it needs is missing."""
        values: dict[str, str] = {}
        for _, field, _, _ in string.Formatter().parse(template):
            if not field:
                continue
            if field == "drive_name":
                names = [n for n in self.drive_names or () if not n.endswith("/")]
                if len(names) != 1:
                    return None
                values[field] = names[0]
                continue
            value = self.arg(field)
            if value is None:
                return None
            values[field] = str(value)
        return template.format_map(values)

    def run_destination(self, tool: Tool, param: PathParam, label: str, value: str,
                        tier: str) -> None:
        """A destination that passed its check: the tool's own blocker check, and the
        default file name joined onto a directory, checked again."""
        wants_dir = posixpath.basename(value) in ("", ".", "..")
        if self.blocked(tool, label, value, wants_dir):
            return
        if param.default_name is None:
            return
        if not (wants_dir or self.policy.fs.is_dir(_absolute(self.policy, value))):
            return
        name = self._default_name(param.default_name)
        if name is None:
            self.notes.append(
                f"{label} is a directory: the server writes a file named "
                f"{param.default_name} inside it and checks that too, but this call doesn't "
                "give what the name is made of"
            )
            return
        if param.default_name == "{drive_name}":
            if _unsafe_name(name):
                self.fail(f"{tool.name}: the Drive file name {name!r} can't be used as a "
                          "local file name; pass a full file path as local_path")
                return
        else:
            name = _safe_filename(name)
        target = _child(_spelled(value), name)
        d = self.check(target, "write")
        self.record(d, label, kind="path", tier=tier)
        if d.allowed:
            fs, absolute = self.policy.fs, _absolute(self.policy, target)
            if fs.is_dir(absolute) or (fs.is_symlink(absolute) and not fs.exists(absolute)):
                self.fail(f"{tool.name}: {target!r} can't be written: a directory or a "
                          "symlink to nothing is there (the tool's own error)")

    def run_items(self, tool: Tool, param: PathParam, shape: locations.Shape, tier: str,
                  checked: set[str]) -> None:
        """A path in each item of a list: attachments (a refusal fails the call) or
        images (a refusal fails that image)."""
        name, key = shape.argument, shape.key
        items = self.arguments.get(name)
        if not isinstance(items, (list, tuple)):
            return
        if param.item_requires and not items:
            self.fail(f"{name} list is empty")  # the tool's own words
            return
        if param.needs_any and not any(
            self.policy.env.get(n[1:]) if n.startswith("$") else self.arg(n)
            for n in param.needs_any
        ):
            # The tool's own words; the catalog names the argument first.
            self.fail(f"{param.needs_any[0]} is required (no server default folder "
                      "configured)")
            return
        # The alternative is in the plain form (the catalog checks it): its last step is a key.
        alt_key = (str(locations.parse_location(param.alternative)[-1])
                   if param.alternative else None)
        kind = "attachment" if alt_key else "image" if not param.fails_call else "path"
        for i, item in enumerate(items):
            if self.done:
                return
            if not isinstance(item, Mapping):
                continue
            label = f"{name}[{i}].{key}"
            missing = [r for r in param.item_requires if not item.get(r)]
            if missing:
                self.notes.append(f"{name}[{i}] fails without a check: missing {missing[0]!r}")
                continue
            value = item.get(key)
            if not value:
                if alt_key and item.get(alt_key):
                    self.notes.append(
                        f"{name}[{i}].{alt_key} is used instead of a local path: no file is read")
                elif alt_key:
                    self.fail(f"{tool.name}: {name}[{i}] needs either {key} or {alt_key}")
                else:
                    self.notes.append(f"{name}[{i}] fails without a check: missing {key!r}")
                continue
            if isinstance(value, str):
                checked.add(value)
            d = self.check(value, param.op)  # type: ignore[arg-type]  # direction: run_sync
            self.record(d, label, kind=kind, tier=tier, step="failed",
                        fails_call=param.fails_call)
            if d.allowed and param.requires is not None:
                if param.fails_call:
                    self._requires(tool, param.requires, label, value)
                elif not _is_file(self.policy.fs, _absolute(self.policy, value)):
                    self.notes.append(f"{label}: no file at {value!r}; that item fails")

    # -- folder walks --

    def note_dry_run(self) -> None:
        if self.arguments.get("dry_run") is True:
            self.notes.append(
                "dry run: refused entries appear in the preview exactly as a real run "
                "reports them"
            )

    def walk_stopped(self, label: str, count: int) -> None:
        self.notes.append(f"walk of {label} stopped after {count} entries (walk_limit); "
                          "entries beyond it were not checked")

    def run_images(self, tool: Tool) -> None:
        tier = "guess" if tool.guessed else "catalog"
        content_format = self.arg("content_format")
        for ip in tool.image_params:
            for label, value in locations.iter_values(self.arguments, ip.location):
                if ip.in_file:
                    self.notes.append(
                        f"local images inside the file at {label} are checked one by one "
                        "when the server reads it; the probe doesn't read file contents"
                    )
                    continue
                if not isinstance(value, str):
                    continue
                for src in extract_image_sources(value, content_format):
                    # A refused image fails that image only; the document is still written.
                    self.record(
                        self.check(src, "read"), label, kind="image", tier=tier,
                        step="failed", fails_call=False,
                    )

    # -- everything the catalog doesn't describe --

    def run_discovery(self, skip: Iterable[str], already: set[str]) -> None:
        try:
            found = discover_paths(
                self.arguments,
                expected=self.expected_paths,
                home=self.home,
                cwd=self.cwd,
                skip=skip,
                limits=_LIMITS,
                fs=self.policy.fs,
                # Advice on where a path leads comes from the check's own resolution.
                resolve=False,
                extra_sensitive=self.extra_sensitive,
            )
        except DiscoveryError as exc:
            # A bad expected path is the caller's input error: report it on this call.
            self.error = f"{self.name}: {exc}"
            return
        for f in found:
            if f.path in already or f.raw in already:
                continue
            already.add(f.path)
            # Checked as a read: discovery can't tell what the tool would do with it.
            self.record(
                self.check(f.path, "read"),
                f.source,
                kind="discovered",
                tier=f.tier,
                advisory=f.tier == "guess",
                sensitive=f.sensitive,
            )
            self.notes.extend(f"{f.source}: {note}" for note in f.notes)
        # A search a bound cut short says so: paths past the bound went unchecked.
        self.notes.extend(found.stopped)


def _resolve_access(access: Any) -> ToolAccess | None:
    if access is None or hasattr(access, "gate"):
        return access
    from ..access import load_access

    return load_access(access)


def probe_call(
    policy: Policy,
    name: str,
    arguments: Mapping[str, Any] | None = None,
    *,
    over_http: bool | None = None,
    access: Any = None,
    catalog: Catalog | None = None,
    registration: Registration | None = None,
    expected_paths: Sequence[str] = (),
    walk_limit: int = 10000,
    drive_names: Sequence[str] | None = None,
    discover: bool = True,
    extra_sensitive: Sequence[str] = (),
) -> CallVerdict:
    """What the model gets back from calling ``name`` with ``arguments``.

    Args:
        policy: the resolved server policy.
        over_http: whether the request arrives over HTTP; None means by transport.
        access: tool access lists (a ``ToolAccess``, or a path/mapping to load one).
        catalog: the server's tools; the shipped catalog by default.
        registration: the registration of the policy's server, precomputed (batches pass it).
        expected_paths: paths the caller says the call will touch (discovery's
            ``expected`` tier; refused ones fail the call).
        walk_limit: the most folder entries one call's walks check before stopping.
        drive_names: the Drive side of a sync or folder download, as relative names
            (``a.txt``, ``sub/b.txt``, ``empty/``); None when unknown.
        discover: search the arguments the catalog doesn't describe for paths (advisory
            unless expected). False skips that search for catalog tools, which is most
            of a small call's cost; expected paths and unknown tools are still searched.
        extra_sensitive: name globs added to the sensitive-file list for the advice
            (``*.kdbx``); a bad one raises :class:`~localfs_explorer.probe.ProbeError`.
    """
    server = server_of(policy)
    catalog = catalog or server.catalog()
    registration = registration or server.register_tools(policy, catalog)
    return _probe(
        policy, name, arguments, over_http, _resolve_access(access), catalog, registration,
        expected_paths, walk_limit, drive_names, discover, None, None,
        extra_sensitive_patterns(extra_sensitive),
    )


def extra_sensitive_patterns(globs: Sequence[str]) -> tuple[str, ...]:
    """An operator's extra sensitive-name globs, checked (a :class:`ProbeError` if bad)."""
    if not globs:
        return ()  # the usual case, once per call: nothing to check
    try:
        return check_extra_patterns(globs)
    except SensitivePatternsError as exc:
        raise ProbeError(str(exc)) from None


def _probe(
    policy: Policy,
    name: str,
    arguments: Mapping[str, Any] | None,
    over_http: bool | None,
    access: ToolAccess | None,
    catalog: Catalog,
    registration: Registration,
    expected_paths: Sequence[str],
    walk_limit: int,
    drive_names: Sequence[str] | None,
    discover: bool,
    index: int | None,
    line: int | None,
    extra_sensitive: tuple[str, ...] = (),
) -> CallVerdict:
    """:func:`probe_call` with its defaults filled in, and the call's place in a batch.

    Arguments are passed by position: this runs once per call of a batch.
    """
    tool = catalog.get(name)
    server = server_of(policy)
    notes: list[str] = []
    if tool is not None:
        registered = registration.is_registered(name)
    else:
        enabled = registration.enabled_tools
        registered = enabled is None or name in enabled
        if registered:
            notes.append(
                f"{name} is not in the catalog: assumed registered, and its paths found by "
                "discovery"
            )
    gate: Gate = access.gate(name) if access is not None else "execute"
    if not policy.serves:
        notes.append(f"the server would exit at startup: {policy.exit_message}")
    if not registered:
        why = registration.why_absent(name) or f"{name} is not in ENABLED_TOOLS"
        notes.append(why)
        return CallVerdict(name=name, registered=False, visible=False, gate=gate,
                           outcome="absent", notes=notes, index=index, line=line)
    if gate == "blocked":
        notes.append(f"{name} is blocked by the tool access lists: the model never sees it")
        return CallVerdict(name=name, registered=True, visible=False, gate=gate,
                           outcome="absent", notes=notes, index=index, line=line)
    if gate == "approval":
        notes.append(f"{name} is held for approval before it runs")
    if arguments is None:
        arguments = {}
    if type(arguments) is not dict and not isinstance(arguments, Mapping):
        return CallVerdict(name=name, registered=True, visible=True, gate=gate,
                           outcome="error", message="arguments must be a JSON object",
                           notes=notes, index=index, line=line, malformed=True)

    if tool is not None:
        # The server validates the arguments against the tool's schema before the tool
        # runs: a rejection is the call's own error, before any path is checked.
        rejected = tool.argument_error(arguments)
        if rejected is not None:
            return CallVerdict(name=name, registered=True, visible=True, gate=gate,
                               outcome="error", message=rejected, notes=notes, index=index,
                               line=line)
    probe = _CallProbe(policy, name, tool, arguments, over_http, walk_limit, drive_names,
                       expected_paths)
    probe.extra_sensitive = extra_sensitive
    probe.notes.extend(notes)
    checked: set[str] = set()
    skip: tuple[str, ...] = ()
    whole: frozenset[str] = frozenset()
    if tool is not None:
        # A server whose tools have rules of their own answers the call itself.
        answer = server.answer_call(policy, name, arguments, walk_limit=walk_limit)
        if answer is not None:
            checked = probe.take(answer)
        else:
            checked = probe.run_params(tool)
            if tool.image_params and not probe.done:
                probe.run_images(tool)
        skip, whole = tool.described_locations, tool.described_arguments
    # Discovery only when something is left for it: paths the caller expects the call to
    # touch, or an argument the catalog doesn't describe that could hold a path (most
    # catalog calls have none: nothing_to_find answers that without a search).
    wanted = discover or tool is None or bool(expected_paths)
    if wanted and probe.error is None and (
        expected_paths
        or (
            not whole.issuperset(arguments)
            and not nothing_to_find(arguments, skip=skip, limits=_LIMITS)
        )
    ):
        probe.run_discovery(skip, checked)

    if probe.error is not None:
        outcome: Outcome = "error"
        message = probe.error
    elif probe.refusal is not None:
        outcome, message = "refused", probe.refusal
    elif probe.partial:
        outcome, message = "partial", probe.item_errors
    else:
        outcome, message = "ok", ""
    return CallVerdict(name, True, True, gate, outcome, message, probe.paths, probe.notes,
                       index, line)
