"""A deployment shown to people and to scripts: what came from the entry, what was
defaulted. Secret values are masked here, as everywhere (see ``secrets``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..secrets import mask_within, scrub
from ..textsafe import one_line
from .load import Deployment

__all__ = ["deployment_json", "deployment_lines"]


def deployment_lines(found: Deployment, overridden: Iterable[str] = ()) -> list[str]:
    """The deployment as text lines: the entry, then each setting and its source;
    ``overridden`` names the settings the command line replaced. Each line is one line
    whatever a value holds: a line break, a carriage return or an escape sequence in an
    entry's value is shown as an escape, so it can't rewrite the lines above it."""
    version = f" {found.server_version}" if found.server_version else ""
    lines = [one_line(f"deployment: {found.client} entry {found.entry!r} ({found.where}): "
                      f"{found.server}{version}")]
    replaced = set(overridden)
    for item in found.provenance:
        mark = "  (replaced on the command line)" if item.setting in replaced else ""
        lines.append(f"  {one_line(item.describe())}{mark}")
    for note in found.notes:
        lines.append(f"  note: {one_line(note)}")
    for warning in found.warnings:
        lines.append(f"  warning: {one_line(warning)}")
    return [scrub(line, found.secrets) for line in lines] if found.secrets else lines


def deployment_json(found: Deployment, overridden: Iterable[str] = ()) -> dict[str, Any]:
    """The deployment as a JSON-ready mapping (secrets masked); ``overridden`` as for
    :func:`deployment_lines`."""
    return mask_within({
        "overridden": sorted(set(overridden)),
        "file": found.path, "format": found.format, "entry": found.entry,
        "line": found.line, "server": found.server, "server_version": found.server_version,
        "transport": found.transport, "cwd": found.cwd, "env": found.masked_env(),
        "env_file": found.env_file,
        "server_options": {k: list(v) if isinstance(v, (list, tuple)) else v
                           for k, v in found.server_options.items()},
        "container": found.container,
        "mounts": [m.describe() for m in found.mounts],
        "provenance": [p.model_dump() for p in found.provenance],
        "notes": list(found.notes), "warnings": list(found.warnings),
    }, found.secrets)
