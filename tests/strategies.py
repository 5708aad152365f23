"""Hypothesis strategies for F2 matrices and layouts."""

from __future__ import annotations

from functools import lru_cache

from hypothesis import strategies as st

from linlayout import LinearLayout

NAMES_IN = ["register", "lane", "warp", "block", "offset", "x"]
NAMES_OUT = ["dim0", "dim1", "dim2"]


@st.composite
def matrices(draw, max_rows: int = 16, max_cols: int = 16, min_rows: int = 0, min_cols: int = 0):
    """(columns, nrows) of a random F2 matrix."""
    nrows = draw(st.integers(min_rows, max_rows))
    ncols = draw(st.integers(min_cols, max_cols))
    cols = draw(st.lists(st.integers(0, (1 << nrows) - 1), min_size=ncols, max_size=ncols))
    return cols, nrows


@st.composite
def invertible_matrices(draw, max_n: int = 16, min_n: int = 0):
    """Columns of a random invertible n x n matrix (product of elementary operations)."""
    n = draw(st.integers(min_n, max_n))
    perm = draw(st.permutations(list(range(n))))
    cols = [1 << p for p in perm]
    for _ in range(draw(st.integers(0, 3 * n))):
        if n < 2:
            break
        i = draw(st.integers(0, n - 1))
        j = draw(st.integers(0, n - 1))
        if i != j:
            cols[i] ^= cols[j]
    return cols


@st.composite
def dims(draw, names, min_dims=1, max_dims=3, max_bits=4, min_bits=0):
    k = draw(st.integers(min_dims, max_dims))
    chosen = draw(st.permutations(names))[:k]
    return [(n, draw(st.integers(min_bits, max_bits))) for n in chosen]


@st.composite
def layouts(draw, in_dims=None, out_dims=None, max_in_bits=4, max_out_bits=4, kind="any"):
    """A random LinearLayout.

    kind: "any" (arbitrary bases), "distributed" (weight <= 1, distinct, surjective),
    "invertible" (square, bijective).
    """
    ins = in_dims if in_dims is not None else draw(dims(NAMES_IN, max_bits=max_in_bits))
    outs = out_dims if out_dims is not None else draw(dims(NAMES_OUT, max_bits=max_out_bits))
    nout = sum(b for _, b in outs)
    nin = sum(b for _, b in ins)
    if kind == "any":
        flat = draw(st.lists(st.integers(0, (1 << nout) - 1), min_size=nin, max_size=nin))
    elif kind == "invertible":
        # Reuse outs as the size reference; ins must have as many bits.
        assert nin == nout
        flat = draw(invertible_matrices(max_n=nout, min_n=nout))
    elif kind == "distributed":
        assert nin >= nout
        slots = draw(st.permutations(list(range(nin))))
        flat = [0] * nin
        for bit, slot in enumerate(slots[:nout]):
            flat[slot] = 1 << bit
    else:  # pragma: no cover
        raise ValueError(kind)
    offs = []
    o = 0
    for _, b in outs:
        offs.append(o)
        o += b
    bases = {}
    j = 0
    for n, b in ins:
        bl = []
        for _ in range(b):
            v = flat[j]
            j += 1
            bl.append([(v >> off) & ((1 << ob) - 1) for (_, ob), off in zip(outs, offs)])
        bases[n] = bl
    return LinearLayout(bases, {n: 1 << b for n, b in outs})


def aligned_value(draw, n: int, low: int) -> int:
    """A random offset with the low ``low`` bits clear: zero, a unit vector, or a mix."""
    if n <= low:
        return 0
    kind = draw(_ALIGNED_KINDS)
    if kind == "zero":
        return 0
    if kind == "unit":
        return 1 << draw(ints(low, n - 1))
    return draw(ints(1, (1 << (n - low)) - 1)) << low


_ALIGNED_KINDS = st.sampled_from(["zero", "unit", "unit", "mixed"])


def vector_registers(draw, n: int, k: int) -> list[int]:
    """Register offsets of a ``k``-element vector access: ``1, 2, ..., 2^(k-1)`` in random slots among up to three
    more registers, which point anywhere above the vector (:func:`aligned_value`)."""
    nreg = k + draw(ints(0, 3))
    regs = [0] * nreg
    slots = draw(st.permutations(list(range(nreg))))
    for i in range(k):
        regs[slots[i]] = 1 << i
    for s in slots[k:]:
        regs[s] = aligned_value(draw, n, k)
    return regs


def split_offset(v: int, r0: int) -> list[int]:
    """An ``n``-bit offset as a ``[dim0, dim1]`` coordinate, ``dim0`` the low ``r0`` bits."""
    return [v & ((1 << r0) - 1), v >> r0]


def access_layout(regs: list[int], lanes: list[int], warps: list[int], memory_columns: list[int], n: int,
                  r0: int) -> tuple[LinearLayout, LinearLayout]:
    """``(L, M)``: the memory ``M`` of the given offset columns over a ``2^r0 x 2^(n-r0)`` tile, and the distributed
    layout ``L = M o C`` whose hardware bits ``C`` sends to the given element offsets."""
    outs = {"dim0": 1 << r0, "dim1": 1 << (n - r0)}
    M = LinearLayout({"offset": [split_offset(c, r0) for c in memory_columns]}, outs)
    C = LinearLayout({"register": regs, "lane": lanes, "warp": warps}, {"offset": 1 << n})
    return C.compose(M), M


@lru_cache(maxsize=None)
def ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    """``st.integers(lo, hi)``, built once per range (building strategies inside composite draws is slow)."""
    return st.integers(lo, hi)


@lru_cache(maxsize=None)
def samples(values: tuple) -> st.SearchStrategy:
    """``st.sampled_from(values)``, built once per tuple of values."""
    return st.sampled_from(values)
