"""localfs-explorer: probe, explain and export an MCP server's local-file access policy.

The engine is a pure function of (the server's environment, its transport, the target
filesystem)::

    from localfs_explorer import load_env, resolve_policy
    policy = resolve_policy(load_env(".env"), transport="sse")
    decision = policy.check_read("/data/report.csv")

Importing this package loads neither pandas nor anything Jupyter.
"""

from .check import Decision, TraceStep
from .env import EnvFileError, ServerEnv, load_env
from .fs import FileSystem, HostFS
from .policy import DenyDir, DenyEntry, Mode, Policy, PolicyError, Root, resolve_policy
from .profile import ServerProfile, load_profile

__all__ = [
    "Decision",
    "DenyDir",
    "DenyEntry",
    "EnvFileError",
    "FileSystem",
    "HostFS",
    "Mode",
    "Policy",
    "PolicyError",
    "Root",
    "ServerEnv",
    "ServerProfile",
    "TraceStep",
    "load_env",
    "load_profile",
    "resolve_policy",
]

__version__ = "0.1.0"

# The rest of the API is loaded on first use, so importing the package stays cheap for a
# server that only wants the check.
_LAZY: dict[str, str] = {
    "VirtualFS": "localfs_explorer.fs.virtual",
    "load_fs": "localfs_explorer.fs.spec",
    "from_spec": "localfs_explorer.fs.spec",
    "to_spec": "localfs_explorer.fs.spec",
    "list_example_hosts": "localfs_explorer.fs.spec",
    "snapshot": "localfs_explorer.fs.snapshot",
    "load_catalog": "localfs_explorer.catalog",
    "catalog_from_tools_list": "localfs_explorer.catalog",
    "register_tools": "localfs_explorer.catalog",
    "probe_call": "localfs_explorer.probe",
    "probe_calls": "localfs_explorer.probe",
    "CallVerdict": "localfs_explorer.probe",
    "ToolAccess": "localfs_explorer.access",
    "AccessListError": "localfs_explorer.access",
    "load_access": "localfs_explorer.access",
    "merge_scopes": "localfs_explorer.access",
    "discover_paths": "localfs_explorer.discovery",
    "FoundPath": "localfs_explorer.discovery",
    "sensitive_reason": "localfs_explorer.sensitive",
    "local_file_access": "localfs_explorer.auth_status",
    "auth_status_preview": "localfs_explorer.auth_status",
    "export_env": "localfs_explorer.dotenv_export",
    "replay_session": "localfs_explorer.sessions",
    "load_session": "localfs_explorer.sessions",
    "LedgerRules": "localfs_explorer.sessions",
    "Inventory": "localfs_explorer.exposure",
    "Finding": "localfs_explorer.exposure",
    "suggest_roots": "localfs_explorer.suggest",
    "Suggestion": "localfs_explorer.suggest",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'localfs_explorer' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*__all__, *_LAZY])
