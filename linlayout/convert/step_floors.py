"""Floors on the cost of one warp-local step, from ranks and masks of the two layouts' columns.

The two-step search (:mod:`linlayout.convert.multistep`) prices a path
through an intermediate layout by planning its two steps; planning a step
(its shuffle programs) is the whole cost of the search, so each step first
gets a floor here, and a path whose floors reach the direct cost is never
planned.

A layout enters as an :class:`Endpoint`: its flat index columns
(:func:`~linlayout.convert.solve.index_bits`), its layout built only when a
step to or from it is planned.  The floor of a step (:func:`step_bound`):

- a **register step** (every thread holds what it needs): its exact cost,
  the selects of :func:`~linlayout.convert.warp.register_program`
  (:func:`register_step_cost` when the source's registers are distinct bits);
- a **shuffle step**: what every shuffle program of the planner must pay for
  the step's :class:`Demand` (:func:`demand`: the elements a thread lacks,
  those a lane must send, and the selects per word from the rank of the
  destination's lane and warp elements outside the source lanes' span):
  :func:`shuffle_floor`, a round and an unpack per word received, the
  packing of the words sent, the selects, and the shuffle path's constant.

Compiler layouts' columns are single element bits, so their demand is
bit-mask arithmetic (:func:`mask_demand` on :class:`Masks` and the
:func:`moves`); when both ends of a step are of *distinct* bits
(:func:`distinct_bits`) and one swap apart, the demand depends only on the
swap's kind and the register count (:func:`swap_demand`, :func:`swap_floor`),
and the other step of a path through such a swap has a floor from the ends'
masks alone (:func:`far_floor`), which lets the search settle whole kinds of
intermediate layouts before listing them.

**A step across one swap has its exact cost** (:func:`swap_step_cost`,
:func:`swap_bound`), not only a floor: the floor from its demand lies at about
half of it (the planner packs every word on both sides and selects three
times per word a mixed swap receives, which ranks cannot see).  Proof, for a
layout ``S`` of distinct bits with ``R`` register and ``L`` lane bases and
``T`` = ``S`` with the flat columns at ``a < b`` exchanged:

1. *The conversion map is the exchange of the index bits* ``a`` *and* ``b``.
   :func:`~linlayout.convert.solve.conversion_map` takes a destination basis
   whose own slot holds its element to that slot: every warp and block basis
   (the same columns in ``S`` and ``T``, whatever they hold: zero, a bit of
   their own or a repeat) and every register and lane basis but ``a`` and
   ``b``.  Basis ``a`` of ``T`` holds ``S``'s column ``b``, basis ``b``
   ``S``'s column ``a``; ``S``'s register and lane columns are independent
   (distinct single bits), so inside the warp each has exactly one source
   slot, ``b`` and ``a``, and the solver, which solves at the lowest level
   (a lane basis keeps its lane below level 1; the difference of ``a`` and
   ``b``'s elements needs a lane, so it solves at level 1 over the registers
   and lanes), finds that one.  The map is the same for every such ``S``:
   it depends on ``(R, L, warps, blocks, a, b)`` only.
2. *The step's cost is a function of that map and the element width.*  The
   search's step planner (``plan._plan`` without the search and without shared
   memory while a warp-local path exists) plans a level-1 map by
   :func:`~linlayout.convert.warp.shuffle_program`, which reads the map's
   columns and bit counts; of the layouts' columns only the null space of the
   source's register and lane columns (free variables: none here) and the
   shuffle lower bound (ranks; stored in the program, never used to choose).
   The warp and block columns of the map are their own slots, with no
   register or lane part, so the programs' warp terms are zero and the warp
   and block counts change no count: the cost is ``F(R, L, a, b, width)``.
3. *The values.*  ``F`` over every ``R <= 8`` (:data:`SWAP_STEP_REGISTERS`),
   ``L <= 5``, width and swap (2,880 maps, each both ways round) is planned by
   ``tests/convert/test_multistep_floor.py`` (the thorough profile, or
   ``LINLAYOUT_EXHAUSTIVE=1``; 24 random layouts in the default run) and equals
   :func:`swap_step_cost`'s formula everywhere, whatever the swap's place.
   ``T → S`` is the same statement for ``T`` (of distinct bits too).

The same holds, with the same proof, for a layout whose register columns may
also be zero (broadcast registers, :func:`broadcast_registers`) when the swap
exchanges two non-zero columns: a zero register basis of ``T`` is a copy (the
solver's column 0, whatever the layout), so the map is the exchange with those
columns zero, a function of ``(R, L, the zero registers, a, b)``; the test
plans every one with at most :data:`SWAP_STEP_BROADCASTS` zero register
(15,840 maps in all), and the cost is that of the layout without the zero
registers (``swap_step_cost`` of the non-zero ones).

Outside that range :func:`swap_bound` falls back to the floor
(:func:`swap_floor`), and :func:`broadcast_swap_bound` (a layout with zero
registers) to none: the step is then floored from its columns.  A step whose two ends differ by one swap is
recognised from the columns too (:func:`one_swap`), so every floor the search
reads agrees.

A floor above a step's real cost would make the search drop a path that
wins: ``tests/convert/test_multistep.py`` and ``test_multistep_floor.py``
check every floor against floors from columns and against planned steps.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

from ..core import f2
from ..core.layout import LinearLayout
from ..errors import InputError
from .cost import COST_WEIGHTS, cost_of
from .solve import IndexBits, conversion_map, index_bits
from .warp import register_program

__all__ = ["Spans", "Masks", "masks_of", "SwapMasks", "ors_but_one",
           "Endpoint", "Demand", "demand", "one_hot_demand", "moves", "mask_demand",
           "shuffle_floor", "Floor", "step_floor", "step_bound", "register_step_cost", "mask_step_floor",
           "mask_register_floor",
           "distinct_bits", "swap_demand", "swap_floor", "far_floor", "may_meet_own", "register_step_floor", "classes",
           "SWAP_STEP_REGISTERS", "SWAP_STEP_BROADCASTS", "swap_step_cost", "swap_bound", "broadcast_swap_bound",
           "one_swap", "swap_between", "broadcast_registers", "broadcast_lanes", "zeros_among_distinct"]


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


def masks_of(bits: IndexBits, cols: tuple[int, ...] | list[int]) -> Masks:
    """The :class:`Masks` of a layout whose columns are single element bits or zero (not checked)."""
    registers = lanes = 0
    for c in cols[:bits.reg]:
        registers |= c
    for c in cols[bits.reg:bits.reg + bits.lane]:
        lanes |= c
    return Masks(registers, lanes)


class SwapMasks:
    """The :class:`Masks` of every layout one swap (:func:`~linlayout.convert.multistep.swaps`) from a layout of
    single-bit columns, each read in constant time: made once per side, from the OR of its register columns but one
    and of its lane columns but one (a side of repeated or broadcast columns, whose swaps' masks no bit flip gives;
    :func:`masks_of` would go over every column of every swapped layout)."""

    __slots__ = ("bits", "cols", "masks", "registers_but", "lanes_but")

    def __init__(self, bits: IndexBits, cols: tuple[int, ...]) -> None:
        self.bits, self.cols, self.masks = bits, cols, masks_of(bits, cols)
        self.registers_but = ors_but_one(cols[:bits.reg])
        self.lanes_but = ors_but_one(cols[bits.reg:bits.reg + bits.lane])

    def swapped(self, i: int, j: int) -> Masks:
        """The masks of the layout with the flat columns ``i < j`` exchanged (a lane transposition keeps them)."""
        reg = self.bits.reg
        if j < reg or i >= reg:
            return self.masks
        return Masks(self.registers_but[i] | self.cols[j], self.lanes_but[j - reg] | self.cols[i])


def ors_but_one(values: tuple[int, ...] | list[int]) -> list[int]:
    """For each position, the OR of every other value (from prefix and suffix ORs: linear, not quadratic).

    >>> ors_but_one([1, 2, 4, 2])
    [6, 7, 3, 7]
    """
    n = len(values)
    prefix, suffix = [0] * (n + 1), [0] * (n + 1)
    for k in range(n):
        prefix[k + 1] = prefix[k] | values[k]
        suffix[n - 1 - k] = suffix[n - k] | values[n - 1 - k]
    return [prefix[k] | suffix[k + 1] for k in range(n)]


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
            self.masks = masks_of(self.bits, self.cols) if f2.single_bits(self.cols) else None
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
    both = ss.registers.copy()
    both.extend(d_cols[:dh.reg])
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
    selects = ss.lanes.copy().extend((*d_cols[dh.reg:dh.reg + dh.lane], *moved[sh.lane:]))
    return Demand(remote, sent, selects, 1 << sh.reg)


def one_hot_demand(src: Endpoint, dst: Endpoint, sm: Masks, dm: Masks) -> Demand:
    """:func:`demand` of two layouts of single-bit columns, by bit masks (the same quantities, no elimination)."""
    return mask_demand(src.bits, moves(src, dst), sm, dm)


def moves(src: Endpoint, dst: Endpoint) -> list[int]:
    """The differences of the two layouts' lane, warp and block columns (what a thread's position moves)."""
    return [a ^ b for a, b in zip(src.cols[src.bits.reg:], dst.cols[dst.bits.reg:])]


def mask_demand(sh: IndexBits, differences: list[int], sm: Masks, dm: Masks) -> Demand:
    """:func:`one_hot_demand` from the source's index bits, the :func:`moves` and the two sides' masks (what
    :func:`one_hot_paths` knows of a step without an :class:`Endpoint`)."""
    s_regs, s_lanes, d_regs = sm.registers, sm.lanes, dm.registers
    shared = 1 << (s_regs & d_regs).bit_count()  # |Dr ∩ Sr|
    reach = 0  # the bits the lane, warp and block bases' differences touch
    for v in differences:
        reach |= v
    # the warp and block bases' differences outside the source lanes' span
    outside_warps = [v & ~s_lanes for v in differences[sh.lane:] if v & ~s_lanes]
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
    """:func:`step_floor`, marked exact for a register step and for a step across one swap of a layout of distinct
    bits (:func:`swap_bound`): the search then needs no plan to know its cost."""
    src = src if isinstance(src, Endpoint) else Endpoint.of(src)
    dst = dst if isinstance(dst, Endpoint) else Endpoint.of(dst)
    for mid, side in ((dst, src), (src, dst)):
        if mid.swap is not None and mid.swap[0] is side:  # one swap between them: its cost from counts
            return swap_bound(side.bits, mid.swap[1], element_bits)
    swap = one_swap(src, dst)
    across = None if swap is None else broadcast_swap_bound(src.bits, swap[0], element_bits, swap[1])
    if across is not None:
        return across
    sm, dm = src.one_hot(), dst.one_hot()
    if sm is not None and dm is not None:
        found = mask_step_floor(src.bits, moves(src, dst), sm, dm, element_bits)
        if found is not None:
            return found
    else:
        need = demand(src, dst)
        if need.remote:
            return Floor(shuffle_floor(need, element_bits))
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
    return _register_cost(moves(src, dst), dm)


def _register_cost(differences: list[int], dm: Masks) -> int:
    selects = (1 << dm.registers.bit_count()) * ((1 << f2.rank(differences)) - 1)
    return COST_WEIGHTS["selp"] * selects  # cost_of({"selp": selects}): selects owe no path constant


def mask_register_floor(differences: list[int], dm: Masks) -> int:
    """A floor on the cost of a register step (every thread holds what it needs) between two layouts of single-bit
    columns, whatever the source's registers (:func:`register_step_cost`'s value, exact when they are distinct bits);
    ``differences``: the step's :func:`moves`.

    The level-0 map sends destination register ``r`` of thread ``t`` to source register ``Qr r ⊕ T t`` (``T = [Ql
    Qω]``) holding the same element, so the source's register columns ``Sr`` satisfy ``Sr Qr = Dr`` (the
    destination's register columns) and ``Sr T`` = the differences.  Hence ``rank Qr >= rank Dr`` (the bits of the
    destination's register mask) and ``rank T >= rank(differences)``, and the selects ``2^rank(Qr) (2^rank(T) - 1)``
    of :class:`~linlayout.convert.warp.RegisterProgram` grow with both: a source register repeated or zero only
    gives the map more registers to choose from, never fewer selects than this.
    """
    return _register_cost(differences, dm)


def mask_step_floor(sh: IndexBits, differences: list[int], sm: Masks, dm: Masks, element_bits: int) -> Floor | None:
    """:func:`step_bound` of two layouts of single-bit columns, from :func:`mask_demand`'s arguments; None for a
    register step whose source registers are not distinct bits (its cost needs the conversion map)."""
    need = mask_demand(sh, differences, sm, dm)
    if need.remote:
        return Floor(shuffle_floor(need, element_bits))
    if sm.registers.bit_count() != sh.reg:
        return None
    return Floor(_register_cost(differences, dm), exact=True)


def distinct_bits(point: Endpoint) -> Masks | None:
    """``point``'s :class:`Masks` when its register and lane columns are distinct single element bits (no zero, no
    repeat: a warp holds ``2^(registers + lanes)`` distinct elements), else None."""
    m = point.one_hot()
    if m is None or m.registers & m.lanes:
        return None
    if m.registers.bit_count() != point.bits.reg or m.lanes.bit_count() != point.bits.lane:
        return None
    return m


def swap_demand(registers: int, mixed: bool, zero_lanes: int = 0) -> Demand:
    """The :func:`demand` of a step between a layout of distinct bits (:func:`distinct_bits`) with ``registers``
    register bases and the same layout with one swap applied, either way round: it depends on the swap's kind only.
    ``zero_lanes``: the layout's non-zero columns are distinct bits and that many of its lane columns are zero
    (:func:`broadcast_lanes`), and the swap exchanges two non-zero columns.

    Say the swap exchanges register bit ``r`` with lane bit ``l`` (``mixed``).  Both layouts have distinct bits,
    ``R = registers`` register bits, the same set of bits in all, and differ only in that register and that lane.
    The register spans share ``R - 1`` bits (``|Dr ∩ Sr| = 2^(R-1)``) and the one differing lane's difference
    ``r ⊕ l`` lies in their sum (every thread meets its own elements): ``remote = 2^R - 2^(R-1)``.  A lane's
    elements repeat in ``2^z = 2^zero_lanes`` lanes (the zero lanes' combinations), so ``sent = max(0, 2^R - 2^z
    2^(R-1))``: ``2^R - 2^(R-1)`` with no zero lane, none with one.  The destination's lanes hold one bit outside
    the source lanes' span (``r`` or ``l``) and the warps agree: ``selects = 1``.

    A lane transposition exchanges lane bits ``l1`` and ``l2``: the register spans agree, the two lanes'
    differences ``l1 ⊕ l2`` lie outside them (no thread meets its own elements): ``remote = 2^R``; a group of
    ``2^z`` lanes needs at most ``2^(z-1) 2^R`` of its own when threads do not meet theirs: ``sent = 2^R`` with no
    zero lane, none with one; the lanes keep their span: ``selects = 0``.  In both cases the step's source has
    ``R`` registers: ``2^R`` per thread.  (Each is :func:`mask_demand`'s arithmetic on the two layouts' masks.)

    >>> swap_demand(2, True), swap_demand(2, False)
    (Demand(remote=2, sent=2, selects=1, src_registers=4), Demand(remote=4, sent=4, selects=0, src_registers=4))
    >>> swap_demand(2, True, zero_lanes=1), swap_demand(2, False, zero_lanes=1)
    (Demand(remote=2, sent=0, selects=1, src_registers=4), Demand(remote=4, sent=0, selects=0, src_registers=4))
    """
    held, repeats = 1 << registers, 1 << zero_lanes
    half = 1 << max(registers - 1, 0)
    if mixed:
        return Demand(half, max(0, held - repeats * half), 1, held)
    return Demand(held, max(0, held - repeats // 2 * held), 0, held)


@functools.lru_cache(maxsize=256)  # keyed on two counts, a kind and a width
def swap_floor(registers: int, mixed: bool, element_bits: int, zero_lanes: int = 0) -> int:
    """:func:`step_floor` of a step across one swap of a layout of distinct bits (:func:`swap_demand`; of two non-zero
    columns of a layout of distinct bits but for ``zero_lanes`` zero lanes): every thread lacks an element
    (``remote >= 1``), so it is a shuffle step, whose floor is :func:`shuffle_floor`."""
    return shuffle_floor(swap_demand(registers, mixed, zero_lanes), element_bits)


def far_floor(src: Endpoint, dst: Endpoint, near_src: bool, mixed: bool, element_bits: int, own: bool = True) -> int:
    """A floor on the floor (:func:`step_bound`) of every path's other step (not across its swap) through a swap of
    the kind ``(near_src, mixed)``, from the ends' masks alone: the side swapped (``src`` when ``near_src``, else
    ``dst``) has distinct bits (:func:`distinct_bits`), the other end single-bit columns.

    The other step joins the intermediate layout ``mid`` with the far end ``F`` (``mid → dst`` when ``mid`` is a
    swap of ``src``, ``src → mid`` when of ``dst``).  A mixed swap moves a register bit ``r`` of the side to its
    lanes and a lane bit ``l`` to its registers, so with ``k`` the register bits ``src`` and ``dst`` share and ``o``
    the bits of ``dst``'s lanes outside ``src``'s, the step's registers share ``k - [r ∈ F's registers] + [l ∈ F's
    registers]`` bits and its destination's lanes hold ``o + [l ∈ F's lanes] - [r ∈ F's lanes]`` bits outside its
    source's lanes (a transposition keeps the masks: ``k`` and ``o``).  Every thread meeting its own elements
    gives the least :func:`demand` (``remote = 2^|Dr| - 2^shared``, ``sent = 2^|Sr| - 2^z 2^shared`` under
    :func:`mask_demand`'s condition, ``2^z`` the lanes repeating a source lane), and the select rank is at least
    the lanes' bits.  So the floor is the least :func:`shuffle_floor` (monotone in each count) over the classes
    of ``r`` and ``l`` (their membership in ``F``'s registers and lanes) the side has; for a register step (a
    class leaving no element remote when every thread meets its own) the least of its :func:`register_step_floor`
    and the shuffle floor of a step in which none does (0 when the step's source registers are not distinct bits:
    its cost then needs the conversion map).

    The same holds for a side of distinct bits but for zero columns (:func:`broadcast_lanes`,
    :func:`broadcast_registers`) and a swap of two of its non-zero columns (:func:`nonzero_swap_floors
    <linlayout.convert.multistep.nonzero_swap_floors>`): ``r`` and ``l`` are then distinct single bits, the swap
    keeps the number of zero lanes (so ``2^z``) and of register bits, and everything above reads the masks only.

    ``own=False``: no swap of the kind leaves every thread of the other step meeting its own elements
    (:func:`may_meet_own`), so each class's step lacks every element its destination holds (``remote = 2^|Dr|``,
    and a group's own lanes need at most ``2^(z-1) 2^shared``), and none is a register step.
    """
    sm, dm = src.one_hot(), dst.one_hot()
    side, far = (sm, dm) if near_src else (dm, sm)
    shared, outside = (sm.registers & dm.registers).bit_count(), (dm.lanes & ~sm.lanes).bit_count()
    needed, held = 1 << dm.registers.bit_count(), 1 << sm.registers.bit_count()
    sends = not sm.registers & sm.lanes and (sm.registers | sm.lanes).bit_count() == (dm.registers | dm.lanes).bit_count()
    repeats = 1 << (src.bits.lane - sm.lanes.bit_count())
    changes = [(0, 0)]  # (change of the shared register bits, change of the outside lane bits)
    if mixed:
        moved_out, moved_in = classes(side.registers, far), classes(side.lanes, far)
        changes = [(l_reg - r_reg, l_lane - r_lane) for r_reg, r_lane in moved_out for l_reg, l_lane in moved_in]
    floors = []
    for more_shared, more_outside in changes:
        common = 1 << (shared + more_shared)
        sent = max(0, held - (repeats if own else repeats // 2) * common) if sends else 0
        if not own:
            common = 0  # no thread meets its own elements
        elif needed <= common:  # a register step when every thread meets its own elements, else none is local
            if sm.registers.bit_count() != src.bits.reg:
                return 0  # its exact cost needs the conversion map (its source's registers are not distinct bits)
            floors.append(register_step_floor(src, dst, needed, 1 if mixed else 2))
            common = 0
        need = Demand(needed - common, sent, max(0, outside + more_outside), 1 << src.bits.reg)
        floors.append(shuffle_floor(need, element_bits))
    return min(floors, default=0)


def may_meet_own(src: Endpoint, dst: Endpoint, near_src: bool) -> bool:
    """Whether a mixed swap of the side (``src`` when ``near_src``, else ``dst``) exchanging two non-zero columns can
    leave the path's other step with every thread meeting its own elements (:func:`mask_demand`'s ``own``); when
    not, :func:`far_floor` counts every element a thread needs as remote.  Both layouts single-bit columns.

    The other step's moves are the ends' (:func:`moves`) with the swapped lane's replaced, and ``own`` needs every
    bit they touch among the step's two register masks, which lie inside the ends' registers and the swapped lane's
    bit ``l`` (one end's registers, and the other's with ``l`` in for a register bit out).  So some lane ``j``
    holding a bit must have every other move's bits inside ``src``'s and ``dst``'s registers and its own bit.
    """
    allowed = src.one_hot().registers | dst.one_hot().registers
    others = ors_but_one(moves(src, dst))  # per lane: every other lane's, warp's and block's move
    side = src if near_src else dst
    lanes = side.cols[side.bits.reg:side.bits.reg + side.bits.lane]
    return any(bit and not others[j] & ~(allowed | bit) for j, bit in enumerate(lanes))


def register_step_floor(src: Endpoint, dst: Endpoint, needed: int, changed: int) -> int:
    """A floor on :func:`register_step_cost` of a step whose destination needs ``needed`` elements per thread and
    whose :func:`moves` are ``src → dst``'s with ``changed`` lane columns replaced: each replacement lowers their
    rank by at most one."""
    rank = max(0, f2.rank(moves(src, dst)) - changed)
    return cost_of({"selp": needed * ((1 << rank) - 1)} if rank else {})


def classes(bits: int, far: Masks) -> set[tuple[int, int]]:
    """Which ``(in far's registers, in far's lanes)`` memberships the single bits of ``bits`` have."""
    out = set()
    for in_reg in (0, 1):
        for in_lane in (0, 1):
            if bits & (far.registers if in_reg else ~far.registers) & (far.lanes if in_lane else ~far.lanes):
                out.add((in_reg, in_lane))
    return out


SWAP_STEP_REGISTERS = 8
"""A step across one swap of a layout of distinct bits with at most this many register bases (and at most 5 lane
bases) has its exact cost from counts (:func:`swap_step_cost`): the range checked against the planner exhaustively."""

SWAP_STEP_BROADCASTS = 1
"""... and with at most this many of its register columns zero (broadcast registers, not swapped)."""


@functools.lru_cache(maxsize=256)  # keyed on two counts, a kind and a width: every search reads a few of them
def swap_step_cost(registers: int, lanes: int, mixed: bool, element_bits: int) -> int | None:
    """The planner's exact cost of a step across one swap (``mixed``: a register/lane swap, else a lane
    transposition) of a layout of distinct bits (:func:`distinct_bits`) with ``registers`` register and ``lanes``
    lane bases, either way round; None outside the range where it is established (:data:`SWAP_STEP_REGISTERS`
    register bases, 5 lane bases, 8- to 64-bit elements).

    The step's program: with ``n`` elements per word (as many as a 32-bit word holds, at most the elements the
    thread receives), a thread receives ``w`` words, half its ``2^R`` elements for a mixed swap (the other half
    stays), all of them for a transposition (no thread meets its own elements, :func:`swap_demand`); each word is
    a round (a ``shfl.sync`` per 32 bits of an element); every source word is packed and every destination word
    unpacked (``n - 1`` ``prmt`` each, or one ``mov`` for two 16-bit halves); a mixed swap selects three times per
    word received (the word to send, and the received word into one of two destination words), a transposition
    never.

    Why this holds for every such layout, whatever its elements and the swap's place (the module doc has the
    proof): the step's conversion map is forced -- the source's register and
    lane columns are distinct single bits, so each destination register and lane basis has one source slot
    inside the warp, and warp and block bases keep their own slot (they are the same in both layouts) -- and is
    the exchange of the two swapped index bits, whatever the columns hold.  The step planner reads only that
    map (its columns and bit counts; the warps' and blocks' columns reach no register or lane), so the step's
    cost is a function of ``(registers, lanes, the two positions, element_bits)``: finitely many maps in the range
    above, and ``tests/convert/test_multistep_floor.py`` plans every one of them (every position, both kinds,
    every width) against this formula; a random sample runs in the default suite.

    >>> swap_step_cost(6, 5, True, 16), swap_step_cost(6, 5, False, 16), swap_step_cost(9, 5, True, 16)
    (1357, 925, None)
    """
    if registers > SWAP_STEP_REGISTERS or lanes > 5 or element_bits not in (8, 16, 32, 64) or (mixed and not registers):
        return None
    held = 1 << registers  # distinct elements per thread, in source and destination alike
    received = held // 2 if mixed else held
    n = min(max(1, 32 // element_bits), received)
    words = received // n
    counts = {"shfl.sync": words * max(1, element_bits // 32), "selp": 3 * words if mixed else 0,
              "prmt": (n - 1) * (held // n)}  # packing every source word
    if n == 2 and element_bits == 16:
        counts["mov"] = held // n  # unpacking every destination word: one mov.b32 {lo, hi}
    else:
        counts["prmt"] += (n - 1) * (held // n)
    return cost_of(counts)


def swap_bound(bits: IndexBits, mixed: bool, element_bits: int) -> Floor:
    """The :class:`Floor` of a step across one swap of a layout of distinct bits with index bits ``bits``: exact
    (:func:`swap_step_cost`) where it is established (:data:`SWAP_STEP_REGISTERS`), else :func:`swap_floor`."""
    exact = broadcast_swap_bound(bits, mixed, element_bits, 0)
    return Floor(swap_floor(bits.reg, mixed, element_bits)) if exact is None else exact


def broadcast_swap_bound(bits: IndexBits, mixed: bool, element_bits: int, broadcasts: int) -> Floor | None:
    """The exact :class:`Floor` of a step across one swap of two non-zero columns of a layout whose register and lane
    columns are distinct single bits but for ``broadcasts`` zero register columns (:func:`broadcast_registers`):
    :func:`swap_step_cost` of its non-zero registers, where it is established (at most :data:`SWAP_STEP_REGISTERS`
    register bases, :data:`SWAP_STEP_BROADCASTS` of them zero); else None (floor the step from its columns)."""
    if bits.reg > SWAP_STEP_REGISTERS or broadcasts > SWAP_STEP_BROADCASTS:
        return None
    cost = swap_step_cost(bits.reg - broadcasts, bits.lane, mixed, element_bits)
    return None if cost is None else Floor(cost, exact=True)


def broadcast_registers(point: Endpoint) -> int | None:
    """How many register columns of ``point`` are zero when every other register and lane column is a distinct single
    element bit (a layout of distinct bits, :func:`distinct_bits`, but for broadcast registers); else None."""
    return zeros_among_distinct(point, 0, point.bits.reg)


def broadcast_lanes(point: Endpoint) -> int | None:
    """How many lane columns of ``point`` are zero when every register column and every other lane column is a
    distinct single element bit (a layout of distinct bits, :func:`distinct_bits`, but for broadcast lanes, as a
    blocked layout narrower than its warp has); else None.

    >>> broadcast_lanes(Endpoint.of(LinearLayout({"register": [[1]], "lane": [[0], [2]]}, {"dim0": 4})))
    1
    """
    return zeros_among_distinct(point, point.bits.reg, point.bits.reg + point.bits.lane)


def zeros_among_distinct(point: Endpoint, start: int, stop: int) -> int | None:
    """How many of ``point``'s register and lane columns at positions ``start .. stop - 1`` (flat, registers first)
    are zero when every other register and lane column is a distinct single element bit; else None: the test of
    :func:`broadcast_registers` and :func:`broadcast_lanes`."""
    seen, zeros = 0, 0
    for k, c in enumerate(point.cols[:point.bits.reg + point.bits.lane]):
        if not c and start <= k < stop:
            zeros += 1
        elif not c or c & (c - 1) or c & seen:
            return None
        seen |= c
    return zeros


def one_swap(src: Endpoint, dst: Endpoint) -> tuple[bool, int] | None:
    """Whether ``dst`` is ``src`` with one swap applied (:func:`~linlayout.convert.multistep.swaps`) of two non-zero
    columns, ``src`` of distinct bits but for broadcast registers (:func:`broadcast_registers`): None if not, else
    whether the swap is mixed (a register with a lane) and how many registers are zero."""
    if src.bits != dst.bits:
        return None
    mixed = swap_between(src.bits, src.cols, dst.cols)
    zeros = None if mixed is None else broadcast_registers(src)
    return None if zeros is None else (mixed, zeros)


def swap_between(bits: IndexBits, a: tuple[int, ...], b: tuple[int, ...]) -> bool | None:
    """Whether the columns ``b`` are ``a`` with two non-zero register or lane columns exchanged (and nothing else
    changed): None if not, else whether the exchange is mixed (a register with a lane)."""
    differ = [k for k, (x, y) in enumerate(zip(a, b)) if x != y]
    if len(differ) != 2:
        return None
    i, j = differ
    if j >= bits.reg + bits.lane or a[i] != b[j] or a[j] != b[i] or not a[i] or not a[j]:
        return None
    return i < bits.reg
