"""Colours of the pictures: colour-blind-safe maps for ordered values, Okabe-Ito for categories.

Every colour in a picture says one of two things.

* **An ordered quantity** (a lane, a bank, a tensor column) is a colour of a
  perceptually uniform map, which stays ordered in greyscale and under the
  common colour-vision deficiencies: value ``i`` of ``n`` is
  ``cmap(i / (n - 1))``.  Lanes and banks use ``viridis``
  (:data:`LANE_CMAP`, :data:`BANK_CMAP`); tensor columns use ``cividis``
  (:data:`COLUMN_CMAP`), so that the column colour of a physical view is not
  read as a bank colour.
* **A category** is a colour of the Okabe-Ito palette (:data:`OKABE_ITO`):
  sky blue for a bank that serves one word in a pass (:data:`ONE_WORD`),
  vermilion for a bank conflict (:data:`CONFLICT`); light grey
  (:data:`EMPTY`) is a cell with nothing in it.

Labels, outlines and boundary lines carry the same information as the
colours, and a label's ink is black or white, whichever reads on its cell
(:func:`text_colour`).

Worked example: bank 31 of 32 is the last colour of ``viridis``, a yellow.

>>> [round(v, 3) for v in ordered_colour(BANK_CMAP, 31, 32)]
[0.993, 0.906, 0.144, 1.0]
>>> text_colour(ordered_colour(BANK_CMAP, 31, 32)), text_colour(ordered_colour(BANK_CMAP, 0, 32))
('black', 'white')

The colour functions import matplotlib when called; the constants do not.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

__all__ = [
    "OKABE_ITO",
    "ONE_WORD",
    "CONFLICT",
    "EMPTY",
    "LANE_CMAP",
    "BANK_CMAP",
    "COLUMN_CMAP",
    "MAX_COLOURS",
    "ordered_colour",
    "ordered_palette",
    "text_colour",
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
"""A bank that serves one word in a pass."""
CONFLICT = OKABE_ITO["vermilion"]
"""A bank that serves two or more words in a pass: a bank conflict."""
EMPTY = "#F2F2F2"
"""A cell with nothing in it (an unreached element, a bank no lane touches)."""
LANE_CMAP = "viridis"
"""Colour map of lanes (the owner of a tensor element)."""
BANK_CMAP = "viridis"
"""Colour map of banks (the bank of a tensor element)."""
COLUMN_CMAP = "cividis"
"""Colour map of tensor columns (the element stored in a physical view)."""


def ordered_colour(cmap: str, i: int, n: int) -> tuple[float, ...]:
    """Colour ``i`` of ``n`` ordered values: ``cmap(i / (n - 1))``.

    Parameters
    ----------
    cmap
        A matplotlib colour map name.
    i, n
        The value and the number of values (``0 <= i < n``).

    Returns
    -------
    tuple of float
        RGBA, each from 0 to 1.

    More than :data:`MAX_COLOURS` values share :data:`MAX_COLOURS` colours
    (value ``i`` takes colour ``i * MAX_COLOURS // n``), so a picture of a
    huge tensor costs no more than one of 256 values.

    >>> ordered_colour("viridis", 0, 1) == ordered_colour("viridis", 0, 32)
    True
    >>> ordered_colour("viridis", 1 << 39, 1 << 40) == ordered_colour("viridis", 128, 256)
    True
    """
    if n > MAX_COLOURS:
        return ordered_palette(cmap, MAX_COLOURS)[i * MAX_COLOURS // n]
    return ordered_palette(cmap, n)[i]


MAX_COLOURS = 256
"""The most distinct colours of one ordered colour map (larger ranges share them)."""


@lru_cache(maxsize=32)
def ordered_palette(cmap: str, n: int) -> tuple[tuple[float, ...], ...]:
    """The ``n`` colours of :func:`ordered_colour` for the values ``0 .. n-1`` (cached).

    >>> len(ordered_palette("cividis", 8)), ordered_palette("cividis", 8)[0] == ordered_colour("cividis", 0, 8)
    (8, True)
    """
    import matplotlib

    m = matplotlib.colormaps[cmap]
    return tuple(tuple(float(v) for v in m(i / (n - 1) if n > 1 else 0.0)) for i in range(n))


def _rgba(c: Any) -> tuple[float, ...]:
    from matplotlib.colors import to_rgba

    return to_rgba(c)


def text_colour(face: Any) -> str:
    """Ink for a label on a cell of colour ``face``: ``"black"`` on light cells, ``"white"`` on dark ones.

    A cell is light when its relative luminance (Rec. 709 weights of the
    RGB components) is above 0.4.

    >>> text_colour(EMPTY), text_colour(OKABE_ITO["blue"])
    ('black', 'white')
    """
    r, g, b = _rgba(face)[:3]
    return "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.4 else "white"
