"""What the Explorer page takes from a visitor, and what ``serve`` allowed it to do.

A served page is a web application: JSON typed or uploaded into it is content, never the
name of a file to open, and it is bounded like any input file. Whether the kernel may
read the machine it runs on, and which file names it may write, are decided by ``serve``
and handed over in the environment (:mod:`localfs_explorer.handoff`).
"""

from __future__ import annotations

import os
from typing import Any

from ..errors import LocalfsError
from ..handoff import ANY_OUTPUT_NAME_ENV, HOST_FS_ENV
from ..userfiles import MAX_FILE_BYTES, parse_json, size_limit_text


class ExplorerError(LocalfsError):
    """An action the Explorer refuses (e.g. reading this machine's files when served)."""


def content_json(text: str, what: str, error: type[Exception] = ExplorerError,
                 *, kinds: tuple[type, ...] = (dict,)) -> Any:
    """JSON typed or uploaded into the page: parsed as content, never taken for a path.

    The engine's loaders take either data or a file name; a JSON string such as
    ``"/etc/passwd"`` would make them read that file of the serving machine. So only the
    JSON types in ``kinds`` are accepted, and the text is bounded like any input file.
    """
    if len(text) > MAX_FILE_BYTES:
        raise error(f"{what}: larger than the {size_limit_text(MAX_FILE_BYTES)} limit; "
                    "refused")
    value = parse_json(text, what, error)
    if not isinstance(value, kinds):
        expected = " or ".join("a JSON object" if k is dict else "a JSON list" for k in kinds)
        raise error(f"{what}: expected {expected}, not {type(value).__name__}")
    return value


#: Names that run when found in the right place, whatever else they look like: Python
#: executes a ``.pth`` file's ``import`` lines from any site directory at startup, and
#: imports ``.py``/compiled modules; shells and Windows run scripts by their suffix.
EXECUTABLE_SUFFIXES = (".pth", ".py", ".pyc", ".pyo", ".pyw", ".pyd", ".so", ".dll",
                       ".dylib", ".sh", ".bash", ".zsh", ".command", ".bat", ".cmd",
                       ".ps1", ".exe")
EXECUTABLE_NAMES = ("sitecustomize", "usercustomize")


def executable_name(path: str) -> bool:
    """Whether a file name is one that something runs or imports (``.env.pth``)."""
    name = os.path.basename(path.rstrip("/\\")).lower()
    return name.endswith(EXECUTABLE_SUFFIXES) or name.split(".")[0] in EXECUTABLE_NAMES


def looks_like_env_name(path: str) -> bool:
    """Whether a file name looks like a ``.env`` (``.env``, ``prod.env``, ``.env.local``).

    A name something executes (``.env.pth``, ``.env.py``) doesn't, whatever it starts with.
    """
    name = os.path.basename(path.rstrip("/"))
    if executable_name(name):
        return False
    return name == ".env" or name.startswith(".env.") or (
        name.endswith(".env") and len(name) > len(".env"))


def any_output_name_from_environ() -> bool:
    """Whether ``serve --allow-any-output-name`` lets the page write any file name."""
    return os.environ.get(ANY_OUTPUT_NAME_ENV, "0").strip().lower() in ("1", "true", "yes")


def host_access_from_environ() -> bool:
    """Whether this kernel may probe the machine it runs on (``serve`` decides)."""
    return os.environ.get(HOST_FS_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def upload_text(name: str, content: bytes | str) -> str:
    """An upload's text: bounded like any input file, and UTF-8."""
    if len(content) > MAX_FILE_BYTES:
        raise ExplorerError(f"{name or 'upload'}: larger than the "
                            f"{size_limit_text(MAX_FILE_BYTES)} limit; refused")
    if isinstance(content, str):
        return content
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExplorerError(f"{name or 'upload'}: not UTF-8 text (byte {exc.start})") from None
