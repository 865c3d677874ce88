"""Describe a target host as plain JSON, and load it as a :class:`VirtualFS`.

A host spec is one JSON object::

    {
      "version": 1,
      "label": "container",                  # optional: a short name for traces
      "description": "what this host shows", # optional: free text
      "case_insensitive": false,             # lookups ignore case (macOS default volume)
      "home": "/root",                       # the account's home (pw_dir), need not exist
      "users": {"www-data": "/var/www"},     # optional: other accounts' homes (~www-data)
      "cwd": "/app",                         # the server's working directory; must exist
      "entries": {
        "/app": {"type": "dir"},
        "/app/token.json": {"type": "file", "inode": "tok"},
        "/data": {"type": "dir", "device": "data-volume"},
        "/data/innocent.json": {"type": "file", "inode": "tok"},
        "/data/escape": {"type": "symlink", "target": "/etc"},
        "/srv/exports": {"type": "dir", "bind": "/data"}
      }
    }

``entries`` maps absolute, normalised paths to one of three entry types:

- ``{"type": "dir"}``, optionally with ``"device": NAME`` (the directory is a mount point:
  it and everything below it, unless given another device, sit on device NAME; the
  root's device is called ``root`` unless ``"/"`` names another) or ``"bind": PATH`` (a
  bind mount: the directory at PATH shown again here, same inodes; its contents are
  listed under PATH only).
- ``{"type": "file"}``, optionally with ``"inode": KEY`` (files sharing a KEY are
  hardlinks: one identity under several names) and ``"device": NAME`` (a file mounted on
  its own, as ``docker -v host.json:/app/token.json`` does).
- ``{"type": "symlink", "target": TEXT}``: TEXT is stored verbatim, absolute or
  relative, and may point nowhere. An ``"inode"`` KEY shared by symlinks makes them one
  link under several names (what hardlinking a symlink does on Linux).

``users`` names the host's other accounts and their homes, which is what ``~name`` in a
tool's arguments means on that host; a name it doesn't list has no home there.

Parent directories need not be listed; they are created as plain directories. Files have
no contents: the policy never reads them. Anything else is an error naming the entry
(:class:`HostSpecError`): unknown keys, wrong types, a file or symlink used as a
directory, an inode shared by a directory (directories can't be hardlinked; use
``bind``), a bind mount that would put a directory inside itself, two names that differ
only in case on a case-insensitive host, a ``cwd`` that isn't a directory.

:func:`to_spec` writes a VirtualFS back in this form (entries sorted, implicit parent
directories left out), so ``to_spec(from_spec(spec)) == spec`` for a spec in that
canonical form, and ``from_spec(to_spec(fs))`` answers every question as ``fs`` does.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..userfiles import parse_json, read_text
from .base import FileSystem
from .host import HostFS
from .virtual import PATH_MAX, HostSpecError, VirtualFS, _byte_len
from .windows import WindowsHost, fold_ntfs, inner_spec

__all__ = [
    "SPEC_VERSION",
    "DirEntry",
    "FileEntry",
    "HostSpec",
    "HostSpecError",
    "SymlinkEntry",
    "dump_spec",
    "example_host_path",
    "format_spec",
    "from_spec",
    "list_example_hosts",
    "load_fs",
    "read_spec",
    "to_spec",
]

SPEC_VERSION = 1
#: The most entries a host spec may list (a snapshot of a whole system stays well below).
MAX_SPEC_ENTRIES = 200_000
#: The longest run of symlinks, each leading to the next, a spec may contain.
MAX_LINK_CHAIN = 256
_EXAMPLES_PACKAGE = "localfs_explorer"
_EXAMPLES_DIR = ("data", "hosts")

# Strict: a spec is written by hand, and "case_insensitive": "no" silently meaning True
# is exactly the kind of surprise a described host must not have.
_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)


class DirEntry(BaseModel):
    """A directory; a mount point with ``device``; a bind mount with ``bind``."""

    model_config = _STRICT
    type: Literal["dir"]
    device: str | None = None
    bind: str | None = None


class FileEntry(BaseModel):
    """A regular file; entries sharing ``inode`` are hardlinks of one file."""

    model_config = _STRICT
    type: Literal["file"]
    inode: str | None = None
    device: str | None = None


class SymlinkEntry(BaseModel):
    """A symbolic link whose stored text is ``target``; ``inode`` as for files."""

    model_config = _STRICT
    type: Literal["symlink"]
    target: str
    inode: str | None = None


Entry = Annotated[DirEntry | FileEntry | SymlinkEntry, Field(discriminator="type")]


class HostSpec(BaseModel):
    """A whole described host (see the module docstring for the format)."""

    model_config = _STRICT
    version: Literal[1] = 1
    label: str | None = None
    description: str | None = None
    case_insensitive: bool = False
    #: ``windows``: every path of the spec is a Windows path (see :mod:`.windows`).
    platform: Literal["posix", "windows"] = "posix"
    home: str = "/"
    cwd: str = "/"
    users: dict[str, str] | None = None
    entries: dict[str, Entry] = Field(default_factory=dict)


# ---------------------------------------------------------------------------- reading


class _DuplicateKey(HostSpecError):
    """A key repeated in one JSON object (raised without the file's name)."""


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            # json.load would keep the last silently; a repeated entry is a typo.
            raise _DuplicateKey(f"key {key!r} appears twice")
        seen[key] = value
    return seen


def read_spec(source: str | Path) -> dict[str, Any]:
    """Read a host spec file as a plain dict (JSON), with clear errors."""
    path = Path(source)
    text = read_text(path, HostSpecError)
    try:
        data = parse_json(text, path, HostSpecError, object_pairs_hook=_reject_duplicate_keys)
    except _DuplicateKey as exc:
        raise HostSpecError(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise HostSpecError(f"{path}: a host spec is a JSON object, not {type(data).__name__}")
    return data


def _describe_validation(exc: ValidationError, data: Mapping[str, Any]) -> str:
    """One line per problem, naming the entry it is in."""
    lines = []
    for err in exc.errors():
        loc = list(err["loc"])
        where = "spec"
        if len(loc) >= 2 and loc[0] == "entries":
            where = f"entry {loc[1]!r}"
            loc = loc[2:]
            if loc and loc[0] in ("dir", "file", "symlink"):
                loc = loc[1:]  # the discriminator's tag, not a key the author wrote
        key = ".".join(str(part) for part in loc)
        kind = err["type"]
        if kind == "extra_forbidden":
            text = f"unknown key {key!r}"
        elif kind == "union_tag_invalid":
            text = "'type' must be one of 'dir', 'file', 'symlink'"
        elif kind == "union_tag_not_found":
            text = "needs a 'type': 'dir', 'file' or 'symlink'"
        elif kind == "missing":
            text = f"missing required key {key!r}"
        elif kind == "literal_error" and key == "version":
            text = f"unsupported version {data.get('version')!r} (this explorer reads 1)"
        else:
            text = f"{key}: {err['msg']}" if key else err["msg"]
        lines.append(f"{where}: {text}")
    shown = lines[:8]
    if len(lines) > len(shown):
        shown.append(f"... and {len(lines) - len(shown)} more")
    return "; ".join(shown)


def _validated(data: Mapping[str, Any] | HostSpec, origin: str) -> HostSpec:
    if isinstance(data, HostSpec):
        return data
    if not isinstance(data, Mapping):
        raise HostSpecError(f"{origin}: a host spec is an object, not {type(data).__name__}")
    _check_limits(data, origin)
    _precheck_raw(data, origin)
    try:
        return HostSpec.model_validate(dict(data))
    except ValidationError as exc:
        raise HostSpecError(f"{origin}: {_describe_validation(exc, data)}") from None


def from_spec(spec: Mapping[str, Any] | HostSpec | str | Path) -> VirtualFS | WindowsHost:
    """Build the filesystem a spec (a dict, or a JSON file's path) describes: a
    :class:`VirtualFS`, or a :class:`~.windows.WindowsHost` for ``"platform": "windows"``."""
    if isinstance(spec, (str, Path)):
        origin = str(spec)
        data: Mapping[str, Any] | HostSpec = read_spec(spec)
    else:
        origin = "host spec"
        data = spec
    return _from_data(data, origin)


def _from_data(data: Mapping[str, Any] | HostSpec, origin: str) -> VirtualFS | WindowsHost:
    windows = isinstance(data, Mapping) and data.get("platform") == "windows"
    if windows:
        data = inner_spec(cast(Mapping[str, Any], data), origin)
    model = _validated(data, origin)
    try:
        fs = _build(model, windows)
    except HostSpecError as exc:
        raise HostSpecError(f"{origin}: {exc}") from None
    _probe_links(fs, model, origin)
    if windows:
        return WindowsHost(fs)
    return fs


def _probe_links(fs: VirtualFS, spec: HostSpec, origin: str) -> None:
    """Resolve every symlink once when there are many, refusing a spec that nests them
    deeper than :data:`MAX_LINK_CHAIN`.

    :func:`_check_limits` follows chains by their text; links can also chain through
    directory links (``a -> /d/x/b`` with ``/d/x -> /d``), which only resolving shows.
    CPython's realpath recurses once per nested link (3.10-3.12), so such a spec is
    one the host itself couldn't resolve: refused here, naming the entry, rather than
    answered. Specs with fewer links than :data:`MAX_LINK_CHAIN` can't nest that deep.
    """
    links = [p for p, e in spec.entries.items() if isinstance(e, SymlinkEntry)]
    if len(links) <= MAX_LINK_CHAIN:
        return
    for path in links:
        try:
            nested = fs.link_nesting(path)
        except (OSError, ValueError):
            continue
        if nested > MAX_LINK_CHAIN:
            raise HostSpecError(
                f"{origin}: entry {path!r}: resolving it follows symlinks through symlinks "
                f"too deeply to finish (the limit is {MAX_LINK_CHAIN} in a chain); "
                "refused")


def _depth(path: str) -> int:
    return 0 if path == "/" else path.count("/")


def _build(spec: HostSpec, windows: bool = False) -> VirtualFS:
    root_entry = spec.entries.get("/")
    root_device = "root"
    if root_entry is not None:
        if not isinstance(root_entry, DirEntry) or root_entry.bind is not None:
            raise HostSpecError("entry '/': the root can only be a plain directory")
        root_device = root_entry.device or "root"
    fs = VirtualFS(
        case_insensitive=spec.case_insensitive,
        home=spec.home,
        cwd=spec.cwd,
        label=spec.label,
        description=spec.description,
        root_device=root_device,
        users=spec.users,
        name_fold=fold_ntfs if windows else None,
    )
    if root_entry is not None:
        fs.mkdir("/", device=root_entry.device)

    bind_dests = [p for p, e in spec.entries.items() if isinstance(e, DirEntry) and e.bind]
    _check_no_entries_below_binds(spec, bind_dests)
    binds: list[tuple[str, DirEntry]] = []
    # Parents before children, so a child inherits its mount's device.
    for path in sorted(spec.entries, key=lambda p: (_depth(p), p)):
        entry = spec.entries[path]
        if path == "/":
            continue
        if isinstance(entry, DirEntry):
            if entry.bind is not None:
                if entry.device is not None:
                    raise HostSpecError(
                        f"entry {path!r}: a bind mount shows its source's device; "
                        "drop 'device' or move it to the source"
                    )
                binds.append((path, entry))
            else:
                fs.mkdir(path, device=entry.device, exist_ok=True)
        elif isinstance(entry, FileEntry):
            fs.add_file(path, inode=entry.inode, device=entry.device)
        else:
            fs.symlink(entry.target, path, inode=entry.inode)
    # Binds last, since their sources must be complete; a source may itself be reached
    # through another bind, so bind whatever can be bound until nothing is left.
    pending = sorted(binds, key=lambda item: (_depth(item[0]), item[0]))
    while pending:
        ready = [(p, e) for p, e in pending if e.bind is not None and fs.is_dir(e.bind)]
        for path, entry in ready or pending[:1]:  # nothing ready: let the first one fail
            assert entry.bind is not None
            fs.bind(entry.bind, path)
        pending = [item for item in pending if item not in ready]

    if not fs.is_dir(spec.cwd):
        raise HostSpecError(
            f"cwd {spec.cwd!r} is not a directory of this host; add it as a 'dir' entry"
        )
    return fs


def _precheck_raw(data: Mapping[str, Any], origin: str) -> None:
    """Errors that strict validation would word too vaguely, phrased for the author."""
    entries = data.get("entries")
    if not isinstance(entries, Mapping):
        return
    dirs_by_inode: dict[str, list[str]] = {}
    for path, entry in entries.items():
        if isinstance(entry, Mapping) and entry.get("type") == "dir" and "inode" in entry:
            dirs_by_inode.setdefault(str(entry["inode"]), []).append(str(path))
    for key, paths in sorted(dirs_by_inode.items()):
        paths.sort()
        cycle = any(
            other != path and other.startswith(path.rstrip("/") + "/")
            for path in paths
            for other in paths
        )
        what = " (and one inside the other would be a cycle)" if cycle else ""
        raise HostSpecError(
            f"{origin}: entry {paths[0]!r}: directories can't be hardlinked (inode "
            f"{key!r} on {', '.join(paths)}){what}; to show one directory at two places, "
            'give the second a "bind" to the first'
        )


def _check_limits(data: Mapping[str, Any], origin: str) -> None:
    """Refuse a spec whose size would make loading or resolving it unbounded.

    Checked on the raw JSON, before anything is built: the number of entries, the length
    of each path and symlink target (a path of PATH_MAX bytes or more can't be looked up
    on Linux anyway), and how many symlinks lead one to the next (resolving a chain
    recurses once per link, as CPython's realpath does).
    """
    entries = data.get("entries")
    if not isinstance(entries, Mapping):
        return
    if len(entries) > MAX_SPEC_ENTRIES:
        raise HostSpecError(
            f"{origin}: {len(entries)} entries, more than the limit of {MAX_SPEC_ENTRIES}; "
            "refused"
        )
    links: dict[str, str] = {}
    for path, entry in entries.items():
        if isinstance(path, str) and _byte_len(path) >= PATH_MAX:
            raise HostSpecError(
                f"{origin}: entry {path[:60]!r}...: the path is {PATH_MAX} bytes or more "
                "(Linux's PATH_MAX); refused"
            )
        if isinstance(entry, Mapping) and entry.get("type") == "symlink":
            target = entry.get("target")
            if isinstance(path, str) and isinstance(target, str):
                base = posixpath.dirname(path) or "/"
                links[path] = posixpath.normpath(posixpath.join(base, target))
    longest, start = _longest_link_chain(links, bool(data.get("case_insensitive") is True))
    if longest > MAX_LINK_CHAIN:
        raise HostSpecError(
            f"{origin}: entry {start!r} starts a chain of {longest} symlinks, more than "
            f"the limit of {MAX_LINK_CHAIN}; refused"
        )


def _longest_link_chain(links: Mapping[str, str], fold: bool) -> tuple[int, str]:
    """The longest run of symlinks each leading to the next, and where it starts.

    A link leads to the link that is its target, or that its target passes through.
    Worked out without recursion; a loop counts each of its links once.
    """
    key = (lambda s: s.casefold()) if fold else (lambda s: s)
    by_key = {key(path): path for path in links}

    def next_link(target: str) -> str | None:
        prefix = ""
        for part in target.split("/")[1:]:
            prefix += "/" + part
            found = by_key.get(key(prefix))
            if found is not None:
                return found
        return None

    lengths: dict[str, int] = {}
    best, best_start = 0, ""
    for start in links:
        trail: list[str] = []
        on_trail: set[str] = set()
        link: str | None = start
        while link is not None and link not in lengths and link not in on_trail:
            trail.append(link)
            on_trail.add(link)
            link = next_link(links[link])
        tail = lengths.get(link, 0) if link is not None else 0
        for step in reversed(trail):
            tail += 1
            lengths[step] = tail
        if lengths[start] > best:
            best, best_start = lengths[start], start
    return best, best_start


def _check_no_entries_below_binds(spec: HostSpec, binds: list[str]) -> None:
    fold = (lambda s: s.casefold()) if spec.case_insensitive else (lambda s: s)
    for dest in binds:
        prefix = fold(dest) + "/"
        for path in spec.entries:
            if fold(path).startswith(prefix):
                raise HostSpecError(
                    f"entry {path!r}: {dest} is a bind mount; list this entry under the "
                    "mount's source instead"
                )


# ---------------------------------------------------------------------------- writing


def to_spec(fs: VirtualFS) -> dict[str, Any]:
    """The canonical spec of ``fs``: JSON-ready, entries sorted by path."""
    spec: dict[str, Any] = {"version": SPEC_VERSION}
    if fs.spec_label is not None:
        spec["label"] = fs.spec_label
    if fs.description is not None:
        spec["description"] = fs.description
    spec["case_insensitive"] = fs.case_insensitive
    spec["home"] = fs.home()
    spec["cwd"] = fs.cwd
    if fs.users:
        spec["users"] = fs.users
    spec["entries"] = fs.spec_entries()
    return spec


def format_spec(spec: Mapping[str, Any]) -> str:
    """A spec as JSON text with one entry per line, so diffs of snapshots stay readable."""
    lines = ["{"]
    items = list(spec.items())
    for index, (key, value) in enumerate(items):
        comma = "," if index < len(items) - 1 else ""
        if key == "entries" and isinstance(value, Mapping) and value:
            lines.append(f"  {json.dumps(key)}: {{")
            entries = list(value.items())
            for n, (path, entry) in enumerate(entries):
                sep = "," if n < len(entries) - 1 else ""
                lines.append(
                    f"    {json.dumps(path, ensure_ascii=False)}: "
                    f"{json.dumps(entry, ensure_ascii=False)}{sep}"
                )
            lines.append(f"  }}{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def dump_spec(spec: Mapping[str, Any], path: str | Path, *, force: bool = False) -> None:
    """Write a spec to ``path`` in :func:`format_spec`'s layout, as every file this package
    writes: an existing file replaced only with ``force`` (kept as a ``.bak``), never
    through a symlink (:class:`HostSpecError` saying why not)."""
    from ..userfiles import write_output

    write_output(path, format_spec(spec), HostSpecError, force=force)


# ---------------------------------------------------------------------------- examples


def _examples_dir() -> Any:
    return resources.files(_EXAMPLES_PACKAGE).joinpath(*_EXAMPLES_DIR)


def list_example_hosts() -> list[str]:
    """Names of the example hosts shipped with the package (e.g. ``container``)."""
    return sorted(
        item.name[: -len(".json")]
        for item in _examples_dir().iterdir()
        if item.name.endswith(".json")
    )


def example_host_path(name: str) -> Any:
    """The packaged JSON of example host ``name`` (a Traversable; ``.read_text()``)."""
    if name not in list_example_hosts():
        raise HostSpecError(
            f"no example host named {name!r} (examples: {', '.join(list_example_hosts())})"
        )
    return _examples_dir().joinpath(f"{name}.json")


def load_example(name: str) -> VirtualFS:
    """The shipped example host ``name`` as a VirtualFS."""
    text = example_host_path(name).read_text(encoding="utf-8")
    try:
        data = json.loads(text, object_pairs_hook=_reject_duplicate_keys)
    except (json.JSONDecodeError, HostSpecError) as exc:  # a packaging mistake
        raise HostSpecError(f"example host {name!r}: {exc}") from None
    fs = _from_data(data, f"example host {name!r}")
    assert isinstance(fs, VirtualFS), "the shipped example hosts are POSIX hosts"
    return fs


def load_fs(spec: str | Path | Mapping[str, Any] | FileSystem | None) -> FileSystem:
    """The filesystem the CLI's ``--fs SPEC`` names.

    ``None`` or ``"host"``: this machine (:class:`HostFS`). A shipped example's name
    (``container``, ``macos-laptop``, ``traps``, see :func:`list_example_hosts`): that
    example. A dict: a spec. Anything else: the path of a JSON spec file.
    """
    if spec is None:
        return HostFS()
    if isinstance(spec, FileSystem):
        return spec
    if isinstance(spec, Mapping):
        return from_spec(spec)
    if isinstance(spec, str):
        if spec == "host":
            return HostFS()
        looks_like_name = "/" not in spec and not spec.endswith(".json")
        if looks_like_name and spec in list_example_hosts():
            return load_example(spec)
        if looks_like_name and not Path(spec).exists():
            raise HostSpecError(
                f"{spec!r} is neither a host spec file nor an example host "
                f"(examples: {', '.join(list_example_hosts())}; or 'host' for this machine)"
            )
    return from_spec(Path(spec))
