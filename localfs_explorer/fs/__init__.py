"""Filesystems the policy engine can ask questions of: this host, or a described one."""

from .base import FileSystem, StatLike
from .host import HostFS
from .snapshot import Snapshot, SnapshotError, snapshot
from .spec import from_spec, list_example_hosts, load_fs, to_spec
from .virtual import HostSpecError, VirtualFS, VirtualStat

__all__ = [
    "FileSystem",
    "HostFS",
    "HostSpecError",
    "Snapshot",
    "SnapshotError",
    "StatLike",
    "VirtualFS",
    "VirtualStat",
    "from_spec",
    "list_example_hosts",
    "load_fs",
    "snapshot",
    "to_spec",
]
