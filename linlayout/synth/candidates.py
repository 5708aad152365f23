"""Candidates: the memories the synthesizer builds for two distributed layouts, and their analytic costs.

A memory layout ``M`` is built column by column, lowest offset bit first;
each column is a tensor direction (an ``int``, one bit per tensor
coordinate bit; for a distributed layout every basis is a unit vector, so a
*set* of directions is also the *mask* of their bits, and the code adds
masks where the paper takes spans).  The columns come in four roles:

1. the **low block** (:func:`low_blocks`): the common vector, optionally an
   extension of one side, or a matrix instruction's tile;
2. the **word fill** (:func:`word_fills`): lanes that fill the rest of a
   32-bit word, one candidate per split between write-only and read-only
   lanes.  A :class:`PartialCandidate` is a candidate at this point: its
   cost is already known in closed form (the Grassmann bound that step 3
   meets), so the search scores thousands of these without building any;
3. the **segment** and **bank** columns (:func:`complete_columns`, Lemma 9.5
   generalised): free directions, then write/read lane pairs ``e ^ f``, then
   unpaired lanes in the segment, and lanes first in the bank positions;
4. a built :class:`Candidate`: all columns by role, with both sides' costs.

The paper's letters (paper_notes/synthesis.md §3), once, with the names used here:

=========  ================================================================
paper      here
=========  ================================================================
``d``      ``offset_bits`` (``Geometry.offset_bits``): log2 of the elements
``V``      ``vector``: common register directions at the lowest offsets
``E``      ``extension`` (after ``V``; one side's registers)
``D``      ``low_block`` = ``V + E`` (or a matrix tile)
``F``      ``word_fill``: lane directions filling the 32-bit word
``B``      ``bank``: columns at the remaining bank positions
``S``      ``segment``: columns at the 128-byte-row positions
``b, s``   ``bank_count``, ``segment_count``: how many of each
``τ_X``    ``pass_lanes[X]``: side ``X``'s directions varying within one
           pass, outside the low block (a mask)
``U, W``   write and read pass lanes left after the fill
``I``      ``U ∩ W`` (lanes of both); ``E, F`` of §3 step 4: write-only and
           read-only lanes (``only_write``, ``only_read`` below)
``C``      ``free``: directions that are a pass lane of neither side
=========  ================================================================

Everything here works on flat tensor directions; the memories of layouts
with mixed bases are built by :mod:`.mixed` instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from operator import itemgetter, xor
from types import MappingProxyType
from typing import NamedTuple

from ..hw import Instruction, SharedMemory
from .sides import Cost, Geometry, Side, side_shape
from .speed import new_record, tile_positions, unit_vectors

__all__ = ["PartialCandidate", "Candidate", "register_prefix_len", "word_fills", "complete_columns",
           "tile_columns", "low_blocks"]


def register_prefix_len(block: Sequence[int], regs: frozenset[int], cap: int) -> int:
    """How many of ``block``'s first columns (at most ``cap``) are registers in ``regs``: a side's vector width."""
    k = 0
    while k < len(block) and k < cap and block[k] in regs:
        k += 1
    return k


class PartialCandidate(NamedTuple):
    """A candidate memory before its bank and segment columns are built (cheap to score).

    ``pass_lanes`` holds, per side, the mask of the directions that vary
    within one pass and lie outside the low block.
    """

    low_block: tuple[int, ...]
    word_fill: tuple[int, ...]
    pass_lanes: dict[str, int]
    bank_count: int
    segment_count: int
    offset_bits: int


class Candidate(NamedTuple):
    """A built candidate memory: its columns (offset bit 0 first), the same columns by role, and both costs."""

    columns: tuple[int, ...]
    vector: tuple[int, ...]
    extension: tuple[int, ...]
    extended: str | None  # the side whose registers form the extension
    word_fill: tuple[int, ...]
    bank: tuple[int, ...]
    segment: tuple[int, ...]
    write_instruction: Instruction
    read_instruction: Instruction
    write_cost: Cost
    read_cost: Cost
    pass_lanes: Mapping[str, int] = MappingProxyType({})  # per side, the mask of its pass lanes outside the low block
    low_block: tuple[int, ...] = ()  # vector and extension, or a matrix instruction's tile
    mixed: bool = False  # built by the mixed-basis construction (synth/mixed.py)
    extension_order: int = 0  # 1: an extension in low_blocks' second order (kept only when strictly cheaper)


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
        lane_getter = itemgetter(*idx) if len(idx) > 1 else itemgetter(slice(idx[0], idx[0] + 1))
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


def word_fills(low_block: Sequence[int], per_side, geo: Geometry, hw: SharedMemory, fixed_vector: int | None,
               most: int | None = None, widths: tuple[int, int] | None = None) -> list | None:
    """Every distinct word fill of a low block: ``(partial candidate, write cost, read cost)``, costs analytic
    (None: that side cannot access the memory).

    Per side, the vector width, the lanes of one pass and the plan's shape
    depend on the low block only; the word fill takes lanes of both sides
    first, then (for each split) write-only / read-only lanes, then anything.
    A side's cost is its Grassmann bound once :func:`complete_columns` builds
    the bank and segment columns: ``max(0, lanes left after the fill - bank
    positions)`` conflict bits per pass.  ``per_side`` is
    :func:`linlayout.synth.speed.pair_sides` (its maps hold the shapes per vector width).  None when both sides
    are addressable and take more than ``most`` instructions together (the
    search floor's count: no word fill of this block can meet the floor).
    ``widths`` gives the two ``ld/st`` sides' vector widths when the caller
    knows them (:func:`low_blocks`' blocks: the extended side's is the whole
    block, the other's the common vector); otherwise each is the prefix of the
    block holding the side's registers.
    """
    (nw, sdw, iw, kw, shapes_w), (nr, sdr, ir, kr, shapes_r) = per_side
    if widths is not None:
        kw, kr = widths
    else:
        kw = _vector_width(low_block, sdw, kw, geo.max_vector, fixed_vector)
        kr = _vector_width(low_block, sdr, kr, geo.max_vector, fixed_vector)
    # The shapes at these widths, from the shared maps (0: not computed yet; -1: no width, no shape).
    sw = shapes_w.get(kw, 0) if kw >= 0 else None
    if sw == 0:
        sw = shapes_w[kw] = _shape(sdw, iw, kw, geo, hw)
    sr = shapes_r.get(kr, 0) if kr >= 0 else None
    if sr == 0:
        sr = shapes_r[kr] = _shape(sdr, ir, kr, geo, hw)
    if most is not None and sw is not None and sr is not None and sw[0] + sr[0] > most:
        return None
    block_mask = sum(low_block)  # distinct unit vectors: the sum is the mask
    tw = 0 if sw is None else _pass_mask(sdw, sw[2]) & ~block_mask
    tr = 0 if sr is None else _pass_mask(sdr, sr[2]) & ~block_mask
    sw = None if sw is None else (sw[0], sw[1], kw, tw)
    sr = None if sr is None else (sr[0], sr[1], kr, tr)
    return _fills(tuple(low_block), block_mask, {nw: tw, nr: tr}, sw, sr, geo)


def _fills(low_block: tuple[int, ...], block_mask: int, pass_lanes: dict[str, int], sw, sr, geo: Geometry) -> list:
    """:func:`word_fills` once the sides' shapes ``(instructions, passes, width, pass-lane mask)`` are known."""
    d = geo.offset_bits
    n_low = len(low_block)
    we, be = geo.word_end, geo.bank_end
    fill_count = we - n_low if we > n_low else 0
    low = we if we > n_low else n_low
    bank_count = be - low if be > low else 0
    top = be if be > n_low else n_low
    segment_count = d - top if d > top else 0
    if not fill_count:  # no word fill: the cost is final
        partial = new_record(PartialCandidate, (low_block, (), pass_lanes, bank_count, segment_count, d))
        return [(partial, _grassmann_cost(sw, 0, bank_count), _grassmann_cost(sr, 0, bank_count))]
    tw, tr = pass_lanes["write"], pass_lanes["read"]
    both, only_write, only_read = tw & tr, tw & ~tr, tr & ~tw
    outside = ((1 << d) - 1) & ~block_mask  # the directions outside the low block
    free = outside & ~(tw | tr)
    first: list[int] = []
    first_mask = _lowest(both, fill_count, first)  # lanes of both sides first
    left0 = fill_count - len(first)
    seen = set()
    out = []
    # The splits: j write-only lanes, then read-only lanes, then free directions, then anything (in that order
    # in the fill).  Splits that give the same fill are scored once.
    for j in range(min(left0, only_write.bit_count()) + 1):
        fill = first[:]
        mask = first_mask
        if left0:
            mask |= _lowest(only_write, j, fill)
            mask |= _lowest(only_read, left0 - j, fill)
            left = fill_count - len(fill)
            if left:
                mask |= _lowest(free, left, fill)
                if len(fill) < fill_count:
                    mask |= _lowest(outside & ~mask, fill_count - len(fill), fill)
        word_fill = tuple(fill)
        if word_fill in seen:
            continue
        seen.add(word_fill)
        partial = new_record(PartialCandidate, (low_block, word_fill, pass_lanes, bank_count, segment_count, d))
        out.append((partial, _grassmann_cost(sw, mask, bank_count), _grassmann_cost(sr, mask, bank_count)))
    return out


def _vector_width(block: Sequence[int], sd: Side, k: int, cap: int, fixed_vector: int | None) -> int:
    """A side's vector width on a low block: a matrix tile's ``k`` as given; for ld/st the prefix of the block
    holding the side's registers (at most ``cap``), or ``fixed_vector`` when the prefix allows it (-1 when it
    does not)."""
    if k >= 0:
        return k
    p = register_prefix_len(block, sd.reg_set, cap)
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


def _grassmann_cost(shape, fill_mask: int, bank_count: int) -> Cost | None:
    """A side's cost on the completed memory: its pass lanes left after the word fill (a mask), beyond the
    bank positions, each doubling the wavefronts of a pass."""
    if shape is None:
        return None
    instr, passes, k, pass_lanes = shape
    t = (pass_lanes & ~fill_mask).bit_count()
    c = t - bank_count if t > bank_count else 0
    per = passes << c
    return new_record(Cost, (instr * per, instr, per, passes, c, k))


def complete_columns(partial: PartialCandidate) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The bank and segment columns meeting both sides' Grassmann bounds (Lemma 9.5 generalised)."""
    # Every direction here is a unit vector (distributed sides), so a set of them is the mask of its members.
    low_block, word_fill, pass_lanes, bank_count, segment_count, d = partial
    fill_mask = sum(word_fill)  # distinct unit vectors: the sum is the mask
    u = pass_lanes["write"] & ~fill_mask
    w = pass_lanes["read"] & ~fill_mask
    free = ((1 << d) - 1) & ~(sum(low_block) | fill_mask | u | w)
    segment, skip = _segment_columns(segment_count, free, u & ~w, w & ~u, u & w)
    # Bank columns: complete fill + segment to the free coordinates, lanes first (both sides', write-only,
    # read-only, free), skipping directions they already span (``skip``; the fill's are none of these).
    keep = ~skip
    bank = (unit_vectors(u & w & keep) + unit_vectors(u & ~w & keep) + unit_vectors(w & ~u & keep)
            + unit_vectors(free & keep))
    if len(bank) != bank_count:  # pragma: no cover - dimension bookkeeping guard
        raise AssertionError(f"bank completion gave {len(bank)} columns, expected {bank_count}")
    return bank, segment


def _segment_columns(s: int, free: int, only_write: int, only_read: int, both: int) -> tuple[tuple[int, ...], int]:
    """The ``s`` segment columns: free directions first, then write/read pairs ``e ^ f``, then lanes of one
    side, then lanes of both.  Also returns the unit directions the bank columns must skip: those the segment
    spans, and the read lanes ``f`` of the pairs (spanned once ``e`` is a bank column)."""
    units = unit_vectors(free)
    if len(units) >= s:  # free directions fill the segment
        segment = units[:s]
        return segment, sum(segment)
    segment = list(units)
    spanned = free
    left = s - len(segment)
    e_units, f_units = unit_vectors(only_write), unit_vectors(only_read)
    npair = min(len(e_units), len(f_units), left)
    es, fs = e_units[:npair], f_units[:npair]
    segment += map(xor, es, fs)
    paired = sum(fs)
    left -= npair
    if left:  # the unpaired rest of the larger side, then the paired e's, then lanes of both
        rest = only_write & ~sum(es) if len(e_units) > len(f_units) else only_read & ~paired
        for mask in (rest, sum(es), both):
            taken = unit_vectors(mask)[:left]
            segment += taken
            spanned |= sum(taken)
            left -= len(taken)
            if not left:
                break
    return tuple(segment), spanned | paired


# ---------------------------------------------------------------------------
# Matrix tiles
# ---------------------------------------------------------------------------


def tile_columns(side: Side, ins: Instruction, eb: int, hw: SharedMemory) -> tuple[int, ...] | None:
    """The low offset columns a matrix instruction forces (the plan's tile, paper §5.3), or None if impossible.

    Kept in the side's memo: the search floor's tile groups and the search's low block both ask for it.  A
    tile depends on the instruction only through ``trans`` (:func:`linlayout.count.plan.matrix_tile`: ``.x1``,
    ``.x2`` and ``.x4`` loads and stores share one row), so the memo is keyed by that, and by the model's
    identity, checked with ``is`` (see :mod:`linlayout.synth.speed`: the key hashes no dataclass)."""
    key = ("tile-columns", ins.trans, eb, id(hw))
    memo = side.memo
    hit = memo.get(key)
    if hit is None or hit[0] is not hw:
        hit = memo[key] = (hw, _tile_columns(side, ins, eb, hw))
    return hit[1]


def _tile_columns(side: Side, ins: Instruction, eb: int, hw: SharedMemory) -> tuple[int, ...] | None:
    positions = tile_positions(ins, eb, hw)
    if positions is None:
        return None
    regs, lanes = side.regs, side.lanes
    cols = []
    for lane, i in positions:  # lowest offset first
        images = lanes if lane else regs
        if i >= len(images):
            return None
        cols.append(images[i])
    if ins.trans and not side.regs:
        return None
    if 0 in cols or len(set(cols)) != len(cols):
        return None
    return tuple(cols)


def low_blocks(sides: dict[str, Side], ins: dict[str, Instruction], common: Sequence[int], geo: Geometry,
               hw: SharedMemory, fixed: int | None, problems: list[str], shorter: bool = False,
               second: bool = False) -> Iterator[tuple] | list[tuple]:
    """Candidate low blocks for an instruction pair (``shorter``: only narrower common vectors): tuples
    ``(low_block, vector, extension, extended side or None)``.

    With a matrix instruction the block is its tile (:func:`tile_columns`);
    with a requested width (``fixed``) the common vector of that width; else
    the widest common vector and its extensions (:func:`_vector_blocks`).
    Why a pair has no block is appended to ``problems``.
    """
    wi, ri = ins["write"], ins["read"]
    if wi.is_matrix or ri.is_matrix:
        blocks = _tile_block(sides, wi, ri, geo, hw, problems)  # checked in both orders: its problems count
        return [] if second else blocks
    if fixed is not None:
        if second:
            return []
        if fixed > len(common):
            problems.append(
                f"vector_bits={geo.element_bits << fixed} needs {1 << fixed} common register directions, the layouts share {len(common)}"
            )
            return []
        vector = tuple(common[:fixed])
        return [(vector, vector, (), None)]
    full = common[: min(len(common), geo.max_vector)]
    return _vector_blocks(sides, full, geo, problems, shorter, second)


def _tile_block(sides: dict[str, Side], wi: Instruction, ri: Instruction, geo: Geometry, hw: SharedMemory,
                problems: list[str]) -> list[tuple]:
    """The one low block of a pair with a matrix instruction: its tile (both tiles must agree)."""
    tiles = {}
    for nm, i in (("write", wi), ("read", ri)):
        if i.is_matrix:
            t = tile_columns(sides[nm], i, geo.element_bits, hw)
            if t is None:
                problems.append(f"{i.name} cannot access the {nm} layout ({geo.element_bits}-bit elements)")
                return []
            tiles[nm] = t
    if len(tiles) == 2 and tiles["write"] != tiles["read"]:
        problems.append(f"{wi.name} and {ri.name} need different low offsets")
        return []
    tile = next(iter(tiles.values()))
    if len(tile) > geo.offset_bits:
        problems.append("the tile is smaller than one matrix row")
        return []
    sw, sr = sides["write"], sides["read"]
    return [(tuple(tile), tuple([x for x in tile if x in sw.reg_set and x in sr.reg_set]), (), None)]


def _vector_blocks(sides: dict[str, Side], full: Sequence[int], geo: Geometry, problems: list[str], shorter: bool,
                   second: bool) -> Iterator[tuple]:
    """:func:`low_blocks` for two ld/st sides, generated lazily (the search often stops at the first few).

    An extension takes a side's registers in one of two orders: the other
    side's lanes first, each in register order; and (``second=True``, only
    the blocks the first order does not give) the other side's lanes by lane
    bit, lowest first.  The low lane bits vary inside every pass, so at the
    offsets after the vector they take bank positions the pass uses, where a
    high lane bit may select the pass and leave a position unused.  The
    synthesizer scores the second order's blocks after the first's and keeps
    them only when strictly cheaper.
    """
    # Merged broadcast loads (issue 12 §2): a load whose lane bit 0 or 1 broadcasts is served in merged
    # passes, and a narrower vector can then cost fewer wavefronts; with ``shorter`` the candidates are the
    # shorter common vectors (the dropped registers free to extend either side).
    eb = geo.element_bits
    lo = max(0, (8 // eb).bit_length() - 1) if eb < 8 else 0
    # One side could not address its elements at all without an extension of its own.
    narrow = eb << len(full) < 8
    found = False
    cap = geo.max_vector
    for vector in ([full[:j] for j in range(len(full) - 1, lo - 1, -1)] if shorter else [full]):
        vector = tuple(vector)
        if not second and not narrow:
            found = True
            yield (vector, vector, (), None)
        if len(vector) >= cap:
            continue
        for nm, other in (("write", "read"), ("read", "write")):
            me, you = sides[nm], sides[other]
            avail = [r for r in me.regs if r and r not in vector]
            # Prefer directions that are lanes of the other side (they land in its word or bank bits).
            avail.sort(key=you.lane_set.__contains__, reverse=True)  # stable: lanes first, each in register order
            n = min(len(avail), cap - len(vector))
            if not second:
                for j in range(1, n + 1):
                    found = True
                    extension = tuple(avail[:j])
                    yield (vector + extension, vector, extension, nm)
                continue
            # Second order (see the doc; rand42_any_w8_b64 in paper_notes/convert.md §7).
            rank = {r: i for i, r in enumerate(you.lanes)}
            by_lane = sorted(avail, key=lambda r: rank.get(r, len(rank)))
            for j in range(1, n + 1):
                if by_lane[:j] != avail[:j]:
                    found = True
                    extension = tuple(by_lane[:j])
                    yield (vector + extension, vector, extension, nm)
    if narrow and not found:
        problems.append(f"{eb}-bit elements need at least {8 // eb} contiguous registers on each side")
