"""Time the planner's chosen path against the other possible path in one harness (validates the cost model's ranking).

For pairs with two or more possible paths whose model costs are within 2x, writes one CUDA program in
which, per pair and path, one CTA runs the emitted device function ``N`` times between two
``clock64()`` reads (the source registers are XORed with the iteration number first and every
destination register is XORed into a sink, the same for both paths; a shared-memory path's loop
synchronizes before the scratch is written again).  Superseded by the throughput harness
``tools/convert_costmodel_harness.py`` (issue 25), which the cost model is fitted on.  Each kernel is launched once
to warm up and once timed; thread 0 prints the cycles per conversion of its warp.

    python tools/convert_gpu_timing.py --pairs 400 --seed 11 --count 20 --out build/convert_timing.cu
    nvcc -arch=sm_90 -O3 -o ct build/convert_timing.cu && ./ct > timing.txt
    python tools/convert_gpu_timing.py --table build/convert_timing.json timing.txt
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from convert_cuda_check import pairs  # noqa: E402

from linlayout.convert.plan import plan_conversion  # noqa: E402
from linlayout.convert.solve import aligned, index_bits  # noqa: E402
from linlayout.errors import InputError  # noqa: E402
from linlayout.io.convert_io import CUDA_TYPES, to_cuda  # noqa: E402

N = 256


def select(n_pool: int, seed: int, count: int):
    out = []
    for name, src, dst, eb in pairs(n_pool, seed):
        if src.in_sizes.get("block", 1) > 1:
            continue
        try:
            plan = plan_conversion(src, dst, eb)
        except InputError:
            continue
        alts = [a for a in plan.alternatives if a.path != "none"]
        if len(alts) < 2:
            continue
        costs = sorted(a.cost for a in alts)
        if costs[1] > 2 * costs[0] or plan.scratch_bytes > 40 * 1024:
            continue
        out.append((name, src, dst, eb, plan))
        if len(out) == count:
            break
    return out


def write(cases, path: Path) -> None:
    parts = ["#include <cstdio>"]
    mains = []
    meta = []
    for i, (name, src, dst, eb, plan) in enumerate(cases):
        dsta = aligned(src, dst)
        sh, _ = index_bits(src, "src")
        dh, _ = index_bits(dsta, "dst")
        T = CUDA_TYPES[eb]
        for a in plan.alternatives:
            if a.path == "none":
                continue
            p = plan_conversion(src, dst, eb, paths=[a.path])
            fn = f"c{i}_{a.path}"
            parts.append(to_cuda(p, src, dsta, fn))
            smem = p.path == "shared_memory"
            decl = f"  __shared__ __align__(16) {T} sm[{max(1, p.scratch_bytes * 8 // eb)}];" if smem else ""
            arg = ", sm" if smem else ""
            # the function ends after its last read: the loop owes the barrier before the next write
            sync = ("__syncthreads();" if p.instructions.get("bar.sync") else "__syncwarp();") if smem else ""
            parts.append(f"""
__global__ void k_{fn}(unsigned long long* out, unsigned* sink) {{
{decl}
  {T} s[{1 << sh.reg}], d[{1 << dh.reg}];
  for (unsigned q = 0; q < {1 << sh.reg}; ++q) s[q] = ({T})(threadIdx.x * 131u + q);
  unsigned acc = 0;
  __syncthreads();
  long long t0 = clock64();
  for (unsigned it = 0; it < {N}u; ++it) {{
    for (unsigned q = 0; q < {1 << sh.reg}; ++q) s[q] ^= ({T})it;
    {fn}(s, d{arg});
    {sync}
    for (unsigned r = 0; r < {1 << dh.reg}; ++r) acc ^= (unsigned)d[r];
  }}
  long long t1 = clock64();
  sink[threadIdx.x] = acc;
  if ((threadIdx.x & 31u) == 0) out[threadIdx.x / 32u] = (unsigned long long)(t1 - t0);
}}""")
            threads = 1 << (sh.lane + sh.warp)
            mains.append(f"""
  for (int rep = 0; rep < 2; ++rep) k_{fn}<<<1, {threads}>>>(out, sink);
  cudaMemcpy(h, out, 8 * {threads // 32}, cudaMemcpyDeviceToHost);
  {{ unsigned long long m = 0; for (int w = 0; w < {threads // 32}; ++w) if (h[w] > m) m = h[w];
    printf("{i} {a.path} %.1f %s\\n", (double)m / {N}, cudaGetErrorString(cudaGetLastError())); }}""")
            meta.append({"index": i, "name": name, "path": a.path, "cost": a.cost, "chosen": a.path == plan.path,
                         "instructions": a.instructions, "wavefronts": a.wavefronts, "element_bits": eb,
                         "warps": 1 << sh.warp})
    parts.append("int main() {\n  unsigned long long* out; unsigned* sink; unsigned long long h[32];\n"
                 "  cudaMalloc(&out, 8 * 32); cudaMalloc(&sink, 4 * 1024);" + "".join(mains) + "\n  return 0;\n}\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(parts))
    path.with_suffix(".json").write_text(json.dumps(meta, indent=0))


def table(meta_path: Path, timing_path: Path) -> str:
    meta = json.loads(meta_path.read_text())
    got = {}
    for line in timing_path.read_text().splitlines():
        f = line.split()
        if len(f) >= 3 and f[0].isdigit():
            got[(int(f[0]), f[1])] = float(f[2])
    by: dict[int, list] = {}
    for m in meta:
        m["cycles"] = got.get((m["index"], m["path"]))
        by.setdefault(m["index"], []).append(m)
    lines = ["| pair | bits | warps | path: model cost / cycles per conversion (chosen first) | model and clock agree |",
             "|---|---|---|---|---|"]
    agree = total = 0
    for i, ms in sorted(by.items()):
        ms.sort(key=lambda m: (not m["chosen"], m["cost"]))
        cells = "; ".join(f"{m['path']}: {m['cost']} / {m['cycles']}" for m in ms)
        ok = None
        if all(m["cycles"] is not None for m in ms):
            best_clock = min(ms, key=lambda m: m["cycles"])
            ok = best_clock["chosen"] or best_clock["cycles"] == ms[0]["cycles"]
            total += 1
            agree += bool(ok)
        lines.append(f"| {ms[0]['name']} | {ms[0]['element_bits']} | {ms[0]['warps']} | {cells} | {ok} |")
    lines.append("")
    lines.append(f"chosen path also fastest by the clock on {agree} of {total} pairs")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=400)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--out", default="build/convert_timing.cu")
    ap.add_argument("--table", nargs=2, metavar=("META", "TIMING"))
    args = ap.parse_args()
    if args.table:
        print(table(Path(args.table[0]), Path(args.table[1])))
        return 0
    cases = select(args.pairs, args.seed, args.count)
    write(cases, Path(args.out))
    print(f"{len(cases)} pairs, {sum(len([a for a in c[4].alternatives if a.path != 'none']) for c in cases)} kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
