"""linlayout lint's progress: nothing on stderr for a quick input, each stage once the lint has run a second."""

from __future__ import annotations

import io
from pathlib import Path

import linlayout.cli as cli
from linlayout.io.ttgir.dump import module_dumps, select_module
from linlayout.io.ttgir.lint import lint_text
from linlayout.io.ttgir.progress import Progress

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
LOG = DATA / "mlir_dump_colsum_39.log"


def test_a_quick_lint_prints_no_progress(capsys):
    assert cli.main(["lint", str(DATA / "ttgir" / "gluon_smem_transpose.ttgir")]) == 0
    assert capsys.readouterr().err == ""


def test_a_slow_lint_shows_its_stages_on_stderr(capsys, monkeypatch):
    monkeypatch.setattr(cli, "LINT_PROGRESS_AFTER", 0.0)  # as if every stage came after the first second
    assert cli.main(["lint", str(LOG), "--json", "--progress", "always"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in err] == [
        "linlayout lint: finding the module in an MLIR_ENABLE_DUMP log of 0.0 MB",
        "linlayout lint: reading the module dumped before ConvertTritonGPUToLLVM",
        "linlayout lint: counting 22 ops",
        "linlayout lint: done",
    ]


def test_progress_auto_is_for_terminals_and_never_is_silent(capsys, monkeypatch):
    """Captured stderr is not a terminal: ``auto`` (the default) and ``never`` print nothing however slow."""
    monkeypatch.setattr(cli, "LINT_PROGRESS_AFTER", 0.0)
    for flags in ([], ["--progress", "never"]):
        assert cli.main(["lint", str(LOG), "--json", *flags]) == 0
        assert capsys.readouterr().err == ""


def test_progress_starts_after_the_threshold():
    ticks = iter([10.0, 10.2, 10.9, 11.0, 12.5]).__next__
    out = io.StringIO()
    stages = []
    p = Progress(out, after=1.0, clock=ticks)
    for s in ("a", "b", "c", "d"):
        p(s)
        stages.append(out.getvalue().count("\n"))
    assert stages == [0, 0, 1, 2]
    assert out.getvalue() == "linlayout lint: c (1.0 s)\nlinlayout lint: d (2.5 s)\n"
    report = lint_text(LOG.read_text(), progress=lambda s: stages.append(s))
    assert stages[4:] == ["finding the module in an MLIR_ENABLE_DUMP log of 0.0 MB",
                          "reading the module dumped before ConvertTritonGPUToLLVM", "counting 22 ops", "done"]
    assert len(report.ops) == 2


def test_module_dumps_split_where_the_header_pattern_splits():
    """The literal search finds the headers the pattern finds, at line starts only, and ends each dump at the next
    header of any kind."""
    text = LOG.read_text()
    extra = ("// -----// IR Dump Before Foo (func.func operation) //----- //\nx\n"
             "  // -----// IR Dump Before Bar ('builtin.module' operation) //----- //\n")  # not at a line start
    for log in (text, text + extra, extra + text):
        dumps = module_dumps(log)
        assert [h.split(":")[0] for h, _, _ in dumps] == ["ConvertTritonToTritonGPU", "TritonGPURemoveLayoutConversions",
                                                            "ConvertTritonGPUToLLVM", "LLVMDIScope"]
        assert select_module(log)[0].startswith("ConvertTritonGPUToLLVM")
    last = module_dumps(text + extra)[-1]
    assert (text + extra)[last[1]:last[2]].strip("\n").endswith("(truncated for the test fixture)")  # not x


def test_the_dump_log_generator_ends_with_the_largest_tutorial_kernel():
    """tools/make_dump_log.py (the 25 MB timing input) on a small size: lint picks its last TTGIR-level module, the
    attention tutorial, out of every kernel's pass dumps and the LLVM-level ones."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_dump_log", DATA.parents[1] / "tools" / "make_dump_log.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    log = gen.dump_log(1.0)
    assert 1.0e6 <= len(log) < 1.9e6  # past the size by less than one more compile
    dumps = module_dumps(log)
    assert len(dumps) > 2 * len(gen.TTGIR_PASSES)
    header, text = select_module(log)
    assert header.startswith("ConvertTritonGPUToLLVM")
    assert text == (DATA / "ttgir39" / "tut_attention_causal.ttgir").read_text().strip("\n")
