"""Fuzzing the conversion planner: every plan runs on the CPU executor, and its counts are recounted.

Random layout pairs (``tests/convert/samples.py``: unit, mixed and zero
bases; thread-, warp- and CTA-wide) are planned; the chosen plan (every
alternative in the long profile) is executed with
:func:`linlayout.convert.execute.execute`, which checks every destination
slot; a shared-memory round trip's wavefronts are recounted with the
address-level simulator on its own memory, and shuffle counts are checked
against the planner's lower bound.
"""

from __future__ import annotations

import random

import pytest

from linlayout.convert.execute import execute
from linlayout.convert.plan import plan_conversion
from linlayout.count.by_simulation import simulate_wavefronts
from ..convert.samples import random_pair
from .profile import LONG, seeds


def recount(plan, element_bits: int) -> dict[str, int]:
    """A round trip's wavefronts per warp, by simulating both sides on the plan's memory."""
    rt = plan.shared_memory
    sw = rt.swizzle
    write = simulate_wavefronts(rt.src_layout, sw.memory, element_bits, "store", sw.write_instruction).wavefronts
    read = simulate_wavefronts(rt.dst_layout, sw.memory, element_bits, "load", sw.read_instruction).wavefronts
    return {"write": rt.reps * write, "read": rt.reps * read}


@pytest.mark.parametrize("seed", seeds(4, 5))
def test_plans_execute_and_recount(seed):
    rng = random.Random(seed)
    warps = rng.choice([1, 2, 4]) if LONG else 1
    src, dst = random_pair(rng, warps, rng.choice(["any", "warp", "thread"]), mixed=rng.random() < 0.5,
                           max_regs_bits=3 if LONG else 1)
    bits = rng.choice([8, 16, 32, 64])
    plan = plan_conversion(src, dst, bits)
    plans = [plan] + ([plan_conversion(src, dst, bits, paths=[a.path]) for a in plan.alternatives
                       if a.path != plan.path] if LONG else [])
    for p in plans:
        assert execute(p, src, dst), (seed, p.path)
        if p.shared_memory is not None:
            assert recount(p, bits) == p.wavefronts, (seed, p.path)
        if p.shuffles is not None and p.shuffle_lower_bound is not None:
            assert p.instructions.get("shfl.sync", 0) >= p.shuffle_lower_bound, seed
