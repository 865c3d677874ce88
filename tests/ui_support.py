"""Helpers for the headless Explorer tests: a deployment's .env and simulated uploads."""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any

#: A secret value that must never reach any HTML the Explorer renders.
SECRET = "client-secret-4f9a1c"


def write_roots_env(app_dir: Path, data: Path, home: Path, **extra: str) -> Path:
    """A roots-mode .env in the server's package directory; returns its path."""
    lines = [
        "# the deployment's settings",
        "LOCAL_FILE_ACCESS=roots",
        f"LOCAL_FILE_ROOTS={data}",
        f"HOME={home}",
        f"CREDENTIALS_CONFIG={SECRET}",
        *(f"{k}={v}" for k, v in extra.items()),
    ]
    path = app_dir / ".env"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def upload_value(name: str, content: bytes) -> tuple[dict[str, Any], ...]:
    """The ``FileUpload.value`` a browser sends for one file."""
    return ({
        "name": name,
        "type": "text/plain",
        "size": len(content),
        "content": memoryview(content),
        "last_modified": datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc),
    },)


def text_of(html: str) -> str:
    """The visible text of an HTML fragment: tags dropped, whitespace runs as one space."""
    import html as _html

    html = re.sub(r"<wbr\s*/?>", "", html)  # a line-break opportunity, not a space
    return " ".join(_html.unescape(re.sub(r"<[^>]+>", " ", html)).split())
