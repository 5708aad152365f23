"""The plan's per-thread counts equal the emitted CUDA's PTX and SASS (nvcc on the CPU; skipped without it).

tools/convert_count_check.py runs the same comparison on a sample of generated pairs
(benchmarks/results/convert_count_check.txt); this test keeps two plans of it: a shuffle
program and a two-rep round trip with ldmatrix in every rep.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from linlayout import LinearLayout
from linlayout.convert.plan import plan_conversion

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from convert_count_check import EXACT, check, tools_present  # noqa: E402


@pytest.mark.skipif(not tools_present(), reason="nvcc or cuobjdump not installed")
def test_plan_counts_equal_the_compiled_code():
    rows = LinearLayout({"register": [[1]], "lane": [[2], [4], [8], [16], [32]]}, {"dim0": 64})
    cols = LinearLayout({"register": [[2]], "lane": [[1], [4], [8], [16], [32]]}, {"dim0": 64})
    src = LinearLayout({"register": [[0, 1], [32, 0], [16, 0]], "lane": [[8, 0], [1, 0], [2, 0], [4, 0], [0, 2]]},
                       {"dim0": 64, "dim1": 4})
    dst = LinearLayout({"register": [[32, 0], [0, 0], [0, 2], [0, 0], [2, 0]],
                        "lane": [[16, 0], [0, 1], [4, 0], [1, 0], [8, 0]]}, {"dim0": 64, "dim1": 4})
    shuffles = plan_conversion(rows, cols, 32, paths=["shuffles"])  # the model prefers ldmatrix here (48 < 68)
    matrix = plan_conversion(src, dst, 32, scratch_bytes=512)
    assert shuffles.path == "shuffles" and matrix.reps == 2 and matrix.instructions["ldmatrix"] == 2
    for row in check([("shuffles", shuffles, rows, cols), ("ldmatrix", matrix, src, dst)]):
        assert {op: row["ptx"][op] for op in EXACT} == {op: row["plan"][op] for op in EXACT}, row
        assert row["exact_sass"], row
