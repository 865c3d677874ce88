"""localfs-explorer: probe, explain and export an MCP server's local-file access policy.

The engine is a pure function of (the server's environment, its transport, the target
filesystem)::

    from localfs_explorer import load_env, resolve_policy
    policy = resolve_policy(load_env(".env"), transport="sse")
    decision = policy.check_read("/data/report.csv")

Importing this package loads neither pandas nor anything Jupyter.
"""

from typing import TYPE_CHECKING

from .config import ConfigError, ResolvedConfig, ServerConfig, resolve_config
from .envfile.load import EnvFileError, ServerEnv, load_env
from .errors import LocalfsError
from .fs import FileSystem, HostFS
from .optional import lazy_names as _lazy_names
from .server import default_engine as _default_engine
from .vocab import Mode

# The default server's engine (Policy, resolve_policy, Decision, ...) comes from its own
# folder through the registry: only that folder knows where it lives.
_engine = _default_engine()
Decision = _engine.Decision
TraceStep = _engine.TraceStep
DenyDir = _engine.DenyDir
DenyEntry = _engine.DenyEntry
Policy = _engine.Policy
PolicyError = _engine.PolicyError
Root = _engine.Root
resolve_policy = _engine.resolve_policy
ServerProfile = _engine.ServerProfile
load_profile = _engine.load_profile

if TYPE_CHECKING:  # what a type checker sees of the names loaded on first use
    from .access import (
        AccessListError,
        CallRoute,
        HangarAccess,
        ToolAccess,
        answer_tools,
        load_access,
        load_hangar,
        merge_scopes,
    )
    from .catalog import catalog_from_tools_list, load_catalog
    from .deployments import Deployment, load_deployment
    from .discovery import FoundPath, discover_paths
    from .envfile.export import export_env
    from .exposure import Finding, Inventory
    from .fs.snapshot import snapshot
    from .fs.spec import from_spec, list_example_hosts, load_fs, to_spec
    from .fs.virtual import VirtualFS
    from .probe import CallVerdict, probe_call, probe_calls
    from .review.diff import compare_policies, diff_policies
    from .review.scenarios import run_scenarios
    from .review.sessions import LedgerRules, load_session, replay_session
    from .sensitive import sensitive_reason


def _installed_version() -> str:
    # One version source: the package metadata written from pyproject.toml at install.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("localfs-explorer")
    except PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
        return "0+unknown"


__version__ = _installed_version()

# The rest of the API is loaded on first use, so importing the package stays cheap for a
# server that only wants the check. Every name here is also imported above for type
# checkers; a test keeps the two lists and __all__ in step.
_LAZY: dict[str, str] = {
    "VirtualFS": "localfs_explorer.fs.virtual",
    "load_fs": "localfs_explorer.fs.spec",
    "from_spec": "localfs_explorer.fs.spec",
    "to_spec": "localfs_explorer.fs.spec",
    "list_example_hosts": "localfs_explorer.fs.spec",
    "snapshot": "localfs_explorer.fs.snapshot",
    "load_catalog": "localfs_explorer.catalog",
    "catalog_from_tools_list": "localfs_explorer.catalog",
    "probe_call": "localfs_explorer.probe",
    "probe_calls": "localfs_explorer.probe",
    "CallVerdict": "localfs_explorer.probe",
    "ToolAccess": "localfs_explorer.access",
    "AccessListError": "localfs_explorer.access",
    "load_access": "localfs_explorer.access",
    "merge_scopes": "localfs_explorer.access",
    "load_hangar": "localfs_explorer.access",
    "answer_tools": "localfs_explorer.access",
    "CallRoute": "localfs_explorer.access",
    "HangarAccess": "localfs_explorer.access",
    "discover_paths": "localfs_explorer.discovery",
    "FoundPath": "localfs_explorer.discovery",
    "sensitive_reason": "localfs_explorer.sensitive",
    "export_env": "localfs_explorer.envfile.export",
    "load_deployment": "localfs_explorer.deployments",
    "Deployment": "localfs_explorer.deployments",
    "replay_session": "localfs_explorer.review.sessions",
    "load_session": "localfs_explorer.review.sessions",
    "LedgerRules": "localfs_explorer.review.sessions",
    "run_scenarios": "localfs_explorer.review.scenarios",
    "compare_policies": "localfs_explorer.review.diff",
    "diff_policies": "localfs_explorer.review.diff",
    "Inventory": "localfs_explorer.exposure",
    "Finding": "localfs_explorer.exposure",
}

__all__ = [
    "AccessListError",
    "CallRoute",
    "CallVerdict",
    "ConfigError",
    "Decision",
    "DenyDir",
    "DenyEntry",
    "Deployment",
    "EnvFileError",
    "FileSystem",
    "Finding",
    "FoundPath",
    "HangarAccess",
    "HostFS",
    "Inventory",
    "LedgerRules",
    "LocalfsError",
    "Mode",
    "Policy",
    "PolicyError",
    "ResolvedConfig",
    "Root",
    "ServerConfig",
    "ServerEnv",
    "ServerProfile",
    "Suggestion",
    "ToolAccess",
    "TraceStep",
    "VirtualFS",
    "answer_tools",
    "auth_status_preview",
    "catalog_from_tools_list",
    "compare_policies",
    "diff_policies",
    "discover_paths",
    "export_env",
    "from_spec",
    "list_example_hosts",
    "load_access",
    "load_catalog",
    "load_deployment",
    "load_env",
    "load_fs",
    "load_hangar",
    "load_profile",
    "load_session",
    "local_file_access",
    "merge_scopes",
    "probe_call",
    "probe_calls",
    "register_tools",
    "replay_session",
    "resolve_config",
    "resolve_policy",
    "run_scenarios",
    "sensitive_reason",
    "snapshot",
    "suggest_roots",
    "to_spec",
]


# The default server's own names loaded on first use, from its engine module.
_LAZY.update(dict.fromkeys(_engine.LAZY, _engine.__name__))

__getattr__ = _lazy_names(globals(), _LAZY)


def __dir__() -> list[str]:
    return list(__all__)
