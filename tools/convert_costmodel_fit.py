"""Fit the conversion cost model's weights to the H100 timings of the throughput harness.

Input: a directory holding ``retimed/`` (``variants.json``: the plans timed,
from ``tools/convert_costmodel_harness.py --unroll 1``; ``timing1.txt`` and
``timing2.txt``: two runs of the harness on the GPU, the iteration loop not
unrolled; ``ptxas.json``: registers and spills of every timing kernel;
``loop_sass.json``: the SASS of one loop iteration).  For every variant the
measured cost is SM cycles per warp and conversion (the time of ``3 ITERS``
iterations, launch overhead removed, times the measured SM clock, over the
warp-conversions one SM ran).

The model is linear in per-warp counts (:data:`FEATURES`):

* ``alu`` -- ``selp`` + ``prmt`` + ``mov`` of the plan;
* ``shfl.sync``, ``shared_instruction`` (``st``/``ld.shared``,
  ``stmatrix``/``ldmatrix``) and ``wavefront`` (write + read) of the plan;
* ``bar.sync`` and ``bar.warp.sync`` -- the plan's barriers plus the one the
  caller owes before the scratch is written again
  (:func:`linlayout.convert.cost.executed_barriers`);
* ``spill`` -- the words ptxas spilled in the kernel (spill stores plus
  spill loads, in 4-byte words, from ``ptxas.json``): register pressure as
  it came out of the register allocator;
* ``shuffle_path`` and ``shared_memory_path`` -- 1 for a plan with any
  ``shfl.sync``, with any shared-memory instruction: a constant per path
  (the latency of a round trip that the counts do not see);
* ``harness`` -- the loop's own ALU work (one XOR per source register, two
  instructions per destination register), the same on every path of a
  conversion; fitted so that the others are not biased, not part of the
  planner's model.

Weights are fitted by least squares of the relative error (every variant
weighs the same whatever its cycles), every instruction at least one issue
slot (:data:`ISSUE_FLOOR`), wavefronts, spills and path constants at least 0,
and rounded to sixteenths of an SM cycle (:func:`sixteenth_weights`): exactly
``cost.py``'s ``COST_WEIGHTS``.  The measure of success is the *ranking*:
over the pairs of variants of one conversion whose measured cycles differ
by more than 10%, the fraction the model orders as the clock does.  It is
reported on the fit set, under 5-fold cross-validation by conversion (each
conversion's variants held out together) and leaving one conversion out at
a time (each fold's fit rounded to sixteenths, as ``cost.py`` would take
it).  The committed weights (and ``cost.py``'s previous quarter-cycle
weights, :data:`PREVIOUS_WEIGHTS`) are also scored on the same plans timed
with the compiler's unrolling (``retimed/unrolled_*``), on the first
harness (``timing1.txt``, ``timing2.txt``, ``variants.json``: an older
planner's plans, :func:`measured`) and on the 38 8-bit pairs of
``more_reps_than_triton/`` (the planner's plan against Triton's own
staging, ``tools/convert_more_reps_timing.py``).  This model was chosen
among the 17 of ``tools/convert_costmodel_candidates.py`` (``candidates.md``:
"a constant per path", relative fit, 1/16-cycle weights).

    python tools/convert_costmodel_fit.py benchmarks/results/convert_costmodel
    python tools/convert_costmodel_fit.py benchmarks/results/convert_costmodel --check   # compare with cost.py

Writes ``fit.json`` and ``fit.md`` there (``--check`` writes nothing and fails where ``cost.py`` differs).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from linlayout.convert.cost import COST_WEIGHTS, executed_barriers  # noqa: E402

ITERS = 128  # tools/convert_costmodel_harness.py ITERS (the kernels ran ITERS and 4 ITERS iterations)
MODEL_FEATURES = ("alu", "shfl.sync", "shared_instruction", "wavefront", "bar.sync", "bar.warp.sync", "spill",
                  "shuffle_path", "shared_memory_path")
FEATURES = MODEL_FEATURES + ("harness",)
PER_CYCLE = 16
"""cost.py's unit: sixteenths of an SM cycle (rounded to quarters, the same model orders 223 of 238, not 230)."""
PREVIOUS_WEIGHTS = {"alu": 3, "shfl.sync": 3, "shared_instruction": 1, "wavefront": 2, "bar.sync": 2,
                    "bar.warp.sync": 1, "spill": 1}
"""cost.py's weights before this model: quarter SM cycles, no path constants, fitted on the first harness."""
THRESHOLD = 0.10
FOLDS = 5


def parse_timing(path: Path) -> tuple[dict[tuple[int, str], dict], float]:
    """Timing lines by (conversion index, variant) and the median SM clock in cycles per ns.

    A line ``ITERS n`` (harnesses made with ``--iters``) gives the short
    run's iterations of the lines after it; without it they ran :data:`ITERS`.
    """
    rows, clocks, iters = {}, [], ITERS
    for line in path.read_text().splitlines():
        f = line.split()
        if f and f[0] == "ITERS":
            iters = int(f[1])
        elif f and f[0] == "T" and f[-1] == "ok":
            rows[(int(f[1]), f[2])] = {"t1": float(f[3]), "t4": float(f[4]), "per_sm": int(f[6]), "iters": iters}
        elif f and f[0] == "CLOCK":
            clocks.append(int(f[1]) / int(f[2]))
    return rows, float(np.median(clocks))


def cycles_per_conversion(row: dict, ghz: float, warps: int) -> float:
    """SM cycles per warp and conversion of one timing line: the 4x-minus-1x iteration time (launch overhead
    removed) over the warps in flight and the 3 * ITERS extra conversions each ran."""
    return (row["t4"] - row["t1"]) * 1e6 * ghz / (row["per_sm"] * warps * 3 * row.get("iters", ITERS))


def emitted_as_planned(d: Path) -> set[str]:
    """Variants (``v<index>_<variant>``) whose check kernel's SASS has exactly the plan's counts (``check_table.json``)."""
    rows = json.loads((d / "check_table.json").read_text())
    return {r["name"].split("__")[0] for r in rows if r["name"].startswith("v") and r["sass_equal"]}


def measured(d: Path) -> list[dict]:
    """Every variant emitted as planned, with its cycles per warp-conversion (mean of two runs) and their spread.

    Variants whose emitted code runs other instructions than the plan counts
    (``stmatrix``/``ldmatrix`` plans of several reps are emitted as vectors)
    are left out: their counts do not describe what was timed.
    """
    variants = json.loads((d / "variants.json").read_text())
    planned = emitted_as_planned(d)
    variants = [v for v in variants if f"v{v['index']}_{v['variant']}" in planned]
    ptxas = json.loads((d / "ptxas.json").read_text())
    runs = [parse_timing(d / f"timing{k}.txt") for k in (1, 2)]
    out = []
    for v in variants:
        cyc = []
        for rows, ghz in runs:
            r = rows.get((v["index"], v["variant"]))
            if r is None:
                break
            cyc.append(cycles_per_conversion(r, ghz, v["warps"]))
        if len(cyc) == 2 and min(cyc) > 0:
            p = ptxas.get(v["kernel"], {})
            v = {**v, "spilled_words": (p.get("spill_stores", 0) + p.get("spill_loads", 0)) // 4}
            out.append({**v, "runs": cyc, "cycles": sum(cyc) / 2, "spread": abs(cyc[0] - cyc[1]) / (sum(cyc) / 2)})
    return out


MORE_REPS = "more_reps_than_triton"
"""Subdirectory of the 38 8-bit pairs timed by ``tools/convert_more_reps_timing.py`` (planner's plan vs Triton's staging)."""
MORE_REPS_INDEX = 1000
"""Offset of the more-reps pairs' conversion indices, apart from the harness's 240."""


def measured_more_reps(d: Path) -> list[dict]:
    """The more-reps pairs (``d/more_reps_than_triton``) as variants with cycles, like :func:`measured`.

    Their kernels were not checked against SASS (no ``check_table.json``);
    ``ptxas.json`` there comes from compiling the same ``timing.cu`` on the CPU.
    Empty where the directory is missing.
    """
    m = d / MORE_REPS
    if not (m / "variants.json").exists():
        return []
    ptxas = json.loads((m / "ptxas.json").read_text())
    runs = [parse_timing(m / f"timing{k}.txt") for k in (1, 2)]
    out = []
    for v in json.loads((m / "variants.json").read_text()):
        cyc = [cycles_per_conversion(rows[(v["index"], v["variant"])], ghz, v["warps"]) for rows, ghz in runs]
        p = ptxas.get(v["kernel"], {})
        out.append({**v, "index": MORE_REPS_INDEX + v["index"],
                    "spilled_words": (p.get("spill_stores", 0) + p.get("spill_loads", 0)) // 4,
                    "cycles": sum(cyc) / 2, "spread": abs(cyc[0] - cyc[1]) / (sum(cyc) / 2)})
    return out


RETIMED = "retimed"
"""Subdirectory of the re-timing with the iteration loop not unrolled (``convert_costmodel_harness.py --unroll 1``)."""


def emitted_as_counted(v: dict, loop_sass: dict[str, int]) -> bool:
    """Whether one iteration of a timing kernel's loop (its SASS) runs the plan's shuffles, shared-memory
    instructions and barriers (the plan's plus the one the loop owes after a ``bar.sync`` plan)."""
    ins = v["instructions"]
    side = lambda *ops: sum(n for op, n in ins.items() if op.split(".")[0] in ops)  # noqa: E731
    return (loop_sass.get("SHFL", 0) == ins.get("shfl.sync", 0)
            and loop_sass.get("STS", 0) + loop_sass.get("STSM", 0) == side("st", "stmatrix")
            and loop_sass.get("LDS", 0) + loop_sass.get("LDSM", 0) == side("ld", "ldmatrix")
            and loop_sass.get("BAR", 0) == executed_barriers(ins).get("bar.sync", 0))


def measured_retimed(d: Path, prefix: str = "") -> list[dict]:
    """The re-timed variants (``d/retimed``) whose loop runs what the plan counts, like :func:`measured`.

    ``prefix=""`` reads the harness whose loop is not unrolled
    (``timing1.txt``, ``timing2.txt``, ``ptxas.json``); ``"unrolled_"`` the
    same plans with the compiler's unrolling.  Every variant keeps its loop
    body's SASS opcode counts (``loop_sass``, of the not-unrolled kernels:
    one iteration) and both runs' cycles (``runs``).  Empty where the
    directory is missing.
    """
    r = d / RETIMED
    if not (r / "variants.json").exists():
        return []
    loop = json.loads((r / "loop_sass.json").read_text())
    ptxas = json.loads((r / f"{prefix}ptxas.json").read_text())
    runs = [parse_timing(r / f"{prefix}timing{k}.txt") for k in (1, 2)]
    out = []
    for v in json.loads((r / "variants.json").read_text()):
        if not emitted_as_counted(v, loop[v["kernel"]]):
            continue
        cyc = [cycles_per_conversion(rows[(v["index"], v["variant"])], ghz, v["warps"]) for rows, ghz in runs]
        p = ptxas.get(v["kernel"], {})
        out.append({**v, "spilled_words": (p.get("spill_stores", 0) + p.get("spill_loads", 0)) // 4,
                    "loop_sass": loop[v["kernel"]], "runs": cyc,
                    "cycles": sum(cyc) / 2, "spread": abs(cyc[0] - cyc[1]) / (sum(cyc) / 2)})
    return out


def features(v: dict) -> list[float]:
    """The feature vector of a variant (:data:`FEATURES`), computed once and kept in the variant."""
    if "model_features" not in v:
        alu, shfl, smi, wf, bar, wbar, spill, harness = variant_features(v)
        v["model_features"] = [alu, shfl, smi, wf, bar, wbar, spill, float(shfl > 0), float(smi > 0), harness]
    return v["model_features"]


def variant_features(v: dict) -> list[float]:
    ins = v["instructions"]
    bars = executed_barriers(ins)
    words = max(1, v["element_bits"] // 32)
    return [ins.get("selp", 0) + ins.get("prmt", 0) + ins.get("mov", 0),
            ins.get("shfl.sync", 0),
            sum(n for op, n in ins.items() if op.split(".")[0] in ("st", "ld", "stmatrix", "ldmatrix")),
            (v["wavefronts"]["write"] + v["wavefronts"]["read"]) if v["wavefronts"] else 0,
            bars.get("bar.sync", 0), bars.get("bar.warp.sync", 0),
            v["spilled_words"],
            v["src_registers"] * words + 2 * v["dst_registers"]]


ISSUE_FLOOR = 0.25
"""Least weight of an instruction, in SM cycles: one issue slot of one of the SM's four schedulers."""
FLOORS = np.array([ISSUE_FLOOR if f in ("alu", "shfl.sync", "shared_instruction", "bar.sync", "bar.warp.sync") else 0.0
                   for f in FEATURES])


def nnls(A: np.ndarray, b: np.ndarray, iterations: int = 100) -> np.ndarray:
    """Non-negative least squares, ``min |A x - b|`` over ``x >= 0`` (Lawson and Hanson's active set; numpy only)."""
    n = A.shape[1]
    x, free = np.zeros(n), np.zeros(n, dtype=bool)
    for _ in range(iterations):
        grad = A.T @ (b - A @ x)
        if free.all() or grad[~free].max(initial=-np.inf) <= 1e-12:
            break
        free[np.argmax(np.where(free, -np.inf, grad))] = True
        while True:
            z = np.zeros(n)
            z[free] = np.linalg.lstsq(A[:, free], b, rcond=None)[0]
            if z[free].min() > 0:
                x = z
                break
            shrink = free & (z <= 0)
            alpha = np.min(x[shrink] / (x[shrink] - z[shrink]))
            x = x + alpha * (z - x)
            free &= x > 1e-12
    return x


def fit(rows: list[dict]) -> np.ndarray:
    """Bounded least squares of the relative error: weights in SM cycles per unit of each feature.

    Every instruction weighs at least :data:`ISSUE_FLOOR` (without the floor
    the fit gives the shared-memory instruction 0, collinear with its
    wavefronts, and the planner would then take 32 scalar loads for 8 vector
    ones); wavefronts, spills and the path constants at least 0.
    """
    A = np.array([features(v) for v in rows], dtype=float) / np.array([v["cycles"] for v in rows])[:, None]
    b = np.ones(len(rows))
    return FLOORS + nnls(A, b - A @ FLOORS)  # weights = floor + a non-negative excess


def predict(w: np.ndarray, v: dict) -> float:
    return float(np.dot(w, features(v)))


def ranking(rows: list[dict], score, min_cycles: float = 0.0) -> tuple[int, int, list[dict]]:
    """Pairs of variants of one conversion whose cycles differ by > 10% (and by at least ``min_cycles``):
    (right, total, the wrong ones)."""
    by: dict[int, list[dict]] = {}
    for v in rows:
        by.setdefault(v["index"], []).append(v)
    right = total = 0
    wrong = []
    for vs in by.values():
        for i in range(len(vs)):
            for j in range(i + 1, len(vs)):
                a, b = vs[i], vs[j]
                gap = abs(a["cycles"] - b["cycles"])
                if gap <= THRESHOLD * min(a["cycles"], b["cycles"]) or gap < min_cycles:
                    continue
                total += 1
                if (score(a) - score(b)) * (a["cycles"] - b["cycles"]) > 0:
                    right += 1
                else:
                    wrong.append({"conversion": a["name"], "a": a["variant"], "b": b["variant"],
                                  "cycles": [round(a["cycles"], 1), round(b["cycles"], 1)],
                                  "model": [round(score(a), 1), round(score(b), 1)]})
    return right, total, wrong


def folds(rows: list[dict], k: int | None = FOLDS) -> list[set[int]]:
    """Conversion indices in ``k`` folds (every ``k``-th conversion), or one fold per conversion (``k=None``)."""
    idx = sorted({v["index"] for v in rows})
    return [{i} for i in idx] if k is None else [set(idx[j::k]) for j in range(k)]


def cross_validated(rows: list[dict], k: int | None = FOLDS, fitter=None, score=None) -> tuple[int, int]:
    """Ranking right/total with each fold's conversions scored by weights fitted on the other folds.

    ``k=None`` leaves one conversion out at a time.  ``fitter(rows) -> w``
    and ``score(w) -> (variant -> float)`` default to :func:`fit` and
    :func:`predict`.
    """
    fitter = fitter or fit
    score = score or (lambda w: lambda v: predict(w, v))
    right = total = 0
    for held in folds(rows, k):
        w = fitter([v for v in rows if v["index"] not in held])
        r, t, _ = ranking([v for v in rows if v["index"] in held], score(w))
        right, total = right + r, total + t
    return right, total


def sixteenth_weights(w: np.ndarray) -> dict[str, int]:
    """The fitted model weights (harness term dropped) in sixteenths of an SM cycle, rounded, at least 1 where
    positive: ``cost.py``'s ``COST_WEIGHTS`` (with ``alu`` for ``selp``, ``prmt`` and ``mov``)."""
    return {f: (max(1, round(PER_CYCLE * x)) if x > 0 else 0) for f, x in zip(MODEL_FEATURES, w)}


def model_score(weights: dict[str, int]):
    """Score of a variant under integer weights (absent features weigh 0; the harness term left out: equal across
    a conversion's paths)."""
    def score(v):
        return float(np.dot([weights.get(f, 0) for f in MODEL_FEATURES], features(v)[:-1]))
    return score


def held_out_sixteenths(rows: list[dict], k: int | None = FOLDS) -> tuple[int, int]:
    """Cross-validated ranking of the model as ``cost.py`` takes it: each fold scored by the sixteenth-cycle
    weights of a fit on the other folds (``k=None``: leave one conversion out)."""
    return cross_validated(rows, k, score=lambda w: model_score(sixteenth_weights(w)))


def report(d: Path, held_out: bool = True) -> dict:
    """The fit on the re-timing (``d/retimed``, the loop not unrolled), its sixteenth-cycle weights and their
    rankings; ``held_out`` adds leave-one-conversion-out, and the weights on the other timings (slower)."""
    rows = measured_retimed(d)
    w = fit(rows)
    ints = sixteenth_weights(w)
    rep = {
        "data": f"{RETIMED}/ (the loop not unrolled)",
        "variants": len(rows), "conversions": len({v["index"] for v in rows}),
        "median_run_to_run_spread": round(float(np.median([v["spread"] for v in rows])), 4),
        "fitted_sm_cycles": {f: round(float(x), 4) for f, x in zip(FEATURES, w)},
        "weights_sixteenth_cycles": ints,
        "ranking_fit": list(ranking(rows, lambda v: predict(w, v))[:2]),
        "ranking_fit_sixteenth_weights": list(ranking(rows, model_score(ints))[:2]),
        "ranking_cross_validated": list(held_out_sixteenths(rows)),
        "ranking_previous_weights": list(ranking(rows, model_score(PREVIOUS_WEIGHTS))[:2]),
    }
    if not held_out:
        return rep
    return {**rep, **other_timings_report(d, rows, ints)}


def other_timings_report(d: Path, rows: list[dict], ints: dict[str, int]) -> dict:
    """Leave-one-conversion-out on the re-timing, and the committed weights (and the previous ones) on the same
    plans timed with the compiler's unrolling, on the first harness and on the more-reps pairs."""
    unrolled, first, more = measured_retimed(d, "unrolled_"), measured(d), measured_more_reps(d)
    on = lambda data, weights: list(ranking(data, model_score(weights))[:2])  # noqa: E731
    return {
        "ranking_leave_one_conversion_out": list(held_out_sixteenths(rows, None)),
        "ranking_leave_one_conversion_out_fitted": list(cross_validated(rows, None)),
        "wrong_pairs_sixteenth_weights": ranking(rows, model_score(ints))[2],
        "compiler_unrolling": {"ranking": on(unrolled, ints),
                               "ranking_previous_weights": on(unrolled, PREVIOUS_WEIGHTS)},
        "first_harness": {"variants": len(first), "ranking": on(first, ints),
                          "ranking_previous_weights": on(first, PREVIOUS_WEIGHTS)},
        "more_reps_pairs": {"ranking": on(more, ints), "ranking_previous_weights": on(more, PREVIOUS_WEIGHTS)},
    }


def cost_py_weights() -> dict[str, int]:
    """``cost.py``'s ``COST_WEIGHTS`` in the fit's feature names (``alu``: the one weight of ``selp``, ``prmt``,
    ``mov``; an error if those three differ)."""
    alu = {COST_WEIGHTS[op] for op in ("selp", "prmt", "mov")}
    if len(alu) != 1:
        raise ValueError(f"selp, prmt and mov weigh differently in cost.py: {alu}")
    return {"alu": alu.pop(), **{f: COST_WEIGHTS[f] for f in MODEL_FEATURES if f != "alu"}}


def markdown(rep: dict) -> list[str]:
    pct = lambda p: f"{p[0]} of {p[1]} ({100 * p[0] / max(1, p[1]):.2f}%)"  # noqa: E731
    u, f, m = rep["compiler_unrolling"], rep["first_harness"], rep["more_reps_pairs"]
    return [
        f"{rep['variants']} variants of {rep['conversions']} conversions ({rep['data']}); median run-to-run spread "
        f"{100 * rep['median_run_to_run_spread']:.1f}%",
        f"fitted SM cycles per unit: {rep['fitted_sm_cycles']}",
        f"weights (sixteenths of an SM cycle, cost.py's COST_WEIGHTS): {rep['weights_sixteenth_cycles']}",
        f"ranking right, pairs differing by > 10%: fitted weights {pct(rep['ranking_fit'])}; sixteenth-cycle weights "
        f"{pct(rep['ranking_fit_sixteenth_weights'])}; 5-fold cross-validated {pct(rep['ranking_cross_validated'])}; "
        f"leave one conversion out {pct(rep['ranking_leave_one_conversion_out'])} (fitted weights "
        f"{pct(rep['ranking_leave_one_conversion_out_fitted'])}); the previous quarter-cycle weights "
        f"{pct(rep['ranking_previous_weights'])}",
        f"the same plans timed with the compiler's unrolling: {pct(u['ranking'])} (previous weights "
        f"{pct(u['ranking_previous_weights'])})",
        f"the first harness ({f['variants']} variants, an older planner's plans, the compiler's unrolling): "
        f"{pct(f['ranking'])} (previous weights, fitted there: {pct(f['ranking_previous_weights'])})",
        f"the 38 more-reps pairs ({MORE_REPS}/, 8-bit, planner vs Triton's staging): {pct(m['ranking'])} (previous "
        f"weights {pct(m['ranking_previous_weights'])})",
        "wrong pairs (sixteenth-cycle weights): " + "; ".join(
            f"{x['conversion']} {x['a']} vs {x['b']}: cycles {x['cycles']}, model {x['model']}"
            for x in rep["wrong_pairs_sixteenth_weights"]),
        "the model was chosen among the candidates of tools/convert_costmodel_candidates.py (candidates.md)"]


def main() -> int:
    d = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/convert_costmodel")
    rep = report(d, held_out="--check" not in sys.argv)
    if "--check" in sys.argv:
        current, want = cost_py_weights(), rep["weights_sixteenth_cycles"]
        print("cost.py weights", "equal" if current == want else "DIFFER", want)
        return 0 if current == want else 1
    (d / "fit.json").write_text(json.dumps(rep, indent=1))
    md = markdown(rep)
    (d / "fit.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
