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
from dataclasses import dataclass
from functools import lru_cache
from itertools import compress
from typing import Any

from ..core import f2
from ..core.layout import LinearLayout
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
from .speed import ACCESS_SHAPES, CHECKED_KEY, PLAN_CONTEXTS

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
    regs = offsets.get("register", ())
    # One pass: ``single`` collects the powers of two below 2^cap that a register equals, ``others`` every offset
    # bit touched by another basis (the other dimensions' bases, registers that are not a power of two, a second
    # register equal to a power of two already seen).  Register 2^k joins
    # (after 1, 2, ..., 2^(k-1)) exactly when bit k is in ``single`` and no bit 0..k is in ``others``: the vector
    # is the run of trailing ones of ``single & ~others``.  Registers equal to a power of two at or above 2^cap
    # touch no bit below the cap, so they are skipped.
    low = (1 << cap) - 1
    single = others = 0
    for v in regs:
        if v & low:
            if v & (v - 1) or v & single:
                others |= v
            else:
                single |= v
    if not single & 1:  # no register at offset 1: no vector, whatever the other bases
        return ()
    for d, vs in offsets.items():
        if d != "register":
            for v in vs:
                others |= v
    free = single & ~others
    if not free & 1:
        return ()
    if not free & 2:  # a vector of one register, the one at offset 1
        return (regs.index(1),)
    run = (free ^ (free + 1)) >> 1  # the trailing ones of free: offsets 1, 2, ..., 2^(n-1)
    vec = [0] * run.bit_length()
    i = 0
    for v in regs:  # each offset of the run is one register's, and no other register touches the run
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
        return [(g, self.byte(self.offsets[g[0]][g[1]])) for g in self.shape.within_pass]

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
        return AccessPlan(shape, offsets, tile.vector_registers, tuple(rest[:nmat]), tuple(rest[nmat:]))
    return _vector_plan(offsets, element_bits, ins, hw, vector_bits, nz, broadcast)


def _vector_plan(offsets: Mapping[str, tuple[int, ...]], element_bits: int, ins: Instruction, hw: SharedMemory,
                 vector_bits: int | None, nz: Sequence[int], broadcast: bool, facts: _LayoutFacts | None = None
                 ) -> AccessPlan:
    """The plan of an ``ld/st.shared`` access (see :func:`plan_from_offsets`); ``nz`` lists the non-zero
    registers and ``broadcast`` says whether lane bit 0 or 1 has a zero basis.  ``facts`` (from
    :func:`plan_access`) keeps, for the layout's last (instruction, element width, hardware), the shape and the
    issue registers of each vector seen: they depend on the layout only through ``nz`` and ``broadcast``."""
    last = None if facts is None else facts.plans  # (ins, element_bits, hw, context, plans by vector), set at once
    if last is not None and last[0] is ins and last[1] == element_bits and last[2] is hw:
        ctx, plans = last[3], last[4]
    else:
        ctx = PLAN_CONTEXTS.get((id(ins), element_bits, id(hw)))
        if ctx is None or ctx[0] is not ins or ctx[1] is not hw:
            ctx = _context(ins, element_bits, hw)
        plans = None
        if facts is not None:
            plans = {}
            facts.plans = (ins, element_bits, hw, ctx, plans)
    vec = widest_vector(offsets, ctx[2])
    if vector_bits is not None:
        vec = _vector_bits_request(vector_bits, element_bits, vec)
    hit = None if plans is None else plans.get(vec)
    if hit is None:
        key = (len(vec), len(nz), broadcast)
        shape = ctx[3].get(key)
        if shape is None:
            shape = ctx[3][key] = access_shape(ins, element_bits, hw, len(vec), len(nz), broadcast)
        if shape is None:
            access_bits = element_bits << len(vec)
            raise LoweringError(
                f"each lane would access {access_bits} bits, but shared memory is addressed in bytes: "
                f"{element_bits}-bit elements need at least {8 // element_bits} contiguous registers per access"
            )
        hit = (shape, tuple([i for i in nz if i not in vec]) if vec else tuple(nz))
        if plans is not None:
            plans[vec] = hit
    # The plan's fields, set as the dataclass' __init__ would (dict stores instead of frozen setattrs).
    plan = _new(AccessPlan)
    d = plan.__dict__
    d["shape"] = hit[0]
    d["offsets"] = offsets
    d["vector_registers"] = vec
    d["matrix_registers"] = ()
    d["issue_registers"] = hit[1]
    return plan


class _LayoutFacts:
    """What :func:`plan_access` reads off a distributed layout once, kept in the layout's memo: the lanes it was
    checked for, its non-zero registers and whether lane bit 0 or 1 broadcasts (the same in ``C = M⁻¹ ∘ L`` for
    every invertible memory ``M``) and its :func:`~linlayout.count.offsets.column_form`; then, each replaced
    as one tuple (never half-updated), how :func:`_resolve` resolved the last hardware and instruction
    arguments (``query``) and :func:`_vector_plan`'s plans for the last query's context (``plans``)."""

    __slots__ = ("lanes", "nonzero", "broadcast", "form", "query", "plans")

    def __init__(self, lanes: int, nonzero: list[int], broadcast: bool, form: tuple[Any, ...]) -> None:
        self.lanes, self.nonzero, self.broadcast, self.form = lanes, nonzero, broadcast, form
        self.query = self.plans = None


_new = object.__new__


def _context(ins: Instruction, element_bits: int, hw: SharedMemory) -> tuple[Any, ...]:
    """What :func:`plan_from_offsets` reuses per (instruction, element width, hardware), kept by identity:
    ``(ins, hw, vector_cap, {(vector, non-zero registers, broadcast): access_shape})``."""
    return PLAN_CONTEXTS.put((id(ins), element_bits, id(hw)), (ins, hw, vector_cap(element_bits, hw), {}))




def _resolve(hardware: str | SharedMemory | None, instruction: str | Instruction | None, op: str | None,
             facts: _LayoutFacts | None) -> tuple[SharedMemory, Instruction, bool]:
    """``(get_hardware(hardware), parse_instruction(instruction, op))`` and whether that instruction addresses
    matrix rows, remembered in the layout's ``facts`` for the last arguments it was counted with.

    The same argument objects resolve the same way as long as the registries hold the same entries under
    the names those two functions look up (``"sm90"`` for ``None``, a name stripped of whitespace, ``ld.shared``
    or ``st.shared`` for no instruction), which is checked on every use: a model or an instruction registered
    again under that name is seen at once.
    """
    if facts is not None:
        last = facts.query
        if last is not None and last[0] is hardware and last[1] is instruction and last[2] is op:
            hw_key, hw, ins_key, ins = last[3], last[4], last[5], last[6]
            if (hw_key is None or PRESETS.get(hw_key) is hw) and (ins_key is None or INSTRUCTIONS.get(ins_key) is ins):
                return hw, ins, last[7]
    hw = get_hardware(hardware)
    ins = parse_instruction(instruction, op)
    matrix = ins.addressing == MATRIX
    if facts is not None:
        hw_key = "sm90" if hardware is None else hardware.strip() if isinstance(hardware, str) else None
        ins_key = (instruction.strip() if isinstance(instruction, str) else None if instruction is not None
                   else "st.shared" if op is not None and op.strip() == "store" else "ld.shared")
        facts.query = (hardware, instruction, op, hw_key, hw, ins_key, ins, matrix)
    return hw, ins, matrix


_ELEMENT_BITS = frozenset(1 << k for k in range(8))


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
        return _plan_query(layout)
    if type(layout) is LinearLayout:
        lmemo = layout.memo()
        facts = lmemo.get(CHECKED_KEY)
        hw, ins, matrix = _resolve(hardware, instruction, op, facts)
    else:
        hw, ins, matrix = _resolve(hardware, instruction, op, None)
        check_distributed_dims(layout, hw)
        lmemo = layout.memo()
        facts = lmemo.get(CHECKED_KEY)
    if facts is None or facts.lanes != hw.lanes:
        facts = _layout_facts(layout, hw, lmemo)
    if type(element_bits) is not int or element_bits not in _ELEMENT_BITS:
        check_element_bits(element_bits)
    check_capacity(memory, element_bits, hw)
    return _plan_checked(layout, memory, element_bits, ins, hw, matrix, vector_bits, facts)


def _plan_query(query: AccessQuery) -> AccessPlan:
    """The plan of a checked :class:`~linlayout.count.query.AccessQuery`: its model and instruction are resolved
    and its input checked, so only the layout's plan facts are looked up."""
    layout, hw = query.layout, query.hw
    lmemo = layout.memo()
    facts = lmemo.get(CHECKED_KEY)
    if facts is None or facts.lanes != hw.lanes:
        facts = _layout_facts(layout, hw, lmemo)
    ins = query.ins
    return _plan_checked(layout, query.memory, query.element_bits, ins, hw, ins.addressing == MATRIX,
                         query.vector_bits, facts)


def _layout_facts(layout: LinearLayout, hw: SharedMemory, lmemo: dict[Any, Any]) -> _LayoutFacts:
    """Check ``layout`` for ``hw``'s lanes and keep what every plan of it reads (:class:`_LayoutFacts`)."""
    check_distributed_dims(layout, hw)
    form = column_form(layout)
    regs = lanes = ()
    for d, _, _ in form[1]:
        if d == "register":
            regs = layout.flat_bases(d)
        elif d == "lane":
            lanes = layout.flat_bases(d)
    facts = lmemo[CHECKED_KEY] = _LayoutFacts(hw.lanes, list(compress(range(len(regs)), regs)), 0 in lanes[:2],
                                               form)
    return facts


def _plan_checked(layout: LinearLayout, memory: Memory, element_bits: int, ins: Instruction, hw: SharedMemory,
                  matrix: bool, vector_bits: int | None, facts: _LayoutFacts) -> AccessPlan:
    """The plan of checked input: ``C = M⁻¹ ∘ L``, then the matrix tile or the vector rule."""
    if type(memory) is LinearLayout:
        offs = offsets_through_inverse(layout, memory, facts.form)
        if offs is None:
            offs = element_offsets(layout, memory)
    else:
        offs = element_offsets(layout, memory)
    if matrix:
        return plan_from_offsets(offs, element_bits, ins, hw, vector_bits)
    return _vector_plan(offs, element_bits, ins, hw, vector_bits, facts.nonzero, facts.broadcast, facts)
