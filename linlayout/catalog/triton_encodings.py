"""Triton's TTGIR encodings as linear layouts: the conversions of Triton's ``toLinearLayout``.

Each function takes the fields of one encoding attribute as plain Python
values (the names follow the attribute's printed keys) and the tensor shape,
and returns the :class:`~linlayout.core.layout.LinearLayout` that Triton's
``triton::gpu::toLinearLayout(shape, attr)`` returns: distributed encodings
map ``register, lane, warp, block`` to ``dim0, dim1, ...``, shared encodings
map ``offset, block`` (elements) to them.  No Triton import: the algorithms
are transcriptions of ``LinearLayoutConversions.cpp`` (Triton 3.9), checked
against Triton itself on 2,400 random valid attributes, ranks 1 to 4, small
tensors and CGA layouts included (``tests/data/ttgir_attribute_cases.json``,
made by ``tools/ttgir_attribute_cases.py``; ``tools/fuzz.py`` draws fresh
ones).  Where Triton broadcasts (a tensor smaller than an mma, dot-operand or
mfma tile), the zero register bases it keeps are kept.  One valid encoding is
refused on purpose: ``nvmma_shared`` unswizzled and transposed at rank 3 or
more, which Triton 3.9 maps to more offsets than the buffer has elements.

The text of the attributes (``#ttg.blocked<{...}>``) is read and printed by
:mod:`linlayout.io.ttgir`; this module is the semantics only.

``cga`` is the attribute's ``CGALayout`` (Triton 3.9's CTA layout): one basis
per block bit, in units of one CTA's tile; empty for one CTA.

AMD ``#ttg.amd_mfma`` follows Triton's conversion (checked against Triton) but
no AMD hardware was measured here, and :mod:`linlayout.hw` has no AMD bank model.

>>> triton_blocked([16, 16], [1, 4], [8, 4], [2, 1], [1, 0]).bases["lane"]
[(0, 4), (0, 8), (1, 0), (2, 0), (4, 0)]
>>> triton_swizzled_shared([8, 8], vec=2, per_phase=1, max_phase=4, order=[1, 0]).bases["offset"][3:5]
[(1, 2), (2, 4)]
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.dims import log2_size
from ..core.layout import LinearLayout
from ..core.validate import (
    check_instance,
    check_int,
    check_int_sequence,
    check_rectangular,
)
from ..errors import DimensionError, SizeError
from .constructors import AMD_WAVE64_LANE_BITS, check_order, fit_tile, identity_nd

__all__ = [
    "triton_amd_mfma",
    "triton_blocked",
    "triton_dot_operand",
    "triton_linear",
    "triton_nvidia_mma",
    "triton_nvmma_shared",
    "triton_shared_linear",
    "triton_slice",
    "triton_swizzled_shared",
]

_DIST_INS = ("register", "lane", "warp", "block")


def _names(rank: int) -> list[str]:
    return [f"dim{i}" for i in range(rank)]


def _shape(shape: Sequence[int]) -> list[int]:
    shape = list(check_int_sequence(shape, "shape"))
    if not shape:
        raise SizeError("a tensor shape needs at least one dimension")
    for i, s in enumerate(shape):
        log2_size(s, f"shape[{i}]")
    return shape


def _len(values: Sequence[int], rank: int, what: str) -> list[int]:
    values = list(check_int_sequence(values, what))
    if len(values) != rank:
        raise DimensionError(f"{what} has {len(values)} entries but the shape has rank {rank}")
    for i, v in enumerate(values):
        log2_size(v, f"{what}[{i}]")
    return values


def _cga_layout(cga: Sequence[Sequence[int]], shape: list[int]) -> tuple[list[list[int]], list[int]]:
    """The CGA bases (CTA-tile units) after ``ensureLayoutNotLargerThan``, and the CTA split per dim."""
    rank = len(shape)
    bases = [list(b) for b in check_rectangular(cga, "CGALayout")]
    for b in bases:
        if len(b) != rank:
            raise DimensionError(f"CGALayout basis {b} has {len(b)} entries but the shape has rank {rank}")
    split = []
    for d in range(rank):
        m = 0
        for b in bases:
            m |= b[d]
        size = 1 << m.bit_length()
        while size > shape[d]:  # broadcast the largest coordinates, as ensureLayoutNotLargerThan
            size >>= 1
            for b in bases:
                if b[d] >= size:
                    b[d] = 0
        split.append(size)
    return bases, split


def _combine_cta_cga(cta: LinearLayout, cga: Sequence[Sequence[int]], shape: list[int], *,
                     in_dims: Sequence[str] = _DIST_INS, keep_zero_registers: bool = False) -> LinearLayout:
    """Triton's ``combineCtaCgaWithShape``: fit the CTA tile to one CTA's share, add the block bases.

    Register bases that the fit makes zero (a tensor smaller than the tile)
    stay where they are with ``keep_zero_registers``, as Triton keeps them for
    the mma, dot-operand and mfma tiles; the blocked conversion builds a tile
    that never has them.
    """
    rank = len(shape)
    cga_bases, split = _cga_layout(cga, shape)
    cta_shape = [max(1, s // k) for s, k in zip(shape, split)]
    outs = list(cta.out_dims)
    for n in _names(rank):
        if n not in outs:
            cta = cta * LinearLayout.identity(1, in_dims[0], n)
            outs.append(n)
    drop = in_dims[0] == "register" and not keep_zero_registers
    fitted = fit_tile(cta, cta_shape, cta.in_dims[0], drop_broadcast_registers=drop)
    bases = {d: [list(b) for b in bl] for d, bl in fitted.bases.items()}
    bases["block"] = [[c * cs for c, cs in zip(b, cta_shape)] for b in cga_bases]
    order = [d for d in in_dims if d in bases] + [d for d in bases if d not in in_dims]
    return LinearLayout({d: bases[d] for d in order}, {f"dim{i}": s for i, s in enumerate(shape)})


def triton_blocked(shape: Sequence[int], size_per_thread: Sequence[int], threads_per_warp: Sequence[int],
                   warps_per_cta: Sequence[int], order: Sequence[int],
                   cga: Sequence[Sequence[int]] = ()) -> LinearLayout:
    """``#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order[, CGALayout]}>`` on ``shape``.

    >>> triton_blocked([4, 8], [1, 2], [4, 8], [1, 1], [1, 0]).bases["register"]
    [(0, 1)]
    """
    shape = _shape(shape)
    rank = len(shape)
    spt = _len(size_per_thread, rank, "sizePerThread")
    tpw = _len(threads_per_warp, rank, "threadsPerWarp")
    wpc = _len(warps_per_cta, rank, "warpsPerCTA")
    order = check_order(order, rank)
    cta = (identity_nd("register", spt, order) * identity_nd("lane", tpw, order)
           * identity_nd("warp", wpc, order))
    return _combine_cta_cga(cta, cga, shape)


def triton_slice(parent: LinearLayout, dim: int) -> LinearLayout:
    """``#ttg.slice<{dim, parent}>``: ``parent`` is the parent's layout on the shape with a 1 inserted at ``dim``.

    The ``dim`` output is removed, registers that became zero are dropped, and
    the remaining outputs are renumbered.

    >>> p = triton_blocked([1, 8], [1, 1], [4, 8], [1, 1], [1, 0])
    >>> triton_slice(p, 0).bases["lane"]
    [(1,), (2,), (4,), (0,), (0,)]
    """
    name = f"dim{dim}"
    if name not in parent.out_dims or len(parent.out_dims) < 2:
        raise DimensionError(f"cannot slice {name} of a layout with outputs {list(parent.out_dims)}")
    if parent.out_sizes[name] != 1:
        raise SizeError(f"the parent of a slice must have size 1 along {name}, got {parent.out_sizes[name]}")
    rank = len(parent.out_dims)
    keep = [f"dim{i}" for i in range(rank) if i != dim]
    sub = parent.transpose_outs(keep + [name])
    bases = {}
    for d, bl in sub.bases.items():
        rows = [list(b[:-1]) for b in bl]
        if d == "register":
            rows = [b for b in rows if any(b)]
        bases[d] = rows
    return LinearLayout(bases, {f"dim{i}": sub.out_sizes[n] for i, n in enumerate(keep)})


def triton_linear(shape: Sequence[int], register: Sequence[Sequence[int]], lane: Sequence[Sequence[int]],
                  warp: Sequence[Sequence[int]] = (), block: Sequence[Sequence[int]] = ()) -> LinearLayout:
    """``#ttg.linear<{register, lane, warp, block}>``: the bases as written, fitted to ``shape`` as Triton does.

    A coordinate at or beyond ``shape`` (the tensor is smaller than the
    layout) broadcasts: a register basis that has one is dropped, the others
    become 0 there (Triton's ``ensureLayoutNotLargerThan`` without register
    broadcast).  Zero bases written in the attribute stay.  A layout smaller
    than the tensor repeats by registers.

    >>> triton_linear([2, 2], [[0, 1]], [[1, 0], [0, 0], [0, 0], [0, 0], [0, 0]]).apply(register=1, lane=1)
    {'dim0': 1, 'dim1': 1}
    >>> triton_linear([2], [[1], [2]], [[4], [0], [0], [0], [0]]).bases
    {'register': [(1,)], 'lane': [(0,), (0,), (0,), (0,), (0,)], 'warp': [], 'block': []}
    """
    shape = _shape(shape)
    bases = {d: [list(b) for b in check_rectangular(v, d, len(shape))] for d, v in
             (("register", register), ("lane", lane), ("warp", warp), ("block", block))}
    for d, rows in bases.items():
        for b in rows:
            if any(c < 0 for c in b):
                raise SizeError(f"#ttg.linear {d} basis {b} has a negative coordinate")
    fitted = _broadcast_beyond(bases, shape)
    sizes = {f"dim{i}": 1 << max([c.bit_length() for rows in fitted.values() for b in rows for c in b[i:i + 1]] or [0])
             for i in range(len(shape))}
    # a layout smaller than the tensor repeats by registers (Triton's ensureLayoutNotSmallerThan), in the
    # encoding's order: dims as the register bases first move them, then the others from the last
    order = [next(i for i, c in enumerate(b) if c) for b in bases["register"] if any(b)]
    names = [f"dim{i}" for i in dict.fromkeys(order + list(range(len(shape) - 1, -1, -1)))]
    grown = _grow(LinearLayout(fitted, sizes).transpose_outs(names), shape)
    return grown.transpose_outs([f"dim{i}" for i in range(len(shape))])


def _broadcast_beyond(bases: dict[str, list[list[int]]], shape: list[int]) -> dict[str, list[list[int]]]:
    """Triton's ``ensureLayoutNotLargerThan`` without register broadcast: coordinates at or beyond ``shape``.

    A register basis with such a coordinate is dropped; in the other inputs the coordinate becomes 0.
    """
    inside = {d: [all(c < s for c, s in zip(b, shape)) for b in rows] for d, rows in bases.items()}
    return {d: ([b for b, ok in zip(rows, inside[d]) if ok] if d == "register"
                else [[c if c < s else 0 for c, s in zip(b, shape)] for b in rows]) for d, rows in bases.items()}


def _mma_tile(tile_shape: Sequence[int], k_width: int, order: Sequence[int], rep_order: Sequence[int]) -> LinearLayout:
    """Triton's ``nvidiaMmaTile``: kWidth registers, 4 lanes inner, 8 lanes outer, then repeats."""
    rank = len(rep_order)
    L = identity_nd("register", [1] * rank, rep_order)
    inner, outer = order[0], order[1]
    m, n = tile_shape[outer], tile_shape[inner]
    if m % 8 or n % (k_width * 4):
        raise SizeError(f"an mma tile {list(tile_shape)} does not fit kWidth {k_width}")
    di, do = f"dim{inner}", f"dim{outer}"
    return (L * LinearLayout.identity(k_width, "register", di) * LinearLayout.identity(4, "lane", di)
            * LinearLayout.identity(8, "lane", do) * LinearLayout.identity(m // 8, "register", do)
            * LinearLayout.identity(n // (k_width * 4), "register", di))


def _matrix_order(rank: int, row_major: bool) -> list[int]:
    """Triton's ``getMatrixOrder``."""
    order = list(range(rank - 1, -1, -1))
    if not row_major:
        order[0], order[1] = order[1], order[0]
    return order


def _check_mma(version: int, warps_per_cta: Sequence[int], instr_shape: Sequence[int], rank: int) -> tuple[list[int], list[int]]:
    if check_int(version, "versionMajor") not in (2, 3):
        raise DimensionError(f"nvidia_mma versionMajor {version} is not supported (2: mma.sync, 3: wgmma)")
    wpc = _len(warps_per_cta, rank, "warpsPerCTA")
    instr = list(check_int_sequence(instr_shape, "instrShape"))
    want = rank if version == 2 else 3
    if len(instr) != want:
        raise DimensionError(f"nvidia_mma v{version} instrShape has {want} entries for rank {rank}, got {instr}")
    if rank != 2 and version == 3:
        raise DimensionError("nvidia_mma v3 (wgmma) layouts are 2-D")
    return wpc, instr


def triton_nvidia_mma(shape: Sequence[int], version: int, warps_per_cta: Sequence[int], instr_shape: Sequence[int],
                      cga: Sequence[Sequence[int]] = ()) -> LinearLayout:
    """``#ttg.nvidia_mma<{versionMajor, warpsPerCTA, instrShape}>``: the accumulator of mma.sync (2) or wgmma (3).

    >>> triton_nvidia_mma([16, 8], 2, [1, 1], [16, 8]).bases["register"]
    [(0, 1), (8, 0)]
    """
    shape = _shape(shape)
    rank = len(shape)
    wpc, instr = _check_mma(version, warps_per_cta, instr_shape, rank)
    tile = instr[:2] if version == 3 else instr
    order = rep_order = _matrix_order(rank, True)
    cta = _mma_tile(tile, 2, order, rep_order)
    warps = identity_nd("warp", wpc, _matrix_order(rank, version == 2))
    cta = cta * warps.transpose_outs([n for n in cta.out_dims if n in warps.out_dims])
    return _combine_cta_cga(cta, cga, shape, keep_zero_registers=True)


def triton_dot_operand(shape: Sequence[int], op_idx: int, k_width: int, version: int, warps_per_cta: Sequence[int],
                       instr_shape: Sequence[int], cga: Sequence[Sequence[int]] = ()) -> LinearLayout:
    """``#ttg.dot_op<{opIdx, parent = #ttg.nvidia_mma<...>, kWidth}>``: an mma operand held in registers.

    ``op_idx`` 0 is A (``M x K``), 1 is B (``K x N``, mma.sync only: wgmma
    reads B from shared memory); the remaining arguments are the parent's.

    >>> triton_dot_operand([16, 16], 0, 2, 2, [1, 1], [16, 8]).bases["register"]
    [(0, 1), (8, 0), (0, 8)]
    """
    shape = _shape(shape)
    rank = len(shape)
    wpc, _ = _check_mma(version, warps_per_cta, instr_shape, rank)
    if check_int(op_idx, "opIdx") not in (0, 1):
        raise DimensionError(f"opIdx must be 0 (A) or 1 (B), got {op_idx}")
    if op_idx == 1 and version == 3:
        raise DimensionError("a wgmma (nvidia_mma v3) B operand is read from shared memory; it has no register layout")
    log2_size(k_width, "kWidth")
    is_a = op_idx == 0
    tile = [1] * rank
    if is_a:
        tile[rank - 2], tile[rank - 1] = 16, k_width * 8
    else:
        tile[rank - 2], tile[rank - 1] = k_width * 8, 8
    # getOrder / getRepOrder of a dot operand: K fastest.
    order = _matrix_order(rank, is_a)
    cta = _mma_tile(tile, k_width, order, order)
    inner = rank - 1 if is_a else rank - 2
    warps = LinearLayout.empty()
    for d in _matrix_order(rank, version == 2):
        piece = LinearLayout.zeros if d == inner else LinearLayout.identity
        warps = warps * piece(wpc[d], "warp", f"dim{d}")
    cta = cta * warps.transpose_outs([n for n in cta.out_dims if n in warps.out_dims])
    # the operand is whole along K in every CTA: the parent's CGA bases along K broadcast
    k_cga = [[0 if d == inner else c for d, c in enumerate(b)] for b in check_rectangular(cga, "CGALayout")]
    return _combine_cta_cga(cta, k_cga, shape, keep_zero_registers=True)


def triton_amd_mfma(shape: Sequence[int], version: int, warps_per_cta: Sequence[int], instr_shape: Sequence[int],
                    transposed: bool = False, tiles_per_warp: Sequence[int] | None = None,
                    element_bits: int = 32, cga: Sequence[Sequence[int]] = ()) -> LinearLayout:
    """``#ttg.amd_mfma<{version, warpsPerCTA, instrShape, isTransposed}>``: an MFMA accumulator (64 lanes).

    Transcribed from Triton and checked against its conversion, but NOT measured
    on AMD hardware; :mod:`linlayout.hw` has no AMD bank model to count it with.

    >>> triton_amd_mfma([32, 32], 3, [1, 1], [32, 32, 8]).in_sizes["lane"]
    64
    """
    shape = _shape(shape)
    rank = len(shape)
    if rank != 2:
        raise DimensionError(f"amd_mfma layouts are read for rank 2 only, got rank {rank}")
    wpc = _len(warps_per_cta, rank, "warpsPerCTA")
    if tiles_per_warp is not None and any(t != 1 for t in check_int_sequence(tiles_per_warp, "tilesPerWarp")):
        raise DimensionError(f"amd_mfma tilesPerWarp {list(tiles_per_warp)} is not supported (only 1s)")
    check_instance(transposed, bool, "isTransposed")
    if check_int(element_bits, "elementBitWidth") != 32:
        raise DimensionError(f"amd_mfma with {element_bits}-bit elements is not supported (only 32)")
    m, n = check_int_sequence(instr_shape, "instrShape")[:2]
    height, lanes = 4, 1 << AMD_WAVE64_LANE_BITS
    tiles = m * n // (lanes * height)
    dm, dn = "dim0", "dim1"
    if not transposed:
        tile = (LinearLayout.identity(height, "register", dm) * LinearLayout.identity(n, "lane", dn)
                * LinearLayout.identity(lanes // n, "lane", dm))
        if tiles > 0:
            tile = tile * LinearLayout.identity(tiles, "register", dm)
    else:
        tile = (LinearLayout.identity(height, "register", dn) * LinearLayout.identity(m, "lane", dm)
                * LinearLayout.identity(lanes // m, "lane", dn))
        if tiles > 0:
            tile = tile * LinearLayout.identity(tiles, "register", dn)
    tile = tile.transpose_outs([dn, dm])
    warps = identity_nd("warp", wpc, [1, 0])
    # along N the tile repeats over the whole tensor before the CGA splits it (Triton keeps the registers
    # the split zeroes); along M it repeats over one CTA's share only (checked against Triton 3.9)
    cta = _grow(tile * warps, [1, shape[1]])
    return _combine_cta_cga(cta, cga, shape, keep_zero_registers=True)


def _grow(layout: LinearLayout, shape: list[int]) -> LinearLayout:
    """Triton's ``ensureLayoutNotSmallerThan``: repeat by registers up to ``shape``, outputs in the layout's order."""
    for n in list(layout.out_dims):
        want = shape[int(n[3:])]
        if layout.out_sizes[n] < want:
            layout = layout * LinearLayout.identity(want // layout.out_sizes[n], "register", n)
    return layout


def triton_swizzled_shared(shape: Sequence[int], vec: int, per_phase: int, max_phase: int, order: Sequence[int],
                           cga: Sequence[Sequence[int]] = ()) -> LinearLayout:
    """``#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>``: row ``r`` XORs ``vec * ((r / perPhase) % maxPhase)``.

    >>> triton_swizzled_shared([4, 8], 1, 1, 1, [1, 0]).bases["offset"]
    [(0, 1), (0, 2), (0, 4), (1, 0), (2, 0)]
    """
    shape = _shape(shape)
    rank = len(shape)
    order = check_order(order, rank)
    for what, v in (("vec", vec), ("perPhase", per_phase), ("maxPhase", max_phase)):
        log2_size(v, what)
    _, split = _cga_layout(cga, shape)
    per_cta = [max(1, s // k) for s, k in zip(shape, split)]
    if rank == 1:
        cta = LinearLayout.identity(per_cta[0], "offset", "dim0")
    else:
        col, row = order[0], order[1]
        ncols, nrows = per_cta[col], per_cta[row]
        bases = [[0, c] for c in _powers(ncols)]
        bases += [[r, (vec * ((r // per_phase) % max_phase)) % ncols] for r in _powers(nrows)]
        cta = LinearLayout({"offset": bases}, {f"dim{row}": nrows, f"dim{col}": ncols})
        for d in order[2:]:
            cta = cta * LinearLayout.identity(per_cta[d], "offset", f"dim{d}")
    return _combine_cta_cga(cta, cga, shape, in_dims=("offset", "block"))


def _powers(n: int) -> list[int]:
    return [1 << k for k in range(n.bit_length() - 1)]


def triton_nvmma_shared(shape: Sequence[int], swizzle_bytes: int, element_bits: int, transposed: bool = False,
                        fp4_padded: bool = False, cga: Sequence[Sequence[int]] = ()) -> LinearLayout:
    """``#ttg.nvmma_shared<{swizzlingByteWidth, transposed, elementBitWidth[, fp4Padded]}>``: TMA/wgmma boxes.

    The contiguous dimension (the last, or ``dim0`` when ``transposed``) is cut
    into boxes of ``swizzle_bytes`` (outer dimensions into boxes of at most
    256); each box is the PTX swizzle of that width, boxes follow in memory.

    >>> triton_nvmma_shared([8, 64], 128, 16).bases["offset"][6:9]
    [(1, 8), (2, 16), (4, 32)]
    """
    shape = _shape(shape)
    rank = len(shape)
    check_instance(transposed, bool, "transposed")
    check_instance(fp4_padded, bool, "fp4Padded")
    if check_int(swizzle_bytes, "swizzlingByteWidth") not in (0, 32, 64, 128):
        raise SizeError(f"swizzlingByteWidth must be 0, 32, 64 or 128, got {swizzle_bytes}")
    if check_int(element_bits, "elementBitWidth") not in (4, 8, 16, 32, 64):
        raise SizeError(f"elementBitWidth must be 4 to 64, got {element_bits}")
    if rank < 2 and swizzle_bytes:
        raise DimensionError("a swizzled nvmma_shared layout needs rank 2 or more")
    if rank >= 3 and transposed and not swizzle_bytes:
        # Triton 3.9's toLinearLayout gives this encoding more offsets than the tile has elements (zero
        # bases among them): no memory layout to read.  The same tile, unswizzled, is a shared_linear.
        raise DimensionError("nvmma_shared with swizzlingByteWidth = 0 and transposed = true is not read at rank "
                             f"{rank} (Triton 3.9 maps it to {rank}-D offsets that do not form a memory layout); "
                             "use transposed = false, rank 2, or #ttg.shared_linear")
    _, split = _cga_layout(cga, shape)
    per_cta = [max(1, s // k) for s, k in zip(shape, split)]
    packing = 2 if fp4_padded else 1
    tile_cols = swizzle_bytes * 8 // element_bits  # one box row, counting fp4 padding
    tile_real = tile_cols // packing
    # getTMABlockShape: the contiguous dim is at most the swizzle width, the others at most 256.
    tma = list(per_cta)
    contig = 0 if transposed else rank - 1
    if swizzle_bytes:
        if min(tma[contig] * packing, 256) < tile_cols:  # Triton: "Block shape is too small for the swizzle"
            raise SizeError(f"an nvmma_shared box of {swizzle_bytes} bytes needs {tile_real} elements along dim{contig} "
                            f"in each CTA, the buffer has {tma[contig]}")
        tma[contig] = min(tma[contig], tile_real)
    for d in range(rank):
        if d != contig:
            tma[d] = min(tma[d], 256)
    names = _names(rank)
    if swizzle_bytes == 0:  # row-major; transposed: dim0 fastest, then the others from the last
        fastest_first = ([0] + list(range(rank - 1, 0, -1))) if transposed else list(range(rank - 1, -1, -1))
        cta = LinearLayout.empty()
        for i in fastest_first:
            cta = cta * LinearLayout.identity(tma[i], "offset", names[i])
    else:
        if transposed:
            rows, cols = tma[rank - 1], 1
            for d in range(rank - 1):
                cols *= tma[d]
        else:
            rows, cols = 1, tma[rank - 1]
            for d in range(rank - 1):
                rows *= tma[d]
        if cols < tile_real or rows < 8:
            raise SizeError(f"an nvmma_shared box needs at least 8 x {tile_real} elements, the tile has {rows} x {cols}")
        bases = []
        for c in _powers(tile_cols):
            bases.append([0, c // 16 * 8 + c % 8 if fp4_padded else c])
        vec_elems = 128 // element_bits
        per_phase = max(1, 128 // swizzle_bytes)
        max_phase = swizzle_bytes // 16
        for r in _powers(rows):
            x = vec_elems * ((r // per_phase) % max_phase) % tile_cols
            bases.append([r, x // 16 * 8 + x % 8 if fp4_padded else x])
        box = LinearLayout({"offset": bases}, {"dim0": rows, "dim1": tile_real})
        box = box * LinearLayout.identity(cols // tile_real, "offset", "dim1")
        # reshape the 2-D (rows, cols) box to the (maybe rotated) N-D shape, row-major.
        nd = tma[1:] + tma[:1] if transposed else list(tma)
        flat = box.transpose_outs(["dim1", "dim0"]).reshape_outs([(f"r{i}", nd[i]) for i in range(rank - 1, -1, -1)])
        if transposed:
            perm = {f"r{i}": names[(i + 1) % rank] for i in range(rank)}
        else:
            perm = {f"r{i}": names[i] for i in range(rank)}
        cta = flat.rename(None, perm)
    sizes = {n: cta.out_sizes.get(n, 1) for n in names}
    cta = cta.transpose_outs([n for n in names if n in cta.out_dims])
    for i, n in enumerate(names):  # ensureLayoutNotSmallerThan, dim0 first
        if sizes[n] < per_cta[i]:
            cta = cta * LinearLayout.identity(per_cta[i] // sizes[n], "offset", n)
    return _combine_cta_cga(cta, cga, shape, in_dims=("offset", "block"))


def triton_shared_linear(shape: Sequence[int], offset: Sequence[Sequence[int]],
                         block: Sequence[Sequence[int]] = ()) -> LinearLayout:
    """``#ttg.shared_linear<{offset, block}, alignment>``: the offset bases as written.

    >>> triton_shared_linear([2, 2], [[0, 1], [1, 1]]).apply(offset=2)
    {'dim0': 1, 'dim1': 1}
    """
    shape = _shape(shape)
    bases = {"offset": check_rectangular(offset, "offset", len(shape)), "block": check_rectangular(block, "block", len(shape))}
    if not bases["offset"]:  # Triton's verifier: "Empty Layout not supported"
        raise SizeError("a shared_linear layout needs at least one offset basis (Triton refuses an empty one); a "
                        "one-element buffer is #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>")
    spans = [1 << max([c.bit_length() for rows in bases.values() for b in rows for c in b[i:i + 1]] or [0])
             for i in range(len(shape))]
    if spans != shape:  # Triton's verifier: "Mismatch in expected shape"
        raise DimensionError(f"the shared_linear bases span a {'x'.join(map(str, spans))} tile but the buffer is "
                             f"{'x'.join(map(str, shape))}; Triton requires them to be equal")
    return LinearLayout(bases, {f"dim{i}": s for i, s in enumerate(shape)})
