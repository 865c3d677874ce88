"""Where DesktopCommanderMCP keeps its settings and what it makes of them.

It reads ``$HOME/.claude-server-commander/config.json`` (``HOME`` of the server's own
process, which is what node's ``os.homedir()`` returns). What the check is given:

- the file is missing: the server creates it on start with its defaults, whose
  ``allowedDirectories`` is ``[]`` -- every path allowed (not the home directory);
- the file is not JSON: it starts on the same defaults, in memory;
- ``allowedDirectories`` absent or not a list: the home directory (and the server
  writes that into the file on the first check);
- a list: that list, exactly as written (``[]`` and any list holding ``"/"`` allow
  every path).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...errors import LocalfsError

__all__ = ["CONFIG_DIR", "CONFIG_NAME", "DEFAULT_BLOCKED", "DcSettings", "SettingsError",
           "config_path", "read_settings", "settings_from"]

CONFIG_DIR = ".claude-server-commander"
CONFIG_NAME = "config.json"

#: The commands a fresh configuration blocks (the server's defaults, by name only).
DEFAULT_BLOCKED: tuple[str, ...] = (
    "mkfs", "format", "mount", "umount", "fdisk", "dd", "parted", "diskpart", "sudo", "su",
    "passwd", "adduser", "useradd", "usermod", "groupadd", "chsh", "visudo", "shutdown",
    "reboot", "halt", "poweroff", "init", "iptables", "firewall", "netsh", "sfc",
    "bcdedit", "reg", "net", "sc", "runas", "cipher", "takeown",
)


class SettingsError(LocalfsError):
    """A settings file the explorer can't read (named, with the reason)."""


@dataclass(frozen=True)
class DcSettings:
    """What the server works with.

    ``allowed`` is the allow-list its check uses (after the defaults above);
    ``configured`` is what the settings said (None: no list); ``source`` says where the
    list came from, in words; ``blocked_commands`` is its command block-list; ``raw`` the
    settings object as read (for the status answer).
    """

    allowed: tuple[str, ...]
    configured: tuple[str, ...] | None
    source: str
    blocked_commands: tuple[str, ...] = DEFAULT_BLOCKED
    raw: Mapping[str, Any] = field(default_factory=dict)
    #: What the server makes of settings that don't say what they seem to (a missing or
    #: unparsable file, a list that isn't one), for the command line to warn about.
    warning: str = ""

    @property
    def everything(self) -> bool:
        """Every path passes: an empty list, or ``/`` among the entries."""
        return not self.allowed or "/" in self.allowed


def config_path(home: str) -> str:
    """``$HOME/.claude-server-commander/config.json``."""
    return f"{home.rstrip('/')}/{CONFIG_DIR}/{CONFIG_NAME}"


def _strings(value: Any, key: str, where: str) -> tuple[str, ...]:
    if not all(isinstance(v, str) for v in value):
        raise SettingsError(f"{where}: every entry of {key} must be a string")
    return tuple(value)


def settings_from(raw: Mapping[str, Any], home: str, where: str = "settings") -> DcSettings:
    """The settings the server makes of an object read from its file."""
    listed = raw.get("allowedDirectories")
    blocked_raw = raw.get("blockedCommands")
    blocked = (_strings(blocked_raw, "blockedCommands", where)
               if isinstance(blocked_raw, list) else ())
    if isinstance(listed, list):
        dirs = _strings(listed, "allowedDirectories", where)
        return DcSettings(dirs, dirs, f"allowedDirectories in {where}", blocked, raw)
    # Absent (or not a list): the server falls back to its account's home directory.
    warning = (f"{where}: allowedDirectories is not a list, so the server uses the home "
               f"directory {home}" if listed is not None else "")
    return DcSettings((home,), None, f"{where} sets no allowedDirectories: the home "
                      "directory", blocked, raw, warning)


def read_settings(path: str, home: str) -> DcSettings:
    """The settings the server starts with when its file is ``path`` (read from the
    host; a missing or unparsable file is what the server meets on its first start)."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        said = f"{path} is missing: the server creates it with allowedDirectories [] (every path)"
        return DcSettings((), (), said, DEFAULT_BLOCKED,
                          {"allowedDirectories": [], "blockedCommands": list(DEFAULT_BLOCKED)},
                          said)
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: can't be read ({exc.__class__.__name__})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError:
        said = (f"{path} is not JSON: the server starts on its defaults in memory, "
                "allowedDirectories [] (every path)")
        return DcSettings((), (), said, DEFAULT_BLOCKED,
                          {"allowedDirectories": [], "blockedCommands": list(DEFAULT_BLOCKED)},
                          said)
    if not isinstance(raw, dict):
        raise SettingsError(f"{path}: the settings are not a JSON object")
    return settings_from(raw, home, path)
