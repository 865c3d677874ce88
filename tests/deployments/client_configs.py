"""Client config files of every format, written for a test, with both servers in them."""

from __future__ import annotations

import json
from pathlib import Path

CANARY = "canary-credential-5e1f"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def mcp_servers(entries: dict[str, dict[str, object]], key: str = "mcpServers") -> str:
    return json.dumps({key: entries}, indent=2) + "\n"


def gee_entry(data: Path, **extra: object) -> dict[str, object]:
    """An mcp-gee-sweet entry serving ``data`` in roots mode."""
    entry: dict[str, object] = {
        "command": "uvx", "args": ["mcp-gee-sweet@0.9.5"],
        "env": {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(data),
                "CREDENTIALS_CONFIG": CANARY},
    }
    entry.update(extra)
    return entry


def fs_entry(*dirs: object) -> dict[str, object]:
    return {"command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31",
                     *map(str, dirs)]}
