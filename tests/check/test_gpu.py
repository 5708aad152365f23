"""linlayout.check.gpu (with linlayout.io.gpu_queries) without a GPU: planning, code generation (compiled with nvcc when present),
CSV parsing, the missing-tool errors, and the whole pipeline against stand-in nvcc/ncu/nvidia-smi."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from linlayout.cli import main
from linlayout.errors import GPUToolError, LayoutJSONError, LoweringError
from linlayout.count.simulate import simulate_access
from linlayout.check.gpu.ncu import METRIC_LOAD, METRIC_STORE, parse_ncu_csv
from linlayout.check.gpu.codegen import ProbeInstruction, generate_cuda, ptx_statement
from linlayout.check.gpu.tools import find_tools
from linlayout.io.gpu_queries import load_queries, plan_query, swizzle_sides
from linlayout.check.gpu.verify import verify

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
EX = ROOT / "examples"

ALL_KINDS = (
    [("ld.shared", "load", b) for b in (1, 2, 4, 8, 16)]
    + [("st.shared", "store", b) for b in (1, 2, 4, 8, 16)]
    + [(f"{m}.{x}{t}", "load" if m == "ldmatrix" else "store", 16)
       for m in ("ldmatrix", "stmatrix") for x in ("x1", "x2", "x4") for t in ("", ".trans")]
)


def _probe(ins, op, b, k=0):
    offs = tuple(((l * 37 + k * 11) % (4096 // b)) * b for l in range(32))
    return ProbeInstruction("q", k, ins, op, b, offs, None, simulate_access(ins, op, b, list(offs)).wavefronts)


# --------------------------------------------------------------------------- planning


def test_plan_layout_query_expands_every_instruction():
    p = plan_query(json.loads((EX / "transpose_16x32_read_xor_m.json").read_text()), "xor_m")
    assert p.kind == "layout" and len(p.instructions) == 16
    assert {i.closed_form for i in p.instructions} == {2} and {i.simulated for i in p.instructions} == {2}
    assert p.closed_form_total == p.simulated_total == 32
    assert all(i.instruction == "ld.shared" and i.access_bytes == 4 for i in p.instructions)


def test_plan_padded_and_non_affine_queries_use_the_simulator():
    p = plan_query(json.loads((EX / "transpose_32x32_padded_read.json").read_text()), "padded")
    assert p.note.startswith("padded") and p.closed_form_total is None
    assert {i.simulated for i in p.instructions} == {1}
    q = {"instruction": "ld.shared", "op": "load", "access_bytes": 4, "lane_byte_offsets": [36 * l for l in range(32)]}
    a = plan_query(q, "pitch9")
    assert a.instructions[0].closed_form is None and a.instructions[0].simulated == 1 and "affine" in a.note


def test_plan_matches_measured_h100_cases():
    """The predictions the kit prints are those that reproduce the 626 earlier H100 measurements."""
    cases = json.loads((DATA / "h100_smem_wavefronts.json").read_text())["cases"]
    for c in cases[::7]:
        q = {k: c[k] for k in ("instruction", "op", "access_bytes", "lane_byte_offsets")}
        p = plan_query(q, c["id"]).instructions[0]
        assert p.simulated == c["wavefronts"]
        assert p.closed_form in (None, c["wavefronts"])


def test_load_queries_batch_and_errors(tmp_path):
    q1 = json.loads((EX / "float4_store_ld128_access.json").read_text())
    batch = tmp_path / "b.json"
    batch.write_text(json.dumps({"queries": [{"id": "f4", "query": q1}, q1]}))
    plans = load_queries([str(batch), str(EX / "transpose_16x32_read_xor_m.json")])
    assert [p.id for p in plans] == ["f4", f"{batch}#1", str(EX / "transpose_16x32_read_xor_m.json")]
    batch.write_text(json.dumps({"queries": [{"id": "x", "query": q1}, {"id": "x", "query": q1}]}))
    with pytest.raises(LayoutJSONError, match="appears twice"):
        load_queries([str(batch)])
    batch.write_text(json.dumps({"queries": [{"id": "x", "query": q1, "extra": 1}]}))
    with pytest.raises(LayoutJSONError, match="only \"id\" and \"query\""):
        load_queries([str(batch)])
    bad = dict(q1, lane_byte_offsets=[1] * 32)
    batch.write_text(json.dumps({"queries": [{"id": "mis", "query": bad}]}))
    with pytest.raises(Exception, match="query mis: .*aligned"):
        load_queries([str(batch)])
    lq = json.loads((EX / "transpose_16x32_read_xor_m.json").read_text())
    lq["instruction"] = "ldmatrix.x4"
    batch.write_text(json.dumps({"queries": [{"id": "ldm", "query": lq}]}))
    with pytest.raises(LoweringError, match="query ldm"):
        load_queries([str(batch)])


# --------------------------------------------------------------------------- code generation


def test_ptx_statements():
    assert ptx_statement("ld.shared", "load", 1) == (
        'asm volatile("ld.volatile.shared.b8 %0, [%1];" : "=h"(r0) : "r"(a) : "memory");')
    assert "st.volatile.shared.v4.b32 [%0], {%1, %2, %3, %4};" in ptx_statement("st.shared", "store", 16)
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];" in ptx_statement(
        "ldmatrix.x4.trans", "load", 16)
    assert "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" in ptx_statement("stmatrix.x1", "store", 16)
    # A width ld/st.shared cannot move is a mistake in the input, not a missing tool.
    with pytest.raises(LoweringError, match="not 32"):
        ptx_statement("ld.shared", "load", 32)


def test_bad_probe_requests_are_input_errors():
    from linlayout.check.gpu.codegen import generate_cuda
    from linlayout.check.gpu.verify import verify
    from linlayout.errors import InputError

    with pytest.raises(InputError, match="at least one ProbeInstruction"):
        generate_cuda([])
    with pytest.raises(InputError, match="repeat must be a positive integer"):
        verify([], repeat=0)


def test_generated_source_structure():
    probes = [_probe(*k, i) for i, k in enumerate(ALL_KINDS)]
    src = generate_cuda(probes, repeat=3)
    kernels = re.findall(r'extern "C" __global__ void __launch_bounds__\(32, 1\) (probe_\d{5})', src)
    assert kernels == [f"probe_{i:05d}" for i in range(len(probes))]
    # exactly one asm statement per kernel, and the offsets table holds every lane
    bodies = src.split('extern "C" __global__')[1:]
    assert all(b.count("asm volatile") == 1 for b in bodies)
    assert f"g_off[{len(probes)}][32]" in src and "r < 3" in src
    assert "<<<1, 32, shared_bytes[i]>>>" in src


NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)


def _cuobjdump():
    site = Path(sys.prefix).glob("lib/python*/site-packages")
    cands = [shutil.which("cuobjdump")] + [str(p) for s in site for p in list(s.glob("nvidia/*/bin/cuobjdump"))
                                           + list(s.glob("triton/backends/nvidia/bin/cuobjdump"))]
    for c in cands:
        if c and os.access(c, os.X_OK) and (shutil.which("nvdisasm") or (Path(c).parent / "nvdisasm").exists()):
            return c
    return None


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_generated_source_compiles_for_sm90a(tmp_path):
    """nvcc -arch=sm_90a -cubin on every instruction kind (ptxas checks the inline PTX); SASS has one access per kernel."""
    probes = [_probe(*k, i) for i, k in enumerate(ALL_KINDS)]
    probes.append(ProbeInstruction("big", 0, "ld.shared", "load", 4, tuple(4 * l + 200000 for l in range(32)), 1, 1))
    cu = tmp_path / "probe.cu"
    cu.write_text(generate_cuda(probes))
    # One compilation: -cubin runs ptxas too, so the inline PTX is checked as with -c.
    r = subprocess.run([NVCC, "-arch=sm_90a", "-cubin", "-o", str(tmp_path / "probe.cubin"), str(cu)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    dump = _cuobjdump()
    if dump is None:
        pytest.skip("cuobjdump/nvdisasm not installed: compiled, SASS not inspected")
    env = dict(os.environ, PATH=str(Path(dump).parent) + os.pathsep + os.environ.get("PATH", ""))
    sass = subprocess.run([dump, "-sass", str(tmp_path / "probe.cubin")], capture_output=True, text=True,
                          timeout=120, env=env).stdout
    per: dict[str, list[str]] = {}
    cur = None
    for ln in sass.splitlines():
        m = re.search(r"Function : (probe_\d+)", ln)
        if m:
            cur = m.group(1)
            per[cur] = []
        elif cur and re.search(r"\b(LDS|STS|LDSM|STSM)(\.|\s)", ln):
            per[cur].append(re.search(r"\b((?:LDS|STS|LDSM|STSM)[.\w]*)", ln).group(1))
    want = {"ld.shared": {1: "LDS.U8", 2: "LDS.U16", 4: "LDS", 8: "LDS.64", 16: "LDS.128"},
            "st.shared": {1: "STS.U8", 2: "STS.U16", 4: "STS", 8: "STS.64", 16: "STS.128"}}
    for i, p in enumerate(probes):
        got = per[f"probe_{i:05d}"]
        assert len(got) == 1, (p.instruction, got)
        if p.instruction in want:
            assert got[0] == want[p.instruction][p.access_bytes]
        else:
            x = p.instruction.split(".")[1][1:]
            assert got[0].startswith("LDSM" if p.op == "load" else "STSM")
            assert ("MT88" in got[0]) == p.instruction.endswith("trans")
            assert got[0].endswith(f".{x}") or (x == "1" and not got[0][-2:-1] == ".")


# --------------------------------------------------------------------------- Nsight Compute CSV


def test_parse_ncu_csv_raw_fixture():
    recs = parse_ncu_csv((DATA / "ncu_raw_fixture.csv").read_text())
    assert [r["kernel"] for r in recs] == ["probe_00000", "probe_00001", "probe_00002"]
    assert [r[METRIC_LOAD] for r in recs] == [32.0, 0.0, 1024.0]
    assert [r[METRIC_STORE] for r in recs] == [0.0, 4.0, 0.0]


def test_parse_ncu_csv_details_fixture():
    recs = parse_ncu_csv((DATA / "ncu_details_fixture.csv").read_text())
    assert [r["kernel"] for r in recs] == ["probe_00000", "probe_00001"]
    assert recs[0][METRIC_LOAD] == 16.0 and recs[0][METRIC_STORE] == 0.0
    assert recs[1][METRIC_STORE] == 2.0 and recs[1][METRIC_LOAD] is None  # "n/a"


def test_parse_ncu_csv_without_rows():
    with pytest.raises(GPUToolError, match="no kernel rows"):
        parse_ncu_csv("==PROF== Connected\n==ERROR== something\n")


# --------------------------------------------------------------------------- missing tools


def test_missing_tools_one_line_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.delenv("NVCC", raising=False)
    monkeypatch.delenv("NCU", raising=False)
    import linlayout.check.gpu.tools as vg

    real = vg.which_tool

    def no_default_dirs(name, explicit, env):
        r = real(name, explicit, env)
        return None if r and not r.startswith(str(tmp_path)) else r

    monkeypatch.setattr(vg, "which_tool", no_default_dirs)
    assert main(["verify-gpu", str(EX / "float4_store_ld128_access.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "missing: nvcc" in err and "ncu" in err and "nvidia-smi not found" in err
    with pytest.raises(GPUToolError, match="missing: nvcc"):
        find_tools()


def test_missing_ncu_only(tmp_path, monkeypatch):
    tools = _fake_tools(tmp_path)
    os.remove(tools / "ncu")
    monkeypatch.setenv("PATH", str(tools))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "none"))
    monkeypatch.setenv("NVCC", str(tools / "nvcc"))
    monkeypatch.delenv("NCU", raising=False)
    import linlayout.check.gpu.tools as vg

    real = vg.which_tool
    monkeypatch.setattr(vg, "which_tool", lambda n, e, v: None if n == "ncu" else real(n, e, v))
    with pytest.raises(GPUToolError) as e:
        find_tools()
    msg = str(e.value)
    assert "missing: ncu" in msg and "nvcc (" not in msg and "GPU" not in msg.split("missing:")[1]


# --------------------------------------------------------------------------- the pipeline with stand-in tools

FAKE_NCU = r'''#!{python}
# Stand-in for Nsight Compute: "measures" every probe kernel as linlayout's simulator predicts
# (from probe_manifest.json), in ncu's CSV format.  FAKE_NCU_MODE: raw, details, mismatch, perm, fail.
import csv, io, json, os, sys
args = sys.argv[1:]
mode = os.environ.get("FAKE_NCU_MODE", "raw")
if "--version" in args:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.1.0.0 (fake)"); sys.exit(0)
log = args[args.index("--log-file") + 1]
if mode == "perm":
    open(log, "w").write("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n"); sys.exit(1)
if mode == "fail":
    open(log, "w").write("==ERROR== The application returned an error code (1).\n"); sys.exit(1)
man = json.load(open("probe_manifest.json"))
ld = "{ld}"; st = "{st}"
head = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
        "Grid Size", "Device", "CC"]
out = io.StringIO(); w = csv.writer(out, quoting=csv.QUOTE_ALL)
out.write("==PROF== Connected to process 4242 (probe)\n")
if mode == "details":
    w.writerow(head + ["Section Name", "Metric Name", "Metric Unit", "Metric Value"])
else:
    w.writerow(head + [ld, st]); w.writerow([""] * len(head) + ["", ""])
i = 0
for k in man["kernels"]:
    for r in range(man["repeat"]):
        val = k["simulated"] + (1 if mode == "mismatch" and k["kernel"] == "probe_00001" else 0)
        mine, other = (val, 0) if k["op"] == "load" else (0, val)
        base = [str(i), "4242", "probe", "localhost", k["kernel"], "1", "7", "(32, 1, 1)", "(1, 1, 1)", "0", "9.0"]
        if mode == "details":
            w.writerow(base + ["Command line profiler metrics", ld, "", f"{{mine:,}}"])
            w.writerow(base + ["Command line profiler metrics", st, "", f"{{other:,}}"])
        else:
            w.writerow(base + [f"{{mine:,}}", f"{{other:,}}"])
        i += 1
out.write("==PROF== Disconnected from process 4242\n")
open(log, "w").write(out.getvalue())
print("linlayout probe: launched")
'''

FAKE_NVCC = r'''#!{python}
import sys
args = sys.argv[1:]
if "--version" in args:
    print("Cuda compilation tools, release 12.8 (fake)"); sys.exit(0)
open(args[args.index("-o") + 1], "w").write("fake binary\n")
'''

FAKE_SMI = "#!/bin/sh\necho 'NVIDIA H100 80GB HBM3, 580.65.06, 9.0'\n"


def _fake_tools(tmp_path: Path) -> Path:
    d = tmp_path / "bin"
    d.mkdir()
    for name, text in (("ncu", FAKE_NCU), ("nvcc", FAKE_NVCC), ("nvidia-smi", FAKE_SMI)):
        p = d / name
        p.write_text(text.replace("{python}", sys.executable).replace("{ld}", METRIC_LOAD).replace("{st}", METRIC_STORE)
                     .replace("{{", "{").replace("}}", "}"))
        p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return d


@pytest.fixture
def fake_gpu(tmp_path, monkeypatch):
    d = _fake_tools(tmp_path)
    monkeypatch.setenv("PATH", str(d) + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setenv("NVCC", str(d / "nvcc"))
    monkeypatch.setenv("NCU", str(d / "ncu"))
    return d


def _batch(tmp_path):
    qs = [
        {"id": "float4", "query": json.loads((EX / "float4_store_ld128_access.json").read_text())},
        {"id": "xor_m", "query": json.loads((EX / "transpose_16x32_read_xor_m.json").read_text())},
        {"id": "padded", "query": json.loads((EX / "transpose_32x32_padded_read.json").read_text())},
        {"id": "stsm", "query": {"instruction": "stmatrix.x4.trans", "op": "store", "access_bytes": 16,
                                 "lane_byte_offsets": [16 * l for l in range(32)]}},
        {"id": "dup", "query": json.loads((EX / "float4_store_ld128_access.json").read_text())},
    ]
    p = tmp_path / "batch.json"
    p.write_text(json.dumps({"queries": qs}))
    return p


@pytest.mark.parametrize("mode", ["raw", "details"])
def test_pipeline_with_stand_in_tools(fake_gpu, tmp_path, monkeypatch, mode):
    monkeypatch.setenv("FAKE_NCU_MODE", mode)
    plans = load_queries([str(_batch(tmp_path))])
    keep = tmp_path / "work"
    res = verify(plans, keep=keep, repeat=2)
    assert res.ok, res.text()
    # one kernel per distinct instruction: the duplicate float4 store is measured once
    assert len(res.kernels) == 1 + 16 + 32 + 1
    assert res.tools.gpu_name == "NVIDIA H100 80GB HBM3" and res.tools.arch == "sm_90"
    d = res.to_dict()
    assert d["summary"] == {"ok": 1 + 16 + 32 + 1 + 1} and d["kernels"] == 50
    q = {x["id"]: x for x in d["queries"]}
    assert q["xor_m"]["measured_total"] == 32 and q["padded"]["closed_form_total"] is None
    assert q["dup"]["instructions"][0]["kernel"] == q["float4"]["instructions"][0]["kernel"] == "probe_00000"
    assert q["float4"]["instructions"][0]["measured_launches"] == [32, 32]
    assert {"probe.cu", "probe_manifest.json", "ncu.csv"} <= {p.name for p in keep.iterdir()}
    assert "all 51 measured instructions equal the prediction" in res.text()


def test_cli_pipeline_json_and_mismatch(fake_gpu, tmp_path, monkeypatch, capsys):
    batch = str(_batch(tmp_path))
    assert main(["verify-gpu", batch, "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["ok"] and obj["device"]["driver"] == "580.65.06" and obj["command"].startswith("linlayout verify-gpu")
    monkeypatch.setenv("FAKE_NCU_MODE", "mismatch")
    assert main(["verify-gpu", batch]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "do NOT match" in out


def test_swizzle_query_measures_both_sides_of_the_synthesized_memory(fake_gpu, capsys):
    """A swizzle query stands for its write and read side on the memory linlayout synthesizes."""
    path = str(EX / "gemm_fp16_operand_a.json")
    plans = load_queries([path])
    assert [p.id for p in plans] == [f"{path} write", f"{path} read"]
    from linlayout.io.jsonio import swizzle_query_from_json
    from linlayout.synth.synthesis import optimal_swizzle

    res = optimal_swizzle(swizzle_query_from_json(json.loads((EX / "gemm_fp16_operand_a.json").read_text())))
    assert plans[0].source["memory"] == res.memory.to_dict() == plans[1].source["memory"]
    assert plans[1].instructions[0].instruction == res.read.instruction == "ldmatrix.x4"
    assert plans[0].simulated_total == res.write.wavefronts and plans[1].simulated_total == res.read.wavefronts
    assert main(["verify-gpu", path, "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert [q["id"] for q in obj["queries"]] == [f"{path} write", f"{path} read"]
    bad = {"write": json.loads((EX / "gemm_fp16_operand_a.json").read_text())["write"]}
    with pytest.raises(LayoutJSONError, match="needs \"read\""):
        swizzle_sides(bad)


@pytest.mark.parametrize("mode, fragment", [("perm", "ERR_NVGPUCTRPERM"), ("fail", "ncu failed")])
def test_ncu_failures_are_one_line(fake_gpu, tmp_path, monkeypatch, capsys, mode, fragment):
    monkeypatch.setenv("FAKE_NCU_MODE", mode)
    assert main(["verify-gpu", str(EX / "float4_store_ld128_access.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


def test_stmatrix_skipped_below_sm90(fake_gpu, tmp_path):
    plans = load_queries([str(_batch(tmp_path))])
    res = verify(plans, arch="sm_80")
    rows = {pl.id: r for pl, r in res.rows}
    assert rows["stsm"]["status"] == "skipped" and "sm_90" in rows["stsm"]["skip_reason"]
    assert res.ok


# --------------------------------------------------------------------------- the H100 table, once measured


def test_recorded_gpu_verification_matches_predictions():
    """tests/data/gpu_verification_h100.json (written by benchmarks/gpu_validation.py on a GPU): every
    measured instruction must equal today's simulator, and the closed form where it applies."""
    path = DATA / "gpu_verification_h100.json"
    if not path.exists():
        pytest.skip("not measured yet: run benchmarks/gpu_validation.py on a GPU machine")
    d = json.loads(path.read_text())
    n = 0
    for q in d["queries"]:
        for r in q["instructions"]:
            if r["measured"] is None:
                continue
            n += 1
            sim = simulate_access(r["instruction"], r["op"], r["access_bytes"], r["lane_byte_offsets"]).wavefronts
            assert r["measured"] == sim, (q["id"], r["index"])
            assert r["closed_form"] in (None, sim)
    assert n >= 200 and d["ok"] and d["summary"] == {"ok": n}
    # the table measures exactly the set the script builds today
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpu_validation_set", ROOT / "benchmarks" / "gpu_validation.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert [(q["id"], q["query"]) for q in d["queries"]] == [(i, json.loads(json.dumps(q))) for i, q in mod.build_set()]


def test_gpu_validation_script_with_stand_in_tools(fake_gpu, tmp_path, capsys):
    """benchmarks/gpu_validation.py end to end: the set (>= 200 random queries, every kind), one batch, the table."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpu_validation", ROOT / "benchmarks" / "gpu_validation.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "table.json"
    assert mod.main(["--out", str(out), "--work", str(tmp_path / "work")]) == 0
    d = json.loads(out.read_text())
    assert d["ok"] and d["device"]["gpu"] == "NVIDIA H100 80GB HBM3" and d["command"].startswith("PYTHONPATH=.")
    ids = [q["id"] for q in d["queries"]]
    assert sum(i.startswith("random") for i in ids) >= 200
    kinds = {(r["instruction"], r["access_bytes"]) for q in d["queries"] for r in q["instructions"]}
    for ins, _, b in ALL_KINDS:
        assert (ins, b) in kinds
    assert any("optimal swizzle" in i for i in ids) and any("row-major" in i for i in ids)
    assert any(q["closed_form_total"] is None for q in d["queries"])  # padded and non-affine ones
    assert "instructions match" in capsys.readouterr().err
