"""Golden tests of the command line: every case prints exactly the stored bytes.

The cases, the way they run and the file format live in one place,
``tests/golden/make_golden.py`` (read its docstring for what is covered and for
the one normalisation, the wall time ``sweep`` reports).  After an intended
output change, regenerate with ``python tests/golden/make_golden.py`` and
review the diff of ``tests/golden/``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_GEN = Path(__file__).parent / "golden" / "make_golden.py"
_spec = importlib.util.spec_from_file_location("linlayout_golden_cases", _GEN)
golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(golden)

REGENERATE = "regenerate with `python tests/golden/make_golden.py` if the change is intended"


@pytest.mark.parametrize("case", golden.CASES, ids=[c["name"] for c in golden.CASES])
def test_cli_output_matches_golden(case):
    path = golden.golden_path(case)
    assert path.exists(), f"no golden file {path.name}; {REGENERATE}"
    expected = golden.parse(path.read_bytes())
    returncode, stdout, stderr, notes = golden.run_case(case)
    # text first, so a failure shows a readable diff; then the exact bytes
    assert stdout.decode("utf-8", "replace") == expected["stdout"].decode("utf-8", "replace"), f"stdout differs; {REGENERATE}"
    assert stderr.decode("utf-8", "replace") == expected["stderr"].decode("utf-8", "replace"), f"stderr differs; {REGENERATE}"
    assert stdout == expected["stdout"]
    assert stderr == expected["stderr"]
    assert returncode == expected["returncode"], f"exit code differs; {REGENERATE}"
    # the header too (command line, stdin size, normalisation notes)
    assert golden.render(case, returncode, stdout, stderr, notes) == path.read_bytes()


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
