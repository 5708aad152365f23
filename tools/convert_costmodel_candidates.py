"""Compare cost models on the H100 timings: which features and fits order a conversion's plans as the clock does.

The cost model in ``linlayout/convert/cost.py`` is a sum of per-warp counts
times weights (``tools/convert_costmodel_fit.py``).  This tool asks whether
another model, still computed from what a plan knows, ranks better: each
*candidate* is a feature set (a function from a timed variant to named
counts) and each is fitted two ways,

* ``relative`` -- least squares of the relative error of every variant's
  cycles (the fit ``cost.py`` takes), and
* ``pairs`` -- the same rows plus, for every pair of plans of one
  conversion, the difference of their predictions against the difference of
  their cycles (relative to the pair's mean): the ranking is about
  differences, and the loop's own work cancels in them.

Every instruction weighs at least one issue slot (a quarter SM cycle); the
loop's own work (``harness``) is a feature of every candidate, fitted but not
part of a planner's model.  Reported, over the pairs of one conversion whose
cycles differ by more than 10%: the fit set (in sample), 5-fold and
leave-one-conversion-out cross-validation, with fitted weights and with
weights rounded to quarter cycles as ``cost.py`` needs them; on the
harness's 240 conversions alone and with the 38 8-bit more-reps pairs.

Candidates marked *oracle* use what only the compiled kernel knows
(``ptxas`` registers): an upper bound on what a feature of that kind could
buy, not a model the planner can use.

    python tools/convert_costmodel_candidates.py benchmarks/results/convert_costmodel   # a few minutes

Writes ``candidates.md`` and ``candidates.json`` there.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from convert_costmodel_fit import (ISSUE_FLOOR, folds, measured, measured_more_reps, nnls, ranking,  # noqa: E402
                                   variant_features)

INSTRUCTIONS = ("selp", "prmt", "mov", "alu", "shfl", "st", "ld", "smi", "bar", "wbar")
"""Features that count instructions (each weighs at least :data:`ISSUE_FLOOR`); ``op_<width>`` splits one by width.
Other features (``warps_x_bar``, ``chain_of_selects``, ...) may weigh 0."""


def counts(v: dict) -> dict[str, float]:
    """The plan's counts of a variant, per thread (instructions) and per warp (wavefronts), executed barriers."""
    alu, shfl, smi, wf, bar, wbar, spill, harness = variant_features(v)
    ins = v["instructions"]
    side = lambda *ops: sum(n for op, n in ins.items() if op.split(".")[0] in ops)  # noqa: E731
    wv = v["wavefronts"] or {"write": 0, "read": 0}
    return {"selp": ins.get("selp", 0), "prmt": ins.get("prmt", 0), "mov": ins.get("mov", 0), "alu": alu,
            "shfl": shfl, "smi": smi, "st": side("st", "stmatrix"), "ld": side("ld", "ldmatrix"), "wf": wf,
            "wf_write": wv["write"], "wf_read": wv["read"], "bar": bar, "wbar": wbar, "spill": spill,
            "harness": harness}


def by_width(c: dict, v: dict, ops: tuple[str, ...], groups: dict[str, tuple[int, ...]]) -> dict[str, float]:
    """``ops`` split by element width: ``op_<group>`` is ``op``'s count where the element width is in the group."""
    out = {k: x for k, x in c.items() if k not in ops}
    for op in ops:
        for name, widths in groups.items():
            out[f"{op}_{name}"] = c[op] if v["element_bits"] in widths else 0
    return out


BASE = ("alu", "shfl", "smi", "wf", "bar", "wbar", "spill", "harness")
NARROW_WIDE = {"narrow": (8, 16), "wide": (32, 64)}
EACH_WIDTH = {"b8": (8,), "b16": (16,), "b32": (32,), "b64": (64,)}


def pick(c: dict, names: tuple[str, ...]) -> dict[str, float]:
    return {k: c[k] for k in names}


CANDIDATES: dict[str, Callable[[dict], dict[str, float]]] = {
    "cost.py's features": lambda v: pick(counts(v), BASE),
    "ALU classes (selp, prmt, mov)":
        lambda v: pick(counts(v), ("selp", "prmt", "mov") + BASE[1:]),
    "wavefronts write/read, st/ld apart":
        lambda v: pick(counts(v), ("alu", "shfl", "st", "ld", "wf_write", "wf_read", "bar", "wbar", "spill",
                                   "harness")),
    "shfl by width (8/16 vs 32/64-bit)": lambda v: by_width(pick(counts(v), BASE), v, ("shfl",), NARROW_WIDE),
    "ALU classes and shfl, each per width (8, 16, 32, 64)":
        lambda v: by_width(pick(counts(v), ("selp", "prmt", "mov") + BASE[1:]), v, ("selp", "prmt", "mov", "shfl"),
                           EACH_WIDTH),
    "bar.sync per warp of the CTA": lambda v: {**pick(counts(v), BASE), "warps_x_bar": counts(v)["bar"] * v["warps"]},
    "scratch bytes (occupancy)":
        lambda v: {**pick(counts(v), BASE),
                   "scratch_kb": v["scratch_bytes"] / 1024 if v["path"] == "shared_memory" else 0},
    "select chain (selp^2 / destination registers)":
        lambda v: {**pick(counts(v), BASE), "chain_of_selects": counts(v)["selp"] ** 2 / max(1, v["dst_registers"])},
    "a constant per path (latency of a round trip)":
        lambda v: {**pick(counts(v), BASE), "is_shuffles": float(v["path"] == "shuffles"),
                   "is_shared_memory": float(v["path"] == "shared_memory")},
    "oracle: ptxas registers per thread": lambda v: {**pick(counts(v), BASE), "registers": v.get("registers", 0)},
}


def floors(names: list[str]) -> np.ndarray:
    return np.array([ISSUE_FLOOR if n.split("_")[0] in INSTRUCTIONS else 0.0 for n in names])


def matrix(rows: list[dict], candidate) -> tuple[list[str], np.ndarray]:
    feats = [candidate(v) for v in rows]
    names = list(feats[0])
    return names, np.array([[f[n] for n in names] for f in feats], dtype=float)


def same_conversion_pairs(rows: list[dict]) -> list[tuple[int, int]]:
    by: dict[int, list[int]] = {}
    for i, v in enumerate(rows):
        by.setdefault(v["index"], []).append(i)
    return [(a, b) for ix in by.values() for k, a in enumerate(ix) for b in ix[k + 1:]]


def fit_candidate(rows: list[dict], candidate, objective: str) -> dict[str, float]:
    """Weights (SM cycles per unit, by feature name) of one candidate under one objective."""
    names, X = matrix(rows, candidate)
    cyc = np.array([v["cycles"] for v in rows])
    A, b = X / cyc[:, None], np.ones(len(rows))
    if objective == "pairs":
        P = same_conversion_pairs(rows)
        mean = np.array([(cyc[i] + cyc[j]) / 2 for i, j in P])
        A = np.vstack([A, np.array([X[i] - X[j] for i, j in P]) / mean[:, None]])
        b = np.concatenate([b, np.array([cyc[i] - cyc[j] for i, j in P]) / mean])
    lo = floors(names)
    return dict(zip(names, lo + nnls(A, b - A @ lo)))


def quarter_cycles(w: dict[str, float]) -> dict[str, float]:
    """Weights rounded to quarter SM cycles as ``cost.py`` holds them (the loop's own term kept as fitted)."""
    return {k: (4 * x if k == "harness" else (max(1, round(4 * x)) if x > 0 else 0)) for k, x in w.items()}


def scorer(candidate, w: dict[str, float]):
    return lambda v: sum(w[k] * x for k, x in candidate(v).items())


def held_out(rows: list[dict], candidate, objective: str, k: int | None) -> dict[str, list[int]]:
    """Cross-validated rankings (``k`` folds, ``None``: leave one conversion out), fitted and rounded weights."""
    tally = {"fitted": [0, 0], "quarter_cycles": [0, 0]}
    for held in folds(rows, k):
        w = fit_candidate([v for v in rows if v["index"] not in held], candidate, objective)
        test = [v for v in rows if v["index"] in held]
        for label, ws in (("fitted", w), ("quarter_cycles", quarter_cycles(w))):
            r, t, _ = ranking(test, scorer(candidate, ws))
            tally[label][0] += r
            tally[label][1] += t
    return tally


def evaluate(rows: list[dict], candidate, objective: str) -> dict:
    """In-sample, 5-fold and leave-one-conversion-out rankings, fitted and rounded, of one candidate."""
    w = fit_candidate(rows, candidate, objective)
    five, loo = held_out(rows, candidate, objective, 5), held_out(rows, candidate, objective, None)
    out = {"weights_sm_cycles": {k: round(float(x), 3) for k, x in w.items()}}
    for label, ws in (("fitted", w), ("quarter_cycles", quarter_cycles(w))):
        out[label] = {"in_sample": list(ranking(rows, scorer(candidate, ws))[:2]),
                      "five_fold": five[label], "leave_one_out": loo[label]}
    return out


def with_registers(rows: list[dict], ptxas: dict) -> list[dict]:
    return [{**v, "registers": ptxas.get(v["kernel"], {}).get("registers", 0)} for v in rows]


def main() -> int:
    d = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/convert_costmodel")
    main_rows = with_registers(measured(d), json.loads((d / "ptxas.json").read_text()))
    more = with_registers(measured_more_reps(d), json.loads((d / "more_reps_than_triton" / "ptxas.json").read_text()))
    sets = {"harness": main_rows, "harness + more-reps": main_rows + more}
    result = {s: {c: {o: evaluate(rows, cand, o) for o in ("relative", "pairs")} for c, cand in CANDIDATES.items()}
              for s, rows in sets.items()}
    (d / "candidates.json").write_text(json.dumps(result, indent=1))
    pct = lambda p: f"{p[0]}/{p[1]} {100 * p[0] / p[1]:.1f}%"  # noqa: E731
    md = ["Pairs of plans of one conversion whose cycles differ by more than 10%, ordered as the clock does "
          "(in sample / 5-fold / leave one conversion out). `tools/convert_costmodel_candidates.py`.", ""]
    for s, by_cand in result.items():
        md += [f"## {s}", "", "| candidate | fit | fitted weights | quarter-cycle weights |", "|---|---|---|---|"]
        for c, by_obj in by_cand.items():
            for o, r in by_obj.items():
                cells = [" / ".join(pct(r[k][x]) for x in ("in_sample", "five_fold", "leave_one_out"))
                         for k in ("fitted", "quarter_cycles")]
                md.append(f"| {c} | {o} | {cells[0]} | {cells[1]} |")
        md.append("")
    md.append("Fitted weights (SM cycles per unit) are in `candidates.json`.")
    (d / "candidates.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
