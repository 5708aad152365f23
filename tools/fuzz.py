"""The long fuzzing profile: many examples per surface, with the oracles CI only replays.

    python tools/fuzz.py                 # 2000 examples per surface (tens of minutes on two cores)
    python tools/fuzz.py 200 -x          # fewer examples; extra arguments go to pytest
    python tools/fuzz.py 500 tests/fuzz  # only the project's fuzz suite (reader, lint, planner)

It runs ``tests/test_fuzz.py`` (the API, JSON and CLI surfaces) and
``tests/fuzz/`` (the TTGIR reader against Triton 3.9.0's own
``to_linear_layout`` and the printer read back by Triton; lint on mutated
corpus kernels; conversion plans executed and recounted) with
``LINLAYOUT_FUZZ_EXAMPLES`` set, so every test draws that many fresh
examples.  CI runs the same tests with a few fixed examples each.  Every
failure names its seed or its input: a reproducer.  The summary of the
Triton comparison (``LINLAYOUT_FUZZ_REPORT``) is printed at the end.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITES = ["tests/test_fuzz.py", "tests/fuzz"]


def main(argv: list[str]) -> int:
    examples = argv[0] if argv and argv[0].isdigit() else "2000"
    rest = argv[1:] if argv and argv[0].isdigit() else argv
    paths = [a for a in rest if a.startswith("tests")] or SUITES
    options = [a for a in rest if not a.startswith("tests")]
    report = Path(tempfile.mkdtemp(prefix="linlayout_fuzz")) / "report.txt"
    env = dict(os.environ, LINLAYOUT_FUZZ_EXAMPLES=examples, LINLAYOUT_FUZZ_REPORT=str(report))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tb=short", *paths, *options]
    start = time.time()
    status = subprocess.call(cmd, cwd=ROOT, env=env)
    if report.exists():
        print(report.read_text(), end="")
    print(f"tools/fuzz.py: {examples} examples per test, {time.time() - start:.0f} s, exit status {status}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
