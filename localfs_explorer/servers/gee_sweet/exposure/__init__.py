"""mcp-gee-sweet's own exposure walk (what :meth:`GeeSweetServer.exposure_walk` returns).

It walks what the server's tool calls can name: in ``roots`` mode the resolved roots,
otherwise the account's home and the startup directory. Beside the shared findings it
draws the ones only this server has: deny-listed files inside a root, roots that are
symlinks, sit on a case-insensitive volume or overlap (:mod:`.roots`). The walk itself
(:mod:`.walker`) decides whole directories at once where the batch check allows it,
knowing the host's mounts and the inodes already met (:mod:`.host`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["RootsWalk"]


class RootsWalk:
    """The :class:`~localfs_explorer.server.ExposureWalk` of mcp-gee-sweet."""

    def starts(self, policy: Any) -> list[str]:
        from .walker import _InventoryWalker

        walker = _InventoryWalker(policy, sizes=False, max_entries=1, max_depth=0,
                                  over_http=None, progress=None, cancel=None,
                                  keep_paths=False, server_dirs=())
        return [s.path for s in walker.starts(None)]

    def walk(self, policy: Any, scope: list[str] | None, **limits: Any) -> Any:
        from .walker import walk_exposure

        return walk_exposure(policy, scope, **limits)
