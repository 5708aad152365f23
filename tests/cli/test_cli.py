"""The linlayout command: output, JSON mode, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from linlayout.cli import main

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = {"bases": {"register": [[0, 1], [8, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": [[0, 0]]}, "out_dims": {"dim0": 16, "dim1": 8}}


@pytest.fixture
def layout_file(tmp_path):
    p = tmp_path / "layout.json"
    p.write_text(json.dumps(LAYOUT))
    return p


def test_show_text(layout_file, capsys):
    assert main(["show", str(layout_file)]) == 0
    out = capsys.readouterr().out
    assert "register: [(0, 1), (8, 0)]" in out
    assert "distributed True" in out
    assert "warp 0b1" in out
    grid = out.split("\n\n")[1].splitlines()
    assert grid[1].split()[1:3] == ["w0:t0:r0", "w0:t0:r1"]


def test_show_json(layout_file, capsys):
    assert main(["show", str(layout_file), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["rank"] == 7 and obj["distributed"] and not obj["injective"]
    assert obj["free_variables"] == {"register": 0, "lane": 0, "warp": 1}
    assert obj["layout"] == LAYOUT


@pytest.mark.parametrize(
    "content, fragment",
    [
        (None, "no such file"),
        ("{not json", "malformed"),
        ('{"bases": {"lane": [[1]]}, "out_dims": {"dim0": 3}}', "not a power of two"),
        ('{"bases": {"lane": [[9]]}, "out_dims": {"dim0": 8}}', "outside the output size"),
    ],
)
def test_errors_one_line_exit_2(tmp_path, capsys, content, fragment):
    p = tmp_path / "bad.json"
    if content is not None:
        p.write_text(content)
    assert main(["show", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err and err.startswith("linlayout: error:")


def test_usage_errors_one_line_exit_2(capsys):
    assert main(["frobnicate"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice" in err
    assert main([]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_module_entry_point(layout_file):
    r = subprocess.run([sys.executable, "-m", "linlayout", "show", str(layout_file), "--json"], capture_output=True, text=True)
    assert r.returncode == 0 and json.loads(r.stdout)["rank"] == 7
    r = subprocess.run([sys.executable, "-m", "linlayout", "show", "/nonexistent.json"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stdout == ""


def test_import_is_light():
    """`import linlayout` must not pull in galois, networkx, matplotlib (or numpy)."""
    code = "import sys, linlayout; print(sorted({m.split('.')[0] for m in sys.modules} & {'galois', 'networkx', 'matplotlib', 'numpy'}))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"


# --------------------------------------------------------------------------- conflicts


EX = ROOT / "examples"


def test_conflicts_json_closed_form_and_simulation(capsys):
    assert main(["conflicts", str(EX / "transpose_16x32_read_xor_m.json"), "--json"]) == 0
    cf = json.loads(capsys.readouterr().out)
    for key in ("wavefronts", "instructions", "wavefronts_per_instruction", "ideal_wavefronts", "vector_bits"):
        assert key in cf
    assert (cf["wavefronts"], cf["instructions"], cf["wavefronts_per_instruction"], cf["ideal_wavefronts"]) == (32, 16, 2, 16)
    assert cf["conflict_directions"][0]["tensor"] == {"dim0": 1, "dim1": 1}
    assert main(["conflicts", str(EX / "transpose_16x32_read_xor_m.json"), "--json", "--simulate"]) == 0
    sim = json.loads(capsys.readouterr().out)
    assert sim["wavefronts"] == 32 and sim["method"] == "simulation"


def test_conflicts_text_report_has_bank_map_and_passes(capsys):
    assert main(["conflicts", str(EX / "transpose_16x32_read_xor_m.json")]) == 0
    out = capsys.readouterr().out
    assert "2-way bank conflict" in out and "lane bit 0 ^ lane bit 4" in out
    assert "bank of each element" in out
    assert "<-- 2 words" in out


def test_conflicts_padded_needs_simulate(capsys):
    q = str(EX / "transpose_32x32_padded_read.json")
    assert main(["conflicts", q]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--simulate" in err
    assert main(["conflicts", q, "--simulate", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["wavefronts_per_instruction"] == 1


def test_conflicts_address_query(capsys):
    q = str(EX / "float4_store_ld128_access.json")
    assert main(["conflicts", q, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["wavefronts"] == 32
    assert main(["conflicts", q, "--json", "--simulate"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["wavefronts"], d["instructions"], d["ideal_wavefronts"], d["vector_bits"]) == (32, 1, 4, 128)


@pytest.mark.parametrize(
    "query, fragment",
    [
        ({"layout": LAYOUT}, 'needs "memory"'),
        ({"layout": LAYOUT, "memory": LAYOUT, "element_bits": 16, "colour": 1}, "unknown key 'colour'"),
        ({"layout": LAYOUT, "memory": LAYOUT}, 'needs "element_bits"'),
        ({"instruction": "ld.shared", "op": "load", "access_bytes": 8, "lane_byte_offsets": [4] * 32}, "not aligned"),
        ({"instruction": "ld.shared", "op": "load", "access_bytes": 4, "lane_byte_offsets": [0, 3, 6] + [0] * 29}, "not aligned"),
        ({"instruction": "ld.shared", "op": "load", "access_bytes": 4, "lane_byte_offsets": [4 * i * i for i in range(32)]}, "--simulate" ),
        ({"nothing": 1}, "either"),
    ],
)
def test_conflicts_bad_queries(tmp_path, capsys, query, fragment):
    p = tmp_path / "q.json"
    p.write_text(json.dumps(query))
    assert main(["conflicts", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


# --------------------------------------------------------------------------- swizzle


def test_swizzle_json(capsys):
    assert main(["swizzle", str(EX / "transpose_16x32.json"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    for key in ("memory", "vector_bits", "write", "read", "lower_bound", "optimal"):
        assert key in d
    for side in ("write", "read"):
        assert {"wavefronts", "instructions", "wavefronts_per_instruction"} <= set(d[side])
    assert (d["write"]["wavefronts"], d["read"]["wavefronts"], d["optimal"]) == (16, 16, True)
    assert list(d["memory"]["bases"]) == ["offset"]


def test_swizzle_text_emit_and_compare(capsys):
    q = str(EX / "transpose_16x32.json")
    assert main(["swizzle", q]) == 0
    out = capsys.readouterr().out
    assert "proven optimal" in out and "element offset of each tensor element" in out
    assert main(["swizzle", q, "--emit", "c"]) == 0
    assert "static inline LINLAYOUT_HD unsigned offset(unsigned dim0, unsigned dim1)" in capsys.readouterr().out
    # Issue 12 §4: a standard swizzle (TMA 64B, dim0 contiguous) ties with the optimum, so --emit writes it.
    assert main(["swizzle", q, "--emit", "triton"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("# standard swizzle tma64B_mn") and lines[1].startswith("SharedLinearLayout(offset_bases=")
    assert main(["swizzle", q, "--emit", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["out_dims"] == {"dim0": 16, "dim1": 32}
    assert main(["swizzle", q, "--emit", "cute"]) == 0
    assert "composition(Swizzle<" in capsys.readouterr().out
    fp8 = str(EX / "transpose_fp8_128x128.json")  # no standard swizzle ties there
    # No single Swizzle of the row- or column-major tile spells it: the exact general CuTe form (issue 26), exit 0,
    # and with --cute-single the best single-Swizzle layout of the tile with its cost beside the optimum's.
    assert main(["swizzle", fp8, "--emit", "cute"]) == 0
    out = capsys.readouterr().out
    assert "no single Swizzle<B,M,S>" in out and out.splitlines()[-1].startswith("composition(Swizzle<3,4,7>{}, Layout<Shape<Shape<")
    assert main(["swizzle", fp8, "--emit", "cute", "--cute-single"]) == 0
    out = capsys.readouterr().out
    assert "the best single-Swizzle layout" in out and "beside the optimum's 16 + 16 (4 + 4)" in out
    assert main(["swizzle", q, "--compare"]) == 0
    out = capsys.readouterr().out
    assert "row-major" in out and "TMA / NVMMA 128B swizzle" in out
    assert main(["swizzle", q, "--compare", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["comparison"][0]["name"] == "optimal (linlayout)"


def test_swizzle_examples_run(capsys):
    for name in ("gemm_fp16_operand_a", "transpose_fp8_128x128"):
        assert main(["swizzle", str(EX / f"{name}.json"), "--json"]) == 0
        d = json.loads(capsys.readouterr().out)
        assert d["optimal"]


@pytest.mark.parametrize(
    "query, fragment",
    [
        ({"write": LAYOUT}, 'needs "read"'),
        ({"write": LAYOUT, "read": LAYOUT, "element_bits": 16, "speed": 1}, "unknown key 'speed'"),
        ({"write": LAYOUT, "read": LAYOUT, "element_bits": 16, "objective": "fast"}, "objective"),
        ({"write": LAYOUT, "read": LAYOUT, "element_bits": 12}, "power of two"),
        ({"write": LAYOUT, "read": LAYOUT, "element_bits": 16, "instructions": "ld.shared"}, "list"),
    ],
)
def test_swizzle_bad_queries(tmp_path, capsys, query, fragment):
    p = tmp_path / "q.json"
    p.write_text(json.dumps(query))
    assert main(["swizzle", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


def test_show_constructors(capsys):
    assert main(["show", "mma", "--shape", "16", "16", "--operand", "A", "--bits", "16", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["layout"]["bases"]["register"] == [[0, 1], [8, 0], [0, 8]] and d["distributed"]
    assert main(["show", "blocked", "--shape", "8", "64", "--size-per-thread", "1", "8", "--threads-per-warp", "4", "8",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["layout"]["bases"]["lane"][0] == [0, 8]
    for argv in (["show", "ldmatrix", "--matrices", "2", "--trans"], ["show", "wgmma", "--shape", "64", "16", "--n", "16"],
                 ["show", "mfma", "--operand", "A", "--instr", "16x16x16"]):
        assert main(argv) == 0
        assert "distributed True" in capsys.readouterr().out
    assert main(["show", "mma"]) == 2
    assert "--shape" in capsys.readouterr().err
    assert main(["show", "mma", "--shape", "16", "16", "--bits", "12"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
