"""The compiler oracle tables (tests/data/ttgir39, ttgir36) and the PTX/SASS counter that made them.

tools/ttgir_corpus/ptx_counts.py compiled every corpus kernel with Triton 3.9 and 3.6 for cuda:90 and
counted its shared-memory instructions; these tests check the counter on small listings, that the tables
are complete and self-consistent, and pin the lowering facts paper_notes/triton_lowering.md states.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
sys.path.insert(0, str(ROOT / "tools" / "ttgir_corpus"))

from asm_counts import count_ptx, count_sass, ttgir_ops  # noqa: E402

PTX = """
.visible .entry k()
{
$L__BB0_1:
	.loc	1 7 3                          // kernels_x.py:7:3
	// begin inline asm
	@%p1 st.shared.v4.b32 [ %r1 + 0 ], { %r2, %r3, %r4, %r5 };
	// end inline asm
	ld.shared.u16 	%rs1, [%r6];
	bar.sync 	0;
	shfl.sync.bfly.b32	%r7, %r8, 16, 31, -1;
	@%p2 bra 	$L__BB0_1;
	.loc	2 30 1, function_name $L__info_string0, inlined_at 1 9 5 // standard.py:30:1
	atom.shared.add.u32 	%r9, [%r10], 1;
	cp.async.cg.shared.global [ %r11 + 0 ], [ %rd1 + 0 ], 0x10, %r12;
	stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r1], {%r2, %r3, %r4, %r5};
	red.global.add.f32 	[%rd2], %f1;
	ret;
}
	.file	1 "/somewhere/kernels_x.py"
	.file	2 "/site-packages/triton/language/standard.py"
"""

SASS = """Function:k
--:-:-:-:1	@!PT LDS RZ, [RZ];
LBB0:
--:-:-:-:1	STS.128 [R2], R4;
--:-:-:-:1	BAR.SYNC.DEFER_BLOCKING 0x0;
--:-:0:-:2	LDS.U16 R3, [UR4];
--:-:-:-:5	@!P1 BRA LBB0;
--:-:-:-:1	LDSM.16.M88.4 R24, [R2+UR5];
--:-:-:-:5	EXIT;
"""


def test_count_ptx_families_widths_loops_and_lines():
    got = count_ptx(PTX)
    fam = got["families"]
    assert got["loops"] == 1
    assert fam["st.shared"] == {"total": 1, "in_loop": 1, "by_opcode": {"st.shared.v4.b32": 1}, "by_bits": {"128": 1}}
    assert fam["ld.shared"]["by_bits"] == {"16": 1} and fam["ld.shared"]["in_loop"] == 1
    assert fam["bar.sync"]["in_loop"] == 1 and fam["shfl.sync"]["in_loop"] == 1
    assert fam["atom.shared"] == {"total": 1, "in_loop": 0, "by_opcode": {"atom.shared.add.u32": 1}, "by_bits": {"32": 1}}
    assert fam["cp.async"]["by_bits"] == {"128": 1}
    assert fam["stmatrix"]["by_opcode"] == {"stmatrix.sync.aligned.m8n8.x4.trans.shared.b16": 1}
    assert fam["red.global"]["total"] == 1 and "red.shared" not in fam
    # the library's line (standard.py) is attributed to the kernel line that called it
    assert got["by_loc"] == {"kernels_x.py:7": {"bar.sync": 1, "ld.shared": 1, "shfl.sync": 1, "st.shared": 1},
                             "kernels_x.py:9": {"atom.shared": 1, "cp.async": 1, "stmatrix": 1}}


def test_count_sass_drops_never_executed_padding():
    fam = count_sass(SASS)["families"]
    assert fam["LDS"] == {"total": 1, "in_loop": 1, "by_opcode": {"LDS.U16": 1}}
    assert fam["STS"]["in_loop"] == 1 and fam["LDSM"]["in_loop"] == 0 and fam["BAR"]["total"] == 1


def test_ttgir_ops_counts_op_names_not_attributes():
    text = ('%0 = tt.reduce %x {axis = 1 : i32} : tensor<4x8xf32, #blocked>\n'
            '  %1:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %b) -> (i32) {\n'
            '    tt.reduce.return %s : f32\n  tt.func public @k(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32})\n')
    assert ttgir_ops(text) == {"scf.for": 1, "tt.func": 1, "tt.reduce": 1, "tt.reduce.return": 1}


@pytest.fixture(scope="module", params=["ttgir39", "ttgir36"])
def table(request):
    return request.param, json.loads((DATA / request.param / "ptx_counts.json").read_text())


def test_tables_are_complete_and_consistent(table):
    folder, t = table
    assert t["target"] == "cuda:90" and t["triton"].startswith({"ttgir39": "3.9", "ttgir36": "3.6"}[folder])
    assert not t["failed"] and len(t["kernels"]) == 58
    assert {p.stem for p in (DATA / folder).glob("*.ttgir")} == set(t["kernels"])
    for name, k in t["kernels"].items():
        for fam, row in k["ptx"].items():
            assert row["total"] == sum(row["by_opcode"].values()) >= row["in_loop"], (name, fam)
        looped = bool(k["ttgir_loops"]) or k["ptx_loops"] > 0
        assert k["static_is_per_execution"] == (not looped), name
        per_line = {}
        for counts in k["ptx_by_loc"].values():
            for fam, n in counts.items():
                per_line[fam] = per_line.get(fam, 0) + n
        assert per_line == {f: r["total"] for f, r in k["ptx"].items() if f in t["families"]}, name


def ptx(version: str, kernel: str) -> dict:
    t = json.loads((DATA / f"ttgir{version.replace('.', '')}" / "ptx_counts.json").read_text())
    return {f: r["total"] for f, r in t["kernels"][kernel]["ptx"].items()}


def test_count_ptx_reads_triton_36_inlining_comments():
    ptx = ("\t.loc\t2 293 36                        // standard.py:293:36 @[ kernels_q.py:40:23 ]\n"
           "\tst.shared.b32 \t[%r1], %r2;\n\t.file\t2 \"/x/standard.py\"\n")
    assert count_ptx(ptx)["by_loc"] == {"kernels_q.py:40": {"st.shared": 1}}


def without_locations(ttgir: str) -> list[str]:
    text = re.sub(r"\s*loc\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)", "", ttgir)
    return [line for line in text.splitlines() if not line.startswith("#loc")]


def test_triton_36_on_the_cpu_compiles_what_the_h100_compiled():
    """tests/data/ttgir_gpu holds the TTGIR the H100's Triton 3.6 compiled; the CPU compile matches it."""
    gpu = sorted((DATA / "ttgir_gpu").glob("*.ttgir"))
    assert len(gpu) == 14
    for f in gpu:
        assert without_locations(f.read_text()) == without_locations((DATA / "ttgir36" / f.name).read_text()), f.name


def test_facts_the_lowering_notes_state():
    # histogram: 3.6 issues one shared atomic per bin a lane owns (bins / 32); 3.9 one per input element
    assert ptx("3.6", "hist_64bins_4096_w4")["atom.shared"] == 2
    assert ptx("3.6", "hist_256bins_4096_w4")["atom.shared"] == 8
    assert ptx("3.9", "hist_64bins_4096_w4")["atom.shared"] == 32
    assert ptx("3.9", "hist_16bins_1024_w1")["atom.shared"] == 32
    assert ptx("3.9", "hist_128bins_2048_w4")["atom.shared"] == 16 and ptx("3.6", "hist_128bins_2048_w4")["atom.shared"] == 4
    # a scalar atomic whose result is used: one st.shared, a barrier, one ld.shared (both versions)
    for version in ("3.6", "3.9"):
        got = ptx(version, "atomic_add_scalar_ticket")
        assert got["st.shared"] == 1 and got["ld.shared"] == 1 and "atom.global" in got
    # an fp32 softmax row: the cross-warp exchange of each of its 2 reductions
    assert ptx("3.6", "softmax")["st.shared"] == 4 and ptx("3.9", "softmax")["st.shared"] == 2
    assert ptx("3.6", "softmax")["bar.sync"] == 5 and ptx("3.9", "softmax")["bar.sync"] == 3
    # reverse scan: 3.6 reverses lanes with 5 butterflies per value, 3.9 with one
    assert ptx("3.6", "scan_cumsum_rev_ax1_fp32_1x1024_w4")["shfl.sync"] == 92
    assert ptx("3.9", "scan_cumsum_rev_ax1_fp32_1x1024_w4")["shfl.sync"] == 28
    # 3.9 puts a barrier on each side of an acq_rel atomic; 3.6 none
    assert "bar.sync" not in ptx("3.6", "atomic_add_tensor_fp32") and ptx("3.9", "atomic_add_tensor_fp32")["bar.sync"] == 2
    # a gather Gluon keeps cross-warp: one st.shared per source element, a barrier, one ld.shared per index
    for version in ("3.6", "3.9"):
        assert ptx(version, "gluon_gather_ax0_64x16_w4") == {"st.shared": 8, "bar.sync": 1, "ld.shared": 8}
    # the grouped GEMM epilogue: 16 stmatrix.x4.trans + 16 ld.shared.v4 in both versions
    for version in ("3.6", "3.9"):
        got = ptx(version, "tut_grouped_gemm")
        assert got["stmatrix"] == 16 and got["ld.shared"] == 16 and "st.shared" not in got
