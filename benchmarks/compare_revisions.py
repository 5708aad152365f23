"""Time two revisions of linlayout against each other, in one run.

Usage::

    python benchmarks/compare_revisions.py OLD NEW [--rounds 7] [--only NAME ...]

``OLD`` and ``NEW`` are git revisions (``HEAD``, a branch, a commit), ``.``
for the working tree, or a directory that holds a ``linlayout`` package (for a
machine without the repository's history, such as a copy of the working tree
on another host).  Each revision is exported with ``git archive`` into a
temporary directory; then, round after round, the two are timed in
*alternating* fresh interpreters (OLD, NEW, OLD, NEW, ...) on the same
workload, so a machine whose speed drifts during the run slows both alike.
Each round reports the CPU time per call (``time.process_time``) of every
operation; the table prints the median over rounds and the ratio NEW / OLD
(below 1.0: the new revision is faster).

The workload uses only the API that every revision since the first release
has at the top of the package: ``LinearLayout``, ``wavefronts``,
``optimal_swizzle`` and ``unswizzled``.  The problems are the six of the
benchmark (the five Triton ``SwizzleTest`` cases of
``../shared/reference/triton_swizzle_cases.json`` when that file exists, and
``examples/gemm_fp16_operand_a.json``).  "fresh" rows build the layout
objects outside the timed call and never reuse them, as a compiler pass that
meets a layout for the first time; "reused" rows call again on the same
objects.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT.parent / "shared" / "reference" / "triton_swizzle_cases.json"

WORKER = r'''
import json, sys, time
from linlayout import LinearLayout, optimal_swizzle, unswizzled, wavefronts

problems = json.loads(sys.argv[1])
only = set(json.loads(sys.argv[2]))
target = float(sys.argv[3])

def lay(o):
    return LinearLayout(o["bases"], o["out_dims"])

def per_call(make, call):
    """CPU seconds per call: repeat (make outside the clock, call inside) until ``target`` s."""
    spent, n = 0.0, 0
    while spent < target or n < 3:
        args = make()
        t0 = time.process_time()
        call(*args)
        spent += time.process_time() - t0
        n += 1
    return spent / n

out = {}
for p in problems:
    name, eb, ins = p["name"], p["element_bits"], p.get("instructions")
    def fresh():
        return lay(p["write"]), lay(p["read"])
    W0, R0 = fresh()
    mem = unswizzled([W0.out_size(d) for d in W0.out_dims])
    rows = {
        "optimal_swizzle fresh": (fresh, lambda W, R: optimal_swizzle(W, R, eb, instructions=ins)),
        "optimal_swizzle reused": (lambda: (W0, R0), lambda W, R: optimal_swizzle(W, R, eb, instructions=ins)),
        "wavefronts both sides fresh": (
            lambda: (fresh(), unswizzled([W0.out_size(d) for d in W0.out_dims])),
            lambda WR, M: (wavefronts(WR[0], M, eb, "store"), wavefronts(WR[1], M, eb, "load")),
        ),
        "construct": (lambda: (p["write"],), lambda o: lay(o)),
        "compose reused": (lambda: (W0, R0), lambda W, R: W.invert_and_compose(R)),
    }
    for op, (make, call) in rows.items():
        if only and op.split()[0] not in only:
            continue
        out[f"{op} [{name}]"] = per_call(make, call)
print(json.dumps(out))
'''


def problems(cases: Path = CASES) -> list[dict]:
    probs = []
    if cases.exists():
        data = json.loads(cases.read_text())
        for c in data["cases"] if isinstance(data, dict) else data:
            probs.append({"name": c.get("name", f"case{len(probs)}"), "write": c["write"], "read": c["read"],
                          "element_bits": c["element_bits"]})
    q = json.loads((ROOT / "examples" / "gemm_fp16_operand_a.json").read_text())
    probs.append({"name": "gemm_fp16_operand_a", "write": q["write"], "read": q["read"],
                  "element_bits": q["element_bits"], "instructions": q.get("instructions")})
    return probs


def export(rev: str, into: Path) -> Path:
    """The package of ``rev`` (``.``: the working tree; a directory holding ``linlayout/``: that directory) as an
    importable directory."""
    if rev == ".":
        return ROOT
    if (Path(rev) / "linlayout").is_dir():
        return Path(rev).resolve()
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "linlayout"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seconds", type=float, default=0.05, help="CPU seconds per operation per round")
    ap.add_argument("--only", nargs="*", default=[], help="first word of the rows to run (e.g. optimal_swizzle)")
    ap.add_argument("--cases", type=Path, default=CASES, help="Triton's SwizzleTest cases (default: ../shared/reference)")
    args = ap.parse_args(argv)
    probs = json.dumps(problems(args.cases))
    with tempfile.TemporaryDirectory() as tmp:
        trees = {rev: export(rev, Path(tmp) / f"t{i}") for i, rev in enumerate((args.old, args.new))}
        samples: dict[str, dict[str, list[float]]] = {args.old: {}, args.new: {}}
        for _ in range(args.rounds):
            for rev, tree in trees.items():
                env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
                res = subprocess.run([sys.executable, "-c", WORKER, probs, json.dumps(args.only), str(args.seconds)],
                                     env=env, cwd=tmp, check=True, capture_output=True, text=True)
                for op, t in json.loads(res.stdout).items():
                    samples[rev].setdefault(op, []).append(t)
    print(f"# {args.old} vs {args.new}: median CPU us per call over {args.rounds} alternating rounds; "
          f"ratio = {args.new} / {args.old}")
    print(f"{'operation [problem]':58s} {args.old[:12]:>12s} {args.new[:12]:>12s} {'ratio':>6s}")
    ratios = []
    for op, old in samples[args.old].items():
        new = samples[args.new].get(op)
        if not new:
            continue
        a, b = statistics.median(old) * 1e6, statistics.median(new) * 1e6
        ratios.append(b / a)
        print(f"{op:58s} {a:12.1f} {b:12.1f} {b / a:6.2f}")
    if ratios:
        print(f"# geometric mean ratio {statistics.geometric_mean(ratios):.2f} over {len(ratios)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
