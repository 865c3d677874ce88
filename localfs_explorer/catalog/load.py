"""Reading catalogs: the shipped one (the server's tools with the local layer on top),
user catalog files and saved ``tools/list`` results."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import userfiles
from . import locations
from .model import Catalog, CatalogError, _destructive, _validate
from .tools_list import _first_tool, catalog_from_tools_list


def load_catalog(path: str | Path | None = None) -> Catalog:
    """The shipped catalog (``path=None``) or one read from a JSON or TOML file.

    Raises :class:`CatalogError` naming the file and the bad entry.
    """
    if path is None:
        return default_catalog()
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


#: The package whose ``data/`` holds the shipped catalog: the default server's.
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


def default_catalog() -> Catalog:
    """The default server's shipped catalog (each server reads its own once)."""
    from ..server import get_server

    return get_server().catalog()
