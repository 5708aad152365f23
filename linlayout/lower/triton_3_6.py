"""Triton 3.6's lowering of shared-memory ops on sm90, as measured: what the compiler emits, counted per warp.

This module is a model of a compiler, checked against it: the corpus of
``tests/data/ttgir_gpu`` (Triton 3.6's TTGIR of real kernels) and Nsight
Compute's exact per-instruction counters on an H100 agree with the lint's
totals (``tests/io/test_ttgir.py``).  What it states:

* **Local loads and stores** (:func:`count_local_access`): 16-bit data uses
  ``ldmatrix``/``stmatrix`` (``.x4``, then ``.x2``, ``.x1``, then ``.trans``)
  when the layout admits the matrix tile, otherwise ``ld.shared``/``st.shared``
  with the widest vector.
* **Conversions** (:func:`conversion_scope`): a ``convert_layout`` stays out
  of shared memory only when it is trivial in the warps and CTAs; it is a
  register permutation when the lanes agree too, else warp shuffles.
  Otherwise (:func:`shared_round_trip`) the source is stored and the
  destination loaded through Triton's own scratch layout
  (:func:`~linlayout.convert.triton_scratch.triton_scratch`, the generic
  swizzling 3.6 and 3.9 share), with its instruction pair and reps.
  :func:`planned_conversion` counts that lowering and adds linlayout's own
  plan (:func:`~linlayout.convert.plan.plan_conversion`) as the suggestion.
* **Reductions** (:func:`reduce_crosses_warps`): a ``tt.reduce`` whose axis
  is split over warps or CTAs exchanges partial results through scratch
  shared memory; that exchange, scans, histograms, gathers, atomics and
  ``cp.async`` are modelled in :mod:`linlayout.lower.scratch_ops`
  (:data:`~linlayout.lower.scratch_ops.TRITON_3_6_OPS`).
* **Ops that are not ld/st.shared**: TMA, ``wgmma`` and ``tcgen05`` operands
  go through the async proxy, ``cp.async`` is LDGSTS (:data:`ASYNC_OPS`);
  :data:`SCRATCH_OPS` gives the reason printed for a scratch op when no
  model answers for it.

:data:`TRITON_3_6` bundles these as a :class:`~linlayout.lower.model.Lowering`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..convert.cost import cost_of, opcode
from ..convert.plan import plan_conversion
from ..convert.smem import counted_round_trip
from ..core import f2
from ..core.layout import LinearLayout
from ..count.closed_form import WavefrontReport, wavefronts
from ..errors import InputError
from .model import Lowering
from .records import ConversionSuggestion, LoweredConversion
from .scratch_ops import TRITON_3_6_OPS
from ..convert.triton_scratch import count_matrix_or_vector, triton_scratch

__all__ = [
    "ASYNC_OPS",
    "HARDWARE",
    "QUIET_OPS",
    "SCRATCH_OPS",
    "TRITON_3_6",
    "VIEW_OPS",
    "conversion_reps",
    "conversion_scope",
    "count_local_access",
    "planned_conversion",
    "reduce_crosses_warps",
    "shared_round_trip",
    "suggest_conversion",
]

HARDWARE = "sm90"
"""The hardware model (:mod:`linlayout.hw`) this lowering was measured on."""

STORE_CHOICES = ("stmatrix.x4", "stmatrix.x2", "stmatrix.x1", "stmatrix.x4.trans", "stmatrix.x2.trans",
                 "stmatrix.x1.trans")
"""The matrix stores Triton tries for 16-bit data, in its order."""
LOAD_CHOICES = ("ldmatrix.x4", "ldmatrix.x2", "ldmatrix.x1", "ldmatrix.x4.trans", "ldmatrix.x2.trans",
                "ldmatrix.x1.trans")
"""The matrix loads Triton tries for 16-bit data, in its order."""


def count_local_access(layout: LinearLayout, memory: LinearLayout, element_bits: int, op: str,
                       matrix: bool = True) -> WavefrontReport:
    """One warp's ``local_load``/``local_store``: a matrix instruction if it fits (16-bit data), else vectors."""
    if matrix and element_bits == 16:
        for ins in (STORE_CHOICES if op == "store" else LOAD_CHOICES):
            try:
                return wavefronts(layout, memory, element_bits, op, ins, hardware=HARDWARE)
            except InputError:
                continue
    return wavefronts(layout, memory, element_bits, op, hardware=HARDWARE)


def _flat_span(L: LinearLayout, dims: Sequence[str]) -> list[int]:
    return [v for d in dims if d in L.in_dims for v in L.flat_bases(d)]


def _same_bases(src: LinearLayout, dst: LinearLayout, dims: Sequence[str]) -> bool:
    """Both layouts give every basis of ``dims`` the same, nonzero element (a broadcast is not trivial)."""
    for d in dims:
        a = list(src.flat_bases(d)) if d in src.in_dims else []
        b = list(dst.flat_bases(d)) if d in dst.in_dims else []
        if a != b or any(v == 0 for v in a):
            return False
    return True


def _same_span(src: LinearLayout, dst: LinearLayout, dims: Sequence[str]) -> bool:
    a, b = _flat_span(src, dims), _flat_span(dst, dims)
    return f2.rank(a) == f2.rank(b) == f2.rank(a + b)


def conversion_scope(src: LinearLayout, dst: LinearLayout) -> str:
    """``"registers"``, ``"lanes"`` (shuffles inside a warp) or ``"warps"`` (through shared memory).

    Triton keeps a conversion out of shared memory only when it is trivial in
    the warps (and CTAs): both layouts give every warp (CTA) basis the same
    tensor element, and each warp's registers and lanes span the same elements.
    Broadcast warps are not trivial: Triton picks one preimage per element, so
    a slice layout converted to a layout with distinct warps goes through
    shared memory (measured: the ``colsum`` kernel of the corpus).
    Likewise lanes: identical lane bases and register spans stay in registers.
    A source broadcast over lanes never converts by shuffles: Triton goes
    through shared memory (measured on the H100 and seen in 3.6's and 3.9's
    PTX: a one-warp reduction's result, ``red_sum_row_fp32_32x128_w1``).
    """
    dst = dst.transpose_outs(list(src.out_dims))
    if not (_same_bases(src, dst, ("warp", "block")) and _same_span(src, dst, ("register", "lane"))):
        return "warps"
    if _same_bases(src, dst, ("lane",)) and _same_span(src, dst, ("register",)):
        return "registers"
    if "lane" in src.in_dims and 0 in src.flat_bases("lane"):
        return "warps"  # a source broadcast over lanes is not shuffled (a one-warp reduction's result, measured)
    return "lanes"


def shared_round_trip(src: LinearLayout, dst: LinearLayout, element_bits: int) -> LoweredConversion:
    """A conversion through shared memory as Triton 3.6 emits it: its scratch layout, instructions and reps.

    The scratch layout, the reps and the instruction pair are Triton's own
    choice, ported in :func:`~linlayout.convert.triton_scratch.triton_scratch`
    (its generic swizzling, which 3.6 and 3.9 share: the corpus' conversions
    are the same in both compilers' PTX); the wavefronts are counted through
    that layout.  This replaced an older model (stores ``st.shared``, loads
    through linlayout's optimal swizzle) that read ``colsum``'s column sums
    with ``ld.shared`` where Triton issues ``ldmatrix.x1`` (measured on the
    H100: ``tests/data/ttgir_gpu``).
    """
    s = triton_scratch(src, dst, element_bits)
    store = count_matrix_or_vector(src, s.memory, element_bits, "store", s.write)
    load = count_matrix_or_vector(dst, s.memory, element_bits, "load", s.read)
    reps = f" in {s.reps} reps" if s.reps > 1 else ""
    return LoweredConversion(f"shared-memory round trip through Triton's scratch layout ({store.instruction}, "
                             f"{load.instruction}){reps}", store, load, s.memory, reps=s.reps)


def _round_trip_cost(src: LinearLayout, dst: LinearLayout, element_bits: int, store: WavefrontReport,
                     load: WavefrontReport, reps: int = 1) -> int:
    """The counted round trip under the planner's cost model (barriers of every rep and packing of narrow elements included)."""
    rt = counted_round_trip(src, dst, element_bits, store, load, reps)
    return cost_of({opcode(k): v for k, v in rt.instructions.items()}, rt.wavefronts)


def suggest_conversion(src: LinearLayout, dst: LinearLayout, element_bits: int,
                base: LoweredConversion) -> ConversionSuggestion:
    """linlayout's plan for the conversion, with the counted lowering's cost beside it."""
    try:
        p = plan_conversion(src, dst, element_bits)
    except InputError as e:
        return ConversionSuggestion(error=str(e))
    shared = p.path == "shared_memory"
    counted = (_round_trip_cost(src, dst, element_bits, base.store, base.load, base.reps or 1)  # type: ignore[arg-type]
               if base.uses_shared_memory else None)
    return ConversionSuggestion(
        path=p.path, instructions=tuple(p.instructions.items()), cost=p.cost,
        wavefronts=tuple((p.wavefronts or {}).items()) if shared else None,
        reps=p.reps if shared else None, scratch_bytes=p.scratch_bytes if shared else None, counted_cost=counted)


def planned_conversion(src: LinearLayout, dst: LinearLayout, element_bits: int) -> LoweredConversion:
    """Triton's expected lowering of a conversion, counted, and linlayout's plan as the suggestion.

    Triton keeps a conversion in registers or shuffles when
    :func:`conversion_scope` says so (nothing is counted) and otherwise makes
    the round trip of :func:`shared_round_trip` (counted: the ncu comparison
    of ``tests/data/ttgir_gpu`` rests on it).  The suggestion is
    :func:`~linlayout.convert.plan.plan_conversion`'s plan, or one with an
    ``error`` when it has none (e.g. data crossing CTAs).

    >>> from linlayout.core.layout import LinearLayout
    >>> rows = LinearLayout({"register": [[0, 1]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
    >>> cols = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
    >>> p = planned_conversion(rows, cols, 32)
    >>> p.store is None, p.suggestion.path, dict(p.suggestion.instructions), p.suggestion.cost
    (True, 'shared_memory', {'st.shared': 1, 'ldmatrix': 1, 'bar.warp.sync': 1}, 48)
    """
    scope = conversion_scope(src, dst)
    if scope == "warps":
        base = shared_round_trip(src, dst, element_bits)
    else:
        base = LoweredConversion("register permutation, no shared memory" if scope == "registers"
                                 else "warp shuffles inside each warp, no shared memory")
    return LoweredConversion(base.method, base.store, base.load, base.memory,
                             suggest_conversion(src, dst, element_bits, base), base.reps)


def reduce_crosses_warps(layout: LinearLayout, axis: int) -> bool:
    """Whether a ``tt.reduce`` along ``axis`` combines values held by different warps (or CTAs)."""
    j = list(layout.out_dims).index(f"dim{axis}")
    return any(b[j] for d in ("warp", "block") if d in layout.in_dims for b in layout.bases[d])


def conversion_reps(src: LinearLayout, dst: LinearLayout, element_bits: int) -> int:
    """How many reps the round trip of a conversion takes (Triton's scratch layout; the same in 3.6 and 3.9)."""
    return triton_scratch(src, dst, element_bits).reps


ASYNC_OPS = {
    "ttng.warp_group_dot": "wgmma reads its shared-memory operands through the async proxy (not in the LSU counters)",
    "ttng.async_tma_copy_global_to_local": "TMA copy: the async proxy writes shared memory",
    "ttng.async_tma_copy_local_to_global": "TMA store: the async proxy reads shared memory",
    "ttng.async_tma_gather": "TMA gather: the async proxy writes shared memory",
    "ttng.async_tma_scatter": "TMA scatter: the async proxy reads shared memory",
    "ttng.tc_gen5_mma": "tcgen05.mma reads shared memory through the async proxy",
    "ttg.async_copy_global_to_local": "cp.async (LDGSTS) writes shared memory from global; not an ld/st.shared",
}
"""Ops that move shared memory outside the ld/st.shared counters, and why."""

SCRATCH_OPS = {
    "tt.scan": "tt.scan may exchange partial results through scratch shared memory (Triton's lowering; not modelled)",
    "tt.histogram": "tt.histogram uses scratch shared memory (Triton's lowering; not modelled)",
    "tt.gather": "tt.gather may go through scratch shared memory (Triton's lowering; not modelled)",
}
"""Ops whose lowering uses scratch shared memory that this model does not count, and why."""

VIEW_OPS = frozenset({"ttg.memdesc_index", "ttg.memdesc_trans", "ttg.memdesc_subslice", "ttg.memdesc_subview",
                      "ttg.memdesc_reinterpret", "ttg.memdesc_reshape"})
"""Ops that make a view of a buffer (no traffic of their own)."""

QUIET_OPS = VIEW_OPS | frozenset({
    "ttg.local_dealloc", "ttg.async_commit_group", "ttg.async_wait", "ttng.fence_async_shared",
    "ttng.warp_group_dot_wait", "ttng.init_barrier", "ttng.inval_barrier", "ttng.wait_barrier", "ttng.barrier_expect",
    "ttng.arrive_barrier", "ttng.tensormap_create", "ttng.tensormap_fenceproxy_acquire", "ttg.barrier",
    "ttng.reinterpret_tensor_descriptor"})
"""Ops of the ``ttg``/``ttng`` dialects that move no shared memory through the LSU."""

TRITON_3_6 = Lowering(
    version="3.6", hardware=HARDWARE, count_local_access=count_local_access, conversion_scope=conversion_scope,
    planned_conversion=planned_conversion, shared_round_trip=shared_round_trip,
    reduce_crosses_warps=reduce_crosses_warps, async_ops=ASYNC_OPS, scratch_ops=SCRATCH_OPS, quiet_ops=QUIET_OPS,
    view_ops=VIEW_OPS, op_models=TRITON_3_6_OPS, conversion_reps=conversion_reps)
"""Triton 3.6 on sm90 (measured on an H100 and an H200).  A conversion's reps (its barriers) are Triton's scratch
layout's, which 3.6 and 3.9 share (``paper_notes/triton_lowering.md``)."""
