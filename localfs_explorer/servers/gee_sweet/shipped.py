"""mcp-gee-sweet's shipped tool catalog (``data/``), read once."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...catalog.model import Catalog

__all__ = ["shipped_catalog"]


@functools.lru_cache(maxsize=1)
def shipped_catalog() -> Catalog:
    """Its generated tools (``data/server_tools.json``) with the hand-written local-path
    layer (``data/catalog.json``) on top, read once."""
    from ...catalog.load import layer_catalog

    def data(name: str) -> Any:
        return json.loads(resources.files(__package__).joinpath(f"data/{name}")
                          .read_text(encoding="utf-8"))

    return layer_catalog(data("server_tools.json"), data("catalog.json"),
                         source="shipped catalog")
