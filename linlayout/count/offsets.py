"""The element offsets of a distributed layout in a memory layout: ``C = M⁻¹ ∘ L``.

:func:`element_offsets` gives, for every input basis of ``L``, the memory offset ``C`` sends it to; it is what
the access plan (:mod:`linlayout.count.plan`) starts from.  The common case (both layouts onto the same output
dimensions, a square memory) goes through the memory's flat inverse columns, cached on the memory, and the
layout's :func:`column_form`: :func:`offsets_through_inverse`.

>>> from linlayout.catalog.swizzles import unswizzled
>>> L = LinearLayout({"lane": [[0, 1], [1, 0]], "register": []}, {"dim0": 2, "dim1": 2})
>>> offsets_through_inverse(L, unswizzled([2, 2]))
{'lane': (1, 2), 'register': ()}
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from ..core import f2
from ..core.layout import LinearLayout
from ..core.memory import PaddedLayout
from ..errors import DimensionError, NotInvertibleError, SizeError
from .speed import FORM_KEY, INVERSE_KEY

__all__ = ["element_offsets", "offsets_through_inverse", "inverse_columns", "column_form"]


def element_offsets(layout: LinearLayout, memory: LinearLayout | PaddedLayout) -> dict[str, tuple[int, ...]]:
    """``C = M⁻¹ ∘ L`` as element offsets per input basis (a padded memory: its unpadded reference).

    >>> from linlayout.catalog.swizzles import unswizzled
    >>> L = LinearLayout({"lane": [[0, 1], [1, 0]]}, {"dim0": 2, "dim1": 2})
    >>> element_offsets(L, unswizzled([2, 2]))
    {'lane': (1, 2)}
    """
    if type(memory) is LinearLayout and type(layout) is LinearLayout:
        fast = offsets_through_inverse(layout, memory)
        if fast is not None:
            return fast
    if isinstance(memory, PaddedLayout):
        memory = memory.reference()
    if not isinstance(memory, LinearLayout):
        raise DimensionError(f"memory must be a LinearLayout or a padded layout, got {type(memory).__name__}")
    if memory.in_dims != ("offset",):
        raise DimensionError(f"a memory layout has one input dimension 'offset', got {list(memory.in_dims)}")
    if set(memory.out_dims) != set(layout.out_dims):
        raise DimensionError(
            f"the layout maps onto {list(layout.out_dims)} but the memory layout onto {list(memory.out_dims)}; "
            f"both must name the same tensor dimensions"
        )
    for n in layout.out_dims:
        if layout.out_size(n) > memory.out_size(n):
            raise SizeError(
                f"the layout reaches {n} up to {layout.out_size(n)} but the memory holds only {memory.out_size(n)}"
            )
    try:
        inv = memory.invert()
    except NotInvertibleError as e:
        raise NotInvertibleError(f"the memory layout must be invertible (one element per offset): {e}") from None
    C = layout.compose(inv)
    return {d: C.flat_bases(d) for d in layout.in_dims}




def offsets_through_inverse(layout: LinearLayout, memory: LinearLayout, form: tuple[Any, ...] | None = None
                            ) -> dict[str, tuple[int, ...]] | None:
    """:func:`element_offsets` when both layouts have the same output dimensions in the same order and sizes
    and the memory is square (the common case), through the flat inverse columns cached on the memory;
    None when that does not apply or the memory is not invertible (the general route then says why).
    ``form`` is the layout's :func:`column_form` when the caller has it."""
    if form is None:
        lmemo = layout.memo()
        form = lmemo.get(FORM_KEY)
        if form is None:
            form = lmemo[FORM_KEY] = column_form(layout)
    hit = inverse_columns(memory)
    if hit is None or form[0] != hit[0]:
        return None
    inv = hit[1]
    out = {}
    for d, kind, cols in form[1]:
        if kind == 2:
            out[d] = cols(inv)  # an itemgetter of the bases' bit indices
        elif kind == 1:
            out[d] = (inv[cols],)
        elif kind == 0:
            out[d] = ()
        else:
            vs = []
            for c in cols:
                acc = 0
                while c:
                    low = c & -c
                    acc ^= inv[low.bit_length() - 1]
                    c ^= low
                vs.append(acc)
            out[d] = tuple(vs)
    return out




def inverse_columns(memory: LinearLayout) -> tuple[Any, list[int]] | None:
    """``(the memory's output dimensions, its inverse as flat columns with 0 appended)`` for a square memory
    with one input dimension ``offset``, kept in the memory's memo (one inverse per memory object, whatever
    reads it); None when the memory is not square or not invertible (the general route says why).

    >>> inverse_columns(LinearLayout({"offset": [[0, 1], [1, 1]]}, {"dim0": 2, "dim1": 2}))
    ((('dim0', 1), ('dim1', 1)), [3, 1, 0])
    """
    memo = memory.memo()
    hit = memo.get(INVERSE_KEY)
    if hit is None:
        m_ins = memory.in_dim_bits
        if len(m_ins) != 1 or m_ins[0][0] != "offset" or m_ins[0][1] != memory.out_bits:  # not square
            return None
        try:
            inv = f2.inverse(memory.dim_columns[0])  # the one input dimension's columns, as stored
        except NotInvertibleError:
            return None
        inv.append(0)  # inv[-1]: the image of a zero basis
        hit = memo[INVERSE_KEY] = (memory.out_dim_bits, inv)
    return hit


def column_form(layout: LinearLayout) -> tuple[Any, list[tuple[str, int, Any]]]:
    """The layout's output dimensions and, per input dimension, how to send its bases through flat inverse columns (with the image 0 appended):
    ``(name, 0, None)`` for no bases, ``(name, 1, bit index)`` for one basis, ``(name, 2, itemgetter of bit
    indices)`` when every basis has at most one bit set (a zero basis is index -1), else ``(name, 3, bases)``."""
    form: list[tuple[str, int, Any]] = []
    for d, b in layout.in_dim_bits:
        cols = layout.flat_bases(d)
        bits = []
        for c in cols:
            if c & (c - 1):
                form.append((d, 3, cols))
                break
            bits.append(c.bit_length() - 1)
        else:
            form.append((d, 2, itemgetter(*bits)) if b >= 2 else (d, b, bits[0] if b else None))
    return layout.out_dim_bits, form
