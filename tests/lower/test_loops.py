"""Loops in lint: trip counts read from an scf.for's constant bounds, --trip-count that matches no loop, scf.while
reported as data-dependent with its per-iteration traffic, --num-warps that disagrees with the module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linlayout.cli import main
from linlayout.errors import InputError
from linlayout.io.ttgir.lint import lint_json, lint_text

T39 = Path(__file__).resolve().parents[2] / "tests" / "data" / "ttgir39"
MATMUL = (T39 / "matmul_fp16_s3.ttgir").read_text()


def test_constant_bounds_give_the_trip_count():
    text = MATMUL.replace("%c0_i32 to %K step %c64_i32", "%c0_i32 to %c128_i32 step %c64_i32")
    assert text != MATMUL
    report = lint_text(text, grid=(1, 1, 1))
    (loop,) = report.loops
    assert (loop.trip_count, loop.source, loop.kind) == (2, "constant bounds", "scf.for")
    inside = [o for o in report.ops if o.loops]
    assert inside and all(o.executions_per_warp == 2 for o in inside)
    assert report.total.load_wavefronts is not None and not report.total.missing_trip_counts
    given = lint_text(text, grid=(1, 1, 1), trip_counts={"kernels.py:69": 5})
    assert given.loops[0].trip_count == 5 and given.loops[0].source == "given"  # what the user says wins


def test_unknown_bounds_ask_for_a_trip_count():
    report = lint_text(MATMUL, grid=(1, 1, 1))
    assert report.loops[0].trip_count is None and report.loops[0].source == ""
    assert report.total.load_wavefronts is None and report.total.missing_trip_counts == ("kernels.py:69:5",)


def test_a_trip_count_that_matches_no_loop_is_an_error_listing_the_loops(tmp_path, capsys):
    path = tmp_path / "k.ttgir"
    path.write_text(MATMUL)
    assert main(["lint", str(path), "--grid", "1", "1", "1", "--trip-count", "x.py:3=4"]) == 2
    err = capsys.readouterr().err
    assert "--trip-count x.py:3: no loop at that location; the loops are: kernels.py:69:5 (scf.for)" in err
    with pytest.raises(InputError, match="no loop at that location"):
        lint_text(MATMUL, trip_counts={"x.py:3": 4}, strict_trip_counts=True)
    assert main(["lint", str(path), "--grid", "1", "1", "1", "--trip-count", "kernels.py:69=8"]) == 0


def test_a_while_loop_is_data_dependent_with_its_per_iteration_traffic():
    report = lint_text((T39 / "atomic_cas_spin_lock.ttgir").read_text(), grid=(4, 1, 1))
    (loop,) = report.loops
    assert loop.kind == "scf.while" and loop.source == "data-dependent" and loop.trip_count is None
    t = report.total
    assert not t.missing_trip_counts and t.load_wavefronts == 0
    # each spin: thread 0 of the CTA stores the old value (1 wavefront), every warp loads it (1 wavefront per warp)
    assert t.per_iteration == ((loop.location, 4 * 4, 4),)
    d = lint_json(report)
    assert d["total"]["data_dependent_loops"] == [{"location": loop.location, "load_wavefronts_per_iteration": 16,
                                                    "store_wavefronts_per_iteration": 4}]
    assert d["loops"] == [{"location": loop.location, "trip_count": None, "kind": "scf.while",
                           "trip_count_from": "data-dependent"}]


def test_num_warps_that_disagrees_with_the_module_is_an_error(tmp_path, capsys):
    path = tmp_path / "k.ttgir"
    path.write_text(MATMUL)
    assert main(["lint", str(path), "--num-warps", "8"]) == 2
    assert "--num-warps 8 disagrees with the module's ttg.num-warps = 4" in capsys.readouterr().err
    assert main(["lint", str(path), "--num-warps", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["num_warps"] == 4


def test_every_conversion_carries_a_ready_convert_query(tmp_path, capsys):
    from linlayout.convert.plan import plan_conversion
    from linlayout.io.convert_io import convert_query_from_json

    text = (T39 / "tut_grouped_gemm.ttgir").read_text()
    d = lint_json(lint_text(text))
    (cvt,) = [o for o in d["ops"] if o["op"] == "ttg.convert_layout"]
    q = convert_query_from_json(json.dumps(cvt["query"]))
    assert q.element_bits == 16 and plan_conversion(q).path == cvt["linlayout_plan"]["path"]
    path = tmp_path / "k.ttgir"
    path.write_text(text)
    assert main(["lint", str(path), "--queries", str(tmp_path / "q")]) == 0
    capsys.readouterr()
    (written,) = sorted((tmp_path / "q").iterdir())
    assert written.name == f"convert_{cvt['line']}.json"
    assert main(["convert", str(written), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["path"] == "shared_memory"


GROUPED = (T39.parent / "ttgir36" / "tut_grouped_gemm.ttgir").read_text()  # Triton 3.6, as measured


def test_a_loop_total_counts_a_grouped_kernels_tiles_whatever_the_loops_around_them():
    """The grouped GEMM's tile loop (an scf.while inside the scf.for over groups) runs 2 tiles per program: its body
    runs 2 times in all, the K loop inside it 16 times per tile, and the group loop needs no trip count."""
    report = lint_text(GROUPED, grid=(32, 1, 1), trip_counts={"kernels_tutorials.py:203": 16},
                       loop_totals={"kernels_tutorials.py:186": 2})
    by_loc = {lp.location: lp for lp in report.loops}
    assert (by_loc["kernels_tutorials.py:186:8"].trip_count, by_loc["kernels_tutorials.py:186:8"].source) == (
        2, "total per program")
    execs = {o.executions_per_warp for o in report.ops if "kernels_tutorials.py:203:31" in o.loops}
    assert execs == {32} and not report.total.missing_trip_counts and not report.total.per_iteration
    assert (report.total.load_wavefronts, report.total.store_wavefronts) == (16384, 16384)  # ncu on the H100
    without = lint_text(GROUPED, grid=(32, 1, 1), trip_counts={"kernels_tutorials.py:203": 16})
    assert without.total.load_wavefronts is None  # the group loop's trip count is not in the IR
    assert without.total.missing_trip_counts == ("kernels_tutorials.py:179:19",)


def test_a_loop_total_that_matches_no_loop_or_repeats_a_trip_count_is_an_error(tmp_path, capsys):
    path = tmp_path / "k.ttgir"
    path.write_text(GROUPED)
    assert main(["lint", str(path), "--loop-total", "kernels_tutorials.py:999=2"]) == 2
    err = capsys.readouterr().err
    assert "--loop-total kernels_tutorials.py:999: no loop at that location" in err
    assert "kernels_tutorials.py:186:8 (scf.while)" in err
    assert main(["lint", str(path), "--loop-total", "186=2", "--trip-count", "186=3"]) == 2
    assert "both a trip count and a total" in capsys.readouterr().err
    assert main(["lint", str(path), "--loop-total", "186=x"]) == 2
    assert main(["lint", str(path), "--json", "--loop-total", "186=2", "--trip-count", "203=16", "--grid", "32", "1",
                 "1"]) == 0
    assert json.loads(capsys.readouterr().out)["total"]["load_wavefronts"] == 16384


@pytest.mark.parametrize("totals,message", [
    ({"186": 2.5}, "must be an int"),
    ({"186": -1}, "must be at least 0"),
    ({7: 2}, "a loop total's location"),
])
def test_a_loop_total_that_is_not_a_count_is_an_input_error(totals, message):
    with pytest.raises(InputError, match=message):
        lint_text(GROUPED, loop_totals=totals)
