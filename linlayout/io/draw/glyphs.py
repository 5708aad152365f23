"""Cell labels: thousands of short texts drawn fast, and the font size at which they fit.

A picture of a 64x64 tensor has 4,096 cell labels.  Drawn as 4,096
matplotlib texts it would take seconds; here every label is laid out from
cached glyph outlines of DejaVu Sans (the font shipped with matplotlib) and
all labels of one colour become a single filled path.

* :class:`Glyphs` holds each character's outline and advance width at size
  1 (one em), and the outline of each line of text built from them.
* :class:`LabelBatch` collects the labels of one axes (positions in the data
  coordinates of a grid, row 0 at the top) and draws them in one go.  For
  SVG output (inside :class:`SvgLabels`) the labels become ordinary texts at
  the same places instead: the SVG then shares each glyph's outline through
  ``<use>``, which keeps the file several times smaller.
* :func:`fit_font` picks the largest font size at which every label fits its
  cell, or ``None`` when that would be below :data:`MIN_FONT`: the picture
  then leaves the labels out and says so.

Worked example: a cell 0.25 in (18 points) square holds the label ``"w1:t9"``
at a bit over 5 points, and a 3-line label only in a larger cell.

>>> round(fit_font(["w1:t9"], 0.25), 2)
5.36
>>> fit_font(["a\\nb\\nc"], 0.1) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any

__all__ = ["TICK_FONT", "MIN_FONT", "Glyphs", "SvgLabels", "LabelBatch", "fit_font"]

TICK_FONT = 7.0
"""Font size (points) of the row and column numbers of a grid."""

MIN_FONT = 4.5
"""The smallest font size (points) of a cell label; smaller labels are left out."""


class Glyphs:
    """DejaVu Sans outlines and advances per character, cached (labels are drawn as paths).

    One instance is shared (:meth:`get`); building it imports matplotlib.

    Attributes
    ----------
    prop, font
        The matplotlib font properties and FreeType font of DejaVu Sans.
    chars, lines
        Caches: character or line -> (vertices, path codes, advance width).

    >>> g = Glyphs.get()
    >>> g is Glyphs.get(), round(g.width("bank", 10.0), 2)
    (True, 24.6)
    """

    _shared: Glyphs | None = None

    def __init__(self) -> None:
        from matplotlib.font_manager import FontProperties, findfont, get_font

        self.prop = FontProperties(family="DejaVu Sans")
        self.font = get_font(findfont(self.prop))
        self.chars: dict[str, tuple[Any, Any, float]] = {}
        self.lines: dict[str, tuple[Any, Any, float]] = {}

    @classmethod
    def get(cls) -> Glyphs:
        """The shared instance (its caches serve every picture)."""
        if cls._shared is None:
            cls._shared = cls()
        return cls._shared

    def _char(self, ch: str):
        """(vertices, codes, advance width) of one character at size 1."""
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
        """(vertices, codes, advance width) of one line of text at size 1 (em units, y up).

        >>> v, c, w = Glyphs.get().line("t9")
        >>> v.shape[1], len(v) == len(c), round(w, 3)
        (2, True, 1.028)
        """
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
        """Width in points of the widest line of ``s`` at ``size`` points.

        >>> Glyphs.get().width("w1\\nr1", 8.0) == Glyphs.get().width("w1", 8.0)
        True
        """
        return max(self.line(t)[2] for t in s.split("\n")) * size


_SVG_TEXT: ContextVar[bool] = ContextVar("linlayout_draw_svg_text", default=False)


class SvgLabels:
    """While drawing a figure that will be written as SVG, labels are text (glyphs shared by ``<use>``).

    A context manager: within it, a :class:`LabelBatch` made for a ``path``
    ending in ``.svg`` draws matplotlib texts; otherwise (PNG, or no file)
    it draws filled glyph outlines.  The setting is a context variable, so
    concurrent drawings do not see each other's.

    Parameters
    ----------
    path
        The file the figure will be written to, or ``None``.

    >>> with SvgLabels("a.svg"):
    ...     LabelBatch(0.25).as_text
    True
    >>> LabelBatch(0.25).as_text
    False
    """

    def __init__(self, path: Any) -> None:
        self.on = path is not None and Path(path).suffix.lower() == ".svg"

    def __enter__(self) -> None:
        self.token = _SVG_TEXT.set(self.on)

    def __exit__(self, *exc: Any) -> None:
        _SVG_TEXT.reset(self.token)


class LabelBatch:
    """Many short labels of one axes, drawn as one filled path per colour (fast rendering).

    Positions are data coordinates of a grid whose cells are ``cell``
    inches square, with y pointing down (row 0 at the top).  For SVG output
    the labels are matplotlib texts instead, placed identically: the file
    then shares each glyph's outline, which keeps it several times smaller.

    Parameters
    ----------
    cell
        Inches per grid cell (one data unit).

    Attributes
    ----------
    glyphs
        The shared :class:`Glyphs`.
    unit
        Data units per point: ``4 * batch.unit`` is 4 points in the grid.
    as_text
        Whether the labels become texts (inside :class:`SvgLabels` for SVG).

    >>> batch = LabelBatch(0.25)
    >>> batch.add(0.5, 0.5, "w1:t9\\nr1", 6.0)
    >>> round(1 / batch.unit), len(batch.parts["black"][0])
    (18, 2)
    """

    def __init__(self, cell: float) -> None:
        self.glyphs = Glyphs.get()
        self.unit = 1.0 / (72.0 * cell)  # data units per point
        self.parts: dict[str, tuple[list, list]] = {}
        self.as_text = _SVG_TEXT.get()
        self.items: list[tuple[float, float, str, float, str]] = []

    def add(self, x: float, y: float, s: str, size: float, colour: str = "black", ha: str = "center",
            va: str = "center") -> None:
        """Add label ``s`` (lines split at ``"\\n"``) at ``(x, y)``, ``size`` points, aligned by ``ha``/``va``."""
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
        """Draw the labels added so far onto the matplotlib axes ``ax`` (above the cells, unclipped)."""
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


def fit_font(labels: Sequence[str], cell: float, cap: float = 8.0, width: float = 1.0) -> float | None:
    """The largest font (points) at which every label fits its cell, or None below the minimum.

    Parameters
    ----------
    labels
        The cell labels (empty ones are ignored; ``"\\n"`` separates lines).
    cell
        Cells are ``cell`` inches tall and ``width * cell`` wide.
    cap
        The largest size returned.
    width
        Cell width in cells (1/2 for 16-bit elements in a bank view).

    Returns
    -------
    float or None
        The size in points, or ``None`` when it would be below
        :data:`MIN_FONT` (or there are no labels).

    >>> fit_font(["0", "1"], 1.0), fit_font([""], 1.0)
    (8.0, None)
    """
    texts = {s for s in labels if s}
    if not texts:
        return None
    g = Glyphs.get()
    cell_pt = cell * 72
    widest = max(g.width(s, 1.0) for s in texts)
    lines = max(s.count("\n") + 1 for s in texts)
    fs = min(cap, 0.84 * width * cell_pt / max(widest, 0.5), 0.78 * cell_pt / (1.12 * lines))
    return fs if fs >= MIN_FONT else None

