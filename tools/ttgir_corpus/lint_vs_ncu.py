"""Lint (Triton 3.6's model) against Nsight Compute on the H100: the corpus' 58 kernels, counter by counter.

    PYTHONPATH=. python tools/ttgir_corpus/lint_vs_ncu.py            # (re)write the table
    PYTHONPATH=. python tools/ttgir_corpus/lint_vs_ncu.py --check    # compare with the committed table

For every kernel of ``benchmarks/results/ttgir_corpus_h100/measured.json`` it
lints the TTGIR that machine compiled (``ttgir36/NAME.ttgir``) through the
library (:func:`linlayout.io.ttgir.lint.lint_text` with ``triton="3.6"``, the
launch's grid and ``num_warps``, and its loops' trip counts, strict) and
compares lint's totals with ncu's exact per-instruction wavefront counters
(``smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_*.sum``):

* load = ``ld`` + ``ldsm``, store = ``st`` + ``stsm``, async copies =
  ``ldgsts`` (lint's ``async_copy_wavefronts``), atomics = ``atom`` (lint
  reports no atomic wavefronts: a kernel whose ``atom`` counter is not zero
  differs on it).  The ``ld``/``ldsm`` and ``st``/``stsm`` split is compared too
  (``split_exact``) but does not decide the verdict.
* **exact**: every total equals its counter; **differs**: the counters that do
  not, with lint minus ncu; **not comparable**: the traffic depends on the
  data or on the program (a spin lock's ``scf.while``, a loop whose bounds
  are read from memory), or only the ``atom`` counter differs and lint says
  the op's atomics depend on the data (a histogram's bins: lanes that hit
  one bin serialise), the other counters exact, or every counter that differs is one lint declares it does not
  count (:func:`declared_uncounted`: a ``cp.async`` whose quarter-warp copies several global rows, a gather's
  loads at data-dependent addresses), the others exact.  For those, lint's totals leave the data-dependent
  loop's body out and report its traffic per iteration
  (``total.data_dependent_loops``); the table says whether ncu's excess over
  lint's static total is a whole number of those iterations, the same number
  on the load and the store counter (``per_iteration``).

The trip counts are the launch's (``measured.json``'s ``trips``, keyed by the
loop's source line, mapped to the TTGIR location the way the corpus does);
where a trip count differs between programs, :data:`GRID_AVERAGE_TRIPS` gives
the grid's total iterations divided by the programs (exact for the totals,
since each iteration moves the same bytes).  A persistent or grouped
kernel's tile loop gets its body's total executions per program instead
(:data:`LOOP_TOTALS`, ``lint --loop-total``): the launch fixes how many tiles
each program runs (grouped GEMM: 64 tiles over 32 programs), not how often
the loops around it go round.

:func:`compare` is the library of the table; ``tests/lower/test_h100_corpus.py``
recomputes it from the committed files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "ttgir_corpus_h100"
PREFIX = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"
COUNTERS = ("ld", "ldsm", "st", "stsm", "ldgsts", "atom")

GRID_AVERAGE_TRIPS = {
    # the off-band copy of the inner loop runs 2*program_id(0) times (224 over the 32 programs), the on-band copy
    # twice per program (measured.json's loop_note)
    "tut_attention_causal": {"kernels_tutorials.py:277": 7, "kernels_tutorials.py:280": 2},
}
"""Trip counts that are not one per-loop constant of the launch: the grid's average (see the module docstring)."""

LOOP_TOTALS = {
    # the tile loop (an scf.while inside the loop over groups) hands each of the 32 programs 2 of the 64 tiles
    # (measured.json's loop_note; the launch fixes it: 64 tiles, a grid of 32, tile_idx += 32): its body runs 2
    # times per program in all, whatever the group loop around it does
    "tut_grouped_gemm": {"kernels_tutorials.py:186": 2},
}
"""Loops whose body's total executions per program the launch fixes though no per-loop trip count states them
(``lint --loop-total``): a persistent or grouped kernel's tile loop."""


def trip_counts(name: str, kernel: dict[str, Any]) -> dict[str, int]:
    """The launch's trip counts by TTGIR location (``FILE.py:LINE``)."""
    sys.path.insert(0, str(HERE))
    import corpus
    from corpus_case import loop_location

    fn = corpus.by_name()[name]["fn"]
    trips = {loop_location(fn, text): n for text, n in kernel["trips"].items()}
    trips.update(GRID_AVERAGE_TRIPS.get(name, {}))
    return trips


def lint_document(name: str, kernel: dict[str, Any], trips: dict[str, int]) -> dict[str, Any]:
    """``lint --triton 3.6 --json`` for the kernel's TTGIR and launch (its :data:`LOOP_TOTALS` as ``--loop-total``)."""
    from linlayout.io.ttgir.lint import lint_json, lint_text

    text = (RESULTS / "ttgir36" / f"{name}.ttgir").read_text()
    report = lint_text(text, num_warps=kernel["num_warps"], grid=tuple(kernel["grid"]), trip_counts=trips,
                       triton="3.6", strict_trip_counts=True, loop_totals=LOOP_TOTALS.get(name, {}))
    return lint_json(report)


def data_dependent_ops(doc: dict[str, Any]) -> list[str]:
    """The ops whose traffic lint itself says depends on the data (e.g. a histogram's ``atom.shared``)."""
    return [f"{o['op']} at {o['location']}: {o.get('instructions_note') or o['reason']}" for o in doc["ops"]
            if "depend on the data" in (o.get("instructions_note") or "") + o["reason"]]


def declared_uncounted(doc: dict[str, Any]) -> dict[str, list[str]]:
    """The counters lint itself says it leaves (partly) uncounted, with the ops: a ``cp.async`` it does not count
    (``async``), a gather's data-dependent loads (``load``)."""
    out: dict[str, list[str]] = {}
    for o in doc["ops"]:
        if o["op"] == "ttg.async_copy_global_to_local" and not o["counted"]:
            out.setdefault("async", []).append(f"{o['op']} at {o['location']}")
        if "ld.shared" in o.get("uncounted", ""):
            out.setdefault("load", []).append(f"{o['op']} at {o['location']}")
    return out


def measured_counters(kernel: dict[str, Any]) -> dict[str, int]:
    """ncu's exact wavefront counters of the kernel."""
    return {c: int(kernel["ncu"]["metrics"][PREFIX + c + ".sum"]) for c in COUNTERS}


def _sides(total: dict[str, Any], m: dict[str, int]) -> tuple[dict[str, int | None], dict[str, int]]:
    lint = {"load": total.get("load_wavefronts"), "store": total.get("store_wavefronts"),
            "async": total.get("async_copy_wavefronts"), "atom": 0 if total.get("load_wavefronts") is not None else None}
    ncu = {"load": m["ld"] + m["ldsm"], "store": m["st"] + m["stsm"], "async": m["ldgsts"], "atom": m["atom"]}
    return lint, ncu


def per_iteration(total: dict[str, Any], ncu: dict[str, int], ctas: int) -> dict[str, Any] | None:
    """ncu's excess over lint's static total in iterations of the data-dependent loop(s), per counter."""
    loops = total.get("data_dependent_loops") or []
    if not loops or total.get("load_wavefronts") is None:
        return None
    per = {"load": sum(lp["load_wavefronts_per_iteration"] for lp in loops) // ctas,
           "store": sum(lp["store_wavefronts_per_iteration"] for lp in loops) // ctas}
    excess = {"load": ncu["load"] - total["load_wavefronts"], "store": ncu["store"] - total["store_wavefronts"]}
    iterations = {k: (excess[k] / per[k] if per[k] else None) for k in per}
    counts = {v for k, v in iterations.items() if v is not None}
    consistent = (len(counts) == 1 and all(float(v).is_integer() and v >= 0 for v in counts)
                  and all(excess[k] == 0 for k in per if not per[k]))
    return {"loops": [lp["location"] for lp in loops], "per_cta_per_iteration": per, "excess": excess,
            "iterations": iterations, "consistent": consistent}


def compare(name: str, kernel: dict[str, Any], trips: dict[str, int] | None = None) -> dict[str, Any]:
    """One kernel's row: lint's totals, ncu's counters, the verdict and what differs.

    ``trips`` (TTGIR location -> trip count) defaults to :func:`trip_counts`, which imports the corpus (and so
    Triton); the test passes the committed table's instead."""
    trips = trip_counts(name, kernel) if trips is None else trips
    doc = lint_document(name, kernel, trips)
    total = doc["total"]
    m = measured_counters(kernel)
    lint, ncu = _sides(total, m)
    diffs = {k: (lint[k] - ncu[k] if lint[k] is not None else None) for k in lint if lint[k] != ncu[k]}
    split = ({"ld": total["ld"], "ldsm": total["ldsm"], "st": total["st"], "stsm": total["stsm"]}
             if total.get("load_wavefronts") is not None else None)
    data_note = kernel["data_dependent"] or kernel["loop_note"]
    ctas = kernel["grid"][0] * kernel["grid"][1] * kernel["grid"][2]
    row = {"kernel": name, "grid": kernel["grid"], "num_warps": kernel["num_warps"], "trip_counts": trips,
           "loop_totals": LOOP_TOTALS.get(name, {}),
           "lint": lint, "ncu": ncu, "lint_split": split, "ncu_split": {c: m[c] for c in ("ld", "ldsm", "st", "stsm")},
           "split_exact": split == {c: m[c] for c in ("ld", "ldsm", "st", "stsm")},
           "not_counted": total.get("not_counted", []), "missing_trip_counts": total.get("missing_trip_counts", [])}
    # a kernel measured as data-dependent only through loops whose totals the launch fixes is compared as the others
    if (kernel["data_dependent"] and name not in LOOP_TOTALS) or total.get("data_dependent_loops"):
        row.update(status="not comparable", note=data_note, per_iteration=per_iteration(total, ncu, ctas))
    elif diffs and set(diffs) <= {"atom"} and data_dependent_ops(doc):
        row.update(status="not comparable", note="; ".join(data_dependent_ops(doc)), per_iteration=None)
    elif diffs and set(diffs) <= set(declared_uncounted(doc)):
        declared = declared_uncounted(doc)
        row.update(status="not comparable", per_iteration=None, uncounted=sorted(diffs),
                   note="; ".join(f"{k}: {', '.join(declared[k])}" for k in sorted(diffs)))
    else:
        row.update(status="exact" if not diffs else "differs", note=kernel["loop_note"])
    row["diffs"] = diffs
    return row


def compare_all(trips: dict[str, dict[str, int]] | None = None) -> list[dict[str, Any]]:
    """Every kernel of ``measured.json``, in its order (``trips``: kernel -> its trip counts, else the corpus')."""
    kernels = json.loads((RESULTS / "measured.json").read_text())["kernels"]
    return [compare(name, k, None if trips is None else trips[name]) for name, k in kernels.items()]


def _cell(row: dict[str, Any]) -> str:
    if row["status"] == "exact":
        return "exact" + ("" if row["split_exact"] else " (ld/ldsm or st/stsm split differs)")
    if row["status"] == "differs":
        named = sorted({n.split(" at ")[0] for n in row["not_counted"] if "async proxy" not in n})
        return ("differs: " + ", ".join(f"{k} {v:+d}" if v is not None else f"{k}: lint has no total"
                                        for k, v in row["diffs"].items())
                + (f" (lint: {', '.join(named)} not counted)" if named else ""))
    p = row.get("per_iteration")
    if row.get("uncounted"):
        return ("not comparable: lint leaves (part of) " + ", ".join(row["uncounted"]) + " uncounted, saying why ("
                + ("LDGSTS of a quarter-warp spanning several global rows" if "async" in row["uncounted"]
                   else "the loads' addresses are the gather's indices") + "); every other counter exact")
    if p is None and set(row["diffs"]) == {"atom"}:
        return ("not comparable: atom data-dependent, as lint says (load, store and async exact; "
                f"atom {row['ncu']['atom']} in this run)")
    if p is None:
        return "not comparable (data-dependent; lint reports no per-iteration traffic)"
    its = ", ".join(f"{k} {v:g}" if v is not None else f"{k} -" for k, v in p["iterations"].items())
    return ("not comparable; ncu's excess is a whole number of lint's per-iteration traffic (" + its + " iterations)"
            if p["consistent"] else "not comparable; per iteration inconsistent (" + its + " iterations)")


def render_markdown(rows: list[dict[str, Any]]) -> str:
    """The table: one line per kernel, lint's and ncu's totals, the verdict."""
    n = {s: sum(r["status"] == s for r in rows) for s in ("exact", "differs", "not comparable")}
    out = ["# lint --triton 3.6 against ncu on the H100: the 58 corpus kernels", "",
           "Written by `tools/ttgir_corpus/lint_vs_ncu.py` (see its docstring for the method); "
           "`tests/lower/test_h100_corpus.py` recomputes it. Load = ld + ldsm, store = st + stsm, "
           "async = ldgsts (cp.async), atom = ncu's shared-atomic wavefronts (lint reports none).", "",
           f"**{n['exact']} exact, {n['differs']} differ, {n['not comparable']} not comparable** "
           f"(of {len(rows)}).", "",
           "| kernel | lint load / store / async | ncu load / store / async / atom | verdict |",
           "|---|---|---|---|"]
    for r in rows:
        lt, nc = r["lint"], r["ncu"]
        lint = " / ".join("-" if lt[k] is None else str(lt[k]) for k in ("load", "store", "async"))
        ncu = " / ".join(str(nc[k]) for k in ("load", "store", "async", "atom"))
        out.append(f"| {r['kernel']} | {lint} | {ncu} | {_cell(r)} |")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    rows = compare_all()
    doc = json.dumps({"about": "lint --triton 3.6 against ncu's exact counters on the H100 "
                               "(tools/ttgir_corpus/lint_vs_ncu.py)", "rows": rows}, indent=1) + "\n"
    md = render_markdown(rows)
    if "--check" in argv:
        same = (RESULTS / "lint_vs_ncu.json").read_text() == doc and (RESULTS / "lint_vs_ncu.md").read_text() == md
        print("same as committed" if same else "differs from the committed table")
        return 0 if same else 1
    (RESULTS / "lint_vs_ncu.json").write_text(doc)
    (RESULTS / "lint_vs_ncu.md").write_text(md)
    print(md.splitlines()[4])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
