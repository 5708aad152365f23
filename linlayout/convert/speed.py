"""The planner's speed devices, in one place, each with the reason it exists.

A compiler plans every conversion of a kernel, so ``plan_conversion`` should
take well under a millisecond; most of a plan's time is the shared-memory
round trip's syntheses, and the rest is bookkeeping that several stages
repeated on the same two layouts.  The devices below remove the repeats.
Nothing here is keyed by the *values* of a layout: the memos live in a
layout's own :meth:`~linlayout.core.layout.LinearLayout.memo` (they die with
the object) and a partner layout is recognised by identity (``is``), so a
new layout with the same bases is planned from scratch, and no plan is ever
remembered.

Per object (kept in :meth:`~linlayout.core.layout.LinearLayout.memo`, under these keys)

:data:`INDEX_BITS_KEY`
    :func:`linlayout.convert.solve.index_bits`: a distributed layout's index
    bit counts and flat columns.  The map solver, the round trip's
    candidates, floors and counts, and the executor each ask for them, about
    fifteen times per plan.
:data:`CONVERSION_MAP_KEY`
    :func:`linlayout.convert.solve.conversion_map` of ``src`` to the last
    ``dst`` *object* it was solved for: the planner solves it, and the round
    trip's barrier kind (:func:`linlayout.convert.smem.warp_private`) needs
    its level again; a multi-step search plans from the same ``src`` many
    times, to other destinations (one entry, replaced).
:data:`INDEX_ECHELON_KEY`
    :func:`linlayout.convert.solve.index_echelon`: one elimination of a
    layout's index columns.  The conversion map solves every destination
    basis against the source's, and Triton's scratch layout
    (:mod:`linlayout.convert.triton_scratch`) asks preimages of lanes of
    either side: without it the source was eliminated twice per plan.
:data:`REGISTER_RANK_KEY`
    :func:`linlayout.convert.solve.register_rank`: the rank of a layout's
    register columns (a thread's distinct elements), which every round trip
    candidate's packing count and every slicing's cost floor read.
:data:`FLAT_KEY`
    Triton's view of a layout in :mod:`linlayout.convert.triton_scratch`
    (register, lane and warp bases as flat ints, and for a layout of other
    input dimensions one elimination for its preimages): Triton's scratch layout and its plain ``ld/st`` fallback
    (the default scratch budget) read both layouts of a pair.
:data:`WARP_PRIVATE_KEY`
    :func:`linlayout.convert.smem.warp_private` of ``src`` for the last
    ``dst`` *object*: the round trip's barrier kind, asked by the round trip
    and again by every candidate's instruction count (it was an
    ``lru_cache``, keyed on the layouts' values and hashing both per call).
:data:`TRITON_SCRATCH_KEY`
    Triton's scratch layout of ``src`` for the last ``dst`` *object* (one
    entry per element width): the round trip's default budget and Triton's
    own staging both need it (``smem._tritons_scratch``).
:data:`UNIT_COLUMNS_KEY`
    :func:`linlayout.convert.solve.has_unit_columns`: whether every index column
    of a layout is a unit vector or zero, as a compiler's layouts' are.  Where
    it is, the facts the planner reads off the columns are set operations
    instead of eliminations: the rank of the registers
    (:func:`linlayout.convert.solve.register_rank`, distinct non-zero
    columns), the preimages Triton's scratch rule asks
    (``triton_scratch._Flat.preimage``, the first column equal to the
    element), the element offsets of Triton's staging (``smem._slice_offsets``,
    read off the memory's inverse by bit length) and Triton's conflicts
    (``triton_scratch._conflicts``, as sets); each is tested against the
    exact computation on random layouts.

Algorithmic devices that stay beside their code (listed here so there is one index)
    The round trip's slicings are pruned by a floor on their cost before
    their swizzle is synthesized (:func:`linlayout.convert.smem.rep_cost_floor`);
    a slicing that leaves a slice already synthesized is skipped; the
    multi-step search tells each step the cost it must beat, and the step's
    shuffle search does not score programs whose shuffles alone reach it
    (:mod:`linlayout.convert.multistep`,
    :func:`linlayout.convert.warp.shuffle_program`'s ``ceiling``); a swap
    matrix whose shuffles exceed the packed-shuffle bound (known from the
    matrix alone when it has no local rounds) is dropped before its program
    is built (about half of them on the corpus), and before the rest of it
    is worked out where the bound is known (below the widest pack width) or
    where it exceeds the fewest shuffles kept so far (at the widest); the
    conversion map answers its four levels from one elimination of the
    source columns (:data:`INDEX_ECHELON_KEY`) and one reduction per target
    (one lookup per target where both layouts have unit columns:
    ``solve._solved_by_lookup``), reads its levels by mask length once per
    shape (``solve._levels_by_length``, a cache keyed on the index bit
    counts), and takes a destination basis its own source slot holds without
    solving;
    Triton's scratch layout scores a pair of tiles' conflicts against one
    elimination of the segment; a swap candidate's lane images are tested
    against one elimination of ``image(Sl)``; a shuffle
    program's used rounds, local rounds, layer counts and mux counts (with
    local rounds too: ``ShuffleProgram._local_mux_counts``), a register
    program's selects, and the shuffle lower bound (the elements each thread
    needs from other lanes) come from ranks and bases of subspaces rather
    than from listing rounds or threads (:mod:`linlayout.convert.warp`).
    Whether a synthesized staging's side moves whole words is read off the
    synthesis's two access widths where they tell it (``smem.moves_words``),
    so the exact report of a side (a count as costly as a synthesis's own
    scoring) is made only when they do not; the shuffle search works out what
    every pack width shares once (``warp.PackWidths``), and skips a pack width whose programs all take
    more shuffles than the packed-shuffle bound (``PackWidths.fewest_shuffles``, a floor from ranks); the swap
    candidates work out only what a map needs (:mod:`linlayout.convert.swap_matrices`).
    Triton's own staging is counted on its slices' element offsets, read off
    the whole layouts through one inverse of Triton's memory
    (``smem._slice_offsets``, :func:`linlayout.convert.triton_scratch.count_offsets`):
    no slice layout is built, and the counter sets up nothing per layout
    object (a fresh slice's per-layout facts and plan context cost more than
    its count).
    Per element width, Triton's scratch rule reads what its pairs of
    instruction tiles ask of the layouts off a table made once
    (:func:`linlayout.convert.triton_scratch.tile_pair_rules`), asks each
    lane preimage once per conversion whichever pairs need it, skips the
    conflicts of a pair that cannot beat a conflict-free one on reps, and
    makes the bank (the complement of the other bases) of the pair it keeps
    only; a matrix side's sizes to try are worked out once per (family,
    non-zero registers, width) (``triton_scratch._matrix_sizes_of``, an
    ``lru_cache`` keyed on those, not on a layout);
    whether a round trip needs only warp barriers is read off the source's index elimination the
    conversion map made (``smem._warp_private``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ..core.layout import LinearLayout

__all__ = ["INDEX_BITS_KEY", "INDEX_ECHELON_KEY", "CONVERSION_MAP_KEY", "REGISTER_RANK_KEY", "FLAT_KEY", "TRITON_SCRATCH_KEY",
           "WARP_PRIVATE_KEY", "UNIT_COLUMNS_KEY", "per_layout", "per_partner"]

T = TypeVar("T")

INDEX_BITS_KEY = ("convert.solve", "index bits")
INDEX_ECHELON_KEY = ("convert.solve", "index echelon")
CONVERSION_MAP_KEY = ("convert.solve", "conversion map")
REGISTER_RANK_KEY = ("convert.solve", "register rank")
FLAT_KEY = ("convert.triton_scratch", "flat")
TRITON_SCRATCH_KEY = ("convert.smem", "Triton's scratch layout")
WARP_PRIVATE_KEY = ("convert.smem", "warp private")
UNIT_COLUMNS_KEY = ("convert.solve", "unit columns")


def per_layout(layout: LinearLayout, key: tuple[str, str], compute: Callable[[], T]) -> T:
    """``compute()``, kept in ``layout``'s memo under ``key`` (computed once per layout object)."""
    memo = layout.memo()
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = compute()
    return hit


def per_partner(layout: LinearLayout, key: tuple[str, str], partner: Any, compute: Callable[[], T]) -> T:
    """``compute()`` for ``(layout, partner)``: one entry in ``layout``'s memo, valid while the partner is the same object."""
    memo = layout.memo()
    hit = memo.get(key)
    if hit is not None and hit[0] is partner:
        return hit[1]
    value = compute()
    memo[key] = (partner, value)
    return value
