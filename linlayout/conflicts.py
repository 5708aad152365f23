"""Compatibility path: the closed form lives in :mod:`linlayout.count.closed_form`, counting by simulation in :mod:`linlayout.count.by_simulation`.

The code moved in the layered package (see ``docs/architecture.md``); this
module re-exports the public names of its new home for this release.
New code should import from ``linlayout`` or the module named above.
"""

from __future__ import annotations

from .compat import reexport
from .count import closed_form as _m0
from .count import by_simulation as _m1

__all__ = reexport(globals(), _m0, _m1)
