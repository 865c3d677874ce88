"""Shadow verify: recorded MCP sessions in, predicted against recorded out.

Operators already keep records of what their models did with a server: Claude Code's
session transcripts, VS Code's and Claude Desktop's MCP traffic logs, MCP Inspector's
History export. :class:`Shadow` reads them (:mod:`.readers`, streaming, one pass) and
holds each tool call's recorded answer against what the explorer predicts for the client
config's entry that served it (:mod:`.compare`), in session order (:mod:`.effects`).
``localfs-explorer shadow`` and the dashboard's Session tab show the rows it yields.
"""

from __future__ import annotations

from .compare import Agreement, agreement, fits
from .effects import SessionFS
from .readers import (
    LOG_FORMATS,
    LogError,
    LogStats,
    RecordedCall,
    detect_format,
    read_log,
    split_tool_name,
)
from .shadow import Shadow, ShadowRow, ShadowSummary, entry_word

__all__ = [
    "LOG_FORMATS",
    "Agreement",
    "LogError",
    "LogStats",
    "RecordedCall",
    "SessionFS",
    "Shadow",
    "ShadowRow",
    "ShadowSummary",
    "agreement",
    "detect_format",
    "entry_word",
    "fits",
    "read_log",
    "split_tool_name",
]
