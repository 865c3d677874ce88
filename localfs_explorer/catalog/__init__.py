"""The server's tools as data: the shipped catalog, user catalogs, the local-path layer.

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

What ``tools/list`` results say is read in :mod:`localfs_explorer.catalog.tools_list`.
Which tools a policy registers is each server's rule, kept in that server's folder;
the :class:`Registration` record that answers is shared.
"""

from .load import default_catalog, layer_catalog, load_catalog
from .model import (
    DIRECTIONS,
    Argument,
    Catalog,
    CatalogError,
    DirectionSpec,
    ImageParam,
    PathParam,
    Registration,
    Tool,
    ToolHints,
    iter_locations,
)
from .tools_list import catalog_from_tools_list, server_tools_from_tools_list

__all__ = [
    "DIRECTIONS",
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
    "default_catalog",
    "iter_locations",
    "layer_catalog",
    "load_catalog",
    "server_tools_from_tools_list",
]
