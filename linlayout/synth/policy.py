"""The default policy: what linlayout decides when the caller does not say.

Four choices have a default, and this module is the only place that makes
them.  ``linlayout swizzle``, ``linlayout convert``, ``linlayout lint`` and
the API (:func:`~linlayout.synth.synthesis.optimal_swizzle`,
:func:`~linlayout.convert.plan.plan_conversion`) ask it rather than deciding.

1. **The instructions considered** (:func:`default_instructions`), one set
   for every question about a write and a read through shared memory:
   ``swizzle``, ``optimal_swizzle``, ``lint``'s optimum of a buffer,
   ``convert``'s round trip and ``lint``'s suggested plan of a
   ``convert_layout`` (issue 26: ``swizzle`` used to consider ld/st only,
   so the same layouts got different memories from different commands).
   The set is ``st.shared`` and ``ld.shared``, plus every
   ``stmatrix``/``ldmatrix`` ``.x4``, ``.x2``, ``.x1`` (and ``.x4.trans``)
   that the hardware model lets move these elements
   (:func:`~linlayout.count.matrix_tile.matrix_tile`: on ``sm90``, 8- to
   32-bit elements, ``.trans`` for 16-bit ones only; none where the model
   has no matrix instructions, ``matrix_rows=0``).  The synthesizer visits
   the instruction pairs cheapest floor first and stops as soon as no
   remaining pair can beat the best found
   (:func:`linlayout.synth.search.search_pairs`), so a matrix pair that
   cannot win costs a table look-up and, at most, its tile.  Its proof of
   optimality covers the matrix instructions too (the relaxation bounds
   each pair under its tile).  Name ``instructions`` (or
   ``"instructions"`` in a JSON query) to narrow the set, e.g. to
   ``st.shared`` and ``ld.shared``.
2. **The objective** (:data:`DEFAULT_OBJECTIVE`): ``"balanced"``, the larger
   side's wavefronts first, then the sum, then the instruction count.
3. **The instruction pair among equal-cost ones** (:func:`pair_preference`).
   The synthesizer's key is the objective on the wavefronts, then the
   number of instructions (both sides), then, among pairs whose best
   memories tie on both: fewer matrix instructions (ld/st first), then the
   preferred write instruction, then the preferred read instruction
   (:func:`instruction_preference`: ``st``/``ld.shared``, ``.x4``, ``.x2``,
   ``.x1``, then the ``.trans`` forms in the same order).  Within one pair,
   the synthesizer's construction order decides (the widest common vector,
   the first extension order, then enumeration order).  The rule is on the
   pairs, not on the order the search visits them, so the answer does not
   depend on that order, nor on the order of a caller's ``instructions``.
4. **The memory among equal-cost ones** (:func:`choose_memory`).  The
   synthesized memory is one of many with the same cost.  Where a memory is
   given to a person or to code (``swizzle``'s text, every ``--emit`` form,
   :attr:`SwizzleResult.emitted <linlayout.synth.result.SwizzleResult.emitted>`),
   the first standard swizzle that costs exactly the same on both sides
   (wavefronts and instructions, with the result's instruction pair) is
   chosen, in the order of preference of :mod:`linlayout.synth.standard`
   (TMA/NVMMA modes, unswizzled, Triton's swizzled layouts, CuTe swizzles),
   because downstream tools spell those; otherwise the synthesized memory.
   The choice says which memory and instruction pair it emits and why
   (:class:`MemoryChoice`).  Scoring the standard swizzles takes tens to
   hundreds of milliseconds, so the planners that only count with a memory
   (``convert``'s scratch layout, ``lint``'s optimum) keep the synthesized
   one: it costs the same by construction.

>>> from linlayout.hw import get_hardware
>>> default_instructions(16, get_hardware("sm90"))
('st.shared', 'ld.shared', 'stmatrix.x4', 'stmatrix.x2', 'stmatrix.x1', 'ldmatrix.x4', 'ldmatrix.x2', 'ldmatrix.x1', 'stmatrix.x4.trans', 'ldmatrix.x4.trans')
>>> default_instructions(32, get_hardware("sm90"))[-1], default_instructions(4, get_hardware("sm90"))
('ldmatrix.x1', ('st.shared', 'ld.shared'))
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from ..core.layout import LinearLayout
from ..count.matrix_tile import matrix_tile
from ..errors import LoweringError
from ..hw import Instruction, SharedMemory, parse_instruction

__all__ = ["DEFAULT_OBJECTIVE", "LDST_INSTRUCTIONS", "MemoryChoice", "choose_memory", "conversion_instructions",
           "default_instructions", "instruction_preference", "instruction_reason", "pair_preference"]

DEFAULT_OBJECTIVE = "balanced"
"""The objective when none is given (see :data:`linlayout.synth.synthesis.OBJECTIVES`)."""

LDST_INSTRUCTIONS = ("st.shared", "ld.shared")
"""The plain vector accesses, always considered."""

_MATRIX = ("stmatrix.x4", "stmatrix.x2", "stmatrix.x1", "ldmatrix.x4", "ldmatrix.x2", "ldmatrix.x1")
_MATRIX_TRANS = ("stmatrix.x4.trans", "ldmatrix.x4.trans")


@lru_cache(maxsize=64)
def default_instructions(element_bits: int, hardware: SharedMemory) -> tuple[str, ...]:
    """The instructions considered when the caller names none, by every command and the API (rule 1 of the
    module doc): ld/st, then the matrix instructions the hardware model lets move ``element_bits``-bit elements."""
    movable = []
    for name in _MATRIX + _MATRIX_TRANS:
        try:
            matrix_tile(parse_instruction(name), element_bits, hardware)
        except LoweringError:
            continue
        movable.append(name)
    return LDST_INSTRUCTIONS + tuple(movable)


conversion_instructions = default_instructions
"""The same set (:func:`default_instructions`): a conversion's round trip asks the same question."""


def instruction_preference(ins: Instruction) -> tuple[int, int, int]:
    """Rule 3's order among one side's instructions: ``st.shared``/``ld.shared`` first, then the matrix
    instructions without ``.trans`` (``.x4``, ``.x2``, ``.x1``), then those with it, in the same order."""
    return (int(ins.is_matrix), int(ins.trans), -ins.matrices)


def pair_preference(write: Instruction, read: Instruction) -> tuple:
    """Rule 3's order among instruction pairs whose best memories cost the same (wavefronts by the objective, then
    instructions): fewer matrix instructions, then the preferred write instruction, then the preferred read
    instruction (:func:`instruction_preference`).  Smaller is preferred."""
    return (int(write.is_matrix) + int(read.is_matrix), instruction_preference(write), instruction_preference(read))


def instruction_reason(write: str, read: str, considered: int, rival: tuple[str, str, str] | None) -> str:
    """Why the pair ``write + read`` was chosen (rules 1 and 3), from the search's note (``SearchOutcome.pairs``:
    the number of pairs considered, and how the pair beats the best other pair scored, if any)."""
    pair = f"{write} + {read}"
    if considered == 1:
        return f"{pair}: the only instruction pair considered"
    if rival is None:
        return (f"{pair}: the cheapest of the {considered} instruction pairs considered (no other pair can cost "
                f"less: their floors are higher, or no memory serves them)")
    how, rw, rr = rival
    other = f"{rw} + {rr}"
    if how == "wavefronts":
        return f"{pair}: fewer wavefronts than {other}, the next best of the {considered} pairs considered"
    if how == "instructions":
        return (f"{pair}: the same wavefronts as {other} in fewer instructions (of the {considered} pairs "
                f"considered)")
    return (f"{pair}: the same cost as {other}; among equal costs the policy prefers fewer matrix instructions, "
            f"ld/st first, then .x4, .x2, .x1, then .trans (rule 3 of linlayout.synth.policy)")


class MemoryChoice(NamedTuple):
    """The memory a result gives out, and why: ``source`` is ``"standard"`` or ``"synthesized"``; ``name`` is the
    standard swizzle's name (``None`` for the synthesized memory); ``instructions`` the (write, read) instruction
    pair that memory is accessed with, and ``instructions_reason`` why that pair (:func:`instruction_reason`)."""

    memory: LinearLayout
    source: str
    name: str | None
    reason: str
    instructions: tuple[str, str] = ("st.shared", "ld.shared")
    instructions_reason: str = ""


def choose_memory(synthesized: LinearLayout, ties: Sequence, cost: str,
                  instructions: tuple[str, str] = ("st.shared", "ld.shared"), instructions_reason: str = "") -> MemoryChoice:
    """Rule 4: the first standard swizzle of ``ties`` (``StandardScore`` values that cost exactly what the
    synthesized memory costs, wavefronts and instructions of both sides, in linlayout's order of preference),
    else the synthesized memory.  ``cost`` describes that cost for the reason (e.g. ``"16 + 16 wavefronts"``);
    ``instructions`` and ``instructions_reason`` (the result's pair and why) are passed through."""
    for tie in ties:
        memory = LinearLayout.from_flat((("offset", synthesized.in_bits),), synthesized.out_dim_bits,
                                        (tie.swizzle.columns,))
        return MemoryChoice(memory, "standard", tie.swizzle.name,
                            f"standard swizzle {tie.swizzle.name} (the same cost as the synthesized optimum)",
                            instructions, instructions_reason)
    return MemoryChoice(synthesized, "synthesized", None,
                        f"the synthesized memory ({cost}): no standard swizzle costs the same", instructions,
                        instructions_reason)
