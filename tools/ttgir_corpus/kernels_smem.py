"""Small kernels, one shared-memory-using op each, at the shapes and warp counts that change its lowering.

- reductions (``tt.reduce``): sum, max, and argmax (value + index: a reduction of two operands) along
  axis 0 or 1, fp16 and fp32, 1 to 8 warps; some stay inside a warp (shuffles only), most cross warps
  (the scratch exchange);
- scans (``tt.scan``): ``tl.cumsum`` forward and reverse along either axis, and a two-operand
  ``tl.associative_scan`` (a linear recurrence), with several warps (the carry crosses warps);
- histograms (``tt.histogram``) at 16 to 1024 bins;
- atomics (``tt.atomic_rmw``/``tt.atomic_cas``): tensor adds whose result is unused (``red``) or used
  (``atom``), fp16 adds, scalar adds whose result every thread needs (broadcast through shared memory),
  and a spin lock;
- gathers (``tt.gather``): along a warp-local axis and across warps (a Gluon one keeps a cross-warp layout);
- pipelined matmuls (``num_stages`` > 1: ``cp.async`` into shared memory) at other tiles and types.

Each kernel is one program per block of a larger tensor, so a launch has many CTAs.
"""

from __future__ import annotations

import triton
import triton.language as tl

from corpus_case import make_case
from kernels import MM, MM_SIG, args_matmul, matmul_kernel


@triton.jit
def reduce_kernel(x_ptr, out_ptr, idx_ptr, R: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr,
                  OP: tl.constexpr):
    pid = tl.program_id(0)
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    x = tl.load(x_ptr + pid * R * C + rows[:, None] * C + cols[None, :])
    if AXIS == 0:
        offs = pid * C + cols
    else:
        offs = pid * R + rows
    # Each op on a line of its own: the PTX's line information then tells the reduction from the stores.
    if OP == "sum":
        value = tl.sum(x, axis=AXIS)
        tl.store(out_ptr + offs, value)
    elif OP == "max":
        value = tl.max(x, axis=AXIS)
        tl.store(out_ptr + offs, value)
    else:
        value, index = tl.max(x, axis=AXIS, return_indices=True)
        tl.store(out_ptr + offs, value)
        tl.store(idx_ptr + offs, index)


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr, REVERSE: tl.constexpr):
    pid = tl.program_id(0)
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    offs = pid * R * C + rows[:, None] * C + cols[None, :]
    x = tl.load(x_ptr + offs)
    y = tl.cumsum(x, axis=AXIS, reverse=REVERSE)
    tl.store(out_ptr + offs, y)


@triton.jit
def recurrence_combine(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def linear_recurrence_kernel(a_ptr, b_ptr, out_ptr, C: tl.constexpr):
    # h[t] = a[t] * h[t-1] + b[t], h[-1] = 0: a scan of (a, b) pairs.
    offs = tl.program_id(0) * C + tl.arange(0, C)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    _, h = tl.associative_scan((a, b), axis=0, combine_fn=recurrence_combine)
    tl.store(out_ptr + offs, h)


@triton.jit
def histogram_kernel(x_ptr, out_ptr, N: tl.constexpr, BINS: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.load(x_ptr + pid * N + tl.arange(0, N))
    h = tl.histogram(x, BINS)
    tl.store(out_ptr + pid * BINS + tl.arange(0, BINS), h)


@triton.jit
def atomic_add_tensor_kernel(x_ptr, acc_ptr, old_ptr, BLOCK: tl.constexpr, RETURN_OLD: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid * BLOCK + offs)
    if RETURN_OLD:
        old = tl.atomic_add(acc_ptr + offs, x)
        tl.store(old_ptr + pid * BLOCK + offs, old)
    else:
        tl.atomic_add(acc_ptr + offs, x)


@triton.jit
def atomic_ticket_kernel(counter_ptr, x_ptr, out_ptr, BLOCK: tl.constexpr, USE_TICKET: tl.constexpr):
    # One scalar atomic per program; with USE_TICKET every thread needs its result.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if USE_TICKET:
        ticket = tl.atomic_add(counter_ptr, 1)
        tl.store(out_ptr + offs, x + ticket.to(tl.float32))
    else:
        tl.atomic_add(counter_ptr, 1)
        tl.store(out_ptr + offs, x)


@triton.jit
def spin_lock_kernel(lock_ptr, acc_ptr, x_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid * BLOCK + offs)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    acc = tl.load(acc_ptr + offs)
    tl.store(acc_ptr + offs, acc + x)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def atomic_max_kernel(x_ptr, acc_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * BLOCK + offs)
    tl.atomic_max(acc_ptr + offs, x)


@triton.jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr):
    pid = tl.program_id(0)
    rows = tl.arange(0, R)
    cols = tl.arange(0, C)
    offs = pid * R * C + rows[:, None] * C + cols[None, :]
    src = tl.load(src_ptr + offs)
    idx = tl.load(idx_ptr + offs)
    y = tl.gather(src, idx, axis=AXIS)
    tl.store(out_ptr + offs, y)


from triton.experimental import gluon  # noqa: E402 - here, so that the kernels above keep their line numbers
from triton.experimental.gluon import language as ttgl  # noqa: E402


@gluon.jit
def gluon_gather_cross_warp_kernel(src_ptr, idx_ptr, out_ptr, R: ttgl.constexpr, C: ttgl.constexpr):
    # Rows spread over the 4 warps and the gather runs along the rows: no warp holds a whole column,
    # and Gluon keeps the layout it is given, so the gather goes through shared memory.
    layout: ttgl.constexpr = ttgl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])
    rows = ttgl.arange(0, R, layout=ttgl.SliceLayout(1, layout))
    cols = ttgl.arange(0, C, layout=ttgl.SliceLayout(0, layout))
    offs = ttgl.program_id(0) * R * C + rows[:, None] * C + cols[None, :]
    src = ttgl.load(src_ptr + offs)
    idx = ttgl.load(idx_ptr + offs)
    y = ttgl.gather(src, idx, 0)
    ttgl.store(out_ptr + offs, y)


PROGRAMS = 256
TORCH_DTYPE = {"fp32": "float32", "fp16": "float16", "i32": "int32"}


def _args_reduce(dtype, r, c, axis):
    def make(torch):
        x = torch.randn(PROGRAMS * r * c, device="cuda").to(getattr(torch, TORCH_DTYPE[dtype]))
        n_out = PROGRAMS * (c if axis == 0 else r)
        return [x, torch.empty(n_out, device="cuda", dtype=x.dtype),
                torch.empty(n_out, device="cuda", dtype=torch.int32)]
    return make


def _reduce_case(op, dtype, r, c, axis, num_warps):
    direction = "col" if axis == 0 else "row"
    return make_case(f"red_{op}_{direction}_{dtype}_{r}x{c}_w{num_warps}", reduce_kernel,
                     {"x_ptr": f"*{dtype}", "out_ptr": f"*{dtype}", "idx_ptr": "*i32", "R": "constexpr",
                      "C": "constexpr", "AXIS": "constexpr", "OP": "constexpr"},
                     {"R": r, "C": c, "AXIS": axis, "OP": op}, (PROGRAMS, 1, 1), _args_reduce(dtype, r, c, axis),
                     num_warps=num_warps)


def _args_cumsum(dtype, r, c):
    def make(torch):
        if dtype == "i32":
            x = torch.randint(-100, 100, (PROGRAMS * r * c,), device="cuda", dtype=torch.int32)
        else:
            x = torch.randn(PROGRAMS * r * c, device="cuda").to(getattr(torch, TORCH_DTYPE[dtype]))
        return [x, torch.empty_like(x)]
    return make


def _cumsum_case(dtype, r, c, axis, reverse, num_warps):
    name = f"scan_cumsum{'_rev' if reverse else ''}_ax{axis}_{dtype}_{r}x{c}_w{num_warps}"
    return make_case(name, cumsum_kernel, {"x_ptr": f"*{dtype}", "out_ptr": f"*{dtype}", "R": "constexpr",
                                           "C": "constexpr", "AXIS": "constexpr", "REVERSE": "constexpr"},
                     {"R": r, "C": c, "AXIS": axis, "REVERSE": reverse}, (PROGRAMS, 1, 1),
                     _args_cumsum(dtype, r, c), num_warps=num_warps)


def _args_recurrence(c):
    def make(torch):
        a = torch.rand(PROGRAMS * c, device="cuda")
        return [a, torch.randn_like(a), torch.empty_like(a)]
    return make


def _args_histogram(n, bins):
    def make(torch):
        x = torch.randint(0, bins, (PROGRAMS * n,), device="cuda", dtype=torch.int32)
        return [x, torch.empty(PROGRAMS * bins, device="cuda", dtype=torch.int32)]
    return make


def _histogram_case(n, bins, num_warps):
    return make_case(f"hist_{bins}bins_{n}_w{num_warps}", histogram_kernel,
                     {"x_ptr": "*i32", "out_ptr": "*i32", "N": "constexpr", "BINS": "constexpr"},
                     {"N": n, "BINS": bins}, (PROGRAMS, 1, 1), _args_histogram(n, bins), num_warps=num_warps)


def _args_atomic_add(dtype, block):
    def make(torch):
        x = torch.randn(PROGRAMS * block, device="cuda").to(getattr(torch, TORCH_DTYPE[dtype]))
        return [x, torch.zeros(block, device="cuda", dtype=x.dtype), torch.empty_like(x)]
    return make


def _atomic_add_case(dtype, block, return_old):
    name = f"atomic_add_tensor_{dtype}{'_old' if return_old else ''}"
    return make_case(name, atomic_add_tensor_kernel,
                     {"x_ptr": f"*{dtype}", "acc_ptr": f"*{dtype}", "old_ptr": f"*{dtype}", "BLOCK": "constexpr",
                      "RETURN_OLD": "constexpr"}, {"BLOCK": block, "RETURN_OLD": return_old}, (PROGRAMS, 1, 1),
                     _args_atomic_add(dtype, block))


def _args_ticket(torch):
    x = torch.randn(PROGRAMS * 1024, device="cuda")
    return [torch.zeros(1, device="cuda", dtype=torch.int32), x, torch.empty_like(x)]


def _args_spin_lock(torch):
    x = torch.randn(PROGRAMS * 1024, device="cuda")
    return [torch.zeros(1, device="cuda", dtype=torch.int32), torch.zeros(1024, device="cuda"), x]


def _args_atomic_max(torch):
    x = torch.randint(-1000, 1000, (PROGRAMS * 1024,), device="cuda", dtype=torch.int32)
    return [x, torch.zeros(1024, device="cuda", dtype=torch.int32)]


def _args_gather(r, c, axis):
    def make(torch):
        src = torch.randn(PROGRAMS * r * c, device="cuda")
        idx = torch.randint(0, r if axis == 0 else c, (PROGRAMS * r * c,), device="cuda", dtype=torch.int32)
        return [src, idx, torch.empty_like(src)]
    return make


def _gather_case(r, c, axis, num_warps):
    return make_case(f"gather_ax{axis}_{r}x{c}_w{num_warps}", gather_kernel,
                     {"src_ptr": "*fp32", "idx_ptr": "*i32", "out_ptr": "*fp32", "R": "constexpr", "C": "constexpr",
                      "AXIS": "constexpr"}, {"R": r, "C": c, "AXIS": axis}, (PROGRAMS, 1, 1), _args_gather(r, c, axis),
                     num_warps=num_warps)


MM_LOOP = {"for k in range(0, K, BK):": MM // 32}
MM32_SIG = dict(MM_SIG, a_ptr="*fp32", b_ptr="*fp32")

SMEM_OP_CASES = [
    _reduce_case("sum", "fp32", 32, 128, 1, 1),
    _reduce_case("sum", "fp32", 16, 512, 1, 2),
    _reduce_case("sum", "fp32", 4, 2048, 1, 8),
    _reduce_case("sum", "fp16", 4, 2048, 1, 8),
    _reduce_case("sum", "fp32", 256, 32, 0, 4),
    _reduce_case("sum", "fp16", 512, 64, 0, 8),
    _reduce_case("max", "fp32", 8, 1024, 1, 4),
    _reduce_case("max", "fp16", 128, 64, 0, 2),
    _reduce_case("argmax", "fp32", 4, 256, 1, 1),
    _reduce_case("argmax", "fp32", 8, 1024, 1, 4),
    _reduce_case("argmax", "fp16", 4, 2048, 1, 8),
    _reduce_case("argmax", "fp32", 256, 64, 0, 8),
    _cumsum_case("fp32", 1, 1024, 1, False, 4),
    _cumsum_case("fp32", 1, 1024, 1, True, 4),
    _cumsum_case("fp32", 32, 256, 1, False, 8),
    _cumsum_case("i32", 128, 32, 0, False, 4),
    _cumsum_case("fp32", 64, 64, 0, True, 2),
    make_case("scan_recurrence_fp32_2048_w4", linear_recurrence_kernel,
              {"a_ptr": "*fp32", "b_ptr": "*fp32", "out_ptr": "*fp32", "C": "constexpr"}, {"C": 2048},
              (PROGRAMS, 1, 1), _args_recurrence(2048), num_warps=4),
    _histogram_case(1024, 16, 1),
    _histogram_case(4096, 64, 4),
    _histogram_case(2048, 128, 4),
    _histogram_case(4096, 256, 4),
    _histogram_case(8192, 1024, 8),
    _atomic_add_case("fp32", 1024, False),
    _atomic_add_case("fp32", 1024, True),
    _atomic_add_case("fp16", 1024, False),
    make_case("atomic_max_tensor_i32", atomic_max_kernel, {"x_ptr": "*i32", "acc_ptr": "*i32", "BLOCK": "constexpr"},
              {"BLOCK": 1024}, (PROGRAMS, 1, 1), _args_atomic_max),
    make_case("atomic_add_scalar_unused", atomic_ticket_kernel,
              {"counter_ptr": "*i32", "x_ptr": "*fp32", "out_ptr": "*fp32", "BLOCK": "constexpr",
               "USE_TICKET": "constexpr"}, {"BLOCK": 1024, "USE_TICKET": False}, (PROGRAMS, 1, 1), _args_ticket),
    make_case("atomic_add_scalar_ticket", atomic_ticket_kernel,
              {"counter_ptr": "*i32", "x_ptr": "*fp32", "out_ptr": "*fp32", "BLOCK": "constexpr",
               "USE_TICKET": "constexpr"}, {"BLOCK": 1024, "USE_TICKET": True}, (PROGRAMS, 1, 1), _args_ticket),
    make_case("atomic_cas_spin_lock", spin_lock_kernel,
              {"lock_ptr": "*i32", "acc_ptr": "*fp32", "x_ptr": "*fp32", "BLOCK": "constexpr"}, {"BLOCK": 1024},
              (PROGRAMS, 1, 1), _args_spin_lock,
              data_dependent="the tl.atomic_cas loop (scf.while) spins as long as another program holds the lock"),
    _gather_case(64, 32, 1, 4),
    _gather_case(128, 16, 0, 4),
    _gather_case(4, 1024, 1, 4),
    make_case("gluon_gather_ax0_64x16_w4", gluon_gather_cross_warp_kernel,
              {"src_ptr": "*fp32", "idx_ptr": "*i32", "out_ptr": "*fp32", "R": "constexpr", "C": "constexpr"},
              {"R": 64, "C": 16}, (PROGRAMS, 1, 1), _args_gather(64, 16, 0), num_warps=4),
    make_case("pipelined_matmul_fp16_64x64x32_s4", matmul_kernel, MM_SIG, {"BM": 64, "BN": 64, "BK": 32},
              (MM // 64, MM // 64, 1), args_matmul("float16"), num_warps=4, num_stages=4, trips=MM_LOOP),
    make_case("pipelined_matmul_tf32_s3", matmul_kernel, MM32_SIG, {"BM": 128, "BN": 128, "BK": 32},
              (MM // 128, MM // 128, 1), args_matmul("float32"), num_warps=4, num_stages=3, trips=MM_LOOP),
]
