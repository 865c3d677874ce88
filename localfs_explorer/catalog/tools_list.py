"""Catalogs from what a server's ``tools/list`` says.

Two readings of a ``tools/list`` result: :func:`server_tools_from_tools_list` writes the
generated layer of the shipped catalog (the pinned server's tools, arguments and
annotations, nothing guessed), and :func:`catalog_from_tools_list` builds a whole catalog
for a server the explorer has no local-path layer for, guessing which arguments are
local paths from their names (each such parameter is marked ``guessed``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from . import locations
from .model import Catalog, CatalogError, Op, PathParam, ToolHints, _destructive, _validate

__all__ = ["catalog_from_tools_list", "server_tools_from_tools_list"]


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
    server: str | None = None,
) -> dict[str, Any]:
    """The generated layer of the catalog from a ``tools/list`` result.

    Keeps, per tool in the server's order: its name, the first line of its description,
    its annotations, whether it is local-only (the caller says: a schema doesn't), and
    each argument of its ``inputSchema`` with whether it is required, the JSON types it
    admits and its default. ``server`` names the server (None: the default one).
    """
    if server is None:
        from ..server import DEFAULT_SERVER

        server = DEFAULT_SERVER
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
