"""The proof's price: ``optimal_swizzle`` alone against ``optimal_swizzle`` plus reading ``optimal`` and
``lower_bound`` (the relaxation), on the six benchmark problems, fresh layout objects.

Usage (from the project root)::

    PYTHONPATH=. python benchmarks/proof_ratio.py [--rounds 7]

CPU time (``time.process_time``) per call, garbage collection off inside a
timed block, the two variants in alternating blocks (a machine whose speed
drifts slows both alike); the median over rounds and the ratio (with proof /
alone; the issue's goal is at most 3).  The problems are those of
``benchmarks/compare_revisions.py``: Triton's five ``SwizzleTest`` cases
(``../shared/reference/triton_swizzle_cases.json``, when present) and
``examples/gemm_fp16_operand_a.json``.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT.parent / "shared" / "reference" / "triton_swizzle_cases.json"


def problems() -> list[tuple[str, dict, dict, int]]:
    out = []
    if CASES.exists():
        out = [(c["name"], c["write"], c["read"], c["element_bits"]) for c in json.loads(CASES.read_text())["cases"]]
    g = json.loads((ROOT / "examples" / "gemm_fp16_operand_a.json").read_text())
    return out + [("gemm_fp16_operand_a", g["write"], g["read"], g["element_bits"])]


def block(w: dict, r: dict, eb: int, n: int, proof: bool) -> float:
    from linlayout import LinearLayout
    from linlayout.synth.synthesis import optimal_swizzle

    args = [(LinearLayout.from_json(w), LinearLayout.from_json(r)) for _ in range(n)]
    gc.collect()
    gc.disable()
    try:
        c0 = time.process_time()
        for a, b in args:
            res = optimal_swizzle(a, b, eb)
            if proof:
                res.optimal, res.lower_bound
        return (time.process_time() - c0) / n
    finally:
        gc.enable()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    ratios = []
    print(f"{'problem':30s} {'alone (us)':>11s} {'with proof (us)':>16s} {'ratio':>6s}")
    for name, w, r, eb in problems():
        block(w, r, eb, 50, True)
        alone, proved = [], []
        for k in range(args.rounds):
            for proof in ((False, True) if k % 2 == 0 else (True, False)):
                (proved if proof else alone).append(block(w, r, eb, 200, proof))
        a, p = statistics.median(alone), statistics.median(proved)
        ratios.append(p / a)
        print(f"{name:30s} {a * 1e6:11.1f} {p * 1e6:16.1f} {p / a:6.2f}")
    print(f"geometric mean ratio {math.exp(statistics.fmean(map(math.log, ratios))):.2f}, largest {max(ratios):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
