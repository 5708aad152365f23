"""What a compiler's lowering model provides: the :class:`Lowering` interface, one value per compiler version.

The lint (:mod:`linlayout.lower.lint`) walks a kernel's ops and asks the
lowering of the compiler version that produced it what each op costs.  A
lowering answers four questions, each a plain function:

* ``count_local_access(layout, memory, element_bits, op)``: the wavefronts per
  warp of a ``local_load``/``local_store`` as the compiler emits it (which
  instruction it picks);
* ``conversion_scope(src, dst)``: whether a ``convert_layout`` stays in
  registers, uses warp shuffles or goes through shared memory;
* ``planned_conversion(src, dst, element_bits)``: the counted lowering of a
  conversion, with linlayout's plan as the suggestion
  (:class:`~linlayout.lower.records.LoweredConversion`); ``shared_round_trip``
  the round trip alone;
* ``reduce_crosses_warps(layout, axis)``: whether a reduction exchanges
  partial results through scratch shared memory;

and it lists which ops go through the async proxy (``async_ops``), which use
scratch memory it does not model (``scratch_ops``), which touch no shared
memory (``quiet_ops``) and which are views of a buffer (``view_ops``), each
with the reason printed for it.  ``hardware`` names the model of
:mod:`linlayout.hw` its counts use.

A second compiler version is a second module that builds its own
:class:`Lowering` (reusing what did not change) and registers it in
:mod:`linlayout.lower.registry`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..core.layout import LinearLayout
from ..count.closed_form import WavefrontReport
from .records import ConvertPlanner

__all__ = ["Lowering"]


@dataclass(frozen=True)
class Lowering:
    """One compiler version's lowering model (see the module docstring)."""

    version: str
    hardware: str
    count_local_access: Callable[[LinearLayout, LinearLayout, int, str], WavefrontReport]
    conversion_scope: Callable[[LinearLayout, LinearLayout], str]
    planned_conversion: ConvertPlanner
    shared_round_trip: ConvertPlanner
    reduce_crosses_warps: Callable[[LinearLayout, int], bool]
    async_ops: Mapping[str, str]
    scratch_ops: Mapping[str, str]
    quiet_ops: frozenset[str]
    view_ops: frozenset[str]
