"""The linlayout command: output, JSON mode, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from linlayout.cli import main

ROOT = Path(__file__).resolve().parents[1]
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
