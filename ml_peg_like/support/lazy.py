"""Modules imported on first use ("fast start": the first page needs none of them).

``pd = lazy_module("pandas")`` binds a stand-in that imports pandas the first time one of its
attributes is read (``pd.DataFrame``, ``pd.read_csv``), then behaves as the module itself. The
dashboard's first page needs no pandas (the binary raw cache, the score arrays): its ~0.2 s import
leaves the start's critical path. ``warm(...)`` imports such modules ahead of use (the server
does it in a background thread once it listens).
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType


class _LazyModule:
    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module = None

    def _load(self) -> ModuleType:
        mod = self._module
        if mod is None:  # kept once fully imported: later reads cost one attribute lookup
            mod = self._module = importlib.import_module(self._name)
        return mod

    def __getattr__(self, attr: str):
        return getattr(self._load(), attr)

    def __dir__(self):
        return dir(self._load())

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


def lazy_module(name: str) -> ModuleType:
    """``name`` itself when it is imported already, else a stand-in importing it on first use."""
    mod = sys.modules.get(name)
    return mod if mod is not None else _LazyModule(name)  # type: ignore[return-value]


def warm(*names: str) -> None:
    """Import ``names`` now (the first request that needs them then finds them loaded)."""
    for name in names:
        importlib.import_module(name)
