"""The lowering layer (linlayout/lower): immutable lint records, their text and JSON, the registry by version."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from linlayout.errors import InputError
from linlayout.io.ttgir.lint import lint_json, lint_text, render_lint
from linlayout.lower import LintReport, LoweredConversion, get_lowering
from linlayout.lower.model import Lowering
from linlayout.lower.records import OpLint
from linlayout.lower.registry import LOWERINGS
from linlayout.lower.triton_3_6 import TRITON_3_6, planned_conversion, shared_round_trip

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
TRIPS = {"kernels.py:69": 8, "kernels.py:108": 16}
GOLDEN = json.loads((DATA / "lint_golden.json").read_text())["cases"]


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_records_render_exactly_the_previous_text_and_json(case):
    """tests/data/lint_golden.json was written by the lint before the records existed (dicts read back by key), under
    Triton 3.6's lowering; it gained the keys --triton added (``triton``, per op ``instructions``/``instructions_note``,
    the total's ``async_copy_wavefronts``) and nothing else changed."""
    name, _, variant = case.partition(" ")
    text = (DATA / "ttgir" / f"{name}.ttgir").read_text()
    if variant == "round-trip-planner":
        report = lint_text(text, convert_planner=shared_round_trip, triton="3.6")
    else:
        report = lint_text(text, grid=(2, 1, 1), trip_counts=TRIPS, triton="3.6")
    assert render_lint(report) == GOLDEN[case]["text"]
    assert json.loads(json.dumps(lint_json(report))) == GOLDEN[case]["json"]
    assert json.dumps(lint_json(report)) == json.dumps(GOLDEN[case]["json"])  # the key order too


def test_records_are_immutable():
    report = lint_text((DATA / "ttgir" / "gluon_convert.ttgir").read_text(), grid=(1, 1, 1))
    assert isinstance(report, LintReport) and isinstance(report.ops, tuple) and isinstance(report.buffers, tuple)
    op = report.ops[0]
    assert isinstance(op, OpLint) and isinstance(op.shape, tuple) and isinstance(op.loops, tuple)
    for obj, name in ((report, "num_warps"), (op, "counted"), (report.total, "load_wavefronts"),
                      (op.conversion, "method"), (op.conversion.suggestion, "cost")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, name, None)
    assert isinstance(op.conversion.suggestion.instructions, tuple)


def test_a_counted_conversion_lists_its_two_accesses():
    report = lint_text((DATA / "ttgir" / "colsum.ttgir").read_text(), grid=(1, 1, 1))
    conv = [o for o in report.ops if o.op == "ttg.convert_layout" and o.counted]
    assert conv, "colsum converts a slice layout through shared memory"
    kinds = [k for k, _ in conv[0].counted_accesses]
    assert kinds == ["store", "load"] and conv[0].conversion.uses_shared_memory
    local = [o for o in report.ops if o.access is not None]
    assert all(len(o.counted_accesses) == (1 if o.counted else 0) for o in local)


def test_buffer_saving_is_the_difference_of_the_counts():
    report = lint_text((DATA / "ttgir" / "gluon_smem_transpose.ttgir").read_text())
    (b,) = report.buffers
    assert b.optimal is not None and b.reason is None
    assert b.saving == b.write_wavefronts + b.read_wavefronts - b.optimal.write_wavefronts - b.optimal.read_wavefronts > 0


def test_the_registry_names_the_known_versions():
    from linlayout.lower.triton_3_9 import TRITON_3_9

    assert get_lowering() is TRITON_3_9 is LOWERINGS["3.9"] and isinstance(TRITON_3_9, Lowering)  # the newest
    assert get_lowering(" 3.6 ") is TRITON_3_6 is LOWERINGS["3.6"] and get_lowering("3.9.0") is TRITON_3_9
    for bad in ("3.8", "3.9.1", "", None, 3.6):
        with pytest.raises(InputError, match=r"unknown Triton version .*modelled for 3\.6, 3\.9"):
            get_lowering(bad)
    with pytest.raises(TypeError):
        LOWERINGS["3.8"] = TRITON_3_6  # read-only: a version is added by a module and one line in the registry
    text = (DATA / "ttgir" / "transpose.ttgir").read_text()
    assert lint_text(text, triton="3.6").lowering == "3.6"
    with pytest.raises(InputError, match="unknown Triton version '2.0'"):
        lint_text(text, triton="2.0")


def test_a_planner_plugs_in_through_the_seam():
    """A planner returns a LoweredConversion; one that uses no shared memory leaves the conversion uncounted."""
    calls = []

    def registers_only(src, dst, element_bits):
        calls.append(element_bits)
        return LoweredConversion("my planner: registers")

    text = (DATA / "ttgir" / "gluon_convert.ttgir").read_text()
    report = lint_text(text, grid=(1, 1, 1), convert_planner=registers_only)
    conv = [o for o in report.ops if o.op == "ttg.convert_layout"]
    assert calls and conv and not any(o.counted for o in conv)
    assert all(o.conversion.method == "my planner: registers" for o in conv)
    default = lint_text(text, grid=(1, 1, 1))
    assert any(o.counted for o in default.ops if o.op == "ttg.convert_layout")


def test_planned_conversion_prices_the_counted_round_trip():
    import linlayout as ll

    src = ll.blocked([64, 64], [1, 8], [4, 8], [4, 1], [1, 0])
    dst = ll.blocked([64, 64], [8, 1], [8, 4], [1, 4], [0, 1])
    p = planned_conversion(src, dst, 16)
    assert p.uses_shared_memory and p.memory is not None
    s = p.suggestion
    assert s.error is None and s.path == "shared_memory" and s.counted_cost >= s.cost
    assert dict(s.wavefronts).keys() == {"write", "read"}


def test_lane_count_comes_from_the_hardware_model():
    text = """#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%v: tensor<64x64xf16, #blocked>) {
    %a = ttg.local_alloc %v : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable> loc(#loc1)
    tt.return
  }
}
#loc1 = loc("k.py":3:4)
"""
    (op,) = lint_text(text).ops
    assert not op.counted and op.reason == "64-lane layout: no bank model for it here (sm90 has 32 lanes)"
