"""Conflict counting: exact shared-memory wavefronts from layouts (Lemma 9.4 made exact).

Concepts
========

A warp accesses shared memory through a **distributed layout** ``L``
(``register``, ``lane``, optional ``warp``, ``block`` → tensor) and a
**memory layout** ``M`` (``offset`` → tensor, element offsets).  The map
``C = M⁻¹ ∘ L`` sends every hardware index to an element offset; it is
linear, so one instruction's lane addresses form an affine subspace and its
cost follows from subspaces alone, without enumerating lanes:

1. **Vector.**  The largest set of register bases with ``C(r) = 1, 2, 4, ...``
   (any order) while no other basis touches those low offset bits; each lane
   moves that many elements per access (at most 128 bits).
2. **Instructions.**  One per combination of the other non-broadcast
   registers (a zero register basis holds duplicate data).
3. **Passes.**  Lane bits that select passes are removed (8-byte accesses:
   lane bit 4; 16-byte: lane bits 3 and 4; wide loads whose lane bit 0 or 1
   broadcasts: one bit fewer; ``ldmatrix``/``stmatrix``: one pass per matrix).
4. **Conflicts.**  The remaining lane bases span a subspace ``T`` of byte
   offsets.  ``K`` is the part of ``T`` whose bank bits (byte bits 2..6) are
   zero: lanes that differ by a vector of ``K`` hit the same bank.  Dropping
   byte bits 0..1 (same 32-bit word = broadcast) leaves ``P``; a pass costs
   ``2^dim(P)`` wavefronts.

So ``wavefronts = instructions x passes x 2^dim(P)``.  This is the paper's
Lemma 9.4 (``2^dim(span(Seg) ∩ span(Thr))``) with the pass bits removed,
sub-word accesses counted per 32-bit word, and merged passes for wide
broadcast loads, as measured on an H100 (``tests/data/h100_smem_wavefronts.json``).

Worked example, the 16x32 fp32 transpose (one warp, thread ``t`` reads
``(t % 16, 2r + t // 16)``) against three memory layouts::

    memory                 read wavefronts / instruction   store
    32m + n                16                              1
    32m + (n ^ m)          2                               1
    32m + (n ^ 2m)         1                               1

>>> from linlayout import LinearLayout
>>> from linlayout.swizzles import unswizzled
>>> read = LinearLayout({"register": [[0, 2], [0, 4], [0, 8], [0, 16]],
...                      "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]}, {"dim0": 16, "dim1": 32})
>>> r = wavefronts(read, unswizzled([16, 32]), 32, "load")
>>> r.wavefronts_per_instruction, r.instructions, r.wavefronts
(16, 16, 256)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from . import f2
from .errors import AccessError, DimensionError, LoweringError, NotInvertibleError, NotLinearError, SizeError
from .hardware import Instruction, SharedMemory, get_hardware, parse_instruction
from .layout import LinearLayout
from .swizzles import PaddedLayout

__all__ = [
    "ConflictDirection",
    "WavefrontReport",
    "wavefronts",
    "simulate_wavefronts",
    "access_wavefronts",
    "fit_affine",
    "lane_byte_offsets",
]

Memory = Union[LinearLayout, PaddedLayout]
_KNOWN_INS = ("register", "lane", "warp", "block")


# ---------------------------------------------------------------------------
# Result types
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ConflictDirection:
    """One basis vector of the colliding subspace.

    Lanes (or rows) that differ by ``bits`` (XOR of these hardware bits) hit
    the same bank in different words.  ``tensor`` is the corresponding XOR
    difference of tensor coordinates and ``byte_offset`` that of addresses.
    """

    bits: tuple[tuple[str, int], ...]
    tensor: dict[str, int] = field(compare=False)
    byte_offset: int

    @property
    def lanes(self) -> int:
        """Lane-bit mask of the direction."""
        return sum(1 << b for d, b in self.bits if d == "lane")

    @property
    def registers(self) -> int:
        """Register-bit mask of the direction."""
        return sum(1 << b for d, b in self.bits if d == "register")

    def describe(self) -> str:
        """e.g. ``lane bit 4: tensor (8, 0), byte offset 0x200``."""
        who = " ^ ".join(f"{d} bit {b}" for d, b in self.bits) or "nothing"
        if not self.tensor:
            return f"{who}: byte offset XOR {self.byte_offset:#x}"
        t = "(" + ", ".join(str(v) for v in self.tensor.values()) + ")"
        return f"{who}: tensor XOR {t}, byte offset XOR {self.byte_offset:#x}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "bits": [[d, b] for d, b in self.bits],
            "lanes_mask": self.lanes,
            "registers_mask": self.registers,
            "tensor": dict(self.tensor),
            "byte_offset": self.byte_offset,
        }


@dataclass(frozen=True)
class WavefrontReport:
    """Wavefronts of one warp's access of a tile, with how they arise.

    ``wavefronts`` is the total per warp, ``instructions`` the number of
    instructions per warp, ``wavefronts_per_instruction`` and
    ``passes_per_instruction`` describe one instruction, ``ideal_wavefronts``
    is the conflict-free total (one wavefront per pass), ``conflict_ways``
    the wavefronts per pass (1 means conflict-free) and ``directions`` a
    basis of the colliding subspace.
    """

    wavefronts: int
    instructions: int
    wavefronts_per_instruction: int
    passes_per_instruction: int
    ideal_wavefronts: int
    vector_bits: int
    access_bytes: int
    element_bits: int
    instruction: str
    op: str
    hardware: str
    method: str
    conflict_ways: int
    directions: tuple[ConflictDirection, ...] = ()
    vector_registers: tuple[int, ...] = ()
    instruction_registers: tuple[int, ...] = ()
    pass_lane_bits: tuple[int, ...] = ()
    merged_passes: bool = False
    per_instruction: tuple[int, ...] | None = None

    @property
    def conflict_free(self) -> bool:
        """True when every pass costs one wavefront."""
        return self.wavefronts == self.ideal_wavefronts

    def to_dict(self) -> dict[str, Any]:
        d = {
            "wavefronts": self.wavefronts,
            "instructions": self.instructions,
            "wavefronts_per_instruction": self.wavefronts_per_instruction,
            "passes_per_instruction": self.passes_per_instruction,
            "ideal_wavefronts": self.ideal_wavefronts,
            "conflict_ways": self.conflict_ways,
            "vector_bits": self.vector_bits,
            "access_bytes": self.access_bytes,
            "element_bits": self.element_bits,
            "instruction": self.instruction,
            "op": self.op,
            "hardware": self.hardware,
            "method": self.method,
            "vector_registers": list(self.vector_registers),
            "instruction_registers": list(self.instruction_registers),
            "pass_lane_bits": list(self.pass_lane_bits),
            "merged_passes": self.merged_passes,
            "conflict_directions": [c.to_dict() for c in self.directions],
        }
        if self.per_instruction is not None:
            d["per_instruction"] = list(self.per_instruction)
        return d

    def explain(self) -> str:
        """A short human explanation of the count."""
        lines = []
        if self.instruction.startswith(("ldmatrix", "stmatrix")):
            lines.append(
                f"{self.instruction} ({self.op}), {self.element_bits}-bit elements: "
                f"{self.instructions} instruction(s) per warp, {self.passes_per_instruction} matrices each"
            )
        else:
            if self.method == "closed form (lane offsets)":
                vec = f"{self.access_bytes}-byte accesses"
            elif self.vector_registers:
                vec = (
                    f"{self.vector_bits}-bit vectors ({1 << len(self.vector_registers)} elements from registers "
                    f"{list(self.vector_registers)})"
                )
            else:
                vec = f"one {self.element_bits}-bit element per lane"
            passes = (
                f"{self.passes_per_instruction} passes (split by lane bits {list(self.pass_lane_bits)}"
                + (", merged because lane bit 0 or 1 broadcasts" if self.merged_passes else "")
                + ")"
                if self.passes_per_instruction > 1
                else "1 pass" + (" (merged because lane bit 0 or 1 broadcasts)" if self.merged_passes else "")
            )
            regs = f" (registers {list(self.instruction_registers)})" if self.instruction_registers else ""
            lines.append(
                f"{self.instruction} ({self.op}) of {vec}: {self.instructions} instruction(s) per warp{regs}, "
                f"each in {passes}"
            )
        if self.conflict_ways == 1:
            lines.append("no bank conflicts: every pass costs one wavefront")
        else:
            lines.append(
                f"{self.conflict_ways}-way bank conflict in every pass; colliding directions "
                "(same bank, different word):"
            )
            lines.extend("  " + d.describe() for d in self.directions)
        lines.append(
            f"total {self.wavefronts} wavefronts per warp ({self.method}); conflict-free would be {self.ideal_wavefronts}"
        )
        return "\n".join(lines)


# ---------------------------------------------------------------------------
# The subspace rule
# ---------------------------------------------------------------------------


def _collisions(gens: Sequence[tuple[tuple[str, int], int]], hw: SharedMemory) -> list[tuple[int, int]]:
    """Basis of the colliding subspace P for generators ``(label, byte image)``.

    Returns ``(combo mask over gens, byte image)`` per basis vector of P:
    combinations whose image has all bank bits zero, independent modulo
    same-word differences.
    """
    bank_mask = hw.bank_mask
    ws = hw.word_shift
    # Kernel of the bank projection, tracking combinations.
    ech: dict[int, tuple[int, int, int]] = {}  # lead bit of bank part -> (bank part, image, combo)
    kernel: list[tuple[int, int]] = []
    for i, (_, img) in enumerate(gens):
        b = img & bank_mask
        v = img
        m = 1 << i
        while b:
            h = b.bit_length() - 1
            e = ech.get(h)
            if e is None:
                ech[h] = (b, v, m)
                break
            b ^= e[0]
            v ^= e[1]
            m ^= e[2]
        else:
            kernel.append((m, v))
    # Project onto words (drop the byte-in-word bits) and keep independent ones.
    proj = f2.Span()
    return [(m, v) for m, v in kernel if proj.add(v >> ws)]


def _directions(gens, collisions, layout: LinearLayout | None) -> tuple[ConflictDirection, ...]:
    out = []
    for m, img in collisions:
        bits = tuple(gens[i][0] for i in f2.bit_indices(m))
        tensor: dict[str, int] = {}
        if layout is not None:
            acc = 0
            for d, b in bits:
                acc ^= layout.flat_bases(d)[b]
            tensor = _unflat(layout, acc)
        out.append(ConflictDirection(bits, tensor, img))
    return tuple(out)


def _unflat(layout: LinearLayout, v: int) -> dict[str, int]:
    out = {}
    for n in layout.out_dims:
        b = layout.out_size(n).bit_length() - 1
        out[n] = v & ((1 << b) - 1)
        v >>= b
    return out


# ---------------------------------------------------------------------------
# Planning: from layouts to one instruction's address generators
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    hw: SharedMemory
    ins: Instruction
    element_bits: int
    layout: LinearLayout
    offsets: dict[str, tuple[int, ...]]  # element offset of every basis (C = M^-1 o L)
    vector_regs: tuple[int, ...]
    access_bytes: int
    matrix_regs: tuple[int, ...]
    issue_regs: tuple[int, ...]
    row_gens: tuple[tuple[str, int], ...]  # matrix instructions: generators of the 8 row addresses

    def byte(self, elem_offset: int) -> int:
        return (elem_offset * self.element_bits) >> 3

    @property
    def vector_bits(self) -> int:
        return self.access_bytes * 8 if not self.ins.is_matrix else 32


def _check_layout(layout: LinearLayout, hw: SharedMemory) -> None:
    if not isinstance(layout, LinearLayout):
        raise DimensionError(f"layout must be a LinearLayout, got {type(layout).__name__}")
    for d in layout.in_dims:
        if d not in _KNOWN_INS:
            raise DimensionError(
                f"the distributed layout has an input dimension {d!r}; expected register, lane and optionally "
                f"warp and block"
            )
    lanes = layout.in_sizes.get("lane", 1)
    if lanes != hw.lanes:
        raise SizeError(
            f"the layout has {lanes} lanes but a {hw.name} warp has {hw.lanes}; give all {hw.lanes} lanes "
            f"(a zero lane basis marks lanes that duplicate others)"
        )


def _element_offsets(layout: LinearLayout, memory: Memory) -> dict[str, tuple[int, ...]]:
    """C = M^-1 o L as element offsets per basis (for a padded memory: its unpadded reference)."""
    if isinstance(memory, PaddedLayout):
        memory = memory.reference()
    if not isinstance(memory, LinearLayout):
        raise DimensionError(f"memory must be a LinearLayout or a padded layout, got {type(memory).__name__}")
    if memory.in_dims != ("offset",):
        raise DimensionError(
            f"a memory layout has one input dimension 'offset', got {list(memory.in_dims)}"
        )
    if set(memory.out_dims) != set(layout.out_dims):
        raise DimensionError(
            f"the layout maps onto {list(layout.out_dims)} but the memory layout onto {list(memory.out_dims)}; "
            f"both must name the same tensor dimensions"
        )
    for n in layout.out_dims:
        if layout.out_size(n) > memory.out_size(n):
            raise SizeError(
                f"the layout reaches {n} up to {layout.out_size(n)} but the memory holds only {memory.out_size(n)}"
            )
    try:
        inv = memory.invert()
    except NotInvertibleError as e:
        raise NotInvertibleError(f"the memory layout must be invertible (one element per offset): {e}") from None
    C = layout.compose(inv)
    return {d: C.flat_bases(d) for d in layout.in_dims}


def _max_vector(offs: dict[str, tuple[int, ...]], cap: int) -> list[int]:
    """Registers forming the widest contiguous vector: reg i -> offset 2^i (any order), others clear."""
    regs = offs.get("register", ())
    chosen: list[int] = []
    while len(chosen) < cap:
        k = len(chosen)
        want = 1 << k
        cand = [i for i, v in enumerate(regs) if v == want and i not in chosen]
        if len(cand) != 1:
            break
        trial = chosen + cand
        low = (1 << (k + 1)) - 1
        ok = True
        for d, vs in offs.items():
            for i, v in enumerate(vs):
                if d == "register" and i in trial:
                    continue
                if v & low:
                    ok = False
                    break
            if not ok:
                break
        if not ok:
            break
        chosen = trial
    return chosen


def _plan(
    layout: LinearLayout,
    memory: Memory,
    element_bits: int,
    op: str | None,
    instruction: str | Instruction | None,
    vector_bits: int | None,
    hardware: str | SharedMemory | None,
) -> _Plan:
    hw = get_hardware(hardware)
    ins = parse_instruction(instruction, op)
    _check_layout(layout, hw)
    if isinstance(element_bits, bool) or not isinstance(element_bits, int) or element_bits <= 0 or element_bits & (element_bits - 1) or element_bits > 128:
        raise SizeError(f"element_bits must be a power of two from 1 to 128, got {element_bits!r}")
    offs = _element_offsets(layout, memory)
    regs = offs.get("register", ())
    nz = [i for i, v in enumerate(regs) if v]
    if ins.is_matrix:
        return _plan_matrix(layout, hw, ins, element_bits, offs, nz, vector_bits)
    max_access = max(hw.access_sizes()) * 8
    cap_k = max(0, (max_access // element_bits).bit_length() - 1)
    vec = _max_vector(offs, cap_k)
    if vector_bits is not None:
        if isinstance(vector_bits, bool) or not isinstance(vector_bits, int) or vector_bits <= 0 or vector_bits & (vector_bits - 1):
            raise SizeError(f"vector_bits must be a power of two, got {vector_bits!r}")
        if vector_bits < element_bits:
            raise LoweringError(f"vector_bits={vector_bits} is narrower than one {element_bits}-bit element")
        want = (vector_bits // element_bits).bit_length() - 1
        if want > len(vec):
            raise LoweringError(
                f"vector_bits={vector_bits} needs {1 << want} contiguous elements per lane, but only "
                f"{1 << len(vec)} are (registers {vec} map to offsets 1, 2, ...; at most "
                f"{element_bits << len(vec)} bits)"
            )
        vec = vec[:want]
    access_bits = element_bits << len(vec)
    if access_bits < 8:
        raise LoweringError(
            f"each lane would access {access_bits} bits, but shared memory is addressed in bytes: "
            f"{element_bits}-bit elements need at least {8 // element_bits} contiguous registers per access"
        )
    issue = tuple(i for i in nz if i not in vec)
    return _Plan(hw, ins, element_bits, layout, offs, tuple(vec), access_bits // 8, (), issue, ())


def _check_matrix_instruction(hw: SharedMemory, ins: Instruction, element_bits: int, vector_bits: int | None) -> None:
    """The obstacles to an ``ldmatrix``/``stmatrix`` access that depend on neither layout."""
    name = ins.name
    if not hw.matrix_rows:
        raise LoweringError(f"{hw.name} has no {ins.kind}")
    if hw.lanes != 32 or hw.matrix_rows != 8 or hw.matrix_row_bytes != 16:
        raise LoweringError(f"{ins.kind} is modelled only for 32-lane warps with 8 rows of 16 bytes")
    if element_bits not in (8, 16, 32):
        raise LoweringError(f"{name} moves 8-, 16- or 32-bit elements, not {element_bits}-bit")
    if vector_bits not in (None, 32):
        raise LoweringError(f"{name} gives each lane one 32-bit register per matrix; vector_bits must be 32")
    if ins.trans and element_bits != 16:
        raise LoweringError(f"{name} transposes 16-bit elements only, not {element_bits}-bit")


def _matrix_vector(ins: Instruction, element_bits: int) -> tuple[int, ...]:
    """The register bits inside one lane's 32-bit register of a matrix row (the row's contiguous elements)."""
    return (0,) if ins.trans else tuple(range((32 // element_bits).bit_length() - 1))


def _matrix_registers(ins: Instruction, element_bits: int, nz: Sequence[int]) -> tuple[list[int], int]:
    """The non-broadcast register bits left for choosing matrices and instructions, and how many pick matrices.

    Depends on the distributed layout only; raises when there are too few for ``.xN``.
    """
    vec = _matrix_vector(ins, element_bits)
    rest = [i for i in nz if i not in vec]
    nmat = ins.matrices.bit_length() - 1
    if len(rest) < nmat:
        raise LoweringError(
            f"{ins.name} loads {ins.matrices} matrices per instruction, which needs {nmat} more non-broadcast register "
            f"bit(s) per lane; the layout has {len(rest)}: use .x{1 << len(rest)}"
        )
    return rest, nmat


def _plan_matrix(layout, hw, ins, element_bits, offs, nz, vector_bits) -> _Plan:
    name = ins.name
    _check_matrix_instruction(hw, ins, element_bits, vector_bits)
    regs = offs.get("register", ())
    lanes = offs["lane"]
    rowelems = 128 // element_bits  # elements per 16-byte row

    def need(cond: bool, msg: str) -> None:
        if not cond:
            raise LoweringError(
                f"{name} cannot access this layout (paper Thm. 5.1: it is not left-divisible by the "
                f"{name} tile): {msg}"
            )

    if not ins.trans:
        kv = (32 // element_bits).bit_length() - 1  # registers inside one 32-bit lane register
        need(len(regs) >= kv, f"it needs {kv} register bits for the {32 // element_bits} elements of a 32-bit register")
        for i in range(kv):
            need(regs[i] == 1 << i, f"register bit {i} maps to offset {regs[i]}, the tile needs {1 << i}")
        need(lanes[0] == 1 << kv, f"lane bit 0 maps to offset {lanes[0]}, the tile needs {1 << kv} (byte 4)")
        need(lanes[1] == 1 << (kv + 1), f"lane bit 1 maps to offset {lanes[1]}, the tile needs {1 << (kv + 1)} (byte 8)")
        tile = {("register", i) for i in range(kv)} | {("lane", 0), ("lane", 1)}
        row_gens = (("lane", 2), ("lane", 3), ("lane", 4))
    else:
        need(len(regs) >= 1, "it needs register bit 0 (two rows per 32-bit register)")
        for j, lb in enumerate((2, 3, 4)):
            need(lanes[lb] == 1 << j, f"lane bit {lb} maps to offset {lanes[lb]}, the transposed tile needs {1 << j}")
        tile = {("lane", 2), ("lane", 3), ("lane", 4)}
        row_gens = (("register", 0), ("lane", 0), ("lane", 1))
    low = rowelems - 1
    for d, vs in offs.items():
        for i, v in enumerate(vs):
            if (d, i) in tile:
                continue
            need(v & low == 0, f"{d} bit {i} maps to offset {v}, which is not a multiple of a 16-byte row ({rowelems} elements)")
    rest, nmat = _matrix_registers(ins, element_bits, nz)
    vec = _matrix_vector(ins, element_bits)
    return _Plan(hw, ins, element_bits, layout, offs, vec, 16, tuple(rest[:nmat]), tuple(rest[nmat:]), row_gens)


# ---------------------------------------------------------------------------
# Closed form
# ---------------------------------------------------------------------------


def wavefronts(
    layout: LinearLayout,
    memory: Memory,
    element_bits: int,
    op: str | None = None,
    instruction: str | Instruction | None = None,
    vector_bits: int | None = None,
    hardware: str | SharedMemory | None = "sm90",
) -> WavefrontReport:
    """Exact wavefronts of one warp accessing a tile, in closed form (no lane enumeration).

    Parameters
    ----------
    layout
        Distributed layout (``register``, ``lane``, optional ``warp``, ``block``
        → tensor dims).  Broadcast bases, non-unit bases and layouts that do
        not cover the whole tensor are accepted.
    memory
        Memory layout (``offset`` → the same tensor dims, element offsets), invertible.
    element_bits
        Bits per element (1..128, a power of two).
    op, instruction
        ``"load"``/``"store"`` and the instruction: ``ld.shared``/``st.shared``
        (default from ``op``), ``ldmatrix.x1/.x2/.x4`` or ``stmatrix...``
        (optionally ``.trans``), which are first checked against the layout
        (paper Thm. 5.1) and raise :class:`LoweringError` naming the obstacle.
    vector_bits
        Ask for a narrower vector than the widest possible.
    hardware
        A preset name or a :class:`~linlayout.hardware.SharedMemory`.

    Returns a :class:`WavefrontReport`.  A padded memory raises
    :class:`NotLinearError`: use :func:`simulate_wavefronts`.

    >>> from linlayout import LinearLayout
    >>> from linlayout.swizzles import unswizzled
    >>> L = LinearLayout({"register": [[0, 1], [0, 2], [1, 0]], "lane": [[0, 4], [0, 8], [0, 16], [2, 0], [4, 0]]},
    ...                  {"dim0": 8, "dim1": 32})
    >>> r = wavefronts(L, unswizzled([8, 32]), 32, "load")     # paper notes TC11: 128-bit vectors
    >>> r.vector_bits, r.wavefronts_per_instruction, r.passes_per_instruction
    (128, 4, 4)
    """
    if isinstance(memory, PaddedLayout):
        raise NotLinearError(
            f"the padded memory (rows of {memory.pitch} elements) is not a power-of-two pattern, so it is not "
            f"linear over F2; count it with simulate_wavefronts (CLI: linlayout conflicts --simulate)"
        )
    plan = _plan(layout, memory, element_bits, op, instruction, vector_bits, hardware)
    hw = plan.hw
    ins = plan.ins
    if ins.is_matrix:
        gens = [(g, plan.byte(plan.offsets[g[0]][g[1]])) for g in plan.row_gens]
        passes = ins.matrices
        pass_bits: tuple[int, ...] = ()
        merged = False
    else:
        lanes = plan.offsets["lane"]
        lane_bytes = [plan.byte(v) for v in lanes]
        merged = bool(
            ins.op == "load"
            and hw.merge_broadcast_loads
            and plan.access_bytes > hw.bank_bytes
            and (lane_bytes[0] == 0 or lane_bytes[1] == 0)
        )
        pass_bits = hw.pass_lane_bits(plan.access_bytes, ins.op, merged)
        passes = 1 << len(pass_bits)
        gens = [(("lane", i), b) for i, b in enumerate(lane_bytes) if i not in pass_bits]
    coll = _collisions(gens, hw)
    ways = 1 << len(coll)
    n_ins = 1 << len(plan.issue_regs)
    per = passes * ways
    return WavefrontReport(
        wavefronts=n_ins * per,
        instructions=n_ins,
        wavefronts_per_instruction=per,
        passes_per_instruction=passes,
        ideal_wavefronts=n_ins * passes,
        vector_bits=plan.vector_bits,
        access_bytes=plan.access_bytes,
        element_bits=element_bits,
        instruction=ins.name,
        op=ins.op,
        hardware=hw.name,
        method="closed form",
        conflict_ways=ways,
        directions=_directions(gens, coll, layout),
        vector_registers=plan.vector_regs,
        instruction_registers=plan.issue_regs,
        pass_lane_bits=pass_bits,
        merged_passes=merged,
    )


# ---------------------------------------------------------------------------
# Simulation from layouts
# ---------------------------------------------------------------------------


def _address_fn(plan: _Plan, memory: Memory) -> Callable[[int, int], int]:
    """(register value, lane value) -> byte address, for warp 0 / block 0."""
    if isinstance(memory, PaddedLayout):
        L = plan.layout

        def addr(reg: int, lane: int) -> int:
            coords = L.apply({"register": reg, "lane": lane} if "register" in L.in_sizes else {"lane": lane})
            return (memory.offset(coords) * plan.element_bits) >> 3

        return addr
    regs = plan.offsets.get("register", ())
    lanes = plan.offsets["lane"]

    def addr(reg: int, lane: int) -> int:
        v = 0
        for i in f2.bit_indices(reg):
            v ^= regs[i]
        for i in f2.bit_indices(lane):
            v ^= lanes[i]
        return (v * plan.element_bits) >> 3

    return addr


def lane_byte_offsets(
    layout: LinearLayout,
    memory: Memory,
    element_bits: int,
    op: str | None = None,
    instruction: str | Instruction | None = None,
    vector_bits: int | None = None,
    hardware: str | SharedMemory | None = "sm90",
) -> list[list[int]]:
    """Every instruction's lane byte offsets for warp 0, as :func:`simulate_wavefronts` feeds the simulator.

    Same arguments as :func:`simulate_wavefronts`.  For ``.xN`` matrix
    instructions, lanes ``8j..8j+7`` hold the row addresses of matrix ``j``
    and the unused lanes repeat lane 0.

    >>> from linlayout import LinearLayout
    >>> from linlayout.swizzles import unswizzled
    >>> L = LinearLayout({"lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]}, {"dim0": 1, "dim1": 32})
    >>> lane_byte_offsets(L, unswizzled([1, 32]), 32, "store")[0][:4]
    [0, 4, 8, 12]
    """
    plan = _plan(layout, memory, element_bits, op, instruction, vector_bits, hardware)
    return _instruction_offsets(plan, memory)


def _instruction_offsets(plan: _Plan, memory: Memory) -> list[list[int]]:
    addr = _address_fn(plan, memory)
    hw = plan.hw
    out = []
    for x in range(1 << len(plan.issue_regs)):
        reg = 0
        for j, r in enumerate(plan.issue_regs):
            if x >> j & 1:
                reg |= 1 << r
        if not plan.ins.is_matrix:
            out.append([addr(reg, l) for l in range(hw.lanes)])
            continue
        lanes = [0] * hw.lanes
        for j in range(plan.ins.matrices):
            mreg = reg
            for t, r in enumerate(plan.matrix_regs):
                if j >> t & 1:
                    mreg |= 1 << r
            for row in range(8):
                rr, ll = mreg, 0
                for t, (d, b) in enumerate(plan.row_gens):
                    if row >> t & 1:
                        if d == "register":
                            rr |= 1 << b
                        else:
                            ll |= 1 << b
                lanes[8 * j + row] = addr(rr, ll)
        for l in range(8 * plan.ins.matrices, hw.lanes):
            lanes[l] = lanes[0]
        out.append(lanes)
    return out


def simulate_wavefronts(
    layout: LinearLayout,
    memory: Memory,
    element_bits: int,
    op: str | None = None,
    instruction: str | Instruction | None = None,
    vector_bits: int | None = None,
    hardware: str | SharedMemory | None = "sm90",
) -> WavefrontReport:
    """Wavefronts of warp 0 by brute force: every lane address through the simulator.

    Same arguments as :func:`wavefronts`; also accepts a padded memory
    (:func:`linlayout.swizzles.padded`).  The vector, instruction registers
    and matrix grouping are chosen exactly as in :func:`wavefronts` (for a
    padded memory, from its unpadded reference), so the two agree on every
    linear layout.

    >>> from linlayout import LinearLayout
    >>> from linlayout.swizzles import padded
    >>> col_read = LinearLayout({"lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 32})
    >>> simulate_wavefronts(col_read, padded([32, 32], 1), 32, "load").wavefronts
    1
    """
    import numpy as np

    from .simulate import simulate_access, simulate_batch

    plan = _plan(layout, memory, element_bits, op, instruction, vector_bits, hardware)
    hw = plan.hw
    ins = plan.ins
    offs = _instruction_offsets(plan, memory)
    try:
        counts = simulate_batch(ins.name, ins.op, plan.access_bytes, np.array(offs, dtype=np.int64), hw).tolist()
    except AccessError as e:
        raise AccessError(f"the layout and memory give a misaligned access: {e}") from None
    first = simulate_access(ins.name, ins.op, plan.access_bytes, offs[0], hw)
    passes = len(first.passes)
    per = max(counts)
    return WavefrontReport(
        wavefronts=sum(counts),
        instructions=len(counts),
        wavefronts_per_instruction=per,
        passes_per_instruction=passes,
        ideal_wavefronts=len(counts) * passes,
        vector_bits=plan.vector_bits,
        access_bytes=plan.access_bytes,
        element_bits=element_bits,
        instruction=ins.name,
        op=ins.op,
        hardware=hw.name,
        method="simulation",
        conflict_ways=max(p.wavefronts for p in first.passes) if first.passes else 1,
        vector_registers=plan.vector_regs,
        instruction_registers=plan.issue_regs,
        pass_lane_bits=() if ins.is_matrix else hw.pass_lane_bits(plan.access_bytes, ins.op, first.merged),
        merged_passes=first.merged,
        per_instruction=tuple(counts),
    )


# ---------------------------------------------------------------------------
# Address-level closed form
# ---------------------------------------------------------------------------


def fit_affine(values: Sequence[int], bits: int | None = None) -> tuple[int, list[int]]:
    """Fit ``values[l] = c ^ XOR(basis[i] for set bits i of l)``; raise NotLinearError if impossible.

    >>> fit_affine([5, 7, 1, 3])
    (5, [2, 4])
    >>> fit_affine([0, 3, 6, 9])
    Traceback (most recent call last):
    ...
    linlayout.errors.NotLinearError: values are not an XOR-affine function of the index: index 3 is 9, the fit predicts 0 ^ 3 ^ 6 = 5; count it with the simulator instead
    """
    n = len(values)
    if n == 0 or n & (n - 1):
        raise SizeError(f"need a power-of-two number of values, got {n}")
    nb = n.bit_length() - 1 if bits is None else bits
    c = values[0]
    basis = [values[1 << i] ^ c for i in range(nb)]
    for l in range(1 << nb):
        v = c
        for i in f2.bit_indices(l):
            v ^= basis[i]
        if v != values[l]:
            parts = " ^ ".join([str(c)] + [str(basis[i]) for i in f2.bit_indices(l)])
            raise NotLinearError(
                f"values are not an XOR-affine function of the index: index {l} is {values[l]}, the fit predicts "
                f"{parts} = {v}; count it with the simulator instead"
            )
    return c, basis


def _fit_lanes(offs: Sequence[int]) -> tuple[int, list[int]]:
    try:
        return fit_affine(offs)
    except NotLinearError as e:
        detail = str(e).split(": ", 1)[1].split("; ")[0].replace("index", "lane")
        raise NotLinearError(
            f"the lane byte offsets are not an XOR-affine function of the lane index ({detail}), so the closed "
            f"form does not apply; count them with simulate_access (CLI: linlayout conflicts --simulate)"
        ) from None


def access_wavefronts(
    instruction: str | None,
    op: str | None,
    access_bytes: int,
    lane_byte_offsets: Sequence[int],
    hardware: str | SharedMemory | None = "sm90",
) -> WavefrontReport:
    """Closed-form wavefronts of one instruction given by its lane byte offsets.

    The offsets must be an XOR-affine function of the lane index (true for
    every linear layout); otherwise :class:`NotLinearError` says so and points
    to :func:`linlayout.simulate.simulate_access`.

    >>> access_wavefronts("ld.shared", "load", 8, [0] * 32).wavefronts   # merged broadcast load
    1
    """
    from .simulate import _check_offsets

    hw = get_hardware(hardware)
    ins = parse_instruction(instruction, op)
    if ins.is_matrix:
        offs = _check_offsets(lane_byte_offsets, hw.lanes, hw.matrix_row_bytes)
        if access_bytes != hw.matrix_row_bytes:
            raise AccessError(f"{ins.name} moves {hw.matrix_row_bytes}-byte rows; access_bytes must be {hw.matrix_row_bytes}")
        used = offs[: 8 * ins.matrices]
        _, basis = _fit_lanes(used)
        gens = [(("lane", i), b) for i, b in enumerate(basis[:3])]
        passes, pass_bits, merged = ins.matrices, (), False
    else:
        from .hardware import check_access_bytes

        check_access_bytes(access_bytes, hw)
        offs = _check_offsets(lane_byte_offsets, hw.lanes, access_bytes)
        _, basis = _fit_lanes(offs)
        merged = bool(
            ins.op == "load" and hw.merge_broadcast_loads and access_bytes > hw.bank_bytes and (basis[0] == 0 or basis[1] == 0)
        )
        pass_bits = hw.pass_lane_bits(access_bytes, ins.op, merged)
        passes = 1 << len(pass_bits)
        gens = [(("lane", i), b) for i, b in enumerate(basis) if i not in pass_bits]
    coll = _collisions(gens, hw)
    ways = 1 << len(coll)
    return WavefrontReport(
        wavefronts=passes * ways,
        instructions=1,
        wavefronts_per_instruction=passes * ways,
        passes_per_instruction=passes,
        ideal_wavefronts=passes,
        vector_bits=access_bytes * 8,
        access_bytes=access_bytes,
        element_bits=access_bytes * 8,
        instruction=ins.name,
        op=ins.op,
        hardware=hw.name,
        method="closed form (lane offsets)",
        conflict_ways=ways,
        directions=_directions(gens, coll, None),
        pass_lane_bits=pass_bits,
        merged_passes=merged,
    )
