"""Dimension bookkeeping shared by the core: names, sizes, flat encodings, bit remapping.

A dimension is a ``(name, log2 size)`` pair (:data:`DimSpec` holds several,
minor to major).  A tuple of coordinates is packed into one flat int by
putting each dimension's bits above the previous ones::

    dims (dim0: 4, dim1: 8)  ->  flat = dim0 | dim1 << 2
    (3, 5)                   ->  3 | 5 << 2 = 23

>>> dims = (("dim0", 2), ("dim1", 3))
>>> dim_offsets(dims)
[0, 2]
>>> pack_coords((3, 5), dim_offsets(dims)), unpack_flat(23, dims, dim_offsets(dims))
(23, (3, 5))

A layout stores each basis as such a flat int (its **columns**, one tuple
per input dimension: :data:`Columns`).  Moving between two encodings of the
same coordinates (other dimension order, larger sizes, some dimensions
dropped, shifted into the high half of a product) moves *bit fields*: that is
:func:`remap_bits`, and :func:`recoder` builds it from two :data:`DimSpec`
by dimension name.  Continuing the example, re-encoding with ``dim1`` minor
puts its 3 bits at offset 0 and ``dim0``'s 2 bits above them:

>>> to_swapped = recoder(dims, (("dim1", 3), ("dim0", 2)))
>>> to_swapped(23) == 5 | 3 << 3
True

API
===
:data:`DimSpec`, :data:`Columns`, :data:`FlatLayout`, :data:`DimsLike`; :func:`log2_size`,
:func:`check_name`, :func:`as_int`, :func:`dims_with_sizes` (checking);
:func:`dim_offsets`, :func:`pack_coords`, :func:`unpack_flat`,
:func:`split_columns` (flat encodings); :func:`remap_bits`, :func:`recoder`
(moving bit fields).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union

from ..errors import BasisError, DimensionError, SizeError

__all__ = [
    "DimSpec",
    "Columns",
    "DimsLike",
    "FlatLayout",
    "log2_size",
    "check_name",
    "as_int",
    "dims_with_sizes",
    "dim_offsets",
    "pack_coords",
    "unpack_flat",
    "split_columns",
    "remap_bits",
    "recoder",
    "unit_columns",
]

DimSpec = tuple[tuple[str, int], ...]
"""Dimensions as ``(name, log2 size)`` pairs, minor to major."""

Columns = tuple[tuple[int, ...], ...]
"""Flat basis images, one tuple per input dimension (``cols[i][k]``: bit ``k`` of input ``i``)."""

FlatLayout = tuple[DimSpec, DimSpec, Columns]
"""A layout's data: input dimensions, output dimensions and :data:`Columns` (what :mod:`.product` works on)."""

DimsLike = Union[Mapping[str, int], Sequence[tuple[str, int]], Sequence[str], None]
"""Dimensions as the user writes them: ``{name: size}``, ``(name, size)`` pairs or names."""


def log2_size(size: Any, what: str) -> int:
    """log2 of a positive power-of-two int, or a :class:`SizeError` naming ``what``.

    >>> log2_size(64, "rows")
    6
    >>> log2_size(48, "rows")
    Traceback (most recent call last):
    ...
    linlayout.errors.SizeError: rows is 48, which is not a power of two; use 32 or 64 (pad the tensor and mask the extra elements)
    """
    if isinstance(size, bool):
        raise SizeError(f"{what} must be a power-of-two int, got {size!r}")
    try:
        s = operator.index(size)
    except TypeError:
        raise SizeError(f"{what} must be a power-of-two int, got {size!r}") from None
    if s <= 0 or s & (s - 1):
        hint = ""
        if s > 0:
            lo = 1 << (s.bit_length() - 1)
            hint = f"; use {lo} or {lo * 2} (pad the tensor and mask the extra elements)"
        raise SizeError(f"{what} is {s}, which is not a power of two{hint}")
    return s.bit_length() - 1


def check_name(name: Any, what: str) -> str:
    """Return ``name`` if it is a non-empty string, else raise :class:`DimensionError` naming ``what``.

    >>> check_name("lane", "input dimension")
    'lane'
    >>> check_name("", "input dimension")
    Traceback (most recent call last):
    ...
    linlayout.errors.DimensionError: input dimension names must be non-empty strings, got ''
    """
    if not isinstance(name, str) or not name:
        raise DimensionError(f"{what} names must be non-empty strings, got {name!r}")
    return name


def as_int(x: Any, what: str) -> int:
    """``x`` as an int (anything with ``__index__`` but a bool), else :class:`BasisError` naming ``what``.

    >>> as_int(3, "entry")
    3
    >>> as_int(True, "entry")
    Traceback (most recent call last):
    ...
    linlayout.errors.BasisError: entry must be an int, got True
    """
    if isinstance(x, bool):
        raise BasisError(f"{what} must be an int, got {x!r}")
    try:
        return operator.index(x)
    except TypeError:
        raise BasisError(f"{what} must be an int, got {x!r}") from None


def dims_with_sizes(dims: DimsLike, what: str) -> DimSpec:
    """Check dimensions given with sizes (a mapping or ``(name, size)`` pairs); return a :data:`DimSpec`.

    Names must be unique non-empty strings and sizes powers of two;
    ``what`` names the argument in the error messages.

    >>> dims_with_sizes({"x": 2, "y": 8}, "new_in_dims")
    (('x', 1), ('y', 3))
    >>> dims_with_sizes([("x", 2), ("x", 4)], "new_in_dims")
    Traceback (most recent call last):
    ...
    linlayout.errors.DimensionError: dimension 'x' appears twice in new_in_dims
    """
    if dims is None:
        raise DimensionError(f"{what} is required: give a mapping {{name: size}} or (name, size) pairs")
    if isinstance(dims, Mapping):
        pairs = list(dims.items())
    else:
        if isinstance(dims, (str, bytes)) or not hasattr(dims, "__iter__"):
            raise DimensionError(f"{what} must be a mapping or a list of (name, size) pairs, got {dims!r}")
        pairs = []
        for p in dims:
            try:
                n, s = p  # type: ignore[misc]
            except (TypeError, ValueError):
                raise DimensionError(f"each entry of {what} must be a (name, size) pair, got {p!r}") from None
            pairs.append((n, s))
    out = []
    seen = set()
    for n, s in pairs:
        check_name(n, "dimension")
        if n in seen:
            raise DimensionError(f"dimension {n!r} appears twice in {what}")
        seen.add(n)
        out.append((n, log2_size(s, f"size of {n!r}")))
    return tuple(out)


def dim_offsets(dims: DimSpec) -> list[int]:
    """Bit offset of each dimension in the flat encoding (minor dimension lowest).

    >>> dim_offsets((("register", 2), ("lane", 5), ("warp", 2)))
    [0, 2, 7]
    """
    offs = []
    o = 0
    for _, b in dims:
        offs.append(o)
        o += b
    return offs


def pack_coords(coords: Sequence[int], offsets: Sequence[int]) -> int:
    """Pack coordinates into one flat int, coordinate ``i`` at bit ``offsets[i]`` (no range check).

    >>> pack_coords((3, 5), [0, 2])
    23
    """
    v = 0
    for c, o in zip(coords, offsets):
        v |= c << o
    return v


def unpack_flat(v: int, dims: DimSpec, offsets: Sequence[int]) -> tuple[int, ...]:
    """Split a flat int into one coordinate per dimension (inverse of :func:`pack_coords`).

    >>> unpack_flat(23, (("dim0", 2), ("dim1", 3)), [0, 2])
    (3, 5)
    """
    return tuple((v >> o) & ((1 << b) - 1) for (_, b), o in zip(dims, offsets))


def split_columns(flat: Sequence[int], dims: DimSpec) -> Columns:
    """Cut a list of columns (all input bits, concatenated) into one tuple per dimension of ``dims``.

    >>> split_columns([1, 2, 4], (("register", 1), ("lane", 2)))
    ((1,), (2, 4))
    """
    out = []
    j = 0
    for _, b in dims:
        out.append(tuple(flat[j : j + b]))
        j += b
    return tuple(out)


def remap_bits(fields: Sequence[tuple[int, int, int]]) -> Callable[[int], int]:
    """A function that moves bit fields of a flat int: the one bit-remap of the core.

    Each field ``(source offset, width, destination offset)`` copies the
    ``width`` bits of the input starting at ``source offset`` to the output
    starting at ``destination offset``; bits outside every field are dropped
    and the fields are ORed together.  Re-encoding between dimension orders,
    extracting the divisor and quotient parts in a division, shifting into
    the high half of a product and dropping dimensions are all such moves.

    >>> swap = remap_bits([(0, 2, 3), (2, 3, 0)])   # 2-bit field up to bit 3, 3-bit field down to bit 0
    >>> bin(swap(0b101_11))
    '0b11101'
    >>> remap_bits([(4, 4, 0)])(0xAB)               # extract the high nibble
    10
    """
    moves = tuple((s, (1 << w) - 1, d) for s, w, d in fields)
    if len(moves) == 1:
        (s, m, d), = moves
        return lambda v: ((v >> s) & m) << d

    def remap(v: int) -> int:
        r = 0
        for s, m, d in moves:
            r |= ((v >> s) & m) << d
        return r

    return remap


def recoder(src: DimSpec, dst: DimSpec) -> Callable[[int], int] | None:
    """A function re-encoding flat ints from the ``src`` dimensions to the ``dst`` dimensions.

    Dimensions are matched by name; each source dimension must exist in
    ``dst`` with at least as many bits (:class:`DimensionError`,
    :class:`SizeError` otherwise).  Returns ``None`` when the two encodings
    coincide, so callers can skip the work.

    >>> rec = recoder((("dim0", 1), ("dim1", 1)), (("dim1", 2), ("dim0", 1)))
    >>> [rec(v) for v in range(4)]       # dim0 moves up to bit 2, dim1 down to bit 0
    [0, 4, 1, 5]
    >>> recoder((("dim0", 2),), (("dim0", 3),)) is None
    True
    """
    if src == dst:
        return None
    doff = dict(zip((n for n, _ in dst), dim_offsets(dst)))
    dbits = dict(dst)
    fields = []
    o = 0
    for name, b in src:
        if name not in doff:
            raise DimensionError(f"output dimension {name!r} has no counterpart among {[n for n, _ in dst]}")
        if b > dbits[name]:
            raise SizeError(
                f"output dimension {name!r} has size {1 << b} on one side but only "
                f"{1 << dbits[name]} on the other"
            )
        fields.append((o, b, doff[name]))
        o += b
    if all(s == d for s, _, d in fields):
        return None
    return remap_bits(fields)


_UNITS: dict[DimSpec, frozenset[int]] = {}


def unit_columns(dims: DimSpec) -> frozenset[int]:
    """The unit vectors ``1 << i`` of the flat encoding of ``dims`` (cached per ``dims``).

    A layout with all of them among its bases is surjective: the cheap test
    before the rank.

    >>> sorted(unit_columns((("dim0", 1), ("dim1", 2))))
    [1, 2, 4]
    """
    u = _UNITS.get(dims)
    if u is None:
        if len(_UNITS) > 256:
            _UNITS.clear()
        u = _UNITS[dims] = frozenset(1 << i for i in range(sum(b for _, b in dims)))
    return u
