"""Measure the shared-memory traffic of every corpus kernel on a GPU with Nsight Compute.

    python3 tools/ttgir_corpus/measure_ncu.py OUT_DIR [--only NAME,...] [--workers 8] [--no-ncu]

Needs a GPU, torch and Triton (the H100 machine has Triton 3.6); does not need linlayout.  Three phases,
each one's failures recorded rather than fatal:

1. **Compile and dump** (``--workers`` processes at once, no profiler): each launches its share of
   ``corpus.CASES`` once, which compiles it with the machine's Triton, and writes
   ``OUT/ttgirXY/NAME.ttgir`` (XY = Triton's major and minor version; locations as compile_cpu.py
   writes them) and ``OUT/compiled/NAME.json`` (PTX and SASS family counts, as asm_counts.py counts
   them, shared-memory bytes, or the error).  This also fills Triton's cache for phase 2.
2. **Profile**: one process under ``ncu`` launches every case that compiled, once each, in corpus order
   (``OUT/launch_order.json``), and ncu collects :data:`METRICS` (those this ncu knows; see
   ``OUT/metrics.json``) into ``OUT/ncu_raw.csv``.
3. **Table**: ``OUT/measured.json`` (per kernel: the case's grid, warps, stages, trip counts and notes,
   phase 1's counts, ncu's metrics, and any error) and ``OUT/measured.md``.

The exact per-instruction counters are the ``smsp__sass_l1tex_...`` ones; the ``l1tex__...`` totals
drift by a few percent on multi-CTA kernels (tests/data and the project's reference notes say so) and
are kept for comparison only.
"""

from __future__ import annotations

import argparse
import csv
import glob
import io
import json
import os
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

WAVEFRONTS = [f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{k}.sum"
              for k in ("ld", "st", "ldsm", "stsm", "ldgsts", "atom")]
WAVEFRONT_TOTALS = [f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{k}.sum" for k in ("ld", "st", "ldgsts", "atom")]
INSTRUCTIONS = ["smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
                "smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum",
                "smsp__sass_inst_executed_op_ldsm.sum", "sm__sass_inst_executed_op_ldsm.sum",
                "smsp__sass_inst_executed_op_shared_stsm.sum", "smsp__sass_inst_executed_op_stsm.sum",
                "smsp__sass_inst_executed_op_ldgsts.sum", "smsp__sass_inst_executed_op_shared_atom.sum",
                "smsp__inst_executed_op_shared_atom.sum", "smsp__sass_inst_executed_op_global_atom.sum",
                "smsp__sass_inst_executed_op_global_red.sum"]
LAUNCH = ["launch__grid_size", "launch__block_size"]
METRICS = WAVEFRONTS + WAVEFRONT_TOTALS + INSTRUCTIONS + LAUNCH
# Seen working on the H100's ncu 2025.3.1 (the project's reference notes): the fallback if ncu refuses a name.
SAFE_METRICS = WAVEFRONTS[:5] + WAVEFRONT_TOTALS[:2] + [
    "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_shared_stsm.sum", "sm__sass_inst_executed_op_ldsm.sum",
    "smsp__sass_inst_executed_op_ldgsts.sum"] + LAUNCH
# Phase limits: together well under the device machine's 10 minutes a command.
NCU_TIMEOUT_S = 330
WORKER_TIMEOUT_S = 180
RETRY_IF_FAILED_WITHIN_S = 90


def version_dir() -> str:
    import triton

    return "ttgir" + "".join(triton.__version__.split(".")[:2])


def launch(case, torch):
    """Launch one case once (by keyword: non-constexpr arguments from make_args, then its constants)."""
    names = [n for n, t in case["signature"].items() if t != "constexpr"]
    values = case["make_args"](torch)
    kwargs = dict(zip(names, values, strict=True))
    kwargs.update(case["constexprs"])
    kernel = case["fn"][case["grid"]](**kwargs, num_warps=case["num_warps"], num_stages=case["num_stages"])
    torch.cuda.synchronize()
    return kernel, values


def compile_worker(out: Path, index: int, count: int, only: set[str]) -> None:
    """Phase 1 for cases index, index + count, ...: launch, dump TTGIR and the static counts."""
    import asm_counts
    import compile_cpu
    import corpus
    import torch

    ttgir_dir, compiled = out / version_dir(), out / "compiled"
    for case in [c for c in corpus.all_cases() if not only or c["name"] in only][index::count]:
        row = {"name": case["name"]}
        try:
            kernel, _ = launch(case, torch)
            ttgir = compile_cpu.relocate(kernel.asm["ttgir"])
            (ttgir_dir / f"{case['name']}.ttgir").write_text(ttgir)
            row.update(ok=True, kernel_name=kernel.name if hasattr(kernel, "name") else kernel.metadata.name,
                       shared_bytes=kernel.metadata.shared, ttgir_ops=asm_counts.ttgir_ops(ttgir),
                       ptx=asm_counts.count_ptx(kernel.asm["ptx"]), sass=asm_counts.compiled_sass(kernel))
        except Exception as e:  # noqa: BLE001 - record it; the other cases go on
            row.update(ok=False, error=f"{type(e).__name__}: {e}"[:4000], traceback=traceback.format_exc()[-4000:])
        (compiled / f"{case['name']}.json").write_text(json.dumps(row, indent=1) + "\n")
        print(case["name"], "ok" if row["ok"] else "FAILED", flush=True)


def compile_all(out: Path, workers: int, only: set[str]) -> dict[str, dict]:
    (out / version_dir()).mkdir(parents=True, exist_ok=True)
    (out / "compiled").mkdir(parents=True, exist_ok=True)
    procs = []
    for i in range(workers):
        log = open(out / "compiled" / f"worker{i}.log", "w")
        cmd = [sys.executable, __file__, "--compile-worker", str(out), str(i), str(workers), ",".join(sorted(only))]
        procs.append((subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), log))
    deadline = time.time() + WORKER_TIMEOUT_S
    for p, log in procs:
        try:
            p.wait(timeout=max(1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
            log.write(f"\nKILLED after {WORKER_TIMEOUT_S} s\n")
        log.close()
    return {f.stem: json.loads(f.read_text()) for f in sorted((out / "compiled").glob("*.json"))}


def ncu_child(out: Path, names: list[str]) -> None:
    """Phase 2's profiled process: launch each named case once, in order, recording what ran."""
    import corpus
    import torch

    cases = corpus.by_name()
    order = []
    for name in names:
        try:
            launch(cases[name], torch)
            order.append(name)
        except Exception as e:  # noqa: BLE001
            print(f"LAUNCH FAILED {name}: {type(e).__name__}: {e}", flush=True)
        (out / "launch_order.json").write_text(json.dumps(order) + "\n")


def find_ncu() -> str | None:
    found = shutil.which("ncu")
    if found:
        return found
    candidates = sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu") + glob.glob("/usr/local/cuda*/bin/ncu"))
    return candidates[-1] if candidates else None


def known_metrics(ncu: str, out: Path) -> list[str]:
    """The metrics of METRICS this ncu knows (it fails as a whole on an unknown name)."""
    listing = ""
    for extra in ([], ["--chip", "gh100"]):
        try:
            p = subprocess.run([ncu, "--query-metrics", *extra], capture_output=True, text=True, timeout=45)
        except subprocess.TimeoutExpired:
            continue
        if p.returncode == 0 and "smsp__" in p.stdout:
            listing = p.stdout
            break
    bases = {line.split()[0] for line in listing.splitlines() if line.strip() and not line.startswith(" ")}
    keep = [m for m in METRICS if not bases or m in LAUNCH or m.rsplit(".", 1)[0] in bases]
    (out / "metrics.json").write_text(json.dumps({"requested": METRICS, "used": keep,
                                                  "unknown_to_this_ncu": [m for m in METRICS if m not in keep],
                                                  "checked": bool(bases)}, indent=1) + "\n")
    return keep


def profile(out: Path, names: list[str]) -> dict[str, dict]:
    """Phase 2: run ncu over one process that launches each case once; ncu's rows by case name."""
    import corpus

    ncu = find_ncu()
    if ncu is None:
        (out / "ncu_error.txt").write_text("ncu not found on PATH or under /opt/nvidia/nsight-compute\n")
        return {}
    cases = corpus.by_name()
    started = time.time()
    measured = run_ncu(ncu, known_metrics(ncu, out), out, names, cases)
    if not measured and time.time() - started < RETRY_IF_FAILED_WITHIN_S:
        # A quick failure is most likely a metric this ncu refuses: once more with the names known to work.
        (out / "ncu_first_try_stderr.txt").write_text((out / "ncu_stderr.txt").read_text())
        measured = run_ncu(ncu, SAFE_METRICS, out, names, cases)
    return measured


def run_ncu(ncu: str, metrics: list[str], out: Path, names: list[str], cases: dict) -> dict[str, dict]:
    kernels = sorted({getattr(cases[n]["fn"], "__name__", None) or cases[n]["fn"].fn.__name__ for n in names})
    for stale in ("ncu_raw.csv", "launch_order.json"):
        (out / stale).unlink(missing_ok=True)
    cmd = [ncu, "--csv", "--page", "raw", "--clock-control", "none", "--log-file", str(out / "ncu_raw.csv"),
           "--metrics", ",".join(metrics), "--kernel-name", "regex:^(" + "|".join(kernels) + ")$",
           sys.executable, __file__, "--ncu-child", str(out), ",".join(names)]
    (out / "ncu_command.txt").write_text(" ".join(cmd) + "\n")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=NCU_TIMEOUT_S)
        (out / "ncu_stdout.txt").write_text(p.stdout[-200000:])
        (out / "ncu_stderr.txt").write_text(p.stderr[-50000:] + f"\nexit status {p.returncode}\n")
    except subprocess.TimeoutExpired as e:
        (out / "ncu_stderr.txt").write_text(f"ncu timed out after {NCU_TIMEOUT_S} s\n{e.stderr or ''}")
    return read_ncu(out, cases)


def read_ncu(out: Path, cases: dict) -> dict[str, dict]:
    """ncu's raw CSV rows matched to the launch order, each checked against the case's grid and block."""
    order_file = out / "launch_order.json"
    texts = [(out / f).read_text() for f in ("ncu_raw.csv", "ncu_stdout.txt") if (out / f).exists()]
    lines = next(([ln for ln in t.splitlines() if ln.startswith('"')] for t in texts if '"ID"' in t), [])
    if not lines or not order_file.exists():
        return {}
    table = list(csv.reader(io.StringIO("\n".join(lines))))
    if not table:
        return {}
    head, rows = table[0], [r for r in table[1:] if r and r[0].strip().isdigit()]
    order = json.loads(order_file.read_text())
    measured = {}
    for name, r in zip(order, rows):
        rec = dict(zip(head, r))
        row = {"kernel_name": rec.get("Kernel Name", ""), "metrics": {}}
        for m in METRICS:
            if m in rec:
                text = rec[m].replace(",", "").strip()
                row["metrics"][m] = float(text) if text.replace(".", "", 1).isdigit() else text
        case = cases[name]
        grid = case["grid"][0] * case["grid"][1] * case["grid"][2]
        got = (row["metrics"].get("launch__grid_size"), row["metrics"].get("launch__block_size"))
        row["launch_matches_case"] = got == (grid, 32 * case["num_warps"]) if None not in got else None
        measured[name] = row
    if len(rows) != len(order):
        measured["_warning"] = {"rows": len(rows), "launched": len(order)}
    return measured


def case_record(case) -> dict:
    return {"grid": list(case["grid"]), "num_warps": case["num_warps"], "num_stages": case["num_stages"],
            "trips": case["trips"], "data_dependent": case.get("data_dependent", ""),
            "loop_note": case.get("loop_note", "")}


def summary(rows: dict[str, dict]) -> str:
    short = {"ld": WAVEFRONTS[0], "st": WAVEFRONTS[1], "ldsm": WAVEFRONTS[2], "stsm": WAVEFRONTS[3],
             "ldgsts": WAVEFRONTS[4], "atom": WAVEFRONTS[5]}
    out = ["| kernel | status | wavefronts ld / st / ldsm / stsm / ldgsts / atom | launch ok |", "|---|---|---|---|"]
    for name, r in rows.items():
        m = (r.get("ncu") or {}).get("metrics", {})
        wf = " / ".join(str(int(m[v])) if isinstance(m.get(v), float) else "-" for v in short.values())
        status = "ok" if r.get("ncu") else ("not profiled" if r.get("compiled", {}).get("ok") else "compile failed")
        out.append(f"| {name} | {status} | {wf} | {(r.get('ncu') or {}).get('launch_matches_case')} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--compile-worker"]:
        compile_worker(Path(argv[1]), int(argv[2]), int(argv[3]), set(filter(None, argv[4].split(","))))
        return 0
    if argv[:1] == ["--ncu-child"]:
        ncu_child(Path(argv[1]), [n for n in argv[2].split(",") if n])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--only", default="", help="comma-separated case names (default: the whole corpus)")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--no-ncu", action="store_true", help="phase 1 only")
    args = parser.parse_args(argv)
    import corpus
    import torch
    import triton

    args.out.mkdir(parents=True, exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    unknown = only - set(corpus.by_name())
    if unknown:
        parser.error(f"unknown case names: {sorted(unknown)}")
    started = time.time()
    compiled = compile_all(args.out, args.workers, only)
    names = [c["name"] for c in corpus.all_cases() if compiled.get(c["name"], {}).get("ok")]
    measured = {} if args.no_ncu else profile(args.out, names)
    rows = {c["name"]: dict(case_record(c), compiled=compiled.get(c["name"], {"ok": False, "error": "not run"}),
                            ncu=measured.get(c["name"]))
            for c in corpus.all_cases() if not only or c["name"] in only}
    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    result = {"triton": triton.__version__, "torch": torch.__version__, "device": device,
              "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "seconds": round(time.time() - started),
              "command": "python3 tools/ttgir_corpus/measure_ncu.py " + " ".join(argv),
              "warning": measured.get("_warning"), "kernels": rows}
    (args.out / "measured.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out / "measured.md").write_text(summary(rows))
    failed = [n for n, r in rows.items() if not r["ncu"]]
    print(f"{len(rows) - len(failed)} of {len(rows)} kernels measured in {result['seconds']} s; "
          f"not measured: {failed}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
