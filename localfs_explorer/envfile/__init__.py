"""A server's ``.env``: loaded the way the server loads it, edited, and written back.

Three modules, one per step: :mod:`.load` reads a ``.env`` and the process environment
over it (the engine's input), :mod:`.edit` computes a new text as a pure function of the
old one, and :mod:`.export` validates that text with the engine and writes it safely.
Loading is part of the engine and imported with it; the edit and the export are loaded
on first use, so ``import localfs_explorer`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..optional import lazy_names as _lazy_names
from .load import EnvFileError, ServerEnv, load_env, parse_env_text, read_env_text, resolve_env

if TYPE_CHECKING:
    from .edit import EditResult, ExportError, KeyChange, edit_env_text, plan_edit
    from .export import ExportPlan, WriteResult, export_env, run_export_env, template_text

#: The names loaded on first use, and the module each comes from.
_LAZY = {
    **dict.fromkeys(("EditResult", "ExportError", "KeyChange", "edit_env_text", "plan_edit"),
                    f"{__name__}.edit"),
    **dict.fromkeys(("ExportPlan", "WriteResult", "export_env", "run_export_env",
                     "template_text"), f"{__name__}.export"),
}

__all__ = [
    "EditResult",
    "EnvFileError",
    "ExportError",
    "ExportPlan",
    "KeyChange",
    "ServerEnv",
    "WriteResult",
    "edit_env_text",
    "export_env",
    "load_env",
    "parse_env_text",
    "plan_edit",
    "read_env_text",
    "resolve_env",
    "run_export_env",
    "template_text",
]


__getattr__ = _lazy_names(globals(), _LAZY)


def __dir__() -> list[str]:
    return list(__all__)
