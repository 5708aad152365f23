"""Compile the corpus (corpus.py) for cuda:90 on the CPU and write tests/data/ttgir/NAME.ttgir.

    PYTHONPATH=. /tmp/venv/bin/python tools/ttgir_corpus/compile_cpu.py [OUT_DIR]

Works with no GPU: ``triton.compile(src, target=GPUTarget("cuda", 90, 32))``.
Also writes ``OUT_DIR/corpus.json`` (name, grid, num_warps, num_stages, Triton version).
Source locations are rewritten to ``kernels*.py:LINE:COL`` so the files do not
depend on where the repository lives.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import triton
from triton.backends.compiler import GPUTarget

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus


def source(case):
    fn = case["fn"]
    if hasattr(fn, "is_gluon") and fn.is_gluon() if callable(getattr(fn, "is_gluon", None)) else False:
        from triton.experimental.gluon._runtime import GluonASTSource as Src
    else:
        try:
            from triton.experimental.gluon._runtime import (
                GluonASTSource,
                GluonJITFunction,
            )
            Src = GluonASTSource if isinstance(fn, GluonJITFunction) else None
        except ImportError:
            Src = None
        if Src is None:
            from triton.compiler import ASTSource as Src
    # As the JIT specializes a launch: pointers and integers divisible by 16 (all but the case's plain_ints).
    names = list(case["signature"])
    plain = case.get("plain_ints", ())
    attrs = {(names.index(a),): [["tt.divisibility", 16]] for a, t in case["signature"].items()
             if t.startswith("*") or (t == "i32" and a not in plain)}
    return Src(fn, signature=case["signature"], constexprs=case["constexprs"], attrs=attrs)


def relocate(text: str) -> str:
    return re.sub(r'loc\("[^"]*/(kernels[A-Za-z0-9_]*\.py)":', r'loc("\1":', text)


def compile_case(case):
    """The compiled kernel (``.asm["ttgir"]``, ``.asm["ptx"]``) for cuda:90 with the local Triton."""
    return triton.compile(source(case), target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": case["num_warps"], "num_stages": case["num_stages"]})


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[1] / "tests" / "data" / "ttgir"
    out.mkdir(parents=True, exist_ok=True)
    meta = []
    for case in corpus.CASES:
        k = compile_case(case)
        (out / f"{case['name']}.ttgir").write_text(relocate(k.asm["ttgir"]))
        meta.append({"name": case["name"], "grid": list(case["grid"]), "num_warps": case["num_warps"],
                     "num_stages": case["num_stages"]})
        print(case["name"], "ok", flush=True)
    (out / "corpus.json").write_text(json.dumps({"triton": triton.__version__, "target": "cuda:90",
                                                  "generator": "tools/ttgir_corpus/compile_cpu.py",
                                                  "kernels": meta}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
