"""Unit-basis synthesis time before and after issue 12's generalisation, measured in one process.

The old tree (commit f546a28 by default) is extracted with ``git archive`` into a temporary folder and
imported as the package ``linlayout_old`` (the package imports itself relatively only); both versions
synthesize the same distributed (unit-basis) problems on fresh layout objects, alternating in rounds,
and the median per-round times are compared.

    python benchmarks/synthesis_unit_basis_timing.py [--rev f546a28] [--rounds 15]
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPEAT = 10  # passes over the problems per timed round (fresh layout objects every time)


def load_old(rev: str, where: Path):
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "linlayout"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(where)
    (where / "linlayout").rename(where / "linlayout_old")
    sys.path.insert(0, str(where))
    return importlib.import_module("linlayout_old")


def problems(seed: int = 0, n: int = 40) -> list[tuple[dict, dict, dict, int]]:
    """Triton's five cases, the GEMM example and random distributed pairs (unit or zero bases)."""
    out = []
    cases = json.loads((ROOT / "tests" / "data" / "triton_swizzle_cases.json").read_text())["cases"]
    for c in cases:
        out.append((c["write"]["bases"], c["read"]["bases"], c["write"]["out_dims"], c["element_bits"]))
    g = json.loads((ROOT / "examples" / "gemm_fp16_operand_a.json").read_text())
    out.append((g["write"]["bases"], g["read"]["bases"], g["write"]["out_dims"], g["element_bits"]))
    rng = random.Random(seed)
    while len(out) < n:
        d = rng.randint(6, 14)
        r0 = rng.randint(0, d)
        outs = {"dim0": 1 << r0, "dim1": 1 << (d - r0)}

        def side(d=d, r0=r0, outs=outs):
            nreg = max(0, d - 5) + rng.randint(0, 2)
            slots = [("register", i) for i in range(nreg)] + [("lane", i) for i in range(5)] + [("warp", 0)]
            bits = list(range(d))
            rng.shuffle(slots)
            rng.shuffle(bits)
            flat = dict.fromkeys(slots, 0)
            for s, b in zip(slots, bits):
                flat[s] = 1 << b
            bases = {"register": [], "lane": [], "warp": []}
            for dim, i in sorted(flat):
                v = flat[(dim, i)]
                bases[dim].append([v & ((1 << r0) - 1), v >> r0])
            return bases

        out.append((side(), side(), outs, rng.choice([8, 16, 32])))
    return out


def run(pkg, probs) -> float:
    LL = pkg.LinearLayout
    from_syn = pkg.optimal_swizzle
    t0 = time.process_time()  # CPU time of this process: less sensitive to other jobs on a shared machine
    for _ in range(REPEAT):
        for w, r, outs, eb in probs:
            res = from_syn(LL(w, outs), LL(r, outs), eb)
            _ = res.optimal  # the proof is part of the answer
    return time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rev", default="f546a28")
    ap.add_argument("--rounds", type=int, default=15)
    a = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    import linlayout as new

    with tempfile.TemporaryDirectory() as tmp:
        old = load_old(a.rev, Path(tmp))
        probs = problems()
        ok = 0
        for w, r, outs, eb in probs:  # same answers on unit bases
            x = old.optimal_swizzle(old.LinearLayout(w, outs), old.LinearLayout(r, outs), eb)
            y = new.optimal_swizzle(new.LinearLayout(w, outs), new.LinearLayout(r, outs), eb)
            ok += (x.write_wavefronts, x.read_wavefronts, list(x.memory.flat_bases("offset"))) == (
                y.write_wavefronts, y.read_wavefronts, list(y.memory.flat_bases("offset")))
        t_old, t_new = [], []
        for i in range(a.rounds):
            if i % 2:
                t_new.append(run(new, probs)); t_old.append(run(old, probs))
            else:
                t_old.append(run(old, probs)); t_new.append(run(new, probs))
        mo, mn = statistics.median(t_old), statistics.median(t_new)
        print(json.dumps({"problems": len(probs), "identical_results": ok, "rounds": a.rounds, "repeat_per_round": REPEAT,
                          "old_median_s": round(mo, 4), "new_median_s": round(mn, 4),
                          "new_over_old": round(mn / mo, 3)}, indent=1))


if __name__ == "__main__":
    main()
