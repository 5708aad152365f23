"""Layouts as text: bases listings and tensor grids.

The grid view follows the paper's figures: the tensor is drawn with ``dim0``
as rows and ``dim1`` as columns, and each cell names the hardware index that
owns the element, major dimension first (``w0:t9:r1``).  With broadcast
(several owners) the cell shows the owner whose broadcast bits are all 0.
Labels abbreviate the standard dimensions (``register`` → ``r``, ``lane`` →
``t`` for thread, ``warp`` → ``w``, ``block`` → ``b``); a single ``offset``
dimension prints bare numbers.

These functions read a layout through its public methods only, so
:class:`~linlayout.core.layout.LinearLayout` can use them for ``str()``.

>>> from linlayout import LinearLayout
>>> L = LinearLayout({"register": [[0, 1]], "lane": [[0, 2], [1, 0]]}, {"dim0": 2, "dim1": 4})
>>> print(grid_text(L))
dim0\\dim1     0     1     2     3
        0 t0:r0 t0:r1 t1:r0 t1:r1
        1 t2:r0 t2:r1 t3:r0 t3:r1
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import SizeError
from . import f2
from .dims import dim_offsets

if TYPE_CHECKING:  # the layout type is only named in annotations: no import cycle with layout.py
    from .layout import LinearLayout

__all__ = [
    "DIM_ABBREVIATIONS",
    "abbreviations",
    "layout_text",
    "grid_text",
    "owners",
    "owner_labels",
    "format_ranges",
]


DIM_ABBREVIATIONS = {"register": "r", "lane": "t", "warp": "w", "block": "b", "offset": "o"}


def layout_text(layout: LinearLayout) -> str:
    """A readable listing: one line per input dimension with its bases.

    >>> from linlayout import LinearLayout
    >>> print(layout_text(LinearLayout({"register": [[0, 1], [8, 0]], "warp": []}, {"dim0": 16, "dim1": 2})))
    LinearLayout register(4) x warp(1) -> dim0(16) x dim1(2)
      register: [(0, 1), (8, 0)]
      warp:     []
    """
    ins = " x ".join(f"{n}({s})" for n, s in layout.in_sizes.items()) or "()"
    outs = " x ".join(f"{n}({s})" for n, s in layout.out_sizes.items()) or "()"
    lines = [f"LinearLayout {ins} -> {outs}"]
    bases = layout.bases
    w = max((len(n) for n in bases), default=0) + 1
    for n, bl in bases.items():
        body = "[" + ", ".join("(" + ", ".join(str(x) for x in b) + ")" for b in bl) + "]"
        lines.append(f"  {(n + ':').ljust(w)} {body}")
    return "\n".join(lines)


def abbreviations(names: tuple[str, ...]) -> list[str]:
    """Short labels of input dimensions (``register`` → ``r``, ``lane`` → ``t``, ...), full names if two would clash."""
    abbr = [DIM_ABBREVIATIONS.get(n, n[0]) for n in names]
    if len(set(abbr)) != len(abbr):
        abbr = list(names)
    return abbr


def owners(layout: LinearLayout, outputs: Iterable[int] | None = None) -> dict[int, int]:
    """For each reachable flat output value (of ``outputs``, default all), the flat input of its canonical owner.

    The owner is the solution with broadcast (free) bits set to 0 (only the
    earliest independent input bits are used).  Flat values put the first
    dimension in the lowest bits; unreached outputs are absent.  A picture
    passes the outputs it shows, so its cost does not grow with the tensor.

    >>> from linlayout import LinearLayout
    >>> owners(LinearLayout({"register": [[0]], "lane": [[1], [2]]}, {"dim0": 4}))   # register broadcasts
    {0: 0, 1: 2, 2: 4, 3: 6}
    """
    ech = f2.echelon(layout.flat_columns())[0]
    out = {}
    for y in range(layout.total_out_size) if outputs is None else outputs:
        r, m = ech.reduce(y)
        if not r:
            out[y] = m
    return out


def owner_labels(layout: LinearLayout) -> dict[int, str]:
    """For each reachable flat output value, a label of its canonical owner.

    The owner is the solution with broadcast (free) bits set to 0.
    """
    sizes = [(n, b) for n, b in layout.in_dim_bits if b]
    if len(sizes) == 1 and len(layout.in_dim_bits) >= 1 and sizes[0][0] == "offset":
        def label(x: int) -> str:
            return str(x)
    else:
        abbr = dict(zip(layout.in_dims, abbreviations(layout.in_dims)))

        def label(x: int) -> str:
            parts = []
            for n, b in sizes:
                parts.append(f"{abbr[n]}{x & ((1 << b) - 1)}")
                x >>= b
            return ":".join(reversed(parts)) if parts else "*"

    return {y: label(m) for y, m in owners(layout).items()}


def grid_text(layout: LinearLayout, max_side: int = 64) -> str:
    """The tensor as a text grid (``dim0`` rows, ``dim1`` columns), each cell its owner.

    Works for layouts with one or two output dimensions of at most
    ``max_side`` elements per side; unreached elements print ``.``.
    Raises :class:`SizeError` for larger tensors (use :meth:`LinearLayout.sublayout`
    or a smaller tile).
    """
    outs = layout.out_dim_bits
    if len(outs) not in (1, 2):
        raise SizeError(
            f"a grid needs 1 or 2 output dimensions, the layout has {len(outs)}; "
            f"reshape_outs or sublayout it first"
        )
    if len(outs) == 1:
        rows_name, rbits = "-", 0
        cols_name, cbits = outs[0]
    else:
        (rows_name, rbits), (cols_name, cbits) = outs
    if max(rbits, cbits) > max_side.bit_length() - 1:
        raise SizeError(
            f"the tensor is {1 << rbits}x{1 << cbits}; grids are drawn up to {max_side} per side "
            f"(pass max_side or draw a sublayout)"
        )
    labels = owner_labels(layout)
    offs = dim_offsets(outs)
    w = max([len(s) for s in labels.values()] + [len(str((1 << cbits) - 1)), 1])
    head = f"{rows_name}\\{cols_name}"
    lw = max(len(head), len(str((1 << rbits) - 1)))
    lines = [head.rjust(lw) + " " + " ".join(str(c).rjust(w) for c in range(1 << cbits))]
    for r in range(1 << rbits):
        cells = []
        for c in range(1 << cbits):
            if len(outs) == 2:
                y = (r << offs[0]) | (c << offs[1])
            else:
                y = c
            cells.append(labels.get(y, ".").rjust(w))
        lines.append(str(r).rjust(lw) + " " + " ".join(cells))
    return "\n".join(lines)



def format_ranges(xs) -> str:
    """Sorted integers as runs: ``[0, 1, 2, 5]`` → ``"0-2,5"``.

    >>> format_ranges([5, 0, 2, 1])
    '0-2,5'
    """
    xs = sorted(xs)
    out = []
    i = 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else f"{xs[i]}-{xs[j]}")
        i = j + 1
    return ",".join(out)
