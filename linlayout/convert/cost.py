"""The cost model of conversion plans: sixteenths of an SM cycle per warp, measured (see :mod:`linlayout.convert.plan`).

>>> cost_of({"shfl.sync": 1, "selp": 3})
68
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["COST_WEIGHTS", "cost_of"]

COST_WEIGHTS = {
    # Fitted on the H100 by ``python tools/convert_costmodel_fit.py benchmarks/results/convert_costmodel``
    # (data: benchmarks/results/convert_costmodel/retimed/; fit.json holds the fit): SM cycles per warp x 16, rounded.
    "selp": 11, "prmt": 11, "mov": 11,   # one ALU weight for the three: 0.693 SM cycles per warp instruction
    "shfl.sync": 6,                      # 0.358 SM cycles
    "shared_instruction": 4,             # 0.25, the floor: one issue slot (the fit rests on it)
    "wavefront": 6,                      # 0.367 SM cycles per wavefront (write + read)
    "bar.sync": 7,                       # 0.414 SM cycles per executed barrier (executed_barriers)
    "bar.warp.sync": 4,                  # 0.25, the floor
    "spill": 9,                          # 0.557 SM cycles per 4-byte word ptxas spills (stores + loads)
    "shuffle_path": 29,                  # 1.794 SM cycles, once for a plan with any shfl.sync
    "shared_memory_path": 8,             # 0.501 SM cycles, once for a plan with any shared-memory instruction
}
"""Weights of the cost model, in sixteenths of an SM cycle per warp (see :mod:`linlayout.convert.plan`).

Measured, not taken from throughput tables: 583 plans (shuffles, shared
memory in 1, 2 and 4 reps) of 240 conversions were timed on an H100 in a
throughput harness (every SM full of CTAs, the conversion in a loop that
the compiler does not unroll, ``tools/convert_costmodel_harness.py
--unroll 1``) and the weights fitted by least squares of the relative
error, every instruction at least one issue slot (a quarter SM cycle),
then rounded to sixteenths of a cycle (``python
tools/convert_costmodel_fit.py benchmarks/results/convert_costmodel``; the
data and the fit are in ``benchmarks/results/convert_costmodel/retimed/``
and ``fit.json``).  A cost is an estimate of the SM cycles per warp times
16 when the SMs are full: a sum of per-warp counts times their weights,
plus a constant per path -- ``shuffle_path`` once for a plan with any
``shfl.sync``, ``shared_memory_path`` once for a plan with any
shared-memory instruction (the latency of a round trip, which the counts
do not see).

On the pairs of plans of one conversion whose times differ by more than
10%, these weights order 230 of 238 (96.6%) as the clock does, 228
(95.8%) under 5-fold cross-validation and 230 (96.6%) leaving one
conversion out (each fold's fit rounded to sixteenths); the previous
weights (quarter cycles, no path constants) ordered 224 (94.1%).  The
model was chosen on these same timings among the 17 candidates of
``tools/convert_costmodel_candidates.py`` (``candidates.md``: feature
sets, busiest-pipe models, two fits, three roundings): cross-validation
holds out the fit, not that choice.
On other timings it orders less: the same plans timed with the compiler
unrolling the loop 1 to 16 times, 221 of 240 (92.1%); the first harness
(an older planner's plans, unrolled), 192 of 213 (90.1%); the 38 8-bit
pairs against Triton's staging (``more_reps_than_triton/``), 12 of 22.
Rounded to quarter cycles the same model orders only 223 of 238 (93.7%),
hence sixteenths.  The SASS actually executed orders 235 (98.7%).

``spill`` applies only where spilled words are known (``cost_of``'s
``spilled_words``, from ``ptxas -v``): a plan does not know how ptxas will
allocate registers, so the planner passes none.
"""

SHARED_MEMORY_OPS = ("st.shared", "ld.shared", "stmatrix", "ldmatrix")
"""Opcode families (:func:`opcode`) of the shared-memory instructions: ``shared_instruction`` each."""


@lru_cache(maxsize=None)  # a few dozen instruction names; read per count wherever counts are merged by family
def opcode(name: str) -> str:
    """The PTX opcode family of an instruction name (``stmatrix.x4`` → ``stmatrix``)."""
    return name.split(".")[0] if name.startswith(("stmatrix", "ldmatrix")) else name


BARRIER_OPS = ("bar.sync", "bar.warp.sync")
"""The barriers a plan counts: each executed once more than counted (:func:`executed_barriers`)."""


@lru_cache(maxsize=None)  # a few dozen instruction names; cost_of reads one per count, about ten plans per conversion
def role(name: str) -> str:
    """What an instruction name is to the cost model: ``"shared"`` (:data:`SHARED_MEMORY_OPS`, one
    ``shared_instruction`` each), ``"barrier"`` (:data:`BARRIER_OPS`), ``"shuffle"`` (``shfl.sync``) or
    ``"other"`` (its own weight).

    >>> role("ldmatrix.x4.trans"), role("bar.sync"), role("shfl.sync"), role("selp")
    ('shared', 'barrier', 'shuffle', 'other')
    """
    op = opcode(name)
    return "shared" if op in SHARED_MEMORY_OPS else "barrier" if op in BARRIER_OPS else \
        "shuffle" if op == "shfl.sync" else "other"


def executed(barriers: int) -> int:
    """How many times a barrier the plan counts ``barriers`` times runs: one more, for the caller
    (:func:`executed_barriers`), where the plan has any."""
    return barriers + 1 if barriers else 0


def executed_barriers(instructions: dict[str, int]) -> dict[str, int]:
    """The barriers a shared-memory round trip costs where it runs: the plan's and the one its caller owes.

    A plan counts the barriers inside the conversion (``2 reps - 1``); before
    the scratch is written again (the next conversion, the next iteration of
    a loop) the caller needs one more of the same kind -- Triton's membar
    pass inserts it.  The timings the weights were fitted on include it.

    >>> executed_barriers({"st.shared": 1, "ld.shared": 1, "bar.sync": 3}), executed_barriers({"shfl.sync": 2})
    ({'bar.sync': 4}, {})
    """
    return {op: executed(instructions[op]) for op in BARRIER_OPS if instructions.get(op, 0)}


def cost_of(instructions: dict[str, int], wavefronts: dict[str, int] | None = None, spilled_words: int = 0) -> int:
    """The cost model applied to per-thread instruction counts and per-warp wavefronts, in sixteenth SM cycles.

    Barriers count as executed (:func:`executed_barriers`: the plan's and
    the one its caller owes); ``spilled_words`` are 4-byte words ptxas
    spills (stores plus loads), where known.  A plan with any ``shfl.sync``
    adds ``shuffle_path`` once, one with any shared-memory instruction
    ``shared_memory_path`` once (:data:`COST_WEIGHTS`).

    >>> cost_of({"shfl.sync": 2, "selp": 3})
    74
    >>> cost_of({"st.shared": 1, "ld.shared": 1, "bar.sync": 1}, {"write": 1, "read": 1})
    42
    >>> cost_of({"shfl.sync": 2}, spilled_words=10), cost_of({})
    (131, 0)
    """
    # One pass over the counts (a plan is priced about ten times, a candidate at a time): each count's weight by
    # its role, barriers as executed, and the roles present, which owe the path constants (paths_of).
    w = COST_WEIGHTS
    c = 0
    present = set()
    for op, n in instructions.items():
        r = role(op)
        if n:
            present.add(r)
        c += w["shared_instruction"] * n if r == "shared" else w[op] * (executed(n) if r == "barrier" else n)
    if wavefronts:
        c += w["wavefront"] * (wavefronts["write"] + wavefronts["read"])
    return c + sum(w[p] for p in path_constants(present)) + w["spill"] * spilled_words


def paths_of(instructions: dict[str, int]) -> tuple[str, ...]:
    """The path constants of :data:`COST_WEIGHTS` a plan's counts owe: ``shuffle_path`` where it shuffles,
    ``shared_memory_path`` where it stores to or loads from shared memory (both for a plan that does both).

    >>> paths_of({"shfl.sync": 2, "selp": 1}), paths_of({"stmatrix.x4": 1, "ld.shared": 2}), paths_of({"selp": 0})
    (('shuffle_path',), ('shared_memory_path',), ())
    """
    return path_constants({role(op) for op, n in instructions.items() if n})


def path_constants(roles: set[str]) -> tuple[str, ...]:
    """:func:`paths_of` from the :func:`role` of every instruction a plan has."""
    return (("shuffle_path",) if "shuffle" in roles else ()) + (("shared_memory_path",) if "shared" in roles else ())


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


def packing_cost(words: int, element_bits: int, side: str) -> int:
    """:func:`cost_of` of :func:`packing`'s counts: ALU instructions,
    each at its own weight (they owe no path constant), summed without pricing a plan.

    >>> packing_cost(4, 16, "pack") == cost_of(packing(4, 16, "pack"))
    True
    """
    return sum(COST_WEIGHTS[op] * n for op, n in packing(words, element_bits, side).items())


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
