"""Optional dependencies, imported where a feature needs them, with a one-line message.

A plain install runs every command; only tables as pandas DataFrames (and the dashboard)
need more. Asking for one without pandas raises :class:`MissingDependency`, an
ImportError whose message names what to install.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from types import ModuleType
from typing import Any

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


def lazy_names(namespace: MutableMapping[str, Any], names: Mapping[str, str]
               ) -> Callable[[str], object]:
    """A module's ``__getattr__`` (PEP 562) that imports each of ``names`` from the module
    it maps to on first use and keeps it in ``namespace`` (the module's ``globals()``), so
    a package can name its whole API without loading it."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> object:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__
