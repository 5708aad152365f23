"""Ops Triton lowers through scratch shared memory: reductions across warps, scans, histograms, atomics, cp.async.

Each model takes an op of the IR (:class:`~linlayout.lower.ir.Op`), the
reader's ``layout_of`` and the warps per CTA, and returns a
:class:`~linlayout.lower.model.ScratchCost` (or ``None`` when the op touches
no shared memory).  :data:`TRITON_3_6_OPS` and :data:`TRITON_3_9_OPS` map op
names to each version's models.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .model import OpModel

__all__ = ["TRITON_3_6_OPS", "TRITON_3_9_OPS"]

TRITON_3_6_OPS: Mapping[str, OpModel] = MappingProxyType({})
"""Triton 3.6's scratch-memory models by op name."""

TRITON_3_9_OPS: Mapping[str, OpModel] = MappingProxyType({})
"""Triton 3.9's scratch-memory models by op name."""
