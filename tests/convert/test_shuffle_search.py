"""The shuffle search's floors and lazy steps agree with the exact computation (linlayout.convert.warp).

``PackWidths.fewest_shuffles`` lets :func:`~linlayout.convert.warp.shuffle_program` skip a pack width whose
programs all take more shuffles than the packed-shuffle bound; it must lie at or below the shuffles of every
program of that width, which these tests build and count on random warp-local maps (a floor that forgets the
local rounds, ``wpe << mw``, lies above some of them: the tests check that such programs occur).
"""

from __future__ import annotations

import random

from linlayout.convert.solve import aligned, conversion_map
from linlayout.convert.warp import PackWidths, program_candidates

from .samples import random_pair

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
    for cm in warp_local_maps(3, 30):
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
                    assert shuffles >= fewest, (p, eb, shuffles, fewest)
                    checked += 1
                    if prog.self_rounds and shuffles == fewest and shuffles < max(1, eb // 32) << (len(widths.complement) - p):
                        local_at_floor += 1
    assert checked > 100 and local_at_floor > 0


def test_a_width_whose_programs_cannot_read_their_own_lane_is_floored_by_all_its_rounds():
    """``may_read_own_lane`` False: no program of the map has local rounds (J = I is out of reach)."""
    refuted = 0
    for cm in warp_local_maps(4, 30):
        widths = PackWidths(cm)
        if widths.may_read_own_lane:
            continue
        refuted += 1
        for eb, pmax in WIDTHS:
            for p in range(pmax + 1):
                assert not any(c.program().self_rounds for c in program_candidates(cm, eb, p, 0, widths=widths))
    assert refuted > 0
