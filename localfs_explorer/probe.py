"""One tool call in, what the model would get back out.

:func:`probe_call` answers "if the model calls this tool with these arguments, over this
transport, what happens?": whether the tool is registered and visible, whether it is
held for approval, every local path the call touches with the server's
:class:`~localfs_explorer.check.Decision` for it, and the outcome the model sees.

The outcome follows the server's design:

- ``absent``: the tool isn't registered (off mode drops local-only tools; ENABLED_TOOLS
  narrows) or the tool access lists block it, so the model never sees it;
- ``refused``: a path the call needs is refused (a required path, an optional
  ``local_path`` checked at the tool's entry before any API call, an attachment, a walked
  folder's root); ``message`` is the exact refusal text;
- ``partial``: the call runs but some items fail (a refused Markdown/HTML image while the
  document is still written; a walked entry that becomes a ``failed`` or
  ``local_read_fail`` entry, dry runs included);
- ``ok``: it runs with nothing refused;
- ``error``: the probe can't model the call (a malformed line, a missing required
  argument, an unknown ``direction``, an expected path that isn't a string).

Paths the catalog describes have tier ``catalog`` (``guess`` for a catalog inferred from a
``tools/list`` schema). Other arguments go through path discovery; what it finds is
checked as a read. Discovery is advisory: a ``guess``-tier path never changes the outcome
(the server doesn't check an argument it doesn't treat as a path), while a path the
caller declared or expects the call to touch (``declared``/``expected`` tiers) does.
Discovery's caveats about a path (``~user`` left unexpanded, a host in a ``file:`` URI)
and any bound that cut its search short are in the call's notes.

Not modelled: the second check of a response-cap ``local_path`` that names a directory
(the server joins a default file name and checks the file again), and image sources
inside the files ``create_doc_from_file``/``update_doc_from_file`` read (a note says so).
"""

from __future__ import annotations

import functools
import html
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field

from .catalog import (
    DIRECTIONS,
    Catalog,
    PathParam,
    Registration,
    Tool,
    default_catalog,
    iter_locations,
    register_tools,
)
from .discovery import DiscoveryError, DiscoveryLimits, discover_paths, nothing_to_find
from .errors import LocalfsError
from .userfiles import parse_json_line, read_bytes
from .vocab import Gate, Op, Outcome

if TYPE_CHECKING:
    import pandas as pd

    from .access import ToolAccess
    from .check import Decision
    from .policy import Policy

__all__ = [
    "CallVerdict",
    "PathVerdict",
    "ProbeError",
    "extract_image_sources",
    "iter_call_verdicts",
    "probe_call",
    "probe_calls",
]


#: How deep a folder walk descends before it stops and says so.
MAX_WALK_DEPTH = 64

# Which check a sync entry gets, by (local side, Drive side, direction); None = skipped
# unchecked, the way the server plans a name the direction never touches.
_SYNC_OPS: dict[tuple[bool, bool, str], str | None] = {
    (True, True, "upload"): "read",
    (True, True, "download"): "write",
    (True, True, "bidirectional"): "read_write",
    (True, False, "upload"): "read",
    (True, False, "download"): None,
    (True, False, "bidirectional"): "read",
    (False, True, "upload"): None,
    (False, True, "download"): "write",
    (False, True, "bidirectional"): "write",
}
_ROOT_OPS: dict[str, Op] = {"upload": "read", "download": "write", "bidirectional": "read_write"}


class ProbeError(LocalfsError):
    """A probe input the user supplied that can't be used (e.g. an unreadable calls file)."""


class PathVerdict(BaseModel):
    """The server's verdict on one local path a call touches."""

    model_config = ConfigDict(frozen=True)

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
        return self.model_dump(mode="json")


class CallVerdict(BaseModel):
    """What the model would get back from one tool call."""

    model_config = ConfigDict(frozen=True)

    name: str
    registered: bool
    #: Registered and not blocked by the tool access lists.
    visible: bool
    gate: Gate
    outcome: Outcome
    #: What the model sees when the call is refused (the exact refusal text), else "".
    message: str = ""
    paths: list[PathVerdict] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    #: Position of the call in a batch (0-based), and its line in a JSONL file.
    index: int | None = None
    line: int | None = None

    def _repr_html_(self) -> str:
        """Rich display in a notebook (the dashboard's renderer)."""
        from .render import call_verdict_repr

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


def _validated(cls: Any, values: dict[str, Any]) -> Any:
    return cls(**values)


def _slot_setter(name: str) -> Any:
    """The setter of the attribute slot ``name`` that pydantic models keep their state in."""
    for klass in PathVerdict.__mro__:
        if name in vars(klass):
            return vars(klass)[name].__set__
    raise AttributeError(name)


def _trusted(cls: Any, values: dict[str, Any]) -> Any:
    """An instance of ``cls`` from values the probe produced itself, every field given.

    What ``model_construct`` makes, without its per-field bookkeeping (which costs more
    than validating): the probe builds a row for every path it checks, and validating
    values it just produced (a bool from a Decision, a str it formatted) took about a
    tenth of its time. The slots are set through their own setters, which skips an
    attribute lookup per slot.
    """
    model = _new(cls)
    _set_dict(model, values)
    _set_fields_set(model, set(values))
    _set_extra(model, None)
    _set_private(model, None)
    return model


def _hash(model: Any) -> int | None:
    try:
        return hash(model)
    except TypeError:  # a frozen model with list fields can't be hashed either way
        return None


def _pick_builder() -> Any:
    """``_trusted`` when it builds exactly what validation builds, else validation.

    Checked once at import against this pydantic, so a future release that lays models
    out differently costs speed, never correctness.
    """
    row = dict(argument="a", path="p", resolved=None, op="read", tier="catalog",
               allowed=False, reason="outside_roots", message="m", sensitive=None,
               kind="path", step="failed", advisory=False)
    call = dict(name="t", registered=True, visible=True, gate="execute", outcome="ok",
                message="", paths=[], notes=["n"], index=0, line=None)
    try:
        for cls, values in ((PathVerdict, row), (CallVerdict, call)):
            fast, slow = _trusted(cls, dict(values)), cls(**values)
            if (
                fast != slow
                or fast.model_fields_set != slow.model_fields_set
                or fast.model_dump() != slow.model_dump()
                or fast.model_copy(update={"message": "x"}).message != "x"
                or _hash(fast) != _hash(slow)
            ):
                return _validated
    except Exception:  # any surprise means: keep validating
        return _validated
    return _trusted


_new = object.__new__
try:
    _set_dict, _set_fields_set, _set_extra, _set_private = (
        _slot_setter(name) for name in
        ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
    )
except AttributeError:  # a pydantic without these slots: validate every row instead
    _build: Any = _validated
else:
    _build = _pick_builder()


# --- Markdown / HTML image sources -------------------------------------------------------

_MD_IMAGE = re.compile(
    r"!\[(?:[^\]\\]|\\.)*\]\(\s*(?:<([^>\n]*)>|([^\s)]+))"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
)
_HTML_IMG = re.compile(
    r"<img\b[^>]*?\bsrc\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>\"']+))", re.IGNORECASE
)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]+):")


def _local_source(src: str) -> str | None:
    """The local path an image source names, or None for remote and inline sources."""
    src = src.strip()
    if not src or src.startswith("//"):
        return None
    m = _SCHEME.match(src)
    if m is None:
        return src
    if m.group(1).lower() != "file":
        return None  # http(s), data:, and every other URL are not local reads
    parts = urlsplit(src)
    if parts.netloc not in ("", "localhost"):
        return None
    return unquote(parts.path) or None


def extract_image_sources(text: str) -> list[str]:
    """Local image paths in Markdown (``![alt](src)``) and HTML (``<img src>``), in order.

    Remote (``http:``, ``https:``, protocol-relative) and ``data:`` sources are skipped;
    a ``file:`` URI is reduced to its path.
    """
    found: list[tuple[int, str]] = []
    # Each pattern needs its opening characters; most texts lack one or both.
    if "![" in text:
        for m in _MD_IMAGE.finditer(text):
            found.append((m.start(), m.group(1) if m.group(1) is not None else m.group(2)))
    if "<" in text:
        for m in _HTML_IMG.finditer(text):
            raw = next(g for g in m.groups() if g is not None)
            found.append((m.start(), html.unescape(raw)))
    found.sort(key=lambda item: item[0])
    out = []
    for _, src in found:
        local = _local_source(src)
        if local is not None:
            out.append(local)
    return out


# --- One call ------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8192)
def _sensitive_advice(path: str, resolved: str | None, home: str, cwd: str) -> str | None:
    """Sensitive-file advice for a checked path (None: nothing to say).

    The resolved path catches a symlink to a key; the spelling as given is asked too only
    when it names a different file (``id_rsa`` linking to a blob). A pure function of
    strings, and batches repeat paths: answers are remembered.
    """
    from .sensitive import sensitive_reason

    reason = sensitive_reason(resolved or path, home=home, cwd=cwd)
    if reason is None and resolved and path.rpartition("/")[2] != resolved.rpartition("/")[2]:
        reason = sensitive_reason(path, home=home, cwd=cwd)
    return reason


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


@functools.lru_cache(maxsize=1024)
def _shape(location: str) -> tuple[str, str] | None:
    """``(name, "")`` for a top-level location (``local_path``), ``(list, key)`` for the
    items of a top-level list (``attachments[].local_path``), None for anything else."""
    if "." not in location and "[" not in location:
        return location, ""
    head, sep, key = location.partition("[].")
    if sep and "." not in head and "[" not in head and "." not in key and "[" not in key:
        return head, key
    return None


def _values_at(arguments: Mapping[str, Any], location: str) -> list[tuple[str, Any]]:
    """``list(iter_locations(arguments, location))``, without generators for the two
    shapes the catalog's locations take: a top-level argument and a field of each item
    of a top-level list. Missing keys and None values yield nothing, as there."""
    shape = _shape(location)
    if shape is None:
        return list(iter_locations(arguments, location))
    name, key = shape
    value = arguments.get(name)
    if not key:
        return [] if value is None else [(location, value)]
    if not isinstance(value, (list, tuple)):
        return []
    found = []
    for i, item in enumerate(value):
        if isinstance(item, Mapping):
            field = item.get(key)
            if field is not None:
                found.append((f"{name}[{i}].{key}", field))
    return found


def _absolute(policy: Policy, path: str) -> str:
    return path if path.startswith("/") else posixpath.join(policy.cwd, path)


@functools.lru_cache(maxsize=4096)
def _spelled(path: str) -> str:
    """A folder as pathlib spells it: "." and doubled slashes dropped, ".." kept."""
    return str(PurePosixPath(path))


def _child(spelled_parent: str, name: str) -> str:
    """``str(Path(parent) / name)`` for a parent already in pathlib's spelling."""
    if spelled_parent == ".":
        return name
    if spelled_parent.endswith("/"):  # "/" (or "//")
        return spelled_parent + name
    return spelled_parent + "/" + name


def _prefix(spelled_parent: str) -> str:
    """What :func:`_child` puts before a name: ``_child(p, n) == _prefix(p) + n``."""
    if spelled_parent == ".":
        return ""
    return spelled_parent if spelled_parent.endswith("/") else spelled_parent + "/"


def _walked(parent: str, name: str) -> str:
    # The server walks with pathlib, so entries are spelled the way pathlib joins them.
    return _child(_spelled(parent), name)


class _DriveTree:
    """The Drive side of a sync or download, built from relative names (``a/b.txt``)."""

    __slots__ = ("files", "folders", "unsafe")

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.folders: dict[str, _DriveTree] = {}
        #: Names the server refuses to map to a local path (it skips them unchecked).
        self.unsafe: list[str] = []

    @classmethod
    def from_names(cls, names: Iterable[str]) -> _DriveTree:
        tree = cls()
        for name in names:
            parts = [p for p in str(name).split("/") if p not in ("", ".")]
            if not parts:
                continue
            if any(p == ".." or "\0" in p or "\\" in p for p in parts):
                # A Drive name that would climb out of the destination (or can't be a
                # file name) is planned as the server's unsafe-name skip, never checked.
                tree.unsafe.append(str(name))
                continue
            node = tree
            for part in parts[:-1]:
                node = node.folders.setdefault(part, cls())
            if str(name).endswith("/"):
                node.folders.setdefault(parts[-1], cls())
            else:
                node.files.add(parts[-1])
        return tree

    def names(self) -> set[str]:
        return self.files | set(self.folders)

    def iter_files(self, prefix: str = "") -> Iterator[str]:
        for f in sorted(self.files):
            yield prefix + f
        for name in sorted(self.folders):
            yield from self.folders[name].iter_files(f"{prefix}{name}/")


class _CallProbe:
    """The state of probing one call: the verdicts so far and the first refusal."""

    __slots__ = (
        "arguments", "check", "cwd", "drive", "error", "expected_paths", "home", "name",
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
        self.drive = _DriveTree.from_names(drive_names) if drive_names is not None else None
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
        self.error: str | None = None
        self.home = _home(policy)
        self.cwd = policy.cwd
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
        # Every field given, from a Decision and this probe's own labels: see _trusted.
        v: PathVerdict = _build(PathVerdict, {
            "argument": argument,
            "path": d.path,
            "resolved": d.resolved,
            "op": d.op,
            "tier": tier,
            "allowed": allowed,
            "reason": d.reason,
            "message": d.message,
            "sensitive": (
                sensitive if sensitive is not None
                else _sensitive_advice(d.path, d.resolved, self.home, self.cwd)
            ),
            "kind": kind,
            "step": None if allowed else step,
            "advisory": advisory,
        })
        self.paths.append(v)
        if not allowed and not advisory:
            if fails_call:
                if self.refusal is None:
                    self.refusal = d.message
            else:
                self.partial = True
        return v

    # -- the tool's own parameters --

    def run_params(self, tool: Tool) -> set[str]:
        """Check every catalog parameter; returns the path strings checked."""
        checked: set[str] = set()
        tier = "guess" if tool.guessed else "catalog"
        # Entry checks run first: the server makes them before any API call.
        for param in tool.params_in_check_order:
            values = _values_at(self.arguments, param.location)
            if not values:
                if not param.optional:
                    self.error = (
                        f"{tool.name}: required argument {param.location} is missing; "
                        "the server would reject the call before touching any file"
                    )
                elif param.alternative:
                    alt_used = any(True for _ in iter_locations(self.arguments, param.alternative))
                    if alt_used:
                        self.notes.append(
                            f"{param.alternative} is used instead of a local path: no file "
                            "is read"
                        )
                continue
            for label, value in values:
                if isinstance(value, str):
                    checked.add(value)
                if param.op == "direction":
                    self.run_sync(tool, label, value)
                elif param.walks:
                    self.run_walk(param, label, value, tier)
                else:
                    kind = "attachment" if "attachments" in param.location else "path"
                    self.record(self.check(value, param.op), label, kind=kind, tier=tier)
        return checked

    # -- folder walks --

    def _note_dry_run(self) -> None:
        if self.arguments.get("dry_run") is True:
            self.notes.append(
                "dry run: refused entries appear in the preview exactly as a real run "
                "reports them"
            )

    def run_walk(self, param: PathParam, label: str, root: Any, tier: str) -> None:
        """upload_local_folder (reads) and download_folder (writes) and their like."""
        # Only read and write parameters walk; a direction parameter goes to run_sync.
        root_d = self.check(root, param.op)  # type: ignore[arg-type]
        self.record(root_d, label, kind="root", tier=tier)
        if not root_d.allowed:
            return
        if self.refusal is not None:
            self.notes.append(f"{label} not walked: the call is refused before it starts")
            return
        self._note_dry_run()
        absolute = _absolute(self.policy, root)
        if param.op == "write" and self.drive is None:
            self.notes.append(
                f"the Drive side of {label} wasn't given (drive_names): each existing "
                "local entry is checked as a file the download could overwrite"
            )
        with self.policy.many_checks() as batch:
            walker = _Walker(self, label, tier, batch, root_d.resolved)
            if param.op == "write" and self.drive is not None:
                walker.write_drive_files(root, self.drive)
            elif self.policy.fs.is_dir(absolute):
                walker.walk_local(root, absolute, param.op, 0)
            elif param.op == "read":
                self.notes.append(
                    f"{label} is not a directory on the target filesystem; the tool "
                    "reports that as its own error"
                )
        walker.finish()

    def run_sync(self, tool: Tool, label: str, root: Any) -> None:
        """sync_folder: the direction table of the server's design ("As implemented")."""
        spec = tool.direction
        assert spec is not None  # the catalog validates this
        direction = self.arguments.get(spec.argument)
        if direction is None:
            direction = spec.default
            if spec.assumed:
                self.notes.append(
                    f"{spec.argument} not given: assuming {direction!r}, a default chosen "
                    "by this catalog"
                )
        if direction not in DIRECTIONS:
            self.error = (
                f"{tool.name}: {spec.argument} {direction!r} is not one of "
                f"{', '.join(DIRECTIONS)}"
            )
            return
        # The sync root is a both-sides entry.
        root_d = self.check(root, _ROOT_OPS[direction])
        self.record(root_d, label, kind="root")
        if not root_d.allowed:
            return
        if self.refusal is not None:
            self.notes.append(f"{label} not walked: the call is refused before it starts")
            return
        self._note_dry_run()
        if self.drive is None:
            self.notes.append(
                "the Drive side wasn't given (drive_names): each local entry is treated "
                "as present on both sides"
            )
        with self.policy.many_checks() as batch:
            walker = _Walker(self, label, "catalog", batch, root_d.resolved)
            walker.sync_level(root, _absolute(self.policy, root), self.drive, direction, 0)
        walker.finish()

    # -- Markdown/HTML images --

    def run_images(self, tool: Tool) -> None:
        tier = "guess" if tool.guessed else "catalog"
        for ip in tool.image_params:
            for label, value in iter_locations(self.arguments, ip.location):
                if ip.in_file:
                    self.notes.append(
                        f"local images inside the file at {label} are checked one by one "
                        "when the server reads it; the probe doesn't read file contents"
                    )
                    continue
                if not isinstance(value, str):
                    continue
                for src in extract_image_sources(value):
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


class _Walker:
    """A bounded walk of a folder on the target filesystem, inside ``many_checks()``."""

    def __init__(
        self, probe: _CallProbe, label: str, tier: str, batch: Any, root: str | None
    ) -> None:
        self.probe = probe
        self.label = label
        self.tier = tier
        self.batch = batch
        self.count = 0
        self.stopped: str | None = None
        self.skipped: list[str] = []
        # Folders already walked, by resolved path: a symlink back up the tree is a loop.
        self.seen: set[str] = {root} if root else set()

    def finish(self) -> None:
        """Report why the walk stopped early and which names it skipped."""
        if self.stopped:
            self.probe.notes.append(self.stopped)
        if self.skipped:
            shown = ", ".join(self.skipped[:5]) + (" …" if len(self.skipped) > 5 else "")
            self.probe.notes.append(
                f"{len(self.skipped)} name(s) skipped unchecked, the direction never "
                f"touches them: {shown}"
            )

    def _budget(self) -> bool:
        if self.stopped:
            return False
        if self.count >= self.probe.walk_limit:
            self._out_of_budget()
            return False
        self.count += 1
        return True

    def _out_of_budget(self) -> None:
        self.stopped = (
            f"walk of {self.label} stopped after {self.count} entries (walk_limit); "
            "entries beyond it were not checked"
        )

    def _deep(self, depth: int, where: str) -> bool:
        if depth >= MAX_WALK_DEPTH:
            self.stopped = (
                f"walk of {self.label} stopped at depth {MAX_WALK_DEPTH} ({where}); "
                "deeper entries were not checked"
            )
            return True
        return False

    def _list(self, absolute: str) -> list[str]:
        try:
            return sorted(self.probe.policy.fs.listdir(absolute))
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            self.probe.notes.append(f"can't list {absolute}: {reason}")
            return []

    def _first_visit(self, d: Decision) -> bool:
        key = d.resolved or d.path
        if key in self.seen:
            self.probe.notes.append(
                f"{d.path} leads back to a folder already walked; not entered again"
            )
            return False
        self.seen.add(key)
        return True

    def _entry(self, path: str, op: str, step: str) -> Decision:
        d = self.batch.check(path, op, over_http=self.probe.over_http)
        self.probe.record(d, self.label, kind="entry", tier=self.tier, step=step,
                          fails_call=False)
        return d

    def walk_local(self, raw_dir: str, abs_dir: str, op: str, depth: int) -> None:
        """Check every existing entry; descend into allowed subfolders."""
        if self._deep(depth, raw_dir):
            return
        # The per-entry steps of _budget, _child and _entry, written out: a walk makes
        # them once per entry, and entries are most of a walking call's cost.
        probe = self.probe
        is_dir, check, record = probe.policy.fs.is_dir, self.batch.check, probe.record
        over_http, label, tier, limit = probe.over_http, self.label, self.tier, probe.walk_limit
        raw_prefix, abs_prefix = _prefix(_spelled(raw_dir)), abs_dir.rstrip("/") + "/"
        for name in self._list(abs_dir):
            if self.count >= limit:
                self._out_of_budget()
                return
            self.count += 1
            raw, absolute = raw_prefix + name, abs_prefix + name
            d = check(raw, op, over_http=over_http)
            record(d, label, kind="entry", tier=tier, step="failed", fails_call=False)
            if d.allowed and is_dir(absolute) and self._first_visit(d):
                self.walk_local(raw, absolute, op, depth + 1)
            if self.stopped:
                return

    def write_drive_files(self, raw_root: str, drive: _DriveTree) -> None:
        """download_folder with a known Drive side: each file at its destination."""
        for rel in drive.iter_files():
            if not self._budget():
                return
            parts = rel.split("/")
            raw = raw_root
            for part in parts:
                raw = _walked(raw, part)
            self._entry(raw, "write", "failed")

    def sync_level(
        self, raw_dir: str, abs_dir: str, drive: _DriveTree | None, direction: str, depth: int,
        is_local_dir: bool | None = None,
    ) -> None:
        """One level of a sync: local entries and Drive names by the direction table.

        ``is_local_dir`` is what the caller already knows of ``abs_dir`` (None: ask).
        """
        fs = self.probe.policy.fs
        if self._deep(depth, raw_dir):
            return
        if is_local_dir is None:
            is_local_dir = fs.is_dir(abs_dir)
        local = set(self._list(abs_dir)) if is_local_dir else set()
        remote = drive.names() if drive is not None else local
        # As in walk_local, the per-entry steps are written out.
        probe = self.probe
        check, record = self.batch.check, probe.record
        over_http, label, tier, limit = probe.over_http, self.label, self.tier, probe.walk_limit
        raw_prefix, abs_prefix = _prefix(_spelled(raw_dir)), abs_dir.rstrip("/") + "/"
        for name in sorted(local | remote):
            in_local, in_drive = name in local, name in remote
            raw, absolute = raw_prefix + name, abs_prefix + name
            op = _SYNC_OPS[(in_local, in_drive, direction)]
            if op is None:
                self.skipped.append(raw)
                continue
            if self.count >= limit:
                self._out_of_budget()
                return
            self.count += 1
            d = check(raw, op, over_http=over_http)
            record(d, label, kind="entry", tier=tier,
                   step="failed" if op == "write" else "local_read_fail", fails_call=False)
            if not d.allowed:
                continue
            sub = drive.folders.get(name) if drive is not None else None
            if in_local and fs.is_dir(absolute):
                if self._first_visit(d):
                    # Unknown Drive side stays unknown; a local-only folder has none.
                    nxt = None if drive is None else (sub or _DriveTree())
                    self.sync_level(raw, absolute, nxt, direction, depth + 1, True)
            elif not in_local and sub is not None:
                # A Drive-only folder: its files would be created under the new folder.
                self.sync_level(raw, absolute, sub, direction, depth + 1)
            if self.stopped:
                return


def _resolve_access(access: Any) -> ToolAccess | None:
    if access is None or hasattr(access, "gate"):
        return access
    from .access import load_access

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
) -> CallVerdict:
    """What the model gets back from calling ``name`` with ``arguments``.

    Args:
        policy: the resolved server policy.
        over_http: whether the request arrives over HTTP; None means by transport.
        access: tool access lists (a ``ToolAccess``, or a path/mapping to load one).
        catalog: the server's tools; the shipped catalog by default.
        registration: precomputed :func:`register_tools` result (batches pass it).
        expected_paths: paths the caller says the call will touch (discovery's
            ``expected`` tier; refused ones fail the call).
        walk_limit: the most folder entries one call's walks check before stopping.
        drive_names: the Drive side of a sync or folder download, as relative names
            (``a.txt``, ``sub/b.txt``, ``empty/``); None when unknown.
        discover: search the arguments the catalog doesn't describe for paths (advisory
            unless expected). False skips that search for catalog tools, which is most
            of a small call's cost; expected paths and unknown tools are still searched.
    """
    catalog = catalog or default_catalog()
    registration = registration or register_tools(policy, catalog)
    return _probe(
        policy, name, arguments, over_http, _resolve_access(access), catalog, registration,
        expected_paths, walk_limit, drive_names, discover, None, None,
    )


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
) -> CallVerdict:
    """:func:`probe_call` with its defaults filled in, and the call's place in a batch.

    Arguments are passed by position: this runs once per call of a batch.
    """
    tool = catalog.get(name)
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
                           notes=notes, index=index, line=line)

    probe = _CallProbe(policy, name, tool, arguments, over_http, walk_limit, drive_names,
                       expected_paths)
    probe.notes.extend(notes)
    checked: set[str] = set()
    skip: tuple[str, ...] = ()
    whole: frozenset[str] = frozenset()
    if tool is not None:
        checked = probe.run_params(tool)
        if tool.image_params:
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
        outcome, message = "partial", ""
    else:
        outcome, message = "ok", ""
    # Every field given, each produced above: see _trusted.
    verdict: CallVerdict = _build(CallVerdict, {
        "name": name, "registered": True, "visible": True, "gate": gate, "outcome": outcome,
        "message": message, "paths": probe.paths, "notes": probe.notes, "index": index,
        "line": line,
    })
    return verdict


# --- Many calls ----------------------------------------------------------------------------


def _read_calls(calls: Any) -> Iterator[tuple[int | None, Any]]:
    """(line number or None, raw call or an error string) for a list or a JSONL path."""
    if isinstance(calls, (str, Path)):
        content = read_bytes(calls, ProbeError)
        for lineno, data in enumerate(content.splitlines(), start=1):
            # Decoded line by line, so one bad line is reported and the rest still run.
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                yield lineno, _Malformed(f"line {lineno}: not UTF-8 text")
                continue
            if not text.strip():
                continue
            value, problem = parse_json_line(text)
            if problem is None:
                yield lineno, value
            else:
                yield lineno, _Malformed(f"line {lineno}: not valid JSON ({problem})")
        return
    for item in calls:
        yield None, item


class _Malformed(str):
    """A call that couldn't be parsed, carrying the message to report."""


def _unpack(raw: Any) -> tuple[str, Mapping[str, Any], dict[str, Any]] | str:
    """``(name, arguments, extras)`` from a ``tools/call`` params object, or an error."""
    if isinstance(raw, _Malformed):
        return str(raw)
    if isinstance(raw, Mapping) and "name" not in raw and isinstance(raw.get("params"), Mapping):
        raw = raw["params"]  # a whole JSON-RPC tools/call request
    if not isinstance(raw, Mapping):
        return "a call is an object with a 'name' and an 'arguments' object"
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        return "a call needs a 'name' string"
    arguments = raw.get("arguments", {})
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        return f"{name}: 'arguments' must be an object"
    extras: dict[str, Any] = {}
    for key in ("drive_names", "expected_paths"):
        value = raw.get(key)
        if value is not None:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                return f"{name}: '{key}' must be a list of strings"
            extras[key] = value
    return name, arguments, extras


def iter_call_verdicts(
    policy: Policy,
    calls: Iterable[Any] | str | Path,
    *,
    over_http: bool | None = None,
    access: Any = None,
    catalog: Catalog | None = None,
    registration: Registration | None = None,
    expected_paths: Sequence[str] = (),
    walk_limit: int = 10000,
    discover: bool = True,
) -> Iterator[CallVerdict]:
    """Probe each call in turn, yielding one :class:`CallVerdict` per call.

    ``calls`` is a list of MCP ``tools/call`` params (``{"name": ..., "arguments":
    {...}}``, optionally with ``drive_names``/``expected_paths``) or the path of a JSONL
    file of them. A malformed call yields a verdict with outcome ``error`` (and its line
    number for a file); the rest still run. An unreadable file raises :class:`ProbeError`.
    """
    catalog = catalog or default_catalog()
    registration = registration or register_tools(policy, catalog)
    access = _resolve_access(access)
    expected_paths = tuple(expected_paths)
    for index, (lineno, raw) in enumerate(_read_calls(calls)):
        unpacked = _unpack(raw)
        if isinstance(unpacked, str):
            name = raw.get("name") if isinstance(raw, Mapping) else None
            message = unpacked if lineno is None or unpacked.startswith("line ") else (
                f"line {lineno}: {unpacked}"
            )
            yield CallVerdict(
                name=name if isinstance(name, str) else "", registered=False, visible=False,
                gate="execute", outcome="error", message=message, index=index, line=lineno,
            )
            continue
        name, arguments, extras = unpacked
        yield _probe(
            policy, name, arguments, over_http, access, catalog, registration,
            expected_paths + tuple(extras.get("expected_paths", ())), walk_limit,
            extras.get("drive_names"), discover, index, lineno,
        )


#: DataFrame columns of :func:`probe_calls`, in order.
COLUMNS: tuple[str, ...] = (
    "call", "line", "name", "registered", "visible", "gate", "outcome", "message",
    "argument", "path", "resolved", "op", "tier", "allowed", "reason", "path_message",
    "sensitive", "kind", "step", "advisory", "notes",
)


def verdict_rows(verdict: CallVerdict) -> list[dict[str, Any]]:
    """One row per (call, path) for a verdict; one row with empty path fields when none."""
    base = {
        "call": verdict.index, "line": verdict.line, "name": verdict.name,
        "registered": verdict.registered, "visible": verdict.visible, "gate": verdict.gate,
        "outcome": verdict.outcome, "message": verdict.message,
        "notes": "; ".join(verdict.notes),
    }
    if not verdict.paths:
        empty = dict.fromkeys(
            ("argument", "path", "resolved", "op", "tier", "allowed", "reason",
             "path_message", "sensitive", "kind", "step", "advisory")
        )
        return [{**base, **empty}]
    rows = []
    for p in verdict.paths:
        rows.append({
            **base, "argument": p.argument, "path": p.path, "resolved": p.resolved,
            "op": p.op, "tier": p.tier, "allowed": p.allowed, "reason": p.reason,
            "path_message": p.message, "sensitive": p.sensitive, "kind": p.kind,
            "step": p.step, "advisory": p.advisory,
        })
    return rows


def probe_calls(
    policy: Policy, calls: Iterable[Any] | str | Path, **options: Any
) -> pd.DataFrame:
    """Probe many calls; a DataFrame with one row per (call, path).

    Takes the same ``calls`` and keyword options as :func:`iter_call_verdicts`. Columns
    are :data:`COLUMNS`: the call's index (and JSONL line), name, registration,
    visibility, gate, outcome and message, then each path's argument, path, resolved
    path, operation, tier, verdict, reason and refusal text (``path_message``).
    """
    from .optional import pandas  # only this view needs pandas

    pd = pandas("probe_calls' DataFrame")

    rows: list[dict[str, Any]] = []
    for verdict in iter_call_verdicts(policy, calls, **options):
        rows.extend(verdict_rows(verdict))
    return pd.DataFrame(rows, columns=list(COLUMNS))
