"""Optional dependencies, imported where a feature needs them, with a one-line message.

A plain install runs every command; only tables as pandas DataFrames (and the dashboard)
need more. Asking for one without pandas raises :class:`MissingDependency`, an
ImportError whose message names what to install.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import LocalfsError

#: The extra that brings each optional package in.
EXTRAS = {"pandas": "dashboard", "ipywidgets": "dashboard", "voila": "dashboard"}


class MissingDependency(ImportError, LocalfsError):
    """An optional package a feature needs is not installed."""


def require(module: str, feature: str) -> ModuleType:
    """Import ``module`` for ``feature``, or say in one line how to get it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        extra = EXTRAS.get(module)
        how = (f"pip install 'localfs-explorer[{extra}]' (or just {module})" if extra
               else f"pip install {module}")
        raise MissingDependency(f"{feature} needs {module}: {how}", name=module) from None


def pandas(feature: str) -> ModuleType:
    """pandas, for ``feature`` (a DataFrame view)."""
    return require("pandas", feature)
