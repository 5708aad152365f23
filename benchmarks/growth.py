"""How the cost of each compiler-facing call grows: synthesis, counting, planning and lint against tensor bits
(8 to 20) and lint against the ops per kernel, with the fitted exponent.

Usage (from the project root)::

    PYTHONPATH=. python benchmarks/growth.py [--quick] [--markdown]

Every time is CPU time (``time.process_time``) per call, the median of several
timed blocks, on objects built fresh for each call (no per-layout memo helps).
The problems:

* tensor bits ``d``: a transpose of a ``2^(d/2) x 2^(d - d/2)`` fp16 tile
  (4 warps; the write side's lanes run along dim1, the read side's along
  dim0; registers take the rest: :func:`transpose_pair`): ``optimal_swizzle`` (on sm90's banks with
  no capacity limit, since 2^20 fp16 elements exceed 228 KB), two
  ``wavefronts`` calls on a row-major memory (the two sides counted), and
  ``plan_conversion`` between the two layouts as it is (on the same unbounded banks);
* lint against tensor bits: ``linlayout lint``'s analysis (``lint_text``, from
  text to report) of a kernel that stores a ``2^(d/2) x 2^(d - d/2)`` fp16
  tile to shared memory with one blocked layout and loads it with another;
* lint against ops: the same kernel on a 64x64 tile with ``n`` such
  store/load pairs (``3n + 1`` ops in the function, ``n`` buffers).

The exponent ``k`` is the least-squares slope of log(time) against
log(elements) for tensor bits (time ~ elements^k, elements = 2^d), and against
log(ops) for the op count (time ~ ops^k): 0 is flat, 1 is linear.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import sys
import time
from collections.abc import Callable

BITS = (8, 10, 12, 14, 16, 18, 20)
OPS = (1, 4, 16, 64, 256)


def transpose_pair(d: int):
    """Write and read layouts of a d-bit fp16 transpose with 4 warps: the write side's lanes take the lowest bits
    of dim1 (then dim0), its warps the top bits of dim0, its registers the rest; the read side likewise with the
    dimensions swapped."""
    from linlayout import LinearLayout as LL

    h = d // 2
    outs = {"dim0": 1 << h, "dim1": 1 << (d - h)}
    dim0 = [[1 << i, 0] for i in range(h)]
    dim1 = [[0, 1 << i] for i in range(d - h)]

    def side(order: list[list[int]]) -> LL:
        return LL({"register": order[5:-2], "lane": order[:5], "warp": order[-2:]}, outs)

    return side(dim1 + dim0), side(dim0 + dim1)


def per_call(make: Callable[[], object], op: Callable[[object], object], quick: bool) -> float:
    """Median CPU seconds per call of ``op`` on fresh ``make()`` objects (blocks of about 20 ms)."""
    op(make())
    c0 = time.process_time()
    op(make())
    one = max(time.process_time() - c0, 1e-6)
    n = max(1, min(2000, int(0.02 / one)))
    times = []
    for _ in range(3 if quick else 7):
        args = [make() for _ in range(n)]
        c0 = time.process_time()
        for a in args:
            op(a)
        times.append((time.process_time() - c0) / n)
    return statistics.median(times)


KERNEL = """#blocked = #ttg.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}}>
#blocked1 = #ttg.blocked<{{sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}}>
#shared = #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}}>
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k(%x_ptr: !tt.ptr<f16>) attributes {{noinline = false}} {{
    %x = tt.splat %x_ptr : !tt.ptr<f16> -> tensor<{s}x!tt.ptr<f16>, #blocked>
{body}    tt.return
  }}
}}
"""
PAIR = """    %v{i} = tt.load %x : tensor<{s}x!tt.ptr<f16>, #blocked>
    %m{i} = ttg.local_alloc %v{i} : (tensor<{s}xf16, #blocked>) -> !ttg.memdesc<{s}xf16, #shared, #smem, mutable>
    %y{i} = ttg.local_load %m{i} : !ttg.memdesc<{s}xf16, #shared, #smem, mutable> -> tensor<{s}xf16, #blocked1>
"""


def kernel(d: int, pairs: int) -> str:
    """A TTGIR module storing and loading ``pairs`` fp16 tiles of ``d`` bits (see the module doc)."""
    h = d // 2
    s = f"{1 << h}x{1 << (d - h)}"
    return KERNEL.format(s=s, body="".join(PAIR.format(i=i, s=s) for i in range(pairs)))


def exponent(xs: list[float], ts: list[float]) -> float:
    """Least-squares slope of log(t) against log(x)."""
    lx, lt = [math.log(x) for x in xs], [math.log(t) for t in ts]
    mx, mt = statistics.fmean(lx), statistics.fmean(lt)
    return sum((a - mx) * (b - mt) for a, b in zip(lx, lt)) / sum((a - mx) ** 2 for a in lx)


def measure(quick: bool) -> tuple[dict[str, list[float]], list[float]]:
    from linlayout.core.memory import unswizzled
    from linlayout.core.layout import LinearLayout as LL
    from linlayout.convert.plan import plan_conversion
    from linlayout.count.closed_form import wavefronts
    from linlayout.hw import sm90
    from linlayout.io.ttgir.lint import lint_text
    from linlayout.synth.synthesis import optimal_swizzle

    hw = dataclasses.replace(sm90, name="sm90-unbounded", smem_bytes=1 << 200)
    rows: dict[str, list[float]] = {"synthesis": [], "counting": [], "planning": [], "lint": []}
    for d in BITS:
        mem = unswizzled([1 << (d // 2), 1 << (d - d // 2)])
        mb, mo = mem.bases, mem.out_sizes
        rows["synthesis"].append(per_call(lambda d=d: transpose_pair(d), lambda p: optimal_swizzle(p[0], p[1], 16, hw),
                                          quick))
        rows["counting"].append(per_call(lambda d=d: (*transpose_pair(d), LL(mb, mo)),
                                         lambda p: (wavefronts(p[0], p[2], 16, "store", hardware=hw),
                                                    wavefronts(p[1], p[2], 16, "load", hardware=hw)), quick))
        rows["planning"].append(per_call(lambda d=d: transpose_pair(d), lambda p: plan_conversion(p[0], p[1], 16, hw), quick))
        text = kernel(d, 1)
        rows["lint"].append(per_call(lambda: text, lint_text, quick))
    by_ops = []
    for n in OPS:
        text = kernel(12, n)
        by_ops.append(per_call(lambda text=text: text, lint_text, quick))
    return rows, by_ops


def markdown(rows: dict[str, list[float]], by_ops: list[float]) -> str:
    """The two tables (times in microseconds) with each row's fitted exponent."""
    elems = [2.0 ** d for d in BITS]
    lines = ["| call (fresh objects) | " + " | ".join(f"{d} bits" for d in BITS) + " | exponent k (time ~ elements^k) |",
             "|---|" + "---:|" * (len(BITS) + 1)]
    for name, ts in rows.items():
        lines.append(f"| {name} | " + " | ".join(f"{t * 1e6:,.0f}" for t in ts) + f" | {exponent(elems, ts):.2f} |")
    lines += ["", "| lint, 12-bit tiles | " + " | ".join(f"{n} pairs ({3 * n + 1} ops)" for n in OPS)
              + " | exponent k (time ~ ops^k) |", "|---|" + "---:|" * (len(OPS) + 1),
              "| lint_text | " + " | ".join(f"{t * 1e6:,.0f}" for t in by_ops)
              + f" | {exponent([3 * n + 1 for n in OPS], by_ops):.2f} |"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer timed blocks (a smoke run)")
    ap.parse_args(argv)
    rows, by_ops = measure(ap.parse_args(argv).quick)
    print("CPU time per call, microseconds (median of timed blocks, fresh objects)")
    print(markdown(rows, by_ops))
    return 0


if __name__ == "__main__":
    sys.exit(main())
