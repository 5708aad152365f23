"""Synthesis: the optimal shared-memory swizzle for a write layout and a read layout.

Concepts
========

A tile is written to shared memory by one distributed layout and read back
by another.  Both accesses go through the same **memory layout** ``M``
(``offset`` → tensor).  Offsets are split by what their bits mean to the
hardware (for 32-bit elements: bits 0-4 choose the bank, bits 5 and up the
128-byte row, the "segment")::

    offset bits:   | vector | word fill | bank bits      | segment bits   |
    byte address:  |   within a 4-byte word  | bytes 2..6 | bytes 7..      |

``M``'s columns (one tensor direction per offset bit) are chosen in that
order:

1. **Vector**: register directions common to both layouts (at most 128
   bits), so each lane moves a contiguous vector on both sides.
2. **Extension**: registers of *one* side placed right after the vector,
   widening that side's vector (below 32 bits this halves its wavefronts per
   step; above, it saves instructions).  At most one side can be extended: a
   direction that is a register of both sides is already in the vector.
3. **Word fill**: if the vector stops short of a 32-bit word, the rest of
   the word takes lane directions, so lanes that differ there share a word.
4. **Segment** columns avoid the lanes of each pass as far as dimensions
   allow (Lemma 9.5 generalised), and the **bank** columns complete the
   space: first directions that are no pass lane, then pairs ``e ^ f`` of a
   write-only and a read-only lane, then unpaired lanes.  This meets both
   sides' Grassmann bounds at once: ``conflicts_X = max(0, lanes_X -
   bank_bits)`` per pass (in log2 ways).

A pass costs ``2^conflicts`` wavefronts (see :mod:`linlayout.count`), an
instruction ``passes x`` that, a side ``instructions x`` that.

The pipeline
============

One module per stage; each is plain functions over small immutable records,
and the paper's letters are mapped to these names once, in
:mod:`linlayout.synth.candidates`:

* :mod:`.sides` — the problem: each layout reduced to flat tensor
  directions (:class:`~linlayout.synth.sides.Side`), the offset geometry, and
  :class:`~linlayout.synth.sides.SwizzleProblem` (the validated query);
* :mod:`.candidates` — candidate memories of two distributed layouts (low
  blocks, word fills, bank and segment completion), each with its cost in
  closed form before it is built; :mod:`.mixed` — candidates for layouts
  with mixed, repeated or dependent bases;
* :mod:`.scoring` — the exact cost of a memory on each side, as the counter
  reports it, and when the closed form already is that cost;
* :mod:`.bounds` — the proof: the search floor (no memory has a smaller
  key) and the relaxation (``optimal=True`` when the result meets it);
* :mod:`.search` — score, stop at the floor, build the best, confirm it
  exactly;
* :mod:`.result` — :class:`SwizzleResult`; :mod:`.speed` — every speed
  device, each with the reason it exists.

This module validates the query (:class:`SwizzleQuery`, or the keyword
arguments of :func:`optimal_swizzle`), runs the search and builds the result.
What a query's shape alone decides (the checks, the geometry, the instruction
options, how to read each side) is a :class:`QueryShape`, found once per
shape; per call only the two sides are read off the layouts' bases.
Ties go to the first candidate, so the answer is that of the full search.
The proof is in ``paper_notes/synthesis.md``.

>>> from linlayout import LinearLayout
>>> SH = {"dim0": 16, "dim1": 32}
>>> store = LinearLayout({"register": [[1, 0], [2, 0], [4, 0], [8, 0]],
...                       "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]}, SH)
>>> read = LinearLayout({"register": [[0, 2], [0, 4], [0, 8], [0, 16]],
...                      "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]}, SH)
>>> res = optimal_swizzle(store, read, 32)
>>> res.write_wavefronts, res.read_wavefronts, res.optimal, res.write_instructions   # 128-bit stores
(16, 16, True, 4)
>>> optimal_swizzle(store, read, 32, vector_bits=32).segment   # 32-bit accesses: offset = 32m + (n ^ 2m)
((1, 2), (2, 4), (4, 8), (8, 16))
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from ..core.dims import DimSpec
from ..core.layout import LinearLayout
from ..core.record import record
from ..core.validate import check_keyword, check_sequence
from ..count.plan import check_element_bits, check_tile_bytes
from ..errors import DimensionError, LoweringError, SizeError, SwizzleError
from ..hw import Instruction, SharedMemory, get_hardware, parse_instruction
from .bounds import OBJECTIVES, objective_key
from .policy import DEFAULT_OBJECTIVE, LDST_INSTRUCTIONS, default_instructions
from .result import SwizzleResult, build_result
from .search import SearchOutcome, search_distributed, search_mixed
from .sides import Geometry, SideReader, SwizzleProblem, geometry, read_side, side_reader
from .speed import named_options_of, new_record, query_shape_of, reader_of

__all__ = ["SwizzleQuery", "SwizzleResult", "optimal_swizzle", "OBJECTIVES"]


@record
class SwizzleQuery:
    """A swizzle query as one immutable value: the arguments of :func:`optimal_swizzle`, checked on creation.

    The fields, their defaults and the checks are those of
    :func:`optimal_swizzle` (same errors, in the same order); ``objective``
    is kept as checked (surrounding whitespace removed) and ``instructions``
    as a tuple of names.  ``optimal_swizzle(query)`` answers it.

    >>> from linlayout import LinearLayout
    >>> W = LinearLayout({"register": [[1]], "lane": [[2], [4], [8], [16], [32]]}, {"i": 64})
    >>> q = SwizzleQuery(W, W, 16, objective=" read ")
    >>> q.objective, q.hardware, q.instructions
    ('read', 'sm90', None)
    >>> optimal_swizzle(q).read_wavefronts == optimal_swizzle(W, W, 16, objective="read").read_wavefronts
    True
    """

    write: LinearLayout
    read: LinearLayout
    element_bits: int
    hardware: str | SharedMemory | None = "sm90"
    objective: str = DEFAULT_OBJECTIVE
    vector_bits: int | None = None
    instructions: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        problem = swizzle_problem(self.write, self.read, self.element_bits, self.hardware, self.objective,
                                  self.vector_bits, self.instructions)
        object.__setattr__(self, "objective", problem.objective)
        if self.instructions is not None:
            names = (self.instructions,) if isinstance(self.instructions, str) else tuple(self.instructions)
            object.__setattr__(self, "instructions", names)
        object.__setattr__(self, "_checked_problem", problem)  # the checked problem, kept for optimal_swizzle (no field)


class _Required:
    """The default of ``read`` and ``element_bits``: they may be left out only when ``write`` is a query."""

    def __repr__(self) -> str:
        return "<required unless write is a SwizzleQuery>"


_REQUIRED: Any = _Required()


def optimal_swizzle(
    write: LinearLayout | SwizzleQuery,
    read: LinearLayout = _REQUIRED,
    element_bits: int = _REQUIRED,
    hardware: str | SharedMemory | None = "sm90",
    objective: str = DEFAULT_OBJECTIVE,
    vector_bits: int | None = None,
    instructions: Sequence[str] | None = None,
) -> SwizzleResult:
    """The memory layout with the fewest wavefronts for writing with ``write`` and reading with ``read``.

    Parameters
    ----------
    write, read
        Distributed layouts (``register``, ``lane``, optional ``warp``,
        ``block``) onto the same tensor; broadcast registers and lanes are fine.
    element_bits
        Bits per element (a power of two, 1 to 128).
    hardware
        Bank model (default the measured ``sm90``).
    objective
        How unavoidable costs are split: ``"balanced"`` (minimise the larger
        side, then the sum), ``"read"``, ``"write"`` (that side first) or
        ``"sum"``.  Wavefronts first, then the number of instructions.
    vector_bits
        Ask for narrower vectors than the widest common one (both sides then
        use exactly this width with ld/st.shared).
    instructions
        Let the synthesizer choose instructions per side from this list
        (``st.shared``, ``stmatrix.x4``, ``ld.shared``, ``ldmatrix.x2.trans``,
        ...); stores apply to the write side and loads to the read side.
        Default: the policy's (:func:`linlayout.synth.policy.default_instructions`):
        ``st.shared`` and ``ld.shared``, then every ``stmatrix``/``ldmatrix``
        form that can move ``element_bits``-bit elements.

    Or one :class:`SwizzleQuery` (``optimal_swizzle(query)``), alone.

    Returns a :class:`SwizzleResult`.  Raises :class:`SwizzleError` (a
    ``ValueError``) when the layouts cannot share a memory layout as asked.
    """
    if isinstance(write, SwizzleQuery):
        if not (read is _REQUIRED and element_bits is _REQUIRED and hardware == "sm90" and objective == DEFAULT_OBJECTIVE
                and vector_bits is None and instructions is None):
            raise TypeError("optimal_swizzle takes a SwizzleQuery alone (its fields hold the other arguments)")
        problem, layouts = write._checked_problem, (write.write, write.read)
    else:
        if read is _REQUIRED or element_bits is _REQUIRED:
            raise TypeError(f"optimal_swizzle() missing required argument: '{'read' if read is _REQUIRED else 'element_bits'}'")
        problem = swizzle_problem(write, read, element_bits, hardware, objective, vector_bits, instructions)
        layouts = (write, read)
    return build_result(problem, search(problem), layouts)


def search(problem: SwizzleProblem) -> SearchOutcome:
    """The search that fits the problem's layouts (distributed, or with mixed bases)."""
    sides = problem.sides
    if sides["write"].distributed and sides["read"].distributed:
        return search_distributed(problem)
    return search_mixed(problem)


def swizzle_problem(write: LinearLayout, read: LinearLayout, element_bits: int, hardware: str | SharedMemory | None,
                    objective: str, vector_bits: int | None, instructions: Sequence[str] | None) -> SwizzleProblem:
    """The query checked (in the order of :func:`optimal_swizzle`'s documented errors) and reduced to the
    pipeline's :class:`~linlayout.synth.sides.SwizzleProblem`.

    What depends on the query's shape alone is found once per shape (:func:`query_shape`, remembered by
    :func:`~linlayout.synth.speed.query_shape_of`); per call, only the two sides are read off the layouts'
    bases (:func:`~linlayout.synth.sides.read_side`, which checks that each reaches every tensor element).
    """
    hw = get_hardware(hardware)
    shape = query_shape_of(query_shape, write, read, element_bits, hw, objective, vector_bits, instructions)
    sw, sr = read_side(write, shape.write_reader), read_side(read, shape.read_reader)
    rr = sr.reg_set
    common = list(filter(rr.__contains__, sw.regs))  # in the write side's register order; rr holds no 0
    if not sw.distributed:  # repeated register images
        common = list(dict.fromkeys(common))
    return new_record(SwizzleProblem, ({"write": sw, "read": sr}, shape.write_options, shape.read_options, common,
                                       shape.geo, hw, shape.fixed_vector, shape.objective, element_bits, vector_bits))


class QueryShape(NamedTuple):
    """What a query's checks and the pipeline need of its shape alone: the layouts' input and output dimensions,
    the element width, the model, the objective, the vector width and the instructions (built by
    :func:`query_shape`, which checks them)."""

    hw: SharedMemory
    objective: str  # as checked (surrounding whitespace removed)
    geo: Geometry
    write_options: tuple[Instruction, ...]
    read_options: tuple[Instruction, ...]
    fixed_vector: int | None  # the requested vector width in log2 elements, or None
    write_reader: SideReader
    read_reader: SideReader


def query_shape(write: LinearLayout, read: LinearLayout, element_bits: int, hw: SharedMemory, objective: str,
                vector_bits: int | None, instructions: Sequence[str] | None) -> QueryShape:
    """The :class:`QueryShape` of a query, every check of :func:`optimal_swizzle` made in its documented order
    (``hw`` is the model already found).  The two sides are read here too, in that order, for the check that
    each reaches every tensor element (the sides stay on their layouts: :func:`swizzle_problem` finds them
    there)."""
    objective = check_keyword(objective, "objective", OBJECTIVES, error=SwizzleError)
    check_element_bits(element_bits)
    if not isinstance(write, LinearLayout) or not isinstance(read, LinearLayout):
        raise DimensionError("write and read must be LinearLayout objects")
    outs = write.out_dim_bits
    geo, defaults = tile_facts(outs, element_bits, hw)
    if outs != read.out_dim_bits and sorted(outs) != sorted(read.out_dim_bits):
        raise DimensionError(
            f"write and read must cover the same tensor: {write.out_sizes} vs {read.out_sizes}"
        )
    # A new query shape often pairs a side shape, or instruction names, seen before: both found by those.
    write_reader = reader_of(side_reader, "write", "store", write, hw, outs)
    read_side(write, write_reader)
    read_reader = reader_of(side_reader, "read", "load", read, hw, outs)
    read_side(read, read_reader)
    w_opts, r_opts = defaults if instructions is None else named_options_of(instruction_options, instructions)
    fixed = None if vector_bits is None else fixed_vector_width(vector_bits, element_bits, geo.max_vector, hw)
    return QueryShape(hw, objective, geo, w_opts, r_opts, fixed, write_reader, read_reader)


@lru_cache(maxsize=256)
def tile_facts(outs: DimSpec, element_bits: int, hw: SharedMemory) -> tuple[Geometry, tuple[tuple[Instruction, ...],
                                                                                            tuple[Instruction, ...]]]:
    """What a query's checks and the pipeline need of the tile's shape alone, found once per shape: the tile
    checked against the model's shared memory (``check_tile_bytes``, which raises), its offset
    :func:`~linlayout.synth.sides.geometry`, and the default instruction options for the element width
    (:func:`default_options`).

    ``outs`` is the tensor's ``(name, log2 size)`` pairs; a shape that fails the check raises every time (an
    ``lru_cache`` keeps no exception).
    """
    d = sum(bits for _, bits in outs)
    check_tile_bytes(1 << d, element_bits, hw)
    return geometry(d, element_bits, hw), default_options(element_bits, hw)


@lru_cache(maxsize=32)
def default_options(element_bits: int, hw: SharedMemory) -> tuple[tuple[Instruction, ...], tuple[Instruction, ...]]:
    """The store and load options of the policy's :func:`~linlayout.synth.policy.default_instructions`, one tuple
    pair per element width and model (the search's tables find it by identity, :mod:`linlayout.synth.speed`)."""
    return instruction_options(default_instructions(element_bits, hw))


def fixed_vector_width(vector_bits: int, element_bits: int, max_vector: int, hw: SharedMemory) -> int:
    """The requested vector width in log2 elements (checked: a power of two, at least a byte and an element, at
    most the widest access)."""
    if isinstance(vector_bits, bool) or not isinstance(vector_bits, int) or vector_bits <= 0 or vector_bits & (vector_bits - 1):
        raise SizeError(f"vector_bits must be a power of two, got {vector_bits!r}")
    if vector_bits < element_bits or vector_bits < 8:
        raise LoweringError(f"vector_bits={vector_bits} is narrower than one element or one byte")
    fixed = (vector_bits // element_bits).bit_length() - 1
    if fixed > max_vector:
        raise LoweringError(f"vector_bits={vector_bits} exceeds the widest access ({max(hw.access_sizes()) * 8} bits)")
    return fixed


def instruction_options(instructions: Sequence[str] | None, element_bits: int | None = None,
                        hw: SharedMemory | None = None) -> tuple[tuple[Instruction, ...], tuple[Instruction, ...]]:
    """The store and load options, each without repeats (default: :func:`~linlayout.synth.policy.default_instructions`
    for ``element_bits`` and ``hw``; ``st.shared`` and ``ld.shared`` when those are not given)."""
    if instructions is None:
        if element_bits is None or hw is None:
            return instruction_options(LDST_INSTRUCTIONS)
        return default_options(element_bits, hw)
    if isinstance(instructions, str):
        instructions = [instructions]
    w, r = [], []
    for name in check_sequence(instructions, "instructions"):
        ins = parse_instruction(name)
        (w if ins.op == "store" else r).append(ins)
    if not w:
        raise SwizzleError("instructions lists no store for the write side (st.shared or stmatrix.*)")
    if not r:
        raise SwizzleError("instructions lists no load for the read side (ld.shared or ldmatrix.*)")
    return tuple(dict.fromkeys(w)), tuple(dict.fromkeys(r))
