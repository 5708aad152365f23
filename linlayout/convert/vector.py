"""``max_vector``: the widest shared-memory access of a layout once its registers may be permuted (paper §5.1).

A lane moves ``2^k`` contiguous elements in one ``ld/st.shared`` when ``k``
of its registers hold offsets ``1, 2, 4, ...`` (in any order) and nothing else
touches those offset bits -- the access plan's rule
(:func:`linlayout.count.plan.widest_vector`, which already allows any
register order).  The compiler then renumbers the registers so the vector's
registers come first, lowest offset first: that renumbering is the
``permutation`` returned here (new register bit ``i`` = old bit
``permutation[i]``), Triton's ``getNumConsecutiveInOut`` / ``largestVectorisation``.

>>> from linlayout.core.layout import LinearLayout
>>> from linlayout.core.memory import unswizzled
>>> L = LinearLayout({"register": [[1, 0], [0, 2], [0, 1]], "lane": [[0, 4], [0, 8], [0, 16], [2, 0], [4, 0]]},
...                  {"dim0": 8, "dim1": 32})
>>> v = max_vector(L, unswizzled([8, 32]), 32)
>>> v.bits, v.permutation, v.instruction
(128, (2, 1, 0), 'ld.shared.v4.b32')
"""

from __future__ import annotations

from ..core.layout import LinearLayout
from ..core.record import record
from ..count.plan import Memory, plan_access

__all__ = ["VectorAccess", "max_vector"]


@record
class VectorAccess:
    """The widest access: its width in bits, the register renumbering and the PTX instruction."""

    bits: int
    elements: int
    permutation: tuple[int, ...]
    instruction: str
    layout: LinearLayout  # the layout with its registers renumbered

    def to_dict(self) -> dict:
        return {"bits": self.bits, "elements": self.elements, "permutation": list(self.permutation),
                "instruction": self.instruction}


def _ptx(op: str, nbytes: int) -> str:
    base = "ld.shared" if op == "load" else "st.shared"
    if nbytes < 4:
        return f"{base}.b{nbytes * 8}"
    words = nbytes // 4
    return f"{base}.b32" if words == 1 else f"{base}.v{words}.b32"


def max_vector(layout: LinearLayout, memory: Memory, element_bits: int, op: str = "load",
               hardware="sm90") -> VectorAccess:
    """The widest ``ld/st.shared`` access of ``layout`` on ``memory`` after renumbering registers.

    Raises the access plan's errors (:class:`~linlayout.errors.InputError`) on bad input.
    """
    plan = plan_access(layout, memory, element_bits, op, None, None, hardware)
    vec = tuple(plan.vector_registers)
    nreg = len(layout.bases.get("register", []))
    perm = vec + tuple(i for i in range(nreg) if i not in vec)
    regs = layout.bases.get("register", [])
    bases = {d: (list(v) if d != "register" else [regs[i] for i in perm]) for d, v in layout.bases.items()}
    renumbered = LinearLayout(bases, layout.out_sizes)
    nbytes = plan.access_bytes
    return VectorAccess(nbytes * 8, 1 << len(vec), perm, _ptx(op, nbytes), renumbered)
