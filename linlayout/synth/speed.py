"""The synthesizer's speed devices, in one place, each with the reason it exists.

A small synthesis (a Triton kernel's two layouts, one instruction pair) takes
tens of microseconds, so constant costs that would not matter elsewhere are
a large share of it (issue 16 measured each one).  The pipeline modules
(:mod:`.candidates`, :mod:`.scoring`, :mod:`.search`) stay plain code and
call the devices below by name; nothing here changes a result.

Record builders
    :data:`new_record` builds a ``NamedTuple`` from all of its fields in one
    C call: the ``__new__`` that ``NamedTuple`` generates is Python code with
    keyword handling, several times slower for the records built per
    candidate (costs, scored word fills, built candidates).
    :func:`new_instance` builds a frozen dataclass from a complete field dict
    without the per-field ``object.__setattr__`` of its generated
    ``__init__`` (one :class:`~linlayout.synth.result.SwizzleResult` per call).

Bounded memos (:class:`Memo`, cleared when full: no LRU bookkeeping on a hit)
    :func:`pair_sides` finds its shape maps by object *identity* (``id()``) of the
    instruction and the hardware model: hashing those frozen dataclasses
    field by field costs more than the lookup saves.  The entry keeps the
    objects themselves and is checked with ``is``, so a recycled ``id`` never
    returns a stale map.
    :func:`counts_table` finds the search floor's tables (``bounds._floor_from_counts``,
    ``bounds._pair_floors_from_counts``, each also an ``lru_cache`` by value) by the identities of the
    instruction options and the model, then the sides' counts: the key by value hashes every instruction of
    the default options (ten of them), once per synthesis.
    :func:`options_table` finds the relaxation's table of one side's widths and shapes
    (``bounds._widths_from_counts``, also an ``lru_cache`` by value) the same way: reading every option's widths
    and shapes again was a third of a relaxation with the default options.
    :func:`visit_line_of` reads a pair-floor table's visit line and tile groups
    (:func:`linlayout.synth.search.visit_line`) once per table, found by the table's identity: the table is the
    search floor's cached tuple (``bounds._pair_floors_from_counts``), the same object for every problem with
    the same counts, and listing its two dozen entries again per synthesis cost about a twentieth of one that
    ends with a matrix pair.
    :func:`raised_floors_of` remembers a tile group's raised floors by the group's entries (one of those lists,
    by identity) and the ld/st side's vector cap under the tile: a synthesis raises up to three groups before
    its first search when matrix pairs' floors from the counts undercut ld/st (32-bit transposes), and
    re-reading each group's width pairs was a tenth of such a synthesis.
    :func:`relaxation_order_of` remembers the relaxation's visit order (each side's widths sorted by their
    conflict-free cost, and the width pairs sorted by floor) by the identities of the two sides' width tables,
    the objective and the common prefix: the order is a function of counts, and sorting the product per proof
    through a heap was about a third of a relaxation.
    :func:`tile_positions` remembers where a matrix instruction's tile sits among a side's bases (register or
    lane, and which), by ``trans``, the element width and the model's identity: the tile bounds ask it for
    every fresh side, and going through :func:`~linlayout.count.matrix_tile.matrix_tile`'s cache by value
    hashed the instruction and the model each time.
    :func:`side_shapes` is one side's entry of :func:`pair_sides` from its counts alone, so that the search
    floor's pair table (by counts) carries each pair's shape maps and a visited pair finds them there.
    :func:`unit_vectors` remembers the unit directions of a mask (the bank
    completion asks for the same few masks over and over).
    :func:`query_shape_of` remembers a query's checked shape (the model, objective, geometry, instruction
    options, vector width and each side's :class:`~linlayout.synth.sides.SideReader`),
    :func:`reader_of` a side reader by the side's shape (for :func:`~linlayout.synth.sides.side_of` on its own
    and for a new query shape) and :func:`named_options_of` the instruction options of a list of names: all
    at the end of this module, under "Work done once per query shape".

Devices that stay beside the code they speed up (listed here so there is one index)
    ``functools.lru_cache`` on pure functions of small hashable arguments:
    :func:`linlayout.synth.sides.geometry`, a tile's checks and facts per
    (tensor shape, element width, model)
    (:func:`linlayout.synth.synthesis.tile_facts`), the search floor's tables
    (``bounds._floor_from_counts``, ``bounds._pair_floors_from_counts``), the
    widths of a side's options by its counts (``bounds._widths_from_counts``)
    and the default instruction options
    (:func:`linlayout.synth.synthesis.default_options`); the search floor's tables are built from one
    table per side's counts (``bounds._floor_widths_from_counts``: each option's widths, bases and instruction
    counts, found by :func:`options_table`; both sides of every signature with those counts share it) and a
    table per pair of option tuples of each pair's preference and tile group (``bounds._pair_facts``), so a
    new signature only takes each pair's cheapest width pair: the cold planner builds a table for most plans,
    and the per-pair lookups were about half of building one (issue 27); a
    :class:`~linlayout.synth.sides.Side` is cached on its layout's memo and
    carries its own memo (``Side.memo``: pass lanes per instruction and
    width, vector facts; the tile bounds' columns,
    :func:`linlayout.synth.bounds.matrix_columns`, by the model's identity checked with ``is``, as above).  Two algorithmic shortcuts are part of the
    pipeline, not tricks: the search stops at a candidate meeting the floor
    (:func:`linlayout.synth.bounds.search_floor`), and such a candidate keeps
    its analytic costs where they are provably exact
    (:func:`linlayout.synth.scoring.analytic_is_exact`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import f2
from ..core.layout import LinearLayout
from ..count.plan import matrix_tile
from ..count.speed import Memo
from ..errors import LoweringError

__all__ = ["new_record", "new_instance", "Memo", "pair_sides", "counts_table", "options_table", "visit_line_of",
           "raised_floors_of", "relaxation_order_of", "tile_positions", "unit_vectors", "side_shapes",
           "query_shape_of", "reader_of", "named_options_of", "instruction_names_key"]

# A NamedTuple from every one of its fields, in order, at C speed (the generated __new__ is Python code).
new_record = tuple.__new__


def new_instance(cls: type, values: dict[str, Any]) -> Any:
    """An instance of ``cls`` whose ``__dict__`` is ``values`` (every field, as the generated ``__init__`` would
    store them); the instance owns the dict from then on."""
    self = object.__new__(cls)
    object.__setattr__(self, "__dict__", values)
    return self


_SHAPE_MAPS = Memo(1024)


def pair_sides(sides: dict, ins: dict, geo: Any, hw: Any) -> list[tuple]:
    """Per side, for one instruction pair: ``(name, side, instruction, matrix tile's vector width or -1, shapes)``.

    ``shapes`` is the shared map ``vector width -> access shape`` that
    :func:`linlayout.synth.candidates.word_fills` fills.  A side's access
    shape depends on it only through its number of non-broadcast registers
    and whether a low lane bit broadcasts
    (:func:`linlayout.count.plan.access_shape`), so every side with the same
    instruction, element width, hardware and those two facts shares one map,
    and a layout never seen before finds it filled.  The map is found by the
    objects' identities (see the module doc); its entry also keeps a matrix
    instruction's tile width, read once (``matrix_tile``'s cache by value
    hashes the instruction and the model on every call).
    """
    out = []
    eb = geo.element_bits
    for nm, sd in sides.items():
        i = ins[nm]
        key = (id(i), eb, id(hw), sd.nregs, sd.broadcast)  # identities, checked below: no dataclass hashing
        hit = _SHAPE_MAPS.get(key)
        if hit is None or hit[0] is not i or hit[1] is not hw:  # the tile's width kept too: matrix_tile hashes both
            hit = _SHAPE_MAPS.put(key, (i, hw, {}, len(matrix_tile(i, eb, hw).vector_registers) if i.is_matrix else -1))
        out.append((nm, sd, i, hit[3], hit[2]))
    return out


_COUNT_TABLES = Memo(1024)


def counts_table(table: Callable[..., Any], w_opts: tuple, r_opts: tuple, hw: Any, counts: tuple) -> Any:
    """``table(w_opts, r_opts, hw, *counts)`` (one of the search floor's tables by the sides' counts,
    :func:`~linlayout.synth.bounds.search_floor`), found by the identities of the two instruction option tuples
    and the hardware model, then the counts (small ints, a string, a tuple).  The default options are one cached
    tuple per element width, and hashing them by value costs a call per instruction; the entry keeps the objects
    and is checked with ``is`` (see :func:`pair_sides`), and options built afresh fall through to ``table``'s
    own cache by value."""
    key = (table, id(w_opts), id(r_opts), id(hw)) + counts
    hit = _COUNT_TABLES.get(key)
    if hit is None or hit[0] is not w_opts or hit[1] is not r_opts or hit[2] is not hw:
        hit = _COUNT_TABLES.put(key, (w_opts, r_opts, hw, table(w_opts, r_opts, hw, *counts)))
    return hit[3]


_OPTION_TABLES = Memo(1024)


def options_table(table: Callable[..., Any], opts: tuple, hw: Any, counts: tuple) -> Any:
    """``table(opts, hw, *counts)`` (a table of one side's widths by its counts,
    :func:`~linlayout.synth.bounds.side_widths`), found like :func:`counts_table`: by the identities of the
    instruction options and the model, then the counts; options built afresh fall through to ``table``'s own
    cache by value."""
    key = (table, id(opts), id(hw)) + counts
    hit = _OPTION_TABLES.get(key)
    if hit is None or hit[0] is not opts or hit[1] is not hw:
        hit = _OPTION_TABLES.put(key, (opts, hw, table(opts, hw, *counts)))
    return hit[2]


_TILE_GROUPS = Memo(256)


def visit_line_of(table: tuple, listing: Callable[[tuple], Any]) -> Any:
    """``listing(table)`` (the visit line and tile groups of a :func:`~linlayout.synth.bounds.pair_floors`
    table), remembered by the table's identity; the entry keeps the table and is checked with ``is`` (see
    :func:`pair_sides`).  The caller must not change what it gets."""
    hit = _TILE_GROUPS.get(id(table))
    if hit is None or hit[0] is not table:
        hit = _TILE_GROUPS.put(id(table), (table, listing(table)))
    return hit[1]


_RAISED_FLOORS = Memo(1024)


def raised_floors_of(entries: list, prefix: int | None, raising: Callable[[list, int | None], list]) -> list:
    """``raising(entries, prefix)`` (a tile group's floors once its tile is known,
    :func:`~linlayout.synth.bounds.raised_floors`), remembered by the identity of ``entries`` (a list of
    :func:`visit_line_of`'s, the same object for every problem with the same counts) and the cap ``prefix``;
    the entry keeps the list and is checked with ``is``.  The caller must not change the list it gets."""
    key = (id(entries), prefix)
    hit = _RAISED_FLOORS.get(key)
    if hit is None or hit[0] is not entries:
        hit = _RAISED_FLOORS.put(key, (entries, raising(entries, prefix)))
    return hit[1]


_TILE_POSITIONS = Memo(256)


def tile_positions(ins: Any, eb: int, hw: Any) -> tuple[tuple[bool, int], ...] | None:
    """The bases a matrix instruction's tile requires (:func:`~linlayout.count.matrix_tile.matrix_tile`), lowest
    offset first, each as ``(is a lane, index)``; None when the instruction cannot move these elements on ``hw``
    (``matrix_tile`` raises).  The tile depends on the instruction only through ``trans`` (``.x1``, ``.x2`` and
    ``.x4`` share one row), so the entry is found by that, the width and the model's identity; it keeps the model
    and is checked with ``is`` (see :func:`pair_sides`)."""
    key = (ins.trans, eb, id(hw))
    hit = _TILE_POSITIONS.get(key)
    if hit is None or hit[0] is not hw:
        try:
            positions = tuple((d == "lane", i) for (d, i), _ in matrix_tile(ins, eb, hw).required)
        except LoweringError:
            positions = None
        hit = _TILE_POSITIONS.put(key, (hw, positions))
    return hit[1]


_UNIT_VECTORS = Memo(4096)


def unit_vectors(mask: int) -> tuple[int, ...]:
    """:func:`linlayout.core.f2.unit_vectors` of ``mask`` as a tuple, remembered."""
    hit = _UNIT_VECTORS.get(mask)
    if hit is None:
        hit = _UNIT_VECTORS.put(mask, tuple(f2.unit_vectors(mask)))
    return hit


_RELAXATION_ORDERS = Memo(1024)


def relaxation_order_of(write_widths: tuple, read_widths: tuple, objective: str, ncommon: int,
                        ordering: Callable[[tuple, tuple, str, int], Any]) -> Any:
    """``ordering(write_widths, read_widths, objective, ncommon)`` (the relaxation's visit order,
    :func:`~linlayout.synth.bounds.relaxation_order`), remembered by the identities of the two width tables
    (:func:`options_table`'s cached tuples, the same objects for every side with the same counts), the objective
    and the common prefix; the entry keeps the tables and is checked with ``is``.  Sorting the product of the
    two sides' widths per proof (through a heap) was a third of a relaxation; the caller must not change what
    it gets."""
    key = (id(write_widths), id(read_widths), objective, ncommon)
    hit = _RELAXATION_ORDERS.get(key)
    if hit is None or hit[0] is not write_widths or hit[1] is not read_widths:
        hit = _RELAXATION_ORDERS.put(key, (write_widths, read_widths,
                                           ordering(write_widths, read_widths, objective, ncommon)))
    return hit[2]


def side_shapes(ins: Any, eb: int, hw: Any, nregs: int, broadcast: bool) -> tuple[int, dict]:
    """One side's entry of :func:`pair_sides` from its counts alone: ``(matrix tile's vector width or -1, shared
    shape map)``, the same memo and entries.  The search floor's pair table (a table by the sides' counts,
    :func:`counts_table`) keeps each pair's two entries, so a pair the search visits finds its shape maps in the
    table instead of looking them up again per synthesis (about a twentieth of a one-pair search)."""
    key = (id(ins), eb, id(hw), nregs, broadcast)
    hit = _SHAPE_MAPS.get(key)
    if hit is None or hit[0] is not ins or hit[1] is not hw:
        hit = _SHAPE_MAPS.put(key, (ins, hw, {}, len(matrix_tile(ins, eb, hw).vector_registers) if ins.is_matrix else -1))
    return hit[3], hit[2]


# ---------------------------------------------------------------------------
# Work done once per query shape (issue 27)
# ---------------------------------------------------------------------------
#
# A query's checks and most of the pipeline's inputs depend only on its shape: the layouts' input and output
# dimensions, the element width, the model, the objective, the vector width and the instructions.  Checking
# and deriving them again per call (the model's presets, the objective's keyword, the tile's size, each side's
# input dimensions and tensor order, the instruction options) was about a third of setting up a problem on
# fresh layouts, so they are found once per shape and reused.  Nothing here is keyed on a layout's bases: the
# side itself (its images) is read per layout, and kept on that layout (linlayout.synth.sides.read_side).


def instruction_names_key(instructions: Any) -> tuple[str, ...] | None:
    """The key of an ``instructions`` argument in the memos below: its names as a tuple (one name: the same
    options as a list of it), or None for any other argument, which is then built (checked) every time."""
    if type(instructions) is str:
        return (instructions,)
    if type(instructions) in (list, tuple) and all(type(n) is str for n in instructions):
        return tuple(instructions)
    return None


_QUERY_SHAPES = Memo(256)


def query_shape_of(build: Callable[..., Any], write: Any, read: Any, element_bits: Any, hw: Any, objective: Any,
                   vector_bits: Any, instructions: Any) -> Any:
    """``build(write, read, element_bits, hw, objective, vector_bits, instructions)`` (a query's shape, every
    check of it passed: :func:`~linlayout.synth.synthesis.query_shape`, which raises otherwise), remembered by
    that shape: both layouts' input and output dimensions, the element width, the model's identity (the entry
    keeps the model and is checked with ``is``, see :func:`pair_sides`), the objective, the vector width and the
    instruction names as given.

    Only a query whose arguments have their exact types is remembered (ints, strings, a list or tuple of
    strings): a key by value would take ``16.0`` or ``True`` for an int it equals, and those must raise as they
    did; any other query is built (checked) every time.  A shape that fails a check raises every time (nothing
    is stored).
    """
    names = None if instructions is None else instruction_names_key(instructions)
    if instructions is not None and names is None:
        return build(write, read, element_bits, hw, objective, vector_bits, instructions)
    if (type(element_bits) is not int or type(objective) is not str or not (vector_bits is None or type(vector_bits) is int)
            or not isinstance(write, LinearLayout) or not isinstance(read, LinearLayout)):
        return build(write, read, element_bits, hw, objective, vector_bits, instructions)
    key = (write.in_dim_bits, write.out_dim_bits, read.in_dim_bits, read.out_dim_bits, element_bits, id(hw), objective,
           vector_bits, names)
    hit = _QUERY_SHAPES.get(key)
    if hit is None or hit.hw is not hw:
        hit = _QUERY_SHAPES.put(key, build(write, read, element_bits, hw, objective, vector_bits, instructions))
    return hit


_SIDE_READERS = Memo(256)


def reader_of(reading: Callable[..., Any], name: str, op: str, layout: Any, hw: Any, outs: tuple) -> Any:
    """``reading(name, op, layout, hw, outs)`` (a side reader, which checks the layout's input dimensions:
    :func:`~linlayout.synth.sides.side_reader`), remembered by the names, the layout's input and output
    dimensions, the model's lanes (all the check reads of the model) and the tensor order ``outs``: for
    :func:`~linlayout.synth.sides.side_of` called on its own (the synthesizer finds its readers in the query's
    shape, :func:`query_shape_of`)."""
    key = (name, op, layout.in_dim_bits, layout.out_dim_bits, hw.lanes, outs)
    hit = _SIDE_READERS.get(key)
    if hit is None:
        hit = _SIDE_READERS.put(key, reading(name, op, layout, hw, outs))
    return hit


_NAMED_OPTIONS = Memo(256)


def named_options_of(build: Callable[[Any], Any], instructions: Any) -> Any:
    """``build(instructions)`` (the store and load options of a list of instruction names,
    :func:`~linlayout.synth.synthesis.instruction_options`), remembered by the names: a new query shape often
    names instructions seen before (the conversion planner asks for one set per plan), and the options found
    again are the same tuples, so the tables found by their identity (:func:`counts_table`,
    :func:`options_table`) find them too.  Only a string or a list or tuple of strings is remembered (any other
    argument is built, checked, every time); names that fail a check raise every time (nothing is stored)."""
    key = instruction_names_key(instructions)
    if key is None:
        return build(instructions)
    hit = _NAMED_OPTIONS.get(key)
    if hit is None:
        hit = _NAMED_OPTIONS.put(key, build(instructions))
    return hit
