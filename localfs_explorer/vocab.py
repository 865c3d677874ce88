"""The domain's words, declared once.

Each word the explorer and its users share -- the access modes, the transports, the
operations a tool asks for, why a path was refused, what a tool call comes to, how the
access lists gate a tool, the labels of the deny-list -- is a ``Literal`` type for
checkers and pydantic, with a tuple of its values in display order for argparse choices,
dropdowns and counters. The two are written side by side so they can't drift apart;
``tests/test_vocab.py`` pins each tuple to its ``Literal``.

This module imports nothing from the package: every layer can use it.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

__all__ = [
    "DENY_LABELS",
    "GATES",
    "MODES",
    "OPS",
    "OUTCOMES",
    "PLATFORMS",
    "REASONS",
    "TRANSPORTS",
    "Gate",
    "Mode",
    "ModeName",
    "Op",
    "Outcome",
    "Platform",
    "Reason",
    "Transport",
]


class Mode(str, Enum):
    """The three modes of ``LOCAL_FILE_ACCESS``.

    A ``str`` Enum rather than ``StrEnum`` so that Python 3.10 is supported.
    """

    FULL = "full"
    ROOTS = "roots"
    OFF = "off"

    def __str__(self) -> str:
        return self.value


#: A mode's value as it is spelt in a setting or a scenario file.
ModeName = Literal["full", "roots", "off"]
MODES: tuple[str, ...] = ("full", "roots", "off")

#: The server's ``--transport``: stdio, or one of the two HTTP transports.
Transport = Literal["stdio", "sse", "streamable-http"]
TRANSPORTS: tuple[str, ...] = ("stdio", "sse", "streamable-http")

#: The target's platform: it picks the default cache directory, and windows splits
#: ``LOCAL_FILE_ROOTS`` on ``;``.
Platform = Literal["posix", "macos", "windows"]
PLATFORMS: tuple[str, ...] = ("posix", "macos", "windows")

#: What a tool does with a path.
Op = Literal["read", "write", "read_write"]
OPS: tuple[str, ...] = ("read", "write", "read_write")

#: Why a path was allowed or refused, one word per step of the check.
Reason = Literal["allowed", "off", "outside_roots", "denied", "tripwire", "invalid"]
REASONS: tuple[str, ...] = ("allowed", "off", "outside_roots", "denied", "tripwire", "invalid")

#: What a tool call comes to for the model.
Outcome = Literal["ok", "refused", "partial", "absent", "error"]
OUTCOMES: tuple[str, ...] = ("ok", "refused", "partial", "absent", "error")

#: How the access lists treat a tool: it runs, it waits for a person, or it is hidden.
Gate = Literal["execute", "approval", "blocked"]
GATES: tuple[str, ...] = ("execute", "approval", "blocked")



#: Every label a deny-list entry can carry: the setting that names the file, or a phrase
#: for the files the server protects without a setting of their own.
DENY_LABELS: tuple[str, ...] = (
    "CREDENTIALS_PATH",
    "TOKEN_PATH",
    "SERVICE_ACCOUNT_PATH",
    "server .env",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "HOME (ADC file)",
    "CLOUDSDK_CONFIG (ADC file)",
    "APPDATA (ADC file)",
    "CACHE_DB_PATH",
    "legacy cache (pre-0.9.3)",
    "LOG_FILE",
    "ACCESS_LOG_FILE",
)
