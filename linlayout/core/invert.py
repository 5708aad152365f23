"""Inverses of layouts over F2, on flat layout data.

A layout ``L`` maps inputs to outputs; undoing it takes Gaussian
elimination over F2 (:mod:`linlayout.core.f2`):

* :func:`inverse`: the inverse of a bijection (square, full rank), with
  the output dimensions as inputs: ``L⁻¹(L(x)) = x``.
* :func:`right_inverse`: for a surjective ``L``, a map ``R`` with
  ``L(R(y)) = y``, using only the earliest independent bases (broadcast bits
  stay 0).
* :func:`invert_and_compose`: for two layouts onto the same tensor, the map
  ``C`` from the inner layout's inputs to the outer layout's inputs with
  ``inner(x) = outer(C(x))`` (registers to memory offsets, say).

For the 1-D "transpose" ``offset -> dim0`` with bases ``[4, 8, 1, 2]`` the
inverse has bases ``[4, 8, 1, 2]`` too (swapping the two halves twice is
the identity):

>>> inverse(((("offset", 4),), (("dim0", 4),), ((4, 8, 1, 2),)))
((('dim0', 4),), (('offset', 4),), ((4, 8, 1, 2),))

These functions take and return :data:`~linlayout.core.dims.FlatLayout`
triples; :class:`~linlayout.core.layout.LinearLayout` wraps them as
``invert``, ``pseudo_invert`` and ``invert_and_compose``.  Errors name the
bases at fault (:class:`~linlayout.errors.NotInvertibleError`,
:class:`~linlayout.errors.NoSolutionError`).

API: :func:`inverse`, :func:`right_inverse`, :func:`invert_and_compose`.
"""

from __future__ import annotations

from ..errors import DimensionError, NoSolutionError, NotInvertibleError
from . import f2
from .dims import DimSpec, FlatLayout, dim_offsets, recoder, split_columns, unpack_flat

__all__ = ["inverse", "right_inverse", "invert_and_compose"]


def _columns(cols) -> list[int]:
    return [c for cl in cols for c in cl]


def inverse(layout: FlatLayout) -> FlatLayout:
    """The inverse of an invertible layout: its output dimensions become the inputs.

    Raises :class:`NotInvertibleError` when the numbers of input and output
    bits differ, or naming bases that XOR to zero.

    >>> inverse(((("x", 2),), (("y", 2),), ((1, 1),)))
    Traceback (most recent call last):
    ...
    linlayout.errors.NotInvertibleError: cannot invert: the bases x[0] ^ x[1] XOR to zero (the layout is not injective)
    """
    ins, outs, cols = layout
    nin, nout = sum(b for _, b in ins), sum(b for _, b in outs)
    if nin != nout:
        raise NotInvertibleError(
            f"cannot invert: the layout has {nin} input bits and {nout} output bits "
            f"(sizes {1 << nin} -> {1 << nout}); only a square bijection "
            f"has an inverse (use pseudo_invert for a surjective layout)"
        )
    flat = _columns(cols)
    try:
        inv = f2.inverse(flat)
    except NotInvertibleError as e:
        raise NotInvertibleError(f"cannot invert: {_describe_dependency(ins, flat, nout)}") from e
    return outs, ins, split_columns(inv, outs)


def _describe_dependency(ins: DimSpec, flat: list[int], nout: int) -> str:
    nulls = f2.null_space(flat)
    if not nulls:
        return f"rank {f2.rank(flat)} < {nout} output bits (not surjective)"
    return "the bases " + " ^ ".join(_name_of_bit(ins, j) for j in f2.bit_indices(nulls[0])) + \
        " XOR to zero (the layout is not injective)"


def _name_of_bit(ins: DimSpec, j: int) -> str:
    for n, b in ins:
        if j < b:
            return f"{n}[{j}]"
        j -= b
    return f"bit {j}"  # pragma: no cover


def right_inverse(layout: FlatLayout) -> FlatLayout:
    """A right inverse of a surjective layout, free variables set to 0.

    Raises :class:`NotInvertibleError` when the layout is not surjective.

    >>> right_inverse(((("register", 3),), (("dim0", 2),), ((1, 0, 2),)))
    ((('dim0', 2),), (('register', 3),), ((1, 4),))
    """
    ins, outs, cols = layout
    nout = sum(b for _, b in outs)
    flat = _columns(cols)
    try:
        x = f2.right_inverse(flat, nout)
    except NotInvertibleError:
        raise NotInvertibleError(
            f"cannot pseudo-invert: the layout is not surjective (rank {f2.rank(flat)} < "
            f"{nout} output bits); some tensor elements have no preimage"
        ) from None
    return outs, ins, split_columns(x, outs)


def invert_and_compose(inner: FlatLayout, outer: FlatLayout) -> FlatLayout:
    """The layout ``C`` with ``inner(x) = outer(C(x))``, from ``inner``'s inputs to ``outer``'s.

    A bit with the same image in both layouts (same input dimension and
    index, a broadcast zero included) maps to itself; the others are solved
    with free variables set to 0.  Raises :class:`DimensionError` when the
    output dimension names differ and :class:`NoSolutionError` naming a
    basis of ``inner`` that ``outer`` never produces.

    >>> reg = ((("register", 1), ("lane", 1)), (("dim0", 1), ("dim1", 1)), ((2,), (1,)))
    >>> mem = ((("offset", 2),), (("dim0", 1), ("dim1", 1)), ((1, 2),))
    >>> invert_and_compose(reg, mem)
    ((('register', 1), ('lane', 1)), (('offset', 2),), ((2,), (1,)))
    """
    ins, outs, cols = inner
    o_ins, o_outs, o_cols = outer
    if {n for n, _ in outs} != {n for n, _ in o_outs}:
        raise DimensionError(
            f"invert_and_compose needs the same output dimensions on both sides, got "
            f"{[n for n, _ in outs]} and {[n for n, _ in o_outs]}"
        )
    rec = recoder(outs, o_outs)
    ocols = _columns(o_cols)
    ech = f2.echelon(ocols)[0]
    obase = {}
    j = 0
    for n, b in o_ins:
        obase[n] = (j, b)
        j += b
    new = []
    for (n, b), cl in zip(ins, cols):
        ent = obase.get(n)
        out = []
        for k, c in enumerate(cl):
            t = c if rec is None else rec(c)
            if ent is not None and k < ent[1] and ocols[ent[0] + k] == t:
                out.append(1 << (ent[0] + k))
                continue
            r, m = ech.reduce(t)
            if r:
                raise NoSolutionError(
                    f"invert_and_compose: {n}[{k}] maps to {unpack_flat(c, outs, dim_offsets(outs))}, which the "
                    f"outer layout never produces; the outer layout must cover the inner layout's image"
                )
            out.append(m)
        new.append(tuple(out))
    return ins, o_ins, tuple(new)
