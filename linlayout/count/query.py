"""Counting queries: what a wavefront count is asked about, checked once.

Concepts
========

Every counter answers one of two questions.

=================  =========================================================
:class:`AccessQuery`   **layout level**: a warp accesses a tile through a
                       distributed ``layout`` and a ``memory`` layout, with
                       ``element_bits`` per element, an ``op`` (``"load"`` or
                       ``"store"``), an optional ``instruction`` and
                       ``vector_bits``, on a ``hardware`` model.  The
                       arguments of :func:`~linlayout.count.closed_form.wavefronts`,
                       :func:`~linlayout.count.by_simulation.simulate_wavefronts`,
                       :func:`~linlayout.count.by_simulation.lane_byte_offsets` and
                       :func:`~linlayout.count.plan.plan_access`.
:class:`AddressQuery`  **address level**: one instruction given by every
                       lane's byte offset.  The arguments of
                       :func:`~linlayout.count.closed_form.access_wavefronts`
                       and :func:`~linlayout.count.simulate.simulate_access`.
=================  =========================================================

A query is a frozen value.  Building it checks the input, once: the
hardware preset and the instruction resolve (kept as :attr:`AccessQuery.hw`
and :attr:`AccessQuery.ins`), the layout has the model's lanes, the element
width is a power of two, the tile fits shared memory.  What depends on the
layout *and* the memory together (an invertible memory, a vector the
registers can form, a matrix tile that fits: :class:`LoweringError`) is an
answer, not an input check, and is found when the query is counted.  The
counters take either the query or its fields as keyword arguments; both
give the same answer.

>>> from linlayout.core.layout import LinearLayout
>>> from linlayout.core.memory import unswizzled
>>> rows = LinearLayout({"lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]}, {"dim0": 1, "dim1": 32})
>>> q = AccessQuery(rows, unswizzled([1, 32]), 32, "store")
>>> q.ins.name, q.hw.name
('st.shared', 'sm90')
>>> AccessQuery(rows, unswizzled([1, 32]), 12, "store")
Traceback (most recent call last):
...
linlayout.errors.SizeError: element_bits must be a power of two from 1 to 128, got 12

This module also holds the input checks every counter shares
(:func:`check_capacity`, :func:`check_element_bits`,
:func:`check_distributed_dims`, :func:`check_access`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from typing import Any, ClassVar, Union

from ..core.layout import LinearLayout
from ..core.memory import PaddedLayout
from ..core.record import record
from ..core.validate import check_instance, check_int
from ..errors import AccessError, DimensionError, InputTypeError, SizeError
from ..hw import Instruction, SharedMemory, check_access_bytes, check_matrix_access, get_hardware, parse_instruction

__all__ = ["AccessQuery", "AddressQuery"]

DISTRIBUTED_DIMS = ("register", "lane", "warp", "block")
"""Input dimensions of a distributed layout, in this order."""

Memory = Union[LinearLayout, PaddedLayout]


# ---------------------------------------------------------------------------
# Input checks shared by every counter
# ---------------------------------------------------------------------------


def check_capacity(memory: Memory, element_bits: int, hw: SharedMemory) -> int:
    """The bytes a memory tile occupies; :class:`SizeError` if shared memory (``hw.smem_bytes``) cannot hold it.

    >>> from linlayout.core.memory import unswizzled
    >>> from linlayout.hw import sm90
    >>> check_capacity(unswizzled([128, 128]), 32, sm90)
    65536
    >>> check_capacity(unswizzled([256, 256]), 32, sm90)
    Traceback (most recent call last):
    ...
    linlayout.errors.SizeError: the memory tile holds 65536 elements of 32 bits = 262144 bytes, more than the 233472 bytes (228 KB) of shared memory on sm90
    """
    if type(memory) is LinearLayout:  # the common case first: no isinstance chain
        elements = 1 << memory.in_bits
    elif isinstance(check_instance(memory, (LinearLayout, PaddedLayout), "memory"), PaddedLayout):
        elements = memory.pitch
        for s in memory.shape[:-1]:
            elements *= s
    else:
        elements = memory.total_in_size
    return check_tile_bytes(elements, element_bits, hw)


def check_tile_bytes(elements: int, element_bits: int, hw: SharedMemory) -> int:
    """The bytes of a tile of ``elements`` elements; :class:`SizeError` beyond ``hw.smem_bytes``.

    The capacity rule of :func:`check_capacity`, for callers that know the
    tile's size but have no memory layout yet (the synthesizer).

    >>> from linlayout.hw import sm90
    >>> check_tile_bytes(128 * 128, 16, sm90)
    32768
    """
    nbytes = (elements * element_bits + 7) // 8
    if nbytes > hw.smem_bytes:
        raise SizeError(
            f"the memory tile holds {elements} elements of {element_bits} bits = {nbytes} bytes, more than the "
            f"{hw.smem_bytes} bytes ({hw.smem_bytes / 1024:g} KB) of shared memory on {hw.name}"
        )
    return nbytes


def check_element_bits(element_bits: Any) -> int:
    """Validate an element width (a power of two from 1 to 128 bits)."""
    if (
        isinstance(element_bits, bool)
        or not isinstance(element_bits, int)
        or element_bits <= 0
        or element_bits & (element_bits - 1)
        or element_bits > 128
    ):
        raise SizeError(f"element_bits must be a power of two from 1 to 128, got {element_bits!r}")
    return element_bits


def check_vector_bits(vector_bits: Any) -> int | None:
    """Validate a requested vector width: ``None`` (the widest) or a power of two."""
    if vector_bits is not None and (
        isinstance(vector_bits, bool) or not isinstance(vector_bits, int) or vector_bits <= 0
        or vector_bits & (vector_bits - 1)
    ):
        raise SizeError(f"vector_bits must be a power of two, got {vector_bits!r}")
    return vector_bits


def check_distributed_dims(layout: Any, hw: SharedMemory, what: str = "layout") -> LinearLayout:
    """A distributed layout for ``hw``: register/lane/warp/block inputs and exactly ``hw.lanes`` lanes."""
    if not isinstance(layout, LinearLayout):
        raise DimensionError(f"{what} must be a LinearLayout, got {type(layout).__name__}")
    lanes = 1
    for d, b in layout.in_dim_bits:
        if d not in DISTRIBUTED_DIMS:
            raise DimensionError(
                f"the distributed {what} has an input dimension {d!r}; expected register, lane and optionally "
                f"warp and block"
            )
        if d == "lane":
            lanes = 1 << b
    if lanes != hw.lanes:
        raise SizeError(
            f"the {what} has {lanes} lanes but a {hw.name} warp has {hw.lanes}; give all {hw.lanes} lanes "
            f"(a zero lane basis marks lanes that duplicate others)"
        )
    return layout


def check_access(ins: Instruction, access_bytes: int, offsets: Sequence[int], hw: SharedMemory) -> list[int]:
    """Validate an address-level access (instruction on this model, size, one aligned offset per lane).

    Returns the offsets as ints; raises :class:`AccessError` or
    :class:`~linlayout.errors.SizeError` saying what is wrong.  Shared by the
    simulator and :func:`linlayout.count.closed_form.access_wavefronts`, so both
    accept exactly the same inputs.
    """
    if ins.is_matrix:
        check_matrix_access(ins, access_bytes, hw)
        return check_lane_offsets(offsets, hw.lanes, hw.matrix_row_bytes)
    check_access_bytes(access_bytes, hw)
    return check_lane_offsets(offsets, hw.lanes, access_bytes)


def check_lane_offsets(offsets: Sequence[int], count: int, align: int) -> list[int]:
    """``count`` non-negative byte offsets, each a multiple of ``align``, as ints; else :class:`AccessError`."""
    if isinstance(offsets, (str, bytes, Mapping)) or not isinstance(offsets, Iterable):
        raise AccessError(f"lane_byte_offsets must be a list of integers, got {offsets!r}")
    offs = [check_int(o, f"lane_byte_offsets[{i}]", error=AccessError) for i, o in enumerate(offsets)]
    if len(offs) != count:
        raise AccessError(f"expected {count} lane byte offsets (one per lane), got {len(offs)}")
    for lane, o in enumerate(offs):
        if o < 0:
            raise AccessError(f"lane {lane} has a negative byte offset {o}")
        if o % align:
            raise AccessError(
                f"lane {lane}'s byte offset {o} is not aligned to the {align}-byte access; "
                f"shared-memory accesses must be naturally aligned"
            )
    return offs


def no_extra_arguments(query: AccessQuery | AddressQuery, *given: Any) -> None:
    """Refuse a call that passes a query together with any of its fields (``given``: the other arguments)."""
    if any(g is not None for g in given):
        raise InputTypeError(
            f"pass either one {type(query).__name__} or the query's fields as arguments, not both"
        )


# ---------------------------------------------------------------------------
# The queries
# ---------------------------------------------------------------------------


@record
class AccessQuery:
    """A layout-level counting query: one warp accessing a tile (see the module docstring).

    The fields keep the values given (a preset name stays a name); ``hw``
    and ``ins`` are the model and the instruction they resolve to.  Raises,
    at construction, :class:`~linlayout.errors.HardwareError`,
    :class:`~linlayout.errors.InstructionError`, :class:`DimensionError`,
    :class:`SizeError` or :class:`InputTypeError` for bad input.
    """

    kind: ClassVar[str] = "layout"

    layout: LinearLayout
    memory: Memory
    element_bits: int
    op: str | None = None
    instruction: str | Instruction | None = None
    vector_bits: int | None = None
    hardware: str | SharedMemory | None = "sm90"
    hw: SharedMemory = field(init=False, repr=False, compare=False)
    ins: Instruction = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        hw = get_hardware(self.hardware)
        ins = parse_instruction(self.instruction, self.op)
        check_distributed_dims(self.layout, hw)
        check_element_bits(self.element_bits)
        check_capacity(self.memory, self.element_bits, hw)
        check_vector_bits(self.vector_bits)
        object.__setattr__(self, "hw", hw)
        object.__setattr__(self, "ins", ins)


@record
class AddressQuery:
    """An address-level counting query: one instruction given by every lane's byte offset.

    ``lane_byte_offsets`` is kept as a tuple of ints; ``hw`` and ``ins`` are
    the resolved model and instruction.  Raises, at construction,
    :class:`AccessError` (offsets misaligned, negative or not one per lane),
    :class:`SizeError`, :class:`~linlayout.errors.InstructionError` or
    :class:`~linlayout.errors.HardwareError`.

    >>> AddressQuery("ld.shared", "load", 4, [4 * l for l in range(32)]).lane_byte_offsets[:3]
    (0, 4, 8)
    """

    kind: ClassVar[str] = "access"

    instruction: str | Instruction | None
    op: str | None
    access_bytes: int
    lane_byte_offsets: tuple[int, ...]
    hardware: str | SharedMemory | None = "sm90"
    hw: SharedMemory = field(init=False, repr=False, compare=False)
    ins: Instruction = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        hw = get_hardware(self.hardware)
        ins = parse_instruction(self.instruction, self.op)
        offs = check_access(ins, self.access_bytes, self.lane_byte_offsets, hw)
        object.__setattr__(self, "lane_byte_offsets", tuple(offs))
        object.__setattr__(self, "hw", hw)
        object.__setattr__(self, "ins", ins)


def address_query(instruction: str | Instruction | AddressQuery | None, op: str | None, access_bytes: int | None,
                  lane_byte_offsets: Sequence[int] | None, hardware: str | SharedMemory | None) -> AddressQuery:
    """The query of an address-level call: the :class:`AddressQuery` passed first, or one built from the fields.

    A query passed together with any field is refused; ``hardware`` counts as
    given only when it names a model other than the default (``None`` or
    ``"sm90"``, the entry points' defaults).
    """
    if type(instruction) is AddressQuery:
        no_extra_arguments(instruction, op, access_bytes, lane_byte_offsets,
                           None if hardware in (None, "sm90") else hardware)
        return instruction
    return AddressQuery(instruction, op, access_bytes, lane_byte_offsets, hardware)

