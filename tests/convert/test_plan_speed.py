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
    monkeypatch.setattr(smem, "rep_cost_floor", lambda *args: 0)  # no slicing pruned
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
