"""How long ``plan_conversion`` takes on a realistic corpus, and the multi-step search beside it.

The corpus is the Triton-style pairs of ``tools/convert_triton39_check.py``
restricted to compiler layouts (blocked, mma, dot operand, sliced; no random
linear layouts), 1-8 warps, 8-64-bit, tiles up to 128x128 (and a few
256x256 on 8 warps).  Each pair is planned once, in one process (the
package's memos stay warm across pairs, as in a compiler, but no pair is
timed twice), in CPU time (``time.process_time``: other processes on the
machine do not count); then the same pair with ``multistep=True`` (its
one-step part then hits the memos the first plan filled, as it would in the
planner).  Prints the medians, the 90th percentiles and the slowest pairs.

``--one-step`` times ``plan_conversion(..., multistep=False)`` as the first plan instead of the default
(the two-step search is on by default since the sixth round of issue 27; a base from before it planned one
step by default), so that one-step planning compares across revisions.

``--kernels`` times the conversions of real kernels instead of the random pairs: every distinct
``convert_layout`` (source layout, destination layout, element width) of the Triton 3.9 and 3.6 TTGIR under
``tests/data/ttgir39`` and ``tests/data/ttgir36`` (Triton's tutorials and the test kernels), as ``linlayout lint``
reads them (:func:`kernel_corpus`).  The lint runs in a separate process and hands the layouts over as JSON,
so the timed process plans each of them for the first time on new objects, warmed as for the random pairs.

``--base DIR`` compares against another checkout (an exported base
revision): ``--rounds`` fresh processes of each, alternating base and this
tree, and every pair's time is its median over the rounds, and each pair's
ratio to the base (this tree over the base) is summarised too; ``--out``
writes the report.

    git archive BASE | tar -x -C /tmp/base
    python benchmarks/convert_plan_speed.py --pairs 120 --base /tmp/base --rounds 3 --out benchmarks/results/convert_plan_speed.txt
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REALISTIC = {"blocked", "mma", "dot", "sliced"}


def corpus(n: int, seed: int):
    """``n`` pairs of compiler layouts (no random linear layouts)."""
    sys.path.insert(0, str(ROOT / "tools"))
    from convert_triton39_check import pairs
    out = []
    k = 0
    while len(out) < n:
        for p in pairs(4 * n, seed + k):
            if set(p[1]) <= REALISTIC:
                out.append(p)
                if len(out) == n:
                    break
        k += 1
    return out


KERNEL_DIRS = ("tests/data/ttgir39", "tests/data/ttgir36")


def kernel_conversions(root: Path = ROOT) -> list[dict]:
    """The distinct conversions of the kernels under :data:`KERNEL_DIRS` as JSON-ready rows (name: the first file and
    op location that has it; ``src``/``dst``: the layouts' ``to_dict()``), linted with ``root``'s linlayout."""
    sys.path.insert(0, str(root))
    from linlayout import lint_text
    seen: dict[str, dict] = {}
    for d in KERNEL_DIRS:
        for f in sorted((root / d).glob("*.ttgir")):
            for op in lint_text(f.read_text()).ops:
                if op.kind != "convert" or op.layouts is None:
                    continue
                src, dst = (L.to_dict() for L in op.layouts)
                key = json.dumps([src, dst, op.element_bits], sort_keys=True)
                seen.setdefault(key, {"name": f"{f.parent.name}/{f.stem}@{op.location.rsplit(':', 2)[-2]}",
                                      "src": src, "dst": dst, "bits": op.element_bits})
    return list(seen.values())


def kernel_corpus():
    """The conversions of :func:`kernel_conversions`, linted in another process (its planning fills no memo or
    table of this one), as :func:`corpus` rows with new layout objects."""
    from linlayout.core.layout import LinearLayout
    out = subprocess.run([sys.executable, __file__, "--dump-kernels"], check=True, capture_output=True, text=True,
                         cwd=ROOT).stdout
    rows = []
    for r in json.loads(out):
        src, dst = (LinearLayout(r[k]["bases"], r[k]["out_dims"]) for k in ("src", "dst"))
        rows.append((r["name"], ["kernel"], src, dst, r["bits"], src.in_sizes.get("warp", 1)))
    return rows


def quantile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def measure(root: Path, n: int, seed: int, one_step: bool = False, kernels: bool = False) -> list[dict]:
    """Every pair's CPU milliseconds and paths, with ``linlayout`` imported from ``root`` (``one_step``: the first
    plan with ``multistep=False``; ``kernels``: the pairs of :func:`kernel_corpus` instead of ``n`` random ones)."""
    sys.path.insert(0, str(root))
    from linlayout.convert.plan import plan_conversion  # from ``root``: before the tools put this tree on the path
    from linlayout.errors import InputError

    def timed(fn) -> tuple[float, str]:
        t0 = time.process_time()
        try:
            path = fn().path
        except InputError:
            path = "error"
        return 1000 * (time.process_time() - t0), path

    for warm in corpus(4, seed + 1000):  # imports and module-level tables (numpy, the synthesizer's policies)
        plan_conversion(*warm[2:5])
    rows = []
    for name, kinds, src, dst, bits, warps in (kernel_corpus() if kernels else corpus(n, seed)):
        first = {"multistep": False} if one_step else {}
        one, path = timed(lambda: plan_conversion(src, dst, bits, **first))
        two, mpath = timed(lambda: plan_conversion(src, dst, bits, multistep=True))
        rows.append({"name": name, "one": one, "two": two, "path": path, "mpath": mpath})
    return rows


def summary(rows: list[dict]) -> list[str]:
    ones, twos = [r["one"] for r in rows], [r["two"] for r in rows]
    return [f"plan_conversion: median {statistics.median(ones):.2f} ms, p90 {quantile(ones, 0.9):.2f} ms, "
            f"max {max(ones):.1f} ms",
            f"plan_conversion(multistep=True): median {statistics.median(twos):.2f} ms, p90 {quantile(twos, 0.9):.2f} ms, "
            f"max {max(twos):.1f} ms; multi-step plans chosen: {sum(r['mpath'] == 'multistep' for r in rows)}",
            "slowest: " + ", ".join(f"{r['name']} {r['one']:.0f} ms" for r in sorted(rows, key=lambda r: -r["one"])[:5])]


def run_rounds(roots: dict[str, Path], n: int, seed: int, rounds: int, one_step: bool = False,
               kernels: bool = False) -> dict[str, list[dict]]:
    """Fresh processes, alternating the checkouts; every pair's times are its medians over the rounds."""
    runs: dict[str, list[list[dict]]] = {k: [] for k in roots}
    for _ in range(rounds):
        for label, root in roots.items():
            out = subprocess.run([sys.executable, __file__, "--pairs", str(n), "--seed", str(seed), "--root", str(root),
                                  "--json"] + (["--one-step"] if one_step else []) + (["--kernels"] if kernels else []),
                                 check=True, capture_output=True, text=True).stdout
            runs[label].append(json.loads(out))
    merged = {}
    for label, rr in runs.items():
        merged[label] = [dict(r, one=statistics.median(x[i]["one"] for x in rr),
                              two=statistics.median(x[i]["two"] for x in rr)) for i, r in enumerate(rr[0])]
    return merged


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=120)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--root", default=str(ROOT), help="checkout whose linlayout is timed")
    ap.add_argument("--base", help="another checkout to time against, alternating rounds")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print the per-pair rows as JSON (one process, one round)")
    ap.add_argument("--one-step", action="store_true", help="time the first plan with multistep=False")
    ap.add_argument("--kernels", action="store_true", help="time the conversions of the kernels under tests/data")
    ap.add_argument("--dump-kernels", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.dump_kernels:  # kernel_corpus's other process
        print(json.dumps(kernel_conversions()))
        return 0
    if args.json:
        print(json.dumps(measure(Path(args.root), args.pairs, args.seed, args.one_step, args.kernels)))
        return 0
    roots = {"base": Path(args.base), "this tree": Path(args.root)} if args.base else {"this tree": Path(args.root)}
    results = run_rounds(roots, args.pairs, args.seed, args.rounds, args.one_step, args.kernels)
    rows = results["this tree"]
    paths: dict[str, int] = {}
    for r in rows:
        paths[r["path"]] = paths.get(r["path"], 0) + 1
    what = ("the distinct convert_layout ops of the kernels under " + " and ".join(KERNEL_DIRS) if args.kernels
            else "blocked, mma, dot operand, sliced; 1-8 warps; 8-64-bit")
    lines = [f"{len(rows)} conversions ({what}), one plan each per "
             f"process, CPU time, median of {args.rounds} rounds" + (" alternating with the base" if args.base else ""),
             "paths: " + ", ".join(f"{k} {v}" for k, v in sorted(paths.items()))]
    if args.one_step:
        lines.append("first plan: plan_conversion(..., multistep=False) (one step)")
    for label, rr in results.items():
        lines += [f"[{label}]"] + summary(rr)
    if args.base:
        same = all(a["path"] == b["path"] and a["mpath"] == b["mpath"] for a, b in zip(results["base"], rows))
        lines.append(f"same paths as the base on every pair: {same}")
        for key, what in (("one", "plan_conversion"), ("two", "multistep=True")):
            ratios = [b[key] / a[key] for a, b in zip(results["base"], rows) if a[key] > 0]
            lines.append(f"per-pair ratio this tree / base, {what}: median {statistics.median(ratios):.2f}, "
                         f"p90 {quantile(ratios, 0.9):.2f}, max {max(ratios):.2f}")
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
