"""Path comparisons the policy and the check share: containment and case folding.

Pure string functions on already-resolved paths; nothing here touches a filesystem.
Kept apart from :mod:`localfs_explorer.policy` so that the check can use them without
importing the policy it is called from.
"""

from __future__ import annotations

import ntpath
import posixpath
from collections.abc import Iterable

__all__ = ["containment_prefixes", "fold", "is_within"]


def is_within(path: str, directory: str) -> bool:
    """Component-wise containment of one resolved path in another.

    ``/data-evil`` is not within ``/data``: a plain prefix test would say it is.
    """
    if path == directory:
        return True
    prefix = directory if directory.endswith("/") else directory + "/"
    return path.startswith(prefix)


def fold(path: str, platform: str = "posix") -> str:
    """The comparison key for a missing target: ``normcase`` then ``casefold``."""
    normcase = ntpath.normcase if platform == "windows" else posixpath.normcase
    return normcase(path).casefold()


def containment_prefixes(directories: Iterable[str]) -> tuple[str, ...]:
    """Prefixes for a component-wise containment test with ``str.startswith``.

    Each directory gets a trailing separator, so ``/data-evil`` doesn't start with
    ``/data/``; the directory itself is matched separately by equality.
    """
    return tuple(d if d.endswith("/") else d + "/" for d in directories)
