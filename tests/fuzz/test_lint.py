"""Fuzzing lint on mutated real kernels: a report with whole, non-negative totals, or one clear error.

Each example mutates one of the corpus kernels (``tests/data/ttgir36``,
``ttgir39``: Triton's own TTGIR), lints it with a random grid and trip
counts, and checks the contract: ``lint_text`` returns a report whose
totals are ``None`` or non-negative ints, or raises an error of the
library's family; the command line exits 0, 1 or 2, with one line on
stderr when 2, and never shows a traceback.
"""

from __future__ import annotations

import contextlib
import io
import random
from pathlib import Path

import pytest

from linlayout.cli import main
from linlayout.errors import LinLayoutError
from linlayout.io.ttgir.lint import lint_text
from ..conftest import DATA
from .profile import LONG, mutate, seeds

KERNELS = sorted((DATA / "ttgir39").glob("*.ttgir")) + sorted((DATA / "ttgir36").glob("*.ttgir"))
SMALL = [k for k in KERNELS if k.stat().st_size < 4000]  # the fast profile's: a few ms each


def _check_report(report) -> None:
    t = report.total
    assert t is not None
    for value in (t.load_wavefronts, t.store_wavefronts):
        assert value is None or (type(value) is int and value >= 0), t
    for op in report.ops:
        assert op.executions_per_warp is None or (type(op.executions_per_warp) is int and op.executions_per_warp >= 0)


def _draw(seed: int) -> tuple[Path, str, tuple, dict]:
    rng = random.Random(seed)
    kernel = rng.choice(KERNELS if LONG else SMALL)
    text = mutate(kernel.read_text(), rng)
    grid = tuple(rng.choice([1, 2, 16, 132]) for _ in range(3))
    trips = {str(rng.randrange(1, 200)): rng.randrange(0, 64)} if rng.random() < 0.3 else {}
    return kernel, text, grid, trips


@pytest.mark.parametrize("seed", seeds(6, 3))
def test_mutated_kernels_lint_or_are_refused(seed):
    kernel, text, grid, trips = _draw(seed)
    try:
        report = lint_text(text, grid=grid, trip_counts=trips)
    except LinLayoutError:
        return
    _check_report(report)


@pytest.mark.parametrize("seed", seeds(3, 4))
def test_the_command_line_never_shows_a_traceback(seed, tmp_path):
    kernel, text, grid, trips = _draw(seed)
    path = tmp_path / kernel.name
    path.write_text(text)
    argv = ["lint", str(path), "--grid", *map(str, grid), "--json"]
    for loc, n in trips.items():
        argv += ["--trip-count", f"{loc}={n}"]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    assert status in (0, 1, 2), (seed, status)
    if status == 2:
        assert err.getvalue().count("\n") == 1, (seed, err.getvalue())
    assert "Traceback" not in err.getvalue()
