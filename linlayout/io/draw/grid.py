"""Grids of cells: the drawing shared by every panel.

Every panel of a picture is a grid of square cells in data coordinates:
cell ``(row, column)`` covers ``[column, column + 1] x [row, row + 1]``,
row 0 at the top (a physical view of shared memory is ``banks`` units
wide and its cells ``width`` units, the fraction of a bank an element
takes).  :func:`draw_grid` fills the cells with their colours (one vector
rectangle per cell), separates them with thin white lines, writes the cell
labels at the largest size that fits (:func:`~.glyphs.fit_font`), and
numbers the rows and columns (:func:`row_numbers`, :func:`col_numbers`:
every cell, or every 2nd, 4th, ... when the cells are too small for the
numbers).  On top of the grid a picture draws its own lines:
:func:`boundaries` finds the edges between neighbouring cells that belong
to different threads or warps, :func:`draw_lines` draws them, and
:func:`colorbar` explains the colour of an ordered quantity.

Worked example: a 2x4 grid whose cells are too narrow for every column
number.

>>> row_numbers(2, 0.25, [0, 1]), col_numbers(4, 0.1, [0, 1, 2, 3])
(['0', '1'], [(0.5, '0'), (2.5, '2')])
>>> boundaries(1, 4, ["a", "a", "b", None])
[((2, 0), (2, 1))]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .figure import Panel
from .glyphs import TICK_FONT, Glyphs, LabelBatch, fit_font
from .palette import EMPTY, MAX_COLOURS, ordered_palette, text_colour

__all__ = ["draw_grid", "row_numbers", "col_numbers", "colorbar", "draw_lines", "boundaries"]


def draw_grid(
    panel: Panel,
    faces: Sequence[Any],
    labels: Sequence[str] | None,
    cell: float,
    *,
    cols: Sequence[tuple[float, str]] = (),
    xlabel: str = "",
    ylabel: str = "",
    font_cap: float = 8.0,
    width: float = 1.0,
) -> LabelBatch:
    """Cells as vector rectangles (row 0 at the top), labels, and row/column numbers; returns the text batch.

    The panel is ``panel.ncols`` units wide; each cell is ``width`` units
    wide (narrow cells: several elements per bank) and one unit tall.

    Parameters
    ----------
    panel
        A panel placed by :func:`~.figure.compose` (its ``ax`` is drawn
        on; its ``row_labels`` are written left of the rows).
    faces
        Cell colours in row-major order; ``None`` leaves a cell
        :data:`~.palette.EMPTY`.
    labels
        Cell labels in the same order, or ``None`` for none.  They are left
        out when they would be smaller than :data:`~.glyphs.MIN_FONT`.
    cell
        Inches per unit.
    cols
        Column numbers: ``(x, text)`` above the grid (:func:`col_numbers`).
    xlabel, ylabel
        Axis labels above the column numbers and left of the row numbers.
    font_cap
        The largest label size (points).
    width
        Cell width in units.

    Returns
    -------
    LabelBatch
        The labels, not yet drawn: the caller draws its lines first and then
        ``batch.draw(panel.ax)``, so that labels stay on top.

    >>> from linlayout.io.draw.figure import compose
    >>> panel = Panel("grid", 1, 2)
    >>> fig = compose([[panel]], 0.3, "")
    >>> batch = draw_grid(panel, ["#000000", None], ["7", ""], 0.3, cols=col_numbers(2, 0.3, [0, 1]))
    >>> batch.draw(panel.ax)
    >>> panel.ax.get_xlim() == (0, 2), panel.ax.get_ylim() == (1, 0)
    (True, True)
    """
    from matplotlib.collections import PolyCollection

    ax, nrows, ncols = panel.ax, panel.nrows, panel.ncols
    per_row = max(1, round(ncols / width))
    verts, filled = [], []
    for k, f in enumerate(faces):
        if f is not None:
            r, c = divmod(k, per_row)
            verts.append(((c * width, r), ((c + 1) * width, r), ((c + 1) * width, r + 1), (c * width, r + 1)))
            filled.append(f)
    ax.set_facecolor(EMPTY)
    ax.add_collection(PolyCollection(verts, facecolors=filled, edgecolors="none", linewidths=0))
    lw = 0.5 if width * cell * 72 >= 6 else 0.25
    grid = [((c * width, 0), (c * width, nrows)) for c in range(1, per_row)]
    grid += [((0, r), (ncols, r)) for r in range(1, nrows)]
    draw_lines(ax, grid, "white", lw, zorder=2)
    faces = [EMPTY if f is None else f for f in faces]
    texts = LabelBatch(cell)
    fs = fit_font(labels, cell, font_cap, width) if labels is not None else None
    if fs is not None:
        for k, s in enumerate(labels):
            if s:
                r, c = divmod(k, per_row)
                texts.add((c + 0.5) * width, r + 0.5, s, fs, text_colour(faces[k]))
    u = texts.unit
    for x, s in cols:
        texts.add(x, -3 * u, s, TICK_FONT, ha="center", va="bottom")
    for k, s in enumerate(panel.row_labels):
        if s:
            texts.add(-4 * u, k + 0.5, s, TICK_FONT, ha="right", va="center")
    if xlabel:
        ax.text(ncols / 2, -(3 + TICK_FONT + 4) * u, xlabel, ha="center", va="bottom", fontsize=8)
    if ylabel:
        w = max((texts.glyphs.width(s, TICK_FONT) for s in panel.row_labels), default=0.0)
        ax.text(-(4 + w + 4) * u, nrows / 2, ylabel, ha="right", va="center", rotation=90, fontsize=8)
    ax.set_xlim(0, ncols)
    ax.set_ylim(nrows, 0)
    ax.set_autoscale_on(False)
    ax.set_xticks([])
    ax.set_yticks([])
    return texts


def _every(n: int, cell: float, values: Sequence[int]) -> list[int]:
    """Indices of the cells whose numbers are printed (every cell, or every 2nd, 4th, ... when narrow)."""
    need = Glyphs.get().width(str(max(values, default=0)), TICK_FONT) + 3
    step = 1
    while step * cell * 72 < need and step < n:
        step *= 2
    return list(range(0, n, step))


def col_numbers(n: int, cell: float, values: Sequence[int]) -> list[tuple[float, str]]:
    """Numbers above the ``n`` columns of a grid: ``(x, text)`` for every column with room for ``values[k]``.

    Every column is numbered when the widest number fits a cell of
    ``cell`` inches, otherwise every 2nd, 4th, ... column.

    >>> col_numbers(3, 0.3, [0, 1, 2])
    [(0.5, '0'), (1.5, '1'), (2.5, '2')]
    """
    return [(k + 0.5, str(values[k])) for k in _every(n, cell, values)]


def row_numbers(n: int, cell: float, values: Sequence[int]) -> list[str]:
    """Numbers left of the ``n`` rows of a grid (:attr:`~.figure.Panel.row_labels`): ``""`` where there is no room.

    >>> row_numbers(4, 0.1, [0, 8, 16, 24])
    ['0', '', '16', '']
    """
    step = 1
    while step * cell * 72 < 1.25 * TICK_FONT and step < n:
        step *= 2
    return [str(values[k]) if k % step == 0 else "" for k in range(n)]


def colorbar(fig, cax, cmap: str, n: int, label: str, ticks: Sequence[int] | None = None):
    """A discrete colour bar for the values 0 .. n-1.

    Parameters
    ----------
    fig, cax
        The figure and the colour bar's axes (:attr:`~.figure.Panel.cax`).
    cmap
        The colour map; value ``i`` is :func:`~.palette.ordered_colour`.
    n
        The number of values.
    label
        What the values are (``"bank"``, ``"lane"``, a dimension name).
    ticks
        The values numbered; default every value, or every 2nd, 4th, ...
        when there are more than 9, and the last.

    >>> from linlayout.io.draw.figure import compose
    >>> panel = Panel("grid", 1, 1, colorbar=True)
    >>> fig = compose([[panel]], 0.3, "")
    >>> [int(t) for t in colorbar(fig, panel.cax, "viridis", 32, "bank").get_ticks()]
    [0, 4, 8, 12, 16, 20, 24, 28, 31]
    """
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import BoundaryNorm, ListedColormap

    k = min(n, MAX_COLOURS)  # more values than colours: each colour covers n / k values
    sm = ScalarMappable(norm=BoundaryNorm([i * n / k - 0.5 for i in range(k + 1)], k),
                        cmap=ListedColormap(ordered_palette(cmap, k)))
    cb = fig.colorbar(sm, cax=cax)
    if ticks is None:
        step = 1
        while n / step > 9:
            step *= 2
        ticks = sorted(set(range(0, n, step)) | {n - 1})
    cb.set_ticks(ticks)
    cb.minorticks_off()
    cb.ax.tick_params(labelsize=7, length=2, width=0.5)
    cb.outline.set_linewidth(0.5)
    cb.set_label(label, fontsize=8, labelpad=2)
    return cb


def draw_lines(ax, segs: list, colour: str, width: float, zorder: float = 3) -> None:
    """Draw line segments ``((x0, y0), (x1, y1))`` onto ``ax`` in one collection (nothing when there are none)."""
    from matplotlib.collections import LineCollection

    if segs:
        ax.add_collection(LineCollection(segs, colors=colour, linewidths=width, capstyle="butt", zorder=zorder))


def boundaries(nrows: int, ncols: int, keys: Sequence[Any]) -> list:
    """Segments between neighbouring cells whose keys differ (both not None).

    Parameters
    ----------
    nrows, ncols
        The grid's size.
    keys
        One key per cell in row-major order (a thread, a warp), or ``None``.

    Returns
    -------
    list
        Unit segments ``((x0, y0), (x1, y1))`` on the cell edges, for
        :func:`draw_lines`.

    >>> boundaries(2, 2, [0, 0, 1, 1])
    [((0, 1), (1, 1)), ((1, 1), (2, 1))]
    """
    segs = []
    for r in range(nrows):
        for c in range(ncols):
            k = keys[r * ncols + c]
            if k is None:
                continue
            if c + 1 < ncols and keys[r * ncols + c + 1] not in (None, k):
                segs.append(((c + 1, r), (c + 1, r + 1)))
            if r + 1 < nrows and keys[(r + 1) * ncols + c] not in (None, k):
                segs.append(((c, r + 1), (c + 1, r + 1)))
    return segs
