"""How long ``plan_conversion`` takes on a realistic corpus, and the multi-step search beside it.

The corpus is the Triton-style pairs of ``tools/convert_triton39_check.py``
restricted to compiler layouts (blocked, mma, dot operand, sliced; no random
linear layouts), 1-8 warps, 8-64-bit, tiles up to 128x128 (and a few
256x256 on 8 warps).  Each pair is planned once, in one process (the
package's memos stay warm across pairs, as in a compiler, but no pair is
timed twice), with ``time.perf_counter``; then the same pair with
``multistep=True`` (its one-step part then hits the memos the first plan
filled, as it would in the planner).  Prints the medians, the 90th percentiles and the
slowest pairs; ``--out`` also writes them.

    python benchmarks/convert_plan_speed.py --pairs 200 --seed 5 --out benchmarks/results/convert_plan_speed.txt
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from convert_triton39_check import pairs  # noqa: E402

from linlayout.convert.plan import plan_conversion  # noqa: E402
from linlayout.errors import InputError  # noqa: E402

REALISTIC = {"blocked", "mma", "dot", "sliced"}


def corpus(n: int, seed: int):
    """``n`` pairs of compiler layouts (no random linear layouts)."""
    out = []
    k = 0
    while len(out) < n:
        for p in pairs(4 * n, seed + k):
            if set(p[1]) <= REALISTIC:
                out.append(p)
                if len(out) == n:
                    break
        k += 1
    return out


def timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    try:
        result = fn()
    except InputError as e:
        result = e
    return 1000 * (time.perf_counter() - t0), result


def quantile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out")
    args = ap.parse_args()
    plan_conversion(*corpus(1, args.seed + 1000)[0][2:5])  # imports and module-level tables
    rows = []
    for name, kinds, src, dst, bits, warps in corpus(args.pairs, args.seed):
        one, plan = timed(lambda: plan_conversion(src, dst, bits))
        two, mplan = timed(lambda: plan_conversion(src, dst, bits, multistep=True))
        rows.append((name, one, two, getattr(plan, "path", "error"), getattr(mplan, "path", "error")))
    ones, twos = [r[1] for r in rows], [r[2] for r in rows]
    paths: dict[str, int] = {}
    for r in rows:
        paths[r[3]] = paths.get(r[3], 0) + 1
    lines = [f"{len(rows)} conversions (blocked, mma, dot operand, sliced; 1-8 warps; 8-64-bit), one plan each",
             "paths: " + ", ".join(f"{k} {v}" for k, v in sorted(paths.items())),
             f"plan_conversion: median {statistics.median(ones):.2f} ms, p90 {quantile(ones, 0.9):.2f} ms, "
             f"max {max(ones):.1f} ms",
             f"plan_conversion(multistep=True): median {statistics.median(twos):.2f} ms, p90 {quantile(twos, 0.9):.2f} ms, "
             f"max {max(twos):.1f} ms; multi-step plans chosen: {sum(r[4] == 'multistep' for r in rows)}",
             "slowest: " + ", ".join(f"{r[0]} {r[1]:.0f} ms" for r in sorted(rows, key=lambda r: -r[1])[:5])]
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
