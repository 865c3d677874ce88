"""Filesystems the policy engine can ask questions of."""

from .base import FileSystem, StatLike
from .host import HostFS

__all__ = ["FileSystem", "HostFS", "StatLike"]
