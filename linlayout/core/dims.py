"""Dimension bookkeeping shared by the core: sizes, flat encodings.

A dimension is a ``(name, log2 size)`` pair (:data:`DimSpec` holds several,
minor to major).  A tuple of coordinates is packed into one flat int by
putting each dimension's bits above the previous ones::

    dims (dim0: 4, dim1: 8)  ->  flat = dim0 | dim1 << 2
    (3, 5)                   ->  3 | 5 << 2 = 23

>>> dim_offsets((("dim0", 2), ("dim1", 3)))
[0, 2]
"""

from __future__ import annotations

import operator
from typing import Any

from ..errors import SizeError

__all__ = ["DimSpec", "log2_size", "dim_offsets"]

DimSpec = tuple[tuple[str, int], ...]
"""Dimensions as ``(name, log2 size)`` pairs, minor to major."""


def log2_size(size: Any, what: str) -> int:
    """log2 of a positive power-of-two int, or a :class:`SizeError` naming ``what``.

    >>> log2_size(64, "rows")
    6
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


def dim_offsets(dims: DimSpec) -> list[int]:
    """Bit offset of each dimension in the flat encoding (minor dimension lowest).

    """
    outs = dims
    offs = []
    o = 0
    for _, b in outs:
        offs.append(o)
        o += b
    return offs
