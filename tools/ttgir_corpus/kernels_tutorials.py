"""Triton's own tutorials, written as the tutorials write them, at the configuration they pick on an H100.

- ``02-fused-softmax``: one program per several rows (``tl.range`` with software pipelining), 8 warps.
- ``05-layer-norm``: the fused forward (three loops over the row), the backward's ``dx`` kernel with its
  lock (``tl.atomic_cas`` spin, ``tl.atomic_xchg`` release: data-dependent traffic), and the ``dw/db``
  column reduction.
- ``03-matrix-multiplication``: grouped tile order, fp16 (128x256x64, 3 stages, 8 warps) and fp8 e5m2
  with ``b`` transposed (128x256x128).
- ``08-grouped-gemm``: a persistent kernel walking a list of GEMMs (loop bounds read from memory).
- ``06-fused-attention``: the causal forward, its inner loop inlined twice (off-band and on-band stage).

Departures from the tutorial text, each forced by the corpus: the softmax's pipelining depth is called
``NUM_STAGES`` (a launch option is already called ``num_stages``); an integer argument that is 1 in the
launch (a unit stride) is a ``constexpr``, which is what Triton's JIT makes of it; the attention indexes
plain pointers over a contiguous ``[Z*H, N_CTX, HEAD_DIM]`` tensor instead of tensor descriptors, so
that its loads are ``cp.async`` (the corpus measures those) rather than TMA.
"""

from __future__ import annotations

import triton
import triton.language as tl

from corpus_case import make_case


@triton.jit
def softmax_tutorial_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                            BLOCK_SIZE: tl.constexpr, NUM_STAGES: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=NUM_STAGES):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


@triton.jit
def layer_norm_fwd_fused(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):  # mean
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):  # variance
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):  # normalize
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def layer_norm_bwd_dx_fused(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                            GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.)
    wdy = tl.where(mask, wdy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def layer_norm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.)
        db += tl.load(DB + offs, mask=mask, other=0.)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


@triton.jit
def matmul_tutorial_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                           stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                           BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def grouped_matmul_kernel(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_gemm_sizes, g_lds, group_size,
                          NUM_SM: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                          BLOCK_SIZE_K: tl.constexpr):
    tile_idx = tl.program_id(0)
    last_problem_end = 0
    for g in range(group_size):
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        num_m_tiles = tl.cdiv(gm, BLOCK_SIZE_M)
        num_n_tiles = tl.cdiv(gn, BLOCK_SIZE_N)
        num_tiles = num_m_tiles * num_n_tiles
        while (tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles):
            k = gk
            lda = tl.load(g_lds + g * 3)
            ldb = tl.load(g_lds + g * 3 + 1)
            ldc = tl.load(g_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            tile_idx_in_gemm = tile_idx - last_problem_end
            tile_m_idx = tile_idx_in_gemm // num_n_tiles
            tile_n_idx = tile_idx_in_gemm % num_n_tiles
            offs_am = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_bn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            offs_k = tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + offs_am[:, None] * lda + offs_k[None, :]
            b_ptrs = b_ptr + offs_k[:, None] * ldb + offs_bn[None, :]
            accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
            for kk in range(0, tl.cdiv(k, BLOCK_SIZE_K)):
                tl.multiple_of(a_ptrs, [16, 16])
                tl.multiple_of(b_ptrs, [16, 16])
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
                accumulator += tl.dot(a, b)
                a_ptrs += BLOCK_SIZE_K
                b_ptrs += BLOCK_SIZE_K * ldb
            c = accumulator.to(tl.float16)
            offs_cm = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_cn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            c_ptrs = c_ptr + ldc * offs_cm[:, None] + offs_cn[None, :]
            tl.store(c_ptrs, c)
            tile_idx += NUM_SM
        last_problem_end = last_problem_end + num_tiles


@triton.jit
def attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m, qk_scale,
                   BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
                   offs_m, offs_n, N_CTX: tl.constexpr):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    k_ptrs += lo * stride_kn
    v_ptrs += lo * stride_vn
    for start_n in tl.range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = tl.load(k_ptrs)
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs)
        p = p.to(tl.float16)
        acc = tl.dot(p, v, acc)
        m_i = m_ij
        k_ptrs += BLOCK_N * stride_kn
        v_ptrs += BLOCK_N * stride_vn
    return acc, l_i, m_i


@triton.jit
def attn_fwd(Q, K, V, sm_scale, M, Out, stride_qm, stride_kn, stride_vn, stride_om, N_CTX: tl.constexpr,
             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off = off_hz * N_CTX * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(Q + off + offs_m[:, None] * stride_qm + offs_d[None, :])
    k_ptrs = K + off + offs_d[:, None] + offs_n[None, :] * stride_kn
    v_ptrs = V + off + offs_n[:, None] * stride_vn + offs_d[None, :]
    if STAGE & 1:
        acc, l_i, m_i = attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m, qk_scale,
                                       BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE, offs_m, offs_n, N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m, qk_scale,
                                       BLOCK_M, HEAD_DIM, BLOCK_N, 2, offs_m, offs_n, N_CTX)
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    tl.store(Out + off + offs_m[:, None] * stride_om + offs_d[None, :], acc.to(Out.type.element_ty))


SM_ROWS, SM_COLS, SM_PROGRAMS = 4096, 1024, 1024
LN_M, LN_N, LN_GROUP = 1024, 4096, 64
MT = 1024
GG_GROUPS, GG_SIZE, GG_NUM_SM = 4, 512, 32
ATT_ZH, ATT_CTX, ATT_D = 4, 1024, 64


def _args_softmax_tutorial(torch):
    x = torch.randn(SM_ROWS, SM_COLS, device="cuda")
    return [torch.empty_like(x), x, SM_COLS, SM_COLS, SM_ROWS, SM_COLS]


def _args_ln_fwd(torch):
    x = torch.randn(LN_M, LN_N, device="cuda", dtype=torch.float16)
    w = torch.rand(LN_N, device="cuda", dtype=torch.float16)
    mean = torch.empty(LN_M, device="cuda")
    return [x, torch.empty_like(x), w, torch.rand_like(w), mean, torch.empty_like(mean), LN_N, LN_N, 1e-5]


def _args_ln_bwd_dx(torch):
    x = torch.randn(LN_M, LN_N, device="cuda", dtype=torch.float16)
    dw = torch.zeros(LN_GROUP, LN_N, device="cuda", dtype=torch.float16)
    w = torch.rand(LN_N, device="cuda", dtype=torch.float16)
    mean, rstd = torch.randn(LN_M, device="cuda"), torch.rand(LN_M, device="cuda") + 0.5
    lock = torch.zeros(2 * LN_GROUP, device="cuda", dtype=torch.int32)
    return [torch.empty_like(x), torch.randn_like(x), dw, torch.zeros_like(dw), x, w, mean, rstd, lock, LN_N, LN_N]


def _args_ln_bwd_dwdb(torch):
    dw = torch.randn(LN_GROUP, LN_N, device="cuda", dtype=torch.float16)
    fw = torch.empty(LN_N, device="cuda", dtype=torch.float16)
    return [dw, torch.randn_like(dw), fw, torch.empty_like(fw), LN_GROUP, LN_N]


def _args_matmul_tutorial(fp8):
    def make(torch):
        a = torch.randn(MT, MT, device="cuda", dtype=torch.float16)
        b = torch.randn(MT, MT, device="cuda", dtype=torch.float16)
        if fp8:
            a = a.to(torch.float8_e5m2)
            b = b.T.to(torch.float8_e5m2)  # column-major: stride_bk = 1 (a constexpr), stride_bn = K
            strides = [MT, MT, MT]  # stride_am, stride_bn, stride_cm
        else:
            strides = [MT, MT, MT]  # stride_am, stride_bk, stride_cm
        c = torch.empty(MT, MT, device="cuda", dtype=torch.float16)
        return [a, b, c, MT, MT, MT] + strides
    return make


def _args_grouped_gemm(torch):
    keep = []
    for _ in range(GG_GROUPS):
        keep += [torch.randn(GG_SIZE, GG_SIZE, device="cuda", dtype=torch.float16) for _ in range(2)]
        keep.append(torch.empty(GG_SIZE, GG_SIZE, device="cuda", dtype=torch.float16))
    ptrs = [torch.tensor([t.data_ptr() for t in keep[i::3]], device="cuda") for i in range(3)]
    sizes = torch.tensor([GG_SIZE] * 3 * GG_GROUPS, device="cuda", dtype=torch.int32)
    lds = torch.tensor([GG_SIZE] * 3 * GG_GROUPS, device="cuda", dtype=torch.int32)
    ptrs[0].keep_alive = keep  # the matrices must outlive the launch
    return ptrs + [sizes, lds, GG_GROUPS]


def _args_attention_tutorial(torch):
    q = torch.randn(ATT_ZH, ATT_CTX, ATT_D, device="cuda", dtype=torch.float16)
    m = torch.empty(ATT_ZH, ATT_CTX, device="cuda")
    return [q, torch.randn_like(q), torch.randn_like(q), 0.125, m, torch.empty_like(q), ATT_D, ATT_D, ATT_D, ATT_D]


MMT_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
           "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
           "stride_cm": "i32", "stride_cn": "constexpr", "BLOCK_SIZE_M": "constexpr", "BLOCK_SIZE_N": "constexpr",
           "BLOCK_SIZE_K": "constexpr", "GROUP_SIZE_M": "constexpr"}
MMT8_SIG = dict(MMT_SIG, a_ptr="*fp8e5", b_ptr="*fp8e5", stride_bk="constexpr", stride_bn="i32")
MMT_LOOP = "for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):"
N_TILES = (MT // 128) * (MT // 256)

TUTORIAL_CASES = [
    make_case("tut_softmax", softmax_tutorial_kernel,
              {"output_ptr": "*fp32", "input_ptr": "*fp32", "input_row_stride": "i32", "output_row_stride": "i32",
               "n_rows": "i32", "n_cols": "i32", "BLOCK_SIZE": "constexpr", "NUM_STAGES": "constexpr"},
              {"BLOCK_SIZE": 1024, "NUM_STAGES": 2}, (SM_PROGRAMS, 1, 1), _args_softmax_tutorial, num_warps=8,
              trips={"for row_idx in tl.range(row_start, n_rows, row_step, num_stages=NUM_STAGES):":
                     SM_ROWS // SM_PROGRAMS}),
    make_case("tut_layernorm_fwd", layer_norm_fwd_fused,
              {"X": "*fp16", "Y": "*fp16", "W": "*fp16", "B": "*fp16", "Mean": "*fp32", "Rstd": "*fp32",
               "stride": "i32", "N": "i32", "eps": "fp32", "BLOCK_SIZE": "constexpr"},
              {"BLOCK_SIZE": 4096}, (LN_M, 1, 1), _args_ln_fwd, num_warps=8,
              trips={"for off in range(0, N, BLOCK_SIZE):  # mean": 1,
                     "for off in range(0, N, BLOCK_SIZE):  # variance": 1,
                     "for off in range(0, N, BLOCK_SIZE):  # normalize": 1}),
    make_case("tut_layernorm_bwd_dx", layer_norm_bwd_dx_fused,
              {"DX": "*fp16", "DY": "*fp16", "DW": "*fp16", "DB": "*fp16", "X": "*fp16", "W": "*fp16",
               "Mean": "*fp32", "Rstd": "*fp32", "Lock": "*i32", "stride": "i32", "N": "i32",
               "GROUP_SIZE_M": "constexpr", "BLOCK_SIZE_N": "constexpr"},
              {"GROUP_SIZE_M": LN_GROUP, "BLOCK_SIZE_N": 4096}, (LN_M, 1, 1), _args_ln_bwd_dx, num_warps=8,
              data_dependent="the lock's tl.atomic_cas spins (scf.while) as long as another program holds it"),
    make_case("tut_layernorm_bwd_dwdb", layer_norm_bwd_dwdb,
              {"DW": "*fp16", "DB": "*fp16", "FINAL_DW": "*fp16", "FINAL_DB": "*fp16", "M": "i32", "N": "i32",
               "BLOCK_SIZE_M": "constexpr", "BLOCK_SIZE_N": "constexpr"},
              {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 128}, (LN_N // 128, 1, 1), _args_ln_bwd_dwdb,
              trips={"for i in range(0, M, BLOCK_SIZE_M):": LN_GROUP // 32}),
    make_case("tut_matmul_fp16", matmul_tutorial_kernel, MMT_SIG,
              {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256,
               "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8}, (N_TILES, 1, 1), _args_matmul_tutorial(False),
              num_warps=8, num_stages=3, trips={MMT_LOOP: MT // 64}),
    make_case("tut_matmul_fp8", matmul_tutorial_kernel, MMT8_SIG,
              {"stride_ak": 1, "stride_bk": 1, "stride_cn": 1, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256,
               "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 8}, (N_TILES, 1, 1), _args_matmul_tutorial(True),
              num_warps=8, num_stages=3, trips={MMT_LOOP: MT // 128}),
    make_case("tut_grouped_gemm", grouped_matmul_kernel,
              {"group_a_ptrs": "*i64", "group_b_ptrs": "*i64", "group_c_ptrs": "*i64", "group_gemm_sizes": "*i32",
               "g_lds": "*i32", "group_size": "i32", "NUM_SM": "constexpr", "BLOCK_SIZE_M": "constexpr",
               "BLOCK_SIZE_N": "constexpr", "BLOCK_SIZE_K": "constexpr"},
              {"NUM_SM": GG_NUM_SM, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32},
              (GG_NUM_SM, 1, 1), _args_grouped_gemm, plain_ints=("group_size",),
              trips={"for kk in range(0, tl.cdiv(k, BLOCK_SIZE_K)):": GG_SIZE // 32},
              data_dependent=f"tile loop bounds are read from memory: each of the {GG_NUM_SM} programs runs "
                             f"{GG_GROUPS * (GG_SIZE // 128) ** 2 // GG_NUM_SM} tiles of {GG_SIZE // 32} K steps"),
    make_case("tut_attention_causal", attn_fwd,
              {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "sm_scale": "fp32", "M": "*fp32", "Out": "*fp16",
               "stride_qm": "i32", "stride_kn": "i32", "stride_vn": "i32", "stride_om": "i32",
               "N_CTX": "constexpr", "HEAD_DIM": "constexpr", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr",
               "STAGE": "constexpr"},
              {"N_CTX": ATT_CTX, "HEAD_DIM": ATT_D, "BLOCK_M": 128, "BLOCK_N": 64, "STAGE": 3},
              (ATT_CTX // 128, ATT_ZH, 1), _args_attention_tutorial, num_warps=4, num_stages=3,
              loop_note="program-dependent trip counts: the inner loop is inlined twice; the "
                             "off-band copy runs 2*program_id(0) times, the on-band copy 2 times, per program "
                             f"(over the grid: {ATT_ZH * 56} and {ATT_ZH * 16} iterations)"),
]
