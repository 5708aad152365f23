"""Instructions per call of synthesis and counting, stage by stage, under callgrind (load-independent).

On a machine shared with other jobs, CPU times drift by tens of percent within a minute, so decisions
about the hot paths of ``optimal_swizzle`` and ``wavefronts`` are taken on instruction counts instead:
each stage runs ``--calls`` times per problem in a fresh interpreter under
``valgrind --tool=callgrind``, once with the stage and once without it (same objects built, same
imports), and the difference divided by the number of calls is the stage's cost.  The problems are the
peer script's six (``../shared/tools/triton_cpp_peer.py``): Triton's five ``SwizzleTest`` cases and
``examples/gemm_fp16_operand_a.json``; the counts use linlayout's own optimal memory (the peer script
counts on the memory Triton's C++ chose, so its counting costs may differ a little from these).

Usage (from the project root; needs valgrind, about a minute per stage)::

    PYTHONPATH=. python benchmarks/callgrind_stages.py [--calls 100] [stage ...]

Stages: ``synthesis`` (``optimal_swizzle`` on fresh layouts, what the peer script times),
``problem`` (the query checked and both sides read off fresh layouts), ``sides`` (the two
:func:`~linlayout.synth.sides.side_of` calls alone), ``search`` (the search on a built problem);
``count_pair`` (both sides counted on a fresh memory, what the peer script times), ``count_reused``
(one side on a memory already counted), ``plan`` (:func:`~linlayout.count.plan.plan_access` alone, memory
already inverted), ``count_plan`` (the closed form on a plan), ``inverse`` (:func:`linlayout.core.f2.inverse`
of the memory's columns), ``offsets`` (the layout's bases through the cached inverse), ``widest_vector``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT.parent / "shared" / "reference" / "triton_swizzle_cases.json"
STAGES = ("synthesis", "problem", "sides", "search", "count_pair", "count_reused", "plan", "count_plan", "inverse",
          "offsets", "widest_vector")


def problems() -> list[tuple[dict, dict, int]]:
    out = []
    if CASES.exists():
        out = [(c["write"], c["read"], c["element_bits"]) for c in json.loads(CASES.read_text())["cases"]]
    g = json.loads((ROOT / "examples" / "gemm_fp16_operand_a.json").read_text())
    return out + [(g["write"], g["read"], g["element_bits"])]


def work(stage: str, calls: int) -> list:
    """Per problem, ``(arguments, operation)``: the arguments are built here (not counted), one per call."""
    from linlayout import LinearLayout as LL
    from linlayout.core import f2
    from linlayout.count.closed_form import count_plan, wavefronts
    from linlayout.count.offsets import offsets_through_inverse
    from linlayout.count.plan import plan_access, vector_cap, widest_vector
    from linlayout.hw import get_hardware
    from linlayout.synth.policy import DEFAULT_OBJECTIVE
    from linlayout.synth.sides import side_of
    from linlayout.synth.synthesis import optimal_swizzle, search, swizzle_problem

    hw = get_hardware("sm90")
    out = []
    for w, r, eb in problems():
        def fresh(w=w, r=r):
            return [(LL.from_json(w), LL.from_json(r)) for _ in range(calls)]
        lw, lr = LL.from_json(w), LL.from_json(r)
        memory = optimal_swizzle(lw, lr, eb).memory  # also warms the per-shape memos
        bases = {k: [list(v) for v in vs] for k, vs in memory.bases.items()}
        wavefronts(lw, memory, eb, "store"), wavefronts(lr, memory, eb, "load")
        plan = plan_access(lr, memory, eb, "load")
        same = [None] * calls
        if stage == "synthesis":
            out.append((fresh(), lambda q, eb=eb: optimal_swizzle(q[0], q[1], eb)))
        elif stage == "problem":
            out.append((fresh(), lambda q, eb=eb: swizzle_problem(q[0], q[1], eb, "sm90", DEFAULT_OBJECTIVE, None, None)))
        elif stage == "sides":
            out.append((fresh(), lambda q: (side_of("write", "store", q[0], hw, q[0].out_dim_bits),
                                            side_of("read", "load", q[1], hw, q[0].out_dim_bits))))
        elif stage == "search":
            p = swizzle_problem(lw, lr, eb, "sm90", DEFAULT_OBJECTIVE, None, None)
            out.append((same, lambda _, p=p: search(p)))
        elif stage == "count_pair":
            out.append(([LL(bases, w["out_dims"]) for _ in range(calls)],
                        lambda m, lw=lw, lr=lr, eb=eb: (wavefronts(lw, m, eb, "store"), wavefronts(lr, m, eb, "load"))))
        elif stage == "count_reused":
            out.append((same, lambda _, m=memory, lr=lr, eb=eb: wavefronts(lr, m, eb, "load")))
        elif stage == "plan":
            out.append((same, lambda _, m=memory, lr=lr, eb=eb: plan_access(lr, m, eb, "load")))
        elif stage == "count_plan":
            out.append((same, lambda _, p=plan, lr=lr: count_plan(p, lr)))
        elif stage == "inverse":
            out.append((same, lambda _, cols=memory.flat_columns(): f2.inverse(cols)))
        elif stage == "offsets":
            out.append((same, lambda _, m=memory, lr=lr: offsets_through_inverse(lr, m)))
        elif stage == "widest_vector":
            out.append((same, lambda _, o=plan.offsets, cap=vector_cap(eb, hw): widest_vector(o, cap)))
    return out


def child(stage: str, calls: int, run: bool) -> None:
    """Build the stage's objects and, when ``run``, call the stage on each (the measured process)."""
    warnings.simplefilter("ignore")
    import gc

    jobs = work(stage, calls)
    gc.disable()  # as the peer script times (and collections would not be the stage's)
    if run:
        for args, op in jobs:
            for a in args:
                op(a)


def instructions(stage: str, calls: int, run: bool) -> int:
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
           "--child", stage, "--calls", str(calls)] + (["--run"] if run else [])
    err = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stderr
    return int(re.search(r"refs:\s*([\d,]+)", err).group(1).replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("stages", nargs="*", help=f"any of {', '.join(STAGES)} (default: all)")
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--child")
    ap.add_argument("--run", action="store_true")
    a = ap.parse_args()
    if a.child:
        return child(a.child, a.calls, a.run)
    unknown = set(a.stages) - set(STAGES)
    if unknown:
        ap.error(f"unknown stages {sorted(unknown)}; choose from {', '.join(STAGES)}")
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed")
    n = len(problems()) * a.calls
    for stage in a.stages or STAGES:
        per_call = (instructions(stage, a.calls, True) - instructions(stage, a.calls, False)) / n
        print(f"{stage:14s} {per_call / 1000:8.1f}k instructions per call", flush=True)


if __name__ == "__main__":
    main()
