"""Tabulate the H100 run of ``tools/convert_gpu_run.sh`` (files in ``benchmarks/results/convert_h100/``).

Per pair: the plan (path, per-thread instructions, per-warp wavefronts) as
run, the correctness of the emitted kernel, ncu's shared-memory wavefronts
and instructions and the SASS ``SHFL`` count of the emitted kernel, and the
same ncu metrics of Triton's ``convert_layout`` kernel for that pair
(Triton 3.6 on the machine) with its Triton 3.9 PTX counts from
``triton39_ptx_same_pairs.json``.  Writes ``table.md`` and ``table.json`` there.

    python tools/convert_gpu_table.py [--dir benchmarks/results/convert_h100_changed]

A directory without Triton's files (``ncu_triton.csv``) gives the table of our kernels alone.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

D = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "convert_h100"
WF = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"


def ncu_rows(path: Path) -> dict[str, dict[str, float]]:
    """First launch of each kernel name → {metric: value}."""
    text = path.read_text().splitlines()
    start = next(i for i, ln in enumerate(text) if ln.startswith('"ID"'))
    out: dict[str, dict[str, float]] = {}
    first_id: dict[str, str] = {}
    for r in csv.DictReader(text[start:]):
        name = r["Kernel Name"].split("(")[0]
        if first_id.setdefault(name, r["ID"]) != r["ID"]:
            continue
        out.setdefault(name, {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return out


def main() -> int:
    global D
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=str(D), help="the run's files (default: %(default)s)")
    D = Path(ap.parse_args().dir)
    pairs = [m for m in json.loads((D / "pairs.json").read_text()) if "skipped" not in m]
    ours = ncu_rows(D / "ncu_ours.csv")
    import re

    sass = {}
    for fn, c in json.loads((D / "sass_ours.json").read_text()).items():
        mm = re.match(r"_Z\d+k(\d+)", fn)
        if mm:
            sass[f"k{mm.group(1)}"] = c
    runs = {}
    for ln in (D / "run.txt").read_text().splitlines():
        i, e = ln.split()[:2]
        runs[int(i)] = runs.get(int(i), 0) + int(e)
    tri_rows = {}
    tri_by_index: dict[int, dict[str, float]] = {}
    if (D / "ncu_triton.csv").exists():
        text = (D / "ncu_triton.csv").read_text().splitlines()
        for ln in text:
            if ln.startswith('{"index"'):
                r = json.loads(ln)
                tri_rows[r["index"]] = r
        start = next(i for i, ln in enumerate(text) if ln.startswith('"ID"'))
        by_id: dict[str, dict[str, float]] = {}
        for r in csv.DictReader(text[start:]):
            by_id.setdefault(r["ID"], {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        tri_ncu = [by_id[k] for k in sorted(by_id, key=int)]
        tri_order = [r["index"] for r in sorted(tri_rows.values(), key=lambda r: r["index"]) if "error" not in r]
        tri_by_index = dict(zip(tri_order, tri_ncu))
    ptx_path = D / "triton39_ptx_same_pairs.json"
    ptx = {r["name"]: r for r in json.loads(ptx_path.read_text())} if ptx_path.exists() else {}
    table = []
    for m in pairs:
        i = m["index"]
        k = ours.get(f"k{i}", {})
        warps = m["threads"] // 32
        row = {
            "index": i, "name": m["name"], "element_bits": m["element_bits"], "warps": warps, "path": m["path"],
            "plan_instructions": m["instructions"], "plan_wavefronts": m["wavefronts"],
            "correct": runs.get(i) == 0,
            "measured": {
                "ld_wavefronts": k.get(WF + "ld.sum", 0) + k.get(WF + "ldsm.sum", 0),
                "st_wavefronts": k.get(WF + "st.sum", 0) + k.get(WF + "stsm.sum", 0),
                "ld_instructions": k.get("smsp__inst_executed_op_shared_ld.sum"),
                "st_instructions": k.get("smsp__inst_executed_op_shared_st.sum"),
                "cycles": k.get("sm__cycles_elapsed.max"),
                "sass_shfl": sass.get(f"k{i}", {}).get("SHFL"),
            },
        }
        if m["wavefronts"]:  # the plan's per-warp wavefronts times the warps of the CTA
            row["plan_cta_wavefronts"] = {"write": m["wavefronts"]["write"] * warps, "read": m["wavefronts"]["read"] * warps}
        t = tri_rows.get(i)
        if t is not None and "error" not in t:
            tn = tri_by_index.get(i, {})
            row["triton36"] = {
                "correct": t["correct"],
                "ld_wavefronts": tn.get(WF + "ld.sum", 0) + tn.get(WF + "ldsm.sum", 0),
                "st_wavefronts": tn.get(WF + "st.sum", 0) + tn.get(WF + "stsm.sum", 0),
                "ld_instructions": tn.get("smsp__inst_executed_op_shared_ld.sum"),
                "st_instructions": tn.get("smsp__inst_executed_op_shared_st.sum"),
                "cycles": tn.get("sm__cycles_elapsed.max"),
            }
        p = ptx.get(m["name"])
        if p and "instructions" in p.get("triton", {}):
            row["triton39_ptx"] = {"path": p["triton"]["path"], "instructions": p["triton"]["instructions"]}
        table.append(row)
    (D / "table.json").write_text(json.dumps(table, indent=0))
    lines = ["| # | pair | path | correct | plan wf (CTA) w/r | measured wf w/r | SHFL (SASS) | Triton 3.6 wf w/r | Triton 3.9 PTX path, shfl | cycles ours / Triton |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    agree = n_sm = agree_m = n_m = 0
    for r in table:
        pw = r.get("plan_cta_wavefronts")
        mw = r["measured"]
        pws = f"{pw['write']}/{pw['read']}" if pw else "-"
        mws = f"{mw['st_wavefronts']:.0f}/{mw['ld_wavefronts']:.0f}"
        matrix = any(op in r["plan_instructions"] for op in ("stmatrix", "ldmatrix"))
        if pw and not matrix:
            n_sm += 1
            agree += (pw["write"], pw["read"]) == (mw["st_wavefronts"], mw["ld_wavefronts"])
        if pw and matrix:
            n_m += 1
            agree_m += (pw["write"], pw["read"]) == (mw["st_wavefronts"], mw["ld_wavefronts"])
            pws += " (ldmatrix/stmatrix)"
        t = r.get("triton36")
        tws = f"{t['st_wavefronts']:.0f}/{t['ld_wavefronts']:.0f}" if t else "-"
        tp = r.get("triton39_ptx")
        tps = f"{tp['path']}, {tp['instructions'].get('shfl.sync', 0)}" if tp else "-"
        cyc = f"{mw['cycles']:.0f} / {t['cycles']:.0f}" if t and mw["cycles"] and t["cycles"] else "-"
        lines.append(f"| {r['index']} | {r['name']} | {r['path']} | {r['correct']} | {pws} | {mws} | {mw['sass_shfl']} | {tws} | {tps} | {cyc} |")
    summary = (f"{len(table)} conversions, {sum(r['correct'] for r in table)} correct on the H100; "
               f"shared-memory plans with ld/st.shared whose CTA wavefronts equal ncu's: {agree} of {n_sm}; "
               f"with ldmatrix/stmatrix: {agree_m} of {n_m}; "
               f"Triton kernels run: {sum(1 for r in table if 'triton36' in r)}, correct: "
               f"{sum(1 for r in table if r.get('triton36', {}).get('correct'))}")
    (D / "table.md").write_text(summary + "\n\n" + "\n".join(lines) + "\n")
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
