"""Compare cost models on the H100 timings: which features and fits order a conversion's plans as the clock does.

The cost model in ``linlayout/convert/cost.py`` is a sum of per-warp counts
times weights (``tools/convert_costmodel_fit.py``).  This tool asks whether
another model, still computed from what a plan knows, ranks better: each
*candidate* (:class:`Candidate`) is a feature set (a function from a timed
variant to named counts), summed with weights or, with *pipes*, summed
outside the pipes plus the load of the busiest pipe (the ALU against the
memory pipe of shuffles and shared memory: under full occupancy the SM
overlaps them).  Each is fitted two ways,

* ``relative`` -- least squares of the relative error of every variant's
  cycles (the fit ``cost.py`` takes), and
* ``pairs`` -- the same rows plus, for every pair of plans of one
  conversion, the difference of their predictions against the difference of
  their cycles (relative to the pair's mean): the ranking is about
  differences, and the loop's own work cancels in them.

A model with pipes is fitted by alternation (:func:`fit_candidate`).  Every
instruction weighs at least one issue slot (a quarter SM cycle); the loop's
own work (``harness``) is a feature of every candidate, fitted but not part
of a planner's model.  Reported, over the pairs of one conversion whose
cycles differ by more than 10%: the fit set (in sample), 5-fold and
leave-one-conversion-out cross-validation, with fitted weights and with
weights rounded to quarter SM cycles (``cost.py``'s former unit) and to sixteenths (its unit now).

Data sets: the first harness's 240 conversions (``timing1.txt``,
``timing2.txt``), with the 38 8-bit more-reps pairs, and the re-timing
(``retimed/``: today's plans, the loop not unrolled, and the same plans with
the compiler's unrolling).  The measurements section counts the pairs whose
order the two runs disagree on, the pairs the two harnesses of the
re-timing order differently, and how many iterations the compiler put in a
loop body.

Candidates marked *oracle* use what only the compiled kernel knows
(``ptxas`` registers, the loop's own ALU work, the SASS of one loop
iteration): an upper bound on what a feature of that kind could buy, not a
model the planner can use.

    python tools/convert_costmodel_candidates.py benchmarks/results/convert_costmodel   # 10-30 minutes

Writes ``candidates.md`` and ``candidates.json`` there.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from convert_costmodel_fit import (ISSUE_FLOOR, THRESHOLD, folds, measured, measured_more_reps,  # noqa: E402
                                   measured_retimed, nnls, ranking,
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


SASS_NOT_ALU = {"SHFL", "STS", "LDS", "STSM", "LDSM", "BAR", "STL", "LDL", "BRA", "BSSY", "BSYNC", "NOP", "LDC"}
"""SASS opcodes of a loop iteration that are not ALU work (memory, shuffles, barriers, control)."""
SASS_ALU_CLASSES = ("PRMT", "SEL", "LOP3", "SHF", "IMAD", "IADD3", "VIADD", "ISETP")


def sass_counts(v: dict, alu_classes: tuple[str, ...] = ()) -> dict[str, float]:
    """What one iteration of the timing loop executed (``loop_sass``: the conversion and the loop's own work),
    with the plan's wavefronts: ALU instructions (``alu_<OPCODE>`` for ``alu_classes``, ``alu`` the rest),
    SHFL, shared-memory instructions, barriers and spill traffic."""
    s = v["loop_sass"]
    alu = sum(n for op, n in s.items() if op not in SASS_NOT_ALU)
    out = {f"alu_{op}": float(s.get(op, 0)) for op in alu_classes}
    out["alu"] = alu - sum(out.values())
    return {**out, "shfl": s.get("SHFL", 0), "smi": sum(s.get(op, 0) for op in ("STS", "LDS", "STSM", "LDSM")),
            "wf": counts(v)["wf"], "bar": s.get("BAR", 0), "spill": s.get("STL", 0) + s.get("LDL", 0)}


def path_of(v: dict) -> dict[str, float]:
    """Which path a plan takes, from its counts alone (``cost.py`` sees no more): shuffles where it shuffles,
    shared memory where it stores to and loads from it (on the timed plans, exactly their ``path``)."""
    c = counts(v)
    return {"is_shuffles": float(c["shfl"] > 0), "is_shared_memory": float(c["smi"] > 0)}


def pick(c: dict, names: tuple[str, ...]) -> dict[str, float]:
    return {k: c[k] for k in names}


class Candidate(NamedTuple):
    """A cost model to compare: named counts of a variant, summed with weights, or with some of them in pipes.

    Without ``pipes`` the model is linear: the weighted sum of the features.
    With ``pipes`` (groups of feature names) it is the weighted sum of the
    features in no pipe plus the load of the busiest pipe -- under full
    occupancy the SM overlaps the work of its pipes, and the slowest one
    bounds the time (the ALU against the memory pipe that shuffles and
    shared memory share).  ``needs`` names a key every variant must hold (the
    candidate is skipped on data sets without it).
    """

    features: Callable[[dict], dict[str, float]]
    pipes: tuple[tuple[str, ...], ...] = ()
    needs: str | None = None


def linear(features: Callable[[dict], dict[str, float]]) -> Candidate:
    return Candidate(features)


def with_pipe_copies(c: dict[str, float], pipes: dict[str, tuple[str, ...]]) -> dict[str, float]:
    """``c`` plus, for every pipe, copies of its features (``pipe_<pipe>_<feature>``): a sum plus a busiest pipe."""
    return {**c, **{f"pipe_{p}_{f}": c[f] for p, fs in pipes.items() for f in fs}}


ALU_PIPE, MIO_PIPE = ("alu",), ("shfl", "smi", "wf")
"""The ALU (``selp``, ``prmt``, ``mov``) and the memory pipe (``shfl`` and shared memory share it) of a plan."""
SUM_PLUS_PIPES = {"alu": ALU_PIPE, "mio": MIO_PIPE}


def copies(pipes: dict[str, tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(f"pipe_{p}_{f}" for f in fs) for p, fs in pipes.items())


def by_width_pipes(v: dict) -> dict[str, float]:
    """cost.py's features with the ALU and shuffles split per element width (8, 16, 32, 64)."""
    return by_width(pick(counts(v), BASE), v, ("alu", "shfl"), EACH_WIDTH)


WIDTH_PIPES = (tuple(f"alu_{w}" for w in EACH_WIDTH), tuple(f"shfl_{w}" for w in EACH_WIDTH) + ("smi", "wf"))

CANDIDATES: dict[str, Candidate] = {
    "cost.py's features": linear(lambda v: pick(counts(v), BASE)),
    "ALU classes (selp, prmt, mov)":
        linear(lambda v: pick(counts(v), ("selp", "prmt", "mov") + BASE[1:])),
    "wavefronts write/read, st/ld apart":
        linear(lambda v: pick(counts(v), ("alu", "shfl", "st", "ld", "wf_write", "wf_read", "bar", "wbar", "spill",
                                          "harness"))),
    "shfl by width (8/16 vs 32/64-bit)": linear(lambda v: by_width(pick(counts(v), BASE), v, ("shfl",), NARROW_WIDE)),
    "ALU classes and shfl, each per width (8, 16, 32, 64)":
        linear(lambda v: by_width(pick(counts(v), ("selp", "prmt", "mov") + BASE[1:]), v,
                                  ("selp", "prmt", "mov", "shfl"), EACH_WIDTH)),
    "bar.sync per warp of the CTA":
        linear(lambda v: {**pick(counts(v), BASE), "warps_x_bar": counts(v)["bar"] * v["warps"]}),
    "scratch bytes (occupancy)":
        linear(lambda v: {**pick(counts(v), BASE),
                          "scratch_kb": v["scratch_bytes"] / 1024 if v["path"] == "shared_memory" else 0}),
    "select chain (selp^2 / destination registers)":
        linear(lambda v: {**pick(counts(v), BASE),
                          "chain_of_selects": counts(v)["selp"] ** 2 / max(1, v["dst_registers"])}),
    "a constant per path (latency of a round trip)": linear(lambda v: {**pick(counts(v), BASE), **path_of(v)}),
    "oracle: ptxas registers per thread":
        linear(lambda v: {**pick(counts(v), BASE), "registers": v.get("registers", 0)}),
    "busiest pipe: max(ALU, shfl + shared memory) + barriers":
        Candidate(lambda v: pick(counts(v), BASE), (ALU_PIPE, MIO_PIPE)),
    "sum + busiest pipe (ALU, shfl + shared memory)":
        Candidate(lambda v: with_pipe_copies(pick(counts(v), BASE), SUM_PLUS_PIPES), copies(SUM_PLUS_PIPES)),
    "busiest pipe, ALU and shfl per width (8, 16, 32, 64)": Candidate(by_width_pipes, WIDTH_PIPES),
    "oracle: busiest pipe with the loop's own ALU work in the ALU pipe":
        Candidate(lambda v: pick(counts(v), BASE), (ALU_PIPE + ("harness",), MIO_PIPE)),
    "ALU classes and a constant per path":
        linear(lambda v: {**pick(counts(v), ("selp", "prmt", "mov") + BASE[1:]), **path_of(v)}),
    "oracle: SASS of one loop iteration (ALU, SHFL, LDS/STS, BAR, STL/LDL) + wavefronts":
        Candidate(lambda v: sass_counts(v), needs="loop_sass"),
    "oracle: SASS of one loop iteration, ALU by opcode":
        Candidate(lambda v: sass_counts(v, SASS_ALU_CLASSES), needs="loop_sass"),
}
"""The compared models.  Those marked *oracle* use what a plan cannot know (the compiled kernel's registers,
the surrounding loop's work): bounds on what such a feature could buy, not models for the planner."""


def floors(names: list[str]) -> np.ndarray:
    return np.array([ISSUE_FLOOR if n.split("_")[0] in INSTRUCTIONS else 0.0 for n in names])


def matrix(rows: list[dict], candidate: Candidate) -> tuple[list[str], np.ndarray]:
    feats = [candidate.features(v) for v in rows]
    names = list(feats[0])
    return names, np.array([[f[n] for n in names] for f in feats], dtype=float)


def same_conversion_pairs(rows: list[dict]) -> list[tuple[int, int]]:
    by: dict[int, list[int]] = {}
    for i, v in enumerate(rows):
        by.setdefault(v["index"], []).append(i)
    return [(a, b) for ix in by.values() for k, a in enumerate(ix) for b in ix[k + 1:]]


def least_squares(names: list[str], X: np.ndarray, cyc: np.ndarray, pairs: list[tuple[int, int]] | None) -> np.ndarray:
    """Bounded least squares of the relative error (and, with ``pairs``, of the pairs' relative differences)."""
    A, b = X / cyc[:, None], np.ones(len(cyc))
    if pairs:
        mean = np.array([(cyc[i] + cyc[j]) / 2 for i, j in pairs])
        A = np.vstack([A, np.array([X[i] - X[j] for i, j in pairs]) / mean[:, None]])
        b = np.concatenate([b, np.array([cyc[i] - cyc[j] for i, j in pairs]) / mean])
    lo = floors(names)
    return lo + nnls(A, b - A @ lo)


def pipe_loads(candidate: Candidate, names: list[str], X: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Cycles each pipe of :attr:`Candidate.pipes` is busy per variant (rows) under weights ``w``."""
    return np.stack([X[:, [names.index(f) for f in pipe]] @ w[[names.index(f) for f in pipe]]
                     for pipe in candidate.pipes], axis=1)


def on_busiest(candidate: Candidate, names: list[str], X: np.ndarray, busiest: np.ndarray) -> np.ndarray:
    """``X`` with every pipe's features zeroed where another pipe is the busiest: the model is linear in it."""
    M = X.copy()
    for p, pipe in enumerate(candidate.pipes):
        for f in pipe:
            M[busiest != p, names.index(f)] = 0.0
    return M


def fit_candidate(rows: list[dict], candidate: Candidate, objective: str, rounds: int = 30) -> dict[str, float]:
    """Weights (SM cycles per unit, by feature name) of one candidate under one objective.

    A candidate with pipes is fitted by alternation: given which pipe is the
    busiest on each variant the model is linear (:func:`on_busiest`); fit it,
    give every variant its busiest pipe under the new weights, again until
    nothing moves (at most ``rounds`` times; the fit of least squared error is kept).
    """
    names, X = matrix(rows, candidate)
    cyc = np.array([v["cycles"] for v in rows])
    pairs = same_conversion_pairs(rows) if objective == "pairs" else None
    w = least_squares(names, X, cyc, pairs)
    if not candidate.pipes:
        return dict(zip(names, w))
    best, best_err = w, np.inf
    busiest = np.argmax(pipe_loads(candidate, names, X, w), axis=1)
    for _ in range(rounds):
        w = least_squares(names, on_busiest(candidate, names, X, busiest), cyc, pairs)
        loads = pipe_loads(candidate, names, X, w)
        err = float(np.sum((predict_matrix(candidate, names, X, w) / cyc - 1) ** 2))
        if err < best_err:
            best, best_err = w, err
        moved = np.argmax(loads, axis=1)
        if (moved == busiest).all():
            break
        busiest = moved
    return dict(zip(names, best))


def predict_matrix(candidate: Candidate, names: list[str], X: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Predicted cycles of every row: the features outside the pipes summed, plus the busiest pipe's load."""
    in_pipe = np.array([any(n in pipe for pipe in candidate.pipes) for n in names], dtype=bool)
    out = X[:, ~in_pipe] @ w[~in_pipe]
    return out + pipe_loads(candidate, names, X, w).max(axis=1) if candidate.pipes else out


ROUNDINGS = {"fitted": None, "quarter_cycles": 4, "sixteenth_cycles": 16}
"""The weights each candidate is scored with: as fitted, and rounded to quarter SM cycles (``cost.py``'s former
unit) or sixteenths (its unit now; ``None``: as fitted)."""


def rounded(w: dict[str, float], per_cycle: int | None) -> dict[str, float]:
    """Weights rounded to ``1 / per_cycle`` SM cycles, at least one unit where positive, in SM cycles (the loop's
    own term kept as fitted); ``None``: as they are."""
    if per_cycle is None:
        return w
    return {k: (x if k == "harness" else (max(1, round(per_cycle * x)) / per_cycle if x > 0 else 0.0))
            for k, x in w.items()}


def scorer(candidate: Candidate, w: dict[str, float]):
    if not candidate.pipes:
        return lambda v: sum(w[k] * x for k, x in candidate.features(v).items())
    names = list(w)
    wv = np.array([w[n] for n in names])
    return lambda v: float(predict_matrix(candidate, names, np.array([[candidate.features(v)[n] for n in names]]),
                                          wv)[0])


def held_out(rows: list[dict], candidate: Candidate, objective: str, k: int | None) -> dict[str, list[int]]:
    """Cross-validated rankings (``k`` folds, ``None``: leave one conversion out) under each of :data:`ROUNDINGS`."""
    tally = {label: [0, 0] for label in ROUNDINGS}
    for held in folds(rows, k):
        w = fit_candidate([v for v in rows if v["index"] not in held], candidate, objective)
        test = [v for v in rows if v["index"] in held]
        for label, per_cycle in ROUNDINGS.items():
            r, t, _ = ranking(test, scorer(candidate, rounded(w, per_cycle)))
            tally[label][0] += r
            tally[label][1] += t
    return tally


def evaluate(rows: list[dict], candidate: Candidate, objective: str) -> dict:
    """In-sample, 5-fold and leave-one-conversion-out rankings of one candidate under each of :data:`ROUNDINGS`."""
    w = fit_candidate(rows, candidate, objective)
    five, loo = held_out(rows, candidate, objective, 5), held_out(rows, candidate, objective, None)
    out = {"weights_sm_cycles": {k: round(float(x), 3) for k, x in w.items()}}
    for label, per_cycle in ROUNDINGS.items():
        out[label] = {"in_sample": list(ranking(rows, scorer(candidate, rounded(w, per_cycle)))[:2]),
                      "five_fold": five[label], "leave_one_out": loo[label]}
    return out


def with_registers(rows: list[dict], ptxas: dict) -> list[dict]:
    return [{**v, "registers": ptxas.get(v["kernel"], {}).get("registers", 0)} for v in rows]


def order_flips(rows: list[dict]) -> tuple[int, int]:
    """Pairs of one conversion whose mean cycles differ by more than 10%, and how many of them the two runs
    (``runs``) order differently."""
    pairs = [(rows[i], rows[j]) for i, j in same_conversion_pairs(rows)
             if abs(rows[i]["cycles"] - rows[j]["cycles"]) > THRESHOLD * min(rows[i]["cycles"], rows[j]["cycles"])]
    return len(pairs), sum((a["runs"][0] - b["runs"][0]) * (a["runs"][1] - b["runs"][1]) <= 0
                           for a, b in pairs)


def harness_flips(rows: list[dict], other: list[dict]) -> tuple[int, int]:
    """Pairs of ``rows`` more than 10% apart, and how many of them ``other`` (the same plans, another harness)
    orders the other way."""
    cyc = {(v["index"], v["variant"]): v["cycles"] for v in other}
    both = [v for v in rows if (v["index"], v["variant"]) in cyc]
    pairs = [(both[i], both[j]) for i, j in same_conversion_pairs(both)
             if abs(both[i]["cycles"] - both[j]["cycles"]) > THRESHOLD * min(both[i]["cycles"], both[j]["cycles"])]
    key = lambda v: (v["index"], v["variant"])  # noqa: E731
    return len(pairs), sum((a["cycles"] - b["cycles"]) * (cyc[key(a)] - cyc[key(b)]) <= 0 for a, b in pairs)


def unroll_factors(d: Path) -> dict[str, int]:
    """How many iterations the compiler put in one loop body of the unrolled re-timing: the loop body's
    shuffles and shared-memory instructions over those of one iteration (the not-unrolled kernel), counted."""
    one = json.loads((d / "retimed" / "loop_sass.json").read_text())
    unrolled = json.loads((d / "retimed" / "unrolled_loop_sass.json").read_text())
    ops = ("SHFL", "STS", "LDS", "STSM", "LDSM")
    out: dict[str, int] = {}
    for k, s in one.items():
        n = sum(s.get(op, 0) for op in ops)
        if n:
            f = f"{sum(unrolled[k].get(op, 0) for op in ops) / n:g}"
            out[f] = out.get(f, 0) + 1
    return dict(sorted(out.items(), key=lambda x: float(x[0])))


def data_sets(d: Path) -> dict[str, list[dict]]:
    """The timed variants by data set: the first harness (alone and with the more-reps pairs) and the re-timing
    (loop not unrolled; the same plans with the compiler's unrolling)."""
    main_rows = with_registers(measured(d), json.loads((d / "ptxas.json").read_text()))
    more = with_registers(measured_more_reps(d), json.loads((d / "more_reps_than_triton" / "ptxas.json").read_text()))
    retimed = with_registers(measured_retimed(d), json.loads((d / "retimed" / "ptxas.json").read_text()))
    unrolled = with_registers(measured_retimed(d, "unrolled_"),
                              json.loads((d / "retimed" / "unrolled_ptxas.json").read_text()))
    return {"harness": main_rows, "harness + more-reps": main_rows + more,
            "retimed, loop not unrolled": retimed, "retimed, the compiler's unrolling": unrolled}


def measurement_report(d: Path, sets: dict[str, list[dict]]) -> dict:
    """Run-to-run order flips per data set, the flips between the two harnesses of the re-timing, unroll factors."""
    return {"run_to_run_flips": {s: list(order_flips(rows)) for s, rows in sets.items() if s != "harness + more-reps"},
            "median_run_to_run_spread": {s: round(float(np.median([v["spread"] for v in rows])), 4)
                                         for s, rows in sets.items()},
            "unroll_vs_not_unrolled_flips": list(harness_flips(sets["retimed, loop not unrolled"],
                                                               sets["retimed, the compiler's unrolling"])),
            "compiler_unroll_factors": unroll_factors(d)}


def main() -> int:
    d = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/convert_costmodel")
    sets = data_sets(d)
    result = {"measurements": measurement_report(d, sets)}
    for s, rows in sets.items():
        result[s] = {c: {o: evaluate(rows, cand, o) for o in ("relative", "pairs")} for c, cand in CANDIDATES.items()
                     if cand.needs is None or all(cand.needs in v for v in rows)}
        print(s, "done", file=sys.stderr, flush=True)
    (d / "candidates.json").write_text(json.dumps(result, indent=1))
    (d / "candidates.md").write_text("\n".join(markdown(result)) + "\n")
    print("\n".join(markdown(result)))
    return 0


def markdown(result: dict) -> list[str]:
    pct = lambda p: f"{p[0]}/{p[1]} {100 * p[0] / p[1]:.2f}%"  # noqa: E731
    m = result["measurements"]
    md = ["Pairs of plans of one conversion whose cycles differ by more than 10%, ordered as the clock does "
          "(in sample / 5-fold / leave one conversion out). `tools/convert_costmodel_candidates.py`.", "",
          "## Measurements", ""]
    md += [f"- {s}: {n} pairs; the two runs order {f} of them differently; median run-to-run spread "
           f"{100 * m['median_run_to_run_spread'][s]:.1f}%" for s, (n, f) in m["run_to_run_flips"].items()]
    n, f = m["unroll_vs_not_unrolled_flips"]
    md += [f"- the same plans, loop not unrolled against the compiler's unrolling: of {n} pairs, {f} "
           f"({100 * f / n:.1f}%) in the opposite order",
           f"- iterations per loop body where the compiler unrolls (variants): {m['compiler_unroll_factors']}", ""]
    for s, by_cand in result.items():
        if s == "measurements":
            continue
        md += [f"## {s}", "", "| candidate | fit | fitted weights | quarter-cycle weights | 1/16-cycle weights |",
               "|---|---|---|---|---|"]
        for c, by_obj in by_cand.items():
            for o, r in by_obj.items():
                cells = [" / ".join(pct(r[k][x]) for x in ("in_sample", "five_fold", "leave_one_out"))
                         for k in ROUNDINGS]
                md.append(f"| {c} | {o} | " + " | ".join(cells) + " |")
        md.append("")
    md.append("Fitted weights (SM cycles per unit) are in `candidates.json`.")
    return md


if __name__ == "__main__":
    sys.exit(main())
