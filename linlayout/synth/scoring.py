"""Exact scoring: the cost of a candidate memory on each side, as the counter would report it.

A candidate memory is given as its columns: ``columns[p]`` is the tensor
direction at offset bit ``p`` (an ``int``, one bit per tensor coordinate
bit).  :func:`exact_cost` maps a side's bases through the memory's inverse
(``C = M⁻¹ ∘ L``: :func:`memory_inverse`, shared by both sides of one
memory) and evaluates the access plan (:mod:`linlayout.count.plan`) with the
closed form's conflict rule, exactly as :func:`linlayout.wavefronts` does on
the built layout; :func:`exact_pair` scores both sides.

The distributed construction also knows each candidate's cost in closed form
before it is built (:mod:`.candidates`); :func:`analytic_is_exact` says when
that analytic cost is already the exact one for an ``ld/st.shared`` side, and
:func:`tile_side_cost` gives a matrix instruction's side its exact cost from
the analytic one, so the search need not score the built memory again
(paper_notes/synthesis.md §3).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core import f2
from ..count.closed_form import collisions
from ..count.plan import plan_from_offsets
from ..errors import LoweringError
from ..hw import Instruction, SharedMemory
from .sides import Cost, Geometry, Side

__all__ = ["memory_inverse", "exact_cost", "exact_pair", "analytic_is_exact", "tile_side_cost"]


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


def offsets_from_inverse(side: Side, inv: list[int]) -> dict[str, tuple[int, ...]]:
    """Offsets of the side's bases through ``inv``, the memory's inverse (:func:`memory_inverse`)."""
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
        offsets = offsets_from_inverse(side, inv)
    else:
        offsets = offsets_by_elimination(cols, side)
    vb = None if fixed_vector is None or ins.is_matrix else geo.element_bits << fixed_vector
    try:
        plan = plan_from_offsets(offsets, geo.element_bits, ins, hw, vb)
    except LoweringError:
        return None
    shape = plan.shape
    c = len(collisions(plan.generator_bytes(), hw))
    per = shape.passes << c
    return Cost(shape.instructions * per, shape.instructions, per, shape.passes, c, shape.vector)


def offsets_by_elimination(cols: Sequence[int], side: Side) -> dict[str, tuple[int, ...]]:
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


def exact_pair(cols: Sequence[int], sides: dict[str, Side], ins: dict[str, Instruction], geo: Geometry,
               hw: SharedMemory, fixed: int | None) -> tuple[Cost, Cost] | None:
    """Both sides' exact costs on one memory (None when either side cannot access it)."""
    inv = memory_inverse(cols)  # shared by both sides
    cw = exact_cost(cols, sides["write"], ins["write"], geo, hw, fixed, inv)
    if cw is None:
        return None
    cr = exact_cost(cols, sides["read"], ins["read"], geo, hw, fixed, inv)
    if cr is None:
        return None
    return cw, cr


def analytic_is_exact(cols: Sequence[int], side: Side, ins: Instruction, cost: Cost | None, fixed_vector: int | None,
                      geo: Geometry) -> bool:
    """True when a floor-meeting candidate's analytic ``cost`` for ``side`` is its exact cost on ``cols``.

    ``cols`` is the built memory (the low block and word fill of :func:`~linlayout.synth.candidates.word_fills`, then the bank and segment
    columns of :func:`~linlayout.synth.candidates.complete_columns`).
    For ``ld/st.shared`` the analytic cost assumes the vector is the prefix of the low block holding the side's
    registers (``cost.vector`` of them); the completion meets the pass lanes' Grassmann bound (paper_notes
    §3, the Claim), so the analytic cost is exact whenever the built memory gives the side exactly that
    vector.  The prefix's offsets are touched by no other basis (every other direction's offset lies at
    positions ``len(low block)`` and up), so the vector ends at ``cost.vector`` unless column ``cost.vector`` is
    another register of the side (a fill or bank column that happens to extend it).  This checks that
    column.  A requested width (``fixed_vector``) is taken as it is, and a side at the widest access cannot
    grow.  Matrix instructions are not judged here: :func:`tile_side_cost` gives their exact cost.

    >>> from linlayout.synth.sides import Cost, Geometry
    >>> from linlayout.hw import parse_instruction
    >>> class S: reg_set = frozenset({1, 2, 16})
    >>> geo, st = Geometry(5, 1, 5, 16, 3), parse_instruction("st.shared")
    >>> c = Cost(8, 2, 4, 4, 0, 2)   # a 2^2-element vector: registers 1 and 2 at offsets 1 and 2
    >>> analytic_is_exact((1, 2, 4, 8, 16), S, st, c, None, geo), analytic_is_exact((1, 2, 16, 4, 8), S, st, c, None, geo)
    (True, False)
    """
    if cost is None or ins.is_matrix:
        return False
    k = cost.vector
    return fixed_vector is not None or k >= geo.max_vector or k >= len(cols) or cols[k] not in side.reg_set


def tile_side_cost(side: Side, cost: Cost) -> Cost:
    """The exact cost of a matrix instruction's distributed side on the memory the construction built around its
    tile (:func:`~linlayout.synth.candidates.word_fills`' low block, then
    :func:`~linlayout.synth.candidates.complete_columns`), from its analytic ``cost`` (not None).

    The tile's columns are the side's tile bases at offsets 1, 2, 4, ... and no other column has a component
    along them, so the tile fits (Thm 5.1) and the row generators' offsets lie above the tile, a whole
    row: the Claim of paper_notes/synthesis.md §3 gives the conflicts exactly, as the analytic cost has them.
    Only the instruction count differs: the plan counts a tile's vector register whose basis is zero (a
    ``.trans`` row generator may broadcast) as a register, where the analytic shape counts the side's non-zero
    registers, so each such register doubles the instructions (:func:`~linlayout.synth.sides.missing_tile_registers`).
    A tile's vector registers are the side's registers ``0 .. k-1`` (:func:`~linlayout.count.plan.matrix_tile`),
    ``k`` the analytic cost's vector width, so the missing ones are read off the side's first ``k`` register
    bases (absent or zero) without the tile.

    >>> from linlayout.synth.sides import Cost
    >>> class S: regs = (0, 8, 16)
    >>> tile_side_cost(S, Cost(8, 2, 4, 4, 0, 1))   # ldmatrix.x4.trans, 16-bit: one vector register, broadcast
    Cost(total=16, instructions=4, per_instruction=4, passes=4, ways_log2=0, vector=1)
    """
    k = cost.vector
    head = side.regs[:k]
    zeros = k - len(head) + head.count(0)
    if not zeros:
        return cost
    return Cost(cost.total << zeros, cost.instructions << zeros, cost.per_instruction, cost.passes, cost.ways_log2,
                cost.vector)
