"""Pictures of layouts: a distributed layout as the tensor coloured by owner, a memory layout by bank.

Both pictures draw the **tensor grid**: ``dim0`` down and ``dim1`` across,
one cell per element, like the Linear Layouts paper's Fig. 1.

* :func:`draw_distributed`: a distributed layout (``register``, ``lane``,
  ``warp``, ``block`` → one or two tensor dimensions).  Each cell is
  coloured by the lane that owns it (``viridis(lane / 31)``) and labelled
  with the owner in ``linlayout show``'s notation (``w1:t9`` above ``r1``,
  abbreviations :data:`~linlayout.core.text.DIM_ABBREVIATIONS`); thin lines
  separate threads, thick lines warps (and blocks).  With broadcast the
  cell shows the owner whose broadcast bits are 0
  (:func:`~linlayout.core.text.owners`).
* :func:`draw_memory`: a memory layout (the single input ``offset``) twice.
  The tensor grid: each element labelled with its offset and coloured by its
  bank, ``(offset * element_bits / 8 // 4) % 32`` (:func:`element_bank`).
  Beside or under it the physical view (:mod:`.physical`): one row per 128
  bytes, the 32 banks across, each element labelled with the tensor
  coordinate stored there.  A good swizzle shows as every bank colour in
  every row and every column of the tensor.
* :func:`draw_layout` picks one of the two by the layout's inputs.

**Large tensors are zoomed, not aggregated**: at most ``max_side``
(default 64) rows and columns are drawn, the top-left corner, and the
picture says so ("zoomed: showing the top-left 64x64 of 128x128"); a 1-D
tensor longer than ``max_side`` is wrapped into rows of ``max_side``.  Cell
labels are left out, and the picture says so, when they would be smaller
than 4.5 points.

Worked example: the bank of an element depends on its width.

>>> element_bank(33, 32), element_bank(33, 16), element_bank(33, 8)
(1, 16, 8)
>>> from linlayout import LinearLayout
>>> fig = draw_distributed(LinearLayout({"register": [[0, 1]], "lane": [[1, 0]]}, {"dim0": 2, "dim1": 2}))
>>> [ax.get_label() for ax in fig.axes]
['tensor', 'tensor colour bar']
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.layout import LinearLayout
from ...core.record import record
from ...core.text import DIM_ABBREVIATIONS, owners
from ...count.plan import check_element_bits
from ...errors import SizeError
from ...hw import get_hardware
from .figure import Panel, begin_picture, cell_size, compose, join_lines, rc_params, save
from .glyphs import SvgLabels, fit_font
from .grid import boundaries, col_numbers, colorbar, draw_grid, draw_lines, row_numbers
from .palette import BANK_CMAP, LANE_CMAP, ordered_colour
from .physical import draw_physical_panel, physical_content, physical_view

__all__ = ["element_bank", "draw_distributed", "draw_memory", "draw_layout"]


def element_bank(offset: int, element_bits: int = 32, hardware: Any = None) -> int:
    """Bank of the first byte of element ``offset``: ``(offset * element_bits // 8 // 4) % 32`` on sm90.

    Parameters
    ----------
    offset
        Element offset.
    element_bits
        Bits per element, a power of two from 1 to 128
        (:class:`~linlayout.errors.SizeError` otherwise).
    hardware
        Bank model (default ``sm90``).

    >>> [element_bank(o, 8) for o in (0, 3, 4, 128)]
    [0, 0, 1, 0]
    """
    return get_hardware(hardware).bank_of((offset * check_element_bits(element_bits)) >> 3)


@record(frozen=False)
class _View:
    """Which tensor elements a grid shows: cell (r, c) -> flat output."""

    nrows: int
    ncols: int
    cells: list[int | None]
    row_values: list[int]
    col_values: list[int]
    row_name: str
    col_name: str
    note: str


def _tensor_view(layout: Any, max_side: int) -> _View:
    """The top-left ``max_side`` x ``max_side`` of a 2-D tensor, or a 1-D one wrapped into rows of ``max_side``."""
    outs = list(layout.out_sizes.items())
    if len(outs) not in (1, 2):
        raise SizeError(
            f"a picture needs 1 or 2 tensor dimensions, the layout has {len(outs)}; reshape_outs or sublayout it first"
        )
    if len(outs) == 2:
        (rn, R), (cn, C) = outs
        shift = R.bit_length() - 1
        nr, nc = min(R, max_side), min(C, max_side)
        cells = [r | (c << shift) for r in range(nr) for c in range(nc)]
        note = "" if (nr, nc) == (R, C) else f"zoomed: showing the top-left {nr}x{nc} of {R}x{C}"
        return _View(nr, nc, cells, list(range(nr)), list(range(nc)), rn, cn, note)
    ((cn, N),) = outs
    if N <= max_side:
        return _View(1, N, list(range(N)), [0], list(range(N)), "", cn, "")
    rows = -(-N // max_side)
    nr = min(rows, max_side)
    cells = [i if (i := r * max_side + c) < N else None for r in range(nr) for c in range(max_side)]
    note = f"{cn} ({N} elements) wrapped into rows of {max_side}"
    if nr < rows:
        note += f"; zoomed: showing the first {nr} rows ({nr * max_side} elements)"
    return _View(nr, max_side, cells, [r * max_side for r in range(nr)], list(range(max_side)),
                 f"{cn} (row start)", f"{cn} (+)", note)


def _split(layout: LinearLayout, x: int) -> dict[str, int]:
    """The input coordinates of flat input value ``x`` (the first input dimension in the lowest bits)."""
    out = {}
    for n, s in layout.in_sizes.items():
        out[n] = x & (s - 1)
        x >>= s.bit_length() - 1
    return out


def draw_distributed(
    layout: LinearLayout,
    path: str | Path | None = None,
    *,
    max_side: int = 64,
    title: str | None = None,
):
    """Draw a distributed layout as the tensor grid, each cell coloured by the lane that owns it.

    Parameters
    ----------
    layout
        Inputs among ``register``, ``lane``, ``warp``, ``block`` (other
        names work too) onto one or two tensor dimensions.
    path
        Where to write the picture (``.png`` or ``.svg``); ``None`` only
        returns the figure.
    max_side
        At most this many rows and columns are drawn (the top-left corner);
        the picture says when the tensor is larger.
    title
        Replaces the first title line.

    Returns
    -------
    matplotlib.figure.Figure
        One axes labelled ``"tensor"``; cell (row, column) spans
        ``[column, column + 1] x [row, row + 1]`` in data coordinates.

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed.
    SizeError
        More than two tensor dimensions, or ``max_side`` below 1.
    DrawError
        ``path`` is not a ``.png`` or ``.svg`` file, or cannot be written.

    Notes
    -----
    Colour: the owner's lane ``l`` (the first input other than
    ``register``) as ``viridis(l / 31)``.  Label: the owner in ``linlayout
    show``'s notation, ``w1:t9`` above ``r1``.  Thin dark lines separate
    threads, thick black lines warps (and blocks).  Unreached elements are
    light grey.
    """
    matplotlib = begin_picture(path, max_side)
    view = _tensor_view(layout, max_side)
    own = owners(layout, [y for y in view.cells if y is not None])
    sizes = layout.in_sizes
    thread_dims = [n for n in sizes if n != "register"]
    used = [n for n in thread_dims if sizes[n] > 1]
    key = thread_dims[0] if thread_dims else None  # the colour: lane
    ncolours = sizes[key] if key else 1
    group_dims = [n for n in thread_dims[1:] if sizes[n] > 1]
    abbr = {n: DIM_ABBREVIATIONS.get(n, n[:1]) for n in sizes}
    faces: list[Any] = []
    labels: list[str] = []
    threads: list[Any] = []
    groups: list[Any] = []
    for y in view.cells:
        x = own.get(y)
        if x is None:
            faces.append(None)
            labels.append("")
            threads.append(None)
            groups.append(None)
            continue
        parts = _split(layout, x)
        faces.append(ordered_colour(LANE_CMAP, parts[key] if key else 0, ncolours))
        top = ":".join(f"{abbr[n]}{parts[n]}" for n in reversed(used))
        reg = f"r{parts['register']}" if sizes.get("register", 1) > 1 else ""
        labels.append(join_lines(top, reg))
        threads.append(tuple(parts[n] for n in thread_dims))
        groups.append(tuple(parts[n] for n in group_dims))
    cell = cell_size(view.ncols, view.nrows)
    nb = sum(bin(v).count("1") for v in layout.free_variable_masks().values())
    desc = " x ".join(f"{n}({s})" for n, s in sizes.items())
    outs = " x ".join(f"{n}({s})" for n, s in layout.out_sizes.items())
    fs = fit_font(labels, cell)
    caption = f"colour: {key}; " if ncolours > 1 else ""
    caption += "thin lines: thread boundaries" + (f", thick: {'/'.join(group_dims)} boundaries" if group_dims else "")
    legend = ("label: owner (" + ":".join(abbr[n] for n in reversed(used)) + (" over r" if "register" in sizes and
              sizes["register"] > 1 else "") + ")") if fs else "labels omitted (cells too small)"
    notes = [view.note]
    if nb:
        notes.append(f"broadcast: {1 << nb} owners per element; each cell shows the one with broadcast bits 0")
    panel = Panel("tensor", view.nrows, view.ncols, title=join_lines(caption, legend, *notes), colorbar=ncolours > 1,
                  row_labels=row_numbers(view.nrows, cell, view.row_values) if view.row_name else ())
    with matplotlib.rc_context(rc_params()), SvgLabels(path):
        fig = compose([[panel]], cell, title or f"distributed layout {desc} -> {outs}")
        texts = draw_grid(panel, faces, labels, cell, cols=col_numbers(view.ncols, cell, view.col_values),
                          xlabel=view.col_name, ylabel=view.row_name)
        draw_lines(panel.ax, boundaries(view.nrows, view.ncols, threads), "#303030", 0.9)
        draw_lines(panel.ax, boundaries(view.nrows, view.ncols, groups), "black", 2.4)
        texts.draw(panel.ax)
        if panel.cax is not None:
            colorbar(fig, panel.cax, LANE_CMAP, ncolours, key)
    if path is not None:
        save(fig, path)
    return fig


def draw_memory(
    memory: LinearLayout,
    path: str | Path | None = None,
    *,
    element_bits: int = 32,
    hardware: Any = None,
    max_side: int = 64,
    title: str | None = None,
):
    """Draw a memory layout: the tensor coloured by bank, and the banks holding the tensor.

    Parameters
    ----------
    memory
        A layout with the single input ``offset`` (element offsets) onto one
        or two tensor dimensions.
    path
        ``.png`` or ``.svg`` file to write, or ``None``.
    element_bits
        Bits per element (power of two, 1 to 128): the bank of element
        ``o`` is ``(o * element_bits // 8 // 4) % 32``.
    hardware
        Bank model (default ``sm90``: 32 banks of 4 bytes, 128-byte rows).
    max_side
        At most this many rows and columns per grid (the top-left corner,
        stated in the picture).
    title
        Replaces the first title line.

    Returns
    -------
    matplotlib.figure.Figure
        Axes ``"tensor"`` (cell = tensor element, label = its offset, colour
        = ``viridis(bank / 31)``) and ``"memory"`` (one row per 128 bytes,
        one cell per element, columns numbered by bank, label = the tensor
        coordinate stored there, colour = ``cividis(c / (size - 1))`` of its
        last coordinate ``c``).

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed.
    SizeError
        More than two tensor dimensions, a bad ``element_bits`` or
        ``max_side``.
    DrawError
        ``path`` is not a ``.png`` or ``.svg`` file, or cannot be written.
    """
    check_element_bits(element_bits)
    matplotlib = begin_picture(path, max_side)
    hw = get_hardware(hardware)
    view = _tensor_view(memory, max_side)
    own = owners(memory, [y for y in view.cells if y is not None])
    phys = physical_view(memory, element_bits, hw, max_side)
    faces: list[Any] = []
    labels: list[str] = []
    for y in view.cells:
        o = own.get(y)
        faces.append(None if o is None else ordered_colour(BANK_CMAP, hw.bank_of((o * element_bits) >> 3), hw.banks))
        labels.append("" if o is None else str(o))
    stacked = view.ncols + phys.banks > 48
    if stacked:
        cell = cell_size(max(view.ncols, phys.banks), view.nrows + phys.nrows, budget=12.0)
    else:
        cell = cell_size(view.ncols + phys.banks, max(view.nrows, phys.nrows), budget=16.0)
    pfaces, plabels, pcaption = physical_content(memory, phys, cell)
    cap = "label: offset; colour: bank" if fit_font(labels, cell) else "colour: bank (labels omitted: cells too small)"
    if element_bits > 8 * hw.bank_bytes:
        cap += " of the element's first word"
    tp = Panel("tensor", view.nrows, view.ncols, colorbar=True, title=join_lines("tensor", cap, view.note),
               row_labels=row_numbers(view.nrows, cell, view.row_values) if view.row_name else ())
    pp = Panel("memory", phys.nrows, phys.banks, colorbar=True,
               title=join_lines(f"shared memory: {hw.row_bytes}-byte rows across {hw.banks} banks", pcaption,
                                phys.note),
               row_labels=row_numbers(phys.nrows, cell, list(range(phys.nrows))))
    outs = " x ".join(f"{n}({s})" for n, s in memory.out_sizes.items())
    head = title or f"memory layout offset({memory.in_sizes.get('offset', 1)}) -> {outs}, {element_bits}-bit elements"
    with matplotlib.rc_context(rc_params()), SvgLabels(path):
        fig = compose([[tp], [pp]] if stacked else [[tp, pp]], cell, head)
        texts = draw_grid(tp, faces, labels, cell, cols=col_numbers(view.ncols, cell, view.col_values),
                          xlabel=view.col_name, ylabel=view.row_name)
        texts.draw(tp.ax)
        colorbar(fig, tp.cax, BANK_CMAP, hw.banks, "bank")
        draw_physical_panel(fig, pp, memory, phys, element_bits, hw, cell, pfaces, plabels)
    if path is not None:
        save(fig, path)
    return fig


def draw_layout(
    layout: LinearLayout,
    path: str | Path | None = None,
    *,
    element_bits: int = 32,
    hardware: Any = None,
    max_side: int = 64,
    title: str | None = None,
):
    """Draw a layout: :func:`draw_memory` when its only input is ``offset``, else :func:`draw_distributed`.

    ``element_bits`` and ``hardware`` apply to memory layouts only; the other
    arguments are those of both functions.
    """
    if layout.in_dims == ("offset",):
        return draw_memory(layout, path, element_bits=element_bits, hardware=hardware, max_side=max_side, title=title)
    return draw_distributed(layout, path, max_side=max_side, title=title)
