"""The two-step search reads the masks of a swapped layout in constant time (``step_floors.SwapMasks``); they must be
the masks of the swapped columns (``masks_of``) for every swap, sides of repeated and broadcast columns included (a
bit flip, right for a side of distinct bits, is wrong there: the tests check such sides occur)."""

from __future__ import annotations

import random

import pytest

from linlayout.convert.cost import cost_of
from linlayout.convert.multistep import swaps
from linlayout.convert.solve import IndexBits, aligned, conversion_map
from linlayout.convert.step_floors import Endpoint, SwapMasks, mask_register_floor, masks_of, moves, ors_but_one
from linlayout.convert.warp import register_program
from linlayout.core.layout import LinearLayout
from linlayout.errors import InputError


def test_ors_but_one_is_the_or_of_the_others():
    rng = random.Random(1)
    for _ in range(200):
        values = [rng.randrange(64) for _ in range(rng.randint(0, 7))]
        expect = [0] * len(values)
        for k in range(len(values)):
            for j, v in enumerate(values):
                if j != k:
                    expect[k] |= v
        assert ors_but_one(values) == expect


def test_swap_masks_are_the_swapped_columns_masks():
    rng = random.Random(2)
    flips_wrong = 0
    for _ in range(150):
        bits = IndexBits(rng.randint(0, 4), rng.randint(1, 5), rng.randint(0, 2), 0)
        cols = tuple(rng.choice([0, 1 << rng.randrange(8)]) for _ in range(bits.bits))  # repeats and zeros
        swap_masks = SwapMasks(bits, cols)
        base = masks_of(bits, cols)
        for i, j in swaps(bits.reg, bits.lane):
            swapped = list(cols)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            want = masks_of(bits, swapped)
            assert swap_masks.swapped(i, j) == want
            flip = cols[i] ^ cols[j] if i < bits.reg else 0
            flips_wrong += (base.registers ^ flip, base.lanes ^ flip) != tuple(want)
    assert flips_wrong > 0


def _one_hot_layout(rng: random.Random, regs: int, lanes: int, warps: int, bits: int) -> LinearLayout:
    """Single-bit or zero columns (repeats and zeros allowed) over ``2^bits`` elements."""
    def col():
        return [rng.choice([0] + [1 << b for b in range(bits)])]
    return LinearLayout({"register": [col() for _ in range(regs)], "lane": [col() for _ in range(lanes)],
                         "warp": [col() for _ in range(warps)]}, {"dim0": 1 << bits})


def register_steps(seed: int, n: int):
    """Random register steps (level 0) between layouts of single-bit columns, with the exact cost of each."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        bits = rng.randint(2, 5)
        src = _one_hot_layout(rng, rng.randint(0, 4), rng.randint(1, 3), rng.randint(0, 1), bits)
        dst = LinearLayout({"register": [[rng.choice(src.bases["register"] + [(0,)])[0]] for _ in
                                         range(rng.randint(0, 3))],
                            "lane": [[c[0] ^ rng.choice([0] + [r[0] for r in src.bases["register"]])]
                                     for c in src.bases["lane"]],
                            "warp": [list(c) for c in src.bases["warp"]]}, {"dim0": 1 << bits})
        if any(c[0] & (c[0] - 1) for c in dst.bases["lane"]):
            continue  # a lane column of two bits: not a layout of single-bit columns
        try:
            cm = conversion_map(src, aligned(src, dst))
        except InputError:
            continue
        if cm.level == 0:
            out.append((Endpoint.of(src), Endpoint.of(aligned(src, dst)), cost_of(register_program(cm, 32).counts)))
    return out


def check_register_floor(floor) -> None:
    tight = repeated = 0
    for src, dst, exact in register_steps(3, 150):
        value = floor(moves(src, dst), dst.one_hot())
        assert value <= exact
        tight += value == exact
        repeated += src.one_hot().registers.bit_count() != src.bits.reg  # a repeated or zero source register
    assert tight and repeated


def test_the_register_floor_from_masks_is_a_floor_of_the_planned_register_step():
    """:func:`mask_register_floor` (which lets the search drop a register step of repeated or zero source registers
    without its conversion map) never exceeds the planned step's cost, and often equals it."""
    check_register_floor(mask_register_floor)


def test_a_register_floor_one_too_high_fails_the_check():
    with pytest.raises(AssertionError):
        check_register_floor(lambda differences, dm: mask_register_floor(differences, dm) + 1)
