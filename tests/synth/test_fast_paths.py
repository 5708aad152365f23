"""The synthesizer's fast paths against the general algorithms they replace (issue 16).

* :func:`linlayout.synth.scoring.memory_inverse` (one Gauss-Jordan per memory,
  shared by both sides) against F2 elimination per direction;
* :func:`linlayout.synth.scoring.exact_cost` with and without a shared inverse,
  and on columns that are no basis (the elimination fallback);
* the bank completion of :func:`linlayout.synth.candidates.complete_columns` (unit /
  pair membership) against greedy elimination with :class:`linlayout.core.f2.Span`.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linlayout import LinearLayout
from linlayout.core import f2
from linlayout.hw import get_hardware, parse_instruction
from linlayout.synth import bounds, candidates, speed
from linlayout.synth.scoring import offsets_by_elimination, offsets_from_inverse, exact_cost, memory_inverse
from linlayout.synth.sides import geometry, side_of

from ..strategies import invertible_matrices
from ..conftest import ROOT, examples

EXAMPLES = ROOT / "examples"


@settings(max_examples=examples(60), deadline=None)
@given(invertible_matrices(max_n=12))
def test_memory_inverse_solves_every_direction(cols):
    inv = memory_inverse(cols)
    assert inv is not None and len(inv) == len(cols) + 1 and inv[-1] == 0
    ech = f2.echelon(cols)[0]
    for i in range(len(cols)):
        assert f2.apply(cols, inv[i]) == 1 << i
        assert inv[i] == ech.reduce(1 << i)[1]


@settings(max_examples=examples(40), deadline=None)
@given(invertible_matrices(min_n=2, max_n=10), st.data())
def test_memory_inverse_refuses_columns_that_are_no_basis(cols, data):
    i = data.draw(st.integers(0, len(cols) - 1))
    j = data.draw(st.integers(0, len(cols) - 1).filter(lambda x: x != i))
    bad = list(cols)
    bad[i] = bad[j]  # two equal columns
    assert memory_inverse(bad) is None
    assert memory_inverse([1 << len(cols)] + list(cols[1:])) is None  # a direction beyond the offset bits


def _distributed(rng: random.Random, d: int, lane_bits: int = 5) -> LinearLayout:
    slots = [("register", i) for i in range(d - 3)] + [("lane", i) for i in range(lane_bits)] + [("warp", 0)]
    rng.shuffle(slots)
    flat = dict.fromkeys(slots, 0)
    for s, b in zip(slots, range(d)):
        flat[s] = 1 << b
    bases = {"register": [], "lane": [], "warp": []}
    for dim, i in sorted(flat):
        v = flat[(dim, i)]
        bases[dim].append([v & 7, v >> 3])
    return LinearLayout(bases, {"dim0": 8, "dim1": 1 << (d - 3)})


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(0, 2**32), st.integers(5, 11), st.sampled_from([8, 16, 32]), st.sampled_from([None, 0, 1]),
       invertible_matrices(min_n=5, max_n=11))
def test_exact_cost_with_a_shared_inverse_or_by_elimination_is_the_same(seed, d, eb, fixed, cols):
    if len(cols) != d:
        cols = [1 << i for i in range(d)]
    rng = random.Random(seed)
    hw = get_hardware("sm90")
    L = _distributed(rng, d)
    side = side_of("write", "store", L, hw, L.out_dim_bits)
    geo = geometry(d, eb, hw)
    ins = parse_instruction("st.shared")
    direct = exact_cost(cols, side, ins, geo, hw, fixed)
    assert exact_cost(cols, side, ins, geo, hw, fixed, memory_inverse(cols)) == direct
    # The elimination path (columns that are no basis) gives the same offsets on a basis.
    assert offsets_by_elimination(cols, side) == offsets_from_inverse(side, memory_inverse(cols))


def _greedy_bank(partial, S, pool):
    span = f2.Span(partial.word_fill + tuple(S))
    return [q for q in pool if span.add(q)]


@settings(max_examples=examples(80), deadline=None)
@given(st.integers(0, 2**32))
def test_bank_completion_matches_greedy_elimination(seed):
    rng = random.Random(seed)
    d = rng.randint(3, 14)
    units = [1 << i for i in range(d)]
    rng.shuffle(units)
    nD = rng.randint(0, min(4, d))
    D, rest = tuple(units[:nD]), units[nD:]
    u = rng.randint(0, min(2, len(rest)))
    F, rest = tuple(rest[:u]), rest[u:]
    b = rng.randint(0, len(rest))
    s = len(rest) - b
    tw = frozenset(x for x in rest if rng.random() < 0.5)
    tr = frozenset(x for x in rest if rng.random() < 0.5)
    partial = candidates.PartialCandidate(D, F, {"write": sum(tw), "read": sum(tr)}, b, s, d)  # pass lanes as masks
    B, S = candidates.complete_columns(partial)
    fset = set(F)
    U, W = tw - fset, tr - fset
    C = [q for q in (1 << i for i in range(d)) if q not in set(D) | fset and q not in U and q not in W]
    expect = _greedy_bank(partial, S, sorted(U & W) + sorted(U - W) + sorted(W - U) + C)
    assert list(B) == expect
    assert f2.rank(D + F + tuple(B) + tuple(S)) == d


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(0, 2**32), st.integers(5, 12), st.sampled_from([4, 8, 16, 32, 64]))
def test_block_vector_widths_equal_the_prefix_rule(seed, d, eb):
    """The search passes each ld/st block's vector widths to ``word_fills`` (the extended side's is the whole
    block, the other's the common vector) instead of scanning the block for each side's register prefix: both
    give the same candidates."""
    rng = random.Random(seed)
    hw = get_hardware("sm90")
    W, R = _distributed(rng, d), _distributed(rng, d)
    sides = {"write": side_of("write", "store", W, hw, W.out_dim_bits),
             "read": side_of("read", "load", R, hw, W.out_dim_bits)}
    geo = geometry(d, eb, hw)
    ins = {"write": parse_instruction("st.shared"), "read": parse_instruction("ld.shared")}
    common = [r for r in sides["write"].regs if r in sides["read"].reg_set]
    per_side = speed.pair_sides(sides, ins, geo, hw)
    for second in (False, True):
        for D, V, _, ext in candidates.low_blocks(sides, ins, common, geo, hw, None, [], False, second):
            ks = (len(D), len(V)) if ext == "write" else (len(V), len(D)) if ext == "read" else (len(V), len(V))
            assert (candidates.word_fills(D, per_side, geo, hw, None, None, ks)
                    == candidates.word_fills(D, per_side, geo, hw, None))


def test_reused_layouts_give_the_results_of_fresh_ones_across_settings():
    """Each side keeps memory-independent data per (instruction, element width, hardware) on its layout:
    one layout pair asked under many settings in turn answers exactly as fresh copies do."""
    from linlayout import optimal_swizzle
    from linlayout.hw import SharedMemory

    toy = SharedMemory(name="toy", banks=4, bank_bytes=4, lanes=8, merge_broadcast_loads=True, matrix_rows=0)
    toy2 = SharedMemory(name="toy", banks=8, bank_bytes=4, lanes=8, merge_broadcast_loads=False, matrix_rows=0)
    rng = random.Random(7)
    settings_list = [dict(element_bits=eb, vector_bits=vb, instructions=ins)
                     for eb in (8, 16, 32) for vb in (None, 32)
                     for ins in (None, ["st.shared", "ld.shared", "ldmatrix.x4"], ["st.shared", "stmatrix.x2", "ld.shared"])]
    checked = 0
    for _ in range(3):
        d = rng.randint(8, 11)
        W, R = _distributed(rng, d), _distributed(rng, d)

        def ask(W, R, **kw):
            try:
                res = optimal_swizzle(W, R, **kw)
            except ValueError as e:
                return str(e)
            return (res.memory.flat_bases("offset"), res.write_wavefronts, res.read_wavefronts,
                    res.write_instruction, res.read_instruction, res.optimal)

        W8, R8 = _distributed(rng, d, 3), _distributed(rng, d, 3)  # 8 lanes
        cases = [((W, R), kw) for kw in settings_list] + [((W8, R8), dict(element_bits=eb, hardware=hw))
                                                          for hw in (toy, toy2, toy) for eb in (32, 64)]
        for pair, kw in cases:
            reused = ask(*pair, **kw)
            fresh = ask(*(LinearLayout.from_json(L.to_json()) for L in pair), **kw)
            assert reused == fresh, kw
            checked += not isinstance(reused, str)
    assert checked >= 20


def test_the_floor_stops_the_search_only_where_the_full_search_agrees(monkeypatch):
    """``bounds.search_floor`` ends the candidate search at the first candidate that meets it: on random
    distributed pairs, element widths, objectives, fixed vectors and instruction sets the result (memory,
    costs, instructions, frontier) is that of the search without the floor, and the floor is never above
    the result's key."""
    from linlayout import optimal_swizzle
    from linlayout.synth import search
    from linlayout.synth.bounds import objective_key

    def ask(W, R, kw):
        try:
            res = optimal_swizzle(W, R, **kw)
        except ValueError as e:
            return str(e), None
        return (res.memory.flat_bases("offset"), res.write_wavefronts, res.read_wavefronts, res.write_instruction,
                res.read_instruction, res.write_instructions, res.read_instructions, res.frontier), res

    rng = random.Random(16)
    floors = []
    real, real_pairs, real_pair, real_tile = search.search_floor, search.pair_floors, search.search_pair, search.tile_floors

    def spy(*a):
        f = real(*a)
        floors.append(f)
        return f

    def spy_pairs(*a):
        f = real_pairs(*a)
        floors.append(min((e[1] for e in f), default=None))
        return f

    stopped = 0
    for trial in range(60):
        d = rng.randint(6, 12)
        W, R = _distributed(rng, d), _distributed(rng, d)
        kw = dict(element_bits=rng.choice([8, 16, 32, 64]), objective=rng.choice(["balanced", "sum", "read", "write"]),
                  vector_bits=rng.choice([None, None, 32, 64]),
                  instructions=rng.choice([None, None, ["st.shared", "stmatrix.x4", "ld.shared", "ldmatrix.x4"]]))
        monkeypatch.setattr(search, "search_floor", spy)
        monkeypatch.setattr(search, "pair_floors", spy_pairs)
        floors.clear()
        fast, res = ask(LinearLayout.from_json(W.to_json()), LinearLayout.from_json(R.to_json()), kw)
        floor = floors[0] if len(floors) == 1 else min((f for f in floors if f is not None), default=None)
        # The full search: no stop inside a pair (no floor), every pair visited (a floor no key is below); a pair
        # that no memory serves (a matrix tile that cannot be formed) is still ruled out by its tile.
        monkeypatch.setattr(search, "search_floor", lambda *a: None if len(a[0].write_options) > 1 else real(*a))
        monkeypatch.setattr(search, "pair_floors", lambda p: tuple(((0, 0, 0, 0) + e[0][4:], (0, 0, 0, 0)) + e[2:]
                                                                   for e in real_pairs(p)))
        monkeypatch.setattr(search, "tile_floors", lambda p, es: [((0, 0, 0, 0) + e[0][4:], (0, 0, 0, 0)) + e[2:]
                                                                  for e in real_tile(p, es)])
        monkeypatch.setattr(search, "search_pair", lambda p, state, floor: real_pair(p, state, None))
        full, _ = ask(W, R, kw)
        monkeypatch.setattr(search, "search_pair", real_pair)
        monkeypatch.setattr(search, "tile_floors", real_tile)
        assert fast == full, kw
        if res is not None and floor is not None:
            key = objective_key(kw["objective"], res.write_wavefronts, res.read_wavefronts) + (
                res.write_instructions + res.read_instructions,)
            assert floor[:3] <= key
            stopped += floor[:3] == key
    assert stopped >= 10  # the floor is met often enough for the stop to matter


@given(st.lists(st.tuples(st.booleans(), st.lists(st.integers(1, 6), max_size=4)), max_size=4),
       st.lists(st.tuples(st.booleans(), st.lists(st.integers(1, 6), max_size=4)), max_size=4),
       st.sampled_from(bounds.OBJECTIVES), st.integers(0, 3))
def test_relaxation_order_is_the_sorted_product(write_opts, read_opts, objective, ncommon):
    """The relaxation's visit order (a table by counts) equals sorting the whole product by (floor, enumeration
    order), less the pairs of two ld/st vectors wider than the common prefix."""
    ins = {True: parse_instruction("ldmatrix.x4"), False: parse_instruction("ld.shared")}
    write = tuple((ins[m], tuple((b, k, f"w{a}.{k}", None, k) for k, b in enumerate(per)))
                  for a, (m, per) in enumerate(write_opts))
    read = tuple((ins[m], tuple((b, k, f"r{a}.{k}", None, k) for k, b in enumerate(per)))
                 for a, (m, per) in enumerate(read_opts))
    ws, rs, pairs = bounds.relaxation_order(write, read, objective, ncommon)
    product = [((bounds.objective_key(objective, bw, br), (a, b, c, d)), (bw, a, wi, c, sw, None, c),
                (br, b, ri, d, sr, None, d))
               for a, (wi, wl) in enumerate(write) for b, (ri, rl) in enumerate(read)
               for c, (bw, _, sw, _, _) in enumerate(wl) for d, (br, _, sr, _, _) in enumerate(rl)
               if wi.is_matrix or ri.is_matrix or min(c, d) <= ncommon]
    assert [(fo, ws[i], rs[j]) for fo, i, j, _ in pairs] == sorted(product, key=lambda p: p[0])
    assert all(joint == (not ws[i][2].is_matrix and not rs[j][2].is_matrix) for _, i, j, joint in pairs)


def test_the_pair_visit_meets_every_pair_in_the_order_of_its_final_floor():
    """search.pairs_by_floor raises a tile group only when its first pair comes up, merging the raised floors
    into the sorted table: the pairs it yields are those of every group raised at once, sorted by final key."""
    from linlayout.synth import search
    from linlayout.synth.policy import pair_preference
    from linlayout.synth.synthesis import swizzle_problem

    rng = random.Random(27)
    for _ in range(25):
        d = rng.randint(6, 11)
        W, R = _distributed(rng, d), _distributed(rng, d)
        eb = rng.choice([8, 16, 32])
        p = swizzle_problem(W, R, eb, "sm90", rng.choice(["balanced", "sum", "read", "write"]), None, None)
        table = bounds.pair_floors(p)
        final = [e[:4] for e in table if e[5] is None]
        for group in search.tile_groups(table).values():
            final += [e[:4] for e in bounds.tile_floors(p, group)]
        lazy = [(floor, sub.write_options[0], sub.read_options[0])
                for floor, preference, sub, _ in search.pairs_by_floor(p, lambda key: False)
                if preference == pair_preference(sub.write_options[0], sub.read_options[0])]
        assert lazy == [(floor, wi, ri) for _, floor, wi, ri in sorted(final, key=lambda e: e[0])]
        cut = sorted(final, key=lambda e: e[0])[len(final) // 2][0] if final else None  # a caller's best key
        stopped = [floor for floor, _, _, _ in search.pairs_by_floor(p, lambda key: cut is not None and cut < key)]
        assert stopped == [e[1] for e in sorted(final, key=lambda e: e[0]) if not cut < e[0]]


def test_tile_positions_and_columns_follow_the_tile_and_the_model_object():
    """:func:`speed.tile_positions` is the matrix tile's required bases (None where the tile cannot be formed),
    the same for .x1/.x2/.x4; the tile memos, found by the model's identity, answer for the model asked even
    when another model (equal or not) was asked before on the same side."""
    from dataclasses import replace

    from linlayout.count.matrix_tile import matrix_tile
    from linlayout.errors import LoweringError
    from linlayout.hw import INSTRUCTIONS

    sm90 = get_hardware("sm90")
    for name, ins in INSTRUCTIONS.items():
        if not ins.is_matrix:
            continue
        for eb in (8, 16, 32, 64):
            try:
                want = tuple((d == "lane", i) for (d, i), _ in matrix_tile(ins, eb, sm90).required)
            except LoweringError:
                want = None
            assert speed.tile_positions(ins, eb, sm90) == want, (name, eb)
    assert speed.tile_positions(parse_instruction("ldmatrix.x4"), 16, replace(sm90, name="none", matrix_rows=0)) is None
    write = LinearLayout({"register": [[0, 1], [0, 2]], "lane": [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]]},
                         {"dim0": 8, "dim1": 16})
    stm = parse_instruction("stmatrix.x4")
    outs = write.out_dim_bits
    side = side_of("write", "store", write, sm90, outs)
    geo = geometry(write.out_bits, 16, sm90)
    assert candidates.tile_columns(side, stm, 16, sm90) == (8, 32, 64)  # register 0, lanes 0 and 1 (dim1 bits)
    assert bounds.matrix_columns(side, stm, geo, sm90) == (8, 32, 64)
    none = replace(sm90, name="none", matrix_rows=0)
    assert candidates.tile_columns(side, stm, 16, none) is None and bounds.matrix_columns(side, stm, geo, none) is False
    assert bounds.matrix_columns(side, stm, geo, replace(sm90)) == (8, 32, 64)  # an equal model, another object


def test_distributed_images_against_the_set_definition():
    """:func:`linlayout.synth.sides.is_distributed_images` (the sorted images against :func:`~linlayout.synth.sides.distributed_images`) against
    Def. 4.10 read with a set, on every list of up to four images of a tensor of up to three bits."""
    from itertools import product

    from linlayout.synth.sides import is_distributed_images

    for bits in range(4):
        units = {1 << b for b in range(bits)}
        for n in range(5):
            for images in product(range(1 << bits), repeat=n):
                assert is_distributed_images(images, bits) == (set(images) - {0} == units and n - images.count(0) == bits)


@pytest.mark.parametrize("example, broadcast", [("gemm_fp16_operand_a.json", False), ("gemm_fp16_operand_a.json", True),
                                                ("transpose_fp8_128x128.json", False),
                                                ("transpose_16x32.json", False)])
def test_width_table_lane_facts_match_the_sides_own_pass_lanes(example, broadcast):
    """The relaxation reads each width's pass lanes and matrix row off the width table (by counts); they are the
    side's own: ``pass_lanes`` (a matrix side's, at its non-zero registers) or the width's shape (ld/st), and the
    matrix tile's row.  ``broadcast``: the read side's first register is zero (its matrix widths' shapes count it,
    its pass lanes do not)."""
    from linlayout.count.plan import matrix_tile
    from linlayout.synth.sides import pass_lanes, shape_lanes
    from linlayout.synth.synthesis import optimal_swizzle

    q = json.loads((EXAMPLES / example).read_text())
    if broadcast:
        q["read"]["bases"]["register"].insert(0, [0] * len(q["read"]["out_dims"]))
    res = optimal_swizzle(LinearLayout.from_json(q["write"]), LinearLayout.from_json(q["read"]), q["element_bits"])
    p = res._problem
    seen_matrix = 0
    for side, opts in ((p.sides["write"], p.write_options), (p.sides["read"], p.read_options)):
        for ins, widths in bounds.side_widths(side, opts, p.geo, p.hw, p.fixed_vector):
            for base, k, shape, lanes_shape, row_bits in widths:
                t = bounds.width_terms(side, k, p.geo, base, lanes_shape, row_bits)
                if ins.is_matrix:
                    seen_matrix += 1
                    assert t.tau == frozenset(pass_lanes(side, ins, k, p.geo, p.hw))
                    assert 1 << row_bits == matrix_tile(ins, p.element_bits, p.hw).row_elements
                else:
                    assert t.tau == frozenset(shape_lanes(side, shape)) and row_bits is None
                assert t.base == shape.base_wavefronts
    assert seen_matrix or example == "transpose_fp8_128x128.json"


def test_the_pair_tables_shapes_are_the_sides_own():
    """Each pair of the floor table (a table by counts) carries the shape maps :func:`speed.pair_sides` finds
    for the problem's own sides."""
    from linlayout.synth.synthesis import swizzle_problem

    rng = random.Random(10)
    bounds._pair_floors_from_counts.cache_clear()  # tables built here, with the shape memo as it is now
    speed._COUNT_TABLES.clear()
    for _ in range(12):
        d = rng.randint(6, 11)
        W, R = _distributed(rng, d), _distributed(rng, d)
        eb = rng.choice([8, 16, 32])
        p = swizzle_problem(W, R, eb, "sm90", "balanced", None, None)
        for entry in bounds.pair_floors(p):
            wi, ri, shapes = entry[2], entry[3], entry[6]
            got = speed.pair_sides(p.sides, {"write": wi, "read": ri}, p.geo, p.hw)
            assert [(k, id(m)) for k, m in shapes] == [(k, id(m)) for _, _, _, k, m in got]  # the very maps
