"""Measure the corpus on a GPU under Nsight Compute and compare with ``linlayout lint``.

    python3 tools/ttgir_corpus/measure_gpu.py OUT_DIR

Runs itself once under ``ncu`` (``--child``): that process launches every
kernel of ``kernels.CASES`` once (compiling it with the machine's Triton) and
writes the TTGIR Triton compiled to ``OUT_DIR/ttgir_gpu/NAME.ttgir``.  ncu
reads the exact per-instruction counters
``smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{ld,st,ldsm,stsm}.sum``.
Then each dumped TTGIR is linted with the kernel's grid and loop trip counts
and the table (kernel, predicted, measured) goes to ``OUT_DIR/gpu_table.json``
and ``OUT_DIR/gpu_table.md``.  ``--dry-run`` skips ncu and the GPU: it lints
``tests/data/ttgir`` with the same code, to check the script on a CPU.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

METRICS = {f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{k}.sum": k for k in ("ld", "st", "ldsm", "stsm")}
EXTRA = ["smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
         "sm__sass_inst_executed_op_ldsm.sum", "smsp__sass_inst_executed_op_shared_stsm.sum"]


def child(out: Path) -> None:
    import kernels
    import torch

    (out / "ttgir_gpu").mkdir(parents=True, exist_ok=True)
    order = []
    for case in kernels.CASES:
        args = case["make_args"](torch)
        try:
            k = case["fn"][case["grid"]](*args, **case["constexprs"], num_warps=case["num_warps"],
                                         num_stages=case["num_stages"])
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - report and go on with the others
            print(f"LAUNCH FAILED {case['name']}: {type(e).__name__}: {e}", flush=True)
            continue
        (out / "ttgir_gpu" / f"{case['name']}.ttgir").write_text(k.asm["ttgir"])
        order.append(case["name"])
    (out / "launch_order.json").write_text(json.dumps(order))


def run_ncu(out: Path) -> dict[str, dict[str, float]]:
    import kernels

    names = sorted({getattr(c["fn"], "__name__", None) or c["fn"].fn.__name__ for c in kernels.CASES})
    cmd = ["ncu", "--csv", "--page", "raw", "--clock-control", "none", "--metrics", ",".join(list(METRICS) + EXTRA),
           "--kernel-name", "regex:^(" + "|".join(names) + ")$", sys.executable, __file__, "--child", str(out)]
    env = dict(os.environ)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    (out / "ncu_stdout.txt").write_text(p.stdout[-200000:])
    (out / "ncu_stderr.txt").write_text(p.stderr[-50000:])
    order = json.loads((out / "launch_order.json").read_text())
    rows = [ln for ln in p.stdout.splitlines() if ln.startswith('"')]
    table = list(csv.reader(io.StringIO("\n".join(rows))))
    if not table:
        raise SystemExit(f"ncu gave no table (rc {p.returncode}); see ncu_stderr.txt")
    head = table[0]
    data = [r for r in table[1:] if r and r[0].isdigit()]
    measured = {}
    for name, r in zip(order, data):
        rec = dict(zip(head, r))
        m = {}
        for metric, short in METRICS.items():
            m[short] = float(rec.get(metric, "nan").replace(",", "") or "nan")
        for metric in EXTRA:
            m[metric] = float(rec.get(metric, "nan").replace(",", "") or "nan")
        m["kernel_name"] = rec.get("Kernel Name", "")
        measured[name] = m
    return measured


def predict(ttgir_dir: Path, dump: Path | None = None) -> dict[str, dict]:
    import kernels

    from linlayout.io.ttgir.lint import lint_json, lint_text, render_lint

    out = {}
    for case in kernels.CASES:
        f = ttgir_dir / f"{case['name']}.ttgir"
        if not f.exists():
            continue
        trips = {f"kernels.py:{kernels.loop_line(case['fn'], t)}": n for t, n in case["trips"].items()}
        try:
            rep = lint_text(f.read_text(), grid=case["grid"], trip_counts=trips)
        except Exception as e:  # noqa: BLE001 - one unreadable file must not hide the others
            out[case["name"]] = {"error": f"{type(e).__name__}: {e}"}
            continue
        out[case["name"]] = lint_json(rep)["total"]
        if dump is not None:
            dump.mkdir(parents=True, exist_ok=True)
            (dump / f"{case['name']}.lint.json").write_text(json.dumps(lint_json(rep), indent=1))
            (dump / f"{case['name']}.lint.txt").write_text(render_lint(rep) + "\n")
    return out


def table(measured_json: Path, ttgir_dir: Path) -> None:
    """Re-lint the stored GPU TTGIR and print the table (kernel, predicted, measured) as Markdown."""
    rows = json.loads(measured_json.read_text())["rows"]
    pred = predict(ttgir_dir)
    out = ["| kernel | predicted ld / ldsm / st / stsm | measured ld / ldsm / st / stsm | loads | stores | "
           "not counted by lint |", "|---|---|---|---|---|---|"]
    for r in rows:
        p = pred.get(r["kernel"], {})
        m = {k: int(v) for k, v in r["measured"].items()}
        pl, ps = (p.get("ld") or 0) + (p.get("ldsm") or 0), (p.get("st") or 0) + (p.get("stsm") or 0)
        ml, ms = m["ld"] + m["ldsm"], m["st"] + m["stsm"]
        nc = "; ".join(sorted({n.split(":")[0] + ": " + n.split(": ", 1)[1].split(":")[0][:60]
                               for n in p.get("not_counted", [])}))
        out.append(f"| {r['kernel']} | {p.get('ld')} / {p.get('ldsm')} / {p.get('st')} / {p.get('stsm')} | "
                   f"{m['ld']} / {m['ldsm']} / {m['st']} / {m['stsm']} | {'=' if pl == ml else f'{pl} vs {ml}'} | "
                   f"{'=' if ps == ms else f'{ps} vs {ms}'} | {nc} |")
    print("\n".join(out))


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        child(Path(sys.argv[2]))
        return 0
    if sys.argv[1:2] == ["--table"]:
        table(Path(sys.argv[2]), Path(sys.argv[3]))
        return 0
    if sys.argv[1:2] == ["--dry-run"]:
        pred = predict(HERE.parents[1] / "tests" / "data" / "ttgir")
        for k, v in pred.items():
            print(k, {x: v.get(x) for x in ("ld", "st", "ldsm", "stsm", "missing_trip_counts")})
        return 0
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    measured = run_ncu(out)
    pred_gpu = predict(out / "ttgir_gpu", out / "ttgir_gpu")
    pred_cpu = predict(HERE.parents[1] / "tests" / "data" / "ttgir")
    rows = []
    for name in measured:
        rows.append({"kernel": name, "predicted": {k: pred_gpu.get(name, {}).get(k) for k in ("ld", "st", "ldsm", "stsm")},
                     "predicted_from_cpu_ttgir": {k: pred_cpu.get(name, {}).get(k) for k in ("ld", "st", "ldsm", "stsm")},
                     "measured": {k: measured[name][k] for k in ("ld", "st", "ldsm", "stsm")},
                     "instructions": {k: measured[name][k] for k in EXTRA},
                     "not_counted": pred_gpu.get(name, {}).get("not_counted", [])})
    import triton
    (out / "gpu_table.json").write_text(json.dumps({"triton": triton.__version__, "rows": rows}, indent=1) + "\n")
    md = ["| kernel | predicted ld / st / ldsm / stsm | measured ld / st / ldsm / stsm |", "|---|---|---|"]
    for r in rows:
        p = r["predicted"]
        m = r["measured"]
        md.append(f"| {r['kernel']} | {p['ld']} / {p['st']} / {p['ldsm']} / {p['stsm']} | "
                  f"{m['ld']:.0f} / {m['st']:.0f} / {m['ldsm']:.0f} / {m['stsm']:.0f} |")
    (out / "gpu_table.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
