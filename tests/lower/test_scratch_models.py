"""The scratch-memory models that close the H100 table's last gaps: a gather through shared memory, cp.async that lint
declines to count, a 16-bit slice's scalar stores, and the final load ptxas sinks below the exit.

Each test lints one committed Triton 3.6 TTGIR (``tests/data/ttgir36``) and checks the numbers the H100 measured
under ncu (``benchmarks/results/ttgir_corpus_h100/measured.json``), per CTA.
"""

from __future__ import annotations

from pathlib import Path

from linlayout.io.ttgir.lint import lint_json, lint_text

T36 = Path(__file__).resolve().parents[2] / "tests" / "data" / "ttgir36"


def _lint(name: str):
    return lint_text((T36 / f"{name}.ttgir").read_text(), triton="3.6", grid=(1, 1, 1))


def test_a_gather_through_shared_memory_counts_its_stores_and_declines_its_loads():
    """gluon_gather_ax0_64x16_w4: 8 scalar st.shared.b32 per thread, 4-way (the source column-major: its 16 columns
    are 64 words apart), 128 store wavefronts per CTA as measured; the loads' addresses are the indices."""
    report = _lint("gluon_gather_ax0_64x16_w4")
    (g,) = [o for o in report.ops if o.op == "tt.gather"]
    assert g.counted and dict(g.instructions) == {"st.shared": 8, "bar.sync": 1, "ld.shared": 8}
    assert [(k, r.instructions, r.wavefronts) for k, r in g.accesses] == [("store", 8, 32)]
    assert report.total.store_wavefronts == 128 and report.total.load_wavefronts == 0
    assert any("depend on the data" in n for n in report.total.not_counted)
    assert "depend on the data" in lint_json(report)["ops"][0]["uncounted"]


def test_cp_async_spanning_two_global_rows_per_quarter_warp_is_not_counted():
    """matmul_fp8_s3: its A tile has 64-byte rows, so a quarter-warp's 16-byte copies read two global rows; ncu
    measured 7.6 wavefronts per instruction there (4 where a quarter-warp reads one 128-byte row)."""
    report = _lint("matmul_fp8_s3")
    copies = [o for o in report.ops if o.op == "ttg.async_copy_global_to_local"]
    assert copies and all(not o.counted and "several global rows" in o.reason for o in copies)
    assert all(dict(o.instructions) == {"cp.async": 4} for o in copies)
    assert any(n.startswith("ttg.async_copy_global_to_local") for n in report.total.not_counted)
    kept = _lint("matmul_fp16_s3")  # 128-byte rows: counted, 4 wavefronts per 16-byte copy
    assert all(o.counted and o.accesses[0][1].wavefronts_per_instruction == 4
               for o in kept.ops if o.op == "ttg.async_copy_global_to_local")


def test_a_16_bit_slice_is_stored_as_scalars_and_its_final_load_runs_in_the_storing_warps():
    """red_sum_col_fp16_512x64_w8: the column sums (a 16-bit slice, 8 registers) converted to one element per thread
    go through 8 scalar st.shared.b16 (Triton fills each word from the destination's warps), and the last ld.shared
    runs only in the 2 of 8 warps that store distinct elements (ptxas sinks it below the exit)."""
    report = _lint("red_sum_col_fp16_512x64_w8")
    (cvt,) = [o for o in report.ops if o.op == "ttg.convert_layout"]
    assert cvt.conversion.store.instructions == 8 and cvt.conversion.store.vector_bits == 16
    assert dict(cvt.accesses)["load@cta"].wavefronts == 2
    assert (report.total.load_wavefronts, report.total.store_wavefronts) == (530, 592)  # ncu, per CTA
