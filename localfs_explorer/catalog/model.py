"""The catalog's records: tools, their arguments and local-path parameters."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from ..errors import LocalfsError
from . import locations

Op = Literal["read", "write", "direction"]
Direction = Literal["upload", "download", "bidirectional"]
DIRECTIONS: tuple[str, ...] = ("upload", "download", "bidirectional")


class CatalogError(LocalfsError):
    """A catalog file or ``tools/list`` result that can't be read or has a bad entry."""


def iter_locations(arguments: Any, location: str) -> Iterator[tuple[str, Any]]:
    """Yield ``(label, value)`` for every value present at ``location`` in ``arguments``.

    The label spells the concrete position, e.g. ``attachments[1].local_path``. Missing
    keys, ``None`` values and items of the wrong shape yield nothing: the server would
    treat them as "not given". The grammar is :mod:`localfs_explorer.catalog.locations`'.
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
    #: The tool's own words for another suffix: ``{suffix}`` is the suffix as given,
    #: ``{suffix_lower}`` lower-cased (tools differ in which they quote).
    suffix_error: str | None = None
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


def _destructive(hints: Mapping[str, Any]) -> bool:
    """:attr:`ToolHints.destructive` for raw annotations (MCP's defaults apply)."""
    return hints.get("readOnlyHint") is not True and hints.get("destructiveHint") is not False


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
