"""MLIR_ENABLE_DUMP logs: lint reads one module (the last TTGIR-level one, or the one a pass names), never a merge.

tests/data/mlir_dump_colsum_39.log: four module dumps of Triton 3.9.0's compile of a column sum (CPU, cuda:90):
before ConvertTritonToTritonGPU (no layouts yet), the last RemoveLayoutConversions, ConvertTritonGPUToLLVM (the
last TTGIR-level module) and an LLVM-level one (truncated)."""

from __future__ import annotations

from pathlib import Path

import pytest

from linlayout.cli import main
from linlayout.errors import TTGIRError
from linlayout.io.ttgir.dump import is_dump, select_module
from linlayout.io.ttgir.lint import lint_text

LOG = (Path(__file__).resolve().parents[2] / "tests" / "data" / "mlir_dump_colsum_39.log").read_text()


def test_the_last_ttgir_level_module_is_linted_by_default():
    assert is_dump(LOG)
    header, text = select_module(LOG)
    assert header.startswith("ConvertTritonGPUToLLVM") and "llvm.func" not in text
    report = lint_text(LOG)
    assert [o.op for o in report.ops] == ["tt.reduce", "ttg.convert_layout"]  # one module, not four merged


def test_a_pass_names_its_module(capsys):
    header, _ = select_module(LOG, "RemoveLayoutConversions")
    assert header.startswith("TritonGPURemoveLayoutConversions")
    with pytest.raises(TTGIRError, match="no module dumped before a pass named 'Nope'"):
        select_module(LOG, "Nope")
    path = Path(__file__).resolve().parents[2] / "tests" / "data" / "mlir_dump_colsum_39.log"
    assert main(["lint", str(path), "--pass", "RemoveLayoutConversions", "--json"]) == 0
    assert '"triton": "3.9"' in capsys.readouterr().out


def test_a_dump_without_ttgir_is_refused():
    first = LOG.split("// -----// IR Dump Before TritonGPURemoveLayoutConversions")[0]
    with pytest.raises(TTGIRError, match="no TTGIR-level module"):
        select_module(first)
