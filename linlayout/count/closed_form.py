"""The closed form: exact shared-memory wavefronts from layouts (Lemma 9.4 made exact).

Concepts
========

A warp accesses shared memory through a **distributed layout** ``L``
(``register``, ``lane``, optional ``warp``, ``block`` → tensor) and a
**memory layout** ``M`` (``offset`` → tensor, element offsets).  The map
``C = M⁻¹ ∘ L`` sends every hardware index to an element offset; it is
linear, so one instruction's lane addresses form an affine subspace and its
cost follows from subspaces alone, without enumerating lanes:

1. **Plan.**  The access plan (:mod:`linlayout.count.plan`) fixes the
   vector (registers with ``C(r) = 1, 2, 4, ...`` that nothing else
   touches), the instructions (one per combination of the other
   non-broadcast registers), the passes (lane bits that select a pass, or
   one pass per matrix) and the generators that vary inside one pass.
2. **Conflicts.**  The remaining lane bases span a subspace ``T`` of byte
   offsets.  ``K`` is the part of ``T`` whose bank bits (byte bits 2..6) are
   zero: lanes that differ by a vector of ``K`` hit the same bank.  Dropping
   byte bits 0..1 (same 32-bit word = broadcast) leaves ``P``; a pass costs
   ``2^dim(P)`` wavefronts.

So ``wavefronts = instructions x passes x 2^dim(P)``, and only step 2 is
written here: :func:`collisions` is the one implementation of the subspace rule.  This is the paper's
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
>>> from linlayout.catalog.swizzles import unswizzled
>>> read = LinearLayout({"register": [[0, 2], [0, 4], [0, 8], [0, 16]],
...                      "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]}, {"dim0": 16, "dim1": 32})
>>> r = wavefronts(read, unswizzled([16, 32]), 32, "load")
>>> r.wavefronts_per_instruction, r.instructions, r.wavefronts
(16, 16, 256)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from operator import itemgetter
from typing import Any

from ..core import f2
from ..core.layout import LinearLayout
from ..core.memory import PaddedLayout
from ..core.record import record
from ..core.validate import check_int, check_int_sequence
from ..errors import NotLinearError, SizeError
from ..hw import Instruction, SharedMemory, parse_instruction
from .offsets import inverse_columns
from .plan import AccessPlan, AccessShape, Generator, Memory, access_shape, layout_plan, plan_access
from .query import AccessQuery, AddressQuery, address_query
from .speed import REPORT_FIELDS

__all__ = ["ConflictDirection", "WavefrontReport", "wavefronts", "count_plan", "access_wavefronts", "fit_affine"]


# ---------------------------------------------------------------------------
# Result types
# ---------------------------------------------------------------------------


@record
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


@record
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
        if parse_instruction(self.instruction).is_matrix:
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


def collisions(gens: Sequence[tuple[Generator, int]], hw: SharedMemory) -> list[tuple[int, int]]:
    """Basis of the colliding subspace P for the within-pass generators ``(label, byte image)``.

    Returns ``(combo mask over gens, byte image)`` per basis vector of P:
    combinations whose image has all bank bits zero, independent modulo
    same-word differences.
    """
    bank_mask = hw.bank_mask
    if _conflict_free(list(map(_second, gens)), bank_mask):
        return []
    return _colliding(gens, bank_mask, hw.word_shift)


def _colliding(gens: Sequence[tuple[Generator, int]], bank_mask: int, ws: int) -> list[tuple[int, int]]:
    """:func:`collisions` past its first test (``bank_mask`` and the word shift ``ws`` of the model)."""
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


def _conflict_free(images: Sequence[int], bank_mask: int) -> bool:
    """True when the bank parts (``& bank_mask``) of the images are independent: then no combination has all
    bank bits zero, so the colliding subspace is 0 (most accesses; the first test of :func:`collisions`).

    First the usual case: non-zero bank parts whose sum equals their OR have pairwise disjoint bits, so they
    are independent.  Otherwise elimination in insertion order: ``x ^ e < x`` exactly when the leading bit of
    ``e`` is set in ``x``, so each kept vector is reduced by the earlier ones and lacks their leading bits; a
    vector reduces to 0 exactly when it lies in the span of the earlier ones.

    >>> _conflict_free([0b0100, 0b1100, 0b1000], 0b1100), _conflict_free([0b0100, 0b1100], 0b1100)
    (False, True)
    """
    total = union = 0
    for x in images:
        x &= bank_mask
        if not x:
            return False
        total += x
        union |= x
    if total == union:
        return True
    kept: list[int] = []
    for x in images:
        x &= bank_mask
        for e in kept:
            if x ^ e < x:
                x ^= e
        if not x:
            return False
        kept.append(x)
    return True


def conflict_directions(gens: Sequence[tuple[Generator, int]], found: Sequence[tuple[int, int]],
                        layout: LinearLayout | None) -> tuple[ConflictDirection, ...]:
    """The colliding directions of :func:`collisions` as :class:`ConflictDirection` values (tensor XORs when ``layout`` is given)."""
    out = []
    bases = {}  # the layout's flat bases per input dimension, looked up once
    for m, img in found:
        bits = tuple([gens[i][0] for i in f2.bit_indices(m)])
        tensor: dict[str, int] = {}
        if layout is not None:
            acc = 0
            for d, b in bits:
                cols = bases.get(d)
                if cols is None:
                    cols = bases[d] = layout.flat_bases(d)
                acc ^= cols[b]
            tensor = layout.out_coords(acc)
        # The fields, set as the dataclass' __init__ would (dict stores instead of frozen setattrs).
        c = _new(ConflictDirection)
        cd = c.__dict__
        cd["bits"] = bits
        cd["tensor"] = tensor
        cd["byte_offset"] = img
        out.append(c)
    return tuple(out)


# ---------------------------------------------------------------------------
# Closed form
# ---------------------------------------------------------------------------


def wavefronts(
    layout: LinearLayout | AccessQuery,
    memory: Memory | None = None,
    element_bits: int | None = None,
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
        A preset name or a :class:`~linlayout.hw.SharedMemory`.

    Returns a :class:`WavefrontReport`.  A padded memory raises
    :class:`NotLinearError`: use :func:`simulate_wavefronts`.

    Instead of the arguments, one :class:`~linlayout.count.query.AccessQuery`
    (checked when it was built) may be given: ``wavefronts(query)``.

    >>> from linlayout import LinearLayout
    >>> from linlayout.catalog.swizzles import unswizzled
    >>> L = LinearLayout({"register": [[0, 1], [0, 2], [1, 0]], "lane": [[0, 4], [0, 8], [0, 16], [2, 0], [4, 0]]},
    ...                  {"dim0": 8, "dim1": 32})
    >>> r = wavefronts(L, unswizzled([8, 32]), 32, "load")     # paper notes TC11: 128-bit vectors
    >>> r.vector_bits, r.wavefronts_per_instruction, r.passes_per_instruction
    (128, 4, 4)
    >>> wavefronts(AccessQuery(L, unswizzled([8, 32]), 32, "load")) == r
    True
    """
    if type(layout) is AccessQuery:
        _refuse_padded(layout.memory)
        return count_plan(plan_access(layout, memory, element_bits, op, instruction, vector_bits, hardware),
                          layout.layout)
    if type(layout) is LinearLayout and type(memory) is LinearLayout:
        report = _count_through_inverse(layout, memory, element_bits, op, instruction, vector_bits, hardware)
        if report is not None:
            return report
    _refuse_padded(memory)
    return count_plan(plan_access(layout, memory, element_bits, op, instruction, vector_bits, hardware), layout)


def _count_through_inverse(layout: LinearLayout, memory: LinearLayout, element_bits: Any, op: Any, instruction: Any,
                           vector_bits: Any, hardware: Any) -> WavefrontReport | None:
    """:func:`wavefronts` of the common case without building the plan: ``ld/st.shared``, a layout whose bases
    are single bits (or zero) and a square memory of the layout's tile.  The layout's
    :class:`~linlayout.count.plan.LayoutPlan` (kept per layout object) holds every part of the plan but the
    vector; the memory's inverse columns (kept per memory object) give the offsets the vector rule and the
    conflict rule read, by indexing.  None where this does not apply: the general route then plans the
    access, or says what is wrong with it."""
    lp = layout_plan(layout, element_bits, op, instruction, vector_bits, hardware)
    if not lp.direct:
        return None
    hit = inverse_columns(memory)
    if hit is None or hit[0] != lp.out_dims:
        return None
    inv = hit[1]
    vec, entry = lp.vector(inv)
    static = entry.report
    if static is None:  # the first count of this vector: the shape's report fields, kept in the entry
        static = entry.report = _static(entry.shape)
    return _report(static, vec, entry.issue, entry.within(inv), layout)


def _refuse_padded(memory: Memory | None) -> None:
    """:class:`NotLinearError` for a padded memory, which only the simulator counts."""
    if isinstance(memory, PaddedLayout):
        raise NotLinearError(
            f"the padded memory (rows of {memory.pitch} elements) is not a power-of-two pattern, so it is not "
            f"linear over F2; count it with simulate_wavefronts (CLI: linlayout conflicts --simulate)"
        )


def count_plan(plan: AccessPlan, layout: LinearLayout | None = None) -> WavefrontReport:
    """The closed form of a planned access: ``instructions x passes x 2^dim(P)``.

    ``layout`` (the distributed layout the plan came from) only labels the
    conflict directions with tensor coordinates.  :func:`wavefronts` is
    :func:`~linlayout.count.plan.plan_access` followed by this.
    """
    static = _static(plan.shape)
    offsets = plan.offsets
    lanes = static[8]
    # plan.generator_bytes(), with the element offsets of within-pass lanes picked by one itemgetter
    elems = lanes(offsets["lane"]) if lanes is not None else [offsets[d][i] for d, i in static[2]]
    return _report(static, plan.vector_registers, plan.issue_registers, elems, layout)


def _static(shape: AccessShape) -> tuple[Any, ...]:
    """:func:`_static_fields` of a shape, looked up by the shape's identity (checked; see linlayout.count.speed)."""
    static = REPORT_FIELDS.get(id(shape))
    if static is None or static[0] is not shape:
        static = _static_fields(shape)
    return static


def _report(static: tuple[Any, ...], vec: tuple[int, ...], issue: tuple[int, ...], elems: Sequence[int],
            layout: LinearLayout | None) -> WavefrontReport:
    """The report of an access of shape ``static[0]`` (its :func:`_static_fields`) with these vector and issue
    registers, whose within-pass generators have the element offsets ``elems``."""
    _, fields, within, element_bits, bank_mask, word_shift, passes, ni, _, element_bank_mask = static
    # The report's fields, set as the dataclass' __init__ would (one dict update instead of 19 frozen setattrs);
    # ``fields`` holds the conflict-free counts.
    report = _new(WavefrontReport)
    d = report.__dict__
    d.update(fields)
    d["vector_registers"] = vec
    d["instruction_registers"] = issue
    if _conflict_free(elems, element_bank_mask):  # what collisions() returns first, without byte images
        return report
    if element_bits >= 8:
        imgs = list(map((element_bits >> 3).__mul__, elems)) if element_bits != 8 else list(elems)
    else:
        imgs = [(x * element_bits) >> 3 for x in elems]
    gens = list(zip(within, imgs))
    found = _colliding(gens, bank_mask, word_shift)  # collisions() without its first test, just done
    if found:
        ways = 1 << len(found)
        d["wavefronts"] = ni * passes * ways
        d["wavefronts_per_instruction"] = passes * ways
        d["conflict_ways"] = ways
        d["directions"] = conflict_directions(gens, found, layout)
    return report


def _static_fields(shape: AccessShape) -> tuple[Any, ...]:
    """The report fields that depend on the shape alone (the counts those of a conflict-free access), kept by the
    shape's identity (shapes are cached)."""
    ins = shape.instruction
    fields = {
        "wavefronts": shape.base_wavefronts,
        "instructions": shape.instructions,
        "wavefronts_per_instruction": shape.passes,
        "passes_per_instruction": shape.passes,
        "ideal_wavefronts": shape.base_wavefronts,
        "vector_bits": shape.vector_bits,
        "access_bytes": shape.access_bytes,
        "element_bits": shape.element_bits,
        "instruction": ins.name,
        "op": ins.op,
        "hardware": shape.hardware.name,
        "method": "closed form",
        "conflict_ways": 1,
        "directions": (),
        "vector_registers": (),
        "instruction_registers": (),
        "pass_lane_bits": shape.pass_lane_bits,
        "merged_passes": shape.merged,
        "per_instruction": None,
    }
    within = shape.within_pass
    lanes = itemgetter(*[i for _, i in within]) if len(within) >= 2 and all(d == "lane" for d, _ in within) else None
    # The bank bits seen on element offsets: a byte offset is the element offset shifted left by
    # log2(element_bits / 8) (right by log2(8 / element_bits) below a byte), so its bank bits are those of the
    # element offset under the mask shifted the other way, and their independence is the same.
    eb, bank_mask = shape.element_bits, shape.hardware.bank_mask
    element_bank_mask = bank_mask >> (eb.bit_length() - 4) if eb >= 8 else bank_mask << (4 - eb.bit_length())
    return REPORT_FIELDS.put(id(shape), (shape, fields, within, eb, bank_mask, shape.hardware.word_shift, shape.passes,
                                                shape.instructions, lanes, element_bank_mask))


_new = object.__new__
_second = itemgetter(1)


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
    values = check_int_sequence(values, "values")
    n = len(values)
    if n == 0 or n & (n - 1):
        raise SizeError(f"need a power-of-two number of values, got {n}")
    nb = n.bit_length() - 1 if bits is None else check_int(bits, "bits", minimum=0)
    if nb > n.bit_length() - 1:
        raise SizeError(f"bits={nb} needs {1 << nb} values, got {n}")
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
    instruction: str | Instruction | AddressQuery | None,
    op: str | None = None,
    access_bytes: int | None = None,
    lane_byte_offsets: Sequence[int] | None = None,
    hardware: str | SharedMemory | None = "sm90",
) -> WavefrontReport:
    """Closed-form wavefronts of one instruction given by its lane byte offsets.

    The offsets must be an XOR-affine function of the lane index (true for
    every linear layout); otherwise :class:`NotLinearError` says so and points
    to :func:`linlayout.count.simulate.simulate_access`.

    Takes the fields of an :class:`~linlayout.count.query.AddressQuery`, or one.

    >>> access_wavefronts("ld.shared", "load", 8, [0] * 32).wavefronts   # merged broadcast load
    1
    >>> access_wavefronts(AddressQuery("ld.shared", "load", 8, [0] * 32)).wavefronts
    1
    """
    q = address_query(instruction, op, access_bytes, lane_byte_offsets, hardware)
    hw, ins, access_bytes, offs = q.hw, q.ins, q.access_bytes, list(q.lane_byte_offsets)
    if ins.is_matrix:
        # Lanes rows*j .. rows*j + rows - 1 address matrix j: the low lane bits generate its rows.
        _, basis = _fit_lanes(offs[: hw.matrix_rows * ins.matrices])
        gens = [(("lane", i), b) for i, b in enumerate(basis[: hw.matrix_rows.bit_length() - 1])]
        passes, pass_bits, merged = ins.matrices, (), False
    else:
        _, basis = _fit_lanes(offs)
        broadcast = any(i < len(basis) and basis[i] == 0 for i in (0, 1))
        shape = access_shape(ins, access_bytes * 8, hw, 0, 0, broadcast)
        gens = [((d, i), basis[i]) for d, i in shape.within_pass]
        passes, pass_bits, merged = shape.passes, shape.pass_lane_bits, shape.merged
    found = collisions(gens, hw)
    ways = 1 << len(found)
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
        directions=conflict_directions(gens, found, None),
        pass_lane_bits=pass_bits,
        merged_passes=merged,
    )
