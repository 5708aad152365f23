"""A matrix instruction's side on a built candidate: its exact cost follows from the analytic one
(``scoring.tile_side_cost``, paper_notes/synthesis.md §3, "A matrix instruction's side"), so the search does not
evaluate the access plan on the built memory.  Checked here against that evaluation (``scoring.exact_cost``) on
every candidate of every matrix instruction pair of seeded random problems."""

from __future__ import annotations

import random
from itertools import count

from linlayout import LinearLayout
from linlayout.hw import get_hardware
from linlayout.synth.candidates import complete_columns
from linlayout.synth.scoring import exact_cost, tile_side_cost
from linlayout.synth.search import SearchState, score_all
from linlayout.synth.sides import pair_problem
from linlayout.synth.synthesis import swizzle_problem

from ..conftest import examples

MATRIX_SETS = [
    ["st.shared", "stmatrix.x4", "stmatrix.x2.trans", "ld.shared", "ldmatrix.x4", "ldmatrix.x4.trans", "ldmatrix.x1"],
    ["stmatrix.x4.trans", "stmatrix.x1", "ldmatrix.x2.trans", "ldmatrix.x2"],
]


def tile_friendly_layout(rng: random.Random, d: int, r0: int) -> LinearLayout:
    """Unit or zero bases on distinct tensor bits, every lane bit a tensor bit (a matrix row fits), register 0
    zero one time in four (a ``.trans`` tile's broadcast vector register)."""
    bits = [1 << b for b in range(d)]
    rng.shuffle(bits)
    lanes, rest = bits[:5], bits[5:]
    regs = [0 if rng.random() < 0.25 or not rest else rest.pop()]
    for b in rest:  # the other bits on registers, some broadcast registers between them
        regs += [0, b] if rng.random() < 0.2 else [b]
    split = [[v & ((1 << r0) - 1), v >> r0] for v in regs], [[v & ((1 << r0) - 1), v >> r0] for v in lanes]
    return LinearLayout({"register": split[0], "lane": split[1]}, {"dim0": 1 << r0, "dim1": 1 << (d - r0)})


def test_a_matrix_side_costs_what_its_analytic_score_says_up_to_zero_tile_registers():
    rng = random.Random(27)
    hw = get_hardware("sm90")
    checked = doubled = 0
    for _ in range(examples(300)):
        d = rng.randint(6, 11)
        r0 = rng.randint(0, d)
        W, R = tile_friendly_layout(rng, d, r0), tile_friendly_layout(rng, d, r0)
        p = swizzle_problem(W, R, rng.choice([8, 16, 16, 32]), hw, rng.choice(["balanced", "read"]), None,
                            rng.choice(MATRIX_SETS))
        for wi in p.write_options:
            for ri in p.read_options:
                if not (wi.is_matrix or ri.is_matrix):
                    continue
                sub = pair_problem(p, wi, ri)
                entries, _ = score_all(sub, SearchState([], count(), []))
                for _, fill, _, _, cw, cr, _, _ in entries:
                    bank, segment = complete_columns(fill)
                    cols = fill.low_block + fill.word_fill + tuple(bank) + tuple(segment)
                    for name, ins, analytic in (("write", wi, cw), ("read", ri, cr)):
                        if ins.is_matrix:
                            side = p.sides[name]
                            closed = tile_side_cost(side, analytic)
                            assert closed == exact_cost(cols, side, ins, p.geo, hw, None)
                            checked += 1
                            doubled += closed != analytic
    assert checked > 250 and doubled > 0  # some .trans sides broadcast their tile's vector register
