"""Lint a TTGIR module: the shared-memory traffic of every op that a warp issues, and better swizzles.

What is counted, per op and for one execution by one warp (every warp of a
linear layout sees the same bank pattern, shifted):

* ``ttg.local_alloc`` with a source and ``ttg.local_store``: a store of the
  source's register layout into the memdesc's layout;
* ``ttg.local_load``: a load;
* ``ttg.convert_layout`` whose data crosses warps: a shared-memory round trip,
  priced by a *convert planner* (:data:`ConvertPlanner`).  The default,
  :func:`planned_conversion`, counts what Triton's kernel does (the round
  trip of :func:`shared_round_trip`: store the source and load the
  destination through the optimal swizzle of
  :func:`~linlayout.synth.synthesis.optimal_swizzle`), so the totals stay
  comparable with ncu, and adds linlayout's own plan
  (:func:`~linlayout.convert.plan.plan_conversion`: path, per-thread
  instructions, per-warp wavefronts when it goes through shared memory, cost)
  as the suggestion.  A conversion inside a warp uses shuffles or register
  moves in Triton's lowering: no shared memory is counted, and the plan is
  still reported.

The instruction modelled for a local load/store is Triton's choice on sm90 as
far as this module knows it: ``ldmatrix``/``stmatrix`` (``.x4``, then
``.x2``, ``.x1``, then ``.trans``) for 16-bit data when the layout admits
the matrix tile, otherwise ``ld.shared``/``st.shared`` with the widest vector.

Listed as not counted, with the reason: ops through the async proxy (TMA
copies, ``wgmma`` operands read from shared memory), ``cp.async``
(``ttg.async_copy_global_to_local``: LDGSTS, not in the ld/st counters), and
Triton's scratch-memory lowerings (``tt.reduce`` across warps, ``tt.scan``,
``tt.histogram``, ``tt.gather``...).  Ops of the ``ttg``/``ttng`` dialects
that this module does not know, and encodings it cannot read, are reported as
unknown, never guessed.

Totals (``--grid``, ``--trip-count``): each counted op's wavefronts per warp
× warps × CTAs × executions, where executions multiply the trip counts of the
enclosing ``scf.for`` loops.  A loop without a trip count makes the total
unknown (``None``) rather than a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...convert.cost import cost_of, opcode
from ...convert.plan import plan_conversion
from ...convert.smem import RoundTrip, Staging
from ...core import f2
from ...core.layout import LinearLayout
from ...core.memory import PaddedLayout
from ...core.validate import check_int
from ...count.closed_form import WavefrontReport, wavefronts
from ...errors import InputError
from ...synth.synthesis import optimal_swizzle
from .attributes import TensorType, TTGIRError
from .encodings import layout_from_encoding, to_ttgir_shared
from .module import Module, Op, UnreadType, parse_module

__all__ = ["ConvertPlan", "ConvertPlanner", "LintReport", "lint_text", "render_lint", "shared_round_trip"]


@dataclass(frozen=True)
class ConvertPlan:
    """How a ``convert_layout`` moves data.

    ``method``, ``store`` and ``load`` are the lowering that is counted (the
    wavefronts per warp of its store and load; ``None`` when it uses no shared
    memory); ``suggestion`` is a cheaper plan's summary, if the planner has one
    (``path``, ``instructions`` per thread, ``wavefronts`` per warp when it uses
    shared memory, ``cost`` and the counted lowering's ``counted_cost`` under
    :func:`~linlayout.convert.cost.cost_of`).
    """

    method: str
    store: WavefrontReport | None
    load: WavefrontReport | None
    memory_text: str = ""
    suggestion: dict | None = None


ConvertPlanner = Callable[[LinearLayout, LinearLayout, int], ConvertPlan]
"""The seam for a conversion planner: ``planner(src, dst, element_bits) -> ConvertPlan``.

Called for every ``convert_layout`` that is read.  The default is
:func:`planned_conversion` (Triton's expected lowering counted, linlayout's
plan suggested); :func:`shared_round_trip` (the round trip alone, only for
conversions that cross warps) or another planner plugs in through
``lint_module(..., convert_planner=...)``.
"""


_STORE_CHOICES = ("stmatrix.x4", "stmatrix.x2", "stmatrix.x1", "stmatrix.x4.trans", "stmatrix.x2.trans",
                  "stmatrix.x1.trans")
_LOAD_CHOICES = ("ldmatrix.x4", "ldmatrix.x2", "ldmatrix.x1", "ldmatrix.x4.trans", "ldmatrix.x2.trans",
                 "ldmatrix.x1.trans")


def shared_round_trip(src: LinearLayout, dst: LinearLayout, element_bits: int) -> ConvertPlan:
    """The default convert planner: store ``src``, load ``dst`` through the optimal swizzle.

    Stores use ``st.shared``; loads ``ld.shared`` or, for 16-bit data,
    ``ldmatrix`` when it reads the optimal layout in no more wavefronts (what
    Triton 3.6 was measured to emit for the corpus' conversions: ``ldmatrix``
    reads, never ``stmatrix`` writes).
    """
    instrs = ["st.shared", "ld.shared"] + (list(_LOAD_CHOICES) if element_bits == 16 else [])
    res = optimal_swizzle(src, dst, element_bits, instructions=instrs)
    if element_bits == 16 and not res.read_instruction.startswith("ldmatrix"):
        try:  # an ldmatrix read at no extra cost, as Triton prefers
            alt = optimal_swizzle(src, dst, element_bits, instructions=["st.shared"] + list(_LOAD_CHOICES))
            if alt.write_wavefronts + alt.read_wavefronts <= res.write_wavefronts + res.read_wavefronts:
                res = alt
        except InputError:
            pass
    load = wavefronts(dst, res.memory, element_bits, "load", res.read_instruction)
    if element_bits == 16 and not load.instruction.startswith("ldmatrix"):
        for ins in _LOAD_CHOICES:
            try:
                alt = wavefronts(dst, res.memory, element_bits, "load", ins)
            except InputError:
                continue
            if alt.wavefronts <= load.wavefronts:
                load = alt
                break
    store = wavefronts(src, res.memory, element_bits, "store", res.write_instruction)
    return ConvertPlan(f"shared-memory round trip through the optimal swizzle ({store.instruction}, {load.instruction})",
                       store, load, to_ttgir_shared(res.memory, element_bits))


def _round_trip_cost(src: LinearLayout, dst: LinearLayout, element_bits: int, store: WavefrontReport,
                     load: WavefrontReport) -> int:
    """The counted (Triton's) round trip under the planner's cost model, packing of narrow elements included.

    The barrier is ``bar.sync``, or ``bar.warp.sync`` where each warp reads only what it wrote (Triton 3.9's PTX
    has the same).
    """
    mem = LinearLayout.from_flat((("offset", src.out_bits),), src.out_dim_bits,
                                 (tuple(1 << i for i in range(src.out_bits)),))
    st = Staging(mem, store.instruction, load.instruction, store.wavefronts, load.wavefronts, store.instructions,
                 load.instructions, True, "matrix" in store.instruction or store.vector_bits >= 32,
                 "matrix" in load.instruction or load.vector_bits >= 32)
    rt = RoundTrip(st, element_bits, (), 0, src, dst)
    ins = {opcode(k): v for k, v in rt.instructions.items()}
    return cost_of(ins, rt.wavefronts)


def planned_conversion(src: LinearLayout, dst: LinearLayout, element_bits: int) -> ConvertPlan:
    """The default convert planner: Triton's expected lowering, counted, and linlayout's plan as the suggestion.

    Triton keeps a conversion in registers or shuffles when
    :func:`conversion_scope` says so (nothing is counted) and otherwise makes
    the round trip of :func:`shared_round_trip` (counted: the ncu comparison
    of ``tests/data/ttgir_gpu`` rests on it).  The suggestion is
    :func:`~linlayout.convert.plan.plan_conversion`'s plan, or ``{"error":
    ...}`` when it has none (e.g. data crossing CTAs).

    >>> from linlayout.core.layout import LinearLayout
    >>> rows = LinearLayout({"register": [[0, 1]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
    >>> cols = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
    >>> p = planned_conversion(rows, cols, 32)
    >>> p.store is None, p.suggestion["path"], p.suggestion["instructions"], p.suggestion["cost"]
    (True, 'shuffles', {'shfl.sync': 1, 'selp': 3}, 10)
    """
    scope = conversion_scope(src, dst)
    if scope == "warps":
        base = shared_round_trip(src, dst, element_bits)
    else:
        base = ConvertPlan("register permutation, no shared memory" if scope == "registers"
                           else "warp shuffles inside each warp, no shared memory", None, None)
    try:
        p = plan_conversion(src, dst, element_bits)
    except InputError as e:
        return ConvertPlan(base.method, base.store, base.load, base.memory_text, {"error": str(e)})
    sug: dict[str, Any] = {"path": p.path, "instructions": dict(p.instructions), "cost": p.cost}
    if p.path == "shared_memory":
        sug.update({"wavefronts": dict(p.wavefronts or {}), "reps": p.reps, "scratch_bytes": p.scratch_bytes})
    if base.store is not None and base.load is not None:
        sug["counted_cost"] = _round_trip_cost(src, dst, element_bits, base.store, base.load)
    return ConvertPlan(base.method, base.store, base.load, base.memory_text, sug)


def count_local_access(layout: LinearLayout, memory: LinearLayout, element_bits: int, op: str,
                       matrix: bool = True) -> WavefrontReport:
    """One warp's access as this module models Triton's lowering: a matrix instruction if it fits, else vectors."""
    if matrix and element_bits == 16:
        for ins in (_STORE_CHOICES if op == "store" else _LOAD_CHOICES):
            try:
                return wavefronts(layout, memory, element_bits, op, ins)
            except InputError:
                continue
    return wavefronts(layout, memory, element_bits, op)


def _flat_span(L: LinearLayout, dims: Sequence[str]) -> list[int]:
    return [v for d in dims if d in L.in_dims for v in L.flat_bases(d)]


def conversion_scope(src: LinearLayout, dst: LinearLayout) -> str:
    """``"registers"``, ``"lanes"`` (shuffles inside a warp) or ``"warps"`` (through shared memory).

    Triton keeps a conversion out of shared memory only when it is trivial in
    the warps (and CTAs): both layouts give every warp (CTA) basis the same
    tensor element, and each warp's registers and lanes span the same elements.
    Broadcast warps are not trivial: Triton picks one preimage per element, so
    a slice layout converted to a layout with distinct warps goes through
    shared memory (measured: the ``colsum`` kernel of the corpus).
    Likewise lanes: identical lane bases and register spans stay in registers.
    """
    dst = dst.transpose_outs(list(src.out_dims))

    def same(dims: Sequence[str]) -> bool:
        for d in dims:
            a = list(src.flat_bases(d)) if d in src.in_dims else []
            b = list(dst.flat_bases(d)) if d in dst.in_dims else []
            if a != b or any(v == 0 for v in a):
                return False
        return True

    def same_span(dims: Sequence[str]) -> bool:
        a, b = _flat_span(src, dims), _flat_span(dst, dims)
        return f2.rank(a) == f2.rank(b) == f2.rank(a + b)

    if not (same(("warp", "block")) and same_span(("register", "lane"))):
        return "warps"
    if same(("lane",)) and same_span(("register",)):
        return "registers"
    return "lanes"


_ASYNC = {
    "ttng.warp_group_dot": "wgmma reads its shared-memory operands through the async proxy (not in the LSU counters)",
    "ttng.async_tma_copy_global_to_local": "TMA copy: the async proxy writes shared memory",
    "ttng.async_tma_copy_local_to_global": "TMA store: the async proxy reads shared memory",
    "ttng.async_tma_gather": "TMA gather: the async proxy writes shared memory",
    "ttng.async_tma_scatter": "TMA scatter: the async proxy reads shared memory",
    "ttng.tc_gen5_mma": "tcgen05.mma reads shared memory through the async proxy",
    "ttg.async_copy_global_to_local": "cp.async (LDGSTS) writes shared memory from global; not an ld/st.shared",
}
_SCRATCH = {
    "tt.scan": "tt.scan may exchange partial results through scratch shared memory (Triton's lowering; not modelled)",
    "tt.histogram": "tt.histogram uses scratch shared memory (Triton's lowering; not modelled)",
    "tt.gather": "tt.gather may go through scratch shared memory (Triton's lowering; not modelled)",
}
_QUIET = {"ttg.memdesc_index", "ttg.memdesc_trans", "ttg.memdesc_subslice", "ttg.memdesc_subview",
          "ttg.memdesc_reinterpret", "ttg.memdesc_reshape", "ttg.local_dealloc", "ttg.async_commit_group",
          "ttg.async_wait", "ttng.fence_async_shared", "ttng.warp_group_dot_wait", "ttng.init_barrier",
          "ttng.inval_barrier", "ttng.wait_barrier", "ttng.barrier_expect", "ttng.arrive_barrier",
          "ttng.tensormap_create", "ttng.tensormap_fenceproxy_acquire", "ttg.barrier", "ttng.reinterpret_tensor_descriptor"}
_VIEWS = {"ttg.memdesc_index", "ttg.memdesc_trans", "ttg.memdesc_subslice", "ttg.memdesc_subview",
          "ttg.memdesc_reinterpret", "ttg.memdesc_reshape"}


@dataclass
class _Access:
    op: str
    location: str
    element_bits: int
    shape: list[int]
    register_text: str
    memory_text: str
    report: WavefrontReport | None
    loops: list[int]  # indices of the enclosing loops
    counted: bool
    reason: str
    kind: str  # "load" | "store" | ""
    buffer: str | None = None
    layout: LinearLayout | None = None
    perm: list[int] | None = None
    line: int = 0
    plan_method: str = ""
    extra: dict = field(default_factory=dict)


@dataclass
class LintReport:
    """The lint of one module: ops, buffers and (given a grid) the kernel totals; ``to_dict`` is the JSON."""

    num_warps: int
    ops: list[dict]
    buffers: list[dict]
    total: dict | None
    loops: list[dict]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"num_warps": self.num_warps, "ops": self.ops, "buffers": self.buffers}
        if self.total is not None:
            d["total"] = self.total
        d["loops"] = self.loops
        return d


def _enc_layout(t: TensorType) -> LinearLayout | PaddedLayout:
    if t.encoding is None:
        raise TTGIRError(f"{t.text} has no encoding")
    return layout_from_encoding(t.encoding, list(t.shape))


def _perm_of(op: Op) -> list[int] | None:
    m = re.search(r"order\s*=\s*array<i32:\s*([\d,\s]+)>", op.text)
    return [int(x) for x in m.group(1).split(",")] if m else None


def _buffers(module: Module) -> tuple[dict[str, str], dict[str, list[int] | None], dict[str, Op]]:
    """SSA name → root buffer name, the dim permutation of each view, and the root allocs."""
    root: dict[str, str] = {}
    perm: dict[str, list[int] | None] = {}
    allocs: dict[str, Op] = {}
    for op in module.ops:
        if op.name == "ttg.local_alloc" and op.results:
            root[op.results[0]] = op.results[0]
            perm[op.results[0]] = None
            allocs[op.results[0]] = op
        elif op.name in _VIEWS and op.results and op.operands and op.operands[0] in root:
            src = op.operands[0]
            root[op.results[0]] = root[src]
            p = perm.get(src)
            if op.name == "ttg.memdesc_trans":
                q = _perm_of(op)
                p = None if q is None else [(p[i] if p else i) for i in q]
            elif op.name not in ("ttg.memdesc_index", "ttg.memdesc_subslice", "ttg.memdesc_subview"):
                p = "opaque"  # type: ignore[assignment]
            perm[op.results[0]] = p
        elif op.name in ("scf.for", "scf.while"):
            for a, b in re.findall(r"(%[\w]+)\s*=\s*(%[\w]+)", op.text.split("iter_args", 1)[-1]):
                if b in root:
                    root[a] = root[b]
                    perm[a] = perm.get(b)
    return root, perm, allocs


def _warp_crossing_reduce(op: Op) -> bool | None:
    m = re.search(r"axis\s*=\s*(\d+)", op.text)
    t = next((x for x in op.operand_types if isinstance(x, TensorType)), None)
    if not m or t is None:
        return None
    L = _enc_layout(t)
    axis = int(m.group(1))
    j = list(L.out_dims).index(f"dim{axis}")
    return any(b[j] for d in ("warp", "block") if d in L.in_dims for b in L.bases[d])


def _access(op: Op, kind: str, reg_t: TensorType, mem_t: TensorType, buffer: str | None, perm) -> _Access:
    a = _Access(op.name, op.location, mem_t.element_bits, list(mem_t.shape), "", "", None, op.loops, False, "",
                kind, buffer, line=op.line, perm=perm if isinstance(perm, list) else None)
    try:
        L = _enc_layout(reg_t)
        M = _enc_layout(mem_t)
        a.register_text = reg_t.encoding.text if reg_t.encoding else ""
        a.memory_text = mem_t.encoding.text if mem_t.encoding else ""
        a.layout = L
        if isinstance(M, PaddedLayout):
            a.reason = "padded shared layout: not linear, count it with the simulator"
            return a
        if M.bases.get("block"):
            a.reason = "a shared layout split over several CTAs: counted per CTA only when num-ctas is 1"
            return a
        M = LinearLayout({"offset": M.bases["offset"]}, M.out_sizes)
        if "lane" in L.in_dims and L.in_sizes["lane"] != 32:
            a.reason = f"{L.in_sizes['lane']}-lane layout: no bank model for it here (sm90 has 32 lanes)"
            return a
        a.report = count_local_access(L, M, mem_t.element_bits, kind)
        a.counted = True
    except InputError as e:
        a.reason = f"not read: {e}"
    return a


def lint_module(module: Module, num_warps: int | None = None, convert_planner: ConvertPlanner | None = None,
                optimize: bool = True) -> tuple[list[_Access], Module]:
    """Every shared-memory access of ``module`` (see the module docstring), in program order."""
    planner = convert_planner or planned_conversion
    root, perm, _ = _buffers(module)
    out: list[_Access] = []
    for op in module.ops:
        n = op.name
        tens = [t for t in op.operand_types + op.result_types if isinstance(t, TensorType)]
        unread = [t for t in op.operand_types + op.result_types if isinstance(t, UnreadType)]
        if unread and n in ("ttg.local_alloc", "ttg.local_store", "ttg.local_load", "ttg.convert_layout"):
            out.append(_Access(n, op.location, 0, [], "", "", None, op.loops, False,
                               f"type not read: {unread[0].error}", "", line=op.line))
            continue
        if n == "ttg.local_alloc" and not op.operands:
            continue
        if n == "ttg.local_alloc" and op.operands and len(tens) >= 2:
            reg_t = next(t for t in op.operand_types if isinstance(t, TensorType) and not t.memdesc)
            mem_t = next(t for t in op.result_types if isinstance(t, TensorType) and t.memdesc)
            out.append(_access(op, "store", reg_t, mem_t, root.get(op.results[0]), None))
        elif n == "ttg.local_store" and len(tens) >= 2:
            reg_t = next(t for t in tens if not t.memdesc)
            mem_t = next(t for t in tens if t.memdesc)
            buf = op.operands[1] if len(op.operands) > 1 else None
            out.append(_access(op, "store", reg_t, mem_t, root.get(buf), perm.get(buf)))
        elif n == "ttg.local_load" and len(tens) >= 2:
            mem_t = next(t for t in tens if t.memdesc)
            reg_t = next(t for t in tens if not t.memdesc)
            buf = op.operands[0] if op.operands else None
            out.append(_access(op, "load", reg_t, mem_t, root.get(buf), perm.get(buf)))
        elif n == "ttg.convert_layout" and len(tens) >= 2:
            src_t, dst_t = tens[0], tens[-1]
            a = _Access(n, op.location, src_t.element_bits, list(src_t.shape), "", "", None, op.loops, False, "",
                        "convert", line=op.line)
            try:
                S, D = _enc_layout(src_t), _enc_layout(dst_t)
                a.register_text = f"{src_t.encoding.text} -> {dst_t.encoding.text}"
                scope = conversion_scope(S, D)
                if scope != "warps" and planner is shared_round_trip:
                    plan = ConvertPlan("", None, None)
                else:
                    plan = planner(S, D, src_t.element_bits)
                if plan.store is None or plan.load is None:
                    a.reason = ("register permutation, no shared memory" if scope == "registers"
                                else "warp shuffles inside each warp, no shared memory")
                else:
                    a.counted = True
                    a.plan_method = plan.method
                    a.memory_text = plan.memory_text
                    a.extra = {"store": plan.store, "load": plan.load}
                if plan.suggestion is not None:
                    a.extra = dict(a.extra, suggestion=plan.suggestion)
            except InputError as e:
                a.reason = f"not read: {e}"
            out.append(a)
        elif n in _ASYNC:
            t = next((x for x in op.result_types + op.operand_types if isinstance(x, TensorType) and x.memdesc), None)
            bufs = sorted({root[v] for v in op.operands if v in root})
            out.append(_Access(n, op.location, t.element_bits if t else 0, list(t.shape) if t else [], "",
                               t.encoding.text if t and t.encoding else "", None, op.loops, False, _ASYNC[n], "",
                               buffer=",".join(bufs) or None, line=op.line))
        elif n == "tt.reduce":
            why = "its operand type was not found"
            try:
                cross = _warp_crossing_reduce(op)
            except InputError as e:
                cross, why = None, str(e)
            if cross is False:
                continue
            reason = ("reduction across warps: Triton exchanges partial results through scratch shared memory "
                      "(its lowering is not modelled here)" if cross else f"reduction: layout not read ({why})")
            t = next((x for x in op.operand_types if isinstance(x, TensorType)), None)
            out.append(_Access(n, op.location, t.element_bits if t else 0, list(t.shape) if t else [], "", "", None,
                               op.loops, False, reason, "", line=op.line))
        elif n in _SCRATCH:
            out.append(_Access(n, op.location, 0, [], "", "", None, op.loops, False, _SCRATCH[n], "", line=op.line))
        elif (n.startswith("ttg.") or n.startswith("ttng.") or n.startswith("amdg")) and n not in _QUIET:
            out.append(_Access(n, op.location, 0, [], "", "", None, op.loops, False,
                               "unknown op: its shared-memory traffic is not modelled", "", line=op.line))
    for k, v in module.aliases.items():
        if getattr(v, "kind", "") == "unreadable":
            out.append(_Access("alias " + k, "", 0, [], "", "", None, [], False, f"encoding not read: {v.fields['error']}",
                               ""))
    return out, module


# ----------------------------------------------------------------------------- the report


def gluon_text(ttgir: str) -> str:
    """The Gluon constructor of a printed shared encoding.

    >>> gluon_text("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>")
    'ttgl.SwizzledSharedLayout(vec=8, per_phase=1, max_phase=8, order=[1, 0])'
    """
    from .attributes import parse_attribute

    a = parse_attribute(ttgir)
    f = a.fields
    if a.kind == "ttg.swizzled_shared":
        return (f"ttgl.SwizzledSharedLayout(vec={f['vec']}, per_phase={f['perPhase']}, max_phase={f['maxPhase']}, "
                f"order={f['order']})")
    if a.kind == "ttg.nvmma_shared":
        return (f"ttgl.NVMMASharedLayout(swizzle_byte_width={f['swizzlingByteWidth']}, "
                f"element_bitwidth={f['elementBitWidth']}, rank={f.get('rank', 2)}, transposed={bool(f['transposed'])})")
    if a.kind == "ttg.shared_linear":
        return f"ttgl.SharedLinearLayout(offset_bases={f['offset']})"
    if a.kind == "ttg.padded_shared":
        (interval, pad), = a.items[0]
        return f"ttgl.PaddedSharedLayout.with_identity_for([[{interval}, {pad}]], {f['shape']}, {f['order']})"
    raise TTGIRError(f"no Gluon form for #{a.kind}")


def _rep(r: WavefrontReport | None) -> dict:
    if r is None:
        return {}
    return {"instruction": r.instruction, "wavefronts_per_warp": r.wavefronts, "instructions_per_warp": r.instructions,
            "ideal_wavefronts_per_warp": r.ideal_wavefronts, "conflict_ways": r.conflict_ways,
            "vector_bits": r.vector_bits}


def _category(r: WavefrontReport, kind: str) -> str:
    if r.instruction.startswith("ldmatrix"):
        return "ldsm"
    if r.instruction.startswith("stmatrix"):
        return "stsm"
    return "ld" if kind == "load" else "st"


def _match_loop(loc: str, key: str) -> bool:
    if loc == key or loc.endswith(key):
        return True
    base = loc.rsplit(":", 1)[0]  # file:line without the column
    return base == key or base.endswith(key) or base.endswith("/" + key) or base.split(":")[-1] == key


def _buffer_optimum(name: str, accs: list[_Access], alloc_text: str) -> dict:
    from ...synth.synthesis import optimal_swizzle as _opt

    d: dict[str, Any] = {"name": name, "allocated_at": alloc_text}
    counted = [a for a in accs if a.counted and a.report is not None]
    fixed = [a for a in accs if not a.counted]
    w = sum(a.report.wavefronts for a in counted if a.kind == "store")
    r = sum(a.report.wavefronts for a in counted if a.kind == "load")
    enc = next((a.memory_text for a in accs if a.memory_text), "")
    d["current"] = {"encoding": enc, "write_wavefronts_per_warp": w, "read_wavefronts_per_warp": r}
    d["optimal"] = None
    d["saving"] = 0
    if fixed:
        d["reason"] = f"also used by {fixed[0].op} ({fixed[0].reason}); its layout is fixed by that user"
        return d
    if any(a.perm is None and a.buffer is None for a in counted):
        d["reason"] = "a view of the buffer was not followed"
        return d

    def in_buffer_dims(a: _Access) -> LinearLayout:
        L = a.layout
        if a.perm:
            L = L.rename(None, {f"dim{i}": f"v{p}" for i, p in enumerate(a.perm)})
            L = L.rename(None, {f"v{p}": f"dim{p}" for p in a.perm})
            L = L.transpose_outs([f"dim{i}" for i in range(len(a.perm))])
        return L

    writers = {in_buffer_dims(a) for a in counted if a.kind == "store"}
    readers = {in_buffer_dims(a) for a in counted if a.kind == "load"}
    if len(writers) != 1 or len(readers) != 1:
        d["reason"] = (f"{len(writers)} distinct writer and {len(readers)} reader layouts; the optimum is computed "
                       f"for exactly one of each")
        return d
    W, R = writers.pop(), readers.pop()
    bits = counted[0].element_bits
    try:
        res = _opt(W, R, bits)
    except InputError as e:
        d["reason"] = f"no optimum: {e}"
        return d
    ws = sum(count_local_access(W, res.memory, bits, "store").wavefronts for a in counted if a.kind == "store")
    rs = sum(count_local_access(R, res.memory, bits, "load").wavefronts for a in counted if a.kind == "load")
    text = to_ttgir_shared(res.memory, bits)
    d["optimal"] = {"encoding": text, "gluon": gluon_text(text), "write_wavefronts_per_warp": ws,
                    "read_wavefronts_per_warp": rs}
    d["saving"] = (w + r) - (ws + rs)
    return d


def lint_text(text: str, num_warps: int | None = None, grid: Sequence[int] | None = None,
              trip_counts: Mapping[str, int] | None = None,
              convert_planner: ConvertPlanner | None = None) -> LintReport:
    """Lint TTGIR text (a module): the report printed by ``linlayout lint``.

    ``num_warps`` overrides the module's ``ttg.num-warps``; ``grid`` (X, Y, Z)
    and ``trip_counts`` (loop location → iterations; a location matches the
    loop's ``file:line:col``, ``file:line`` or ``line``) let it multiply
    out the kernel's totals.
    """
    module = parse_module(text)  # checks that ``text`` is a str
    if num_warps is not None:
        check_int(num_warps, "num_warps", minimum=1)
    if not re.search(r'^\s*(module\b|"builtin\.module")', text, re.M):
        raise TTGIRError("not a TTGIR module: expected Triton's printout (module attributes {...} { tt.func ... })")
    nw = num_warps or module.num_warps
    if not nw:
        raise InputError("the module does not say its ttg.num-warps: pass num_warps (--num-warps N)")
    accs, _ = lint_module(module, nw, convert_planner)
    trips = dict(trip_counts or {})
    loop_trip: dict[int, int | None] = {}
    for lp in module.loops:
        loop_trip[lp.index] = next((v for k, v in trips.items() if _match_loop(lp.location, k)), None)
    ops = []
    totals = {"load_wavefronts": 0, "store_wavefronts": 0, "ld": 0, "ldsm": 0, "st": 0, "stsm": 0}
    unknown_loops: set[str] = set()
    ctas = 1
    for g in grid or (1, 1, 1):
        ctas *= int(g)
    for a in accs:
        e = {"op": a.op, "location": a.location, "line": a.line, "element_bits": a.element_bits, "shape": a.shape,
             "layout": a.register_text, "memory": a.memory_text, "counted": a.counted, "reason": a.reason,
             "buffer": a.buffer}
        execs: int | None = 1
        for li in a.loops:
            t = loop_trip.get(li)
            if t is None:
                execs = None
                unknown_loops.add(module.loops[li].location)
            elif execs is not None:
                execs *= t
        e["loops"] = [module.loops[li].location for li in a.loops]
        e["executions_per_warp"] = execs
        parts: list[tuple[str, WavefrontReport]] = []
        if a.extra.get("suggestion") is not None:
            e["linlayout_plan"] = a.extra["suggestion"]
        if a.counted and a.report is not None:
            e.update(_rep(a.report))
            parts = [(a.kind, a.report)]
        elif a.counted and a.extra:
            st, ld = a.extra["store"], a.extra["load"]
            e.update({"plan": a.plan_method, "instruction": f"{st.instruction} + {ld.instruction}",
                      "wavefronts_per_warp": st.wavefronts + ld.wavefronts,
                      "instructions_per_warp": st.instructions + ld.instructions,
                      "ideal_wavefronts_per_warp": st.ideal_wavefronts + ld.ideal_wavefronts,
                      "conflict_ways": max(st.conflict_ways, ld.conflict_ways),
                      "store": _rep(st), "load": _rep(ld)})
            parts = [("store", st), ("load", ld)]
        else:
            e.update({"wavefronts_per_warp": None, "instructions_per_warp": None, "ideal_wavefronts_per_warp": None})
        for kind, r in parts:
            if execs is None:
                continue
            n = r.wavefronts * nw * ctas * execs
            totals["load_wavefronts" if kind == "load" else "store_wavefronts"] += n
            totals[_category(r, kind)] += n
        ops.append(e)
    bufs = []
    by_buf: dict[str, list[_Access]] = {}
    for a in accs:
        for b in (a.buffer or "").split(","):
            if b:
                by_buf.setdefault(b, []).append(a)
    allocs = {op.results[0]: op for op in module.ops if op.name == "ttg.local_alloc" and op.results}
    for name, lst in by_buf.items():
        al = allocs.get(name)
        bufs.append(_buffer_optimum(name, lst, al.location if al else ""))
    total = None
    if grid is not None:
        total = dict(totals)
        total.update({"grid": [int(g) for g in grid], "ctas": ctas, "warps_per_cta": nw})
        if unknown_loops:
            total = {"load_wavefronts": None, "store_wavefronts": None,
                     "missing_trip_counts": sorted(unknown_loops), "grid": [int(g) for g in grid]}
        total["not_counted"] = sorted({f"{a.op} at {a.location}: {a.reason}" for a in accs
                                       if not a.counted and "no shared memory" not in a.reason})
    loops = [{"location": lp.location, "trip_count": loop_trip[lp.index]} for lp in module.loops]
    return LintReport(nw, ops, bufs, total, loops)


def _suggestion_text(s: dict) -> str:
    if "error" in s:
        return f"linlayout plan: none ({s['error']})"
    ins = ", ".join(f"{k} {v}" for k, v in s["instructions"].items()) or "no instructions"
    wf = f"; wavefronts/warp {s['wavefronts']['write']}+{s['wavefronts']['read']}" if s.get("wavefronts") else ""
    vs = ""
    if s.get("counted_cost") is not None:
        d = s["counted_cost"] - s["cost"]
        vs = (f" vs {s['counted_cost']} for the counted round trip" + (f" (saves {d})" if d > 0 else ""))
    return f"linlayout plan: {s['path']}, cost {s['cost']}{vs} ({ins}{wf})"


def render_lint(report: LintReport) -> str:
    """The text form of a lint report (``linlayout lint`` without ``--json``)."""
    lines = [f"num_warps {report.num_warps}"]
    for e in report.ops:
        head = f"{e['op']:<28} {e['location']}"
        if e["counted"]:
            lines.append(f"{head}\n    {e['element_bits']}-bit {e['shape']}  {e['instruction']}: "
                         f"{e['wavefronts_per_warp']} wavefronts/warp in {e['instructions_per_warp']} instructions "
                         f"(ideal {e['ideal_wavefronts_per_warp']}, {e['conflict_ways']}-way)"
                         + (f", x{e['executions_per_warp'] or '? (give --trip-count)'} executions"
                            if e['loops'] else ""))
            if e.get("plan"):
                lines.append(f"    plan: {e['plan']}")
            if e.get("linlayout_plan"):
                lines.append(f"    {_suggestion_text(e['linlayout_plan'])}")
            if e["layout"]:
                lines.append(f"    layout {e['layout']}")
            if e["memory"]:
                lines.append(f"    memory {e['memory']}")
        else:
            lines.append(f"{head}\n    not counted: {e['reason']}")
            if e.get("linlayout_plan"):
                lines.append(f"    {_suggestion_text(e['linlayout_plan'])}")
    for b in report.buffers:
        lines.append(f"buffer {b['name']} ({b['allocated_at']}): current {b['current']['encoding']} "
                     f"write {b['current']['write_wavefronts_per_warp']} + read {b['current']['read_wavefronts_per_warp']}"
                     " wavefronts/warp")
        if b["optimal"]:
            o = b["optimal"]
            lines.append(f"    optimal {o['encoding']}: write {o['write_wavefronts_per_warp']} + read "
                         f"{o['read_wavefronts_per_warp']}, saving {b['saving']}")
            lines.append(f"    gluon   {o['gluon']}")
        else:
            lines.append(f"    optimal: not computed ({b.get('reason', '')})")
    if report.total is not None:
        t = report.total
        lines.append(f"total over grid {t.get('grid')}: load {t['load_wavefronts']} store {t['store_wavefronts']} "
                     f"wavefronts" + ("" if t["load_wavefronts"] is None else
                                      f" (ld {t['ld']}, ldsm {t['ldsm']}, st {t['st']}, stsm {t['stsm']})"))
        if t.get("missing_trip_counts"):
            lines.append(f"    give --trip-count for the loops at {', '.join(t['missing_trip_counts'])}")
        for n in t.get("not_counted", []):
            lines.append(f"    not counted: {n}")
    return "\n".join(lines)
