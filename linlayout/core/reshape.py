"""Changing a layout's dimensions, not its map: transpose, reshape, restrict, rename.

Every operation here keeps the linear map and changes how its inputs or
outputs are named and cut into dimensions.  Because a layout packs each
basis into one flat int with the first output dimension lowest
(:mod:`linlayout.core.dims`), some are free and some move bit fields:

* reordering the inputs (:func:`transpose_ins`) or cutting them anew
  (:func:`reshape_ins`) only regroups the columns;
* cutting the outputs anew (:func:`reshape_outs`) or renaming
  (:func:`rename`) leaves every column as it is;
* reordering the outputs (:func:`transpose_outs`) or dropping some
  (:func:`restrict`) moves bit fields (:func:`~linlayout.core.dims.recoder`,
  :func:`~linlayout.core.dims.remap_bits`).

>>> L = ((("lane", 2),), (("dim0", 1), ("dim1", 1)), ((1, 2),))   # lane -> (dim0, dim1), identity
>>> transpose_outs(L, ["dim1", "dim0"])
((('lane', 2),), (('dim1', 1), ('dim0', 1)), ((2, 1),))
>>> reshape_outs(L, {"flat": 4})
((('lane', 2),), (('flat', 2),), ((1, 2),))

The functions take and return :data:`~linlayout.core.dims.FlatLayout`
triples; :class:`~linlayout.core.layout.LinearLayout` wraps them as methods
of the same names (:func:`restrict` is ``sublayout``).  Bad arguments raise
:class:`~linlayout.errors.DimensionError` or :class:`~linlayout.errors.SizeError`.

API: :func:`transpose_ins`, :func:`transpose_outs`, :func:`reshape_ins`,
:func:`reshape_outs`, :func:`restrict`, :func:`rename`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ..errors import DimensionError, SizeError
from .dims import DimsLike, DimSpec, FlatLayout, check_name, dim_offsets, dims_with_sizes, recoder, remap_bits, split_columns
from .validate import check_mapping, check_names

__all__ = ["transpose_ins", "transpose_outs", "reshape_ins", "reshape_outs", "restrict", "rename"]


def _names(dims: DimSpec) -> list[str]:
    return [n for n, _ in dims]


def _check_known(dims: DimSpec, names: Iterable[str], side: str) -> None:
    known = _names(dims)
    for n in names:
        if n not in known:
            raise DimensionError(f"no {side} dimension {n!r}; the layout has {known}")


def transpose_ins(layout: FlatLayout, order: Sequence[str]) -> FlatLayout:
    """Reorder the input dimensions (``order`` lists every name once).

    >>> transpose_ins(((("a", 1), ("b", 1)), (("dim0", 2),), ((1,), (2,))), ["b", "a"])
    ((('b', 1), ('a', 1)), (('dim0', 2),), ((2,), (1,)))
    """
    ins, outs, cols = layout
    order = check_names(order, "transpose_ins's order")
    if sorted(order) != sorted(_names(ins)) or len(set(order)) != len(order):
        raise DimensionError(f"transpose_ins needs a permutation of {_names(ins)}, got {order}")
    idx = {n: i for i, (n, _) in enumerate(ins)}
    return tuple(ins[idx[n]] for n in order), outs, tuple(cols[idx[n]] for n in order)


def transpose_outs(layout: FlatLayout, order: Sequence[str]) -> FlatLayout:
    """Reorder the output dimensions (``order`` lists every name once); the columns are re-encoded."""
    ins, outs, cols = layout
    order = check_names(order, "transpose_outs's order")
    if sorted(order) != sorted(_names(outs)) or len(set(order)) != len(order):
        raise DimensionError(f"transpose_outs needs a permutation of {_names(outs)}, got {order}")
    bits = dict(outs)
    new = tuple((n, bits[n]) for n in order)
    rec = recoder(outs, new)
    if rec is None:
        return ins, new, cols
    return ins, new, tuple(tuple(rec(c) for c in cl) for cl in cols)


def reshape_ins(layout: FlatLayout, new_in_dims: DimsLike) -> FlatLayout:
    """Flatten the inputs (first dimension minor) and split them into ``new_in_dims`` (same total size).

    >>> reshape_ins(((("register", 2), ("lane", 1)), (("dim0", 3),), ((1, 2), (4,))), [("x", 2), ("y", 4)])
    ((('x', 1), ('y', 2)), (('dim0', 3),), ((1,), (2, 4)))
    """
    ins, outs, cols = layout
    new = dims_with_sizes(new_in_dims, "new_in_dims")
    total = sum(b for _, b in new)
    bits = sum(b for _, b in ins)
    if total != bits:
        raise SizeError(
            f"reshape_ins must keep the total input size {1 << bits}, "
            f"but the new dimensions hold {1 << total}"
        )
    return new, outs, split_columns([c for cl in cols for c in cl], new)


def reshape_outs(layout: FlatLayout, new_out_dims: DimsLike) -> FlatLayout:
    """Flatten the outputs (first dimension minor) and split them into ``new_out_dims`` (same total size)."""
    ins, outs, cols = layout
    new = dims_with_sizes(new_out_dims, "new_out_dims")
    total = sum(b for _, b in new)
    bits = sum(b for _, b in outs)
    if total != bits:
        raise SizeError(
            f"reshape_outs must keep the total output size {1 << bits}, "
            f"but the new dimensions hold {1 << total}"
        )
    return ins, new, cols


def restrict(layout: FlatLayout, in_dims: Iterable[str], out_dims: Iterable[str]) -> FlatLayout:
    """Keep some input and some output dimensions, in their original order; drop the others.

    >>> L = ((("register", 1), ("lane", 1)), (("dim0", 1), ("dim1", 1)), ((2,), (1,)))
    >>> restrict(L, ["lane"], ["dim0"])
    ((('lane', 1),), (('dim0', 1),), ((1,),))
    """
    ins, outs, cols = layout
    ins_keep = check_names(in_dims, "in_dims")
    outs_keep = check_names(out_dims, "out_dims")
    _check_known(ins, ins_keep, "input")
    _check_known(outs, outs_keep, "output")
    new_outs = tuple((n, b) for n, b in outs if n in outs_keep)
    offs = dict(zip(_names(outs), dim_offsets(outs)))
    keep = remap_bits([(offs[n], b, o) for (n, b), o in zip(new_outs, dim_offsets(new_outs))])
    new_ins = []
    new_cols = []
    for (n, b), cl in zip(ins, cols):
        if n in ins_keep:
            new_ins.append((n, b))
            new_cols.append(tuple(keep(c) for c in cl))
    return tuple(new_ins), new_outs, tuple(new_cols)


def rename(layout: FlatLayout, in_dims: Mapping[str, str] | None = None,
           out_dims: Mapping[str, str] | None = None) -> FlatLayout:
    """Rename dimensions (``{old: new}`` for inputs and for outputs); the columns are unchanged.

    >>> rename(((("lane", 2),), (("dim0", 2),), ((1, 2),)), {"lane": "offset"})
    ((('offset', 2),), (('dim0', 2),), ((1, 2),))
    """
    ins, outs, cols = layout
    in_map = dict(check_mapping(in_dims or {}, "in_dims (a mapping {old: new})"))
    out_map = dict(check_mapping(out_dims or {}, "out_dims (a mapping {old: new})"))
    _check_known(ins, in_map, "input")
    _check_known(outs, out_map, "output")
    new_ins = tuple((check_name(in_map.get(n, n), "input dimension"), b) for n, b in ins)
    new_outs = tuple((check_name(out_map.get(n, n), "output dimension"), b) for n, b in outs)
    if len({n for n, _ in new_ins}) != len(new_ins):
        raise DimensionError(f"renaming would give duplicate input dimensions {_names(new_ins)}")
    if len({n for n, _ in new_outs}) != len(new_outs):
        raise DimensionError(f"renaming would give duplicate output dimensions {_names(new_outs)}")
    return new_ins, new_outs, cols
