"""The Explorer: an ipywidgets app over the engine, served as a Voila dashboard.

    from localfs_explorer.ui import explorer
    explorer(env_path="deploy/.env", transport="sse")

Needs the ``dashboard`` extra (ipywidgets, voila, pandas, itables). The views hold no policy
logic: they edit one :class:`ExplorerModel`, which recomputes through the engine.
"""

from __future__ import annotations

from ..handoff import HOST_FS_ENV
from .app import PANELS, Explorer, PanelSpec, explorer, make_explorer, register_panel
from .inputs import ExplorerError
from .model import ExplorerModel
from .panel import Panel

# The policy bar and the results grid (``.policybar.PolicyBar``, ``.grid.ResultsGrid``)
# are imported where they are used: the grid pulls in itables and pandas.

__all__ = [
    "HOST_FS_ENV",
    "PANELS",
    "Explorer",
    "ExplorerError",
    "ExplorerModel",
    "Panel",
    "PanelSpec",
    "explorer",
    "make_explorer",
    "register_panel",
]
