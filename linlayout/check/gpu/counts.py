"""A layout-level access planned once and counted per instruction by the library's counters.

Concepts
========

To measure a layout-level query on a GPU, every instruction of warp 0 must
become a probe with its lane byte offsets and two predictions: the closed
form and the simulator.  :func:`~linlayout.count.closed_form.wavefronts`,
:func:`~linlayout.count.by_simulation.simulate_wavefronts` and
:func:`~linlayout.count.by_simulation.lane_byte_offsets` each plan the
access themselves; :func:`count_layout_query` plans it once
(:func:`~linlayout.count.plan.plan_access`, the one access rule) and
evaluates that plan with the counters' plan-level entry points:

* lane byte offsets: :func:`~linlayout.count.by_simulation.instruction_byte_offsets`
  (a padded memory places each lane's element with its own pitch);
* simulator: :func:`~linlayout.count.by_simulation.simulate_plan`, one count
  per instruction;
* closed form: :func:`~linlayout.count.closed_form.count_plan` (every
  instruction of a linear access costs the same).  A padded memory is not
  linear: no closed form.

So the counts are those of the three counters, by construction and by test:

>>> from linlayout.core.layout import LinearLayout
>>> from linlayout.catalog.swizzles import unswizzled
>>> from linlayout.count.closed_form import wavefronts
>>> from linlayout.count.by_simulation import lane_byte_offsets, simulate_wavefronts
>>> read = LinearLayout({"register": [[0, 2], [0, 4], [0, 8], [0, 16]],
...                      "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]}, {"dim0": 16, "dim1": 32})
>>> args = (read, unswizzled([16, 32]), 32, "load")
>>> c = count_layout_query(*args)
>>> c.closed_form, c.simulated[:3], len(c.simulated)
(16, (16, 16, 16), 16)
>>> c.closed_form == wavefronts(*args).wavefronts_per_instruction
True
>>> c.simulated == simulate_wavefronts(*args).per_instruction
True
>>> [list(o) for o in c.lane_byte_offsets] == lane_byte_offsets(*args)
True

API: :class:`LayoutQueryCounts`, :func:`count_layout_query`.
"""

from __future__ import annotations


from ...core.layout import LinearLayout
from ...core.memory import PaddedLayout
from ...core.record import record
from ...count.by_simulation import instruction_byte_offsets, simulate_plan
from ...count.closed_form import count_plan
from ...count.plan import AccessPlan, Memory, plan_access
from ...count.query import AccessQuery
from ...hw import Instruction, SharedMemory

__all__ = ["LayoutQueryCounts", "count_layout_query"]


@record
class LayoutQueryCounts:
    """Warp 0's instructions of a layout-level access, from one plan.

    ``lane_byte_offsets[k]`` are instruction ``k``'s 32 lane byte offsets,
    ``simulated[k]`` its simulated wavefronts and ``closed_form`` the closed
    form per instruction (``None`` for a padded memory).  ``instruction``,
    ``op`` and ``access_bytes`` describe every instruction.
    """

    plan: AccessPlan
    lane_byte_offsets: tuple[tuple[int, ...], ...]
    closed_form: int | None
    simulated: tuple[int, ...]

    @property
    def instruction(self) -> str:
        return self.plan.instruction.name

    @property
    def op(self) -> str:
        return self.plan.instruction.op

    @property
    def access_bytes(self) -> int:
        return self.plan.access_bytes


def count_layout_query(
    layout: LinearLayout | AccessQuery,
    memory: Memory | None = None,
    element_bits: int | None = None,
    op: str | None = None,
    instruction: str | Instruction | None = None,
    vector_bits: int | None = None,
    hardware: str | SharedMemory | None = "sm90",
) -> LayoutQueryCounts:
    """Plan a layout-level access once and count every instruction of warp 0 (closed form and simulator).

    Same arguments as :func:`~linlayout.count.closed_form.wavefronts` (a
    padded memory is accepted) and the same errors as
    :func:`~linlayout.count.by_simulation.simulate_wavefronts`: planning
    errors (``LoweringError``, ``SizeError``, ...) and :class:`AccessError`
    when the memory makes an access misaligned.  Takes one
    :class:`~linlayout.count.query.AccessQuery` instead of the arguments too.
    """
    plan = plan_access(layout, memory, element_bits, op, instruction, vector_bits, hardware)
    if type(layout) is AccessQuery:
        layout, memory = layout.layout, layout.memory
    offs = instruction_byte_offsets(plan, memory, layout)
    simulated = simulate_plan(plan, memory, layout)
    closed = None if isinstance(memory, PaddedLayout) else count_plan(plan).wavefronts_per_instruction
    return LayoutQueryCounts(plan, tuple(tuple(o) for o in offs), closed, simulated.per_instruction)
