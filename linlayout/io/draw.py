"""Pictures of layouts, accesses and swizzles (PNG or SVG, through matplotlib).

Four kinds of picture; each function returns a matplotlib
:class:`~matplotlib.figure.Figure` and, given ``path``, writes it (``.png``
or ``.svg``).  :func:`draw` takes any of the JSON documents below and picks
the picture (:func:`picture_kind`); it is what ``linlayout draw`` runs.

* :func:`draw_distributed`: a distributed layout (``register``, ``lane``,
  ``warp``, ``block`` → one or two tensor dimensions) as the tensor grid,
  ``dim0`` down and ``dim1`` across, like the Linear Layouts paper's Fig. 1.
  Each cell is coloured by the lane that owns it and labelled with the
  owner in ``linlayout show``'s notation (``w1:t9`` above ``r1``); thin
  lines separate threads, thick lines warps (and blocks).  With broadcast
  the cell shows the owner whose broadcast bits are 0.
* :func:`draw_memory`: a memory layout (the single input ``offset``) twice.
  The tensor grid: each element labelled with its offset and coloured by
  its bank, ``(offset * element_bits / 8 // 4) % 32``.  The physical view:
  one row per 128 bytes, the 32 banks across (an element is half a bank
  wide for 16-bit elements, two banks for 64-bit ones), each element
  labelled with the tensor coordinate stored there and coloured by its
  ``dim1``.
* :func:`draw_access` (a ``linlayout conflicts`` layout query) and
  :func:`draw_access_offsets` (an address query): the first instruction as
  lanes (grouped by pass) x banks.  A cell is filled where the lane touches
  the bank and names the word (byte address // 4); a bank that serves
  more than one word in a pass is a conflict: its cells are highlighted
  and the bank is outlined.  The title gives the wavefronts.
* :func:`draw_swizzle` (a ``linlayout swizzle`` query): before (row-major
  :func:`~linlayout.swizzles.unswizzled`) and after (the synthesized
  memory) side by side, each as its physical view and its first write and
  read instructions, with the wavefronts per warp.

**Large tensors are zoomed, not aggregated**: at most ``max_side``
(default 64) rows and columns are drawn, the top-left corner, and the
picture says so ("zoomed: showing the top-left 64x64 of 128x128"); a 1-D
tensor longer than ``max_side`` is wrapped into rows of ``max_side``.  The
physical view of a swizzle shows at most 32 rows.  Cell labels are left out,
and the picture says so, when they would be smaller than 4.5 points.

**Colours are colour-blind safe.**  Ordered quantities use matplotlib's
perceptually uniform maps, which stay ordered in greyscale and under the
common colour-vision deficiencies: ``viridis`` for lanes and banks, and
``cividis`` for tensor columns (the physical view, so that it is not read
as a bank colour).  Lane ``l`` of 32 is ``viridis(l / 31)``, bank ``b`` is
``viridis(b / 31)``, column ``c`` of ``C`` is ``cividis(c / (C - 1))``.
Categories use the Okabe-Ito palette (:data:`OKABE_ITO`): sky blue for a
bank that serves one word, vermilion for a conflict.  Labels, outlines and
boundary lines carry the same information as the colours.

**Output is deterministic**: the same input gives the same bytes (SVG ids
come from a fixed ``svg.hashsalt``; no date in SVG or PNG).  Figures are
drawn with the Agg canvas directly, never through :mod:`matplotlib.pyplot`,
so no global backend or figure list is touched.  Labels are drawn as glyph
outlines (DejaVu Sans, shipped with matplotlib), which is fast for
thousands of cells.

**matplotlib is optional** (``pip install 'linlayout[plot]'``) and imported
only when a picture is drawn; without it the drawing functions raise
:class:`~linlayout.errors.MissingDependencyError`.

Every axes has a label (``Axes.get_label()``): ``"tensor"``, ``"memory"``,
``"access"``, and in swizzle pictures ``"memory before"``, ``"write
after"`` and so on.  In the tensor and access grids cell ``(row, column)``
covers data coordinates ``[column, column + 1] x [row, row + 1]`` (row 0 at
the top); in a physical view the x unit is one bank.

>>> picture_kind({"bases": {"offset": [[0, 1], [1, 0]]}})
'memory'
>>> picture_kind({"write": {}, "read": {}})
'swizzle'
>>> element_bank(33, 32), element_bank(33, 16)
(1, 16)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import DrawError, LayoutJSONError, LinLayoutError, MissingDependencyError, SizeError
from ..core.layout import LinearLayout
from ..core.text import format_ranges

__all__ = [
    "OKABE_ITO",
    "picture_kind",
    "element_bank",
    "draw",
    "draw_layout",
    "draw_distributed",
    "draw_memory",
    "draw_access",
    "draw_access_offsets",
    "draw_swizzle",
    "save",
]

OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermilion": "#D55E00",
    "reddish purple": "#CC79A7",
}
"""The Okabe-Ito colour-blind-safe palette (Okabe and Ito, 2008)."""

ONE_WORD = OKABE_ITO["sky blue"]
CONFLICT = OKABE_ITO["vermilion"]
EMPTY = "#F2F2F2"
LANE_CMAP = "viridis"
BANK_CMAP = "viridis"
COLUMN_CMAP = "cividis"

_DPI = 120
_MIN_FONT = 4.5
_FORMATS = (".png", ".svg")
_SALT = "linlayout"


# -- helpers that need no matplotlib ----------------------------------------


def picture_kind(source: Any) -> str:
    """Which picture a JSON document asks for: ``distributed``, ``memory``, ``access`` or ``swizzle``.

    Parameters
    ----------
    source
        JSON text or a decoded object.

    Returns
    -------
    str
        ``"memory"`` for a layout (``"bases"``) whose only input dimension is
        ``offset``, ``"distributed"`` for any other layout, ``"swizzle"``
        for a query with ``"write"``/``"read"``, ``"access"`` for one with
        ``"layout"``/``"memory"`` or ``"lane_byte_offsets"``.

    Raises
    ------
    LayoutJSONError
        Malformed JSON, a malformed layout, or none of these keys.

    >>> picture_kind('{"bases": {"register": [[0, 1]], "lane": [[1, 0]]}}')
    'distributed'
    >>> picture_kind({"lane_byte_offsets": [0] * 32, "access_bytes": 4})
    'access'
    """
    from ..io.jsonio import decode, layout_from_json

    obj = decode(source, "JSON document")
    if isinstance(obj, Mapping):
        if "write" in obj or "read" in obj:
            return "swizzle"
        if "layout" in obj or "memory" in obj or "lane_byte_offsets" in obj:
            return "access"
        if "bases" in obj:
            return "memory" if layout_from_json(obj).in_dims == ("offset",) else "distributed"
    raise LayoutJSONError(
        "cannot tell what to draw: expected a layout ({\"bases\": ...}), a conflicts query "
        "(\"layout\" and \"memory\", or \"lane_byte_offsets\") or a swizzle query (\"write\" and \"read\")"
    )


def _check_element_bits(element_bits: Any) -> int:
    if (
        isinstance(element_bits, bool)
        or not isinstance(element_bits, int)
        or element_bits <= 0
        or element_bits & (element_bits - 1)
        or element_bits > 128
    ):
        raise SizeError(f"element_bits must be a power of two from 1 to 128, got {element_bits!r}")
    return element_bits


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
    from ..hw import get_hardware

    return get_hardware(hardware).bank_of((offset * _check_element_bits(element_bits)) >> 3)


# -- matplotlib plumbing ------------------------------------------------------


def _mpl():
    """Import matplotlib lazily; a clear error when it is missing."""
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingDependencyError(
            "drawing pictures needs matplotlib, which is not installed: pip install 'linlayout[plot]'"
        ) from None
    return matplotlib, Figure, FigureCanvasAgg


def _rc() -> dict[str, Any]:
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
    fmt = _format(path)
    matplotlib, _, _ = _mpl()
    meta = {"Date": None} if fmt == "svg" else {"Software": None}
    with matplotlib.rc_context(_rc()):
        try:
            fig.savefig(path, format=fmt, dpi=fig.dpi, metadata=meta)
        except OSError as e:
            raise DrawError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
    return path


def _format(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in _FORMATS:
        raise DrawError(
            f"cannot write {str(path)!r}: pictures are written as .png or .svg, not {suffix or 'a file without suffix'}"
        )
    return suffix[1:]


def _colour(cmap: str, i: int, n: int) -> tuple[float, ...]:
    """Colour ``i`` of ``n`` ordered values: ``cmap(i / (n - 1))``."""
    return _palette(cmap, n)[i]


@lru_cache(maxsize=32)
def _palette(cmap: str, n: int) -> tuple[tuple[float, ...], ...]:
    import matplotlib

    m = matplotlib.colormaps[cmap]
    return tuple(tuple(float(v) for v in m(i / (n - 1) if n > 1 else 0.0)) for i in range(n))


def _rgba(c: Any) -> tuple[float, ...]:
    from matplotlib.colors import to_rgba

    return to_rgba(c)


def _text_colour(face: Any) -> str:
    r, g, b = _rgba(face)[:3]
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.4 else "white"


class _Glyphs:
    """DejaVu Sans outlines and advances per character, cached (labels are drawn as paths)."""

    _shared: _Glyphs | None = None

    def __init__(self) -> None:
        from matplotlib.font_manager import FontProperties, findfont, get_font

        self.prop = FontProperties(family="DejaVu Sans")
        self.font = get_font(findfont(self.prop))
        self.chars: dict[str, tuple[Any, Any, float]] = {}
        self.lines: dict[str, tuple[Any, Any, float]] = {}

    @classmethod
    def get(cls) -> _Glyphs:
        if cls._shared is None:
            cls._shared = cls()
        return cls._shared

    def _char(self, ch: str):
        g = self.chars.get(ch)
        if g is None:
            import numpy as np
            from matplotlib.textpath import TextPath

            self.font.set_size(100, 72)
            adv = self.font.load_char(ord(ch)).linearHoriAdvance / 65536 / 100
            if ch.isspace():
                v, c = np.zeros((0, 2)), np.zeros(0, dtype=np.uint8)
            else:
                tp = TextPath((0, 0), ch, size=1, prop=self.prop)
                v, c = np.asarray(tp.vertices, dtype=float), np.asarray(tp.codes, dtype=np.uint8)
            g = self.chars[ch] = (v, c, adv)
        return g

    def line(self, s: str):
        """(vertices, codes, advance width) of one line of text at size 1 (em units, y up)."""
        g = self.lines.get(s)
        if g is None:
            import numpy as np

            vs, cs, x = [], [], 0.0
            for ch in s:
                v, c, a = self._char(ch)
                if len(v):
                    vs.append(v + (x, 0.0))
                    cs.append(c)
                x += a
            v = np.concatenate(vs) if vs else np.zeros((0, 2))
            c = np.concatenate(cs) if cs else np.zeros(0, dtype=np.uint8)
            g = self.lines[s] = (v, c, x)
        return g

    def width(self, s: str, size: float) -> float:
        """Width in points of the widest line of ``s`` at ``size`` points."""
        return max(self.line(t)[2] for t in s.split("\n")) * size


_SVG_TEXT: ContextVar[bool] = ContextVar("linlayout_draw_svg_text", default=False)


class _SvgLabels:
    """While drawing a figure that will be written as SVG, labels are text (glyphs shared by ``<use>``)."""

    def __init__(self, path: Any) -> None:
        self.on = path is not None and Path(path).suffix.lower() == ".svg"

    def __enter__(self) -> None:
        self.token = _SVG_TEXT.set(self.on)

    def __exit__(self, *exc: Any) -> None:
        _SVG_TEXT.reset(self.token)


class _Texts:
    """Many short labels of one axes, drawn as one filled path per colour (fast rendering).

    Positions are data coordinates of a grid whose cells are ``cell``
    inches square, with y pointing down (row 0 at the top).  For SVG output
    the labels are matplotlib texts instead, placed identically: the file
    then shares each glyph's outline, which keeps it several times smaller.
    """

    def __init__(self, cell: float) -> None:
        self.glyphs = _Glyphs.get()
        self.unit = 1.0 / (72.0 * cell)  # data units per point
        self.parts: dict[str, tuple[list, list]] = {}
        self.as_text = _SVG_TEXT.get()
        self.items: list[tuple[float, float, str, float, str]] = []

    def add(self, x: float, y: float, s: str, size: float, colour: str = "black", ha: str = "center",
            va: str = "center") -> None:
        lines = s.split("\n")
        em = size * self.unit
        lead, cap = 1.12 * em, 0.73 * em
        n = len(lines)
        if va == "center":
            base = y - (n - 1) * lead / 2 + cap / 2
        elif va == "bottom":
            base = y - (n - 1) * lead
        else:  # top
            base = y + cap
        vs, cs = self.parts.setdefault(colour, ([], []))
        for k, t in enumerate(lines):
            v, c, w = self.glyphs.line(t)
            if not len(v):
                continue
            x0 = x - w * em / 2 if ha == "center" else (x - w * em if ha == "right" else x)
            if self.as_text:
                self.items.append((x0, base + k * lead, t, size, colour))
                continue
            vv = v * (em, -em)
            vv += (x0, base + k * lead)
            vs.append(vv)
            cs.append(c)

    def draw(self, ax) -> None:
        import numpy as np
        from matplotlib.patches import PathPatch
        from matplotlib.path import Path as MPath

        for x, y, t, size, colour in self.items:
            ax.text(x, y, t, ha="left", va="baseline", fontsize=size, color=colour, clip_on=False, zorder=5,
                    fontfamily="DejaVu Sans")
        for colour in sorted(self.parts):
            vs, cs = self.parts[colour]
            if vs:
                p = MPath(np.concatenate(vs), np.concatenate(cs))
                ax.add_artist(PathPatch(p, facecolor=colour, edgecolor="none", linewidth=0, clip_on=False, zorder=5))


def _fit_font(labels: Sequence[str], cell: float, cap: float = 8.0, width: float = 1.0) -> float | None:
    """The largest font (points) at which every label fits its cell, or None below the minimum.

    Cells are ``cell`` inches tall and ``width * cell`` wide.
    """
    texts = {s for s in labels if s}
    if not texts:
        return None
    g = _Glyphs.get()
    cell_pt = cell * 72
    widest = max(g.width(s, 1.0) for s in texts)
    lines = max(s.count("\n") + 1 for s in texts)
    fs = min(cap, 0.84 * width * cell_pt / max(widest, 0.5), 0.78 * cell_pt / (1.12 * lines))
    return fs if fs >= _MIN_FONT else None


@dataclass
class _Panel:
    """One grid of a figure: its size in cells, its title lines, its labels and what stands beside it."""

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
        w = max((_Glyphs.get().width(s, _TICK) for s in self.row_labels), default=0.0)
        return (4 + w + 4 + 11 + 6) / 72

    def right_margin(self) -> float:
        return 1.0 if self.colorbar else self.right

    def top(self) -> float:
        return (4 + _TICK + 3 + 9 + 6) / 72 + _TITLE_LINE * (self.title.count("\n") + 1) + 0.06


_TICK = 7.0  # points, row and column numbers
_TITLE_LINE = 0.16
_BOTTOM = 0.15
_PAD = 0.2
_MIN_H = 1.4  # a grid with a colour bar is at least this tall


def _compose(rows: list[list[_Panel]], cell: float, suptitle: str, legend: list | None = None):
    """A figure with the panels placed on a grid of boxes (inches); fills each panel's ``ax`` and ``cax``."""
    _, Figure, FigureCanvasAgg = _mpl()

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


def _cell_size(total_cols: int, total_rows: int = 0, budget: float = 13.0, largest: float = 0.38) -> float:
    """Inches per cell: up to ``largest`` for small grids, down to 0.14 in for wide ones."""
    c = budget / max(total_cols, 1)
    if total_rows:
        c = min(c, 1.5 * budget / total_rows)
    return max(0.14, min(largest, c))


def _draw_grid(
    panel: _Panel,
    faces: Sequence[Any],
    labels: Sequence[str] | None,
    cell: float,
    *,
    cols: Sequence[tuple[float, str]] = (),
    xlabel: str = "",
    ylabel: str = "",
    font_cap: float = 8.0,
    width: float = 1.0,
) -> _Texts:
    """Cells as vector rectangles (row 0 at the top), labels, and row/column numbers; returns the text batch.

    The panel is ``panel.ncols`` units wide; each cell is ``width`` units
    wide (narrow cells: several elements per bank) and one unit tall.
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
    _lines(ax, grid, "white", lw, zorder=2)
    faces = [EMPTY if f is None else f for f in faces]
    texts = _Texts(cell)
    fs = _fit_font(labels, cell, font_cap, width) if labels is not None else None
    if fs is not None:
        for k, s in enumerate(labels):
            if s:
                r, c = divmod(k, per_row)
                texts.add((c + 0.5) * width, r + 0.5, s, fs, _text_colour(faces[k]))
    u = texts.unit
    for x, s in cols:
        texts.add(x, -3 * u, s, _TICK, ha="center", va="bottom")
    for k, s in enumerate(panel.row_labels):
        if s:
            texts.add(-4 * u, k + 0.5, s, _TICK, ha="right", va="center")
    if xlabel:
        ax.text(ncols / 2, -(3 + _TICK + 4) * u, xlabel, ha="center", va="bottom", fontsize=8)
    if ylabel:
        w = max((texts.glyphs.width(s, _TICK) for s in panel.row_labels), default=0.0)
        ax.text(-(4 + w + 4) * u, nrows / 2, ylabel, ha="right", va="center", rotation=90, fontsize=8)
    ax.set_xlim(0, ncols)
    ax.set_ylim(nrows, 0)
    ax.set_autoscale_on(False)
    ax.set_xticks([])
    ax.set_yticks([])
    return texts


def _every(n: int, cell: float, values: Sequence[int]) -> list[int]:
    """Indices of the cells whose numbers are printed (every cell, or every 2nd, 4th, ... when narrow)."""
    need = _Glyphs.get().width(str(max(values, default=0)), _TICK) + 3
    step = 1
    while step * cell * 72 < need and step < n:
        step *= 2
    return list(range(0, n, step))


def _col_numbers(n: int, cell: float, values: Sequence[int]) -> list[tuple[float, str]]:
    return [(k + 0.5, str(values[k])) for k in _every(n, cell, values)]


def _row_numbers(n: int, cell: float, values: Sequence[int]) -> list[str]:
    step = 1
    while step * cell * 72 < 1.25 * _TICK and step < n:
        step *= 2
    return [str(values[k]) if k % step == 0 else "" for k in range(n)]


def _colorbar(fig, cax, cmap: str, n: int, label: str, ticks: Sequence[int] | None = None):
    """A discrete colour bar for the values 0 .. n-1."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import BoundaryNorm, ListedColormap

    sm = ScalarMappable(norm=BoundaryNorm([i - 0.5 for i in range(n + 1)], n), cmap=ListedColormap(_palette(cmap, n)))
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


def _lines(ax, segs: list, colour: str, width: float, zorder: float = 3) -> None:
    from matplotlib.collections import LineCollection

    if segs:
        ax.add_collection(LineCollection(segs, colors=colour, linewidths=width, capstyle="butt", zorder=zorder))


def _boundaries(nrows: int, ncols: int, keys: Sequence[Any]) -> list:
    """Segments between neighbouring cells whose keys differ (both not None)."""
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


def _begin(path: Any, max_side: Any = 1):
    """Check the arguments every picture shares, then import matplotlib; returns the module."""
    if isinstance(max_side, bool) or not isinstance(max_side, int) or max_side < 1:
        raise SizeError(f"max_side must be a positive integer, got {max_side!r}")
    if path is not None:
        _format(path)
    return _mpl()[0]


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


# -- the tensor grid ------------------------------------------------------------


@dataclass
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
    out = {}
    for n, s in layout.in_sizes.items():
        out[n] = x & (s - 1)
        x >>= s.bit_length() - 1
    return out


_ABBR = {"register": "r", "lane": "t", "warp": "w", "block": "b"}


def _join(*lines: str) -> str:
    return "\n".join(s for s in lines if s)


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
    from ..core.text import owners

    matplotlib = _begin(path, max_side)
    view = _tensor_view(layout, max_side)
    own = owners(layout)
    sizes = layout.in_sizes
    thread_dims = [n for n in sizes if n != "register"]
    used = [n for n in thread_dims if sizes[n] > 1]
    key = thread_dims[0] if thread_dims else None  # the colour: lane
    ncolours = sizes[key] if key else 1
    group_dims = [n for n in thread_dims[1:] if sizes[n] > 1]
    abbr = {n: _ABBR.get(n, n[:1]) for n in sizes}
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
        faces.append(_colour(LANE_CMAP, parts[key] if key else 0, ncolours))
        top = ":".join(f"{abbr[n]}{parts[n]}" for n in reversed(used))
        reg = f"r{parts['register']}" if sizes.get("register", 1) > 1 else ""
        labels.append(_join(top, reg))
        threads.append(tuple(parts[n] for n in thread_dims))
        groups.append(tuple(parts[n] for n in group_dims))
    cell = _cell_size(view.ncols, view.nrows)
    nb = sum(bin(v).count("1") for v in layout.free_variable_masks().values())
    desc = " x ".join(f"{n}({s})" for n, s in sizes.items())
    outs = " x ".join(f"{n}({s})" for n, s in layout.out_sizes.items())
    fs = _fit_font(labels, cell)
    caption = f"colour: {key}; " if ncolours > 1 else ""
    caption += "thin lines: thread boundaries" + (f", thick: {'/'.join(group_dims)} boundaries" if group_dims else "")
    legend = ("label: owner (" + ":".join(abbr[n] for n in reversed(used)) + (" over r" if "register" in sizes and
              sizes["register"] > 1 else "") + ")") if fs else "labels omitted (cells too small)"
    notes = [view.note]
    if nb:
        notes.append(f"broadcast: {1 << nb} owners per element; each cell shows the one with broadcast bits 0")
    panel = _Panel("tensor", view.nrows, view.ncols, title=_join(caption, legend, *notes), colorbar=ncolours > 1,
                   row_labels=_row_numbers(view.nrows, cell, view.row_values) if view.row_name else ())
    with matplotlib.rc_context(_rc()), _SvgLabels(path):
        fig = _compose([[panel]], cell, title or f"distributed layout {desc} -> {outs}")
        texts = _draw_grid(panel, faces, labels, cell, cols=_col_numbers(view.ncols, cell, view.col_values),
                           xlabel=view.col_name, ylabel=view.row_name)
        _lines(panel.ax, _boundaries(view.nrows, view.ncols, threads), "#303030", 0.9)
        _lines(panel.ax, _boundaries(view.nrows, view.ncols, groups), "black", 2.4)
        texts.draw(panel.ax)
        if panel.cax is not None:
            _colorbar(fig, panel.cax, LANE_CMAP, ncolours, key)
    if path is not None:
        save(fig, path)
    return fig


# -- memory ---------------------------------------------------------------------------


@dataclass
class _Physical:
    """The first rows of shared memory: per shown element, the flat tensor coordinate stored there.

    The grid is ``banks`` units wide (one unit per bank word); an element
    is ``width`` units wide (1/2 for 16-bit elements, 2 for 64-bit ones).
    """

    nrows: int
    banks: int
    width: float
    per_row: int
    cells: list[int | None]
    note: str


def _physical(memory: LinearLayout, element_bits: int, hw: Any, max_rows: int) -> _Physical:
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
    return _Physical(nr, banks, width, per_row, cells, ("zoomed: showing " + " and ".join(notes)) if notes else "")


def _coords(y: int, outs: list[tuple[str, int]]) -> list[int]:
    vals = []
    for _, s in outs:
        vals.append(y & (s - 1))
        y >>= s.bit_length() - 1
    return vals


def _physical_content(memory: LinearLayout, phys: _Physical, cell: float):
    """Faces, labels and caption of a physical view."""
    outs = list(memory.out_sizes.items())
    col_dim, C = outs[-1]
    faces = [None if y is None else _colour(COLUMN_CMAP, _coords(y, outs)[-1], C) for y in phys.cells]
    one = ["" if y is None else ",".join(map(str, _coords(y, outs))) for y in phys.cells]
    two = ["" if y is None else "\n".join(map(str, _coords(y, outs))) for y in phys.cells]
    f1, f2 = _fit_font(one, cell, width=phys.width), _fit_font(two, cell, width=phys.width)
    if len(outs) > 1 and (f2 or 0) > (f1 or 0) + 0.5:
        labels, fs = two, f2
        what = " over ".join(n for n, _ in outs)
    else:
        labels, fs = one, f1
        what = ", ".join(n for n, _ in outs)
    caption = (f"label: the element stored there ({what}); colour: {col_dim}" if fs
               else f"colour: {col_dim} of the element stored there (labels omitted: cells too small)")
    return faces, labels, caption


def _physical_panel(fig, panel: _Panel, memory: LinearLayout, phys: _Physical, element_bits: int, hw: Any,
                    cell: float, faces, labels) -> None:
    banks = phys.banks
    cols = _col_numbers(banks, cell, list(range(banks)))
    texts = _draw_grid(panel, faces, labels, cell, cols=cols, xlabel="bank", ylabel=f"{hw.row_bytes}-byte row",
                       width=phys.width)
    if phys.width < 1:
        _lines(panel.ax, [((b, 0), (b, panel.nrows)) for b in range(1, banks)], "#404040", 0.8)
    texts.draw(panel.ax)
    outs = list(memory.out_sizes.items())
    _colorbar(fig, panel.cax, COLUMN_CMAP, outs[-1][1], outs[-1][0])


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
    from ..hw import get_hardware
    from ..core.text import owners

    _check_element_bits(element_bits)
    matplotlib = _begin(path, max_side)
    hw = get_hardware(hardware)
    view = _tensor_view(memory, max_side)
    own = owners(memory)
    phys = _physical(memory, element_bits, hw, max_side)
    faces: list[Any] = []
    labels: list[str] = []
    for y in view.cells:
        o = own.get(y)
        faces.append(None if o is None else _colour(BANK_CMAP, hw.bank_of((o * element_bits) >> 3), hw.banks))
        labels.append("" if o is None else str(o))
    stacked = view.ncols + phys.banks > 48
    if stacked:
        cell = _cell_size(max(view.ncols, phys.banks), view.nrows + phys.nrows, budget=12.0)
    else:
        cell = _cell_size(view.ncols + phys.banks, max(view.nrows, phys.nrows), budget=16.0)
    pfaces, plabels, pcaption = _physical_content(memory, phys, cell)
    cap = "label: offset; colour: bank" if _fit_font(labels, cell) else "colour: bank (labels omitted: cells too small)"
    if element_bits > 8 * hw.bank_bytes:
        cap += " of the element's first word"
    tp = _Panel("tensor", view.nrows, view.ncols, colorbar=True, title=_join("tensor", cap, view.note),
                row_labels=_row_numbers(view.nrows, cell, view.row_values) if view.row_name else ())
    pp = _Panel("memory", phys.nrows, phys.banks, colorbar=True,
                title=_join(f"shared memory: {hw.row_bytes}-byte rows across {hw.banks} banks", pcaption, phys.note),
                row_labels=_row_numbers(phys.nrows, cell, list(range(phys.nrows))))
    outs = " x ".join(f"{n}({s})" for n, s in memory.out_sizes.items())
    head = title or f"memory layout offset({memory.in_sizes.get('offset', 1)}) -> {outs}, {element_bits}-bit elements"
    with matplotlib.rc_context(_rc()), _SvgLabels(path):
        fig = _compose([[tp], [pp]] if stacked else [[tp, pp]], cell, head)
        texts = _draw_grid(tp, faces, labels, cell, cols=_col_numbers(view.ncols, cell, view.col_values),
                           xlabel=view.col_name, ylabel=view.row_name)
        texts.draw(tp.ax)
        _colorbar(fig, tp.cax, BANK_CMAP, hw.banks, "bank")
        _physical_panel(fig, pp, memory, phys, element_bits, hw, cell, pfaces, plabels)
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


# -- accesses ------------------------------------------------------------------------


def _access_content(result: Any, hw: Any):
    """Lanes (grouped by pass) x banks: faces, word labels, conflict outlines and row order."""
    lanes = [l for p in result.passes for l in p.lanes]
    row_of = {l: k for k, l in enumerate(lanes)}
    nb = hw.banks
    faces: list[Any] = [None] * (len(lanes) * nb)
    labels = [""] * (len(lanes) * nb)
    outlines = []
    for p in result.passes:
        first = row_of[p.lanes[0]]
        for b, words in p.words_per_bank.items():
            hit = len(words) > 1
            if hit:
                outlines.append((b, first, len(p.lanes)))
            for w in words:
                for l in p.lanes_per_word.get(w, ()):
                    k = row_of[l] * nb + b
                    faces[k] = CONFLICT if hit else ONE_WORD
                    labels[k] = str(w)
    return lanes, faces, labels, outlines


def _access_panel(panel: _Panel, result: Any, hw: Any, cell: float) -> None:
    from matplotlib.patches import Rectangle

    lanes, faces, labels, outlines = _access_content(result, hw)
    ax = panel.ax
    nb = hw.banks
    texts = _draw_grid(panel, faces, labels, cell, cols=_col_numbers(nb, cell, list(range(nb))), xlabel="bank",
                       ylabel="lane", font_cap=7.0)
    for b, r0, n in outlines:
        ax.add_artist(Rectangle((b, r0), 1, n, fill=False, edgecolor="black", linewidth=1.3, zorder=4))
    row_of = {l: k for k, l in enumerate(lanes)}
    u = texts.unit
    for p in result.passes:
        r0 = row_of[p.lanes[0]]
        if r0:
            _lines(ax, [((-6 * u, r0), (nb + 6 * u, r0))], "black", 1.6)
        nconf = len(p.conflicts())
        note = f"lanes {format_ranges(p.lanes)}\n{_plural(p.wavefronts, 'wavefront')}"
        if nconf:
            note += f"\n{_plural(nconf, 'bank')} in conflict"
        ax.text(nb + 6 * u, r0 + len(p.lanes) / 2, note, ha="left", va="center", fontsize=7.5, clip_on=False,
                linespacing=1.25, color=CONFLICT if nconf else "black", fontweight="bold" if nconf else "normal")
    texts.draw(ax)


def _access_legend() -> list:
    from matplotlib.patches import Patch

    return [
        Patch(facecolor=ONE_WORD, edgecolor="none", label="the bank serves one word in this pass"),
        Patch(facecolor=CONFLICT, edgecolor="black", label="bank conflict: the bank serves 2+ words (outlined)"),
    ]


def _access_caption(cell: float, labels: Sequence[str], short: bool = False) -> str:
    if _fit_font(labels, cell, 7.0) is None:
        return ("" if short else "each row a lane, in pass order; ") + "a filled cell: the lane touches that bank " \
            "(word labels omitted: cells too small)"
    if short:
        return "cell: the word the lane touches in that bank"
    return "each row a lane, in pass order; cell: the word (byte address // 4) the lane reads or writes in that bank"


def _result_line(res: Any) -> str:
    return (f"{res.instruction} ({res.op}), {res.access_bytes} bytes per lane: {_plural(res.wavefronts, 'wavefront')} "
            f"in {_plural(len(res.passes), 'pass', 'passes')}{' (merged)' if res.merged else ''}; "
            f"conflict-free would be {len(res.passes)}")


def _access_figure(res: Any, hw: Any, head: str, path: Any):
    matplotlib, _, _ = _mpl()
    lanes, _, labels, _ = _access_content(res, hw)
    cell = _cell_size(hw.banks, len(lanes), budget=8.5, largest=0.3)
    panel = _Panel("access", len(lanes), hw.banks, right=1.45, title=_access_caption(cell, labels),
                   row_labels=_row_numbers(len(lanes), cell, lanes))
    with matplotlib.rc_context(_rc()), _SvgLabels(path):
        fig = _compose([[panel]], cell, head, legend=_access_legend())
        _access_panel(panel, res, hw, cell)
    if path is not None:
        save(fig, path)
    return fig


def draw_access_offsets(
    instruction: str | None,
    op: str | None,
    access_bytes: int,
    lane_byte_offsets: Sequence[int],
    hardware: Any = None,
    path: str | Path | None = None,
):
    """Draw one shared-memory instruction given every lane's byte offset.

    Parameters
    ----------
    instruction, op, access_bytes, lane_byte_offsets, hardware
        As for :func:`~linlayout.simulate.simulate_access` (an address query
        of ``linlayout conflicts``).
    path
        ``.png`` or ``.svg`` file to write, or ``None``.

    Returns
    -------
    matplotlib.figure.Figure
        One axes ``"access"``: a row per lane (grouped by pass, thick lines
        between passes), a column per bank.  A cell is filled where the lane
        touches the bank and names the word; sky blue when the bank serves
        one word in that pass, vermilion (and the bank outlined over the
        pass) when it serves several: a conflict.  The title gives the
        wavefronts.

    Raises
    ------
    AccessError, InstructionError
        Offsets or instruction the simulator rejects.
    MissingDependencyError
        matplotlib is not installed.
    """
    from ..hw import get_hardware
    from ..count.simulate import simulate_access

    _begin(path)
    hw = get_hardware(hardware)
    res = simulate_access(instruction, op, access_bytes, lane_byte_offsets, hw)
    return _access_figure(res, hw, "one instruction: " + _result_line(res), path)


def _first_instruction(report: Any, layout: LinearLayout, memory: Any, element_bits: int, hw: Any):
    """The simulated first instruction of a report's plan."""
    from ..count.by_simulation import lane_byte_offsets
    from ..count.simulate import simulate_access

    vb = None if report.instruction.startswith(("ldmatrix", "stmatrix")) else report.vector_bits
    first = lane_byte_offsets(layout, memory, element_bits, report.op, report.instruction, vb, hw)[0]
    return simulate_access(report.instruction, report.op, report.access_bytes, first, hw)


def _report_line(rep: Any) -> str:
    uniform = rep.per_instruction is None or len(set(rep.per_instruction)) <= 1
    each = (f"{rep.wavefronts_per_instruction} each" if uniform
            else "per instruction " + ", ".join(map(str, rep.per_instruction)))
    return (f"{_plural(rep.wavefronts, 'wavefront')} per warp = {rep.instructions} x {rep.instruction} "
            f"({rep.access_bytes} B per lane), {each}; conflict-free would be {rep.ideal_wavefronts}")


def draw_access(
    layout: LinearLayout,
    memory: Any,
    element_bits: int,
    op: str | None = None,
    instruction: str | None = None,
    vector_bits: int | None = None,
    hardware: Any = "sm90",
    path: str | Path | None = None,
):
    """Draw the first instruction of a tile access, with the wavefronts per warp.

    Parameters
    ----------
    layout, memory, element_bits, op, instruction, vector_bits, hardware
        As for :func:`~linlayout.conflicts.wavefronts` (a layout query of
        ``linlayout conflicts``); ``memory`` may be a padded layout
        (counted with the simulator).
    path
        ``.png`` or ``.svg`` file to write, or ``None``.

    Returns
    -------
    matplotlib.figure.Figure
        :func:`draw_access_offsets`' picture of the first instruction that
        warp 0 issues (:func:`~linlayout.conflicts.lane_byte_offsets`); the
        title adds the count per warp.
    """
    from ..count.by_simulation import simulate_wavefronts
    from ..count.closed_form import wavefronts
    from ..hw import get_hardware
    from ..core.memory import PaddedLayout

    _begin(path)
    hw = get_hardware(hardware)
    fn = simulate_wavefronts if isinstance(memory, PaddedLayout) else wavefronts
    rep = fn(layout, memory, element_bits, op, instruction, vector_bits, hw)
    res = _first_instruction(rep, layout, memory, element_bits, hw)
    head = _join(f"{rep.op} of a tile of {element_bits}-bit elements: {_report_line(rep)}",
                 f"first instruction: {_result_line(res)}")
    return _access_figure(res, hw, head, path)


# -- swizzles --------------------------------------------------------------------------


def draw_swizzle(
    write: LinearLayout,
    read: LinearLayout,
    element_bits: int,
    hardware: Any = "sm90",
    objective: str = "balanced",
    vector_bits: int | None = None,
    instructions: Sequence[str] | None = None,
    path: str | Path | None = None,
    *,
    max_side: int = 64,
):
    """Draw a synthesized swizzle beside the row-major layout: the memory, the first write, the first read.

    Parameters
    ----------
    write, read, element_bits, hardware, objective, vector_bits, instructions
        As for :func:`~linlayout.synthesis.optimal_swizzle` (a
        ``linlayout swizzle`` query).
    path
        ``.png`` or ``.svg`` file to write, or ``None``.
    max_side
        At most ``min(max_side, 32)`` rows of shared memory are drawn.

    Returns
    -------
    matplotlib.figure.Figure
        Two columns, before (row-major :func:`~linlayout.swizzles.unswizzled`
        with ``st.shared``/``ld.shared``, as
        :func:`~linlayout.compare.compare_swizzles` scores it) and after (the
        synthesized memory and instructions); three rows, the physical view
        (as in :func:`draw_memory`), the first write instruction and the
        first read instruction (as in :func:`draw_access_offsets`), each
        titled with its wavefronts per warp.  Axes labels ``"memory
        before"``, ``"write before"``, ``"read before"``, and the same with
        ``after``.
    """
    from ..count.closed_form import wavefronts
    from ..hw import get_hardware
    from ..core.memory import unswizzled
    from ..synth.synthesis import optimal_swizzle

    matplotlib = _begin(path, max_side)
    hw = get_hardware(hardware)
    res = optimal_swizzle(write, read, element_bits, hardware=hw, objective=objective, vector_bits=vector_bits,
                          instructions=instructions)
    shape = list(write.out_sizes.values())
    mems = {"before": LinearLayout({"offset": unswizzled(shape).bases["offset"]}, write.out_sizes),
            "after": res.memory}
    sides: dict[tuple[str, str], tuple[Any, Any]] = {}
    for name, mem in mems.items():
        for k, (side, lay, op) in enumerate((("write", write, "store"), ("read", read, "load"))):
            try:
                if name == "after":
                    rep = (res.write, res.read)[k]
                else:
                    rep = wavefronts(lay, mem, element_bits, op, hardware=hw)
                sides[side, name] = (rep, _first_instruction(rep, lay, mem, element_bits, hw))
            except LinLayoutError as e:
                sides[side, name] = (None, " ".join(str(e).split()))
    phys = {n: _physical(m, element_bits, hw, min(max_side, 32)) for n, m in mems.items()}
    cell = _cell_size(2 * hw.banks, budget=13.0, largest=0.24)
    what = {"before": "row-major, no swizzle",
            "after": "synthesized swizzle" + (", proven optimal" if res.optimal else "")}
    rows: list[list[_Panel]] = [[], [], []]
    content = {}
    for name in ("before", "after"):
        p = phys[name]
        faces, labels, caption = _physical_content(mems[name], p, cell)
        content["memory", name] = (faces, labels)
        rows[0].append(_Panel(f"memory {name}", p.nrows, p.banks, colorbar=True,
                              title=_join(f"{name.upper()}: {what[name]}", caption, p.note),
                              row_labels=_row_numbers(p.nrows, cell, list(range(p.nrows)))))
        for i, side in ((1, "write"), (2, "read")):
            rep, first = sides[side, name]
            if rep is None:
                rows[i].append(_Panel(f"{side} {name}", 1, hw.banks, title=f"{side}, {name}: cannot be used: {first}"))
                continue
            lanes, _, alabels, _ = _access_content(first, hw)
            rows[i].append(_Panel(
                f"{side} {name}", len(lanes), hw.banks, right=1.45,
                title=_join(f"{side.upper()}, {name}: {_report_line(rep)}",
                            f"first instruction: {_plural(first.wavefronts, 'wavefront')} in "
                            f"{_plural(len(first.passes), 'pass', 'passes')}; " + _access_caption(cell, alabels, True)),
                row_labels=_row_numbers(len(lanes), cell, lanes)))

    def total(name):
        w, r = sides["write", name][0], sides["read", name][0]
        return f"write {w.wavefronts if w else '-'} + read {r.wavefronts if r else '-'}"

    outs = " x ".join(f"{n}({s})" for n, s in write.out_sizes.items())
    head = _join(f"swizzle for a {outs} tile of {element_bits}-bit elements",
                 f"wavefronts per warp: {total('before')} row-major (left), {total('after')} synthesized (right)")
    with matplotlib.rc_context(_rc()), _SvgLabels(path):
        fig = _compose(rows, cell, head, legend=_access_legend())
        for j, name in enumerate(("before", "after")):
            faces, labels = content["memory", name]
            _physical_panel(fig, rows[0][j], mems[name], phys[name], element_bits, hw, cell, faces, labels)
            for i, side in ((1, "write"), (2, "read")):
                rep, first = sides[side, name]
                if rep is None:
                    rows[i][j].ax.set_axis_off()
                else:
                    _access_panel(rows[i][j], first, hw, cell)
    if path is not None:
        save(fig, path)
    return fig


# -- any JSON document ------------------------------------------------------------------


def draw(
    source: Any,
    path: str | Path | None = None,
    *,
    element_bits: int | None = None,
    max_side: int = 64,
):
    """Draw a layout, a conflicts query or a swizzle query given as JSON.

    Parameters
    ----------
    source
        JSON text, a decoded object, or a :class:`~pathlib.Path` to a JSON
        file.  The picture follows :func:`picture_kind`.
    path
        ``.png`` or ``.svg`` file to write, or ``None``.
    element_bits
        Bits per element of a memory layout (default 32); an error for other
        documents (queries give their own).
    max_side
        At most this many rows and columns of a tensor are drawn.

    Returns
    -------
    matplotlib.figure.Figure
        The figure of :func:`draw_distributed`, :func:`draw_memory`,
        :func:`draw_access`, :func:`draw_access_offsets` or
        :func:`draw_swizzle`.

    Raises
    ------
    LinLayoutError
        A subclass for any bad document or option
        (:class:`~linlayout.errors.LayoutJSONError`,
        :class:`~linlayout.errors.DrawError`, ...), and
        :class:`~linlayout.errors.MissingDependencyError` without matplotlib.
    """
    from ..io.jsonio import conflicts_query_from_json, decode, layout_from_json, load_file, swizzle_query_from_json

    obj = load_file(source, "JSON file") if isinstance(source, Path) else decode(source, "JSON document")
    kind = picture_kind(obj)
    if element_bits is not None and kind != "memory":
        raise DrawError(f"element_bits applies to memory layouts, and this is a {kind} "
                        + ("layout" if kind == "distributed" else "query (it gives its own element_bits)"))
    _begin(path, max_side)
    if kind == "distributed":
        return draw_distributed(layout_from_json(obj), path, max_side=max_side)
    if kind == "memory":
        return draw_memory(layout_from_json(obj), path, element_bits=32 if element_bits is None else element_bits,
                           max_side=max_side)
    if kind == "swizzle":
        return draw_swizzle(**swizzle_query_from_json(obj), path=path, max_side=max_side)
    q = conflicts_query_from_json(obj)
    if q.pop("kind") == "access":
        return draw_access_offsets(**q, path=path)
    return draw_access(**q, path=path)
