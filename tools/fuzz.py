"""The long fuzzing profile of tests/test_fuzz.py: many examples per surface, pictures included.

    python tools/fuzz.py            # 2000 examples per surface (about 10-30 minutes)
    python tools/fuzz.py 200 -x     # fewer examples; extra arguments go to pytest

CI runs the same tests with a few examples each (a few seconds in all).  Every
failure is a reproducer: an input outside the library's error family, or a CLI
run that did not exit 0/1/2 with one line on stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    examples = argv[0] if argv and argv[0].isdigit() else "2000"
    rest = argv[1:] if argv and argv[0].isdigit() else argv
    env = dict(os.environ, LINLAYOUT_FUZZ_EXAMPLES=examples)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(ROOT / "tests" / "test_fuzz.py"), *rest]
    return subprocess.call(cmd, cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
