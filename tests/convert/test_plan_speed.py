"""The planner's speed devices change no answer.

The rep-cost floor is a true lower bound (on every round trip with at most
as many rep bits as each side has independent registers, the only slicings
:func:`round_trip` tries), and pruning by it picks the same round trip as
the search without it.  ``tools/convert_plan_dump.py`` checks the same on
420 pairs against the base revision.
"""

from __future__ import annotations

import itertools
import random

import pytest

import linlayout.convert.smem as smem
from linlayout.convert.cost import cost_of
from linlayout.convert.smem import rep_cost_floor, round_trip, warp_private
from linlayout.convert.solve import aligned, index_bits
from linlayout.core import f2
from linlayout.convert.plan import plan_conversion
from linlayout.core.layout import LinearLayout
from linlayout.errors import InputError

from .samples import catalog_pairs, random_pair

PAIRS = [(n, s, d) for n, s, d in catalog_pairs()[::3]] + \
        [(f"random{i}", *random_pair(random.Random(i), 4, "any", max_regs_bits=3)) for i in range(4)]


def _key(rt):
    return (cost_of(rt.instructions, rt.wavefronts), rt.scratch_bytes, rt.rep_bits, rt.swizzle.memory, rt.reps)


@pytest.mark.parametrize("name,src,dst", PAIRS, ids=lambda x: x if isinstance(x, str) else "")
def test_rep_cost_floor_is_below_every_round_trip_and_never_decreases(name, src, dst):
    dst = aligned(src, dst)
    for eb in (8, 32):
        barrier = "bar.warp.sync" if warp_private(src, dst) else "bar.sync"
        most = min(f2.rank(cols[:ib.reg]) for ib, cols in (index_bits(src, "src"), index_bits(dst, "dst")))
        floors = [rep_cost_floor(src, dst, eb, "sm90", barrier, j) for j in range(min(4, most + 1))]
        assert floors == sorted(floors) and floors[0] > 0
        total = (1 << src.out_bits) * eb // 8
        for j in range(len(floors)):  # the cheapest round trip in at least 2^j reps
            try:
                rt = round_trip(src, dst, eb, scratch_bytes=total >> j)
            except InputError:
                break
            assert cost_of(rt.instructions, rt.wavefronts) >= \
                rep_cost_floor(src, dst, eb, "sm90", barrier, len(rt.rep_bits))


def _plans(src, dst, eb: int) -> list:
    """The round trips under Triton's budget and a half and a quarter of the tile (or the error)."""
    total = (1 << src.out_bits) * eb // 8
    out = []
    for limit in (None, total >> 1, total >> 2):
        try:
            out.append(_key(round_trip(src, dst, eb, scratch_bytes=limit)))
        except InputError as e:
            out.append(str(e))
    return out


@pytest.mark.parametrize("name,src,dst", PAIRS[::2], ids=lambda x: x if isinstance(x, str) else "")
def test_pruning_by_the_floor_picks_the_same_round_trip(name, src, dst, monkeypatch):
    dst = aligned(src, dst)
    pruned = _plans(src, dst, 16)
    monkeypatch.setattr(smem, "rep_cost_floors", lambda *args: lambda rep_bits: 0)  # no slicing pruned
    assert pruned == _plans(src, dst, 16)


def _reference_shuffle_bound(src, dst, eb: int) -> int:
    """The shuffle lower bound (:func:`~linlayout.convert.plan.plan_conversion`'s ``shuffle_lower_bound``), thread by thread."""
    sh, scols = index_bits(src, "src")
    dh, dcols = index_bits(dst, "dst")
    per_word = max(1, 32 // eb)
    worst = 0
    for w in range(1 << sh.warp):
        holders: dict[int, set[int]] = {}
        for lane in range(1 << sh.lane):
            for r in range(1 << sh.reg):
                holders.setdefault(f2.apply(scols, r | lane << sh.reg | w << (sh.reg + sh.lane)), set()).add(lane)
        for lane in range(1 << dh.lane):
            needed = {f2.apply(dcols, r | lane << dh.reg | w << (dh.reg + dh.lane)) for r in range(1 << dh.reg)}
            remote = [e for e in needed if lane not in holders[e]]
            bound = -(-len(remote) // per_word)
            if all(len(holders[e]) == 1 for e in remote):
                by_lane: dict[int, int] = {}
                for e in remote:
                    (source,) = holders[e]
                    by_lane[source] = by_lane.get(source, 0) + 1
                bound = max(bound, sum(-(-n // per_word) for n in by_lane.values()))
            worst = max(worst, bound)
    return worst * max(1, eb // 32)


@pytest.mark.parametrize("seed", range(6))
def test_shuffle_lower_bound_scores_every_warp(seed):
    """Warp-local pairs whose warps sit at different elements on the two sides (dst's warp bases moved by a
    register or lane basis): the bound, computed once per distinct warp shift, equals the thread-by-thread one."""
    rng = random.Random(seed)
    src, dst = random_pair(rng, 4, "warp", max_regs_bits=2)
    dst = aligned(src, dst)
    dh, dcols = index_bits(dst, "dst")
    low = [c for c in dcols[:dh.reg + dh.lane] if c]
    warp = tuple(c ^ rng.choice(low) for c in dst.flat_bases("warp"))
    dst = LinearLayout.from_flat(dst.in_dim_bits, dst.out_dim_bits,
                                 tuple(warp if name == "warp" else dst.flat_bases(name) for name, _ in dst.in_dim_bits))
    for eb in (16, 32, 64):
        plan = plan_conversion(src, dst, eb)
        if plan.conversion.level <= 1:
            assert plan.shuffle_lower_bound == _reference_shuffle_bound(src, dst, eb)


def test_conversion_map_is_remembered_per_object_not_per_bases():
    """The planner's memo (convert/speed.py) answers the same objects again, and a fresh equal layout is solved anew."""
    from linlayout.convert.solve import conversion_map

    src, dst = catalog_pairs()[0][1:]
    dst = aligned(src, dst)
    cm = conversion_map(src, dst)
    assert conversion_map(src, dst) is cm
    copy = LinearLayout.from_flat(dst.in_dim_bits, dst.out_dim_bits, tuple(dst.flat_bases(n) for n, _ in dst.in_dim_bits))
    again = conversion_map(src, copy)
    assert again is not cm and again == cm


def test_tritons_scratch_is_remembered_per_object_and_width_not_per_bases(monkeypatch):
    """The round trip asks for Triton's scratch layout twice per pair (budget, Triton's staging); it is computed once
    for the same objects and width, again for another width or a fresh equal layout (convert/speed.py)."""
    calls = []
    real = smem.triton_scratch
    monkeypatch.setattr(smem, "triton_scratch", lambda *a: calls.append(a[2]) or real(*a))
    src, dst = catalog_pairs()[0][1:]
    dst = aligned(src, dst)
    round_trip(src, dst, 32)
    assert calls == [32]
    smem.triton_scratch_bytes(src, dst, 32)
    smem.triton_scratch_bytes(src, dst, 16)
    copy = LinearLayout.from_flat(dst.in_dim_bits, dst.out_dim_bits, tuple(dst.flat_bases(n) for n, _ in dst.in_dim_bits))
    assert smem.triton_scratch_bytes(src, copy, 16) == smem.triton_scratch_bytes(src, dst, 16)
    assert calls == [32, 16, 16, 16]


def test_warp_private_is_remembered_per_object_not_per_bases(monkeypatch):
    """The barrier kind is asked by the round trip and by every candidate's counts: worked out once for the same
    objects, again for a fresh equal layout (convert/speed.py), with the same answer."""
    calls = []
    real = smem._warp_private
    monkeypatch.setattr(smem, "_warp_private", lambda *a: calls.append(1) or real(*a))
    src, dst = catalog_pairs()[0][1:]
    dst = aligned(src, dst)
    first = warp_private(src, dst)
    assert warp_private(src, dst) == first and len(calls) == 1
    copy = LinearLayout.from_flat(dst.in_dim_bits, dst.out_dim_bits, tuple(dst.flat_bases(n) for n, _ in dst.in_dim_bits))
    assert warp_private(src, copy) == first and len(calls) == 2


def _brute_force_selects(rp) -> int:
    threads = [(lane, om) for om in range(1 << len(rp.Qo)) for lane in range(1 << len(rp.Ql))]
    rows = {tuple(rp.source_register(r, lane, om) for lane, om in threads) for r in range(rp.dst_regs)}
    return sum(max(0, len(set(row)) - 1) for row in rows)


@pytest.mark.parametrize("seed", range(3))
def test_register_program_counts_from_ranks_equal_listing_every_thread(seed):
    from linlayout.convert.warp import RegisterProgram

    rng = random.Random(seed)
    for _ in range(60):
        sr, dr, nl, no = rng.randint(0, 3), rng.randint(0, 3), rng.randint(0, 3), rng.randint(0, 2)
        pick = lambda n: tuple(rng.randrange(1 << sr) if rng.random() < 0.6 else 0 for _ in range(n))  # noqa: E731
        rp = RegisterProgram(32, pick(dr), pick(nl), pick(no), 1 << dr, 1 << sr, 1)
        assert rp.counts.get("selp", 0) == _brute_force_selects(rp)


@pytest.mark.parametrize("seed", range(4))
def test_a_shuffle_program_under_a_ceiling_is_the_cheapest_whenever_that_is_below_it(seed):
    from linlayout.convert.cost import cost_of as cost
    from linlayout.convert.solve import conversion_map
    from linlayout.convert.warp import shuffle_program

    src, dst = random_pair(random.Random(seed), 1, "warp", max_regs_bits=3)
    cm = conversion_map(src, aligned(src, dst))
    best = shuffle_program(cm, 16)
    if best is None:
        return
    c = cost(best.counts)
    assert shuffle_program(cm, 16, ceiling=c + 1) == best
    above = shuffle_program(cm, 16, ceiling=max(1, c))
    assert above is not None and cost(above.counts) >= min(c, max(1, c))


def test_is_trivial_over_on_flat_columns_agrees_with_the_bases():
    """core/quotient reads flat columns; the rule (identity on the dims, nothing else reaching them) is unchanged."""
    from linlayout.core.quotient import is_trivial_over

    for _, src, dst in catalog_pairs()[::4]:
        from linlayout.convert.solve import conversion_map
        C = conversion_map(src, aligned(src, dst)).layout
        for dims in (["block"], ["block", "warp"], ["lane"], ["register"]):
            expect = all(
                all(v == ((1 << k) if n == o else 0) for o, v in zip(C.out_dims, basis) if o in dims)
                and (n not in dims or all(v == 0 for o, v in zip(C.out_dims, basis) if o not in dims))
                for n in C.in_dims for k, basis in enumerate(C.bases[n]))
            expect = expect and all(C.in_sizes.get(d, 1) == C.out_sizes.get(d, 1) for d in dims)
            assert is_trivial_over(C, dims) == expect


@pytest.mark.parametrize("seed", range(5))
def test_shuffle_lower_bound_from_ranks_equals_the_thread_by_thread_one(seed):
    """The bound is computed from ranks (warp.py's ``shuffle_lower_bound``): every kind of warp-local pair, and a transpose
    in which every thread already holds some of what it needs, give the thread-by-thread number."""
    rows = LinearLayout({"register": [[0, 1]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
    cols = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
    pairs = [(rows, cols)]
    rng = random.Random(seed)
    while len(pairs) < 4:
        src, dst = random_pair(rng, rng.choice([1, 2]), rng.choice(["warp", "thread", "any"]), max_regs_bits=3)
        pairs.append((src, aligned(src, dst)))
    for src, dst in pairs:
        for eb in (8, 16, 32, 64):
            plan = plan_conversion(src, dst, eb)
            if plan.conversion.level <= 1 and plan.path != "none":
                assert plan.shuffle_lower_bound == _reference_shuffle_bound(src, dst, eb)


def warp_local_maps(rng: random.Random):
    """Conversion maps of random 1- and 2-warp pairs (warp, thread or any kind) that stay inside the warp, endlessly."""
    from linlayout.convert.solve import conversion_map

    while True:
        src, dst = random_pair(rng, rng.choice([1, 2]), rng.choice(["warp", "thread", "any"]), max_regs_bits=3)
        cm = conversion_map(src, aligned(src, dst))
        if cm.level <= 1:
            yield cm


@pytest.mark.parametrize("seed", range(3))
def test_shuffles_known_before_a_program_is_built_are_its_shuffles(seed):
    """shuffle_program skips a swap matrix above the shuffle bound before building its program (warp.py's
    _Candidate): the shuffles it reads off M equal the built program's, and local rounds are left to the program."""
    from linlayout.convert.warp import program_candidates

    known = unknown = 0
    for cm in warp_local_maps(random.Random(seed)):
        if known >= 20:
            break
        for eb, p in ((8, 2), (16, 1), (32, 0), (64, 0)):
            for cand in program_candidates(cm, eb, p, 0):
                prog = cand.program()
                if cand.shuffles is None:
                    unknown += 1
                    assert prog.self_rounds
                else:
                    known += 1
                    assert not prog.self_rounds and cand.shuffles == prog.counts.get("shfl.sync", 0)


@pytest.mark.parametrize("seed", range(2))
def test_minimal_conversion_is_the_quotient_by_the_trivial_top_dimensions(seed):
    """plan.py strips the dimensions in one pass over the map's columns; it equals core's quotient by the longest
    run of block, warp, lane, register the map is trivial over (warp-crossing, warp-local, thread-local pairs)."""
    from linlayout.convert.solve import conversion_map
    from linlayout.core.quotient import is_trivial_over, quotient

    rng = random.Random(seed)
    pairs = [(s, d) for _, s, d in catalog_pairs()[seed::6]]
    while len(pairs) < 30:
        src, dst = random_pair(rng, rng.choice([1, 2, 4]), rng.choice(["warp", "thread", "any"]), max_regs_bits=3)
        pairs += [(src, dst), (src, src)]
    kinds = set()
    for src, dst in pairs:
        C = conversion_map(src, aligned(src, dst)).layout
        stripped: list[str] = []
        for d in ("block", "warp", "lane", "register"):
            if not is_trivial_over(C, stripped + [d]):
                break
            stripped.append(d)
        kinds.add(len(stripped))
        assert plan_conversion(src, dst, 32).minimal == quotient(C, stripped)
    assert {2, 3, 4} <= kinds  # maps that move data across warps, inside a warp only, and none at all


@pytest.mark.parametrize("seed", range(2))
def test_candidates_under_a_limit_are_those_above_it_left_out(seed):
    """program_candidates(limit=...) leaves out exactly the swap matrices whose shuffles are known to exceed the limit (the
    ones shuffle_program drops unbuilt); every other candidate is kept, in order, with the same program.  Tightened
    to the fewest shuffles kept so far, it keeps the packed-shuffle bound and every candidate that can pass it."""
    from linlayout.convert.warp import program_candidates, packed_shuffle_bound

    dropped = 0
    for cm in itertools.islice(warp_local_maps(random.Random(seed)), 12):
        for eb, p in ((8, 1), (16, 0), (32, 0)):
            every = program_candidates(cm, eb, p, 0)
            for limit in sorted({c.shuffles for c in every if c.shuffles is not None}):
                kept = [c for c in every if c.shuffles is None or c.shuffles <= limit]
                got = program_candidates(cm, eb, p, 0, limit)
                dropped += len(every) - len(got)
                assert [(c.shuffles, c.program()) for c in got] == [(c.shuffles, c.program()) for c in kept]
            # tightened (the widest pack width): the same bound, and every candidate that can pass it is kept
            tight = program_candidates(cm, eb, p, 0, tighten=True)
            bound = packed_shuffle_bound(every)
            assert packed_shuffle_bound(tight) == bound
            passing = [c for c in every if c.shuffles is None or c.shuffles <= bound]
            assert [(c.shuffles, c.program()) for c in tight if c.shuffles is None or c.shuffles <= bound] \
                == [(c.shuffles, c.program()) for c in passing]
            dropped += len(every) - len(tight)
    assert dropped > 0


def solved_at(solver, target, level):
    """The solution of ``target`` on the prefix of ``level`` as conversion_map reads it off a PrefixSolver (its
    lowest level and mask: the mask on that level or a higher one), or None."""
    found = solver.lowest(target)
    return found[1] if found is not None and found[0] <= level else None


def test_one_elimination_solves_every_prefix_of_the_source_columns():
    """solve.py's level solver reduces a target once in the elimination of all columns and answers each prefix from
    the mask: a solution on the prefix's columns exactly when the target lies in their span, and no solution on a
    prefix whose highest bit is lower than the one it gives (zero and repeated columns give kernels)."""
    from linlayout.convert.solve import prefix_solver

    rng = random.Random(11)
    for _ in range(40):
        n = rng.randint(1, 7)
        cols = [rng.choice([0, 1 << rng.randrange(6), rng.randrange(64)]) for _ in range(n)]
        ends = sorted(rng.randint(0, n) for _ in range(3)) + [n]
        solver = prefix_solver(cols, ends)
        for t in rng.sample(range(64), 16):
            for level, end in enumerate(ends):
                z = solved_at(solver, t, level)
                solutions = [x for x in range(1 << end) if f2.apply(cols, x) == t]
                assert (z is None) == (not solutions)
                if z is not None:
                    assert z in solutions and z.bit_length() == min(x.bit_length() for x in solutions)


@pytest.mark.parametrize("name,src,dst", PAIRS, ids=lambda x: x if isinstance(x, str) else "")
def test_word_access_read_off_the_synthesis_equals_the_exact_reports(name, src, dst):
    """smem.moves_words reads a side's word access off the synthesis's access widths where they tell it: the same
    as the exact report's (a matrix instruction, or vectors of at least 32 bits)."""
    dst = aligned(src, dst)
    for eb in (8, 16, 32):
        try:
            sw = smem.synthesized_staging(src, dst, eb, "sm90").swizzle
        except InputError:
            continue
        if sw is None:
            continue
        for side, layout, ins, report in (("write", src, sw.write_instruction, sw.write),
                                          ("read", dst, sw.read_instruction, sw.read)):
            assert smem.moves_words(sw, side, layout, "sm90") == ("matrix" in ins or report.vector_bits >= 32)


def test_cost_of_in_one_pass_is_the_definition():
    """cost.cost_of prices counts in one pass; it equals the model written out: each opcode family's weight (a
    shared-memory instruction's for st/ld.shared and stmatrix/ldmatrix of any size), barriers as executed
    (executed_barriers), the path constants (paths_of), the wavefronts and spilled words."""
    from linlayout.convert.cost import COST_WEIGHTS, SHARED_MEMORY_OPS, cost_of, executed_barriers, opcode, paths_of

    def definition(ins, wf, spilled):
        barriers = executed_barriers(ins)
        c = 0
        for op, n in ins.items():
            op = opcode(op)
            weight = COST_WEIGHTS["shared_instruction"] if op in SHARED_MEMORY_OPS else COST_WEIGHTS[op]
            c += weight * barriers.get(op, n)
        c += COST_WEIGHTS["wavefront"] * (wf["write"] + wf["read"]) if wf else 0
        return c + sum(COST_WEIGHTS[p] for p in paths_of(ins)) + COST_WEIGHTS["spill"] * spilled

    rng = random.Random(5)
    ops = ["shfl.sync", "selp", "prmt", "mov", "st.shared", "ld.shared", "stmatrix.x4", "ldmatrix.x2.trans",
           "bar.sync", "bar.warp.sync"]
    for _ in range(300):
        ins = {op: rng.choice([0, 0, 1, 2, 7]) for op in rng.sample(ops, rng.randint(0, len(ops)))}
        wf = rng.choice([None, {"write": rng.randint(0, 9), "read": rng.randint(0, 9)}])
        spilled = rng.choice([0, 0, 3])
        assert cost_of(ins, wf, spilled) == definition(ins, wf, spilled)


def test_index_echelon_is_kept_per_object_and_solves_the_conversion_map():
    """solve.index_echelon eliminates a layout's index columns once per object (convert/speed.py's
    INDEX_ECHELON_KEY); the conversion map's level solvers given it answer as with their own elimination."""
    from linlayout.convert.solve import index_echelon, prefix_solver

    for _, src, dst in catalog_pairs()[:6]:
        ib, cols = index_bits(src, "src")
        ech = index_echelon(src)
        assert index_echelon(src) is ech
        ends = [ib.reg, ib.reg + ib.lane, ib.reg + ib.lane + ib.warp, ib.bits]
        shared, own = prefix_solver(cols, ends, ech), prefix_solver(cols, ends)
        for t in list(index_bits(aligned(src, dst), "dst")[1]) + [0, 1, 3]:
            assert [solved_at(shared, t, lv) for lv in range(4)] == [solved_at(own, t, lv) for lv in range(4)]


@pytest.mark.parametrize("seed", range(10))
def test_tritons_staging_counted_on_offsets_equals_counting_its_slice_layouts(seed):
    """``smem._triton_round_trip`` counts each side on offsets read off the whole layouts
    (``triton_scratch.count_offsets``); counting the slice layouts through the slice memory gives the same."""
    from dataclasses import replace

    from linlayout.convert.smem import triton_round_trip
    from linlayout.convert.triton_scratch import count_renumbered, triton_scratch

    rng = random.Random(seed)
    src, dst = random_pair(rng, rng.choice([1, 2, 4]), "any", mixed=seed % 2 == 0, max_regs_bits=4)
    dst = aligned(src, dst)
    seen = 0
    for eb in (8, 16, 32, 64):
        rt = triton_round_trip(src, dst, eb)
        if rt is None:
            continue
        seen += 1
        ts = triton_scratch(src, dst, eb)
        plain = replace(rt, register_order=((), ()))
        for side, op, family, ins, wf, n, order in (
                ("src", "store", ts.write, rt.swizzle.write_instruction, rt.swizzle.write_wavefronts,
                 rt.swizzle.write_instructions, rt.register_order[0]),
                ("dst", "load", ts.read, rt.swizzle.read_instruction, rt.swizzle.read_wavefronts,
                 rt.swizzle.read_instructions, rt.register_order[1])):
            report, numbering = count_renumbered(plain.slice_layout(side), rt.swizzle.memory, eb, op, family)
            assert (report.instruction, report.wavefronts, report.instructions, numbering) == (ins, wf, n, order)
    assert seen


@pytest.mark.parametrize("seed", range(2))
def test_a_register_conversion_has_a_shuffle_program_whose_bound_the_plan_reports(seed):
    """plan.py reports a level-0 map's shuffle lower bound without building its shuffle program: such a map always has
    one (every lane reads itself) and its lower_bound is warp.shuffle_lower_bound."""
    from linlayout.convert.solve import conversion_map
    from linlayout.convert.warp import shuffle_lower_bound, shuffle_program

    rng = random.Random(seed)
    seen = 0
    while seen < 8:
        src, dst = random_pair(rng, rng.choice([1, 2]), "thread", max_regs_bits=3)
        cm = conversion_map(src, aligned(src, dst))
        if cm.level != 0:
            continue
        seen += 1
        for eb in (8, 16, 32, 64):
            prog = shuffle_program(cm, eb)
            assert prog is not None and prog.lower_bound == shuffle_lower_bound(cm, eb)
            if src != dst:
                assert plan_conversion(src, dst, eb, multistep=False).shuffle_lower_bound == prog.lower_bound


def _listed_mux_counts(prog) -> dict[str, int]:
    """Strategy mux's counts by definition, from the listed selections (warp.py counts them from ranks)."""
    n = 1 << prog.pack_bits
    send, recv = prog.selections
    sel = sum(max(0, len(send[k]) - 1) for k in prog.used_rounds)
    packed = {w for k in prog.used_rounds for w in send[k]}
    unpack = 0
    for c in recv[:prog.kept]:
        if all(kind == "src" for kind, _ in c):
            sel += (len(c) - 1) * n  # element-wise selects on local registers
        else:
            sel += len(c) - 1
            unpack += 1
            packed |= {w for kind, w in c if kind == "src"}
    c = {"shfl.sync": len(prog.used_rounds) * prog.words_per_element, "selp": sel, "prmt": len(packed) * (n - 1),
         "mov": unpack if n == 2 and prog.element_bits == 16 else 0}
    c["prmt"] += 0 if c["mov"] else unpack * (n - 1)
    return {k: v for k, v in c.items() if v}


def test_mux_counts_with_local_rounds_from_ranks_equal_the_listed_selections():
    """warp.py counts strategy mux from ranks (ShuffleProgram.mux_counts); the counts equal those of the listed
    selections, without local rounds (extra rounds or not) and with them (span(M) inside them or not)."""
    from linlayout.convert.solve import conversion_map
    from linlayout.convert.warp import program_candidates

    cases = set()
    for seed in (200, 767, *range(20)):  # 200 and 767: swap matrices reaching outside the local rounds
        rng = random.Random(seed)
        src, dst = random_pair(rng, rng.choice([1, 2, 4]), rng.choice(["warp", "thread", "any"]), max_regs_bits=3)
        cm = conversion_map(src, aligned(src, dst))
        if cm.level > 1:
            continue
        for eb, p in ((8, 2), (8, 1), (16, 1), (16, 0), (32, 0)):
            for cand in program_candidates(cm, eb, p, 0):
                prog = cand.program()
                if prog.self_rounds:
                    cases.add(f2.Span(f2.null_space(list(prog.As))).extend(prog.M) > 0)  # span(M) ⊄ L
                else:
                    cases.add("extra rounds" if prog.extra_rounds else "no local rounds")
                assert prog.mux_counts == _listed_mux_counts(prog)
    assert cases == {False, True, "extra rounds", "no local rounds"}


def _two_reduction_map(src, dst):
    """conversion_map's rule with two reductions per lane/warp/block target (t ^ held below its level, else t)."""
    from linlayout.convert.solve import prefix_solver

    sh, scols = index_bits(src, "src")
    dh, dcols = index_bits(dst, "dst")
    ends = [sh.reg, sh.reg + sh.lane, sh.reg + sh.lane + sh.warp, sh.bits]
    solver = prefix_solver(scols, ends)
    starts, counts = (0, ends[0], ends[1], ends[2]), (dh.reg, dh.lane, dh.warp, dh.block)
    out, j = [], 0
    for keeps, (start, n) in enumerate(zip(starts, counts)):
        for k in range(n):
            t = dcols[j]
            j += 1
            own, held = (1 << (start + k), scols[start + k]) if keeps or k < sh.reg else (0, 0)
            if (own and held == t) or (t == 0 and not keeps):
                out.append((own if t or keeps else 0, 0))
                continue
            found = solver.lowest(t ^ held) if keeps else None
            if found is not None and found[0] < keeps:
                out.append((found[1] | own, found[0]))
                continue
            level, mask = solver.lowest(t)
            out.append((mask, max(level, keeps)))
    return out


@pytest.mark.parametrize("seed", range(2))
def test_conversion_map_reduces_each_target_once(seed):
    """solve.conversion_map reduces a target once and reads the solutions for t ^ held off its mask (the masks are
    linear on the span): the same columns and levels as reducing t ^ held and t apart."""
    from linlayout.convert.solve import conversion_map

    rng = random.Random(seed)
    pairs = [(s, d) for _, s, d in catalog_pairs()[seed::4]]
    while len(pairs) < 40:
        pairs.append(random_pair(rng, rng.choice([1, 2, 4]), rng.choice(["warp", "thread", "any"]), max_regs_bits=3))
    for src, dst in pairs:
        dst = aligned(src, dst)
        cm = conversion_map(src, dst)
        assert list(zip(cm.columns, cm.levels)) == _two_reduction_map(src, dst)


@pytest.mark.parametrize("seed", range(3))
def test_minimal_in_one_pass_equals_stripping_dimension_by_dimension(seed):
    """plan._minimal (identity runs of unit columns, the lower columns' highest bit) equals the stripping checked
    one dimension at a time (plan._minimal_checked), on maps whose top dimensions are the identity or nearly:
    a lower column reaching exactly the first bit of a top dimension, a top column moved by one bit."""
    from types import SimpleNamespace

    import linlayout.convert.plan as plan_module

    rng = random.Random(seed)
    dims = ("register", "lane", "warp", "block")
    for _ in range(150):
        ins = tuple((d, rng.randint(0, 3)) for d in dims)
        outs = tuple((d, b if d != "register" and rng.random() < 0.9 else rng.randint(0, 3)) for d, b in ins)
        out_bits = sum(b for _, b in outs)
        cols, start = [], 0
        for (_, b), (_, ob) in zip(ins, outs):
            identity = [1 << (start + k) for k in range(b)]
            if rng.random() < 0.3 and b:
                identity[rng.randrange(b)] <<= rng.choice([0, 1])
            cols.append(tuple(c if c < 1 << out_bits else 0 for c in identity))
            start += ob
        if rng.random() < 0.5 and cols[0] and out_bits:  # a register reaching the first bit of a higher dimension
            starts = [sum(b for _, b in outs[:i]) for i in range(1, 4)]
            cols[0] = (1 << rng.choice([s for s in starts if s < out_bits] or [0]),) + cols[0][1:]
        L = LinearLayout.from_flat(ins, outs, tuple(cols), check=False)
        cm = SimpleNamespace(layout=L, columns=tuple(c for col in cols for c in col))
        assert plan_module._minimal(cm) == plan_module._minimal_checked(L)


def _unit_layout(rng, regs: int, lanes: int, warps: int, bits: int, held: list[int] | None = None) -> LinearLayout:
    """A layout whose index columns are unit vectors or zero, repeats allowed (``held``: drawn mostly from these)."""
    units = [1 << b for b in range(bits)] + [0]

    def col():
        if held is not None and rng.random() < 0.85:
            return rng.choice(held)
        return rng.choice(units)

    cols = [[col() for _ in range(n)] for n in (regs, lanes, warps)]
    ins = (("register", regs), ("lane", lanes), ("warp", warps))
    return LinearLayout.from_flat(ins, (("dim0", bits),), tuple(map(tuple, cols)))


@pytest.mark.parametrize("seed", range(3))
def test_conversion_map_by_lookup_equals_the_reduction_on_unit_columns(seed):
    """solve._solved_by_lookup (both layouts of unit or zero columns: each target's mask is the first source column
    equal to it, read off the elimination) gives the columns, levels and errors of solve._solved (each target
    reduced), on layouts with repeated and zero columns and targets the source does not hold."""
    import linlayout.convert.solve as solve

    rng = random.Random(seed)
    kinds = set()
    for _ in range(150):
        bits, lanes, warps = rng.randint(3, 7), rng.randint(1, 3), rng.randint(0, 2)
        src = _unit_layout(rng, rng.randint(0, 4), lanes, warps, bits)
        held = list(index_bits(src, "src")[1]) if rng.random() < 0.9 else None
        dst = _unit_layout(rng, rng.randint(0, 4), lanes, warps, bits, held)
        assert solve.has_unit_columns(src) and solve.has_unit_columns(dst)
        sh, scols = index_bits(src, "src")
        dh, dcols = index_bits(dst, "dst")
        ends = (sh.reg, sh.reg + sh.lane, sh.reg + sh.lane + sh.warp, sh.bits)
        counts = (dh.reg, dh.lane, dh.warp, dh.block)
        elimination = f2.echelon(scols)
        levels = solve._levels_by_length(ends)
        answers = []
        for solver in (lambda: solve._solved(scols, dcols, ends, counts, levels, elimination),
                       lambda: solve._solved_by_lookup(scols, dcols, ends, counts, levels, elimination[0].combo)):
            try:
                answers.append(solver())
            except InputError as e:
                answers.append(str(e))
        assert answers[0] == answers[1]
        kinds.add("error" if isinstance(answers[0], str) else max(answers[0][1], default=0))
    assert kinds >= {"error", 0, 1, 2}


def test_packing_cost_equals_pricing_the_packing():
    """cost.packing_cost (the round trip's floor prices its packing by the ALU weights alone) equals cost_of of
    cost.packing's counts, for every width, side and word count the floor asks."""
    from linlayout.convert.cost import packing, packing_cost

    for eb in (8, 16, 32, 64):
        for side in ("pack", "unpack"):
            for words in range(0, 70):
                assert packing_cost(words, eb, side) == cost_of(packing(words, eb, side))
    assert packing_cost(3, 8, "pack") > packing_cost(3, 16, "pack") > 0


def test_merges_loads_reads_the_first_two_lane_columns():
    """smem._merges_loads reads lane bits 0 and 1 off the kept index columns: the same answer as the lane bases."""
    from linlayout.hw import get_hardware

    rng = random.Random(7)
    hw = get_hardware("sm90")
    seen = set()
    for _ in range(150):
        L = _unit_layout(rng, rng.randint(0, 3), rng.randint(0, 3), rng.randint(0, 1), rng.randint(3, 6))
        lanes = L.flat_bases("lane") if "lane" in L.in_sizes else ()
        expected = hw.merge_broadcast_loads and any(c == 0 for c in lanes[:2])
        assert smem._merges_loads(L, hw) == expected
        seen.add(expected)
    assert seen == {False, True}
