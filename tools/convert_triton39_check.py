"""The planner against Triton 3.9.0 on generated conversions of Triton's own layouts (compiled on the CPU for cuda:90).

Every pair is two layouts of one 2-D tensor (``M x N`` from 16 x 16 to 128 x
128 holding at most 64 32-bit registers per thread, and 3% 256 x 256 on 8
warps: larger register tiles take Triton minutes to compile), 8-64-bit
elements, 1-8 warps, each layout one of: ``blocked`` (random
sizePerThread, threadsPerWarp, warpsPerCTA, order), ``mma`` (nvidia_mma v2,
and v3 with 4 or 8 warps), ``dot`` (a dot operand of an mma v2 parent,
8-32-bit), ``linear`` (random single-bit bases, some broadcast) and
``sliced`` (the slice of a 3-D blocked parent: lanes and warps along the
sliced dimension broadcast).  For each pair:

* **Triton**: a Gluon kernel loads the tensor in ``src`` from global memory,
  converts it to ``dst`` and stores it; the control kernel loads it in
  ``dst`` and stores it.  The conversion's per-thread instructions are the
  PTX opcode counts of the first minus the second (straight-line code), its
  path is read off the PTX.  Data loaded from memory is opaque, so LLVM
  cannot fold selects into index arithmetic (see ``convert_vs_triton.py``).
* **linlayout**: ``plan_conversion(src, dst, bits)`` with the defaults
  (Triton's scratch budget, reps chosen by cost).
* **Triton under linlayout's model**: where Triton goes through shared
  memory, its round trip as linlayout counts it (its scratch layout,
  instructions and reps, :func:`linlayout.convert.smem.triton_round_trip`:
  wavefronts, packing, barriers); the PTX's shared-memory instruction and
  barrier counts are checked against that model (``model_matches_ptx``).
  Otherwise the PTX's shfl.sync/selp/prmt/mov counts.

The checks (``summarize``): none refused; where both take the same path,
never more ``shfl.sync``, ``selp``, shared-memory instructions (st/ld.shared +
stmatrix/ldmatrix) or barriers per thread than Triton's PTX; where the paths
differ, linlayout's plan costs no more under the model.

    python tools/convert_triton39_check.py --pairs 520 --seed 39 --out benchmarks/results/convert_vs_triton39.json
    python tools/convert_triton39_check.py --summary benchmarks/results/convert_vs_triton39.json

Needs ``triton`` 3.9.0 with Gluon; ``GPUTarget("cuda", 90, 32)``, so no GPU.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from convert_vs_triton import OPS, _load_kernels, compile_ptx, count_ops, triton_path  # noqa: E402

from linlayout.catalog.triton_encodings import (  # noqa: E402
    triton_blocked, triton_dot_operand, triton_linear, triton_nvidia_mma, triton_slice)
from linlayout.convert.cost import cost_of  # noqa: E402
from linlayout.convert.plan import plan_conversion  # noqa: E402
from linlayout.convert.smem import triton_round_trip  # noqa: E402
from linlayout.core.layout import LinearLayout  # noqa: E402
from linlayout.errors import InputError  # noqa: E402

KINDS = ("blocked", "mma", "dot", "linear", "sliced")
SMEM_OPS = ("st.shared", "ld.shared", "stmatrix", "ldmatrix")
BARRIERS = ("bar.sync", "bar.warp.sync")


def _split(rng: random.Random, total: int, caps: list[int]) -> list[int]:
    """``total`` (a power of two) as a product of powers of two, factor ``i`` at most ``caps[i]`` where possible."""
    out = [1] * len(caps)
    n = total
    while n > 1:
        fits = [i for i in range(len(caps)) if out[i] * 2 <= caps[i]] or list(range(len(caps)))
        out[rng.choice(fits)] *= 2
        n //= 2
    return out


def blocked(rng: random.Random, shape: list[int], warps: int) -> LinearLayout:
    spt = [rng.choice([1, 1, 2, 4, 8]) for _ in shape]
    tpw = _split(rng, 32, shape)
    wpc = _split(rng, warps, [max(1, s // t) for s, t in zip(shape, tpw)])
    order = rng.choice([[1, 0], [0, 1]])
    return triton_blocked(shape, spt, tpw, wpc, order)


def mma(rng: random.Random, shape: list[int], warps: int) -> LinearLayout:
    if warps >= 4 and shape[0] >= 64 and rng.random() < 0.4:
        n = rng.choice([n for n in (8, 16, 32, 64, 128, 256) if n <= shape[1]])
        return triton_nvidia_mma(shape, 3, [warps, 1] if rng.random() < 0.7 else [4, warps // 4], [16, n, 16])
    return triton_nvidia_mma(shape, 2, _split(rng, warps, [max(1, shape[0] // 16), max(1, shape[1] // 8)]), [16, 8])


def dot(rng: random.Random, shape: list[int], warps: int, bits: int) -> LinearLayout:
    k_width = {8: 4, 16: 2, 32: 1}[bits] * rng.choice([1, 1, 2])
    op = rng.choice([0, 1])
    return triton_dot_operand(shape, op, k_width, 2, _split(rng, warps, [max(1, shape[0] // 16), max(1, shape[1] // 8)]),
                              [16, 8])


def linear(rng: random.Random, shape: list[int], warps: int) -> LinearLayout:
    units = [[1 << i, 0] for i in range(shape[0].bit_length() - 1)] + [[0, 1 << i] for i in range(shape[1].bit_length() - 1)]
    rng.shuffle(units)
    wb = warps.bit_length() - 1
    thread = units[:5 + wb]
    thread += [[0, 0]] * (5 + wb - len(thread))
    rng.shuffle(thread)
    regs = units[5 + wb:]
    if regs and rng.random() < 0.3:  # a broadcast register
        regs.insert(rng.randrange(len(regs) + 1), [0, 0])
    if rng.random() < 0.3:  # a broadcast lane or warp instead of one of the tensor bits, which goes to a register
        i = rng.randrange(len(thread))
        if thread[i] != [0, 0]:
            regs.append(thread[i])
            thread[i] = [0, 0]
    return triton_linear(shape, regs, thread[:5], thread[5:])


def sliced(rng: random.Random, shape: list[int], warps: int) -> LinearLayout:
    dim = rng.choice([0, 1, 2])
    parent_shape = list(shape)
    parent_shape.insert(dim, 1)
    spt = [rng.choice([1, 2, 4]) for _ in parent_shape]
    spt[dim] = 1
    tpw = _split(rng, 32, [s if i != dim else 4 for i, s in enumerate(parent_shape)])
    wpc = _split(rng, warps, [2] * 3)
    order = rng.sample([0, 1, 2], 3)
    return triton_slice(triton_blocked(parent_shape, spt, tpw, wpc, order), dim)


def make(kind: str, rng: random.Random, shape: list[int], warps: int, bits: int) -> LinearLayout:
    if kind == "blocked":
        return blocked(rng, shape, warps)
    if kind == "mma":
        return mma(rng, shape, warps)
    if kind == "dot":
        return dot(rng, shape, warps, bits)
    if kind == "linear":
        return linear(rng, shape, warps)
    return sliced(rng, shape, warps)


def pairs(n: int, seed: int):
    """``n`` named pairs (name, kinds, src, dst, bits, warps), tiles 16x16 .. 256x256."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        bits = rng.choice([8, 16, 16, 32, 32, 64])
        big = rng.random() < 0.03
        warps = 8 if big else rng.choice([1, 2, 4, 4, 8])  # 256x256 on fewer warps is thousands of registers
        shape = [256, 256] if big else [rng.choice([16, 32, 64, 128]), rng.choice([16, 32, 64, 128])]
        if not big and shape[0] * shape[1] * bits > 64 * 32 * 32 * warps:  # at most 64 32-bit registers per thread
            continue
        kinds = [rng.choice(KINDS), rng.choice(KINDS)]
        if bits == 64:
            kinds = [k if k != "dot" else "blocked" for k in kinds]
        try:
            src = make(kinds[0], rng, shape, warps, bits)
            dst = make(kinds[1], rng, shape, warps, bits)
        except (InputError, ValueError):
            continue
        if src.in_sizes.get("warp", 1) != warps or dst.in_sizes.get("warp", 1) != warps:
            continue
        name = f"t39_{len(out)}_{kinds[0]}_{kinds[1]}_{shape[0]}x{shape[1]}_w{warps}_b{bits}"
        out.append((name, kinds, src, dst, bits, warps))
    return out


def ours(src: LinearLayout, dst: LinearLayout, bits: int) -> dict:
    t0 = time.perf_counter()
    try:
        plan = plan_conversion(src, dst, bits)
    except InputError as e:
        return {"error": str(e)}
    return {"path": plan.path, "instructions": {k: plan.instructions.get(k, 0) for k in OPS}, "wavefronts": plan.wavefronts,
            "reps": plan.reps, "scratch_bytes": plan.scratch_bytes, "cost": plan.cost,
            "ms": round(1000 * (time.perf_counter() - t0), 2)}


def triton_model(src: LinearLayout, dst: LinearLayout, bits: int, path: str, ptx: dict[str, int]) -> dict:
    """Triton's conversion under linlayout's model (see the module doc)."""
    if path == "shared_memory":
        rt = triton_round_trip(src, dst, bits)
        if rt is None:
            return {"cost": None}
        ins: dict[str, int] = {}
        for op, n in rt.instructions.items():
            key = op.split(".")[0] if "matrix" in op else op
            ins[key] = ins.get(key, 0) + n
        modeled = {k: ins.get(k, 0) for k in SMEM_OPS + BARRIERS}
        return {"cost": cost_of(ins, rt.wavefronts), "instructions": ins, "wavefronts": rt.wavefronts, "reps": rt.reps,
                "model_matches_ptx": all(modeled[k] == ptx[k] for k in SMEM_OPS + BARRIERS)}
    ins = {k: max(0, ptx[k]) for k in ("shfl.sync", "selp", "prmt", "mov")}
    return {"cost": cost_of({k: v for k, v in ins.items() if v}), "instructions": ins}


def run(n: int, seed: int, out: str) -> list[dict]:
    conv, ctrl = _load_kernels()
    rows = []
    t0 = time.time()
    for name, kinds, src, dst, bits, warps in pairs(n, seed):
        row = {"name": name, "kinds": kinds, "element_bits": bits, "warps": warps, "shape": list(src.out_sizes.values()),
               "src": src.to_dict(), "dst": dst.to_dict(), "linlayout": ours(src, dst, bits)}
        try:
            a = count_ops(compile_ptx(conv, src, dst, bits, warps))
            b = count_ops(compile_ptx(ctrl, src, dst, bits, warps))
            diff = {k: a[k] - b[k] for k in OPS}
            path = triton_path(a)
            row["triton"] = {"path": path, "instructions": diff, "model": triton_model(src, dst, bits, path, diff)}
        except Exception as e:  # noqa: BLE001 - Triton refuses the pair: record it
            row["triton"] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]}
        rows.append(row)
        print(f"{len(rows)} {name} ours={row['linlayout'].get('path')} triton={row['triton'].get('path', 'ERR')} "
              f"t={time.time() - t0:.0f}s", flush=True)
        if len(rows) % 50 == 0:
            Path(out).write_text(json.dumps(rows, indent=0))
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps(rows, indent=0))
    return rows


def replan(path: str) -> list[dict]:
    """``--replan``: linlayout's side of every stored row again (Triton's PTX counts are kept)."""
    rows = json.loads(Path(path).read_text())
    for row in rows:
        src, dst, bits = LinearLayout.from_json(row["src"]), LinearLayout.from_json(row["dst"]), row["element_bits"]
        row["linlayout"] = ours(src, dst, bits)
        if "path" in row["triton"]:
            row["triton"]["model"] = triton_model(src, dst, bits, row["triton"]["path"], row["triton"]["instructions"])
    Path(path).write_text(json.dumps(rows, indent=0))
    return rows


def _same_path(ours_path: str, triton: str) -> bool:
    return ours_path == triton or (triton == "registers_or_none" and ours_path in ("registers", "none"))


def summarize(rows: list[dict]) -> str:
    lines = []
    compiled = [r for r in rows if "path" in r["triton"]]
    refused = [r for r in compiled if "error" in r["linlayout"]]
    lines.append(f"{len(rows)} conversions generated, {len(compiled)} compiled by Triton 3.9.0 for cuda:90 "
                 f"({len(rows) - len(compiled)} refused by Triton), {len(refused)} refused by linlayout")
    lines.append("kinds (src/dst): " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(
        k for r in compiled for k in r["kinds"]).items())))
    lines.append("bits: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r["element_bits"] for r in compiled).items()))
                 + "; warps: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r["warps"] for r in compiled).items()))
                 + "; 256x256 tiles: " + str(sum(r["shape"] == [256, 256] for r in compiled)))
    paths = Counter((r["linlayout"].get("path"), r["triton"]["path"]) for r in compiled if "path" in r["linlayout"])
    lines.append("paths (linlayout, Triton): " + ", ".join(f"{a} / {b}: {n}" for (a, b), n in sorted(paths.items())))
    same = [r for r in compiled if "path" in r["linlayout"] and _same_path(r["linlayout"]["path"], r["triton"]["path"])]
    lines.append(f"same path: {len(same)}")
    more: dict[str, list[str]] = {}
    for what, ops in (("shfl.sync", ("shfl.sync",)), ("selp", ("selp",)), ("shared-memory instructions", SMEM_OPS),
                      ("barriers", BARRIERS)):
        fewer = equal = 0
        for r in same:
            a = sum(r["linlayout"]["instructions"][k] for k in ops)
            b = sum(max(0, r["triton"]["instructions"][k]) for k in ops)
            if a > b:
                more.setdefault(what, []).append(r["name"])
            elif a < b:
                fewer += 1
            else:
                equal += 1
        lines.append(f"  {what} per thread: fewer {fewer}, equal {equal}, more {len(more.get(what, []))}")
    for what, names in more.items():
        lines.append(f"  more {what}: {', '.join(names[:12])}{' ...' if len(names) > 12 else ''}")
    differ = [r for r in compiled if "path" in r["linlayout"] and not _same_path(r["linlayout"]["path"], r["triton"]["path"])]
    tally = Counter()
    higher = []
    for r in differ:
        tc = r["triton"]["model"]["cost"]
        if tc is None:
            tally["Triton's staging not modelled"] += 1
        elif r["linlayout"]["cost"] < tc:
            tally["lower"] += 1
        elif r["linlayout"]["cost"] == tc:
            tally["equal"] += 1
        else:
            tally["higher"] += 1
            higher.append(r["name"])
    lines.append(f"paths differ: {len(differ)}; linlayout's cost under the model: "
                 + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    if higher:
        lines.append("  higher: " + ", ".join(higher))
    all_cost = Counter()
    for r in compiled:
        tc = r["triton"].get("model", {}).get("cost")
        if "cost" in r["linlayout"] and tc is not None:
            all_cost["lower" if r["linlayout"]["cost"] < tc else "equal" if r["linlayout"]["cost"] == tc else "higher"] += 1
    lines.append("all pairs, cost under the model: " + ", ".join(f"{k} {v}" for k, v in sorted(all_cost.items())))
    smem = [r for r in compiled if r["triton"]["path"] == "shared_memory"]
    match = sum(1 for r in smem if r["triton"]["model"].get("model_matches_ptx"))
    lines.append(f"Triton round trips whose modelled st/ld.shared, stmatrix/ldmatrix and barriers equal its PTX: "
                 f"{match} of {len(smem)}")
    ms = sorted(r["linlayout"]["ms"] for r in compiled if "ms" in r["linlayout"])
    if ms:
        lines.append(f"plan_conversion time (ms, as the rows were made): median {ms[len(ms) // 2]}, max {ms[-1]}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=520)
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--out", default="benchmarks/results/convert_vs_triton39.json")
    ap.add_argument("--summary", help="only summarize a stored rows file")
    ap.add_argument("--replan", help="re-plan linlayout's side (and Triton's modelled round trip) of a stored rows "
                                     "file, keep Triton's compiled counts, write it back and summarize")
    args = ap.parse_args()
    if args.replan:
        rows = replan(args.replan)
        args.out = args.replan
    else:
        rows = json.loads(Path(args.summary).read_text()) if args.summary else run(args.pairs, args.seed, args.out)
    text = summarize(rows)
    print(text)
    if not args.summary:  # --replan writes the summary too
        Path(args.out).with_name(Path(args.out).stem + "_summary.txt").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
