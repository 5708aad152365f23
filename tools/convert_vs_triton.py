"""Compare linlayout's conversion plans with Triton's ``convert_layout`` (Gluon, compiled to PTX on the CPU).

For every pair of layouts: a Gluon kernel builds a tensor in the ``src``
layout from ``arange`` (no memory traffic), converts it to ``dst`` and stores
it; the control kernel builds the same tensor directly in ``dst`` and stores
it.  The conversion's instructions are the PTX opcode counts of the first
minus those of the second (straight-line code: static counts are per-thread
counts).  Triton's path is read off its PTX (shared-memory instructions →
``shared_memory``, else shuffles → ``shuffles``, else ``registers``/``none``).

**Opaque source data** (``row["triton"]["opaque"]``): built from ``arange``,
the source values are arithmetic in the thread index, and LLVM folds a
select between two of them into that arithmetic (``rand367_warp_w4_b16``: the
sender's ``selp`` between registers ``v`` and ``v + 4`` became ``v | (tid &
4)``, so the PTX shows 2 ``selp`` where data from memory needs 4).  A second
pair of kernels loads the source from global memory in ``src`` (the control:
in ``dst``), and its ``shfl.sync`` and ``selp`` difference is stored too.
Only those two opcodes are taken from it: the loads bring their own
``mov``/``prmt`` unpacking, which differs between the two layouts.

    python tools/convert_vs_triton.py --pairs 300 --seed 7 --out benchmarks/results/convert_vs_triton.json
    python tools/convert_vs_triton.py --update --out benchmarks/results/convert_vs_triton.json

``--update`` re-plans linlayout's side of the stored rows and adds the
opaque-data counts where a row lacks them; the ``arange`` kernels are not
compiled again.

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


def _load_kernels():
    """The kernels with opaque source data: loaded from global memory instead of built from ``arange``."""
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def convert_load_kernel(X, Y, SRC: gl.constexpr, DST: gl.constexpr, M: gl.constexpr, N: gl.constexpr,
                            DT: gl.constexpr):
        om = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
        on = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
        x = gl.load(X + om[:, None] * N + on[None, :])
        y = gl.convert_layout(x, DST)
        om2 = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
        on2 = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
        gl.store(Y + om2[:, None] * N + on2[None, :], y)

    @gluon.jit
    def control_load_kernel(X, Y, SRC: gl.constexpr, DST: gl.constexpr, M: gl.constexpr, N: gl.constexpr,
                            DT: gl.constexpr):
        om = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
        on = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
        y = gl.load(X + om[:, None] * N + on[None, :])
        gl.store(Y + om[:, None] * N + on[None, :], y)

    return convert_load_kernel, control_load_kernel


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
    sig = {"X": f"*i{eb}"} if "X" in fn.arg_names else {}
    sig |= {"Y": f"*i{eb}", "SRC": "constexpr", "DST": "constexpr", "M": "constexpr", "N": "constexpr", "DT": "constexpr"}
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


def ours(src, dst, eb) -> dict:
    """linlayout's plan of a pair, as the rows store it."""
    try:
        plan = plan_conversion(src, dst, eb)
    except InputError as e:
        return {"error": str(e)}
    return {"path": plan.path, "instructions": {k: plan.instructions.get(k, 0) for k in OPS},
            "wavefronts": plan.wavefronts, "cost": plan.cost, "shuffle_lower_bound": plan.shuffle_lower_bound}


def opaque_counts(src, dst, eb, warps, kernels) -> dict:
    """``shfl.sync`` and ``selp`` of the conversion with source data loaded from memory (see the module doc)."""
    a = count_ops(compile_ptx(kernels[0], src, dst, eb, warps))
    b = count_ops(compile_ptx(kernels[1], src, dst, eb, warps))
    return {"instructions": {k: a[k] - b[k] for k in ("shfl.sync", "selp")}, "raw": a, "control": b}


def update(path: str) -> int:
    """Re-plan linlayout's side of stored rows; add the opaque-data counts where missing."""
    from linlayout.core.layout import LinearLayout

    rows = json.loads(Path(path).read_text())
    kernels = _load_kernels()
    t0 = time.time()
    for i, row in enumerate(rows):
        src, dst = LinearLayout.from_json(row["src"]), LinearLayout.from_json(row["dst"])
        row["linlayout"] = ours(src, dst, row["element_bits"])
        if "path" in row["triton"] and "opaque" not in row["triton"]:
            row["triton"]["opaque"] = opaque_counts(src, dst, row["element_bits"], row["warps"], kernels)
        print(f"{i + 1} {row['name']} t={time.time() - t0:.0f}s", flush=True)
    Path(path).write_text(json.dumps(rows, indent=0))
    summarize(rows)
    return 0


def main() -> int:
    from convert_cuda_check import pairs  # same set as the CUDA check

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default="benchmarks/results/convert_vs_triton.json")
    ap.add_argument("--update", action="store_true", help="re-plan our side of --out, add missing opaque-data counts")
    args = ap.parse_args()
    if args.update:
        return update(args.out)
    conv, ctrl = _kernels()
    kernels = _load_kernels()
    rows = []
    t0 = time.time()
    for name, src, dst, eb in pairs(args.pairs, args.seed):
        if src.in_sizes.get("block", 1) > 1 or not (triton_accepts(src) and triton_accepts(dst)):
            continue
        warps = src.in_sizes.get("warp", 1)
        row = {"name": name, "element_bits": eb, "warps": warps, "src": src.to_dict(), "dst": dst.to_dict()}
        row["linlayout"] = ours(src, dst, eb)
        try:
            a = count_ops(compile_ptx(conv, src, dst, eb, warps))
            b = count_ops(compile_ptx(ctrl, src, dst, eb, warps))
            diff = {k: a[k] - b[k] for k in OPS}
            row["triton"] = {"path": triton_path(a), "instructions": diff, "raw": a, "control": b,
                             "opaque": opaque_counts(src, dst, eb, warps, kernels)}
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
