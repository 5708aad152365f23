"""One corpus entry, and where its loops are.

A case is a plain dict (the corpus scripts index it by key):

- ``name``: the file stem used for every output (``NAME.ttgir``).
- ``fn``, ``signature``, ``constexprs``: what ``triton.compile`` needs.  An
  integer argument that a launch passes as ``1`` is specialized by Triton's JIT
  into a constant, so the corpus declares it ``"constexpr"`` with the value 1
  (the GPU launch passes it by keyword like the other constants).
- ``plain_ints``: ``i32`` arguments that are *not* multiples of 16.  The JIT
  marks every other integer (and every pointer) ``tt.divisibility = 16``;
  ``compile_cpu.source`` does the same, so the CPU and GPU compiles agree.
- ``grid``, ``make_args`` (torch, GPU only; positional values of the
  non-constexpr arguments in signature order), ``num_warps``, ``num_stages``.
- ``trips``: the source text of a loop's ``for`` line -> its trip count in the
  measured launch (each program runs it that many times).
- ``data_dependent``: empty, or why the kernel's traffic depends on the data
  (a spin lock, a loop whose bounds come from memory).
- ``loop_note``: empty, or how often a loop runs where one count per program
  does not say it (trip counts that differ between programs).
"""

from __future__ import annotations

import inspect
from pathlib import Path


def make_case(name, fn, signature, constexprs, grid, make_args, num_warps=4, num_stages=3, trips=None,
              plain_ints=(), data_dependent="", loop_note=""):
    """A corpus entry (see the module docstring for the fields)."""
    return {"name": name, "fn": fn, "signature": signature, "constexprs": constexprs, "grid": grid,
            "make_args": make_args, "num_warps": num_warps, "num_stages": num_stages, "trips": trips or {},
            "plain_ints": tuple(plain_ints), "data_dependent": data_dependent,
            "loop_note": loop_note}


def loop_location(fn, text: str) -> str:
    """``FILE.py:LINE`` of the loop whose ``for`` line (stripped) is ``text``, as TTGIR locations name it."""
    target = getattr(fn, "fn", fn)
    lines, start = inspect.getsourcelines(target)
    for i, line in enumerate(lines):
        if line.strip() == text:
            return f"{Path(inspect.getsourcefile(target)).name}:{start + i}"
    raise KeyError(text)
