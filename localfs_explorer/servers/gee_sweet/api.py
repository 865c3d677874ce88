"""mcp-gee-sweet's public engine: the names ``import localfs_explorer`` re-exports.

The package's ``__init__`` reaches this module through the registry (the default
server's entry point), never by its path, so only this folder knows where the engine
lives. The check and the policy load at once; the rest on first use.
"""

from __future__ import annotations

from ...optional import lazy_names
from .check import Decision, TraceStep  # noqa: F401 - re-exported
from .policy import (  # noqa: F401 - re-exported
    DenyDir,
    DenyEntry,
    Policy,
    PolicyError,
    Root,
    resolve_policy,
)
from .profile import ServerProfile, load_profile  # noqa: F401 - re-exported

#: Names loaded on first use, and the module each comes from.
LAZY: dict[str, str] = {
    "register_tools": f"{__package__}.registration",
    "local_file_access": f"{__package__}.auth_status",
    "auth_status_preview": f"{__package__}.auth_status",
    "suggest_roots": f"{__package__}.suggest",
    "Suggestion": f"{__package__}.suggest",
}

#: Names loaded at once.
EAGER = ["Decision", "DenyDir", "DenyEntry", "Policy", "PolicyError", "Root",
         "ServerProfile", "TraceStep", "load_profile", "resolve_policy"]

__all__ = [*EAGER, *LAZY]

__getattr__ = lazy_names(globals(), LAZY)
