"""Golden tests of the command line: every case prints exactly the stored bytes.

The cases, the way they run and the file format live in one place,
``tests/golden/make_golden.py`` (read its docstring for what is covered and for
the one normalisation, the wall time ``sweep`` reports).  After an intended
output change, regenerate with ``python tests/golden/make_golden.py`` and
review the diff of ``tests/golden/``.

Every case runs in this process through ``linlayout.cli.main``
(``run_case_in_process``: same working directory, UTF-8 streams and exit status
as the generator's subprocess); the cases of :data:`SUBPROCESS_CASES` run again
as the generator runs them, ``python -m linlayout`` in a subprocess, so the
entry point, the interpreter's own streams and the exit status it returns stay
tested too.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_GEN = Path(__file__).parents[1] / "golden" / "make_golden.py"
_spec = importlib.util.spec_from_file_location("linlayout_golden_cases", _GEN)
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)

REGENERATE = "regenerate with `python tests/golden/make_golden.py` if the change is intended"

# One case of each command as a real subprocess, plus standard input through a pipe and the
# three ways to a non-zero exit status: a library error (2), a usage error (2) and exit 1.
SUBPROCESS_CASES = [
    "show__paper_layout_a__text",
    "show__stdin__paper_layout_a",
    "conflicts__float4_store_ld128_access__text",
    "swizzle__transpose_16x32__text",
    "sweep__sweep_gemm_fp16_ldmatrix__text",
    "convert__convert_mma_to_blocked__text",
    "lint__gluon_smem_transpose__text",
    "draw__error__no-output",
    "show__error__missing-file",
    "show__constructor__error-mma-no-shape",
    "swizzle__transpose_fp8_128x128__emit-cute",
]
_BY_NAME = {c["name"]: c for c in golden.CASES}


def _check(case, result):
    path = golden.golden_path(case)
    assert path.exists(), f"no golden file {path.name}; {REGENERATE}"
    expected = golden.parse(path.read_bytes())
    returncode, stdout, stderr, notes = result
    # text first, so a failure shows a readable diff; then the exact bytes
    assert stdout.decode("utf-8", "replace") == expected["stdout"].decode("utf-8", "replace"), f"stdout differs; {REGENERATE}"
    assert stderr.decode("utf-8", "replace") == expected["stderr"].decode("utf-8", "replace"), f"stderr differs; {REGENERATE}"
    assert stdout == expected["stdout"]
    assert stderr == expected["stderr"]
    assert returncode == expected["returncode"], f"exit code differs; {REGENERATE}"
    # the header too (command line, stdin size, normalisation notes)
    assert golden.render(case, returncode, stdout, stderr, notes) == path.read_bytes()


@pytest.mark.parametrize("case", golden.CASES, ids=[c["name"] for c in golden.CASES])
def test_cli_output_matches_golden(case):
    _check(case, golden.run_case_in_process(case))


@pytest.mark.parametrize("name", SUBPROCESS_CASES)
def test_cli_output_matches_golden_in_a_subprocess(name):
    case = _BY_NAME[name]
    _check(case, golden.run_case(case))


def test_subprocess_cases_cover_every_command_and_exit_status():
    assert set(SUBPROCESS_CASES) <= set(_BY_NAME)
    assert {_BY_NAME[n]["args"][0] for n in SUBPROCESS_CASES} == {c["args"][0] for c in golden.CASES}
    codes = [golden.parse(golden.golden_path(_BY_NAME[n]).read_bytes())["returncode"] for n in SUBPROCESS_CASES]
    assert set(codes) == {golden.parse(golden.golden_path(c).read_bytes())["returncode"] for c in golden.CASES}
    assert any("stdin" in _BY_NAME[n] for n in SUBPROCESS_CASES)


def test_in_process_run_leaves_the_process_as_it_was(capsys):
    import os
    import sys
    import warnings

    import numpy as np

    before = (sys.stdin, sys.stdout, sys.stderr, os.getcwd(), np.get_printoptions(), list(warnings.filters))
    golden.run_case_in_process(_BY_NAME["show__stdin__paper_layout_a"])
    golden.run_case_in_process(_BY_NAME["show__error__missing-file"])
    assert (sys.stdin, sys.stdout, sys.stderr, os.getcwd(), np.get_printoptions(), list(warnings.filters)) == before
    assert capsys.readouterr() == ("", "")


def test_no_stale_golden_files():
    wanted = {golden.golden_path(c).name for c in golden.CASES}
    stale = sorted(p.name for p in golden.GOLDEN.glob("*.txt") if p.name not in wanted)
    assert not stale, f"golden files without a case: {stale}; {REGENERATE}"


def test_golden_format_round_trips():
    case = {"name": "x", "args": ["show", "a b.json"], "stdin": "{}"}
    for out, err in [(b"", b""), (b"no newline", b"err\n"), (b"a\n\n# stderr: 3 bytes\n", b"\xe2\x80\x94")]:
        data = golden.render(case, 2, out, err, ["n"])
        back = golden.parse(data)
        assert (back["returncode"], back["stdout"], back["stderr"]) == (2, out, err)


def test_sweep_time_is_the_only_normalisation():
    case = {"name": "s", "args": ["sweep", "f.json", "--json"]}
    out, err, notes = golden.normalise(case, b'{"seconds": 14.079, "jobs": 1} in 0.3 s (1 process)', b"x 0.3 s")
    assert out == b'{"seconds": <SECONDS>, "jobs": 1} in <SECONDS> s (1 process)' and err == b"x 0.3 s" and notes
    other = {"name": "t", "args": ["show", "f.json"]}
    assert golden.normalise(other, b'"seconds": 1.5', b"") == (b'"seconds": 1.5', b"", [])
