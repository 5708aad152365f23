"""Evaluating a layout at one input, on flat layout data: directly, or through lookup tables.

``L(x)`` is the XOR of the bases of the set bits of ``x`` (one flat int per
basis, output dimensions packed minor first, see :mod:`linlayout.core.dims`).
Two ways to compute it, with the same answers and the same errors:

* :func:`direct` walks the set bits of each input value: no set-up, so it
  is what a layout evaluated once or a few times uses.
* :func:`tables` builds, per input dimension, the XOR of every subset of its
  bases (one table for up to 12 bits, one per 8-bit chunk above), and
  :func:`from_tables` evaluates with one lookup per dimension (or chunk):
  what a layout evaluated many times uses.

:class:`~linlayout.core.layout.LinearLayout` evaluates its first few calls
directly and builds the tables when it is evaluated again, so a layout used
once never pays for tables and one used often gets them.

>>> ins, cols = (("lane", 2), ("warp", 1)), ((1, 6), (4,))
>>> direct(ins, cols, {"lane": 3, "warp": 1}), from_tables(tables(ins, cols), ins, {"lane": 3, "warp": 1})
(3, 3)
>>> direct(ins, cols, {"lane": 4})
Traceback (most recent call last):
...
linlayout.errors.SizeError: lane = 4 is outside its size 4

API: :func:`direct`, :func:`tables`, :func:`from_tables`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import DimensionError, SizeError
from . import f2
from .dims import Columns, DimSpec, as_int

__all__ = ["direct", "tables", "from_tables"]

Tables = dict[str, tuple[int, Any, list[list[int]]]]
"""Per input dimension: (bits, the single table or None, the per-chunk tables)."""


def _unknown(name: str, ins: DimSpec) -> DimensionError:
    return DimensionError(f"no input dimension {name!r}; the layout has {[n for n, _ in ins]}")


def _value(name: str, v: Any, b: int) -> int:
    """The input value ``v`` of ``name`` (``b`` bits) as an int in range, or the error."""
    if type(v) is not int:
        v = as_int(v, f"value of {name!r}")
    if v < 0 or v >> b:
        raise SizeError(f"{name} = {v} is outside its size {1 << b}")
    return v


def direct(ins: DimSpec, cols: Columns, inputs: Mapping[str, Any]) -> int:
    """The flat output at ``inputs`` (missing dimensions are 0), XORing the bases of the set bits."""
    acc = 0
    i = 0
    for name, v in inputs.items():
        if i < len(ins) and ins[i][0] == name:  # inputs in the layout's order: no search
            b = ins[i][1]
        else:
            i = 0
            for n, b in ins:
                if n == name:
                    break
                i += 1
            else:
                raise _unknown(name, ins)
        if type(v) is not int or v < 0 or v >> b:
            v = _value(name, v, b)
        cl = cols[i]
        i += 1
        if v < 256:  # one lookup of the set bits (most inputs: a layout dimension has at most 8 bits)
            for k in _SET_BITS[v]:
                acc ^= cl[k]
            continue
        base = 0
        while v:
            for k in _SET_BITS[v & 255]:
                acc ^= cl[base + k]
            v >>= 8
            base += 8
    return acc


_SET_BITS = tuple(tuple(k for k in range(8) if v >> k & 1) for v in range(256))
"""The indices of the set bits of every byte value."""


def tables(ins: DimSpec, cols: Columns) -> Tables:
    """Per input dimension, the XOR of every subset of its bases (one table, or one per 8-bit chunk)."""
    out: Tables = {}
    for (name, b), cl in zip(ins, cols):
        step = 12 if b <= 12 else 8
        chunks = [f2.subset_xors(cl[start : start + step]) for start in range(0, b, step)]
        out[name] = (b, chunks[0] if len(chunks) == 1 else None, chunks)
    return out


def from_tables(tabs: Tables, ins: DimSpec, inputs: Mapping[str, Any]) -> int:
    """:func:`direct` through the tables of :func:`tables`."""
    acc = 0
    for name, v in inputs.items():
        t = tabs.get(name)
        if t is None:
            raise _unknown(name, ins)
        b, tbl, chunks = t
        if type(v) is not int or v < 0 or v >> b:
            v = _value(name, v, b)
        if tbl is not None:
            acc ^= tbl[v]
        else:
            i = 0
            while v:
                acc ^= chunks[i][v & 255]
                v >>= 8
                i += 1
    return acc
