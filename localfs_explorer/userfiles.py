"""Reading the files users hand the tool (access lists, sessions, host specs).

One place decides how an unreadable, non-UTF-8 or malformed JSON file is reported, so
every command says it the same way and names the file (and line) without a traceback.
Each caller passes its own error type, so callers can still catch what they expect.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_text(path: Path, error: type[Exception]) -> str:
    """The UTF-8 text of ``path``, or ``error`` saying why it can't be had."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: can't be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise error(f"{path}: is not UTF-8 text") from None


def parse_json(text: str, origin: object, error: type[Exception], **options: Any) -> Any:
    """``json.loads(text)``, or ``error`` naming ``origin`` and the line and column."""
    try:
        return json.loads(text, **options)
    except json.JSONDecodeError as exc:
        raise error(
            f"{origin}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
