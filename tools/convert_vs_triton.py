"""Compare linlayout's conversion plans with Triton's ``convert_layout`` (Gluon, compiled to PTX on the CPU).

For every pair of layouts: a Gluon kernel builds a tensor in the ``src``
layout from ``arange`` (no memory traffic), converts it to ``dst`` and stores
it; the control kernel builds the same tensor directly in ``dst`` and stores
it.  The conversion's instructions are the PTX opcode counts of the first
minus those of the second (straight-line code: static counts are per-thread
counts).  Triton's path is read off its PTX (shared-memory instructions →
``shared_memory``, else shuffles → ``shuffles``, else ``registers``/``none``).

    python tools/convert_vs_triton.py --pairs 300 --seed 7 --out benchmarks/results/convert_vs_triton.json

Needs ``triton`` with Gluon (3.9.0 here); ``GPUTarget("cuda", 90, 32)``, so no GPU.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from linlayout.convert.cost import cost_of  # noqa: E402
from linlayout.convert.plan import plan_conversion  # noqa: E402
from linlayout.errors import InputError  # noqa: E402

OPS = ("shfl.sync", "selp", "prmt", "mov", "st.shared", "ld.shared", "stmatrix", "ldmatrix", "bar.sync", "bar.warp.sync")
DTYPES = {8: "int8", 16: "int16", 32: "int32", 64: "int64"}


def _kernels():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def convert_kernel(Y, SRC: gl.constexpr, DST: gl.constexpr, M: gl.constexpr, N: gl.constexpr,
                       DT: gl.constexpr):
        om = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
        on = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
        x = (om[:, None] * N + on[None, :]).to(DT)
        y = gl.convert_layout(x, DST)
        om2 = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
        on2 = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
        gl.store(Y + om2[:, None] * N + on2[None, :], y)

    @gluon.jit
    def control_kernel(Y, SRC: gl.constexpr, DST: gl.constexpr, M: gl.constexpr, N: gl.constexpr,
                       DT: gl.constexpr):
        om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
        on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
        y = (om[:, None] * N + on[None, :]).to(DT)
        gl.store(Y + om[:, None] * N + on[None, :], y)

    return convert_kernel, control_kernel


def gluon_layout(layout):
    from triton.experimental.gluon import language as gl

    b = layout.bases
    return gl.DistributedLinearLayout(
        reg_bases=[list(v) for v in b.get("register", [])], lane_bases=[list(v) for v in b.get("lane", [])],
        warp_bases=[list(v) for v in b.get("warp", [])], block_bases=[list(v) for v in b.get("block", [])],
        shape=list(layout.out_sizes.values()))


def compile_ptx(fn, src, dst, eb, warps):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    M, N = list(src.out_sizes.values())
    sig = {"Y": f"*i{eb}", "SRC": "constexpr", "DST": "constexpr", "M": "constexpr", "N": "constexpr", "DT": "constexpr"}
    ast = GluonASTSource(fn=fn, signature=sig, constexprs={"SRC": gluon_layout(src), "DST": gluon_layout(dst),
                                                           "M": M, "N": N, "DT": getattr(gl, DTYPES[eb])})
    k = triton.compile(ast, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    return k.asm["ptx"]


def count_ops(ptx: str) -> dict[str, int]:
    body = ptx[ptx.index(".entry"):]
    body = body[:body.find(".section")] if ".section" in body else body
    out = {}
    for op in OPS:
        out[op] = len(re.findall(r"^\s*(?:@!?%p\d+\s+)?" + re.escape(op) + r"[.\s]", body, re.M))
    return out


def triton_accepts(layout) -> bool:
    """Triton's generic linear encoding: register, lane and block bases may move one tensor dimension only, and
    and any basis that is not a single tensor bit makes ``arange`` abort (``orderPerDim cannot determine dimension
    order for swizzled bases``); such pairs (which abort the process) are left out."""
    return all(sum(1 for x in v if x) <= 1 and all(x & (x - 1) == 0 for x in v)
               for d in ("register", "lane", "warp", "block") for v in layout.bases.get(d, []))


def triton_path(c: dict[str, int]) -> str:
    if c["st.shared"] or c["ld.shared"] or c["stmatrix"] or c["ldmatrix"]:
        return "shared_memory"
    if c["shfl.sync"]:
        return "shuffles"
    return "registers_or_none"


def main() -> int:
    from convert_cuda_check import pairs  # same set as the CUDA check

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default="benchmarks/results/convert_vs_triton.json")
    args = ap.parse_args()
    conv, ctrl = _kernels()
    rows = []
    t0 = time.time()
    for name, src, dst, eb in pairs(args.pairs, args.seed):
        if src.in_sizes.get("block", 1) > 1 or not (triton_accepts(src) and triton_accepts(dst)):
            continue
        warps = src.in_sizes.get("warp", 1)
        row = {"name": name, "element_bits": eb, "warps": warps, "src": src.to_dict(), "dst": dst.to_dict()}
        try:
            plan = plan_conversion(src, dst, eb)
            row["linlayout"] = {"path": plan.path, "instructions": {k: plan.instructions.get(k, 0) for k in
                                                                      ("shfl.sync", "selp", "prmt", "mov", "st.shared",
                                                                       "ld.shared", "stmatrix", "ldmatrix", "bar.sync", "bar.warp.sync")},
                                "wavefronts": plan.wavefronts, "cost": plan.cost,
                                "shuffle_lower_bound": plan.shuffle_lower_bound}
        except InputError as e:
            row["linlayout"] = {"error": str(e)}
        try:
            a = count_ops(compile_ptx(conv, src, dst, eb, warps))
            b = count_ops(compile_ptx(ctrl, src, dst, eb, warps))
            diff = {k: a[k] - b[k] for k in OPS}
            row["triton"] = {"path": triton_path(a), "instructions": diff, "raw": a, "control": b}
        except Exception as e:  # Triton refuses or crashes: record it
            row["triton"] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]}
        rows.append(row)
        print(f"{len(rows)} {name} ours={row['linlayout'].get('path')} triton={row['triton'].get('path', 'ERR')} "
              f"t={time.time() - t0:.0f}s", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=0))
    summarize(rows)
    return 0


def summarize(rows) -> None:
    both = [r for r in rows if "path" in r["triton"] and "path" in r["linlayout"]]
    print(f"{len(rows)} pairs, {len(both)} planned by both")
    same = worse = better = 0
    for r in both:
        ours = dict(r["linlayout"]["instructions"])
        theirs = {k: max(0, v) for k, v in r["triton"]["instructions"].items()}
        # Triton's cost under our model: its instructions; its wavefronts are unknown from PTX, so only the
        # instruction part of both sides is compared here (wavefronts are compared on the GPU).
        c_ours = cost_of({k: v for k, v in ours.items() if v})
        c_theirs = cost_of({k: v for k, v in theirs.items() if v})
        r["instruction_cost"] = {"linlayout": c_ours, "triton": c_theirs}
        if c_ours < c_theirs:
            better += 1
        elif c_ours > c_theirs:
            worse += 1
        else:
            same += 1
    print(f"instruction cost: linlayout lower on {better}, equal on {same}, higher on {worse}")


if __name__ == "__main__":
    sys.exit(main())
