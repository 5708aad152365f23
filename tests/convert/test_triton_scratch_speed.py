"""Triton's scratch layout (:mod:`linlayout.convert.triton_scratch`) takes the same answer by its shortcuts.

Each shortcut is compared with the exact computation it replaces, on random layouts of unit and of mixed
bases, over every element width (each width has its own tile pairs).
"""

from __future__ import annotations

import random

import pytest

import linlayout.convert.triton_scratch as ts
from linlayout.convert.solve import aligned
from linlayout.core import f2

from .samples import random_pair


def _exact_conflicts(tile_src, tile_dst, segment) -> int:
    """``2^dim(S ∩ T) - 1`` per tile, with ``dim(S ∩ T) = rank S + rank T - rank(S + T)``."""
    rank_s = f2.rank(segment)
    return sum((1 << (rank_s + f2.rank(t) - f2.rank(list(segment) + list(t)))) - 1 for t in (tile_src, tile_dst))


@pytest.mark.parametrize("seed", range(12))
def test_conflicts_of_unit_tiles_counted_as_sets_equal_the_ranks(seed, monkeypatch):
    """Where the layouts' bases are unit vectors, a pair's conflicts are counted as the segment vectors that are
    tile vectors, though the segment holds sums (``_conflicts``' ``unit_vectors``): the same as from ranks."""
    rng = random.Random(seed)
    seen = []
    real = ts._conflicts

    def checked(tile_src, tile_dst, segment, unit_vectors=False):
        got = real(tile_src, tile_dst, segment, unit_vectors)
        seen.append((got, _exact_conflicts(tile_src, tile_dst, segment), unit_vectors,
                     all(b & (b - 1) == 0 for b in segment)))
        return got

    monkeypatch.setattr(ts, "_conflicts", checked)
    for _ in range(6):
        src, dst = random_pair(rng, rng.choice([1, 2, 4, 8]), "any", mixed=rng.random() < 0.3, max_regs_bits=4)
        for eb in (8, 16, 32, 64):
            ts.triton_scratch(src, aligned(src, dst), eb)
    assert seen
    assert all(got == exact for got, exact, _, _ in seen)
    if seed == 0:  # the random pairs reach the shortcut with sums in the segment and with conflicts
        assert any(unit and not unit_segment for _, _, unit, unit_segment in seen)
