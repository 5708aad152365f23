"""Compatibility path: standard swizzles live in :mod:`linlayout.catalog.swizzles`, padded and row-major memory layouts in :mod:`linlayout.core.memory`.

The code moved in the layered package (see ``docs/architecture.md``); this
module re-exports the public names of its new home for this release.
New code should import from ``linlayout`` or the module named above.
"""

from __future__ import annotations

from .compat import reexport
from .catalog import swizzles as _m0
from .core import memory as _m1

__all__ = reexport(globals(), _m0, _m1)
