"""Measure linlayout's wavefront predictions on a real GPU, in one nvcc compile and one ncu run.

Usage (from the repository root, on a machine with nvcc, Nsight Compute's ncu and an NVIDIA GPU;
numpy is the only Python package needed)::

    PYTHONPATH=. python3 benchmarks/gpu_validation.py

It builds the validation set, writes it as a batch of ``linlayout conflicts`` queries
(``build/gpu_validation/queries.json``), measures every distinct instruction with
:mod:`linlayout.check.gpu` (one kernel launch each, one warp), and writes the table of predicted
(closed form, simulator) against measured wavefronts to ``tests/data/gpu_verification_h100.json``
with the command, device, driver, tool versions and date.  The probe source, its manifest, the
binary and ncu's CSV stay in ``build/gpu_validation/`` for inspection.

The set:

* the seeds' examples: the ``examples/*.json`` conflicts queries, and the transposes of
  ``examples/transpose_16x32.py`` (three memories, read and store), ``transpose_32x32.py``
  (column read, padded column read, row store), ``swizzle_8x8.py`` (column-major and
  ``Swizzle<3,2,3>``) and ``float4_transposed_a.py`` (float4 stores, pitch 128 and 132);
* the swizzle problems ``examples/transpose_16x32.json``, ``gemm_fp16_operand_a.json``,
  ``transpose_fp8_128x128.json``: the write (store) and read (load) side on the memory
  ``linlayout.synth.synthesis.optimal_swizzle`` builds, with its instructions, and on the row-major
  ``linlayout.core.memory.unswizzled`` memory;
* random address-level queries (fixed seed): every ld/st.shared width (1, 2, 4, 8, 16 bytes), loads
  and stores, and ldmatrix/stmatrix .x1/.x2/.x4 (plain and .trans), with lane byte offsets that are
  XOR-affine (a constant XOR random aligned bases, broadcasts included) and some that are not.

Exit status: 0 when every measurement equals the prediction, 1 when some differ (the table is still
written), 2 when a tool is missing or fails (one line on standard error; nothing is written).
``--dry-run`` builds the set, plans it and, where nvcc exists, compiles the probe, without a GPU.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from linlayout import LinearLayout  # noqa: E402
from linlayout.errors import GPUToolError, LinLayoutError, LoweringError  # noqa: E402

EX = ROOT / "examples"


def _module(name: str):
    spec = importlib.util.spec_from_file_location(f"_ex_{name}", EX / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def _q(layout: LinearLayout, memory, element_bits: int, op: str, instruction: str | None = None,
       vector_bits: int | None = None) -> dict:
    q = {"layout": layout.to_dict(), "memory": memory.to_dict(), "element_bits": element_bits, "op": op}
    if instruction is not None:
        q["instruction"] = instruction
    if vector_bits is not None:
        q["vector_bits"] = vector_bits
    return q


def example_queries() -> list[tuple[str, dict]]:
    """The seeds' examples as conflicts queries."""
    from linlayout.core.memory import padded, unswizzled

    out: list[tuple[str, dict]] = []
    for p in sorted(EX.glob("*.json")):
        obj = json.loads(p.read_text())
        if "lane_byte_offsets" in obj or "layout" in obj:
            out.append((f"examples/{p.name}", obj))
    t16 = _module("transpose_16x32")
    for name, mem in t16.MEMORIES.items():
        out.append((f"transpose_16x32 read, {name}", _q(t16.read, mem, 32, "load")))
        out.append((f"transpose_16x32 store, {name}", _q(t16.store, mem, 32, "store")))
    t32 = _module("transpose_32x32")
    out.append(("transpose_32x32 column read", _q(t32.column_read, unswizzled([32, 32]), 32, "load", None, 32)))
    out.append(("transpose_32x32 column read, padded to 33", _q(t32.column_read, padded([32, 32], 1), 32, "load", None, 32)))
    out.append(("transpose_32x32 row store", _q(t32.row_store, unswizzled([32, 32]), 32, "store", None, 32)))
    s8 = _module("swizzle_8x8")
    out.append(("swizzle_8x8 row read, column-major", _q(s8.row_read, s8.plain, 32, "load")))
    out.append(("swizzle_8x8 row read, Swizzle<3,2,3>", _q(s8.row_read, s8.swizzled, 32, "load")))
    f4 = _module("float4_transposed_a")
    out.append(("float4_transposed_a store, pitch 128", _q(f4.store, padded([8, 128], 0), 32, "store")))
    out.append(("float4_transposed_a store, pitch 132", _q(f4.store, padded([8, 128], 4), 32, "store")))
    return out


def swizzle_queries() -> list[tuple[str, dict]]:
    """Write and read sides of the three swizzle examples, on the synthesized and the row-major memory."""
    from linlayout.count.closed_form import wavefronts
    from linlayout.io.jsonio import swizzle_query_from_json
    from linlayout.core.memory import unswizzled
    from linlayout.io.gpu_queries import swizzle_sides

    out: list[tuple[str, dict]] = []
    for name in ("transpose_16x32", "gemm_fp16_operand_a", "transpose_fp8_128x128"):
        # The recorded table (tests/data/gpu_verification_h100.json) measured the memories synthesized for ld/st
        # (where the query names none: the default before issue 26 added the matrix instructions); they stay the
        # set until it is re-measured.
        raw = json.loads((EX / f"{name}.json").read_text())
        raw.setdefault("instructions", ["st.shared", "ld.shared"])
        sides = swizzle_sides(raw)  # synthesized memory, with the instructions the synthesis chose
        out.extend((f"{name} {side}, optimal swizzle", cq) for side, cq in sides)
        q = swizzle_query_from_json(raw)
        row_major = unswizzled(list(q.write.out_sizes.values()))
        eb = q.element_bits
        for (side, cq), layout in zip(sides, (q.write, q.read)):
            ins = cq["instruction"]
            try:
                wavefronts(layout, row_major, eb, cq["op"], ins)
            except LoweringError:
                ins = None  # the matrix instruction cannot access the row-major tile: plain ld/st.shared
            out.append((f"{name} {side}, row-major", _q(layout, row_major, eb, cq["op"], ins)))
    return out


def random_queries(seed: int = 2026, per_kind: int = 18, per_matrix_kind: int = 6) -> list[tuple[str, dict]]:
    """Random address-level queries: every access kind, affine and non-affine lane offsets."""
    rng = random.Random(seed)
    out: list[tuple[str, dict]] = []

    def base(unit: int, span: int = 1 << 14) -> int:
        r = rng.random()
        if r < 0.15:
            return 0  # broadcast
        if r < 0.45:
            return unit << rng.randrange(0, max(1, (128 // unit).bit_length()))  # inside one 128-byte row
        if r < 0.75:
            return 128 << rng.randrange(0, (span // 128).bit_length() - 1)  # a whole row apart
        return rng.randrange(1, span // unit) * unit  # anything aligned

    def affine(unit: int) -> list[int]:
        c = rng.randrange(0, 4096 // unit) * unit
        bs = [base(unit) for _ in range(5)]
        offs = []
        for lane in range(32):
            v = c
            for i in range(5):
                if lane >> i & 1:
                    v ^= bs[i]
            offs.append(v)
        return offs

    def other(unit: int) -> list[int]:
        if rng.random() < 0.5:
            return [rng.randrange(0, 8192 // unit) * unit for _ in range(32)]
        stride = unit * rng.choice([3, 5, 9, 17, 33, 65])  # padded pitches
        start = rng.randrange(0, 16) * unit
        return [start + lane * stride for lane in range(32)]

    kinds = [("ld.shared", "load", b) for b in (1, 2, 4, 8, 16)] + [("st.shared", "store", b) for b in (1, 2, 4, 8, 16)]
    for ins, op, b in kinds:
        for k in range(per_kind):
            offs = affine(b) if k < per_kind * 3 // 4 else other(b)
            out.append((f"random {ins} {b}B #{k}" + ("" if k < per_kind * 3 // 4 else " (not affine)"),
                        {"instruction": ins, "op": op, "access_bytes": b, "lane_byte_offsets": offs}))
    for kind in ("ldmatrix", "stmatrix"):
        for x in ("x1", "x2", "x4"):
            for t in ("", ".trans"):
                ins = f"{kind}.{x}{t}"
                op = "load" if kind == "ldmatrix" else "store"
                for k in range(per_matrix_kind):
                    offs = affine(16) if k < per_matrix_kind * 2 // 3 else other(16)
                    out.append((f"random {ins} #{k}" + ("" if k < per_matrix_kind * 2 // 3 else " (not affine)"),
                                {"instruction": ins, "op": op, "access_bytes": 16, "lane_byte_offsets": offs}))
    return out


def build_set() -> list[tuple[str, dict]]:
    return example_queries() + swizzle_queries() + random_queries()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "tests" / "data" / "gpu_verification_h100.json"),
                    help="where to write the table (default tests/data/gpu_verification_h100.json)")
    ap.add_argument("--work", default=str(ROOT / "build" / "gpu_validation"),
                    help="folder for the queries, probe source, binary and ncu CSV (default build/gpu_validation)")
    ap.add_argument("--timeout", type=float, default=1200, help="seconds allowed for nvcc and for ncu each (default 1200)")
    ap.add_argument("--arch", help="nvcc architecture (default: detected with nvidia-smi, else sm_90)")
    ap.add_argument("--repeat", type=int, default=1, help="launches per instruction (default 1)")
    ap.add_argument("--dry-run", action="store_true", help="build, plan and (with nvcc) compile only; no GPU needed")
    args = ap.parse_args(argv)
    command = "PYTHONPATH=. python3 benchmarks/gpu_validation.py" + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))

    from linlayout.check.gpu.codegen import generate_cuda
    from linlayout.check.gpu.tools import Tools, find_tools
    from linlayout.check.gpu.verify import verify
    from linlayout.io.gpu_queries import load_queries

    def say(msg: str) -> None:
        print(f"gpu_validation: {msg}", file=sys.stderr, flush=True)

    try:
        work = Path(args.work)
        work.mkdir(parents=True, exist_ok=True)
        entries = build_set()
        batch = work / "queries.json"
        batch.write_text(json.dumps({"about": "linlayout GPU validation set (benchmarks/gpu_validation.py)",
                                     "queries": [{"id": i, "query": q} for i, q in entries]}))
        plans = load_queries([str(batch)])
        n_ins = sum(len(p.instructions) for p in plans)
        distinct = len({i.key for p in plans for i in p.instructions})
        say(f"{len(plans)} queries ({sum(1 for i, _ in entries if i.startswith('random'))} random), {n_ins} "
            f"instructions, {distinct} distinct (one kernel launch each); queries in {batch}")
        if args.dry_run:
            import shutil
            import subprocess

            probes = list({i.key: i for p in plans for i in p.instructions}.values())
            (work / "probe.cu").write_text(generate_cuda(probes, args.repeat))
            nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
            if Path(nvcc).exists():
                t0 = time.perf_counter()
                r = subprocess.run([nvcc, f"-arch={args.arch or 'sm_90a'}", "-c", "-o", str(work / "probe.o"),
                                    str(work / "probe.cu")], capture_output=True, text=True, timeout=args.timeout)
                if r.returncode:
                    say(f"nvcc failed: {r.stderr.strip()[-2000:]}")
                    return 2
                say(f"dry run: compiled {len(probes)} kernels in {time.perf_counter() - t0:.1f} s ({work / 'probe.cu'})")
            else:
                say(f"dry run: wrote {work / 'probe.cu'} (no nvcc to compile it)")
            return 0
        tools: Tools = find_tools(arch=args.arch)
        say(f"device {tools.gpu_name} ({tools.arch}, driver {tools.driver}); nvcc {tools.nvcc_version}; "
            f"ncu {tools.ncu_version}")
        say(f"compiling one probe binary and profiling {distinct * args.repeat} launches with ncu "
            f"(roughly 0.1-0.5 s each; timeout {args.timeout:g} s per tool) ...")
        res = verify(plans, keep=work, timeout=args.timeout, repeat=args.repeat, tools=tools, command=command)
    except (GPUToolError, LinLayoutError) as e:
        say("error: " + " ".join(str(e).split()) + f" (artifacts, if any, in {args.work})")
        return 2
    except KeyboardInterrupt:  # pragma: no cover
        say("interrupted")
        return 2
    d = res.to_dict()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    head = {k: v for k, v in d.items() if k != "queries"}
    body = ",\n".join(json.dumps(q, separators=(",", ":")) for q in d["queries"])  # one query per line
    out.write_text(json.dumps(head, indent=1)[:-2] + ',\n "queries": [\n' + body + "\n ]\n}\n")
    print(res.text())
    s = d["summary"]
    say(f"nvcc {d['seconds'].get('nvcc', 0):.1f} s, ncu {d['seconds'].get('ncu', 0):.1f} s; "
        f"{s.get('ok', 0)} of {d['instructions']} instructions match; wrote {out}")
    return 0 if res.ok else 1


if __name__ == "__main__":
    sys.exit(main())
