"""The cost model of conversion plans: issue slots per warp (see :mod:`linlayout.convert.plan`).

>>> cost_of({"shfl.sync": 1, "selp": 3})
12
"""

from __future__ import annotations

__all__ = ["COST_WEIGHTS", "cost_of"]

COST_WEIGHTS = {
    # Fitted on the H100 (tools/convert_costmodel_fit.py on benchmarks/results/convert_costmodel/: timing1.txt,
    # timing2.txt, variants.json, ptxas.json, check_table.json; fit.json holds the fit): SM cycles per warp x 4, rounded.
    "selp": 3, "prmt": 3, "mov": 3,   # one ALU weight for the three: 0.671 SM cycles per warp instruction
    "shfl.sync": 3,                   # 0.618 SM cycles, the ALU's weight: within 10% of it (fit's integer_weights)
    "shared_instruction": 1,          # 0.25, the floor: one issue slot (the fit would give 0, collinear with wavefronts)
    "wavefront": 2,                   # 0.506 SM cycles per wavefront (write + read)
    "bar.sync": 2,                    # 0.480 SM cycles per executed barrier (executed_barriers: plan's + the caller's)
    "bar.warp.sync": 1,               # 0.25, the floor
    "spill": 1,                       # 0.351 SM cycles per 4-byte word ptxas spills (stores + loads)
}
"""Weights of the cost model, in quarter SM cycles per warp (see :mod:`linlayout.convert.plan`).

Measured, not taken from throughput tables: 568 plans (shuffles, shared
memory in 1, 2 and 4 reps) of 240 conversions were timed on an H100 in a
throughput harness (every SM full of CTAs, the conversion in a loop,
``tools/convert_costmodel_harness.py``) and the weights fitted by least
squares of the relative error, every instruction at least one issue slot
(a quarter SM cycle) (``tools/convert_costmodel_fit.py``; the data and the
fit are in ``benchmarks/results/convert_costmodel/``).  A cost is an
estimate of the SM cycles per warp times four when the SMs are full.  On
the pairs of plans of one conversion whose times differ by more than 10%,
the model orders 190 of 213 (89.2%) as the clock does (the fitted
weights before rounding 189, 88.7%), 188 of 213 (88.3%) under 5-fold
cross-validation and 190 of 213 leaving one conversion out (rounded
weights); the weights before the fit (ALU 2,
``shfl.sync`` 4, shared instruction 2, wavefront 4, ``bar.sync`` 16)
ordered 110 of 213 (51.6%).  That is short of the 95% issue 25 asks for;
no other feature set a plan could supply did better than 91% cross-validated
on those timings (``tools/convert_costmodel_candidates.py``, ``candidates.md``).
Part of that shortfall was the harness: the compiler unrolled its loop 1 to
16 times depending on the kernel, so the loop's own overhead differed
between the paths of one conversion.  Re-timed with the loop not unrolled
(``retimed/``: today's plans, 238 pairs), these weights order 224 (94.1%)
and the same features refitted 226 (94.96%, also left one conversion out);
a constant per path (a plan with shuffles, one with shared memory) brings
it to 230 (96.6%) left one conversion out, but only with weights in
sixteenths of a cycle -- rounded to quarter cycles it falls to 223 (93.7%).
The SASS actually executed orders 235 (98.7%).

``spill`` applies only where spilled words are known (``cost_of``'s
``spilled_words``, from ``ptxas -v``): a plan does not know how ptxas will
allocate registers, so the planner passes none.
"""


def opcode(name: str) -> str:
    """The PTX opcode family of an instruction name (``stmatrix.x4`` → ``stmatrix``)."""
    return name.split(".")[0] if name.startswith(("stmatrix", "ldmatrix")) else name


def executed_barriers(instructions: dict[str, int]) -> dict[str, int]:
    """The barriers a shared-memory round trip costs where it runs: the plan's and the one its caller owes.

    A plan counts the barriers inside the conversion (``2 reps - 1``); before
    the scratch is written again (the next conversion, the next iteration of
    a loop) the caller needs one more of the same kind -- Triton's membar
    pass inserts it.  The timings the weights were fitted on include it.

    >>> executed_barriers({"st.shared": 1, "ld.shared": 1, "bar.sync": 3}), executed_barriers({"shfl.sync": 2})
    ({'bar.sync': 4}, {})
    """
    return {op: instructions[op] + 1 for op in ("bar.sync", "bar.warp.sync") if instructions.get(op, 0)}


def cost_of(instructions: dict[str, int], wavefronts: dict[str, int] | None = None, spilled_words: int = 0) -> int:
    """The cost model applied to per-thread instruction counts and per-warp wavefronts.

    Barriers count as executed (:func:`executed_barriers`: the plan's and
    the one its caller owes); ``spilled_words`` are 4-byte words ptxas
    spills (stores plus loads), where known.

    >>> cost_of({"shfl.sync": 2, "selp": 3})
    15
    >>> cost_of({"st.shared": 1, "ld.shared": 1, "bar.sync": 1}, {"write": 1, "read": 1})
    10
    >>> cost_of({"shfl.sync": 2}, spilled_words=10)
    16
    """
    c = 0
    barriers = executed_barriers(instructions)
    for op, n in instructions.items():
        op = opcode(op)
        if op in ("st.shared", "ld.shared", "stmatrix", "ldmatrix"):
            c += COST_WEIGHTS["shared_instruction"] * n
        elif op in barriers:
            c += COST_WEIGHTS[op] * barriers[op]
        else:
            c += COST_WEIGHTS[op] * n
    if wavefronts:
        c += COST_WEIGHTS["wavefront"] * (wavefronts["write"] + wavefronts["read"])
    return c + COST_WEIGHTS["spill"] * spilled_words


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
