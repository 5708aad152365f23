"""Lower bounds: the relaxation that proves a synthesized swizzle optimal.

For every pair of vector widths ``(k_w, k_r)`` that any memory layout can
produce (their common prefix holds common registers only), each side's cost
is at least ``base x 2^(lanes per pass - bank positions - absorbed word
positions)`` (Grassmann); :func:`pair_bounds` shares the word positions
above both vectors between the sides.  :func:`relaxation` minimises the
objective over these bound pairs: a result that meets it is optimal, since
no memory layout can beat it (``paper_notes/synthesis.md`` has the argument).
"""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from ..core import f2
from ..count.plan import AccessShape, access_shape, matrix_tile
from ..errors import LoweringError
from ..hw import Instruction, SharedMemory
from .candidates import register_prefix_len, tile_columns
from .policy import pair_preference
from .sides import Geometry, Side, SwizzleProblem, missing_tile_registers, register_gaps, shape_lanes
from .speed import counts_table, new_record, options_table, raised_floors_of, relaxation_order_of, side_shapes

__all__ = ["OBJECTIVES", "objective_key", "Terms", "side_terms", "side_bound", "pair_bounds", "vector_range", "relaxation",
           "search_floor", "pair_floors", "tile_floors", "tile_group", "tile_fits", "relaxation_order"]

OBJECTIVES = ("balanced", "read", "write", "sum")
OTHER = {"write": "read", "read": "write"}


def objective_key(objective: str, w: int, r: int) -> tuple[int, int]:
    if objective == "balanced":
        return (max(w, r), w + r)
    if objective == "sum":
        return (w + r, max(w, r))
    if objective == "read":
        return (r, w)
    return (w, r)


class Terms(NamedTuple):
    """One side at a fixed vector width: cost = base * 2^conflicts, conflicts >= t - bank - absorbed (a record
    built for each width the relaxation visits: a tuple builds faster than a frozen dataclass)."""

    base: int  # instructions x passes
    tau: frozenset[int]  # directions varying within one pass
    word: int  # word positions above the vector (can absorb lanes: same word)
    bank: int  # bank positions above the vector
    regs: frozenset[int]  # the side's register directions (what its vector columns can be)
    rank: int  # dim span(tau): len(tau) for a distributed side (unit vectors), its rank otherwise
    general: bool = False  # a side with mixed, repeated or dependent bases (no unit-vector facts)


def side_terms(side: Side, ins: Instruction, k: int, geo: Geometry, hw: SharedMemory) -> Terms | None:
    shape = width_shape(side, ins, k, geo, hw)
    return None if shape is None else terms_of(side, ins, k, geo, hw, shape)


def width_shape(side: Side, ins: Instruction, k: int, geo: Geometry, hw: SharedMemory) -> AccessShape | None:
    """The side's access shape at a ``2^k``-element vector, or None when no memory layout gives it that width."""
    limit = 0 if ins.is_matrix else vector_limit(side, geo.offset_bits, geo.max_vector)
    return shape_at_width(ins, k, geo.element_bits, hw, geo.max_vector, limit, side.nregs, side.broadcast,
                          register_gaps(side))


def matrix_shape(side: Side, ins: Instruction, k: int, geo: Geometry, hw: SharedMemory) -> AccessShape | None:
    """A matrix instruction's shape as the access plan counts it (:func:`shape_at_width`)."""
    return shape_at_width(ins, k, geo.element_bits, hw, geo.max_vector, 0, side.nregs, side.broadcast,
                          register_gaps(side))


def shape_at_width(ins: Instruction, k: int, eb: int, hw: SharedMemory, max_vector: int, limit: int, nregs: int,
                   broadcast: bool, gaps: tuple[int, tuple[int, ...]]) -> AccessShape | None:
    """:func:`width_shape` from what it reads of the side: its widest vector ``limit`` (:func:`vector_limit`,
    ld/st only), its non-broadcast registers, whether a low lane broadcasts, and :func:`register_gaps`.

    A matrix instruction's shape is the access plan's (:func:`linlayout.count.plan.plan_access`): the tile's
    vector registers count as registers even where the side's basis is zero (a ``.trans`` tile's row generators
    may broadcast), so the instructions follow from them and the non-zero registers outside them."""
    try:
        if not ins.is_matrix:
            if k > max_vector or k > limit:
                return None
            return access_shape(ins, eb, hw, k, nregs, broadcast)
        return access_shape(ins, eb, hw, k, nregs + missing_tile_registers(matrix_tile(ins, eb, hw), gaps), broadcast)
    except LoweringError:
        return None


def side_widths(side: Side, opts: tuple[Instruction, ...], geo: Geometry, hw: SharedMemory,
                fixed: int | None) -> tuple[tuple[Instruction, tuple[tuple, ...]], ...]:
    """Per instruction option, ``(instruction, ((base, k, shape, lane shape, row bits), ...))`` for each width
    ``k`` of :func:`vector_range` that has a shape (:func:`width_shape`), ``base`` its conflict-free cost; the
    lane shape and the row bits are what :func:`width_terms` reads (:func:`lane_facts`).  A function of the
    side's counts (:func:`shape_at_width`), so it is a table by those
    (:func:`~linlayout.synth.speed.options_table`), the same for every side with them.  (A matrix option's tile,
    which rules it out where it cannot be formed, is the caller's.)"""
    # (A mixed side's widest vector takes a search: asked only where an ld/st option needs it.)
    limit = vector_limit(side, geo.offset_bits, geo.max_vector) if not all(i.is_matrix for i in opts) else 0
    return options_table(_widths_from_counts, opts, hw, (geo.element_bits, fixed, geo.max_vector, limit, side.nregs,
                                                         side.broadcast, register_gaps(side)))


@lru_cache(maxsize=1024)  # a table by the side's counts (see linlayout.synth.speed)
def _widths_from_counts(opts, hw, eb, fixed, max_vector, limit, nregs, broadcast, gaps):
    out = []
    for ins in opts:
        ks = vector_widths(ins, eb, hw, fixed, None if ins.is_matrix or fixed is not None else limit)
        out.append((ins, tuple((shape.base_wavefronts, k, shape) + lane_facts(ins, k, eb, hw, nregs, broadcast, shape)
                               for k in ks if (shape := shape_at_width(ins, k, eb, hw, max_vector, limit, nregs,
                                                                       broadcast, gaps)) is not None)))
    return tuple(out)


def lane_facts(ins: Instruction, k: int, eb: int, hw: SharedMemory, nregs: int, broadcast: bool,
               shape: AccessShape) -> tuple[AccessShape | None, int | None]:
    """What :func:`width_terms` reads of a width besides its base, from the side's counts: the shape whose
    within-pass generators are the side's pass lanes, and a matrix instruction's row (log2 elements, None for
    ld/st).  An ld/st side's lanes are its shape's.  A matrix side's are those of the shape that counts the
    side's non-zero registers only (:func:`~linlayout.synth.sides.pass_lanes`' shape; None where that shape has
    too few registers for the instruction: no lanes, a weaker bound, kept as it is)."""
    if not ins.is_matrix:
        return shape, None
    try:
        lanes_shape = access_shape(ins, eb, hw, k, nregs, broadcast)
    except LoweringError:
        lanes_shape = None
    return lanes_shape, matrix_tile(ins, eb, hw).row_elements.bit_length() - 1


def terms_of(side: Side, ins: Instruction, k: int, geo: Geometry, hw: SharedMemory, shape: AccessShape) -> Terms:
    """:func:`side_terms` given the side's shape at that width (:func:`width_shape`, not None)."""
    lanes_shape, row_bits = lane_facts(ins, k, geo.element_bits, hw, side.nregs, side.broadcast, shape)
    return width_terms(side, k, geo, shape.base_wavefronts, lanes_shape, row_bits)


def width_terms(side: Side, k: int, geo: Geometry, base: int, lanes_shape: AccessShape | None,
                row_bits: int | None) -> Terms:
    """:func:`side_terms` from a width's :func:`lane_facts` (the relaxation reads them off its table)."""
    tau = frozenset(shape_lanes(side, lanes_shape))
    t = len(tau) if side.distributed else f2.rank(tau)
    if row_bits is not None:  # a matrix instruction: the bank positions above one matrix row
        word, bank = 0, max(0, geo.bank_end - max(min(geo.offset_bits, row_bits), geo.word_end))
    else:
        word, bank = max(0, geo.word_end - k), max(0, geo.bank_end - max(k, geo.word_end))
    return new_record(Terms, (base, tau, word, bank, side.reg_set, t, not side.distributed))


def side_bound(side: Side, ins: Instruction, k: int, geo: Geometry, hw: SharedMemory) -> int | None:
    """A lower bound on one side's cost over every memory layout giving it a 2^k-element vector.

    Any layout: conflicts (log2) >= lanes per pass - bank positions - word positions (Grassmann).
    """
    t = side_terms(side, ins, k, geo, hw)
    if t is None:
        return None
    return t.base << max(0, t.rank - t.word - t.bank)


def pair_bounds(tw: Terms, kw: int, tr: Terms, kr: int, geo: Geometry, joint: bool) -> list[tuple[int, int]]:
    """Lower-bound pairs (write, read) for one pair of vector widths, one per way to share the word.

    With two ld/st vectors, the word positions above both vectors are shared: a
    column there absorbs a lane of both sides only if it is a lane of both, so
    ``absorbed_w + absorbed_r <= m + |tau_w ∩ tau_r|`` over those ``m`` columns.
    The wider side's own vector columns above the narrower vector (in the word
    or among the bank positions) are unit register directions of the wider
    side, and every other column has no component along them (the wider side's
    other directions must be aligned to its vector), so they serve the narrower
    side only where that register is one of its pass lanes: at most
    ``|regs_wide ∩ tau_narrow|`` of them (paper_notes/synthesis.md, Fact 4).
    Without ``joint`` each side may absorb its whole word.
    """
    if not joint:
        return [(tw.base << max(0, tw.rank - tw.word - tw.bank), tr.base << max(0, tr.rank - tr.word - tr.bank))]
    wide_is_w = kw >= kr
    tx, ty = (tw, tr) if wide_is_w else (tr, tw)
    kx, ky = (kw, kr) if wide_is_w else (kr, kw)
    m = max(0, geo.word_end - kx)
    ext = max(0, min(geo.word_end, kx) - ky)  # wide vector columns in the word, above the narrow vector
    nb = max(0, min(kx, geo.bank_end) - max(ky, geo.word_end))  # wide vector columns among the narrow bank positions
    if tx.general or ty.general:
        # Mixed bases: no unit-vector structure (Fact 4 is not claimed); Facts 2 and 3 hold for subspaces.
        usable = ext + nb
        common = len(f2.intersection(tx.tau, ty.tau))
    else:
        usable = min(ext + nb, len(tx.regs & ty.tau))  # of those, the ones that can be narrow-side pass lanes
        common = len(tx.tau & ty.tau)
    out = []
    for ax in range(0, min(m, tx.rank) + 1):
        zy = min(m, m + common - ax)  # narrow-side lanes absorbed by the shared word above both vectors
        cx = max(0, tx.rank - tx.bank - ax)
        cy = max(0, ty.rank - (ty.bank - nb) - usable - zy)
        px, py = tx.base << cx, ty.base << cy
        out.append((px, py) if wide_is_w else (py, px))
    return out


def _vector_facts(side: Side) -> tuple[frozenset[int], int]:
    """(register images that can be vector columns, rank of the bases that never can) of a side.

    A vector column is a register image that is the image of exactly one basis
    of the side; every other basis must lie in the span of the later columns,
    so a ``2^k`` vector needs ``k <= d - rank(those bases)``.
    """
    hit = side.memo.get(("vector-facts",))
    if hit is None:
        allb = [x for x in side.regs + side.lanes + side.others if x]
        count: dict[int, int] = {}
        for x in allb:
            count[x] = count.get(x, 0) + 1
        can = frozenset(r for r in side.regs if r and count[r] == 1)
        never = [x for x in allb if x not in can]
        hit = side.memo[("vector-facts",)] = (can, f2.rank(never))
    return hit


def _widest_clean(cands: list[int], sides: list[Side], cap: int) -> int:
    """The largest ``k <= cap`` such that some ``k`` of ``cands`` are independent of every other basis of ``sides``."""
    import itertools

    allb = [x for sd in sides for x in sd.regs + sd.lanes + sd.others if x]
    for k in range(min(len(cands), cap), 0, -1):
        for S in itertools.combinations(cands, k):
            chosen = set(S)
            rest = [x for x in allb if x not in chosen]
            if f2.rank(rest + list(S)) == f2.rank(rest) + k:
                return k
    return 0


def vector_limit(side: Side, d: int, cap: int = 64) -> int:
    """The widest vector (log2 elements, at most ``cap``) the side can have on any memory layout.

    Distributed sides: every register.  Otherwise exactly: the vector
    registers' images must each be the image of one basis, and independent of
    the span of every other basis (which lies above the vector).
    """
    if side.distributed:
        return min(len(side.reg_set), cap)
    key = ("vector-limit", cap)
    hit = side.memo.get(key)
    if hit is None:
        can, never = _vector_facts(side)
        order = [r for r in dict.fromkeys(side.regs) if r in can]
        hit = side.memo[key] = _widest_clean(order, [side], min(cap, d - never))
    return hit


def common_limit(sw: Side, sr: Side, common, d: int, cap: int = 64) -> int:
    """The longest common prefix of two ld/st vectors (Fact 1), exactly for mixed bases."""
    if sw.distributed and sr.distributed:
        return len(common)
    cw, _ = _vector_facts(sw)
    cr, _ = _vector_facts(sr)
    both = [r for r in dict.fromkeys(sw.regs) if r in cw and r in cr]
    return _widest_clean(both, [sw, sr], cap)


def vector_range(side: Side, ins: Instruction, geo: Geometry, hw: SharedMemory, fixed: int | None) -> list[int]:
    """The vector widths (log2 elements) a side can have with ``ins`` on some memory layout."""
    return vector_widths(ins, geo.element_bits, hw, fixed, None if ins.is_matrix or fixed is not None else
                         vector_limit(side, geo.offset_bits, geo.max_vector))


def vector_widths(ins: Instruction, eb: int, hw: SharedMemory, fixed: int | None, limit: int | None) -> list[int]:
    """:func:`vector_range` given the side's widest vector ``limit`` (:func:`vector_limit`; unused for matrix
    instructions, whose tile fixes the width, and with a ``fixed`` width)."""
    if ins.is_matrix:
        try:
            return [len(matrix_tile(ins, eb, hw).vector_registers)]
        except LoweringError:  # the instruction cannot move these elements: no memory layout helps
            return []
    if fixed is not None:
        return [fixed]
    lo = max(0, (8 // eb).bit_length() - 1) if eb < 8 else 0
    return list(range(lo, limit + 1))


def relaxation(problem: SwizzleProblem) -> tuple[dict[str, int], tuple[int, int] | None]:
    """Per-side lower bounds and the relaxation's optimum (a pair no memory layout can beat).

    Every bound of a side at a width is at least that width's conflict-free cost ``base`` (instructions x
    passes), so widths and width pairs are visited cheapest ``base`` first and the visit stops once the
    conflict-free costs alone cannot beat the best bound found (a pair's bounds need its pass lanes,
    :func:`terms_of`, computed only for the pairs visited).  Ties go to the first pair and bound in the
    enumeration order (instruction options, then widths), as in a full scan.  The visit order is a function
    of the sides' counts (:func:`relaxation_order`); what the sides' bases add is read per problem: each
    matrix instruction's tile (:func:`option_tile`) and the pass lanes of the widths visited.
    """
    sides, w_opts, r_opts, common, geo, hw, fixed, objective, _, _ = problem
    sw, sr = sides["write"], sides["read"]
    ncommon = common_limit(sw, sr, common, geo.offset_bits, geo.max_vector)
    ws, rs, pairs = relaxation_order_of(side_widths(sw, w_opts, geo, hw, fixed),
                                        side_widths(sr, r_opts, geo, hw, fixed), objective, ncommon, relaxation_order)
    terms_w: list[Terms | None] = [None] * len(ws)
    terms_r: list[Terms | None] = [None] * len(rs)
    tiles: dict[tuple[str, bool], tuple[tuple[int, ...], int] | bool] = {}

    def term(side: Side, terms: list, entries: list, n: int) -> Terms:
        t = terms[n]
        if t is None:
            base, _, _, k, _, lanes_shape, row_bits = entries[n]
            t = terms[n] = width_terms(side, k, geo, base, lanes_shape, row_bits)
        return t

    def tile(name: str, ins: Instruction) -> tuple[tuple[int, ...], int] | None | bool:
        if not ins.is_matrix:
            return None
        hit = tiles.get((name, ins.trans))  # read when first asked: a visit that stops early reads few
        if hit is None:
            hit = tiles[(name, ins.trans)] = option_tile(sides[name], sides[OTHER[name]], ins, geo, hw)
        return hit

    lb: dict[str, int] = {}
    for name, side, entries, terms in (("write", sw, ws, terms_w), ("read", sr, rs, terms_r)):
        least = None
        for n, entry in enumerate(entries):  # by (base, order): each order is the side's own
            if least is not None and entry[0] >= least:
                break  # this width's bound and every later one's are at least its base
            if tile(name, entry[2]) is False:
                continue  # the matrix instruction cannot access the side: no memory gives it this width
            t = term(side, terms, entries, n)
            bound = t.base << max(0, t.rank - t.word - t.bank)
            if least is None or bound < least:
                least = bound
        if least is not None:
            lb[name] = least
    both_distributed = sw.distributed and sr.distributed
    best = None  # (key, pair order) of the best bound so far (orders are unique: a later pair never ties it)
    best_pair = None
    for floor_order, i, j, joint in pairs:
        if best is not None and floor_order > best:
            break  # every bound of this pair and of the later ones is worse, or equal and later
        ew, er = ws[i], rs[j]
        if joint:
            tw, tr = term(sw, terms_w, ws, i), term(sr, terms_r, rs, j)
        else:
            tile_w, tile_r = tile("write", ew[2]), tile("read", er[2])
            if tile_w is False or tile_r is False:
                continue
            if tile_w is None:  # an ld/st write under the read's tile: its vector within the tile's cap
                if ew[3] > tile_r[1]:
                    continue
                tw, tr = term(sw, terms_w, ws, i), term(sr, terms_r, rs, j)
                if both_distributed:
                    tw = under_tile(tw, ew[3], tile_r[0], geo)
            elif tile_r is None:
                if er[3] > tile_w[1]:
                    continue
                tw, tr = term(sw, terms_w, ws, i), term(sr, terms_r, rs, j)
                if both_distributed:
                    tr = under_tile(tr, er[3], tile_w[0], geo)
            elif tile_w[0] != tile_r[0]:  # two matrix instructions need the same tile
                continue
            else:
                tw, tr = term(sw, terms_w, ws, i), term(sr, terms_r, rs, j)
        order = floor_order[1]
        for fw, fr in pair_bounds(tw, ew[3], tr, er[3], geo, joint):  # ties: the pair's first bound
            cand = (objective_key(objective, fw, fr), order)
            if best is None or cand < best:
                best, best_pair = cand, (fw, fr)
    return lb, best_pair


def relaxation_order(write_widths: tuple, read_widths: tuple, objective: str, ncommon: int) -> tuple[list, list, list]:
    """What the relaxation visits, from the sides' width tables (:func:`side_widths`) alone.

    Each side's width entries ``(base, option, instruction, k, shape, lane shape, row bits)`` sorted by
    ``(base, option, place)``, and the width pairs ``((floor, order), write place, read place, joint)`` sorted
    by ``(floor, order)``: ``order`` is the enumeration order (write option, read option, write width, read
    width) and ``joint`` marks two ld/st widths; two ld/st vectors wider than the common prefix (``ncommon``,
    Fact 1) are left out.  A function of the tables' counts, remembered per table
    (:func:`~linlayout.synth.speed.relaxation_order_of`)."""
    per_side = []
    for table in (write_widths, read_widths):
        places = [(base, a, c, ins, k, shape, lanes_shape, row_bits) for a, (ins, widths) in enumerate(table)
                  for c, (base, k, shape, lanes_shape, row_bits) in enumerate(widths)]
        places.sort(key=itemgetter(0, 1, 2))
        per_side.append(places)
    ws, rs = per_side
    pairs = []
    for i, (bw, a, c, wi, kw, *_) in enumerate(ws):
        for j, (br, b, d, ri, kr, *_) in enumerate(rs):
            joint = not wi.is_matrix and not ri.is_matrix
            if joint and min(kw, kr) > ncommon:
                continue  # the common prefix of two ld/st vectors holds common registers only
            pairs.append(((objective_key(objective, bw, br), (a, b, c, d)), i, j, joint))
    pairs.sort(key=itemgetter(0))
    return [e[:2] + e[3:] for e in ws], [e[:2] + e[3:] for e in rs], pairs


def option_tile(side: Side, other: Side, ins: Instruction, geo: Geometry,
                hw: SharedMemory) -> tuple[tuple[int, ...], int] | bool:
    """What a matrix instruction forces on every memory that lets it access the side: ``(tile, cap)``; False
    when no memory does.

    ``tile`` is the low offset columns (:func:`matrix_columns`): two matrix instructions need the same tile.
    ``cap`` is the widest vector (log2 elements) the other side can have with ld/st under the tile: the
    tile's prefix of its registers (:func:`~linlayout.synth.candidates.register_prefix_len`) when a column
    that is not one of its registers ends that prefix inside the tile, else the widest access (no cap: no
    ld/st width exceeds it)."""
    tile = matrix_columns(side, ins, geo, hw)
    if tile is False:
        return False
    prefix = register_prefix_len(tile, other.reg_set, geo.max_vector)
    return tile, geo.max_vector if prefix == len(tile) else prefix


def matrix_columns(side: Side, ins: Instruction, geo: Geometry, hw: SharedMemory) -> tuple[int, ...] | None | bool:
    """The low offset columns a matrix instruction forces on every memory it can access the side with (its tile,
    :func:`~linlayout.synth.candidates.tile_columns`), False when no memory lets it access the side (the tile
    cannot be formed, or is longer than the offset), None for ld/st (no columns forced)."""
    if not ins.is_matrix:
        return None
    if side.distributed:  # its bases are distinct unit vectors: every tile that can be formed fits
        tile = tile_columns(side, ins, geo.element_bits, hw)
        return tile if tile is not None and len(tile) <= geo.offset_bits else False
    # Keyed like tile_columns, by ``trans`` (the tile is the same for .x1, .x2 and .x4), and by the model's
    # identity, checked with ``is`` (linlayout.synth.speed): the key hashes neither dataclass.
    key = ("matrix-columns", ins.trans, geo.element_bits, geo.offset_bits, id(hw))
    hit = side.memo.get(key)
    if hit is None or hit[0] is not hw:
        tile = tile_columns(side, ins, geo.element_bits, hw)
        ok = tile is not None and len(tile) <= geo.offset_bits and (side.distributed or tile_fits(side, tile))
        hit = side.memo[key] = (hw, tuple(tile) if ok else False)
    return hit[1]


def tile_fits(side: Side, tile: list[int]) -> bool:
    """Whether some memory lets a matrix instruction access a side with mixed, repeated or dependent bases.

    The memory's lowest offsets are the tile's columns (one matrix row,
    :func:`~linlayout.count.matrix_tile.check_matrix_tile`), and every other basis of the side must land on
    an offset outside the row, i.e. in the span of the memory's other columns.  A memory does that exactly
    when the tile's columns are independent and the other bases' span meets theirs only in zero (the other
    columns are then a complement of the tile's span that holds those bases).  Distributed sides always
    fit: their bases are distinct unit vectors."""
    chosen = set(tile)
    others = [x for x in side.regs + side.lanes + side.others if x]
    for x in tile:  # each tile image once: a repeat of it among the other bases lands inside the row
        others.remove(x)
    if f2.rank(tile) < len(tile):
        return False
    return f2.rank(others + list(chosen)) == f2.rank(others) + len(tile)


def under_tile(t: Terms, k: int, tile: tuple[int, ...], geo: Geometry) -> Terms:
    """An ld/st side's terms at a ``2^k``-element vector when the other side's matrix instruction fixes the
    lowest columns to ``tile`` (both sides distributed).

    The matrix side maps its tile bases to the unit offsets of the tile and
    every other basis to whole rows (:func:`~linlayout.count.matrix_tile.check_matrix_tile`),
    and its bases are distinct tensor bits, so a tensor bit that is not a
    tile column has no component at the tile's offsets.  A tile position
    above the vector whose column is not one of the side's pass lanes
    therefore separates none of them: it is neither a word nor a bank
    position the side can use.
    """
    tau, word_end = t.tau, geo.word_end
    lost_word = lost_bank = 0
    for p in range(k, min(len(tile), geo.bank_end)):
        if tile[p] not in tau:
            if p < word_end:
                lost_word += 1
            else:
                lost_bank += 1
    if not lost_word and not lost_bank:
        return t
    return new_record(Terms, (t.base, tau, max(0, t.word - lost_word), max(0, t.bank - lost_bank), t.regs, t.rank,
                              t.general))


def search_floor(problem: SwizzleProblem) -> tuple | None:
    """The smallest search key ``objective + (instructions, matrix instructions)`` any memory layout could reach.

    A side's cost is ``instructions x passes x 2^conflicts`` at the vector
    width the memory gives it, so it costs at least the conflict-free cost
    ``instructions x passes`` of that width (:func:`vector_range` lists the
    widths), and the widths a memory gives both sides at once are limited:
    two ld/st vectors share their common prefix, which holds common registers
    only (Fact 1, :func:`common_limit`).  Every objective key is monotone in
    both sides' wavefronts, so a memory that gives the sides widths
    ``(k_w, k_r)`` has a key of at least ``objective(conflict-free costs) +
    (instructions, matrix instructions)`` at those widths; the floor is the
    least of these over the width pairs a memory can give.  It needs no lane
    analysis, so the synthesizer computes it first: the first candidate that
    meets it has the smallest key of all and the search stops there.  None
    when no width fits a side.  The floor
    depends on the sides only through a few counts (widest vector,
    non-broadcast registers, broadcast low lanes, common prefix), so it is
    looked up in a table of those (like the access plan's shapes).
    """
    sides, w_opts, r_opts, common, geo, hw, fixed, objective, _, _ = problem
    sw, sr = sides["write"], sides["read"]
    return counts_table(_floor_from_counts, w_opts, r_opts, hw, (
        geo.element_bits, fixed, objective, vector_limit(sw, geo.offset_bits, geo.max_vector), sw.nregs, sw.broadcast,
        vector_limit(sr, geo.offset_bits, geo.max_vector), sr.nregs, sr.broadcast,
        common_limit(sw, sr, common, geo.offset_bits, geo.max_vector), tile_limits(problem)))


def tile_limits(problem: SwizzleProblem) -> tuple[tuple[Instruction, Instruction, int], ...]:
    """The instruction pairs with a matrix instruction that a memory limits, as ``(write, read, cap)``: ``cap``
    -1 when no memory serves the pair (a matrix instruction cannot access its side, or two tiles differ), else
    the widest vector (log2 elements) the ld/st side can have under the matrix side's tile (:func:`option_tile`)."""
    sides, w_opts, r_opts, _, geo, hw, _, _, _, _ = problem
    sw, sr = sides["write"], sides["read"]
    if not any(i.is_matrix for i in w_opts + r_opts):
        return ()
    tiles_w = {wi: matrix_columns(sw, wi, geo, hw) for wi in w_opts}
    tiles_r = {ri: matrix_columns(sr, ri, geo, hw) for ri in r_opts}
    out = []
    for wi, tw in tiles_w.items():
        for ri, tr in tiles_r.items():
            if tw is None and tr is None:
                continue
            if tw is False or tr is False or (tw is not None and tr is not None and tw != tr):
                out.append((wi, ri, -1))
            elif tw is None or tr is None:
                tile, plain = (tw, sr) if tw is not None else (tr, sw)
                prefix = register_prefix_len(tile, plain.reg_set, geo.max_vector)
                if prefix < len(tile):
                    out.append((wi, ri, prefix))
    return tuple(out)


def pair_floors(problem: SwizzleProblem) -> tuple[tuple, ...]:
    """Each instruction pair's own search floor, cheapest first: ``(floor + preference, floor, write
    instruction, read instruction, widths, group, shapes)``, ordered by the floor, then the policy's order among
    pairs (:func:`linlayout.synth.policy.pair_preference`).  ``widths``, for a pair with exactly one matrix
    instruction, lists ``(key, vector width of the ld/st side)`` of each of its width pairs, cheapest first
    (None otherwise): :func:`tile_floors` reads the pair's floor off it once the tile is known; ``group`` is
    :func:`tile_group`; ``shapes`` is the write and read sides' :func:`~linlayout.synth.speed.side_shapes` (what
    the pair's search reads of each side's access shapes: a function of the counts, kept with the table).

    The floor is :func:`search_floor` for the pair alone, from the sides' counts only (a table by those
    counts, the same for every problem with them).  The tiles a matrix instruction forces are not consulted,
    so a pair with a matrix instruction may rise or drop out once its tile is known.  A pair that no width
    fits (a matrix instruction that cannot move these elements, say) is left out."""
    sides, w_opts, r_opts, common, geo, hw, fixed, objective, _, _ = problem
    sw, sr = sides["write"], sides["read"]
    return counts_table(_pair_floors_from_counts, w_opts, r_opts, hw, (
        geo.element_bits, fixed, objective, vector_limit(sw, geo.offset_bits, geo.max_vector), sw.nregs, sw.broadcast,
        vector_limit(sr, geo.offset_bits, geo.max_vector), sr.nregs, sr.broadcast,
        common_limit(sw, sr, common, geo.offset_bits, geo.max_vector)))


def tile_floors(problem: SwizzleProblem, entries: list[tuple]) -> list[tuple]:
    """The floors of pairs with a matrix instruction once the matrix side's tile is known (:func:`search_floor`
    of each pair alone), as ``(floor + preference, floor, write instruction, read instruction, shapes)``
    (``shapes`` as in :func:`pair_floors`).

    ``entries`` are :func:`pair_floors` entries of one tile group (the same ``group``): their matrix sides
    have the same tiles (a tile is one matrix's row, the same for ``.x1``, ``.x2`` and ``.x4``), so the tiles
    are formed once for the group.  A pair no memory serves (the tile cannot be formed, two tiles differ, or
    the ld/st side has no width under the tile) is left out."""
    write, read = entries[0][2:4]
    sides, _, _, _, geo, hw, _, _, _, _ = problem
    tw = matrix_columns(sides["write"], write, geo, hw) if write.is_matrix else None  # None: an ld/st side
    tr = matrix_columns(sides["read"], read, geo, hw) if read.is_matrix else None
    if tw is False or tr is False or (tw is not None and tr is not None and tw != tr):
        return []
    prefix = None  # the ld/st side's widest vector under the tile, when the tile caps it (option_tile)
    if tw is None or tr is None:
        tile, plain = (tw, sides["read"]) if tw is not None else (tr, sides["write"])
        prefix = register_prefix_len(tile, plain.reg_set, geo.max_vector)
        if prefix == len(tile):  # the tile is all registers of the ld/st side: it caps nothing
            prefix = None
    return raised_floors_of(entries, prefix, raised_floors)


def raised_floors(entries: list[tuple], prefix: int | None) -> list[tuple]:
    """:func:`tile_floors` of a tile group that a memory serves, given the ld/st side's widest vector under the
    tile (``prefix``; None when the tile caps nothing): each pair's floor is that of its cheapest width pair
    within the cap (None: no width fits, the pair is left out).  A function of the table's entries and the
    cap only, so it is remembered per group (:func:`linlayout.synth.speed.raised_floors_of`)."""
    out = []
    for key, floor, wi, ri, widths, _, shapes in entries:
        if prefix is not None:
            floor = next((k for k, width in widths if width <= prefix), None)
            if floor is None:
                continue
        out.append((floor + key[len(floor):], floor, wi, ri, shapes))
    return out


@lru_cache(maxsize=1024)  # a table by the sides' counts (see linlayout.synth.speed)
def _floor_from_counts(w_opts, r_opts, hw, eb, fixed, objective, wlim, wregs, wbc, rlim, rregs, rbc, ncommon, limits):
    ws = options_table(_floor_widths_from_counts, w_opts, hw, (eb, fixed, wlim, wregs, wbc))
    rs = options_table(_floor_widths_from_counts, r_opts, hw, (eb, fixed, rlim, rregs, rbc))
    return min((floor for _, _, floor, _ in _floors_by_pair(ws, rs, objective, ncommon, limits)), default=None)


@lru_cache(maxsize=1024)  # a table by the sides' counts (see linlayout.synth.speed)
def _pair_floors_from_counts(w_opts, r_opts, hw, eb, fixed, objective, wlim, wregs, wbc, rlim, rregs, rbc,
                             ncommon) -> tuple[tuple, ...]:
    ws = options_table(_floor_widths_from_counts, w_opts, hw, (eb, fixed, wlim, wregs, wbc))
    rs = options_table(_floor_widths_from_counts, r_opts, hw, (eb, fixed, rlim, rregs, rbc))
    facts = _pair_facts(w_opts, r_opts)
    w_shapes = [side_shapes(wi, eb, hw, wregs, wbc) for _, wi, _, _ in ws]  # once per side, not per pair
    r_shapes = [side_shapes(ri, eb, hw, rregs, rbc) for _, ri, _, _ in rs]
    entries = []
    for w, r, floor, widths in _floors_by_pair(ws, rs, objective, ncommon, ()):
        (wo, wi, _, _), (ro, ri, _, _) = ws[w], rs[r]
        preference, group = facts[wo][ro]
        entries.append((floor + preference, floor, wi, ri, None if widths is None else tuple(sorted(widths)), group,
                        (w_shapes[w], r_shapes[r])))
    return tuple(sorted(entries, key=itemgetter(0)))


@lru_cache(maxsize=64)  # by the instruction options (the default ones are a few cached tuples)
def _pair_facts(w_opts: tuple, r_opts: tuple) -> tuple[tuple[tuple[tuple, tuple | None], ...], ...]:
    """Per write option, per read option: the pair's :func:`~linlayout.synth.policy.pair_preference` and
    :func:`tile_group`, functions of the two instructions only (read per pair of every table otherwise)."""
    return tuple(tuple((pair_preference(wi, ri), tile_group(wi, ri)) for ri in r_opts) for wi in w_opts)


def tile_group(write: Instruction, read: Instruction) -> tuple | None:
    """Pairs whose matrix sides have the same tiles (None: an ld/st pair, no tile): which sides are matrix
    instructions, and transposed."""
    if not (write.is_matrix or read.is_matrix):
        return None
    return (write.is_matrix, write.trans, read.is_matrix, read.trans)


@lru_cache(maxsize=1024)  # a table by one side's counts (see linlayout.synth.speed)
def _floor_widths_from_counts(opts, hw, eb, fixed, lim, nregs, broadcast) -> tuple[tuple, ...]:
    """One side's part of the floor tables: per instruction option with some width, ``(option's index,
    instruction, is matrix, ((k, base, instructions), ...))`` for each width ``k`` (ascending) that has a shape,
    ``base`` its conflict-free cost.  A function of the side's counts, so every signature with a side of those
    counts shares it (found by :func:`~linlayout.synth.speed.options_table`): the cold planner's tables had
    about half as many distinct sides as sides."""
    out = []
    for o, ins in enumerate(opts):
        widths = []
        for k in vector_widths(ins, eb, hw, fixed, lim):
            if not ins.is_matrix and k > nregs:  # a vector needs that many registers (vector_bits may ask more)
                continue
            try:
                shape = access_shape(ins, eb, hw, k, nregs, broadcast)
            except LoweringError:
                continue
            if shape is not None:
                widths.append((k, shape.base_wavefronts, shape.instructions))
        if widths:
            out.append((o, ins, ins.is_matrix, tuple(widths)))
    return tuple(out)


# objective_key(objective, w, r) + (instructions, matrix instructions) in one call per width pair (building the two
# tuples and joining them was a fifth of a table); tests/synth/test_floor_tables.py checks them against objective_key.
_FLOOR_KEYS = {
    "balanced": lambda w, r, i, m: (w if w > r else r, w + r, i, m),
    "sum": lambda w, r, i, m: (w + r, w if w > r else r, i, m),
    "read": lambda w, r, i, m: (r, w, i, m),
}


def _floors_by_pair(write_widths: tuple, read_widths: tuple, objective: str, ncommon: int,
                    limits: tuple) -> list[tuple[int, int, tuple, list | None]]:
    """Per instruction pair that some width pair fits (see :func:`search_floor`), in the order of the options:
    ``(index in the write side's width table, index in the read side's, floor key, widths)``, from the sides'
    width tables (:func:`_floor_widths_from_counts`); ``widths``, for a pair with one matrix instruction, lists
    every width pair's key with the ld/st side's width (None otherwise).  Each pair's width pairs are taken at
    once (one list, its least key), not one dict lookup per width pair."""
    key_of = _FLOOR_KEYS.get(objective, lambda w, r, i, m: (w, r, i, m))
    caps = {(wi, ri): cap for wi, ri, cap in limits}
    out = []
    for w, (_, wi, mw, wks) in enumerate(write_widths):
        for r, (_, ri, mr, rks) in enumerate(read_widths):
            cap = caps.get((wi, ri)) if caps else None
            if cap is not None and cap < 0:
                continue
            nm = int(mw) + int(mr)
            # (a key, the width a cap limits: the read side's where the write side is a matrix instruction)
            keys = [(key_of(bw, br, iw + ir, nm), kr if mw else kw) for kw, bw, iw in wks for kr, br, ir in rks
                    if (nm or kw <= ncommon or kr <= ncommon) and (cap is None or (kr if mw else kw) <= cap)]
            if keys:
                out.append((w, r, min(keys)[0], keys if mw != mr else None))
    return out
