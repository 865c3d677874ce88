"""The server's tools as data, and which of them a given policy registers.

The shipped catalog has two layers:

- ``data/server_tools.json`` is generated from the server's own ``tools/list`` (see
  ``scripts/server_tools``): every tool it registers, each argument with whether it is
  required and its default, the tool's annotations (``readOnlyHint``,
  ``destructiveHint`` …) and whether it is local-only (listed under
  ``LOCAL_FILE_ACCESS=full`` but not under ``off``). Nothing in it is written by hand.
- ``data/catalog.json`` adds what a schema can't say: which argument is a local path,
  the operation the server checks it for, whether it is checked at the tool's entry,
  folder walks, the file name written inside a destination directory, the arguments
  whose Markdown/HTML carries local image sources, and the direction table.

A tool is ``destructive`` as its annotations say, read the way MCP defines them: not
read-only and ``destructiveHint`` not false. Parameters inferred from a user-supplied
``tools/list`` result are marked ``guessed``; ``assumed`` remains for user catalogs that
choose names the server doesn't settle.

A *location* names where a path sits in a call's arguments: ``local_path`` is a top-level
argument, ``attachments[].local_path`` is the ``local_path`` key of every item of the
``attachments`` list, ``paths[]`` is every string of a list.

Registration follows the server's rule (design §7): a tool is registered when
``ENABLED_TOOLS`` allows it and, in off mode, when it is not local-only.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from . import locations, userfiles
from .errors import LocalfsError

if TYPE_CHECKING:  # the engine is imported only for type hints, keeping this module light
    from .policy import Policy

__all__ = [
    "Argument",
    "Catalog",
    "CatalogError",
    "DirectionSpec",
    "ImageParam",
    "PathParam",
    "Registration",
    "Tool",
    "ToolHints",
    "catalog_from_tools_list",
    "iter_locations",
    "layer_catalog",
    "load_catalog",
    "parse_enabled_tools",
    "register_tools",
    "server_tools_from_tools_list",
]

Op = Literal["read", "write", "direction"]
Direction = Literal["upload", "download", "bidirectional"]
DIRECTIONS: tuple[str, ...] = ("upload", "download", "bidirectional")

class CatalogError(LocalfsError):
    """A catalog file or ``tools/list`` result that can't be read or has a bad entry."""


def iter_locations(arguments: Any, location: str) -> Iterator[tuple[str, Any]]:
    """Yield ``(label, value)`` for every value present at ``location`` in ``arguments``.

    The label spells the concrete position, e.g. ``attachments[1].local_path``. Missing
    keys, ``None`` values and items of the wrong shape yield nothing: the server would
    treat them as "not given". The grammar is :mod:`localfs_explorer.locations`'.
    """
    return locations.iter_values(arguments, location)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PathParam(_Frozen):
    """One argument of a tool that names a local path."""

    #: Where the path sits in the arguments (``local_path``, ``attachments[].local_path``).
    location: str
    #: The check the server runs: read, write, or decided by the tool's direction argument.
    op: Op
    optional: bool = False
    #: The design doesn't name this parameter (or its default); the name was chosen here.
    assumed: bool = False
    #: Inferred from a ``tools/list`` schema by name, not described by a catalog author.
    guessed: bool = False
    #: The path is a folder whose entries the tool lists and checks one by one.
    walks: bool = False
    #: Checked at the tool's entry, before any API call (the optional ``local_path``s).
    checked_at_entry: bool = False
    #: How the tool walks the folder: ``top_files`` (its top-level regular files),
    #: ``drive_files`` (one destination per file of the Drive folder, subfolders left
    #: out), ``tree`` (every entry, descending). None: the generic walk by ``op``.
    walk: Literal["top_files", "drive_files", "tree"] | None = None
    #: The file the server writes when this destination is a directory, e.g.
    #: ``{sheet}_data.json``: ``{name}`` takes the call's argument of that name. The
    #: server checks ``<dir>/<file>`` too.
    default_name: str | None = None
    #: What the tool wants at an allowed path before it goes on, else it reports its own
    #: error: ``exists``, a regular ``file`` or a ``dir``.
    requires: Literal["exists", "file", "dir"] | None = None
    #: Suffixes the tool accepts (its own error otherwise), unless ``suffix_unless``
    #: names an argument that, given, says the format instead.
    suffixes: tuple[str, ...] = ()
    suffix_unless: str | None = None
    #: A refusal fails the call; False: it fails that item (an image), the call goes on.
    fails_call: bool = True
    #: Keys each list item needs before its path is checked (the item fails without).
    item_requires: tuple[str, ...] = ()
    #: Arguments one of which the tool needs (non-empty) before checking any path, else
    #: its own error; ``$NAME`` is the server's setting of that name instead.
    needs_any: tuple[str, ...] = ()
    #: A non-local argument that does the same job (e.g. inline base64 content).
    alternative: str | None = None
    note: str = ""

    @field_validator("location")
    @classmethod
    def _loc(cls, v: str) -> str:
        return locations.check_plain(v)

    @field_validator("alternative")
    @classmethod
    def _alt(cls, v: str | None) -> str | None:
        return None if v is None else locations.check_plain(v)

    @property
    def argument(self) -> str:
        """The top-level argument name the location starts with."""
        return locations.top_argument(self.location)


class ImageParam(_Frozen):
    """An argument whose Markdown/HTML may carry local image sources (``![](p)``, ``<img>``)."""

    location: str
    #: The Markdown is the content of the file this location names, not the argument.
    in_file: bool = False
    assumed: bool = False
    guessed: bool = False
    note: str = ""

    @field_validator("location")
    @classmethod
    def _loc(cls, v: str) -> str:
        return locations.check_plain(v)


class Argument(_Frozen):
    """One argument of a tool as the server's ``inputSchema`` declares it."""

    name: str = Field(min_length=1)
    required: bool = False
    #: JSON types the schema admits (``string``, ``array``, ``null`` …); empty: any.
    types: tuple[str, ...] = ()
    #: The schema's default (None also when it has none).
    default: Any = None
    #: The only values the schema allows (a ``Literal``), when it says.
    enum: tuple[Any, ...] | None = None


class ToolHints(_Frozen):
    """A tool's MCP annotations, as the server declares them (None: not given)."""

    title: str | None = None
    readOnlyHint: bool | None = None  # the MCP spelling
    destructiveHint: bool | None = None
    idempotentHint: bool | None = None
    openWorldHint: bool | None = None

    @property
    def destructive(self) -> bool:
        """Whether a client should treat the tool as destructive (MCP's defaults)."""
        return _destructive(self.model_dump())


class DirectionSpec(_Frozen):
    """The argument that decides a syncing tool's operation per entry."""

    argument: str = "direction"
    default: Direction = "bidirectional"
    #: The default is a choice made here, not given by the design.
    assumed: bool = False


class Tool(_Frozen):
    """One tool of the server, as far as local files are concerned."""

    name: str = Field(min_length=1)
    #: Registered only when local file access isn't off (design §7).
    local_only: bool = False
    #: Whether the tool does any local I/O; computed from its parameters when omitted.
    touches_disk: bool | None = None
    #: The call can overwrite, send or delete something that can't be taken back.
    destructive: bool = False
    description: str = ""
    direction: DirectionSpec | None = None
    params: tuple[PathParam, ...] = ()
    image_params: tuple[ImageParam, ...] = ()
    #: The whole entry was inferred from a ``tools/list`` result.
    guessed: bool = False
    #: The arguments the server accepts, from its ``inputSchema``; None when unknown (a
    #: hand-written catalog), and then arguments aren't validated.
    arguments: tuple[Argument, ...] | None = None
    #: The server's annotations for the tool.
    hints: ToolHints | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Tool:
        has_io = bool(self.params or self.image_params)
        if self.touches_disk is None:
            object.__setattr__(self, "touches_disk", has_io)
        elif not self.touches_disk and has_io:
            raise ValueError("touches_disk is false but the tool lists local-path parameters")
        if self.local_only and not self.params:
            raise ValueError("a local-only tool needs at least one local-path parameter")
        if any(p.op == "direction" for p in self.params) and self.direction is None:
            raise ValueError('a parameter with op "direction" needs the tool\'s "direction"')
        seen: set[str] = set()
        for p in self.params:
            if p.location in seen:
                raise ValueError(f"parameter {p.location!r} is listed twice")
            seen.add(p.location)
        return self

    @property
    def walks(self) -> bool:
        """Whether any parameter is a folder the tool walks."""
        return any(p.walks for p in self.params)

    @functools.cached_property
    def _argument_table(self) -> tuple[frozenset[str], tuple[str, ...],
                                       dict[str, tuple[str, ...]], dict[str, tuple[Any, ...]]]:
        args = self.arguments or ()
        return (frozenset(a.name for a in args), tuple(a.name for a in args if a.required),
                {a.name: a.types for a in args if a.types},
                {a.name: a.enum for a in args if a.enum is not None})

    @functools.cached_property
    def _argument_passes(self) -> tuple[tuple[str, ...], frozenset[str], frozenset[str]]:
        """The required names; the arguments any value passes (no type, no choices); those
        any string passes (a string type, no choices)."""
        args = self.arguments or ()
        return (
            tuple(a.name for a in args if a.required),
            frozenset(a.name for a in args if not a.types and a.enum is None),
            frozenset(a.name for a in args if "string" in a.types and a.enum is None),
        )

    def complete_arguments(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """``arguments`` with a placeholder for each required argument left out, and what
        the local-path parameters need before their check (a list item's required keys,
        one of ``needs_any``): for calls generated to exercise the paths."""
        out = dict(arguments)
        for a in self.arguments or ():
            if a.required and a.name not in out:
                out[a.name] = _placeholder(a)
        for p in self.params:
            needs = [n for n in p.needs_any if not n.startswith("$")]
            if needs and not any(out.get(n) for n in needs):
                out[needs[0]] = f"<{needs[0]}>"
            head, sep, _ = p.location.partition("[].")
            items = out.get(head)
            if sep and p.item_requires and isinstance(items, list):
                out[head] = [
                    {**{r: f"<{r}>" for r in p.item_requires}, **item}
                    if isinstance(item, Mapping) else item for item in items
                ]
        return out

    def argument_error(self, arguments: Mapping[str, Any]) -> str | None:
        """The server's rejection of ``arguments`` before the tool runs, or None.

        The server validates a call against the tool's ``inputSchema`` first: an
        argument it doesn't declare, a required one left out, or a value of the wrong
        JSON type (``None`` where null isn't allowed, a non-string for a string) or a
        value outside the schema's fixed choices fails
        the call before any local path is checked. Unknown when ``arguments`` is None.
        """
        if self.arguments is None:
            return None
        # Most calls pass: a required name missing, or a value not trivially accepted,
        # sends the call to the full account of its problems below.
        required, any_value, any_string = self._argument_passes
        for r in required:
            if r not in arguments:
                break
        else:
            for key, value in arguments.items():
                if key in any_value or (type(value) is str and key in any_string):
                    continue
                break
            else:
                return None
        names, required, types, enums = self._argument_table
        problems = [f"missing required argument {r!r}" for r in required if r not in arguments]
        for key, value in arguments.items():
            if key not in names:
                problems.append(f"unknown argument {key!r}")
                continue
            want = types.get(key)
            if want and not _json_type_ok(value, want):
                problems.append(f"{key!r} must be {' or '.join(want)}")
            elif key in enums and value not in enums[key]:
                problems.append(f"{key!r} must be one of "
                                f"{', '.join(repr(v) for v in enums[key])}")
        if not problems:
            return None
        return (f"{self.name}: the server rejects the arguments before running the tool: "
                + "; ".join(problems))

    # Derived views are cached: a probe asks for them once per call.
    @functools.cached_property
    def alternatives(self) -> tuple[str, ...]:
        """Non-local arguments that can replace a local path."""
        return tuple(p.alternative for p in self.params if p.alternative)

    @functools.cached_property
    def params_in_check_order(self) -> tuple[PathParam, ...]:
        """Parameters checked at the tool's entry first, then the rest in catalog order."""
        return tuple(sorted(self.params, key=lambda p: not p.checked_at_entry))

    @functools.cached_property
    def described_locations(self) -> tuple[str, ...]:
        """Argument locations this entry accounts for: paths, alternatives, images, direction.

        Path discovery leaves these alone; everything else in a call is searched.
        """
        locations = [p.location for p in self.params]
        locations += self.alternatives
        locations += [i.location for i in self.image_params]
        if self.direction is not None:
            locations.append(self.direction.argument)
        return tuple(dict.fromkeys(locations))

    @functools.cached_property
    def described_arguments(self) -> frozenset[str]:
        """Top-level arguments described whole (``local_path``, not ``attachments``)."""
        return frozenset(loc for loc in self.described_locations
                         if locations.is_argument_name(loc))


class Catalog(_Frozen):
    """A server's tools. ``get``/``names`` answer by name; order is the file's order."""

    format: int = 1
    server: str = ""
    description: str = ""
    source: str | None = None
    tools: tuple[Tool, ...] = ()

    @model_validator(mode="after")
    def _unique(self) -> Catalog:
        seen: set[str] = set()
        for t in self.tools:
            if t.name in seen:
                raise ValueError(f"tool {t.name!r} is listed twice")
            seen.add(t.name)
        return self

    @functools.cached_property
    def _by_name(self) -> dict[str, Tool]:
        # A plain attribute once computed: lookups run once per probed call.
        return {t.name: t for t in self.tools}

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, or None when the catalog doesn't describe it."""
        return self._by_name.get(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def names(self) -> list[str]:
        """Every tool name, in catalog order."""
        return [t.name for t in self.tools]

    def local_only_names(self) -> list[str]:
        """The tools off mode keeps from registering."""
        return [t.name for t in self.tools if t.local_only]

    def to_json_dict(self) -> dict[str, Any]:
        """The catalog in its file format (loadable by :func:`load_catalog`)."""
        return self.model_dump(mode="json", exclude={"source"}, exclude_defaults=True)


def _placeholder(arg: Argument) -> Any:
    """A value the server's validation accepts for ``arg``, standing for "anything"."""
    if arg.enum:
        return next((v for v in arg.enum if v is not None), None)
    kind = "string" if "string" in arg.types or not arg.types else next(
        t for t in arg.types if t != "null")
    return {"array": [], "object": {}, "boolean": False, "integer": 1,
            "number": 1}.get(kind, f"<{arg.name}>")


_PY_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "boolean": (bool,), "array": (list, tuple), "object": (Mapping,),
}


def _json_type_ok(value: Any, types: tuple[str, ...]) -> bool:
    """Whether ``value`` passes the server's validation for a schema of ``types``.

    Deliberately loose where the server's validation coerces (numbers, booleans from
    strings): only a ``None`` where null isn't allowed, a non-string where only a string
    is, and a scalar where only a list or object is are rejected here.
    """
    if value is None:
        return "null" in types
    if "string" in types and isinstance(value, str):
        return True
    if set(types) <= {"string", "null"}:
        return False  # the server doesn't turn a number, list or object into a string
    if set(types) <= {"array", "object", "null"}:
        return any(isinstance(value, _PY_JSON_TYPES[t]) for t in types if t != "null")
    return True


def _entry_name(raw: Any, loc: tuple[Any, ...]) -> str:
    """Describe the catalog entry a validation error points at."""
    if len(loc) >= 2 and loc[0] == "tools" and isinstance(loc[1], int):
        name = None
        with contextlib.suppress(KeyError, IndexError, TypeError, AttributeError):
            name = raw["tools"][loc[1]].get("name")
        where = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in loc[2:])
        where = where.replace(".[", "[")
        head = f"tool {name!r} (tools[{loc[1]}])" if name else f"tools[{loc[1]}]"
        return f"{head}: {where}" if where else head
    return ".".join(str(p) for p in loc) or "catalog"


def _validate(raw: Any, source: str) -> Catalog:
    if isinstance(raw, Mapping) and "source" not in raw:
        raw = {**raw, "source": source}
    try:
        return Catalog.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        msg = first["msg"].removeprefix("Value error, ")
        raise CatalogError(f"{source}: {_entry_name(raw, tuple(first['loc']))}: {msg}") from None


def load_catalog(path: str | Path | None = None) -> Catalog:
    """The shipped catalog (``path=None``) or one read from a JSON or TOML file.

    Raises :class:`CatalogError` naming the file and the bad entry.
    """
    if path is None:
        return _shipped_catalog()
    else:
        source = str(path)
        raw_text = userfiles.read_text(path, CatalogError)
        suffix = Path(path).suffix.lower()
    if suffix == ".toml":
        raw = userfiles.parse_toml(raw_text, source, CatalogError)
    else:
        raw = userfiles.parse_json(raw_text, source, CatalogError)
    if isinstance(raw, Mapping) and "tools" in raw and "inputSchema" in _first_tool(raw):
        # A saved tools/list result: infer its path parameters instead of rejecting it.
        return catalog_from_tools_list(raw, source=source)
    if not isinstance(raw, Mapping):
        raise CatalogError(f"{source}: a catalog is a JSON object with a 'tools' list")
    return _validate(raw, source)


def _destructive(hints: Mapping[str, Any]) -> bool:
    """:attr:`ToolHints.destructive` for raw annotations (MCP's defaults apply)."""
    return hints.get("readOnlyHint") is not True and hints.get("destructiveHint") is not False


def _data_json(name: str) -> Any:
    text = resources.files("localfs_explorer").joinpath(f"data/{name}")
    return json.loads(text.read_text(encoding="utf-8"))


def _shipped_catalog() -> Catalog:
    """The server's generated tools with the hand-written local-path layer on top."""
    return layer_catalog(_data_json("server_tools.json"), _data_json("catalog.json"),
                         source="shipped catalog")


def layer_catalog(server: Mapping[str, Any], local: Mapping[str, Any], *,
                  source: str = "catalog") -> Catalog:
    """One catalog from the server's generated tools and a hand-written local layer.

    The tool list, arguments, annotations and local-only flags come from ``server`` (the
    format :func:`server_tools_from_tools_list` writes); each entry of ``local`` adds
    path knowledge to the tool of that name. A local entry naming a tool the server
    doesn't have, or a path parameter on an argument the tool doesn't declare, is an
    error: the layer can't drift from the server silently.
    """
    layered = {t.get("name"): t for t in local.get("tools", ()) if isinstance(t, Mapping)}
    owned = {"local_only", "destructive", "arguments", "hints"}
    tools: list[dict[str, Any]] = []
    for entry in server.get("tools", ()):
        name = entry["name"]
        arguments = entry.get("arguments", [])
        hints = entry.get("annotations") or {}
        tool: dict[str, Any] = {
            "name": name,
            "local_only": bool(entry.get("local_only")),
            "destructive": _destructive(hints),
            "description": entry.get("description", ""),
            "arguments": arguments,
            "hints": hints,
        }
        extra = layered.pop(name, None)
        if extra is not None:
            clash = owned & set(extra)
            if clash:
                raise CatalogError(f"{source}: tool {name!r}: {', '.join(sorted(clash))} "
                                   "comes from the server's tools/list, not the local layer")
            declared = {a["name"] for a in arguments}
            for key in ("params", "image_params"):
                for p in extra.get(key, ()):
                    top = locations.top_argument(locations.check_plain(p["location"]))
                    if top not in declared:
                        raise CatalogError(f"{source}: tool {name!r}: {p['location']!r} is "
                                           "not an argument the server declares")
            direction = extra.get("direction")
            if direction is not None:
                arg = next((a for a in arguments if a["name"] ==
                            direction.get("argument", "direction")), None)
                if arg is None:
                    raise CatalogError(f"{source}: tool {name!r}: its direction argument is "
                                       "not one the server declares")
                extra = {**extra, "direction": {**direction, "default": arg.get("default")}}
            tool.update({k: v for k, v in extra.items() if k != "name"})
        tools.append(tool)
    if layered:
        raise CatalogError(f"{source}: the local layer describes tools the server doesn't "
                           f"list: {', '.join(sorted(map(str, layered)))}")
    version = server.get("version")
    return _validate({
        "server": server.get("server", ""),
        "description": local.get("description", "") + (
            f" Tools and arguments from {server.get('server')} {version}." if version else ""),
        "tools": tools,
    }, source)


def _schema_enum(schema: Mapping[str, Any]) -> list[Any] | None:
    """The allowed values of a schema (``enum``/``const``, through anyOf), or None."""
    if isinstance(schema.get("enum"), list):
        return list(schema["enum"])
    if "const" in schema:
        return [schema["const"]]
    values: list[Any] = []
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key) or ():
            if not isinstance(sub, Mapping):
                continue
            if sub.get("type") == "null":
                values.append(None)
                continue
            inner = _schema_enum(sub)
            if inner is None:
                return None
            values += inner
    return values or None


def _schema_arguments(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    required = set(schema.get("required") or ())
    out = []
    for name, sub in (schema.get("properties") or {}).items():
        if not isinstance(sub, Mapping):
            continue
        arg: dict[str, Any] = {"name": name, "required": name in required}
        types = sorted(_schema_types(sub))
        if types:
            arg["types"] = types
        if sub.get("default") is not None:
            arg["default"] = sub["default"]
        enum = _schema_enum(sub)
        if enum is not None:
            arg["enum"] = enum
        out.append(arg)
    return out


def _first_line(text: Any) -> str:
    """A description's first paragraph, on one line."""
    if not isinstance(text, str):
        return ""
    lines: list[str] = []
    for line in text.strip().splitlines():
        if not line.strip():
            break
        lines.append(line.strip())
    return " ".join(lines)


def server_tools_from_tools_list(
    obj: Any, *, local_only: Iterable[str] = (), version: str | None = None,
    server: str = "mcp-gee-sweet",
) -> dict[str, Any]:
    """The generated layer of the catalog from a ``tools/list`` result.

    Keeps, per tool in the server's order: its name, the first line of its description,
    its annotations, whether it is local-only (the caller says: a schema doesn't), and
    each argument of its ``inputSchema`` with whether it is required, the JSON types it
    admits and its default.
    """
    if isinstance(obj, Mapping) and isinstance(obj.get("result"), Mapping):
        obj = obj["result"]
    tools = obj.get("tools") if isinstance(obj, Mapping) else obj
    if not isinstance(tools, list):
        raise CatalogError("tools/list result: expected a 'tools' list")
    only = set(local_only)
    out: list[dict[str, Any]] = []
    for t in tools:
        schema = t.get("inputSchema") or {}
        annotations = {k: v for k, v in (t.get("annotations") or {}).items()
                       if k in ToolHints.model_fields and v is not None}
        out.append({
            "name": t["name"],
            "description": _first_line(t.get("description")),
            "local_only": t["name"] in only,
            "annotations": annotations,
            "arguments": _schema_arguments(schema),
        })
    data: dict[str, Any] = {"format": 1, "server": server}
    if version:
        data["version"] = version
    data["tools"] = out
    return data


def _first_tool(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    tools = raw.get("tools")
    if isinstance(tools, list) and tools and isinstance(tools[0], Mapping):
        return tools[0]
    return {}


# --- Inferring path parameters from a tools/list result --------------------------------

# Words that make an argument name look like a local path. Names ending in an identifier
# word (file_id, folder_name, file_url) name remote things and are left out.
_PATH_WORDS = frozenset(
    {"path", "paths", "pathname", "file", "files", "filepath", "filename", "dir", "dirs",
     "dirname", "directory", "folder", "localpath"}
)
_NOT_PATH_LAST = frozenset(
    {"id", "ids", "name", "names", "url", "urls", "uri", "type", "mime", "mimetype",
     "format", "size", "count", "content", "contents", "data", "base64", "ext",
     "extension", "pattern", "query", "title", "link"}
)
_WRITE_WORDS = frozenset(
    {"dest", "destination", "output", "out", "download", "save", "target", "write",
     "result", "export"}
)
_FOLDER_WORDS = frozenset({"dir", "dirs", "dirname", "directory", "folder"})
_MAX_SCHEMA_DEPTH = 6


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _is_path_name(name: str) -> bool:
    words = _words(name)
    return bool(words) and bool(_PATH_WORDS & set(words)) and words[-1] not in _NOT_PATH_LAST


def _schema_types(schema: Mapping[str, Any]) -> set[str]:
    """The JSON types a schema admits, looking through anyOf/oneOf (Optional[...])."""
    t = schema.get("type")
    types = set(t) if isinstance(t, list) else ({t} if isinstance(t, str) else set())
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key) or ():
            if isinstance(sub, Mapping):
                types |= _schema_types(sub)
    if not types and ("properties" in schema):
        types.add("object")
    return types


def _sub_schema(schema: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
    """``schema[key]``, or the first anyOf/oneOf branch that has it."""
    if isinstance(schema.get(key), Mapping):
        return schema[key]
    for alt in ("anyOf", "oneOf"):
        for sub in schema.get(alt) or ():
            if isinstance(sub, Mapping) and isinstance(sub.get(key), Mapping):
                return sub[key]
    return None


def _guess_params(
    tool_name: str, schema: Mapping[str, Any], prefix: str, optional: bool, depth: int
) -> Iterator[PathParam]:
    if depth > _MAX_SCHEMA_DEPTH:
        return
    props = _sub_schema(schema, "properties") or {}
    required = set(schema.get("required") or ())
    tool_writes = "download" in _words(tool_name) or "save" in _words(tool_name)
    for name, sub in props.items():
        if not isinstance(sub, Mapping) or not locations.is_argument_name(name):
            continue
        location = f"{prefix}{name}"
        opt = optional or name not in required
        types = _schema_types(sub)
        if "object" in types and _sub_schema(sub, "properties"):
            yield from _guess_params(tool_name, sub, f"{location}.", opt, depth + 1)
        if "array" in types:
            items = _sub_schema(sub, "items")
            if items is not None:
                item_types = _schema_types(items)
                if "object" in item_types:
                    yield from _guess_params(tool_name, items, f"{location}[].", True, depth + 1)
                if (not item_types or "string" in item_types) and _is_path_name(name):
                    yield _guessed(f"{location}[]", name, True, tool_writes)
        if (not types or "string" in types) and _is_path_name(name):
            yield _guessed(location, name, opt, tool_writes)


def _guessed(location: str, name: str, optional: bool, tool_writes: bool) -> PathParam:
    words = set(_words(name))
    op: Op = "write" if (words & _WRITE_WORDS or tool_writes) else "read"
    return PathParam(
        location=location,
        op=op,
        optional=optional,
        guessed=True,
        walks=bool(words & _FOLDER_WORDS),
        note="inferred from the argument's name",
    )


def catalog_from_tools_list(obj: Any, *, source: str = "tools/list result") -> Catalog:
    """Build a catalog from an MCP ``tools/list`` result.

    Accepts the result object (``{"tools": [...]}``), a whole JSON-RPC response
    (``{"result": {"tools": [...]}}``) or a bare list of tools. Each tool's
    ``inputSchema`` is searched for path-like argument names (``local_path``, ``path``,
    ``file``, ``dir`` …), looking inside objects and array items, and every parameter
    found is marked ``guessed``; its operation is guessed from its name (``dest``,
    ``output``, ``download`` … mean write). Nothing is local-only: a schema doesn't say.
    """
    if isinstance(obj, Mapping) and isinstance(obj.get("result"), Mapping):
        obj = obj["result"]
    tools = obj.get("tools") if isinstance(obj, Mapping) else obj
    if not isinstance(tools, list):
        raise CatalogError(f"{source}: expected a 'tools' list")
    entries: list[dict[str, Any]] = []
    for i, t in enumerate(tools):
        if not isinstance(t, Mapping) or not isinstance(t.get("name"), str) or not t["name"]:
            raise CatalogError(f"{source}: tools[{i}]: each tool needs a 'name' string")
        schema = t.get("inputSchema") or {}
        if not isinstance(schema, Mapping):
            raise CatalogError(f"{source}: tool {t['name']!r}: inputSchema is not an object")
        params = list(_guess_params(t["name"], schema, "", False, 0))
        unique = list({p.location: p for p in params}.values())
        desc = t.get("description") if isinstance(t.get("description"), str) else ""
        hints = {k: v for k, v in (t.get("annotations") or {}).items()
                 if k in ToolHints.model_fields and v is not None}
        annotated = isinstance(t.get("annotations"), Mapping)
        entries.append(
            {"name": t["name"], "params": unique, "guessed": True,
             "description": (desc or "").strip().split("\n", 1)[0],
             "arguments": _schema_arguments(schema) if schema.get("properties") else None,
             "hints": hints if annotated else None,
             "destructive": annotated and _destructive(hints)}
        )
    return _validate({"server": "", "tools": entries}, source)


# --- Registration ------------------------------------------------------------------------


def parse_enabled_tools(value: str | None) -> set[str] | None:
    """Parse ``ENABLED_TOOLS`` the way the server does.

    A comma-separated list of tool names; spaces around each name are stripped and empty
    items ignored, and names are matched exactly (case-sensitive). Unset, empty, or
    nothing but commas and spaces means no restriction: every tool is enabled (``None``).
    """
    if value is None:
        return None
    names = {item.strip() for item in value.split(",")}
    names.discard("")
    return names or None


class Registration(_Frozen):
    """Which tools a server with a given policy and ``ENABLED_TOOLS`` registers."""

    mode: str
    #: The parsed ``ENABLED_TOOLS`` (sorted), or None when every tool is enabled.
    enabled_tools: list[str] | None = None
    registered: list[str] = Field(default_factory=list)
    #: Local-only tools off mode dropped that ``ENABLED_TOOLS`` would otherwise allow.
    unregistered: list[str] = Field(default_factory=list)
    #: Tools ``ENABLED_TOOLS`` keeps out, whatever the mode.
    not_enabled: list[str] = Field(default_factory=list)
    #: The startup warning, when ``ENABLED_TOOLS`` named tools off mode dropped.
    warnings: list[str] = Field(default_factory=list)
    #: Names in ``ENABLED_TOOLS`` this catalog doesn't describe. The catalog covers only
    #: the tools relevant to local files, so a real tool of the server can appear here.
    unknown_enabled: list[str] = Field(default_factory=list)

    @functools.cached_property
    def _registered_set(self) -> frozenset[str]:
        return frozenset(self.registered)

    def is_registered(self, name: str) -> bool:
        """Whether ``name`` is among the registered tools."""
        return name in self._registered_set

    def why_absent(self, name: str) -> str | None:
        """One sentence on why ``name`` isn't registered, or None when it is."""
        if name in self.unregistered:
            return (
                f"{name} is local-only and local file access is off, "
                "so the server doesn't register it"
            )
        if name in self.not_enabled:
            return f"{name} is not in ENABLED_TOOLS"
        return None

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready summary (``registered``, ``unregistered``, ``warnings`` and more)."""
        return self.model_dump(mode="json")


def register_tools(policy: Policy, catalog: Catalog | None = None) -> Registration:
    """Apply the server's registration rule to every catalog tool.

    Reads ``ENABLED_TOOLS`` from ``policy.env`` and the resolved ``policy.mode`` (an
    invalid configuration has already resolved to off, the fail-safe).
    """
    catalog = catalog or default_catalog()
    enabled = parse_enabled_tools(policy.env.get("ENABLED_TOOLS"))
    mode = str(getattr(policy.mode, "value", policy.mode))
    off = mode == "off"
    registered: list[str] = []
    dropped: list[str] = []
    not_enabled: list[str] = []
    for tool in catalog.tools:
        if enabled is not None and tool.name not in enabled:
            not_enabled.append(tool.name)
        elif tool.local_only and off:
            dropped.append(tool.name)
        else:
            registered.append(tool.name)
    warnings: list[str] = []
    if enabled is not None and dropped:
        warnings.append(
            "ENABLED_TOOLS names local-only tools that aren't registered because local "
            f"file access is off (LOCAL_FILE_ACCESS): {', '.join(dropped)}"
        )
    unknown = sorted(enabled - set(catalog.names())) if enabled is not None else []
    return Registration(
        mode=mode,
        enabled_tools=sorted(enabled) if enabled is not None else None,
        registered=registered,
        unregistered=dropped,
        not_enabled=not_enabled,
        warnings=warnings,
        unknown_enabled=unknown,
    )


_DEFAULT: list[Catalog] = []


def default_catalog() -> Catalog:
    """The shipped catalog, read once."""
    if not _DEFAULT:
        _DEFAULT.append(load_catalog())
    return _DEFAULT[0]
