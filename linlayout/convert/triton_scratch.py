"""Triton's choice of scratch layout and instructions for a conversion through shared memory (its generic swizzling).

Triton lowers a ``convert_layout`` that crosses warps (and, since 3.9, the
exchange of a reduction's partials) by storing the source registers into a
scratch buffer and loading the destination registers back.  It picks the
buffer's layout *and* the instructions with ``optimalSwizzling`` (Triton's
``lib/Tools/GenericSwizzling.cpp``): every pair of a write tile
(``st.shared``, ``stmatrix``, ``stmatrix.trans``) and a read tile
(``ld.shared``, ``ldmatrix``, ``ldmatrix.trans``) that the two layouts admit
gets its own swizzle; the pair with the fewest bank conflicts wins, ties
going to the layout with the most *reps* (the smallest buffer), then to the
first pair.  The buffer's bases are split into ``vector``, ``bank``,
``segment`` and ``reps``: a basis that is a register of both layouts and
lies in the segment becomes a rep, except the first two of them when both
sides use matrix instructions (they stay so that each rep fills an
``.x4``), and the conversion runs once per rep (store, barrier, load,
barrier between reps).  A matrix side's 32-bit words may be filled by any
registers: Triton's lowering renumbers the registers to match
(:func:`matrix_register_order`).

This module is that algorithm on flat ints (output dimensions packed, the
first the lowest, as Triton's ``flattenOuts``); :func:`triton_scratch`
returns the memory layout with the reps folded back in as the highest offset
bits (every rep has the same bank pattern, so the counter sees the whole
conversion), the reps, and the two instructions.  The wavefronts themselves
are counted by :func:`~linlayout.count.closed_form.wavefronts`, never here.

>>> from linlayout.core.layout import LinearLayout
>>> rows = LinearLayout({"register": [[0, 1], [0, 2]], "lane": [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
...                      "warp": [[8, 0], [16, 0]]}, {"dim0": 32, "dim1": 16})
>>> cols = LinearLayout({"register": [[1, 0], [2, 0]], "lane": [[4, 0], [8, 0], [16, 0], [0, 1], [0, 2]],
...                      "warp": [[0, 4], [0, 8]]}, {"dim0": 32, "dim1": 16})
>>> s = triton_scratch(rows, cols, 32)
>>> s.write, s.read, s.reps
('st.shared', 'ld.shared', 1)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache, reduce
from itertools import chain, compress
from operator import or_
from typing import TypeVar

from ..core import f2
from ..core.layout import LinearLayout
from ..core.record import record
from ..count.closed_form import WavefrontReport, count_plan, wavefronts
from ..count.matrix_tile import matrix_tile
from ..count.offsets import inverse_columns
from ..count.plan import plan_from_offsets
from ..errors import InputError
from ..hw import get_hardware, parse_instruction
from .solve import HW_DIMS, index_bits, has_unit_columns
from .speed import FLAT_KEY, INDEX_ECHELON_KEY, per_layout

__all__ = ["TritonScratch", "conversion_tiles", "count_matrix_or_vector", "count_offsets", "count_renumbered", "matrix_register_order",
           "renumber_registers", "triton_scratch", "ldst_reps"]

T = TypeVar("T")

MATRIX_SIZES = ("x4", "x2", "x1")
"""The matrix counts Triton tries, largest first."""

BANK_BITS = 32 * 32
"""Bits in one bank segment: 32 banks of 32 bits."""


@record
class Tile:
    """An instruction's tile: the lane bits that hold contiguous data and the lane bits that carry addresses."""

    name: str
    lane_contig: tuple[int, ...]
    lane_addr: tuple[int, ...]


@record
class TritonScratch:
    """The scratch buffer of a conversion as Triton lays it out: ``memory`` (``offset`` → tensor, reps included), the reps, the instructions."""

    memory: LinearLayout
    reps: int
    write: str
    read: str


@lru_cache(maxsize=8)
def conversion_tiles(element_bits: int) -> tuple[tuple[Tile, ...], tuple[Tile, ...]]:
    """The write and read tiles Triton offers on sm90 (``getSrcDstTiles``): vectors, then matrices (≤ 32 bits), then transposed matrices (16 bits)."""
    src, dst = [Tile("st.shared", (), (0, 1, 2))], [Tile("ld.shared", (), (0, 1, 2))]
    if element_bits <= 32:
        src.append(Tile("stmatrix", (0, 1), (2, 3, 4)))
        dst.append(Tile("ldmatrix", (0, 1), (2, 3, 4)))
    if element_bits == 16:
        src.append(Tile("stmatrix.trans", (2, 3, 4), (0, 1)))
        dst.append(Tile("ldmatrix.trans", (2, 3, 4), (0, 1)))
    return tuple(src), tuple(dst)


# ----------------------------------------------------------------------------- flat F2 helpers


def _log2(n: int) -> int:
    return max(n, 1).bit_length() - 1


def _low_pivots(vectors: Sequence[int]) -> set[int]:
    """The lowest-bit pivots of the span of ``vectors`` (an echelon form by lowest set bit)."""
    rows: dict[int, int] = {}
    for v in vectors:
        while v:
            p = (v & -v).bit_length() - 1
            if p not in rows:
                rows[p] = v
                break
            v ^= rows[p]
    return set(rows)


def _complement(basis: Sequence[int], dim: int) -> list[int]:
    """Unit vectors completing ``basis`` to the whole space (Triton's ``complementBasis``), lowest first.

    Where the vectors have disjoint supports (their bit counts add up to the bit count of their union), no vector's
    lowest bit is in another, so the lowest bits are the pivots and nothing is eliminated; otherwise
    :func:`_low_pivots` eliminates."""
    if sum(map(int.bit_count, basis)) == reduce(or_, basis, 0).bit_count():
        pivots = sum(v & -v for v in basis)
    else:
        pivots = sum(1 << p for p in _low_pivots(basis))
    return f2.unit_vectors(((1 << dim) - 1) & ~pivots)


def _intersection(b1: Sequence[int], b2: Sequence[int], unit: bool | None = None) -> list[int]:
    """A basis of span(b1) ∩ span(b2), in ``b1``'s order when both are unit vectors (Triton's ``intersectionBasis``).
    ``unit``: whether every vector of both is a unit vector or zero, when the caller knows."""
    if unit is None:
        unit = f2.single_bits([*b1, *b2])
    if unit:
        s2 = set(b2)
        return [b for b in b1 if b and b in s2]
    return f2.intersection([b for b in b1 if b], [b for b in b2 if b])


def _intersections(b1: Sequence[int], b2: Sequence[int], unit: bool | None = None) -> tuple[list[int], list[int]]:
    """``_intersection(b1, b2)`` and ``_intersection(b2, b1)`` (the registers both sides hold, in each side's order),
    with one test for unit vectors (``unit``: whether they all are, when the caller knows)."""
    if unit is None:
        unit = f2.single_bits([*b1, *b2])
    return _intersection(b1, b2, unit), _intersection(b2, b1, unit)


def _segment(bank_src: Sequence[int], bank_dst: Sequence[int], dim: int, length: int, unit: bool = False) -> list[int]:
    """Triton's ``computeSegment``: unit vectors neither side uses, then the pairwise sums of the two sides' differences.

    ``unit``: every vector of the banks is a unit vector or zero (the caller knows it of the layouts).  The segment's
    vectors are distinct and non-zero."""
    s_src, s_dst = set(bank_src) - {0}, set(bank_dst) - {0}
    used = s_src | s_dst
    if unit:  # every used vector is a unit one: the unused units are the bits outside their union
        seg = f2.unit_vectors(((1 << dim) - 1) & ~reduce(or_, used, 0))
    else:
        seg = [1 << b for b in range(dim) if (1 << b) not in used]
    if len(seg) >= length:
        return seg[:length]
    a = sorted(s_src - s_dst)
    b = sorted(s_dst - s_src)
    if len(a) > len(b):
        a, b = b, a
    conflicts = min(max(0, length - len(a) - len(seg)), len(a))
    seg += [a[i] ^ b[i] for i in range(conflicts, len(a))] + a[:conflicts] + b[:conflicts]
    return seg[:length]


def _flat(L: LinearLayout) -> _Flat:
    """``L``'s :class:`_Flat`, once per layout object (Triton's scratch layout and its ld/st fallback both read it)."""
    return per_layout(L, FLAT_KEY, lambda: _Flat(L))


class _Flat:
    """A distributed layout's register and lane bases as flat ints, and a solver for its preimages.

    ``lane_bits`` counts the lane bases and ``broadcast_lanes`` marks the zero ones (bit ``i`` for lane basis ``i``):
    the tile pair rules read them (:class:`TilePairRule`).  ``unit``: every basis is a unit vector or zero (a
    compiler's layouts), so every vector Triton's rule builds from them is too, and the rule takes the set
    operations that are exact for unit vectors (:func:`_intersections`, :func:`_conflicts`)."""

    def __init__(self, L: LinearLayout):
        dims = L.in_dims
        self._echelon: f2.Echelon | None = None
        if not set(dims).difference(HW_DIMS):  # the planner's layouts: their columns in index order, kept per layout
            ib, cols = index_bits(L, "layout")
            self.regs = list(filter(None, cols[:ib.reg]))
            self.lanes = cols[ib.reg:ib.reg + ib.lane]
            self.warps = cols[ib.reg + ib.lane:ib.reg + ib.lane + ib.warp]
            # Preimages solve against all index columns (zero registers are never pivots, so a solution's bits
            # are the same, at the layout's own register numbers): the source's elimination is the conversion
            # map's, kept on the layout (solve.index_echelon), and is reused when there.
            self.cols = cols
            known = L.memo().get(INDEX_ECHELON_KEY)
            self._echelon = known[0] if known is not None else None
            # Triton's layouts always have a register dimension (of size 1 when a thread holds one element), so a
            # layout written without one is read as if it had it: its lane index is still the lane bits.
            self._reg_bits = ib.reg
            self.unit = has_unit_columns(L)
        else:  # other input dimensions are not read
            self.regs = [v for v in L.flat_bases("register") if v] if "register" in dims else []
            self.lanes = list(L.flat_bases("lane")) if "lane" in dims else []
            self.warps = list(L.flat_bases("warp")) if "warp" in dims else []
            self.cols = self.regs + [v for d in HW_DIMS if d in dims and d != "register" for v in L.flat_bases(d)]
            self._reg_bits = len(self.regs)
            self.unit = f2.single_bits(self.cols)
        self.lane_bits = len(self.lanes)
        self.broadcast_lanes = sum(1 << i for i, v in enumerate(self.lanes) if not v) if 0 in self.lanes else 0

    def preimage(self, element: int) -> tuple[int, int] | None:
        """(register part, lane index) of one preimage of a flat element (``f2.solve``'s), or ``None``; the
        register part is zero exactly when the preimage uses no register.

        The elimination of the columns in order makes the first column equal to a unit vector its pivot, so where
        the columns and the element are unit vectors (:attr:`unit`), that column is the preimage, found without
        eliminating."""
        if self.unit and element and element & (element - 1) == 0:
            if element not in self.cols:
                return None
            x = 1 << self.cols.index(element)
        else:
            if self._echelon is None:  # one elimination per layout, shared by every preimage asked of it
                self._echelon = f2.echelon(self.cols)[0]
            residue, x = self._echelon.reduce(element)
            if residue:
                return None
        nr = self._reg_bits
        return x & ((1 << nr) - 1), (x >> nr) & ((1 << self.lane_bits) - 1)


# ----------------------------------------------------------------------------- the algorithm


@record
class TilePairRule:
    """What Triton's ``optimalSwizzlingTile`` asks of the layouts for one pair of instruction tiles, worked out once
    per element width (:func:`tile_pair_rules`): it depends on the tiles alone.

    The side whose tile leaves more vector registers (``wide``: ``"src"`` or ``"dst"``, the source on a tie) is
    Triton's ``a``; the vector is the first ``vector`` registers both sides hold, in ``a``'s order, followed by
    the other side's (``b``'s) contiguous lanes ``b_lanes``.  Lanes ``a_lanes`` of ``a`` and ``b_lanes`` of ``b``
    must be non-broadcast; lanes ``register_lanes`` of ``b`` must be reached in ``a`` through some register, and
    each ``(ia, ib)`` of ``lane_pairs`` says lane ``ib`` of ``b`` is lane ``ia`` of ``a`` (its preimage's lane
    index is ``2^ia``).  ``lane_count``, ``a_lane_mask`` and ``b_lane_mask`` are the first three as a rule reads
    them: both sides need at least ``lane_count`` lanes, and none of the lanes in a mask may be a broadcast one
    (:attr:`_Flat.broadcast_lanes`)."""

    write: Tile
    read: Tile
    wide: str
    vector: int
    a_lanes: tuple[int, ...]
    b_lanes: tuple[int, ...]
    register_lanes: tuple[int, ...]
    lane_pairs: tuple[tuple[int, int], ...]
    leave_reps: int
    lane_count: int
    a_lane_mask: int
    b_lane_mask: int


@lru_cache(maxsize=8)
def tile_pair_rules(element_bits: int) -> tuple[TilePairRule, ...]:
    """The :class:`TilePairRule` of every (write, read) tile pair of :func:`conversion_tiles`, in Triton's order."""
    total = _log2(128 // element_bits) if element_bits <= 128 else 0
    rules = []
    src_tiles, dst_tiles = conversion_tiles(element_bits)
    for ts in src_tiles:
        for td in dst_tiles:
            n_src, n_dst = total - len(ts.lane_contig), total - len(td.lane_contig)
            wide = "dst" if n_src < n_dst else "src"
            (tile_a, n_a), (tile_b, n_b) = ((td.lane_contig, n_dst), (ts.lane_contig, n_src)) if wide == "dst" \
                else ((ts.lane_contig, n_src), (td.lane_contig, n_dst))
            pairs = tuple(zip(tile_a, tile_b[len(tile_b) - len(tile_a):]))
            rules.append(TilePairRule(ts, td, wide, n_b, tile_a, tile_b, tuple(tile_b[:n_a - n_b]), pairs,
                                      _leave_reps(ts, td), max(tile_a + tile_b + (-1,)) + 1,
                                      sum(1 << i for i in tile_a), sum(1 << i for i in tile_b)))
    return tuple(rules)


def _swizzling_tile(rule: TilePairRule, a: _Flat, b: _Flat, shared_a: list[int],
                    preimage: Callable[[str, int], tuple[int, int] | None]) -> list[int] | None:
    """Triton's ``optimalSwizzlingTile`` for one pair of tiles: the vector basis they share, or ``None``.

    ``a`` is the rule's wide side and ``b`` the other; ``shared_a``: the registers both hold, in ``a``'s order;
    ``preimage(wide, i)``: the preimage in ``a`` of lane ``i`` of ``b`` (asked of a few lanes, for several rules)."""
    if len(shared_a) < rule.vector or rule.lane_count > a.lane_bits or rule.lane_count > b.lane_bits:
        return None
    if rule.a_lane_mask & a.broadcast_lanes or rule.b_lane_mask & b.broadcast_lanes:
        return None
    for i in rule.register_lanes:
        pre = preimage(rule.wide, i)
        if pre is None or pre[0] == 0:
            return None
    for ia, ib in rule.lane_pairs:
        pre = preimage(rule.wide, ib)
        if pre is None or pre[1] != (1 << ia):
            return None
    return shared_a[:rule.vector] + [b.lanes[i] for i in rule.b_lanes]


def _swizzle(src: _Flat, dst: _Flat, bits: int, dim: int, vb: list[int], tile_src: list[int],
             tile_dst: list[int], leave_reps: int = 0,
             both: set[int] | None = None) -> tuple[list[int], list[int], list[int], list[int]]:
    """Triton's ``optimalSwizzling`` for given tiles: (vector, bank, segment, reps) bases.

    A segment basis that is a register of both sides becomes a rep (Triton's ``buildReps``), except the first
    ``leave_reps`` of them, which stay in the segment so that each rep has the registers a ``.x4`` matrix
    instruction needs (:func:`_leave_reps`).  ``both``: the registers of both sides, when the caller has them."""
    segment, reps = _segment_and_reps(src, dst, bits, dim, vb, tile_src, tile_dst, leave_reps, both)
    return _with_bank(vb, segment, reps, dim)


def _with_bank(vb: list[int], segment: list[int], reps: list[int],
               dim: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """(vector, bank, segment, reps) bases: the bank is the complement of the others (:func:`_complement`)."""
    return vb, _complement(vb + segment + reps, dim), segment, reps


def _segment_and_reps(src: _Flat, dst: _Flat, bits: int, dim: int, vb: list[int], tile_src: list[int],
                      tile_dst: list[int], leave_reps: int = 0,
                      both: set[int] | None = None) -> tuple[list[int], list[int]]:
    """:func:`_swizzle`'s segment and reps bases (the bank is the complement of the others: a pair of tiles is
    scored on these, and only the pair kept needs its bank)."""
    len_b = min(_log2(BANK_BITS // max((1 << len(vb)) * bits, 1)), dim - len(vb))
    len_s = dim - len_b - len(vb)
    seg = _segment(vb + tile_src, vb + tile_dst, dim, len_s, src.unit and dst.unit)
    if both is None:
        both = set(src.regs) & set(dst.regs)
    segment, reps = [], []
    for s in seg:
        if s in both and leave_reps == 0:
            reps.append(s)
        else:
            leave_reps -= s in both
            segment.append(s)
    return segment, reps


def _leave_reps(write: Tile, read: Tile) -> int:
    """Rep bases Triton keeps in the segment for a pair of tiles (``optimalSwizzling``'s ``leaveReps``).

    A tile misses ``len(lane_contig) + len(lane_addr) - 3`` register bases for full vectorisation: none for
    ``ld/st.shared``, two for a matrix instruction (the ``.x4``'s four registers); the pair leaves the smaller."""
    return min(len(t.lane_contig) + len(t.lane_addr) - 3 for t in (write, read))


def _conflicts(tile_src: Sequence[int], tile_dst: Sequence[int], segment: Sequence[int],
               unit_vectors: bool = False) -> int:
    """Triton's bank conflicts of a pair of tiles: ``2^dim(segment ∩ tile) - 1`` per side (:func:`_intersection`'s
    size).

    Where the tiles and the pair's vector are unit vectors or zero (``unit_vectors``, as the layouts' bases are:
    :attr:`_Flat.unit`) and ``segment`` is :func:`_segment`'s of them (less
    the reps :func:`_swizzle` took out), ``dim(S ∩ T)`` is the number of segment vectors that are vectors of the
    tile, as when every vector is a unit one: :func:`_segment` holds unit vectors neither side uses, sums
    ``a ^ b`` of a unit that only one side uses and one that only the other uses (each ``b`` in one sum only) and
    units of one side's tile; a unit bit of the first two kinds lies outside a tile and no other segment vector
    has it, so a combination in the tile's span uses only the segment's vectors of that tile (independent units).
    Otherwise ``dim(S ∩ T) = rank T - (rank(S + T) - rank S)``: the segment is eliminated once for both tiles and
    each tile is reduced against a copy of it, and alone."""
    unit_segment = unit_vectors or f2.single_bits(segment)
    seg: f2.Span | None = None
    total = 0
    for tile in (tile_src, tile_dst):
        if unit_vectors:  # the segment's vectors are distinct and non-zero (_segment): count them as a set
            shared = len(set(tile).intersection(segment))
        elif unit_segment and f2.single_bits(tile):
            in_tile = set(tile)
            shared = sum(1 for b in segment if b and b in in_tile)
        else:
            if seg is None:
                seg = f2.Span(segment)
            grew = seg.copy().extend(tile)  # rank(S + T) - rank S
            shared = f2.Span().extend(tile) - grew
        total += (1 << shared) - 1
    return total


def _tile_bases(tile: Tile, regs: Sequence[int], lanes: Sequence[int], vb: Sequence[int]) -> list[int] | None:
    need = 3 - len(tile.lane_addr)  # registers the tile takes besides its address lanes (most tiles: none)
    out = [r for r in regs if r not in vb][:need] if need else []
    if len(out) < need or max(tile.lane_addr) >= len(lanes):
        return None
    return out + [lanes[i] for i in tile.lane_addr]


def _fill_bank(src: _Flat, dst: _Flat, vb: list[int], bits: int) -> tuple[list[int], bool]:
    """Triton 3.6/3.9's filling of a vector narrower than 32 bits up to a whole word: the registers of one side that
    are warps of the other (the side with more; on a tie the lowest basis), then warps of both, then warps of either
    in turn (they at least avoid conflicts on one side).  Returns the vector and whether the source filled it."""
    per_bank = _log2(32 // bits)
    warp_s, warp_d = [w for w in src.warps if w], [w for w in dst.warps if w]
    reg_s = _intersection([r for r in src.regs if r not in vb], warp_d)
    reg_d = _intersection([r for r in dst.regs if r not in vb], warp_s)
    if len(reg_s) == len(reg_d) and reg_s:
        src_fills = min(reg_s) < min(reg_d)
    else:
        src_fills = len(reg_s) > len(reg_d)
    vb = vb + (reg_s if src_fills else reg_d)
    if len(vb) < per_bank:
        vb += _intersection(warp_s, warp_d)
    i = 0
    while len(vb) < per_bank and (i < len(warp_s) or i < len(warp_d)):
        if i < len(warp_s) and warp_s[i] not in vb:
            vb.append(warp_s[i])
        if len(vb) < per_bank and i < len(warp_d) and warp_d[i] not in vb:
            vb.append(warp_d[i])
        i += 1
    return vb[:per_bank], src_fills


def _ldst_fallback(src: _Flat, dst: _Flat, bits: int, dim: int):
    """Triton's ``optimalSwizzlingLdSt`` as 3.6 and 3.9 have it: plain vectors when no instruction tile fits.

    The vector is the registers both sides share (up to 128 bits), filled up to a 32-bit word by
    :func:`_fill_bank`; each side's tile is its lanes less those the vector's words cover; and when the vector is
    under 128 bits the bank bases that are registers of the side that filled the word (else of the side with more)
    go first, so that side vectorises further.  (Triton's later ``getVbasis`` fills the word with registers instead:
    it would store a 16-bit slice's 8 registers as one vector where 3.6 and 3.9 issue 8 scalar ``st.shared.b16``,
    seen in both compilers' PTX of ``red_sum_col_fp16_512x64_w8`` and measured on the H100.)
    """
    vb = _intersection(src.regs, dst.regs)[:_log2(128 // bits) if bits <= 128 else 0]
    src_fills: bool | None = None
    if (1 << len(vb)) * bits < 32:
        vb, src_fills = _fill_bank(src, dst, list(vb), bits)
    log2_vec = _log2(max(1, ((1 << len(vb)) * bits) // 32))
    tile_s = list(src.lanes[:len(src.lanes) - log2_vec])
    tile_d = list(dst.lanes[:len(dst.lanes) - log2_vec])
    vector, bank, segment, reps = _swizzle(src, dst, bits, dim, vb, tile_s, tile_d)
    if log2_vec < 2:
        in_s = [i for i, r in enumerate(bank) if r in src.regs]
        in_d = [i for i, r in enumerate(bank) if r in dst.regs]
        order = in_s if src_fills else in_d if src_fills is False else (in_s if len(in_s) > len(in_d) else in_d)
        order = order + [i for i in range(len(bank)) if i not in order]
        bank = [bank[i] for i in order]
    return vector, bank, segment, reps


def triton_scratch(src: LinearLayout, dst: LinearLayout, element_bits: int, matrix: bool = True) -> TritonScratch:
    """The scratch layout, reps and instructions Triton picks to convert ``src`` into ``dst`` (see the module docstring).

    ``matrix=False``: plain ``st.shared``/``ld.shared`` only (``optimalSwizzlingLdSt``), as Triton 3.9 exchanges a
    reduction's partials (its PTX has no matrix instruction at any reduction's line)."""
    if dst.out_dims != src.out_dims:
        dst = dst.transpose_outs(list(src.out_dims))
    a, b = _flat(src), _flat(dst)
    dim = sum(bits for _, bits in src.out_dim_bits)
    both = set(a.regs) & set(b.regs)
    rules = tile_pair_rules(element_bits) if matrix else ()
    unit = a.unit and b.unit
    shared = _intersections(a.regs, b.regs, unit) if rules else ([], [])
    # the preimage of a lane of one side in the other, asked by several rules: solved once per (side, lane)
    preimages: dict[tuple[str, int], tuple[int, int] | None] = {}

    def preimage(wide: str, lane: int) -> tuple[int, int] | None:
        key = (wide, lane)
        if key not in preimages:
            preimages[key] = a.preimage(b.lanes[lane]) if wide == "src" else b.preimage(a.lanes[lane])
        return preimages[key]

    best = None
    for rule in rules:
        wide, narrow, shared_wide = (a, b, shared[0]) if rule.wide == "src" else (b, a, shared[1])
        vb = _swizzling_tile(rule, wide, narrow, shared_wide, preimage)
        if vb is None:
            continue
        ts, td = rule.write, rule.read
        tile_s, tile_d = _tile_bases(ts, a.regs, a.lanes, vb), _tile_bases(td, b.regs, b.lanes, vb)
        if tile_s is None or tile_d is None:
            continue
        segment, reps = _segment_and_reps(a, b, element_bits, dim, vb, tile_s, tile_d, rule.leave_reps, both)
        # Triton keeps the pair with the fewest conflicts, then the most reps, then the first: once a pair has no
        # conflicts, a pair with no more reps cannot win, and its conflicts are not worked out.
        if best is not None and best[0][0] == 0 and len(reps) <= -best[0][1]:
            continue
        key = (_conflicts(tile_s, tile_d, segment, unit), -len(reps))
        if best is None or key < best[0]:
            best = (key, (vb, segment, reps), ts.name, td.name)
    if best is None:
        parts, write, read = _ldst_fallback(a, b, element_bits, dim), "st.shared", "ld.shared"
    else:
        _, (vb, segment, reps), write, read = best
        parts = _with_bank(vb, segment, reps, dim)  # the bank of the pair kept only
    offsets = tuple(chain.from_iterable(parts))
    # XORs of the checked layouts' columns: a valid layout's data, built unchecked
    memory = LinearLayout.from_flat((("offset", len(offsets)),), src.out_dim_bits, (offsets,), check=False)
    return TritonScratch(memory, 1 << len(parts[3]), write, read)


def ldst_reps(src: LinearLayout, dst: LinearLayout, element_bits: int) -> int:
    """The reps of Triton's plain ``ld/st.shared`` scratch layout (``optimalSwizzlingLdSt``) for the pair."""
    dst = dst.transpose_outs(list(src.out_dims))
    parts = _ldst_fallback(_flat(src), _flat(dst), element_bits, sum(bits for _, bits in src.out_dim_bits))
    return 1 << len(parts[3])


def count_matrix_or_vector(layout: LinearLayout, memory: LinearLayout, element_bits: int, op: str,
                           family: str) -> WavefrontReport:
    """One warp's access with an instruction family: ``st.shared``/``ld.shared`` (widest vector) or
    ``stmatrix``/``ldmatrix`` (``.trans``), the largest matrix count the layout admits."""
    if "matrix" not in family:
        return wavefronts(layout, memory, element_bits, op, hardware="sm90")
    regs = layout.flat_bases("register") if "register" in layout.in_sizes else ()
    return _largest_fitting(family, regs, element_bits,
                            lambda name: wavefronts(layout, memory, element_bits, op, name, hardware="sm90"))


def _largest_fitting(family: str, registers: Sequence[int], element_bits: int, count: Callable[[str], T]) -> T:
    """``count(name)`` with the largest instruction of a matrix family (:func:`_matrix_sizes`) whose count the
    counter accepts (it raises :class:`InputError` for one that does not fit the layout)."""
    for name in _matrix_sizes(family, registers, element_bits):
        try:
            return count(name)
        except InputError:
            continue
    raise InputError(f"{family} does not fit the layout")


def _matrix_sizes(family: str, registers: Sequence[int], element_bits: int) -> tuple[str, ...]:
    """The instructions of a matrix family to try, largest matrix count first, leaving out a size whose matrices
    need more non-broadcast registers (``registers``: the layout's register bases, or their offsets) than the tile
    leaves: the counter (count/plan's access shape) would refuse it, after building the plan.  They depend on the
    registers only through which are non-zero, and are worked out once per (family, non-zero registers, width)."""
    return _matrix_sizes_of(family, tuple(compress(range(len(registers)), registers)), element_bits,
                            get_hardware("sm90"))


@lru_cache(maxsize=256)
def _matrix_sizes_of(family: str, nonzero: tuple[int, ...], element_bits: int, hw) -> tuple[str, ...]:
    """:func:`_matrix_sizes` of registers whose non-zero ones are ``nonzero`` (their indices), on the model ``hw``."""
    base, _, trans = family.partition(".")
    names = []
    for size in MATRIX_SIZES:
        name = f"{base}.{size}{'.' + trans if trans else ''}"
        try:
            ins = parse_instruction(name)
            rest = sum(1 for i in nonzero if i not in matrix_tile(ins, element_bits, hw).vector_registers)
        except InputError:
            continue
        if rest >= ins.matrices.bit_length() - 1:
            names.append(name)
    return tuple(names)


def count_offsets(offsets: dict[str, tuple[int, ...]], element_bits: int, op: str,
                  family: str) -> tuple[WavefrontReport, tuple[int, ...]]:
    """:func:`count_renumbered` on a side's element offsets ``C = M⁻¹ ∘ L`` (every input basis' offset, by
    input dimension), which the caller has: the access is planned from them
    (:func:`~linlayout.count.plan.plan_from_offsets`) and counted in closed form
    (:func:`~linlayout.count.closed_form.count_plan`), with no layout or memory object built.  The planner counts
    Triton's staging this way (``smem._triton_round_trip``), on offsets it reads off the whole layouts.
    The report's conflict directions carry no tensor coordinates (there is no layout to label them)."""
    hw = get_hardware("sm90")
    if "matrix" not in family:
        return count_plan(plan_from_offsets(offsets, element_bits, parse_instruction(None, op), hw)), ()
    regs = offsets.get("register", ())
    order = _word_register_order(regs, element_bits)
    if order:
        regs = tuple(regs[i] for i in order)
        offsets = dict(offsets, register=regs)
    return _largest_fitting(family, regs, element_bits,
                            lambda name: count_plan(plan_from_offsets(offsets, element_bits, parse_instruction(name), hw))
                            ), order


def renumber_registers(layout: LinearLayout, order: Sequence[int]) -> LinearLayout:
    """``layout`` with its register bases renamed: register ``i`` of the result is register ``order[i]``.

    >>> L = LinearLayout({"register": [[2], [1]], "lane": [[4], [8], [16], [32], [64]]}, {"dim0": 128})
    >>> renumber_registers(L, (1, 0)).to_dict()["bases"]["register"]
    [[1], [2]]
    """
    regs = layout.flat_bases("register")
    ins, cols = [("register", len(regs))], [tuple(regs[i] for i in order)]
    for d in layout.in_dims:
        if d != "register":
            ins.append((d, len(layout.flat_bases(d))))
            cols.append(tuple(layout.flat_bases(d)))
    return LinearLayout.from_flat(tuple(ins), layout.out_dim_bits, tuple(cols), check=False)


def matrix_register_order(layout: LinearLayout, memory: LinearLayout, element_bits: int) -> tuple[int, ...]:
    """The register numbering under which a matrix instruction reaches the word-filling registers: ``()`` when the
    layout's own numbering does, else the registers at element offsets 1, 2, ... first, the others after in order.

    A matrix instruction moves one 32-bit register per lane and matrix, which holds ``32 / element_bits``
    contiguous elements; the counter (:func:`~linlayout.count.matrix_tile.matrix_tile`) takes them from the
    registers numbered first.  Which of a thread's registers fill a word is a naming choice, and Triton's
    lowering makes it: ``optimalSwizzlingTile`` takes its vector from any registers both sides share and the
    lowering permutes the registers to match (``regPermForDivide``, then the tiles of
    ``lowerLdStShared``).  ``()`` too when no registers sit at those offsets (the tile does not fit at all).

    >>> L = LinearLayout({"register": [[2], [1]], "lane": [[4], [8], [16], [32], [64]]}, {"dim0": 128})
    >>> M = LinearLayout.from_flat((("offset", 7),), (("dim0", 7),), ((1, 2, 4, 8, 16, 32, 64),))
    >>> matrix_register_order(L, M, 16), matrix_register_order(L, M, 8), matrix_register_order(L, M, 32)
    ((1, 0), (1, 0), ())
    """
    if "register" not in layout.in_dims or element_bits >= 32:
        return ()
    hit = inverse_columns(memory)  # the memory's inverse, kept on it: both sides and their counts read it
    inverse = hit[1] if hit is not None else f2.inverse(list(memory.flat_columns()))
    return _word_register_order([f2.apply(inverse, v) for v in layout.flat_bases("register")], element_bits)


def _word_register_order(offsets: Sequence[int], element_bits: int) -> tuple[int, ...]:
    """:func:`matrix_register_order` of registers at these element offsets."""
    words = _log2(32 // element_bits) if element_bits < 32 else 0
    if words == 0:
        return ()
    offsets = list(offsets)
    found = [offsets.index(1 << i) for i in range(words) if (1 << i) in offsets]
    if len(found) < words or found == list(range(words)):
        return ()
    return tuple(found) + tuple(i for i in range(len(offsets)) if i not in found)


def count_renumbered(layout: LinearLayout, memory: LinearLayout, element_bits: int, op: str,
                     family: str) -> tuple[WavefrontReport, tuple[int, ...]]:
    """:func:`count_matrix_or_vector` with a matrix family's registers renumbered as Triton's lowering does
    (:func:`matrix_register_order`): the report and the numbering (``()``: the layout's own)."""
    order = matrix_register_order(layout, memory, element_bits) if "matrix" in family else ()
    counted = renumber_registers(layout, order) if order else layout
    return count_matrix_or_vector(counted, memory, element_bits, op, family), order
