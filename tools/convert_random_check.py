"""The long version of tests/convert/test_plan.py: plan thousands of random pairs, run every path of each on the CPU executor.

    python tools/convert_random_check.py --pairs 3000 --seed 0

Pairs: Triton's layouts from the catalog (every element width) and random
linear layouts (unit, mixed and zero bases; 8-64-bit elements; 1-8 warps;
independent, warp-local and thread-local pairs).  Every possible path of
every pair (the chosen one and each alternative) is executed and every
destination slot checked; shuffle counts are checked against the lower bound.
"""

from __future__ import annotations

import argparse
import collections
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
    ap.add_argument("--pairs", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases = [(n, s, d, eb) for n, s, d in catalog_pairs() for eb in (8, 16, 32, 64)]
    while len(cases) < args.pairs:
        kind = rng.choice(["any", "warp", "thread"])
        s, d = random_pair(rng, rng.choice([1, 2, 4, 8]), kind, mixed=rng.random() < 0.5)
        cases.append((f"random {kind}", s, d, rng.choice([8, 16, 32, 64])))
    stats: collections.Counter = collections.Counter()
    t0 = time.time()
    for i, (name, s, d, eb) in enumerate(cases[:args.pairs]):
        if i % 200 == 0:
            print(f"{i} pairs, {time.time() - t0:.0f} s", flush=True)
        try:
            p = plan_conversion(s, d, eb)
        except InputError as e:
            stats[f"refused: {str(e)[:60]}"] += 1
            continue
        stats[p.path] += 1
        for a in p.alternatives:
            q = p if a.path == p.path else plan_conversion(s, d, eb, paths=[a.path])
            execute(q, s, d)
            stats["executions"] += 1
            if q.shuffles is not None:
                assert q.instructions.get("shfl.sync", 0) >= q.shuffle_lower_bound
                stats["shuffles at the lower bound" if q.instructions.get("shfl.sync", 0) == q.shuffle_lower_bound
                      else "shuffles above the lower bound"] += 1
    print(f"{min(args.pairs, len(cases))} pairs in {time.time() - t0:.0f} s, every destination slot right")
    for k, v in sorted(stats.items()):
        print(f"  {k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
