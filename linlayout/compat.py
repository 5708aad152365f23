"""Support for the compatibility module paths of earlier releases (deprecated).

``linlayout.sweep``, ``linlayout.conflicts`` and the other flat paths are
small modules that re-export the public names of the modules now holding
the code (see ``docs/architecture.md``).  :func:`reexport` is how each one
does it, and it is also where each one says, once per process, that it is
deprecated: importing a flat path emits a :class:`DeprecationWarning` that
names the new module(s).  The flat paths go away in the next release;
nothing inside the project imports them.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from types import ModuleType
from typing import Any

__all__ = ["reexport"]


def reexport(namespace: dict[str, Any], *homes: ModuleType, extra: Sequence[Any] = ()) -> list[str]:
    """Copy every public name of ``homes`` into ``namespace``, warn that it moved; return the combined ``__all__``.

    ``namespace`` is the compatibility module's ``globals()``; ``extra``
    holds single functions or classes of further modules, re-exported under
    their own names.  The :class:`DeprecationWarning` names the old path
    and every new home, and points at the line that imported the old path.

    >>> import types, warnings
    >>> m = types.ModuleType("pkg.new"); m.a, m._b, m.__all__ = 1, 2, ["a"]
    >>> ns = {"__name__": "pkg.old"}
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     names = reexport(ns, m)
    >>> names, ns["a"], "_b" in ns
    (['a'], 1, False)
    >>> print(caught[0].category.__name__, caught[0].message)
    DeprecationWarning pkg.old is deprecated and will be removed in the next release; import from pkg.new instead
    """
    names: list[str] = []
    for module in homes:
        namespace.update({k: v for k, v in vars(module).items() if not k.startswith("_")})
        names += module.__all__
    for obj in extra:
        namespace[obj.__name__] = obj
        names.append(obj.__name__)
    new = list(dict.fromkeys([m.__name__ for m in homes] + [obj.__module__ for obj in extra]))
    warnings.warn(
        f"{namespace['__name__']} is deprecated and will be removed in the next release; "
        f"import from {', '.join(new[:-1]) + ' or ' + new[-1] if len(new) > 1 else new[0]} instead",
        DeprecationWarning,
        stacklevel=3,  # reexport, the compatibility module, then the line that imported it
    )
    return names
