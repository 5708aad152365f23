"""Counting from layouts by brute force: the plan's addresses through the simulator.

:func:`simulate_wavefronts` takes the same arguments as
:func:`linlayout.count.closed_form.wavefronts`, lets the access plan
(:mod:`linlayout.count.plan`) choose the vector, the instructions and the
matrix grouping, generates every lane's byte address of every instruction
(:func:`lane_byte_offsets`, warp 0) and hands them to the address-level
simulator (:mod:`linlayout.count.simulate`).  The simulator applies the bank
rules to addresses without knowing the plan, so agreement between the two
counters checks the closed form; a padded memory, which is not linear, is
counted here only.

>>> from linlayout.core.layout import LinearLayout
>>> from linlayout.core.memory import padded
>>> col_read = LinearLayout({"lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 32})
>>> simulate_wavefronts(col_read, padded([32, 32], 1), 32, "load").wavefronts
1
"""

from __future__ import annotations

from ..core.layout import LinearLayout
from ..core.memory import PaddedLayout
from ..core.validate import check_int
from ..errors import AccessError
from ..hw import Instruction, SharedMemory
from .closed_form import WavefrontReport
from .plan import AccessPlan, Memory, plan_access
from .query import AccessQuery
from .simulate import simulate_access, simulate_batch

__all__ = ["lane_byte_offsets", "simulate_wavefronts", "simulate_plan"]


def instruction_byte_offsets(plan: AccessPlan, memory: Memory, layout: LinearLayout | None = None,
                             limit: int | None = None) -> list[list[int]]:
    """Every instruction's lane byte offsets for warp 0 of a planned access (the first ``limit`` when given).

    A linear memory uses the plan's offsets; a padded memory places each
    lane's tensor coordinates (through ``layout``) with its own pitch.
    """
    if not isinstance(memory, PaddedLayout):
        return plan.instruction_offsets(limit)
    if layout is None:
        raise AccessError("a padded memory needs the distributed layout to place each lane's element")
    eb = plan.element_bits
    has_reg = "register" in layout.in_sizes
    out = []
    for row in plan.lane_inputs(limit):
        vals = []
        for reg, lane in row:
            coords = layout.apply({"register": reg, "lane": lane} if has_reg else {"lane": lane})
            vals.append((memory.offset(coords) * eb) >> 3)
        out.append(vals)
    return out


def lane_byte_offsets(
    layout: LinearLayout | AccessQuery,
    memory: Memory | None = None,
    element_bits: int | None = None,
    op: str | None = None,
    instruction: str | Instruction | None = None,
    vector_bits: int | None = None,
    hardware: str | SharedMemory | None = "sm90",
    *,
    limit: int | None = None,
) -> list[list[int]]:
    """Every instruction's lane byte offsets for warp 0, as :func:`simulate_wavefronts` feeds the simulator.

    Same arguments as :func:`simulate_wavefronts`; ``limit`` keeps only the
    first instructions (the CLI prints the first one).  For ``.xN`` matrix
    instructions, lanes ``8j..8j+7`` hold the row addresses of matrix ``j``
    and the unused lanes repeat lane 0.

    >>> from linlayout.catalog.swizzles import unswizzled
    >>> L = LinearLayout({"lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]}, {"dim0": 1, "dim1": 32})
    >>> lane_byte_offsets(L, unswizzled([1, 32]), 32, "store")[0][:4]
    [0, 4, 8, 12]
    >>> lane_byte_offsets(AccessQuery(L, unswizzled([1, 32]), 32, "store"), limit=1)[0][:4]
    [0, 4, 8, 12]
    """
    if limit is not None:
        check_int(limit, "limit (how many instructions to list, or None for all)", minimum=1)
    plan = plan_access(layout, memory, element_bits, op, instruction, vector_bits, hardware)
    if type(layout) is AccessQuery:
        layout, memory = layout.layout, layout.memory
    return instruction_byte_offsets(plan, memory, layout, limit)


def simulate_wavefronts(
    layout: LinearLayout | AccessQuery,
    memory: Memory | None = None,
    element_bits: int | None = None,
    op: str | None = None,
    instruction: str | Instruction | None = None,
    vector_bits: int | None = None,
    hardware: str | SharedMemory | None = "sm90",
) -> WavefrontReport:
    """Wavefronts of warp 0 by brute force: every lane address through the simulator.

    Same arguments as :func:`~linlayout.count.closed_form.wavefronts`; also
    accepts a padded memory (:func:`linlayout.core.memory.padded`).  The
    vector, instruction registers and matrix grouping come from the same
    access plan as the closed form's (for a padded memory, from its unpadded
    reference), so the two agree on every linear layout.  Takes one
    :class:`~linlayout.count.query.AccessQuery` instead of the arguments too.
    """
    plan = plan_access(layout, memory, element_bits, op, instruction, vector_bits, hardware)
    if type(layout) is AccessQuery:
        layout, memory = layout.layout, layout.memory
    return simulate_plan(plan, memory, layout)


def simulate_plan(plan: AccessPlan, memory: Memory, layout: LinearLayout | None = None) -> WavefrontReport:
    """Simulate every instruction of a planned access (warp 0); ``per_instruction`` holds each count.

    ``layout`` is needed for a padded memory (to place each lane's element).
    """
    import numpy as np

    shape = plan.shape
    element_bits = shape.element_bits
    hw = shape.hardware
    ins = shape.instruction
    offs = instruction_byte_offsets(plan, memory, layout)
    try:
        counts = simulate_batch(ins.name, ins.op, shape.access_bytes, np.array(offs, dtype=np.int64), hw).tolist()
    except AccessError as e:
        raise AccessError(f"the layout and memory give a misaligned access: {e}") from None
    first = simulate_access(ins.name, ins.op, shape.access_bytes, offs[0], hw)
    passes = len(first.passes)
    return WavefrontReport(
        wavefronts=sum(counts),
        instructions=len(counts),
        wavefronts_per_instruction=max(counts),
        passes_per_instruction=passes,
        ideal_wavefronts=len(counts) * passes,
        vector_bits=shape.vector_bits,
        access_bytes=shape.access_bytes,
        element_bits=element_bits,
        instruction=ins.name,
        op=ins.op,
        hardware=hw.name,
        method="simulation",
        conflict_ways=max(p.wavefronts for p in first.passes) if first.passes else 1,
        vector_registers=plan.vector_registers,
        instruction_registers=plan.issue_registers,
        pass_lane_bits=first.pass_lane_bits,
        merged_passes=first.merged,
        per_instruction=tuple(counts),
    )
