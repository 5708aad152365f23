"""Version-aware lint: --triton, the per-op ``instructions`` map, and Triton 3.9's lowering checked against its PTX.

``tests/data/ttgir39`` holds the corpus (``tools/ttgir_corpus``) compiled by Triton 3.9.0 on the CPU for cuda:90:
each kernel's TTGIR and, in ``ptx_counts.json``, the static count of every shared-memory PTX instruction.  A TTGIR
op is lowered once into straight-line PTX (a loop's body appears once; nothing is unrolled), so the sum over the
module's ops of each op's per-execution ``instructions`` is the kernel's static count; the comparison holds it to
that, family by family.

Why the static count is the per-execution count here: each op's ``instructions`` is what one execution issues,
and each op appears once in the PTX, so the module sums are static counts whatever the loops.  In the 44 kernels
without a shared-memory instruction inside a loop (``ptx_counts.json``: ``in_loop`` 0 for every family) the static
count is also what a thread executes once; in the others (matmuls, attention, the spin locks) it is the count per
execution of each op, which is what ``instructions`` states.  Barriers are compared only in loop-free kernels (inside loops Triton's membar pass also
guards the back edge, which lint does not model).  No Triton is needed to run these tests.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from linlayout.cli import main
from linlayout.io.ttgir.lint import lint_json, lint_text
from linlayout.lower.records import INSTRUCTION_NAMES

ROOT = Path(__file__).resolve().parents[2]
T39 = ROOT / "tests" / "data" / "ttgir39"
PTX39 = json.loads((T39 / "ptx_counts.json").read_text())["kernels"]

MEMORY_FAMILIES = ("st.shared", "ld.shared", "stmatrix", "ldmatrix", "atom.shared", "red.shared", "cp.async")
"""The instruction families that touch shared memory, compared in every kernel whose ops lint counts."""

KNOWN_DIFFERENCES: dict[str, str] = {}
"""Kernels where lint's instructions differ from Triton 3.9's PTX, and why.  Empty: the last six (the axis-0
exchanges that take a second conversion, the 16-bit slice's scalar stores, the layer-norm backward's unused atomic
result inside an ``scf.if``) are modelled."""


SHUFFLES_NOT_MODELLED = ("tut_matmul_fp16", "tut_matmul_fp8")
"""Kernels with a shuffle lint does not attribute (a scalar broadcast of the program id's group, outside any op it
models)."""


def _sums(name: str) -> tuple[Counter, list[str]]:
    report = lint_text((T39 / f"{name}.ttgir").read_text(), triton="3.9")
    got: Counter = Counter()
    unknown = []
    for o in report.ops:
        if o.instructions is None and "register permutation" not in o.reason:
            unknown.append(o.op)
        for k, n in o.instructions or ():
            got[k] += n
    return got, unknown


def _ptx(name: str, family: str) -> int:
    return PTX39[name]["ptx"].get(family, {}).get("total", 0)


def _modelled(unknown: list[str], name: str = "") -> bool:
    """Whether every op that touches shared memory through the LSU has an instructions map (the async proxy's do not)."""
    return all(op in ("ttng.warp_group_dot", "ttng.async_tma_copy_global_to_local") for op in unknown)


@pytest.mark.parametrize("name", sorted(PTX39))
def test_instructions_sum_to_the_ptx_of_triton_3_9(name):
    got, unknown = _sums(name)
    if not _modelled(unknown, name) or name in KNOWN_DIFFERENCES:
        pytest.skip(f"not every op is modelled ({sorted(set(unknown))})" if name not in KNOWN_DIFFERENCES
                    else KNOWN_DIFFERENCES[name])
    families = MEMORY_FAMILIES + ("shfl.sync",) + (("bar.sync",) if not PTX39[name]["ttgir_loops"] else ())
    if name in SHUFFLES_NOT_MODELLED:
        families = tuple(f for f in families if f != "shfl.sync")
    assert {f: got[f] for f in families} == {f: _ptx(name, f) for f in families}


def test_enough_kernels_are_checked_against_the_ptx():
    checked = [n for n in PTX39 if n not in KNOWN_DIFFERENCES and _modelled(_sums(n)[1], n)]
    assert len(checked) >= 50, checked


def test_the_grouped_gemm_epilogue_is_stmatrix_trans_in_four_reps():
    """The issue's example: 16 stmatrix.x4.trans + 16 ld.shared.v4 in 4 reps (7 barriers between them)."""
    report = lint_text((T39 / "tut_grouped_gemm.ttgir").read_text(), triton="3.9")
    (cvt,) = [o for o in report.ops if o.op == "ttg.convert_layout" and o.counted]
    assert cvt.conversion.store.instruction == "stmatrix.x4.trans" and cvt.conversion.reps == 4
    assert dict(cvt.instructions) == {"stmatrix": 16, "ld.shared": 16, "bar.sync": 7}


def test_32_bit_data_is_read_with_ldmatrix():
    """atomic_max_tensor_i32: Triton 3.9 converts the i32 operand with st.shared.v4 + ldmatrix.x4 in 2 reps."""
    report = lint_text((T39 / "atomic_max_tensor_i32.ttgir").read_text(), triton="3.9")
    (cvt,) = [o for o in report.ops if o.op == "ttg.convert_layout"]
    assert cvt.element_bits == 32 and cvt.conversion.load.instruction == "ldmatrix.x4"
    assert dict(cvt.instructions) == {"st.shared": 2, "ldmatrix": 2, "bar.sync": 3}


def test_every_op_has_an_instructions_map_or_says_why_not():
    for name in ("matmul_fp16_s3", "softmax", "tut_grouped_gemm"):
        d = lint_json(lint_text((T39 / f"{name}.ttgir").read_text(), triton="3.9"))
        assert d["triton"] == "3.9"
        for op in d["ops"]:
            assert "instructions" in op
            if op["instructions"] is None:
                assert op["reason"] or op.get("instructions_note"), op
            else:
                assert set(op["instructions"]) <= set(INSTRUCTION_NAMES), op


def test_cli_takes_the_triton_version(capsys):
    path = str(T39 / "transpose.ttgir")
    assert main(["lint", path, "--json"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert main(["lint", path, "--json", "--triton", "3.6"]) == 0
    old = json.loads(capsys.readouterr().out)
    assert default["triton"] == "3.9" and old["triton"] == "3.6"
    assert default["ops"][0]["instructions"] == {"st.shared": 4, "ldmatrix": 4, "bar.sync": 1}
    assert main(["lint", path, "--triton", "4.0"]) == 2
    assert "unknown Triton version '4.0'" in capsys.readouterr().err


def test_one_warp_barriers_are_warp_barriers():
    """With one warp a conversion's own barrier is bar.warp.sync; the one between two ops stays bar.sync."""
    got, _ = _sums("red_argmax_row_fp32_4x256_w1")
    assert got["bar.warp.sync"] == 2 == PTX39["red_argmax_row_fp32_4x256_w1"]["ptx"]["st.shared"]["total"]
    assert got["bar.sync"] == _ptx("red_argmax_row_fp32_4x256_w1", "bar.sync") == 1


T36 = ROOT / "tests" / "data" / "ttgir36"
PTX36 = json.loads((T36 / "ptx_counts.json").read_text())["kernels"]


@pytest.mark.parametrize("name", sorted(PTX36))
def test_instructions_sum_to_the_ptx_of_triton_3_6(name):
    """Triton 3.6's models (conversions through its scratch layouts, reductions, scans, histograms, atomics,
    cp.async, gathers) against its PTX, family by family, on every corpus kernel (the same reasoning as 3.9's)."""
    report = lint_text((T36 / f"{name}.ttgir").read_text(), triton="3.6")
    unknown = [o.op for o in report.ops if o.instructions is None and "register permutation" not in o.reason]
    assert _modelled(unknown), unknown
    got: Counter = Counter()
    for o in report.ops:
        for k, n in o.instructions or ():
            got[k] += n
    families = MEMORY_FAMILIES + ("shfl.sync",) + (("bar.sync",) if not PTX36[name]["ttgir_loops"] else ())
    if name in SHUFFLES_NOT_MODELLED:
        families = tuple(f for f in families if f != "shfl.sync")
    want = {f: PTX36[name]["ptx"].get(f, {}).get("total", 0) for f in families}
    assert {f: got[f] for f in families} == want


def test_a_scan_counts_its_carry_through_scratch_in_both_versions():
    """The carry across warps: 2 chunk totals stored per thread, 1 barrier, the 7 live totals loaded as v4 + v2 + b32
    in 3.6 (broadcast: 2 + 1 + 1 wavefronts per warp, 16 per CTA as ncu measured) and all 8 as 2 v4 in 3.9."""
    report = lint_text((T39 / "scan_cumsum_rev_ax1_fp32_1x1024_w4.ttgir").read_text(), triton="3.9", grid=(1, 1, 1))
    (scan,) = [o for o in report.ops if o.op == "tt.scan"]
    assert scan.counted and not scan.reason
    assert dict(scan.instructions) == {"st.shared": 2, "bar.sync": 1, "ld.shared": 2, "shfl.sync": 28}
    assert not any(n.startswith("tt.scan") for n in report.total.not_counted)
    old = lint_text((T36 / "scan_cumsum_rev_ax1_fp32_1x1024_w4.ttgir").read_text(), triton="3.6", grid=(1, 1, 1))
    (scan36,) = [o for o in old.ops if o.op == "tt.scan"]
    assert dict(scan36.instructions) == {"st.shared": 2, "bar.sync": 1, "ld.shared": 3, "shfl.sync": 92}
    assert [(k, r.instructions, r.vector_bits, r.wavefronts) for k, r in scan36.accesses] == [
        ("store", 2, 32, 2), ("load", 1, 128, 2), ("load", 1, 64, 1), ("load", 1, 32, 1)]
    assert (old.total.load_wavefronts, old.total.store_wavefronts) == (16, 8)
