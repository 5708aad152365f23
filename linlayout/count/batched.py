"""The batched counter: one access counted over many memory layouts at once, in numpy.

Concepts
========

The closed form (:mod:`linlayout.count.closed_form`) counts one access on
one memory layout.  A sweep asks the same question for thousands of memory
layouts at a time, so this module evaluates the **same access plan**
(:mod:`linlayout.count.plan`) on arrays, one configuration per row:

1. **Memories.**  A memory layout (``offset`` → tensor) over ``n`` tensor
   bits is given by its ``n`` columns: column ``k`` is the tensor vector of
   offset basis ``k``, packed into one integer (output dimensions minor to
   major, as :meth:`LinearLayout.flat_bases` packs them).  An ``(c, n)``
   array holds ``c`` memories; :func:`memory_batch` inverts them all at once
   by Gaussian elimination on the rows' bit matrices
   (:func:`batch_inverse`) and marks the singular ones.
2. **Offsets.**  The access layout is given by the packed tensor images of
   its bases, per input dimension (``register``, ``lane``, ...).  Applying
   the inverse columns (:func:`apply_columns`) gives ``C = M⁻¹ ∘ L``, the
   element offset of every basis, per configuration.
3. **The plan.**  The shape (passes, instructions, within-pass generators)
   depends on the layout only through which bases are zero, so
   :func:`~linlayout.count.plan.access_shape` is called once per vector
   choice; the vector and the matrix tile use the plan's array rules
   :func:`~linlayout.count.plan.widest_vector_batch` and
   :func:`~linlayout.count.plan.matrix_tile_ok_batch`.  Nothing here
   re-derives a rule of the plan.
4. **The conflict rule.**  With ``T`` the byte images of the within-pass
   generators (pass-selecting lanes removed, or the 8 row generators of a
   matrix), ``P``, the colliding word directions, is the part of ``T`` with
   zero bank bits modulo same-word differences, and
   ``dim P = rank(T >> 2) - rank(bank bits of T >> 2)``
   (:func:`colliding_word_dims`), so one instruction costs
   ``passes * 2^dim P`` wavefronts.
5. **Simulation.**  The 32 lane byte offsets of every instruction (warp 0)
   are generated from the same generators (:func:`batch_span`) and counted
   by the address-level simulator
   :func:`~linlayout.count.simulate.simulate_batch`, the independent oracle.

Worked example: 32 lanes read every other fp32 element of a 64-element row
(lane bases 2, 4, 8, 16, 32).  On the plain memory the word addresses of
the lanes span bank bits 1-4 only, so ``dim P = 5 - 4 = 1`` (2 wavefronts);
the second memory stores element 32 at offset 33 (its offset basis 5 is
``32 ^ 1``), which moves lane 16's word into bank 1 and makes the read
conflict-free:

>>> import numpy as np
>>> from linlayout.hw import parse_instruction
>>> mem = memory_batch(np.array([[1, 2, 4, 8, 16, 32], [1, 2, 4, 8, 16, 33]]))
>>> r = count_batch(mem, {"lane": [2, 4, 8, 16, 32]}, 32, parse_instruction("ld.shared"))
>>> r.wavefronts.tolist(), [g.simulated.tolist() for g in r.groups]
([2, 1], [[[2], [1]]])

API
===

* F2 on arrays: :func:`batch_rank`, :func:`batch_span`,
  :func:`batch_inverse`, :func:`apply_columns`.
* The conflict rule: :func:`colliding_word_dims`.
* Counting: :func:`memory_batch` (:class:`MemoryBatch`), :func:`count_batch`
  (:class:`BatchCount`, :class:`InstructionGroup`); status codes
  :data:`COUNTED`, :data:`SINGULAR`, :data:`NOT_LOWERABLE`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core import f2
from ..core.record import record
from ..hw import Instruction, SharedMemory, get_hardware
from .plan import access_shape, matrix_tile, matrix_tile_ok_batch, vector_cap, widest_vector_batch

__all__ = ["batch_rank"]

COUNTED = 0
"""Status of a configuration whose access was counted."""
SINGULAR = 1
"""Status of a configuration whose memory is not invertible (two offsets on one element)."""
NOT_LOWERABLE = 2
"""Status of a configuration the instruction cannot access (the plan raises ``LoweringError``)."""
STATUS_NAMES = ("ok", "singular", "not lowerable")
"""The name of each status code, indexed by the code."""


# ---------------------------------------------------------------------------
# F2 on arrays
# ---------------------------------------------------------------------------


def batch_rank(vectors):  # -> numpy.ndarray
    """Rank over F2 of each row of an ``(n, k)`` integer array (the row's ``k`` vectors).

    Elimination with the lowest set bit as pivot: after vector ``i`` has been
    reduced by the earlier pivots, its lowest bit is cleared from every later
    vector, so the nonzero vectors left are independent.

    >>> import numpy as np
    >>> batch_rank(np.array([[1, 2, 3], [4, 4, 0], [0, 0, 0]])).tolist()
    [2, 1, 0]
    """
    import numpy as np

    v = np.array(vectors, dtype=np.int64, copy=True)
    k = v.shape[1]
    for i in range(k):
        p = v[:, i] & -v[:, i]
        for j in range(i + 1, k):
            v[:, j] ^= np.where(v[:, j] & p != 0, v[:, i], 0)
    return (v != 0).sum(axis=1)


def batch_span(generators):  # -> numpy.ndarray
    """Every XOR combination of ``g`` generators, per row: ``(c, g)`` → ``(c, 2^g)``.

    Bit ``i`` of the column index selects generator ``i``.

    >>> import numpy as np
    >>> batch_span(np.array([[1, 6], [4, 4]])).tolist()
    [[0, 1, 6, 7], [0, 4, 4, 0]]
    """
    import numpy as np

    out = np.zeros((generators.shape[0], 1), dtype=np.int64)
    for i in range(generators.shape[1]):
        out = np.concatenate([out, out ^ generators[:, i : i + 1]], axis=1)
    return out


def batch_inverse(columns):  # -> tuple[numpy.ndarray, numpy.ndarray]
    """F2 inverses of square matrices given by their columns: ``(inverse columns, invertible)``.

    ``columns`` is ``(c, n)``: row ``r`` holds the ``n`` columns of matrix
    ``r`` as ``n``-bit integers.  Returns the ``(c, n)`` columns of the
    inverses (meaningless where not invertible) and a bool array of ``c``.

    >>> import numpy as np
    >>> inv, ok = batch_inverse(np.array([[1, 3], [1, 1]]))
    >>> inv[0].tolist(), ok.tolist()
    ([1, 3], [True, False])
    """
    import numpy as np

    c, n = columns.shape
    sh = np.arange(n, dtype=np.int64)
    bits = (columns[:, :, None] >> sh[None, None, :]) & 1  # bits[:, j, r]: row r of column j
    rows = (bits << sh[None, :, None]).sum(axis=1)  # rows[:, r]: bit j = M[r, j]
    rows |= (np.int64(1) << (n + sh))[None, :]  # augmented with the identity
    ok = np.ones(c, dtype=bool)
    ar = np.arange(c)
    for p in range(n):
        b = (rows[:, p:] >> p) & 1
        ok &= b.any(axis=1)
        idx = p + b.argmax(axis=1)
        piv = rows[ar, idx].copy()
        rows[ar, idx] = rows[:, p].copy()
        rows[:, p] = piv
        hit = ((rows >> p) & 1).astype(bool)
        hit[:, p] = False
        rows ^= np.where(hit, piv[:, None], 0)
    inv_rows = rows >> n  # inv_rows[:, r]: bit k set when tensor bit k contributes to offset bit r
    inv_cols = (((inv_rows[:, None, :] >> sh[None, :, None]) & 1) << sh[None, None, :]).sum(axis=2)
    return inv_cols, ok


def apply_columns(columns, vector: int):  # -> numpy.ndarray
    """Per row, the XOR of the columns selected by the set bits of ``vector`` (a matrix times a vector).

    >>> import numpy as np
    >>> apply_columns(np.array([[1, 2, 4], [3, 5, 7]]), 0b101).tolist()
    [5, 4]
    """
    import numpy as np

    out = np.zeros(columns.shape[0], dtype=np.int64)
    for k in f2.bit_indices(vector):
        out ^= columns[:, k]
    return out


def colliding_word_dims(generator_bytes, hw: SharedMemory):  # -> numpy.ndarray
    """``dim P`` per row: the rank of the generators' words minus the rank of their bank bits.

    ``generator_bytes`` is ``(c, g)``: the byte images of one pass's
    generators.  One pass then costs ``2^dim P`` wavefronts.  This is the
    batched counter's conflict rule; :func:`count_batch` calls it by this
    name, so a test may replace it to check that a wrong rule is caught.

    >>> import numpy as np
    >>> from linlayout.hw import sm90
    >>> colliding_word_dims(np.array([[4, 8, 16, 32, 64], [4, 8, 16, 32, 128]]), sm90).tolist()
    [0, 1]
    """
    words = generator_bytes >> hw.word_shift
    return batch_rank(words) - batch_rank(words & (hw.banks - 1))


# ---------------------------------------------------------------------------
# Counting an access over a batch of memories
# ---------------------------------------------------------------------------


@record
class MemoryBatch:
    """Memory layouts of many configurations, inverted once (see :func:`memory_batch`).

    ``columns`` and ``inverse`` are ``(c, n)`` int64 arrays (the memories'
    and the inverses' columns), ``invertible`` a bool array of ``c``.
    """

    columns: Any
    inverse: Any
    invertible: Any

    def __len__(self) -> int:
        return self.columns.shape[0]


def memory_batch(columns) -> MemoryBatch:
    """Invert ``c`` memory layouts given by their columns (``(c, n)``, column ``k`` = packed tensor vector of offset bit ``k``).

    >>> import numpy as np
    >>> memory_batch(np.array([[1, 2], [3, 3]])).invertible.tolist()
    [True, False]
    """
    import numpy as np

    cols = np.asarray(columns, dtype=np.int64)
    inverse, ok = batch_inverse(cols)
    return MemoryBatch(cols, inverse, ok)


@record
class InstructionGroup:
    """Configurations counted with one plan, and the simulation of every one of their instructions.

    ``rows`` indexes the configurations of the batch; ``wavefronts`` is the
    closed form per row, ``simulated`` the ``(len(rows), instructions)``
    simulated wavefronts; ``lane_byte_offsets`` the ``(len(rows),
    instructions, lanes)`` addresses, or ``None`` unless asked for.
    """

    rows: Any
    simulated: Any
    wavefronts: Any
    lane_byte_offsets: Any = None


@record
class BatchCount:
    """One access counted over a :class:`MemoryBatch` (arrays over its configurations).

    ``status`` holds :data:`COUNTED`, :data:`SINGULAR` or
    :data:`NOT_LOWERABLE` per configuration; ``wavefronts`` (closed form,
    per instruction), ``instructions`` and ``access_bytes`` are 0 where not
    counted; ``groups`` holds the simulation of every counted configuration.
    """

    status: Any
    wavefronts: Any
    instructions: Any
    access_bytes: Any
    groups: tuple[InstructionGroup, ...]


def count_batch(
    memories: MemoryBatch,
    images: Mapping[str, Sequence[int]],
    element_bits: int,
    instruction: Instruction,
    hardware: str | SharedMemory = "sm90",
    vector_bits: int | None = None,
    addresses: bool = False,
) -> BatchCount:
    """Count one access on every memory of ``memories``: closed form per configuration, simulation per instruction.

    Parameters
    ----------
    memories
        The memory layouts (:func:`memory_batch`).
    images
        Per input dimension of the access layout, the packed tensor vector
        of each basis (packed like the memories' columns).
    element_bits, instruction, hardware, vector_bits
        As for :func:`linlayout.count.closed_form.wavefronts`; the access
        must have passed :func:`~linlayout.count.plan.plan_access` on some
        memory (its memory-independent checks are not repeated here).
    addresses
        Keep every instruction's lane byte offsets in the groups.

    The example of the module docstring counts a strided read on two memories.
    """
    import numpy as np

    inv, ok = memories.inverse, memories.invertible
    c = inv.shape[0]
    hw = get_hardware(hardware)
    ins = instruction
    eb = element_bits
    offs = {d: (np.stack([apply_columns(inv, v) for v in vs], axis=1) if vs else np.zeros((c, 0), dtype=np.int64))
            for d, vs in images.items()}
    regs = offs.get("register", np.zeros((c, 0), dtype=np.int64))
    nz = [i for i, v in enumerate(images.get("register", [])) if v]
    lane_imgs = images.get("lane", [])
    broadcast = any(i < len(lane_imgs) and lane_imgs[i] == 0 for i in (0, 1))
    status = np.where(ok, COUNTED, SINGULAR).astype(np.int8)
    closed = np.zeros(c, dtype=np.int64)
    n_ins = np.zeros(c, dtype=np.int64)
    abytes = np.zeros(c, dtype=np.int64)
    groups: list[InstructionGroup] = []

    def gen_bytes(sel, gens):
        return np.stack([offs[d][sel, i] for d, i in gens], axis=1) * eb >> 3 if gens else np.zeros((len(sel), 0), np.int64)

    if ins.is_matrix:
        tile = matrix_tile(ins, eb, hw)
        status[ok & ~matrix_tile_ok_batch(tile, offs)] = NOT_LOWERABLE
        rest = [i for i in nz if i not in tile.vector_registers]
        shape = access_shape(ins, eb, hw, 0, len(rest) + len(tile.vector_registers), broadcast)
        nmat = shape.matrix_registers
        sel = np.flatnonzero(status == COUNTED)
        if len(sel):
            rows = gen_bytes(sel, shape.within_pass)
            gens = np.concatenate([rows, regs[sel][:, rest[:nmat]] * eb >> 3], axis=1)
            issue = regs[sel][:, rest[nmat:]] * eb >> 3
            per = shape.passes << colliding_word_dims(rows, hw)
            masks = np.array([t if t < hw.matrix_rows * ins.matrices else 0 for t in range(hw.lanes)])
            groups.append(_simulate(ins, hw, shape.access_bytes, sel, gens, masks, issue, per, addresses))
            closed[sel] = per
            n_ins[sel] = shape.instructions
            abytes[sel] = shape.access_bytes
        return BatchCount(status, closed, n_ins, abytes, tuple(groups))
    # ld/st.shared: the plan's vector rule on arrays
    cap_k = vector_cap(eb, hw)
    others = np.concatenate([v for d, v in offs.items() if d != "register"] + [np.zeros((c, 0), np.int64)], axis=1)
    veclen, order = widest_vector_batch(regs, others, cap_k)
    use = veclen.copy()
    if vector_bits is not None:
        want = (vector_bits // eb).bit_length() - 1
        status[ok & (veclen < want)] = NOT_LOWERABLE
        use = np.minimum(use, want)
    status[(status == COUNTED) & ((eb << use) < 8)] = NOT_LOWERABLE
    vmask = np.zeros(c, dtype=np.int64)
    for k in range(cap_k):
        vmask |= np.where(k < use, np.int64(1) << np.maximum(order[:, k], 0), 0)
    counted = status == COUNTED
    nr = regs.shape[1]
    for key in np.unique(vmask[counted]):
        sel = np.flatnonzero(counted & (vmask == key))
        vec = [i for i in range(nr) if key >> i & 1]
        shape = access_shape(ins, eb, hw, len(vec), len(nz), broadcast)
        issue_regs = [i for i in nz if i not in vec]
        lanes = offs["lane"][sel] * eb >> 3
        issue = regs[sel][:, issue_regs] * eb >> 3
        per = shape.passes << colliding_word_dims(gen_bytes(sel, shape.within_pass), hw)
        groups.append(_simulate(ins, hw, shape.access_bytes, sel, lanes, np.arange(hw.lanes), issue, per, addresses))
        closed[sel] = per
        n_ins[sel] = shape.instructions
        abytes[sel] = shape.access_bytes
    return BatchCount(status, closed, n_ins, abytes, tuple(groups))


def _simulate(ins, hw, access_bytes, sel, gens, masks, issue, per, addresses) -> InstructionGroup:
    """Simulate every instruction of the selected configurations.

    A lane's address is the XOR of the generators selected by ``masks``
    (lane index bits, or fewer for matrix rows) and of the instruction's
    issue registers.
    """
    import numpy as np

    from .simulate import simulate_batch

    lane_vals = batch_span(gens)[:, masks]  # (cg, lanes)
    base = batch_span(issue)  # (cg, I)
    if max(int(lane_vals.max(initial=0)), int(base.max(initial=0))) < (1 << 30):
        lane_vals, base = lane_vals.astype(np.int32), base.astype(np.int32)  # XORs stay below 2^30
    ni = base.shape[1]
    sims = []
    addrs_all = [] if addresses else None
    step = max(1, 16384 // ni)
    for s in range(0, len(sel), step):
        addrs = base[s : s + step, :, None] ^ lane_vals[s : s + step, None, :]
        flat = addrs.reshape(-1, hw.lanes)
        sims.append(simulate_batch(ins.name, ins.op, access_bytes, flat, hw).reshape(-1, ni))
        if addresses:
            addrs_all.append(addrs)
    sim = np.concatenate(sims) if sims else np.zeros((0, ni), dtype=np.int64)
    return InstructionGroup(sel, sim, per, np.concatenate(addrs_all) if addresses and addrs_all else None)
