"""Bad TTGIR input gets one clear error of the library's family: the reader, lint's inputs, the command line.

Each case is one the issue found crashing (a ``RecursionError``, a plain
``ValueError``, ``IndexError``, ``TypeError``, ``StopIteration``,
``KeyError``) or answering nonsense (negative or fractional totals).
"""

from __future__ import annotations

import pytest

import linlayout as ll
from linlayout.cli import main
from linlayout.errors import InputError, InputTypeError, TTGIRError
from linlayout.io.ttgir.attributes import parse_attribute, parse_type
from linlayout.io.ttgir.lint import lint_text

BLOCKED = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
SHARED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"


def kernel(body: str, num_warps: str = "4") -> str:
    return f"""#blocked = {BLOCKED}
#shared = {SHARED}
#smem = #ttg.shared_memory
module attributes {{"ttg.num-warps" = {num_warps} : i32}} {{
  tt.func public @k(%v: tensor<64x64xf16, #blocked>) {{
    {body}
    tt.return loc(#loc1)
  }}
}}
#loc1 = loc("k.py":3:4)
"""


ALLOC = "%a = ttg.local_alloc %v : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>"


@pytest.mark.parametrize("call, error, message", [
    (lambda: parse_attribute("[" * 5000 + "]" * 5000), TTGIRError, "nested more than 64 levels"),
    (lambda: ll.layout_from_ttgir("tensor<4xf16, #ttg.linear<{register = " + "[" * 300 + "]" * 300 + "}>>"),
     TTGIRError, "nested more than 64 levels"),
    (lambda: parse_attribute("[" + "9" * 5000 + "]"), TTGIRError, "a number of 5000 digits"),
    (lambda: parse_type("tensor<" + "9" * 5000 + "xf16>"), TTGIRError, "cannot read the shape"),
    (lambda: parse_type("tensor<>"), TTGIRError, "has no shape and element type"),
    (lambda: ll.layout_from_ttgir("!ttg.memdesc<4x32xf16, #ttg.padded_shared<[32:+4] {order, shape = [4, 32]}>, #smem>"),
     TTGIRError, "padded_shared order"),
    (lambda: ll.layout_from_ttgir("!ttg.memdesc<4x32xf16, #ttg.padded_shared<[32] {order = [1, 0]}>, #smem>"),
     TTGIRError, r"\[interval:\+pad\]"),
    (lambda: parse_attribute(1), InputTypeError, "must be a string"),
    (lambda: parse_type(None), InputTypeError, "must be a string"),
    (lambda: ll.layout_from_ttgir(b"tensor<4xf16>"), InputTypeError, "must be a string"),
])
def test_the_reader_refuses_bad_text_clearly(call, error, message):
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("text, kwargs, message", [
    (kernel("ttg.local_store %v, %v : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked>"), {},
     "needs a tensor and a !ttg.memdesc"),
    (kernel("%a = ttg.local_alloc %v : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #blocked, #smem>"), {},
     "distributed encoding #ttg.blocked"),
    (kernel(ALLOC, "-4"), {}, '"ttg.num-warps" = -4: it must be a positive integer'),
    (kernel(ALLOC), {"grid": (-1, 1, 1)}, r"grid\[0\] \(CTAs along X\) must be at least 1"),
    (kernel(ALLOC), {"grid": (1, 1)}, "a grid has 3 entries"),
    (kernel(ALLOC), {"grid": (1, 1, 1), "trip_counts": {"3": 2.5}}, "must be an int, got 2.5"),
    (kernel(ALLOC), {"grid": (1, 1, 1), "trip_counts": {"3": -1}}, "must be at least 0"),
])
def test_lint_refuses_bad_modules_and_launches(text, kwargs, message):
    with pytest.raises(InputError, match=message):
        lint_text(text, **kwargs)


def test_lint_totals_stay_whole_and_positive():
    report = lint_text(kernel(ALLOC), grid=(2, 1, 1))
    assert report.total.store_wavefronts > 0 and isinstance(report.total.store_wavefronts, int)


@pytest.mark.parametrize("extra, message", [
    (["--grid", "-1", "1", "1"], "must be at least 1"),
    (["--trip-count", "k.py:3=\u00b2"], "--trip-count takes LOC=N"),
    (["--trip-count", "k.py:3=2.5"], "--trip-count takes LOC=N"),
])
def test_the_command_line_prints_one_line_and_exits_2(tmp_path, capsys, extra, message):
    path = tmp_path / "k.ttgir"
    path.write_text(kernel(ALLOC))
    assert main(["lint", str(path), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("body", [
    "ttg.local_store %v, %v : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked>",
    "%a = ttg.local_alloc %v : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #blocked, #smem>",
])
def test_the_command_line_reports_bad_modules_in_one_line(tmp_path, capsys, body):
    path = tmp_path / "k.ttgir"
    path.write_text(kernel(body))
    assert main(["lint", str(path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
