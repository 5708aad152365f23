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
  :func:`~linlayout.core.memory.unswizzled`) and after (the synthesized
  memory) side by side, each as its physical view and its first write and
  read instructions, with the wavefronts per warp.

**Large tensors are zoomed, not aggregated**: at most ``max_side``
(default 64) rows and columns are drawn, the top-left corner, and the
picture says so ("zoomed: showing the top-left 64x64 of 128x128"); a 1-D
tensor longer than ``max_side`` is wrapped into rows of ``max_side``.  The
physical view of a swizzle shows at most 32 rows.  Cell labels are left out,
and the picture says so, when they would be smaller than 4.5 points.

**Colours are colour-blind safe** (:mod:`.palette`): ``viridis`` for lanes
and banks, ``cividis`` for tensor columns, the Okabe-Ito palette
(:data:`OKABE_ITO`) for categories: sky blue for a bank that serves one
word, vermilion for a conflict.  Labels, outlines and boundary lines carry
the same information as the colours.

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

The package, one concept a module:

=====================  ===========================================================
:mod:`.palette`        colours (Okabe-Ito, the colour maps of ordered values)
:mod:`.glyphs`         cell labels as cached glyph outlines; the font size that fits
:mod:`.figure`         lazy matplotlib, panels placed on a figure, deterministic save
:mod:`.grid`           a panel's cells, labels, row and column numbers, colour bar
:mod:`.physical`       the physical view of shared memory (rows x banks)
:mod:`.layouts`        distributed and memory layout pictures
:mod:`.access`         pictures of one shared-memory instruction
:mod:`.swizzle`        before/after swizzle pictures
:mod:`.dispatch`       :func:`picture_kind` and :func:`draw` for any JSON document
=====================  ===========================================================

>>> picture_kind({"bases": {"offset": [[0, 1], [1, 0]]}})
'memory'
>>> picture_kind({"write": {}, "read": {}})
'swizzle'
>>> element_bank(33, 32), element_bank(33, 16)
(1, 16)
"""

from __future__ import annotations

from .access import draw_access, draw_access_offsets
from .dispatch import draw, picture_kind
from .figure import save
from .layouts import draw_distributed, draw_layout, draw_memory, element_bank
from .palette import BANK_CMAP, COLUMN_CMAP, CONFLICT, EMPTY, LANE_CMAP, OKABE_ITO, ONE_WORD
from .swizzle import draw_swizzle

__all__ = ["draw_layout", "draw_distributed", "draw_memory", "draw_access", "draw_access_offsets", "draw_swizzle"]
