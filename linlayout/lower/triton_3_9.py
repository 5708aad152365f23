"""Triton 3.9's lowering of shared-memory ops on sm90: where it differs from 3.6, and what it shares.

Checked against Triton 3.9.0 itself: the kernels of ``tools/ttgir_corpus``
compiled on the CPU for ``cuda:90`` (``tests/data/ttgir39``: their TTGIR and
the static count of every shared-memory PTX instruction), see
``tests/lower/test_versions.py`` and ``paper_notes/triton_lowering.md``.

* **Conversions through shared memory** (:func:`shared_round_trip` and
  :func:`planned_conversion`, the same functions as 3.6's: the versions
  emit the same round trips): the
  scratch layout, the reps and the instruction pair are Triton's own choice
  (:func:`~linlayout.convert.triton_scratch.triton_scratch`, its generic
  swizzling): ``stmatrix``/``ldmatrix`` for 32-bit data too, transposed
  matrices for 16-bit data, vectors otherwise; a matmul epilogue that does
  not fit the scratch runs in reps.  The wavefronts are counted by
  :func:`~linlayout.count.closed_form.wavefronts` through that layout.
* **Local loads and stores** (:func:`count_local_access`): a matrix
  instruction when the layout admits it (16-bit data, also transposed;
  32-bit data as pairs of 16-bit halves), else vectors.
* **Which conversions stay out of shared memory** (:func:`conversion_scope`):
  3.6's rule (the same function): a source broadcast over lanes goes through
  shared memory rather than shuffles in both versions.
* **What did not change** is 3.6's: the async-proxy ops, the views.

The reduction, scan, histogram, atomic and ``cp.async`` models are in
:mod:`linlayout.lower.scratch_ops` (by version where the versions differ).
:data:`TRITON_3_9` bundles these as a :class:`~linlayout.lower.model.Lowering`.
"""

from __future__ import annotations

from ..core.layout import LinearLayout
from ..count.closed_form import WavefrontReport, wavefronts
from ..errors import InputError
from .model import Lowering
from .scratch_ops import TRITON_3_9_OPS
from .triton_3_6 import (
    ASYNC_OPS,
    HARDWARE,
    QUIET_OPS,
    SCRATCH_OPS,
    VIEW_OPS,
    conversion_reps,
    conversion_scope,
    planned_conversion,
    reduce_crosses_warps,
    shared_round_trip,
)
from ..convert.triton_scratch import count_matrix_or_vector

__all__ = ["TRITON_3_9", "conversion_scope", "count_local_access", "count_matrix_or_vector", "planned_conversion",
           "shared_round_trip"]


def count_local_access(layout: LinearLayout, memory: LinearLayout, element_bits: int, op: str) -> WavefrontReport:
    """One warp's ``local_load``/``local_store``: a matrix instruction if it fits (16- and 32-bit data), else vectors."""
    prefix = "stmatrix" if op == "store" else "ldmatrix"
    families = {16: (prefix, prefix + ".trans"), 32: (prefix,)}.get(element_bits, ())
    for family in families:
        try:
            return count_matrix_or_vector(layout, memory, element_bits, op, family)
        except InputError:
            continue
    return wavefronts(layout, memory, element_bits, op, hardware=HARDWARE)


TRITON_3_9 = Lowering(
    version="3.9", hardware=HARDWARE, count_local_access=count_local_access, conversion_scope=conversion_scope,
    planned_conversion=planned_conversion, shared_round_trip=shared_round_trip,
    reduce_crosses_warps=reduce_crosses_warps, async_ops=ASYNC_OPS, scratch_ops=SCRATCH_OPS, quiet_ops=QUIET_OPS,
    view_ops=VIEW_OPS, op_models=TRITON_3_9_OPS, conversion_reps=conversion_reps)
"""Triton 3.9 on sm90 (checked against its PTX on the CPU)."""
