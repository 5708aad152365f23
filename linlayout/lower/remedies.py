"""Remedies, not just counts: what a kernel could do instead, priced with the same counters as the lint.

Two kinds of remedy, each a frozen record (nothing here is printed: :mod:`linlayout.io.ttgir.lint` renders them).

**A buffer whose layout a wgmma or TMA user fixes** (:class:`BufferRemedy`).  The lint cannot give such a buffer
its optimal swizzle: the async-proxy user reads only ``#ttg.nvmma_shared`` layouts, and not all of them.  The
remedy is the cheapest *legal* alternative for the buffer's LSU accesses (``local_alloc``/``local_store``/
``local_load``), counted by the lowering exactly as the lint counts them:

* another NVMMA encoding (``swizzlingByteWidth`` 32, 64 or 128, ``transposed`` or not) that the user accepts;
* or the same encoding with the writer's registers converted before the store (or the reader's after the
  load), through a layout built from the memory's own offset bases (a vector along its contiguous run, then
  lanes; warps kept, or taken from the memory too), the conversion priced by
  :func:`~linlayout.convert.plan.plan_conversion`.

Candidates are ranked by the planner's cost model (:func:`~linlayout.convert.cost.cost_of`: sixteenths of an
SM cycle per warp, wavefronts and instructions together); a remedy is reported only when it saves wavefronts and cost.

What the users accept (:func:`wgmma_rejects`, :func:`tma_rejects`):

* ``wgmma`` (``ttng.warp_group_dot``) reads a shared operand in either orientation only for 16-bit types: the
  PTX ISA (``wgmma.mma_async``): "The transpose operation is only supported for the wgmma.mma_async variants
  with .f16/.bf16 types on matrices accessed from shared memory using matrix descriptors".  Every other type
  (tf32, fp8, int8) is read K-major: operand A ``[M, K]`` untransposed, operand B ``[K, N]`` transposed, in the
  orientation the op sees (through a ``memdesc_trans`` view the buffer's flag is the opposite).  The swizzle
  is 32, 64 or 128 bytes and its box must fit the contiguous dimension.  Checked against Triton 3.9.0 by
  compiling a Gluon ``warpgroup_mma`` for sm_90 with every NVMMA encoding of a 128x64 A and a 64x128 B, fp8
  and fp16 (``tests/lower/test_remedies.py::test_wgmma_legality_matches_triton``, opt-in): fp8 compiles only
  K-major (A untransposed, B transposed), fp16 every orientation; swizzle 0 is rejected ("failed to find valid
  wgmma layout"), and 128 bytes on a 64-byte row is rejected by the layout itself.
* TMA (``ttng.async_tma_copy_*``) copies a box of the global tensor as it lies: the orientation is the global
  tensor's and stays; the swizzle may be 32, 64 or 128 bytes (the box's inner size is cut to the swizzle
  width).  Swizzle 0 is not offered (not checked here).

**A reduction across warps** (:class:`ExchangeRemedy`).  ``tt.reduce`` exchanges each warp's partial results
through scratch shared memory in a layout Triton picks by a heuristic (3.6: row-major, the warp index fastest,
with accumulation rounds; 3.9: its generic swizzling of a conversion).  The remedy is an explicit exchange:
the partials ``P`` (:func:`~linlayout.lower.scratch_ops.reduce_exchange_layouts`) are stored into the memory
:func:`~linlayout.synth.synthesis.optimal_swizzle` finds, one barrier, and read back as ``Q``, a layout that
puts the warps' partials on the lanes (or registers) that held the reduced axis, so the final reduction stays
inside each warp and its result is in the reduction's own result layout.  The record carries the exchange's
cost as lint counts it, the remedy's cost counted by the same lowering, the synthesizer's lower bound on each
side (over every memory layout) and whether the memory is proven optimal, and, for a one-operand sum, max or
min, or a two-operand argmax or argmin (values and indices with Triton's tie-break-left combine, each operand
through its own scratch behind one barrier), whose warps split contiguous bits of the axis, the Gluon code of
the cheaper version (:func:`gluon_exchange`).  The Gluon code of all 23 such remedies of the Triton 3.6
corpus (3 of them argmax) compiles with Triton 3.9.0 for sm_90 (CPU), and each PTX has exactly the
``st.shared``, ``ld.shared``/``ldmatrix``, ``bar.sync`` and ``shfl.sync`` counts of :func:`exchange_cost`
under the 3.9 lowering, summed over the operands (the tests compile seven of the kernels, opt-in).  Remedies count under the lowering the kernel was linted with; 3.6's counts
``ld.shared`` where 3.9 reads a 1-D row with ``ldmatrix.x1``, at the same wavefronts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import NamedTuple

from ..catalog.triton_encodings import triton_nvmma_shared
from ..convert.cost import cost_of
from ..convert.plan import plan_conversion
from ..core import f2
from ..core.layout import LinearLayout
from ..core.record import record
from ..count.closed_form import WavefrontReport
from ..errors import InputError
from ..synth.synthesis import optimal_swizzle
from .ir import Module, Op, TensorType
from .model import Lowering
from .records import BufferLint, OpLint, opcode_base
from .scratch_ops import reduce_exchange_layouts

__all__ = ["BufferRemedy", "ExchangeRemedy", "FixingUser", "LayoutUse", "NvmmaChoice", "buffer_remedy", "exchange_cost",
           "exchange_read_layout", "exchange_remedy", "find_remedies", "gluon_exchange", "memory_access_layout",
           "nvmma_memory",
           "tma_rejects", "view_memory", "wgmma_rejects"]

SWIZZLES = (32, 64, 128)
"""The NVMMA swizzle widths (bytes) a remedy may choose: what wgmma and TMA both accept."""

COMBINES = {"arith.addf": "sum", "arith.addi": "sum", "arith.maxnumf": "max", "arith.maxsi": "max",
            "arith.minnumf": "min", "arith.minsi": "min"}
"""Combine ops of a one-operand ``tt.reduce`` that Gluon spells ``gl.sum``/``gl.max``/``gl.min``."""

ARG_COMBINES = {"gt": "argmax", "lt": "argmin"}
"""The value comparison of a two-operand (value, index) ``tt.reduce`` whose region is Triton's tie-break-left
``argmax``/``argmin`` combine (``tl.max``/``tl.min(..., return_indices=True)``): ``eq`` on the values, ``slt``
on the indices, ``and``, this comparison of the values, ``or``, two ``select``."""


@record
class NvmmaChoice:
    """An ``#ttg.nvmma_shared`` encoding: its swizzle width in bytes, orientation and element width."""

    swizzle_bytes: int
    transposed: bool
    element_bits: int


class LayoutUse(NamedTuple):
    """One op's use of a buffer as the lint found it: its record, register layout and view permutation."""

    record: OpLint
    layout: LinearLayout | None
    perm: list[int] | None


@record
class BufferRemedy:
    """The cheapest legal alternative for a buffer whose layout an async-proxy user fixes.

    ``users`` name who fixes it (``"wgmma operand B"``, ``"TMA load"``) and ``rejected`` the alternatives they
    refuse, each with the reason.  ``current``/``memory`` are the buffer's encoding and the remedy's;
    ``converted_layout`` and ``conversion_*`` (the planner's path, per-thread instructions, per-warp
    wavefronts) are set when the remedy converts the registers of one access (``converted_kind``
    ``"store"``: the writer's before the store; ``"load"``: the reader's after the load; ``converted_at`` names
    its op): the access then uses ``converted_layout``.  Wavefronts are
    per warp (the buffer's LSU accesses plus the conversion's), instructions per thread, ``cost`` under the
    planner's cost model; ``saving_*`` are current minus remedy.
    """

    buffer: str
    users: tuple[str, ...]
    current: NvmmaChoice
    memory: NvmmaChoice
    current_wavefronts: int
    current_instructions: tuple[tuple[str, int], ...]
    current_cost: int
    wavefronts: int
    instructions: tuple[tuple[str, int], ...]
    cost: int
    rejected: tuple[str, ...] = ()
    converted_layout: LinearLayout | None = None
    converted_kind: str = ""
    converted_at: str = ""
    conversion_path: str = ""
    conversion_instructions: tuple[tuple[str, int], ...] = ()
    conversion_wavefronts: int = 0

    @property
    def saving_wavefronts(self) -> int:
        return self.current_wavefronts - self.wavefronts

    @property
    def saving_instructions(self) -> int:
        return sum(n for _, n in self.current_instructions) - sum(n for _, n in self.instructions)


@record
class ExchangeRemedy:
    """A cheaper scratch exchange for a ``tt.reduce`` across warps.

    ``current_wavefronts`` are the exchange's as lint counts it under the lowering, per CTA (a per-warp
    access times the warps); ``current_instructions`` the op's shared-memory instructions and barriers per
    thread.  The remedy stores the partials (``write_layout``) into ``memory``, one barrier, and loads them
    as ``read_layout``: ``write_wavefronts``/``read_wavefronts`` per warp and ``wavefronts`` per CTA,
    ``instructions`` per thread (shuffles included), counted by the same lowering.  ``lower_bound`` is the
    synthesizer's per-side bound over every memory layout (``write``, ``read``, per warp, ``ld``/``st.shared``)
    and ``proven_optimal`` whether ``memory`` meets its relaxation.  ``gluon`` is the cheaper version's code,
    or empty with ``gluon_note`` saying why not.  A reduction of two operands (value and index) exchanges each
    through its own memory: ``memory`` is the first's (and the record's wavefronts and bound are its), and
    ``index_memory`` the second's (``None`` for one operand); ``wavefronts`` and ``instructions`` count both.
    """

    op: str
    location: str
    axis: int
    element_bits: int
    operands: int
    current_wavefronts: int
    current_instructions: tuple[tuple[str, int], ...]
    memory: LinearLayout
    write_layout: LinearLayout
    read_layout: LinearLayout
    write_wavefronts: int
    read_wavefronts: int
    wavefronts: int
    instructions: tuple[tuple[str, int], ...]
    lower_bound: tuple[tuple[str, int], ...]
    proven_optimal: bool
    gluon: str = ""
    gluon_note: str = ""
    index_memory: LinearLayout | None = None

    @property
    def saving_wavefronts(self) -> int:
        return self.current_wavefronts - self.wavefronts


Remedy = BufferRemedy | ExchangeRemedy


# ----------------------------------------------------------------------------- legality


def wgmma_rejects(choice: NvmmaChoice, operand: int, shape: Sequence[int], view_transposed: bool = False) -> str:
    """Why wgmma refuses ``choice`` for its operand ``operand`` (0: A ``[M, K]``, 1: B ``[K, N]``); ``""`` if it
    reads it.  ``shape`` is the buffer's; ``view_transposed`` when the op sees the buffer through a transpose.

    >>> wgmma_rejects(NvmmaChoice(64, False, 8), 1, [64, 128])
    'wgmma reads 8-bit operands K-major only (PTX ISA: transpose is for .f16/.bf16): operand B needs transposed = true'
    >>> wgmma_rejects(NvmmaChoice(64, True, 8), 1, [64, 128]), wgmma_rejects(NvmmaChoice(64, False, 16), 1, [64, 128])
    ('', '')
    """
    fit = _box_rejects(choice, shape)
    if fit:
        return fit
    if choice.element_bits != 16:
        seen = choice.transposed != view_transposed
        k_major = seen if operand == 1 else not seen
        if not k_major:
            need = (operand == 1) != view_transposed
            return (f"wgmma reads {choice.element_bits}-bit operands K-major only (PTX ISA: transpose is for "
                    f".f16/.bf16): operand {'AB'[operand]} needs transposed = {str(need).lower()}")
    return ""


def tma_rejects(choice: NvmmaChoice, current: NvmmaChoice, shape: Sequence[int]) -> str:
    """Why a TMA copy refuses ``choice`` for a buffer now in ``current``; ``""`` if it accepts it.

    >>> tma_rejects(NvmmaChoice(32, True, 16), NvmmaChoice(128, False, 16), [64, 64])
    "TMA copies the global tensor's box as it lies: the orientation (transposed = false) is fixed"
    """
    if choice.transposed != current.transposed:
        return (f"TMA copies the global tensor's box as it lies: the orientation (transposed = "
                f"{str(current.transposed).lower()}) is fixed")
    return _box_rejects(choice, shape)


def _box_rejects(choice: NvmmaChoice, shape: Sequence[int]) -> str:
    if choice.swizzle_bytes not in SWIZZLES:
        return f"swizzle {choice.swizzle_bytes}: wgmma and TMA remedies use 32, 64 or 128 bytes"
    contig = shape[0] if choice.transposed else shape[-1]
    if contig * choice.element_bits < 8 * choice.swizzle_bytes:
        return (f"a {choice.swizzle_bytes}-byte swizzle needs {8 * choice.swizzle_bytes // choice.element_bits} "
                f"elements along the contiguous dimension, the buffer has {contig}")
    return ""


def nvmma_memory(choice: NvmmaChoice, shape: Sequence[int]) -> LinearLayout:
    """The offset → tensor layout of ``choice`` on a buffer of ``shape`` (Triton's ``toLinearLayout``)."""
    M = triton_nvmma_shared(list(shape), choice.swizzle_bytes, choice.element_bits, transposed=choice.transposed)
    return LinearLayout({"offset": M.bases["offset"]}, M.out_sizes)


def view_memory(M: LinearLayout, perm: list[int] | None) -> LinearLayout:
    """The buffer's memory seen through a view that permutes its dims by ``perm`` (view dim ``i`` is buffer dim
    ``perm[i]``)."""
    if not perm or perm == sorted(perm):
        return M
    V = M.rename(None, {f"dim{p}": f"v{i}" for i, p in enumerate(perm)})
    V = V.rename(None, {f"v{i}": f"dim{i}" for i in range(len(perm))})
    return V.transpose_outs([f"dim{i}" for i in range(len(perm))])


# ----------------------------------------------------------------------------- buffers


def _choice_of(t: TensorType) -> NvmmaChoice | None:
    enc = t.encoding
    if enc is None or getattr(enc, "kind", "") != "ttg.nvmma_shared" or len(t.shape) != 2:
        return None
    f = enc.fields
    if f.get("fp4Padded") or f.get("CTAsPerCGA") not in (None, [1, 1]):
        return None
    return NvmmaChoice(int(f["swizzlingByteWidth"]), bool(f.get("transposed", False)), int(f["elementBitWidth"]))


class FixingUser(NamedTuple):
    """An async-proxy user of a buffer: ``"wgmma"`` (its ``operand``, 0 or 1, seen through a transpose or not)
    or ``"tma"``."""

    kind: str
    name: str
    operand: int = 0
    view_transposed: bool = False

    def rejects(self, choice: NvmmaChoice, current: NvmmaChoice, shape: Sequence[int]) -> str:
        """Why this user refuses ``choice`` (``""`` if it accepts it)."""
        if self.kind == "wgmma":
            return wgmma_rejects(choice, self.operand, shape, self.view_transposed)
        return tma_rejects(choice, current, shape)


_VIEWS_AND_LSU = ("ttg.local_alloc", "ttg.local_store", "ttg.local_load", "ttg.local_dealloc", "ttg.memdesc_trans",
                  "ttg.memdesc_index", "ttg.memdesc_subslice", "ttg.memdesc_subview", "ttg.memdesc_reshape",
                  "ttg.memdesc_reinterpret", "ttng.fence_async_shared", "ttng.warp_group_dot_wait")


def fixing_users(module: Module, buffer: str, root: Mapping[str, str],
                 perm: Mapping[str, object]) -> list[FixingUser] | None:
    """The wgmma/TMA users of ``buffer`` (through its views), or ``None`` when another op uses it too."""
    users: list[FixingUser] = []
    for op in module.ops:
        if op.name in _VIEWS_AND_LSU or not any(root.get(v) == buffer for v in op.operands + op.results):
            continue
        if op.name == "ttng.warp_group_dot":
            for i in (0, 1):
                if i < len(op.operands) and root.get(op.operands[i]) == buffer:
                    p = perm.get(op.operands[i])
                    users.append(FixingUser("wgmma", f"wgmma operand {'AB'[i]}", i, isinstance(p, list) and p == [1, 0]))
        elif op.name.startswith("ttng.async_tma_copy"):
            users.append(FixingUser("tma", "TMA " + ("load" if "global_to_local" in op.name else "store")))
        else:
            return None
    return users


def _sum_instructions(*maps: Mapping[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in maps:
        for k, v in m.items():
            if v:
                out[k] = out.get(k, 0) + v
    return out


class _Candidate(NamedTuple):
    memory: NvmmaChoice
    wavefronts: int
    instructions: dict[str, int]
    cost: int
    converted: tuple[LayoutUse, LinearLayout, str, dict[str, int], int] | None = None  # use, layout, plan


def _accesses(lowering: Lowering, uses: Sequence[LayoutUse], M: LinearLayout, bits: int,
              replaced: tuple[LayoutUse, LinearLayout] | None = None) -> tuple[int, int, dict[str, int]]:
    """(write, read) wavefronts per warp and instructions per thread of the buffer's LSU uses on memory ``M``
    (``replaced``: one use accessing with another register layout, in the buffer's own dims)."""
    write = read = 0
    ins: dict[str, int] = {}
    for u in uses:
        kind = u.record.kind
        if replaced is not None and u is replaced[0]:
            rep = lowering.count_local_access(replaced[1], M, bits, kind)
        else:
            rep = lowering.count_local_access(u.layout, view_memory(M, u.perm), bits, kind)
        write, read = write + (rep.wavefronts if kind == "store" else 0), read + (rep.wavefronts if kind == "load" else 0)
        ins = _sum_instructions(ins, {opcode_base(rep.instruction): rep.instructions})
    return write, read, ins


def memory_access_layout(M: LinearLayout, A: LinearLayout, bits: int, keep_warps: bool) -> LinearLayout:
    """A register layout that accesses ``M`` along its offsets: its lowest offset bases as one vector of up to
    128 bits, the next as lanes, then (unless ``keep_warps``, which keeps ``A``'s warps) warps, the rest
    registers.  Offset bases already spanned by the kept warps are skipped."""
    def flat(b) -> int:
        return A.out_flat({d: b[i] for i, d in enumerate(A.out_dims)})
    lanes_n, warps_n = len(A.bases.get("lane", [])), len(A.bases.get("warp", []))
    warps = [tuple(b) for b in A.bases.get("warp", [])] if keep_warps else []
    span = [flat(b) for b in warps]
    vector_n = max(0, (128 // bits).bit_length() - 1)
    vec: list[tuple[int, ...]] = []
    lanes: list[tuple[int, ...]] = []
    rest: list[tuple[int, ...]] = []
    for i, b in enumerate(M.bases["offset"]):
        if f2.in_span(flat(b), span):
            continue
        span.append(flat(b))
        if i == len(vec) and len(vec) < vector_n:
            vec.append(tuple(b))
        elif len(lanes) < lanes_n:
            lanes.append(tuple(b))
        elif not keep_warps and len(warps) < warps_n:
            warps.append(tuple(b))
        else:
            rest.append(tuple(b))
    return LinearLayout({"register": vec + rest, "lane": lanes, "warp": warps, "block": []}, dict(A.out_sizes))


def _conversion_candidates(lowering: Lowering, uses: Sequence[LayoutUse], current: NvmmaChoice,
                           M: LinearLayout) -> list[_Candidate]:
    """The current memory with the one writer's registers converted before the store, or the one reader's after
    the load, through a layout that accesses the memory along its offsets (only for a conflicted access)."""
    bits, out = current.element_bits, []
    for kind in ("store", "load"):
        side = [u for u in uses if u.record.kind == kind]
        if len(side) != 1 or side[0].perm not in (None, [0, 1]) or side[0].layout is None:
            continue
        use, A = side[0], side[0].layout
        if use.record.access is None or use.record.access.wavefronts <= use.record.access.ideal_wavefronts:
            continue
        for keep in (True, False):
            A2 = memory_access_layout(M, A, bits, keep)
            if A2 == A:
                continue
            try:
                plan = plan_conversion(A, A2, bits) if kind == "store" else plan_conversion(A2, A, bits)
            except InputError:
                continue
            write, read, ins = _accesses(lowering, uses, M, bits, replaced=(use, A2))
            conv_wf = sum((plan.wavefronts or {}).values())
            cost = cost_of(ins, {"write": write, "read": read}) + plan.cost
            out.append(_Candidate(current, write + read + conv_wf, _sum_instructions(ins, plan.instructions), cost,
                                  (use, A2, plan.path, dict(plan.instructions), conv_wf)))
    return out


def buffer_remedy(lowering: Lowering, buffer: BufferLint, uses: Sequence[LayoutUse], module: Module,
                  root: Mapping[str, str], perm: Mapping[str, object]) -> BufferRemedy | None:
    """The cheapest legal alternative for ``buffer`` (see the module docstring), or ``None`` when none saves."""
    lsu = [u for u in uses if u.record.counted and u.record.access is not None and u.layout is not None]
    if not lsu or any(u.record.counted and u.record.access is None for u in uses):
        return None  # nothing counted through the LSU, or a counted scratch/cp.async user the variants cannot price
    if all(u.record.access.wavefronts <= u.record.access.ideal_wavefronts for u in lsu):  # type: ignore[union-attr]
        return None
    alloc = next((op for op in module.ops if op.name == "ttg.local_alloc" and op.results
                  and op.results[0] == buffer.name), None)
    t = next((x for x in (alloc.result_types if alloc else []) if isinstance(x, TensorType) and x.memdesc), None)
    current = _choice_of(t) if t is not None else None
    users = fixing_users(module, buffer.name, root, perm)
    if current is None or not users or t is None:
        return None
    shape, bits = list(t.shape), current.element_bits
    try:
        M0 = nvmma_memory(current, shape)
    except InputError:
        return None
    w0, r0, ins0 = _accesses(lowering, lsu, M0, bits)
    cost0 = cost_of(ins0, {"write": w0, "read": r0})
    candidates, rejected = [], []
    for s in SWIZZLES:
        for tr in (False, True):
            choice = NvmmaChoice(s, tr, bits)
            why = next((f"{u.name}: {r}" for u in users if (r := u.rejects(choice, current, shape))), "")
            if why:
                rejected.append(f"swizzle {s}, transposed = {str(tr).lower()}: {why}")
                continue
            try:
                M = nvmma_memory(choice, shape)
            except InputError as e:
                rejected.append(f"swizzle {s}, transposed = {str(tr).lower()}: {e}")
                continue
            w, r, ins = _accesses(lowering, lsu, M, bits)
            candidates.append(_Candidate(choice, w + r, ins, cost_of(ins, {"write": w, "read": r})))
    candidates += _conversion_candidates(lowering, lsu, current, M0)
    best = min(candidates, key=lambda c: (c.cost, c.wavefronts), default=None)
    if best is None or best.wavefronts >= w0 + r0 or best.cost >= cost0:
        return None
    remedy = BufferRemedy(buffer.name, tuple(dict.fromkeys(u.name for u in users)), current, best.memory, w0 + r0,
                          tuple(ins0.items()), cost0, best.wavefronts, tuple(best.instructions.items()), best.cost,
                          tuple(rejected))
    if best.converted is None:
        return remedy
    use, layout, path, conv_ins, conv_wf = best.converted
    return replace(remedy, converted_layout=layout, converted_kind=use.record.kind,
                   converted_at=f"{use.record.op} at {use.record.location}", conversion_path=path,
                   conversion_instructions=tuple(conv_ins.items()), conversion_wavefronts=conv_wf)


# ----------------------------------------------------------------------------- reductions across warps


def _axis_of(L: LinearLayout, axis: int) -> int:
    return list(L.out_dims).index(f"dim{axis}")


def _nonzero(bases) -> list[tuple[int, ...]]:
    return [tuple(b) for b in bases if any(b)]


def exchange_read_layout(L: LinearLayout, axis: int, P: LinearLayout) -> LinearLayout | None:
    """The exchange's read side: the warps' partials (``P``'s axis, one bit per warp bit along it) placed on the
    lanes, then the registers, that held the reduced axis in ``L``; everything else as in ``L`` with the axis
    dropped.  Reduced over the axis it is ``L``'s own result layout.  ``None`` when ``L`` has too few such
    lanes and registers.  Zero (broadcast) registers are left out."""
    j = _axis_of(L, axis)
    k = P.out_sizes[f"dim{axis}"].bit_length() - 1

    def drop(b) -> tuple[int, ...]:
        return tuple(0 if i == j else x for i, x in enumerate(b))

    def unit(i: int, b) -> tuple[int, ...]:
        return tuple((1 << i) if q == j else x for q, x in enumerate(drop(b)))

    slots = [("lane", i) for i, b in enumerate(L.bases.get("lane", [])) if b[j]]
    slots += [("register", i) for i, b in enumerate(L.bases.get("register", [])) if b[j]]
    if len(slots) < k:
        return None
    placed = {s: unit(n, L.bases[s[0]][s[1]]) for n, s in enumerate(slots[:k])}
    bases = {d: [placed.get((d, i), drop(b)) for i, b in enumerate(L.bases.get(d, []))]
             for d in ("register", "lane", "warp")}
    bases["register"] = _nonzero(bases["register"])
    return LinearLayout({**bases, "block": []}, dict(P.out_sizes))


def _without_zero_registers(L: LinearLayout) -> LinearLayout:
    return LinearLayout({**{d: [tuple(b) for b in bs] for d, bs in L.bases.items()},
                         "register": _nonzero(L.bases.get("register", []))}, dict(L.out_sizes))


def _accumulators(L: LinearLayout, axis: int) -> int:
    j = _axis_of(L, axis)
    flat = [L.out_flat({d: (0 if i == j else b[i]) for i, d in enumerate(L.out_dims)})
            for b in L.bases.get("register", [])]
    return 1 << f2.rank(flat)


def _lanes_along(L: LinearLayout, axis: int) -> int:
    j = _axis_of(L, axis)
    return sum(1 for b in L.bases.get("lane", []) if b[j])


def exchange_cost(lowering: Lowering, L: LinearLayout, axis: int, P: LinearLayout, Q: LinearLayout,
                  memory: LinearLayout, bits: int) -> tuple[WavefrontReport, WavefrontReport, dict[str, int]]:
    """One operand's explicit exchange under ``lowering``: the store of ``P`` and the load of ``Q`` through
    ``memory`` (per warp) and the instructions per thread: those two, a barrier and the shuffles inside the warps
    before (``L``'s lanes along the axis) and after (``Q``'s), one per lane bit and accumulator."""
    st = lowering.count_local_access(P, memory, bits, "store")
    ld = lowering.count_local_access(Q, memory, bits, "load")
    shuffles = _accumulators(L, axis) * _lanes_along(L, axis) + _accumulators(Q, axis) * _lanes_along(Q, axis)
    ins = _sum_instructions({opcode_base(st.instruction): st.instructions}, {opcode_base(ld.instruction): ld.instructions},
                            {"bar.sync": 1, "shfl.sync": shuffles})
    return st, ld, ins


def _current_exchange(rec: OpLint, num_warps: int) -> tuple[int, dict[str, int]]:
    """The op's exchange as lint counted it: wavefronts per CTA and shared-memory instructions and barriers."""
    wf = sum(r.wavefronts * (1 if k.endswith("@cta") else num_warps) for k, r in rec.accesses)
    ins = {k: v for k, v in (rec.instructions or ()) if k in ("st.shared", "ld.shared", "stmatrix", "ldmatrix",
                                                               "bar.sync", "bar.warp.sync")}
    return wf, ins


def _predicate(o: Op) -> str:
    m = re.search(r"arith\.cmp[fi]\s+(\w+)", o.text)
    return m.group(1) if m else ""


def _arg_combine(body: Sequence[Op]) -> str:
    """``argmax``/``argmin`` for Triton's tie-break-left combine region of a (value, index) reduction
    (:data:`ARG_COMBINES`), else ``""``."""
    shape = ["arith.cmp", "arith.cmpi", "arith.andi", "arith.cmp", "arith.ori", "arith.select", "arith.select"]
    if len(body) != len(shape) or not all(o.name.startswith(n) for o, n in zip(body, shape)):
        return ""
    eq, tie, compare = _predicate(body[0]), _predicate(body[1]), _predicate(body[3])
    if eq not in ("oeq", "eq") or tie != "slt" or body[0].name != body[3].name:
        return ""
    return ARG_COMBINES.get(compare[1:], "") if compare[:1] in ("o", "s", "u") else ""


def _combine(module: Module, op: Op) -> str:
    """``sum``/``max``/``min`` for a one-op combine region (:data:`COMBINES`), ``argmax``/``argmin`` for Triton's
    two-operand one (:func:`_arg_combine`), else ``""``."""
    body = []
    for o in module.ops:
        if o.line <= op.line:
            continue
        if o.name == "tt.reduce.return":
            break
        body.append(o)
    if len(body) == 1:
        return COMBINES.get(body[0].name, "")
    return _arg_combine(body)


def exchange_remedy(lowering: Lowering, rec: OpLint, op: Op, module: Module, layout_of,
                    num_warps: int) -> ExchangeRemedy | None:
    """A cheaper exchange for the ``tt.reduce`` ``op`` (its lint ``rec``), or ``None`` (see the module docstring)."""
    m = re.search(r"axis\s*=\s*(\d+)", op.text)
    tens = [t for t in op.operand_types if isinstance(t, TensorType)]
    if not rec.counted or not rec.accesses or m is None or not tens:
        return None
    axis = int(m.group(1))
    try:
        L = layout_of(tens[0])
        if not isinstance(L, LinearLayout):
            return None
        P, _ = reduce_exchange_layouts(L, axis)
        Q = exchange_read_layout(L, axis, P)
        if Q is None:
            return None
        P = _without_zero_registers(P)
        sides = []
        for t in tens:
            res = optimal_swizzle(P, Q, t.element_bits)
            sides.append((t, res, *exchange_cost(lowering, L, axis, P, Q, res.memory, t.element_bits)))
    except InputError:
        return None
    current_wf, current_ins = _current_exchange(rec, num_warps)
    wf = sum(st.wavefronts + ld.wavefronts for _, _, st, ld, _ in sides) * num_warps
    if wf >= current_wf:
        return None
    ins = _sum_instructions(*(side[4] for side in sides))
    ins["bar.sync"] = 1  # one barrier between all the stores and all the loads
    t0, res0, st0, ld0, _ = sides[0]
    n = len(tens)
    combine = _combine(module, op)
    gluon, note = "", ""
    if (n, combine in ARG_COMBINES.values()) not in ((1, False), (2, True)) or not combine:
        note = ("Gluon code is generated for a one-operand sum, max or min and a two-operand (value, index) argmax "
                "or argmin only")
    else:
        gluon, note = gluon_exchange(L, axis, P, Q, res0.memory, combine,
                                     index_memory=sides[1][1].memory if n == 2 else None)
    bound = res0.lower_bound
    return ExchangeRemedy(op.name, op.location, axis, t0.element_bits, n, current_wf, tuple(current_ins.items()),
                          res0.memory, P, Q, st0.wavefronts, ld0.wavefronts, wf, tuple(ins.items()),
                          (("write", bound["write"]), ("read", bound["read"])), res0.optimal, gluon, note,
                          sides[1][1].memory if n == 2 else None)


# ----------------------------------------------------------------------------- the Gluon code


def _warp_bits_along(L: LinearLayout, axis: int) -> list[int] | None:
    """The axis bit of each warp basis along ``axis`` when each is a unit vector of the axis alone, else ``None``."""
    j = _axis_of(L, axis)
    out = []
    for b in L.bases.get("warp", []):
        if not b[j]:
            continue
        if any(x for i, x in enumerate(b) if i != j) or b[j] & (b[j] - 1):
            return None
        out.append(b[j].bit_length() - 1)
    return out


def _bases_text(bases) -> str:
    return "[" + ", ".join("[" + ", ".join(str(x) for x in b) + "]" for b in bases) + "]"


def gluon_exchange(L: LinearLayout, axis: int, P: LinearLayout, Q: LinearLayout, memory: LinearLayout,
                   combine: str, index_memory: LinearLayout | None = None) -> tuple[str, str]:
    """The Gluon code of a reduction of ``x`` (layout ``L``) along ``axis`` whose exchange stores the partials
    ``P`` into ``memory`` and reads them as ``Q``: ``(code, "")``, or ``("", why not)``.

    The axis is reshaped into (above the warps, the warps, below the warps), the warps' part moved first and
    the other two merged and reduced inside each warp (registers first, then shuffles), the partials stored, read
    back as ``Q`` (Triton's membar pass puts the barrier between), and reduced inside each warp again; the result
    is converted to ``x``'s own slice layout (the same linear layout, so no instructions).

    ``combine`` is ``sum``, ``max`` or ``min`` (one operand), or ``argmax``/``argmin``: a reduction of two operands,
    the values ``x`` and their indices ``i`` (same layout), with Triton's tie-break-left combine (the smaller index
    wins a tie); the indices' partials go through ``index_memory``, behind the same barrier.
    """
    bits = _warp_bits_along(L, axis)
    if not bits or bits != list(range(bits[0], bits[0] + len(bits))):
        return "", "the warps along the axis are not consecutive bits of it: no reshape separates them"
    shape = [L.out_sizes[d] for d in L.out_dims]
    if list(L.out_dims) != [f"dim{i}" for i in range(len(shape))]:
        return "", "the layout's dims are not in order"
    pair = combine in ARG_COMBINES.values()
    if pair and index_memory is None:
        return "", f"{combine} needs the indices' scratch layout"
    lo, w = 1 << bits[0], 1 << len(bits)
    hi = shape[axis] // (lo * w)
    split = shape[:axis] + [hi, w, lo] + shape[axis + 1:]
    part = shape[:axis] + [w] + shape[axis + 1:]
    merged = shape[:axis] + [w, hi * lo] + shape[axis + 1:]
    order = list(range(axis)) + [axis + 1, axis, axis + 2] + list(range(axis + 3, len(split)))
    qb = {d: _bases_text(Q.bases.get(d, [])) for d in ("register", "lane", "warp")}
    head = [
        "@gluon.jit",
        f"def {combine}_across_warps(x{', i' if pair else ''}):",
        f"    # {combine} of x ({list(shape)}) along axis {axis}: the partials of the {w} warps along it go through",
        "    # a shared layout chosen by linlayout's synthesizer instead of Triton's scratch heuristic.",
        f"    SCRATCH: gl.constexpr = gl.SharedLinearLayout(offset_bases={_bases_text(memory.bases['offset'])})",
    ]
    if pair:
        head.append(f"    INDEX_SCRATCH: gl.constexpr = gl.SharedLinearLayout("
                    f"offset_bases={_bases_text(index_memory.bases['offset'])})")
    head += [
        f"    READ: gl.constexpr = gl.DistributedLinearLayout(reg_bases={qb['register']}, lane_bases={qb['lane']},",
        f"                                                    warp_bases={qb['warp']}, block_bases=[], shape={part})",
    ]
    steps = (_gluon_pair_steps if pair else _gluon_one_steps)(combine, axis, split, order, merged, part)
    back = (f"gl.convert_layout({{}}, gl.SliceLayout({axis}, x.type.layout))" if len(shape) > 1 else "{}")
    results = ["y", "j"] if pair else ["y"]
    tail = ("    return " + ", ".join(back.format(r) for r in results)
            + ("  # the same linear layout: free" if len(shape) > 1 else ""))
    code = "\n".join(head + steps + [tail])
    return (_gluon_arg_combine(combine) + "\n\n\n" + code if pair else code), ""


def _gluon_one_steps(combine: str, axis: int, split, order, merged, part) -> list[str]:
    fn = {"sum": "gl.sum", "max": "gl.max", "min": "gl.min"}[combine]
    return [
        f"    y = gl.reshape(x, {split})  # axis {axis} split into (above the warps, the warps, below them)",
        f"    y = gl.reshape(gl.permute(y, {order}), {merged})  # (the warps, the rest)",
        f"    y = {fn}(y, axis={axis + 1})  # inside each warp: registers, then shuffles",
        f"    scratch = gl.allocate_shared_memory(y.dtype, {part}, SCRATCH)",
        "    scratch.store(y)",
        f"    y = {fn}(scratch.load(READ), axis={axis})  # after the barrier; inside each warp again",
    ]


def _gluon_pair_steps(combine: str, axis: int, split, order, merged, part) -> list[str]:
    fn = f"{combine}_combine"
    return [
        f"    # axis {axis} split into (above the warps, the warps, below them), then (the warps, the rest)",
        f"    y = gl.reshape(gl.permute(gl.reshape(x, {split}), {order}), {merged})",
        f"    j = gl.reshape(gl.permute(gl.reshape(i, {split}), {order}), {merged})",
        f"    y, j = gl.reduce((y, j), {axis + 1}, {fn})  # inside each warp: registers, then shuffles",
        f"    values = gl.allocate_shared_memory(y.dtype, {part}, SCRATCH)",
        f"    indices = gl.allocate_shared_memory(j.dtype, {part}, INDEX_SCRATCH)",
        "    values.store(y)",
        "    indices.store(j)",
        f"    y, j = gl.reduce((values.load(READ), indices.load(READ)), {axis}, {fn})  # after the barrier",
    ]


def _gluon_arg_combine(combine: str) -> str:
    """Triton's tie-break-left combine of ``tl.max``/``tl.min(..., return_indices=True)``, in Gluon."""
    compare = ">" if combine == "argmax" else "<"
    return "\n".join([
        "@gluon.jit",
        f"def {combine}_combine(v1, i1, v2, i2):",
        f"    first = (v1 {compare} v2) | ((v1 == v2) & (i1 < i2))  # a tie keeps the smaller index",
        "    return gl.where(first, v1, v2), gl.where(first, i1, i2)",
    ])


# ----------------------------------------------------------------------------- the kernel


def find_remedies(lowering: Lowering, module: Module, layout_of, ops: Sequence[OpLint],
                  buffers: Sequence[BufferLint], uses: Sequence[LayoutUse], root: Mapping[str, str],
                  perm: Mapping[str, object], num_warps: int) -> tuple[Remedy, ...]:
    """Every remedy of a linted module: per buffer a wgmma/TMA user fixes, per reduction across warps."""
    out: list[Remedy] = []
    for b in buffers:
        if b.optimal is None and b.write_wavefronts + b.read_wavefronts:
            mine = [u for u in uses if b.name in (u.record.buffer or "").split(",")]
            r = buffer_remedy(lowering, b, mine, module, root, perm)
            if r is not None:
                out.append(r)
    by_line = {op.line: op for op in module.ops if op.name == "tt.reduce"}
    for rec in ops:
        if rec.op == "tt.reduce" and rec.counted and rec.line in by_line:
            r2 = exchange_remedy(lowering, rec, by_line[rec.line], module, layout_of, num_warps)
            if r2 is not None:
                out.append(r2)
    return tuple(out)
