"""Instructions spent planning the speed corpus's conversions, under callgrind (load-independent).

``benchmarks/convert_plan_speed.py`` times ``plan_conversion`` per pair in CPU time, which drifts by tens of
percent on a shared machine.  This counts instructions instead: a fresh interpreter builds the same corpus
(120 pairs, seed 5), warms the same memos, and plans every pair once in the same order, under
``valgrind --tool=callgrind``; a second run skips the plans of the pairs being measured, and the difference
is what planning them cost (memos filled by earlier pairs stay filled, as in the timed benchmark).

    PYTHONPATH=. python benchmarks/callgrind_plan.py [--one-step] [--names FILE]

``--names FILE``: measure only the pairs named in FILE (whitespace-separated), for example the median band
of a timed run; default: every pair.  ``--one-step`` plans with ``multistep=False``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child(names: set[str] | None, skip: bool, one_step: bool) -> None:
    import gc
    import warnings

    warnings.simplefilter("ignore")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from convert_plan_speed import corpus

    from linlayout.convert.plan import plan_conversion
    from linlayout.errors import InputError

    for warm in corpus(4, 1005):
        plan_conversion(*warm[2:5])
    pairs = corpus(120, 5)
    gc.disable()
    for name, _, src, dst, bits, _ in pairs:
        if skip and (names is None or name in names):
            continue
        try:
            plan_conversion(src, dst, bits, multistep=not one_step)
        except InputError:
            pass


def instructions(args: list[str]) -> int:
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__, "--child"] + args
    err = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stderr
    return int(re.search(r"refs:\s*([\d,]+)", err).group(1).replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--one-step", action="store_true")
    ap.add_argument("--names")
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--skip", action="store_true")
    a = ap.parse_args()
    names = set(Path(a.names).read_text().split()) if a.names else None
    if a.child:
        return child(names, a.skip, a.one_step)
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed")
    common = (["--one-step"] if a.one_step else []) + (["--names", a.names] if a.names else [])
    full, skipped = instructions(common), instructions(common + ["--skip"])
    n = len(names) if names else 120
    print(f"{'one step' if a.one_step else 'default'}: {(full - skipped) / 1e6:.1f}M instructions for {n} pairs, "
          f"{(full - skipped) / n / 1e3:.0f}k per pair")


if __name__ == "__main__":
    main()
