"""The two-step search's floors are lower bounds, and pruning by them changes no answer.

The reference is :func:`~linlayout.convert.multistep.in_order_path`, the search as it was before the
floors: every step the budget reaches planned in order (an intermediate layout costs one plan, two
when its first step beats the direct cost), the cheapest path kept (ties:
the cheaper first step, then the earlier layout).  ``tools/convert_multistep.py
--compare`` checks the same on the 520 Triton pairs and the speed corpus.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

import linlayout.convert.multistep as multistep
import linlayout.convert.step_floors as step_floors
import linlayout.convert.plan as planner
from linlayout.convert.cost import COST_WEIGHTS
from linlayout.convert.multistep import (MAX_INTERMEDIATES, MAX_STEP_PLANS, SearchResult, cheapest_path,
                                         in_order_path, intermediates, kind_floors, neighbours, search, swap_columns)
from linlayout.convert.step_floors import Endpoint, Floor, demand, distinct_bits, shuffle_floor, step_bound, step_floor
from linlayout.convert.plan import plan_conversion
from linlayout.convert.solve import aligned, conversion_map
from linlayout.core.layout import LinearLayout
from linlayout.errors import InputError

from ..conftest import examples
from .samples import random_pair


def warp_local_pairs(seed: int, n: int):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        src, dst = random_pair(rng, rng.choice([1, 2]), "warp", mixed=False, max_regs_bits=2)
        dst = aligned(src, dst)
        if src != dst and conversion_map(src, dst).level <= 1:
            out.append((src, dst, rng.choice([8, 16, 32, 64])))
    return out


def planner_search(monkeypatch, src, dst, bits) -> dict:
    """What plan_conversion hands the search: its step planner, the aligned dst and the direct cost."""
    seen: dict = {}

    def spy(s, d, direct, plan, element_bits=None):
        seen.update(plan=plan, dst=d, direct=direct)
        return SearchResult(None, 0, 0)

    monkeypatch.setattr(planner, "cheapest_path", spy)
    plan_conversion(src, dst, bits, multistep=True)
    monkeypatch.undo()
    return seen


def step_planner(src, dst, bits):
    """The step planner plan_conversion hands the search (None when it does not search: a free conversion)."""
    seen: dict = {}

    def spy(s, d, direct, plan, element_bits=None):
        seen["plan"] = plan
        return SearchResult(None, 0, 0)

    search, planner.cheapest_path = planner.cheapest_path, spy
    try:
        plan_conversion(src, dst, bits, multistep=True)
    finally:
        planner.cheapest_path = search
    return seen.get("plan")


def test_the_intermediate_layouts_are_the_neighbours_in_order():
    src, dst, _ = warp_local_pairs(1, 1)[0]
    mids = intermediates(Endpoint.of(src), Endpoint.of(dst), None)
    expected = []
    for side, near in ((src, True), (dst, False)):
        expected += [(m, near) for m in neighbours(side) if m not in {src, dst} | {e for e, _ in expected}]
    assert [(m.layout, near) for m, near in mids] == expected
    first = intermediates(Endpoint.of(src), Endpoint.of(dst))  # the search's reach
    assert [m.cols for m, _ in first] == [m.cols for m, _ in mids[:MAX_INTERMEDIATES]]


def test_floors_never_exceed_a_planned_step(monkeypatch):
    tight = 0
    for src, dst, bits in warp_local_pairs(2, 3):
        step = planner_search(monkeypatch, src, dst, bits)["plan"]
        for mid, _ in intermediates(Endpoint.of(src), Endpoint.of(dst))[::3]:
            for a, b in ((src, mid.layout), (mid.layout, dst)):
                p = step(a, b, True, None)
                assert p.path in ("registers", "shuffles", "none")
                assert step_floor(a, b, bits) <= p.cost
                assert not step_bound(a, b, bits).exact or step_floor(a, b, bits) == p.cost
                tight += step_floor(a, b, bits) == p.cost > 0
    assert tight  # some shuffle step costs exactly its floor


@settings(max_examples=examples(6), deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_floors_never_exceed_a_planned_step_on_random_pairs(seed, mixed):
    """Any columns (``mixed``: several bits each, elimination; else single bits, masks): every step of the first
    intermediate layouts planned without a ceiling costs at least its floor, exactly it when the floor says exact."""
    rng = random.Random(seed)
    step = None
    while step is None:
        src, dst = random_pair(rng, rng.choice([1, 2]), "warp", mixed=mixed, max_regs_bits=2)
        dst, bits = aligned(src, dst), rng.choice([8, 16, 32, 64])
        if src != dst and conversion_map(src, dst).level <= 1:
            step = step_planner(src, dst, bits)
    source, target = Endpoint.of(src), Endpoint.of(dst)
    for mid, near_src in intermediates(source, target, 8):
        for a, b in ((source, mid), (mid, target)):
            bound, planned = step_bound(a, b, bits), step(a.layout, b.layout, True, None)
            assert bound.value <= planned.cost
            assert not bound.exact or bound.value == planned.cost


def test_a_shuffle_floor_counts_words_unpacking_packing_and_selects():
    # the destination lanes' elements 1 and 2 lie outside the source lanes' span: rank 2, two selects per word.
    # 32-bit: 3 words, each a shfl and 2 selects; 16-bit: 2 packed words cost 2 x (shfl + mov) + pack 2 x prmt and
    # 2 x 2 selects, or 3 words of one element; either way plus the shuffle path's constant
    w = COST_WEIGHTS
    src = LinearLayout({"register": [[1], [2]], "lane": [[4], [8], [16], [32], [64]]}, {"dim0": 128})
    dst = LinearLayout({"register": [[4], [8]], "lane": [[1], [2], [16], [32], [64]]}, {"dim0": 128})
    need = demand(src, dst)
    assert need == (3, 3, 2, 4)
    one_element = 3 * (w["shfl.sync"] + 2 * w["selp"])
    assert shuffle_floor(need, 32) == one_element + w["shuffle_path"]
    packed = 2 * (w["shfl.sync"] + w["mov"]) + 2 * w["prmt"] + 4 * w["selp"]
    assert shuffle_floor(need, 16) == min(one_element, packed) + w["shuffle_path"]
    for bits in (16, 32):  # the planner's program (3 shfl.sync, 16 selp) costs more
        assert shuffle_floor(need, bits) <= plan_conversion(src, dst, bits, paths=["shuffles"]).cost


def test_the_select_rank_is_zero_when_the_lanes_keep_their_span():
    # a lane transposition: every destination lane element is a source lane element
    src = LinearLayout({"register": [[1]], "lane": [[2], [4]]}, {"dim0": 8})
    dst = LinearLayout({"register": [[1]], "lane": [[4], [2]]}, {"dim0": 8})
    assert demand(src, dst).selects == 0
    assert demand(dst, src).selects == 0


def test_the_bit_mask_demand_and_register_cost_agree_with_elimination():
    """Single-bit columns take :func:`one_hot_demand` and :func:`register_step_cost`: the same floors as by
    elimination."""
    def by_elimination(e):
        point = Endpoint(e.bits, e.cols, lambda: e.layout)
        point.masks = None  # as if some column had several bits
        return point

    register_steps = 0
    for src, dst, bits in warp_local_pairs(5, 4):
        source, target = Endpoint.of(src), Endpoint.of(dst)
        assert source.one_hot() is not None
        for mid, _ in intermediates(source, target):
            for a, b in ((source, mid), (mid, target)):
                assert demand(a, b) == demand(by_elimination(a), by_elimination(b))
                assert step_bound(a, b, bits) == step_bound(by_elimination(a), by_elimination(b), bits)
                register_steps += demand(a, b).remote == 0
    assert register_steps


def at(layout, register, lane, warp):
    index = {"register": register, "lane": lane, "warp": warp}
    return layout.apply_flat({d: index[d] for d in layout.in_dims if d in index})


def test_demand_counts_what_a_thread_lacks_and_a_lane_sends():
    checked = 0
    for src, dst, _ in warp_local_pairs(3, 10):
        need = demand(src, dst)
        regs, lanes = src.in_sizes.get("register", 1), src.in_sizes["lane"]
        warps = src.in_sizes.get("warp", 1)
        held = {(l, w): {at(src, r, l, w) for r in range(regs)} for l in range(lanes) for w in range(warps)}
        wanted = {(l, w): {at(dst, r, l, w) for r in range(dst.in_sizes.get("register", 1))}
                  for l in range(lanes) for w in range(warps)}
        assert need.remote == max(len(wanted[t] - held[t]) for t in held)
        if need.sent:  # lanes holding the same set form a group; what no lane of it needs goes to other groups
            group = {t: [u for u in held if u[1] == t[1] and held[u] == held[t]] for t in held}
            sends = [len(held[t] - set().union(*(wanted[u] for u in group[t]))) for t in held]
            assert need.sent <= max(sends)
            if all(len(g) == 1 for g in group.values()):
                assert need.sent == max(sends)  # one lane per group: exact
        checked += need.sent > 0
    assert checked


@settings(max_examples=examples(80))
@given(st.integers(0, 2**32 - 1), st.sampled_from([MAX_STEP_PLANS, 10**6]))
def test_pruning_by_floors_gives_the_answer_of_planning_every_step(seed, bound):
    """Random step costs and floors at most the costs: the reference's path whenever the search completes (always
    without a work bound); never more plans than the bound (plus the winner's exact-floor steps) or the reference;
    stopped at the bound, no path or one cheaper than direct and no cheaper than the reference's."""
    rng = random.Random(seed)
    src = LinearLayout({"register": [[1], [2]], "lane": [[4], [8], [16], [32], [64]]}, {"dim0": 128})
    dst = LinearLayout({"register": [[4], [64]], "lane": [[1], [8], [16], [32], [2]]}, {"dim0": 128})
    direct = rng.randint(5, 40)
    costs, floors = {}, {}

    def key(a, b):
        return tuple(Endpoint.of(x).cols if isinstance(x, LinearLayout) else x.cols for x in (a, b))

    def cost(a, b):
        k = repr(key(a, b))
        if k not in costs:
            costs[k] = rng.choice([None, *range(0, 2 * direct)])  # None: no step exists
            exact = costs[k] is not None and rng.random() < 0.3  # a register step: the floor is its cost
            floors[k] = Floor(0) if costs[k] is None else Floor(costs[k], True) if exact else \
                Floor(rng.randint(0, costs[k]))
        return costs[k]

    def plan(calls):
        def planned(a, b, warp_local, ceiling):
            calls.append((a, b))
            c = cost(a, b)
            if c is None:
                raise InputError("no step")
            if c >= ceiling:  # beyond the ceiling any step costing at least the ceiling may come back
                c = ceiling + (len(calls) * 7 + c) % 3
            return SimpleNamespace(cost=c)
        return planned

    def floor(a, b):
        cost(a, b)
        return floors[repr(key(a, b))]

    slow, fast = [], []
    saved, multistep.MAX_STEP_PLANS = multistep.MAX_STEP_PLANS, bound
    try:
        want, found = in_order_path(src, dst, direct, plan(slow)), search(src, dst, direct, plan(fast), floor)
    finally:
        multistep.MAX_STEP_PLANS = saved
    got = found.path
    assert found.step_plans <= bound and len(fast) <= found.step_plans + 2 and len(fast) <= len(slow) + 2
    assert got is None or got[0] < direct
    if found.unsettled == 0:
        assert (want is None) == (got is None)
        if want is not None:
            assert want[0] == got[0] and want[1][0][0] == got[1][0][0]
            assert [p.cost for _, p in got[1]] == [p.cost for _, p in want[1]]
    else:
        assert found.step_plans == bound < 10**6 and (got is None or want[0] <= got[0])


def test_the_search_finds_the_planned_win_with_fewer_steps(monkeypatch):
    # tests/convert/test_plan.py's two-step win: one selp (11), then 2 shfl.sync (12 + 29), against 56 direct
    src = LinearLayout({"register": [[0, 1]], "lane": [[0, 4], [0, 0], [0, 8], [1, 0], [0, 2]]}, {"dim0": 2, "dim1": 16})
    dst = LinearLayout({"register": [[0, 0], [0, 4]], "lane": [[0, 5], [0, 2], [1, 5], [0, 8], [0, 0]]},
                       {"dim0": 2, "dim1": 16})
    given = planner_search(monkeypatch, src, dst, 16)
    slow, fast = [], []

    def counting(calls):
        def plan(*args):
            calls.append(args)
            return given["plan"](*args)
        return plan

    want = in_order_path(src, given["dst"], given["direct"], counting(slow))
    found = cheapest_path(src, given["dst"], given["direct"], counting(fast), 16)
    got = found.path
    assert found.unsettled == 0 and got[0] == want[0] == 52 and got[1][0][0] == want[1][0][0]
    assert [p.instructions for _, p in got[1]] == [p.instructions for _, p in want[1]]
    assert len(fast) < len(slow)


def test_the_search_agrees_with_the_reference_on_planned_steps(monkeypatch):
    for src, dst, bits in warp_local_pairs(4, 3):
        given = planner_search(monkeypatch, src, dst, bits)
        args = (src, given["dst"], given["direct"], given["plan"])
        want, found = in_order_path(*args), cheapest_path(*args, bits)
        got = found.path
        if found.unsettled:  # stopped at the bound: no costlier than the reference, cheaper than direct
            assert got is None or (want is not None and want[0] <= got[0] < given["direct"])
            continue
        assert (want is None) == (got is None)
        if want is not None:
            assert want[0] == got[0] and want[1][0][0] == got[1][0][0]


def path_floor_violations(pairs) -> tuple[int, int]:
    """Over every intermediate layout the search reaches through a side of distinct bits: how many paths' floors
    from columns (both steps' :func:`step_bound`, the swap's kind not used) lie below their kind's floor
    (:func:`kind_floors`), and how many paths were checked."""
    below = checked = 0
    for src, dst, bits in pairs:
        source, target = Endpoint.of(src), Endpoint.of(dst)
        kinds = kind_floors(source, target, bits)
        if kinds is None:
            continue
        for cols, near_src, side, (i, _) in swap_columns(source, target):
            if distinct_bits(side) is None:
                continue
            plain = Endpoint(side.bits, cols, lambda: None)  # from its columns alone
            floor = step_bound(source, plain, bits).value + step_bound(plain, target, bits).value
            below += floor < kinds[near_src, i < side.bits.reg]
            checked += 1
    return below, checked


def test_kind_floors_lie_below_every_paths_floors_with_broadcasts(monkeypatch):
    """One side of distinct bits, the other with broadcast (zero) columns or not: every path through a swap of the
    distinct side has floors adding up to at least its kind's floor; a floor that forgets that a register step's
    source may still lack elements (not every thread meets its own), or that a swap may lower the moves' rank, or
    one just above the real floor, fails here."""
    pairs = warp_local_pairs(7, 60)
    below, checked = path_floor_violations(pairs)
    assert below == 0 and checked > 400
    far_floor, register_floor = step_floors.far_floor, step_floors.register_step_floor
    for module, name, wrong in (
            (multistep, "far_floor", lambda *a, **k: far_floor(*a, **k) + 1),
            (multistep, "may_meet_own", lambda *a: False),
            (step_floors, "register_step_floor", lambda src, dst, needed, changed: register_floor(src, dst, needed, 0))):
        monkeypatch.setattr(module, name, wrong)
        assert path_floor_violations(pairs)[0] > 0
        monkeypatch.undo()


def test_kind_floors_lie_below_planned_paths_with_broadcasts():
    """Against exact step costs: every reached path through a swap of a distinct side costs at least its kind's
    floor, broadcast ends included; where every kind's floor reaches the direct cost, planning every step finds no
    two-step plan."""
    settled = checked = 0
    for src, dst, bits in warp_local_pairs(8, 6):
        source, target = Endpoint.of(src), Endpoint.of(dst)
        kinds = kind_floors(source, target, bits)
        if kinds is None:
            continue
        step = step_planner(src, dst, bits)
        for cols, near_src, side, pos in list(swap_columns(source, target))[::2]:
            if distinct_bits(side) is not None:
                mid = multistep.swapped(side.layout, pos)
                cost = step(src, mid, True, None).cost + step(mid, dst, True, None).cost
                assert cost >= kinds[near_src, pos[0] < side.bits.reg]
                checked += 1
        direct = plan_conversion(src, dst, bits, multistep=False).cost
        if all(f >= direct for f in kinds.values()):
            settled += 1
            assert in_order_path(src, dst, direct, step) is None
    assert checked and settled


def nonzero_floor_violations(pairs) -> tuple[int, int]:
    """Over every swap of two non-zero columns of a side of distinct bits but for zero lanes or registers that the
    search reaches: how many paths' floors from columns (both steps' :func:`step_bound`) lie below their kind's floor
    (:func:`~linlayout.convert.multistep.nonzero_swap_floors`), and how many paths were checked."""
    below = checked = 0
    for src, dst, bits in pairs:
        source, target = Endpoint.of(src), Endpoint.of(dst)
        floors = multistep.nonzero_swap_floors(source, target, bits)
        for cols, near_src, side, (i, j) in swap_columns(source, target):
            kind = (near_src, i < side.bits.reg)
            if kind in floors and cols[i] and cols[j]:
                mid = multistep.swap_endpoint(side, cols, (i, j), False, False)
                below += step_bound(source, mid, bits).value + step_bound(mid, target, bits).value < floors[kind]
                checked += 1
    return below, checked


def test_nonzero_swap_floors_lie_below_every_paths_floors(monkeypatch):
    """A side of distinct bits but for zero lanes or zero registers: every path through a swap of two of its non-zero
    columns has floors adding up to at least its kind's floor; the same floor one above the step across the swap
    (zero lanes: its demand's floor; zero registers: its exact cost) or above the other step's, or counting every
    element remote where a thread may meet its own, fails here."""
    pairs = warp_local_pairs(9, 80)
    below, checked = nonzero_floor_violations(pairs)
    assert below == 0 and checked > 400
    swap_floor, far_floor, exact = multistep.swap_floor, multistep.far_floor, multistep.broadcast_swap_bound

    def exact_plus_one(*args):
        floor = exact(*args)
        return None if floor is None else Floor(floor.value + 1, floor.exact)

    for name, wrong in (("swap_floor", lambda *a: swap_floor(*a) + 1),
                        ("far_floor", lambda *a, **k: far_floor(*a, **k) + 1),
                        ("broadcast_swap_bound", exact_plus_one), ("may_meet_own", lambda *a: False)):
        monkeypatch.setattr(multistep, name, wrong)
        assert nonzero_floor_violations(pairs)[0] > 0, name
        monkeypatch.undo()


def test_nonzero_swap_floors_lie_below_planned_paths():
    """Against exact step costs: every path through a swap of two non-zero columns of a side with zero lanes or
    registers costs at least its kind's floor."""
    checked = 0
    for src, dst, bits in warp_local_pairs(10, 12):
        source, target = Endpoint.of(src), Endpoint.of(dst)
        floors = multistep.nonzero_swap_floors(source, target, bits)
        if not floors:
            continue
        step = step_planner(src, dst, bits)
        for cols, near_src, side, pos in list(swap_columns(source, target))[::3]:
            kind = (near_src, pos[0] < side.bits.reg)
            if kind in floors and cols[pos[0]] and cols[pos[1]]:
                mid = multistep.swapped(side.layout, pos)
                assert step(src, mid, True, None).cost + step(mid, dst, True, None).cost >= floors[kind]
                checked += 1
    assert checked


@settings(max_examples=examples(10), deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_one_hot_paths_are_the_open_paths_of_step_bound(seed):
    """The listing from columns gives the same paths, floors and exactness as flooring every listed Endpoint."""
    src, dst, bits = warp_local_pairs(seed, 1)[0]
    source, target = Endpoint.of(src), Endpoint.of(dst)
    kinds = kind_floors(source, target, bits) or {}
    nonzero = multistep.nonzero_swap_floors(source, target, bits)
    for direct in (100, 400, 2000):
        closed = {kind for kind, floor in kinds.items() if floor >= direct}
        closed_nonzero = {kind for kind, floor in nonzero.items() if floor >= direct}
        fast = multistep.one_hot_paths(source, target, direct, bits, closed, closed_nonzero)
        slow = multistep.open_paths(source, target, direct, lambda a, b: step_bound(a, b, bits), closed)
        assert [(p.index, p.near_src, p.mid.cols, p.costs, p.known) for p in fast] == \
            [(p.index, p.near_src, p.mid.cols, p.costs, p.known) for p in slow]
