"""Compatibility path: layout constructors live in :mod:`linlayout.catalog.constructors`.

The code moved in the layered package (see ``docs/architecture.md``); this
module re-exports the public names of its new home for this release.
New code should import from ``linlayout`` or the module named above.
"""

from __future__ import annotations

from .catalog import constructors as _m0

__all__: list[str] = []
for _m in (_m0,):
    globals().update({_k: _v for _k, _v in vars(_m).items() if not _k.startswith("_")})
    __all__ += _m.__all__
