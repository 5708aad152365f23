"""Generate tests/data/triton_encoding_cases.json: random TTGIR encodings and Triton's own linear layouts.

Needs ``triton`` (written for 3.9.0; CPU only).  Every case is a value of a
tiny module built with Gluon's IR builder: a ``ub.poison`` of a distributed
tensor type or a ``ttg.local_alloc`` of a shared memdesc type.  The module is
printed by MLIR (aliases ``#blocked = ...`` and all) and stored as text; each
case records the result index, the tensor shape and the bases Triton's
``to_linear_layout`` returns.  ``tests/io/test_ttgir.py`` replays the
file without Triton: it parses the printed module with ``linlayout.io.ttgir``
and compares.

    python tools/make_triton_encoding_cases.py 50 14     # the committed file ([N_PER_KIND] [SEED])
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tools"))

import triton
import triton_peers
from triton.experimental.gluon.language.amd import AMDMFMALayout
from ttgir_attribute_cases import p2, split_bits, unit_vectors  # the random attributes of both generators draw the same way

DEBUG = bool(__import__("os").environ.get("DEBUG"))
OUT = ROOT / "tests" / "data" / "triton_encoding_cases.json"


def rand_cga(rng, rank, shape):
    """CGA bases (units of CTA tiles), at most 2 blocks, only where the shape leaves room."""
    if rng.random() < 0.75:
        return []
    n = rng.randint(1, 2)
    out, used = [], [0] * rank
    for _ in range(n):
        d = rng.randrange(rank)
        if shape[d] >> (used[d] + 1) < 1:
            continue
        b = [0] * rank
        b[d] = 1 << used[d]
        used[d] += 1
        out.append(b)
    return out


def build(n: int, seed: int) -> dict:
    """``n`` random attributes of each kind (half for amd_mfma and shared_linear), with Triton's layouts."""
    rng = random.Random(seed)
    st = triton_peers._GluonState()  # a fresh module per call
    Lm, b = st.layouts, st.builder
    tys = {8: b.get_int8_ty(), 16: b.get_half_ty(), 32: b.get_float_ty()}
    cases = []

    def ll_dict(ll):
        if hasattr(ll, "reg_bases"):
            return {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases, "block": ll.block_bases}
        return {"offset": ll.offset_bases, "block": ll.block_bases}

    def dist(kind, lay, shape, bits=16):
        if DEBUG:
            print(kind, lay, shape, flush=True)
        attr = lay._to_ir(b)
        ll = b.to_linear_layout(attr, list(shape))
        b.create_poison(b.get_distributed_ty(tys[bits], list(shape), attr))
        cases.append({"kind": kind, "result": len(cases), "shape": list(shape), "triton": ll_dict(ll)})

    def shared(kind, lay, shape, bits=16):
        if DEBUG:
            print(kind, lay, shape, flush=True)
        attr = lay._to_ir(b)
        ll = b.to_linear_layout(attr, list(shape))
        b.create_local_alloc(b.get_shared_mem_desc_ty(tys[bits], list(shape), attr, list(shape)))
        cases.append({"kind": kind, "result": len(cases), "shape": list(shape), "triton": ll_dict(ll)})

    def rand_blocked(rank=None):
        rank = rank or rng.randint(1, 3)
        shape = [p2(rng, 0, 7) for _ in range(rank)]
        lay = Lm.BlockedLayout([p2(rng, 0, 2) for _ in range(rank)], split_bits(rng, rank, 5), split_bits(rng, rank, rng.randint(0, 3)),
                               rng.sample(range(rank), rank), rand_cga(rng, rank, shape))
        return lay, shape

    def rand_mma_v2():
        wm, wn = p2(rng, 0, 2), p2(rng, 0, 2)
        return Lm.NVMMADistributedLayout([2, 0], [wm, wn], [16, 8]), wm, wn

    def rand_mma_v3():
        nn = 8 << rng.randint(0, 5)
        wm, wn = 4 << rng.randint(0, 1), p2(rng, 0, 1)
        return Lm.NVMMADistributedLayout([3, 0], [wm, wn], [16, nn, 16]), wm, wn, nn

    for _ in range(n):
        lay, shape = rand_blocked()
        dist("blocked", lay, shape)
    for _ in range(n):
        if rng.random() < 0.6:
            parent, shape = rand_blocked(rng.randint(2, 3))
        elif rng.random() < 0.5:
            parent, wm, wn = rand_mma_v2()
            shape = [16 * p2(rng, 0, 3), 8 * p2(rng, 0, 3)]
        else:
            parent, wm, wn, nn = rand_mma_v3()
            shape = [16 * p2(rng, 0, 4), nn * p2(rng, 0, 1)]
        d = rng.randrange(len(shape))
        dist("slice", Lm.SliceLayout(d, parent), shape[:d] + shape[d + 1:])
    for _ in range(n):
        rank = rng.randint(1, 3)
        shape = [p2(rng, 0, 5) for _ in range(rank)]
        units = unit_vectors(shape)
        nw = rng.randint(0, 2)
        extra = max(0, 5 + nw - len(units)) + rng.randint(0, 2)
        for _ in range(extra):  # zeros (broadcast): Triton requires a permutation otherwise
            units.append([0] * rank)
        rng.shuffle(units)
        lane, warp, reg = units[:5], units[5:5 + nw], units[5 + nw:]
        dist("linear", Lm.DistributedLinearLayout(reg, lane, warp, [], shape), shape)
    for _ in range(n):
        parent, wm, wn = rand_mma_v2()
        dist("nvidia_mma_v2", parent, [16 * wm * p2(rng, 0, 2), 8 * wn * p2(rng, 0, 3)], 32)
    for _ in range(n):
        parent, wm, wn, nn = rand_mma_v3()
        dist("nvidia_mma_v3", parent, [16 * wm * p2(rng, 0, 1), nn * wn * p2(rng, 0, 1)], 32)
    for _ in range(n):
        if rng.random() < 0.6:
            parent, wm, wn = rand_mma_v2()
            bits = rng.choice([8, 16, 32])
            kw = 32 // bits * rng.choice([1, 1, 2])
            op = rng.randint(0, 1)
            kk = 4 * kw * 4 * p2(rng, 0, 2)
            shape = [16 * wm * p2(rng, 0, 2), kk] if op == 0 else [kk, 8 * wn * p2(rng, 0, 2)]
        else:
            parent, wm, wn, nn = rand_mma_v3()
            bits = rng.choice([8, 16])
            kw = 32 // bits
            op = 0
            shape = [16 * wm * p2(rng, 0, 1), 8 * kw * p2(rng, 0, 2)]
        dist("dot_op", Lm.DotOperandLayout(op, parent, kw), shape, bits)
    for _ in range(n // 2):
        instr = rng.choice([[32, 32, 8], [16, 16, 16]])
        wm, wn = p2(rng, 0, 2), p2(rng, 0, 2)
        lay = AMDMFMALayout(version=3, instr_shape=instr, transposed=rng.random() < 0.5, warps_per_cta=[wm, wn])
        dist("amd_mfma", lay, [instr[0] * wm * p2(rng, 0, 2), instr[1] * wn * p2(rng, 0, 2)], 32)
    for _ in range(n):
        rank = rng.randint(2, 3)
        shape = [p2(rng, 0, 7) for _ in range(rank - 1)] + [p2(rng, 1, 7)]
        rng.shuffle(shape)
        mp = p2(rng, 0, 3)
        lay = Lm.SwizzledSharedLayout(p2(rng, 0, 3), p2(rng, 0, 2), mp, rng.sample(range(rank), rank),
                                      rand_cga(rng, rank, shape))
        shared("swizzled_shared", lay, shape)
    for _ in range(n):
        bits = rng.choice([8, 16, 32])
        sw = rng.choice([0, 32, 64, 128])
        transposed = rng.random() < 0.4
        inner = max(sw * 8 // bits, 1) * p2(rng, 0, 2) if sw else p2(rng, 2, 7)
        outer = p2(rng, 3, 7)
        shape = [outer, inner] if not transposed else [inner, outer]
        if rng.random() < 0.2 and not transposed:
            shape = [p2(rng, 1, 2)] + shape
        lay = Lm.NVMMASharedLayout(swizzle_byte_width=sw, element_bitwidth=bits, rank=len(shape), transposed=transposed)
        shared("nvmma_shared", lay, shape, bits)
    for _ in range(max(1, n // 10)):  # fp4 padded (8-bit storage, 128-byte swizzle)
        shape = [p2(rng, 3, 7), 64 * p2(rng, 0, 2)]
        lay = Lm.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=8, rank=2, fp4_padded=True)
        shared("nvmma_shared", lay, shape, 8)
    for _ in range(n // 2):
        rank = rng.randint(1, 2)
        shape = [p2(rng, 1, 5) for _ in range(rank)]
        # a swizzle: the fastest dimension's bits as they are, each row bit XORs some column bits
        cols = [[0] * (rank - 1) + [1 << k] for k in range(shape[-1].bit_length() - 1)]
        if rank == 2:
            cols += [[1 << k, rng.randrange(shape[1])] for k in range(shape[0].bit_length() - 1)]
        shared("shared_linear", Lm.SharedLinearLayout(cols), shape)
    module = st.module.str()
    return {"generator": "tools/make_triton_encoding_cases.py", "triton": triton.__version__, "seed": seed,
            "note": "module: MLIR's printout of the cases; result i is case i's value (%i); triton: to_linear_layout",
            "module": module, "cases": cases}


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 14
    data = build(n, seed)
    OUT.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
    print(f"{len(data['cases'])} cases -> {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
