"""Instructions spent planning the speed corpus's conversions, under callgrind (load-independent).

``benchmarks/convert_plan_speed.py`` times ``plan_conversion`` per pair in CPU time, which drifts by tens of
percent on a shared machine.  This counts instructions instead: a fresh interpreter builds the same corpus
(120 pairs, seed 5), warms the same memos, and plans every pair once in the same order, under
``valgrind --tool=callgrind``; a second run skips the plans of the pairs being measured, and the difference
is what planning them cost (memos filled by earlier pairs stay filled, as in the timed benchmark).

    PYTHONPATH=. python benchmarks/callgrind_plan.py [--one-step] [--names FILE] [--kernels]

``--names FILE``: measure only the pairs named in FILE (whitespace-separated), for example the median band
of a timed run; default: every pair.  ``--one-step`` plans with ``multistep=False``.  ``--kernels``: the
conversions of real kernels (``convert_plan_speed.kernel_corpus``) instead of the 120 random pairs.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child(names: set[str] | None, skip: bool, one_step: bool, kernels: bool = False) -> None:
    import gc
    import warnings

    warnings.simplefilter("ignore")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from convert_plan_speed import corpus, kernel_corpus

    from linlayout.convert.plan import plan_conversion
    from linlayout.errors import InputError

    for warm in corpus(4, 1005):
        plan_conversion(*warm[2:5])
    pairs = kernel_corpus() if kernels else corpus(120, 5)
    gc.disable()
    measured = sum(1 for p in pairs if names is None or p[0] in names)
    print(measured)  # how many pairs the difference of the two runs is spent on
    for name, _, src, dst, bits, _ in pairs:
        if skip and (names is None or name in names):
            continue
        try:
            plan_conversion(src, dst, bits, multistep=not one_step)
        except InputError:
            pass


def instructions(args: list[str]) -> tuple[int, int]:
    """The instructions of a child run, and how many pairs it measures."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__, "--child"] + args
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True)
    return int(re.search(r"refs:\s*([\d,]+)", run.stderr).group(1).replace(",", "")), int(run.stdout.split()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--one-step", action="store_true")
    ap.add_argument("--names")
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--skip", action="store_true")
    ap.add_argument("--kernels", action="store_true")
    a = ap.parse_args()
    names = set(Path(a.names).read_text().split()) if a.names else None
    if a.child:
        return child(names, a.skip, a.one_step, a.kernels)
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed")
    common = ((["--one-step"] if a.one_step else []) + (["--names", a.names] if a.names else [])
              + (["--kernels"] if a.kernels else []))
    (full, n), (skipped, _) = instructions(common), instructions(common + ["--skip"])
    print(f"{'one step' if a.one_step else 'default'}{' (kernels)' if a.kernels else ''}: "
          f"{(full - skipped) / 1e6:.1f}M instructions for {n} pairs, "
          f"{(full - skipped) / n / 1e3:.0f}k per pair")


if __name__ == "__main__":
    main()
