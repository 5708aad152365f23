"""The shared-memory round trip of a conversion: synthesized swizzle, scratch size, reps and barriers.

Every thread writes its ``src`` elements to shared memory through the memory
layout :func:`~linlayout.synth.synthesis.optimal_swizzle` synthesizes for the
pair, a barrier follows, and every thread reads its ``dst`` elements.  With a
scratch limit the tile is cut into ``reps`` slices along tensor bits that are
held by one register basis in both layouts and touched by no other basis
(each thread writes and reads the registers of one slice per iteration);
narrow elements moved as 32-bit words (vectors of 32 bits or more, matrix
instructions) are packed before the write and unpacked after the read
(:func:`linlayout.convert.cost.packing`); each iteration costs one barrier after the write and one before the next
write (``2 reps - 1`` in all).  Among the slicings that fit, the cheapest
under the cost model (:mod:`linlayout.convert.cost`: wavefronts,
instructions and barriers) is taken, and among equally cheap ones the
smallest scratch.

>>> from linlayout.core.layout import LinearLayout
>>> src = LinearLayout({"register": [[1, 0], [0, 1]], "lane": [[2, 0], [4, 0], [8, 0], [16, 0], [32, 0]]}, {"dim0": 64, "dim1": 2})
>>> dst = LinearLayout({"register": [[0, 1], [32, 0]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 64, "dim1": 2})
>>> rt = round_trip(src, dst, 32, "sm90", scratch_bytes=256)
>>> rt.reps, rt.scratch_bytes, rt.barriers
(2, 256, 3)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import field
from functools import cached_property, reduce
from operator import or_

from ..core import f2
from ..core.layout import LinearLayout
from ..core.record import record
from ..errors import InputError
from ..count.closed_form import WavefrontReport, wavefronts
from ..count.plan import plan_access
from ..hw import get_hardware
from ..synth.policy import LDST_INSTRUCTIONS, conversion_instructions
from ..synth.synthesis import SwizzleResult, optimal_swizzle
from .cost import COST_WEIGHTS, cost_of, merge, opcode, packing, packing_cost
from .solve import aligned, conversion_map, index_bits, index_columns, index_echelon, register_rank, has_unit_columns
from .speed import TRITON_SCRATCH_KEY, WARP_PRIVATE_KEY, per_partner
from .triton_scratch import TritonScratch, count_offsets, renumber_registers, triton_scratch

__all__ = ["RoundTrip", "round_trip", "counted_round_trip", "warp_private", "triton_scratch_bytes", "triton_round_trip",
           "rep_cost_floor", "rep_cost_floors", "MAX_REP_CHOICES", "TRITON_BOUNDED", "triton_counts", "within_tritons_counts",
           "most_rep_bits", "rep_candidates"]

MAX_REP_CHOICES = 6
"""At most this many slicings are synthesized per scratch size (the highest tensor bits first)."""


def _bit_dropper(bits: tuple[int, ...]):
    """``v`` with the bits at positions ``bits`` removed (the higher bits move down), as a function with the bits
    sorted and the masks made once (a slicing drops them from every column of two layouts)."""
    steps = [((1 << b) - 1, b, b + 1) for b in sorted(bits, reverse=True)]

    def drop(v: int) -> int:
        for low, b, above in steps:
            v = (v & low) | ((v >> above) << b)
        return v

    return drop


@record
class RoundTrip:
    """One shared-memory round trip plan (per-thread instruction counts, per-warp wavefronts); ``swizzle`` is its :class:`Staging`."""

    swizzle: Staging
    element_bits: int
    rep_bits: tuple[int, ...]   # flat tensor bits that index the iterations
    scratch_bytes: int
    src_layout: LinearLayout
    dst_layout: LinearLayout
    rep_count: int = 0  # iterations of a counted round trip, whose staging holds totals; 0: ``2^len(rep_bits)``
    # per side (src, dst): the slice's registers in the order its instruction numbers them (a renaming, see
    # slice_register_order); () keeps the layout's own order
    register_order: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    # Triton's own staging's counts (triton_counts) that bounded the choice (within_tritons_counts); None: unbounded
    triton_bound: dict[str, int] | None = field(default=None, compare=False)

    @property
    def reps(self) -> int:
        return self.rep_count or 1 << len(self.rep_bits)

    @property
    def barriers(self) -> int:
        return 2 * self.reps - 1

    @cached_property
    def barrier_instruction(self) -> str:
        """``bar.sync``, or ``bar.warp.sync`` (``__syncwarp``) when every warp reads only what it wrote itself.

        That is the case for a CTA of one warp, and for a warp-local
        conversion (:func:`warp_private`) -- Triton 3.9 emits ``bar.warp.sync``
        there too.
        """
        return "bar.warp.sync" if warp_private(self.src_layout, self.dst_layout) else "bar.sync"

    @property
    def wavefronts(self) -> dict[str, int]:
        k = 1 if self.rep_count else self.reps  # a counted round trip's staging counts every iteration
        return {"write": k * self.swizzle.write_wavefronts, "read": k * self.swizzle.read_wavefronts}

    @cached_property
    def instructions(self) -> dict[str, int]:
        """Per thread: the accesses of every rep, the packing of narrow elements into 32-bit words, the barriers."""
        c: dict[str, int] = {}
        k = 1 if self.rep_count else self.reps  # a counted round trip's staging counts every iteration
        c[self.swizzle.write_instruction] = k * self.swizzle.write_instructions
        c[self.swizzle.read_instruction] = c.get(self.swizzle.read_instruction, 0) + k * self.swizzle.read_instructions
        c[self.barrier_instruction] = self.barriers
        n = 32 // self.element_bits if self.element_bits < 32 else 1
        if n > 1:
            if self.swizzle.write_word_access:
                c = merge(c, packing((1 << register_rank(self.src_layout, "src")) // n, self.element_bits, "pack"))
            if self.swizzle.read_word_access:
                c = merge(c, packing((1 << register_rank(self.dst_layout, "dst")) // n, self.element_bits, "unpack"))
        return c

    @cached_property
    def cost(self) -> int:
        """The round trip's cost under the model (:func:`~linlayout.convert.cost.cost_of` of :attr:`instructions` and
        :attr:`wavefronts`): :func:`round_trip` prices its candidates with it and the planner reports it."""
        return cost_of(self.instructions, self.wavefronts)

    @cached_property
    def _bounded_counts(self) -> dict[str, int]:
        """:func:`triton_counts`, made once per round trip (:func:`round_trip` reads Triton's several times: the
        most rep bits, each candidate's rule, the bound it attaches)."""
        counts = dict.fromkeys(TRITON_BOUNDED, 0)
        for op, n in self.instructions.items():  # one pass: each count's class, if bounded
            what = _BOUNDED_CLASS.get(opcode(op))
            if what is not None:
                counts[what] += n
        return counts

    @cached_property
    def _inverse(self) -> list[int]:
        return f2.inverse(self.swizzle.memory.flat_columns())

    @cached_property
    def _drop_rep_bits(self):
        return _bit_dropper(self.rep_bits)

    def rep_of(self, element: int) -> int:
        """The iteration that moves a tensor element (flat index)."""
        return sum(((element >> b) & 1) << i for i, b in enumerate(self.rep_bits))

    def offset(self, element: int) -> int:
        """The element offset of a tensor element inside its iteration's scratch."""
        return f2.apply(self._inverse, self._drop_rep_bits(element))

    def src_rep(self, reg: int) -> int:
        """The iteration in which source register ``reg`` is written (the same for every thread)."""
        _, cols = index_bits(self.src_layout, "src")
        return self.rep_of(f2.apply(cols, reg))

    def dst_rep(self, reg: int) -> int:
        """The iteration in which destination register ``reg`` is read."""
        _, cols = index_bits(self.dst_layout, "dst")
        return self.rep_of(f2.apply(cols, reg))

    def slice_layout(self, side: str) -> LinearLayout:
        """The ``"src"`` or ``"dst"`` layout on one slice: without the rep bits' registers and tensor bits,
        its registers in :attr:`register_order` (the numbering its matrix instruction was counted with)."""
        layout = self.src_layout if side == "src" else self.dst_layout
        layout = _reduced(layout, self.rep_bits) if self.rep_bits else layout
        order = self.register_order[side != "src"]
        return renumber_registers(layout, order) if order else layout

    def slice_registers(self, side: str, rep: int) -> tuple[int, ...]:
        """The full registers of ``side`` that iteration ``rep`` moves, in :meth:`slice_layout`'s register order.

        >>> from linlayout.core.layout import LinearLayout
        >>> src = LinearLayout({"register": [[1], [2]], "lane": [[4], [8], [16], [32], [64]]}, {"dim0": 128})
        >>> rt = round_trip(src, src.transpose_outs(["dim0"]), 32, scratch_bytes=256)
        >>> rt.rep_bits, rt.slice_registers("src", 0), rt.slice_registers("src", 1)
        ((1,), (0, 1), (2, 3))
        """
        hw, cols = index_bits(self.src_layout if side == "src" else self.dst_layout, side)
        regs = cols[:hw.reg]
        rep_pos = [regs.index(1 << b) for b in self.rep_bits]
        kept = [i for i, c in enumerate(regs) if i not in rep_pos]
        order = self.register_order[side != "src"]
        kept = [kept[i] for i in order] if order else kept
        base = sum(1 << rep_pos[i] for i in range(len(rep_pos)) if rep >> i & 1)
        return tuple(base | sum(1 << kept[i] for i in range(len(kept)) if r >> i & 1) for r in range(1 << len(kept)))

    def dst_element(self, reg: int, lane: int, omega: int) -> int:
        """The element destination slot (reg, lane, ω) reads."""
        hw, cols = index_bits(self.dst_layout, "dst")
        return f2.apply(cols, reg | (lane << hw.reg) | (omega << (hw.reg + hw.lane)))


def warp_private(src: LinearLayout, dst: LinearLayout) -> bool:
    """Whether a round trip needs only warp barriers: each warp reads back only elements no other warp writes.

    True when the CTA has one warp, or when the conversion is warp-local
    (:func:`~linlayout.convert.solve.conversion_map` level at most 1) and no
    element is held by two warps of ``src`` (its warp columns are independent
    of each other and of its register and lane columns), so the warps' scratch
    offsets are disjoint in every iteration.

    >>> from linlayout.core.layout import LinearLayout
    >>> a = LinearLayout({"register": [[1]], "lane": [[2], [4], [8], [16], [32]], "warp": [[64]]}, {"dim0": 128})
    >>> b = LinearLayout({"register": [[32]], "lane": [[1], [2], [4], [8], [16]], "warp": [[64]]}, {"dim0": 128})
    >>> c = LinearLayout({"register": [[64]], "lane": [[1], [2], [4], [8], [16]], "warp": [[32]]}, {"dim0": 128})
    >>> warp_private(a, b), warp_private(a, c)
    (True, False)
    """
    return per_partner(src, WARP_PRIVATE_KEY, dst, lambda: _warp_private(src, dst))


def _warp_private(src: LinearLayout, dst: LinearLayout) -> bool:
    if src.in_sizes.get("warp", 1) == 1:
        return True
    hw, cols = index_bits(src, "src")
    # The warp and block columns are independent of each other and of the lower ones exactly when each is a pivot
    # of the elimination of the index columns in order: the conversion map's (index_echelon), already made.
    low = hw.reg + hw.lane
    if sum(1 for p in index_echelon(src)[1] if p >= low) != len(cols) - low:
        return False
    return conversion_map(src, aligned(src, dst)).level <= 1


def rep_candidates(src: LinearLayout, dst: LinearLayout) -> list[int]:
    """The tensor bits a round trip may slice into reps: held by exactly one register basis of each side and touched
    by no other basis (ascending)."""
    held = -1  # every bit, until the sides say
    for layout, side in ((src, "src"), (dst, "dst")):
        ib, cols = index_columns(layout, side)
        touched = twice = 0  # tensor bits touched by some basis, by two or more
        for c in cols:
            twice |= touched & c
            touched |= c
        once = touched & ~twice
        alone = 0  # the register bases 1 << b alone on bit b
        for c in cols[:ib.reg]:
            if c & (c - 1) == 0 and c & once:
                alone |= c
        held &= alone
    bits = []
    while held:  # its set bits, lowest first
        low = held & -held
        bits.append(low.bit_length() - 1)
        held ^= low
    return bits


def rep_cost_floor(src: LinearLayout, dst: LinearLayout, element_bits: int, hardware, barrier: str,
                   rep_bits: int) -> int:
    """A lower bound on the cost of any round trip of ``src`` to ``dst`` in ``2^rep_bits`` reps.

    The planner's pruning device (:func:`round_trip` skips the slicings whose
    floor cannot beat the best plan found, before synthesizing their swizzle).
    It depends only on the number of rep bits: every candidate rep bit is one
    register basis of each side that no other basis touches, so a slice of
    ``j`` rep bits holds ``2^-j`` of each thread's distinct elements (``T``
    bytes) whichever bits they are.  Per slice and side, a thread issues at
    least ``T`` over the widest access (a vector, or a matrix instruction's
    four registers); every instruction takes at least one pass of the banks
    and the lanes' accesses at least ``lanes * T`` over a pass's bytes (two
    passes' for loads whose lane bit 0 or 1 broadcasts, which the model
    merges: :meth:`~linlayout.hw.SharedMemory.merges_passes`; slicing keeps
    the lanes' bases, so the full ``dst`` tells).  Narrow elements either
    move in accesses under 32 bits (at most 2 bytes each) or are packed
    into words (:func:`~linlayout.convert.cost.packing`, once per register,
    whatever the reps); the cheaper of the two is taken.  The round trip
    executes ``2 reps`` barriers (the caller's included,
    :func:`~linlayout.convert.cost.executed_barriers`), and pays the shared
    memory path's constant once (:func:`~linlayout.convert.cost.cost_of`).  The floor never
    decreases with ``rep_bits`` up to the rank of either side's registers
    (:func:`round_trip` never slices more bits).

    >>> from linlayout.core.layout import LinearLayout
    >>> src = LinearLayout({"register": [[1], [2]], "lane": [[4], [8], [16], [32], [64]]}, {"dim0": 128})
    >>> rep_cost_floor(src, src, 32, "sm90", "bar.warp.sync", 0), rep_cost_floor(src, src, 32, "sm90", "bar.warp.sync", 1)
    (72, 88)
    """
    return rep_cost_floors(src, dst, element_bits, hardware, barrier)(rep_bits)


def rep_cost_floors(src: LinearLayout, dst: LinearLayout, element_bits: int, hardware,
                    barrier: str) -> Callable[[int], int]:
    """:func:`rep_cost_floor` as a function of the number of rep bits, with what does not depend on it (the
    model's widths, each side's distinct registers, pass bytes and packing cost) worked out once:
    :func:`round_trip` asks the floor of one slicing size after another."""
    hw = get_hardware(hardware)
    widest = max(hw.max_access_bytes, 4 * hw.register_bytes if hw.matrix_rows else 0)
    # one pass of the banks (a matrix instruction's pass is one matrix: lanes x register_bytes, the same on sm90)
    one_pass = max(hw.row_bytes, hw.lanes * hw.register_bytes if hw.matrix_rows else 0)
    w_access, w_wave = COST_WEIGHTS["shared_instruction"], COST_WEIGHTS["wavefront"]
    sides = []  # per side: distinct registers, bytes of one pass, the packing's cost (narrow elements) or None
    for layout, side, pass_bytes in ((src, "pack", one_pass), (dst, "unpack", one_pass << _merges_loads(dst, hw))):
        registers = 1 << register_rank(layout, side)
        packs = packing_cost(registers * element_bits // 32, element_bits, side) if element_bits < 32 else None
        sides.append((registers, pass_bytes, packs))

    def floor_of(rep_bits: int) -> int:
        reps = 1 << rep_bits
        floor = reps * 2 * COST_WEIGHTS[barrier] + COST_WEIGHTS["shared_memory_path"]  # a round trip is that path
        for registers, pass_bytes, packs in sides:
            thread_bytes = (registers >> rep_bits) * element_bits // 8
            accesses = -(-thread_bytes // widest)
            side_floor = reps * (w_access * accesses + w_wave * max(accesses, -(-thread_bytes * hw.lanes // pass_bytes)))
            if packs is not None:
                side_floor = min(side_floor + packs, reps * (w_access + w_wave) * -(-thread_bytes // 2))
            floor += side_floor
        return floor

    return floor_of


def _merges_loads(dst: LinearLayout, hw) -> bool:
    """Whether loads of ``dst`` may be served in merged passes: lane bit 0 or 1 broadcasts (a zero basis)."""
    if not hw.merge_broadcast_loads:
        return False
    ib, cols = index_columns(dst, "dst")
    return 0 in cols[ib.reg:ib.reg + min(2, ib.lane)]


def _reduced(layout: LinearLayout, bits: tuple[int, ...]) -> LinearLayout:
    """The layout on one slice: drop the register bases of ``bits`` and those tensor bits.

    Built for every candidate slicing, so it works on the flat columns directly (the layout was checked
    by :func:`round_trip`'s callers) and builds the result unchecked: dropping whole tensor bits and the
    register bases that held them keeps a valid layout valid.
    """
    drop = _bit_dropper(bits)
    rep_columns = {1 << b for b in bits}
    in_cols = {d: layout.flat_bases(d) for d in layout.in_dims}
    keep_regs = [c for c in in_cols.get("register", ()) if c not in rep_columns]
    outs = _reduced_dims(layout.out_dim_bits, bits)
    ins = [("register", len(keep_regs))]
    new_cols = [tuple(map(drop, keep_regs))]
    for d in ("lane", "warp", "block"):
        if d in in_cols:
            cols = in_cols[d]
            ins.append((d, len(cols)))
            new_cols.append(tuple(map(drop, cols)))
    return LinearLayout.from_flat(tuple(ins), tuple(outs), tuple(new_cols), check=False)


def _reduced_dims(out_dim_bits, bits: tuple[int, ...]) -> tuple[tuple[str, int], ...]:
    """The output dimensions of a slice: each loses the rep bits (flat tensor bits) that fall in it."""
    outs = []
    pos = 0
    for name, nb in out_dim_bits:
        outs.append((name, nb - sum(1 for b in bits if pos <= b < pos + nb)))
        pos += nb
    return tuple(outs)


def _dropped_columns(columns: list[int], bits: tuple[int, ...], mask: int) -> tuple[int, ...]:
    """``columns`` with the tensor bits ``bits`` (``mask``: their sum) removed, the higher bits moving down
    (:func:`_bit_dropper`), for columns that touch none of those bits (a slice memory's, Triton's reps dropped).

    A unit column ``c`` moves down by the number of dropped bits below it, ``(mask & (c - 1)).bit_count()``
    (Triton's offsets are unit vectors but for a few sums of two): only the others go through the dropper."""
    drop = _bit_dropper(bits)
    return tuple([c >> (mask & (c - 1)).bit_count() if c & (c - 1) == 0 else drop(c) for c in columns])


def _slice_offsets(layout: LinearLayout, side: str, inverse: list[int], by_length: list[int], slice_size: int,
                   hw) -> dict[str, tuple[int, ...]]:
    """The element offsets ``C = M⁻¹ ∘ L`` of one slice of a side (:func:`_reduced`'s layout through the slice of a
    memory whose reps are its highest offset bits), computed on the whole layout and memory.

    ``inverse``: the whole memory's inverse columns with 0 appended (the image of a zero column), ``by_length`` the same
    with 0 first (its entry ``n`` is the offset of the unit column of bit length ``n``, entry 0 that of a zero column);
    ``slice_size``: the elements of one slice (``2^n`` for a memory of ``n`` offset bits without reps).  The
    slice drops the rep registers and the rep bits; every other basis touches no rep bit, so it is a sum of the
    memory's other columns alone, and its offset is the same in the slice as in the whole memory (the slice's
    offsets are the whole memory's lowest ones).  A rep register is the memory's unit column on a rep bit, whose
    offset is a rep offset bit, ``slice_size`` or more: the registers kept are those below.  Raises
    :class:`InputError` where the counter refuses the layout (its lanes are not a warp's).
    """
    ib, cols = index_bits(layout, side)
    if ib.lane != hw.lane_bits:
        raise InputError(f"the {side} layout has {1 << ib.lane} lanes but a warp has {hw.lanes}")
    if has_unit_columns(layout):  # each column's offset is read off by its bit length (a compiler's layouts)
        offs = list(map(by_length.__getitem__, map(int.bit_length, cols)))
    else:  # a unit column indexes the inverse, a zero column its last entry (0)
        offs = [inverse[c.bit_length() - 1] if not c & (c - 1) else f2.apply(inverse, c) for c in cols]
    lanes, warps = ib.reg + ib.lane, ib.reg + ib.lane + ib.warp
    return {"register": tuple(filter(slice_size.__gt__, offs[:ib.reg])), "lane": tuple(offs[ib.reg:lanes]),
            "warp": tuple(offs[lanes:warps]), "block": tuple(offs[warps:])}


@record
class Staging:
    """The memory layout of a round trip and the exact counts of its two sides (one slice)."""

    memory: LinearLayout
    write_instruction: str
    read_instruction: str
    write_wavefronts: int
    read_wavefronts: int
    write_instructions: int
    read_instructions: int
    synthesized: bool  # False: the plain row-major memory (the synthesizer needs distributed layouts)
    write_word_access: bool = False  # the side moves whole 32-bit words (narrow elements are packed)
    read_word_access: bool = False
    swizzle: SwizzleResult | None = field(default=None, repr=False, compare=False)


def synthesized_staging(src: LinearLayout, dst: LinearLayout, element_bits: int, hardware) -> Staging:
    """The staging of one slice through linlayout's optimal swizzle (the policy's instructions, then ld/st), or
    through the row-major memory where the layouts have mixed bases and synthesis does not apply."""
    sw = None
    # The policy's instructions for a conversion (linlayout.synth.policy: matrix ones where they apply), then ld/st.
    opts = conversion_instructions(element_bits, get_hardware(hardware))
    for kw in ({"instructions": opts}, {"instructions": LDST_INSTRUCTIONS}):
        try:
            sw = optimal_swizzle(src, dst, element_bits, hardware, **kw)
            break
        except InputError:
            continue
    if sw is not None:
        return Staging(sw.memory, sw.write_instruction, sw.read_instruction, sw.write_wavefronts, sw.read_wavefronts,
                       sw.write_instructions, sw.read_instructions, True, moves_words(sw, "write", src, hardware),
                       moves_words(sw, "read", dst, hardware), sw)
    # Not distributed (mixed bases): stage through the row-major memory and count it exactly.
    mem = LinearLayout.from_flat((("offset", src.out_bits),), src.out_dim_bits,
                                 (tuple(1 << i for i in range(src.out_bits)),))
    w = wavefronts(src, mem, element_bits, "store", None, None, hardware)
    r = wavefronts(dst, mem, element_bits, "load", None, None, hardware)
    return Staging(mem, w.instruction, r.instruction, w.wavefronts, r.wavefronts, w.instructions, r.instructions, False,
                   w.vector_bits >= 32, r.vector_bits >= 32)


def moves_words(sw: SwizzleResult, side: str, layout: LinearLayout, hardware) -> bool:
    """Whether a side of a synthesized staging (``layout``, the side's layout given to the synthesis) moves whole
    32-bit words: a matrix instruction, or vectors of at least 32 bits.  The result's access widths
    (``vector_bits``, the wider side's, and ``common_vector_bits``, the narrower's; a matrix side's is 32) tell it
    unless only one side reaches 32 bits and neither uses a matrix instruction; then the side's access plan does
    (its vector, without counting the side's conflicts as its exact report would: a count costs about as much as
    the synthesis's own scoring, and a plan synthesizes a few slices)."""
    this, other = ((sw.write_instruction, sw.read_instruction) if side == "write"
                   else (sw.read_instruction, sw.write_instruction))
    if "matrix" in this or sw.common_vector_bits >= 32:
        return True
    if sw.vector_bits < 32 or "matrix" in other:  # the other side is the wider one (a matrix side's 32 bits)
        return False
    op = "store" if side == "write" else "load"
    return plan_access(layout, sw.memory, sw.element_bits, op, this, None, hardware).shape.vector_bits >= 32


def _tritons_scratch(src: LinearLayout, dst: LinearLayout, element_bits: int) -> TritonScratch:
    """:func:`~linlayout.convert.triton_scratch.triton_scratch`, kept in ``src``'s memo for the ``dst`` object
    (:data:`~linlayout.convert.speed.TRITON_SCRATCH_KEY`): :func:`round_trip` needs it twice per pair (the
    default budget and Triton's own staging); the result is immutable (errors are not kept)."""
    key = (TRITON_SCRATCH_KEY[0], f"{TRITON_SCRATCH_KEY[1]}, {element_bits}-bit")
    return per_partner(src, key, dst, lambda: triton_scratch(src, dst, element_bits))


def triton_scratch_bytes(src: LinearLayout, dst: LinearLayout, element_bits: int) -> int:
    """The scratch Triton 3.9 allocates to convert ``src`` into ``dst`` through shared memory, in bytes.

    Triton's rule on NVIDIA GPUs (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/Allocation.cpp``:
    ``getNvidiaAllocationAnalysisScratchSizeFn`` calls ``getNumScratchElemsSwizzledCvt``): drop
    broadcast registers, take the scratch layout ``optimalSwizzling`` (``lib/Tools/GenericSwizzling.cpp``)
    picks with the tiles ``getSrcDstTiles`` offers, the same layout its lowering then uses, and allocate
    that layout's elements (the whole tile) divided by its ``reps``, at the element's bytes.  The scratch
    layout is ported in :func:`~linlayout.convert.triton_scratch.triton_scratch`.  This is the default
    budget of :func:`round_trip` (``scratch_bytes`` overrides it).

    >>> from linlayout.catalog.triton_encodings import triton_blocked, triton_nvidia_mma
    >>> mma = triton_nvidia_mma([256, 256], 2, [4, 2], [16, 8])
    >>> rows = triton_blocked([256, 256], [1, 4], [4, 8], [8, 1], [1, 0])
    >>> triton_scratch_bytes(mma, rows, 32)      # 256 KB in 16 reps
    16384
    """
    total = (1 << src.out_bits) * element_bits // 8
    return total // _tritons_scratch(src, aligned(src, dst), element_bits).reps


def _scratch_sizes(total: int, scratch_bytes: int | None, budget: int, cands: list[int], hw) -> range:
    """The numbers of rep bits to try: from the fewest that fit the budget to every candidate bit.

    An explicit ``scratch_bytes`` that no slicing reaches is an error; the
    default budget (Triton's) falls back to the smallest slicing, refused only
    when even that exceeds the shared memory of ``hw``.
    """
    need = 0
    while (total >> need) > budget:
        need += 1
    if need > len(cands):
        smallest = total >> len(cands)
        if scratch_bytes is not None:
            raise InputError(
                f"scratch_bytes={scratch_bytes} is too small: the tile is {total} bytes and only {len(cands)} "
                f"tensor bits can be iterated over, so at least {smallest} bytes are needed")
        if smallest > hw.smem_bytes:
            raise InputError(f"the tile is {total} bytes and only {len(cands)} tensor bits can be iterated over: "
                             f"its smallest slice ({smallest} bytes) is more than the {hw.smem_bytes} bytes of "
                             f"shared memory on {hw.name}")
        need = len(cands)
    return range(need, len(cands) + 1)


def round_trip(src: LinearLayout, dst: LinearLayout, element_bits: int, hardware="sm90",
               scratch_bytes: int | None = None) -> RoundTrip:
    """The shared-memory plan for converting ``src`` to ``dst`` (see the module doc).

    ``scratch_bytes`` bounds the scratch; ``None`` takes what Triton
    allocates for the same conversion (:func:`triton_scratch_bytes`).  Every
    slicing from the fewest reps that fit up to all candidate bits is
    considered (a slicing whose barriers alone cost more than the best plan
    found is skipped), and Triton's own staging is one of the candidates, so
    the plan never costs more than Triton's under the model.  Raises
    :class:`InputError` when the layouts span more than one block or when no
    slicing fits ``scratch_bytes`` (naming the smallest possible scratch).
    """
    if src.in_sizes.get("block", 1) > 1:
        raise InputError("the shared-memory path is planned for one CTA: block size must be 1 "
                         f"(got {src.in_sizes['block']}); plan each CTA's part separately")
    if scratch_bytes is not None and (isinstance(scratch_bytes, bool) or not isinstance(scratch_bytes, int)
                                      or scratch_bytes <= 0):
        raise InputError(f"scratch_bytes must be a positive int, got {scratch_bytes!r}")
    hw = get_hardware(hardware)
    total = (1 << src.out_bits) * element_bits // 8
    cands = rep_candidates(src, dst)
    budget = min(triton_scratch_bytes(src, dst, element_bits), hw.smem_bytes) if scratch_bytes is None else scratch_bytes
    best = None
    triton = _triton_round_trip(src, dst, element_bits, hw, cands, budget)
    if triton is not None:
        best = ((triton.cost, triton.scratch_bytes), triton)
    # the Triton counts that bound the choice, given to every candidate (Triton's own staging gets them on winning)
    bound = triton_counts(triton) if triton is not None else None
    floor_of = rep_cost_floors(src, dst, element_bits, hw, "bar.warp.sync" if warp_private(src, dst) else "bar.sync")
    limit = most_rep_bits(triton)
    seen: set[tuple[LinearLayout, LinearLayout]] = set()
    for j in _scratch_sizes(total, scratch_bytes, budget, cands, hw):
        if limit is not None and j > limit:
            break  # more barriers than Triton's staging: the rule refuses every slicing from here on, unsynthesized
        # Pruning: no slicing into 2^j reps costs less than its floor, so once the floor reaches the best
        # plan's key (cost, then scratch) none of them can win, and synthesizing their swizzles is skipped.
        floor = floor_of(j)
        if best is not None and floor > best[0][0]:
            break  # the floor never decreases with j: no later slicing wins either
        for bits in itertools.islice(itertools.combinations(cands[::-1], j), MAX_REP_CHOICES):
            if best is not None and (floor, total >> j) >= best[0]:
                break
            bits = tuple(sorted(bits))
            s, d = (_reduced(src, bits), _reduced(dst, bits)) if bits else (src, dst)
            # Slicings along interchangeable bits (say two adjacent register-only tensor bits) leave the same
            # slice: same swizzle, cost and scratch, so a repeat cannot beat the first (ties keep the first) and
            # is not synthesized again (about a third of the syntheses on the corpus).
            if (s, d) in seen:
                continue
            seen.add((s, d))
            try:
                sw = synthesized_staging(s, d, element_bits, hw)
            except InputError:  # a slice the counter refuses (larger than the shared memory): try the next
                continue
            rt = RoundTrip(sw, element_bits, tuple(bits), total >> j, src, dst, triton_bound=bound)
            key = (rt.cost, rt.scratch_bytes)
            if (best is None or key < best[0]) and within_tritons_counts(rt, triton):
                best = (key, rt)
    if best is None:
        raise InputError(f"no slicing of the {total}-byte tile into at most {1 << len(cands)} reps fits the "
                         f"{hw.smem_bytes} bytes of shared memory on {hw.name}")
    return _with_triton_bound(triton, bound) if best[1] is triton else best[1]


def _with_triton_bound(rt: RoundTrip, bound: dict[str, int]) -> RoundTrip:
    """``rt`` with the Triton counts that bounded its choice (:attr:`RoundTrip.triton_bound`).

    The bound is no input of the round trip's counts, so the counts and cost :func:`round_trip` already made on
    ``rt`` (to price it) are carried over rather than made again by the planner, which reads them next.
    """
    out = RoundTrip(rt.swizzle, rt.element_bits, rt.rep_bits, rt.scratch_bytes, rt.src_layout, rt.dst_layout,
                    rt.rep_count, rt.register_order, bound)  # by position: dataclasses.replace costs twice as much
    for name in ("instructions", "barrier_instruction", "cost"):  # cached properties, kept in the instance's __dict__
        if name in rt.__dict__:
            out.__dict__[name] = rt.__dict__[name]
    return out


TRITON_BOUNDED = {"shared-memory instructions": ("st.shared", "ld.shared", "stmatrix", "ldmatrix"),
                  "barriers": ("bar.sync", "bar.warp.sync"), "shfl.sync": ("shfl.sync",), "selp": ("selp",)}
"""The per-thread counts no round trip may exceed Triton's own staging in (:func:`within_tritons_counts`)."""

_BOUNDED_CLASS = {op: what for what, ops in TRITON_BOUNDED.items() for op in ops}


def triton_counts(rt: RoundTrip) -> dict[str, int]:
    """A round trip's per-thread counts of each class of :data:`TRITON_BOUNDED` (``stmatrix.x4`` counts as ``stmatrix``).

    >>> from linlayout.core.layout import LinearLayout
    >>> src = LinearLayout({"register": [[1], [2]], "lane": [[4], [8], [16], [32], [64]]}, {"dim0": 128})
    >>> triton_counts(round_trip(src, src.transpose_outs(["dim0"]), 32, scratch_bytes=256))
    {'shared-memory instructions': 4, 'barriers': 3, 'shfl.sync': 0, 'selp': 0}
    """
    return dict(rt._bounded_counts)  # a copy: the round trip keeps its own


def within_tritons_counts(rt: RoundTrip, triton: RoundTrip | None) -> bool:
    """The planner's rule: a round trip is a candidate only if it takes no more of each class of
    :data:`TRITON_BOUNDED` per thread than Triton's own staging of the same conversion (``triton``, itself always a
    candidate); with no representable Triton staging (``None``) every round trip is.

    The cost model decides among the round trips this leaves.  It is a rule, not a cost: the measured weights make a
    rep (two barriers, more memory instructions) cheap beside the ``prmt``/``mov`` packing it saves, and timed on
    the H100 such many-rep plans were no faster than Triton's (``docs/convert.md``), so the planner does not trade
    more barriers or memory instructions than Triton's for less ALU work.
    """
    if triton is None:
        return True
    bound = triton._bounded_counts  # read, not copied (triton_counts copies for callers outside)
    return all(n <= bound[what] for what, n in rt._bounded_counts.items())


def most_rep_bits(triton: RoundTrip | None) -> int | None:
    """The most rep bits a round trip within Triton's counts (:func:`within_tritons_counts`) can have; ``None``:
    no bound (no Triton staging).

    A round trip of ``2^j`` reps executes ``2^(j+1) - 1`` barriers, so one with more rep bits than Triton's staging
    takes more barriers than it and the rule refuses it whatever its swizzle: :func:`round_trip` does not
    synthesize those slicings (on the speed corpus, every slicing the rule refused).

    >>> from linlayout.core.layout import LinearLayout
    >>> src = LinearLayout({"register": [[1], [2]], "lane": [[4], [8], [16], [32], [64]]}, {"dim0": 128})
    >>> most_rep_bits(round_trip(src, src.transpose_outs(["dim0"]), 32, scratch_bytes=256)), most_rep_bits(None)
    (1, None)
    """
    if triton is None:
        return None
    return (triton._bounded_counts["barriers"] + 1).bit_length() - 2


def triton_round_trip(src: LinearLayout, dst: LinearLayout, element_bits: int, hardware="sm90") -> RoundTrip | None:
    """Triton 3.9's own round trip for the pair, counted by this package, or ``None`` where it cannot be represented.

    Triton's scratch layout, instructions and reps
    (:func:`~linlayout.convert.triton_scratch.triton_scratch`) as a
    :class:`RoundTrip` (``None`` when its reps are not tensor bits this module
    iterates over); :func:`round_trip` takes it as one of its candidates.
    """
    hw = get_hardware(hardware)
    total = (1 << src.out_bits) * element_bits // 8
    return _triton_round_trip(src, aligned(src, dst), element_bits, hw, rep_candidates(src, aligned(src, dst)), total)


def _triton_round_trip(src: LinearLayout, dst: LinearLayout, element_bits: int, hw, cands: list[int],
                       budget: int) -> RoundTrip | None:
    """Triton's own staging (:func:`~linlayout.convert.triton_scratch.triton_scratch`) as a round trip, or ``None``.

    Its reps must be tensor bits this module can iterate over (``cands``), its
    other offset bases must not touch them, and its slice must fit ``budget``;
    each side is counted with the instruction family Triton picked (the
    largest matrix count the slice admits).
    """
    if hw.name != "sm90":  # Triton's tiles and counts are sm90's
        return None
    try:
        ts = _tritons_scratch(src, aligned(src, dst), element_bits)
    except InputError:
        return None
    cols = list(ts.memory.flat_columns())
    k = ts.reps.bit_length() - 1
    reps = cols[len(cols) - k:] if k else []
    if any(v & (v - 1) or v.bit_length() - 1 not in cands for v in reps):
        return None
    bits = tuple(sorted(v.bit_length() - 1 for v in reps))
    mask = sum(1 << b for b in bits)
    keep = cols[:len(cols) - k]
    total = (1 << src.out_bits) * element_bits // 8
    if reduce(or_, keep, 0) & mask or (total >> k) > budget:  # some other offset column touches a rep bit
        return None
    # Triton's offsets with the rep bits dropped (they touch none of them): valid data for the slice, built unchecked
    # (without reps, Triton's memory is the slice's)
    memory = LinearLayout.from_flat((("offset", len(keep)),), _reduced_dims(src.out_dim_bits, bits),
                                    (_dropped_columns(keep, bits, mask),), check=False) if k else ts.memory
    # Each side is counted on its slice's element offsets, read off the whole layout (_slice_offsets): no slice
    # layout is built, and the counter sets nothing up per layout object.
    hw90 = get_hardware("sm90")
    if (total >> k) > hw90.smem_bytes:  # the counter refuses a slice larger than the shared memory
        return None
    try:
        inverse = f2.inverse(cols)
        by_length = [0, *inverse]
        inverse.append(0)
        size = 1 << len(keep)
        w, w_order = count_offsets(_slice_offsets(src, "src", inverse, by_length, size, hw90), element_bits, "store",
                                   ts.write)
        r, r_order = count_offsets(_slice_offsets(dst, "dst", inverse, by_length, size, hw90), element_bits, "load",
                                   ts.read)
    except InputError:
        return None
    staging = Staging(memory, w.instruction, r.instruction, w.wavefronts, r.wavefronts, w.instructions,
                      r.instructions, True, "matrix" in w.instruction or w.vector_bits >= 32,
                      "matrix" in r.instruction or r.vector_bits >= 32)
    return RoundTrip(staging, element_bits, bits, total >> k, src, dst, register_order=(w_order, r_order))


def counted_round_trip(src: LinearLayout, dst: LinearLayout, element_bits: int, store: WavefrontReport,
                       load: WavefrontReport, reps: int = 1) -> RoundTrip:
    """A one-slice round trip whose two sides were counted elsewhere, priced by this package's cost model.

    ``store`` and ``load`` are the counts of another lowering (a compiler's,
    as :mod:`linlayout.lower` models it), so that :func:`~linlayout.convert.cost.cost_of`
    prices it exactly as it prices the planner's own round trips: the
    accesses, the barrier (``bar.warp.sync`` where each warp reads only what it
    wrote, else ``bar.sync``) and the packing of narrow elements into words
    (a side moves whole words when it uses a matrix instruction or vectors of
    32 bits or more).  The memory is the row-major tile (the counts are given,
    so the memory only fixes the slice's size).  ``reps``: the iterations the
    other lowering runs (its counts are totals over all of them; each
    iteration adds the barriers of :attr:`RoundTrip.barriers`).
    """
    memory = LinearLayout.from_flat((("offset", src.out_bits),), src.out_dim_bits,
                                    (tuple(1 << i for i in range(src.out_bits)),))
    staging = Staging(memory=memory, write_instruction=store.instruction, read_instruction=load.instruction,
                      write_wavefronts=store.wavefronts, read_wavefronts=load.wavefronts,
                      write_instructions=store.instructions, read_instructions=load.instructions, synthesized=True,
                      write_word_access="matrix" in store.instruction or store.vector_bits >= 32,
                      read_word_access="matrix" in load.instruction or load.vector_bits >= 32)
    return RoundTrip(staging, element_bits, (), 0, src, dst, reps)
