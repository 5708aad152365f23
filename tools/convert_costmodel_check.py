"""Every emitted plan checked on the GPU: elements, ncu wavefronts and instructions, SASS instructions and barriers.

Builds, with :func:`convert_cuda_check.build` (the kernel fills every source
register from the ``src`` layout, converts once, and compares every
destination register with the ``dst`` layout), one program holding

* the default plan of each of ``--pairs`` conversions (catalog and random
  pairs of ``convert_cuda_check.pairs``), and
* every variant the timing harness times (``variants.json`` of
  ``tools/convert_costmodel_harness.py``: a path forced, shared memory in
  1, 2 or 4 reps), so that every timed kernel is known to be correct.

The program takes an argument ``once`` (one pass of narrow elements, for ncu); 64-bit elements get
nonzero high words (:func:`adapt`).

    python tools/convert_costmodel_check.py --pairs 330 --variants build/costmodel/variants.json --out build/costmodel/check.cu
    nvcc -arch=sm_90 -O3 -o build/costmodel/check build/costmodel/check.cu
    cuobjdump -sass build/costmodel/check > sass.txt; python tools/convert_costmodel_check.py --sass sass.txt sass.json

``tools/convert_costmodel_table.py`` compares the results with the plans.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import convert_cuda_check  # noqa: E402
from sass_opcodes import sass_counts  # noqa: E402

from linlayout.convert.plan import plan_conversion  # noqa: E402
from linlayout.core.layout import LinearLayout  # noqa: E402



def forced_planner(specs: dict[int, dict]):
    """``plan_conversion`` that plans the case whose ``src`` object has a spec on the spec's path and scratch."""
    def plan(src, dst, eb, multistep=True):
        spec = specs.get(id(src))
        if spec is None:
            return plan_conversion(src, dst, eb, multistep=multistep)
        return plan_conversion(src, dst, eb, paths=[spec["path"]], scratch_bytes=spec["scratch"])
    return plan


def cases(n_pairs: int, seed: int, variants_path: str | None, rows_path: str | None = None):
    out = list(convert_cuda_check.pairs(n_pairs, seed))
    if rows_path:  # more conversions planned by default: a rows file (name, src, dst, element_bits per row)
        out += convert_cuda_check.row_cases(rows_path)
    specs: dict[int, dict] = {}
    if variants_path:
        for v in json.loads(Path(variants_path).read_text()):
            src = LinearLayout.from_json(v["src"])
            dst = LinearLayout.from_json(v["dst"])
            scratch = v["scratch_bytes"] if v["variant"].startswith("shared_memory_r") else None
            specs[id(src)] = {"path": v["path"], "scratch": scratch}
            out.append((f"v{v['index']}_{v['variant']}__{v['name']}", src, dst, v["element_bits"]))
    return out, specs


def adapt(source: str) -> str:
    """Run each kernel once (one pass) when given an argument; give 64-bit elements nonzero high words.

    ``convert_cuda_check`` fills a 64-bit element with its 32-bit index, so
    the compiler knows every high word is zero and drops the shuffles that
    move them; here the high word is the complemented index.
    """
    source = source.replace("(unsigned long long)(e >> 0)", "(((unsigned long long)(~e) << 32) | e)")
    source = source.replace("int main() {", "int main(int argc, char** argv) {\n  const bool once = argc > 1; (void)argv;")
    return re.sub(r"for \(unsigned p = 0; p < (\d+); \+\+p\) \{\n    cudaMemset",
                  r"for (unsigned p = 0; p < (once ? 1u : \1u); ++p) {\n    cudaMemset", source)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=330)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--variants")
    ap.add_argument("--rows", help="a rows JSON file (name, src, dst, element_bits per row): more default plans to check")
    ap.add_argument("--out", default="build/costmodel/check.cu")
    ap.add_argument("--sass", nargs=2, metavar=("SASS_TXT", "JSON"))
    args = ap.parse_args()
    if args.sass:
        Path(args.sass[1]).write_text(json.dumps(sass_counts(Path(args.sass[0]).read_text())))
        return 0
    cs, specs = cases(args.pairs, args.seed, args.variants, args.rows)
    convert_cuda_check.plan_conversion = forced_planner(specs)
    source, meta = convert_cuda_check.build(cs, "gpu")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(adapt(source))
    out.with_suffix(".json").write_text(json.dumps(meta))
    print(f"wrote {out}: {sum('skipped' not in m for m in meta)} conversions, "
          f"{sum('skipped' in m for m in meta)} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
