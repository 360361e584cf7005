"""A module stand-in that imports on first use.

Lesson validation must know the experiments' names, which means importing their modules;
they use numpy only inside experiment bodies, so numpy (a tenth of a second) need not be
on the path to the first painted screen.  Likewise SymPy (40 MB of a served tab, about a
second of CPU): lesson files are read and validated without it, and it loads at the first
formula drawn or graded.
"""
from __future__ import annotations

import importlib
from types import ModuleType


class LazyModule:
    def __init__(self, name: str) -> None:
        self._name = name

    def _load(self) -> ModuleType:
        return importlib.import_module(self._name)

    def __getattr__(self, attribute: str):
        return getattr(self._load(), attribute)


numpy = LazyModule("numpy")
sympy = LazyModule("sympy")
