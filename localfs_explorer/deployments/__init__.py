"""Deployments read from where they live: MCP client configs.

An operator keeps a server's settings in an MCP client's config, not in a loose
``.env``: Claude Desktop's ``claude_desktop_config.json``, Claude Code's ``.mcp.json``,
Cursor's and VS Code's ``mcp.json``, an mcp-hangar YAML. :func:`load_deployment` reads
one entry of such a file into a :class:`Deployment`: which server it starts (from the
command and its arguments), its environment (expanded the way that client expands it),
working directory, transport and pinned version, each value with where it came from.
:func:`~localfs_explorer.deployments.writeback.write_back` puts validated settings back
into the entry, leaving every other byte of the file as it was.
:func:`~localfs_explorer.deployments.reach.answer_deployment` answers for every entry at
once: which server, and what it can touch (its reach).
"""

from .launch import Mount
from .load import (
    Deployment,
    Provenance,
    choose_entry,
    list_entries,
    load_deployment,
)
from .reach import DeploymentAnswer, EntryAnswer, answer_deployment
from .readers import (
    FORMATS,
    ClientConfigFile,
    ClientEntry,
    DeploymentError,
    detect_format,
    read_client_config,
)

__all__ = [
    "FORMATS",
    "ClientConfigFile",
    "ClientEntry",
    "Deployment",
    "DeploymentAnswer",
    "DeploymentError",
    "EntryAnswer",
    "Mount",
    "Provenance",
    "answer_deployment",
    "choose_entry",
    "detect_format",
    "list_entries",
    "load_deployment",
    "read_client_config",
]
