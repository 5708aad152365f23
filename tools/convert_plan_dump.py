"""Dump the plans ``plan_conversion`` chooses on fixed corpora, to check that a speed-up changes no answer.

Two corpora: the realistic pairs of ``benchmarks/convert_plan_speed.py`` and
the generated Triton-style pairs of ``tools/convert_triton39_check.py``
(random linear layouts included).  For every pair it records the chosen
path, per-thread instructions, wavefronts, cost, reps, scratch bytes, the
shuffle lower bound and program, the conversion map's columns, every alternative's path and cost (and
with ``--multistep`` the multi-step plan's steps), as one JSON line.  ``--root`` imports the
package from another checkout (e.g. an exported base revision), so

    git archive BASE | tar -x -C /tmp/base
    python tools/convert_plan_dump.py --root /tmp/base --out /tmp/base.jsonl
    python tools/convert_plan_dump.py --out /tmp/new.jsonl
    python tools/convert_plan_dump.py --compare /tmp/base.jsonl /tmp/new.jsonl

prints every pair whose plan differs (and exits 1 if any does).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def plan_record(plan_conversion, error_type, src, dst, bits: int, multistep: bool) -> dict:
    """The fields of a plan that must not change (or the error it raised)."""
    try:
        p = plan_conversion(src, dst, bits, multistep=multistep)
    except error_type as e:
        return {"error": f"{type(e).__name__}: {e}"}
    return {"path": p.path, "instructions": dict(sorted(p.instructions.items())), "wavefronts": p.wavefronts,
            "cost": p.cost, "reps": p.reps, "scratch_bytes": p.scratch_bytes, "shuffle_lower_bound": p.shuffle_lower_bound,
            "shuffles": None if p.shuffles is None else [p.shuffles.strategy, dict(p.shuffles.counts)],
            "steps": [[q.path, q.cost] for _, q in p.steps] if p.steps else None,
            "conversion_map": [list(p.conversion.columns), list(p.conversion.levels)],
            "alternatives": [[a.path, a.cost, a.reps, a.scratch_bytes] for a in p.alternatives]}


def dump(root: Path, speed_pairs: int, check_pairs: int, multistep: bool, out: Path) -> None:
    sys.path.insert(0, str(root))
    import linlayout  # imported from ``root`` first: the helper scripts below put this checkout on the path
    print(f"linlayout from {Path(linlayout.__file__).parent}", file=sys.stderr)
    sys.path.insert(0, str(ROOT / "tools"))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from convert_plan_speed import corpus
    from convert_triton39_check import pairs

    from linlayout.convert.plan import plan_conversion
    from linlayout.errors import InputError
    rows = [("speed",) + p for p in corpus(speed_pairs, 5)] + [("t39",) + p for p in pairs(check_pairs, 39)]
    with out.open("w") as f:
        for tag, name, _, src, dst, bits, _ in rows:
            rec = {"pair": f"{tag}:{name}", "plan": plan_record(plan_conversion, InputError, src, dst, bits, False)}
            if multistep:
                rec["multistep"] = plan_record(plan_conversion, InputError, src, dst, bits, True)
            f.write(json.dumps(rec, sort_keys=True) + "\n")


def compare(a: Path, b: Path) -> int:
    """Print the pairs whose records differ; 1 if any does (or the pair lists differ), else 0."""
    ra = [json.loads(line) for line in a.read_text().splitlines()]
    rb = [json.loads(line) for line in b.read_text().splitlines()]
    if [r["pair"] for r in ra] != [r["pair"] for r in rb]:
        print("the dumps hold different pairs")
        return 1
    bad = [(x, y) for x, y in zip(ra, rb) if x != y]
    for x, y in bad:
        print(x["pair"], "\n  ", x, "\n  ", y)
    print(f"{len(ra)} pairs, {len(bad)} differ")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(ROOT), help="checkout whose linlayout is imported")
    ap.add_argument("--speed-pairs", type=int, default=120)
    ap.add_argument("--check-pairs", type=int, default=300)
    ap.add_argument("--multistep", action="store_true", help="also dump the multistep=True plans")
    ap.add_argument("--out")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"))
    args = ap.parse_args()
    if args.compare:
        return compare(Path(args.compare[0]), Path(args.compare[1]))
    dump(Path(args.root), args.speed_pairs, args.check_pairs, args.multistep, Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
