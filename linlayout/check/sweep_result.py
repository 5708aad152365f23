"""What a sweep found: per-access tallies (:class:`SideSummary`), the whole result (:class:`SweepResult`) and its report.

A sweep (:func:`linlayout.check.sweep.sweep`) counts every instruction of
every configuration twice, in closed form and by simulation, and tallies:

* per access, the **closed-form histogram** (wavefronts per instruction →
  configurations) and the **simulated histogram** (wavefronts → simulated
  instructions); with ``I`` instructions per layout and no disagreement the
  second is ``I`` times the first;
* the instructions whose simulation differs from the closed form
  (**disagreements**, with the first few configurations, their toggles and
  lane byte offsets), the configurations the instruction cannot access
  (**not lowerable**) and, for a family with a known fact, the
  configurations where it fails;
* for the whole family, the configurations whose memory is not invertible
  (**singular**), and the library spot check.

``SweepResult.ok`` holds when nothing disagrees.  :meth:`SweepResult.text`
is the report ``linlayout sweep`` prints and :meth:`SweepResult.to_dict`
its ``--json`` output.  A hand-made result shows the report's layout:

>>> s = SideSummary("read", "ld.shared", "load", 32, histogram={1: 3, 2: 1}, simulated={1: 48, 2: 16},
...                 instructions_per_layout={16: 4}, access_bytes={4: 4}, checked_instructions=64)
>>> r = SweepResult("demo", 4, 4, False, 0.01, 1, {"read": s})
>>> r.ok
True
>>> print(r.text())
family: demo
swept all 4 memory layouts in 0.0 s (1 process)
<BLANKLINE>
read: ld.shared (load), 32-bit elements, 4-byte accesses, 16 instructions x 32 lanes per layout; 64 instructions simulated
  wavefronts per instruction    layouts (closed form)    instructions (simulation)
                           1                        3                           48
                           2                        1                           16
<BLANKLINE>
closed form vs simulation: agree on all 64 instructions
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ..core.record import record

__all__ = ["SweepResult"]


@record(frozen=False)
class SideSummary:
    """What the sweep found for one access.

    ``histogram`` maps wavefronts per instruction (closed form) to the number
    of configurations; ``simulated`` maps wavefronts to the number of
    simulated instructions; ``instructions_per_layout`` maps instruction
    counts to configurations; ``disagreements`` counts instructions whose
    simulation differs from the closed form (``examples`` lists the first
    ones); ``not_lowerable`` counts configurations the instruction cannot
    access (``LoweringError``).
    """

    name: str
    instruction: str
    op: str
    element_bits: int
    histogram: dict[int, int] = field(default_factory=dict)
    simulated: dict[int, int] = field(default_factory=dict)
    instructions_per_layout: dict[int, int] = field(default_factory=dict)
    access_bytes: dict[int, int] = field(default_factory=dict)
    checked_instructions: int = 0
    disagreements: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)
    not_lowerable: int = 0
    not_lowerable_examples: list[int] = field(default_factory=list)
    expect_mismatches: int = 0
    expect_examples: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "instruction": self.instruction,
            "op": self.op,
            "element_bits": self.element_bits,
            "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
            "simulated_instructions": {str(k): v for k, v in sorted(self.simulated.items())},
            "instructions_per_layout": {str(k): v for k, v in sorted(self.instructions_per_layout.items())},
            "access_bytes": {str(k): v for k, v in sorted(self.access_bytes.items())},
            "checked_instructions": self.checked_instructions,
            "disagreements": self.disagreements,
            "disagreement_examples": self.examples,
            "not_lowerable": self.not_lowerable,
            "not_lowerable_examples": self.not_lowerable_examples,
            "expect_mismatches": self.expect_mismatches,
            "expect_examples": self.expect_examples,
        }


@record(frozen=False)
class SweepResult:
    """The outcome of :func:`sweep`.

    ``ok`` is true when the closed form equals the simulation on every
    instruction, the known fact (if any) holds on every configuration and the
    library spot check agrees.  ``singular`` counts the configurations whose
    memory is not invertible (skipped); ``singular_examples`` lists the first
    few with the library's message; ``singular_toggles`` lists the toggles
    that alone make the base memory singular.
    """

    family: str
    configs: int
    total_configs: int
    sampled: bool
    seconds: float
    jobs: int
    sides: dict[str, SideSummary]
    singular: int = 0
    singular_examples: list[dict[str, Any]] = field(default_factory=list)
    singular_toggles: list[int] = field(default_factory=list)
    expect: str | None = None
    library_checked: int = 0
    library_mismatches: list[str] = field(default_factory=list)

    @property
    def checked_instructions(self) -> int:
        return sum(s.checked_instructions for s in self.sides.values())

    @property
    def disagreements(self) -> int:
        return sum(s.disagreements for s in self.sides.values())

    @property
    def ok(self) -> bool:
        return (
            self.disagreements == 0
            and not self.library_mismatches
            and all(s.expect_mismatches == 0 for s in self.sides.values())
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "configs": self.configs,
            "total_configs": self.total_configs,
            "sampled": self.sampled,
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "jobs": self.jobs,
            "checked_instructions": self.checked_instructions,
            "disagreements": self.disagreements,
            "singular": self.singular,
            "singular_examples": self.singular_examples,
            "singular_toggles": self.singular_toggles,
            "expect": self.expect,
            "library_checked": self.library_checked,
            "library_mismatches": self.library_mismatches,
            "sides": {k: v.to_dict() for k, v in self.sides.items()},
        }

    def text(self) -> str:
        """A human report."""
        L = []
        what = f"a random sample of {self.configs:,} of {self.total_configs:,}" if self.sampled else f"all {self.configs:,}"
        L.append(f"family: {self.family}")
        L.append(f"swept {what} memory layouts in {self.seconds:.1f} s ({self.jobs} process{'es' if self.jobs > 1 else ''})")
        if self.singular:
            L.append(f"skipped {self.singular:,} memory layouts that are not invertible (two offsets on one element):")
            for ex in self.singular_examples:
                L.append(f"  config {ex['config']} (toggles {ex['toggles']}): {ex['message']}")
            if self.singular_toggles:
                L.append(f"  toggles that alone make the base memory singular: {self.singular_toggles}")
        for s in self.sides.values():
            L.append("")
            ipl = ", ".join(f"{k} ({v:,} layouts)" if len(s.instructions_per_layout) > 1 else f"{k}"
                            for k, v in sorted(s.instructions_per_layout.items()))
            acc = "/".join(f"{k}" for k in sorted(s.access_bytes)) or "-"
            L.append(f"{s.name}: {s.instruction} ({s.op}), {s.element_bits}-bit elements, {acc}-byte accesses, "
                     f"{ipl} instructions x 32 lanes per layout; {s.checked_instructions:,} instructions simulated")
            if s.not_lowerable:
                L.append(f"  not lowerable on {s.not_lowerable:,} layouts (skipped), e.g. configs {s.not_lowerable_examples}")
            L.append("  wavefronts per instruction    layouts (closed form)    instructions (simulation)")
            for k in sorted(set(s.histogram) | set(s.simulated)):
                L.append(f"  {k:>26}    {s.histogram.get(k, 0):>21,}    {s.simulated.get(k, 0):>25,}")
            if s.disagreements:
                L.append(f"  DISAGREEMENT on {s.disagreements:,} instructions; first ones:")
                for ex in s.examples:
                    L.append(f"    config {ex['config']} (toggles {ex['toggles']}), instruction {ex['instruction']}: "
                             f"closed form {ex['closed_form']}, simulation {ex['simulation']}; "
                             f"lane byte offsets {ex['lane_byte_offsets']}")
            if s.expect_mismatches:
                L.append(f"  KNOWN FACT FAILS on {s.expect_mismatches:,} layouts, e.g. {s.expect_examples}")
        L.append("")
        n = self.checked_instructions
        if self.disagreements:
            L.append(f"closed form vs simulation: {self.disagreements:,} of {n:,} instructions DISAGREE")
        else:
            L.append(f"closed form vs simulation: agree on all {n:,} instructions")
        if self.expect:
            bad = sum(s.expect_mismatches for s in self.sides.values())
            L.append(f"known fact ({self.expect}): " + (f"FAILS on {bad:,} layouts" if bad else
                                                        f"holds on all {self.configs - self.singular:,} layouts"))
        if self.library_checked:
            L.append(
                f"library check (linlayout.count.closed_form.wavefronts and lane_byte_offsets on {self.library_checked} "
                "sampled layouts): " + ("all equal" if not self.library_mismatches else
                                        f"{len(self.library_mismatches)} MISMATCHES: " + "; ".join(self.library_mismatches[:5]))
            )
        return "\n".join(L)

