"""Compatibility path: bank models and instructions live in :mod:`linlayout.hw`.

The code moved in the layered package (see ``docs/architecture.md``); this
module re-exports the public names of its new home for this release.
New code should import from ``linlayout`` or the module named above.
"""

from __future__ import annotations

from .compat import reexport
from . import hw as _m0

__all__ = reexport(globals(), _m0)
