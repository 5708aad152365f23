"""The F2 kernel against galois (an independent GF(2) implementation) and by brute force."""

from __future__ import annotations

import itertools
import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linlayout.core import f2
from linlayout.errors import BasisError, LinLayoutError, NoSolutionError, NotInvertibleError

from ..strategies import invertible_matrices, matrices
from ..conftest import examples


def GF2(array):
    """galois' GF(2) array of ``array``, the oracle (a test that needs it is skipped without galois)."""
    return pytest.importorskip("galois").GF2(array)


def gal(cols, nrows):
    return GF2(f2.to_numpy(cols, nrows))


def span_set(vectors):
    """All elements of span(vectors), by brute force."""
    s = {0}
    for v in vectors:
        s |= {x ^ v for x in s}
    return s


@given(matrices(max_rows=24, max_cols=24))
def test_rank_matches_galois(m):
    cols, nrows = m
    expected = int(np.linalg.matrix_rank(gal(cols, nrows))) if cols and nrows else 0
    assert f2.rank(cols) == expected


@given(matrices(max_rows=12, max_cols=12, min_rows=1, min_cols=1))
def test_rref_matches_galois(m):
    cols, nrows = m
    r, pivots = f2.rref(cols)
    ref = gal(cols, nrows).row_reduce()
    mine = f2.to_numpy(r, nrows)
    assert np.array_equal(np.asarray(ref), mine)
    # Pivots are the earliest independent columns.
    assert pivots == [j for j in range(len(cols)) if not f2.in_span(cols[j], cols[:j])]


@given(invertible_matrices(max_n=20, min_n=1))
def test_inverse_matches_galois(cols):
    n = len(cols)
    inv = f2.inverse(cols)
    assert np.array_equal(f2.to_numpy(inv, n), np.asarray(np.linalg.inv(gal(cols, n))))
    assert f2.matmul(cols, inv) == [1 << i for i in range(n)]


@given(matrices(max_rows=16, max_cols=16), matrices(max_rows=16, max_cols=16))
def test_matmul_matches_galois(a, b):
    acols, arows = a
    # Make the shapes compatible: B has len(acols) rows.
    bcols = [c & ((1 << len(acols)) - 1) for c in b[0]]
    prod = f2.matmul(acols, bcols)
    if arows and bcols:
        ref = gal(acols, arows) @ gal(bcols, len(acols))
        assert np.array_equal(f2.to_numpy(prod, arows), np.asarray(ref))
    assert all(p < (1 << arows) for p in prod)


@settings(max_examples=examples(100))
@given(st.integers(0, 80), st.integers(0, 80), st.integers(0, 80), st.randoms(use_true_random=False))
def test_matmul_packed_path_equals_columnwise_and_galois(m, n, p, rnd):
    """From 12x12 on, matmul packs both factors into big integers; sparse, dense and short columns."""
    density = rnd.choice(["sparse", "half", "dense"])

    def vec(bits: int) -> int:
        x = rnd.getrandbits(bits) if bits else 0
        if density == "sparse":
            return x & rnd.getrandbits(bits) & rnd.getrandbits(bits) & rnd.getrandbits(bits) if bits else 0
        if density == "dense":
            return x | rnd.getrandbits(bits) | rnd.getrandbits(bits) if bits else 0
        return x

    a = [vec(m) for _ in range(n)]
    top = rnd.randint(0, n)  # B may use fewer than n rows
    b = [vec(top) for _ in range(p)]
    prod = f2.matmul(a, b)
    assert prod == [f2.apply(a, c) for c in b]
    if m and n and p:
        ref = gal(a, m) @ gal(b, n)
        assert np.array_equal(f2.to_numpy(prod, m), np.asarray(ref))


def test_matmul_rejects_mismatched_inner_dimension():
    with pytest.raises(BasisError, match="inner dimensions"):
        f2.matmul([1] * 20, [1 << 20] + [0] * 19)
    with pytest.raises(BasisError, match="inner dimensions"):
        f2.matmul([1, 2], [4])


@given(matrices(max_rows=14, max_cols=14), st.data())
def test_solve_and_null_space(m, data):
    cols, nrows = m
    x0 = data.draw(st.integers(0, (1 << len(cols)) - 1))
    y = f2.apply(cols, x0)
    x = f2.solve(cols, y)
    assert f2.apply(cols, x) == y
    _, pivots = f2.rref(cols)
    pivot_mask = sum(1 << p for p in pivots)
    assert x & ~pivot_mask == 0  # free variables are 0
    ns = f2.null_space(cols)
    assert len(ns) == len(cols) - f2.rank(cols)
    assert f2.is_independent(ns)
    assert all(f2.apply(cols, v) == 0 for v in ns)


def test_solve_raises_when_no_solution():
    with pytest.raises(NoSolutionError, match="not in the span"):
        f2.solve([0b01, 0b11], 0b100)


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(1, 7).flatmap(lambda n: st.lists(st.integers(-2, (2 << n) - 1), min_size=n, max_size=n)))
def test_inverse_of_any_square_matrix(cols):
    """The inverse, or the error of the first problem: a column that does not fit (the first one), else the
    dependent columns (by echelon), for square matrices with zero, negative and too wide columns."""
    n = len(cols)
    bad = [j for j, c in enumerate(cols) if not 0 <= c < 1 << n]
    if bad:
        with pytest.raises(NotInvertibleError, match=rf"^column {bad[0]} = .* does not fit in {n} rows"):
            f2.inverse(cols)
    elif f2.rank(cols) < n:
        idx = list(f2.bit_indices(f2.echelon(cols)[2][0]))
        with pytest.raises(NotInvertibleError, match=rf"columns {re.escape(str(idx))} XOR to 0$"):
            f2.inverse(cols)
    else:
        assert f2.matmul(cols, f2.inverse(cols)) == [1 << i for i in range(n)]


def test_inverse_raises_on_singular_and_names_columns():
    with pytest.raises(NotInvertibleError, match=r"columns \[0, 1, 2\] XOR to 0"):
        f2.inverse([0b011, 0b110, 0b101])
    with pytest.raises(NotInvertibleError, match="does not fit"):
        f2.inverse([0b100, 0b1])


@given(matrices(max_rows=12, max_cols=10), matrices(max_rows=12, max_cols=10))
def test_intersection_sum_complement(a, b):
    u, _ = a
    v, _ = b
    n = max([x.bit_length() for x in u + v] + [1])
    su, sv = span_set(u), span_set(v)
    inter = f2.intersection(u, v)
    assert span_set(inter) == su & sv
    total = f2.span_sum(u, v)
    assert span_set(total) == span_set(u + v)
    assert len(inter) == f2.rank(u) + f2.rank(v) - len(total)
    c = f2.complement(u, n)
    assert f2.rank(u + c) == n and len(c) == n - f2.rank(u)
    # Relative complement inside span(u + v).
    c2 = f2.complement(u, u + v)
    assert span_set(u + c2) == span_set(u + v)
    assert span_set(c2) & su == {0}


def test_complement_prefers_unit_vectors():
    assert f2.complement([0b0011, 0b0101], 4) == [1, 8]


def test_complement_into_the_whole_space_is_the_greedy_choice_of_unit_vectors():
    """``complement(u, n)`` reads its unit vectors off the leading bits of ``u``'s echelon basis; that is the choice of
    trying ``1, 2, 4, ...`` in order and keeping each that grows the span."""
    rng = random.Random(11)
    for _ in range(400):
        n = rng.randint(0, 7)
        u = [rng.choice([0, 1 << rng.randrange(max(n, 1)), rng.randrange(1 << n)]) for _ in range(rng.randint(0, n))]
        grown = f2.Span(u)
        assert f2.complement(u, n) == [1 << k for k in range(n) if grown.add(1 << k)]


def _all_subspaces(n):
    """Every subspace of F2^n as (basis, element bitmask over 2^n elements)."""
    seen = {}
    for k in range(n + 1):
        for gens in itertools.combinations(range(1, 1 << n), k):
            if not f2.is_independent(list(gens)):
                continue
            elems = span_set(gens)
            key = sum(1 << e for e in elems)
            seen.setdefault(key, list(gens))
    return [(b, key) for key, b in seen.items()]


@pytest.mark.parametrize("n", [3, 4])
def test_lemma_9_5_exhaustive(n):
    """For every pair of subspaces of F2^n: the construction avoids both and is largest."""
    subs = _all_subspaces(n)
    masks = [m for _, m in subs]
    dims = [len(b) for b, _ in subs]
    for bu, mu in subs:
        for bv, mv in subs:
            w = f2.avoiding_subspace(bu, bv, n)
            expect = n - max(len(bu), len(bv))
            assert len(w) == expect and f2.is_independent(w)
            mw = sum(1 << e for e in span_set(w))
            assert mw & mu == 1 and mw & mv == 1
            if n == 3:  # brute-force maximum over every subspace
                best = max(d for d, m in zip(dims, masks) if m & mu == 1 and m & mv == 1)
                assert best == expect


def test_lemma_9_5_paper_instance():
    # d = 4, U = <e0, e1>, V = <e0, e2, e3>: dimension 1, e.g. {e1 ^ e2}.
    w = f2.avoiding_subspace([1, 2], [1, 4, 8], 4)
    assert len(w) == 1
    assert not f2.in_span(w[0], [1, 2]) and not f2.in_span(w[0], [1, 4, 8])


@pytest.mark.parametrize("n", [64, 200])
def test_large_problems(n):
    rng = random.Random(n)
    # A random invertible n x n matrix: a random lower-unitriangular times a permutation.
    perm = list(range(n))
    rng.shuffle(perm)
    cols = [(1 << p) for p in perm]
    for _ in range(4 * n):
        i, j = rng.randrange(n), rng.randrange(n)
        if i != j:
            cols[i] ^= cols[j]
    inv = f2.inverse(cols)
    assert f2.matmul(cols, inv) == [1 << i for i in range(n)]
    assert f2.rank(cols) == n
    y = rng.getrandbits(n)
    assert f2.apply(cols, f2.solve(cols, y)) == y
    # Rank-deficient: drop a column, the null space of a doubled column set.
    dup = cols + [cols[0] ^ cols[1]]
    assert f2.null_space(dup) == [(1 << n) | 0b11]
    u = [rng.getrandbits(n) for _ in range(n // 2)]
    v = [rng.getrandbits(n) for _ in range(n // 2)]
    w = f2.avoiding_subspace(u, v, n)
    assert len(w) == n - max(f2.rank(u), f2.rank(v))
    assert f2.rank(w + u) == len(w) + f2.rank(u)
    assert f2.rank(w + v) == len(w) + f2.rank(v)


def test_to_from_numpy_round_trip_and_errors():
    cols = [0b101, 0b010]
    a = f2.to_numpy(cols, 3)
    assert f2.from_numpy(a) == cols
    assert f2.from_numpy(GF2(a)) == cols
    with pytest.raises(BasisError):
        f2.from_numpy([[2, 0]])
    with pytest.raises(BasisError):
        f2.from_numpy([1, 0])
    with pytest.raises(BasisError):
        f2.to_numpy([0b100], 2)
    with pytest.raises(LinLayoutError):
        f2.transpose([0b100], 2)


@settings(max_examples=examples(50))
@given(matrices(max_rows=10, max_cols=10))
def test_transpose_involution(m):
    cols, nrows = m
    t = f2.transpose(cols, nrows)
    assert f2.transpose(t, len(cols)) == cols
    assert f2.rank(t) == f2.rank(cols)


@pytest.mark.parametrize("vectors", [[14, 8, -3, -10], [-3, 11, -15, -2], [-1], [5, -4]])
def test_negative_vectors_are_refused_not_looped_on(vectors):
    """A negative int has infinitely many set bits; rank and basis used to eliminate forever on some."""
    from linlayout.errors import BasisError

    with pytest.raises(BasisError, match="negative"):
        f2.rank(vectors)
    with pytest.raises(BasisError, match="negative"):
        f2.basis(vectors)
    with pytest.raises(BasisError, match="negative"):
        f2.Span([1]).reduce(-2)
