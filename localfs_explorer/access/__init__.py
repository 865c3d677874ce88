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

import os
from collections.abc import Mapping
from typing import Any

from .hangar import CallRoute, HangarAccess, ToolAnswer, answer_tools, hangar_access
from .hangar_config import HangarConfig, HangarConfigError, load_hangar, read_hangar
from .lists import (
    DEFAULT_APPROVAL_TIMEOUT_SECONDS,
    SCOPE_NAMES,
    AccessListError,
    Gate,
    ToolAccess,
    access_from_mapping,
    merge,
    merge_scopes,
    pattern_problem,
)
from .lists import load_access as load_access_lists


def load_access(source: str | os.PathLike[str] | Mapping[str, Any]) -> Any:
    """Tool access from a TOML/JSON access-list file or mapping, or a hangar route.

    A mapping with a ``hangar`` key is a route (``hangar``, ``server``, optional ``via``
    and ``tenant``) and gives a :class:`HangarAccess`; anything else gives the
    explorer's own merged :class:`ToolAccess`.
    """
    if isinstance(source, Mapping) and "hangar" in source:
        return hangar_access(dict(source))
    return load_access_lists(source)


__all__ = [
    "DEFAULT_APPROVAL_TIMEOUT_SECONDS",
    "SCOPE_NAMES",
    "AccessListError",
    "CallRoute",
    "Gate",
    "HangarAccess",
    "HangarConfig",
    "HangarConfigError",
    "ToolAccess",
    "ToolAnswer",
    "access_from_mapping",
    "answer_tools",
    "hangar_access",
    "load_access",
    "load_access_lists",
    "load_hangar",
    "merge",
    "merge_scopes",
    "pattern_problem",
    "read_hangar",
]
