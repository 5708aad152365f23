"""Standard shared-memory layouts (memory layouts: ``offset`` → tensor coordinates).

Concepts
========

A **memory layout** maps an element offset in shared memory to the tensor
element stored there (paper Def. 4.14: invertible, every basis of weight 1
or 2).  Offsets count elements, not bytes.  An unswizzled row-major 4x4
tile stores element ``(i, j)`` at offset ``4i + j``; the mma swizzle of
Def. 4.11 with ``vec = 1, per_phase = 1, max_phase = 4`` stores it at
``4i + (j ^ i)``::

    unswizzled             swizzled (j ^ i)
    offset  0  1  2  3     offset  0  1  2  3
    row 0  00 01 02 03     row 0  00 01 02 03
    row 1  10 11 12 13     row 1  11 10 13 12
    row 2  20 21 22 23     row 2  22 23 20 21
    row 3  30 31 32 33     row 3  33 32 31 30

(each cell names the element ``ij`` at that offset).

>>> m = mma_swizzle(4, 4, vec=1, per_phase=1, max_phase=4)
>>> [m.apply(offset=4 + k)["dim1"] for k in range(4)]
[1, 0, 3, 2]
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import DimensionError, SizeError
from .layout import LinearLayout, _log2_size

__all__ = ["unswizzled", "mma_swizzle"]


def unswizzled(shape: Sequence[int], order: Sequence[int] | None = None) -> LinearLayout:
    """The plain (unswizzled) memory layout of a tensor of ``shape``.

    ``order`` lists the tensor dimensions from fastest to slowest varying in
    memory (Triton's convention); the default is row-major (last dimension
    fastest).  Output dimensions are ``dim0, dim1, ...``.

    >>> unswizzled([2, 4]).bases
    {'offset': [(0, 1), (0, 2), (1, 0)]}
    >>> unswizzled([2, 4], order=[0, 1]).bases
    {'offset': [(1, 0), (0, 1), (0, 2)]}
    """
    shape = list(shape)
    rank = len(shape)
    if rank == 0:
        raise SizeError("a memory layout needs at least one tensor dimension")
    bits = [_log2_size(s, f"size of dim{i}") for i, s in enumerate(shape)]
    if order is None:
        order = list(range(rank - 1, -1, -1))
    order = list(order)
    if sorted(order) != list(range(rank)):
        raise DimensionError(f"order must be a permutation of 0..{rank - 1}, got {order}")
    bases = []
    for d in order:
        for k in range(bits[d]):
            v = [0] * rank
            v[d] = 1 << k
            bases.append(v)
    return LinearLayout({"offset": bases}, {f"dim{i}": s for i, s in enumerate(shape)})


def mma_swizzle(rows: int, cols: int, vec: int, per_phase: int, max_phase: int) -> LinearLayout:
    """The paper's Def. 4.11 mma swizzle of a ``rows x cols`` tile (Triton's legacy shared layout).

    Formal: element ``(i, j)`` is stored at offset
    ``i * cols + ((((i // per_phase) % max_phase) ^ (j // vec)) * vec) % cols + j % vec``
    (in elements).  As a matrix from tensor bits to offset bits it is
    ``[[I, C], [0, I]]`` where column ``i`` of ``C`` (the image of row bit
    ``i``) is ``(vec * ((2**i // per_phase) % max_phase)) % cols``; this
    matrix is an involution, so the memory layout has the same bases.

    Requirements: all parameters are powers of two (``max_phase`` may be 1
    for no swizzle).

    >>> mma_swizzle(16, 32, vec=2, per_phase=1, max_phase=16).bases["offset"][5:]
    [(1, 2), (2, 4), (4, 8), (8, 16)]
    """
    rb = _log2_size(rows, "rows")
    cb = _log2_size(cols, "cols")
    _log2_size(vec, "vec")
    _log2_size(per_phase, "per_phase")
    _log2_size(max_phase, "max_phase")
    bases = [[0, 1 << k] for k in range(cb)]
    for i in range(rb):
        c = (vec * (((1 << i) // per_phase) % max_phase)) % cols
        bases.append([1 << i, c])
    return LinearLayout({"offset": bases}, {"dim0": rows, "dim1": cols})
