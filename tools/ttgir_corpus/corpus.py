"""The whole corpus: ``kernels.py`` (the first fourteen), Triton's tutorials, and one kernel per shared-memory op.

    import corpus
    corpus.CASES      # every entry (see corpus_case.py for the fields)
    corpus.by_name()  # name -> entry

The scripts next to this file (compile_cpu.py, ptx_counts.py, measure_ncu.py) take their cases from here.
"""

from __future__ import annotations

import kernels
from kernels_ldgsts import PROBE_CASES
from kernels_smem import SMEM_OP_CASES
from kernels_tutorials import TUTORIAL_CASES

CASES = kernels.CASES + TUTORIAL_CASES + SMEM_OP_CASES
# Microbenchmarks that pin one rule each (measured by measure_ncu.py --only; not in the corpus' table).
PROBES = PROBE_CASES


def all_cases() -> list:
    """The corpus and the probes: what measure_ncu.py can launch."""
    return CASES + PROBES


def by_name() -> dict:
    """Every case by its name (names are unique)."""
    named = {c["name"]: c for c in all_cases()}
    assert len(named) == len(all_cases()), "duplicate case names"
    return named
