"""Compatibility path: sweeps live in :mod:`linlayout.check.sweep`, families in :mod:`linlayout.check.family`.

The code moved in the layered package (see ``docs/architecture.md``); this
module re-exports the public names of its new homes for this release:
:mod:`linlayout.check.family`, :mod:`linlayout.check.sweep`,
:func:`linlayout.io.families.family_from_json` and
:func:`linlayout.count.batched.batch_rank`.
New code should import from ``linlayout`` or the modules named above.
"""

from __future__ import annotations

from .compat import reexport
from .check import family as _m0
from .check import sweep as _m1
from .check.sweep import __getattr__  # noqa: F401 (evaluate, the deprecated name of evaluate_family, warns)
from .count.batched import batch_rank
from .io.families import family_from_json

__all__ = reexport(globals(), _m0, _m1, extra=(family_from_json, batch_rank))
