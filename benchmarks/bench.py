"""linlayout benchmarks against its peers, in one run.

Usage::

    pip install -e '.[bench]'
    python benchmarks/bench.py [--quick] [--only SECTION ...]

Every row is the median of several repeats of a timed loop (per call, in
microseconds), measured in this process, with the peer measured in the same
run on the same inputs.  ``ratio`` is linlayout / peer: below 1.0 means
linlayout is faster.  A peer that is not installed is reported as skipped.

Sections:

* ``import``: ``import linlayout`` in a fresh interpreter (wall time, minus an
  empty interpreter's start-up).
* ``layout``: Triton's Python binding ``triton.tools.LinearLayout`` on 14-bit
  layouts (a 128x128 fp16 blocked layout, an mma-like layout and a swizzled
  shared layout): construction from bases, apply, compose, invert,
  invert_and_compose.
* ``synthesis``: ``optimal_swizzle`` per call on 14-bit problems, with layout
  objects built in the call and reused (the synthesizer caches per-layout
  data), with and without the exact reports; and how the time grows with the
  tensor size (8 to 128 tensor bits).  Triton's ``optimalSwizzlingLdSt`` has
  no Python binding, so no peer runs in this section; the issue quotes 36-57
  us per call for it on this machine.
* ``f2``: the F2 kernel (:mod:`linlayout.core.f2`, Python ints) against galois
  (``GF(2)`` numpy arrays): rank, inverse and matrix product of random
  invertible 8x8, 16x16, 32x32 and 64x64 matrices (the same matrices; the
  answers are compared first).
* ``tensor_layouts``: the ``tensor-layouts`` package's
  ``analysis.bank_conflicts`` (it enumerates the threads of a CuTe layout
  thread -> offset) on 32-bit accesses that both model alike, against
  linlayout's closed form and its simulator.  tensor-layouts counts a 64- or
  128-bit vector as all its words in one group of 32 threads (no passes), so
  wider accesses are not compared.
* ``scaling``: the closed-form count against the tensor size, 8 to 128 tensor
  bits (transposes read against a row-major memory).
* ``triton``: side by side with Triton 3.9.0 in CPU time (``time.process_time``,
  alternating rounds, medians), fresh and reused objects: every algebra
  operation against ``triton.tools.LinearLayout``, and ``optimal_swizzle`` and
  two-sided counting (two ``wavefronts`` on a fresh memory object) against
  Triton's C++ ``optimalSwizzlingLdSt`` / ``bankConflictsLdSt``, which have no
  Python binding and are called through ctypes (``benchmarks/triton_cpp.py``;
  skipped unless the triton 3.9.0 x86-64 wheel is installed), on the five
  Triton ``SwizzleTest`` cases and ``examples/gemm_fp16_operand_a.json``.
* ``conflicts``: the closed-form wavefront count on 14-bit layouts against
  Gluon's ``bank_conflicts`` (Triton's C++ counter, called in-process through
  ``benchmarks/triton_peers.py``; Triton's ``bankConflictsLdSt`` itself has no
  Python binding), and the simulator's throughput in accesses per second.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import timeit
from collections.abc import Callable
from typing import Any

ROWS: list[tuple[str, str, float | None, float | None, str]] = []


def median_us(fn: Callable[[], object], quick: bool) -> float:
    """Median time per call in microseconds."""
    t = timeit.Timer(fn)
    number, _ = t.autorange()
    number = max(1, number // (4 if quick else 1))
    reps = t.repeat(repeat=5 if quick else 9, number=number)
    return statistics.median(reps) / number * 1e6


def paired_us(ours: Callable[[], object], peer: Callable[[], object] | None, quick: bool) -> tuple[float, float | None]:
    """Median times per call (us) of ``ours`` and ``peer``, timed in alternating rounds.

    On a shared machine whose speed drifts during a run, alternating the two
    keeps their ratio fair: a slow stretch slows both.
    """
    t_o = timeit.Timer(ours)
    n_o = max(1, t_o.autorange()[0] // (4 if quick else 1))
    t_p = timeit.Timer(peer) if peer is not None else None
    n_p = max(1, t_p.autorange()[0] // (4 if quick else 1)) if t_p is not None else 0
    r_o, r_p = [], []
    for _ in range(5 if quick else 9):
        r_o.append(t_o.timeit(n_o) / n_o)
        if t_p is not None:
            r_p.append(t_p.timeit(n_p) / n_p)
    return statistics.median(r_o) * 1e6, (statistics.median(r_p) * 1e6 if r_p else None)


def record_pair(section: str, name: str, ours: Callable[[], object], peer: Callable[[], object] | None,
                peer_name: str, quick: bool) -> None:
    """Time ``ours`` against ``peer`` (alternating rounds) and record the row."""
    o, p = paired_us(ours, peer, quick)
    record(section, name, o, p, peer_name)


def median_us_fresh(make: Callable[[], object], op: Callable[[object], object], quick: bool, n: int = 2000) -> float:
    """Median time per call of ``op(obj)`` on objects made beforehand, one fresh object per call.

    For operations whose result linlayout caches on the (immutable) object:
    every timed call sees a new object, so nothing is served from a cache.
    """
    reps = []
    for _ in range(5 if quick else 9):
        objs = [make() for _ in range(n)]
        t0 = timeit.default_timer()
        for o in objs:
            op(o)
        reps.append(timeit.default_timer() - t0)
    return statistics.median(reps) / n * 1e6


def record(section: str, name: str, ours: float | None, peer: float | None, peer_name: str) -> None:
    ROWS.append((section, name, ours, peer, peer_name))
    r = f"{ours / peer:.2f}" if ours is not None and peer else "-"
    o = f"{ours:.2f}" if ours is not None else "-"
    p = f"{peer:.2f}" if peer is not None else "-"
    print(f"| {section} | {name} | {o} | {p} | {peer_name} | {r} |", flush=True)


# --------------------------------------------------------------------------- import


def bench_import(quick: bool) -> None:
    """``import linlayout`` in a fresh interpreter, minus a bare interpreter, with and without bytecode.

    An installed package has its bytecode compiled (pip does it at install time); a checkout run with
    ``PYTHONDONTWRITEBYTECODE=1`` and no ``__pycache__`` compiles every module on each import.
    """
    import os
    import tempfile

    import linlayout

    def run(code: str, env: dict[str, str]) -> float:
        ts = []
        for _ in range(5 if quick else 15):
            t0 = timeit.default_timer()
            # -S: no site-packages, so the private copy (PYTHONPATH) is imported, not an installed one
            subprocess.run([sys.executable, "-S", "-c", code], check=True, env=env, cwd=env["PYTHONPATH"])
            ts.append(timeit.default_timer() - t0)
        return statistics.median(ts) * 1e6

    import shutil

    src = os.path.dirname(linlayout.__file__)
    for label, compiled in (("bytecode compiled (us, minus bare interpreter)", True),
                            ("no bytecode: compiles its modules on each import (us)", False)):
        with tempfile.TemporaryDirectory() as tmp:
            # a private copy of the package, so that only its bytecode differs between the two runs
            shutil.copytree(src, os.path.join(tmp, "linlayout"), ignore=shutil.ignore_patterns("__pycache__"))
            env = dict(os.environ, PYTHONPATH=tmp, PYTHONDONTWRITEBYTECODE="1")
            if compiled:
                subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(tmp, "linlayout")],
                               check=True, env=env, stdout=subprocess.DEVNULL)
            base = run("pass", env)
            ours = run("import linlayout; assert linlayout.__file__.startswith(%r)" % tmp, env) - base
        record("import", f"import linlayout, {label}", ours, None, "goal < 150000")

# --------------------------------------------------------------------------- layout


BLOCKED = {  # 128x128 fp16 blocked: 8 elements per thread along dim1, 4x8 threads, 4x1 warps (14 bits)
    "register": [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]],
    "lane": [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]],
    "warp": [[4, 0], [8, 0], [0, 64]],
}
MMA = {  # mma.sync-like accumulator tiled over 128x128 with 4 warps (14 bits)
    "register": [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [64, 0]],
    "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
    "warp": [[16, 0], [32, 0]],
}
SHARED = {  # a 128B-swizzled 128x128 fp16 shared layout (14 bits)
    "offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0], [64, 0], [0, 64]],
}
OUT = {"dim0": 128, "dim1": 128}


def bench_layout(quick: bool) -> None:
    from linlayout import LinearLayout as LL

    try:
        from triton.tools import LinearLayout as TL
    except Exception as e:  # pragma: no cover - optional peer
        TL = None
        print(f"(triton not available: {type(e).__name__}: {e}; peer columns skipped)")

    ours = {k: LL(v, OUT) for k, v in (("blocked", BLOCKED), ("mma", MMA), ("shared", SHARED))}
    theirs = {}
    if TL is not None:
        theirs = {k: TL.from_bases(list(v.items()), list(OUT)) for k, v in (("blocked", BLOCKED), ("mma", MMA), ("shared", SHARED))}
        # Same answers before timing anything.
        x = {"register": 5, "lane": 17, "warp": 3}
        assert ours["blocked"].apply(x) == theirs["blocked"].apply(x)
        ic = ours["blocked"].invert_and_compose(ours["shared"])
        tic = theirs["blocked"].invert_and_compose(theirs["shared"])
        assert [list(b) for b in ic.bases["register"]] == dict(tic.bases)["register"]

    def pair(name, ours_fn, peer_fn):
        record_pair("layout", name, ours_fn, peer_fn if TL is not None else None, "triton.tools", quick)

    for name in ("blocked", "mma"):
        bases = BLOCKED if name == "blocked" else MMA
        items = list(bases.items())
        pair(f"construct {name} from bases", lambda: LL(bases, OUT), lambda: TL.from_bases(items, ["dim0", "dim1"]))
    x = {"register": 5, "lane": 17, "warp": 3}
    a, ta = ours["blocked"], theirs.get("blocked")
    pair("apply", lambda: a.apply(x), lambda: ta.apply(x))
    inv, tinv = ours["shared"].invert(), (theirs["shared"].invert() if TL else None)
    pair("compose (blocked then shared^-1)", lambda: a.compose(inv), lambda: ta.compose(tinv))
    s, ts = ours["shared"], theirs.get("shared")
    record("layout", "invert (swizzled shared; a fresh layout object per call, no cache)",
           median_us_fresh(lambda: LL(SHARED, OUT), lambda o: o.invert(), quick),
           median_us(lambda: ts.invert(), quick) if TL is not None else None, "triton.tools")
    pair("invert_and_compose (blocked, shared)", lambda: a.invert_and_compose(s), lambda: ta.invert_and_compose(ts))
    m, tm = ours["mma"], theirs.get("mma")
    pair("invert_and_compose (blocked, mma)", lambda: a.invert_and_compose(m), lambda: ta.invert_and_compose(tm))


def bench_conflicts(quick: bool) -> None:
    import numpy as np

    from linlayout import LinearLayout as LL
    from linlayout.count.closed_form import wavefronts
    from linlayout.count.simulate import simulate_access, simulate_batch

    mma, shared = LL(MMA, OUT), LL(SHARED, OUT)
    blocked = LL(BLOCKED, OUT)
    reg = {**MMA, "block": []}
    peer_call = None
    try:
        sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
        from triton_peers import gluon_bank_conflicts, make_gluon_bank_conflicts_callable

        assert gluon_bank_conflicts(reg, SHARED["offset"], [128, 128], 16) == wavefronts(mma, shared, 16, "load").conflict_ways - 1
        peer_call = make_gluon_bank_conflicts_callable(reg, SHARED["offset"], [128, 128], 16)
        peer_fresh = make_gluon_bank_conflicts_callable(reg, SHARED["offset"], [128, 128], 16, include_attr_build=True)
    except Exception as e:  # pragma: no cover - optional peer
        print(f"(gluon bank_conflicts not available: {type(e).__name__}: {e}; peer column skipped)")

    record_pair("conflicts", "closed-form count, mma vs swizzled shared (memory inverse cached)",
                lambda: wavefronts(mma, shared, 16, "load"), peer_call, "gluon bank_conflicts, prebuilt attrs", quick)
    record("conflicts", "closed-form count, fresh memory layout object per call (no cache)",
           median_us_fresh(lambda: LL(SHARED, OUT), lambda m: wavefronts(mma, m, 16, "load"), quick),
           median_us(peer_fresh, quick) if peer_call else None, "gluon bank_conflicts, attrs built in the call")
    record_pair("conflicts", "closed-form count, both layouts built from lists in the call",
                lambda: wavefronts(LL(MMA, OUT), LL(SHARED, OUT), 16, "load"), peer_fresh if peer_call else None,
                "gluon bank_conflicts, attrs built in the call", quick)
    record("conflicts", "closed-form count, blocked 128-bit store",
           median_us(lambda: wavefronts(blocked, shared, 16, "store"), quick), None, "-")
    rng = np.random.default_rng(0)
    n = 20000 if quick else 200000
    offs = rng.integers(0, 4096 // 16, (n, 32)) * 16
    t = median_us(lambda: simulate_batch("ld.shared", "load", 16, offs), True) / n
    record("conflicts", f"simulate_batch, 16-byte loads (us per access; {1e6 / t:,.0f} accesses/s)", t, None, "-")
    offs4 = rng.integers(0, 4096 // 4, (n, 32)) * 4
    t = median_us(lambda: simulate_batch("ld.shared", "load", 4, offs4), True) / n
    record("conflicts", f"simulate_batch, 4-byte loads (us per access; {1e6 / t:,.0f} accesses/s)", t, None, "-")
    one = offs[0].tolist()
    record("conflicts", "simulate_access, one 16-byte load (scalar path)",
           median_us(lambda: simulate_access("ld.shared", "load", 16, one), quick), None, "-")


def _transpose_pair(d: int):
    """A d-bit transpose problem: write lanes on the low bits of dim1, read lanes on the low bits of dim0."""
    from linlayout import LinearLayout as LL

    h = d // 2
    outs = {"dim0": 1 << h, "dim1": 1 << (d - h)}
    dim0 = [[1 << i, 0] for i in range(h)]
    dim1 = [[0, 1 << i] for i in range(d - h)]
    zero = [[0, 0]] * 5  # broadcast lanes when a dimension has fewer than 5 bits
    w = LL({"register": dim1[5:] + dim0[:max(0, h - 2)], "lane": (dim1[:5] + zero)[:5], "warp": dim0[max(0, h - 2):]}, outs)
    r = LL({"register": dim0[5:] + dim1[:max(0, d - h - 2)], "lane": (dim0[:5] + zero)[:5], "warp": dim1[max(0, d - h - 2):]}, outs)
    return w, r


def bench_synthesis(quick: bool) -> None:
    from linlayout import LinearLayout as LL
    from linlayout.synth.synthesis import optimal_swizzle

    problems = {
        "blocked -> mma, fp16 128x128": (BLOCKED, MMA, 16),
        "fp8 128x128 transpose": (None, None, 8),
    }
    import json
    from pathlib import Path

    fp8 = json.loads((Path(__file__).parents[1] / "examples" / "transpose_fp8_128x128.json").read_text())
    for name, (wb, rb, eb) in problems.items():
        if wb is None:
            def make(fp8=fp8):
                return LL.from_json(fp8["write"]), LL.from_json(fp8["read"])
        else:
            def make(wb=wb, rb=rb):
                return LL(wb, OUT), LL(rb, OUT)
        a, b = make()
        res = optimal_swizzle(a, b, eb)
        assert res.optimal
        record("synthesis", f"{name}: layouts reused (per-layout data cached)", median_us(lambda: optimal_swizzle(a, b, eb), quick),
               None, "Triton optimalSwizzlingLdSt: no binding (36-57 us quoted)")
        record("synthesis", f"{name}: fresh layout objects (no cache)",
               median_us_fresh(make, lambda p: optimal_swizzle(p[0], p[1], eb), quick, n=500), None, "-")
        record("synthesis", f"{name}: fresh objects, plus exact reports and optimality proof",
               median_us_fresh(make, lambda p: (lambda r: (r.write, r.read, r.optimal))(optimal_swizzle(p[0], p[1], eb)),
                               quick, n=200), None, "-")
    hw = _unbounded_sm90()
    for d in (8, 16, 24, 32, 48, 64, 128):
        w, r = _transpose_pair(d)
        res = optimal_swizzle(w, r, 16, hw)
        t = median_us_fresh(lambda: _transpose_pair(d), lambda p: optimal_swizzle(p[0], p[1], 16, hw), quick,
                            n=100 if d < 64 else 20)
        record("synthesis", f"scaling: {d}-bit transpose, fp16 (fresh objects; optimal={res.optimal})", t, None, "-")


def _unbounded_sm90():
    """sm90's banks with no shared-memory capacity limit: the scaling rows grow tiles far past 228 KB (up to
    2^128 elements) to measure how the time grows with the number of tensor bits, not to model a kernel."""
    import dataclasses

    from linlayout.hw import sm90

    return dataclasses.replace(sm90, name="sm90-unbounded", smem_bytes=1 << 200)


def _random_invertible(n: int, rng) -> list[int]:
    from linlayout.core import f2

    while True:
        cols = [rng.getrandbits(n) for _ in range(n)]
        if f2.rank(cols) == n:
            return cols


def bench_f2(quick: bool) -> None:
    import random

    from linlayout.core import f2

    try:
        import galois
        import numpy as np

        GF2 = galois.GF(2)
    except Exception as e:  # pragma: no cover - optional peer
        GF2 = None
        print(f"(galois not available: {type(e).__name__}: {e}; peer column skipped)")
    rng = random.Random(0)
    for n in (8, 16, 32, 64):
        a, b = _random_invertible(n, rng), _random_invertible(n, rng)
        ga = gb = None
        if GF2 is not None:
            ga, gb = GF2(f2.to_numpy(a, n)), GF2(f2.to_numpy(b, n))
            # Same answers before timing anything.
            assert int(np.linalg.matrix_rank(ga)) == f2.rank(a) == n
            assert (np.asarray(np.linalg.inv(ga)) == f2.to_numpy(f2.inverse(a), n)).all()
            assert (np.asarray(ga @ gb) == f2.to_numpy(f2.matmul(a, b), n)).all()

        def pair(name, ours_fn, peer_fn):
            record_pair("f2", name, ours_fn, peer_fn if GF2 is not None else None, "galois GF(2)", quick)

        pair(f"rank {n}x{n}", lambda: f2.rank(a), lambda: np.linalg.matrix_rank(ga))
        pair(f"inverse {n}x{n}", lambda: f2.inverse(a), lambda: np.linalg.inv(ga))
        pair(f"matrix product {n}x{n}", lambda: f2.matmul(a, b), lambda: ga @ gb)


def _tl_cases():
    """32-bit accesses given both ways: (name, linlayout query args, tensor_layouts thread -> offset layout)."""
    import tensor_layouts as tl

    from linlayout import LinearLayout as LL
    from linlayout.catalog.swizzles import cute_layout, cute_swizzle
    from linlayout.core.memory import unswizzled

    t32 = {"dim0": 32, "dim1": 32}
    rows = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]
    cols = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]
    s16 = {"dim0": 16, "dim1": 32}
    read16 = LL({"register": [[0, 2], [0, 4], [0, 8], [0, 16]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]}, s16)
    xor_m = LL({"offset": rows + [[1, 1], [2, 2], [4, 4], [8, 8]]}, s16)
    row_read8 = LL({"register": [[4, 0]], "lane": [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]]}, {"dim0": 8, "dim1": 8})
    return [
        ("32x32 fp32, row access (32 consecutive words)",
         (LL({"register": cols, "lane": rows}, t32), unswizzled([32, 32])), tl.Layout(32, 1)),
        ("32x32 fp32, column read (stride 32 words)",
         (LL({"register": rows, "lane": cols}, t32), unswizzled([32, 32])), tl.Layout(32, 32)),
        ("16x32 fp32 transpose read, 32m + n",
         (read16, unswizzled([16, 32])), tl.Layout((16, 2), (32, 1))),
        ("16x32 fp32 transpose read, 32m + (n ^ m)",
         (read16, xor_m), tl.compose(tl.Swizzle(4, 0, 5), tl.Layout((16, 2), (32, 1)))),
        ("8x8 fp32 column-major, read by rows",
         (row_read8, cute_layout((8, 8), (1, 8)).invert()), tl.Layout((8, 4), (8, 1))),
        ("8x8 fp32 read by rows, Swizzle<3,2,3>",
         (row_read8, cute_swizzle(3, 2, 3, ((8, 8), (1, 8)), units="elements")), tl.compose(tl.Swizzle(3, 2, 3), tl.Layout((8, 4), (8, 1)))),
    ]


def bench_tensor_layouts(quick: bool) -> None:
    from linlayout.count.by_simulation import lane_byte_offsets
    from linlayout.count.closed_form import wavefronts
    from linlayout.count.simulate import simulate_access

    try:
        from tensor_layouts.analysis import bank_conflicts

        cases = _tl_cases()
    except Exception as e:  # pragma: no cover - optional peer
        print(f"(tensor-layouts not available: {type(e).__name__}: {e}; section skipped)")
        return
    print("(tensor-layouts models 64- and 128-bit accesses as one group of 32 threads without passes; "
          "only 32-bit accesses are compared)")
    for name, (lay, mem), tl_layout in cases:
        r = wavefronts(lay, mem, 32, "load", vector_bits=32)
        offs = lane_byte_offsets(lay, mem, 32, "load", vector_bits=32)[0]
        theirs = bank_conflicts(tl_layout, element_bytes=4)["max_ways"]
        # Same answers, same addresses, before timing anything.
        assert theirs == r.wavefronts_per_instruction == simulate_access("ld.shared", "load", 4, offs).wavefronts, name
        assert [4 * tl_layout(t) for t in range(32)] == offs, name
        def peer():
            return bank_conflicts(tl_layout, element_bytes=4)

        record_pair("tensor_layouts", f"{name}: closed form, {r.wavefronts_per_instruction} wavefront(s)",
                    lambda: wavefronts(lay, mem, 32, "load", vector_bits=32), peer, "tensor_layouts bank_conflicts", quick)
        record_pair("tensor_layouts", f"{name}: simulate_access on the lane offsets",
                    lambda: simulate_access("ld.shared", "load", 4, offs), peer, "tensor_layouts bank_conflicts", quick)


def bench_scaling(quick: bool) -> None:
    from linlayout import LinearLayout as LL
    from linlayout.count.closed_form import wavefronts
    from linlayout.core.memory import unswizzled

    for d in (8, 16, 24, 32, 48, 64, 128):
        _, r = _transpose_pair(d)
        shape = [r.out_size("dim0"), r.out_size("dim1")]
        mem = unswizzled(shape)
        hw = _unbounded_sm90()
        rep = wavefronts(r, mem, 16, "load", hardware=hw)
        fresh_mem = median_us_fresh(lambda: LL(mem.bases, mem.out_sizes), lambda m: wavefronts(r, m, 16, "load", hardware=hw),
                                    quick, n=200 if d < 64 else 50)
        record("scaling", f"{d}-bit transpose read, fp16 ({rep.wavefronts_per_instruction} wavefronts per instruction): "
               "memory inverse cached", median_us(lambda: wavefronts(r, mem, 16, "load", hardware=hw), quick), None, "-")
        record("scaling", f"{d}-bit transpose read, fp16: fresh memory object", fresh_mem, None, "-")


# --------------------------------------------------------------------------- triton: the binding and the C++


def cpu_pair(ours: tuple[Callable, Callable], peer: tuple[Callable, Callable], quick: bool) -> tuple[float, float]:
    """Median CPU time per call (us) of two ``(make, op)`` pairs, in alternating rounds.

    ``make(k)`` builds the ``k`` arguments of a block outside the timed part (fresh objects, or one object
    repeated) and ``op(arg)`` is the timed call.  CPU time of this process (``time.process_time``), garbage
    collection off inside a block, blocks of about 15 ms, the order of the two swapped every round.
    """
    import gc
    import time

    def block(make: Callable, op: Callable, k: int) -> float:
        args = make(k)
        gc.collect()
        gc.disable()
        try:
            t0 = time.process_time()
            for a in args:
                op(a)
            return (time.process_time() - t0) / k
        finally:
            gc.enable()

    def size(make: Callable, op: Callable) -> int:
        k = 1
        while k < 1 << 18:
            t = block(make, op, k) * k
            if t >= 0.004:
                return max(1, int(k * 0.015 / t))
            k *= 4
        return k

    ks = (size(*ours), size(*peer))
    rounds = 5 if quick else 15
    to: list[float] = []
    tp: list[float] = []
    for r in range(rounds):
        if r % 2:
            tp.append(block(*peer, ks[1]))
            to.append(block(*ours, ks[0]))
        else:
            to.append(block(*ours, ks[0]))
            tp.append(block(*peer, ks[1]))
    return statistics.median(to) * 1e6, statistics.median(tp) * 1e6


def _triton_problems() -> list[tuple[str, dict, dict, int]]:
    """The five Triton SwizzleTest cases (shared reference data, when present) and the fp16 GEMM operand."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = []
    ref = root.parent / "shared" / "reference" / "triton_swizzle_cases.json"
    if ref.exists():
        out += [(c["name"], c["write"], c["read"], c["element_bits"]) for c in json.loads(ref.read_text())["cases"]]
    else:
        print(f"({ref} not found: only the GEMM problem is timed)")
    g = json.loads((root / "examples" / "gemm_fp16_operand_a.json").read_text())
    out.append(("gemm_fp16_operand_a", g["write"], g["read"], g["element_bits"]))
    return out


def bench_triton(quick: bool) -> None:
    """Side by side with Triton 3.9.0 in CPU time: the algebra against ``triton.tools.LinearLayout``, synthesis
    and two-sided counting against the C++ ``optimalSwizzlingLdSt`` / ``bankConflictsLdSt`` (ctypes)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import triton_cpp

    from linlayout import LinearLayout as LL
    from linlayout.count.closed_form import wavefronts
    from linlayout.synth.synthesis import optimal_swizzle

    reason = triton_cpp.unavailable_reason()
    if reason:
        print(f"(Triton C++ peer not available: {reason}; section skipped)")
        return
    from triton.tools import LinearLayout as TL

    names, sizes = list(OUT), list(OUT.values())

    def tl(b: dict, od: dict | None = None) -> Any:
        od = od or OUT
        dist = ("register", "lane", "warp", "block")
        dims = dist if set(b) <= set(dist) else tuple(b)
        return TL.from_bases([(d, b.get(d, [])) for d in dims], list(od), list(od.values()))

    def same(k: int, make: Callable) -> list:
        one = make()
        return [one] * k

    def row(section: str, name: str, ours: tuple, peer: tuple, peer_name: str) -> None:
        o, p = cpu_pair(ours, peer, quick)
        record(section, name, o, p, peer_name)

    # The algebra on the 14-bit layouts of the layout section; the answers are compared first.
    a, m, s = LL(BLOCKED, OUT), LL(MMA, OUT), LL(SHARED, OUT)
    ta, tm, ts = tl(BLOCKED), tl(MMA), tl(SHARED)
    x, tx = {"register": 5, "lane": 17, "warp": 3}, {"register": 5, "lane": 17, "warp": 3, "block": 0}
    assert a.apply(x) == ta.apply(tx)
    inv, tinv = s.invert(), ts.invert()
    assert [list(v) for v in a.compose(inv).bases["lane"]] == dict(ta.compose(tinv).bases)["lane"]
    ic, tic = a.invert_and_compose(m), ta.invert_and_compose(tm)
    assert [list(v) for v in ic.bases["register"]] == [v[:len(ic.out_dims)] for v in dict(tic.bases)["register"]]
    inv_b, inv_o = {k: [list(v) for v in vs] for k, vs in inv.bases.items()}, inv.out_sizes
    ib = [(d, BLOCKED.get(d, [])) for d in ("register", "lane", "warp", "block")]
    binding = "triton.tools.LinearLayout"
    none = (lambda k: [None] * k)
    row("triton", "construct from bases, surjectivity checked", (none, lambda _: LL(BLOCKED, OUT, require_surjective=True)),
        (none, lambda _: TL.from_bases(ib, names, sizes)), binding)
    row("triton", "construct from bases, no check", (none, lambda _: LL(BLOCKED, OUT)),
        (none, lambda _: TL.from_bases(ib, names, sizes, False)), binding)
    row("triton", "apply, reused object", (lambda k: [a] * k, lambda o: o.apply(x)),
        (lambda k: [ta] * k, lambda o: o.apply(tx)), binding)
    row("triton", "apply, fresh object", (lambda k: [LL(BLOCKED, OUT) for _ in range(k)], lambda o: o.apply(x)),
        (lambda k: [tl(BLOCKED) for _ in range(k)], lambda o: o.apply(tx)), binding)
    row("triton", "compose (blocked, shared^-1), reused objects", (lambda k: [a] * k, lambda o: o.compose(inv)),
        (lambda k: [ta] * k, lambda o: o.compose(tinv)), binding)
    row("triton", "compose, fresh objects",
        (lambda k: [(LL(BLOCKED, OUT), LL(inv_b, inv_o)) for _ in range(k)], lambda p: p[0].compose(p[1])),
        (lambda k: [(tl(BLOCKED), tl(inv_b, inv_o)) for _ in range(k)], lambda p: p[0].compose(p[1])), binding)
    row("triton", "invert (swizzled shared), fresh object", (lambda k: [LL(SHARED, OUT) for _ in range(k)], lambda o: o.invert()),
        (lambda k: [tl(SHARED) for _ in range(k)], lambda o: o.invert()), binding)
    row("triton", "invert_and_compose (blocked, mma), reused objects", (lambda k: [a] * k, lambda o: o.invert_and_compose(m)),
        (lambda k: [ta] * k, lambda o: o.invert_and_compose(tm)), binding)
    row("triton", "invert_and_compose (blocked, mma), fresh objects",
        (lambda k: [(LL(BLOCKED, OUT), LL(MMA, OUT)) for _ in range(k)], lambda p: p[0].invert_and_compose(p[1])),
        (lambda k: [(tl(BLOCKED), tl(MMA)) for _ in range(k)], lambda p: p[0].invert_and_compose(p[1])), binding)

    # Synthesis and counting on the six problems, against the C++ (one call each, on prebuilt arguments).
    for name, w, r, eb in _triton_problems():
        od = w["out_dims"]
        cpp = triton_cpp.LdSt(tl(w["bases"], od), tl(r["bases"], od), eb)
        t_mem = cpp.swizzle()  # Triton's own answer: vector/bank/segment/block/reps offset bits
        tb = dict(t_mem.bases)
        t_flat = [list(v) for d in ("vector", "bank", "segment", "block", "reps") for v in tb.get(d, [])]
        res = optimal_swizzle(LL.from_json(w), LL.from_json(r), eb)
        assert res.memory.is_invertible() and LL({"offset": t_flat}, od).is_invertible()

        def fresh(k: int, w: dict = w, r: dict = r) -> list:
            return [(LL.from_json(w), LL.from_json(r)) for _ in range(k)]
        row("triton", f"optimal_swizzle, {name} ({eb}-bit), fresh objects", (fresh, lambda p, eb=eb: optimal_swizzle(p[0], p[1], eb)),
            (none, lambda _, f=cpp.swizzle_call(): f()), "C++ optimalSwizzlingLdSt")
        # Triton's function solves the ld/st-only problem; linlayout's default also weighs stmatrix/ldmatrix
        # (one instruction set for swizzle, convert and lint), so the same problem is timed as well.
        ldst = ("st.shared", "ld.shared")
        row("triton", f"optimal_swizzle, {name} ({eb}-bit), fresh objects, ld/st only (Triton's problem)",
            (fresh, lambda p, eb=eb: optimal_swizzle(p[0], p[1], eb, instructions=ldst)),
            (none, lambda _, f=cpp.swizzle_call(): f()), "C++ optimalSwizzlingLdSt")
        row("triton", f"optimal_swizzle, {name} ({eb}-bit), reused objects",
            (lambda k, w=w, r=r: same(k, lambda: (LL.from_json(w), LL.from_json(r))),
             lambda p, eb=eb: optimal_swizzle(p[0], p[1], eb)),
            (none, lambda _, f=cpp.swizzle_call(): f()), "C++ optimalSwizzlingLdSt")
        lw, lr = LL.from_json(w), LL.from_json(r)
        row("triton", f"count both sides (2 x wavefronts), {name}, Triton's memory, fresh memory object",
            (lambda k, t_flat=t_flat, od=od: [LL({"offset": t_flat}, od) for _ in range(k)],
             lambda mem, lw=lw, lr=lr, eb=eb: (wavefronts(lw, mem, eb, "store"), wavefronts(lr, mem, eb, "load"))),
            (none, lambda _, f=cpp.conflicts_call(t_mem): f()), "C++ bankConflictsLdSt")


SECTIONS = {"import": bench_import, "layout": bench_layout, "synthesis": bench_synthesis, "conflicts": bench_conflicts,
            "f2": bench_f2, "tensor_layouts": bench_tensor_layouts, "scaling": bench_scaling, "triton": bench_triton}


# --------------------------------------------------------------------------- convert


def bench_convert(quick: bool) -> None:
    """Planning time of ``plan_conversion`` per conversion (fresh layout objects, nothing cached)."""
    from linlayout import LinearLayout as LL
    from linlayout.catalog.constructors import blocked, mma
    from linlayout.convert.plan import plan_conversion

    lanes = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]
    cases = {
        "32x2 fp32 transpose in a warp (shuffles)": (
            lambda: (LL({"register": [[0, 1]], "lane": lanes}, {"dim0": 32, "dim1": 2}),
                     LL({"register": [[1, 0]], "lane": [[0, 1]] + lanes[1:]}, {"dim0": 32, "dim1": 2})), 32),
        "mma C -> blocked, fp16 64x64, 4 warps (shared memory)": (
            lambda: (mma("C", (64, 64), warps_per_cta=(2, 2)), blocked([64, 64], [1, 4], [4, 8], [4, 1], [1, 0])), 16),
        "blocked -> blocked vec8, fp16 32x32, 1 warp (shuffles vs shared)": (
            lambda: (blocked([32, 32], [1, 4], [4, 8], [1, 1], [1, 0]), blocked([32, 32], [1, 8], [8, 4], [1, 1], [1, 0])), 16),
    }
    for name, (make, eb) in cases.items():
        record("convert", f"plan_conversion: {name}, fresh objects",
               median_us_fresh(make, lambda p, eb=eb: plan_conversion(p[0], p[1], eb), quick, n=20 if quick else 50),
               None, "Triton: no Python binding")


SECTIONS["convert"] = bench_convert

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats (for a smoke run)")
    ap.add_argument("--only", nargs="+", choices=sorted(SECTIONS), help="run only these sections")
    args = ap.parse_args(argv)
    try:
        import triton

        tv = triton.__version__
    except Exception:
        tv = "not installed"
    cpu = platform.processor() or "cpu"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    versions = []
    for pkg in ("numpy", "galois", "tensor-layouts"):
        try:
            from importlib.metadata import version

            versions.append(f"{pkg} {version(pkg)}")
        except Exception:
            versions.append(f"{pkg} not installed")
    print(f"machine: {platform.machine()}, {cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"triton {tv}, {', '.join(versions)}")
    print("| section | operation | linlayout (us) | peer (us) | peer | ratio |")
    print("|---|---|---|---|---|---|")
    for name in args.only or list(SECTIONS):
        SECTIONS[name](args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
