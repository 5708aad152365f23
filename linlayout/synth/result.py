"""The result of a synthesis: the memory layout, its costs, and the proof of optimality on demand.

:func:`build_result` turns a search's outcome (:mod:`.search`) into a
:class:`SwizzleResult`.  The cheap facts (memory, costs, instructions, vector
widths) are fields; the rest is computed on first use from the search it
keeps: the columns by role, the relaxation (:mod:`.bounds`) behind
``optimal``, ``lower_bound`` and ``gap``, the frontier, the explanation, the
exact counter's reports and the standard swizzles that tie.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field, fields
from functools import cached_property
from typing import Any

from ..core.layout import LinearLayout
from ..core.record import record
from ..hw import SharedMemory, parse_instruction
from .bounds import objective_key, relaxation
from .explain import explain, unflat
from .policy import MemoryChoice, choose_memory, instruction_reason
from .search import SearchOutcome
from .sides import SwizzleProblem, in_tensor_order
from .speed import new_instance

__all__ = ["SwizzleResult", "build_result"]


@record
class SwizzleResult:
    """The synthesized memory layout and everything known about it.

    ``memory`` maps ``offset`` (element offsets, vector bits lowest) to the
    tensor.  ``vector``, ``extension``, ``word_fill``, ``bank`` and
    ``segment`` list its columns by role (tensor coordinates, in offset
    order).  ``vector_bits`` is the width of the memory's contiguous vector
    block (the widest access either side makes, as Triton reports it) and
    ``common_vector_bits`` the width both sides use.  ``write`` and ``read`` are the exact counter's reports
    (:class:`~linlayout.count.closed_form.WavefrontReport`), computed on first use.
    ``lower_bound`` holds each side's best cost over *all* memory layouts
    (each side alone), ``optimal`` is True only when the result is proven
    optimal for the objective, and ``frontier`` lists the Pareto-optimal
    (write, read) pairs among the layouts the synthesizer built.  ``memory`` is
    the synthesized memory; ``emitted`` is the memory given out among those of
    equal cost (``swizzle``'s text and every ``--emit`` form: a tying standard
    swizzle first, :mod:`linlayout.synth.policy`), with the reason.
    """

    memory: LinearLayout
    element_bits: int
    extended_side: str | None
    vector_bits: int
    common_vector_bits: int
    write_instruction: str
    read_instruction: str
    write_wavefronts: int
    read_wavefronts: int
    write_instructions: int
    read_instructions: int
    objective: str
    hardware: str
    _search: SearchOutcome = field(repr=False, compare=False)  # the problem's search: best candidate, frontier
    _problem: SwizzleProblem = field(repr=False, compare=False)  # the checked query: sides, model, vector width
    _given: tuple[LinearLayout, LinearLayout] = field(repr=False, compare=False)  # write and read, as given

    @classmethod
    def from_fields(cls, values: dict[str, Any]) -> SwizzleResult:
        """The result from a dict of every field by name, without the frozen dataclass's per-field ``__setattr__``.

        The synthesizer builds one result per call (issue 16: every
        microsecond of a small synthesis counts); the dict becomes the
        instance's ``__dict__`` (the result owns it from then on), holding the
        fields exactly as the generated ``__init__`` would store them.
        """
        if values.keys() != _FIELD_NAMES:
            raise TypeError(f"SwizzleResult.from_fields needs exactly the fields {sorted(_FIELD_NAMES)}")
        return new_instance(cls, values)

    @property
    def _hw(self) -> SharedMemory:
        return self._problem.hw

    @cached_property
    def _layouts(self) -> tuple[LinearLayout, LinearLayout]:
        """Write and read with their output dimensions in the memory's order (only the exact reports and the
        standard swizzles read them)."""
        outs = self.memory.out_dim_bits
        return in_tensor_order(self._given[0], outs), in_tensor_order(self._given[1], outs)

    @property
    def _vector_arg(self) -> int | None:
        return self._problem.vector_bits

    def _part(self, cols: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        outs = self.memory.out_dim_bits
        return tuple(unflat(v, outs) for v in cols)

    @cached_property
    def vector(self) -> tuple[tuple[int, ...], ...]:
        """Common register directions at the lowest offsets (tensor coordinates)."""
        return self._part(self._search.best.vector)

    @cached_property
    def extension(self) -> tuple[tuple[int, ...], ...]:
        """Registers of ``extended_side`` that follow the vector."""
        return self._part(self._search.best.extension)

    @cached_property
    def word_fill(self) -> tuple[tuple[int, ...], ...]:
        """Lane directions filling the rest of a 32-bit word."""
        return self._part(self._search.best.word_fill)

    @cached_property
    def bank(self) -> tuple[tuple[int, ...], ...]:
        """Directions at the remaining bank positions."""
        return self._part(self._search.best.bank)

    @cached_property
    def segment(self) -> tuple[tuple[int, ...], ...]:
        """Directions at the segment positions (128-byte rows)."""
        return self._part(self._search.best.segment)

    @cached_property
    def _relaxed(self) -> tuple[dict[str, int], tuple[int, int] | None]:
        return relaxation(self._problem)

    @property
    def lower_bound(self) -> dict[str, int]:
        """Each side's least possible wavefronts over every memory layout (that side alone)."""
        return self._relaxed[0]

    @property
    def relaxed_optimum(self) -> tuple[int, int] | None:
        """The (write, read) bound pair that minimises the objective over the relaxation."""
        return self._relaxed[1]

    @property
    def gap(self) -> tuple[int, int]:
        """(write, read) wavefronts above the relaxation's optimum pair: (0, 0) when proven optimal.

        A positive entry is how far the proof falls short, not a known loss:
        the relaxation may be loose (paper_notes/synthesis.md §7).
        """
        relaxed = self.relaxed_optimum or (0, 0)
        return (self.write_wavefronts - relaxed[0], self.read_wavefronts - relaxed[1])

    @cached_property
    def optimal(self) -> bool:
        """True when proven: the result meets the relaxation's optimum, so no memory layout beats it."""
        relaxed = self.relaxed_optimum
        return relaxed is not None and objective_key(self.objective, self.write_wavefronts, self.read_wavefronts) == objective_key(self.objective, *relaxed)

    @cached_property
    def frontier(self) -> tuple[tuple[int, int], ...]:
        """Pareto-optimal (write, read) wavefront pairs among the layouts the synthesizer can build."""
        pts = sorted(set(self._search.frontier()))
        return tuple(p for p in pts if not any(q != p and q[0] <= p[0] and q[1] <= p[1] for q in pts))

    @cached_property
    def explanation(self) -> str:
        """A short human explanation: which directions were protected, paired, and why."""
        p = self._problem
        return explain(self._search.best, p.sides, p.geo, self.lower_bound, self.optimal, self.relaxed_optimum, self.objective,
                        self.memory.out_dim_bits)

    @cached_property
    def write(self):
        """Exact report of the write side (``linlayout.count.closed_form.wavefronts``)."""
        from ..count.closed_form import wavefronts

        return wavefronts(self._layouts[0], self.memory, self.element_bits, "store", self.write_instruction,
                          None if parse_instruction(self.write_instruction).is_matrix else self._vector_arg, self._hw)

    @cached_property
    def read(self):
        """Exact report of the read side."""
        from ..count.closed_form import wavefronts

        return wavefronts(self._layouts[1], self.memory, self.element_bits, "load", self.read_instruction,
                          None if parse_instruction(self.read_instruction).is_matrix else self._vector_arg, self._hw)

    @cached_property
    def standards(self):
        """Every standard swizzle of the tile that both sides can access, scored exactly with this result's
        instructions and vector width, in the order of preference of :mod:`linlayout.synth.standard`."""
        from .standard import score_standards, standard_swizzles

        images = {nm: {d: L.flat_bases(d) for d in L.in_dims} for nm, L in zip(("write", "read"), self._layouts)}
        ins = {"write": parse_instruction(self.write_instruction), "read": parse_instruction(self.read_instruction)}
        cands = standard_swizzles(self.memory.out_dim_bits, self.element_bits)
        return tuple(score_standards(cands, images, self.element_bits, ins, self._hw, self._vector_arg))

    @cached_property
    def standard_ties(self):
        """The standard swizzles (``StandardScore``) that cost exactly what this result costs, in preference order."""
        mine = (self.write_wavefronts, self.read_wavefronts, self.write_instructions, self.read_instructions)
        return tuple(sc for sc in self.standards
                     if (sc.write_wavefronts, sc.read_wavefronts, sc.write_instructions, sc.read_instructions) == mine)

    @property
    def _standard_tie(self):
        return self.standard_ties[0] if self.standard_ties else None

    @property
    def standard(self) -> str | None:
        """The first standard swizzle (in the documented order) that costs exactly what this result costs, or None."""
        tie = self._standard_tie
        return tie.swizzle.name if tie else None

    @property
    def standard_memory(self) -> LinearLayout | None:
        """The memory layout of :attr:`standard` (same cost as :attr:`memory`), or None."""
        tie = self._standard_tie
        if tie is None:
            return None
        return LinearLayout.from_flat((("offset", self.memory.in_bits),), self.memory.out_dim_bits, (tie.swizzle.columns,))

    @property
    def preferred_memory(self) -> LinearLayout:
        """:attr:`standard_memory` when a standard swizzle ties, else :attr:`memory` (what ``--emit`` writes)."""
        return self.standard_memory or self.memory

    @cached_property
    def emitted(self) -> MemoryChoice:
        """The memory this result gives out (``swizzle``'s text and every ``--emit`` form), and why.

        The default policy's rule among memories of equal cost (:func:`linlayout.synth.policy.choose_memory`):
        the first standard swizzle of :attr:`standard_ties`, else the synthesized :attr:`memory`.  So
        ``to_c(result.emitted.memory)`` is what ``linlayout swizzle --emit c`` prints.  ``instructions`` is the
        (write, read) pair both memories cost that with, and ``instructions_reason`` why the search chose it
        (:func:`linlayout.synth.policy.instruction_reason`).
        """
        cost = (f"{self.write_wavefronts} + {self.read_wavefronts} wavefronts, {self.write_instructions} + "
                f"{self.read_instructions} instructions")
        pair = (self.write_instruction, self.read_instruction)
        return choose_memory(self.memory, self.standard_ties, cost, pair, instruction_reason(*pair, *self._search.pairs))

    def emitted_memory(self, spells: Callable[[LinearLayout], bool] | None = None) -> tuple[LinearLayout, str]:
        """The memory ``--emit`` writes, and a note saying why when it is not :attr:`memory`.

        Among memories of equal cost a standard swizzle is preferred (issue 12 §4): the first of
        :attr:`standard_ties`, in preference order, that ``spells`` accepts (a form such as CuTe's
        ``Swizzle<B,M,S>`` cannot spell every layout; ``None`` accepts all), with the note
        ``"standard swizzle NAME (the same cost as the synthesized optimum)"``.  Otherwise the synthesized
        :attr:`memory` and an empty note (the form may still fail to spell it: the caller says so).
        """
        for tie in self.standard_ties:
            memory = LinearLayout.from_flat((("offset", self.memory.in_bits),), self.memory.out_dim_bits,
                                            (tie.swizzle.columns,))
            if spells is None or spells(memory):
                return memory, f"standard swizzle {tie.swizzle.name} (the same cost as the synthesized optimum)"
        return self.memory, ""

    @property
    def best_standard(self):
        """The standard swizzle that is best for the objective (a ``StandardScore``), or None if none fits."""
        if not self.standards:
            return None
        return min(self.standards, key=lambda sc: objective_key(self.objective, sc.write_wavefronts, sc.read_wavefronts)
                   + (sc.write_instructions + sc.read_instructions,))

    def standard_text(self) -> str:
        """One line on standard swizzles: the one that ties, or the best one's cost beside the optimum."""
        if self.standard:
            return (f"standard: {self.standard} ({self._standard_tie.swizzle.description}) costs exactly the same; "
                    f"--emit writes it")
        b = self.best_standard
        if b is None:
            return "standard: no standard swizzle lets both sides access the tile"
        return (f"standard: none ties; the best, {b.swizzle.name}, costs {b.write_wavefronts} + {b.read_wavefronts} "
                f"wavefronts ({b.write_instructions} + {b.read_instructions} instructions) beside the synthesized memory's "
                f"{self.write_wavefronts} + {self.read_wavefronts} ({self.write_instructions} + {self.read_instructions})")

    def to_dict(self) -> dict[str, Any]:
        """The JSON result of ``linlayout swizzle --json``."""

        def side(r):
            return {
                "wavefronts": r.wavefronts,
                "instructions": r.instructions,
                "wavefronts_per_instruction": r.wavefronts_per_instruction,
                "passes_per_instruction": r.passes_per_instruction,
                "conflict_ways": r.conflict_ways,
                "vector_bits": r.vector_bits,
                "instruction": r.instruction,
            }

        return {
            "memory": self.memory.to_dict(),
            "vector_bits": self.vector_bits,
            "common_vector_bits": self.common_vector_bits,
            "instructions": {"write": self.write_instruction, "read": self.read_instruction},
            "parts": {
                "vector": [list(v) for v in self.vector],
                "extension": [list(v) for v in self.extension],
                "extended_side": self.extended_side,
                "word_fill": [list(v) for v in self.word_fill],
                "bank": [list(v) for v in self.bank],
                "segment": [list(v) for v in self.segment],
            },
            "write": side(self.write),
            "read": side(self.read),
            "lower_bound": dict(self.lower_bound),
            "optimal": self.optimal,
            "objective": self.objective,
            "frontier": [list(p) for p in self.frontier],
            "hardware": self.hardware,
            "explanation": self.explanation,
            "relaxed_optimum": list(self.relaxed_optimum) if self.relaxed_optimum else None,
            "gap": list(self.gap),
            "standard": self.standard,
            "standard_memory": self.standard_memory.to_dict() if self.standard_memory is not None else None,
            "best_standard": self.best_standard.to_dict() if self.best_standard is not None else None,
            "emitted": {"memory": self.emitted.memory.to_dict(), "source": self.emitted.source,
                        "name": self.emitted.name, "reason": self.emitted.reason,
                        "instructions": list(self.emitted.instructions),
                        "instructions_reason": self.emitted.instructions_reason},
        }


_FIELD_NAMES = frozenset(f.name for f in fields(SwizzleResult))


def build_result(p: SwizzleProblem, outcome: SearchOutcome, layouts: tuple[LinearLayout, LinearLayout]) -> SwizzleResult:
    """The result of a search on the problem of ``layouts`` (write, read): the best candidate's memory and costs;
    the search, the problem and the layouts kept for the properties read on demand (the proof, the exact reports,
    the parts by role, the standard swizzles)."""
    best = outcome.best
    geo, hw, element_bits = p.geo, p.hw, p.element_bits
    mem = LinearLayout.from_flat((("offset", geo.offset_bits),), layouts[0].out_dim_bits, (best.columns,), check=False)
    cw, cr = best.write_cost, best.read_cost
    # Access widths of the two sides (a matrix instruction moves one 32-bit register per lane and matrix).
    ww = hw.register_bytes * 8 if best.write_instruction.is_matrix else element_bits << cw.vector
    wr = hw.register_bytes * 8 if best.read_instruction.is_matrix else element_bits << cr.vector
    values = {
        "memory": mem,
        "element_bits": element_bits,
        "extended_side": best.extended,
        "vector_bits": ww if ww > wr else wr,
        "common_vector_bits": wr if ww > wr else ww,
        "write_instruction": best.write_instruction.name,
        "read_instruction": best.read_instruction.name,
        "write_wavefronts": cw.total,
        "read_wavefronts": cr.total,
        "write_instructions": cw.instructions,
        "read_instructions": cr.instructions,
        "objective": p.objective,
        "hardware": hw.name,
        "_search": outcome,
        "_problem": p,
        "_given": layouts,
    }
    if outcome.relaxed is not None:
        values["_relaxed"] = outcome.relaxed  # already computed by the search (the cached property's slot)
    return new_instance(SwizzleResult, values)
