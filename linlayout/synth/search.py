"""The search: score candidates, stop at the floor, build the best, and confirm it exactly.

**Instruction pairs, cheapest floor first.**  With several store or load
instructions (the default set of :mod:`linlayout.synth.policy` has up to
five of each), the search runs once per (write, read) instruction pair
(:func:`search_pairs`), visiting pairs in the order of their floors
(:func:`~.bounds.pair_floors`: the least key any memory could give the
pair, from the sides' counts) and stopping as soon as the best key found is
below the next pair's floor.  A pair with a matrix instruction has its floor
raised by its tile when it is next in line (:func:`~.bounds.tile_floors`,
which also rules out the pairs no memory serves), so a matrix pair that
cannot win is never searched.  The winner is the least ``objective +
(instructions, matrix instructions)`` on exact costs, ties going by the
policy's order among pairs (:func:`~linlayout.synth.policy.pair_preference`),
so the answer does not depend on the visit order.

**One pair** (:func:`search_pair`).  For two distributed layouts the search
runs over every low block (:func:`~.candidates.low_blocks`) and scores every
word fill analytically (:func:`~.candidates.word_fills`): each entry's key is
the objective on its wavefronts, then its instructions, matrix instructions,
extension order and enumeration order, so ties go to the first candidate.
Three passes, each only when it can matter:

1. **Widest common vectors, first extension order.**  The search floor
   (:func:`~.bounds.search_floor`: no memory layout has a smaller key) stops
   this pass at the first candidate that meets it; blocks whose
   instructions alone exceed the floor are set aside (``skipped``) and
   scored only if nothing meets it.
2. **Shorter common vectors** (:func:`more_passes`), when the hardware
   merges broadcast loads and the widest vectors miss the relaxation's
   optimum: a narrower vector can cost fewer wavefronts there.
3. **The second extension order**, which can win only where some candidate
   takes fewer instructions than the best so far.

The best entry is then built (:func:`build_candidate`).  A floor-meeting
entry keeps its analytic costs where they are provably exact
(:func:`~.scoring.analytic_is_exact`), a matrix side's exact cost follows
from its analytic one (:func:`~.scoring.tile_side_cost`); otherwise the
built memory is scored exactly, and if that differs from the analytic score
every candidate is built and chosen on exact costs (:func:`choose_exact`).

Layouts with mixed bases (:func:`search_mixed`) have no closed form: every
candidate of :mod:`.mixed` is scored exactly (pairs visited by floor, as
above) and the best is improved by column moves.

Both searches return a :class:`SearchOutcome`; the caller
(:func:`linlayout.synth.synthesis.optimal_swizzle`) turns it into the result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from heapq import heappop, heappush
from itertools import count
from operator import itemgetter
from typing import NamedTuple

from ..count.plan import matrix_tile
from ..errors import SwizzleError
from ..hw import Instruction
from .bounds import objective_key, pair_floors, relaxation, search_floor, tile_floors
from .candidates import Candidate, complete_columns, low_blocks, register_prefix_len, word_fills
from .mixed import improve_columns, mixed_blocks, mixed_memories
from .policy import pair_preference
from .scoring import analytic_is_exact, exact_cost, exact_pair, memory_inverse, tile_side_cost
from .sides import Cost, Geometry, SwizzleProblem, pair_problem
from .speed import new_record, pair_sides, visit_line_of

__all__ = ["SearchOutcome", "search_distributed", "search_mixed"]


class SearchOutcome(NamedTuple):
    """What a search found: the chosen candidate, the relaxation if the search computed it, a thunk that lists
    the (write, read) wavefronts of every candidate it can build (the result's frontier, on demand), and why
    the chosen instruction pair: ``(pairs considered, rival)``, ``rival`` being ``(how the chosen pair beats
    it, rival write instruction, rival read instruction)`` for the best other pair the search scored (``how``:
    ``"wavefronts"``, ``"instructions"`` or ``"preference"``), or None when no other pair was scored
    (:func:`linlayout.synth.policy.instruction_reason` words it)."""

    best: Candidate
    relaxed: tuple | None
    frontier: Callable[[], list[tuple[int, int]]]
    pairs: tuple[int, tuple | None] = (1, None)


class SearchState(NamedTuple):
    """The accumulators of one search (the tuple is fixed; the lists grow as the search goes)."""

    problems: list[str]  # why instruction pairs or blocks were refused (the error message when none fits)
    block_numbers: Iterator[int]  # numbers the low blocks in enumeration order, across passes
    skipped: list  # blocks the floor's instruction count ruled out, scored only if the search goes on
    shapes: tuple | None = None  # one pair's side_shapes from the pair table (pairs_by_floor), else looked up


# The two records of the hot loop are plain tuples (a NamedTuple costs about 0.3 us more to build, and a
# synthesis builds a few per block; see linlayout.synth.speed), unpacked where they are read:
#
#   a low block   (low_block, vector, extended side, write instruction, read instruction, matrix instructions,
#                  extension order, enumeration number, pair_sides of the pair, ld/st widths or None)
#   a scored fill (key, PartialCandidate, write instruction, read instruction, write cost, read cost, vector,
#                  extended side); the key is objective + (instructions, matrix instructions, extension
#                  order, block number, fill number): smaller is better, ties go to the first.

_by_key = itemgetter(0)


def no_memory_error(problems: list[str]) -> SwizzleError:
    why = "; ".join(dict.fromkeys(problems)) or "no instruction pair fits both layouts"
    return SwizzleError(f"no memory layout lets both sides access the tile: {why}")


# ---------------------------------------------------------------------------
# Distributed layouts
# ---------------------------------------------------------------------------


def search_distributed(p: SwizzleProblem) -> SearchOutcome:
    """The search over the distributed construction's candidates (see the module doc)."""
    if len(p.write_options) > 1 or len(p.read_options) > 1:
        return search_pairs(p)
    state = new_record(SearchState, ([], count(), [], None))
    found = search_pair(p, state, search_floor(p))
    if found is None:
        raise no_memory_error(state.problems)
    return found


def search_pair(p: SwizzleProblem, state: SearchState, floor: tuple | None) -> SearchOutcome | None:
    """The search over the candidates of ``p``'s instruction options (one pair, from :func:`search_pairs`, or
    all of them at once), stopping at the first candidate that meets ``floor``; None when no candidate fits."""
    scored: list[tuple] = []
    complete_search = not score_blocks(p, state, scored, False, floor)
    if complete_search:
        for block in state.skipped:  # no candidate met the floor: the blocks it ruled out join the search
            score_block(p, state, scored, block, None, None)
    relaxed = more_passes(p, state, scored) if complete_search else None
    if not scored:
        return None
    if len(scored) > 1:
        scored.sort(key=_by_key)
    if not complete_search:
        best = build_candidate(p, scored[0], at_floor=True)
        if (best.write_cost, best.read_cost) != scored[0][4:6]:
            # The built memory costs more than its analytic score (a matrix side whose tile has a zero vector
            # register takes twice the instructions, scoring.tile_side_cost): score everything exactly.
            scored, relaxed = score_all(p, state)
            complete_search = True
    if complete_search:
        best = prefer_first_order(p, scored, choose_exact(p, scored))
    return new_record(SearchOutcome, (best, relaxed, partial(frontier_points, p, state, scored if complete_search else None),
                                      (len(p.write_options) * len(p.read_options), None)))


def search_pairs(p: SwizzleProblem) -> SearchOutcome:
    """The best of the per-pair searches (:func:`search_pair`), visiting instruction pairs cheapest floor first
    (:func:`pairs_by_floor`), until the next pair's floor is above the best key found: neither it nor any later
    pair can win.  The winner is the least ``objective + (instructions, matrix instructions) + preference``
    (:func:`~linlayout.synth.policy.pair_preference`) of the visited pairs' best candidates, on exact costs, so
    it does not depend on the order of the visit."""
    best: list = []  # [key, outcome, names], then the best other pair's [key, names] (None until one is scored)
    visited: list[tuple[Instruction, Instruction, SearchOutcome | None]] = []  # (write, read, what it found)
    problems: list[str] = []
    for floor, preference, sub, shapes in pairs_by_floor(p, lambda key: bool(best) and best[0] < key):
        wi, ri = sub.write_options[0], sub.read_options[0]
        found = search_pair(sub, new_record(SearchState, (problems, count(), [], shapes)), floor)
        visited.append((wi, ri, found))
        if found is not None:
            key = outcome_key(p, found.best) + preference
            if not best:
                best[:] = [key, found, (wi.name, ri.name), None]
            elif key < best[0]:
                best[:] = [key, found, (wi.name, ri.name), (best[0], best[2])]
            elif best[3] is None or key < best[3][0]:
                best[3] = (key, (wi.name, ri.name))
    if not best:  # no pair fits: the search over every pair at once says why (each pair's reasons, in order)
        state = new_record(SearchState, ([], count(), [], None))
        found = search_pair(p, state, search_floor(p))
        if found is None:
            raise no_memory_error(state.problems)
        return found
    key, found, _, rival = best
    pairs = (len(p.write_options) * len(p.read_options), None if rival is None else rival_note(p, key, *rival))
    return new_record(SearchOutcome, (found.best, None, partial(pairs_frontier, p, visited), pairs))


def rival_note(p: SwizzleProblem, key: tuple, rival_key: tuple, names: tuple[str, str]) -> tuple[str, str, str]:
    """How the winning key beats the best other pair's (see :class:`SearchOutcome`), with that pair's names."""
    n = len(objective_key(p.objective, 0, 0))
    how = "wavefronts" if key[:n] != rival_key[:n] else "instructions" if key[n] != rival_key[n] else "preference"
    return (how,) + names


def pairs_by_floor(p: SwizzleProblem, beaten: Callable[[tuple], bool]) -> Iterator[tuple[tuple, tuple, SwizzleProblem,
                                                                                          tuple]]:
    """The instruction pairs of ``p`` as ``(floor, preference, one-pair problem, shapes)``, cheapest ``floor +
    preference`` first (:func:`~linlayout.synth.policy.pair_preference`), until ``beaten(floor + preference)``:
    the caller's best key is below it, and below every later one.  ``shapes`` is the pair's entry of the table
    (:func:`~.bounds.pair_floors`), for :class:`SearchState`.

    A pair's floor starts from the sides' counts (:func:`~.bounds.pair_floors`, the same table for every pair).
    A pair with a matrix instruction has its floor raised by its tile before it is searched, when it is next in
    line, with the pairs of its tile group (:func:`~.bounds.tile_floors`, which also rules out the pairs no
    memory serves), and
    goes back in line, so a cheaper pair found meanwhile can make its search unnecessary.  (The relaxation of
    the pair alone would raise it further, but costs about as much as the pair's search.)

    The line is the table read in order (it is sorted), each tile group standing there once, at its cheapest
    pair (:func:`visit_line`), merged with a small heap of the raised entries: a raised floor is never below
    the pair's floor from the counts, so the merge meets every pair in the order of its final key.  Keys differ
    between pairs (the preference names the pair)."""
    line, groups = visit_line_of(pair_floors(p), visit_line)
    raised: list[tuple] = []  # raised entries (5 fields), a heap
    i, n = 0, len(line)
    while i < n or raised:
        if raised and (i == n or raised[0][0] < line[i][0]):
            key, floor, wi, ri, shapes = heappop(raised)
        else:
            key, floor, wi, ri, _, group, shapes = line[i]
            i += 1
            if group is not None:  # a tile group: all its pairs are raised at once (one tile, one prefix)
                if beaten(key):
                    return
                for e in tile_floors(p, groups[group]):
                    heappush(raised, e)
                continue
        if beaten(key):
            return
        yield floor, key[len(floor):], pair_problem(p, wi, ri), shapes


def visit_line(table: tuple[tuple, ...]) -> tuple[list[tuple], dict[tuple, list[tuple]]]:
    """The line :func:`pairs_by_floor` reads off a :func:`~.bounds.pair_floors` table: its entries in order, a
    tile group's only at the first (cheapest) of them, since the whole group is raised then; and the tile groups
    (:func:`tile_groups`)."""
    groups = tile_groups(table)
    line = [e for e in table if e[5] is None or groups[e[5]][0] is e]
    return line, groups


def tile_groups(entries: Iterable[tuple]) -> dict[tuple, list[tuple]]:
    """The :func:`~.bounds.pair_floors` entries of pairs with a matrix instruction by tile group, in the order
    given (cheapest first)."""
    groups: dict[tuple, list[tuple]] = {}
    for e in entries:
        if len(e) == 7 and e[5] is not None:
            groups.setdefault(e[5], []).append(e)
    return groups


def outcome_key(p: SwizzleProblem, c: Candidate) -> tuple:
    """A built candidate's key on its exact costs: the objective, then instructions, then matrix instructions."""
    return objective_key(p.objective, c.write_cost.total, c.read_cost.total) + (
        c.write_cost.instructions + c.read_cost.instructions,
        int(c.write_instruction.is_matrix) + int(c.read_instruction.is_matrix))


def pairs_frontier(p: SwizzleProblem, visited: list[tuple]) -> list[tuple[int, int]]:
    """The frontier points of every instruction pair: those :func:`search_pairs` visited, and the others searched
    now (on demand: only the result's ``frontier`` asks)."""
    points: list[tuple[int, int]] = []
    for wi in p.write_options:
        for ri in p.read_options:
            seen = [found for w, r, found in visited if w is wi and r is ri]  # the options' own objects
            if seen:
                found = seen[0]
            else:
                sub = pair_problem(p, wi, ri)
                found = search_pair(sub, new_record(SearchState, ([], count(), [], None)), search_floor(sub))
            if found is not None:
                points += found.frontier()
    return points


def score_blocks(p: SwizzleProblem, state: SearchState, scored: list, shorter: bool, stop: tuple | None,
                 order: int = 0) -> bool:
    """Append every candidate's analytic score; True when one meets ``stop`` (the rest are left out).

    ``shorter``: the narrower common vectors only; ``order`` 1: the extensions in low_blocks' second order,
    which win only when strictly cheaper."""
    sides, write_options, read_options, common, geo, hw, fixed, _, _, _ = p
    most = None if stop is None else stop[2]  # the floor's instruction total
    problems, numbers, _, shapes = state
    for wi in write_options:
        for ri in read_options:
            ins = {"write": wi, "read": ri}
            nmat = int(wi.is_matrix) + int(ri.is_matrix)
            per_side = None
            # ``fixed_vector`` applies to the ld/st side(s) whatever the other side uses (issue 12).
            # The vector widths follow from the block for the widest common vector: an extension then holds no
            # register of the other side (it would be common, hence in the vector).
            ldst = not nmat and fixed is None and not shorter
            for block, vector, extension, extended in low_blocks(sides, ins, common, geo, hw, fixed, problems, shorter,
                                                                 order == 1):
                if per_side is None:
                    if shapes is None:
                        per_side = pair_sides(sides, ins, geo, hw)
                    else:  # one pair, its shape maps from the pair table
                        (kw, mw), (kr, mr) = shapes
                        per_side = (("write", sides["write"], wi, kw, mw), ("read", sides["read"], ri, kr, mr))
                widths = None
                if ldst:
                    widths = ((len(block), len(vector)) if extended == "write" else (len(vector), len(block))
                              if extended == "read" else (len(vector),) * 2)
                low = (block, vector, extended, wi, ri, nmat, order, next(numbers), per_side, widths)
                if most is not None and widths is not None:
                    # word_fills' floor rule, read before the call where the shared maps already hold both shapes:
                    # a block of more instructions than the floor's is set aside (with 32-bit elements the first
                    # blocks, of narrow vectors, often are).
                    sw, sr = per_side[0][4].get(widths[0]), per_side[1][4].get(widths[1])
                    if sw and sr and sw[0] + sr[0] > most:
                        state.skipped.append(low)
                        continue
                if score_block(p, state, scored, low, most, stop):
                    return True
    return False


def score_block(p: SwizzleProblem, state: SearchState, scored: list, block: tuple, most: int | None,
                stop: tuple | None) -> bool:
    """Score one low block's word fills; True when one meets ``stop``.  A block whose instructions exceed
    ``most`` cannot meet the floor and is kept in ``state.skipped`` instead."""
    low, vector, extended, wi, ri, nmat, order, number, per_side, widths = block
    _, _, _, _, geo, hw, fixed, objective, _, _ = p
    fills = word_fills(low, per_side, geo, hw, fixed, most, widths)
    if fills is None:
        state.skipped.append(block)
        return False
    for j, (fill, cw, cr) in enumerate(fills):
        if cw is None or cr is None:
            continue
        k = objective_key(objective, cw.total, cr.total) + (cw.instructions + cr.instructions, nmat, order, number, j)
        scored.append((k, fill, wi, ri, cw, cr, vector, extended))
        if k[:4] == stop:
            return True
    return False


def more_passes(p: SwizzleProblem, state: SearchState, scored: list) -> tuple | None:
    """The passes after the widest vectors' first order, as needed; returns the relaxation when computed.

    Merged broadcast loads (issue 12 §2): a narrower common vector can cost fewer wavefronts, so the shorter
    vectors are tried when the widest ones do not already meet the relaxation's optimum.  Second-order
    extensions have the instruction counts of the first-order extension of the same side and length (a
    side's count depends on its vector width only), so they can win at the best's wavefronts only when some
    first-order candidate takes fewer instructions than the best; otherwise they are skipped (they could
    still lower the wavefronts; the relaxation that would tell is not computed)."""
    relaxed = None
    shorter = False
    if p.fixed_vector is None and p.hw.merge_broadcast_loads and p.sides["read"].broadcast:
        relaxed = relaxation(p)
        if relaxed[1] is None or not scored or min(e[0] for e in scored)[:2] > objective_key(p.objective, *relaxed[1]):
            shorter = True
            score_blocks(p, state, scored, True, None)
    if scored:
        nobj = len(objective_key(p.objective, 0, 0))
        best0 = min(e[0] for e in scored)
        if shorter or min(e[0][nobj] for e in scored) < best0[nobj]:
            score_blocks(p, state, scored, False, None, 1)
            if shorter:
                score_blocks(p, state, scored, True, None, 1)
    return relaxed


def score_all(p: SwizzleProblem, state: SearchState) -> tuple[list, tuple | None]:
    """Every candidate (the search without the floor's stop), sorted, and the relaxation if computed."""
    every: list = []
    score_blocks(p, state, every, False, None)
    relaxed = more_passes(p, state, every)
    every.sort(key=_by_key)
    return every, relaxed


def build_candidate(p: SwizzleProblem, entry: tuple, at_floor: bool = False) -> Candidate:
    """The entry's memory columns and exact costs.  A matrix instruction's side gets its exact cost from its
    analytic one (:func:`~linlayout.synth.scoring.tile_side_cost`).  ``at_floor``: the entry meets the search
    floor, and where :func:`~linlayout.synth.scoring.analytic_is_exact` holds for an ``ld/st`` side its
    analytic cost is the exact one (paper_notes/synthesis.md §3); any other side is evaluated on the built
    memory."""
    key, fill, wi, ri, ew, er, vector, extended = entry
    bank, segment = complete_columns(fill)
    cols = fill.low_block + fill.word_fill + bank + segment
    sides, _, _, _, geo, hw, fixed, _, _, _ = p
    sw, sr = sides["write"], sides["read"]
    if wi.is_matrix:
        ew = tile_side_cost(sw, ew)
    if ri.is_matrix:
        er = tile_side_cost(sr, er)
    exact_w = wi.is_matrix or (at_floor and analytic_is_exact(cols, sw, wi, ew, fixed, geo))
    exact_r = ri.is_matrix or (at_floor and analytic_is_exact(cols, sr, ri, er, fixed, geo))
    if not (exact_w and exact_r):  # score exactly the sides whose analytic cost is not known to be exact
        inv = memory_inverse(cols)  # shared by both sides
        if not exact_w:
            ew = exact_cost(cols, sw, wi, geo, hw, fixed, inv)
        if not exact_r:
            er = exact_cost(cols, sr, ri, geo, hw, fixed, inv)
    extension = fill.low_block[len(vector):] if extended else ()
    return new_record(Candidate, (cols, vector, extension, extended, fill.word_fill, bank, segment, wi, ri, ew, er,
                                  fill.pass_lanes, fill.low_block, False, key[-3]))


def exact_key(p: SwizzleProblem, c: Candidate, order: int) -> tuple:
    """A built candidate's key on its exact costs (``order``: its place among the candidates compared)."""
    return objective_key(p.objective, c.write_cost.total, c.read_cost.total) + (
        c.write_cost.instructions + c.read_cost.instructions,
        int(c.write_instruction.is_matrix) + int(c.read_instruction.is_matrix), c.extension_order, order)


def choose_exact(p: SwizzleProblem, entries: list[tuple]) -> Candidate:
    """The first entry built; if its exact costs differ from its analytic score (a bank or fill column happened
    to extend a side's vector), every entry is built and the best on exact costs is chosen."""
    best = build_candidate(p, entries[0])
    if (best.write_cost, best.read_cost) == entries[0][4:6]:
        return best
    every = [c for c in (build_candidate(p, e) for e in entries)
             if c.write_cost is not None and c.read_cost is not None]
    if not every:  # pragma: no cover - the analytic score only admits addressable candidates
        raise SwizzleError("no memory layout lets both sides access the tile as asked")
    best_key = None
    for order, c in enumerate(every):
        k = exact_key(p, c, order)
        if best_key is None or k < best_key:
            best, best_key = c, k
    return best


def prefer_first_order(p: SwizzleProblem, scored: list[tuple], best: Candidate) -> Candidate:
    """A second-order extension that won keeps its place only if it is strictly cheaper than the first
    order's choice."""
    if not best.extension_order:
        return best
    first = [e for e in scored if e[0][-3] == 0]
    if first:
        alt = choose_exact(p, first)
        if exact_key(p, alt, 0)[:-2] <= exact_key(p, best, 0)[:-2]:
            return alt
    return best


def frontier_points(p: SwizzleProblem, state: SearchState, scored: list | None) -> list[tuple[int, int]]:
    """The (write, read) wavefronts of every buildable candidate (``scored``: all of them, or None when the
    search stopped at the floor and they are yet to be scored)."""
    entries = scored if scored is not None else score_all(p, state)[0]
    return [(c.write_cost.total, c.read_cost.total) for c in (build_candidate(p, e) for e in entries)
            if c.write_cost is not None and c.read_cost is not None]


# ---------------------------------------------------------------------------
# Mixed bases
# ---------------------------------------------------------------------------


def search_mixed(p: SwizzleProblem) -> SearchOutcome:
    """Synthesis for layouts with mixed, repeated, dependent or zero bases (:mod:`linlayout.synth.mixed`):
    every candidate scored exactly, the best improved by column moves toward the relaxation's optimum."""
    problems: list[str] = []
    found, rest = mixed_candidates(p, problems)
    if not found:
        raise no_memory_error(problems)
    found.sort(key=_by_key)
    _, first = found[0]
    _, target = relaxation(p)
    ins = {"write": first.write_instruction, "read": first.read_instruction}
    target_key = None if target is None else objective_key(p.objective, *target)
    matrix = first.write_instruction.is_matrix or first.read_instruction.is_matrix
    cols = improve_columns(first.columns, partial(_exact_search_key, p, ins), target_key,
                           len(first.low_block) if matrix else 0)
    cw, cr = exact_pair(cols, p.sides, ins, p.geo, p.hw, p.fixed_vector)
    best = _mixed_roles(cols, first, cw, cr, p.geo)
    return new_record(SearchOutcome, (best, None, partial(_mixed_points, p, found, rest, (cw.total, cr.total)),
                                      (len(p.write_options) * len(p.read_options), mixed_rival(p, found))))


def mixed_candidates(p: SwizzleProblem, problems: list[str]) -> tuple[list[tuple[tuple, Candidate]], list]:
    """The mixed-basis candidates, scored exactly, with their search keys (``objective + (instructions, matrix
    instructions) + preference + (number,)``), and the instruction pairs left unscored.

    Pairs are visited cheapest floor first (:func:`pairs_by_floor`, as in :func:`search_pairs`), and the visit
    stops at the first pair whose floor cannot beat the best candidate; if no visited pair has a candidate,
    every pair is scored in order (their reasons make the error message)."""
    if len(p.write_options) == 1 and len(p.read_options) == 1:
        wi, ri = p.write_options[0], p.read_options[0]
        return _pair_candidates(p, wi, ri, problems, pair_preference(wi, ri), 0), []
    found: list[tuple[tuple, Candidate]] = []
    least: list = []  # the least key found
    visited = set()
    for _, preference, sub, _ in pairs_by_floor(p, lambda key: bool(least) and least[0] < key):
        wi, ri = sub.write_options[0], sub.read_options[0]
        visited.add((wi, ri))
        more = _pair_candidates(p, wi, ri, problems, preference, len(found))
        if more:
            found += more
            key = min(more, key=_by_key)[0]
            if not least or key < least[0]:
                least[:] = [key]
    rest = [(wi, ri) for wi in p.write_options for ri in p.read_options if (wi, ri) not in visited]
    if not found:  # every pair, in order, for the reasons none fits
        problems.clear()
        for wi in p.write_options:
            for ri in p.read_options:
                found += _pair_candidates(p, wi, ri, problems, pair_preference(wi, ri), len(found))
        return found, []
    return found, rest


def mixed_rival(p: SwizzleProblem, found: list[tuple[tuple, Candidate]]) -> tuple[str, str, str] | None:
    """:func:`rival_note` for a mixed-basis search (``found`` sorted): the best candidate of another pair."""
    _, first = found[0]
    pair = (first.write_instruction, first.read_instruction)
    for key, c in found[1:]:
        if (c.write_instruction, c.read_instruction) != pair:
            return rival_note(p, found[0][0], key, (c.write_instruction.name, c.read_instruction.name))
    return None


def _pair_candidates(p: SwizzleProblem, wi: Instruction, ri: Instruction, problems: list[str], preference: tuple,
                     start: int) -> list[tuple[tuple, Candidate]]:
    """Every mixed-basis candidate of one instruction pair, scored exactly, with its search key."""
    found: list[tuple[tuple, Candidate]] = []
    ins = {"write": wi, "read": ri}
    nmat = int(wi.is_matrix) + int(ri.is_matrix)
    for block, vector, extension, extended, wide in _mixed_low_blocks(p, ins, problems):
        widths = _vector_widths(p, ins, block)
        for cols in mixed_memories(block, wide, p.sides, widths, ins, p.geo, p.hw):
            costs = exact_pair(cols, p.sides, ins, p.geo, p.hw, p.fixed_vector)
            if costs is None:
                continue
            cw, cr = costs
            key = objective_key(p.objective, cw.total, cr.total) + (cw.instructions + cr.instructions, nmat) + preference + (
                start + len(found),)
            found.append((key, Candidate(cols, tuple(vector), tuple(extension), extended, (), (), (), wi, ri,
                                         cw, cr, {}, tuple(block))))
    return found


def _mixed_points(p: SwizzleProblem, found: list, rest: list, improved: tuple[int, int]) -> list[tuple[int, int]]:
    """The frontier points of a mixed-basis search: every candidate, the pairs left unscored scored now (on
    demand), and the improved memory."""
    points = [(c.write_cost.total, c.read_cost.total) for _, c in found]
    for wi, ri in rest:
        points += [(c.write_cost.total, c.read_cost.total)
                   for _, c in _pair_candidates(p, wi, ri, [], pair_preference(wi, ri), 0)]
    return points + [improved]


def _mixed_low_blocks(p: SwizzleProblem, ins: dict[str, Instruction], problems: list[str]) -> list[tuple]:
    """The low blocks of one instruction pair with the side whose bases come first in the complement."""
    sides = p.sides
    wi, ri = ins["write"], ins["read"]
    if wi.is_matrix or ri.is_matrix:
        tile_side = sides["write"] if wi.is_matrix else sides["read"]
        return [(block, vector, extension, extended, tile_side) for block, vector, extension, extended
                in low_blocks(sides, ins, p.common, p.geo, p.hw, p.fixed_vector, problems)]
    return [(block, vector, extension, extended, sides[extended] if extended else None)
            for block, vector, extension, extended in mixed_blocks(sides, p.common, p.geo, p.fixed_vector, problems)]


def _vector_widths(p: SwizzleProblem, ins: dict[str, Instruction], block) -> dict[str, int]:
    """Each side's vector width on a low block: its matrix tile's, the requested one, or its register prefix."""
    widths = {}
    for nm, sd in p.sides.items():
        if ins[nm].is_matrix:
            widths[nm] = len(matrix_tile(ins[nm], p.geo.element_bits, p.hw).vector_registers)
        elif p.fixed_vector is not None:
            widths[nm] = p.fixed_vector
        else:
            widths[nm] = register_prefix_len(block, sd.reg_set, p.geo.max_vector)
    return widths


def _exact_search_key(p: SwizzleProblem, ins: dict[str, Instruction], cols: tuple[int, ...]) -> tuple | None:
    """The exact key a column move is judged by (None: a side cannot access the memory)."""
    c = exact_pair(cols, p.sides, ins, p.geo, p.hw, p.fixed_vector)
    if c is None:
        return None
    return objective_key(p.objective, c[0].total, c[1].total) + (c[0].instructions + c[1].instructions,)


def _mixed_roles(cols: tuple[int, ...], first: Candidate, cw: Cost, cr: Cost, geo: Geometry) -> Candidate:
    """Roles of a mixed memory's columns by position: common vector, extension, word fill, bank, segment."""
    matrix = first.write_instruction.is_matrix or first.read_instruction.is_matrix
    kv = min(cw.vector, cr.vector) if not matrix else 0
    kx = max(cw.vector, cr.vector) if not matrix else 0
    extended = None if kx == kv else ("write" if cw.vector > cr.vector else "read")
    low = len(first.low_block) if matrix else kx
    word = max(low, geo.word_end)
    bank = max(word, geo.bank_end)
    return Candidate(tuple(cols), tuple(cols[:kv]), tuple(cols[kv:kx]), extended, tuple(cols[low:word]),
                     tuple(cols[word:bank]), tuple(cols[bank:]), first.write_instruction, first.read_instruction,
                     cw, cr, {}, tuple(cols[:low]), True)
