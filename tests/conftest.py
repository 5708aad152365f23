"""Shared test configuration: hypothesis profiles, example counts and data paths.

Two hypothesis profiles:

* ``default`` (what CI runs): 50 examples per property, and the counts the
  tests set themselves through :func:`examples`;
* ``thorough``: 20 times as many examples everywhere, the explicit counts
  included (for a long run before a release).  Select it with
  ``HYPOTHESIS_PROFILE=thorough`` or ``pytest --hypothesis-profile=thorough``.
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, settings

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[1]

BASE_EXAMPLES = 50
"""``max_examples`` of the default profile: half hypothesis' own default, so the suite stays under a minute
on two cores; tests that need more ask for it with :func:`examples`, and ``thorough`` runs 20 times as many."""

settings.register_profile(
    "default",
    deadline=None,
    max_examples=BASE_EXAMPLES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough",
    deadline=None,
    max_examples=20 * BASE_EXAMPLES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", os.environ.get("LINLAYOUT_HYPOTHESIS_PROFILE", "default")))


def examples(n: int) -> int:
    """A test's own example count ``n`` under the default profile, scaled like the loaded profile.

    ``@settings(max_examples=examples(300))`` runs 300 examples in CI and 6,000
    under ``thorough``.  Read when the test module is imported, after
    ``--hypothesis-profile`` has been applied.
    """
    return max(1, n * settings().max_examples // BASE_EXAMPLES)


def assert_same_counts(closed, simulated) -> None:
    """A closed-form report (``wavefronts``) and the simulator's (``simulate_wavefronts``) agree on every count."""
    assert closed.wavefronts == simulated.wavefronts
    assert closed.instructions == simulated.instructions
    assert closed.passes_per_instruction == simulated.passes_per_instruction
    assert set(simulated.per_instruction) == {closed.wavefronts_per_instruction}
    assert closed.ideal_wavefronts == simulated.ideal_wavefronts
    assert closed.conflict_ways == simulated.conflict_ways
