"""Time the planner's plan against Triton's own staging where the planner takes more barriers than Triton.

Under the measured cost weights (``COST_WEIGHTS``) the planner, on some same-path
pairs of ``benchmarks/results/convert_vs_triton39.json``, takes more reps than
Triton (more barriers and shared-memory instructions) to save ``prmt``/``mov``
packing.  This tool builds, with the cost-model harness
(``tools/convert_costmodel_harness.py``), one timing kernel per such pair and
plan: ``default`` (``plan_conversion``'s choice) and ``triton`` (Triton's scratch
layout, instructions and reps, :func:`linlayout.convert.smem.triton_round_trip`,
emitted by the same ``to_cuda``), and summarizes the H100 timings.

    python tools/convert_more_reps_timing.py build build/more_reps          # timing.cu, variants.json
    nvcc -arch=sm_90 -O3 -Xptxas -v -o build/more_reps/timing build/more_reps/timing.cu
    ./build/more_reps/timing > timing1.txt; ./build/more_reps/timing > timing2.txt     # on the GPU
    python tools/convert_more_reps_timing.py summary DIR                    # DIR: variants.json, timing1/2.txt
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import convert_costmodel_harness as harness  # noqa: E402
from convert_costmodel_fit import cycles_per_conversion, parse_timing  # noqa: E402

from linlayout.convert.cost import cost_of, opcode  # noqa: E402
from linlayout.convert.plan import plan_conversion  # noqa: E402
from linlayout.convert.smem import triton_round_trip  # noqa: E402
from linlayout.core.layout import LinearLayout  # noqa: E402

ROWS = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "convert_vs_triton39.json"


def barriers(ins: dict) -> int:
    return ins.get("bar.sync", 0) + ins.get("bar.warp.sync", 0)


def layout(d: dict) -> LinearLayout:
    return LinearLayout({k: [tuple(v) for v in vs] for k, vs in d["bases"].items()}, d["out_dims"])


def pairs_with_more_barriers():
    """(name, src, dst, bits, [("default", plan), ("triton", Triton's staging as a plan)]) per timed pair."""
    for r in json.loads(ROWS.read_text()):
        li, tr = r["linlayout"], r["triton"]
        if li["path"] != "shared_memory" or tr["path"] != "shared_memory":
            continue
        if barriers(li["instructions"]) <= barriers(tr["instructions"]):
            continue
        src, dst, bits = layout(r["src"]), layout(r["dst"]), r["element_bits"]
        if src.in_sizes.get("block", 1) > 1:
            continue
        default = plan_conversion(src, dst, bits)
        rt = triton_round_trip(src, dst, bits)
        if rt is None or default.path != "shared_memory":
            continue  # Triton's staging is not representable here
        ins: dict[str, int] = {}
        for op, n in rt.instructions.items():
            ins[opcode(op)] = ins.get(opcode(op), 0) + n
        staged = dataclasses.replace(default, instructions=ins, wavefronts=rt.wavefronts, reps=rt.reps,
                                     scratch_bytes=rt.scratch_bytes, cost=cost_of(ins, rt.wavefronts),
                                     shared_memory=rt)
        if max(staged.scratch_bytes, default.scratch_bytes) <= harness.MAX_SCRATCH:
            yield r["name"], src, dst, bits, [("default", default), ("triton", staged)]


def summary(d: Path) -> str:
    """Cycles per warp-conversion (mean of two runs) of both plans of each pair, and the tally."""
    variants = json.loads((d / "variants.json").read_text())
    runs = [parse_timing(d / f"timing{k}.txt") for k in (1, 2)]
    cycles = {}
    for v in variants:
        c = [cycles_per_conversion(r, ghz, v["warps"])
             for rows, ghz in runs if (r := rows.get((v["index"], v["variant"]))) is not None]
        if len(c) == 2:
            cycles[v["index"], v["variant"]] = (sum(c) / 2, v)
    lines, ratios = [], []
    for i in sorted({k[0] for k in cycles}):
        if (i, "default") in cycles and (i, "triton") in cycles:
            (a, va), (b, vb) = cycles[i, "default"], cycles[i, "triton"]
            ratios.append(a / b)
            lines.append(f"| {va['name']} | {va['reps']} / {vb['reps']} | {va['cost']} / {vb['cost']} | "
                         f"{a:.1f} / {b:.1f} | {a / b:.3f} |")
    faster = sum(x < 0.95 for x in ratios)
    slower = sum(x > 1.05 for x in ratios)
    head = (f"{len(ratios)} pairs timed: the planner's plan faster by more than 5% on {faster}, slower by more "
            f"than 5% on {slower}, within 5% on {len(ratios) - faster - slower}; planner/Triton time: median "
            f"{statistics.median(ratios):.3f}, geometric mean {statistics.geometric_mean(ratios):.3f}, "
            f"range {min(ratios):.3f}-{max(ratios):.3f}\n\n"
            "| pair | reps (planner / Triton) | model cost | SM cycles per warp | ratio |\n|---|---|---|---|---|")
    return head + "\n" + "\n".join(sorted(lines, key=lambda ln: float(ln.split("|")[-2])))


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("build", "summary"):
        print(__doc__)
        return 2
    if sys.argv[1] == "build":
        picked = list(pairs_with_more_barriers())
        harness.write(picked, Path(sys.argv[2]))
        print(f"{len(picked)} pairs written to {sys.argv[2]}")
    else:
        print(summary(Path(sys.argv[2])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
