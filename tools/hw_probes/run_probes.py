#!/usr/bin/env python3
"""Build and run the hardware fragment probes; write one JSON file of measured ownership tables.

Typical use, from the repository root on a machine with an sm_90 GPU (H100):

    python3 tools/hw_probes/run_probes.py --check

compiles tools/hw_probes/probes.cu for sm_90a, runs every probe (well under a minute), writes
tests/data/hw_fragments_h100.json and compares it with the PTX ISA formulas (expected.py).

Other modes:
    --dry-run            compile and build every probe input, run nothing (no GPU needed)
    --simulate           run the probes on a CPU model of the PTX layouts instead of the GPU
                         (tests the whole pipeline without a GPU; output is marked simulated)
    --from-json PATH     only compare an existing measured file with expected (with --check)

Exit status: 0 all measured and (with --check) equal to expected; 1 some operand inconsistent,
failed or different; 2 no GPU / no compiler / build failure; 64 bad arguments.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from array import array
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import expected as X  # noqa: E402
import probelib as P  # noqa: E402

REPO = HERE.parents[1]
DEFAULT_OUT = REPO / "tests" / "data" / "hw_fragments_h100.json"


class Fatal(Exception):
    def __init__(self, msg: str, code: int = 2):
        super().__init__(msg)
        self.code = code


def log(msg: str) -> None:
    print(msg, flush=True)


def run_cmd(cmd: list[str], timeout: float, cwd: Path | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return subprocess.CompletedProcess(cmd, 124, out, f"timed out after {timeout:.0f} s")
    except OSError as e:
        return subprocess.CompletedProcess(cmd, 127, "", str(e))


# --------------------------------------------------------------------------------------------
# Toolchain and device facts
# --------------------------------------------------------------------------------------------


def find_nvcc(explicit: str | None) -> str:
    for cand in [explicit, os.environ.get("NVCC"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"]:
        if cand and (os.path.isfile(cand) or shutil.which(cand)):
            return cand
    raise Fatal("nvcc not found: put it on PATH, set NVCC, or pass --nvcc PATH")


def nvcc_version(nvcc: str) -> str:
    r = run_cmd([nvcc, "--version"], 60)
    lines = [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]
    return " | ".join(lines[-2:]) if lines else f"unknown ({r.stderr.strip()})"


def compile_probes(nvcc: str, build_dir: Path, timeout: float) -> tuple[Path, list[str]]:
    build_dir.mkdir(parents=True, exist_ok=True)
    exe = build_dir / "probes"
    cmd = [nvcc, "-O2", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-o", str(exe), str(HERE / "probes.cu")]
    log("compile: " + shlex.join(cmd))
    t0 = time.time()
    r = run_cmd(cmd, timeout)
    if r.returncode != 0:
        raise Fatal(f"nvcc failed (exit {r.returncode}):\n{r.stdout}\n{r.stderr}".strip())
    warn = (r.stdout + r.stderr).strip()
    if warn:
        log("nvcc said:\n" + warn)
    log(f"compiled in {time.time() - t0:.1f} s")
    return exe, cmd


def check_registry(exe: Path) -> None:
    """probes.cu's kProbes must agree with probelib.probe_registry() (runs without a GPU)."""
    r = run_cmd([str(exe), "--list"], 60)
    if r.returncode != 0:
        raise Fatal(f"{exe} --list failed: {r.stdout}{r.stderr}")
    have: dict[str, tuple[tuple[int, ...], int]] = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if not parts:
            continue
        kv = dict(p.split("=", 1) for p in parts[1:])
        secs = tuple(int(kv[f"sec{i}"]) for i in range(int(kv["nsec"])))
        have[parts[0]] = (secs, int(kv["out"]))
    want = P.probe_registry()
    if have != want:
        diff = sorted(set(have.items()) ^ set(want.items()))
        raise Fatal(f"probes.cu and probelib.py disagree on the probe registry: {diff[:6]}")


def device_facts(exe: Path | None) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    r = run_cmd(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap,memory.total", "--format=csv,noheader"], 30)
    if r.returncode == 0 and r.stdout.strip():
        first = r.stdout.strip().splitlines()[0]
        parts = [p.strip() for p in first.split(",")]
        facts["nvidia_smi"] = first
        if len(parts) >= 2:
            facts["name"], facts["driver"] = parts[0], parts[1]
        if len(parts) >= 3:
            facts["compute_cap"] = parts[2]
    else:
        facts["nvidia_smi_error"] = (r.stderr or r.stdout).strip()[:300] or f"exit {r.returncode}"
    if exe is not None:
        r = run_cmd([str(exe), "--info"], 60)
        kv = dict(ln.split("=", 1) for ln in r.stdout.splitlines() if "=" in ln)
        facts["cuda_properties"] = kv
        if r.returncode != 0:
            facts["error"] = kv.get("error") or (r.stderr.strip() or f"probes --info exited {r.returncode}")
        else:
            facts.setdefault("name", kv.get("name"))
            cc = kv.get("compute_capability")
            if cc:
                facts["compute_cap"] = cc
    return facts


# --------------------------------------------------------------------------------------------
# Running probes
# --------------------------------------------------------------------------------------------


def execute(exe: Path, runs: list[P.ProbeRun], work: Path, timeout: float) -> tuple[dict[str, array], dict[str, str], list[str]]:
    """Write inputs, run probes.cu over them, read outputs.  Returns (outputs, failures, commands)."""
    for run in runs:
        (work / f"{run.name}.in").write_bytes(run.to_bytes())
        out = work / f"{run.name}.out"
        if out.exists():
            out.unlink()
    names = [r.name for r in runs]
    fails: dict[str, str] = {}
    cmds = [shlex.join([str(exe), str(work), *names])]
    t0 = time.time()
    r = run_cmd([str(exe), str(work), *names], timeout)
    log(f"probes ran in {time.time() - t0:.1f} s (exit {r.returncode})")
    for line in r.stdout.splitlines():
        if line.startswith("FAIL"):
            log("  " + line)
            m = re.match(r"FAIL (\S+): (.*)", line)
            if m:
                fails[m.group(1)] = m.group(2)
    if r.returncode not in (0, 1):
        tail = (r.stderr or "").strip()
        if tail:
            log("  stderr: " + tail[-500:])
        # A CUDA error may have killed the context: retry every probe without output alone.
        missing = [n for n in names if not (work / f"{n}.out").exists()]
        if missing:
            log(f"retrying {len(missing)} probes one by one")
        timeouts = 0
        for name in missing:
            if timeouts >= 2:  # a hung GPU: do not spend minutes per remaining probe
                fails[name] = "not run (two earlier probes timed out)"
                continue
            rr = run_cmd([str(exe), str(work), name], min(timeout, 60.0))
            cmds.append(shlex.join([str(exe), str(work), name]))
            timeouts = timeouts + 1 if rr.returncode == 124 else 0
            msg = " ".join(ln for ln in rr.stdout.splitlines() if ln.startswith(("OK", "FAIL")))
            if rr.returncode != 0:
                fails[name] = msg or (rr.stderr.strip()[-300:] or f"exit {rr.returncode}")
                log(f"  {name}: {fails[name]}")
            else:
                fails.pop(name, None)
    outputs: dict[str, array] = {}
    for run in runs:
        path = work / f"{run.name}.out"
        if not path.exists():
            fails.setdefault(run.name, "no output")
            continue
        a = array("I")
        a.frombytes(path.read_bytes())
        if len(a) != run.n_exp * run.out_words:
            fails[run.name] = f"output has {len(a)} words, expected {run.n_exp * run.out_words}"
            continue
        outputs[run.name] = a
        fails.pop(run.name, None)
    return outputs, fails, cmds


def simulate_all(runs: list[P.ProbeRun], model: dict[str, Any], reading: str = "ptx") -> tuple[dict[str, array], dict[str, str], list[str]]:
    return {r.name: P.simulate(r, model, reading) for r in runs}, {}, ["(simulated on the CPU from the PTX formulas)"]


Executor = Callable[[list[P.ProbeRun]], tuple[dict[str, array], dict[str, str], list[str]]]


def measure(catalogue: dict[str, Any], executor: Executor) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """Build every probe, run it through ``executor``, decode.  If some wgmma D table is not clean,
    rerun the wgmma probes with the descriptor's LBO/SBO roles swapped and attach the result as a
    diagnostic (it tells a misread descriptor apart from a genuinely different layout)."""
    t0 = time.time()
    runs = P.build_all(catalogue)
    log(f"built {len(runs)} probe inputs ({sum(r.n_exp for r in runs)} experiments) in {time.time() - t0:.1f} s")
    outputs, fails, cmds = executor(runs)
    t1 = time.time()
    docs = analyse(catalogue, runs, outputs, fails)
    log(f"decoded in {time.time() - t1:.1f} s")
    if wgmma_ss_broken(docs):
        log("some wgmma D tables are not clean; re-running wgmma with the LBO/SBO roles swapped (diagnostic)")
        cat_w = {k: v for k, v in catalogue.items() if v["family"] == "wgmma"}
        runs_w = P.build_all(cat_w, hypothesis="swapped")
        out_w, fails_w, cmds_w = executor(runs_w)
        cmds = cmds + cmds_w
        for name, f in fails_w.items():
            fails[name + " (swapped)"] = f
        docs_w = analyse(cat_w, runs_w, out_w, fails_w)
        for k, dw in docs_w.items():
            docs[k]["swapped_descriptor_diagnostic"] = {
                op: {"status": o["status"], "problems": o.get("problems", [])[:5],
                     "entries": o["entries"] if o["status"] == "ok" else []}
                for op, o in dw["operands"].items()
            }
    return docs, fails, cmds


# --------------------------------------------------------------------------------------------
# Assembling the document
# --------------------------------------------------------------------------------------------


def operand_doc(meta: dict[str, Any], res: P.OperandResult | None, failure: str | None) -> dict[str, Any]:
    doc = {k: v for k, v in meta.items() if k != "entries"}
    if res is None:
        doc.update(status="failed", problems=[failure or "not run"], entries=[])
        return doc
    status, problems = res.status(meta)
    doc["status"] = status
    doc["method"] = res.method
    if res.decoded_with:
        doc["decoded_with"] = res.decoded_with
    if problems:
        doc["problems"] = problems[:40]
    key = ("thread" if "thread" in meta["keys"] else "lane")
    doc["entries"] = sorted(res.entries, key=lambda e: (e[key], e["reg"], e["pos"]))
    return doc


def analyse(catalogue: dict[str, Any], runs: list[P.ProbeRun], outputs: dict[str, array], fails: dict[str, str]) -> dict[str, Any]:
    by_name = {r.name: r for r in runs}
    docs: dict[str, Any] = {}
    for name, ins in catalogue.items():
        fam = ins["family"]
        d: dict[str, Any] = {k: v for k, v in ins.items() if k != "operands"}
        ops: dict[str, Any] = {}
        if fam == "mma":
            pname = P.MMA_PROBE[name]
            d["probes"] = [pname]
            if pname in outputs:
                res, gauge = P.decode_mma(by_name[pname], outputs[pname], ins)
                d["gauge"] = gauge
                for op, meta in ins["operands"].items():
                    ops[op] = operand_doc(meta, res.get(op), None)
            else:
                for op, meta in ins["operands"].items():
                    ops[op] = operand_doc(meta, None, f"probe {pname} failed: {fails.get(pname, 'no output')}")
        elif fam == "wgmma":
            n, ab = ins["shape"]["n"], ins["dtype"]
            ss, rs = f"wgmma_ss_{ab}_n{n}", f"wgmma_rs_{ab}_n{n}"
            d["probes"] = [ss, rs]
            d["hypothesis"] = by_name[ss].info["hypothesis"] if ss in by_name else "ptx"
            dres = P.decode_wgmma_ss(by_name[ss], outputs[ss]) if ss in outputs else None
            ops["D"] = operand_doc(ins["operands"]["D"], dres, f"probe {ss} failed: {fails.get(ss, 'no output')}")
            if ops["D"]["status"] == "ok":
                dtab, dwith = ops["D"]["entries"], "measured D (SS form)"
            else:
                dtab, dwith = ins["operands"]["D"]["entries"], "expected D (the measured D table was not clean)"
            ares = P.decode_wgmma_rs(by_name[rs], outputs[rs], dtab, dwith) if rs in outputs else None
            ops["A"] = operand_doc(ins["operands"]["A"], ares, f"probe {rs} failed: {fails.get(rs, 'no output')}")
        else:
            pname = f"{fam}_x{ins['num']}{'_trans' if ins['trans'] else ''}"
            d["probes"] = [pname]
            ((op, meta),) = ins["operands"].items()
            res = P.decode_matrix(by_name[pname], outputs[pname]) if pname in outputs else None
            ops[op] = operand_doc(meta, res, f"probe {pname} failed: {fails.get(pname, 'no output')}")
        d["operands"] = ops
        docs[name] = d
    return docs


def wgmma_ss_broken(docs: dict[str, Any]) -> bool:
    return any(d["family"] == "wgmma" and d["operands"]["D"]["status"] != "ok" for d in docs.values())


# --------------------------------------------------------------------------------------------
# Check against expected
# --------------------------------------------------------------------------------------------


def check(doc: dict[str, Any], limit: int = 8) -> tuple[int, list[str]]:
    """Compare a measured document with expected.py; returns (number of differing operands, report lines)."""
    exp = X.catalogue()
    lines: list[str] = []
    bad = 0
    for name, ins in exp.items():
        got = doc.get("instructions", {}).get(name)
        for op, meta in ins["operands"].items():
            label = f"{name} {op}"
            m = (got or {}).get("operands", {}).get(op)
            if m is None:
                lines.append(f"MISSING  {label}")
                bad += 1
                continue
            diffs = X.compare_operand(m.get("entries", []), meta["entries"], limit)
            if m.get("status") != "ok":
                lines.append(f"{m.get('status', '?').upper():8s} {label}: " + "; ".join(m.get("problems", [])[:3]))
                bad += 1
                if m.get("entries"):
                    lines += ["         " + ln for ln in diffs]
            elif diffs:
                lines.append(f"DIFF     {label}")
                lines += ["         " + ln for ln in diffs]
                bad += 1
            else:
                lines.append(f"MATCH    {label} ({len(meta['entries'])} entries)")
    return bad, lines


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Measure register-fragment ownership on an sm_90 GPU (see README.md).")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"JSON to write (default {DEFAULT_OUT.relative_to(REPO)})")
    ap.add_argument("--check", action="store_true", help="compare the result with expected.py and print differences")
    ap.add_argument("--dry-run", action="store_true", help="compile and build the inputs only (no GPU needed)")
    ap.add_argument("--simulate", action="store_true", help="use a CPU model of the PTX layouts instead of the GPU")
    ap.add_argument("--from-json", type=Path, help="check this existing measured JSON (implies --check, runs nothing)")
    ap.add_argument("--nvcc", help="nvcc to use (default: PATH, $NVCC, /usr/local/cuda/bin/nvcc)")
    ap.add_argument("--build-dir", type=Path, default=HERE / "build", help="where the binary goes (default tools/hw_probes/build)")
    ap.add_argument("--work-dir", type=Path, help="keep probe inputs/outputs here (default: a temporary directory, deleted)")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds allowed for each probes.cu invocation (default 180)")
    ap.add_argument("--compile-timeout", type=float, default=300.0, help="seconds allowed for nvcc (default 300)")
    ap.add_argument("--only", help="comma-separated substrings: run only matching instructions")
    args = ap.parse_args(argv)

    if args.from_json:
        doc = json.loads(args.from_json.read_text())
        bad, lines = check(doc)
        print("\n".join(lines))
        print(f"check: {'all operands match' if not bad else f'{bad} operands differ or are missing'}")
        return 1 if bad else 0

    started = time.time()
    catalogue = X.catalogue()
    if args.only:
        keys = [s for s in args.only.split(",") if s]
        catalogue = {k: v for k, v in catalogue.items() if any(s in k for s in keys)}
        if not catalogue:
            log(f"--only {args.only!r} matches no instruction")
            return 64
    try:
        exe = None
        compile_cmd: list[str] = []
        nvcc = None
        if not args.simulate or args.dry_run:
            nvcc = find_nvcc(args.nvcc)
            exe, compile_cmd = compile_probes(nvcc, args.build_dir, args.compile_timeout)
            check_registry(exe)
        if args.dry_run:
            t0 = time.time()
            runs = P.build_all(catalogue)
            total_in = sum(len(r.to_bytes()) for r in runs)
            log(f"built {len(runs)} probe inputs ({sum(r.n_exp for r in runs)} experiments, {total_in / 1e6:.1f} MB) "
                f"in {time.time() - t0:.1f} s")
            log("dry run: compiled, registry consistent, inputs built; nothing run")
            return 0

        if args.simulate:
            facts: dict[str, Any] = {"name": "CPU simulation of the PTX ISA formulas (not a measurement)", "simulated": True}
            docs, fails, cmds = measure(catalogue, lambda runs: simulate_all(runs, catalogue))
        else:
            facts = device_facts(exe)
            if "error" in facts:
                smi = f" (nvidia-smi: {facts['nvidia_smi_error']})" if facts.get("nvidia_smi_error") else ""
                raise Fatal(f"no usable CUDA GPU: {facts['error']}{smi}")
            cc = str(facts.get("compute_cap", ""))
            if cc and not cc.startswith("9.0"):
                raise Fatal(f"GPU {facts.get('name')} has compute capability {cc}; the probes are built for sm_90a (H100/H200)")
            log(f"device: {facts.get('name')} (cc {cc}, driver {facts.get('driver')})")
            tmp = None
            work = args.work_dir
            if work is None:
                tmp = tempfile.mkdtemp(prefix="hw_probes_")
                work = Path(tmp)
            work.mkdir(parents=True, exist_ok=True)
            try:
                docs, fails, cmds = measure(catalogue, lambda runs: execute(exe, runs, work, args.timeout))
            finally:
                if tmp:
                    shutil.rmtree(tmp, ignore_errors=True)

        doc: dict[str, Any] = {
            "schema_version": X.SCHEMA_VERSION,
            "about": ("Register-fragment ownership measured on hardware by tools/hw_probes (see its README.md): per "
                      "instruction and operand, which thread/register/position holds which matrix element."),
            "device": facts,
            "driver": facts.get("driver") or (facts.get("cuda_properties") or {}).get("driver_api_version"),
            "nvcc_version": nvcc_version(nvcc) if nvcc else None,
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "host": platform.node(),
            "command": shlex.join([sys.executable, *sys.argv]),
            "compile_command": shlex.join(compile_cmd) if compile_cmd else None,
            "probe_commands": cmds,
            "probe_failures": fails,
            "instructions": docs,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        X.dump_json(doc, str(args.out))
    except Fatal as e:
        print(f"error: {e}", file=sys.stderr, flush=True)
        return e.code

    # Summary
    n_ok = n_all = 0
    log(f"\nwrote {args.out} in {time.time() - started:.1f} s")
    for name, ins in doc["instructions"].items():
        parts = []
        for op, o in ins["operands"].items():
            n_all += 1
            n_ok += o["status"] == "ok"
            parts.append(f"{op}:{o['status']}({len(o['entries'])})")
        log(f"  {name:56s} " + " ".join(parts))
    log(f"{n_ok}/{n_all} operands measured cleanly")
    rc = 0 if n_ok == n_all else 1
    if args.check:
        bad, lines = check(doc)
        log("\ncheck against the PTX ISA formulas (expected.py):")
        log("\n".join(lines))
        log(f"check: {'all operands match' if not bad else f'{bad} operands differ, failed or are missing'}")
        rc = rc or (1 if bad else 0)
    return rc


if __name__ == "__main__":
    sys.exit(main())
