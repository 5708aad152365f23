"""The compiler's own answer: compile every corpus kernel for cuda:90 and count its shared-memory PTX.

    python tools/ttgir_corpus/ptx_counts.py [--out DIR] [--only NAME[,NAME...]]
    python tools/ttgir_corpus/ptx_counts.py --compare A/ptx_counts.json B/ptx_counts.json  # Markdown, side by side

Works with no GPU.  With the local Triton (3.9 here) it writes, by default into
``tests/data/ttgirXY/`` (XY = the Triton major and minor version):

- ``NAME.ttgir``: the TTGIR Triton compiled (locations relative, as compile_cpu.py writes them);
- ``ptx_counts.json``: per kernel the *static* count of every PTX instruction that touches shared
  memory or orders it, by family (``st.shared``, ``ld.shared``, ``stmatrix``, ``ldmatrix``, ``shfl.sync``,
  ``bar.sync`` (``barrier.sync`` counts here too), ``atom.shared``, ``red.shared``, ``cp.async``) and for
  context ``atom.global``, ``red.global``, ``cp.async.commit_group``/``wait_group``, ``cp.async.bulk``
  (TMA), ``wgmma.mma_async`` and ``mbarrier``; each family also by full opcode (so by vector width:
  ``st.shared.v4.b32``, ``stmatrix.sync.aligned.m8n8.x4.trans.shared.b16``...) and by access width in bits.

A static count is the number executed per thread only where the instruction runs once: the table
says, per kernel, which TTGIR loops there are (``scf.for``, ``scf.while``) and, per family, how many of
the instructions lie inside a PTX loop (between a backward branch and its target label).  A family
whose ``in_loop`` is 0 executes exactly ``total`` times per thread (predicated-off instructions are
still issued).  ``ptx_by_loc``: the shared-memory families' counts per source line (``FILE:LINE`` of
the PTX ``.loc``), which says which op of the kernel emitted them.  ``sass``: the same for the SASS that ptxas made of it (LDS, STS, LDSM, STSM, SHFL,
BAR, ATOMS, LDGSTS, ATOMG/RED...; the cuobjdump Triton ships disassembles it).  ``shared_bytes`` is the kernel's shared memory (Triton's allocation, scratch included).
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path

import triton

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compile_cpu  # noqa: E402
import corpus  # noqa: E402
from asm_counts import CONTEXT_FAMILIES, SHARED_FAMILIES, compiled_sass, count_ptx, ttgir_ops  # noqa: E402

def measure_case(case, out: Path) -> dict:
    """Compile one case, write its TTGIR, and return its row of the table."""
    k = compile_cpu.compile_case(case)
    ttgir = compile_cpu.relocate(k.asm["ttgir"])
    (out / f"{case['name']}.ttgir").write_text(ttgir)
    ops = ttgir_ops(ttgir)
    ptx = count_ptx(k.asm["ptx"])
    loops = {op: n for op, n in ops.items() if op in ("scf.for", "scf.while")}
    return {"num_warps": case["num_warps"], "num_stages": case["num_stages"], "grid": list(case["grid"]),
            "shared_bytes": k.metadata.shared, "ttgir_loops": loops, "ptx_loops": ptx["loops"],
            "static_is_per_execution": not loops and ptx["loops"] == 0,
            "data_dependent": case.get("data_dependent", ""), "ttgir_ops": ops, "ptx": ptx["families"],
            "ptx_by_loc": ptx["by_loc"],
            "sass": compiled_sass(k)}


SHORT = {"st.shared": "st", "ld.shared": "ld", "stmatrix": "stsm", "ldmatrix": "ldsm", "shfl.sync": "shfl",
         "bar.sync": "bar", "atom.shared": "atom.s", "red.shared": "red.s", "cp.async": "cp.async"}


def family_cell(row: dict | None) -> str:
    """``ld st stsm ldsm shfl bar atom.s red.s cp.async`` static counts, ``a/b`` where b of them are in a loop."""
    if row is None:
        return "failed"
    cells = []
    for fam, short in SHORT.items():
        r = row["ptx"].get(fam)
        if r:
            cells.append(f"{short} {r['total']}" + (f"({r['in_loop']}L)" if r["in_loop"] else ""))
    return ", ".join(cells) or "none"


def compare(tables: list[Path]) -> str:
    """A Markdown table of several ptx_counts.json side by side (one column per Triton version)."""
    loaded = [json.loads(t.read_text()) for t in tables]
    head = "| kernel | warps | " + " | ".join(f"Triton {t['triton']}" for t in loaded) + " |"
    out = [head, "|---|---|" + "---|" * len(loaded)]
    for name in loaded[0]["kernels"]:
        row0 = loaded[0]["kernels"][name]
        out.append(f"| {name} | {row0['num_warps']} | "
                   + " | ".join(family_cell(t["kernels"].get(name)) for t in loaded) + " |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--compare"]:
        print(compare([Path(a) for a in argv[1:]]), end="")
        return 0
    version = ".".join(triton.__version__.split(".")[:2])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path,
                        default=HERE.parents[1] / "tests" / "data" / f"ttgir{version.replace('.', '')}")
    parser.add_argument("--only", default="", help="comma-separated case names (default: all); their rows "
                                                   "replace those of an existing table")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = set(filter(None, args.only.split(",")))
    rows, failed = {}, {}
    table_file = args.out / "ptx_counts.json"
    if wanted and table_file.exists():
        old = json.loads(table_file.read_text())
        if old["triton"] == triton.__version__:
            rows, failed = old["kernels"], {k: v for k, v in old["failed"].items() if k not in wanted}
    for case in corpus.CASES:
        if wanted and case["name"] not in wanted:
            continue
        try:
            rows[case["name"]] = measure_case(case, args.out)
            print(case["name"], "ok", flush=True)
        except Exception as e:  # noqa: BLE001 - record it and go on with the others
            failed[case["name"]] = f"{type(e).__name__}: {e}"[:2000]
            print(case["name"], "FAILED", failed[case["name"]].splitlines()[0], flush=True)
            traceback.print_exc()
    table = {"triton": triton.__version__, "target": "cuda:90", "generator": "tools/ttgir_corpus/ptx_counts.py",
             "families": list(SHARED_FAMILIES), "context_families": list(CONTEXT_FAMILIES),
             "kernels": {c["name"]: rows[c["name"]] for c in corpus.CASES if c["name"] in rows}, "failed": failed}
    table_file.write_text(json.dumps(table, indent=1) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
