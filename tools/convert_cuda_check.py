"""Check the CUDA that ``linlayout convert --emit cuda`` writes: on the CPU (emulated) or on a GPU.

Builds one program holding the emitted device function of every pair of a
set, a kernel per pair that fills each thread's source registers from the
``src`` layout, converts, and compares every destination register with the
``dst`` layout.  Element values are the element's flat index; narrow
elements are checked one byte/halfword of the index at a time (several
passes), so no two elements of a tile can look alike.

``--mode cpu`` compiles with g++ against a tiny CUDA emulation (one OS
thread per CUDA thread, ``__shfl_sync`` and ``__syncthreads`` as barriers).
``--mode gpu`` writes a ``.cu`` file for nvcc (run it on the device machine).

    python tools/convert_cuda_check.py --mode cpu --pairs 120 --seed 1
    python tools/convert_cuda_check.py --mode gpu --pairs 120 --seed 1 --out build/convert_check.cu

``--rows FILE --names A,B`` puts the named pairs of a rows file (for example
``benchmarks/results/convert_vs_triton.json``) before the generated ones.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from linlayout.convert.plan import plan_conversion  # noqa: E402
from tests.convert.samples import catalog_pairs, random_pair  # noqa: E402
from linlayout.convert.solve import aligned, index_bits  # noqa: E402
from linlayout.errors import InputError  # noqa: E402
from linlayout.io.convert_io import CUDA_TYPES, to_cuda  # noqa: E402

CPU_SHIM = r"""
#include <barrier>
#include <thread>
#include <vector>
#include <cstdio>
#include <cstring>
#include <atomic>
#include <memory>
struct U3 { unsigned x; };
thread_local U3 threadIdx, blockIdx;
static std::barrier<>* g_bar;
static unsigned long long g_slots[1024];
template <class T> static T __shfl_sync(unsigned, T v, unsigned src) {
  unsigned tid = threadIdx.x;
  g_slots[tid] = (unsigned long long)v;
  g_bar->arrive_and_wait();
  T r = (T)g_slots[(tid & ~31u) + (src & 31u)];
  g_bar->arrive_and_wait();
  return r;
}
static void __syncthreads() { g_bar->arrive_and_wait(); }
static unsigned __popc(unsigned x) { return (unsigned)__builtin_popcount(x); }
static std::barrier<>* g_wbar[32];
static void __syncwarp() { g_wbar[threadIdx.x / 32]->arrive_and_wait(); }  // a barrier of the thread's own warp only
#define LINLAYOUT_EMULATE_MATRIX
// ldmatrix/stmatrix .m8n8.b16: lane 8j+i gives the address of row i of matrix j (16 bytes); thread l holds
// word j = row l/4, bytes 4(l%4).. of matrix j, or with .trans the halves (row 2(l%4), col l/4) and
// (row 2(l%4)+1, col l/4).
static unsigned char* ll_addr(const void* p, unsigned k) {
  unsigned tid = threadIdx.x;
  g_slots[tid] = (unsigned long long)p;
  g_bar->arrive_and_wait();
  unsigned char* r = (unsigned char*)g_slots[(tid & ~31u) + k];
  g_bar->arrive_and_wait();
  return r;
}
template <int N, bool TR> static void ll_ldmatrix(const void* p, unsigned (&d)[N]) {
  unsigned l = threadIdx.x & 31u;
  for (int j = 0; j < N; ++j) {
    if (!TR) { unsigned char* row = ll_addr(p, 8 * j + l / 4); std::memcpy(&d[j], row + 4 * (l % 4), 4); }
    else {
      unsigned char* r0 = ll_addr(p, 8 * j + 2 * (l % 4));
      unsigned char* r1 = ll_addr(p, 8 * j + 2 * (l % 4) + 1);
      unsigned short lo, hi; std::memcpy(&lo, r0 + 2 * (l / 4), 2); std::memcpy(&hi, r1 + 2 * (l / 4), 2);
      d[j] = lo | ((unsigned)hi << 16);
    }
  }
}
template <int N, bool TR> static void ll_stmatrix(void* p, const unsigned (&d)[N]) {
  unsigned l = threadIdx.x & 31u;
  for (int j = 0; j < N; ++j) {
    if (!TR) { unsigned char* row = ll_addr(p, 8 * j + l / 4); std::memcpy(row + 4 * (l % 4), &d[j], 4); }
    else {
      unsigned char* r0 = ll_addr(p, 8 * j + 2 * (l % 4));
      unsigned char* r1 = ll_addr(p, 8 * j + 2 * (l % 4) + 1);
      unsigned short lo = d[j] & 0xffffu, hi = d[j] >> 16;
      std::memcpy(r0 + 2 * (l / 4), &lo, 2); std::memcpy(r1 + 2 * (l / 4), &hi, 2);
    }
  }
}
#define __device__
#define __global__
#define __forceinline__ inline
#define __shared__
"""

GPU_SHIM = r"""
#include <cstdio>
#include <cstring>
"""


FORCE_SHUFFLES = False
MULTISTEP = True  # the library's default; --no-multistep plans one step only


def pairs(n: int, seed: int):
    """Catalog pairs first, then random ones (mixed kinds, 1-8 warps, 8-64-bit), all with a plan."""
    rng = random.Random(seed)
    out = []
    for name, s, d in catalog_pairs():
        for eb in (16, 32):
            out.append((name.replace(" ", "_") + f"_b{eb}", s, d, eb))
    i = 0
    while len(out) < n:
        i += 1
        kind = rng.choice(["any", "warp", "warp", "thread"])
        warps = rng.choice([1, 2, 4, 8])
        eb = rng.choice([8, 16, 32, 64])
        s, d = random_pair(rng, warps, kind, mixed=rng.random() < 0.5, max_regs_bits=3)
        out.append((f"rand{i}_{kind}_w{warps}_b{eb}", s, d, eb))
    return out[:n]


def _arr(name: str, vals) -> str:
    vals = list(vals) or [0]
    return f"__device__ static const unsigned {name}[{len(vals)}] = {{{', '.join(map(str, vals))}}};"


def build(cases, mode: str) -> tuple[str, list[dict]]:
    parts = [CPU_SHIM if mode == "cpu" else GPU_SHIM]
    meta = []
    for idx, (name, src, dst, eb) in enumerate(cases):
        try:
            plan = plan_conversion(src, dst, eb, multistep=MULTISTEP)
            if FORCE_SHUFFLES and any(a.path == "shuffles" for a in plan.alternatives):
                plan = plan_conversion(src, dst, eb, paths=["shuffles"])
        except InputError as e:
            meta.append({"name": name, "skipped": str(e)})
            continue
        dsta = aligned(src, dst)
        sh, scols = index_bits(src, "src")
        dh, dcols = index_bits(dsta, "dst")
        T = CUDA_TYPES[eb]
        fn = f"cvt{idx}"
        code = to_cuda(plan, src, dsta, fn)
        if os.environ.get("CONVERT_CHECK_MUTATE"):  # self-test: a wrong source lane must be caught
            code = code.replace("^ sl)", "^ sl ^ 1u)").replace("^ so] = x", "^ so ^ 8u] = x").replace("^ wo_load]", "^ wo_load ^ 8u]").replace("^ doff]; ", "^ doff ^ 8u]; ")
        parts.append(code)
        nthreads = 1 << (sh.lane + sh.warp)
        nblocks = 1 << sh.block
        tbits = src.out_bits
        passes = max(1, -(-tbits // eb)) if eb < 32 else 1
        smem_elems = plan.scratch_bytes * 8 // eb if plan.path in ("shared_memory", "multistep") else 0
        if plan.scratch_bytes > 48 * 1024:
            meta.append({"name": name, "skipped": "scratch over 48 KB of static shared memory"})
            continue
        parts.append(_arr(f"S{idx}", scols))
        parts.append(_arr(f"D{idx}", dcols))
        smem_decl = ""
        smem_arg = ""
        if smem_elems:
            smem_decl = f"  __shared__ __align__(16) {T} sm[{smem_elems}];" if mode == "gpu" else \
                f"  alignas(16) static {T} sm[{smem_elems}];"
            smem_arg = ", sm"
        shift = "(p * {eb})".format(eb=eb) if eb < 32 else "0"
        parts.append(f"""
__global__ void k{idx}(unsigned p, unsigned* errors) {{
{smem_decl}
  const unsigned t = threadIdx.x, b = blockIdx.x;
  const unsigned hi = (t << {sh.reg}) | (b << {sh.reg + sh.lane + sh.warp});
  {T} s[{1 << sh.reg}], d[{1 << dh.reg}];
  for (unsigned q = 0; q < {1 << sh.reg}; ++q) {{
    unsigned x = q | hi, e = 0;
    for (unsigned j = 0; j < {len(scols)}; ++j) if ((x >> j) & 1u) e ^= S{idx}[j];
    s[q] = ({T})(e >> {shift});
  }}
  {fn}(s, d{smem_arg});
  const unsigned dhi = (t << {dh.reg}) | (b << {dh.reg + dh.lane + dh.warp});
  for (unsigned r = 0; r < {1 << dh.reg}; ++r) {{
    unsigned y = r | dhi, e = 0;
    for (unsigned j = 0; j < {len(dcols)}; ++j) if ((y >> j) & 1u) e ^= D{idx}[j];
    if (d[r] != ({T})(e >> {shift})) {{ atomicAdd(errors, 1u); }}
  }}
}}""")
        meta.append({"name": name, "index": idx, "path": plan.path,
                     "strategy": plan.shuffles.strategy if plan.shuffles is not None else None, "threads": nthreads, "blocks": nblocks,
                     "passes": passes, "instructions": plan.instructions, "wavefronts": plan.wavefronts,
                     "element_bits": eb, "cost": plan.cost, "src": src.to_dict(), "dst": dsta.to_dict()})
    good = [m for m in meta if "skipped" not in m]
    if mode == "cpu":
        parts.insert(1, "static void atomicAdd(unsigned* p, unsigned v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }")
        runs = []
        for m in good:
            i = m["index"]
            runs.append(f"""
  for (unsigned p = 0; p < {m['passes']}; ++p) for (unsigned b = 0; b < {m['blocks']}; ++b) {{
    std::barrier<> bar({m['threads']}); g_bar = &bar; unsigned err = 0;
    std::vector<std::unique_ptr<std::barrier<>>> wb;
    for (unsigned w = 0; w < ({m['threads']} + 31) / 32; ++w) {{ wb.emplace_back(new std::barrier<>({m['threads']} < 32 ? {m['threads']} : 32)); g_wbar[w] = wb.back().get(); }}
    std::vector<std::thread> th;
    for (unsigned t = 0; t < {m['threads']}; ++t) th.emplace_back([&, t, b] {{ threadIdx.x = t; blockIdx.x = b; k{i}(p, &err); }});
    for (auto& x : th) x.join();
    printf("%d %u\\n", {i}, err);
  }}""")
        parts.append("int main() {" + "".join(runs) + "\n  return 0;\n}\n")
    else:
        runs = []
        for m in good:
            i = m["index"]
            runs.append(f"""
  for (unsigned p = 0; p < {m['passes']}; ++p) {{
    cudaMemset(err, 0, 4); k{i}<<<{m['blocks']}, {m['threads']}>>>(p, err);
    unsigned h = 0; cudaMemcpy(&h, err, 4, cudaMemcpyDeviceToHost);
    cudaError_t ce = cudaGetLastError();
    printf("%d %u %s\\n", {i}, h, ce == cudaSuccess ? "ok" : cudaGetErrorString(ce));
  }}""")
        parts.append("int main() {\n  unsigned* err; cudaMalloc(&err, 4);" + "".join(runs) + "\n  return 0;\n}\n")
    return "\n".join(parts), meta


def row_cases(path: str, names: list[str] | None = None) -> list[tuple]:
    """The conversions of a rows JSON file (``name``, ``src``, ``dst``, ``element_bits`` per row) as ``(name, src,
    dst, element_bits)`` cases: those named (in that order), or all."""
    from linlayout.core.layout import LinearLayout

    rows = {r["name"]: r for r in json.loads(Path(path).read_text())}
    picked = [rows[n] for n in names] if names else list(rows.values())
    return [(r["name"], LinearLayout.from_json(r["src"]), LinearLayout.from_json(r["dst"]), r["element_bits"])
            for r in picked]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["cpu", "gpu"], default="cpu")
    ap.add_argument("--pairs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="where to write the source (gpu mode) and its .json description")
    ap.add_argument("--force-shuffles", action="store_true", help="take the shuffle path wherever it exists")
    ap.add_argument("--multistep", action=argparse.BooleanOptionalAction, default=True,
                    help="search two-step plans (the default, as plan_conversion); --no-multistep plans one step only")
    ap.add_argument("--rows", help="a rows JSON file (src, dst, element_bits, name per row) to take pairs from")
    ap.add_argument("--names", default="", help="comma-separated names of --rows' pairs to check (default: all)")
    args = ap.parse_args()
    global FORCE_SHUFFLES, MULTISTEP
    FORCE_SHUFFLES = args.force_shuffles
    MULTISTEP = args.multistep
    cases = pairs(args.pairs, args.seed)
    if args.rows:
        cases = row_cases(args.rows, [n for n in args.names.split(",") if n]) + cases
    src, meta = build(cases, args.mode)
    if args.mode == "gpu":
        out = Path(args.out or "convert_check.cu")
        out.write_text(src)
        out.with_suffix(".json").write_text(json.dumps(meta))
        print(f"wrote {out} ({sum('skipped' not in m for m in meta)} conversions)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        cpp = Path(tmp) / "check.cpp"
        cpp.write_text(src)
        exe = Path(tmp) / "check"
        r = subprocess.run(["g++", "-std=c++20", "-O1", "-pthread", "-w", str(cpp), "-o", str(exe)],
                           capture_output=True, text=True)
        if r.returncode:
            print(r.stderr[:4000])
            return 1
        out = subprocess.run([str(exe)], capture_output=True, text=True, env=dict(os.environ))
    bad = {}
    runs = 0
    for line in out.stdout.split("\n"):
        if line.strip():
            i, e = map(int, line.split()[:2])
            runs += 1
            if e:
                bad[i] = bad.get(i, 0) + e
    good = [m for m in meta if "skipped" not in m]
    paths = {}
    for m in good:
        key = m["path"] + (f"/{m['strategy']}" if m.get("strategy") else "")
        paths[key] = paths.get(key, 0) + 1
    print(f"{len(good)} conversions ({sum(1 for m in meta if 'skipped' in m)} skipped), {runs} runs, "
          f"{len(bad)} with wrong elements; paths: {paths}")
    for m in good:
        if m["index"] in bad:
            print("WRONG", m["name"], m["path"], bad[m["index"]])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
