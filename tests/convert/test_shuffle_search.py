"""The shuffle search's floors and lazy steps agree with the exact computation (linlayout.convert.warp).

``PackWidths.fewest_shuffles`` lets :func:`~linlayout.convert.warp.shuffle_program` skip a pack width whose
programs all take more shuffles than the packed-shuffle bound; it must lie at or below the shuffles of every
program of that width, which these tests build and count on random warp-local maps (a floor that forgets the
local rounds, ``wpe << mw``, lies above some of them: the tests check that such programs occur).
"""

from __future__ import annotations

import random

from linlayout.convert.cost import cost_of
from linlayout.core import f2
from linlayout.convert.solve import aligned, conversion_map
from linlayout.convert.warp import PackWidths, program_candidates

from .samples import catalog_pairs, random_pair

WIDTHS = ((8, 2), (16, 1), (32, 0), (64, 0))


def warp_local_maps(seed: int, count: int) -> list:
    """``count`` conversion maps of random 1- and 2-warp pairs that stay inside the warp (level 0 or 1)."""
    rng, out = random.Random(seed), []
    while len(out) < count:
        src, dst = random_pair(rng, rng.choice([1, 2]), rng.choice(["warp", "thread", "any"]), max_regs_bits=3)
        cm = conversion_map(src, aligned(src, dst))
        if cm.level <= 1:
            out.append(cm)
    return out


def test_fewest_shuffles_is_at_most_every_programs_shuffles_and_reached_by_local_rounds():
    checked = local_at_floor = 0
    for cm in warp_local_maps(3, 20):
        widths = PackWidths(cm)
        for eb, pmax in WIDTHS:
            for p in range(pmax + 1):
                fewest = widths.fewest_shuffles(p, eb)
                programs = [cand.program() for cand in program_candidates(cm, eb, p, 0, widths=widths)]
                if fewest is None:
                    assert not programs
                    continue
                for prog in programs:
                    shuffles = prog.counts.get("shfl.sync", 0)
                    assert prog.cost == cost_of(prog.counts)
                    assert shuffles >= fewest, (p, eb, shuffles, fewest)
                    checked += 1
                    every_round = max(1, eb // 32) << (len(widths.complement) - p)
                    if prog.self_rounds and shuffles == fewest < every_round:
                        local_at_floor += 1
    assert checked > 100 and local_at_floor > 0


def test_a_width_whose_programs_cannot_read_their_own_lane_is_floored_by_all_its_rounds():
    """``may_read_own_lane`` False: no program of the map has local rounds (J = I is out of reach)."""
    refuted = 0
    for cm in warp_local_maps(4, 20):
        widths = PackWidths(cm)
        if widths.may_read_own_lane:
            continue
        refuted += 1
        for eb, pmax in WIDTHS:
            for p in range(pmax + 1):
                assert not any(c.program().self_rounds for c in program_candidates(cm, eb, p, 0, widths=widths))
    assert refuted > 0


def test_image_part_gives_the_send_words_of_an_inverse_over_the_image_and_its_lowest_complement():
    """H from one elimination of J (``image_part``) equals H from the basis of J's pivot columns completed by the
    lowest unit vectors and inverted (how the programs were built before), for ``K`` vanishing on ker J."""
    from linlayout.convert.warp import image_part
    from linlayout.core import f2

    rng = random.Random(7)
    singular = 0
    for _ in range(300):
        nl = rng.randint(1, 5)
        J = [rng.choice([0, 1 << rng.randrange(nl), rng.randrange(1 << nl)]) for _ in range(nl)]
        B = [rng.randrange(64) for _ in range(nl)]
        Kc = [f2.apply(B, j) for j in J]  # K = B J: zero on ker J
        ech, senders, _ = f2.echelon(J)
        img = [J[b] for b in senders]
        rest = f2.complement(img, nl) if len(img) < nl else []
        inv = f2.inverse(img + rest)
        vals = [Kc[b] for b in senders] + [0] * len(rest)
        singular += len(rest) > 0
        assert [f2.apply(Kc, image_part(ech, 1 << t)) for t in range(nl)] == [f2.apply(vals, inv[t]) for t in range(nl)]
    assert singular > 50


def test_shuffle_lower_bound_of_single_bit_layouts_is_the_thread_by_thread_one():
    """Layouts whose register columns are single element bits (compiler layouts) count ``Dr + Sr`` as a bit mask
    (``warp.shuffle_lower_bound``); the thread-by-thread reference agrees on the catalog's warp-local pairs."""
    from linlayout.convert.warp import shuffle_lower_bound

    from .test_plan_speed import _reference_shuffle_bound

    bounds = set()
    for _, src, dst in catalog_pairs():
        dst = aligned(src, dst)
        cm = conversion_map(src, dst)
        if cm.level > 1 or cm.src_bits.bits > 10:  # the reference lists every element of every thread
            continue
        bound = shuffle_lower_bound(cm, 16)
        assert bound == _reference_shuffle_bound(src, dst, 16)
        bounds.add(bound)
    assert len(bounds) > 2


def test_both_strategies_prices_are_the_cost_of_their_counts_and_local_rounds_are_tested_right():
    """``ShuffleProgram._price`` (the search's price of a strategy, without its counts' dict) is ``cost_of`` of that
    strategy's counts, and ``has_local_rounds`` says exactly whether ``self_rounds`` lists any."""
    checked = local = 0
    for prog in every_program(warp_local_maps(5, 16)):
        assert prog._price(*prog.mux_terms) == cost_of(prog.mux_counts)
        assert prog._price(*prog.layer_terms) == cost_of(prog.layer_counts)
        assert prog.has_local_rounds == bool(prog.self_rounds)
        checked += 1
        local += prog.has_local_rounds
    assert checked > 50 and local > 0


def test_without_local_rounds_every_round_is_shuffled_extra_rounds_included():
    """``used_rounds`` (and the shuffle floor and ``mux`` counts that read its size) is every round when no round is
    local: the span of the kept rounds' bits and ``M`` is the whole round space, as each extra round bit is a column
    of ``M`` (the swap of the direction it fixes).  Checked against that span, listed; programs with extra rounds
    occur (where the kept rounds alone would be too few)."""
    checked = extra = 0
    for prog in every_program(warp_local_maps(6, 40)):
        if prog.has_local_rounds:
            continue
        low = [1 << i for i in range(len(prog.rounds_basis))]
        listed = sorted(f2.subset_xors(f2.basis(low + list(prog.M))))
        assert list(prog.used_rounds) == listed == list(range(1 << prog.round_bits))
        checked += 1
        extra += listed != list(range(prog.kept))
    assert checked > 50 and extra > 0


def every_program(maps):
    """Every shuffle program the search can build for each map, at every element width of ``WIDTHS`` and pack width."""
    for cm in maps:
        widths = PackWidths(cm)
        for eb, pmax in WIDTHS:
            for p in range(pmax + 1):
                for cand in program_candidates(cm, eb, p, 0, widths=widths):
                    yield cand.program()
