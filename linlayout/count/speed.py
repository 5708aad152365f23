"""The counters' speed devices, in one place, each with the reason it exists.

A compiler counts one access per buffer and per conversion, and a count takes
about ten microseconds, so per-call constants matter.  Everything a count
derives from the *shape* of a query (instruction, element width, hardware,
vector width, register count) is the same for every layout and memory of that
shape, and everything it derives from one layout or one memory object is the
same on every later call with that object: both are kept here and reused.
Nothing is keyed by the values of a query's layouts, and no answer (a
:class:`~linlayout.count.closed_form.WavefrontReport`) is ever remembered.
Every memo is bounded: the module-level ones are cleared when full (no LRU
bookkeeping on a hit), the per-object ones live and die with their object.

Per shape (module-level, keyed by the *identity* of the instruction and
hardware model, checked with ``is`` on a hit, because hashing those frozen
dataclasses field by field costs more than the lookup saves)

:data:`ACCESS_SHAPES`
    :func:`linlayout.count.plan.access_shape` by ``(instruction, element
    width, hardware, vector width, non-zero registers, low-lane broadcast)``:
    the passes, instructions and within-pass generators of every access of
    that shape (the access plan's shape is the same for every candidate memory
    a synthesis scores).
:data:`PLAN_CONTEXTS`
    Per ``(instruction, element width, hardware)``: the vector cap and the
    shapes by ``(vector, non-zero registers, broadcast)``, read by
    :func:`linlayout.count.plan.plan_access` without building the shape key.
:data:`REPORT_FIELDS`
    Per access shape: the report fields that depend on the shape alone (the
    counts of a conflict-free access, the bank mask seen on element offsets),
    so :func:`linlayout.count.closed_form.count_plan` fills a report with one
    dict update and returns at once when the bank parts are independent.

Per object (kept in :meth:`linlayout.core.layout.LinearLayout.memo`, under these keys)

:data:`INVERSE_KEY`
    A memory's inverse as flat columns with 0 appended
    (:func:`linlayout.count.offsets.inverse_columns`): both sides of a
    conversion, and every later count on that memory, read it (one inverse per
    memory).
:data:`FORM_KEY`
    How a layout's bases go through those columns (an ``itemgetter`` of bit
    indices for unit bases), computed once per layout.
:data:`CHECKED_KEY`
    A layout checked for a lane count, with its non-zero registers and
    low-lane broadcast (the same in ``C = M⁻¹ ∘ L`` for every invertible
    ``M``), the flat bit of each basis, and the
    :class:`~linlayout.count.plan.LayoutPlan` of its last few query contexts
    (:data:`PLANS_PER_LAYOUT`; a synthesis names the instruction and a
    compiler's count of the same layout does not, so one would rebuild the
    other's): the
    arguments resolved, the tile's capacity checked, and per vector the
    shape, issue registers and within-pass bits.  A compiler counts one layout
    object against many memories (every candidate, both sides of a
    conversion), so a count on a new memory does only the memory's part: the
    inverse, the vector rule on the offsets read from it by ``itemgetter``,
    and the conflict rule (``closed_form._count_through_inverse``, which
    builds no :class:`~linlayout.count.plan.AccessPlan`).

Devices that stay beside the code (listed here so there is one index):
a layout's :func:`~linlayout.count.offsets.column_form` is made when a plan
first reads it (a count through a memory's inverse columns never does, and
a conversion's slices are fresh layouts counted that way);
``functools.lru_cache`` on :func:`linlayout.count.matrix_tile.matrix_tile`
and behind :data:`ACCESS_SHAPES`; the conflict rule's first test
(``closed_form._conflict_free``: independent bank parts, no elimination).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

__all__ = ["Memo", "ACCESS_SHAPES", "PLAN_CONTEXTS", "REPORT_FIELDS", "INVERSE_KEY", "FORM_KEY", "CHECKED_KEY",
           "PLANS_PER_LAYOUT"]


class Memo(dict):
    """A dict that forgets everything when it outgrows ``limit`` entries (memory stays bounded)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def put(self, key: Hashable, value: Any) -> Any:
        """Store ``value`` under ``key`` (clearing first if full) and return it."""
        if len(self) > self.limit:
            self.clear()
        self[key] = value
        return value


ACCESS_SHAPES = Memo(4096)  # (id(ins), element_bits, id(hw), vector, registers, broadcast) -> (ins, hw, shape)
PLAN_CONTEXTS = Memo(256)  # (id(ins), element_bits, id(hw)) -> (ins, hw, vector cap, {(vector, registers, broadcast): shape})
REPORT_FIELDS = Memo(4096)  # id(shape) -> (shape, fields, ...): see closed_form._static_fields

INVERSE_KEY = ("count.offsets", "inverse columns")
FORM_KEY = ("count.offsets", "column form")
CHECKED_KEY = ("count.plan", "distributed dims checked for lanes")
PLANS_PER_LAYOUT = 4  # LayoutPlans kept per layout object (the last first, then a scan of these few)
