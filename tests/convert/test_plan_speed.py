"""The planner's speed devices change no answer.

The rep-cost floor is a true lower bound (on every round trip with at most
as many rep bits as each side has independent registers, the only slicings
:func:`round_trip` tries), and pruning by it picks the same round trip as
the search without it.  ``tools/convert_plan_dump.py`` checks the same on
420 pairs against the base revision.
"""

from __future__ import annotations

import random

import pytest

import linlayout.convert.smem as smem
from linlayout.convert.cost import cost_of
from linlayout.convert.smem import rep_cost_floor, round_trip, warp_private
from linlayout.convert.solve import aligned, index_bits
from linlayout.core import f2
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
    monkeypatch.setattr(smem, "rep_cost_floor", lambda *args: 0)  # no slicing pruned
    assert pruned == _plans(src, dst, 16)
