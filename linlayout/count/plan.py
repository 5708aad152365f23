"""The access plan: how one warp issues its access of a tile, computed once.

Concepts
========

A warp accesses a tile through a distributed layout ``L`` (``register``,
``lane``, optional ``warp``, ``block`` → tensor) and a memory layout ``M``
(``offset`` → tensor).  ``C = M⁻¹ ∘ L`` gives the element offset of every
input basis (:func:`element_offsets`).  From ``C``, the element width, the
instruction and the hardware model, the **plan** fixes how the access is
issued:

=====================  ====================================================
vector registers       registers whose offsets are 1, 2, 4, ... (any order)
                       while no other basis touches those low offset bits:
                       each lane moves that many contiguous elements
                       (:func:`widest_vector`), at most ``max_access_bytes``
matrix tile            for ``ldmatrix``/``stmatrix``: the bases that must
                       map to fixed offsets (paper Thm. 5.1,
                       :func:`matrix_tile`), the row generators and the
                       registers that choose the matrices
issue registers        the other non-broadcast registers: one instruction
                       per combination
passes                 lane bits that select a pass (the model's rule, with
                       merged passes for wide loads whose lane bit 0 or 1
                       broadcasts), or one pass per matrix
within-pass generators the bases that vary inside one pass: lanes that do
                       not select a pass, or a matrix's row generators
=====================  ====================================================

Everything except the vector and the tile check depends on the layout only
through which bases are zero (an invertible ``M`` keeps zero bases zero and
non-zero ones non-zero), so it is an :class:`AccessShape`, computed by
:func:`access_shape` from counts alone and cached.  An :class:`AccessPlan`
is a shape plus the offsets and the register indices.

Every counter evaluates a plan and none re-derives it: the closed form
(:mod:`linlayout.count.closed_form`), the simulator driver
(:mod:`linlayout.count.by_simulation`), the batched counter of the sweep
(:mod:`linlayout.count.batched`, which uses :func:`widest_vector_batch` and
:func:`matrix_tile_ok_batch`, the array forms of the same rules, written
here beside the scalar ones) and the synthesizer's scoring and bounds.  The
address simulator (:mod:`linlayout.count.simulate`) is deliberately
independent: it is the oracle the plan is tested against.

Worked example (paper notes TC11): 8 rows of 32 fp32 elements read with
128-bit vectors, registers 0 and 1 along ``dim1`` and lanes 0..2 above them::

    basis        register 0  register 1  register 2  lane 0  lane 1  lane 2  lane 3  lane 4
    offset (C)   1           2           32          4       8       16      64      128

>>> from linlayout.core.layout import LinearLayout
>>> from linlayout.catalog.swizzles import unswizzled
>>> L = LinearLayout({"register": [[0, 1], [0, 2], [1, 0]], "lane": [[0, 4], [0, 8], [0, 16], [2, 0], [4, 0]]},
...                  {"dim0": 8, "dim1": 32})
>>> p = plan_access(L, unswizzled([8, 32]), 32, "load")
>>> p.vector_registers, p.access_bytes, p.issue_registers, p.shape.pass_lane_bits
((0, 1), 16, (2,), (3, 4))
>>> p.shape.within_pass
(('lane', 0), ('lane', 1), ('lane', 2))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache, reduce
from itertools import chain, compress
from operator import itemgetter, or_
from typing import Any

from ..core import f2
from ..core.layout import LinearLayout
from ..core.record import record
from ..errors import LoweringError
from ..hw import INSTRUCTIONS, PRESETS, Instruction, SharedMemory, get_hardware, parse_instruction
from ..hw.instructions import MATRIX
from .matrix_tile import (
    Generator,
    MatrixTile,
    check_matrix_tile,
    matrix_tile,
    matrix_tile_ok_batch,
)
from .offsets import column_form, element_offsets, offsets_through_inverse
from .query import (
    DISTRIBUTED_DIMS,
    AccessQuery,
    Memory,
    check_capacity,
    check_distributed_dims,
    check_element_bits,
    check_tile_bytes,
    check_vector_bits,
    no_extra_arguments,
)
from .speed import ACCESS_SHAPES, CHECKED_KEY, PLAN_CONTEXTS, PLANS_PER_LAYOUT

__all__ = ["AccessShape", "AccessPlan", "access_shape", "plan_access"]

# ---------------------------------------------------------------------------
# The vector rule
# ---------------------------------------------------------------------------


def vector_cap(element_bits: int, hw: SharedMemory) -> int:
    """log2 of the most elements one lane moves with ``ld/st.shared`` (``max_access_bytes`` / element)."""
    return max(0, ((max(hw.access_sizes()) * 8) // element_bits).bit_length() - 1)


def widest_vector(offsets: Mapping[str, Sequence[int]], cap: int) -> tuple[int, ...]:
    """Registers forming the widest contiguous vector, lowest offset first.

    Register ``r_k`` is chosen for offset ``2^k`` when it is the only
    register with that offset and no other basis (of any dimension) touches
    offset bits ``0..k``; at most ``cap`` registers.

    >>> widest_vector({"register": (2, 1, 8), "lane": (4, 16)}, 4)
    (1, 0)
    >>> widest_vector({"register": (1, 1), "lane": (2,)}, 4)    # two registers on offset 1: no vector
    ()
    """
    others = 0
    for d, vs in offsets.items():
        if d != "register":
            for v in vs:
                others |= v
    return contiguous_registers(offsets.get("register", ()), others, cap)


def contiguous_registers(registers: Sequence[int], others: int, cap: int) -> tuple[int, ...]:
    """:func:`widest_vector` on the register offsets and ``others``, the OR of every other basis' offset.

    One pass: ``single`` collects the powers of two below ``2^cap`` that a register equals, ``others`` every
    offset bit touched by another basis (the other dimensions' bases, registers that are not a power of two,
    a second register equal to a power of two already seen).  Register ``2^k`` joins (after ``1, 2, ...,
    2^(k-1)``) exactly when bit ``k`` is in ``single`` and no bit ``0..k`` is in ``others``: the vector is the
    run of trailing ones of ``single & ~others``.  Registers equal to a power of two at or above ``2^cap``
    touch no bit below the cap, so they are skipped.

    >>> contiguous_registers((2, 1, 8), 4 | 16, 4), contiguous_registers((2, 1, 8), 3, 4)
    ((1, 0), ())
    """
    low = (1 << cap) - 1
    single = 0
    for v in registers:
        if v & low:
            if v & (v - 1) or v & single:
                others |= v
            else:
                single |= v
    free = single & ~others
    if not free & 1:
        return ()
    if not free & 2:  # a vector of one register, the one at offset 1
        return (registers.index(1),)
    run = (free ^ (free + 1)) >> 1  # the trailing ones of free: offsets 1, 2, ..., 2^(n-1)
    vec = [0] * run.bit_length()
    i = 0
    for v in registers:  # each offset of the run is one register's, and no other register touches the run
        if v & run:
            vec[v.bit_length() - 1] = i
        i += 1
    return tuple(vec)


def widest_vector_batch(regs, others, cap: int):
    """:func:`widest_vector` on arrays: one configuration per row.

    ``regs`` is an ``(n, R)`` int64 array of register offsets and ``others``
    an ``(n, K)`` array of every other basis' offset.  Returns ``(length,
    order)``: the vector length per row and an ``(n, cap)`` array of the
    chosen register per offset bit (``-1`` past the length).

    >>> import numpy as np
    >>> n, order = widest_vector_batch(np.array([[2, 1, 8], [1, 1, 2]]), np.array([[4, 16], [4, 8]]), 4)
    >>> n.tolist(), order[:, :2].tolist()
    ([2, 0], [[1, 0], [-1, -1]])
    """
    import numpy as np

    c, nr = regs.shape
    ar = np.arange(c)
    chosen = np.zeros((c, nr), dtype=bool)
    order = np.full((c, max(cap, 1)), -1, dtype=np.int64)
    active = np.ones(c, dtype=bool)
    length = np.zeros(c, dtype=np.int64)
    for k in range(cap if nr else 0):
        cand = (regs == (1 << k)) & ~chosen
        single = cand.sum(axis=1) == 1
        ci = cand.argmax(axis=1)
        trial = chosen.copy()
        trial[ar, ci] |= single
        low = (1 << (k + 1)) - 1
        clean = (((regs & low) == 0) | trial).all(axis=1) & ((others & low) == 0).all(axis=1)
        step = active & single & clean
        chosen = np.where(step[:, None], trial, chosen)
        order[:, k] = np.where(step, ci, -1)
        length += step
        active = step
    return length, order


# ---------------------------------------------------------------------------
# The shape (memory-independent) and the plan
# ---------------------------------------------------------------------------


@record
class AccessShape:
    """The memory-independent part of a plan (see the module docstring).

    ``vector`` is log2 of the elements per lane access (for matrix
    instructions: per lane register), ``instructions`` the instructions per
    warp, ``passes`` per instruction, ``within_pass`` the generators that
    vary inside one pass.
    """

    instruction: Instruction
    element_bits: int
    hardware: SharedMemory
    vector: int
    access_bytes: int
    merged: bool
    pass_lane_bits: tuple[int, ...]
    passes: int
    matrix_registers: int
    issue_registers: int
    within_pass: tuple[Generator, ...]

    @property
    def instructions(self) -> int:
        """Instructions per warp."""
        return 1 << self.issue_registers

    @property
    def base_wavefronts(self) -> int:
        """Wavefronts per warp when every pass is conflict-free (instructions x passes)."""
        return self.passes << self.issue_registers

    @property
    def vector_bits(self) -> int:
        """Bits each lane moves per access (one register for matrix instructions)."""
        return self.hardware.register_bytes * 8 if self.instruction.is_matrix else self.access_bytes * 8


def access_shape(
    ins: Instruction, element_bits: int, hw: SharedMemory, vector: int, nonzero_registers: int, low_lane_broadcast: bool
) -> AccessShape | None:
    """The shape of an access, or ``None`` when it cannot address whole bytes.

    ``vector`` is the number of vector registers (ignored for matrix
    instructions, whose tile fixes it), ``nonzero_registers`` the number of
    non-broadcast registers (for matrix instructions: the tile's vector
    registers plus the non-broadcast registers outside them) and ``low_lane_broadcast`` whether lane bit 0 or
    1 has a zero basis.  Raises :class:`LoweringError` when a matrix
    instruction needs more matrix-choosing registers than the layout has.

    >>> from linlayout.hw import sm90, parse_instruction
    >>> s = access_shape(parse_instruction("ld.shared"), 32, sm90, 2, 3, False)
    >>> s.access_bytes, s.passes, s.instructions, s.pass_lane_bits
    (16, 4, 2, (3, 4))
    """
    key = (id(ins), element_bits, id(hw), vector, nonzero_registers, low_lane_broadcast)
    hit = ACCESS_SHAPES.get(key)  # by the identity of (ins, hw), checked: see linlayout.count.speed
    if hit is not None and hit[0] is ins and hit[1] is hw:
        return hit[2]
    shape = _access_shape(ins, element_bits, hw, vector, nonzero_registers, low_lane_broadcast)
    ACCESS_SHAPES.put(key, (ins, hw, shape))
    return shape


@lru_cache(maxsize=4096)
def _access_shape(
    ins: Instruction, element_bits: int, hw: SharedMemory, vector: int, nonzero_registers: int, low_lane_broadcast: bool
) -> AccessShape | None:
    if ins.is_matrix:
        tile = matrix_tile(ins, element_bits, hw)
        nmat = ins.matrices.bit_length() - 1
        rest = nonzero_registers - len(tile.vector_registers)
        if rest < nmat:
            raise LoweringError(
                f"{ins.name} loads {ins.matrices} matrices per instruction, which needs {nmat} more non-broadcast "
                f"register bit(s) per lane; the layout has {max(rest, 0)}: use .x{1 << max(rest, 0)}"
            )
        return AccessShape(ins, element_bits, hw, len(tile.vector_registers), hw.matrix_row_bytes, False, (),
                           ins.matrices, nmat, rest - nmat, tile.row_generators)
    access_bits = element_bits << vector
    if access_bits < 8:
        return None
    access = access_bits >> 3
    merged = hw.merges_passes(ins.op, access, low_lane_broadcast)
    pb = hw.pass_lane_bits(access, ins.op, low_lane_broadcast)
    within = tuple(("lane", i) for i in range(hw.lane_bits) if i not in pb)
    return AccessShape(ins, element_bits, hw, vector, access, merged, pb, 1 << len(pb), 0,
                       nonzero_registers - vector, within)


@record
class AccessPlan:
    """A shape with the offsets it is evaluated on and the registers that play each role.

    ``offsets`` holds the element offset of every input basis (``C``);
    ``vector_registers``, ``matrix_registers`` and ``issue_registers`` are
    register bit indices.
    """

    shape: AccessShape
    offsets: Mapping[str, tuple[int, ...]]
    vector_registers: tuple[int, ...]
    matrix_registers: tuple[int, ...]
    issue_registers: tuple[int, ...]

    @property
    def instruction(self) -> Instruction:
        return self.shape.instruction

    @property
    def hardware(self) -> SharedMemory:
        return self.shape.hardware

    @property
    def element_bits(self) -> int:
        return self.shape.element_bits

    @property
    def access_bytes(self) -> int:
        return self.shape.access_bytes

    def byte(self, element_offset: int) -> int:
        """Byte offset of an element offset."""
        return (element_offset * self.shape.element_bits) >> 3

    def generator_bytes(self) -> list[tuple[Generator, int]]:
        """The within-pass generators with their byte offsets: the input of the conflict rule."""
        offsets, eb = self.offsets, self.shape.element_bits
        return [(g, (offsets[g[0]][g[1]] * eb) >> 3) for g in self.shape.within_pass]  # self.byte of each

    def lane_inputs(self, limit: int | None = None) -> list[list[tuple[int, int]]]:
        """Per instruction, per lane: the (register, lane) input that lane addresses (warp 0, block 0).

        ``limit`` stops after that many instructions (the first ones).

        For ``.xN`` matrix instructions lanes ``rows*j .. rows*j + rows - 1``
        give the rows of matrix ``j`` and the unused lanes repeat lane 0.
        """
        hw = self.hardware
        ins = self.instruction
        out = []
        count = 1 << len(self.issue_registers)
        for x in range(count if limit is None else min(count, limit)):
            reg = 0
            for j, r in enumerate(self.issue_registers):
                if x >> j & 1:
                    reg |= 1 << r
            if not ins.is_matrix:
                out.append([(reg, lane) for lane in range(hw.lanes)])
                continue
            rows = hw.matrix_rows
            lanes = [(0, 0)] * hw.lanes
            for j in range(ins.matrices):
                mreg = reg
                for t, r in enumerate(self.matrix_registers):
                    if j >> t & 1:
                        mreg |= 1 << r
                for row in range(rows):
                    rr, ll = mreg, 0
                    for t, (d, b) in enumerate(self.shape.within_pass):
                        if row >> t & 1:
                            if d == "register":
                                rr |= 1 << b
                            else:
                                ll |= 1 << b
                    lanes[rows * j + row] = (rr, ll)
            for lane in range(rows * ins.matrices, hw.lanes):
                lanes[lane] = lanes[0]
            out.append(lanes)
        return out

    def instruction_offsets(self, limit: int | None = None) -> list[list[int]]:
        """Every instruction's lane byte offsets (warp 0, block 0), for the simulator (the first ``limit``)."""
        regs = self.offsets.get("register", ())
        lanes = self.offsets.get("lane", ())
        out = []
        for row in self.lane_inputs(limit):
            vals = []
            for reg, lane in row:
                v = 0
                for i in f2.bit_indices(reg):
                    v ^= regs[i]
                for i in f2.bit_indices(lane):
                    v ^= lanes[i]
                vals.append(self.byte(v))
            out.append(vals)
        return out


def _vector_bits_request(vector_bits: Any, element_bits: int, available: Sequence[int]) -> tuple[int, ...]:
    check_vector_bits(vector_bits)
    if vector_bits < element_bits:
        raise LoweringError(f"vector_bits={vector_bits} is narrower than one {element_bits}-bit element")
    want = (vector_bits // element_bits).bit_length() - 1
    if want > len(available):
        raise LoweringError(
            f"vector_bits={vector_bits} needs {1 << want} contiguous elements per lane, but only "
            f"{1 << len(available)} are (registers {list(available)} map to offsets 1, 2, ...; at most "
            f"{element_bits << len(available)} bits)"
        )
    return tuple(available[:want])


def plan_from_offsets(
    offsets: Mapping[str, Sequence[int]],
    element_bits: int,
    ins: Instruction,
    hw: SharedMemory,
    vector_bits: int | None = None,
) -> AccessPlan:
    """The plan of an access whose bases map to ``offsets`` (element offsets, ``C``).

    Raises :class:`LoweringError` when the instruction cannot access the
    layout as asked (no whole bytes, a matrix tile that does not fit, a
    vector narrower than requested).
    """
    for v in offsets.values():
        if type(v) is not tuple:
            offsets = {d: tuple(v) for d, v in offsets.items()}
            break
    regs = offsets.get("register", ())
    nz = list(compress(range(len(regs)), regs))  # the non-broadcast registers
    lanes = offsets.get("lane", ())
    broadcast = 0 in lanes[:2]
    if ins.addressing == MATRIX:
        tile = matrix_tile(ins, element_bits, hw)
        if vector_bits not in (None, hw.register_bytes * 8):
            raise LoweringError(
                f"{ins.name} gives each lane one {hw.register_bytes * 8}-bit register per matrix; vector_bits must be "
                f"{hw.register_bytes * 8}"
            )
        check_matrix_tile(ins, tile, offsets)
        rest = [i for i in nz if i not in tile.vector_registers]
        shape = access_shape(ins, element_bits, hw, 0, len(rest) + len(tile.vector_registers), broadcast)
        nmat = shape.matrix_registers
        return _new_plan(shape, offsets, tile.vector_registers, tuple(rest[nmat:]), tuple(rest[:nmat]))
    return _vector_plan(offsets, element_bits, ins, hw, vector_bits, nz, broadcast)


def _vector_plan(offsets: Mapping[str, tuple[int, ...]], element_bits: int, ins: Instruction, hw: SharedMemory,
                 vector_bits: int | None, nz: Sequence[int], broadcast: bool) -> AccessPlan:
    """The plan of an ``ld/st.shared`` access (see :func:`plan_from_offsets`); ``nz`` lists the non-zero
    registers and ``broadcast`` says whether lane bit 0 or 1 has a zero basis."""
    ctx = PLAN_CONTEXTS.get((id(ins), element_bits, id(hw)))
    if ctx is None or ctx[0] is not ins or ctx[1] is not hw:
        ctx = _context(ins, element_bits, hw)
    vec = widest_vector(offsets, ctx[2])
    if vector_bits is not None:
        vec = _vector_bits_request(vector_bits, element_bits, vec)
    shape, issue = _vector_shape(ins, element_bits, hw, ctx[3], vec, nz, broadcast)
    return _new_plan(shape, offsets, vec, issue)


def _vector_shape(ins: Instruction, element_bits: int, hw: SharedMemory, shapes: dict[Any, Any], vec: tuple[int, ...],
                  nz: Sequence[int], broadcast: bool) -> tuple[AccessShape, tuple[int, ...]]:
    """The shape of an ``ld/st.shared`` access with vector registers ``vec`` (kept in ``shapes`` by
    ``(vector, non-zero registers, broadcast)``) and its issue registers; :class:`LoweringError` below a byte."""
    key = (len(vec), len(nz), broadcast)
    shape = shapes.get(key)
    if shape is None:
        shape = shapes[key] = access_shape(ins, element_bits, hw, len(vec), len(nz), broadcast)
    if shape is None:
        access_bits = element_bits << len(vec)
        raise LoweringError(
            f"each lane would access {access_bits} bits, but shared memory is addressed in bytes: "
            f"{element_bits}-bit elements need at least {8 // element_bits} contiguous registers per access"
        )
    return shape, tuple([i for i in nz if i not in vec]) if vec else tuple(nz)


def _new_plan(shape: AccessShape, offsets: Mapping[str, tuple[int, ...]], vec: tuple[int, ...],
              issue: tuple[int, ...], matrix: tuple[int, ...] = ()) -> AccessPlan:
    """An :class:`AccessPlan`, its fields set as the dataclass' ``__init__`` would (dict stores instead of frozen
    setattrs; ``matrix``: a matrix instruction's matrix registers, none for ``ld/st.shared``)."""
    plan = _new(AccessPlan)
    d = plan.__dict__
    d["shape"] = shape
    d["offsets"] = offsets
    d["vector_registers"] = vec
    d["matrix_registers"] = matrix
    d["issue_registers"] = issue
    return plan


_new = object.__new__


def _context(ins: Instruction, element_bits: int, hw: SharedMemory) -> tuple[Any, ...]:
    """What :func:`plan_from_offsets` reuses per (instruction, element width, hardware), kept by identity:
    ``(ins, hw, vector_cap, {(vector, non-zero registers, broadcast): access_shape})``."""
    return PLAN_CONTEXTS.put((id(ins), element_bits, id(hw)), (ins, hw, vector_cap(element_bits, hw), {}))


# ---------------------------------------------------------------------------
# The layout's part of a plan, computed once per layout object
# ---------------------------------------------------------------------------


class _LayoutFacts:
    """What a plan reads off a distributed layout alone, checked for a lane count once and kept in the layout's
    memo: its non-zero registers and whether lane bit 0 or 1 broadcasts (the same in ``C = M⁻¹ ∘ L`` for every
    invertible memory ``M``), its :func:`~linlayout.count.offsets.column_form` (made when a plan first needs it:
    a count through the inverse columns does not), its output dimensions, its flat bases by input dimension
    (``bases``) and, when every basis is a single bit or zero (``unit``), how a memory's inverse columns (with 0
    appended) give the registers' offsets and the other bases' offsets, by indexing (``register_offsets``,
    ``other_offsets``).  ``last`` is the :class:`LayoutPlan` of the last query context and ``plans`` the last few
    (at most :data:`~linlayout.count.speed.PLANS_PER_LAYOUT`, newest last): a synthesis and a compiler's count of
    one layout ask in different contexts (an instruction named or not), and each would otherwise rebuild the
    other's.  Built for every new layout object a count sees (a conversion's slices among them), so it reads
    each dimension's bases once."""

    __slots__ = ("lanes", "nonzero", "broadcast", "form", "out_dims", "bases", "unit", "register_offsets",
                 "other_offsets", "last", "plans")

    def __init__(self, layout: LinearLayout, lanes: int) -> None:
        self.lanes, self.form, self.out_dims, self.last = lanes, None, layout.out_dim_bits, None
        self.plans: list[LayoutPlan] = []
        self.bases = bases = {d: layout.flat_bases(d) for d, _ in layout.in_dim_bits}
        regs, lane_bases = bases.get("register", ()), bases.get("lane", ())
        self.nonzero, self.broadcast = list(compress(range(len(regs)), regs)), 0 in lane_bases[:2]
        others = [c for d, cols in bases.items() if d != "register" for c in cols]
        self.unit = not any(c & (c - 1) for c in chain(regs, others))
        self.register_offsets = picker([c.bit_length() - 1 for c in regs])
        self.other_offsets = picker([c.bit_length() - 1 for c in others])

    def flat_bit(self, generator: Generator) -> int:
        """The flat bit of a unit basis (``-1`` for a zero basis)."""
        d, i = generator
        return self.bases[d][i].bit_length() - 1


def picker(indices: Sequence[int]) -> Any:
    """A function taking a list to the tuple of its items at ``indices`` (an ``itemgetter``, which returns a
    bare item for one index)."""
    if len(indices) >= 2:
        return itemgetter(*indices)
    if indices:
        i = indices[0]
        return lambda xs: (xs[i],)
    return lambda xs: ()


class LayoutPlan:
    """The part of a distributed layout's access plans that no memory changes, for one query context.

    Given the layout, the instruction, the element width, the hardware model and the vector request, a plan
    depends on the memory only through the vector: which registers land on offsets 1, 2, 4, ... with nothing
    else below them.  The shape then depends on the vector's length alone (see the module docstring), so
    everything else is kept here, once per layout object and context (in the layout's memo, see
    :mod:`linlayout.count.speed`): the resolved model and instruction, the vector cap, whether the layout's
    tile fits shared memory and, per vector seen, the shape, the issue registers and the flat bits of the
    within-pass generators.  :meth:`vector` is the per-memory part.

    ``hardware``, ``instruction`` and ``op`` are the arguments the context was resolved from, with the
    registry names they were looked up under (``hw_key``, ``ins_key``), checked on every use (by
    :func:`layout_plan`) so that a model or an instruction registered again under that name is seen at once.
    """

    __slots__ = ("hardware", "instruction", "op", "hw_key", "ins_key", "hw", "ins", "element_bits", "vector_bits",
                 "matrix", "cap", "out_dims", "fits", "direct", "facts", "by_vector")

    def __init__(self, facts: _LayoutFacts, out_bits: int, args: tuple[Any, Any, Any], hw: SharedMemory,
                 ins: Instruction, element_bits: int, vector_bits: int | None) -> None:
        hardware, instruction, op = args
        self.hardware, self.instruction, self.op = hardware, instruction, op
        self.hw_key = "sm90" if hardware is None else hardware.strip() if isinstance(hardware, str) else None
        self.ins_key = (instruction.strip() if isinstance(instruction, str) else None if instruction is not None
                        else "st.shared" if isinstance(op, str) and op.strip() == "store" else "ld.shared")
        self.hw, self.ins, self.element_bits, self.vector_bits = hw, ins, element_bits, vector_bits
        self.matrix = ins.addressing == MATRIX
        self.cap = vector_cap(element_bits, hw)
        self.out_dims = facts.out_dims  # the layout's output dimensions, (name, bits) pairs
        self.fits = ((element_bits << out_bits) + 7) >> 3 <= hw.smem_bytes  # a square memory of the layout's tile
        self.facts = facts
        # wavefronts() may count through the memory's inverse columns (see closed_form._count_through_inverse)
        self.direct = not self.matrix and self.fits and facts.unit
        self.by_vector: dict[tuple[int, ...], VectorEntry] = {}

    def made_from(self, hardware: Any, instruction: Any, op: Any, element_bits: Any, vector_bits: Any) -> bool:
        """Whether this context was built from these arguments (by identity: a miss only rebuilds it) and the
        registries still hold what its names resolved to."""
        return (self.hardware is hardware and self.instruction is instruction and self.op is op
                and self.element_bits is element_bits and self.vector_bits is vector_bits
                and (self.hw_key is None or PRESETS.get(self.hw_key) is self.hw)
                and (self.ins_key is None or INSTRUCTIONS.get(self.ins_key) is self.ins))

    def vector(self, inverse: Sequence[int]) -> tuple[tuple[int, ...], VectorEntry]:
        """The vector registers of the memory whose flat inverse columns (with 0 appended) are ``inverse``, and
        their :class:`VectorEntry` (:meth:`entry`)."""
        facts = self.facts
        vec = contiguous_registers(facts.register_offsets(inverse), reduce(or_, facts.other_offsets(inverse), 0),
                                   self.cap)
        if self.vector_bits is not None:
            vec = _vector_bits_request(self.vector_bits, self.element_bits, vec)
        return vec, self.entry(vec)

    def entry(self, vec: tuple[int, ...]) -> VectorEntry:
        """The :class:`VectorEntry` of the vector registers ``vec``, made on their first access."""
        hit = self.by_vector.get(vec)
        if hit is None:
            hit = self.by_vector[vec] = self._new_entry(vec)
        return hit

    def _new_entry(self, vec: tuple[int, ...]) -> VectorEntry:
        ctx = PLAN_CONTEXTS.get((id(self.ins), self.element_bits, id(self.hw)))
        if ctx is None or ctx[0] is not self.ins or ctx[1] is not self.hw:
            ctx = _context(self.ins, self.element_bits, self.hw)
        facts = self.facts
        shape, issue = _vector_shape(self.ins, self.element_bits, self.hw, ctx[3], vec, facts.nonzero, facts.broadcast)
        within = picker([facts.flat_bit(g) for g in shape.within_pass]) if facts.unit else None
        return VectorEntry(shape, issue, within)


class VectorEntry:
    """What a layout's access with given vector registers shares across memories (:meth:`LayoutPlan.entry`):
    its ``shape``, the ``issue`` registers, ``within`` (taking a memory's inverse columns to the within-pass
    generators' offsets, for ld/st.shared on unit bases: ``facts.unit``; else None) and ``report``, the closed
    form's report fields for the shape, which :mod:`linlayout.count.closed_form` fills on its first count through
    this entry, so a count finds them without a lookup by shape."""

    __slots__ = ("shape", "issue", "within", "report")

    def __init__(self, shape: AccessShape, issue: tuple[int, ...], within: Any) -> None:
        self.shape, self.issue, self.within, self.report = shape, issue, within, None


def layout_plan(layout: LinearLayout, element_bits: Any, op: Any, instruction: Any, vector_bits: Any,
                hardware: Any) -> LayoutPlan:
    """The :class:`LayoutPlan` of a layout for these arguments, checked (hardware, instruction, lanes, element
    width) the first time and kept in the layout's memo for the next call with the same arguments."""
    lmemo = layout.memo()
    facts = lmemo.get(CHECKED_KEY)
    if facts is not None:
        last = facts.last
        # The last context first, its test written out (a count's hot path: no call): the arguments it was built
        # from (by identity: a miss only rebuilds it), and the registries still holding what they resolved to.
        if (last is not None and last.hardware is hardware and last.instruction is instruction and last.op is op
                and last.element_bits is element_bits and last.vector_bits is vector_bits
                and (last.hw_key is None or PRESETS.get(last.hw_key) is last.hw)
                and (last.ins_key is None or INSTRUCTIONS.get(last.ins_key) is last.ins)):
            return last
        for lp in facts.plans:
            if lp.made_from(hardware, instruction, op, element_bits, vector_bits):
                facts.last = lp
                return lp
    hw = get_hardware(hardware)
    ins = parse_instruction(instruction, op)
    if facts is None or facts.lanes != hw.lanes:
        check_distributed_dims(layout, hw)
        facts = lmemo[CHECKED_KEY] = _LayoutFacts(layout, hw.lanes)
    check_element_bits(element_bits)
    return _keep(facts, LayoutPlan(facts, layout.out_bits, (hardware, instruction, op), hw, ins, element_bits,
                                   vector_bits))


def _keep(facts: _LayoutFacts, lp: LayoutPlan) -> LayoutPlan:
    """Make ``lp`` the layout's last plan and keep it among its few recent ones (the oldest dropped)."""
    plans = facts.plans
    if len(plans) >= PLANS_PER_LAYOUT:
        del plans[0]
    plans.append(lp)
    facts.last = lp
    return lp


def _query_layout_plan(query: AccessQuery) -> LayoutPlan:
    """The :class:`LayoutPlan` of a checked :class:`~linlayout.count.query.AccessQuery` (its input is not checked
    again; the layout's facts are computed once per layout)."""
    layout, hw, ins = query.layout, query.hw, query.ins
    lmemo = layout.memo()
    facts = lmemo.get(CHECKED_KEY)
    if facts is not None:
        element_bits, vector_bits = query.element_bits, query.vector_bits
        last = facts.last
        if last is not None and last.hw is hw and last.ins is ins and last.element_bits == element_bits \
                and last.vector_bits == vector_bits:
            return last
        for lp in facts.plans:
            if lp.hw is hw and lp.ins is ins and lp.element_bits == element_bits and lp.vector_bits == vector_bits:
                facts.last = lp
                return lp
    if facts is None or facts.lanes != hw.lanes:
        check_distributed_dims(layout, hw)
        facts = lmemo[CHECKED_KEY] = _LayoutFacts(layout, hw.lanes)
    return _keep(facts, LayoutPlan(facts, layout.out_bits, (query.hardware, query.instruction, query.op), hw, ins,
                                   query.element_bits, query.vector_bits))


def plan_access(
    layout: LinearLayout | AccessQuery,
    memory: Memory | None = None,
    element_bits: int | None = None,
    op: str | None = None,
    instruction: str | Instruction | None = None,
    vector_bits: int | None = None,
    hardware: str | SharedMemory | None = "sm90",
) -> AccessPlan:
    """Validate a layout-level query and plan it (the arguments of :func:`linlayout.wavefronts`).

    Takes the query's fields, or one :class:`~linlayout.count.query.AccessQuery`
    (already checked).

    >>> from linlayout.catalog.swizzles import unswizzled
    >>> L = LinearLayout({"register": [[0, 1]], "lane": [[0, 2], [0, 4], [0, 8], [0, 16], [1, 0]]},
    ...                  {"dim0": 2, "dim1": 32})
    >>> p = plan_access(L, unswizzled([2, 32]), 32, "store")
    >>> p.access_bytes, p.shape.passes, p.shape.instructions
    (8, 2, 1)
    >>> plan_access(AccessQuery(L, unswizzled([2, 32]), 32, "store")) == p
    True
    """
    if type(layout) is AccessQuery:
        no_extra_arguments(layout, memory, element_bits, op, instruction, vector_bits,
                           None if hardware == "sm90" else hardware)
        return _plan_checked(layout.layout, layout.memory, _query_layout_plan(layout))
    if type(layout) is not LinearLayout:  # say what the layout should be before reading it
        hw = get_hardware(hardware)
        parse_instruction(instruction, op)
        check_distributed_dims(layout, hw)
    lp = layout_plan(layout, element_bits, op, instruction, vector_bits, hardware)
    check_capacity(memory, element_bits, lp.hw)
    return _plan_checked(layout, memory, lp)


def _plan_checked(layout: LinearLayout, memory: Memory, lp: LayoutPlan) -> AccessPlan:
    """The plan of checked input: ``C = M⁻¹ ∘ L``, then the matrix tile or the vector rule."""
    if type(memory) is LinearLayout:
        facts = lp.facts
        if facts.form is None:
            facts.form = column_form(layout)
        offs = offsets_through_inverse(layout, memory, facts.form)
        if offs is None:
            offs = element_offsets(layout, memory)
    else:
        offs = element_offsets(layout, memory)
    if lp.matrix:
        return plan_from_offsets(offs, lp.element_bits, lp.ins, lp.hw, lp.vector_bits)
    vec = widest_vector(offs, lp.cap)
    if lp.vector_bits is not None:
        vec = _vector_bits_request(lp.vector_bits, lp.element_bits, vec)
    hit = lp.entry(vec)
    return _new_plan(hit.shape, offs, vec, hit.issue)
