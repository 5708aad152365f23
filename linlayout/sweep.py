"""Compatibility path: sweeps live in :mod:`linlayout.check.sweep`, families in :mod:`linlayout.check.family`.

The code moved in the layered package (see ``docs/architecture.md``); this
module re-exports the public names of its new homes for this release:
:mod:`linlayout.check.family`, :mod:`linlayout.check.sweep`,
:func:`linlayout.io.families.family_from_json` and
:func:`linlayout.count.batched.batch_rank`.
New code should import from ``linlayout`` or the modules named above.
"""

from __future__ import annotations

from .check import family as _m0
from .check import sweep as _m1
from .count.batched import batch_rank
from .io.families import family_from_json

__all__: list[str] = []
for _m in (_m0, _m1):
    globals().update({_k: _v for _k, _v in vars(_m).items() if not _k.startswith("_")})
    __all__ += _m.__all__
__all__ += ["family_from_json", "batch_rank"]
