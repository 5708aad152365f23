"""The cost model of conversion plans: issue slots per warp (see :mod:`linlayout.convert.plan`).

>>> cost_of({"shfl.sync": 1, "selp": 3})
7
"""

from __future__ import annotations

__all__ = ["COST_WEIGHTS", "cost_of", "opcode"]

COST_WEIGHTS = {"selp": 1, "prmt": 1, "mov": 1, "shfl.sync": 4, "shared_instruction": 2, "wavefront": 4,
                "bar.sync": 16}
"""Issue-slot weights of the cost model (see the module doc)."""


def opcode(name: str) -> str:
    """The PTX opcode family of an instruction name (``stmatrix.x4`` → ``stmatrix``)."""
    return name.split(".")[0] if name.startswith(("stmatrix", "ldmatrix")) else name


def cost_of(instructions: dict[str, int], wavefronts: dict[str, int] | None = None) -> int:
    """The cost model applied to per-thread instruction counts and per-warp wavefronts.

    >>> cost_of({"shfl.sync": 2, "selp": 3})
    11
    >>> cost_of({"st.shared": 1, "ld.shared": 1, "bar.sync": 1}, {"write": 1, "read": 1})
    28
    """
    c = 0
    for op, n in instructions.items():
        op = opcode(op)
        if op in ("st.shared", "ld.shared", "stmatrix", "ldmatrix"):
            c += COST_WEIGHTS["shared_instruction"] * n
        else:
            c += COST_WEIGHTS[op] * n
    if wavefronts:
        c += COST_WEIGHTS["wavefront"] * (wavefronts["write"] + wavefronts["read"])
    return c
