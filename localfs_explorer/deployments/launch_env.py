"""The environment a client starts a server entry with, for starting it the same way.

An MCP client doesn't hand a stdio server its own whole environment: it passes a short
list of its variables (the MCP SDKs' default: where home is, who the user is, where
programs are, the shell and terminal) and the entry's own ``env`` over them (the
``envFile`` first, when the client reads one). A server started by the explorer to check
an entry (``verify --client-config``) gets exactly that, whichever server it is: not
the operator's whole environment, which would both hand it variables the client never
gives it (and answers the client's server would not give) and pass secrets it was
never meant to see.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from .load import Deployment

__all__ = ["CLIENT_INHERITED", "client_environment", "launch_environment"]

#: The variables a client passes on of its own environment (the MCP SDKs' default list).
CLIENT_INHERITED: tuple[str, ...] = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
#: The same on Windows, where a process needs more of them to start at all.
CLIENT_INHERITED_WINDOWS: tuple[str, ...] = (
    "APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT",
    "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME",
    "USERPROFILE",
)


def client_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """What a client passes on of ``environ`` (default: this process's) to a server.

    A value that starts with ``()`` is a shell function exported through the
    environment, which the SDKs leave out.
    """
    source = os.environ if environ is None else environ
    names = CLIENT_INHERITED_WINDOWS if os.name == "nt" else CLIENT_INHERITED
    return {name: source[name] for name in names
            if name in source and not source[name].startswith("()")}


def launch_environment(found: Deployment,
                       environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment the entry's client starts its server with: the client's few
    variables (from ``environ``, default this process's), the entry's ``envFile`` and
    ``env`` over them (for a ``docker run`` entry: what the container is given)."""
    return {**client_environment(environ), **found.env}
