"""The MCP reference filesystem server (``@modelcontextprotocol/server-filesystem``).

Its allow-list (argv directories, MCP roots), its ``validatePath`` per release with the
exact error texts and the path each tool acts on, its 14 tools, and what
``list_allowed_directories`` answers.
"""

from .policy import (
    DEFAULT_VERSION,
    VERSIONS,
    AllowedDirectories,
    FilesystemConfig,
    FilesystemPolicy,
    ValidatePathVerdict,
    resolve_allowed_directories,
)

#: The id this server is known by (``--server server-filesystem``).
SERVER_ID = "server-filesystem"

__all__ = [
    "DEFAULT_VERSION",
    "SERVER_ID",
    "VERSIONS",
    "AllowedDirectories",
    "FilesystemConfig",
    "FilesystemPolicy",
    "ValidatePathVerdict",
    "resolve_allowed_directories",
]
