"""Memory layouts: the plain row-major layout and padded tiles.

A **memory layout** maps an element offset in shared memory to the tensor
element stored there (paper Def. 4.14: invertible, every basis of weight 1
or 2): a :class:`~linlayout.core.layout.LinearLayout` with the single input
dimension ``offset``.  :func:`unswizzled` is the plain layout every swizzle
of :mod:`linlayout.catalog.swizzles` starts from.

A padded tile (``tile[rows][cols + pad]``) is not linear over F2 (``cols +
pad`` is not a power of two): :class:`PaddedLayout` describes it by its
pitch, for the address simulator, and its :meth:`~PaddedLayout.reference`
is the unpadded layout with the same element order within rows::

    tile[4][4 + 1]: offset of (i, j) = 5 i + j
    row 0:  0  1  2  3  .
    row 1:  5  6  7  8  .
    ...

>>> padded([4, 4], 1).offset({"dim0": 1, "dim1": 0})
5
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import DimensionError, SizeError
from .dims import log2_size
from .layout import LinearLayout
from .record import record
from .validate import check_int_sequence, check_sequence

__all__ = ["unswizzled", "PaddedLayout", "padded", "is_offset_memory_layout"]


def is_offset_memory_layout(layout: LinearLayout) -> bool:
    """Is ``layout`` a memory layout of offsets: inputs ``offset`` and maybe ``block`` (a Triton shared
    encoding: each CTA holds its part of the tensor), judged per CTA?

    Each CTA's part must be a memory layout (paper Def. 4.14: the ``offset``
    bases of weight 1 or 2, injective), and the CTAs together must cover the
    tensor; blocks may broadcast (two CTAs holding the same part), so the
    whole need not be invertible.

    >>> is_offset_memory_layout(LinearLayout({"offset": [1, 2, 5], "block": [0]}, {"dim0": 8}))
    True
    >>> is_offset_memory_layout(LinearLayout({"offset": [1, 2], "block": [0]}, {"dim0": 8}))  # half uncovered
    False
    >>> is_offset_memory_layout(LinearLayout({"register": [1, 2, 4]}, {"dim0": 8}))  # not offsets
    False
    """
    if "offset" not in layout.in_dims or any(d not in ("offset", "block") for d in layout.in_dims):
        return False
    if layout.in_dims == ("offset",):
        return layout.is_memory_layout()
    per_cta = layout.sublayout(["offset"], layout.out_dims)
    return (all(1 <= c.bit_count() <= 2 for c in per_cta.flat_columns()) and per_cta.is_injective()
            and layout.is_surjective())


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
    shape = list(check_sequence(shape, "shape"))
    rank = len(shape)
    if rank == 0:
        raise SizeError("a memory layout needs at least one tensor dimension")
    bits = [log2_size(s, f"size of dim{i}") for i, s in enumerate(shape)]
    if order is None:
        order = list(range(rank - 1, -1, -1))
    order = list(check_int_sequence(order, "order"))
    if sorted(order) != list(range(rank)):
        raise DimensionError(f"order must be a permutation of 0..{rank - 1}, got {order}")
    bases = []
    for d in order:
        for k in range(bits[d]):
            v = [0] * rank
            v[d] = 1 << k
            bases.append(v)
    return LinearLayout({"offset": bases}, {f"dim{i}": s for i, s in enumerate(shape)})



@record
class PaddedLayout:
    """A row-major tile whose rows are padded: ``tile[rows][cols + pad]``.

    Not a linear layout (``cols + pad`` is not a power of two), so only the
    simulator can count its wavefronts; the closed form raises
    :class:`~linlayout.errors.NotLinearError`.  Offsets are in elements.

    >>> p = padded([32, 32], 1)
    >>> p.offset({"dim0": 2, "dim1": 5})
    71
    """

    shape: tuple[int, ...]
    pad: int

    def __post_init__(self) -> None:  # also when built directly, not through padded()
        if not isinstance(self.shape, tuple) or not self.shape:
            raise SizeError(f"a padded tile needs a non-empty tuple shape, got {self.shape!r}")
        for i, s in enumerate(self.shape):
            log2_size(s, f"size of dim{i}")
        if isinstance(self.pad, bool) or not isinstance(self.pad, int) or self.pad < 0:
            raise SizeError(f"pad must be a non-negative int (elements per row), got {self.pad!r}")

    @property
    def out_sizes(self) -> dict[str, int]:
        """The tensor dimensions, as for a :class:`LinearLayout`."""
        return {f"dim{i}": s for i, s in enumerate(self.shape)}

    @property
    def pitch(self) -> int:
        """Row length in memory (elements): ``cols + pad``."""
        return self.shape[-1] + self.pad

    def offset(self, coords: Mapping[str, int]) -> int:
        """Element offset of one tensor element."""
        off = 0
        stride = 1
        for i in range(len(self.shape) - 1, -1, -1):
            off += coords.get(f"dim{i}", 0) * stride
            stride *= self.pitch if i == len(self.shape) - 1 else self.shape[i]
        return off

    def reference(self) -> LinearLayout:
        """The unpadded row-major layout with the same element order within rows."""
        return unswizzled(self.shape)

    def to_dict(self) -> dict:
        return {"padded": {"shape": list(self.shape), "pad": self.pad}}


def padded(shape: Sequence[int], pad: int) -> PaddedLayout:
    """A padded row-major tile (see :class:`PaddedLayout`); sizes must be powers of two.

    >>> padded([128, 8], 4).pitch
    12
    """
    shape = tuple(check_sequence(shape, "shape"))
    if not shape:
        raise SizeError("a padded tile needs at least one dimension")
    for i, s in enumerate(shape):
        log2_size(s, f"size of dim{i}")
    if isinstance(pad, bool) or not isinstance(pad, int) or pad < 0:
        raise SizeError(f"pad must be a non-negative int (elements per row), got {pad!r}")
    return PaddedLayout(shape, pad)
