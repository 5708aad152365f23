"""The default policy: what linlayout decides when the caller does not say.

Three choices have a default, and this module is the only place that makes
them.  ``linlayout swizzle``, ``linlayout convert``, ``linlayout lint`` and
the API (:func:`~linlayout.synth.synthesis.optimal_swizzle`,
:func:`~linlayout.convert.plan.plan_conversion`) ask it rather than deciding.

1. **The instructions considered.**  Two questions, two sets, both here:

   * *Which memory layout for this write and read?*
     (:func:`default_instructions`: ``swizzle``, ``optimal_swizzle``,
     ``lint``'s optimum of a buffer): ``st.shared`` and ``ld.shared``.  The
     relaxation (``paper_notes/synthesis.md``) bounds matrix instructions
     under their tiles too, so a search with them keeps its proof (the pair
     of ``test_relaxation_knows_the_wider_vector_is_clean`` is proven 2 + 2
     either way), but the search is 1.2-3.2x slower with them (measured on
     ``benchmarks/bench.py --only synthesis``, issue 26's branch ``policy``,
     which makes them the default), so they are not yet the default here.
     Name ``instructions`` (or
     ``"instructions"`` in a JSON query) to let a side use ``ldmatrix`` or
     ``stmatrix``; :func:`conversion_instructions` lists them.
   * *How to convert registers through shared memory?*
     (:func:`conversion_instructions`: ``convert``, ``lint``'s suggested
     plan of a ``convert_layout``): the planner chooses the instructions as
     well as the memory, so it also considers ``stmatrix``/``ldmatrix``
     ``.x4``, ``.x2``, ``.x1`` where the hardware model has them
     (``matrix_rows > 0``) and elements are at most 32 bits wide (and
     ``.x4.trans`` for 16-bit elements), then falls back to ld/st.

   ``linlayout swizzle`` prints the set it considered and how to widen it, so
   an answer that differs from ``convert``'s says why.
2. **The objective** (:data:`DEFAULT_OBJECTIVE`): ``"balanced"``, the larger
   side's wavefronts first, then the sum, then the instruction count.
3. **The memory among equal-cost ones** (:func:`choose_memory`).  The
   synthesized memory is one of many with the same cost.  Where a memory is
   given to a person or to code (``swizzle``'s text, every ``--emit`` form,
   :attr:`SwizzleResult.emitted <linlayout.synth.result.SwizzleResult.emitted>`),
   the first standard swizzle that costs exactly the same on both sides
   (wavefronts and instructions) is chosen, in the order of preference of
   :mod:`linlayout.synth.standard` (TMA/NVMMA modes, unswizzled, Triton's
   swizzled layouts, CuTe swizzles), because downstream tools spell those;
   otherwise the synthesized memory.  The choice says which it is and why
   (:class:`MemoryChoice`).  Scoring the standard swizzles takes tens to
   hundreds of milliseconds, so the planners that only count with a memory
   (``convert``'s scratch layout, ``lint``'s optimum) keep the synthesized
   one: it costs the same by construction.

>>> from linlayout.hw import get_hardware
>>> default_instructions(16, get_hardware("sm90"))
('st.shared', 'ld.shared')
>>> conversion_instructions(16, get_hardware("sm90"))[:4]
('st.shared', 'ld.shared', 'stmatrix.x4', 'stmatrix.x2')
>>> conversion_instructions(64, get_hardware("sm90"))
('st.shared', 'ld.shared')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..core.layout import LinearLayout
from ..hw import Instruction, SharedMemory

__all__ = ["DEFAULT_OBJECTIVE", "LDST_INSTRUCTIONS", "MemoryChoice", "choose_memory", "conversion_instructions",
           "default_instructions", "instruction_preference", "pair_preference"]

DEFAULT_OBJECTIVE = "balanced"
"""The objective when none is given (see :data:`linlayout.synth.synthesis.OBJECTIVES`)."""

LDST_INSTRUCTIONS = ("st.shared", "ld.shared")
"""The plain vector accesses, always considered."""

_MATRIX = ("stmatrix.x4", "stmatrix.x2", "stmatrix.x1", "ldmatrix.x4", "ldmatrix.x2", "ldmatrix.x1")
_MATRIX_TRANS = ("stmatrix.x4.trans", "ldmatrix.x4.trans")


def default_instructions(element_bits: int, hardware: SharedMemory) -> tuple[str, ...]:
    """The instructions the synthesizer considers when the caller names none (rule 1 of the module doc)."""
    return LDST_INSTRUCTIONS


def conversion_instructions(element_bits: int, hardware: SharedMemory) -> tuple[str, ...]:
    """The instructions a conversion's shared-memory round trip considers (rule 1 of the module doc)."""
    if not hardware.matrix_rows or element_bits > 32:
        return LDST_INSTRUCTIONS
    return LDST_INSTRUCTIONS + _MATRIX + (_MATRIX_TRANS if element_bits == 16 else ())


def instruction_preference(ins: Instruction) -> tuple[int, int, int]:
    """Rule 4's order among one side's instructions: ``st.shared``/``ld.shared`` first, then the matrix
    instructions without ``.trans`` (``.x4``, ``.x2``, ``.x1``), then those with it, in the same order."""
    return (int(ins.is_matrix), int(ins.trans), -ins.matrices)


def pair_preference(write: Instruction, read: Instruction) -> tuple:
    """Rule 4's order among instruction pairs whose best memories cost the same (wavefronts by the objective, then
    instructions): fewer matrix instructions, then the preferred write instruction, then the preferred read
    instruction (:func:`instruction_preference`).  Smaller is preferred."""
    return (int(write.is_matrix) + int(read.is_matrix), instruction_preference(write), instruction_preference(read))


class MemoryChoice(NamedTuple):
    """The memory a result gives out, and why: ``source`` is ``"standard"`` or ``"synthesized"``; ``name`` is the
    standard swizzle's name (``None`` for the synthesized memory)."""

    memory: LinearLayout
    source: str
    name: str | None
    reason: str


def choose_memory(synthesized: LinearLayout, ties: Sequence, cost: str) -> MemoryChoice:
    """Rule 3: the first standard swizzle of ``ties`` (``StandardScore`` values that cost exactly what the
    synthesized memory costs, wavefronts and instructions of both sides, in linlayout's order of preference),
    else the synthesized memory.  ``cost`` describes that cost for the reason (e.g. ``"16 + 16 wavefronts"``)."""
    for tie in ties:
        memory = LinearLayout.from_flat((("offset", synthesized.in_bits),), synthesized.out_dim_bits,
                                        (tie.swizzle.columns,))
        return MemoryChoice(memory, "standard", tie.swizzle.name,
                            f"standard swizzle {tie.swizzle.name} (the same cost as the synthesized optimum)")
    return MemoryChoice(synthesized, "synthesized", None,
                        f"the synthesized memory ({cost}): no standard swizzle costs the same")
