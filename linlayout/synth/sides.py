"""The swizzle problem as the pipeline sees it: two sides, the offset geometry, the search's inputs.

The synthesizer (:mod:`linlayout.synth.synthesis`) reduces each layout to
flat tensor images once (:class:`Side`, cached on the layout: a tensor
direction is an ``int`` whose set bits are tensor coordinate bits; what a
layout's shape alone decides, such as which input dimension is which, is a
:class:`SideReader`, found once per shape and used for every layout of it) and
splits offsets by what their bits mean to the hardware (:class:`Geometry`:
word, bank and segment positions for the element width).
:class:`SwizzleProblem` bundles both sides, the instruction options and the
requested vector width: every later stage (:mod:`.candidates`,
:mod:`.scoring`, :mod:`.bounds`, :mod:`.search`) reads it and none changes
it.  :func:`side_shape` is the access plan's shape
(:mod:`linlayout.count.plan`) of a side at a vector width and
:func:`pass_lanes` its within-pass generators as tensor directions.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from ..core import f2
from ..core.dims import DimSpec
from ..core.layout import LinearLayout
from ..core.record import record
from ..count.matrix_tile import MatrixTile
from ..count.plan import AccessShape, access_shape, check_distributed_dims, vector_cap
from ..errors import DimensionError, LoweringError, SwizzleError
from ..hw import Instruction, SharedMemory
from .speed import new_record, reader_of

__all__ = ["Side", "SideReader", "side_reader", "side_of", "read_side", "in_tensor_order", "Geometry", "geometry", "Cost",
           "SwizzleProblem", "pair_problem", "side_shape", "pass_lanes", "shape_lanes"]


# ---------------------------------------------------------------------------
# One side of the conversion
# ---------------------------------------------------------------------------


class Side(NamedTuple):
    """One side of the conversion, reduced to flat tensor images (computed once per layout by :func:`read_side`).

    An immutable record; ``memo`` is its memo (pass lanes per instruction and vector width, the bounds'
    per-side facts, :meth:`unit_bits`, :attr:`lane_set`), filled on first use.  It holds images, not the
    layout: a side is kept in its layout's memo, and a reference back would make a cycle that keeps every
    layout alive until the cycle collector runs (the result keeps the layouts it needs, :mod:`.result`).
    """

    name: str  # "write" / "read"
    op: str  # "store" / "load"
    regs: tuple[int, ...]  # flat tensor image per register bit (0 = broadcast)
    lanes: tuple[int, ...]  # flat tensor image per lane bit
    others: tuple[int, ...]  # warps and blocks
    broadcast: bool  # lane bit 0 or 1 broadcasts (the plan's merge input)
    reg_set: frozenset[int]  # the non-zero register images
    nregs: int  # non-broadcast registers (repeated images count: each is an access)
    memo: dict  # memo (see above)
    distributed: bool = True  # paper Def. 4.10 (unit or zero bases, no two alike)

    @property
    def lane_set(self) -> frozenset[int]:
        """The non-zero lane images, computed on first use (only some searches with a word fill ask, and a set
        per side is a noticeable share of reading a fresh layout)."""
        memo = self.memo
        found = memo.get("lane-set")
        if found is None:
            found = memo["lane-set"] = frozenset(self.lanes).difference((0,))
        return found

    def unit_bits(self) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None:
        """Per dimension (register, lane, warp), the tensor bit of each basis (-1: zero basis) when every basis
        is a unit vector or zero, else None: :func:`exact_cost` then reads offsets straight off the memory's
        inverse.  Computed on first use (a synthesis that stops at the floor with ``ld/st`` never needs it)."""
        memo = self.memo
        ub = memo.get("unit-bits", False)
        if ub is False:
            xs = (self.regs, self.lanes, self.others)
            ub = memo["unit-bits"] = (tuple(tuple([x.bit_length() - 1 for x in ys]) for ys in xs)
                                      if self.distributed or all(x & (x - 1) == 0 for ys in xs for x in ys) else None)
        return ub


class SideReader(NamedTuple):
    """How to read a :class:`Side` off any layout of one shape: what :func:`read_side` needs besides the layout's
    images, built by :func:`side_reader` once per shape (the layout's input and output dimensions, the tensor
    order, the model's lanes), which also checks that shape."""

    name: str  # "write" / "read"
    op: str  # "store" / "load"
    key: tuple  # the side's key in its layout's memo
    split: Callable[[tuple[tuple[int, ...], ...]], tuple[tuple[int, ...], ...]]  # see dim_splitter
    order: tuple[str, ...] | None  # the tensor order to put the layout's output dimensions in (None: already in it)
    out_bits: int  # the tensor's bits
    distributed_images: list[int] | None  # a distributed layout's images of this shape, sorted (see read_side)


def side_reader(name: str, op: str, L: LinearLayout, hw: SharedMemory, outs: DimSpec) -> SideReader:
    """The :class:`SideReader` of ``L``'s shape (``name`` "write"/"read", ``op`` "store"/"load"; ``outs`` the
    tensor's ``(name, log2 size)`` pairs in the synthesis's order, the write layout's).  Raises for a layout that
    is not distributed over ``hw``'s lanes (register, lane, warp and block inputs, ``hw.lanes`` lanes)."""
    if not isinstance(L, LinearLayout):
        raise DimensionError(f"the {name} layout must be a LinearLayout, got {type(L).__name__}")
    check_distributed_dims(L, hw, name + " layout")
    order = None if L.out_dim_bits == outs else tuple(n for n, _ in outs)
    bits = sum(b for _, b in outs)
    return SideReader(name, op, ("synthesis-side", name, hw.lanes, outs), dim_splitter(L.in_dim_bits), order, bits,
                      distributed_images(L.in_bits, bits))


def side_of(name: str, op: str, L: LinearLayout, hw: SharedMemory, outs: DimSpec) -> Side:
    """The :class:`Side` of layout ``L`` (``name`` "write"/"read", ``op`` "store"/"load"), cached on the layout.

    ``outs`` is the tensor's ``(name, log2 size)`` pairs in the order the synthesis uses (the write
    layout's); ``L``'s output dimensions are reordered to it if they differ.  Raises for a layout that is
    not distributed over ``hw``'s lanes or does not reach every tensor element.  The synthesizer finds the
    :func:`side_reader` of its layouts' shape once per query shape and calls :func:`read_side` itself.
    """
    if not isinstance(L, LinearLayout):
        raise DimensionError(f"the {name} layout must be a LinearLayout, got {type(L).__name__}")
    return read_side(L, reader_of(side_reader, name, op, L, hw, outs))


def read_side(L: LinearLayout, reader: SideReader) -> Side:
    """The :class:`Side` of ``L``, a layout of ``reader``'s shape: kept in the layout's memo, read on first use.

    Raises :class:`~linlayout.errors.SwizzleError` for a layout that does not reach every tensor element."""
    memo = L.memo()
    side = memo.get(reader.key)
    if side is None:
        side = memo[reader.key] = _read_images(L, reader)
    return side


def _read_images(L: LinearLayout, reader: SideReader) -> Side:
    """:func:`read_side` on a layout not seen before: its bases by role, checked to reach every tensor element."""
    if reader.order is not None:
        L = L.transpose_outs(reader.order)
    regs, lanes, warps, blocks = reader.split(L.dim_columns + NO_DIMENSION)
    others = warps + blocks if blocks else warps
    distributed = sorted(regs + lanes + others) == reader.distributed_images  # one C sort and compare
    if not distributed and not L.is_surjective():
        raise SwizzleError(
            f"the {reader.name} layout does not reach every tensor element (its bases span "
            f"{f2.rank(L.flat_columns())} of {L.out_bits} tensor bits); the synthesizer needs both sides to cover the tile"
        )
    zeros = regs.count(0)
    reg_set = frozenset(regs).difference((0,)) if zeros else frozenset(regs)
    return new_record(Side, (reader.name, reader.op, regs, lanes, others, 0 in lanes[:2], reg_set, len(regs) - zeros, {},
                             distributed))


def in_tensor_order(L: LinearLayout, outs: DimSpec) -> LinearLayout:
    """``L`` with its output dimensions in the order of ``outs`` (the tensor's order in the synthesis, the write
    layout's): ``L`` itself when they are already in that order."""
    return L if L.out_dim_bits == outs else L.transpose_outs([n for n, _ in outs])


def distributed_images(count: int, bits: int) -> list[int] | None:
    """The images of a distributed layout (:meth:`LinearLayout.is_distributed
    <linlayout.core.layout.LinearLayout.is_distributed>`) with ``count`` bases onto a ``bits``-bit tensor, sorted:
    zeros, then each unit direction once (None: fewer bases than tensor bits, no such layout).  A layout's flat
    images are distributed exactly when, sorted, they are this list; the synthesizer finds it once per shape
    (:class:`SideReader`) and reads a side with one sort and one compare, both C loops (a sum and a bitwise OR
    of the images, the earlier test, took twice as many instructions: issue 27).

    >>> distributed_images(5, 3)
    [0, 0, 1, 2, 4]
    """
    return None if count < bits else [0] * (count - bits) + [1 << k for k in range(bits)]


def is_distributed_images(images: tuple[int, ...], bits: int) -> bool:
    """:meth:`LinearLayout.is_distributed <linlayout.core.layout.LinearLayout.is_distributed>` on a layout's flat
    images onto a ``bits``-bit tensor: its non-zero images are the tensor's unit directions, each once
    (sorted, they are :func:`distributed_images`).

    >>> is_distributed_images((1, 0, 4, 2), 3), is_distributed_images((1, 2, 2), 3), is_distributed_images((1, 6), 3)
    (True, False, False)
    """
    return sorted(images) == distributed_images(len(images), bits)


def register_gaps(side: Side) -> tuple[int, tuple[int, ...]]:
    """How many register bases the side has, and which of them are zero (broadcast): what a matrix tile's shape
    reads of the side besides its counts (:func:`missing_tile_registers`)."""
    return len(side.regs), tuple([i for i, x in enumerate(side.regs) if not x])


def missing_tile_registers(tile: MatrixTile, gaps: tuple[int, tuple[int, ...]]) -> int:
    """How many of a matrix tile's vector registers the side lacks or broadcasts (``gaps``:
    :func:`register_gaps`).  The access plan counts each as a register all the same (a ``.trans`` tile's row
    generators may broadcast), so each doubles the side's instructions over a count of its non-zero registers."""
    count, zero = gaps
    return sum(1 for i in tile.vector_registers if i >= count or i in zero)


NO_DIMENSION = ((),)  # appended to a layout's per-dimension columns: what dim_splitter picks for a missing dimension


def dim_splitter(dims: DimSpec) -> Callable[[tuple[tuple[int, ...], ...]], tuple[tuple[int, ...], ...]]:
    """For an input-dimension spec, the function that picks a layout's register, lane, warp and block bases out of
    its per-dimension columns (:attr:`~linlayout.core.layout.LinearLayout.dim_columns` with
    :data:`NO_DIMENSION` appended, which a missing dimension picks): one C call, an ``itemgetter``.

    >>> dim_splitter((("lane", 2), ("register", 1)))(((1, 2), (4,)) + NO_DIMENSION)
    ((4,), (1, 2), (), ())
    """
    index = {d: i for i, (d, _) in enumerate(dims)}
    return itemgetter(*[index.get(d, len(dims)) for d in ("register", "lane", "warp", "block")])


# ---------------------------------------------------------------------------
# The offset geometry and the problem
# ---------------------------------------------------------------------------


@record
class Geometry:
    """Offset positions of word, bank and segment bits for the element width."""

    offset_bits: int  # the paper's d: log2 of the tile's elements
    word_end: int  # offsets [0, word_end) lie within one 4-byte word
    bank_end: int  # offsets [word_end, bank_end) choose the bank; the rest the segment
    element_bits: int
    max_vector: int  # the widest access, in log2 elements


@lru_cache(maxsize=256)
def geometry(d: int, eb: int, hw: SharedMemory) -> Geometry:
    z = eb.bit_length() - 1 - 3  # offset bit p is byte-address bit p + z
    ws = hw.word_shift
    rb = hw.row_bytes.bit_length() - 1
    word_end = min(d, max(0, ws - z))
    bank_end = min(d, max(0, rb - z))
    return Geometry(d, word_end, bank_end, eb, vector_cap(eb, hw))


class SwizzleProblem(NamedTuple):
    """A validated swizzle query, ready for the pipeline (built once per call by
    :func:`linlayout.synth.synthesis.optimal_swizzle`; no stage changes it)."""

    sides: dict[str, Side]  # "write" and "read"
    write_options: tuple[Instruction, ...]  # store instructions the write side may use
    read_options: tuple[Instruction, ...]  # load instructions the read side may use
    common: list[int]  # register directions of both sides, in the write side's register order
    geo: Geometry
    hw: SharedMemory
    fixed_vector: int | None  # the requested vector width (log2 elements), or None: the widest that fits
    objective: str
    element_bits: int
    vector_bits: int | None  # the requested width in bits, as asked (the exact reports use it)


def pair_problem(p: SwizzleProblem, write: Instruction, read: Instruction) -> SwizzleProblem:
    """``p`` with one store and one load as its instruction options (the pair visit searches one such problem per
    pair).  Built in one C call (:data:`~linlayout.synth.speed.new_record`): ``NamedTuple._replace`` is Python
    code with keyword handling, a few microseconds per pair."""
    return new_record(SwizzleProblem, (p[0], (write,), (read,)) + p[3:])


class Cost(NamedTuple):
    """One side's exact cost: wavefronts in all, per instruction, and how they arise (an immutable record)."""

    total: int
    instructions: int
    per_instruction: int
    passes: int
    ways_log2: int
    vector: int  # log2 elements per access


def side_shape(side: Side, ins: Instruction, k: int, geo: Geometry, hw: SharedMemory) -> AccessShape | None:
    """The access plan's shape of one side with a ``2^k``-element vector (None: not addressable)."""
    try:
        return access_shape(ins, geo.element_bits, hw, k, side.nregs, side.broadcast)
    except LoweringError:
        return None


def pass_lanes(side: Side, ins: Instruction, k: int, geo: Geometry, hw: SharedMemory) -> list[int]:
    """Directions that vary within one pass (lanes, or row generators for matrix instructions)."""
    key = (ins, k, geo.element_bits, hw)
    hit = side.memo.get(key)
    if hit is None:
        hit = side.memo[key] = _pass_lanes_uncached(side, ins, k, geo, hw)
    return hit


def _pass_lanes_uncached(side: Side, ins: Instruction, k: int, geo: Geometry, hw: SharedMemory) -> list[int]:
    return shape_lanes(side, side_shape(side, ins, k, geo, hw))


def shape_lanes(side: Side, shape: AccessShape | None) -> list[int]:
    """:func:`pass_lanes` of a shape already at hand (``side_shape``'s result; None: no lanes)."""
    if shape is None:  # sub-byte access: this candidate is unusable for the side (scored as None)
        return []
    regs, lanes = side.regs, side.lanes
    return [x for d, i in shape.within_pass if (x := (lanes if d == "lane" else regs)[i])]
