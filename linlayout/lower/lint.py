"""Lint a kernel: the shared-memory traffic of every op a warp issues, per buffer the optimal swizzle, the totals.

The analysis behind ``linlayout lint``.  It reads a parsed module
(:mod:`linlayout.lower.ir`; :mod:`linlayout.io.ttgir` reads the text) and asks
a compiler version's lowering model (:mod:`linlayout.lower.registry`) what
each op costs.  What is counted, per op and for one execution by one warp
(every warp of a linear layout sees the same bank pattern, shifted):

* ``ttg.local_alloc`` with a source and ``ttg.local_store``: a store of the
  source's register layout into the memdesc's layout;
* ``ttg.local_load``: a load;
* ``ttg.convert_layout`` whose data crosses warps: a shared-memory round
  trip, priced by a *convert planner*
  (:data:`~linlayout.lower.records.ConvertPlanner`).  The default, the
  lowering's ``planned_conversion``, counts what the compiler's kernel does,
  so the totals stay comparable with ncu, and adds linlayout's own plan as
  the suggestion.  A conversion inside a warp uses shuffles or register
  moves: no shared memory is counted, and the plan is still reported.

Listed as not counted, with the reason: ops through the async proxy, scratch
memory lowerings (``tt.reduce`` across warps, ``tt.scan``...), and ops of the
``ttg``/``ttng`` dialects that the model does not know; encodings that cannot
be read are reported, never guessed.

Per buffer: when one writer layout and one reader layout use it, the optimal
memory layout for the pair (:func:`~linlayout.synth.synthesis.optimal_swizzle`),
counted as the lowering would access it.

Totals (a grid, trip counts): each counted op's wavefronts per warp × warps ×
CTAs × executions, where executions multiply the trip counts of the enclosing
``scf.for`` loops.  A loop without a trip count makes the total unknown
(``None``) rather than a guess.

The result is a :class:`~linlayout.lower.records.LintReport` of immutable
records; :mod:`linlayout.io.ttgir.lint` prints it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import NamedTuple

from ..core.layout import LinearLayout
from ..core.memory import PaddedLayout
from ..core.validate import check_int, check_int_sequence, check_mapping
from ..errors import InputError
from ..hw import get_hardware
from ..synth.synthesis import optimal_swizzle
from .ir import Module, Op, TensorType, UnreadType
from .model import Lowering, OpContext, ScratchCost, barrier_name
from .records import (
    TOTAL_CATEGORIES,
    BufferLint,
    BufferOptimum,
    ConvertPlanner,
    KernelTotal,
    LintReport,
    LoopTrip,
    LoweredConversion,
    OpLint,
    opcode_base,
)
from .loops import LoopCount, executions, loop_matches, loop_trip_counts
from .registry import DEFAULT_TRITON, get_lowering

__all__ = ["LayoutOf", "lint_module", "loop_matches"]

LayoutOf = Callable[[TensorType], "LinearLayout | PaddedLayout"]
"""Resolves a tensor type's encoding to its layout (the reader's job); raises an ``InputError`` it cannot read."""

_LOCAL_OPS = ("ttg.local_alloc", "ttg.local_store", "ttg.local_load", "ttg.convert_layout")


class _Use(NamedTuple):
    """A counted or uncounted op of a buffer, with the register layout it accesses it with."""

    record: OpLint
    layout: LinearLayout | None
    perm: list[int] | None
    leading_barrier: bool = False


# ----------------------------------------------------------------------------- buffers and views


def _perm_of(op: Op) -> list[int] | None:
    m = re.search(r"order\s*=\s*array<i32:\s*([\d,\s]+)>", op.text)
    return [int(x) for x in m.group(1).split(",")] if m else None


def _buffer_roots(module: Module, view_ops: frozenset[str]) -> tuple[dict[str, str], dict[str, object]]:
    """SSA name → root buffer name, and the dim permutation of each view (``"opaque"`` when not followed)."""
    root: dict[str, str] = {}
    perm: dict[str, object] = {}
    for op in module.ops:
        if op.name == "ttg.local_alloc" and op.results:
            root[op.results[0]] = op.results[0]
            perm[op.results[0]] = None
        elif op.name in view_ops and op.results and op.operands and op.operands[0] in root:
            src = op.operands[0]
            root[op.results[0]] = root[src]
            p = perm.get(src)
            if op.name == "ttg.memdesc_trans":
                q = _perm_of(op)
                p = None if q is None else [(p[i] if p else i) for i in q]  # type: ignore[index]
            elif op.name not in ("ttg.memdesc_index", "ttg.memdesc_subslice", "ttg.memdesc_subview"):
                p = "opaque"
            perm[op.results[0]] = p
        elif op.name in ("scf.for", "scf.while"):
            for a, b in re.findall(r"(%[\w]+)\s*=\s*(%[\w]+)", op.text.split("iter_args", 1)[-1]):
                if b in root:
                    root[a] = root[b]
                    perm[a] = perm.get(b)
    return root, perm


def _used_results(module: Module) -> frozenset[int]:
    """The lines of the ops whose first result a later op uses before the name is defined again.

    MLIR's printer reuses a name in sibling regions (an ``%8`` inside an ``scf.while`` and another inside an
    ``scf.if``), so a name used anywhere is not enough: the layer-norm backward's ``atomic_xchg`` inside an
    ``scf.if`` has an unused result although an earlier ``%8`` is used (Triton 3.9's PTX: no broadcast there).
    """
    used: set[int] = set()
    live: dict[str, int] = {}
    for op in module.ops:
        for v in op.operands:
            if v in live:
                used.add(live.pop(v))
        if op.results:
            live[op.results[0]] = op.line
        for r in op.results[1:]:
            live.pop(r, None)
    return frozenset(used)


# ----------------------------------------------------------------------------- one op


class _Ctx(NamedTuple):
    lowering: Lowering
    layout_of: LayoutOf
    planner: ConvertPlanner
    root: dict[str, str]
    perm: dict[str, object]
    num_warps: int
    used: frozenset[int]


def _record(op: Op, kind: str = "", element_bits: int = 0, shape: Sequence[int] = (), **fields) -> OpLint:
    """An uncounted record of ``op`` (``fields``: the rest of :class:`OpLint`); counting replaces it."""
    return OpLint(op.name, op.location, op.line, element_bits, tuple(shape), kind, False, **fields)


def _local_access(ctx: _Ctx, op: Op, kind: str, reg_t: TensorType, mem_t: TensorType, buffer: str | None,
                  perm: object) -> _Use:
    """A ``local_alloc``/``local_store`` (``kind="store"``) or ``local_load`` (``"load"``) counted as the lowering issues it."""
    bits, order = mem_t.element_bits, perm if isinstance(perm, list) else None
    base = _record(op, kind, bits, mem_t.shape, buffer=buffer)
    try:
        L, M = ctx.layout_of(reg_t), ctx.layout_of(mem_t)
        base = replace(base, layout_text=reg_t.encoding.text if reg_t.encoding else "",
                       memory_text=mem_t.encoding.text if mem_t.encoding else "")
        if isinstance(M, PaddedLayout):
            return _Use(replace(base, reason="padded shared layout: not linear, count it with the simulator"), L, order)
        if M.bases.get("block"):
            return _Use(replace(base, reason="a shared layout split over several CTAs: counted per CTA only when "
                                             "num-ctas is 1"), L, order)
        M = LinearLayout({"offset": M.bases["offset"]}, M.out_sizes)
        hw = get_hardware(ctx.lowering.hardware)
        if "lane" in L.in_dims and L.in_sizes["lane"] != hw.lanes:
            return _Use(replace(base, reason=f"{L.in_sizes['lane']}-lane layout: no bank model for it here "
                                             f"({hw.name} has {hw.lanes} lanes)"), L, order)
        report = ctx.lowering.count_local_access(L, M, bits, kind)
        return _Use(replace(base, counted=True, access=report,
                            instructions=((opcode_base(report.instruction), report.instructions),)), L, order)
    except InputError as e:
        return _Use(replace(base, reason=f"not read: {e}"), None, order)


def _conversion(ctx: _Ctx, op: Op, src_t: TensorType, dst_t: TensorType) -> OpLint:
    """A ``convert_layout``: the planner's counted lowering (a round trip when it crosses warps) and suggestion."""
    base = _record(op, "convert", src_t.element_bits, src_t.shape)
    try:
        S, D = ctx.layout_of(src_t), ctx.layout_of(dst_t)
        base = replace(base, layout_text=f"{src_t.encoding.text} -> {dst_t.encoding.text}",  # type: ignore[union-attr]
                       layouts=(S, D) if isinstance(S, LinearLayout) and isinstance(D, LinearLayout) else None)
        scope = ctx.lowering.conversion_scope(S, D)
        if scope != "warps" and ctx.planner is ctx.lowering.shared_round_trip:
            plan = LoweredConversion("")
        else:
            plan = ctx.planner(S, D, src_t.element_bits)
    except InputError as e:
        return replace(base, reason=f"not read: {e}")
    if plan.uses_shared_memory:
        return replace(base, counted=True, conversion=plan, **_round_trip_instructions(ctx, plan, S, D,
                                                                                       src_t.element_bits))
    reason = ("register permutation, no shared memory" if scope == "registers"
              else "warp shuffles inside each warp, no shared memory")
    note = "" if scope == "registers" else "its warp shuffles are not counted here"
    return replace(base, reason=reason, conversion=plan, instructions=(() if scope == "registers" else None),
                   instructions_note=note)


def _round_trip_instructions(ctx: _Ctx, plan: LoweredConversion, src: LinearLayout, dst: LinearLayout,
                             bits: int) -> dict:
    """A counted round trip's instructions per thread: its stores and loads, and a barrier between them per rep."""
    st, ld = plan.store, plan.load
    assert st is not None and ld is not None
    reps, note = plan.reps, ""
    if reps == 1 and ctx.lowering.conversion_reps is not None:
        try:
            reps = ctx.lowering.conversion_reps(src, dst, bits)
        except InputError as e:
            reps, note = 0, f"bar.sync not counted: the reps are unknown ({e})"
    ins = {opcode_base(st.instruction): st.instructions}
    ins[opcode_base(ld.instruction)] = ins.get(opcode_base(ld.instruction), 0) + ld.instructions
    if reps:
        ins[barrier_name(ctx.num_warps)] = 2 * reps - 1
    return {"instructions": tuple(ins.items()), "instructions_note": note}


def _reduction(ctx: _Ctx, op: Op) -> OpLint | None:
    """A ``tt.reduce`` across warps (scratch memory, not modelled); ``None`` for one that stays inside warps."""
    t = next((x for x in op.operand_types if isinstance(x, TensorType)), None)
    m = re.search(r"axis\s*=\s*(\d+)", op.text)
    why = "its operand type was not found"
    cross: bool | None = None
    try:
        if m and t is not None:
            cross = ctx.lowering.reduce_crosses_warps(ctx.layout_of(t), int(m.group(1)))  # type: ignore[arg-type]
    except InputError as e:
        cross, why = None, str(e)
    if cross is False:
        return None
    reason = ("reduction across warps: Triton exchanges partial results through scratch shared memory "
              "(its lowering is not modelled here)" if cross else f"reduction: layout not read ({why})")
    return _record(op, "", t.element_bits if t else 0, t.shape if t else (), reason=reason)


def _scratch_record(op: Op, cost: ScratchCost) -> OpLint:
    """The record of an op lowered through scratch memory (counted unless the model gives a reason)."""
    tens = [x for x in op.operand_types + op.result_types if isinstance(x, TensorType)]
    t = next((x for x in tens if x.memdesc), tens[0] if tens else None)  # a copy's buffer gives its element
    reg = next((x for x in tens if not x.memdesc), None)
    rec = _record(op, "scratch", t.element_bits if t else 0, t.shape if t else (), reason=cost.reason,
                  layout_text=reg.encoding.text if reg and reg.encoding else "", method=cost.method,
                  instructions=cost.instructions, instructions_note=cost.note, uncounted=cost.uncounted,
                  layouts=cost.layouts,
                  memory_text=t.encoding.text if t and t.memdesc and t.encoding else "")
    if cost.reason:
        return rec
    if not cost.accesses:  # shuffles or barriers only: listed with its instructions, nothing to count
        return replace(rec, reason=cost.method)
    return replace(rec, counted=True, accesses=cost.accesses)


_DISTRIBUTED = ("ttg.blocked", "ttg.slice", "ttg.linear", "ttg.nvidia_mma", "ttg.dot_op", "ttg.amd_mfma", "ttg.amd_wmma")


def _local_types(op: Op, registers: Sequence[object], memories: Sequence[object]) -> tuple[TensorType, TensorType]:
    """A local op's register tensor and its shared buffer (a ``!ttg.memdesc`` with a shared encoding), or an InputError."""
    reg_t = next((t for t in registers if isinstance(t, TensorType) and not t.memdesc), None)
    mem_t = next((t for t in memories if isinstance(t, TensorType) and t.memdesc), None)
    where = f"{op.name} at line {op.line}"
    if reg_t is None or mem_t is None:
        raise InputError(f"{where} needs a tensor and a !ttg.memdesc operand or result, got "
                         f"{', '.join(t.text for t in registers if isinstance(t, TensorType)) or 'no tensor types'}")
    kind = getattr(mem_t.encoding, "kind", None)
    if kind in _DISTRIBUTED:
        raise InputError(f"{where}: the !ttg.memdesc has the distributed encoding #{kind}; a buffer in shared memory "
                         "has a shared encoding (#ttg.swizzled_shared, #ttg.nvmma_shared, ...)")
    return reg_t, mem_t


def _op_lint(ctx: _Ctx, op: Op) -> _Use | None:
    """The lint of one op, or ``None`` for an op that touches no shared memory."""
    n, low = op.name, ctx.lowering
    tens = [t for t in op.operand_types + op.result_types if isinstance(t, TensorType)]
    unread = [t for t in op.operand_types + op.result_types if isinstance(t, UnreadType)]
    if unread and n in _LOCAL_OPS:
        return _Use(_record(op, reason=f"type not read: {unread[0].error}"), None, None)
    if n == "ttg.local_alloc" and not op.operands:  # an empty buffer: its users are counted
        return None
    if n == "ttg.local_alloc" and op.operands and len(tens) >= 2:
        reg_t, mem_t = _local_types(op, op.operand_types, op.result_types)
        return _local_access(ctx, op, "store", reg_t, mem_t, ctx.root.get(op.results[0]), None)
    if n in ("ttg.local_store", "ttg.local_load") and len(tens) >= 2:
        reg_t, mem_t = _local_types(op, tens, tens)
        store = n == "ttg.local_store"
        buf = (op.operands[1] if len(op.operands) > 1 else None) if store else (op.operands[0] if op.operands else None)
        return _local_access(ctx, op, "store" if store else "load", reg_t, mem_t, ctx.root.get(buf),  # type: ignore[arg-type]
                             ctx.perm.get(buf))  # type: ignore[arg-type]
    if n == "ttg.convert_layout" and len(tens) >= 2:
        return _Use(_conversion(ctx, op, tens[0], tens[-1]), None, None)
    if n in low.op_models:
        used = op.line in ctx.used
        cost = low.op_models[n](op, OpContext(ctx.layout_of, ctx.num_warps, used))
        if cost is None:
            return None
        bufs = ",".join(sorted({ctx.root[v] for v in op.operands + op.results if v in ctx.root})) or None
        return _Use(replace(_scratch_record(op, cost), buffer=bufs), None, None, cost.leading_barrier)
    if n in low.async_ops:
        t = next((x for x in op.result_types + op.operand_types if isinstance(x, TensorType) and x.memdesc), None)
        bufs = sorted({ctx.root[v] for v in op.operands if v in ctx.root})
        return _Use(_record(op, "", t.element_bits if t else 0, t.shape if t else (), reason=low.async_ops[n],
                            memory_text=t.encoding.text if t and t.encoding else "", buffer=",".join(bufs) or None),
                    None, None)
    if n == "tt.reduce":
        rec = _reduction(ctx, op)
        return None if rec is None else _Use(rec, None, None)
    if n in low.scratch_ops:
        return _Use(_record(op, reason=low.scratch_ops[n]), None, None)
    if n.startswith(("ttg.", "ttng.", "amdg")) and n not in low.quiet_ops:
        return _Use(_record(op, reason="unknown op: its shared-memory traffic is not modelled"), None, None)
    return None


# ----------------------------------------------------------------------------- buffers


def _in_buffer_dims(layout: LinearLayout, perm: list[int] | None) -> LinearLayout:
    """A register layout seen through a transposed view, in the buffer's own dims."""
    if not perm:
        return layout
    L = layout.rename(None, {f"dim{i}": f"v{p}" for i, p in enumerate(perm)})
    L = L.rename(None, {f"v{p}": f"dim{p}" for p in perm})
    return L.transpose_outs([f"dim{i}" for i in range(len(perm))])


def _buffer_lint(lowering: Lowering, name: str, uses: list[_Use], allocated_at: str) -> BufferLint:
    """A buffer's current wavefronts per warp and, for one writer and one reader layout, its optimum."""
    counted = [u for u in uses if u.record.counted and u.record.access is not None]
    fixed = [u.record for u in uses if not u.record.counted or u.record.kind == "scratch"]
    w = sum(u.record.access.wavefronts for u in counted if u.record.kind == "store")  # type: ignore[union-attr]
    r = sum(u.record.access.wavefronts for u in counted if u.record.kind == "load")  # type: ignore[union-attr]
    enc = next((u.record.memory_text for u in uses if u.record.memory_text), "")
    current = BufferLint(name, allocated_at, enc, w, r)
    if fixed:
        return replace(current, reason=f"also used by {fixed[0].op} ({fixed[0].reason or fixed[0].method}); its "
                                       f"layout is fixed by that user")
    if any(u.perm is None and u.record.buffer is None for u in counted):
        return replace(current, reason="a view of the buffer was not followed")
    writers = {_in_buffer_dims(u.layout, u.perm) for u in counted if u.record.kind == "store"}  # type: ignore[arg-type]
    readers = {_in_buffer_dims(u.layout, u.perm) for u in counted if u.record.kind == "load"}  # type: ignore[arg-type]
    if len(writers) != 1 or len(readers) != 1:
        return replace(current, reason=f"{len(writers)} distinct writer and {len(readers)} reader layouts; the "
                                       f"optimum is computed for exactly one of each")
    W, R = writers.pop(), readers.pop()
    bits = counted[0].record.element_bits
    try:
        res = optimal_swizzle(W, R, bits)
    except InputError as e:
        return replace(current, reason=f"no optimum: {e}")
    ws = sum(lowering.count_local_access(W, res.memory, bits, "store").wavefronts
             for u in counted if u.record.kind == "store")
    rs = sum(lowering.count_local_access(R, res.memory, bits, "load").wavefronts
             for u in counted if u.record.kind == "load")
    return replace(current, optimal=BufferOptimum(res.memory, bits, ws, rs))


def _buffers(lowering: Lowering, module: Module, uses: list[_Use]) -> tuple[BufferLint, ...]:
    by_buf: dict[str, list[_Use]] = {}
    for u in uses:
        for b in (u.record.buffer or "").split(","):
            if b:
                by_buf.setdefault(b, []).append(u)
    allocs = {op.results[0]: op for op in module.ops if op.name == "ttg.local_alloc" and op.results}
    return tuple(_buffer_lint(lowering, name, lst, allocs[name].location if name in allocs else "")
                 for name, lst in by_buf.items())


# ----------------------------------------------------------------------------- barriers between ops


def _phases(rec: OpLint) -> tuple[str, str, str, bool] | None:
    """(memory, first access kind, last access kind, barrier inside) of an op whose shared accesses membar sees."""
    if rec.instructions is None or not rec.counted:
        return None
    if rec.access is not None:
        return rec.buffer or "?", rec.kind, rec.kind, False
    kinds = [k.split("@")[0] for k, _ in rec.counted_accesses if k.split("@")[0] in ("store", "load")]
    if not kinds:
        return None
    return "scratch", kinds[0], kinds[-1], dict(rec.instructions).get("bar.sync", 0) > 0


def _membar(uses: list[_Use]) -> list[_Use]:
    """Add the barrier Triton's membar pass puts before an op whose first access races an earlier one.

    Straight-line code only (inside loops the back edges decide; those ops are left as they are and the
    state is reset).  Scratch buffers of different ops may share bytes; an explicit buffer shares them with
    scratch only outside its live range (first to last use).
    """
    live: dict[str, tuple[int, int]] = {}
    for i, u in enumerate(uses):
        if u.record.access is not None and u.record.buffer:
            a, _ = live.get(u.record.buffer, (i, i))
            live[u.record.buffer] = (a, i)

    def overlap(x: str, y: str, at: int) -> bool:
        if x == y:
            return True
        if "scratch" not in (x, y):
            return False
        buf = y if x == "scratch" else x
        a, b = live.get(buf, (at, at))
        return not a <= at <= b

    out, pending = [], []
    for i, u in enumerate(uses):
        ph = _phases(u.record)
        if ph is None or u.record.loops:
            pending = [] if u.record.loops or u.leading_barrier else pending
            out.append(u)
            continue
        mem, first, last, inside = ph
        race = not u.leading_barrier and any(overlap(m, mem, i) and "store" in (k, first) for m, k in pending)
        if race:
            ins = dict(u.record.instructions or ())
            ins["bar.sync"] = ins.get("bar.sync", 0) + 1
            note = "; ".join(x for x in (u.record.instructions_note, "1 bar.sync before it from Triton's membar pass") if x)
            u = u._replace(record=replace(u.record, instructions=tuple(ins.items()), instructions_note=note))
        pending = [(mem, last)] if inside or u.leading_barrier else ([] if race else pending) + [(mem, first), (mem, last)]
        out.append(u)
    return out


def _sunk_final_load(uses: list[_Use], module: Module, num_warps: int) -> list[_Use]:
    """The last shared-memory op of the kernel, a conversion whose ``ld.shared`` result only ``tt.store`` uses, loads
    in the warps that hold distinct data only.

    ``ptxas`` sinks that load below the early exit of the threads the store masks off (Triton stores each element
    from one thread; warps that hold copies exit).  Seen in Triton 3.6's SASS (``LDS`` after ``@!P0 EXIT``) of the
    corpus' fp16 reductions and measured on the H100: ``red_sum_row_fp16_4x2048_w8`` loads its 4-element result in
    1 warp of 8.  ``ldmatrix`` is warp-synchronous and is not sunk.
    """
    last = max((i for i, u in enumerate(uses) if _phases(u.record) is not None), default=None)
    if last is None:
        return uses
    u = uses[last]
    rec, conv = u.record, u.record.conversion
    if (rec.op != "ttg.convert_layout" or rec.loops or conv is None or conv.load is None or conv.store is None
            or not conv.load.instruction.startswith("ld.shared") or rec.layouts is None):
        return uses
    op = next((o for o in module.ops if o.line == rec.line and o.name == rec.op), None)
    users = [o.name for o in module.ops if op is not None and op.results and op.results[0] in o.operands]
    if not users or any(n != "tt.store" for n in users):
        return uses
    dst = rec.layouts[1]
    broadcast = sum(1 for b in dst.bases.get("warp", []) if not any(b))
    distinct = num_warps >> broadcast
    if distinct == num_warps:
        return uses
    load = replace(conv.load, wavefronts=conv.load.wavefronts * distinct,
                   ideal_wavefronts=conv.load.ideal_wavefronts * distinct)
    note = "; ".join(x for x in (rec.instructions_note, f"its ld.shared runs in the {distinct} of {num_warps} warps "
                                 "that store distinct elements (ptxas sinks it below the others' exit)") if x)
    out = list(uses)
    out[last] = u._replace(record=replace(rec, accesses=(("store", conv.store), ("load@cta", load)),
                                          instructions_note=note))
    return out


# ----------------------------------------------------------------------------- loops and totals


def _placed(record: OpLint, op_loops: Sequence[int], module: Module, counts: Mapping[int, LoopCount]) -> OpLint:
    """The record with its loops' locations and its executions per warp (``None`` when a trip count is missing)."""
    execs, _ = executions(op_loops, counts)
    return replace(record, loops=tuple(module.loops[li].location for li in op_loops), executions_per_warp=execs)


def _category(kind: str, instruction: str) -> str:
    if instruction.startswith("ldmatrix"):
        return "ldsm"
    if instruction.startswith("stmatrix"):
        return "stsm"
    return "ld" if kind == "load" else "st"


def _per_iteration(ops: Sequence[OpLint], module: Module, counts: Mapping[int, LoopCount], grid: Sequence[int],
                   num_warps: int) -> tuple[tuple[str, int, int], ...]:
    """Per data-dependent loop (``scf.while``): its body's load and store wavefronts over the grid, one iteration."""
    ctas = 1
    for g in grid:
        ctas *= int(g)
    by_loc = {module.loops[i].location: i for i, c in counts.items() if c.source == "data-dependent"}
    sums: dict[str, list[int]] = {}
    for o in ops:
        whiles = [loc for loc in o.loops if loc in by_loc]
        if not whiles or o.executions_per_warp is not None:
            continue
        other = [counts[lp.index].trip_count for lp in module.loops if lp.location in o.loops
                 and lp.location not in by_loc]
        if any(t is None for t in other):
            continue
        execs = 1
        for t in other:
            execs *= t  # type: ignore[operator]
        acc = sums.setdefault(whiles[-1], [0, 0])
        for kind, rep in o.counted_accesses:
            k = kind.split("@")[0]
            if k in ("load", "store"):
                acc[k == "store"] += rep.wavefronts * (1 if kind.endswith("@cta") else num_warps) * ctas * execs
    return tuple((loc, v[0], v[1]) for loc, v in sums.items())


def _total(ops: Sequence[OpLint], grid: Sequence[int], num_warps: int, missing: Sequence[str]) -> KernelTotal:
    """The kernel's wavefronts over ``grid`` (see the module docstring)."""
    ctas = 1
    for g in grid:
        ctas *= int(g)
    not_counted = tuple(sorted({f"{o.op} at {o.location}: {o.reason}" for o in ops
                                if not o.counted and "no shared memory" not in o.reason}
                               | {f"{o.op} at {o.location}: {o.uncounted}" for o in ops if o.counted and o.uncounted}))
    grid_t = tuple(int(g) for g in grid)
    if missing:
        return KernelTotal(grid_t, ctas, num_warps, None, None, (), tuple(sorted(missing)), not_counted)
    sums = {"load": 0, "store": 0, "async_copy": 0, **dict.fromkeys(TOTAL_CATEGORIES, 0)}
    for o in ops:
        if o.executions_per_warp is None:
            continue
        for kind, rep in o.counted_accesses:
            n = rep.wavefronts * (1 if kind.endswith("@cta") else num_warps) * ctas * o.executions_per_warp
            kind = kind.split("@")[0]
            if kind == "async_copy":
                sums["async_copy"] += n
                continue
            sums["load" if kind == "load" else "store"] += n
            sums[_category(kind, rep.instruction)] += n
    return KernelTotal(grid_t, ctas, num_warps, sums["load"], sums["store"],
                       tuple((c, sums[c]) for c in TOTAL_CATEGORIES), (), not_counted, sums["async_copy"])


# ----------------------------------------------------------------------------- the kernel


def lint_module(module: Module, layout_of: LayoutOf, num_warps: int | None = None,
                grid: Sequence[int] | None = None, trip_counts: Mapping[str, int] | None = None,
                convert_planner: ConvertPlanner | None = None, triton: str = DEFAULT_TRITON,
                strict_trip_counts: bool = False, remedies: bool = False,
                loop_totals: Mapping[str, int] | None = None) -> LintReport:
    """The lint of a parsed module (see the module docstring) under the lowering of Triton version ``triton``.

    ``layout_of`` resolves a tensor type's encoding to its layout (the
    reader's :func:`linlayout.io.ttgir.lint.tensor_layout`).  ``num_warps``
    overrides the module's ``ttg.num-warps``; ``grid`` (X, Y, Z) and
    ``trip_counts`` (loop location → iterations, matched by
    :func:`loop_matches`) multiply out the kernel's totals.
    ``convert_planner`` replaces the lowering's ``planned_conversion``.
    Trip counts come from ``trip_counts``, else from an ``scf.for``'s constant
    bounds (:mod:`linlayout.lower.loops`); an ``scf.while`` is data-dependent:
    its body is left out of the totals and given per iteration
    (``total.per_iteration``).  ``loop_totals`` (loop location → its body's
    executions per program, over every run of the loops around it) replaces
    the trip counts of a loop and of those around it (a persistent kernel's
    tile loop, an ``scf.while`` whose iterations the launch fixes).  ``strict_trip_counts`` makes a
    ``trip_counts`` location that matches no loop an error; a ``num_warps``
    that disagrees with the module's is one.  ``remedies`` adds what the kernel could do instead
    (:func:`~linlayout.lower.remedies.find_remedies`; off by default: pricing a writer's conversion can take
    a second or two).
    """
    lowering = get_lowering(triton)
    grid, trip_counts = _checked_launch(grid, trip_counts)
    loop_totals = _checked_loop_counts(loop_totals, "loop_totals", "a loop total", "the total executions")
    if num_warps is not None:
        check_int(num_warps, "num_warps", minimum=1)
        if module.num_warps and num_warps != module.num_warps:
            raise InputError(f"--num-warps {num_warps} disagrees with the module's ttg.num-warps = {module.num_warps}")
    nw = num_warps or module.num_warps
    if not nw:
        raise InputError("the module does not say its ttg.num-warps: pass num_warps (--num-warps N)")
    root, perm = _buffer_roots(module, lowering.view_ops)
    used = _used_results(module)
    ctx = _Ctx(lowering, layout_of, convert_planner or lowering.planned_conversion, root, perm, nw, used)
    counts = loop_trip_counts(module, dict(trip_counts or {}), strict=strict_trip_counts, totals=loop_totals)
    loop_trip = {i: c.trip_count for i, c in counts.items()}
    uses: list[_Use] = []
    missing: set[str] = set()
    for op in module.ops:
        use = _op_lint(ctx, op)
        if use is None:
            continue
        uses.append(use._replace(record=_placed(use.record, op.loops, module, counts)))
        missing.update(module.loops[li].location for li in executions(op.loops, counts)[1]
                       if loop_trip.get(li) is None and counts[li].source != "data-dependent")
    for k, v in module.aliases.items():
        if getattr(v, "kind", "") == "unreadable":
            rec = OpLint("alias " + k, "", 0, 0, (), "", False, f"encoding not read: {v.fields['error']}")
            uses.append(_Use(rec, None, None))
    ops = tuple(u.record for u in _sunk_final_load(_membar(uses), module, nw))
    total = None if grid is None else _total(ops, grid, nw, sorted(missing))
    if total is not None:
        total = replace(total, per_iteration=_per_iteration(ops, module, counts, grid, nw))
    loops = tuple(LoopTrip(lp.location, loop_trip[lp.index], counts[lp.index].kind, counts[lp.index].source)
                  for lp in module.loops)
    buffers = _buffers(lowering, module, uses)
    found = () if not remedies else _remedies(lowering, module, layout_of, ops, buffers, uses, root, perm, nw)
    return LintReport(nw, ops, buffers, total, loops, lowering.version, found)


def _remedies(lowering: Lowering, module: Module, layout_of: Callable, ops: tuple[OpLint, ...],
              buffers: tuple[BufferLint, ...], uses: list[_Use], root: Mapping[str, str], perm: Mapping[str, object],
              nw: int) -> tuple:
    """:func:`~linlayout.lower.remedies.find_remedies` of the lint, on request: :mod:`.remedies` is imported only
    then (a lint without ``--remedies`` does not read its ~700 lines)."""
    from .remedies import LayoutUse, find_remedies

    return find_remedies(lowering, module, layout_of, ops, buffers,
                         [LayoutUse(u.record, u.layout, u.perm) for u in uses], root, perm, nw)


def _checked_loop_counts(counts: Mapping[str, int] | None, name: str, what: str, of: str) -> dict[str, int]:
    """``counts`` (loop location → a non-negative int) checked, or an InputError: ``name`` is the argument,
    ``what`` a count's name in messages ("a trip count"), ``of`` what it counts ("the trip count")."""
    checked = {}
    for key, n in check_mapping(counts or {}, name).items():
        if not isinstance(key, str) or not key:
            raise InputError(f"{what}'s location is a loop's file:line or line, got {key!r}")
        checked[key] = check_int(n, f"{of} of the loop at {key}", minimum=0)
    return checked


def _checked_launch(grid: Sequence[int] | None,
                    trip_counts: Mapping[str, int] | None) -> tuple[tuple[int, ...] | None, dict[str, int]]:
    """The grid (three positive ints) and the trip counts (location → a non-negative int), or an InputError."""
    if grid is not None:
        grid = tuple(check_int(g, f"grid[{i}] (CTAs along {'XYZ'[i]})", minimum=1)
                     for i, g in enumerate(check_int_sequence(grid, "grid")))
        if len(grid) != 3:
            raise InputError(f"a grid has 3 entries (X, Y, Z), got {len(grid)}")
    return grid, _checked_loop_counts(trip_counts, "trip_counts", "a trip count", "the trip count")
