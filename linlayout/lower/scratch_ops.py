"""Ops Triton lowers through scratch shared memory: reductions across warps, histograms, atomics, gathers, cp.async.

Each model takes an op of the IR (:class:`~linlayout.lower.ir.Op`) and an
:class:`~linlayout.lower.model.OpContext` and returns a
:class:`~linlayout.lower.model.ScratchCost` (or ``None`` when the op touches
no shared memory).  :data:`TRITON_3_6_OPS` and :data:`TRITON_3_9_OPS` map op
names to each version's models.  What Triton emits, per version, is
``paper_notes/triton_lowering.md`` (read from both compilers' PTX); the
wavefronts are counted by :func:`~linlayout.count.closed_form.wavefronts` on
the layouts of the accesses, which this module builds:

* ``tt.reduce``: shuffles inside a warp (``log2(lanes along the axis)`` per
  accumulator and operand); across warps, 3.6 stores each warp's partials
  (scalar, one per accumulator), accumulates them in rounds over the scratch
  (a load, shuffles, a store per round) and reads the result back (a scalar
  load per result element), with 2 barriers; 3.9 converts the partials (the
  warps along the axis become lanes: :func:`~linlayout.convert.triton_scratch.triton_scratch`
  picks the scratch, instructions and reps) and shuffles again.
* ``tt.histogram``: zero the bins, barrier, ``atom.shared.add`` (3.6: bins/32
  per thread after ballots; 3.9: one per element), barrier, a load per result
  element.  The atomics' wavefronts depend on the data: not counted.
* scalar ``tt.atomic_rmw``/``tt.atomic_cas`` whose result is used: thread 0
  stores the old value, barrier, every thread loads it (3.9 adds a barrier
  before every ``acq_rel`` atomic and one after).
* ``tt.scan``: shuffles inside each warp (``shfl.sync.up`` per lane bit along
  the axis and one ``shfl.sync.idx`` per chunk; a reverse scan reverses the
  lanes on the way in and out: 5 butterflies per value in 3.6, one in 3.9),
  each chunk's total stored by the warp's last lane along the axis (at
  ``laneIdParallel + numParallelLane * (warp along the axis + warps * chunk)``),
  one barrier, the segments' totals loaded (the last segment's of each row is
  dead and not loaded; where every thread loads the same totals LLVM
  vectorises them: 3.6 splits the live run into aligned v4/v2/b32, 3.9 loads
  the whole run as v4).  Counted through that scratch layout (measured exact
  on the H100 for six scans: forward, reverse, both axes, two operands).
* ``tt.gather``: warp-local (shuffles only) when no warp splits the axis,
  else through shared memory: the source stored by scalars at its linear
  index (dim 0 fastest; counted), a barrier, one load per index at the address
  the index selects (data-dependent: declared ``uncounted``).
* ``ttg.async_copy_global_to_local``: ``cp.async`` (LDGSTS), one per 16 bytes
  (or the vector the layout and ``contiguity`` allow), counted as stores of
  that width into the buffer's layout (kind ``"async_copy"``) where the lanes
  of one pass copy from one global row; where a pass spans several rows (tile
  rows of 64 bytes) the H100 measured no per-instruction rule, and the copy is
  not counted (its instructions are still given).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

from ..core import f2
from ..core.layout import LinearLayout
from ..core.memory import PaddedLayout
from ..count.closed_form import WavefrontReport, wavefronts
from ..errors import InputError
from .ir import Op, TensorType
from .model import OpContext, OpModel, ScratchCost, barrier_name
from ..convert.triton_scratch import count_matrix_or_vector, triton_scratch

__all__ = ["TRITON_3_6_OPS", "TRITON_3_9_OPS", "reduce_exchange_layouts"]

HARDWARE = "sm90"


def _tensors(types: list) -> list[TensorType]:
    return [t for t in types if isinstance(t, TensorType)]


def _ins(**counts: int) -> tuple[tuple[str, int], ...]:
    """An instructions map from keywords (``st_shared=1`` → ``st.shared``), zero counts dropped."""
    names = {"st_shared": "st.shared", "ld_shared": "ld.shared", "shfl_sync": "shfl.sync", "bar_sync": "bar.sync",
             "bar_warp_sync": "bar.warp.sync", "atom_shared": "atom.shared", "cp_async": "cp.async"}
    return tuple((names[k], v) for k, v in counts.items() if v)


def _merge(*maps: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int], ...]:
    out: dict[str, int] = {}
    for m in maps:
        for k, v in m:
            out[k] = out.get(k, 0) + v
    return tuple((k, v) for k, v in out.items() if v)


def _one_word(op: str) -> WavefrontReport:
    """One 32-bit word accessed by a warp whose lanes all use the same address (a broadcast)."""
    return wavefronts(LinearLayout({"register": [], "lane": [[0]] * 5}, {"dim0": 1}),
                      LinearLayout({"offset": []}, {"dim0": 1}), 32, op, hardware=HARDWARE)


def _consecutive_words(bits: int, op: str) -> WavefrontReport:
    """One warp whose lanes access 32 consecutive elements, one each (a zeroing or accumulation round)."""
    lanes = [[1 << i] for i in range(5)]
    return wavefronts(LinearLayout({"register": [], "lane": lanes}, {"dim0": 32}),
                      LinearLayout({"offset": lanes}, {"dim0": 32}), bits, op, vector_bits=bits, hardware=HARDWARE)


def _cta_rounds(report: WavefrontReport, elements: int, threads: int) -> WavefrontReport:
    """A per-warp round over ``elements`` consecutive words by ``threads`` threads: the CTA's total (idle warps issue
    the instruction predicated off and move no data)."""
    rounds = max(1, -(-elements // threads))
    active = -(-elements // 32)
    return replace(report, wavefronts=report.wavefronts_per_instruction * active,
                   ideal_wavefronts=report.passes_per_instruction * active, instructions=rounds)


# ----------------------------------------------------------------------------- atomics


def _atomic(op: Op, ctx: OpContext, barriers_around: bool) -> ScratchCost | None:
    scalar = not _tensors(op.operand_types)
    around = _ins(bar_sync=2) if barriers_around and "acq_rel" in op.text else ()
    note = "" if not barriers_around or "acq_rel" in op.text else "barriers of a non-acq_rel atomic are not modelled"
    if not (scalar and ctx.result_used):
        if not around and not note:
            return None
        return ScratchCost("no shared memory; a barrier before and after the acq_rel atomic", (), around, note=note,
                           leading_barrier=bool(around))
    method = ("scalar atomic: thread 0 stores the old value to scratch, barrier, every thread loads it"
              + ("; a barrier before the atomic" if around else ""))
    return ScratchCost(method, (("store@cta", _one_word("store")), ("load", _one_word("load"))),
                       _merge(_ins(st_shared=1, ld_shared=1, bar_sync=1 + (1 if around else 0))), note=note,
                       leading_barrier=bool(around))


def _atomic_36(op: Op, ctx: OpContext) -> ScratchCost | None:
    return _atomic(op, ctx, barriers_around=False)


def _atomic_39(op: Op, ctx: OpContext) -> ScratchCost | None:
    return _atomic(op, ctx, barriers_around=True)


# ----------------------------------------------------------------------------- cp.async


def _offset_memory(ctx: OpContext, mem_t: TensorType) -> LinearLayout:
    M = ctx.layout_of(mem_t)
    if isinstance(M, PaddedLayout):
        raise InputError("padded shared layout: not linear")
    if M.bases.get("block"):
        raise InputError("a shared layout split over several CTAs")
    return LinearLayout({"offset": M.bases["offset"]}, M.out_sizes)


def _pass_reads_one_row(L: LinearLayout, access_bytes: int) -> bool:
    """Whether the lanes of one shared-memory pass of a ``cp.async`` (a quarter-warp for 16 bytes, a half for 8, the
    warp below) all copy from one global row: their lane bases move along the layout's fastest dim only (the dim of
    its first register basis, contiguous in global memory).  Where they do, LDGSTS costs what a store of that width
    costs (measured exact on the H100: the corpus' pipelined matmuls, 4- and 16-byte copies, softmax, attention)."""
    lanes = L.bases.get("lane", [])
    first = next((b for b in list(L.bases.get("register", [])) + list(lanes) if any(b)), None)
    if first is None:
        return False
    j = next(i for i, x in enumerate(first) if x)
    pass_bits = {16: 3, 8: 4}.get(access_bytes, 5)
    return all(not any(x for i, x in enumerate(b) if i != j) for b in lanes[:pass_bits])


def _async_copy(op: Op, ctx: OpContext) -> ScratchCost:
    """``cp.async``: each thread copies its contiguous runs of up to 16 bytes (``contiguity`` caps the vector)."""
    ptr = next(iter(_tensors(op.operand_types)), None)
    mem = next((t for t in _tensors(op.result_types) if t.memdesc), None)
    if ptr is None or mem is None:
        return ScratchCost("cp.async", reason="cp.async: its pointer or buffer type was not read", instructions=None)
    try:
        L, M = ctx.layout_of(ptr), _offset_memory(ctx, mem)
        bits = mem.element_bits
        rep = wavefronts(L, M, bits, "store", hardware=HARDWARE)
        m = re.search(r"contiguity\s*=\s*(\d+)", op.text)
        if m and rep.vector_bits > int(m.group(1)) * bits:
            rep = wavefronts(L, M, bits, "store", vector_bits=max(int(m.group(1)) * bits, bits), hardware=HARDWARE)
    except InputError as e:
        return ScratchCost("cp.async", reason=f"cp.async (LDGSTS) not counted: {e}", instructions=None)
    if not _pass_reads_one_row(L, rep.vector_bits // 8):
        return ScratchCost(f"cp.async of {rep.vector_bits // 8} bytes per instruction into the buffer (LDGSTS)",
                           instructions=_ins(cp_async=rep.instructions),
                           reason="cp.async (LDGSTS) whose lanes of one pass (a quarter-warp) copy from several "
                                  "global rows: the H100 measured no per-instruction rule for their wavefronts (7.6 "
                                  "and about 7 per 16-byte copy on 64-byte rows, 4 on 128-byte rows), so they are not "
                                  "counted")
    return ScratchCost(f"cp.async of {rep.vector_bits // 8} bytes per instruction into the buffer (LDGSTS)",
                       (("async_copy", replace(rep, instruction="cp.async", op="async_copy")),),
                       _ins(cp_async=rep.instructions))


# ----------------------------------------------------------------------------- histogram


def _zero_bins(bins: int, threads: int) -> WavefrontReport:
    """The bins zeroed in rounds of the CTA's threads at offsets modulo the bins: every warp stores in every round,
    one wavefront each (measured on the H100: 64 bins by 4 warps are 4 store wavefronts per CTA, not 2)."""
    rep = _consecutive_words(32, "store")
    rounds, warps = max(1, -(-bins // threads)), threads // 32
    return replace(rep, wavefronts=rep.wavefronts_per_instruction * rounds * warps,
                   ideal_wavefronts=rep.passes_per_instruction * rounds * warps, instructions=rounds)


def _distinct_warps(report: WavefrontReport, layout: LinearLayout, num_warps: int) -> WavefrontReport:
    """A per-warp read as the CTA's total when only the warps holding distinct elements issue it (a result layout
    broadcast over warps: measured on the H100, 64 bins read by 2 of 4 warps)."""
    zero = sum(1 for b in layout.flat_bases("warp") if not b) if "warp" in layout.in_dims else 0
    distinct = max(1, num_warps >> zero)
    return replace(report, wavefronts=report.wavefronts * distinct, ideal_wavefronts=report.ideal_wavefronts * distinct)


def _histogram(op: Op, ctx: OpContext, per_element: bool) -> ScratchCost:
    src, res = next(iter(_tensors(op.operand_types)), None), next(iter(_tensors(op.result_types)), None)
    if src is None or res is None:
        return ScratchCost("histogram", reason="tt.histogram: its types were not read", instructions=None)
    try:
        S, R = ctx.layout_of(src), ctx.layout_of(res)
        bins, threads = res.shape[0], 32 * ctx.num_warps
        zero = _zero_bins(bins, threads)
        memory = LinearLayout({"offset": [[1 << i] for i in range(int(math.log2(bins)))]}, {"dim0": bins})
        read = _distinct_warps(wavefronts(R, memory, 32, "load", hardware=HARDWARE), R, ctx.num_warps)
    except InputError as e:
        return ScratchCost("histogram", reason=f"tt.histogram not counted: {e}", instructions=None)
    elements = len([b for b in S.flat_bases("register") if b]) if "register" in S.in_dims else 0
    atoms = (1 << elements) if per_element else max(bins, 32) // 32
    method = ("zero the bins, barrier, " + ("one atom.shared.add per element" if per_element else
              "per warp a ballot histogram, bins/32 atom.shared.add per thread") + ", barrier, the bins loaded")
    return ScratchCost(method, (("store@cta", zero), ("load@cta", read)),
                       _ins(st_shared=zero.instructions, bar_sync=2, atom_shared=atoms, ld_shared=read.instructions),
                       note="the atom.shared wavefronts depend on the data (lanes that hit one bin serialise): "
                            "not counted")


def _histogram_36(op: Op, ctx: OpContext) -> ScratchCost:
    return _histogram(op, ctx, per_element=False)


def _histogram_39(op: Op, ctx: OpContext) -> ScratchCost:
    return _histogram(op, ctx, per_element=True)


# ----------------------------------------------------------------------------- gather


def _axis(op: Op) -> int | None:
    m = re.search(r"axis\s*=\s*(\d+)", op.text)
    return int(m.group(1)) if m else None


def _axis_index(L: LinearLayout, axis: int) -> int:
    """The position of output ``dim{axis}``; an op's ``axis`` outside its tensor's rank is an InputError."""
    if f"dim{axis}" not in L.out_dims:
        raise InputError(f"axis = {axis} is outside the operand's {len(L.out_dims)} dimensions")
    return list(L.out_dims).index(f"dim{axis}")


def _along(L: LinearLayout, dim: str, axis: int) -> list[tuple[int, ...]]:
    j = _axis_index(L, axis)
    return [b for b in (L.bases.get(dim) or []) if b[j]]


def _gather_in_shared(S: LinearLayout, I: LinearLayout, bits: int) -> ScratchCost:
    """``emitGatherInShared``: every source element stored by a scalar ``st.shared`` at its linear index (dim 0
    fastest, as both versions' PTX shows: ``gluon_gather_ax0_64x16_w4``), a barrier, one scalar ``ld.shared`` per
    index element at the address its index selects.  The stores are counted; the loads depend on the indices."""
    n_src = len([b for b in S.flat_bases("register") if b])
    n_idx = len([b for b in I.flat_bases("register") if b])
    instructions = _ins(st_shared=1 << n_src, bar_sync=1, ld_shared=1 << n_idx)
    method = "gather through shared memory: the source stored, barrier, one load per index"
    if S.bases.get("block"):
        return ScratchCost(method, reason="a gather across CTAs: not modelled", instructions=instructions)
    memory = _row_major(S.out_sizes, list(range(len(S.out_dims))))
    store = wavefronts(LinearLayout({d: S.bases[d] for d in ("register", "lane") if d in S.bases}, S.out_sizes),
                       memory, bits, "store", vector_bits=bits, hardware=HARDWARE)
    return ScratchCost(method, (("store", store),), instructions,
                       uncounted="the gather's ld.shared: their addresses are the index values, so their wavefronts "
                                 "depend on the data")


def _gather(op: Op, ctx: OpContext) -> ScratchCost:
    tens, axis = _tensors(op.operand_types), _axis(op)
    if len(tens) < 2 or axis is None:
        return ScratchCost("gather", reason="tt.gather: its types were not read", instructions=None)
    try:
        S, I = ctx.layout_of(tens[0]), ctx.layout_of(tens[1])
    except InputError as e:
        return ScratchCost("gather", reason=f"tt.gather: layout not read ({e})", instructions=None)
    if any(_along(L, d, axis) for L in (S, I) for d in ("warp", "block")):
        return _gather_in_shared(S, I, tens[0].element_bits)
    idx_regs = 1 << len([b for b in I.flat_bases("register") if b])
    per_column = 1 << len(_along(S, "register", axis))
    return ScratchCost("warp-local gather: one shfl.sync.idx per index register and source register of its column, "
                       "no shared memory", (), _ins(shfl_sync=idx_regs * per_column))


# ----------------------------------------------------------------------------- reduce


def _project(L: LinearLayout, axis: int) -> list[tuple[int, ...]]:
    """The register bases with their axis coordinate dropped (what the accumulators are indexed by)."""
    j = _axis_index(L, axis)
    return [tuple(0 if i == j else x for i, x in enumerate(b)) for b in L.bases.get("register", [])]


def _accumulators(L: LinearLayout, axis: int) -> int:
    flat = [L.out_flat({d: b[i] for i, d in enumerate(L.out_dims)}) for b in _project(L, axis)]
    return 1 << f2.rank(flat)


def reduce_exchange_layouts(L: LinearLayout, axis: int) -> tuple[LinearLayout, LinearLayout]:
    """The partials of a reduction across warps as stored (``P``: accumulators in registers, the warps along the
    axis as the axis' coordinate, lanes along it broadcast) and as reloaded (``Q``, Triton 3.9's
    ``ReduceOpHelper::getInterLayout``: each warp basis along the axis swapped with a broadcast lane basis when there
    are enough of them, else with the lowest lanes, whose bases go to those warps)."""
    j = _axis_index(L, axis)
    sizes = dict(L.out_sizes)
    warp_axis = [b for b in L.bases.get("warp", []) if b[j]]
    sizes[f"dim{axis}"] = 1 << len(warp_axis)

    def unit(k: int) -> tuple[int, ...]:
        return tuple((1 << k) if i == j else 0 for i in range(len(L.out_dims)))

    def drop(b) -> tuple[int, ...]:
        return tuple(0 if i == j else x for i, x in enumerate(b))

    regs = [drop(b) for b in L.bases.get("register", [])]
    lanes = [drop(b) for b in L.bases.get("lane", [])]
    k = 0
    warps = []
    for b in L.bases.get("warp", []):
        warps.append(unit(k) if b[j] else drop(b))
        k += bool(b[j])
    P = LinearLayout({"register": regs, "lane": lanes, "warp": warps}, sizes)
    q_lanes, q_warps = list(lanes), list(warps)
    on_axis = [i for i, b in enumerate(warps) if b[j]]
    zero = [i for i, b in enumerate(lanes) if not any(b)]
    if len(on_axis) > len(lanes):
        raise InputError("more warp bits along the axis than lane bits: Triton reduces in several exchange rounds, "
                         "which are not modelled")
    targets = zero if len(zero) >= len(on_axis) else list(range(len(on_axis)))
    for lane, w in zip(targets, on_axis):
        q_lanes[lane], q_warps[w] = q_warps[w], q_lanes[lane]
    Q = LinearLayout({"register": regs, "lane": q_lanes, "warp": q_warps}, sizes)
    return P, Q


def _reduced(Q: LinearLayout, axis: int) -> LinearLayout:
    """The exchange layout once reduced along the axis (its axis coordinate gone, the axis of size 1)."""
    j = list(Q.out_dims).index(f"dim{axis}")
    sizes = {**Q.out_sizes, f"dim{axis}": 1}
    return LinearLayout({d: [tuple(0 if i == j else x for i, x in enumerate(b)) for b in bs]
                         for d, bs in Q.bases.items()}, sizes)


def _same_distribution(A: LinearLayout, B: LinearLayout) -> bool:
    """Equal register (broadcast registers aside), lane and warp bases."""
    def key(L: LinearLayout):
        return ([tuple(b) for b in L.bases.get("register", []) if any(b)],
                [tuple(b) for b in L.bases.get("lane", [])], [tuple(b) for b in L.bases.get("warp", [])])
    return key(A) == key(B)


def _reduce_parts(op: Op, ctx: OpContext) -> tuple[list[TensorType], LinearLayout, int, int, int, int] | None:
    """(operand types, layout, axis, accumulators, lanes along the axis, warps along the axis)."""
    tens, axis = _tensors(op.operand_types), _axis(op)
    if not tens or axis is None:
        raise InputError("its operand types or axis were not read")
    L = ctx.layout_of(tens[0])
    lanes = len(_along(L, "lane", axis))
    warps = len(_along(L, "warp", axis))
    if _along(L, "block", axis):
        raise InputError("a reduction across CTAs")
    return tens, L, axis, _accumulators(L, axis), lanes, warps


def _reduce(op: Op, ctx: OpContext, exchange) -> ScratchCost | None:
    try:
        tens, L, axis, accs, lanes, warps = _reduce_parts(op, ctx)  # type: ignore[misc]
        shuffles = accs * lanes * len(tens)
        if not warps:
            return ScratchCost("reduction inside warps: shuffles only, no shared memory", (), _ins(shfl_sync=shuffles))
        return exchange(op, ctx, tens, L, axis, accs, warps, shuffles)
    except InputError as e:
        return ScratchCost("reduction", reason=f"reduction: layout not read ({e})", instructions=None)


def _exchange_36(op: Op, ctx: OpContext, tens, L, axis, accs, warps, shuffles) -> ScratchCost:
    """Triton 3.6: partials stored, barrier, accumulation rounds, barrier, the result read back."""
    P, _ = reduce_exchange_layouts(L, axis)
    memory = _row_major(P.out_sizes, [axis] + [i for i in _order(L) if i != axis])  # the warp index fastest
    res = _tensors(op.result_types)
    threads = 32 * ctx.num_warps
    elements = math.prod(P.out_sizes.values())
    rounds = -(-elements // threads)
    accesses, n_st, n_ld = [], 0, 0
    for t, r in zip(tens, res + [None] * len(tens)):
        bits = t.element_bits
        store = wavefronts(P, memory, bits, "store", vector_bits=bits, hardware=HARDWARE)
        acc_ld = _cta_rounds(_consecutive_words(bits, "load"), elements, threads)
        acc_st = _cta_rounds(_consecutive_words(bits, "store"), elements, threads)
        read = wavefronts(_with_axis(ctx.layout_of(r), axis, P), memory, bits, "load", vector_bits=bits,
                          hardware=HARDWARE) if r is not None else _one_word("load")
        accesses += [("store", store), ("load@cta", acc_ld), ("store@cta", acc_st), ("load", read)]
        n_st += store.instructions + rounds
        n_ld += rounds + read.instructions
    return ScratchCost("reduction across warps (Triton 3.6): partials stored, barrier, accumulated in rounds, "
                       "barrier, read back", tuple(accesses),
                       _ins(st_shared=n_st, ld_shared=n_ld, bar_sync=2,
                            shfl_sync=shuffles + len(tens) * rounds * warps))


def _exchange_39(op: Op, ctx: OpContext, tens, L, axis, accs, warps, shuffles) -> ScratchCost:
    """Triton 3.9: the partials converted so that the warps along the axis become lanes, then shuffled; where the
    lowest lanes had to make room (too few broadcast lanes), a barrier and a second conversion to the result's
    layout (``colsum``: 2 st.shared.v4 + 2 ld.shared.v4 and 3 barriers in 3.9's PTX)."""
    P, Q = reduce_exchange_layouts(L, axis)
    res = _tensors(op.result_types)
    R = _reduced(Q, axis)
    out = _with_axis(ctx.layout_of(res[0]), axis, R) if res else R
    rounds = [(P, Q)] + ([] if _same_distribution(R, out) else [(R, out)])
    accesses, ins = [], _ins(shfl_sync=shuffles)
    for n, (src, dst) in enumerate(rounds):
        for k, t in enumerate(tens):
            s = triton_scratch(src, dst, t.element_bits, matrix=False)
            st = count_matrix_or_vector(src, s.memory, t.element_bits, "store", s.write)
            ld = count_matrix_or_vector(dst, s.memory, t.element_bits, "load", s.read)
            accesses += [("store", st), ("load", ld)]
            ins = _merge(ins, ((s.write.split(".trans")[0], st.instructions),
                               (s.read.split(".trans")[0], ld.instructions),
                               (barrier_name(ctx.num_warps), 2 * s.reps - 1 + (1 if n and not k else 0)),
                               ("shfl.sync", 0 if n else warps * accs)))
    return ScratchCost("reduction across warps (Triton 3.9): the partials converted through scratch so that the "
                       "warps along the axis become lanes, then shuffled"
                       + ("; then converted to the result's layout" if len(rounds) > 1 else ""), tuple(accesses), ins,
                       layouts=(P, Q))


def _order(L: LinearLayout) -> list[int]:
    """The dims from fastest to slowest as the layout's registers, then lanes, then warps first move along them."""
    seen: list[int] = []
    for d in ("register", "lane", "warp"):
        for b in L.bases.get(d, []):
            for i, x in enumerate(b):
                if x and i not in seen:
                    seen.append(i)
    return seen + [i for i in range(len(L.out_dims)) if i not in seen]


def _row_major(sizes: Mapping[str, int], order: list[int]) -> LinearLayout:
    dims = list(sizes)
    bases = []
    for i in order:
        n = sizes[dims[i]]
        bases += [tuple((1 << k) if q == i else 0 for q in range(len(dims))) for k in range(int(math.log2(n)))]
    return LinearLayout({"offset": [list(b) for b in bases]}, dict(sizes))


def _with_axis(R: LinearLayout, axis: int, P: LinearLayout) -> LinearLayout:
    """The result's layout (the axis removed) seen in the scratch tensor at axis coordinate 0."""
    def put(b) -> list[int]:
        b = list(b)
        return b[:axis] + [0] + b[axis:]
    return LinearLayout({d: [put(b) for b in bs] for d, bs in R.bases.items()}, P.out_sizes)


# ----------------------------------------------------------------------------- scan


def _scan_shape(L: LinearLayout, axis: int) -> tuple[int, int, int, int, int]:
    """(values, chunks, positions off the axis, lane bits along the axis, segments along the axis) of a thread.

    A chunk is a run of a thread's registers that are consecutive along the axis; a segment is one chunk's
    span along the axis in one warp (chunks along the axis times the warps along it).
    """
    j = _axis_index(L, axis)
    regs = [b for b in L.bases.get("register", []) if any(b)]
    contiguous = 0
    while contiguous < len(regs) and regs[contiguous][j] == 1 << contiguous and not any(
            x for i, x in enumerate(regs[contiguous]) if i != j):
        contiguous += 1
    along = [b for b in regs[contiguous:] if b[j]]
    off_axis = len(regs) - contiguous - len(along)
    warps = len(_along(L, "warp", axis))
    return 1 << len(regs), 1 << (len(regs) - contiguous), 1 << off_axis, len(_along(L, "lane", axis)), \
        (1 << len(along)) * (1 << warps)


def _scan_lanes(L: LinearLayout, axis: int) -> tuple[list[list[int]], int, int]:
    """Each lane basis' offset in the scan's scratch (its rank among the lanes off the axis; 0 along the axis or
    broadcast: Triton's ``laneIdParallel``), and the lane and warp bits off the axis (``numParallelLane``'s log2)."""
    j = list(L.out_dims).index(f"dim{axis}")
    offsets, k = [], 0
    for b in L.bases.get("lane", []):
        offsets.append([1 << k] if any(b) and not b[j] else [0])
        k += bool(any(b) and not b[j])
    warps = sum(1 for b in L.bases.get("warp", []) if any(b) and not b[j])
    return offsets, k, warps


def _scan_access(lanes: list[list[int]], lane_bits: int, bits: int, op: str, vector: int, count: int) -> WavefrontReport:
    """``count`` scratch accesses of one warp: lane ``l`` at ``laneIdParallel(l)`` (scalars), or every lane at the same
    ``vector`` consecutive elements."""
    if vector > 1:
        regs = [[1 << i] for i in range(vector.bit_length() - 1)]
        L = LinearLayout({"register": regs, "lane": [[0]] * len(lanes)}, {"dim0": vector})
        M = LinearLayout({"offset": regs}, {"dim0": vector})
    else:
        size = 1 << lane_bits
        L = LinearLayout({"register": [], "lane": lanes}, {"dim0": size})
        M = LinearLayout({"offset": [[1 << i] for i in range(lane_bits)]}, {"dim0": size})
    rep = wavefronts(L, M, bits, op, vector_bits=vector * bits, hardware=HARDWARE)
    return replace(rep, wavefronts=rep.wavefronts_per_instruction * count,
                   ideal_wavefronts=rep.passes_per_instruction * count, instructions=count)


def _vector_loads(values: int, dead: set[int], max_elements: int) -> dict[int, int]:
    """The loads LLVM makes of scalar loads of elements ``0..values-1`` but ``dead`` (contiguous in scratch): each
    run of consecutive live elements split greedily into the widest aligned vectors (vector width -> count)."""
    out: dict[int, int] = {}
    i = 0
    while i < values:
        if i in dead:
            i += 1
            continue
        v = max_elements
        while v > 1 and (i % v or any(i + k >= values or i + k in dead for k in range(v))):
            v //= 2
        out[v] = out.get(v, 0) + 1
        i += v
    return out


def _scan(op: Op, ctx: OpContext, reversal_shuffles: int, keep_dead_vector_loads: bool) -> ScratchCost:
    """Triton's ``ScanOpToLLVM``: the scan inside each warp by shuffles; across warps each chunk's total stored by the
    warp's last lane along the axis at ``laneIdParallel + numParallelLane * (warpIdAxis + warps * chunk)``, one
    barrier, then every thread loads the totals of its segments (``AddPartialReduce``; the last segment's total of
    each row is never used and its load is dead).  Where the scratch index does not depend on the thread
    (``numParallelLane`` = 1) the loads are consecutive and LLVM vectorises them."""
    tens, axis = _tensors(op.operand_types), _axis(op)
    try:
        if not tens or axis is None:
            raise InputError("its operand types or axis were not read")
        L = ctx.layout_of(tens[0])
        if _along(L, "block", axis):
            raise InputError("a scan across CTAs")
        values, chunks, positions, lane_bits, segments = _scan_shape(L, axis)
    except InputError as e:
        return ScratchCost("scan", reason=f"tt.scan: layout not read ({e})", instructions=None)
    warps = 1 << len(_along(L, "warp", axis))
    if warps == 1:
        return ScratchCost("scan", reason="a scan whose axis no warp splits: its lowering is not modelled",
                           instructions=None)
    n = len(tens)
    shuffles = chunks * (lane_bits + 1 if lane_bits else 0)
    if "reverse = true" in op.text:
        shuffles += 2 * reversal_shuffles * values
    lanes, parallel_lanes, parallel_warps = _scan_lanes(L, axis)
    method = ("scan: shuffles inside each warp, then each chunk's total stored by the warp's last lane, a barrier, "
              "and the earlier segments' totals loaded")
    if any(not any(b) for b in L.bases.get("warp", [])):
        return ScratchCost(method, (), _ins(st_shared=n * chunks, bar_sync=1, shfl_sync=n * shuffles),
                           reason="a scan over a layout broadcast across warps: its scratch traffic is not modelled",
                           instructions=None)
    dead = positions  # the last segment's total of every row the thread holds
    if parallel_lanes + parallel_warps == 0:  # every thread loads the same totals: consecutive, vectorised
        if positions > 1:
            return ScratchCost(method, reason="a scan holding several rows per thread, one thread per row: the "
                                              "vectorisation of its totals' loads is not modelled", instructions=None)
        dead_set = set() if keep_dead_vector_loads else {segments - 1}
        widths = _vector_loads(segments, dead_set, max(1, 128 // tens[0].element_bits))
    else:
        widths = {1: positions * segments - dead}
    accesses: list[tuple[str, WavefrontReport]] = []
    n_ld = 0
    for t in tens:
        bits = t.element_bits
        accesses.append(("store", _scan_access(lanes, parallel_lanes, bits, "store", 1, chunks)))
        for v, count in sorted(widths.items(), reverse=True):
            accesses.append(("load", _scan_access(lanes, parallel_lanes, bits, "load", v, count)))
            n_ld += count
    return ScratchCost(method, tuple(accesses),
                       _ins(st_shared=n * chunks, bar_sync=1, ld_shared=n_ld, shfl_sync=n * shuffles))


def _scan_36(op: Op, ctx: OpContext) -> ScratchCost:
    return _scan(op, ctx, reversal_shuffles=5, keep_dead_vector_loads=False)


def _scan_39(op: Op, ctx: OpContext) -> ScratchCost:
    return _scan(op, ctx, reversal_shuffles=1, keep_dead_vector_loads=True)


def _reduce_36(op: Op, ctx: OpContext) -> ScratchCost | None:
    return _reduce(op, ctx, _exchange_36)


def _reduce_39(op: Op, ctx: OpContext) -> ScratchCost | None:
    return _reduce(op, ctx, _exchange_39)


TRITON_3_6_OPS: Mapping[str, OpModel] = MappingProxyType({
    "tt.atomic_rmw": _atomic_36, "tt.atomic_cas": _atomic_36, "ttg.async_copy_global_to_local": _async_copy,
    "tt.histogram": _histogram_36, "tt.gather": _gather, "tt.reduce": _reduce_36, "tt.scan": _scan_36})
"""Triton 3.6's scratch-memory models by op name."""

TRITON_3_9_OPS: Mapping[str, OpModel] = MappingProxyType({
    "tt.atomic_rmw": _atomic_39, "tt.atomic_cas": _atomic_39, "ttg.async_copy_global_to_local": _async_copy,
    "tt.histogram": _histogram_39, "tt.gather": _gather, "tt.reduce": _reduce_39, "tt.scan": _scan_39})
"""Triton 3.9's scratch-memory models by op name."""
