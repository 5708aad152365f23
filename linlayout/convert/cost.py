"""The cost model of conversion plans: issue slots per warp (see :mod:`linlayout.convert.plan`).

>>> cost_of({"shfl.sync": 1, "selp": 3})
10
"""

from __future__ import annotations

__all__ = ["COST_WEIGHTS", "cost_of"]

COST_WEIGHTS = {"selp": 2, "prmt": 2, "mov": 2, "shfl.sync": 4, "shared_instruction": 2, "wavefront": 4,
                "bar.sync": 16, "bar.warp.sync": 2}
"""Weights of the cost model, in quarter SM cycles per warp instruction (see :mod:`linlayout.convert.plan`).

Throughputs per SM and clock on compute capability 9.0 (CUDA C++ Programming
Guide, arithmetic instructions table): 64 results for 32-bit integer
compare/select/logical operations (``selp``, ``prmt``, ``mov``: half an SM
cycle per warp instruction, weight 2) and 32 for warp shuffles (one cycle,
weight 4); shared memory serves one wavefront per SM cycle (weight 4) and
takes a load/store into its queue at about two per cycle (weight 2 per
instruction).  ``bar.sync`` (16) stands for the wait of a CTA barrier; it is
a guess, not a throughput.
"""


def opcode(name: str) -> str:
    """The PTX opcode family of an instruction name (``stmatrix.x4`` → ``stmatrix``)."""
    return name.split(".")[0] if name.startswith(("stmatrix", "ldmatrix")) else name


def cost_of(instructions: dict[str, int], wavefronts: dict[str, int] | None = None) -> int:
    """The cost model applied to per-thread instruction counts and per-warp wavefronts.

    >>> cost_of({"shfl.sync": 2, "selp": 3})
    14
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


def packing(words: int, element_bits: int, side: str) -> dict[str, int]:
    """Instructions to pack narrow elements into (``side="pack"``) or out of (``"unpack"``) 32-bit words.

    ``n = 32 / element_bits`` elements share a word.  Packing takes ``n - 1``
    ``prmt`` per word; unpacking 16-bit halves is one ``mov.b32 {lo, hi}``
    per word, unpacking bytes ``n - 1`` ``prmt`` (the low byte is the word).
    Nothing for 32- and 64-bit elements.

    >>> packing(4, 16, "pack"), packing(4, 16, "unpack"), packing(2, 8, "unpack"), packing(3, 32, "pack")
    ({'prmt': 4}, {'mov': 4}, {'prmt': 6}, {})
    """
    n = 32 // element_bits if element_bits < 32 else 1
    if n == 1 or words == 0:
        return {}
    if side == "unpack" and n == 2:
        return {"mov": words}
    return {"prmt": words * (n - 1)}


def merge(*counts: dict[str, int]) -> dict[str, int]:
    """Add instruction counts.

    >>> merge({"selp": 1}, {"selp": 2, "prmt": 1})
    {'selp': 3, 'prmt': 1}
    """
    out: dict[str, int] = {}
    for c in counts:
        for k, v in c.items():
            if v:
                out[k] = out.get(k, 0) + v
    return out
