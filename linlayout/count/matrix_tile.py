"""The matrix instructions' tile (paper Thm. 5.1): what ``ldmatrix``/``stmatrix`` need of a layout.

A matrix instruction moves 8x8 tiles of 16-bit values: each lane gives
the address of one row (``matrix_rows`` rows of ``matrix_row_bytes`` per
matrix, from the hardware model) and receives one 32-bit register per
matrix.  For the layout ``C = M⁻¹ ∘ L`` of element offsets this fixes the
images of a few bases (the tile's *required* bases: the elements inside a
register, then the lanes inside a row) and asks every other basis to move
by whole rows.  :func:`matrix_tile` states the tile of an instruction,
:func:`check_matrix_tile` checks a layout's offsets against it (naming the
basis that breaks it) and :func:`matrix_tile_ok_batch` is the same test on
arrays of many memories at once.  :mod:`linlayout.count.plan` (the access
rule) plans matrix accesses with these.

>>> from linlayout.hw import sm90, parse_instruction
>>> matrix_tile(parse_instruction("ldmatrix.x4"), 16, sm90).row_generators
(('lane', 2), ('lane', 3), ('lane', 4))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..core.record import record
from ..errors import LoweringError
from ..hw import Instruction, SharedMemory

__all__ = ["Generator", "MatrixTile", "matrix_tile", "check_matrix_tile", "matrix_tile_ok_batch"]

Generator = tuple[str, int]
"""A basis of the distributed layout: (input dimension, bit)."""


@record
class MatrixTile:
    """What ``ldmatrix``/``stmatrix`` needs of ``C`` and how it addresses rows.

    ``required`` lists the tile's bases with the element offset each must
    map to, lowest offset first; every other basis must map to a multiple of
    ``row_elements`` (a whole row).  ``row_generators`` span a matrix's row
    addresses and ``vector_registers`` are the register bits inside one
    lane's register.

    >>> from linlayout.hw import sm90, parse_instruction
    >>> t = matrix_tile(parse_instruction("ldmatrix.x4"), 16, sm90)
    >>> t.required
    ((('register', 0), 1), (('lane', 0), 2), (('lane', 1), 4))
    >>> t.row_generators
    (('lane', 2), ('lane', 3), ('lane', 4))
    """

    required: tuple[tuple[Generator, int], ...]
    row_generators: tuple[Generator, ...]
    vector_registers: tuple[int, ...]
    row_elements: int
    row_bytes: int


def _bits_list(values: Sequence[int]) -> str:
    names = [f"{v}-" for v in values[:-1]]
    return (", ".join(names) + " or " if names else "") + f"{values[-1]}-bit"


@lru_cache(maxsize=256)
def matrix_tile(ins: Instruction, element_bits: int, hw: SharedMemory) -> MatrixTile:
    """The tile of a matrix instruction; raises :class:`LoweringError` for obstacles no layout can remove."""
    name = ins.name
    if not hw.matrix_rows:
        raise LoweringError(f"{hw.name} has no {ins.kind}")
    reg_bits = hw.register_bytes * 8
    widths = [w for w in (8, 16, 32, 64, 128) if w <= reg_bits]
    if element_bits not in widths:
        raise LoweringError(f"{name} moves {_bits_list(widths)} elements, not {element_bits}-bit")
    row_elements = hw.matrix_row_bytes * 8 // element_bits
    if ins.trans and row_elements != hw.matrix_rows:
        square = hw.matrix_row_bytes * 8 // hw.matrix_rows
        raise LoweringError(f"{name} transposes {square}-bit elements only, not {element_bits}-bit")
    kv = (reg_bits // element_bits).bit_length() - 1  # elements of one lane register (log2)
    lpr = hw.matrix_lanes_per_row.bit_length() - 1  # lanes sharing a row (log2)
    rows = hw.matrix_rows.bit_length() - 1
    in_row = [("register", i) for i in range(kv)] + [("lane", j) for j in range(lpr)]
    row_index = [("lane", lpr + j) for j in range(rows)]
    if not ins.trans:
        required = tuple((g, 1 << i) for i, g in enumerate(in_row))
        row_gens = tuple(row_index)
    else:
        required = tuple((g, 1 << i) for i, g in enumerate(row_index))
        row_gens = tuple(in_row)
    return MatrixTile(required, row_gens, tuple(range(kv)), row_elements, hw.matrix_row_bytes)


def check_matrix_tile(ins: Instruction, tile: MatrixTile, offsets: Mapping[str, Sequence[int]]) -> None:
    """Raise :class:`LoweringError` naming the first basis that does not fit the tile.

    >>> from linlayout.hw import sm90, parse_instruction
    >>> ins = parse_instruction("ldmatrix.x1")
    >>> check_matrix_tile(ins, matrix_tile(ins, 16, sm90), {"register": (1, 8), "lane": (2, 4, 16, 32, 64)})
    >>> check_matrix_tile(ins, matrix_tile(ins, 16, sm90), {"register": (1, 8), "lane": (4, 2, 16, 32, 64)})
    Traceback (most recent call last):
    ...
    linlayout.errors.LoweringError: ldmatrix.x1 cannot access this layout (paper Thm. 5.1: it is not left-divisible by the ldmatrix.x1 tile): lane bit 0 maps to offset 4, the tile needs 2 (byte 4)
    """
    problem = tile_problem(ins, tile, offsets)
    if problem is not None:
        raise LoweringError(f"{ins.name} cannot access this layout (paper Thm. 5.1: it is not left-divisible by the "
                            f"{ins.name} tile): {problem}")


def tile_problem(ins: Instruction, tile: MatrixTile, offsets: Mapping[str, Sequence[int]]) -> str | None:
    """What :func:`check_matrix_tile` objects to: the first basis that does not fit the tile, in words, or None
    when the offsets fit.  (The words are written only for a basis that fails: the check runs once per
    candidate memory the synthesizer scores exactly, and nearly all of them fit.)"""
    nvec = len(tile.vector_registers)
    regs = offsets.get("register", ())
    if len(regs) < nvec:
        if not ins.trans:
            return f"it needs {nvec} register bits for the {1 << nvec} elements of a 32-bit register"
        if nvec == 1:
            return "it needs register bit 0 (two rows per 32-bit register)"
        return f"it needs register bits {', '.join(map(str, tile.vector_registers))} ({1 << nvec} rows per lane register)"
    for (d, b), want in tile.required:
        vs = offsets.get(d, ())
        have = vs[b] if b < len(vs) else None
        if have == want:
            continue
        if ins.trans:
            return f"{d} bit {b} maps to offset {have}, the transposed tile needs {want}"
        if d == "register":
            return f"register bit {b} maps to offset {have}, the tile needs {want}"
        return f"lane bit {b} maps to offset {have}, the tile needs {want} (byte {want * tile.row_bytes // tile.row_elements})"
    tile_gens = {g for g, _ in tile.required}
    low = tile.row_elements - 1
    for d, vs in offsets.items():
        for i, v in enumerate(vs):
            if v & low and (d, i) not in tile_gens:
                return (f"{d} bit {i} maps to offset {v}, which is not a multiple of a {tile.row_bytes}-byte row "
                        f"({tile.row_elements} elements)")
    return None


def matrix_tile_ok_batch(tile: MatrixTile, offsets: Mapping[str, Any]):
    """:func:`check_matrix_tile` on arrays: ``offsets[d]`` is ``(n, bits)``; returns a bool array of ``n``."""
    import numpy as np

    n = next(iter(offsets.values())).shape[0]
    ok = np.ones(n, dtype=bool)
    for (d, b), want in tile.required:
        vs = offsets.get(d)
        if vs is None or b >= vs.shape[1]:
            return np.zeros(n, dtype=bool)
        ok &= vs[:, b] == want
    tile_gens = {g for g, _ in tile.required}
    low = tile.row_elements - 1
    for d, vs in offsets.items():
        for i in range(vs.shape[1]):
            if (d, i) not in tile_gens:
                ok &= (vs[:, i] & low) == 0
    return ok


