"""linlayout: GPU tensor layouts as linear algebra over F2.

Layouts are binary matrices (:class:`LinearLayout`), composition is matrix
multiplication and inversion is Gaussian elimination (:mod:`linlayout.core.f2`).
Every public name of the library is importable from here; the layers behind
them are described in ``docs/architecture.md``.

>>> import linlayout
>>> L = linlayout.LinearLayout.identity(4, "lane", "dim0")
>>> L.invert().bases
{'dim0': [(1,), (2,)]}

**Where the names come from.**  Each module lists its public names in
``__all__``; each layer's ``__init__`` gathers the lists of its modules
(``from .closed_form import *``, ...), and this module gathers the layers'
lists, lowest layer first.  Nothing here lists a name by hand.  Modules that
hold only machinery for the others (``core/dims.py``, ``synth/sides.py``,
...) are not gathered; reach their names by their module path.

**What loads when.**  ``import linlayout`` loads the light layers (``errors``,
``core``, ``hw``, ``count``, ``catalog``, ``synth`` and the JSON module of
``io``).  The modules in :data:`LAZY_HOMES` (code emission and the TTGIR
reader, conversions, the sweep and the GPU kit, pictures, and the readers and
lint that use them) load on the first use of one of their names, so ``import
linlayout`` stays fast and loads neither numpy, networkx nor matplotlib.
Reading ``__all__`` or ``dir(linlayout)`` loads them all.  Emission and the
TTGIR reader are the first lazy homes, in the order their names had at the end
of ``io``'s list, so ``__all__`` keeps its order.
"""

from . import catalog, core, count, errors, hw, io, synth
from .catalog import *
from .core import *
from .core import quotient as _quotient  # gathered here: in core/ the function would hide the module
from .core.quotient import *
from .count import *
from .errors import *
from .hw import *
from .io import *
from .synth import *

__version__ = "0.1.0"

LAZY_HOMES = (
    "linlayout.io.emit",
    "linlayout.io.ttgir",
    "linlayout.convert",
    "linlayout.check",
    "linlayout.check.gpu.verify",
    "linlayout.io.draw",
    "linlayout.io.families",
    "linlayout.io.gpu_queries",
    "linlayout.io.convert_io",
    "linlayout.io.ttgir.lint",
    "linlayout.lower",
)
"""Modules whose public names (their ``__all__``) are imported on first use."""

DEPRECATED_NAMES = {"evaluate": "linlayout.check.sweep"}
"""Names kept for one release outside ``__all__``: each is its home module's deprecated alias, which warns."""

_EAGER = (errors, core, _quotient, hw, count, catalog, synth, io)


def _lazy_modules():
    """The modules of :data:`LAZY_HOMES`, each imported when the iteration reaches it."""
    from importlib import import_module

    return (import_module(home) for home in LAZY_HOMES)


def _public_names() -> list[str]:
    """``__all__``: the eager layers' lists, then those of :data:`LAZY_HOMES`, then ``__version__``."""
    names = [n for layer in _EAGER for n in layer.__all__]
    names += [n for module in _lazy_modules() for n in module.__all__]
    return [*dict.fromkeys(names), "__version__"]


def __getattr__(name: str):
    """Import the names of :data:`LAZY_HOMES` on first use (and compute ``__all__`` when asked).

    The homes are tried in order, each imported only when the ones before
    it do not have the name.  The functions ``sweep`` and ``draw``
    themselves are not exported here (their names are the deprecated
    modules ``linlayout.sweep`` and ``linlayout.draw``); import them from
    :mod:`linlayout.check.sweep` and :mod:`linlayout.io.draw`.

    >>> import linlayout
    >>> len(linlayout.transpose_16x32_family().toggles)
    20
    """
    if name in DEPRECATED_NAMES:  # warns on every use, so it is not cached here
        from importlib import import_module

        return getattr(import_module(DEPRECATED_NAMES[name]), name)
    if name == "__all__":
        value = _public_names()
    elif name.startswith("_"):
        raise AttributeError(f"module 'linlayout' has no attribute {name!r}")
    else:
        home = next((m for m in _lazy_modules() if name in m.__all__), None)
        if home is None:
            raise AttributeError(f"module 'linlayout' has no attribute {name!r}")
        value = getattr(home, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__getattr__("__all__") if "__all__" not in globals() else __all__))
