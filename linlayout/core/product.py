"""Products of layouts on flat layout data: composition, the direct product, division.

**Composition** ``outer ∘ inner`` (``inner.compose(outer)``) is the matrix
product ``M_outer · M_inner``: each column of ``inner`` (a flat output
value) is sent through ``outer``.  :func:`image_table` lists the image under
``outer`` of each bit of ``inner``'s flat output; :func:`compose_columns`
XORs, for every column, the images of its set bits.

The **product** ``A * B`` (Triton's ``operator*``) stacks two layouts as a
block-diagonal matrix: ``A`` takes the low bits of every dimension the two
share, ``B`` the bits above them.  With ``A`` the identity of 4 elements and
``B`` that of 2 on ``(x -> y)``, ``A * B`` is the identity of 8: ``B``'s bit
lands on bit 2 of both ``x`` and ``y``.

**Division** undoes it (paper Def. 4.4, Triton ``divideLeft``/``divideRight``):
``divide(A * B, A, left=True)`` is ``B`` and ``divide(A * B, B, left=False)``
is ``A``.  The divisor must sit in the layout as a diagonal block: for each
of its input dimensions the first (``left``) or last (right) bases of the
layout are the divisor's, and every other basis is zero on the divisor's
output bits.  The quotient keeps every dimension, with sizes divided.

These functions work on :data:`~linlayout.core.dims.FlatLayout` triples
``(in dims, out dims, columns)``, the data of a layout, and return one;
:class:`~linlayout.core.layout.LinearLayout` wraps them as ``*``,
``divide_left`` and ``divide_right``.  Moving ``B``'s fields into the
product's encoding and reading the divisor's and the quotient's fields out
of a basis are bit-field moves (:func:`~linlayout.core.dims.remap_bits`).

>>> i4 = ((("x", 2),), (("y", 2),), ((1, 2),))
>>> i2 = ((("x", 1),), (("y", 1),), ((1,),))
>>> product(i4, i2)
((('x', 3),), (('y', 3),), ((1, 2, 4),))
>>> divide(product(i4, i2), i4, left=True) == i2
True

API: :func:`image_table`, :func:`compose_columns`, :func:`product`, :func:`divide`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import DimensionError, DivisionError, SizeError
from .dims import Columns, DimSpec, FlatLayout, dim_offsets, recoder, remap_bits, unpack_flat

__all__ = ["image_table", "compose_columns", "product", "divide"]


def image_table(inner_outs: DimSpec, outer: FlatLayout) -> list[int]:
    """The image under ``outer`` of each bit of a flat value over ``inner_outs``.

    ``outer``'s input dimensions must be the names of ``inner_outs`` (any
    order), each at least as large (:class:`DimensionError`,
    :class:`SizeError` otherwise).

    >>> swap = ((("dim0", 1), ("dim1", 1)), (("x", 1), ("y", 1)), ((2,), (1,)))   # dim0 -> y, dim1 -> x
    >>> image_table((("dim1", 1), ("dim0", 1)), swap)
    [1, 2]
    """
    o_ins, _, o_cols = outer
    if {n for n, _ in inner_outs} != {n for n, _ in o_ins}:
        raise DimensionError(
            f"cannot compose: the inner layout's output dimensions {[n for n, _ in inner_outs]} must be "
            f"the outer layout's input dimensions {[n for n, _ in o_ins]}"
        )
    obits = dict(o_ins)
    for n, b in inner_outs:
        if b > obits[n]:
            raise SizeError(
                f"cannot compose: output {n!r} has size {1 << b} but the outer layout accepts only "
                f"{1 << obits[n]} values of {n!r}"
            )
    ocols = dict(zip((n for n, _ in o_ins), o_cols))
    img: list[int] = []
    for n, b in inner_outs:
        img.extend(ocols[n][:b])
    return img


def compose_columns(cols: Columns, img: Sequence[int]) -> Columns:
    """Send every column through a linear map given by the images of its bits (see :func:`image_table`).

    >>> compose_columns(((1, 2, 3),), [2, 1])
    ((2, 1, 3),)
    """
    new = []
    for cl in cols:
        nc = []
        for c in cl:
            acc = 0
            while c:
                low = c & -c
                acc ^= img[low.bit_length() - 1]
                c ^= low
            nc.append(acc)
        new.append(tuple(nc))
    return tuple(new)


def product(a: FlatLayout, b: FlatLayout) -> FlatLayout:
    """The product ``a * b``: ``a`` takes the low bits, ``b`` the bits above (block-diagonal).

    Input dimensions are the union (``a``'s first); a dimension in both gets
    ``a``'s bases followed by ``b``'s.  Output dimensions are the union; a
    shared one has size ``size_a * size_b`` and ``b``'s coordinates shift up
    by ``log2(size_a)``.

    >>> reg = ((("register", 1),), (("dim0", 1),), ((1,),))     # register -> dim0, 2 elements
    >>> lane = ((("lane", 1),), (("dim1", 1),), ((1,),))        # lane -> dim1, 2 elements
    >>> product(reg, lane)
    ((('register', 1), ('lane', 1)), (('dim0', 1), ('dim1', 1)), ((1,), (2,)))
    """
    a_ins, a_outs, a_cols = a
    b_ins, b_outs, b_cols = b
    a_bits = dict(a_outs)
    b_bits = dict(b_outs)
    outs = tuple([(n, k + b_bits.get(n, 0)) for n, k in a_outs] + [(n, k) for n, k in b_outs if n not in a_bits])
    rec_a = recoder(a_outs, outs)
    # b's coordinates move into the new encoding, above a's in shared dimensions.
    offs = dict(zip((n for n, _ in outs), dim_offsets(outs)))
    rec_b = remap_bits([(o, k, offs[n] + a_bits.get(n, 0)) for (n, k), o in zip(b_outs, dim_offsets(b_outs))])
    a_names = dict(a_ins)
    b_by_name = dict(zip((n for n, _ in b_ins), b_cols))
    ins = []
    cols = []
    for (n, k), ca in zip(a_ins, a_cols):
        if rec_a is not None:
            ca = tuple(rec_a(c) for c in ca)
        cb = b_by_name.get(n, ())
        ins.append((n, k + len(cb)))
        cols.append(ca + tuple(rec_b(c) for c in cb))
    for (n, k), cb in zip(b_ins, b_cols):
        if n not in a_names:
            ins.append((n, k))
            cols.append(tuple(rec_b(c) for c in cb))
    return tuple(ins), outs, tuple(cols)


def divide(a: FlatLayout, d: FlatLayout, *, left: bool) -> FlatLayout:
    """The quotient ``q`` with ``a == d * q`` (``left``) or ``a == q * d`` (right).

    Raises :class:`~linlayout.errors.DivisionError` naming the first
    obstacle: a divisor dimension the layout lacks or holds fewer bits of, a
    basis that differs from the divisor's, or a quotient basis that touches
    the divisor's output bits.

    >>> a = ((("register", 2),), (("dim0", 2),), ((1, 2),))
    >>> d = ((("register", 1),), (("dim0", 1),), ((1,),))
    >>> divide(a, d, left=True)
    ((('register', 1),), (('dim0', 1),), ((1,),))
    >>> divide(a, ((("register", 1),), (("dim0", 1),), ((0,),)), left=True)
    Traceback (most recent call last):
    ...
    linlayout.errors.DivisionError: divide_left: basis 0 of 'register' is (1,), but the divisor needs its basis 0 (0,) there and nothing else
    """
    a_ins, a_outs, a_cols = a
    d_ins, d_outs, d_cols = d
    side = "divide_left" if left else "divide_right"
    abits = dict(a_outs)
    for n, b in d_outs:
        if n not in abits:
            raise DivisionError(f"{side}: the divisor's output dimension {n!r} is not an output of the layout")
        if b > abits[n]:
            raise DivisionError(
                f"{side}: the divisor's output {n!r} has size {1 << b}, larger than the layout's {1 << abits[n]}"
            )
    dbits = dict(d_outs)
    ain = dict(a_ins)
    for n, b in d_ins:
        if b and n not in ain:
            raise DivisionError(f"{side}: the divisor's input dimension {n!r} is not an input of the layout")
        if b > ain.get(n, 0):
            raise DivisionError(
                f"{side}: the divisor's input {n!r} has size {1 << b}, larger than the layout's {1 << ain.get(n, 0)}"
            )
    # The quotient's output dimensions, in the layout's order, and the bit
    # fields of a flat value that hold the divisor part and the quotient part.
    q_outs = tuple((n, b - dbits.get(n, 0)) for n, b in a_outs)
    aoffs = dim_offsets(a_outs)
    doffs = dict(zip((n for n, _ in d_outs), dim_offsets(d_outs)))
    d_fields = []
    q_fields = []
    for (n, b), ao, qo, (_, qb) in zip(a_outs, aoffs, dim_offsets(q_outs), q_outs):
        db = dbits.get(n, 0)
        if left:  # divisor low, quotient high
            if n in doffs:
                d_fields.append((ao, db, doffs[n]))
            q_fields.append((ao + db, qb, qo))
        else:  # quotient low, divisor high
            q_fields.append((ao, qb, qo))
            if n in doffs:
                d_fields.append((ao + qb, db, doffs[n]))
    d_part = remap_bits(d_fields)
    q_part = remap_bits(q_fields)

    def basis(ins, outs, cols, n, j):
        return unpack_flat(cols[[m for m, _ in ins].index(n)][j], outs, dim_offsets(outs))

    dcols = dict(zip((n for n, _ in d_ins), d_cols))
    q_ins = []
    q_cols = []
    for (n, b), cols in zip(a_ins, a_cols):
        dc = dcols.get(n, ())
        k = len(dc)
        d_idx = range(k) if left else range(b - k, b)
        q_idx = range(k, b) if left else range(b - k)
        for i, j in enumerate(d_idx):
            v = cols[j]
            if q_part(v) != 0 or d_part(v) != dc[i]:
                raise DivisionError(
                    f"{side}: basis {j} of {n!r} is {basis(a_ins, a_outs, a_cols, n, j)}, but the divisor needs "
                    f"its basis {i} {basis(d_ins, d_outs, d_cols, n, i)} there and nothing else"
                )
        qc = []
        for j in q_idx:
            v = cols[j]
            if d_part(v) != 0:
                raise DivisionError(
                    f"{side}: basis {j} of {n!r} is {basis(a_ins, a_outs, a_cols, n, j)}, which touches the "
                    f"output bits the divisor occupies; the layout is not block-diagonal with the divisor"
                )
            qc.append(q_part(v))
        q_ins.append((n, b - k))
        q_cols.append(tuple(qc))
    return tuple(q_ins), q_outs, tuple(q_cols)
