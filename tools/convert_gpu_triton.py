"""GPU side of the Triton comparison: launch Gluon's ``convert_layout`` for each pair once (for ncu) and check it.

Reads the pair description written by ``convert_cuda_check.py --mode gpu``
(``.json``), compiles the same convert kernel as ``convert_vs_triton.py`` with
the Triton installed on the GPU machine, launches it once per pair, checks
the stored tensor and writes, per pair, the kernel's SASS instruction counts
(``SHFL``, shared loads/stores, ``BAR``) to a JSON file.  Run it under ncu to
measure wavefronts and cycles of the same launches.

    python3 convert_gpu_triton.py pairs.json out.json [MAX_PAIRS]
"""

from __future__ import annotations

import json
import re
import sys


def main() -> int:
    import torch
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

    dts = {8: (gl.int8, torch.int8), 16: (gl.int16, torch.int16), 32: (gl.int32, torch.int32), 64: (gl.int64, torch.int64)}
    meta = json.load(open(sys.argv[1]))
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else len(meta)
    out = []
    for m in meta:
        if "skipped" in m or len(out) >= limit:
            continue
        src, dst = m["src"]["bases"], m["dst"]["bases"]
        if any(sum(1 for x in v if x) > 1 or any(x & (x - 1) for x in v)
               for b in (src, dst) for d in ("register", "lane", "warp", "block") for v in b.get(d, [])):
            continue
        shape = list(m["src"]["out_dims"].values()) if isinstance(m["src"]["out_dims"], dict) else [s for _, s in m["src"]["out_dims"]]
        if len(shape) != 2:
            continue
        M, N = shape
        eb = m["element_bits"]
        row = {"index": m["index"], "name": m["name"]}
        try:
            def lay(b):
                return gl.DistributedLinearLayout(reg_bases=b.get("register", []), lane_bases=b.get("lane", []),
                                                  warp_bases=b.get("warp", []), block_bases=b.get("block", []),
                                                  shape=[M, N])
            y = torch.zeros((M, N), dtype=dts[eb][1], device="cuda")
            k = convert_kernel[(1,)](y, lay(src), lay(dst), M, N, dts[eb][0], num_warps=m["threads"] // 32)
            torch.cuda.synchronize()
            want = (torch.arange(M * N, device="cuda", dtype=torch.int64).reshape(M, N)).to(dts[eb][1])
            row["correct"] = bool(torch.equal(y, want))
            sass = k.asm.get("sass", "")
            row["sass"] = {op: len(re.findall(r"\b" + op + r"\b", sass)) for op in ("SHFL", "STS", "LDS", "STSM", "LDSM", "BAR", "SEL", "PRMT")}
            row["kernel"] = k.name
        except Exception as e:  # record and go on
            row["error"] = f"{type(e).__name__}: {str(e)[:300]}"
        out.append(row)
        print(json.dumps(row), flush=True)
    json.dump(out, open(sys.argv[2], "w"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
