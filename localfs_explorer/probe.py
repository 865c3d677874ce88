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
- ``error``: the call fails with an error of its own: the server's argument validation
  (an unknown argument, a missing required one, a wrong type; checked first, before any
  path), or the tool's own error before or after a check (an invalid ``direction``, a
  missing file, a wrong extension, a file where a folder must be); or the probe can't
  read the call (a malformed line, an expected path that isn't a string).

Paths the catalog describes have tier ``catalog`` (``guess`` for a catalog inferred from a
``tools/list`` schema). Other arguments go through path discovery; what it finds is
checked as a read. Discovery is advisory: a ``guess``-tier path never changes the outcome
(the server doesn't check an argument it doesn't treat as a path), while a path the
caller declared or expects the call to touch (``declared``/``expected`` tiers) does.
Discovery's caveats about a path (``~user`` left unexpanded, a host in a ``file:`` URI)
and any bound that cut its search short are in the call's notes.

Each tool's path work follows its code in the server (``tests/test_tool_conformance.py``
compares the two): a directory destination gets the tool's default file name, checked
too; folder walks list what the tool lists (top-level files for ``upload_local_folder``,
the Drive folder's files for ``download_folder``, subfolders only with ``recursive`` for
``sync_folder``). Not modelled: image sources inside the files
``create_doc_from_file``/``update_doc_from_file`` read (a note says so), Workspace files
on the Drive side, and ``export_revision`` of a Sheet (the probe takes the Doc case).
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import posixpath
import re
import stat as _stat
import string
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, TextIO

from . import locations
from .calls_file import BadCall, read_calls
from .catalog import (
    DIRECTIONS,
    Catalog,
    PathParam,
    Registration,
    Tool,
    default_catalog,
    register_tools,
)
from .discovery import DiscoveryError, DiscoveryLimits, discover_paths, nothing_to_find
from .errors import LocalfsError
from .textsafe import csv_text
from .vocab import Gate, Op, Outcome

if TYPE_CHECKING:
    import pandas as pd

    from .access import ToolAccess
    from .check import Decision
    from .policy import Policy

__all__ = [
    "CALL_COLUMNS",
    "COLUMNS",
    "PATH_COLUMNS",
    "CallVerdict",
    "PathVerdict",
    "ProbeError",
    "VerdictCsv",
    "decision_row",
    "extract_image_sources",
    "iter_call_verdicts",
    "probe_call",
    "probe_calls",
    "verdict_rows",
    "verdicts_frame",
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


#: Names the server's folder tools leave out unless told not to (``skip_system_files``).
SYSTEM_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini", ".localized"})
#: ``export_format`` values the server's Drive tools accept.
EXPORT_FORMATS = frozenset(
    {"pdf", "html", "txt", "docx", "odt", "rtf", "epub", "csv", "xlsx", "ods", "pptx"})
# The server's own temporary download files, never uploaded, synced or downloaded to.
_PARTIAL = re.compile(r"\.gee-sweet-partial-[0-9a-f]{16}")


def _is_partial(name: str) -> bool:
    return _PARTIAL.fullmatch(name) is not None


def _unsafe_name(name: str) -> bool:
    """A Drive name the server won't join onto a local folder (not one plain component)."""
    return (not name or "\0" in name or "/" in name or "\\" in name or name in (".", ".."))


def _safe_filename(name: str) -> str:
    """A caller-given default file name as one plain component, the server's way."""
    for ch in ("/", "\\", "\0"):
        name = name.replace(ch, "_")
    if name in ("", ".", "..") or _is_partial(name):
        name = "_" + name
    return name


def _is_file(fs: Any, path: str) -> bool:
    """Whether ``path`` is a regular file, following symlinks."""
    try:
        return _stat.S_ISREG(fs.stat(path).st_mode)
    except (OSError, ValueError):
        return False


class ProbeError(LocalfsError):
    """A probe input the user supplied that can't be used (e.g. an unreadable calls file)."""


# Verdict records are plain slotted dataclasses: the probe builds one for every path it
# checks (100,000s in a batch), and each field is a value it produced itself, so there is
# nothing to validate. pydantic stays for what users hand in.


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class CallVerdict:
    """What the model would get back from one tool call."""

    name: str
    registered: bool
    #: Registered and not blocked by the tool access lists.
    visible: bool
    gate: Gate
    outcome: Outcome
    #: What the model sees when the call is refused (the exact refusal text), else "".
    message: str = ""
    paths: list[PathVerdict] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
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


_PATH_FIELDS = tuple(f.name for f in dataclasses.fields(PathVerdict))


# --- Markdown / HTML image sources -------------------------------------------------------

# Sources the server fetches or looks up itself; everything else is a local path it
# checks, resolved against its working directory (a data: URI or a file: URL included).
_NOT_LOCAL = ("http://", "https://", "drive:")
# Markdown extensions the server renders with, as far as they decide where images land.
_MD_EXTENSIONS = ("tables", "fenced_code", "sane_lists")


class _ImageSources(HTMLParser):
    """``<img src>`` values the server embeds: not inside a table or a ``<pre>`` block."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sources: list[str] = []
        self.table = 0
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.table += 1
        elif tag == "pre":
            self.pre += 1
        elif tag == "img" and not self.table and not self.pre:
            src = dict(attrs).get("src")
            if src:
                self.sources.append(src)

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self.table:
            self.table -= 1
        elif tag == "pre" and self.pre:
            self.pre -= 1


_RENDERER: list[Any] = []
_RENDER_LOCK = threading.Lock()


def _markdown_to_html(text: str) -> str:
    """Markdown rendered as the server renders it, with one reused renderer (building
    one costs more than rendering a short text)."""
    with _RENDER_LOCK:
        if not _RENDERER:
            import markdown  # only calls carrying Markdown need it

            _RENDERER.append(markdown.Markdown(extensions=list(_MD_EXTENSIONS)))
        renderer = _RENDERER[0]
        try:
            return str(renderer.reset().convert(text))
        finally:
            renderer.reset()


# Markdown whose only markup is plain inline images: no code, HTML, references, tables,
# escapes or entities, and no indented lines. There the rendered images are exactly the
# ``![alt](src)`` written, so the renderer can be skipped (tests hold the two equal).
_PLAIN_IMAGE = re.compile(r"!\[[^\[\]]*\]\(([^()\s]+)\)")
_NOT_PLAIN = re.compile(
    r"[`<>\\&|\[\]]|^(?: {4}|\t)|^ {0,3}(?:~~~|\*|-|\+|\d+[.)])\s|^ {0,3}[=-]+\s*$",
    re.MULTILINE,
)


def _plain_markdown_images(text: str) -> tuple[str, ...] | None:
    """The image sources of Markdown simple enough to read without rendering, else None."""
    if _NOT_PLAIN.search(_PLAIN_IMAGE.sub("", text)) is not None:
        return None
    return tuple(m.group(1) for m in _PLAIN_IMAGE.finditer(text))


@functools.lru_cache(maxsize=256)
def _image_sources(text: str, markdown_text: bool) -> tuple[str, ...]:
    if markdown_text:
        if "![" not in text and "<" not in text:
            return ()
        plain = _plain_markdown_images(text)
        if plain is not None:
            return tuple(src for src in plain if not src.startswith(_NOT_LOCAL))
        text = _markdown_to_html(text)
    if "<" not in text:
        return ()
    parser = _ImageSources()
    parser.feed(text)
    parser.close()
    return tuple(src for src in parser.sources if not src.startswith(_NOT_LOCAL))


def extract_image_sources(text: str, content_format: str | None = "markdown") -> list[str]:
    """The local image paths the server would check in ``text``, in document order.

    ``content_format`` is the tool's: ``markdown`` renders the text to HTML first (so
    ``![alt](src)``, reference-style images and raw ``<img>`` tags count, while an image
    inside a code span or block doesn't); anything else reads it as HTML. Images inside
    a table or a ``<pre>`` block are dropped, as the server drops them. Sources starting
    ``http://``, ``https://`` or ``drive:`` are not local; every other source is a path,
    exactly as written.
    """
    return list(_image_sources(text, content_format == "markdown"))


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


def _suffix(path: str) -> str:
    """``PurePosixPath(path).suffix`` without building the path object."""
    name = path.rpartition("/")[2]
    if not name or name.endswith("."):
        return PurePosixPath(path).suffix  # a trailing '/' or '.': pathlib's own rules
    dot = name.rfind(".")
    return name[dot:] if dot > 0 else ""


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
        "arguments", "check", "cwd", "drive", "drive_names", "error", "expected_paths",
        "home", "name",
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
        v = PathVerdict(
            argument, d.path, d.resolved, d.op, tier, allowed, d.reason, d.message,
            sensitive if sensitive is not None
            else _sensitive_advice(d.path, d.resolved, self.home, self.cwd),
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
            self.run_sync(tool, checked)
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
                self.run_top_files(tool, label, value, tier)
            elif param.walk == "drive_files":
                self.run_drive_files(tool, label, value, tier)
            elif param.walks:
                self.run_walk(param, label, value, tier)
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
                self.fail(f"{tool.name}: unsupported file extension {suffix!r} at {label} "
                          f"(the tool takes {', '.join(param.suffixes)})")
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

    def _listdir(self, absolute: str) -> list[str]:
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

    def _blocked(self, tool: Tool, label: str, value: str, wants_dir: bool) -> bool:
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
        if self._blocked(tool, label, value, wants_dir):
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
            self.fail(f"{tool.name}: the {name} list is empty (the tool's own error)")
            return
        if param.needs_any and not any(
            self.policy.env.get(n[1:]) if n.startswith("$") else self.arg(n)
            for n in param.needs_any
        ):
            self.fail(f"{tool.name}: needs {' or '.join(param.needs_any)} before it checks "
                      "any path (the tool's own error)")
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

    def _note_dry_run(self) -> None:
        if self.arguments.get("dry_run") is True:
            self.notes.append(
                "dry run: refused entries appear in the preview exactly as a real run "
                "reports them"
            )

    def run_top_files(self, tool: Tool, label: str, root: str, tier: str) -> None:
        """upload_local_folder: the folder, then each of its top-level regular files."""
        root_d = self.check(root, "read")
        self.record(root_d, label, kind="root", tier=tier)
        if not root_d.allowed:
            return
        fs = self.policy.fs
        # The server lists the folder through its resolved path and checks each file
        # under that spelling.
        folder = root_d.resolved or _absolute(self.policy, root)
        if not fs.is_dir(folder):
            self.fail(f"{tool.name}: no directory found at {root!r} (the tool's own error)")
            return
        prefix = folder.rstrip("/") + "/"
        names = [n for n in self._listdir(folder) if _is_file(fs, prefix + n)]
        names = [n for n in names if not _is_partial(n)]
        if self.arg("skip_system_files") is not False:
            names = [n for n in names if n not in SYSTEM_FILES]
        in_drive: set[str] = set()
        if self.arg("skip_if_exists") is not False:
            if self.drive is None:
                self.notes.append(
                    "the Drive folder's files weren't given (drive_names): no local file is "
                    "assumed to be skipped as already uploaded")
            elif self.arg("convert"):
                self.notes.append("with convert, a file is skipped only when Drive holds it "
                                  "already converted; no file is assumed skipped")
            else:
                in_drive = self.drive.files
        self._note_dry_run()
        skipped = 0
        count = 0
        with self.policy.many_checks() as batch:
            for n in sorted(names):
                if n in in_drive:
                    skipped += 1
                    continue
                if count >= self.walk_limit:
                    self._walk_stopped(label, count)
                    break
                count += 1
                d = batch.check(prefix + n, "read", over_http=self.over_http)
                self.record(d, label, kind="entry", tier=tier, step="failed", fails_call=False)
        if skipped:
            self.notes.append(f"{skipped} file(s) skipped unchecked: already in the Drive "
                              "folder (skip_if_exists)")

    def _walk_stopped(self, label: str, count: int) -> None:
        self.notes.append(f"walk of {label} stopped after {count} entries (walk_limit); "
                          "entries beyond it were not checked")

    def run_drive_files(self, tool: Tool, label: str, root: str, tier: str) -> None:
        """download_folder: the destination, then each file of the Drive folder there."""
        root_d = self.check(root, "write")
        self.record(root_d, label, kind="root", tier=tier)
        if not root_d.allowed or self._blocked(tool, label, root, True):
            return
        if self.drive_names is None:
            self.notes.append(
                f"the Drive folder's files weren't given (drive_names): no file under {label} "
                "is checked")
            return
        fs = self.policy.fs
        raw_prefix = _prefix(_spelled(root))
        abs_prefix = _absolute(self.policy, root).rstrip("/") + "/"
        skip_existing = self.arg("skip_if_exists") is not False
        claimed: set[str] = set()
        unclaimed = 0
        folders: list[str] = []
        with self.policy.many_checks() as batch:
            for name in self.drive_names:
                if "/" in name.rstrip("/") or name.endswith("/"):
                    folders.append(name.split("/", 1)[0])
                    continue
                if _unsafe_name(name) or _is_partial(name):
                    self.notes.append(f"Drive name {name!r} can't be a local file name: "
                                      "failed without a check")
                    continue
                if len(claimed) + unclaimed >= self.walk_limit:
                    self._walk_stopped(label, self.walk_limit)
                    break
                d = batch.check(raw_prefix + name, "write", over_http=self.over_http)
                self.record(d, label, kind="entry", tier=tier, step="failed", fails_call=False)
                if not d.allowed or (skip_existing and fs.exists(abs_prefix + name)):
                    unclaimed += 1  # refused or skipped: checked all the same
                    continue
                if name in claimed:
                    self.notes.append(f"duplicate Drive name {name!r}: only the first is "
                                      "downloaded")
                claimed.add(name)
        if folders:
            self.notes.append(
                f"{len(dict.fromkeys(folders))} Drive subfolder(s) skipped: download_folder "
                "never enters them")

    def run_walk(self, param: PathParam, label: str, root: Any, tier: str) -> None:
        """A folder a user catalog says is walked: every entry, descending."""
        root_d = self.check(root, param.op)  # type: ignore[arg-type]  # direction: run_sync
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

    def run_sync(self, tool: Tool, checked: set[str]) -> None:
        """sync_folder: its own validation, the root, the result file, then the walk."""
        spec = tool.direction
        assert spec is not None  # the caller checked
        direction = self.arg(spec.argument)
        if direction is None:
            direction = spec.default
        if direction not in DIRECTIONS:
            self.fail(f"{tool.name}: invalid {spec.argument} {direction!r}: use upload, "
                      "download or bidirectional")
            return
        export_format = self.arg("export_format")
        if export_format and export_format not in EXPORT_FORMATS:
            self.fail(f"{tool.name}: unknown export_format {export_format!r}")
            return
        resolve = self.arg("resolve")
        if resolve and isinstance(resolve, Mapping):
            if any(mode not in ("keep_drive", "keep_local") for mode in resolve.values()):
                self.fail(f"{tool.name}: invalid resolve value: use keep_drive or keep_local")
                return
            if direction == "download" and "keep_local" in resolve.values():
                self.fail(f"{tool.name}: resolve keep_local uploads, which direction "
                          "download never does")
                return
        walked = next(p for p in tool.params if p.op == "direction")
        root = self.arguments.get(walked.location)
        if not isinstance(root, str):
            self.fail(f"{tool.name}: {walked.location} must be a string")
            return
        checked.add(root)
        label = walked.location
        root_d = self.check(root, _ROOT_OPS[direction])
        self.record(root_d, label, kind="root")
        if not root_d.allowed or self._blocked(tool, label, root, True):
            return
        result = next((p for p in tool.params if p.op == "write"), None)
        result_value = self.arguments.get(result.location) if result is not None else None
        if result is not None and result_value:
            if not isinstance(result_value, str):
                self.fail(f"{tool.name}: {result.location} must be a string")
                return
            checked.add(result_value)
            d = self.check(result_value, "write")
            self.record(d, result.location, kind="path")
            if not d.allowed:
                return
            if self._blocked(tool, result.location, result_value,
                             posixpath.basename(result_value) in ("", ".", "..")):
                return
            # Both checks resolved their path already: the same realpath, not asked again.
            fs = self.policy.fs
            inside = d.resolved or fs.realpath(_absolute(self.policy, result_value))
            top = root_d.resolved or fs.realpath(_absolute(self.policy, root))
            if inside == top or inside.startswith(top.rstrip("/") + "/"):
                self.fail(f"{tool.name}: {result.location} ({result_value!r}) must not be "
                          f"{label} ({root!r}) or a path inside it")
                return
        self._note_dry_run()
        if self.drive is None:
            self.notes.append(
                "the Drive side wasn't given (drive_names): each local file is treated "
                "as present on both sides"
            )
        if self.arg("resolve"):
            self.notes.append("with resolve, the server plans the sync twice: each entry "
                              "is checked twice, with the same verdict")
        with self.policy.many_checks() as batch:
            walker = _Walker(self, label, "catalog", batch, root_d.resolved)
            walker.sync_level(root, _absolute(self.policy, root), self.drive, direction, 0,
                              recursive=self.arg("recursive") is True,
                              skip_system=self.arg("skip_system_files") is not False)
        walker.finish()
        if result is not None and result_value and isinstance(result_value, str):
            # The result is written after the walk; a directory gets its default name.
            self.run_destination(tool, result.model_copy(update={"op": "write"}),
                                 result.location, result_value, "catalog")

    # -- Markdown/HTML images --

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
        *, recursive: bool, skip_system: bool,
    ) -> None:
        """One level of a sync: its files by the direction table, then (recursive only)
        its subfolders, each checked before it is entered.

        ``drive`` is the Drive folder's side; None when unknown, and then each local
        file is taken as present on both sides.
        """
        fs = self.probe.policy.fs
        if self._deep(depth, raw_dir):
            return
        local_files: set[str] = set()
        local_dirs: set[str] = set()
        abs_prefix = abs_dir.rstrip("/") + "/"
        if fs.is_dir(abs_dir):
            for name in self._list(abs_dir):
                if skip_system and name in SYSTEM_FILES:
                    continue
                try:  # one stat per entry, following symlinks as the server's listing does
                    mode = fs.stat(abs_prefix + name).st_mode
                except (OSError, ValueError):
                    continue
                if _stat.S_ISDIR(mode):
                    local_dirs.add(name)
                elif _stat.S_ISREG(mode) and not _is_partial(name) and "\\" not in name:
                    local_files.add(name)
        if drive is None:
            remote_files, remote_dirs = set(local_files), None
        else:
            remote_files = {n for n in drive.files if not _is_partial(n) and "\\" not in n}
            remote_dirs = drive.folders
        probe = self.probe
        check, record = self.batch.check, probe.record
        over_http, label, tier, limit = probe.over_http, self.label, self.tier, probe.walk_limit
        raw_prefix = _prefix(_spelled(raw_dir))
        for name in sorted(local_files | remote_files):
            op = _SYNC_OPS[(name in local_files, name in remote_files, direction)]
            if op is None:
                self.skipped.append(raw_prefix + name)
                continue
            if self.count >= limit:
                self._out_of_budget()
                return
            self.count += 1
            d = check(raw_prefix + name, op, over_http=over_http)
            record(d, label, kind="entry", tier=tier, step="local_read_fail", fails_call=False)
        folders = local_dirs | (set(remote_dirs) if remote_dirs is not None else set())
        if not recursive:
            if folders:
                probe.notes.append(
                    f"{len(folders)} subfolder(s) of {raw_dir} not entered: recursive is false")
            return
        children: list[tuple[str, str, _DriveTree | None]] = []
        for name in sorted(folders):
            if name in (".", "..") or "\\" in name:
                continue
            in_local = name in local_dirs
            in_drive = True if remote_dirs is None else name in remote_dirs
            op = _SYNC_OPS[(in_local, in_drive, direction)]
            raw, absolute = raw_prefix + name, abs_prefix + name
            if op is None:
                self.skipped.append(raw + "/")
                continue
            if self.count >= limit:
                self._out_of_budget()
                return
            self.count += 1
            d = check(raw, op, over_http=over_http)
            record(d, label, kind="entry", tier=tier, step="local_read_fail", fails_call=False)
            if not d.allowed:
                continue
            if not in_local and (fs.exists(absolute) or fs.is_symlink(absolute)):
                probe.notes.append(f"{raw}: a local file is in the way of the Drive folder; "
                                   "not synced")
                continue
            if in_local and not self._first_visit(d):
                continue
            sub = None if remote_dirs is None else remote_dirs.get(name) or _DriveTree()
            children.append((raw, absolute, sub))
        for raw, absolute, sub in children:
            self.sync_level(raw, absolute, sub, direction, depth + 1, recursive=recursive,
                            skip_system=skip_system)
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
    probe.notes.extend(notes)
    checked: set[str] = set()
    skip: tuple[str, ...] = ()
    whole: frozenset[str] = frozenset()
    if tool is not None:
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
        outcome, message = "partial", ""
    else:
        outcome, message = "ok", ""
    return CallVerdict(name, True, True, gate, outcome, message, probe.paths, probe.notes,
                       index, line)


# --- Many calls ----------------------------------------------------------------------------


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
    file of them, read by :func:`localfs_explorer.calls_file.read_calls`. A malformed call
    yields a verdict with outcome ``error`` whose message names the file and line
    (``FILE:LINE: ...``); the rest still run. An unreadable file raises :class:`ProbeError`.
    """
    catalog = catalog or default_catalog()
    registration = registration or register_tools(policy, catalog)
    access = _resolve_access(access)
    expected_paths = tuple(expected_paths)
    for index, call in enumerate(read_calls(calls, error=ProbeError)):
        if isinstance(call, BadCall):
            yield CallVerdict(
                name=call.name, registered=False, visible=False, gate="execute",
                outcome="error", message=call.message, index=index, line=call.line,
            )
            continue
        yield _probe(
            policy, call.name, call.arguments, over_http, access, catalog, registration,
            expected_paths + call.expected_paths, walk_limit, call.drive_names, discover,
            index, call.line,
        )


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
        self._writer = csv.writer(out)
        self._writer.writerow(COLUMNS)

    def write(self, verdict: CallVerdict) -> None:
        """The rows of one call."""
        self._writer.writerows([csv_text(row[c]) for c in COLUMNS] for row in verdict_rows(verdict))


def verdicts_frame(verdicts: Iterable[CallVerdict]) -> pd.DataFrame:
    """The verdict table of ``verdicts`` as a DataFrame, one row per (call, path)."""
    from .optional import pandas  # only this view needs pandas

    pd = pandas("the verdict table's DataFrame")
    rows = [row for verdict in verdicts for row in verdict_rows(verdict)]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def probe_calls(
    policy: Policy, calls: Iterable[Any] | str | Path, **options: Any
) -> pd.DataFrame:
    """Probe many calls; a DataFrame with one row per (call, path).

    Takes the same ``calls`` and keyword options as :func:`iter_call_verdicts`. Columns
    are :data:`COLUMNS`: the call's index (and JSONL line), name, registration,
    visibility, gate, outcome and message, then each path's argument, path, resolved
    path, operation, tier, verdict, reason and refusal text (``path_message``).
    """
    return verdicts_frame(iter_call_verdicts(policy, calls, **options))
