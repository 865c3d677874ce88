"""A deployment shown to people and to scripts: what came from the entry, what was
defaulted. Secret values are masked here, as everywhere (see ``secrets``)."""

from __future__ import annotations

from typing import Any

from .load import Deployment

__all__ = ["deployment_json", "deployment_lines"]


def deployment_lines(found: Deployment) -> list[str]:
    """The deployment as text lines: the entry, then each setting and its source."""
    version = f" {found.server_version}" if found.server_version else ""
    lines = [f"deployment: {found.client} entry {found.entry!r} ({found.where}): "
             f"{found.server}{version}"]
    for item in found.provenance:
        lines.append(f"  {item.describe()}")
    for note in found.notes:
        lines.append(f"  note: {note}")
    return lines


def deployment_json(found: Deployment) -> dict[str, Any]:
    """The deployment as a JSON-ready mapping (secrets masked)."""
    return {
        "file": found.path, "format": found.format, "entry": found.entry,
        "line": found.line, "server": found.server, "server_version": found.server_version,
        "transport": found.transport, "cwd": found.cwd, "env": found.masked_env(),
        "env_file": found.env_file, "allowed_dirs": list(found.allowed_dirs),
        "container": found.container,
        "mounts": [m.describe() for m in found.mounts],
        "provenance": [p.model_dump() for p in found.provenance],
        "notes": list(found.notes),
    }
