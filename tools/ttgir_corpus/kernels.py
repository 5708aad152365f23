"""The corpus's first 14 Triton and Gluon kernels (corpus.py adds kernels_tutorials.py, kernels_smem.py).

Used twice: ``tools/ttgir_corpus/compile_cpu.py`` compiles each one with the local
Triton for ``cuda:90`` (no GPU) and writes ``tests/data/ttgir/NAME.ttgir``;
``tools/ttgir_corpus/measure_gpu.py`` launches each one on an H100 under Nsight
Compute (with that machine's Triton) and dumps the TTGIR it compiled.

Each entry of :data:`CASES` holds the kernel, its signature and constants, the
compile options, the grid and a function that makes its arguments with torch
(only the GPU run calls it).
"""

from __future__ import annotations

import triton
import triton.language as tl
from triton.experimental import gluon
from triton.experimental.gluon import language as ttgl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=mask)


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    y = xc * rstd * w + b
    tl.store(out_ptr + row * stride + cols, y.to(tl.float16), mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c = acc.to(tl.float16)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], c)


@triton.jit
def transpose_kernel(x_ptr, out_ptr, n, B: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * B + tl.arange(0, B)
    rn = pid_n * B + tl.arange(0, B)
    x = tl.load(x_ptr + rm[:, None] * n + rn[None, :])
    tl.store(out_ptr + rn[:, None] * n + rm[None, :], tl.trans(x))


@triton.jit
def colsum_kernel(x_ptr, out_ptr, n_cols, BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    rows = tl.arange(0, BR)
    cols = pid * BC + tl.arange(0, BC)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :])
    tl.store(out_ptr + cols, tl.sum(x, axis=0))


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, n_ctx, sm_scale,
                     BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    pid = tl.program_id(0)
    rm = pid * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    m_i = tl.full((BM,), -float("inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for start in range(0, n_ctx, BN):
        rn = start + tl.arange(0, BN)
        k = tl.load(k_ptr + rn[None, :] * D + rd[:, None])
        s = tl.dot(q, k) * sm_scale
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + rn[:, None] * D + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(tl.float16))


@gluon.jit
def gluon_convert_kernel(x_ptr, out_ptr, n, B: ttgl.constexpr):
    rows_layout: ttgl.constexpr = ttgl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    cols_layout: ttgl.constexpr = ttgl.BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1])
    pid = ttgl.program_id(0)
    rm = pid * B + ttgl.arange(0, B, layout=ttgl.SliceLayout(1, rows_layout))
    rn = ttgl.arange(0, B, layout=ttgl.SliceLayout(0, rows_layout))
    x = ttgl.load(x_ptr + rm[:, None] * n + rn[None, :])
    y = ttgl.convert_layout(x, cols_layout)
    cm = pid * B + ttgl.arange(0, B, layout=ttgl.SliceLayout(1, cols_layout))
    cn = ttgl.arange(0, B, layout=ttgl.SliceLayout(0, cols_layout))
    ttgl.store(out_ptr + cm[:, None] * n + cn[None, :], y * 2)


@gluon.jit
def gluon_smem_transpose_kernel(x_ptr, out_ptr, n, B: ttgl.constexpr, VEC: ttgl.constexpr,
                                PER_PHASE: ttgl.constexpr, MAX_PHASE: ttgl.constexpr):
    load_layout: ttgl.constexpr = ttgl.BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0])
    store_layout: ttgl.constexpr = ttgl.BlockedLayout([8, 1], [4, 8], [1, 4], [0, 1])
    smem_layout: ttgl.constexpr = ttgl.SwizzledSharedLayout(VEC, PER_PHASE, MAX_PHASE, [1, 0])
    pid_m = ttgl.program_id(0)
    pid_n = ttgl.program_id(1)
    rm = pid_m * B + ttgl.arange(0, B, layout=ttgl.SliceLayout(1, load_layout))
    rn = pid_n * B + ttgl.arange(0, B, layout=ttgl.SliceLayout(0, load_layout))
    x = ttgl.load(x_ptr + rm[:, None] * n + rn[None, :])
    smem = ttgl.allocate_shared_memory(x_ptr.dtype.element_ty, [B, B], smem_layout, x)
    y = smem.load(store_layout)
    sm = pid_m * B + ttgl.arange(0, B, layout=ttgl.SliceLayout(1, store_layout))
    sn = pid_n * B + ttgl.arange(0, B, layout=ttgl.SliceLayout(0, store_layout))
    ttgl.store(out_ptr + sn[None, :] * n + sm[:, None], y)


@gluon.jit
def gluon_smem_transpose_opt_kernel(x_ptr, out_ptr, n, B: ttgl.constexpr):
    # The shared layout `linlayout lint` suggested for gluon_smem_transpose (write 16 + read 16 wavefronts per warp).
    load_layout: ttgl.constexpr = ttgl.BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0])
    store_layout: ttgl.constexpr = ttgl.BlockedLayout([8, 1], [4, 8], [1, 4], [0, 1])
    smem_layout: ttgl.constexpr = ttgl.SharedLinearLayout(
        [[0, 32], [32, 0], [0, 1], [1, 0], [0, 8], [0, 16], [2, 0], [4, 0], [0, 4], [9, 0], [16, 8], [0, 18]])
    pid_m = ttgl.program_id(0)
    pid_n = ttgl.program_id(1)
    rm = pid_m * B + ttgl.arange(0, B, layout=ttgl.SliceLayout(1, load_layout))
    rn = pid_n * B + ttgl.arange(0, B, layout=ttgl.SliceLayout(0, load_layout))
    x = ttgl.load(x_ptr + rm[:, None] * n + rn[None, :])
    smem = ttgl.allocate_shared_memory(x_ptr.dtype.element_ty, [B, B], smem_layout, x)
    y = smem.load(store_layout)
    sm = pid_m * B + ttgl.arange(0, B, layout=ttgl.SliceLayout(1, store_layout))
    sn = pid_n * B + ttgl.arange(0, B, layout=ttgl.SliceLayout(0, store_layout))
    ttgl.store(out_ptr + sn[None, :] * n + sm[:, None], y)


def _case(name, fn, signature, constexprs, grid, make_args, num_warps=4, num_stages=3, trips=None):
    """``trips``: the source text of a loop's ``for`` line → its trip count in the measured launch."""
    return {"name": name, "fn": fn, "signature": signature, "constexprs": constexprs, "grid": grid,
            "make_args": make_args, "num_warps": num_warps, "num_stages": num_stages, "trips": trips or {}}


N_VEC = 1 << 20
ROWS, COLS = 4096, 1024
MM = 512
TN = 1024
CTX = 1024


def _args_add(torch):
    x = torch.randn(N_VEC, device="cuda")
    return [x, torch.randn_like(x), torch.empty_like(x), N_VEC]


def _args_softmax(torch):
    x = torch.randn(ROWS, COLS, device="cuda")
    return [x, torch.empty_like(x), COLS, COLS]


def _args_layernorm(torch):
    x = torch.randn(ROWS, COLS, device="cuda", dtype=torch.float16)
    w = torch.randn(COLS, device="cuda", dtype=torch.float16)
    return [x, w, torch.randn_like(w), torch.empty_like(x), COLS, COLS, 1e-5]


def args_matmul(dtype_name):
    def make(torch):
        a = torch.randn(MM, MM, device="cuda").to(getattr(torch, dtype_name))
        b = torch.randn(MM, MM, device="cuda").to(getattr(torch, dtype_name))
        c = torch.empty(MM, MM, device="cuda", dtype=torch.float16)
        return [a, b, c, MM, MM, MM, MM, MM, MM]
    return make


def _args_transpose(torch):
    x = torch.randn(TN, TN, device="cuda", dtype=torch.float16)
    return [x, torch.empty_like(x), TN]


def _args_colsum(torch):
    x = torch.randn(128, 4096, device="cuda")
    return [x, torch.empty(4096, device="cuda"), 4096]


def _args_attention(torch):
    q = torch.randn(CTX, 64, device="cuda", dtype=torch.float16)
    return [q, torch.randn_like(q), torch.randn_like(q), torch.empty_like(q), CTX, 0.125]


MM_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
          "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32", "BM": "constexpr", "BN": "constexpr",
          "BK": "constexpr"}
MM8_SIG = dict(MM_SIG, a_ptr="*fp8e4nv", b_ptr="*fp8e4nv")
MM_CONST = {"BM": 128, "BN": 128, "BK": 64}
MM_TRIPS = {"for k in range(0, K, BK):": MM // 64}

CASES = [
    _case("vector_add", add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32",
                                     "BLOCK": "constexpr"}, {"BLOCK": 1024}, (N_VEC // 1024, 1, 1), _args_add),
    _case("softmax", softmax_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "stride": "i32", "n_cols": "i32",
                                      "BLOCK": "constexpr"}, {"BLOCK": 1024}, (ROWS, 1, 1), _args_softmax),
    _case("layernorm", layernorm_kernel, {"x_ptr": "*fp16", "w_ptr": "*fp16", "b_ptr": "*fp16", "out_ptr": "*fp16",
                                          "stride": "i32", "n_cols": "i32", "eps": "fp32", "BLOCK": "constexpr"},
          {"BLOCK": 1024}, (ROWS, 1, 1), _args_layernorm),
    _case("matmul_fp16_s1", matmul_kernel, MM_SIG, MM_CONST, (MM // 128, MM // 128, 1), args_matmul("float16"),
          num_stages=1, trips=MM_TRIPS),
    _case("matmul_fp16_s3", matmul_kernel, MM_SIG, MM_CONST, (MM // 128, MM // 128, 1), args_matmul("float16"),
          num_stages=3, trips=MM_TRIPS),
    _case("matmul_fp8_s1", matmul_kernel, MM8_SIG, MM_CONST, (MM // 128, MM // 128, 1),
          args_matmul("float8_e4m3fn"), num_stages=1, trips=MM_TRIPS),
    _case("matmul_fp8_s3", matmul_kernel, MM8_SIG, MM_CONST, (MM // 128, MM // 128, 1),
          args_matmul("float8_e4m3fn"), num_stages=3, trips=MM_TRIPS),
    _case("transpose", transpose_kernel, {"x_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32", "B": "constexpr"},
          {"B": 64}, (TN // 64, TN // 64, 1), _args_transpose),
    _case("colsum", colsum_kernel, {"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "BR": "constexpr",
                                    "BC": "constexpr"}, {"BR": 128, "BC": 64}, (4096 // 64, 1, 1), _args_colsum),
    _case("attention_fwd", attention_kernel, {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16",
                                              "n_ctx": "i32", "sm_scale": "fp32", "BM": "constexpr",
                                              "BN": "constexpr", "D": "constexpr"},
          {"BM": 128, "BN": 64, "D": 64}, (CTX // 128, 1, 1), _args_attention, num_stages=1,
          trips={"for start in range(0, n_ctx, BN):": CTX // 64}),
    _case("gluon_convert", gluon_convert_kernel, {"x_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32", "B": "constexpr"},
          {"B": 64}, (TN // 64, 1, 1), _args_transpose),
    _case("gluon_smem_transpose", gluon_smem_transpose_kernel,
          {"x_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32", "B": "constexpr", "VEC": "constexpr",
           "PER_PHASE": "constexpr", "MAX_PHASE": "constexpr"},
          {"B": 64, "VEC": 1, "PER_PHASE": 1, "MAX_PHASE": 1}, (TN // 64, TN // 64, 1), _args_transpose),
    _case("gluon_smem_transpose_swz", gluon_smem_transpose_kernel,
          {"x_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32", "B": "constexpr", "VEC": "constexpr",
           "PER_PHASE": "constexpr", "MAX_PHASE": "constexpr"},
          {"B": 64, "VEC": 8, "PER_PHASE": 1, "MAX_PHASE": 8}, (TN // 64, TN // 64, 1), _args_transpose),
    _case("gluon_smem_transpose_opt", gluon_smem_transpose_opt_kernel,
          {"x_ptr": "*fp16", "out_ptr": "*fp16", "n": "i32", "B": "constexpr"},
          {"B": 64}, (TN // 64, TN // 64, 1), _args_transpose),
]


def loop_line(fn, text: str) -> int:
    """The line number in this file of the loop whose ``for`` line is ``text``."""
    import inspect

    lines, start = inspect.getsourcelines(getattr(fn, "fn", fn))
    for i, ln in enumerate(lines):
        if ln.strip() == text:
            return start + i
    raise KeyError(text)
