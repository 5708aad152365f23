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
from ranks of its layouts' flat columns (:func:`step_floor`; an intermediate
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

**Floors before listing.**  When ``src`` and ``dst`` have distinct single-bit
columns (:func:`distinct_bits`: no broadcast, no repeat), a step across one
swap has a demand fixed by the swap's kind and the side's register count
(:func:`swap_demand`), and the other step's demand has a floor from the two
ends' masks (:func:`far_demand`); so each kind of intermediate layout
(next to ``src`` or ``dst``, mixed swap or transposition) has a floor on every
path through it (:func:`kind_floors`).  A kind whose floor reaches the direct
cost is dropped unlisted, and a search with every kind dropped
(:func:`search_floor`) builds no intermediate layout: the same answer, since
these floors lie below every path's floors.  On the 189 warp-local searches
of ``--compare`` this settles 34 of the 130 that plan no step (5 of the speed
corpus's 23).

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
all 189, 130 settled by floors alone, 111 step plans where the reference
plans 6,033; 31 stop at the bound (with the reference's answer, no two-step
plan, on all 31).  Compiler layouts' columns are single element bits, so
their floors are bit-mask arithmetic (:func:`one_hot_demand`,
:func:`register_step_cost`): about half a millisecond for the 48 floors of a
search that plans nothing.

**Why the bound is two plans.**  The floors lie well below the costs of many
steps: a single register/lane swap costs about twice its floor, because the
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

import functools
import heapq
from collections.abc import Callable
from typing import Any, NamedTuple

from ..core import f2
from ..core.layout import LinearLayout
from ..errors import InputError
from .cost import COST_WEIGHTS, cost_of
from .solve import IndexBits, conversion_map, index_bits
from .warp import register_program

__all__ = ["neighbours", "cheapest_path", "in_order_path", "Demand", "demand", "one_hot_demand", "Masks",
           "shuffle_floor", "step_floor", "register_step_cost", "Floor", "step_bound", "SearchResult", "MAX_STEP_PLANS",
           "MAX_INTERMEDIATES", "distinct_bits", "swap_demand", "swap_floor", "far_demand", "kind_floors",
           "search_floor"]

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
    """``layout`` with the register or lane bases at two flat index positions (:func:`swaps`) exchanged."""
    b = layout.bases
    regs, lanes = list(b.get("register", [])), list(b.get("lane", []))
    both = regs + lanes
    i, j = positions
    both[i], both[j] = both[j], both[i]
    changed = {"register": both[:len(regs)], "lane": both[len(regs):]} if i < len(regs) else {"lane": both[len(regs):]}
    return LinearLayout({**b, **changed}, layout.out_sizes)


def neighbours(layout: LinearLayout) -> list[LinearLayout]:
    """The layouts one mixed register/lane swap or one lane transposition away from ``layout``.

    >>> L = LinearLayout({"register": [[1]], "lane": [[2], [4]]}, {"dim0": 8})
    >>> [n.bases["register"] + n.bases["lane"] for n in neighbours(L)]
    [[(2,), (1,), (4,)], [(4,), (2,), (1,)], [(1,), (4,), (2,)]]
    """
    b = layout.bases
    return [swapped(layout, s) for s in swaps(len(b.get("register", [])), len(b.get("lane", [])))]


class Spans(NamedTuple):
    """What the floors read of one layout alone: its register span and rank, its lane span, its warp's rank."""

    registers: f2.Span
    register_rank: int
    lanes: f2.Span
    warp_rank: int  # rank of the register and lane columns together: the distinct elements of one warp


class Masks(NamedTuple):
    """A layout whose columns are single element bits (or zero): its register and lane spans as bit masks.

    A span of single bits is every vector inside its mask: membership is a mask test, a rank a bit count, and
    the quotient by it clears its bits.
    """

    registers: int
    lanes: int


class Endpoint:
    """A layout of the search by its flat index columns (:func:`~linlayout.convert.solve.index_bits`).

    The floors read only the columns (and :meth:`spans`, computed once per
    endpoint: every step from ``src`` reads ``src``'s); the
    :class:`LinearLayout` is built the first time a step from or to it is
    planned, once (the planner's memos live on that object).
    """

    __slots__ = ("bits", "cols", "build", "built", "known", "masks", "swap")

    def __init__(self, bits: IndexBits, cols: tuple[int, ...], build: Callable[[], LinearLayout],
                 masks: Masks | None | bool = False, swap: tuple[Endpoint, bool] | None = None) -> None:
        self.bits, self.cols, self.build, self.built, self.known = bits, cols, build, None, None
        self.masks = masks  # False: not computed yet
        self.swap = swap  # (side, mixed): one swap from a distinct-bits side (:func:`swap_floor`), else None

    @classmethod
    def of(cls, layout: LinearLayout) -> Endpoint:
        bits, cols = index_bits(layout, "layout")
        point = cls(bits, tuple(cols), lambda: layout)
        point.built = layout
        return point

    @property
    def layout(self) -> LinearLayout:
        if self.built is None:
            self.built = self.build()
        return self.built

    def one_hot(self) -> Masks | None:
        """:class:`Masks` when every column is one element bit or zero (compiler layouts' are), else None."""
        if self.masks is False:
            cols, reg, in_warp = self.cols, self.bits.reg, self.bits.reg + self.bits.lane
            if any(c & (c - 1) for c in cols):
                self.masks = None
            else:
                registers = lanes = 0
                for c in cols[:reg]:
                    registers |= c
                for c in cols[reg:in_warp]:
                    lanes |= c
                self.masks = Masks(registers, lanes)
        return self.masks  # type: ignore[return-value]

    def spans(self) -> Spans:
        if self.known is None:
            reg, in_warp = self.bits.reg, self.bits.reg + self.bits.lane
            registers = f2.Span(self.cols[:reg])
            self.known = Spans(registers, len(registers), f2.Span(self.cols[reg:in_warp]), f2.rank(self.cols[:in_warp]))
        return self.known


class Demand(NamedTuple):
    """What every shuffle program of a warp-local conversion map must move (:func:`demand`)."""

    remote: int      # the most distinct elements one thread needs that its own lane does not hold
    sent: int        # the most elements one lane must send to other lanes (0 when a lane's share is not fixed)
    selects: int     # the selects every program makes per word it receives (0: it may select nothing; module doc)
    src_registers: int  # registers per thread of the source


def demand(src: LinearLayout | Endpoint, dst: LinearLayout | Endpoint) -> Demand:
    """The data a warp-local conversion ``src → dst`` moves, from ranks of the layouts' columns.

    No conversion map is solved and no thread is listed.  With ``Dr`` and
    ``Sr`` the spans of the destination's and the source's register columns,
    thread ``t`` needs the coset ``dst(t) ⊕ Dr`` and its lane holds ``src(t)
    ⊕ Sr``; they meet, in a coset of ``Dr ∩ Sr``, exactly when ``dst(t) ⊕
    src(t) ∈ Dr + Sr``.  That difference is linear in the thread, so either
    every thread meets its own elements or some thread meets none.

    When no element is both a register and a lane combination of the source
    (``Sr ∩ Sl = 0``; registers and lanes may repeat others), the lanes fall
    into groups of ``2^z`` (``z`` the lane columns' kernel) that hold the same
    elements in the same registers, and the groups' sets are disjoint.  Then,
    when the destination holds every element of the warp, the elements of a
    group that its own lanes do not need go to other lanes in words the
    group's lanes name alike: at least ``|Sr| - 2^z |Dr ∩ Sr|`` (every thread
    meeting its own elements) or ``|Sr| - 2^(z-1) |Dr ∩ Sr|`` (half the
    threads or fewer: the threads that do form a subspace) (``sent``).

    In any case (``selects``): the destination's lane and warp basis
    elements (less the source's own warp part) span, modulo the source lanes'
    span, a space of some rank ``q``; every program selects at least ``q``
    times per word it receives (or, with conditional-swap layers, per source
    word when that is fewer).  In the program's terms
    (:mod:`linlayout.convert.warp`): its source slots' register parts ``Ql``
    and ``Qω`` (free variables change a register only by one holding the
    same element) have ``src``'s registers times them equal to those elements
    modulo the lanes' span, so their rank is at least ``q``; they carry no pack
    components, and ``Ql = H J ⊕ A M``, ``Qω = Hω ⊕ H Sω`` put their columns
    in ``image(H, Hω) + image(A M)``, so ``h + m ≥ q`` with ``h =
    rank(H|Hω)`` (the sender's selects: ``2^h - 1`` per shuffled round, or
    ``h`` layers over the source words) and ``m = rank(M)`` (the receiver's:
    at least ``m`` for each word filled from a shuffled round, local rounds
    included, or ``m`` layers over the kept words).

    ``dst`` must be aligned to ``src`` and reachable inside each warp.

    >>> rows = LinearLayout({"register": [[1]], "lane": [[2], [4]]}, {"dim0": 8})
    >>> cols = LinearLayout({"register": [[2]], "lane": [[1], [4]]}, {"dim0": 8})
    >>> demand(rows, cols)
    Demand(remote=1, sent=1, selects=1, src_registers=2)
    """
    src = src if isinstance(src, Endpoint) else Endpoint.of(src)
    dst = dst if isinstance(dst, Endpoint) else Endpoint.of(dst)
    sm, dm = src.one_hot(), dst.one_hot()
    if sm is not None and dm is not None:
        return one_hot_demand(src, dst, sm, dm)
    sh, s_cols, dh, d_cols = src.bits, src.cols, dst.bits, dst.cols
    ss, ds = src.spans(), dst.spans()
    rank_d, rank_s = ds.register_rank, ss.register_rank
    both = f2.Span()
    both.lead.update(ss.registers.lead)
    for v in d_cols[:dh.reg]:
        both.add(v)
    shared = 1 << (rank_d + rank_s - len(both))  # |Dr ∩ Sr|
    moved = [a ^ b for a, b in zip(s_cols[sh.reg:], d_cols[dh.reg:])]  # per lane, warp and block basis
    own = all(v in both for v in moved)
    remote = (1 << rank_d) - (shared if own else 0)
    sent = 0
    if ss.warp_rank == rank_s + len(ss.lanes) and ds.warp_rank == ss.warp_rank:  # Sr ∩ Sl = 0, every element
        repeats = 1 << (sh.lane - len(ss.lanes))  # lanes holding the same elements, in the same registers
        mine = repeats * shared if own else repeats // 2 * shared  # what a group's own lanes may need of it
        sent = max(0, (1 << rank_s) - mine)
    # the lane and warp bases' elements (less the source's own warp part) modulo the source lanes' span
    outside = f2.Span()
    outside.lead.update(ss.lanes.lead)
    selects = sum(outside.add(v) for v in (*d_cols[dh.reg:dh.reg + dh.lane], *moved[sh.lane:]))
    return Demand(remote, sent, selects, 1 << sh.reg)


def one_hot_demand(src: Endpoint, dst: Endpoint, sm: Masks, dm: Masks) -> Demand:
    """:func:`demand` of two layouts of single-bit columns, by bit masks (the same quantities, no elimination)."""
    sh, s_cols, dh, d_cols = src.bits, src.cols, dst.bits, dst.cols
    s_regs, s_lanes, d_regs = sm.registers, sm.lanes, dm.registers
    shared = 1 << (s_regs & d_regs).bit_count()  # |Dr ∩ Sr|
    reach = 0  # the bits the lane, warp and block bases' differences touch
    outside_warps = []  # the warp and block bases' differences outside the source lanes' span
    for k, (a, b) in enumerate(zip(s_cols[sh.reg:], d_cols[dh.reg:])):
        reach |= a ^ b
        if k >= sh.lane and (a ^ b) & ~s_lanes:
            outside_warps.append((a ^ b) & ~s_lanes)
    own = not reach & ~(s_regs | d_regs)
    remote = (1 << d_regs.bit_count()) - (shared if own else 0)
    sent = 0
    if not s_regs & s_lanes and (d_regs | dm.lanes).bit_count() == (s_regs | s_lanes).bit_count():
        repeats = 1 << (sh.lane - s_lanes.bit_count())
        mine = repeats * shared if own else repeats // 2 * shared
        sent = max(0, (1 << s_regs.bit_count()) - mine)
    outside_lanes = dm.lanes & ~s_lanes  # the destination lanes' single bits outside the source lanes' span
    if outside_warps:
        selects = f2.rank(f2.unit_vectors(outside_lanes) + outside_warps)
    else:
        selects = outside_lanes.bit_count()
    return Demand(remote, sent, selects, 1 << sh.reg)


@functools.lru_cache(maxsize=4096)  # keyed on four counts and a width: the steps of a search share most of them
def shuffle_floor(need: Demand, element_bits: int) -> int:
    """A floor on the cost of every shuffle program of a map with this :class:`Demand`.

    The planner's programs (:mod:`linlayout.convert.warp`) move one word of
    ``n`` packed elements per thread and round (``n`` = 1, 2, ... up to
    ``32 / element_bits``); a destination word is filled by one round, so a
    thread lacking ``remote`` elements receives at least ``w = ceil(remote /
    n)`` words, each a round (a ``shfl.sync`` per 32 bits of an element) and
    unpacked once (``n - 1`` ``prmt``, or one ``mov`` for two 16-bit halves);
    a lane sending ``sent`` elements packs at least ``ceil(sent / n)`` words
    (``n - 1`` ``prmt`` each); and each of the ``w`` words costs
    ``selects`` selects (a sender's choices in its round and a receiver's
    among its rounds), or, with conditional-swap layers, as many layers over
    the source words when there are fewer of those.  The floor is the cheapest ``n``, plus the
    shuffle path's constant (``COST_WEIGHTS["shuffle_path"]``: the program has
    at least one ``shfl.sync``).

    >>> shuffle_floor(Demand(8, 8, 1, 16), 32), shuffle_floor(Demand(8, 0, 0, 16), 16)
    (165, 77)
    """
    remote, sent, per_word, registers = need
    if remote <= 0:
        return 0
    w = COST_WEIGHTS
    shfl, prmt, selp = w["shfl.sync"] * max(1, element_bits // 32), w["prmt"], w["selp"]
    best = None
    n = 1
    while n <= max(1, 32 // element_bits):
        words = -(-remote // n)
        unpack = 0 if n == 1 else w["mov"] if (n == 2 and element_bits == 16) else (n - 1) * prmt
        selects = per_word * min(words, max(1, registers // n))
        floor = words * (shfl + unpack) + (n - 1) * prmt * -(-sent // n) + selects * selp
        if best is None or floor < best:
            best = floor
        n *= 2
    return best + w["shuffle_path"]


class Floor(NamedTuple):
    """A floor on a step's cost; ``exact``: the step's plan costs exactly ``value`` and planning it cannot fail."""

    value: int
    exact: bool = False


def step_floor(src: LinearLayout | Endpoint, dst: LinearLayout | Endpoint, element_bits: int) -> int:
    """A floor on the cost of a warp-local step ``src → dst`` as the search plans it (registers or shuffles).

    A step in which some thread lacks an element is a shuffle step (level 1;
    a warp-local map always has a shuffle program: at one element per word
    the planner's swap candidates always include one): :func:`shuffle_floor`
    of its :func:`demand`.  Otherwise a register step (level 0): its exact
    cost (:func:`~linlayout.convert.warp.register_program`).
    """
    return step_bound(src, dst, element_bits).value


def step_bound(src: LinearLayout | Endpoint, dst: LinearLayout | Endpoint, element_bits: int) -> Floor:
    """:func:`step_floor`, marked exact for a register step (the search then needs no plan to know its cost)."""
    src = src if isinstance(src, Endpoint) else Endpoint.of(src)
    dst = dst if isinstance(dst, Endpoint) else Endpoint.of(dst)
    for mid, side in ((dst, src), (src, dst)):
        if mid.swap is not None and mid.swap[0] is side:  # one swap between them: the floor from counts
            return Floor(swap_floor(side.bits.reg, mid.swap[1], element_bits))
    need = demand(src, dst)
    if need.remote:
        return Floor(shuffle_floor(need, element_bits))
    sm, dm = src.one_hot(), dst.one_hot()
    if sm is not None and dm is not None and sm.registers.bit_count() == src.bits.reg:
        return Floor(register_step_cost(src, dst, dm), exact=True)
    try:
        cm = conversion_map(src.layout, dst.layout)
    except InputError:
        return Floor(0)  # no step exists: the plan will say so (0 is a floor of anything)
    if cm.level != 0:
        return Floor(0)
    return Floor(cost_of(register_program(cm, element_bits).counts), exact=True)


def register_step_cost(src: Endpoint, dst: Endpoint, dm: Masks) -> int:
    """The cost of a register step (every thread holds what it needs) whose source registers are distinct single bits.

    The level-0 conversion map (:func:`~linlayout.convert.solve.conversion_map`) is then the only one: destination
    register ``i`` reads the source register holding its bit (register 0 for a broadcast one), and a lane or warp
    basis adds the registers holding its difference from the source's.  So ``Qr`` has the rank of the destination's
    register bits and ``[Ql Qω]`` that of the differences, and
    :class:`~linlayout.convert.warp.RegisterProgram` selects ``2^rank(Qr) (2^rank(Ql|Qω) - 1)`` times.
    """
    sh, dh = src.bits, dst.bits
    differences = [a ^ b for a, b in zip(src.cols[sh.reg:], dst.cols[dh.reg:])]
    selects = (1 << dm.registers.bit_count()) * ((1 << f2.rank(differences)) - 1)
    return cost_of({"selp": selects} if selects else {})


def distinct_bits(point: Endpoint) -> Masks | None:
    """``point``'s :class:`Masks` when its register and lane columns are distinct single element bits (no zero, no
    repeat: a warp holds ``2^(registers + lanes)`` distinct elements), else None."""
    m = point.one_hot()
    if m is None or m.registers & m.lanes:
        return None
    if m.registers.bit_count() != point.bits.reg or m.lanes.bit_count() != point.bits.lane:
        return None
    return m


def swap_demand(registers: int, mixed: bool) -> Demand:
    """The :func:`demand` of a step between a layout of distinct bits (:func:`distinct_bits`) with ``registers``
    register bases and the same layout with one swap applied, either way round: it depends on the swap's kind only.

    Say the swap exchanges register bit ``r`` with lane bit ``l`` (``mixed``).  Both layouts have distinct bits,
    ``R = registers`` register bits, the same set of bits in all, and differ only in that register and that lane.
    The register spans share ``R - 1`` bits (``|Dr ∩ Sr| = 2^(R-1)``) and the one differing lane's difference
    ``r ⊕ l`` lies in their sum (every thread meets its own elements): ``remote = 2^R - 2^(R-1)``.  A lane's
    elements repeat in no other lane (``2^z = 1``), so ``sent = 2^R - 2^(R-1)``.  The destination's lanes hold
    one bit outside the source lanes' span (``r`` or ``l``) and the warps agree: ``selects = 1``.

    A lane transposition exchanges lane bits ``l1`` and ``l2``: the register spans agree, the two lanes'
    differences ``l1 ⊕ l2`` lie outside them (no thread meets its own elements): ``remote = 2^R``; with no repeats
    a group of one lane needs none of its own when threads do not meet theirs: ``sent = 2^R``; the lanes keep
    their span: ``selects = 0``.  In both cases the step's source has ``R`` registers: ``2^R`` per thread.

    >>> swap_demand(2, True), swap_demand(2, False)
    (Demand(remote=2, sent=2, selects=1, src_registers=4), Demand(remote=4, sent=4, selects=0, src_registers=4))
    """
    half = 1 << max(registers - 1, 0)
    if mixed:
        return Demand(half, half, 1, 1 << registers)
    return Demand(1 << registers, 1 << registers, 0, 1 << registers)


@functools.lru_cache(maxsize=256)  # keyed on a count, a kind and a width
def swap_floor(registers: int, mixed: bool, element_bits: int) -> int:
    """:func:`step_floor` of a step across one swap of a layout of distinct bits (:func:`swap_demand`): every
    thread lacks an element (``remote >= 1``), so it is a shuffle step, whose floor is :func:`shuffle_floor`."""
    return shuffle_floor(swap_demand(registers, mixed), element_bits)


def far_demand(src: Masks, dst: Masks, src_registers: int, dst_registers: int, mixed: bool) -> Demand:
    """A floor on each count of the :func:`demand` of a path's other step (not across its swap), from the masks of
    ``src`` and ``dst`` (both of distinct bits) and the swap's kind alone (``remote`` at most 0: possibly none).

    The other step joins the intermediate layout ``mid`` with the far end (``mid → dst`` when ``mid`` is a swap of
    ``src``, ``src → mid`` when of ``dst``).  ``mid`` has distinct bits, the register count of the side it was
    swapped from (the step's destination has ``dst``'s, ``R = dst_registers``, its source ``src``'s), and its
    register and lane masks are that side's with one bit moved between them (mixed) or the same (a
    transposition).  With ``k`` the register bits ``src`` and ``dst`` share and ``o`` the bits of ``dst``'s
    lanes outside ``src``'s: the step's registers share at most ``k + 1`` bits (``k``), so it lacks ``remote >=
    2^R - 2^(k+1)`` (``2^R - 2^k``) elements; its destination's lanes hold at least ``o - 1`` (``o``) bits outside
    its source's lanes, and a select is counted per such bit at least.  When ``src`` and ``dst`` hold as many bits
    (so do the step's ends: ``mid`` holds its side's), a lane's elements repeat in no other lane and a lane keeps
    at most the shared ones: ``sent >= 2^Rs - 2^(k+1)`` (``2^Rs - 2^k``), ``Rs = src_registers`` the step
    source's registers; else ``sent >= 0``.
    """
    shared, outside = (src.registers & dst.registers).bit_count(), (dst.lanes & ~src.lanes).bit_count()
    most = (2 << shared) if mixed else (1 << shared)  # the most elements the step's registers can share
    same_bits = (src.registers | src.lanes).bit_count() == (dst.registers | dst.lanes).bit_count()
    sent = max(0, (1 << src_registers) - most) if same_bits else 0
    return Demand(max(0, (1 << dst_registers) - most), sent, max(0, outside - 1) if mixed else outside,
                  1 << src_registers)


def search_floor(src: Endpoint, dst: Endpoint, element_bits: int, limit: int = MAX_INTERMEDIATES) -> int | None:
    """A floor on every path's floor in :func:`open_paths` (the sum of its steps' :func:`step_floor`), from counts
    and masks only; None when ``src`` or ``dst`` is not of distinct bits (:func:`distinct_bits`): the least of
    :func:`kind_floors`.
    """
    floors = kind_floors(src, dst, element_bits, limit)
    return None if floors is None else min(floors.values(), default=None)


def kind_floors(src: Endpoint, dst: Endpoint, element_bits: int,
                limit: int = MAX_INTERMEDIATES) -> dict[tuple[bool, bool], int] | None:
    """Per kind of intermediate layout, ``(next to src, mixed swap)``, a floor on the floor of every path through
    one of that kind, from counts and masks only; only the kinds the first ``limit`` can include; None when ``src``
    or ``dst`` is not of distinct bits (:func:`distinct_bits`).

    Every intermediate layout is one swap from ``src`` or from ``dst`` (:func:`intermediates`), and a swap of a
    layout of distinct bits keeps its bits distinct, so the path's step on that side is a step across one swap:
    its floor is :func:`swap_floor` of that side's register count and the swap's kind (exactly :func:`step_floor`'s
    value there).  The path's other step's floor is at least :func:`shuffle_floor` of :func:`far_demand` (a
    shuffle step's floor grows with each count of its demand; a register step, when the floor's ``remote`` is
    at most 0, costs at least that floor, 0).  Their sum is at most the floor of every path through a layout of
    that kind; when it reaches the direct cost, :func:`open_paths` drops those paths unlisted, and when every
    kind's does (:func:`search_floor`), the search's answer, no two-step plan, is known without listing an
    intermediate layout.

    Which kinds the first ``limit`` can include (:func:`swaps`' order, mixed swaps before transpositions, ``src``'s
    side before ``dst``'s): a swap of distinct columns never gives back its own layout and gives each layout once,
    so at most one of ``src``'s swaps (the one giving ``dst``) is skipped and the first ``limit`` intermediate
    layouts are among ``src``'s first ``limit + 1`` swaps, then ``dst``'s.  ``src``'s transpositions are counted
    when its mixed swaps number at most ``limit``, ``dst``'s side when ``src``'s swaps do (over-counting a kind
    only lowers the floor).
    """
    sm, dm = distinct_bits(src), distinct_bits(dst)
    if sm is None or dm is None:
        return None
    floors = {}
    for side, near_src in ((src, True), (dst, False)):
        regs, lanes = side.bits.reg, side.bits.lane
        mixed, transpositions = regs * lanes, lanes * (lanes - 1) // 2
        kinds = ([True] if mixed else []) + ([False] if transpositions and mixed <= limit else [])
        for kind in kinds:
            far = far_demand(sm, dm, src.bits.reg, dst.bits.reg, kind)
            floors[near_src, kind] = swap_floor(regs, kind, element_bits) + shuffle_floor(far, element_bits)
        if mixed + transpositions > limit:
            break  # the first ``limit`` intermediate layouts are all next to ``src``
    return floors


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


def intermediates(src: Endpoint, dst: Endpoint, limit: int | None = MAX_INTERMEDIATES) -> list[tuple[Endpoint, bool]]:
    """The intermediate layouts in the search's order (:func:`neighbours` of ``src``, then of ``dst``, each once),
    with whether each is next to ``src``; built from columns, their layouts only when needed.  ``limit``: only the
    first that many (the search reaches the first :data:`MAX_INTERMEDIATES`; None: all)."""
    mids: list[tuple[Endpoint, bool]] = []
    seen = {src.cols, dst.cols}
    for side, near_src in ((src, True), (dst, False)):
        distinct = distinct_bits(side)
        for pos in swaps(side.bits.reg, side.bits.lane):
            if len(mids) == limit:
                return mids
            i, j = pos
            cols = list(side.cols)
            cols[i], cols[j] = cols[j], cols[i]
            key = tuple(cols)
            if key not in seen:
                seen.add(key)
                masks, swap = False, None  # a swap of distinct bits: its masks and kind known at once
                if distinct is not None:
                    mixed = i < side.bits.reg
                    flip = cols[i] ^ cols[j] if mixed else 0
                    masks, swap = Masks(distinct.registers ^ flip, distinct.lanes ^ flip), (side, mixed)
                mids.append((Endpoint(side.bits, key, lambda side=side, pos=pos: swapped(side.layout, pos), masks,
                                      swap), near_src))
    return mids


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
    kinds = kind_floors(source, target, element_bits)
    closed = {kind for kind, floor in (kinds or {}).items() if floor >= direct_cost}  # no such path can win
    if kinds is not None and len(closed) == len(kinds):  # none is open (search_floor reaches the direct cost)
        return SearchResult(None, 0, 0)
    return search(source, target, direct_cost, plan, lambda a, b: step_bound(a, b, element_bits), closed)


def search(src: LinearLayout | Endpoint, dst: LinearLayout | Endpoint, direct_cost: int, plan: Callable[..., Any],
           floor: Callable[[Endpoint, Endpoint], Floor], closed: frozenset | set = frozenset()) -> SearchResult:
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
    heap = [(p.key(), p.index, p) for p in open_paths(source, target, direct_cost, floor, closed)]
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
