"""Summarize ``benchmarks/results/convert_vs_triton.json`` (written by convert_vs_triton.py): where and why we differ.

    python tools/convert_triton_summary.py [FILE]
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from linlayout.convert.cost import cost_of  # noqa: E402


def main() -> int:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/convert_vs_triton.json")
    rows = json.loads(path.read_text())
    both = [r for r in rows if "path" in r["triton"] and "path" in r["linlayout"]]
    print(f"{len(rows)} pairs, {len(both)} planned by both "
          f"({len(rows) - len(both)} not compiled by Triton's 2-D test kernel: 1-D slices)")
    by = collections.Counter()
    cls = collections.Counter()
    for r in both:
        o = {k: v for k, v in r["linlayout"]["instructions"].items() if v}
        t = {k: max(0, v) for k, v in r["triton"]["instructions"].items() if v > 0}
        co, ct = cost_of(o), cost_of(t)
        rel = "lower" if co < ct else "higher" if co > ct else "equal"
        by[(r["linlayout"]["path"], r["triton"]["path"], rel)] += 1
        if r["linlayout"]["path"] == r["triton"]["path"] == "shuffles":
            for op in ("shfl.sync", "selp"):
                a, b = o.get(op, 0), t.get(op, 0)
                cls[(op, "fewer" if a < b else "more" if a > b else "same")] += 1
        if r["linlayout"]["path"] == r["triton"]["path"] == "shared_memory":
            a, b = o.get("bar.sync", 0) + o.get("bar.warp.sync", 0), t.get("bar.sync", 0)
            cls[("barriers", "fewer" if a < b else "more" if a > b else "same")] += 1
            a = sum(o.get(k, 0) for k in ("st.shared", "ld.shared", "stmatrix", "ldmatrix"))
            b = sum(t.get(k, 0) for k in ("st.shared", "ld.shared", "stmatrix", "ldmatrix"))
            cls[("shared instructions", "fewer" if a < b else "more" if a > b else "same")] += 1
    print("instruction cost under linlayout's model (instructions only: PTX shows no wavefronts), by paths "
          "(ours, Triton's):")
    for k, v in sorted(by.items()):
        print(f"  {k[0]:>13} vs {k[1]:<17} {k[2]:>6}: {v}")
    print("same path, opcode by opcode:")
    for k, v in sorted(cls.items()):
        print(f"  {k[0]}: {k[1]} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
