"""How often does a two-step conversion beat the best one-step plan?  ``plan_conversion(..., multistep=True)``.

The search itself is :mod:`linlayout.convert.multistep` (a networkx weighted graph of intermediate
layouts one mixed register/lane swap or one lane transposition from src or dst).  For each pair this
plans with and without it, runs every multi-step plan on the CPU executor, and reports the wins, the
gains in cost units and the planning time.

    python tools/convert_multistep.py --pairs 80 --seed 3
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from linlayout.convert.execute import execute  # noqa: E402
from linlayout.convert.plan import plan_conversion  # noqa: E402
from tests.convert.samples import catalog_pairs, random_pair  # noqa: E402
from linlayout.errors import InputError  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=80)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases = [(n, s, d, eb) for n, s, d in catalog_pairs()[:24:3] for eb in (16, 32)]
    while len(cases) < args.pairs:
        s, d = random_pair(rng, rng.choice([1, 2, 4]), rng.choice(["warp", "any"]), mixed=False, max_regs_bits=2)
        cases.append(("random", s, d, rng.choice([8, 16, 32])))
    wins = tried = 0
    gains = []
    t_one = t_multi = 0.0
    for name, s, d, eb in cases[:args.pairs]:
        try:
            t0 = time.perf_counter()
            one = plan_conversion(s, d, eb)
            t1 = time.perf_counter()
        except InputError:
            continue
        p = plan_conversion(s, d, eb, multistep=True)
        t_multi += time.perf_counter() - t1
        t_one += t1 - t0
        tried += 1
        assert execute(p, s, d)
        if p.path == "multistep":
            wins += 1
            gains.append(one.cost - p.cost)
            print(f"multi-step wins: {name} {eb}-bit: {one.path} {one.cost} -> {' then '.join(st.path for _, st in p.steps)} "
                  f"{p.cost}")
    print(f"{tried} pairs, {wins} where a two-step plan beats every one-step plan (gains {sorted(gains)}); every "
          f"plan executed right; planning {1e3 * t_one / tried:.1f} ms one-step, {1e3 * t_multi / tried:.0f} ms with "
          f"multistep=True per pair")
    return 0


if __name__ == "__main__":
    sys.exit(main())
