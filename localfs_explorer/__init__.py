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
