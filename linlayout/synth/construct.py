"""The distributed construction's candidates: low blocks, word fills and their analytic costs, completion.

For two distributed layouts (every basis a unit vector or zero) the
synthesizer (:mod:`linlayout.synth.synthesis`) builds a memory layout in
four steps: a **low block** ``D`` (the common vector, an extension of one
side, or a matrix instruction's tile: :func:`low_blocks`), a **word fill**
``F`` per split of the word between the sides' lanes (:func:`plans`, which
also gives each candidate's analytic cost, the Grassmann bound the
completion meets), and the **segment** and **bank** columns
(:func:`complete`, Lemma 9.5 generalised).  Everything here works on flat
tensor vectors and depends on the memory only through these choices.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import NamedTuple

from ..core import f2
from ..count.plan import matrix_tile
from ..errors import LoweringError
from ..hw import Instruction, SharedMemory
from .sides import Cost, Geometry, Side, side_shape

__all__ = ["Plan", "prefix_len", "pair_sides", "plans", "complete", "analytic_is_exact", "tile_columns", "low_blocks"]

# A NamedTuple from every one of its fields, in order, at C speed (the generated __new__ is Python code).
_new = tuple.__new__


def prefix_len(D: Sequence[int], regs: frozenset[int], cap: int) -> int:
    k = 0
    while k < len(D) and k < cap and D[k] in regs:
        k += 1
    return k


class Plan(NamedTuple):
    """A candidate before its bank and segment columns are built (cheap to score).

    Every direction of a distributed side is a unit vector, so a set of
    directions is the mask of their bits: ``taus`` holds, per side, the mask of
    the directions that vary within one pass and lie outside ``D``.
    """

    D: tuple[int, ...]
    F: tuple[int, ...]
    taus: dict[str, int]
    b: int
    s: int
    d: int


def pair_sides(sides: dict[str, Side], ins: dict[str, Instruction], geo: Geometry, hw: SharedMemory):
    """Per side, for one instruction pair: (name, side, instruction, matrix tile's vector width or -1, shapes).

    ``shapes`` maps a vector width ``k`` to the plan's ``(instructions, passes, within)`` (:func:`_shape`)
    (None: not addressable).  The plan's shape depends on the side only through its number of
    non-broadcast registers and whether a low lane bit broadcasts (:func:`linlayout.count.plan.access_shape`),
    so the map is shared by every side with the same instruction, element width, hardware and those two
    facts: a fresh layout finds it filled.
    """
    out = []
    eb = geo.eb
    for nm, sd in sides.items():
        i = ins[nm]
        key = (id(i), eb, id(hw), sd.nregs, sd.broadcast)  # identities, checked below: no dataclass hashing
        hit = _SHAPES.get(key)
        if hit is None or hit[0] is not i or hit[1] is not hw:
            if len(_SHAPES) > 1024:
                _SHAPES.clear()
            hit = _SHAPES[key] = (i, hw, {})
        out.append((nm, sd, i, len(matrix_tile(i, eb, hw).vector_registers) if i.is_matrix else -1, hit[2]))
    return out


_SHAPES: dict[tuple, tuple] = {}  # pair_sides' shape maps by (instruction, element bits, hardware, nregs, broadcast)


def _shape(sd: Side, i: Instruction, k: int, geo: Geometry, hw: SharedMemory) -> tuple | None:
    """The plan's (instructions, passes, (within-pass generators, lane getter)) of a side with a ``2^k``-element
    vector, or None (see :func:`_pass_mask`)."""
    shape = side_shape(sd, i, k, geo, hw)
    if shape is None:
        return None
    within = shape.within_pass
    lane_getter = None
    if within and all(dim == "lane" for dim, _ in within):
        idx = [x for _, x in within]
        lane_getter = itemgetter(*idx) if len(idx) > 1 else (lambda lanes, i=idx[0]: (lanes[i],))
    return (shape.instructions, shape.passes, (within, lane_getter))


def _lowest(mask: int, n: int, out: list[int]) -> int:
    """Append the ``n`` lowest unit vectors of ``mask`` (fewer if it has fewer) to ``out``; return their mask."""
    taken = 0
    while n and mask:
        lo = mask & -mask
        out.append(lo)
        taken |= lo
        mask ^= lo
        n -= 1
    return taken


def plans(D: list[int], per_side, geo: Geometry, hw: SharedMemory, fixed_vector: int | None,
          most: int | None = None, ks: tuple[int, int] | None = None) -> list | None:
    """Every distinct word fill of a low block D: ``(plan, write cost, read cost)``, costs analytic (None: unusable).

    Per side, the vector width, the lanes of one pass and the plan's shape
    depend on D only; the word fill takes lanes of both sides first, then
    (for each split) write-only / read-only lanes, then anything.  A side's
    cost is its Grassmann bound once :func:`complete` builds the bank and
    segment columns: ``max(0, lanes left after the fill - bank positions)``
    conflict bits per pass.  ``per_side`` is :func:`pair_sides` (its map
    holds the plan's shape per vector width).  None when both sides are
    addressable and take more than ``most`` instructions together (the search
    floor's count: no word fill of this block can meet the floor).  ``ks``
    gives the two ``ld/st`` sides' vector widths when the caller knows them
    (:func:`low_blocks`' blocks: the extended side's is ``len(D)``, the other's
    ``len(V)``); otherwise each is the prefix of D holding the side's registers.
    """
    (nw, sdw, iw, kw, memow), (nr, sdr, ir, kr, memor) = per_side
    if ks is not None:
        kw, kr = ks
    else:
        kw = _vector_width(D, sdw, kw, geo.cap, fixed_vector)
        kr = _vector_width(D, sdr, kr, geo.cap, fixed_vector)
    sw = memow.get(kw, 0) if kw >= 0 else None
    if sw == 0:
        sw = memow[kw] = _shape(sdw, iw, kw, geo, hw)
    sr = memor.get(kr, 0) if kr >= 0 else None
    if sr == 0:
        sr = memor[kr] = _shape(sdr, ir, kr, geo, hw)
    if most is not None and sw is not None and sr is not None and sw[0] + sr[0] > most:
        return None
    dm = sum(D)  # distinct unit vectors: the sum is the mask
    tw = 0 if sw is None else _pass_mask(sdw, sw[2]) & ~dm
    tr = 0 if sr is None else _pass_mask(sdr, sr[2]) & ~dm
    taus = {nw: tw, nr: tr}
    sw = None if sw is None else (sw[0], sw[1], kw, tw)
    sr = None if sr is None else (sr[0], sr[1], kr, tr)
    d = geo.d
    n_d = len(D)
    we, be = geo.word_end, geo.bank_end
    u = we - n_d if we > n_d else 0
    low = we if we > n_d else n_d
    b = be - low if be > low else 0
    top = be if be > n_d else n_d
    s = d - top if d > top else 0
    D = tuple(D)
    if not u:  # no word fill: the cost is final
        return [(_new(Plan, (D, (), taus, b, s, d)), _bound(sw, 0, b), _bound(sr, 0, b))]
    both, wo, ro = tw & tr, tw & ~tr, tr & ~tw
    q = ((1 << d) - 1) & ~dm  # the directions outside D
    free = q & ~(tw | tr)
    first: list[int] = []
    fb = _lowest(both, u, first)  # lanes of both sides first
    left0 = u - len(first)
    seen = set()
    out = []
    # The splits: j write-only lanes, then read-only lanes, then free directions, then anything (in that order
    # in F).  Splits that give the same F are scored once.
    for j in range(min(left0, wo.bit_count()) + 1):
        Fl = first[:]
        fm = fb
        if left0:
            fm |= _lowest(wo, j, Fl)
            fm |= _lowest(ro, left0 - j, Fl)
            left = u - len(Fl)
            if left:
                fm |= _lowest(free, left, Fl)
                if len(Fl) < u:
                    fm |= _lowest(q & ~fm, u - len(Fl), Fl)
        F = tuple(Fl)
        if F in seen:
            continue
        seen.add(F)
        out.append((_new(Plan, (D, F, taus, b, s, d)), _bound(sw, fm, b), _bound(sr, fm, b)))
    return out


def _vector_width(D: Sequence[int], sd: Side, k: int, cap: int, fixed_vector: int | None) -> int:
    """A side's vector width on low block D: a matrix tile's ``k`` as given; for ld/st the prefix of D holding
    the side's registers (at most ``cap``), or ``fixed_vector`` when the prefix allows it (-1 when it does not)."""
    if k >= 0:
        return k
    p = prefix_len(D, sd.reg_set, cap)
    if fixed_vector is None:
        return p
    return fixed_vector if p >= fixed_vector else -1


def _pass_mask(sd: Side, within) -> int:
    """The mask of a side's pass lanes: the images of the plan's within-pass generators (a matrix instruction's
    row generators may be registers).  ``within`` is :func:`_shape`'s (generators, lane getter); when every
    generator is a lane, the getter picks their images, distinct unit vectors or zero on a distributed side,
    so their sum is the mask."""
    generators, lane_getter = within
    if lane_getter is not None:
        return sum(lane_getter(sd.lanes))
    regs, lanes = sd.regs, sd.lanes
    m = 0
    for dim, x in generators:
        m |= lanes[x] if dim == "lane" else regs[x]
    return m


def _bound(shape, fm: int, b: int) -> Cost | None:
    """A side's cost on the completed plan: its pass lanes left after the word fill ``fm`` (a mask), beyond the
    bank positions."""
    if shape is None:
        return None
    instr, passes, k, tau = shape
    t = (tau & ~fm).bit_count()
    c = t - b if t > b else 0
    per = passes << c
    return _new(Cost, (instr * per, instr, per, passes, c, k))


def complete(plan: Plan) -> tuple[list[int], list[int]]:
    """Segment and bank columns meeting both sides' Grassmann bounds (Lemma 9.5 generalised)."""
    # Every direction here is a unit vector (distributed sides), so a set of them is the mask of its members.
    fm = dm = 0
    for x in plan.F:
        fm |= x
    for x in plan.D:
        dm |= x
    um = plan.taus["write"] & ~fm
    wm = plan.taus["read"] & ~fm
    im, em, rm = um & wm, um & ~wm, wm & ~um
    cm = ((1 << plan.d) - 1) & ~(dm | fm | um | wm)
    s = plan.s
    S: list[int] = []
    # Free directions first, then write/read pairs, then lanes of one side, then lanes of both.
    spanned = fm | _lowest(cm, s, S)  # the unit directions in F + S, as a mask
    paired = 0  # the read lanes f of the pairs e ^ f in S: spanned once e is a bank column
    if len(S) < s:
        E, Fr = _units(em), _units(rm)
        npair = min(len(E), len(Fr), s - len(S))
        for e, f in zip(E, Fr[:npair]):
            S.append(e ^ f)
            paired |= f
        left = s - len(S)
        if left:
            spanned |= _lowest(em & ~_mask(E[:npair]) if len(E) > len(Fr) else rm & ~_mask(Fr[:npair]), left, S)
            left = s - len(S)
            if left:
                spanned |= _lowest(_mask(E[:npair]), left, S)
                spanned |= _lowest(im, s - len(S), S)
    # Bank columns: complete F + S to the free coordinates, lanes first (both sides', write-only, read-only,
    # free), skipping directions F + S already spans: its units, and f of a pair e ^ f (e comes first).
    B: list[int] = []
    skip = spanned | paired
    for m in (im & ~skip, em & ~skip, rm & ~skip, cm & ~skip):
        if m:
            B += _units(m)
    if len(B) != plan.b:  # pragma: no cover - dimension bookkeeping guard
        raise AssertionError(f"bank completion gave {len(B)} columns, expected {plan.b}")
    return B, S


def _units(m: int) -> tuple[int, ...]:
    """:func:`linlayout.core.f2.unit_vectors` of ``m`` as a tuple, remembered (a synthesis asks for a few masks)."""
    hit = _UNITS.get(m)
    if hit is None:
        if len(_UNITS) > 4096:
            _UNITS.clear()
        hit = _UNITS[m] = tuple(f2.unit_vectors(m))
    return hit


_UNITS: dict[int, tuple[int, ...]] = {}


def _mask(units: Sequence[int]) -> int:
    m = 0
    for x in units:
        m |= x
    return m


def analytic_is_exact(cols: Sequence[int], side: Side, ins: Instruction, cost: Cost | None, fixed_vector: int | None,
                      geo: Geometry) -> bool:
    """True when a floor-meeting candidate's analytic ``cost`` for ``side`` is its exact cost on ``cols``.

    ``cols`` is the built memory (:func:`plans`' ``D + F`` and :func:`complete`'s bank and segment columns).
    For ``ld/st.shared`` the analytic cost assumes the vector is the prefix of ``D`` holding the side's
    registers (``cost.vector`` of them); the completion meets the pass lanes' Grassmann bound (paper_notes
    §3, the Claim), so the analytic cost is exact whenever the built memory gives the side exactly that
    vector.  The prefix's offsets are touched by no other basis (every other direction's offset lies at
    positions ``len(D)`` and up), so the vector ends at ``cost.vector`` unless column ``cost.vector`` is
    another register of the side (a fill or bank column that happens to extend it).  This checks that
    column.  A requested width (``fixed_vector``) is taken as it is, and a side at the widest access cannot
    grow.  Matrix instructions are never taken on trust: their analytic tile model can be optimistic.

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
    return fixed_vector is not None or k >= geo.cap or k >= len(cols) or cols[k] not in side.reg_set


# ---------------------------------------------------------------------------
# Matrix tiles
# ---------------------------------------------------------------------------


def tile_columns(side: Side, ins: Instruction, eb: int, hw: SharedMemory) -> list[int] | None:
    """The low offset columns a matrix instruction forces (the plan's tile, paper §5.3), or None if impossible."""
    try:
        tile = matrix_tile(ins, eb, hw)
    except LoweringError:
        return None
    images = {"register": side.regs, "lane": side.lanes}
    cols = []
    for (d, i), _ in tile.required:  # lowest offset first
        if i >= len(images[d]):
            return None
        cols.append(images[d][i])
    if ins.trans and not side.regs:
        return None
    if any(c == 0 for c in cols) or len(set(cols)) != len(cols):
        return None
    return cols


def low_blocks(sides, ins, common, geo, hw, fixed, problems, shorter=False, second=False):
    """Candidate low blocks for an instruction pair (``shorter``: only narrower common vectors): tuples
    ``(D, V, E, ext)`` of the block's columns, its common vector, the extension and the extended side (or None).

    An extension takes a side's registers in one of two orders: the other
    side's lanes first, each in register order; and (``second=True``, only
    the blocks the first order does not give) the other side's lanes by lane
    bit, lowest first.  The low lane bits vary inside every pass, so at the
    offsets after the vector they take bank positions the pass uses, where a
    high lane bit may select the pass and leave a position unused.  The
    synthesizer scores the second order's blocks after the first's and keeps
    them only when strictly cheaper.
    """
    sw, sr = sides["write"], sides["read"]
    wi, ri = ins["write"], ins["read"]
    wm, rm = wi.is_matrix, ri.is_matrix
    out = []
    if wm or rm:
        tiles = {}
        for nm, i, im in (("write", wi, wm), ("read", ri, rm)):
            if im:
                t = tile_columns(sides[nm], i, geo.eb, hw)
                if t is None:
                    problems.append(f"{i.name} cannot access the {nm} layout ({geo.eb}-bit elements)")
                    return []
                tiles[nm] = t
        if len(tiles) == 2 and tiles["write"] != tiles["read"]:
            problems.append(f"{wi.name} and {ri.name} need different low offsets")
            return []
        D = next(iter(tiles.values()))
        if len(D) > geo.d:
            problems.append("the tile is smaller than one matrix row")
            return []
        return [] if second else [(tuple(D), tuple([x for x in D if x in sw.reg_set and x in sr.reg_set]), (), None)]
    if fixed is not None:
        if second:
            return []
        if fixed > len(common):
            problems.append(
                f"vector_bits={geo.eb << fixed} needs {1 << fixed} common register directions, the layouts share {len(common)}"
            )
            return []
        V = common[:fixed]
        V = tuple(V)
        return [(V, V, (), None)]
    full = common[: min(len(common), geo.cap)]
    return _ldst_blocks(sides, full, geo, problems, shorter, second)


def _ldst_blocks(sides, full, geo, problems, shorter, second):
    """:func:`low_blocks` for two ld/st sides, generated lazily (the search often stops at the first few)."""
    # Merged broadcast loads (issue 12 §2): a load whose lane bit 0 or 1 broadcasts is served in merged
    # passes, and a narrower vector can then cost fewer wavefronts; with ``shorter`` the candidates are the
    # shorter common vectors (the dropped registers free to extend either side).
    lo = max(0, (8 // geo.eb).bit_length() - 1) if geo.eb < 8 else 0
    # One side could not address its elements at all without an extension of its own.
    narrow = geo.eb << len(full) < 8
    found = False
    cap = geo.cap
    for V in ([full[:j] for j in range(len(full) - 1, lo - 1, -1)] if shorter else [full]):
        V = tuple(V)
        if not second and not narrow:
            found = True
            yield (V, V, (), None)
        if len(V) >= cap:
            continue
        for nm, other in (("write", "read"), ("read", "write")):
            me, you = sides[nm], sides[other]
            avail = [r for r in me.regs if r and r not in V]
            # Prefer directions that are lanes of the other side (they land in its word or bank bits).
            avail.sort(key=you.lane_set.__contains__, reverse=True)  # stable: lanes first, each in register order
            n = min(len(avail), cap - len(V))
            if not second:
                for j in range(1, n + 1):
                    found = True
                    E = tuple(avail[:j])
                    yield (V + E, V, E, nm)
                continue
            # Second order (see the doc; rand42_any_w8_b64 in paper_notes/convert.md §7).
            rank = {r: i for i, r in enumerate(you.lanes)}
            by_lane = sorted(avail, key=lambda r: rank.get(r, len(rank)))
            for j in range(1, n + 1):
                if by_lane[:j] != avail[:j]:
                    found = True
                    E = tuple(by_lane[:j])
                    yield (V + E, V, E, nm)
    if narrow and not found:
        problems.append(f"{geo.eb}-bit elements need at least {8 // geo.eb} contiguous registers on each side")
