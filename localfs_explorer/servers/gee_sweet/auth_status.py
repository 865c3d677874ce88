"""The ``local_file_access`` object of the server's ``server://auth-status`` resource.

The server adds one top-level object to that resource, the same in each of the three
answers the resource can give (unauthorized, service account, full access), so a client
learns the policy without guessing paths (spec §9)::

    "local_file_access": {
      "mode": "roots", "explicit": true,
      "roots": ["/data", "/srv/exports"], "unregistered_tools": []
    }

Only this object is modelled. The resource's other fields describe the server's Google
authentication and belong to the server; :func:`auth_status_preview` says so in the
JSON itself instead of inventing them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from ...errors import LocalfsError

__all__ = [
    "BRANCHES",
    "AuthStatusError",
    "auth_status_json",
    "auth_status_preview",
    "local_file_access",
]

#: The three answers of the resource; ``local_file_access`` is identical in each.
BRANCHES: tuple[str, ...] = ("unauthorized", "service_account", "full_access")

_NOT_MODELLED = (
    "Only local_file_access is modelled here. The resource's other fields (the "
    "authentication state, limited_tools, limitations and the rest) are produced by the "
    "server from its Google credentials; they are not modelled, and are left out rather "
    "than guessed."
)


class AuthStatusError(LocalfsError):
    """A preview that can't be built (an unknown branch name)."""


class RegistrationLike(Protocol):
    """What this module reads from the catalog's registration result."""

    @property
    def unregistered(self) -> Sequence[str]: ...  # pragma: no cover - protocol


def _mode_name(policy: Any) -> str:
    mode = policy.mode
    return str(getattr(mode, "value", mode))


def local_file_access(policy: Any, registration: RegistrationLike | None = None) -> dict:
    """The ``local_file_access`` object exactly as the server reports it.

    Args:
        policy: a resolved :class:`~localfs_explorer.Policy`.
        registration: the catalog's registration for ``policy``; its ``unregistered``
            lists the tools the policy kept from registering (local-only tools that
            ``ENABLED_TOOLS`` would otherwise have allowed). Computed with
            :func:`~localfs_explorer.servers.gee_sweet.registration.register_tools` when
            omitted, and only in off mode (the field is empty in the other modes whatever
            is passed).

    Returns ``{"mode", "explicit", "roots", "unregistered_tools"}``: ``roots`` holds the
    configured spellings in roots mode only, ``unregistered_tools`` (sorted) is filled in
    off mode only; both are empty lists otherwise.
    """
    mode = _mode_name(policy)
    # mirrors mcp-gee-sweet 0.9.5 server._local_file_access_status: the configured spellings, not
    # the realpaths, so an operator recognises the roots they wrote
    roots = [root.configured for root in policy.roots] if mode == "roots" else []
    unregistered: list[str] = []
    if mode == "off":
        if registration is None:
            registration = _registration(policy)
        # mirrors mcp-gee-sweet 0.9.5 server._local_file_access_status: the names sorted, not in
        # registration order
        unregistered = sorted(registration.unregistered)
    return {
        "mode": mode,
        "explicit": bool(policy.explicit),
        "roots": roots,
        "unregistered_tools": unregistered,
    }


def auth_status_preview(
    policy: Any,
    branch: str | None = None,
    *,
    registration: RegistrationLike | None = None,
) -> dict:
    """The resource as far as it is modelled: ``local_file_access`` at the top level.

    ``branch`` names one of :data:`BRANCHES` (None: any of them, since the object is the
    same in all three). The ``_preview`` key is this tool's annotation, not part of the
    server's resource: it names the branch and says what is not modelled.
    """
    if branch is not None and branch not in BRANCHES:
        raise AuthStatusError(
            f"unknown auth-status branch {branch!r}: use one of {', '.join(BRANCHES)}"
        )
    return {
        "local_file_access": local_file_access(policy, registration),
        "_preview": {
            "branch": branch if branch is not None else "any",
            "local_file_access_identical_in": list(BRANCHES),
            "not_modelled": _NOT_MODELLED,
        },
    }


def auth_status_json(
    policy: Any,
    branch: str | None = None,
    *,
    registration: RegistrationLike | None = None,
    indent: int | None = 2,
) -> str:
    """:func:`auth_status_preview` as JSON text (what ``localfs-explorer auth-status`` prints)."""
    preview = auth_status_preview(policy, branch, registration=registration)
    return json.dumps(preview, indent=indent, ensure_ascii=False)


def _registration(policy: Any) -> RegistrationLike:
    # Imported at use: the catalog loads its data file, which a caller passing its own
    # registration doesn't need.
    from .registration import register_tools

    return register_tools(policy)
