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
from typing import Any

from ..core import f2
from ..core.layout import LinearLayout, log2_size
from ..core.memory import unswizzled
from ..core.validate import check_instance, check_int, check_sequence
from ..errors import DimensionError, NotLinearError, SizeError

__all__ = ["mma_swizzle", "cute_layout", "cute_swizzle", "tma_swizzle", "nvmma_layout", "swizzle_mode_bytes"]


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
    rb = log2_size(rows, "rows")
    cb = log2_size(cols, "cols")
    log2_size(vec, "vec")
    log2_size(per_phase, "per_phase")
    log2_size(max_phase, "max_phase")
    bases = [[0, 1 << k] for k in range(cb)]
    for i in range(rb):
        c = (vec * (((1 << i) // per_phase) % max_phase)) % cols
        bases.append([1 << i, c])
    return LinearLayout({"offset": bases}, {"dim0": rows, "dim1": cols})


def cute_layout(shape: Sequence[int], stride: Sequence[int]) -> LinearLayout:
    """A CuTe ``shape:stride`` layout as a linear map from coordinates to an offset.

    The result has input dimensions ``dim0, dim1, ...`` (the coordinates)
    and one output ``offset``: ``offset = sum(c_i * stride_i)``.  This is
    linear over F2 only when shapes and strides are powers of two (or the
    stride is 0, a broadcast) and no two modes share an offset bit (then the
    sum has no carries and equals a XOR).  Otherwise :class:`NotLinearError`.
    A memory layout (``offset`` → coordinates) is ``cute_layout(...).invert()``.

    >>> cute_layout((8, 8), (1, 8)).bases        # column-major 8x8
    {'dim0': [(1,), (2,), (4,)], 'dim1': [(8,), (16,), (32,)]}
    """
    shape = list(check_sequence(shape, "shape"))
    stride = list(check_sequence(stride, "stride"))
    if len(shape) != len(stride):
        raise DimensionError(f"shape {shape} and stride {stride} must have the same length")
    bases: dict[str, list[int]] = {}
    used = 0
    top = 1
    for i, (n, st) in enumerate(zip(shape, stride)):
        b = log2_size(n, f"shape[{i}]")
        if isinstance(st, bool) or not isinstance(st, int) or st < 0:
            raise SizeError(f"stride[{i}] must be a non-negative int, got {st!r}")
        if st and st & (st - 1):
            raise NotLinearError(
                f"stride[{i}] = {st} is not a power of two, so the layout is not linear over F2"
            )
        col = [st << k for k in range(b)]
        mask = sum(col)
        if mask & used:
            raise NotLinearError(
                f"mode {i} ({n}:{st}) overlaps the offset bits of earlier modes; the integer sum has carries "
                f"and is not a XOR"
            )
        used |= mask
        top = max(top, (st << b) if st else 1)
        bases[f"dim{i}"] = col
    size = 1 << max(0, (top - 1).bit_length())
    return LinearLayout(bases, {"offset": size})


def _shape_stride_pair(pair: tuple) -> tuple[Any, Any]:
    """The ``(shape, stride)`` pair :func:`cute_swizzle` accepts in place of a layout, checked for its form."""
    if len(pair) != 2 or not all(isinstance(x, (list, tuple)) for x in pair):
        raise DimensionError(
            f"layout must be a LinearLayout or a (shape, stride) pair such as ((8, 64), (64, 1)), got {pair!r}; "
            f"a bare shape has no strides: give them, or use cute_layout(shape, stride)")
    return pair


def cute_swizzle(
    bits: int,
    base: int,
    shift: int,
    layout: LinearLayout | tuple | None = None,
    *,
    size: int | None = None,
    units: str | None = None,
    element_bits: int | None = None,
) -> LinearLayout:
    """CuTe ``Swizzle<B, M, S>``, alone or composed with a layout, as a memory layout (``offset`` → coordinates).

    ``Swizzle<B,M,S>`` maps an offset ``x`` to ``x ^ ((x >> S) & (2^B - 1) << M)``
    for ``S > 0``: the ``B`` bits starting at ``M + S`` are XORed into the
    ``B`` bits starting at ``M``.  ``layout`` is the coordinate → offset map
    it is composed with (a :func:`cute_layout` result or a ``(shape, stride)``
    pair); the result is ``(swizzle ∘ layout)⁻¹``, the memory layout of
    ``composition(Swizzle<B,M,S>{}, layout)``.  Alone (``size=n`` instead of
    a layout), it is the swizzle of a 1-D buffer of ``n`` elements.

    Units (required for a swizzle that moves bits): ``units="elements"``
    reads ``M`` and ``S`` in elements, as when the swizzle is composed with an
    element layout; ``units="bytes"`` reads them as byte-address bits, as
    CUTLASS's ``SW32``/``SW64``/``SW128`` atoms (``Swizzle<1..3,4,3>``) do,
    and needs ``element_bits`` to convert; a swizzle that would split an
    element raises :class:`SizeError`.  There is no default: with 16-bit
    elements ``Swizzle<3,4,3>`` in bytes is ``Swizzle<3,3,3>`` in elements,
    and reading one as the other silently changes the layout.

    >>> M = cute_swizzle(3, 2, 3, ((8, 8), (1, 8)), units="elements")
    >>> M.invert().apply(dim0=1, dim1=4)["offset"]   # plain offset 33 -> 33 ^ 4
    37
    >>> cute_swizzle(3, 4, 3, ((8, 64), (64, 1)), units="bytes", element_bits=16) == tma_swizzle(128, [8, 64], 16)
    True
    """
    for name, v in (("B", bits), ("M", base)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise SizeError(f"Swizzle {name} must be a non-negative int, got {v!r}")
    if isinstance(shift, bool) or not isinstance(shift, int):
        raise SizeError(f"Swizzle S must be an int, got {shift!r}")
    if bits and shift == 0:
        raise NotLinearError("Swizzle with S = 0 XORs bits into themselves, which is not invertible")
    if units is None and bits:
        raise SizeError(
            f"cute_swizzle({bits}, {base}, {shift}, ...) needs units='elements' or units='bytes' (with element_bits): "
            f"CUTLASS's SW32/SW64/SW128 atoms are byte-level Swizzle<1..3,4,3>, which is Swizzle<B,{base - 1},{shift}> "
            f"in 16-bit elements"
        )
    if units == "bytes":
        if element_bits is None:
            raise SizeError("units='bytes' needs element_bits to convert byte-address bits to element offsets")
        eb = 1 << log2_size(element_bits, "element_bits")
        z = eb.bit_length() - 1 - 3  # element offset bit p is byte bit p + z
        if z > 0:
            if bits and base < z:
                raise SizeError(
                    f"Swizzle<{bits},{base},{shift}> in bytes moves byte-address bit {base}, inside a "
                    f"{eb // 8}-byte element; it cannot be expressed on element offsets"
                )
            base -= z
        elif z < 0:
            base -= z  # sub-byte elements: byte bit b is element bit b - z
    elif units not in ("elements", None):
        raise SizeError(f"units must be 'elements' or 'bytes', got {units!r}")
    if layout is None:
        if size is None:
            raise DimensionError(
                "give the coordinate -> offset layout the swizzle is composed with (cute_layout(shape, stride)), "
                "or size=n for a 1-D buffer"
            )
        layout = cute_layout((size,), (1,))
    if isinstance(layout, tuple):
        layout = cute_layout(*_shape_stride_pair(layout))
    check_instance(layout, LinearLayout, "layout (a LinearLayout or a (shape, stride) tuple)")
    if layout.out_dims != ("offset",):
        raise DimensionError(f"the layout must map coordinates to 'offset', got outputs {list(layout.out_dims)}")
    n = layout.out_size("offset").bit_length() - 1
    # The B bits at src are XORed into the B bits at dst (S > 0: src above dst).
    src, dst = (base + shift, base) if shift > 0 else (base, base + shift)
    if bits and dst < 0:
        raise SizeError(f"Swizzle<{bits},{base},{shift}> would move bits below bit 0")
    # Source bits above the tile are always 0 there (CuTe XORs in nothing); a
    # target bit above the tile would move elements outside it.
    if bits and dst + min(bits, max(0, n - src)) > n:
        raise SizeError(
            f"Swizzle<{bits},{base},{shift}> moves offset bits into bit {dst + bits - 1}, but the layout has "
            f"only {n} offset bits ({1 << n} elements)"
        )
    sw = []
    for i in range(n):
        v = 1 << i
        if bits and src <= i < src + bits:
            v |= 1 << (i - src + dst)
        sw.append(v)
    # Overlapping source and target bits (|S| < B) still give a unipotent, invertible map.
    swizzle = LinearLayout({"offset": sw}, {"offset": 1 << n})
    return layout.compose(swizzle).invert()


_MODE_NAMES = {"none": 0, "0b": 0, "32b": 32, "64b": 64, "96b": 96, "128b": 128}


def swizzle_mode_bytes(mode: int | str) -> int:
    """A TMA / NVMMA swizzle mode as bytes: an int (0, 32, 64, 96, 128) or the names users type.

    Names: ``"32B"``, ``"64B"``, ``"128B"``, ``"96B"``, ``"none"`` (case and
    surrounding spaces ignored).  A bare number in a string (``"128"``) is
    refused with :class:`SizeError`: it is neither the int a width is nor a
    mode's name, so the caller says which one it means.

    >>> swizzle_mode_bytes("128B"), swizzle_mode_bytes(" 64b "), swizzle_mode_bytes(32), swizzle_mode_bytes("none")
    (128, 64, 32, 0)
    """
    if isinstance(mode, str):
        key = mode.strip().lower()
        if key.isdigit():
            raise SizeError(f"the swizzle mode {mode!r} is a number in a string: give the int {int(key)} "
                            f"(bytes) or the name '{int(key)}B'")
        if key not in _MODE_NAMES:
            raise SizeError(f"unknown swizzle mode {mode!r}: use 'none', '32B', '64B', '96B' or '128B' (or 0, 32, 64, 128)")
        return _MODE_NAMES[key]
    return check_int(mode, "the swizzle mode (an int or a name such as '128B')")


def _byte_swizzle_rows(mode: int, atomicity: int | str) -> list[tuple[int, int]]:
    """(source byte bit, target byte bit) pairs of a PTX/TMA swizzle mode."""
    if mode == 96:
        raise NotLinearError(
            "the 96-byte swizzle mode swizzles 96-byte rows (six 16-byte chunks): 96 is not a power of two, "
            "so the mode is not linear over F2"
        )
    if mode not in (0, 32, 64, 128):
        raise SizeError(f"TMA swizzle modes are 0 (none), 32, 64, 96 and 128 bytes, not {mode}")
    if mode == 0:
        return []
    if mode != 128 and atomicity != 16:
        raise SizeError(f"the {mode}-byte swizzle mode has 16-byte atomicity only (PTX ISA table 14), not {atomicity}")
    if atomicity == 16:
        nb = {32: 1, 64: 2, 128: 3}[mode]
        return [(7 + i, 4 + i) for i in range(nb)]  # 16-byte chunk index ^= 128-byte line index
    if atomicity == 32:
        return [(7, 5), (8, 6)]  # 32-byte units ^= line index mod 4
    if atomicity == "32+8B-flip":
        return [(7, 5), (8, 6), (7, 3)]  # plus: swap adjacent 8 bytes on every other line
    if atomicity == 64:
        return [(7, 6)]  # 64-byte halves swap on odd lines
    raise SizeError(f"128-byte swizzling has 16, 32, '32+8B-flip' or 64-byte atomicity, not {atomicity!r}")


def tma_swizzle(mode: int | str, shape: Sequence[int], element_bits: int, atomicity: int | str = 16) -> LinearLayout:
    """The shared-memory layout a TMA copy writes with a PTX swizzle mode (PTX ISA §5.5.7).

    The box is stored row-major (the last dimension contiguous) and the
    swizzle XORs byte-address bits: for ``mode`` 32/64/128 with 16-byte
    atomicity, the 16-byte chunk index (address bits 4..) is XORed with the
    128-byte line index (address bits 7..), over 1, 2 or 3 bits.  The 128-byte
    mode's sub-modes keep 32 or 64 bytes intact (``atomicity=32`` or ``64``),
    or flip adjacent 8 bytes on alternate lines (``atomicity="32+8B-flip"``).
    Units: the result maps element offsets to coordinates.  Requirements: the
    last dimension spans exactly ``mode`` bytes (for ``mode > 0``; wider tiles
    are several boxes, see :func:`nvmma_layout`), elements of at most 16
    bytes, and power-of-two sizes.  The 96-byte mode raises :class:`NotLinearError`.

    ``mode`` is bytes (0, 32, 64, 96, 128) or a name: ``"32B"``, ``"64B"``, ``"128B"``, ``"none"``.

    >>> tma_swizzle("128B", [8, 64], 16) == tma_swizzle(128, [8, 64], 16)
    True
    >>> M = tma_swizzle(128, [8, 64], 16)           # 8 rows of 64 fp16 = 128 bytes
    >>> inv = M.invert()
    >>> [inv.apply(dim0=1, dim1=8 * c)["offset"] // 8 - 8 for c in range(8)]   # row 1: 16-byte chunks
    [1, 0, 3, 2, 5, 4, 7, 6]
    """
    shape = list(check_sequence(shape, "shape"))
    mode = swizzle_mode_bytes(mode)
    rows = _byte_swizzle_rows(mode, atomicity)
    eb = 1 << log2_size(element_bits, "element_bits")
    if eb > 128:
        raise SizeError(f"elements wider than 16 bytes do not fit a TMA swizzle chunk ({eb} bits)")
    base = unswizzled(shape)
    if mode:
        inner = shape[-1] * eb // 8
        if inner != mode:
            raise SizeError(
                f"the {mode}-byte swizzle expects the last dimension to span {mode} bytes, but {shape[-1]} "
                f"{eb}-bit elements span {inner}; use a box of {mode * 8 // eb} elements (nvmma_layout splits wider tiles)"
            )
    z = eb.bit_length() - 1 - 3  # element offset bit p = byte bit p + z
    n = base.in_bits
    cols = list(base.flat_bases("offset"))
    # Physical offset p holds logical offset sw(p) (the swizzle is an involution).
    sw = [1 << i for i in range(n)]
    for src, dst in rows:
        ps, pd = src - z, dst - z
        if pd < 0:
            raise SizeError(f"{eb}-bit elements are wider than the {1 << dst}-byte swizzle atom")
        if ps < n:
            sw[ps] |= 1 << pd
    phys = [f2.apply(cols, v) for v in sw]
    return LinearLayout.from_flat(base.in_dim_bits, base.out_dim_bits, (tuple(phys),))


def nvmma_layout(shape: Sequence[int], element_bits: int, swizzle_bytes: int | str, transposed: bool = False) -> LinearLayout:
    """Triton's ``NVMMASharedLayout`` of a 2-D tile: TMA-swizzled boxes side by side.

    The contiguous dimension (``dim1``, or ``dim0`` when ``transposed``) is
    cut into boxes of ``swizzle_bytes`` bytes (the whole row for 0); each box
    is a :func:`tma_swizzle` tile and boxes follow one another in memory.

    >>> nvmma_layout([64, 128], 16, 128).bases["offset"][6:9]    # rows 1, 2, 4 XOR chunks 1, 2, 4
    [(1, 8), (2, 16), (4, 32)]
    """
    shape = list(check_sequence(shape, "shape"))
    if len(shape) != 2:
        raise SizeError(f"nvmma_layout takes a 2-D tile, got shape {shape}")
    check_instance(transposed, bool, "transposed")
    eb = 1 << log2_size(element_bits, "element_bits")
    swizzle_bytes = swizzle_mode_bytes(swizzle_bytes)
    rows, cols = (1 << log2_size(x, f"shape[{i}]") for i, x in enumerate(shape if not transposed else shape[::-1]))
    if swizzle_bytes == 0:
        box_cols = cols
    else:
        box_cols = swizzle_bytes * 8 // eb
        if box_cols > cols:
            raise SizeError(
                f"a {swizzle_bytes}-byte swizzle needs rows of at least {box_cols} {eb}-bit elements, the tile has {cols}"
            )
    box = tma_swizzle(swizzle_bytes, [rows, box_cols], eb) if swizzle_bytes else unswizzled([rows, box_cols])
    nbox = cols // box_cols
    bases = [list(b) for b in box.bases["offset"]] + [[0, box_cols << k] for k in range(nbox.bit_length() - 1)]
    if transposed:
        bases = [[b[1], b[0]] for b in bases]
    return LinearLayout({"offset": bases}, {"dim0": shape[0], "dim1": shape[1]})
