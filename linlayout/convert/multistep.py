"""Multi-step conversions: the cheapest path through one intermediate layout, pruned by floors.

A conversion ``src → dst`` can also go through an intermediate layout ``mid``
(``src → mid → dst``), each step a planned one-step conversion.  The
intermediate layouts are those one elementary step away from ``src`` or
``dst`` (:func:`neighbours`): one register basis exchanged with one lane basis
(a single mixed register/lane swap), or two lane bases exchanged (a lane
permutation).  A path's cost is the sum of its steps' costs
(:func:`~linlayout.convert.cost.cost_of`); the one-step plan is kept unless a
path through an intermediate layout is strictly cheaper.  Among paths of
equal cost the one whose first step is cheaper wins, then the earlier
intermediate layout.

Why it can win: one shuffle program that does several mixed swaps at once may
need more selects than doing them one at a time (measured on random pairs:
``paper_notes/convert.md`` §8).

**Reach.**  The search considers the first :data:`MAX_INTERMEDIATES`
intermediate layouts: those next to ``src`` first, then those next to
``dst``, each side in :func:`neighbours` order.  The planner searches only
warp-local conversions (a register/lane swap keeps the warps, so both steps
stay inside the warp and are planned with the registers and shuffle paths
only, no shared-memory synthesis); a conversion across warps keeps its
one-step plan.

**Floors, so that most steps are never planned.**  Planning a step (its shuffle
programs) is the whole cost of the search, so each step first gets a floor
from ranks of its layouts' flat columns (:mod:`linlayout.convert.step_floors`,
:func:`step_floor`; an intermediate
layout is a column swap, :class:`Endpoint`, built as a layout only when a step
to or from it is planned): the exact cost of a register step; for a step that
moves data between lanes, what every shuffle program of the planner must pay
(:func:`demand`, :func:`shuffle_floor`): a round and an unpack per word a
thread receives, the packing of the words a lane must send, and per word as many selects
as the rank of the destination's lane and warp elements outside the source
lanes' span (a sender's and a receiver's choices together).  A path whose
two floors add up to the direct cost cannot win and is never planned
(:func:`open_paths`).  The others are settled best floor first
(:func:`search`): the path with the lowest floor gets one step planned (the
one with the larger floor, :func:`settle_step`), told the ceiling at which
the path can no longer beat the direct plan (a step planner may stop looking
there; the planner's does not, see ``_two_step_plan`` in
:mod:`linlayout.convert.plan`), until the lowest floor is a known path, which
wins, or no floor is below the direct cost.  The answer is then
that of planning every step (:func:`in_order_path`, the reference).

**Floors before listing.**  When ``src`` or ``dst`` has distinct single-bit
columns (:func:`distinct_bits`: no broadcast, no repeat) and the other
single-bit columns, a step across one swap of the distinct side has an exact
cost fixed by the swap's kind, the side's register and lane counts and the
element width (:func:`~linlayout.convert.step_floors.swap_bound`, proved in
:mod:`linlayout.convert.step_floors`; a floor from its demand,
:func:`swap_demand`, beyond the range of the proof), and the other step has a
floor from the two ends' masks and the classes of the bits a swap can
exchange (:func:`far_floor`: a shuffle step's demand, or a register step's
selects from the rank of what the threads' positions move); so each kind
of intermediate layout (next to ``src`` or ``dst``, mixed swap or
transposition) has a floor on every path through it (:func:`kind_floors`).  A
kind whose floor reaches the direct cost is dropped unlisted, and a search
with every kind dropped (:func:`search_floor`) builds no intermediate layout:
the same answer, since these floors lie below every path's floors.  The
others are listed from columns (:func:`one_hot_paths`: each swap's masks and
moves by what it changes, an :class:`Endpoint` only for an open path; a step
across one swap of a side distinct but for zero registers, and a path's other
step when it is across one swap too, get their exact costs).
A side of distinct bits but for zero lanes or zero registers (a blocked layout narrower than its warp, a sliced
one) gets such floors for its swaps of two non-zero columns (:func:`nonzero_swap_floors`), which the listing
then skips when they reach the direct cost.
On the 189 warp-local searches of ``--compare`` this settles 125 of the 157
that plan no step (26 of the speed corpus's 29; 121 before the other step's
floor counted every element remote where no thread can meet its own,
:func:`other_step_floor`; 77 of 130 and 15 of 23 with
the demand's floor for a step across one swap, 34 and 5 when only layouts
whose two ends both had distinct bits had kind floors, and a register step's 0).

**Work bound.**  At most :data:`MAX_STEP_PLANS` steps are planned per search
(a count, not a clock: the same query always gets the same plan).  A search
stopped there keeps the cheapest known path (only a path cheaper than the
direct plan is ever returned, so the bound never makes a plan costlier than
the one-step plan) and reports how many paths it left unsettled
(:class:`SearchResult`; ``ConversionPlan.multistep_unsettled``, said by its
``explain()`` and JSON).

The graph is two layers deep, so its shortest path is this minimum over the
intermediate layouts; no graph library is needed.  A floor's soundness is
what keeps the answer exact; ``tests/convert/test_multistep.py`` checks floors
against planned steps and the search against :func:`in_order_path`, and
``tools/convert_multistep.py --compare`` does on the 189 warp-local
conversions of the 520 Triton pairs and the speed corpus: the same answer on
all 189, 157 settled by floors alone, 64 step plans where the reference
plans 6,033; 25 stop at the bound (with the reference's answer, no two-step
plan, on all 25).  Compiler layouts' columns are single element bits, so
their floors are bit-mask arithmetic (:func:`mask_demand`,
:func:`register_step_cost`, :func:`far_floor`).

**Why the bound is two plans.**  The floors lie well below the costs of many
steps: a single register/lane swap costs about twice its demand's floor (its
exact cost is known only for a side of distinct bits), because the
planner packs narrow elements into words (no program may take more
``shfl.sync`` than the widest pack's fewest,
:func:`~linlayout.convert.warp.packed_shuffle_bound`) and selects on both
sides, which the floors, from ranks alone, cannot know; so a conversion whose
floors leave 5 to 24 paths open needs about a plan per path to be refuted (1
to 5 ms each, 18 ms for the largest 8-bit steps).  On the speed corpus none
of those searches finds a cheaper plan, and the wins of the 520 Triton pairs
(3) each take at most two plans, so the search is on by default with a bound
of two: ``tools/convert_multistep.py --speed`` measures the planner with it
against without it (``docs/convert.md``, Two steps, has the numbers and a
sharper floor that was tried).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ..core.layout import LinearLayout
from ..errors import InputError
from .step_floors import (Endpoint, Floor, Masks, SwapMasks, broadcast_lanes, broadcast_registers,
                          broadcast_swap_bound, demand, distinct_bits, far_floor, mask_demand, mask_register_floor,
                          mask_step_floor, may_meet_own, moves, register_step_cost, shuffle_floor, step_bound,
                          step_floor, swap_between, swap_bound, swap_demand, swap_floor)

__all__ = ["neighbours", "cheapest_path", "in_order_path", "SearchResult", "MAX_STEP_PLANS", "MAX_INTERMEDIATES",
           "kind_floors", "search_floor", "swap_columns", "intermediates", "swap_endpoint", "one_hot_paths",
           "nonzero_swap_floors", "kind_floor", "other_step_floor"]

MAX_INTERMEDIATES = 24
"""The search considers the first this many intermediate layouts (:func:`intermediates`' order)."""

MAX_STEP_PLANS = 2
"""At most this many one-step plans settle one multi-step search (a deterministic work bound; module doc)."""


def swaps(regs: int, lanes: int) -> list[tuple[int, int]]:
    """The elementary steps in the search's order, as pairs of flat index positions (registers first, then lanes).

    Every register basis with every lane basis (a mixed swap), then every two
    lane bases (a lane transposition).

    >>> swaps(1, 2)
    [(0, 1), (0, 2), (1, 2)]
    """
    mixed = [(i, regs + j) for i in range(regs) for j in range(lanes)]
    return mixed + [(regs + i, regs + j) for i in range(lanes) for j in range(i + 1, lanes)]


def swapped(layout: LinearLayout, positions: tuple[int, int]) -> LinearLayout:
    """``layout`` with the register or lane bases at two flat index positions (:func:`swaps`) exchanged.

    Built from the layout's flat columns (:meth:`~linlayout.core.layout.LinearLayout.from_flat`, unchecked: two of
    a valid layout's columns exchanged between its register and lane dimensions is a valid layout of the same
    dimensions), not through its bases, which the search would otherwise expand and parse again for every
    intermediate layout it plans a step to.
    """
    names = [name for name, _ in layout.in_dim_bits]
    cols = [list(c) for c in layout.dim_columns]
    regs = len(cols[names.index("register")]) if "register" in names else 0

    def place(k: int) -> tuple[int, int]:  # (input dimension, basis) of flat index position k
        return (names.index("register"), k) if k < regs else (names.index("lane"), k - regs)

    (a, i), (b, j) = place(positions[0]), place(positions[1])
    cols[a][i], cols[b][j] = cols[b][j], cols[a][i]
    return LinearLayout.from_flat(layout.in_dim_bits, layout.out_dim_bits, [tuple(c) for c in cols], check=False)


def neighbours(layout: LinearLayout) -> list[LinearLayout]:
    """The layouts one mixed register/lane swap or one lane transposition away from ``layout``.

    >>> L = LinearLayout({"register": [[1]], "lane": [[2], [4]]}, {"dim0": 8})
    >>> [n.bases["register"] + n.bases["lane"] for n in neighbours(L)]
    [[(2,), (1,), (4,)], [(4,), (2,), (1,)], [(1,), (4,), (2,)]]
    """
    b = layout.bases
    return [swapped(layout, s) for s in swaps(len(b.get("register", [])), len(b.get("lane", [])))]


def search_floor(src: Endpoint, dst: Endpoint, element_bits: int, limit: int = MAX_INTERMEDIATES) -> int | None:
    """A floor on every path's floor in :func:`open_paths` (the sum of its steps' :func:`step_floor`), from counts
    and masks only: the least of :func:`kind_floors` (None where they are).
    """
    floors = kind_floors(src, dst, element_bits, limit)
    return None if floors is None else min(floors.values(), default=None)


def kind_floors(src: Endpoint, dst: Endpoint, element_bits: int, limit: int = MAX_INTERMEDIATES,
                ceiling: int | None = None) -> dict[tuple[bool, bool], int] | None:
    """Per kind of intermediate layout, ``(next to src, mixed swap)``, a floor on the floor of every path through
    one of that kind, from counts and masks only; only the kinds the first ``limit`` can include; None when ``src``
    or ``dst`` has a column of several bits, or neither is of distinct bits (:func:`distinct_bits`).  The kinds
    of a side not of distinct bits get the floor 0 (a swap of repeated or broadcast columns has no floor from
    counts).

    Every intermediate layout is one swap from ``src`` or from ``dst`` (:func:`intermediates`), and a swap of a
    layout of distinct bits keeps its bits distinct, so the path's step on that side is a step across one swap:
    its cost is :func:`~linlayout.convert.step_floors.swap_bound` of that side's index bits and the swap's kind
    (exact where established, else the demand's floor; exactly :func:`step_floor`'s value there).  The path's
    other step's floor is at least :func:`far_floor`.  Their sum is at most the floor
    of every path through a layout of that kind; when it reaches the direct cost, :func:`open_paths` drops those
    paths unlisted, and when every kind's does (:func:`search_floor`), the search's answer, no two-step plan, is
    known without listing an intermediate layout.

    Which kinds the first ``limit`` can include (:func:`swaps`' order, mixed swaps before transpositions, ``src``'s
    side before ``dst``'s): a swap of distinct columns never gives back its own layout and gives each layout once,
    so at most one of ``src``'s swaps (the one giving ``dst``) is skipped and the first ``limit`` intermediate
    layouts are among ``src``'s first ``limit + 1`` swaps, then ``dst``'s.  ``src``'s transpositions are counted
    when its mixed swaps number at most ``limit``, ``dst``'s side when ``src``'s swaps do or ``src`` is not of
    distinct bits (its swaps may repeat; over-counting a kind only lowers the floor).

    ``ceiling``: the cheapest floor first -- a kind whose step across the swap alone costs at least this much gets
    that cost as its floor, without the other step's (:func:`cheapest_path` passes the direct cost: the kind is
    closed either way).
    """
    distinct = {True: distinct_bits(src), False: distinct_bits(dst)}
    if src.one_hot() is None or dst.one_hot() is None or distinct[True] is distinct[False] is None:
        return None
    floors = {}
    for side, near_src in ((src, True), (dst, False)):
        regs, lanes = side.bits.reg, side.bits.lane
        mixed, transpositions = regs * lanes, lanes * (lanes - 1) // 2
        kinds = ([True] if mixed else []) + ([False] if transpositions and mixed <= limit else [])
        for kind in kinds:
            if distinct[near_src] is None:
                floors[near_src, kind] = 0
                continue
            near = swap_bound(side.bits, kind, element_bits).value
            floors[near_src, kind] = kind_floor(near, src, dst, near_src, kind, element_bits, ceiling)
        if mixed + transpositions > limit and distinct[True] is not None:
            break  # the first ``limit`` intermediate layouts are all next to ``src``
    return floors


def other_step_floor(src: Endpoint, dst: Endpoint, near_src: bool, mixed: bool, element_bits: int,
                     ceiling: int | None = None) -> int:
    """:func:`far_floor` of a kind of swap, every element counted remote when no mixed swap of the kind can leave
    the other step's threads meeting their own (:func:`may_meet_own`), which is asked only when the floor with them
    meeting their own stays below ``ceiling`` (None: always)."""
    floor = far_floor(src, dst, near_src, mixed, element_bits)
    if mixed and (ceiling is None or floor < ceiling) and not may_meet_own(src, dst, near_src):
        floor = far_floor(src, dst, near_src, mixed, element_bits, own=False)
    return floor


def nonzero_swap_floors(src: Endpoint, dst: Endpoint, element_bits: int, limit: int = MAX_INTERMEDIATES,
                        ceiling: int | None = None) -> dict[tuple[bool, bool], int]:
    """:func:`kind_floors` for the swaps of two non-zero columns of a side of distinct bits but for zero columns:
    per kind ``(next to src, mixed swap)`` of such a side that the first ``limit`` intermediate layouts can include, a
    floor on the floors of every path through a swap of two of its non-zero columns; ``{}`` when ``src`` or ``dst``
    has a column of several bits.

    A blocked layout narrower than its warp repeats its lanes (zero lane columns, :func:`broadcast_lanes`), a
    sliced or dot-operand one may repeat a register (zero register columns, :func:`broadcast_registers`); their
    other columns are distinct bits, so a swap of two non-zero columns is a step whose cost or floor follows from
    counts, as for a side of distinct bits: with zero lanes, the floor of its demand
    (:func:`~linlayout.convert.step_floors.swap_floor` with the zero lanes, which repeat what a lane sends), with
    zero registers its exact cost (:func:`~linlayout.convert.step_floors.broadcast_swap_bound`, where it is
    established; else no floor).  The path's other step has :func:`far_floor` (:func:`other_step_floor`), which
    holds for such a swap (its doc).  A swap with a zero column has no floor here: :func:`one_hot_paths` floors it
    from its columns.

    Which kinds the first ``limit`` can include: such a side's mixed swaps give distinct layouts (a register column
    moves to a lane, or a lane's column into a register, each to its own place), so when ``src`` is such a side (or
    of distinct bits) with more than ``limit`` mixed swaps, only those are reached (one of them may give ``dst``).
    ``ceiling``: a kind whose step across the swap alone costs that much gets that cost (as in
    :func:`kind_floors`).  Sides of distinct bits are :func:`kind_floors`' and left out.
    """
    if src.one_hot() is None or dst.one_hot() is None:
        return {}
    floors = {}
    for side, near_src in ((src, True), (dst, False)):
        mixed_swaps = side.bits.reg * side.bits.lane
        zero_lanes, zero_registers = broadcast_lanes(side), broadcast_registers(side)  # at most one of them above 0
        distinct_but_zeros = zero_lanes is not None or zero_registers is not None  # or distinct bits (both 0)
        if distinct_but_zeros and zero_lanes != 0:  # zero_lanes 0: distinct bits, kind_floors' side
            for mixed in ([True] if mixed_swaps else []) + ([False] if mixed_swaps <= limit else []):
                if zero_lanes is not None:
                    near = swap_floor(side.bits.reg, mixed, element_bits, zero_lanes)
                else:
                    exact = broadcast_swap_bound(side.bits, mixed, element_bits, zero_registers)
                    if exact is None:
                        continue
                    near = exact.value
                floors[near_src, mixed] = kind_floor(near, src, dst, near_src, mixed, element_bits, ceiling)
        if near_src and mixed_swaps > limit and distinct_but_zeros:
            break  # the first ``limit`` intermediate layouts are all src's mixed swaps
    return floors


def kind_floor(near: int, src: Endpoint, dst: Endpoint, near_src: bool, mixed: bool, element_bits: int,
               ceiling: int | None) -> int:
    """The floor of a kind's paths (:func:`kind_floors`, :func:`nonzero_swap_floors`) from ``near``, the floor of their
    step across the swap: ``near`` plus the other step's (:func:`other_step_floor`), unless ``near`` alone reaches
    ``ceiling`` (the kind is closed either way)."""
    if ceiling is not None and near >= ceiling:
        return near
    return near + other_step_floor(src, dst, near_src, mixed, element_bits, None if ceiling is None else ceiling - near)


class SearchResult(NamedTuple):
    """What :func:`cheapest_path` found: the winning path (``None`` when no path beats the direct cost) and how the
    search ended.

    ``path``: ``(cost, [(mid, plan src→mid), (dst, plan mid→dst)])``.  ``step_plans``: the steps planned to settle
    the search.  ``unsettled``: the intermediate layouts whose paths could still have beaten ``path`` (or the direct
    plan) when the search stopped at :data:`MAX_STEP_PLANS` step plans; 0 when it completed, and then ``path`` is
    exactly the cheapest path among the :data:`MAX_INTERMEDIATES` layouts (:func:`in_order_path`'s answer).
    """

    path: tuple[int, list[tuple[LinearLayout, Any]]] | None
    step_plans: int
    unsettled: int


class TwoStepPath:
    """One intermediate layout's path while the search settles it: what is known of its two steps.

    ``costs[k]`` is step ``k``'s floor until the step is known; ``known[k]``: its cost is exact (a planned step
    below its ceiling, or an exact floor); ``plans[k]``: its plan, once planned.
    """

    __slots__ = ("index", "mid", "near_src", "costs", "known", "plans")

    def __init__(self, index: int, mid: Endpoint, near_src: bool, first: Floor, second: Floor) -> None:
        self.index, self.mid, self.near_src = index, mid, near_src
        self.costs = [first.value, second.value]
        self.known = [first.exact, second.exact]
        self.plans: list[Any] = [None, None]

    def key(self) -> tuple[int, int, int]:
        """The path's order (total, first step, index): exact when both steps are known, else a floor on it."""
        return (self.costs[0] + self.costs[1], self.costs[0], self.index)


def swap_columns(src: Endpoint, dst: Endpoint,
                 limit: int | None = MAX_INTERMEDIATES) -> Iterator[tuple[tuple[int, ...], bool, Endpoint, tuple[int, int]]]:
    """The intermediate layouts in the search's order (:func:`neighbours` of ``src``, then of ``dst``, each once) as
    columns: ``(columns, next to src, the side swapped, the swap's positions)``; ``limit``: only the first that many
    (the search reaches the first :data:`MAX_INTERMEDIATES`; None: all)."""
    seen = {src.cols, dst.cols}
    for side, near_src in ((src, True), (dst, False)):
        for pos in swaps(side.bits.reg, side.bits.lane):
            if len(seen) - 2 == limit:
                return
            i, j = pos
            cols = list(side.cols)
            cols[i], cols[j] = cols[j], cols[i]
            key = tuple(cols)
            if key not in seen:
                seen.add(key)
                yield key, near_src, side, pos


def intermediates(src: Endpoint, dst: Endpoint, limit: int | None = MAX_INTERMEDIATES) -> list[tuple[Endpoint, bool]]:
    """:func:`swap_columns` as :class:`Endpoint` objects (their layouts built only when needed), with whether each is
    next to ``src``."""
    mids: list[tuple[Endpoint, bool]] = []
    distinct = {True: distinct_bits(src), False: distinct_bits(dst)}
    for cols, near_src, side, (i, j) in swap_columns(src, dst, limit):
        masks: Masks | bool = False  # a swap of distinct bits: its masks and kind known at once
        if distinct[near_src] is not None:
            flip = cols[i] ^ cols[j] if i < side.bits.reg else 0
            masks = Masks(distinct[near_src].registers ^ flip, distinct[near_src].lanes ^ flip)
        mids.append((swap_endpoint(side, cols, (i, j), masks, distinct[near_src] is not None), near_src))
    return mids


def swap_endpoint(side: Endpoint, cols: tuple[int, ...], pos: tuple[int, int], masks: Masks | bool,
                  distinct: bool) -> Endpoint:
    """The intermediate layout ``side`` with the columns at ``pos`` exchanged (``cols``), its layout built when first
    needed; ``distinct``: ``side`` has distinct bits (:func:`distinct_bits`), so the swap's kind gives its floor."""
    return Endpoint(side.bits, cols, lambda: swapped(side.layout, pos), masks,
                    (side, pos[0] < side.bits.reg) if distinct else None)


def cheapest_path(src: LinearLayout, dst: LinearLayout, direct_cost: int, plan: Callable[..., Any],
                  element_bits: int) -> SearchResult:
    """The cheapest two-step conversion ``src → mid → dst`` if it beats ``direct_cost`` (a :class:`SearchResult`).

    ``plan(a, b, warp_local, ceiling)`` plans one step (a
    :class:`~linlayout.convert.plan.ConversionPlan`; with ``warp_local`` only
    the registers and shuffle paths; it may raise
    :class:`~linlayout.errors.InputError` when no step exists); only a step
    cheaper than ``ceiling`` matters, so the planner need not look for the
    cheapest step beyond it (any step costing at least ``ceiling`` serves).
    The steps' floors at ``element_bits`` (:func:`step_floor`) prune (module
    doc); when the search completes, its answer is that of planning every step
    (:func:`in_order_path`): the cheapest path among the first
    :data:`MAX_INTERMEDIATES` intermediate layouts (ties: the cheaper first
    step, then the earlier layout).
    """
    source, target = Endpoint.of(src), Endpoint.of(dst)
    kinds = kind_floors(source, target, element_bits, ceiling=direct_cost)
    closed = {kind for kind, floor in (kinds or {}).items() if floor >= direct_cost}  # no such path can win
    if kinds is not None and len(closed) == len(kinds):  # none is open (search_floor reaches the direct cost)
        return SearchResult(None, 0, 0)
    nonzero = nonzero_swap_floors(source, target, element_bits, ceiling=direct_cost)
    closed_nonzero = {kind for kind, floor in nonzero.items() if floor >= direct_cost}
    return search(source, target, direct_cost, plan, lambda a, b: step_bound(a, b, element_bits), closed,
                  one_hot_paths(source, target, direct_cost, element_bits, closed, closed_nonzero))


def search(src: LinearLayout | Endpoint, dst: LinearLayout | Endpoint, direct_cost: int, plan: Callable[..., Any],
           floor: Callable[[Endpoint, Endpoint], Floor], closed: frozenset | set = frozenset(),
           paths: list[TwoStepPath] | None = None) -> SearchResult:
    """:func:`cheapest_path` with any ``floor(a, b)``: a :class:`Floor` of the step ``a → b`` (Endpoints).
    ``closed``: kinds of intermediate layout whose paths cannot beat the direct cost (:func:`open_paths`).

    Best floor first: the path with the lowest :meth:`TwoStepPath.key` gets one unknown step planned
    (:func:`settle_step`; a step whose floor is exact is never planned to settle the search), until the lowest key
    is a known path (it wins: every other key is a floor at least as high) or none is below the direct cost.
    At most :data:`MAX_STEP_PLANS` steps are planned; a search stopped there returns the best path found (or
    none) and counts the paths left unsettled.
    """
    source = src if isinstance(src, Endpoint) else Endpoint.of(src)
    target = dst if isinstance(dst, Endpoint) else Endpoint.of(dst)
    src, dst = source.layout, target.layout
    if paths is None:
        paths = open_paths(source, target, direct_cost, floor, closed)
    if not paths:
        return SearchResult(None, 0, 0)
    heap = [(p.key(), p.index, p) for p in paths]
    heapq.heapify(heap)
    best_key, best, planned = (direct_cost, -1, -1), None, 0
    while heap and heap[0][0] < best_key:
        key, _, path = heap[0]
        if all(path.known):
            best_key, best = key, path  # the lowest key is exact: no other path can beat it
            break
        if planned == MAX_STEP_PLANS:
            break
        heapq.heappop(heap)
        planned += 1
        if settle_step(path, source, target, direct_cost, plan):
            heapq.heappush(heap, (path.key(), path.index, path))
    if best is None:  # stopped at the bound: the best path known so far, if any
        best_key, best = min(((key, p) for key, _, p in heap if all(p.known)), default=(best_key, None),
                             key=lambda kp: kp[0])
    unsettled = sum(1 for key, _, p in heap if key < best_key and not all(p.known))
    if best is None:
        return SearchResult(None, planned, unsettled)
    first, second = best.plans
    if first is None:  # an exact floor stood for it: plan it now (a register step; the ceiling does not matter)
        first = plan(src, best.mid.layout, best.near_src, best.costs[0] + 1)
    if second is None:
        second = plan(best.mid.layout, dst, not best.near_src, best.costs[1] + 1)
    return SearchResult((int(best_key[0]), [(best.mid.layout, first), (dst, second)]), planned, unsettled)


def open_paths(src: Endpoint, dst: Endpoint, direct_cost: int, floor: Callable[[Endpoint, Endpoint], Floor],
               closed: frozenset | set = frozenset()) -> list[TwoStepPath]:
    """The paths through the first :data:`MAX_INTERMEDIATES` layouts whose floors could beat ``direct_cost``;
    ``closed``: the kinds ``(next to src, mixed swap)`` of intermediate layout (:func:`kind_floors`) whose paths'
    floors are known to reach it, dropped without a floor."""
    out = []
    for i, (mid, near_src) in enumerate(intermediates(src, dst)):
        if closed and mid.swap is not None and (near_src, mid.swap[1]) in closed:
            continue
        near = floor(src, mid) if near_src else floor(mid, dst)  # the step across one swap: often enough alone
        if near.value >= direct_cost:
            continue
        far = floor(mid, dst) if near_src else floor(src, mid)
        if near.value + far.value < direct_cost:
            first, second = (near, far) if near_src else (far, near)
            out.append(TwoStepPath(i, mid, near_src, first, second))
    return out


def one_hot_paths(src: Endpoint, dst: Endpoint, direct_cost: int, element_bits: int,
                  closed: frozenset | set = frozenset(),
                  closed_nonzero: frozenset | set = frozenset()) -> list[TwoStepPath] | None:
    """:func:`open_paths` with :func:`step_bound` for two layouts of single-bit columns (compiler layouts): the same
    paths with the same floors, each read off the intermediate layout's columns in the order of
    :func:`swap_columns`, and an :class:`Endpoint` made only for a path that stays open.  None when ``src`` or
    ``dst`` has a column of several bits.

    Flooring the intermediate layouts is what a search that plans no step costs, and most plan none, so the floors
    are counted on what a swap changes: the swapped layout's masks (a distinct-bits side's by two bit flips), and
    the far step's :func:`moves`, the ends' (computed once) with the one or two swapped lane columns replaced.
    """
    ends = {True: src.one_hot(), False: dst.one_hot()}
    if ends[True] is None or ends[False] is None:
        return None
    distinct = {True: distinct_bits(src), False: distinct_bits(dst)}
    broadcasts = {True: broadcast_registers(src), False: broadcast_registers(dst)}  # distinct but for zero registers
    differences = moves(src, dst)
    swap_masks = {near: SwapMasks(side.bits, side.cols) for side, near in ((src, True), (dst, False))
                  if distinct[near] is None}  # a side of repeated or broadcast columns: its swaps' masks, each in O(1)
    # A swap changes two columns: the other step can be across one swap only when the ends differ in at most four.
    few_differences = sum(a != b for a, b in zip(src.cols, dst.cols)) <= 4
    out = []
    for index, (cols, near_src, side, (i, j)) in enumerate(swap_columns(src, dst)):
        reg, other = side.bits.reg, dst if near_src else src
        mixed, swapped_from = i < reg, distinct[near_src]
        if swapped_from is None and (near_src, mixed) in closed_nonzero and cols[i] and cols[j]:
            continue  # a swap of two non-zero columns of a kind whose paths cannot win (nonzero_swap_floors)
        if swapped_from is not None:
            if (near_src, mixed) in closed:
                continue
            flip = cols[i] ^ cols[j] if mixed else 0
            masks = Masks(swapped_from.registers ^ flip, swapped_from.lanes ^ flip)
            near = swap_bound(side.bits, mixed, element_bits)
        else:
            masks = swap_masks[near_src].swapped(i, j)
            near = None  # a swap of two non-zero columns of a layout distinct but for zero registers: exact
            if broadcasts[near_src] is not None and cols[i] and cols[j]:
                near = broadcast_swap_bound(side.bits, mixed, element_bits, broadcasts[near_src])
            if near is None:
                near_moves = [0] * len(differences)  # the step across the swap moves only the swapped lane columns
                for k in (i, j):
                    if k >= reg:
                        near_moves[k - reg] = cols[k] ^ side.cols[k]
                ms, md = (ends[True], masks) if near_src else (masks, ends[False])
                near = mask_step_floor(side.bits, near_moves, ms, md, element_bits)
        mid = None
        if near is None:  # a register step of repeated or broadcast registers: its cost needs the conversion map
            if mask_register_floor(near_moves, md) >= direct_cost:
                continue  # unless its floor from the masks already reaches the direct cost
            mid = swap_endpoint(side, cols, (i, j), masks, swapped_from is not None)
            near = step_bound(*((src, mid) if near_src else (mid, dst)), element_bits)
        if near.value >= direct_cost:
            continue
        far = None  # the other step across one swap too (its ends distinct but for zero registers): its exact cost
        if broadcasts[near_src] is not None and cols[i] and cols[j] and few_differences and side.bits == other.bits:
            far_swap = swap_between(side.bits, cols, other.cols)
            if far_swap is not None:
                far = broadcast_swap_bound(side.bits, far_swap, element_bits, broadcasts[near_src])
        if far is None:
            far_moves = list(differences)
            for k in (i, j):
                if k >= reg:
                    far_moves[k - reg] = cols[k] ^ other.cols[other.bits.reg + k - reg]
            ms, md = (masks, ends[False]) if near_src else (ends[True], masks)
            far = mask_step_floor(src.bits, far_moves, ms, md, element_bits)
        if far is None:  # a register step as above
            if near.value + mask_register_floor(far_moves, md) >= direct_cost:
                continue
            mid = mid or swap_endpoint(side, cols, (i, j), masks, swapped_from is not None)
            far = step_bound(*((mid, dst) if near_src else (src, mid)), element_bits)
        if near.value + far.value < direct_cost:
            mid = mid or swap_endpoint(side, cols, (i, j), masks, swapped_from is not None)
            out.append(TwoStepPath(index, mid, near_src, *((near, far) if near_src else (far, near))))
    return out


def settle_step(path: TwoStepPath, src: Endpoint, dst: Endpoint, direct_cost: int, plan: Callable[..., Any]) -> bool:
    """Plan one of ``path``'s unknown steps, the one with the larger floor (the first on a tie), below the ceiling
    at which the path could still beat ``direct_cost``: the direct cost less the other step's cost or floor.  False
    when the path cannot (no step, or the step reaches its ceiling), else the step's exact cost is recorded.

    The larger floor goes first because it marks the step that moves more data, whose cost lies furthest above its
    floor (on the speed corpus one such step usually refutes its path alone).
    """
    unknown = [k for k in (0, 1) if not path.known[k]]
    k = max(unknown, key=lambda j: (path.costs[j], -j))
    ceiling = direct_cost - path.costs[1 - k]
    if k == 0:
        a, b, warp_local = src.layout, path.mid.layout, path.near_src
    else:
        a, b, warp_local = path.mid.layout, dst.layout, not path.near_src
    try:
        step = plan(a, b, warp_local, ceiling)
    except InputError:
        return False
    if step.cost >= ceiling:
        return False
    path.costs[k], path.known[k], path.plans[k] = step.cost, True, step
    return True


def in_order_path(src: LinearLayout, dst: LinearLayout, direct_cost: int,
                  plan: Callable[..., Any]) -> tuple[int, list[tuple[LinearLayout, Any]]] | None:
    """The search without floors and without the work bound, the reference :func:`cheapest_path` must agree with
    whenever it completes: for each of the first :data:`MAX_INTERMEDIATES` layouts in order, its first step planned
    with the ceiling ``direct_cost``, and when that costs less, its second with the ceiling ``direct_cost`` less the
    first; the cheapest path kept (ties: the cheaper first step, then the earlier layout)."""
    source, target = Endpoint.of(src), Endpoint.of(dst)
    best_key, best = (direct_cost, -1, -1), None
    for i, (mid, near_src) in enumerate(intermediates(source, target)):
        try:
            first = plan(src, mid.layout, near_src, direct_cost)
            if first.cost >= direct_cost:
                continue  # the second step costs at least 0: this path cannot win
            second = plan(mid.layout, dst, not near_src, direct_cost - first.cost)
        except InputError:
            continue
        key = (first.cost + second.cost, first.cost, i)
        if key < best_key:
            best_key, best = key, [(mid.layout, first), (dst, second)]
    return None if best is None else (int(best_key[0]), best)
