"""CLI outputs of issue 26: grids on demand, --name, --emit cute's forms, show's memory-layout classification."""

from __future__ import annotations

import json
from pathlib import Path

from linlayout.cli import main

EX = Path(__file__).resolve().parents[2] / "examples"
T16 = str(EX / "transpose_16x32.json")
GEMM = str(EX / "gemm_fp16_operand_a.json")


def test_swizzle_grid_flags(capsys):
    assert main(["swizzle", T16, "--no-grid"]) == 0
    out = capsys.readouterr().out
    assert "element offset of each tensor element" not in out and "grid not printed" not in out
    assert main(["swizzle", GEMM]) == 0  # 128 x 64: more than the default grid size
    out = capsys.readouterr().out
    assert "(grid not printed: 128 x 64 elements, more than 1024; --grid prints it" in out
    assert main(["swizzle", GEMM, "--grid"]) == 0
    assert len(capsys.readouterr().out.splitlines()) > 128


def test_swizzle_prints_the_memory_it_emits(capsys):
    assert main(["swizzle", GEMM]) == 0
    lines = capsys.readouterr().out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("memory layout (offset bits"))
    assert "the one --emit writes: standard swizzle tma128B" in lines[i]
    printed = json.loads(lines[i + 1])
    assert main(["swizzle", GEMM, "--emit", "json"]) == 0
    assert [list(b) for b in json.loads(capsys.readouterr().out)["bases"]["offset"]] == printed


def test_name_flags(capsys):
    assert main(["swizzle", T16, "--emit", "c", "--name", "tile_offset"]) == 0
    assert "unsigned tile_offset(unsigned dim0, unsigned dim1)" in capsys.readouterr().out
    assert main(["swizzle", T16, "--emit", "c", "--name", "1 bad name"]) == 2
    assert "is not a C identifier" in capsys.readouterr().err
    assert main(["swizzle", T16, "--name", "f"]) == 2  # --name without --emit c: a usage error
    assert "--name names the C function of --emit c" in capsys.readouterr().err
    conv = str(EX / "convert_transpose_32x2.json")
    assert main(["convert", conv, "--emit", "cuda", "--name", "transpose32"]) == 0
    assert "void transpose32(" in capsys.readouterr().out
    assert main(["convert", conv, "--name", "x"]) == 2


def test_cute_single_needs_emit_cute(capsys):
    assert main(["swizzle", T16, "--cute-single"]) == 2
    assert "add --emit cute" in capsys.readouterr().err
    assert main(["swizzle", T16, "--emit", "cute", "--cute-single"]) == 0
    assert "the best single-Swizzle layout" in capsys.readouterr().out


def test_show_classifies_shared_encodings_and_offset_layouts_as_memory_layouts(tmp_path, capsys):
    enc = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"
    assert main(["show", enc, "--shape", "4", "8", "--json"]) == 0
    props = json.loads(capsys.readouterr().out)
    assert props["memory_layout"] is True and props["distributed"] is False
    assert main(["show", enc, "--shape", "4", "8", "--no-grid"]) == 0
    assert "distributed False; memory layout True" in capsys.readouterr().out
    f = tmp_path / "m.json"
    f.write_text(json.dumps({"bases": {"offset": [[0, 1], [0, 2], [1, 0]]}, "out_dims": {"dim0": 2, "dim1": 4}}))
    assert main(["show", str(f), "--json"]) == 0
    props = json.loads(capsys.readouterr().out)
    assert props["memory_layout"] is True and props["distributed"] is False
    assert main(["show", str(EX / "paper_layout_a.json"), "--json"]) == 0
    props = json.loads(capsys.readouterr().out)
    assert props["memory_layout"] is False and props["distributed"] is True
