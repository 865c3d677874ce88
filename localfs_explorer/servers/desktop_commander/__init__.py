"""DesktopCommanderMCP (``@wonderwhy-er/desktop-commander`` 0.2.52).

Its settings file (``allowedDirectories``, ``blockedCommands``), its path check with the
case fold and exact refusal texts, its 26 tools as its ``tools/list`` shows them, what
``get_config`` answers, its findings and a live ``verify`` over stdio.
"""

from .policy import REASONS, DcPolicy, DcVerdict
from .server import RELEASE, SERVER_ID, DcOptions, DesktopCommanderServer
from .settings import DcSettings, config_path, read_settings, settings_from

__all__ = [
    "REASONS",
    "RELEASE",
    "SERVER_ID",
    "DcOptions",
    "DcPolicy",
    "DcSettings",
    "DcVerdict",
    "DesktopCommanderServer",
    "config_path",
    "read_settings",
    "settings_from",
]
