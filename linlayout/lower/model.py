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

Ops lowered through scratch memory (a reduction across warps, a scan, a
histogram, a scalar atomic's broadcast, ``cp.async``) have a model each in
``op_models``: ``model(op, context)`` (:class:`OpContext`) returns a
:class:`ScratchCost` (its counted accesses and instructions, or why it is
not counted), or ``None`` for an op that touches no shared memory.
``conversion_reps(src, dst, bits)`` says how many reps a conversion's round
trip takes (its barriers), where the planner does not.

A second compiler version is a second module that builds its own
:class:`Lowering` (reusing what did not change) and registers it in
:mod:`linlayout.lower.registry`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any, NamedTuple

from ..core.layout import LinearLayout
from ..core.record import record
from ..count.closed_form import WavefrontReport
from .ir import Op
from .records import ConvertPlanner

__all__ = ["Lowering", "OpContext", "OpModel", "ScratchCost", "barrier_name"]


def barrier_name(num_warps: int) -> str:
    """The barrier an op's lowering emits between its own accesses: ``bar.warp.sync`` with one warp, else ``bar.sync``.

    (Seen in Triton 3.6's and 3.9's PTX: a one-warp conversion synchronises its warp only; the barrier Triton's
    membar pass puts between ops stays ``bar.sync``.)
    """
    return "bar.warp.sync" if num_warps == 1 else "bar.sync"


@record
class ScratchCost:
    """One op lowered through scratch shared memory, for one execution by one warp.

    ``method`` says what the compiler emits; ``accesses`` are the counted
    ``(kind, report)`` pairs (``"store"``, ``"load"``, ``"async_copy"``; a kind
    ending in ``"@cta"`` is the whole CTA's, not one warp's: only some warps
    access);
    ``instructions`` the per-thread PTX instructions by base name (``None``
    when unknown).  A non-empty ``reason`` means the op is not counted (and
    why); ``note`` says what the counts leave out.  ``leading_barrier`` is
    true when the op starts with its own barrier (Triton 3.9's atomics).  ``uncounted`` names a part of a
    counted op's traffic that is not counted, and why (it is listed among the totals' ``not_counted``).
    ``layouts`` are the source and destination of the conversion the op makes through scratch (Triton 3.9's
    reduction exchange), for a ready ``linlayout convert`` query.
    """

    method: str
    accesses: tuple[tuple[str, WavefrontReport], ...] = ()
    instructions: tuple[tuple[str, int], ...] | None = ()
    reason: str = ""
    note: str = ""
    leading_barrier: bool = False
    uncounted: str = ""
    layouts: tuple[LinearLayout, LinearLayout] | None = None


class OpContext(NamedTuple):
    """What a scratch model may read besides its op: the reader's ``layout_of``, the warps per CTA, whether the op's
    first result is used by a later op (a scalar atomic broadcasts its result only then)."""

    layout_of: Callable[[Any], Any]
    num_warps: int
    result_used: bool


OpModel = Callable[[Op, OpContext], "ScratchCost | None"]
"""``model(op, context)``: an op's :class:`ScratchCost`, or ``None`` when it touches no shared memory."""


@record
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
    op_models: Mapping[str, OpModel] = field(default_factory=dict)
    conversion_reps: Callable[[LinearLayout, LinearLayout, int], int] | None = None
