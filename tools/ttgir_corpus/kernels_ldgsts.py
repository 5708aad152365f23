"""Probes of ``cp.async`` (LDGSTS) wavefronts: one pipelined tile load per loop step, nothing else in shared memory.

``ldgsts_probe_kernel`` loads a ``[BM, BK]`` tile of ``a`` (rows ``stride_am`` elements apart, from ``a_ptr``
plus ``offset`` elements) once per step of a ``K // BK``-step loop and multiplies it by its own transpose, so
the pipeliner turns the load into ``cp.async`` into one buffer, and ``wgmma`` reads it through the async proxy
(not an LDGSTS).  Each probe fixes one of what could set the wavefronts of a quarter-warp that copies from
several global rows: the row stride, the base alignment, the trip count (the pipeliner issues ``num_stages - 1``
extra copies whose predicate is false), the element type and the tile.  One CTA per launch (every CTA of
a ``ctas`` probe copies the same tile).
"""

from __future__ import annotations

import triton
import triton.language as tl

from corpus_case import make_case


@triton.jit
def ldgsts_probe_kernel(a_ptr, out_ptr, K, stride_am, BM: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rk = tl.arange(0, BK)
    ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    acc = tl.zeros((BM, BM), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(ptrs)
        acc = tl.dot(a, tl.trans(a), acc)
        ptrs += BK
    tl.store(out_ptr + rm[:, None] * BM + rm[None, :], acc)


SIG = {"a_ptr": "*fp16", "out_ptr": "*fp32", "K": "i32", "stride_am": "i32", "BM": "constexpr", "BK": "constexpr"}


def _args(dtype_name, bm, bk, trips, stride, offset):
    def make(torch):
        k = bk * trips
        flat = torch.randn(offset + bm * stride + k + 256, device="cuda").to(getattr(torch, dtype_name))
        out = torch.empty(bm, bm, device="cuda", dtype=torch.float32)
        return [flat[offset:], out, k, stride]
    return make


def probe(dtype, bm, bk, stride, trips, stages, offset=0, ctas=1):
    """A probe case: ``dtype`` "fp16" or "fp8", tile ``[bm, bk]``, row stride and offset in elements."""
    torch_name = {"fp16": "float16", "fp8": "float8_e4m3fn"}[dtype]
    sig = dict(SIG, a_ptr={"fp16": "*fp16", "fp8": "*fp8e4nv"}[dtype])
    name = f"ldgsts_{dtype}_{bm}x{bk}_st{stride}_t{trips}_s{stages}_o{offset}" + (f"_c{ctas}" if ctas > 1 else "")
    return make_case(name, ldgsts_probe_kernel, sig, {"BM": bm, "BK": bk}, (ctas, 1, 1),
                     _args(torch_name, bm, bk, trips, stride, offset), num_warps=4, num_stages=stages,
                     trips={"for k in range(0, K, BK):": trips})


PROBE_CASES = [
    # fp16 [64, 32] (64-byte rows), 4 stages, as pipelined_matmul_fp16_64x64x32_s4's A: the row stride
    *[probe("fp16", 64, 32, s, 16, 4) for s in (32, 64, 128, 256, 512, 1024)],
    # ... the trip count (masked copies are stages - 1 of trips + stages - 1)
    *[probe("fp16", 64, 32, 512, t, 4) for t in (1, 2, 4)],
    # ... the base alignment (bytes 32, 64, 16 past a 128-byte line)
    *[probe("fp16", 64, 32, 512, 16, 4, o) for o in (16, 32, 8)],
    # fp16 [128, 32], 3 stages (tut_grouped_gemm's A), and [64, 64] (128-byte rows) as the counted reference
    probe("fp16", 128, 32, 512, 16, 3), probe("fp16", 128, 32, 512, 1, 3), probe("fp16", 64, 64, 512, 8, 3),
    # fp8 [128, 64] (64-byte rows), 3 stages, as matmul_fp8_s3's A
    *[probe("fp8", 128, 64, s, 8, 3) for s in (64, 128, 512)],
    probe("fp8", 128, 64, 512, 1, 3), probe("fp8", 128, 64, 512, 2, 3),
    # several CTAs
    probe("fp16", 64, 32, 512, 16, 4, ctas=16),
]
