"""The physical view of shared memory: rows of 128 bytes across the 32 banks, each element's tensor coordinate.

A memory layout maps an element offset to a tensor coordinate; the physical
view draws it the other way round, as the hardware sees it.  One grid row is
one row of shared memory (``hardware.row_bytes``, 128 bytes on sm90); the
columns are its banks (32 of 4 bytes), numbered along the top.  Each cell is
one element, ``element_bits / 32`` banks wide (half a bank for 16-bit
elements, two banks for 64-bit ones); it is labelled with the tensor
coordinate stored there (``row,col``, or stacked when that fits better) and
coloured by its last coordinate with ``cividis`` (not ``viridis``, so that it
is not read as a bank colour).  A swizzle shows as the columns of a row
permuted; a bank conflict as the same bank holding the elements that one
instruction reads from different rows.

Elements narrower than 8 bits are zoomed: only the first banks of each row,
so that at most four elements share a bank word.  At most ``max_rows``
rows are drawn.  The picture says what it left out.

Worked example: a 4x64 tensor of 16-bit elements, row-major, fills four
128-byte rows; element (1, 3) is in row 1, bank 1 (bytes 6 and 7 of the
row), stored as the flat coordinate ``1 + 3 * 4`` (``dim0`` in the lowest
bits), and the column colours of row 1 repeat those of row 0.

>>> from linlayout import unswizzled
>>> from linlayout.hw import get_hardware
>>> view = physical_view(unswizzled([4, 64]), 16, get_hardware("sm90"), 64)
>>> view.nrows, view.banks, view.width, view.per_row, view.cells[64 + 3], view.note
(4, 32, 0.5, 64, 13, '')
"""

from __future__ import annotations

from typing import Any

from ...core.layout import LinearLayout
from ...core.record import record
from .figure import Panel
from .glyphs import fit_font
from .grid import col_numbers, colorbar, draw_grid, draw_lines
from .palette import COLUMN_CMAP, ordered_colour

__all__ = ["PhysicalView", "physical_view", "physical_content", "draw_physical_panel"]


@record(frozen=False)
class PhysicalView:
    """The first rows of shared memory: per shown element, the flat tensor coordinate stored there.

    The grid is ``banks`` units wide (one unit per bank word); an element
    is ``width`` units wide (1/2 for 16-bit elements, 2 for 64-bit ones).

    Attributes
    ----------
    nrows
        Rows of shared memory shown.
    banks
        Banks shown (all of them, unless the elements are narrower than 8
        bits).
    width
        Banks per element.
    per_row
        Elements per row of shared memory.
    cells
        The flat tensor coordinate at each shown element, row by row
        (``None`` past the end of the memory).
    note
        What is left out, for the panel's title (``""`` when nothing is).
    """

    nrows: int
    banks: int
    width: float
    per_row: int
    cells: list[int | None]
    note: str


def physical_view(memory: LinearLayout, element_bits: int, hw: Any, max_rows: int) -> PhysicalView:
    """The first ``max_rows`` rows of shared memory holding ``memory``'s elements.

    Parameters
    ----------
    memory
        A memory layout (input ``offset``, element offsets).
    element_bits
        Bits per element (a power of two).
    hw
        The bank model (:func:`~linlayout.hw.get_hardware`).
    max_rows
        At most this many rows.

    Returns
    -------
    PhysicalView

    >>> from linlayout import unswizzled
    >>> from linlayout.hw import get_hardware
    >>> view = physical_view(unswizzled([64, 64]), 4, get_hardware("sm90"), 2)
    >>> view.nrows, view.banks, view.note
    (2, 16, 'zoomed: showing rows 0-1 of 16 and banks 0-15 (the first 128 of 256 elements of each row)')
    """
    n = memory.in_sizes.get("offset", 1)
    per_row = max(1, (hw.row_bytes * 8) // element_bits)
    width = element_bits / (8 * hw.bank_bytes)
    rows = -(-n // per_row)
    nr = min(rows, max_rows)
    shown = per_row
    banks = hw.banks
    notes = []
    if width < 0.25:  # narrower than 8 bits: at most 4 elements per bank word are drawn
        banks = max(1, int(banks * width * 4))
        shown = int(banks / width)
        notes.append(f"banks 0-{banks - 1} (the first {shown} of {per_row} elements of each row)")
    if nr < rows:
        notes.insert(0, f"rows 0-{nr - 1} of {rows}")
    cells = []
    for r in range(nr):
        for c in range(shown):
            o = r * per_row + c
            cells.append(memory.apply_flat({"offset": o}) if o < n else None)
    return PhysicalView(nr, banks, width, per_row, cells, ("zoomed: showing " + " and ".join(notes)) if notes else "")


def _coords(y: int, outs: list[tuple[str, int]]) -> list[int]:
    """The coordinates of flat tensor value ``y`` (the first dimension in the lowest bits)."""
    vals = []
    for _, s in outs:
        vals.append(y & (s - 1))
        y >>= s.bit_length() - 1
    return vals


def physical_content(memory: LinearLayout, phys: PhysicalView, cell: float):
    """Faces, labels and caption of a physical view.

    Parameters
    ----------
    memory, phys
        The memory layout and its :func:`physical_view`.
    cell
        Inches per bank: labels are written ``row,col`` or stacked, whichever
        fits at the larger size.

    Returns
    -------
    tuple
        Cell colours and labels for :func:`~.grid.draw_grid`, and a caption
        line saying what they mean.

    >>> from linlayout import unswizzled
    >>> from linlayout.hw import get_hardware
    >>> memory = unswizzled([4, 64])
    >>> faces, labels, caption = physical_content(memory, physical_view(memory, 16, get_hardware(), 4), 0.4)
    >>> labels[64 + 3], caption
    ('1\\n3', 'label: the element stored there (dim0 over dim1); colour: dim1')
    """
    outs = list(memory.out_sizes.items())
    col_dim, C = outs[-1]
    faces = [None if y is None else ordered_colour(COLUMN_CMAP, _coords(y, outs)[-1], C) for y in phys.cells]
    one = ["" if y is None else ",".join(map(str, _coords(y, outs))) for y in phys.cells]
    two = ["" if y is None else "\n".join(map(str, _coords(y, outs))) for y in phys.cells]
    f1, f2 = fit_font(one, cell, width=phys.width), fit_font(two, cell, width=phys.width)
    if len(outs) > 1 and (f2 or 0) > (f1 or 0) + 0.5:
        labels, fs = two, f2
        what = " over ".join(n for n, _ in outs)
    else:
        labels, fs = one, f1
        what = ", ".join(n for n, _ in outs)
    caption = (f"label: the element stored there ({what}); colour: {col_dim}" if fs
               else f"colour: {col_dim} of the element stored there (labels omitted: cells too small)")
    return faces, labels, caption


def draw_physical_panel(fig, panel: Panel, memory: LinearLayout, phys: PhysicalView, element_bits: int, hw: Any,
                        cell: float, faces, labels) -> None:
    """Draw a physical view into a panel placed by :func:`~.figure.compose` (with a colour bar).

    The grid of :func:`~.grid.draw_grid` with banks numbered across and
    rows down; when elements are narrower than a bank, dark lines mark the
    bank edges.  ``faces`` and ``labels`` come from :func:`physical_content`.
    """
    banks = phys.banks
    cols = col_numbers(banks, cell, list(range(banks)))
    texts = draw_grid(panel, faces, labels, cell, cols=cols, xlabel="bank", ylabel=f"{hw.row_bytes}-byte row",
                      width=phys.width)
    if phys.width < 1:
        draw_lines(panel.ax, [((b, 0), (b, panel.nrows)) for b in range(1, banks)], "#404040", 0.8)
    texts.draw(panel.ax)
    outs = list(memory.out_sizes.items())
    colorbar(fig, panel.cax, COLUMN_CMAP, outs[-1][1], outs[-1][0])
