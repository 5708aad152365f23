"""The two-step search reads the masks of a swapped layout in constant time (``step_floors.SwapMasks``); they must be
the masks of the swapped columns (``masks_of``) for every swap, sides of repeated and broadcast columns included (a
bit flip, right for a side of distinct bits, is wrong there: the tests check such sides occur)."""

from __future__ import annotations

import random

from linlayout.convert.multistep import swaps
from linlayout.convert.solve import IndexBits
from linlayout.convert.step_floors import SwapMasks, masks_of, ors_but_one


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
