"""Figures: matplotlib imported on demand, panels placed on a grid of boxes, files written deterministically.

Every picture is one matplotlib :class:`~matplotlib.figure.Figure` made of
**panels**: a panel (:class:`Panel`) is one grid of cells (the tensor, the
banks of shared memory, the lanes of an access) with its title lines above,
its row numbers on the left and a colour bar or notes on the right.
:func:`compose` sizes the figure from its panels, a list of rows of panels,
so that every cell is ``cell`` inches square (:func:`cell_size` picks
``cell`` from the size of the grids), and adds one axes per panel (labelled
with the panel's ``label``) and one per colour bar.

Figures are drawn with the Agg canvas directly, never through
:mod:`matplotlib.pyplot`, so no global backend or figure list is touched.
matplotlib is optional (``pip install 'linlayout[plot]'``):
:func:`import_matplotlib` imports it when a picture is drawn and raises
:class:`~linlayout.errors.MissingDependencyError` without it.
:func:`begin_picture` checks the arguments every picture shares before
anything is computed.

**Output is deterministic**: :func:`save` writes the same bytes for the same
figure (SVG ids come from a fixed ``svg.hashsalt``, see :func:`rc_params`;
no date in SVG, no software name in PNG).

Worked example: a 4x8 grid of 0.25-inch cells under a one-line title.

>>> fig = compose([[Panel("tensor", 4, 8, title="a grid")]], 0.25, "example")
>>> [a.get_label() for a in fig.axes]
['tensor']

The helpers :func:`counted` and :func:`join_lines` write the titles.

>>> counted(1, "pass", "passes"), counted(3, "pass", "passes")
('1 pass', '3 passes')
>>> picture_format("out/a.SVG")
'svg'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...core.record import record
from ...errors import DrawError, MissingDependencyError, SizeError
from .glyphs import TICK_FONT, Glyphs

__all__ = [
    "import_matplotlib",
    "rc_params",
    "save",
    "picture_format",
    "begin_picture",
    "MAX_SIDE",
    "Panel",
    "compose",
    "cell_size",
    "counted",
    "join_lines",
]

_DPI = 120
_FORMATS = (".png", ".svg")
_SALT = "linlayout"
_TITLE_LINE = 0.16  # inches per panel title line
_BOTTOM = 0.15  # inches below a panel
_PAD = 0.2  # inches around the figure
_MIN_H = 1.4  # a grid with a colour bar is at least this tall


def import_matplotlib():
    """Import matplotlib lazily; a clear error when it is missing.

    Returns
    -------
    tuple
        The ``matplotlib`` module, the :class:`~matplotlib.figure.Figure`
        class and the Agg canvas class.

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed (``pip install 'linlayout[plot]'``).

    >>> matplotlib, Figure, FigureCanvasAgg = import_matplotlib()
    >>> Figure.__name__, FigureCanvasAgg.__name__
    ('Figure', 'FigureCanvasAgg')
    """
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingDependencyError(
            "drawing pictures needs matplotlib, which is not installed: pip install 'linlayout[plot]'"
        ) from None
    return matplotlib, Figure, FigureCanvasAgg


def rc_params() -> dict[str, Any]:
    """The matplotlib settings every picture is drawn and saved with (``matplotlib.rc_context(rc_params())``).

    A fixed ``svg.hashsalt`` makes SVG ids reproducible; DejaVu Sans, 8-point
    text, and glyphs written as paths make the output independent of the
    user's matplotlib configuration.

    >>> rc_params()["svg.hashsalt"], rc_params()["font.family"]
    ('linlayout', 'DejaVu Sans')
    """
    return {
        "svg.hashsalt": _SALT,
        "svg.fonttype": "path",
        "font.family": "DejaVu Sans",
        "font.size": 8,
        "axes.linewidth": 0.6,
        "path.simplify": False,
    }


def save(fig: Any, path: str | Path) -> Path:
    """Write a figure as PNG or SVG (chosen by the suffix of ``path``), deterministically.

    Parameters
    ----------
    fig
        A figure from one of the drawing functions (any matplotlib figure
        works).
    path
        Destination ending in ``.png`` or ``.svg``.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    DrawError
        Another suffix, or the file cannot be written.

    Notes
    -----
    The same figure gives the same bytes: SVG ids come from a fixed
    ``svg.hashsalt``, and neither format records a date or the software.
    """
    path = Path(path)
    fmt = picture_format(path)
    matplotlib, _, _ = import_matplotlib()
    meta = {"Date": None} if fmt == "svg" else {"Software": None}
    with matplotlib.rc_context(rc_params()):
        try:
            fig.savefig(path, format=fmt, dpi=fig.dpi, metadata=meta)
        except OSError as e:
            raise DrawError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
    return path


def picture_format(path: str | Path) -> str:
    """The format a picture is written in, from the suffix of ``path``: ``"png"`` or ``"svg"``.

    Raises
    ------
    DrawError
        Any other suffix.

    >>> picture_format("a.png")
    'png'
    >>> picture_format("a.pdf")
    Traceback (most recent call last):
        ...
    linlayout.errors.DrawError: cannot write 'a.pdf': pictures are written as .png or .svg, not .pdf
    """
    if not isinstance(path, (str, Path)) or "\0" in str(path):
        raise DrawError(f"cannot write {path!r}: give a .png or .svg file name (without NUL bytes)")
    suffix = Path(path).suffix.lower()
    if suffix not in _FORMATS:
        raise DrawError(
            f"cannot write {str(path)!r}: pictures are written as .png or .svg, not {suffix or 'a file without suffix'}"
        )
    return suffix[1:]


@record(frozen=False)
class Panel:
    """One grid of a figure: its size in cells, its title lines, its labels and what stands beside it.

    Attributes
    ----------
    label
        The label of the panel's axes (``Axes.get_label()``); its colour
        bar's axes is labelled ``label + " colour bar"``.
    nrows, ncols
        The grid's size in cells.
    title
        Lines of text above the grid.
    colorbar
        Whether a colour bar stands right of the grid.
    right
        Inches right of the grid without a colour bar (room for pass notes).
    row_labels
        The row numbers left of the grid (``""`` for a row without one).
    ax, cax
        The axes of the grid and of the colour bar, set by :func:`compose`.

    >>> p = Panel("tensor", 2, 4, title="line 1\\nline 2")
    >>> p.right_margin(), round(p.top(), 3), p.ax is None
    (0.25, 0.783, True)
    """

    label: str
    nrows: int
    ncols: int
    title: str = ""
    colorbar: bool = False
    right: float = 0.25  # inches right of the grid (pass notes)
    row_labels: Sequence[str] = ()
    ax: Any = None
    cax: Any = None

    def left(self) -> float:
        """Inches left of the grid: row numbers and the axis label."""
        w = max((Glyphs.get().width(s, TICK_FONT) for s in self.row_labels), default=0.0)
        return (4 + w + 4 + 11 + 6) / 72

    def right_margin(self) -> float:
        """Inches right of the grid: the colour bar, or :attr:`right`."""
        return 1.0 if self.colorbar else self.right

    def top(self) -> float:
        """Inches above the grid: the title lines, the column numbers and the axis label."""
        return (4 + TICK_FONT + 3 + 9 + 6) / 72 + _TITLE_LINE * (self.title.count("\n") + 1) + 0.06


def compose(rows: list[list[Panel]], cell: float, suptitle: str, legend: list | None = None):
    """A figure with the panels placed on a grid of boxes (inches); fills each panel's ``ax`` and ``cax``.

    Parameters
    ----------
    rows
        Rows of panels; the panels of one column share its width, those of
        one row its height.
    cell
        Inches per cell, the same in every panel.
    suptitle
        The bold heading of the figure (lines separated by ``"\\n"``).
    legend
        matplotlib legend handles, drawn in one row under the heading.

    Returns
    -------
    matplotlib.figure.Figure
        With an Agg canvas, whole pixels wide and tall at 120 dpi.

    >>> top, bottom = Panel("a", 2, 2, colorbar=True), Panel("b", 3, 5)
    >>> fig = compose([[top], [bottom]], 0.25, "two panels")
    >>> [a.get_label() for a in fig.axes], fig.dpi
    (['a', 'a colour bar', 'b'], 120)
    """
    _, Figure, FigureCanvasAgg = import_matplotlib()

    def box_w(p):
        return p.left() + p.ncols * cell + p.right_margin()

    def box_h(p):
        return p.top() + max(p.nrows * cell, _MIN_H if p.colorbar else 0) + _BOTTOM

    ncol = max(len(r) for r in rows)
    col_w = [max(box_w(r[j]) for r in rows if j < len(r)) for j in range(ncol)]
    row_h = [max(box_h(p) for p in r) for r in rows]
    head = 0.22 + 0.19 * (suptitle.count("\n") + 1) + (0.24 if legend else 0)
    W = math.ceil((2 * _PAD + sum(col_w)) * _DPI) / _DPI  # whole pixels
    H = math.ceil((head + sum(row_h) + _PAD) * _DPI) / _DPI
    fig = Figure(figsize=(W, H), dpi=_DPI)
    FigureCanvasAgg(fig)

    def axes(x, y, w, h, label):
        return fig.add_axes((x / W, y / H, w / W, h / H), label=label)

    y_top = H - head
    for i, r in enumerate(rows):
        x = _PAD
        for j, p in enumerate(r):
            gw, gh = p.ncols * cell, p.nrows * cell
            gx, gy = x + p.left(), y_top - p.top() - gh
            p.ax = axes(gx, gy, gw, gh, p.label)
            if p.colorbar:
                ch = max(gh, _MIN_H)
                p.cax = axes(gx + gw + 0.12, y_top - p.top() - ch, 0.13, ch, p.label + " colour bar")
            fig.text(gx / W, (y_top - 0.04) / H, p.title, ha="left", va="top", fontsize=8, linespacing=1.3)
            x += col_w[j]
        y_top -= row_h[i]
    fig.text(_PAD / W, 1 - 0.12 / H, suptitle, ha="left", va="top", fontsize=10, fontweight="bold", linespacing=1.35)
    if legend:
        fig.legend(handles=legend, loc="upper left", bbox_to_anchor=(_PAD / W, 1 - (head - 0.26) / H),
                   ncol=len(legend), frameon=False, fontsize=8, handlelength=1.4, borderaxespad=0, columnspacing=2.0)
    return fig


def cell_size(total_cols: int, total_rows: int = 0, budget: float = 13.0, largest: float = 0.38) -> float:
    """Inches per cell: up to ``largest`` for small grids, down to 0.14 in for wide ones.

    Parameters
    ----------
    total_cols, total_rows
        Cells across and down the widest and tallest row and column of
        panels (``total_rows`` 0: do not limit by height).
    budget
        Inches the cells across may take (down: 1.5 times as many).
    largest
        The cell size of small grids.

    >>> cell_size(8), cell_size(64), cell_size(1000)
    (0.38, 0.203125, 0.14)
    """
    c = budget / max(total_cols, 1)
    if total_rows:
        c = min(c, 1.5 * budget / total_rows)
    return max(0.14, min(largest, c))


MAX_SIDE = 128
"""The largest ``max_side`` of a picture (rows and columns of a tensor drawn)."""


def begin_picture(path: Any, max_side: Any = 1):
    """Check the arguments every picture shares, then import matplotlib; returns the module.

    Raises
    ------
    SizeError
        ``max_side`` is not a positive integer at most :data:`MAX_SIDE`.
    DrawError
        ``path`` (unless ``None``) is not a ``.png`` or ``.svg`` file.
    MissingDependencyError
        matplotlib is not installed.

    >>> begin_picture(None, 64).__name__
    'matplotlib'
    >>> begin_picture("a.svg", 0)
    Traceback (most recent call last):
        ...
    linlayout.errors.SizeError: max_side must be a positive integer, got 0
    """
    if isinstance(max_side, bool) or not isinstance(max_side, int) or max_side < 1:
        raise SizeError(f"max_side must be a positive integer, got {max_side!r}")
    if max_side > MAX_SIDE:
        raise SizeError(f"max_side is at most {MAX_SIDE} (a picture of more cells per side is unreadable and slow to "
                        f"draw), got {max_side}")
    if path is not None:
        picture_format(path)
    return import_matplotlib()[0]


def counted(n: int, word: str, plural: str | None = None) -> str:
    """``n`` and the word, plural unless ``n`` is 1 (``word + "s"`` unless ``plural`` is given).

    >>> counted(1, "wavefront"), counted(2, "wavefront")
    ('1 wavefront', '2 wavefronts')
    """
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def join_lines(*lines: str) -> str:
    """The non-empty lines joined by newlines.

    >>> join_lines("title", "", "note")
    'title\\nnote'
    """
    return "\n".join(s for s in lines if s)

