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
from dataclasses import dataclass, field
from functools import cached_property

from ..core import f2
from ..core.layout import LinearLayout
from ..errors import InputError
from ..count.closed_form import WavefrontReport, wavefronts
from ..hw import get_hardware
from ..synth.policy import LDST_INSTRUCTIONS, conversion_instructions
from ..synth.synthesis import SwizzleResult, optimal_swizzle
from .cost import cost_of, merge, packing
from .solve import aligned, conversion_map, index_bits

__all__ = ["RoundTrip", "round_trip", "counted_round_trip", "warp_private", "MAX_REP_CHOICES"]

MAX_REP_CHOICES = 24
"""At most this many slicings are synthesized per scratch size."""


def _drop_bits(v: int, bits: tuple[int, ...]) -> int:
    for b in sorted(bits, reverse=True):
        v = (v & ((1 << b) - 1)) | ((v >> (b + 1)) << b)
    return v


@dataclass(frozen=True)
class RoundTrip:
    """One shared-memory round trip plan (per-thread instruction counts, per-warp wavefronts); ``swizzle`` is its :class:`Staging`."""

    swizzle: Staging
    element_bits: int
    rep_bits: tuple[int, ...]   # flat tensor bits that index the iterations
    scratch_bytes: int
    src_layout: LinearLayout
    dst_layout: LinearLayout

    @property
    def reps(self) -> int:
        return 1 << len(self.rep_bits)

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
        return {"write": self.reps * self.swizzle.write_wavefronts, "read": self.reps * self.swizzle.read_wavefronts}

    @property
    def instructions(self) -> dict[str, int]:
        """Per thread: the accesses of every rep, the packing of narrow elements into 32-bit words, the barriers."""
        c: dict[str, int] = {}
        c[self.swizzle.write_instruction] = self.reps * self.swizzle.write_instructions
        c[self.swizzle.read_instruction] = c.get(self.swizzle.read_instruction, 0) + self.reps * self.swizzle.read_instructions
        c[self.barrier_instruction] = self.barriers
        n = 32 // self.element_bits if self.element_bits < 32 else 1
        if n > 1:
            sh, scols = index_bits(self.src_layout, "src")
            dh, dcols = index_bits(self.dst_layout, "dst")
            if self.swizzle.write_word_access:
                c = merge(c, packing((1 << f2.rank(scols[:sh.reg])) // n, self.element_bits, "pack"))
            if self.swizzle.read_word_access:
                c = merge(c, packing((1 << f2.rank(dcols[:dh.reg])) // n, self.element_bits, "unpack"))
        return c

    @cached_property
    def _inverse(self) -> list[int]:
        return f2.inverse(self.swizzle.memory.flat_columns())

    def rep_of(self, element: int) -> int:
        """The iteration that moves a tensor element (flat index)."""
        return sum(((element >> b) & 1) << i for i, b in enumerate(self.rep_bits))

    def offset(self, element: int) -> int:
        """The element offset of a tensor element inside its iteration's scratch."""
        return f2.apply(self._inverse, _drop_bits(element, self.rep_bits))

    def src_rep(self, reg: int) -> int:
        """The iteration in which source register ``reg`` is written (the same for every thread)."""
        _, cols = index_bits(self.src_layout, "src")
        return self.rep_of(f2.apply(cols, reg))

    def dst_rep(self, reg: int) -> int:
        """The iteration in which destination register ``reg`` is read."""
        _, cols = index_bits(self.dst_layout, "dst")
        return self.rep_of(f2.apply(cols, reg))

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
    if src.in_sizes.get("warp", 1) == 1:
        return True
    hw, cols = index_bits(src, "src")
    low = cols[:hw.reg + hw.lane]
    if f2.rank(cols) != f2.rank(low) + (len(cols) - len(low)):
        return False
    return conversion_map(src, aligned(src, dst)).level <= 1


def _rep_candidates(src: LinearLayout, dst: LinearLayout) -> list[int]:
    """Tensor bits held by exactly one register basis of each side and touched by no other basis."""
    out = []
    sh, scols = index_bits(src, "src")
    dh, dcols = index_bits(dst, "dst")
    for b in range(src.out_bits):
        ok = True
        for hw, cols in ((sh, scols), (dh, dcols)):
            hits = [i for i, c in enumerate(cols) if c >> b & 1]
            if len(hits) != 1 or hits[0] >= hw.reg or cols[hits[0]] != 1 << b:
                ok = False
        if ok:
            out.append(b)
    return out


def _reduced(layout: LinearLayout, bits: tuple[int, ...]) -> LinearLayout:
    """The layout on one slice: drop the register bases of ``bits`` and those tensor bits."""
    hw, cols = index_bits(layout, "layout")
    keep_regs = [c for c in cols[:hw.reg] if not any(c == 1 << b for b in bits)]
    outs = []
    pos = 0
    for name, nb in layout.out_dim_bits:
        drop = sum(1 for b in bits if pos <= b < pos + nb)
        outs.append((name, nb - drop))
        pos += nb
    ins = [("register", len(keep_regs))]
    new_cols = [tuple(_drop_bits(c, bits) for c in keep_regs)]
    for d in ("lane", "warp", "block"):
        if d in layout.in_sizes:
            ins.append((d, hw.count(d)))
            new_cols.append(tuple(_drop_bits(c, bits) for c in layout.flat_bases(d)))
    return LinearLayout.from_flat(tuple(ins), tuple(outs), new_cols)


@dataclass(frozen=True)
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


def _synth(src: LinearLayout, dst: LinearLayout, element_bits: int, hardware) -> Staging:
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
                       sw.write_instructions, sw.read_instructions, True,
                       "matrix" in sw.write_instruction or sw.write.vector_bits >= 32,
                       "matrix" in sw.read_instruction or sw.read.vector_bits >= 32, sw)
    # Not distributed (mixed bases): stage through the row-major memory and count it exactly.
    mem = LinearLayout.from_flat((("offset", src.out_bits),), src.out_dim_bits,
                                 (tuple(1 << i for i in range(src.out_bits)),))
    w = wavefronts(src, mem, element_bits, "store", None, None, hardware)
    r = wavefronts(dst, mem, element_bits, "load", None, None, hardware)
    return Staging(mem, w.instruction, r.instruction, w.wavefronts, r.wavefronts, w.instructions, r.instructions, False,
                   w.vector_bits >= 32, r.vector_bits >= 32)


def round_trip(src: LinearLayout, dst: LinearLayout, element_bits: int, hardware="sm90",
               scratch_bytes: int | None = None) -> RoundTrip:
    """The shared-memory plan for converting ``src`` to ``dst`` (see the module doc).

    Raises :class:`InputError` when the layouts span more than one block or
    when no slicing fits ``scratch_bytes`` (naming the smallest possible scratch).
    """
    if src.in_sizes.get("block", 1) > 1:
        raise InputError("the shared-memory path is planned for one CTA: block size must be 1 "
                         f"(got {src.in_sizes['block']}); plan each CTA's part separately")
    total = (1 << src.out_bits) * element_bits // 8
    cands = _rep_candidates(src, dst)
    if scratch_bytes is None:
        sizes = [0]
    else:
        if isinstance(scratch_bytes, bool) or not isinstance(scratch_bytes, int) or scratch_bytes <= 0:
            raise InputError(f"scratch_bytes must be a positive int, got {scratch_bytes!r}")
        need = 0
        while (total >> need) > scratch_bytes:
            need += 1
        if need > len(cands):
            smallest = total >> len(cands)
            raise InputError(
                f"scratch_bytes={scratch_bytes} is too small: the tile is {total} bytes and only {len(cands)} "
                f"tensor bits can be iterated over, so at least {smallest} bytes are needed")
        sizes = list(range(need, len(cands) + 1))
    best = None
    for j in sizes:
        for bits in itertools.islice(itertools.combinations(cands, j), MAX_REP_CHOICES):
            s, d = (_reduced(src, bits), _reduced(dst, bits)) if bits else (src, dst)
            sw = _synth(s, d, element_bits, hardware)
            rt = RoundTrip(sw, element_bits, tuple(bits), total >> j, src, dst)
            key = (cost_of(rt.instructions, rt.wavefronts), rt.scratch_bytes)
            if best is None or key < best[0]:
                best = (key, rt)
    assert best is not None
    return best[1]


def counted_round_trip(src: LinearLayout, dst: LinearLayout, element_bits: int, store: WavefrontReport,
                       load: WavefrontReport) -> RoundTrip:
    """A one-slice round trip whose two sides were counted elsewhere, priced by this package's cost model.

    ``store`` and ``load`` are the counts of another lowering (a compiler's,
    as :mod:`linlayout.lower` models it), so that :func:`~linlayout.convert.cost.cost_of`
    prices it exactly as it prices the planner's own round trips: the
    accesses, the barrier (``bar.warp.sync`` where each warp reads only what it
    wrote, else ``bar.sync``) and the packing of narrow elements into words
    (a side moves whole words when it uses a matrix instruction or vectors of
    32 bits or more).  The memory is the row-major tile (the counts are given,
    so the memory only fixes the slice's size).
    """
    memory = LinearLayout.from_flat((("offset", src.out_bits),), src.out_dim_bits,
                                    (tuple(1 << i for i in range(src.out_bits)),))
    staging = Staging(memory=memory, write_instruction=store.instruction, read_instruction=load.instruction,
                      write_wavefronts=store.wavefronts, read_wavefronts=load.wavefronts,
                      write_instructions=store.instructions, read_instructions=load.instructions, synthesized=True,
                      write_word_access="matrix" in store.instruction or store.vector_bits >= 32,
                      read_word_access="matrix" in load.instruction or load.vector_bits >= 32)
    return RoundTrip(staging, element_bits, (), 0, src, dst)
