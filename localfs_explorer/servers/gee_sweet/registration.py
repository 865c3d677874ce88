"""Which tools a server with a given policy registers.

The server's rule (design §7): a tool is registered when ``ENABLED_TOOLS`` allows it and,
in off mode, when it is not local-only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...catalog.model import Catalog, Registration

if TYPE_CHECKING:  # the engine is imported only for type hints
    from .policy import Policy

__all__ = ["Registration", "parse_enabled_tools", "register_tools"]


def parse_enabled_tools(value: str | None) -> set[str] | None:
    """Parse ``ENABLED_TOOLS`` the way the server does.

    A comma-separated list of tool names; spaces around each name are stripped and empty
    items ignored, and names are matched exactly (case-sensitive). Unset, empty, or
    nothing but commas and spaces means no restriction: every tool is enabled (``None``).
    """
    # mirrors mcp-gee-sweet 0.9.5 server._parse_enabled_tools: names stripped, empty items dropped,
    # and a list naming nothing restricts nothing
    if value is None:
        return None
    names = {item.strip() for item in value.split(",")}
    names.discard("")
    return names or None


def register_tools(policy: Policy, catalog: Catalog | None = None) -> Registration:
    """Apply the server's registration rule to every catalog tool.

    Reads ``ENABLED_TOOLS`` from ``policy.env`` and the resolved ``policy.mode`` (an
    invalid configuration has already resolved to off, the fail-safe).
    """
    if catalog is None:
        from .shipped import shipped_catalog

        catalog = shipped_catalog()
    enabled = parse_enabled_tools(policy.env.get("ENABLED_TOOLS"))
    mode = str(getattr(policy.mode, "value", policy.mode))
    off = mode == "off"
    registered: list[str] = []
    dropped: list[str] = []
    not_enabled: list[str] = []
    for tool in catalog.tools:
        # mirrors mcp-gee-sweet 0.9.5 server.tool: ENABLED_TOOLS first, then off mode keeps
        # local-only tools out, so only tools ENABLED_TOOLS allowed count as unregistered
        if enabled is not None and tool.name not in enabled:
            not_enabled.append(tool.name)
        elif tool.local_only and off:
            dropped.append(tool.name)
        else:
            registered.append(tool.name)
    warnings: list[str] = []
    if enabled is not None and dropped:
        warnings.append(
            "ENABLED_TOOLS names local-only tools that aren't registered because local "
            f"file access is off (LOCAL_FILE_ACCESS): {', '.join(dropped)}"
        )
    unknown = sorted(enabled - set(catalog.names())) if enabled is not None else []
    return Registration(
        mode=mode,
        enabled_tools=sorted(enabled) if enabled is not None else None,
        registered=registered,
        unregistered=dropped,
        not_enabled=not_enabled,
        warnings=warnings,
        unknown_enabled=unknown,
    )
