"""Support for the compatibility module paths of earlier releases.

``linlayout.sweep``, ``linlayout.conflicts`` and the other flat paths are
small modules that re-export the public names of the modules now holding
the code (see ``docs/architecture.md``).  :func:`reexport` is how each one
does it.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

__all__ = ["reexport"]


def reexport(namespace: dict[str, Any], *modules: ModuleType) -> list[str]:
    """Copy every public name of ``modules`` into ``namespace``; return their combined ``__all__``.

    >>> import types
    >>> m = types.ModuleType("m"); m.a, m._b, m.__all__ = 1, 2, ["a"]
    >>> ns = {}
    >>> reexport(ns, m), ns
    (['a'], {'a': 1})
    """
    names: list[str] = []
    for module in modules:
        namespace.update({k: v for k, v in vars(module).items() if not k.startswith("_")})
        names += module.__all__
    return names
