"""Throughput harness for the conversion cost model: every path of many conversions, timed on the H100.

Each *variant* is one conversion planned on one path (``plan_conversion(...,
paths=[path])``): ``shuffles``, ``registers``, ``shared_memory`` in one rep,
and ``shared_memory`` cut into two or four reps by a scratch limit (which
changes the barriers and the scratch, not the data moved).  For every
variant the harness writes one kernel that keeps the SMs full: as many CTAs
per SM as fit (capped at 32 warps per SM), each thread running the emitted
device function ``ITERS`` times in a loop (the source registers are XORed
with the iteration number before, every destination register folded into an
order-dependent checksum after, and for the shared-memory path the
``__syncthreads()``/``__syncwarp()`` the caller owes before the scratch is
written again).  The host program times each kernel with CUDA events (best
of three after a warm-up) at ``ITERS`` and ``4 ITERS`` iterations; the
difference, free of launch overhead, gives SM cycles per warp and conversion
with the clock it measures (``clock64`` against ``%globaltimer``).

``--unroll 1`` keeps the compiler from unrolling the iteration loop: left to
itself it unrolls small bodies more than large ones (1 to 16 iterations per
loop body on the re-timed plans), so the loop's own counter and branch weigh
differently on the paths of one conversion -- on the smallest conversions as
much as their difference.  ``--iters`` and ``--best-of`` lengthen the runs
(``benchmarks/results/convert_costmodel/retimed/``: 1024 iterations, best of 5).

    python tools/convert_costmodel_harness.py --out build/costmodel      # writes timing.cu, variants.json
    nvcc -arch=sm_90 -O3 -Xptxas -v -o build/costmodel/timing build/costmodel/timing.cu 2> build/costmodel/ptxas.txt
    ./build/costmodel/timing > timing.txt        # on the GPU

``variants.json`` holds, per variant, the plan's per-thread instructions,
per-warp wavefronts, reps, scratch and warps; ``ptxas.txt`` the registers and
spills of every kernel (:func:`ptxas_info` parses it).  The fit is
``tools/convert_costmodel_fit.py``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from linlayout.convert.plan import plan_conversion  # noqa: E402
from linlayout.convert.solve import aligned, index_bits  # noqa: E402
from linlayout.errors import InputError  # noqa: E402
from linlayout.io.convert_io import CUDA_TYPES, to_cuda  # noqa: E402
from tests.convert.samples import catalog_pairs, random_pair  # noqa: E402

ITERS = 128
MAX_SCRATCH = 40 * 1024


def candidates(count: int, seed: int):
    """Catalog pairs (16/32-bit), then random warp-local and CTA-wide pairs of 1-8 warps, 8-64 bits."""
    out = [(name.replace(" ", "_") + f"_b{eb}", s, d, eb) for name, s, d in catalog_pairs() for eb in (16, 32)]
    rng = random.Random(seed)
    i = 0
    while len(out) < count:
        i += 1
        kind = rng.choice(["warp", "warp", "warp", "any"])
        warps = rng.choice([1, 2, 4, 8])
        eb = rng.choice([8, 16, 32, 64])
        s, d = random_pair(rng, warps, kind, mixed=rng.random() < 0.5, max_regs_bits=rng.choice([2, 3, 4]))
        out.append((f"r{i}_{kind}_w{warps}_b{eb}", s, d, eb))
    return out


def variants_of(src, dst, eb):
    """``(label, plan)`` of every path of one conversion, plus shared memory in 2 and 4 reps where possible."""
    try:
        plan = plan_conversion(src, dst, eb)
    except InputError:
        return []
    if src.in_sizes.get("block", 1) > 1:
        return []
    out = []
    for a in plan.alternatives:
        if a.path == "none":
            return []
        if a.path == "shared_memory" and a.scratch_bytes > MAX_SCRATCH:
            continue
        out.append((a.path, plan_conversion(src, dst, eb, paths=[a.path])))
    one = next((p for lab, p in out if lab == "shared_memory"), None)
    if one is not None:
        for k in (2, 4):
            try:
                p = plan_conversion(src, dst, eb, paths=["shared_memory"], scratch_bytes=one.scratch_bytes // k)
            except InputError:
                break
            if p.reps == k:
                out.append((f"shared_memory_r{k}", p))
    return out


def select(count: int, seed: int, pool: int):
    """Conversions with at least two variants, the first ``count`` of a pool of ``pool`` candidates."""
    picked = []
    for name, s, d, eb in candidates(pool, seed):
        vs = variants_of(s, d, eb)
        if len(vs) >= 2:
            picked.append((name, s, d, eb, vs))
            if len(picked) == count:
                break
    return picked


def kernel(fn: str, plan, src, dsta, eb: int, unroll: int | None = None) -> tuple[str, int]:
    """The timing kernel of one variant and its threads per CTA; ``unroll`` fixes the iteration loop's unrolling
    (``#pragma unroll``; ``None`` leaves it to the compiler, which unrolls small bodies more than large ones)."""
    sh, _ = index_bits(src, "src")
    dh, _ = index_bits(dsta, "dst")
    T = CUDA_TYPES[eb]
    smem = plan.path == "shared_memory"
    sync = "__syncthreads();" if plan.instructions.get("bar.sync") else "__syncwarp();"
    decl = f"  __shared__ __align__(16) {T} sm[{max(1, plan.scratch_bytes * 8 // eb)}];" if smem else ""
    fold = "(unsigned)(d[r] ^ (d[r] >> 32))" if eb == 64 else "(unsigned)d[r]"
    threads = 1 << (sh.lane + sh.warp)
    pragma = f"#pragma unroll {unroll}\n" if unroll else ""
    code = f"""
__global__ void __launch_bounds__({threads}) k_{fn}(unsigned* sink, unsigned iters) {{
{decl}
  {T} s[{1 << sh.reg}], d[{1 << dh.reg}];
  for (unsigned q = 0; q < {1 << sh.reg}; ++q) s[q] = ({T})(threadIdx.x * 131u + blockIdx.x * 7u + q);
  unsigned acc = 0;
{pragma}  for (unsigned it = 0; it < iters; ++it) {{
    for (unsigned q = 0; q < {1 << sh.reg}; ++q) s[q] ^= ({T})it;
    {fn}(s, d{', sm' if smem else ''});
    {sync if smem else ''}
    for (unsigned r = 0; r < {1 << dh.reg}; ++r) acc = __funnelshift_l(acc, acc, 1) ^ {fold};
  }}
  if (acc == 0x9e3779b9u) sink[blockIdx.x * {threads} + threadIdx.x] = acc;
}}"""
    return code, threads


HOST = r"""
#include <cstdio>
__global__ void clock_probe(unsigned long long* out) {
  unsigned long long g0, g1; long long c0 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  long long c = c0; unsigned long long g = g0;
  while (g - g0 < 2000000ull) { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g)); c = clock64(); }
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  out[0] = (unsigned long long)(c - c0); out[1] = g1 - g0;
}
template <class K> static float best_ms(K k, int grid, int threads, unsigned* sink, unsigned iters) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  float best = 1e30f;
  for (int rep = 0; rep < BEST_OF; ++rep) {
    cudaEventRecord(a); k<<<grid, threads>>>(sink, iters); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms = 0; cudaEventElapsedTime(&ms, a, b); if (ms < best) best = ms;
  }
  cudaEventDestroy(a); cudaEventDestroy(b);
  return best;
}
// Best of BEST_OF at ITERS and at 4 ITERS iterations: their difference is 3 ITERS iterations without launch overhead.
template <class K> static void time_kernel(const char* label, K k, int threads, int sms, unsigned* sink) {
  int occ = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, threads, 0);
  int cap = 1024 / threads; if (cap < 1) cap = 1;
  int per_sm = occ < cap ? occ : cap; if (per_sm < 1) per_sm = 1;
  int grid = per_sm * sms;
  k<<<grid, threads>>>(sink, ITERS);
  float t1 = best_ms(k, grid, threads, sink, ITERS), t4 = best_ms(k, grid, threads, sink, 4 * ITERS);
  cudaError_t e = cudaGetLastError();
  printf("T %s %.6f %.6f %d %d %d %s\n", label, t1, t4, occ, per_sm, grid, e == cudaSuccess ? "ok" : cudaGetErrorString(e));
}
"""


def write(picked, out: Path, iters: int = ITERS, best_of: int = 3, unroll: int | None = None) -> None:
    """``timing.cu`` (``iters`` and ``4 iters`` iterations, best of ``best_of`` launches) and ``variants.json``."""
    parts = ["#define ITERS %du" % iters, "#define BEST_OF %d" % best_of, HOST]
    calls, meta = [], []
    for i, (name, s, d, eb, vs) in enumerate(picked):
        dsta = aligned(s, d)
        for label, p in vs:
            fn = f"c{i}_{label}"
            parts.append(to_cuda(p, s, dsta, fn))
            code, threads = kernel(fn, p, s, dsta, eb, unroll)
            parts.append(code)
            calls.append(f'  time_kernel("{i} {label}", k_{fn}, {threads}, sms, sink);')
            meta.append({"index": i, "name": name, "variant": label, "path": p.path, "element_bits": eb,
                         "warps": threads // 32, "instructions": p.instructions, "wavefronts": p.wavefronts,
                         "reps": p.reps, "scratch_bytes": p.scratch_bytes, "cost": p.cost,
                         "src_registers": 1 << index_bits(s, "src")[0].reg,
                         "dst_registers": 1 << index_bits(dsta, "dst")[0].reg,
                         "strategy": p.shuffles.strategy if p.shuffles is not None else None,
                         "kernel": f"k_{fn}", "src": s.to_dict(), "dst": dsta.to_dict()})
    parts.append("int main() {\n  int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);\n"
                 "  unsigned* sink; cudaMalloc(&sink, 64u << 20); unsigned long long* cl; cudaMalloc(&cl, 16);\n"
                 "  unsigned long long h[2]; for (int r = 0; r < 3; ++r) { clock_probe<<<1, 1>>>(cl); cudaMemcpy(h, cl, 16, cudaMemcpyDeviceToHost);\n"
                 '    printf("CLOCK %llu %llu\\n", h[0], h[1]); }\n  printf("SMS %d\\n", sms);\n'
                 '  printf("ITERS %u\\n", ITERS);\n'
                 + "\n".join(calls) +
                 "\n  for (int r = 0; r < 3; ++r) { clock_probe<<<1, 1>>>(cl); cudaMemcpy(h, cl, 16, cudaMemcpyDeviceToHost);\n"
                 '    printf("CLOCK %llu %llu\\n", h[0], h[1]); }\n  return 0;\n}\n')
    out.mkdir(parents=True, exist_ok=True)
    (out / "timing.cu").write_text("\n".join(parts))
    (out / "variants.json").write_text(json.dumps(meta))


def ptxas_info(text: str) -> dict[str, dict[str, int]]:
    """Registers and spill bytes per kernel (``k_...``) from ``nvcc -Xptxas -v`` output."""
    out: dict[str, dict[str, int]] = {}
    cur = None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '_Z\d+(k_\w+?)Pj", line) or re.search(r"Function properties for _Z\d+(k_\w+?)Pj", line)
        if m:
            cur = m.group(1)
            out.setdefault(cur, {"registers": 0, "spill_stores": 0, "spill_loads": 0, "stack": 0})
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            out[cur].update(stack=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            out[cur]["registers"] = int(m.group(1))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=240, help="conversions with two or more variants")
    ap.add_argument("--pool", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--out", default="build/costmodel")
    ap.add_argument("--iters", type=int, default=ITERS, help="iterations of the short run (the long one runs 4x)")
    ap.add_argument("--best-of", type=int, default=3, help="launches of each run, the fastest kept")
    ap.add_argument("--unroll", type=int, default=None, help="#pragma unroll of the iteration loop (1: none)")
    ap.add_argument("--ptxas", nargs=2, metavar=("PTXAS_TXT", "JSON"), help="parse ptxas -v output into JSON")
    args = ap.parse_args()
    if args.ptxas:
        Path(args.ptxas[1]).write_text(json.dumps(ptxas_info(Path(args.ptxas[0]).read_text()), indent=0))
        return 0
    picked = select(args.count, args.seed, args.pool)
    write(picked, Path(args.out), args.iters, args.best_of, args.unroll)
    n = sum(len(p[4]) for p in picked)
    print(f"{len(picked)} conversions, {n} variants")
    return 0


if __name__ == "__main__":
    sys.exit(main())
