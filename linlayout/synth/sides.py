"""One side of a swizzle problem, and the exact cost of a memory for it.

The synthesizer (:mod:`linlayout.synth.synthesis`) reduces each distributed
layout to flat tensor images once (:class:`Side`, cached on the layout) and
splits offsets by what their bits mean to the hardware (:class:`Geometry`:
word, bank and segment positions for the element width).  Every cost here
is the access plan's (:mod:`linlayout.count.plan`): :func:`side_shape` is
the plan's shape for a vector width, :func:`pass_lanes` its within-pass
generators as tensor directions, and :func:`exact_cost` maps the side's
bases through a candidate memory and evaluates the plan with the closed
form's conflict rule, exactly as :func:`linlayout.wavefronts` does on the
built layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from ..core import f2
from ..core.dims import DimSpec
from ..core.layout import LinearLayout
from ..count.closed_form import collisions
from ..count.plan import (
    AccessShape,
    access_shape,
    check_distributed_dims,
    plan_from_offsets,
    vector_cap,
)
from ..errors import DimensionError, LoweringError, SwizzleError
from ..hw import Instruction, SharedMemory

__all__ = ["Side", "side_of", "Geometry", "geometry", "Cost", "side_shape", "exact_cost", "memory_inverse",
           "pass_lanes", "shape_lanes"]

# A NamedTuple from every one of its fields, in order, at C speed (the generated __new__ is Python code).
_new = tuple.__new__


# ---------------------------------------------------------------------------
# One side of the conversion
# ---------------------------------------------------------------------------


class Side(NamedTuple):
    """One side of the conversion, reduced to flat tensor images (computed once per layout by :func:`side_of`).

    An immutable record; ``taus`` is its memo (pass lanes per instruction and vector width, the bounds'
    per-side facts, :meth:`unit_bits`), filled on first use.
    """

    name: str  # "write" / "read"
    op: str  # "store" / "load"
    layout: LinearLayout  # the layout, its output dimensions in the synthesis' order
    regs: tuple[int, ...]  # flat tensor image per register bit (0 = broadcast)
    lanes: tuple[int, ...]  # flat tensor image per lane bit
    others: tuple[int, ...]  # warps and blocks
    broadcast: bool  # lane bit 0 or 1 broadcasts (the plan's merge input)
    reg_set: frozenset[int]  # the non-zero register images
    nregs: int  # non-broadcast registers (repeated images count: each is an access)
    lane_set: frozenset[int]  # the non-zero lane images
    taus: dict  # memo (see above)
    distributed: bool = True  # paper Def. 4.10 (unit or zero bases, no two alike)

    def unit_bits(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None:
        """Per dimension (register, lane, warp), the tensor bit of each basis (-1: zero basis) when every basis
        is a unit vector or zero, else None: :func:`exact_cost` then reads offsets straight off the memory's
        inverse.  Computed on first use (a synthesis that stops at the floor with ``ld/st`` never needs it)."""
        memo = self.taus
        ub = memo.get("unit-bits", False)
        if ub is False:
            xs = (self.regs, self.lanes, self.others)
            ub = memo["unit-bits"] = (tuple(tuple([x.bit_length() - 1 for x in ys]) for ys in xs)
                                      if self.distributed or all(x & (x - 1) == 0 for ys in xs for x in ys) else None)
        return ub


def side_of(name: str, op: str, L: LinearLayout, hw: SharedMemory, outs: DimSpec, out_bits: int | None = None) -> Side:
    """The :class:`Side` of layout ``L`` (``name`` "write"/"read", ``op`` "store"/"load"), cached on the layout.

    ``outs`` is the tensor's ``(name, log2 size)`` pairs in the order the synthesis uses (the write
    layout's); ``L``'s output dimensions are reordered to it if they differ (``out_bits``: their total bits,
    when the caller has it).  Raises for a layout that is
    not distributed over ``hw``'s lanes or does not reach every tensor element.
    """
    if not isinstance(L, LinearLayout):
        raise DimensionError(f"the {name} layout must be a LinearLayout, got {type(L).__name__}")
    cache = L.memo()
    key = ("synthesis-side", name, hw.lanes, outs)
    hit = cache.get(key)
    if hit is not None:
        return hit
    dims = L.in_dim_bits
    spans = _SPANS.get((dims, hw.lanes))
    if spans is None:  # input dimensions not seen with this many lanes: check them (raises), then remember
        check_distributed_dims(L, hw, name + " layout")
        spans = _dim_spans(dims, hw.lanes)
    T = L if L.out_dim_bits == outs else L.transpose_outs([n for n, _ in outs])
    # The images per input dimension, read off the flat columns in the layout's dimension order.
    cols = T.flat_columns()
    regs = tuple(cols[spans[0]])
    lanes = tuple(cols[spans[1]])
    others = tuple(cols[spans[2]]) + tuple(cols[spans[3]])  # warps, then blocks
    # LinearLayout.is_distributed on the images at hand: distinct non-zero one-bit bases, one per tensor bit.
    nonzero = set(cols)
    nonzero.discard(0)
    if out_bits is None:
        out_bits = T.out_bits
    distributed = len(nonzero) == len(cols) - cols.count(0) == out_bits == sum(map(int.bit_count, nonzero))
    if not distributed and not L.is_surjective():
        raise SwizzleError(
            f"the {name} layout does not reach every tensor element (its bases span {f2.rank(L.flat_columns())} of "
            f"{L.out_bits} tensor bits); the synthesizer needs both sides to cover the tile"
        )
    reg_set = frozenset(regs)
    zeros = 0
    if 0 in reg_set:
        reg_set = reg_set.difference((0,))
        zeros = regs.count(0)
    lane_set = frozenset(lanes)
    if 0 in lane_set:
        lane_set = lane_set.difference((0,))
    side = cache[key] = _new(Side, (name, op, T, regs, lanes, others, 0 in lanes[:2], reg_set, len(regs) - zeros,
                                     lane_set, {}, distributed))
    return side


def _dim_spans(dims: DimSpec, lanes: int) -> tuple[slice, ...]:
    """Where the register, lane, warp and block bases lie among a layout's flat columns (checked dimensions)."""
    spans = dict.fromkeys(("register", "lane", "warp", "block"), slice(0, 0))
    pos = 0
    for d, b in dims:
        spans[d] = slice(pos, pos + b)
        pos += b
    if len(_SPANS) > 256:
        _SPANS.clear()
    out = _SPANS[(dims, lanes)] = tuple(spans.values())
    return out


# Input dimensions that passed check_distributed_dims for a lane count, with _dim_spans' slices.
_SPANS: dict[tuple, tuple[slice, ...]] = {}


# ---------------------------------------------------------------------------
# Scoring a memory layout given as columns (exact, for our constructions)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Geometry:
    """Offset positions of word, bank and segment bits for the element width."""

    d: int
    word_end: int  # offsets [0, word_end) lie within one 4-byte word
    bank_end: int  # offsets [word_end, bank_end) choose the bank; the rest the segment
    eb: int
    cap: int  # max vector elements (log2) per access


@lru_cache(maxsize=256)
def geometry(d: int, eb: int, hw: SharedMemory) -> Geometry:
    z = eb.bit_length() - 1 - 3  # offset bit p is byte-address bit p + z
    ws = hw.word_shift
    rb = hw.row_bytes.bit_length() - 1
    word_end = min(d, max(0, ws - z))
    bank_end = min(d, max(0, rb - z))
    return Geometry(d, word_end, bank_end, eb, vector_cap(eb, hw))


class Cost(NamedTuple):
    """One side's exact cost: wavefronts in all, per instruction, and how they arise (an immutable record)."""

    total: int
    instructions: int
    per_instruction: int
    passes: int
    ways_log2: int
    vector: int  # log2 elements per access


def side_shape(side: Side, ins: Instruction, k: int, geo: Geometry, hw: SharedMemory) -> AccessShape | None:
    """The access plan's shape of one side with a ``2^k``-element vector (None: not addressable)."""
    try:
        return access_shape(ins, geo.eb, hw, k, side.nregs, side.broadcast)
    except LoweringError:
        return None


def memory_inverse(cols: Sequence[int]) -> list[int] | None:
    """The element offset of every unit tensor direction on the memory whose offset bit ``p`` holds ``cols[p]``.

    Entry ``i`` is ``M⁻¹(e_i)``; one more entry, ``0``, sits at the end so that
    index ``-1`` (a zero basis) reads offset 0.  None when the columns are not
    a basis of the tensor (``M`` not invertible).  Unit columns are read off
    directly; the others (a swizzle's XOR columns) are reduced by them and
    solved by Gauss-Jordan elimination.

    >>> memory_inverse([0b01, 0b11])   # M e_0 = e_0, M e_1 = e_0 ^ e_1: M⁻¹ e_1 = e_0 ^ e_1
    [1, 3, 0]
    """
    d = len(cols)
    full = (1 << d) - 1
    inv = [0] * (d + 1)
    known = 0  # tensor bits whose unit direction is a column
    rest = []
    for p, v in enumerate(cols):
        if v and not v & (v - 1) and not v & known and v <= full:
            inv[v.bit_length() - 1] = 1 << p
            known |= v
        else:
            rest.append(p)
    if not rest:
        return inv if known == full else None
    # The construction's other columns are pairs e ^ f of which one is a unit column: each names the other
    # direction's offset at once.  Anything else goes to Gauss-Jordan below.
    left = []
    for p in rest:
        v = cols[p]
        k = v & known
        r = v ^ k
        if k and not k & (k - 1) and r and not r & (r - 1) and r <= full:
            inv[r.bit_length() - 1] = (1 << p) ^ inv[k.bit_length() - 1]
            known |= r
        else:
            left.append(p)
    if not left:
        return inv if known == full else None
    rest = left
    piv: dict[int, tuple[int, int]] = {}  # leading bit -> (reduced column, offset bits it combines)
    for p in rest:
        v = cols[p]
        t = 1 << p
        k = v & known  # remove the unit columns' directions: M((1 << p) ^ inv[b]...) = the rest of v
        v ^= k
        while k:
            b = k.bit_length() - 1
            t ^= inv[b]
            k ^= 1 << b
        while v:
            h = v.bit_length() - 1
            e = piv.get(h)
            if e is None:
                piv[h] = (v, t)
                break
            v ^= e[0]
            t ^= e[1]
        else:
            return None
    unknown = full ^ known
    if len(piv) != unknown.bit_count() or any(not unknown >> h & 1 for h in piv):
        return None
    for h in sorted(piv):  # back substitution: every lower unknown bit is already solved
        v, t = piv[h]
        v ^= 1 << h
        while v:
            b = v.bit_length() - 1
            t ^= inv[b]
            v ^= 1 << b
        inv[h] = t
    return inv


def _offsets_from_inverse(side: Side, inv: list[int]) -> dict[str, tuple[int, ...]]:
    ub = side.unit_bits()
    if ub is not None:
        g = inv.__getitem__
        return {"register": tuple(map(g, ub[0])), "lane": tuple(map(g, ub[1])), "warp": tuple(map(g, ub[2]))}
    out = {}
    for dim, images in (("register", side.regs), ("lane", side.lanes), ("warp", side.others)):
        offs = []
        for x in images:
            o = 0
            while x:
                b = x.bit_length() - 1
                o ^= inv[b]
                x ^= 1 << b
            offs.append(o)
        out[dim] = tuple(offs)
    return out


def exact_cost(cols: Sequence[int], side: Side, ins: Instruction, geo: Geometry, hw: SharedMemory,
               fixed_vector: int | None, inverse: list[int] | None = None) -> Cost | None:
    """Exact cost of one side on the memory whose offset bit ``p`` holds tensor direction ``cols[p]``.

    The side's bases are mapped to element offsets through the inverse of
    the memory (``C = M⁻¹ ∘ L``) and the access plan is evaluated by the
    closed form's conflict rule: the same computation as
    :func:`linlayout.count.closed_form.wavefronts` on the built layout.
    ``inverse`` is :func:`memory_inverse` of ``cols`` when the caller has it
    (both sides of one memory share it).
    """
    inv = memory_inverse(cols) if inverse is None else inverse
    if inv is not None:
        offsets = _offsets_from_inverse(side, inv)
    else:
        offsets = _offsets_by_elimination(cols, side)
    vb = None if fixed_vector is None or ins.is_matrix else geo.eb << fixed_vector
    try:
        plan = plan_from_offsets(offsets, geo.eb, ins, hw, vb)
    except LoweringError:
        return None
    shape = plan.shape
    c = len(collisions(plan.generator_bytes(), hw))
    per = shape.passes << c
    return Cost(shape.instructions * per, shape.instructions, per, shape.passes, c, shape.vector)


def _offsets_by_elimination(cols: Sequence[int], side: Side) -> dict[str, tuple[int, ...]]:
    """Offsets of the side's bases for columns that are not a basis (each solved by elimination)."""
    offsets = {"register": (), "lane": (), "warp": ()}
    known = {c: 1 << p for p, c in enumerate(cols)}  # M(e_p) = cols[p]: the offset of a column's direction is e_p
    known[0] = 0
    echelon = None
    for dim, images in (("register", side.regs), ("lane", side.lanes), ("warp", side.others)):
        out = []
        for x in images:
            o = known.get(x)
            if o is None:  # a direction that is no single column: solve M o = x
                if echelon is None:
                    echelon = f2.echelon(cols)[0]
                o = known[x] = echelon.reduce(x)[1]
            out.append(o)
        offsets[dim] = tuple(out)
    return offsets


def pass_lanes(side: Side, ins: Instruction, k: int, geo: Geometry, hw: SharedMemory) -> list[int]:
    """Directions that vary within one pass (lanes, or row generators for matrix instructions)."""
    key = (ins, k, geo.eb, hw)
    hit = side.taus.get(key)
    if hit is None:
        hit = side.taus[key] = _pass_lanes_uncached(side, ins, k, geo, hw)
    return hit


def _pass_lanes_uncached(side: Side, ins: Instruction, k: int, geo: Geometry, hw: SharedMemory) -> list[int]:
    return shape_lanes(side, side_shape(side, ins, k, geo, hw))


def shape_lanes(side: Side, shape: AccessShape | None) -> list[int]:
    """:func:`pass_lanes` of a shape already at hand (``side_shape``'s result; None: no lanes)."""
    if shape is None:  # sub-byte access: this candidate is unusable for the side (scored as None)
        return []
    regs, lanes = side.regs, side.lanes
    return [x for d, i in shape.within_pass if (x := (lanes if d == "lane" else regs)[i])]
