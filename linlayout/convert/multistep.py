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

**Budget.**  The search is bounded by :data:`MAX_STEP_PLANS` step plans (a
deterministic bound, not a clock: the same query always gets the same plan),
counted as if every step were planned in order: intermediate layouts next to
``src`` first, then those next to ``dst``, each side in :func:`neighbours`
order; each one reached costs one plan, two when its first step is cheaper
than the direct plan (only then is its second step worth planning).  The
planner searches only warp-local conversions (a register/lane swap keeps the
warps, so both steps stay inside the warp and are planned with the registers
and shuffle paths only, no shared-memory synthesis); a conversion across warps
keeps its one-step plan.

**Floors, so that most steps are never planned.**  Planning a step (its shuffle
programs) is the whole cost of the search, so each step first gets a floor
from ranks of its layouts' flat columns (:func:`step_floor`; an intermediate
layout is a column swap, :class:`Endpoint`, built as a layout only when a step
to or from it is planned): the exact cost of a register step; for a step that
moves data between lanes, what every shuffle program of the planner must pay
(:func:`demand`, :func:`shuffle_floor`): a round and an unpack per word a
thread receives, the packing of the words a lane must send, and per word as many selects
as the rank of the destination's lane and warp elements outside the source
lanes' span (a sender's and a receiver's choices together).
Then, with the same answer as planning everything in order
(:func:`in_order_path`, the reference):

- an intermediate layout whose two floors add up to the direct cost cannot
  win; its first step is planned only when the budget's count depends on it
  (whether it used one plan or two decides whether a later layout that could
  win is reached), and one whose first floor alone reaches the direct cost
  used one plan without being planned;
- the second steps are planned best floor first, each with the ceiling of
  the best path so far (a step may stop looking once it cannot beat it: see
  :func:`~linlayout.convert.warp.shuffle_program`; the cheapest step below a
  ceiling does not depend on the ceiling), and a path whose floor cannot beat
  the best is skipped.

The graph is two layers deep, so its shortest path is this minimum over the
intermediate layouts; no graph library is needed.  On the 189 warp-local
conversions of the 520 Triton pairs and the speed corpus
(``tools/convert_multistep.py --compare``) the floors settle 131 searches
without planning a step, and the step plans drop from 4,549 to 492 (a
register step's floor is its exact cost: it is planned only if its path
wins), with the same answers.  A floor's soundness is what keeps the answer unchanged;
``tests/convert/test_multistep.py`` checks floors against planned steps and
the search against :func:`in_order_path`.  Compiler layouts' columns are
single element bits, so their floors are bit-mask arithmetic
(:func:`one_hot_demand`, :func:`register_step_cost`): about half a
millisecond for the 48 floors of a search that plans nothing.

**Why it stays opt-in.**  The floors are also the sound test of whether a
two-step plan could pay, and it passes on 14 of the speed corpus's 37
warp-local conversions; there the search plans up to 22 steps (tens of
milliseconds) to refute intermediate layouts whose floors lie well below
their costs: a single register/lane swap costs about twice its floor, because
the planner packs narrow elements into words (no program may take more
``shfl.sync`` than the widest pack's fewest, :func:`~linlayout.convert.warp.packed_shuffle_bound`)
and selects on both sides, which the floors, from ranks alone, cannot
know.  On that corpus the search leaves the median plan time as it is but
raises the 90th percentile by half (``tools/convert_multistep.py --speed``;
``docs/convert.md``), and it finds a cheaper plan on none of its pairs (on 2
of the 520 Triton pairs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..core import f2
from ..core.layout import LinearLayout
from ..errors import InputError
from .cost import COST_WEIGHTS, cost_of
from .solve import IndexBits, conversion_map, index_bits
from .warp import register_program

__all__ = ["neighbours", "cheapest_path", "in_order_path", "Demand", "demand", "one_hot_demand", "Masks",
           "shuffle_floor", "step_floor", "register_step_cost", "Floor", "step_bound", "MAX_STEP_PLANS"]

MAX_STEP_PLANS = 24
"""At most this many one-step plans per multi-step search, counted as if every step were planned (module doc)."""


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

    __slots__ = ("bits", "cols", "build", "built", "known", "masks")

    def __init__(self, bits: IndexBits, cols: tuple[int, ...], build: Callable[[], LinearLayout]) -> None:
        self.bits, self.cols, self.build, self.built, self.known = bits, cols, build, None, None
        self.masks: Masks | None | bool = False  # not computed yet

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


class Candidate(NamedTuple):
    """An intermediate layout whose path could win: its place in the order, its first step's cost (and plan, None
    while its exact floor stands for it) and its second step's floor."""

    index: int
    mid: Endpoint
    near_src: bool
    first_cost: int
    first: Any
    second: Floor


def intermediates(src: Endpoint, dst: Endpoint, limit: int | None = None) -> list[tuple[Endpoint, bool]]:
    """The intermediate layouts in the search's order (:func:`neighbours` of ``src``, then of ``dst``, each once),
    with whether each is next to ``src``; built from columns, their layouts only when needed.  ``limit``: only the
    first that many (the budget reaches at most :data:`MAX_STEP_PLANS`: each layout reached counts a plan)."""
    mids: list[tuple[Endpoint, bool]] = []
    seen = {src.cols, dst.cols}
    for side, near_src in ((src, True), (dst, False)):
        for pos in swaps(side.bits.reg, side.bits.lane):
            if len(mids) == limit:
                return mids
            i, j = pos
            cols = list(side.cols)
            cols[i], cols[j] = cols[j], cols[i]
            key = tuple(cols)
            if key not in seen:
                seen.add(key)
                mids.append((Endpoint(side.bits, key, lambda side=side, pos=pos: swapped(side.layout, pos)), near_src))
    return mids


def cheapest_path(src: LinearLayout, dst: LinearLayout, direct_cost: int, plan: Callable[..., Any],
                  element_bits: int) -> tuple[int, list[tuple[LinearLayout, Any]]] | None:
    """The cheapest two-step conversion ``src → mid → dst`` if it beats ``direct_cost``, else ``None``.

    ``plan(a, b, warp_local, ceiling)`` plans one step (a
    :class:`~linlayout.convert.plan.ConversionPlan`; with ``warp_local`` only
    the registers and shuffle paths; it may raise
    :class:`~linlayout.errors.InputError` when no step exists); only a step
    cheaper than ``ceiling`` matters, so the planner need not look for the
    cheapest step beyond it (any step costing at least ``ceiling`` serves).
    The steps' floors at ``element_bits`` (:func:`step_floor`) prune (module
    doc); the answer is that of planning every step the budget reaches
    (:func:`in_order_path`): the cheapest path among the intermediate layouts
    the budget reaches (ties: the cheaper first step, then the earlier layout).
    Returns ``(cost, [(mid, plan src→mid), (dst, plan mid→dst)])``.
    """
    return search(src, dst, direct_cost, plan, lambda a, b: step_bound(a, b, element_bits))


def search(src: LinearLayout, dst: LinearLayout, direct_cost: int, plan: Callable[..., Any],
           floor: Callable[[Endpoint, Endpoint], Floor]) -> tuple[int, list[tuple[LinearLayout, Any]]] | None:
    """:func:`cheapest_path` with any ``floor(a, b)``: a :class:`Floor` of the step ``a → b`` (Endpoints).

    A step whose floor is exact is planned only if its path wins (a register
    step's plan does not depend on the ceiling).
    """
    source, target = Endpoint.of(src), Endpoint.of(dst)
    candidates = reachable_candidates(source, target, direct_cost, plan, floor)
    best_key, best = (direct_cost, -1, -1), None
    for c in sorted(candidates, key=lambda c: (c.first_cost + c.second.value, c.first_cost, c.index)):
        first = c.first_cost
        if (first + c.second.value, first, c.index) >= best_key:
            continue  # no second step can make this path beat the best one
        second = None
        if c.second.exact:
            second_cost = c.second.value
        else:
            ceiling = best_key[0] - first + ((first, c.index) < best_key[1:])  # a tie wins with a cheaper first step
            try:
                second = plan(c.mid.layout, dst, not c.near_src, ceiling)
            except InputError:
                continue
            second_cost = second.cost
        key = (first + second_cost, first, c.index)
        if key < best_key:
            best_key, best = key, (c, second)
    if best is None:
        return None
    c, second = best
    first_plan = c.first if c.first is not None else plan(src, c.mid.layout, c.near_src, direct_cost)
    if second is None:
        second = plan(c.mid.layout, dst, not c.near_src, direct_cost - c.first_cost)
    return int(best_key[0]), [(c.mid.layout, first_plan), (dst, second)]


def reachable_candidates(src: Endpoint, dst: Endpoint, direct_cost: int, plan: Callable[..., Any],
                         floor: Callable[[Endpoint, Endpoint], Floor]) -> list[Candidate]:
    """The intermediate layouts within the budget whose path could beat ``direct_cost``, first steps known.

    The budget counts each layout reached as one plan, two when its first step
    costs less than ``direct_cost``.  A layout that cannot win (its floors add up
    to ``direct_cost``) is *pending* until the count needs to know which: only
    when a later layout that could win would be reached with one count and
    not with the other is its first step planned.  A first step whose floor is
    exact is not planned here.
    """
    known, pending = 0, []  # plans counted for sure; layouts that count one or two plans, not known yet
    out = []
    mids = intermediates(src, dst, MAX_STEP_PLANS)

    def counted(index: int) -> int:  # plan a pending layout's first step: two plans if it costs less than direct
        mid, near_src = mids[index]
        try:
            return 2 if plan(src.layout, mid.layout, near_src, direct_cost).cost < direct_cost else 1
        except InputError:
            return 1

    for i, (mid, near_src) in enumerate(mids):
        if known + len(pending) >= MAX_STEP_PLANS:
            break  # the budget is spent before this layout whatever the pending ones count
        first_floor = floor(src, mid)
        if first_floor.value >= direct_cost:
            known += 1  # its first step is planned and found too costly: one plan
            continue
        second_floor = floor(mid, dst)
        if first_floor.value + second_floor.value >= direct_cost:
            if first_floor.exact:
                known += 2  # its first step costs less than direct: both steps are planned
            else:
                pending.append(i)
            continue
        while pending and known + len(pending) < MAX_STEP_PLANS <= known + 2 * len(pending):
            known += counted(pending.pop(0))  # reached or not depends on the pending counts: learn the oldest
        if known + len(pending) >= MAX_STEP_PLANS:
            break
        first = None
        if first_floor.exact:
            first_cost = first_floor.value
        else:
            try:
                first = plan(src.layout, mid.layout, near_src, direct_cost)
            except InputError:
                known += 1
                continue
            first_cost = first.cost
            if first_cost >= direct_cost:
                known += 1
                continue
        known += 2
        out.append(Candidate(i, mid, near_src, first_cost, first, second_floor))
    return out


def in_order_path(src: LinearLayout, dst: LinearLayout, direct_cost: int,
                  plan: Callable[..., Any]) -> tuple[int, list[tuple[LinearLayout, Any]]] | None:
    """The search without floors, the reference :func:`cheapest_path` must agree with: every step the budget
    reaches planned in order, the second with the ceiling ``direct_cost`` less the first (the search before the
    floors; slower, same answer)."""
    source, target = Endpoint.of(src), Endpoint.of(dst)
    budget, best_key, best = MAX_STEP_PLANS, (direct_cost, -1, -1), None
    for i, (mid, near_src) in enumerate(intermediates(source, target, MAX_STEP_PLANS)):
        if budget <= 0:
            break
        budget -= 1
        try:
            first = plan(src, mid.layout, near_src, direct_cost)
            if first.cost >= direct_cost:
                continue  # the second step costs at least 0: this path cannot win
            budget -= 1
            second = plan(mid.layout, dst, not near_src, direct_cost - first.cost)
        except InputError:
            continue
        key = (first.cost + second.cost, first.cost, i)
        if key < best_key:
            best_key, best = key, [(mid.layout, first), (dst, second)]
    return None if best is None else (int(best_key[0]), best)
