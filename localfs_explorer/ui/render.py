"""The HTML fragments live in :mod:`localfs_explorer.render` (no widgets needed there).

Kept so ``from .. import render`` in the views goes on working.
"""

from ..render import *  # noqa: F403
