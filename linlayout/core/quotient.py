"""Triviality over dimensions and the quotient by them (Triton's ``isTrivialOver`` / ``quotient``).

A layout whose input and output dimensions share some names (a map from
hardware indices to hardware indices, such as the conversion map of
:mod:`linlayout.convert`) is **trivial over** a set of dimensions when it acts
on them as the identity and keeps them apart from everything else: each of
those input dimensions maps to the same output dimension identically, no
other input reaches them, and they reach no other output.  The **quotient**
then drops them from both sides; what is left is the part of the map that
really moves data.

>>> from linlayout.core.layout import LinearLayout
>>> C = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]]}, {"register": 2, "lane": 2})
>>> is_trivial_over(C, ["lane"]), quotient(C, ["lane"]).bases
(True, {'register': [(1,)]})
>>> swap = LinearLayout({"register": [[0, 1]], "lane": [[1, 0]]}, {"register": 2, "lane": 2})
>>> is_trivial_over(swap, ["lane"])
False
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import DimensionError
from .layout import LinearLayout

__all__ = ["is_trivial_over", "quotient"]


def _names(dims: Iterable[str]) -> list[str]:
    if isinstance(dims, str):
        return [dims]
    out = list(dims)
    if not all(isinstance(d, str) for d in out):
        raise DimensionError(f"dimension names must be strings, got {out!r}")
    return out


def is_trivial_over(layout: LinearLayout, dims: Iterable[str]) -> bool:
    """True when ``layout`` is the identity on ``dims`` and keeps them apart from its other dimensions.

    A name missing from both sides (or of size 1 on both) is trivially fine;
    a name present on one side only with size above 1 is not trivial.

    >>> L = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]]}, {"register": 2, "lane": 2})
    >>> is_trivial_over(L, ["register", "lane"])
    True
    """
    names = _names(dims)
    ins = layout.in_sizes
    outs = layout.out_sizes
    for d in names:
        if ins.get(d, 1) != outs.get(d, 1):
            return False
    # On the flat columns (output dimensions packed minor first), not the bases' tuples: the planner asks this
    # of every conversion map, and rebuilding the bases per input dimension was most of its cost.
    offset, pos, covered = {}, 0, 0
    for o, b in layout.out_dim_bits:
        offset[o] = pos
        if o in names:
            covered |= ((1 << b) - 1) << pos
        pos += b
    for n, _ in layout.in_dim_bits:
        cols = layout.flat_bases(n)
        if n in names:  # the identity onto the same output dimension, nothing else
            if any(c != 1 << (offset[n] + k) for k, c in enumerate(cols)):
                return False
        elif any(c & covered for c in cols):  # no other input reaches the dimensions
            return False
    return True


def quotient(layout: LinearLayout, dims: Iterable[str]) -> LinearLayout:
    """``layout`` without ``dims`` on either side; it must be trivial over them.

    Raises :class:`DimensionError` naming the first dimension the layout moves.

    >>> L = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]]}, {"register": 2, "lane": 2})
    >>> quotient(L, ["register"]).bases
    {'lane': [(1,)]}
    >>> quotient(LinearLayout({"lane": [[1]]}, {"register": 2}), ["lane"])
    Traceback (most recent call last):
    ...
    linlayout.errors.DimensionError: the layout is not trivial over 'lane': it moves data along it, so it cannot be dropped
    """
    names = _names(dims)
    for d in names:
        if not is_trivial_over(layout, [d]):
            raise DimensionError(f"the layout is not trivial over {d!r}: it moves data along it, so it cannot be dropped")
    keep_in = [n for n in layout.in_dims if n not in names]
    keep_out = [n for n in layout.out_dims if n not in names]
    return layout.sublayout(keep_in, keep_out)
