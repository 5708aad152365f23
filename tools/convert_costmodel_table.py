"""Compare every emitted plan with what ran on the GPU (``tools/convert_costmodel_run.sh``'s check part).

Per check kernel (one emitted plan): the elements (``run.txt``: wrong
elements over every pass), ncu's shared-memory wavefronts against the plan's
per-warp wavefronts times the warps, ncu's executed shared-memory store and
load instructions against the plan's (``st.shared`` + ``stmatrix``,
``ld.shared`` + ``ldmatrix``, per thread, times the warps of the grid), and the SASS of
the kernel (``sass.json``: static opcode counts; the emitted code is
straight-line, so static equals executed per thread) against the plan's
``shfl.sync`` (``SHFL``; two per 64-bit element are already in the plan's
count), ``bar.sync`` (``BAR``) and the shared-memory instructions
(``STS``+``STSM``, ``LDS``+``LDSM``).  Where ncu gave per-opcode executed
instructions (``sass__inst_executed_per_opcode``) they are compared too.

    python tools/convert_costmodel_table.py benchmarks/results/convert_costmodel

Writes ``check_table.md`` and ``check_table.json`` in that directory.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

WF = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"


def ncu_rows(path: Path) -> dict[str, dict[str, str]]:
    """Kernel name (``k<i>``) → {metric: value text} of an ncu ``--csv`` file (empty if missing)."""
    if not path.exists():
        return {}
    text = path.read_text().splitlines()
    start = next((i for i, ln in enumerate(text) if ln.startswith('"ID"')), None)
    if start is None:
        return {}
    out: dict[str, dict[str, str]] = {}
    for r in csv.DictReader(text[start:]):
        name = r["Kernel Name"].split("(")[0].strip()
        out.setdefault(name, {})[r["Metric Name"]] = r["Metric Value"]
    return out


def number(text: str | None) -> float:
    return float(text.replace(",", "")) if text else 0.0


def per_opcode(text: str | None) -> dict[str, float]:
    """``sass__inst_executed_per_opcode`` instance values (``OPC:n;OPC:n`` or ``(OPC: n)`` lists) → {opcode: n}."""
    out: dict[str, float] = {}
    if not text:
        return out
    for part in text.replace("(", ";").replace(")", ";").split(";"):
        if ":" in part:
            k, v = part.rsplit(":", 1)
            try:
                out[k.strip()] = out.get(k.strip(), 0) + float(v.replace(",", ""))
            except ValueError:
                pass
    return out


def expected(m: dict) -> dict[str, int]:
    """The plan's per-thread counts in SASS terms."""
    ins = m["instructions"]
    return {"SHFL": ins.get("shfl.sync", 0), "BAR": ins.get("bar.sync", 0),
            "ST": ins.get("st.shared", 0) + ins.get("stmatrix", 0),
            "LD": ins.get("ld.shared", 0) + ins.get("ldmatrix", 0)}


def row(m: dict, errors: int | None, ncu: dict[str, str], sass: dict[str, int]) -> dict:
    warps = m["threads"] // 32 * m["blocks"]  # ncu sums over every warp of the grid
    want = expected(m)
    ins = m["instructions"]
    wf = m["wavefronts"] or {"write": 0, "read": 0}
    got_sass = {"SHFL": sass.get("SHFL"), "BAR": sass.get("BAR"),
                "ST": sass.get("STS", 0) + sass.get("STSM", 0) if sass else None,
                "LD": sass.get("LDS", 0) + sass.get("LDSM", 0) if sass else None}
    r = {"index": m["index"], "name": m["name"], "path": m["path"], "element_bits": m["element_bits"], "warps": warps,
         "plan": want, "plan_wavefronts": wf, "correct": errors == 0 if errors is not None else None,
         "sass": got_sass, "sass_equal": bool(sass) and all(got_sass[k] == want[k] for k in want),
         "bar_warp_sync_plan": ins.get("bar.warp.sync", 0), "sass_warpsync": sass.get("WARPSYNC")}
    if ncu:  # smsp__inst_executed_op_shared_st/ld count st/ld.shared, not stmatrix/ldmatrix
        got = {"write": number(ncu.get(WF + "st.sum")) + number(ncu.get(WF + "stsm.sum")),
               "read": number(ncu.get(WF + "ld.sum")) + number(ncu.get(WF + "ldsm.sum")),
               "st": number(ncu.get("smsp__inst_executed_op_shared_st.sum")),
               "ld": number(ncu.get("smsp__inst_executed_op_shared_ld.sum"))}
        r["ncu"] = got
        r["ncu_equal"] = (got["write"] == wf["write"] * warps and got["read"] == wf["read"] * warps
                          and got["st"] == ins.get("st.shared", 0) * warps and got["ld"] == ins.get("ld.shared", 0) * warps)
        ops = per_opcode(ncu.get("sass__inst_executed_per_opcode"))
        if ops:
            plan_ops = {"SHFL": ins.get("shfl.sync", 0), "BAR": ins.get("bar.sync", 0), "STS": ins.get("st.shared", 0),
                        "LDS": ins.get("ld.shared", 0), "STSM": ins.get("stmatrix", 0), "LDSM": ins.get("ldmatrix", 0)}
            r["ncu_per_opcode_per_warp"] = {k: ops.get(k, 0) / warps for k in plan_ops}
            r["ncu_opcode_equal"] = all(ops.get(k, 0) == n * warps for k, n in plan_ops.items())
    return r


def main() -> int:
    d = Path(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/convert_costmodel")
    meta = [m for m in json.loads((d / "check.json").read_text()) if "skipped" not in m]
    errors: dict[int, int] = {}
    for ln in (d / "run.txt").read_text().splitlines():
        f = ln.split()
        if len(f) >= 2 and f[0].isdigit():
            errors[int(f[0])] = errors.get(int(f[0]), 0) + int(f[1]) + (0 if f[2:3] == ["ok"] else 1)
    ncu: dict[str, dict[str, str]] = {}
    for path in sorted(d.glob("ncu_*.csv")):
        for kernel, metrics in ncu_rows(path).items():
            ncu.setdefault(kernel, {}).update(metrics)
    sass = json.loads((d / "sass.json").read_text())
    meta_by = {m["index"]: m for m in meta}
    rows = [row(m, errors.get(m["index"]), ncu.get(f"k{m['index']}", {}), sass.get(f"k{m['index']}", {})) for m in meta]
    (d / "check_table.json").write_text(json.dumps(rows, indent=0))
    ran = [r for r in rows if r["correct"] is not None]
    with_ncu = [r for r in rows if "ncu" in r]
    lines = [
        f"{len(rows)} emitted plans; run on the GPU: {len(ran)}, every element correct: {sum(r['correct'] for r in ran)}",
        f"SASS SHFL, BAR, STS+STSM, LDS+LDSM equal to the plan's shfl.sync, bar.sync, stores, loads: "
        f"{sum(r['sass_equal'] for r in rows)} of {len(rows)}",
        f"ncu wavefronts and executed st.shared/ld.shared instructions equal to the plan's: "
        f"{sum(r['ncu_equal'] for r in with_ncu)} of {len(with_ncu)} profiled",
    ]
    default = [r for r in rows if not r["name"].startswith("v")]
    lines.append(f"default plans (plan_conversion as is): {len(default)}, correct {sum(bool(r['correct']) for r in default)}, "
                 f"SASS equal {sum(r['sass_equal'] for r in default)}, ncu equal {sum(r.get('ncu_equal', False) for r in default)}")
    unequal = [r for r in rows if not (r["sass_equal"] and r.get("ncu_equal", True))]
    matrix_reps = [r for r in unequal if r["name"].split("__")[0].endswith(("_r2", "_r4"))
                   and any(op in meta_by[r["index"]]["instructions"] for op in ("stmatrix", "ldmatrix"))]
    lines.append(f"plans whose counts differ from what ran: {len(unequal)}, of which {len(matrix_reps)} are shared memory "
                 f"in 2 or 4 reps with stmatrix/ldmatrix in the plan (to_cuda writes matrix instructions in one rep "
                 f"only, vectors in several)")
    opc = [r for r in with_ncu if "ncu_opcode_equal" in r]
    if opc:
        lines.append(f"ncu executed instructions per opcode (SHFL, BAR, STS, LDS, STSM, LDSM) equal to the plan's "
                     f"shfl.sync, bar.sync, st.shared, ld.shared, stmatrix, ldmatrix: "
                     f"{sum(r['ncu_opcode_equal'] for r in opc)} of {len(opc)} (the default plans)")
    lines += ["", "| # | plan | path | bits | warps | correct | plan shfl/bar/st/ld | SASS | plan wf w/r (CTA) | ncu wf w/r, st/ld |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        p, s = r["plan"], r["sass"]
        n = r.get("ncu")
        wf = r["plan_wavefronts"]
        ncu_txt = f"{n['write']:.0f}/{n['read']:.0f}, {n['st']:.0f}/{n['ld']:.0f}" if n else "-"
        lines.append(f"| {r['index']} | {r['name']} | {r['path']} | {r['element_bits']} | {r['warps']} | {r['correct']} | "
                     f"{p['SHFL']}/{p['BAR']}/{p['ST']}/{p['LD']} | {s['SHFL']}/{s['BAR']}/{s['ST']}/{s['LD']} | "
                     f"{wf['write'] * r['warps']}/{wf['read'] * r['warps']} | {ncu_txt} |")
    (d / "check_table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:7]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
