"""The conversion map: for every destination slot, the source slot it reads (paper §5.3-5.4).

Concepts
========

A distributed layout maps a hardware index ``(register, lane, warp,
block)`` to a tensor element.  Converting ``src`` to ``dst`` means: every
destination slot ``y`` must receive the element ``dst(y)``, read from a
source slot ``x`` with ``src(x) = dst(y)``.  We pick the source slots with a
linear map ``P`` (``y ↦ x``) with ``src ∘ P = dst``; when ``src`` holds an
element twice (broadcast, free variables) there are several such maps and
the choice matters: it decides whether the data has to leave the thread, the
warp or the block.

Each column of ``P`` (the source slot of one destination basis) is solved at
the lowest **level** possible:

========  ===================================================  ==============
level     the source slot keeps ...                            path
========  ===================================================  ==============
0         the destination's lane, warp and block               registers
1         its warp and block (any lane)                        shuffles
2         its block (any lane and warp)                        shared memory
3         nothing                                              unsupported
========  ===================================================  ==============

A broadcast destination register (zero basis) reads slot 0: it is a copy of
another register.  Otherwise, among the solutions of a level the
destination's own slot is taken when it holds the element, otherwise the solution whose highest set bit is lowest
(bits are ordered register < lane < warp < block), so a free variable never
sends data further than it must -- the warp-local choice a plain
pseudo-inverse misses.  The conversion's level is the largest column level.

The map is returned as a :class:`~linlayout.core.layout.LinearLayout` from
the destination's hardware dimensions to the source's (``register`` of the
two sides may differ in size); :func:`linlayout.core.quotient.quotient` strips
the dimensions it does not move.

>>> from linlayout.core.layout import LinearLayout
>>> src = LinearLayout({"register": [[1]], "lane": [[2], [4]]}, {"dim0": 8})
>>> dst = LinearLayout({"register": [[2]], "lane": [[1], [4]]}, {"dim0": 8})
>>> cm = conversion_map(src, dst)
>>> cm.level, cm.layout.bases["register"], cm.layout.bases["lane"]
(1, [(0, 1, 0, 0)], [(1, 0, 0, 0), (0, 2, 0, 0)])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from functools import lru_cache
from typing import Any, NamedTuple

from ..core import f2
from ..core.dims import split_columns
from ..core.layout import LinearLayout
from ..core.record import record
from ..count.query import DISTRIBUTED_DIMS
from ..errors import DimensionError, InputError
from .speed import (CONVERSION_MAP_KEY, INDEX_BITS_KEY, INDEX_ECHELON_KEY, REGISTER_RANK_KEY, UNIT_COLUMNS_KEY, per_layout,
                    per_partner)

__all__ = ["HW_DIMS", "LEVEL_PATHS", "IndexBits", "ConversionMap", "index_bits", "index_columns", "index_echelon",
           "has_unit_columns", "aligned", "conversion_map"]

HW_DIMS = DISTRIBUTED_DIMS
"""The input dimensions of a hardware index (a distributed layout's), lowest level first."""

LEVEL_PATHS = ("registers", "shuffles", "shared_memory", "unsupported")
"""The path each level needs."""

_DIM_INDEX = {d: i for i, d in enumerate(("register", "lane", "warp", "block"))}


@record
class IndexBits:
    """Bit counts of a hardware index: registers, lanes, warps, blocks (flat bit order in this order).

    These describe a layout's index, not the machine: the machine's numbers
    (lanes per warp, banks) are a :class:`~linlayout.hw.SharedMemory`'s.
    """

    reg: int
    lane: int
    warp: int
    block: int

    @property
    def bits(self) -> int:
        return self.reg + self.lane + self.warp + self.block

    def start(self, dim: str) -> int:
        """The flat position of the first bit of ``dim``."""
        i = _DIM_INDEX[dim]
        return (0, self.reg, self.reg + self.lane, self.reg + self.lane + self.warp)[i]

    def count(self, dim: str) -> int:
        return (self.reg, self.lane, self.warp, self.block)[_DIM_INDEX[dim]]

    def mask(self, dims: tuple[str, ...]) -> int:
        m = 0
        for d in dims:
            m |= ((1 << self.count(d)) - 1) << self.start(d)
        return m


def index_bits(layout: LinearLayout, what: str) -> tuple[IndexBits, list[int]]:
    """The index bit counts of a distributed layout and its flat columns in index order (a list of one's own)."""
    hw, cols = index_columns(layout, what)
    return hw, list(cols)


def index_columns(layout: LinearLayout, what: str) -> tuple[IndexBits, tuple[int, ...]]:
    """:func:`index_bits` with the columns as the tuple kept per layout object
    (:data:`~linlayout.convert.speed.INDEX_BITS_KEY`), not a copy: for readers that do not change them."""
    if not isinstance(layout, LinearLayout):
        raise InputError(f"{what} must be a LinearLayout, got {type(layout).__name__}")
    return per_layout(layout, INDEX_BITS_KEY, lambda: _index_bits(layout, what))


def has_unit_columns(layout: LinearLayout) -> bool:
    """Whether every index column of a distributed layout (:func:`index_bits`) is a unit vector or zero, as a
    compiler's layouts' are, once per layout object (:data:`~linlayout.convert.speed.UNIT_COLUMNS_KEY`).

    >>> has_unit_columns(LinearLayout({"register": [[1], [0]], "lane": [[2]]}, {"dim0": 4}))
    True
    >>> has_unit_columns(LinearLayout({"register": [[3]], "lane": [[2]]}, {"dim0": 4}))
    False
    """
    return per_layout(layout, UNIT_COLUMNS_KEY, lambda: f2.single_bits(index_columns(layout, "layout")[1]))


def register_rank(layout: LinearLayout, what: str) -> int:
    """The rank of a distributed layout's register columns: each thread holds ``2^rank`` distinct elements (where
    the columns are unit vectors or zero, :func:`has_unit_columns`: the distinct non-zero ones)."""
    def rank() -> int:
        ib, cols = index_columns(layout, what)
        if has_unit_columns(layout):
            distinct = set(cols[:ib.reg])
            return len(distinct) - (0 in distinct)
        return f2.rank(cols[:ib.reg])

    return per_layout(layout, REGISTER_RANK_KEY, rank)


def _index_bits(layout: LinearLayout, what: str) -> tuple[IndexBits, tuple[int, ...]]:
    bits = dict(layout.in_dim_bits)  # log2 of each input size, read once (no sizes dict, no lookup per dimension)
    extra = [d for d in bits if d not in HW_DIMS]
    if extra:
        raise DimensionError(f"{what} has input dimension {extra[0]!r}; a distributed layout uses only {list(HW_DIMS)}")
    hw = IndexBits(bits.get("register", 0), bits.get("lane", 0), bits.get("warp", 0), bits.get("block", 0))
    in_order = [d for d in HW_DIMS if d in bits]
    if list(bits) == in_order:  # the usual order (register, lane, warp, block): the columns as they are
        return hw, tuple(layout.flat_columns())
    cols: list[int] = []
    for d in in_order:
        cols.extend(layout.flat_bases(d))
    return hw, tuple(cols)


def aligned(src: LinearLayout, dst: LinearLayout) -> LinearLayout:
    """``dst`` with its output dimensions in ``src``'s order; both must cover the same tensor."""
    if dst.out_dim_bits == src.out_dim_bits:  # the planner asks this several times per plan: the same dims, in order
        return dst
    if src.out_sizes != dst.out_sizes:
        raise DimensionError(f"src and dst must cover the same tensor: {src.out_sizes} vs {dst.out_sizes}")
    if src.out_dims != dst.out_dims:
        dst = dst.transpose_outs(list(src.out_dims))
    return dst


class PrefixSolver(NamedTuple):
    """Solutions of ``S z = target`` on the prefixes ``cols[:ends[level]]`` of some columns, from one elimination
    (built by :func:`prefix_solver`): :meth:`lowest` reduces a target once and gives the solution whose highest set
    bit is lowest, on every prefix that holds it.

    :func:`conversion_map` solves every destination basis against the same
    four sets of source bits, and each level's set is the lowest bits
    (registers, then lanes, warps, blocks), so one elimination in column
    order serves all four: an echelon entry made from column ``j`` is the
    XOR of columns up to ``j`` with ``j`` among them, so a target in the span
    of a prefix reduces through that prefix's entries only, and the solution
    on the pivot columns (the mask of the reduction) is the same in the whole
    elimination.  A target is thus solvable on a prefix exactly when it
    reduces to zero with a mask below the prefix's end.

    That mask already has the lowest highest bit of all solutions, on every
    prefix: any other solution adds a kernel vector, and a kernel vector's
    highest bit is a column that is no pivot (a null vector found at column
    ``j`` involves only columns up to ``j``, ``j`` among them), which the mask
    does not have; so the sum either sets that bit above the mask's highest or
    keeps the mask's highest bit (the vector touches nothing above its own).
    Adding the kernel to clear high bits (as this solver did) never changed a
    mask.
    """

    echelon: f2.Echelon
    lowest_levels: Sequence[int]  # per mask length: the lowest level whose prefix holds the mask (_levels_by_length)

    def lowest(self, target: int) -> tuple[int, int] | None:
        """``(level, mask)``: the lowest level whose prefix solves ``target``, and the reduction's mask (the solution
        with the lowest highest bit on that prefix and every longer one); None when no prefix does."""
        residue, mask = self.echelon.reduce(target)
        return None if residue else (self.lowest_levels[mask.bit_length()], mask)


def prefix_solver(cols: list[int], ends: list[int],
                  elimination: tuple[f2.Echelon, list[int], list[int]] | None = None) -> PrefixSolver:
    """The :class:`PrefixSolver` of the prefixes ``cols[:end]`` for each ``end`` of ``ends`` (ascending, at least
    one).  ``elimination``: :func:`~linlayout.core.f2.echelon` of ``cols[:ends[-1]]``, when the caller has it
    (:func:`index_echelon`)."""
    ech = elimination[0] if elimination is not None else f2.echelon(cols[:ends[-1]])[0]
    return PrefixSolver(ech, _levels_by_length(tuple(ends)))


def index_echelon(layout: LinearLayout) -> tuple[f2.Echelon, list[int], list[int]]:
    """:func:`~linlayout.core.f2.echelon` of a distributed layout's index columns (:func:`index_bits`' order), once
    per layout object (:data:`~linlayout.convert.speed.INDEX_ECHELON_KEY`): the conversion map solves against the
    source's, and Triton's scratch layout asks preimages of either side's."""
    return per_layout(layout, INDEX_ECHELON_KEY, lambda: f2.echelon(index_columns(layout, "layout")[1]))


def _column_masks(nulls: list[int]) -> dict[int, int]:
    """Per column ``j`` that is no pivot of an elimination (:func:`~linlayout.core.f2.echelon`): the pivot columns
    that sum to it, the mask its reduction gives (a null vector found at ``j`` is ``j`` and those columns).  A pivot
    column's mask is itself."""
    return {n.bit_length() - 1: n ^ (1 << (n.bit_length() - 1)) for n in nulls}


@lru_cache(maxsize=256)
def _levels_by_length(ends: tuple[int, ...]) -> tuple[int, ...]:
    """Per mask length ``n`` (``0 .. ends[-1]``): the lowest level whose source bits (the columns below
    ``ends[level]``) hold every column of a mask whose highest set bit is ``n - 1``.  Once per shape (``ends``: a
    layout's index bit counts; the list is read, never changed)."""
    levels = [0] * (ends[0] + 1)  # lengths 0 .. ends[0]; then each level's lengths, one run per level
    for level in range(1, len(ends)):
        levels += [level] * (ends[level] - ends[level - 1])
    return tuple(levels)  # shared by every call of the shape: immutable


@record
class ConversionMap:
    """The chosen source slot of every destination basis.

    ``columns[j]`` is the flat source index (``src_bits`` bit order) read by
    destination basis ``j`` (``dst_bits`` bit order); ``levels[j]`` the level it
    was solved at and ``level`` their maximum; ``layout`` the same map as a
    LinearLayout (destination hardware dims → source hardware dims).
    ``source_nulls``: the null vectors of the elimination of ``src_cols`` in
    order (:func:`~linlayout.core.f2.echelon`'s, which the map was solved
    with; ``None`` when not known), read by :meth:`source_kernel`.
    """

    src_bits: IndexBits
    dst_bits: IndexBits
    src_cols: tuple[int, ...]
    dst_cols: tuple[int, ...]
    columns: tuple[int, ...]
    levels: tuple[int, ...]
    layout: LinearLayout
    source_nulls: tuple[int, ...] | None = field(default=None, compare=False, repr=False)

    def source_kernel(self, end: int) -> list[int]:
        """A basis of the kernel of the first ``end`` source columns: the null vectors the elimination of the
        source found within them (a null vector found at column ``j`` involves only columns up to ``j``), as
        :func:`~linlayout.core.f2.null_space` of those columns gives them; the shuffle programs read the free
        variables of a warp (registers and lanes) and the ranks of the source's registers off it."""
        if self.source_nulls is None:
            return f2.null_space(list(self.src_cols[:end]))
        return [n for n in self.source_nulls if n >> end == 0]

    @property
    def level(self) -> int:
        return max(self.levels, default=0)

    @property
    def path(self) -> str:
        return LEVEL_PATHS[self.level]


def conversion_map(src: LinearLayout, dst: LinearLayout) -> ConversionMap:
    """Solve ``src ∘ P = dst`` column by column at the lowest level (see the module doc).

    Raises :class:`DimensionError` when the layouts do not share lanes,
    warps and blocks, and :class:`InputError` when ``dst`` holds an element
    that ``src`` does not hold.
    """
    if not isinstance(src, LinearLayout):
        return _conversion_map(src, dst)  # raises the error of the checks below
    return per_partner(src, CONVERSION_MAP_KEY, dst, lambda: _conversion_map(src, dst))


def _conversion_map(src: LinearLayout, dst: LinearLayout) -> ConversionMap:
    dst = aligned(src, dst)
    sh, scols = index_columns(src, "src")
    dh, dcols = index_columns(dst, "dst")
    s_counts, d_counts = (sh.reg, sh.lane, sh.warp, sh.block), (dh.reg, dh.lane, dh.warp, dh.block)
    for i, d in ((1, "lane"), (2, "warp"), (3, "block")):
        if s_counts[i] != d_counts[i]:
            raise DimensionError(
                f"src and dst must run on the same threads: {d} size {1 << s_counts[i]} vs {1 << d_counts[i]}")
    # each level's source bits are the lowest ones: registers, then lanes, warps, blocks (the flat order)
    ends = (sh.reg, sh.reg + sh.lane, sh.reg + sh.lane + sh.warp, sh.reg + sh.lane + sh.warp + sh.block)
    # One elimination of the source columns answers every level (see PrefixSolver)
    elimination = index_echelon(src)
    lowest_levels = _levels_by_length(ends)
    if has_unit_columns(src) and has_unit_columns(dst):
        columns, levels = _solved_by_lookup(scols, dcols, ends, d_counts, lowest_levels, elimination[0].combo)
    else:
        columns, levels = _solved(scols, dcols, ends, d_counts, lowest_levels, elimination)
    # The map as a layout, built from flat columns: a source slot's flat index is already the flat output of
    # the source's hardware dimensions (register lowest), so no bases tuples are built and checked.
    ins = tuple(zip(HW_DIMS, d_counts))
    layout = LinearLayout.from_flat(ins, tuple(zip(HW_DIMS, s_counts)), split_columns(columns, ins), check=False)
    return ConversionMap(sh, dh, scols, dcols, tuple(columns), tuple(levels), layout, tuple(elimination[2]))


def _solved(scols: Sequence[int], dcols: Sequence[int], ends: tuple[int, ...], d_counts: tuple[int, ...],
            lowest_levels: Sequence[int], elimination: tuple[f2.Echelon, list[int], list[int]]) -> tuple[list, list]:
    """The map's columns and levels (module doc), each target reduced through the source's elimination."""
    columns: list[int] = []
    levels: list[int] = []
    reduce = elimination[0].reduce
    # Each target is reduced once: the solutions for ``t ^ held`` (``held`` a source column) are those for ``t`` plus
    # ``held``'s own, the pivot columns that sum to it (one mask: the reduction's masks are linear on the span).
    column_masks = _column_masks(elimination[2])
    # Destination basis k of dimension ``dim`` has its own slot (the same bit of the source's index) when the source
    # has that basis (a lane, warp or block always; a register below the source's register count), holding the
    # element ``held``, and may leave that index bit from level ``keeps`` on: a lane keeps its lane at level 0, a warp
    # its warp up to level 1, a block its block up to level 2; a register keeps nothing (0).
    j = 0
    for keeps, (dim, start, n) in enumerate(zip(HW_DIMS, (0, ends[0], ends[1], ends[2]), d_counts)):
        own_slots = n if keeps else min(n, ends[0])
        for k in range(n):
            t = dcols[j]
            j += 1
            own = 1 << (start + k) if k < own_slots else 0
            if (own and scols[start + k] == t) or (t == 0 and not keeps):
                # The destination's own slot holds the element (its target is 0, or a register of src holds it), or
                # a broadcast register copies another: level 0, no solving.
                columns.append(own if t or keeps else 0)
                levels.append(0)
                continue
            residue, mask = reduce(t)
            if residue:
                raise _not_held(t, k, dim)
            if keeps:
                # below the level ``keeps``, the slot keeps its own index bit (which holds ``held``): the rest is solved
                rest = mask ^ column_masks.get(start + k, own)  # the reduction's mask of t ^ held
                level = lowest_levels[rest.bit_length()]
                if level < keeps:
                    columns.append(rest | own)  # a reduction's mask is the solution (PrefixSolver)
                    levels.append(level)
                    continue
            columns.append(mask)
            levels.append(max(lowest_levels[mask.bit_length()], keeps))
    return columns, levels


def _solved_by_lookup(scols: Sequence[int], dcols: Sequence[int], ends: tuple[int, ...], d_counts: tuple[int, ...],
                      lowest_levels: Sequence[int], combo: dict[int, int]) -> tuple[list, list]:
    """:func:`_solved` where both layouts have unit columns (:func:`has_unit_columns`): a target is a unit vector or
    zero, so its reduction's mask is one lookup, and so is the mask of ``t ^ held`` (the sum of the two masks).
    The same columns and levels, in the same order (errors included).

    Eliminating unit columns in order makes the first column equal to a unit vector ``1 << h`` its pivot, stored
    as it is with itself as its combination: the reduction of ``1 << h`` is that column, ``combo[h]`` of the
    elimination (:func:`index_echelon`), and a bit no column holds has no entry there; zero reduces to nothing."""
    columns: list[int] = []
    levels: list[int] = []
    s_reg = ends[0]
    for k in range(d_counts[0]):  # a destination register keeps nothing: its own slot or the first source holding it
        t = dcols[k]
        if not t or (k < s_reg and scols[k] == t):
            columns.append(1 << k if t else 0)
            levels.append(0)
            continue
        mask = combo.get(t.bit_length() - 1)
        if mask is None:
            raise _not_held(t, k, "register")
        columns.append(mask)
        levels.append(lowest_levels[mask.bit_length()])
    j = d_counts[0]
    for keeps in (1, 2, 3):  # a lane, warp or block slot keeps its own index bit below level ``keeps``
        start = ends[keeps - 1]
        for k in range(d_counts[keeps]):
            t, held, own = dcols[j], scols[start + k], 1 << (start + k)
            j += 1
            if held == t:
                columns.append(own)
                levels.append(0)
                continue
            mask = combo.get(t.bit_length() - 1) if t else 0
            if mask is None:
                raise _not_held(t, k, HW_DIMS[keeps])
            rest = mask ^ combo[held.bit_length() - 1] if held else mask
            level = lowest_levels[rest.bit_length()]
            if level < keeps:
                columns.append(rest | own)
                levels.append(level)
            else:
                columns.append(mask)
                levels.append(max(lowest_levels[mask.bit_length()], keeps))
    return columns, levels


def _not_held(t: int, k: int, dim: str) -> InputError:
    return InputError(f"dst holds tensor element {t:#x} (basis {k} of {dim}) at a place src cannot supply: "
                      f"src does not hold the elements dst needs")


_RENAMED = {"Hardware": "IndexBits", "hardware_of": "index_bits"}


def __getattr__(name: str) -> Any:
    """The names this module had before they said what they are, for one release, with a DeprecationWarning."""
    new = _RENAMED.get(name)
    if new is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import warnings

    warnings.warn(f"{__name__}.{name} is deprecated; use {new} (the bit counts of a layout's index, not the "
                  f"hardware model)", DeprecationWarning, stacklevel=2)
    return globals()[new]
