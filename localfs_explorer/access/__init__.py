"""Tool access: which tools a caller sees, which are held for approval, and by whom.

Two sources answer that question:

- :mod:`.lists`: the explorer's own access lists (TOML or JSON tables ``server``,
  ``group``, ``member``), merged by the documented rule;
- :mod:`.hangar`: an mcp-hangar configuration (YAML), answered per call route as
  hangar 2.34.4 answers it, with the documented answer beside it and a finding where
  the two differ.

The names importable from ``localfs_explorer.access`` before it became a package
still are.
"""

from __future__ import annotations

from .lists import (
    DEFAULT_APPROVAL_TIMEOUT_SECONDS,
    SCOPE_NAMES,
    AccessListError,
    Gate,
    ToolAccess,
    access_from_mapping,
    load_access,
    merge,
    merge_scopes,
    pattern_problem,
)

__all__ = [
    "DEFAULT_APPROVAL_TIMEOUT_SECONDS",
    "SCOPE_NAMES",
    "AccessListError",
    "Gate",
    "ToolAccess",
    "access_from_mapping",
    "load_access",
    "merge",
    "merge_scopes",
    "pattern_problem",
]
