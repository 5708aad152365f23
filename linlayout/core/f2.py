"""The F2 kernel: linear algebra over the field {0, 1} on Python ints.

Concepts
========

F2 is the field with two elements.  Addition is XOR and multiplication is
AND::

    +  | 0 1        *  | 0 1
    ---+----        ---+----
    0  | 0 1        0  | 0 0
    1  | 1 0        1  | 0 1

A **vector** of F2^n is a Python ``int``: bit ``i`` is coordinate ``i``.
Adding two vectors is ``a ^ b``; a vector has no size limit (a 200-bit vector is
just a larger int).  A **matrix** is a sequence of its columns, each an int, so
``cols[j]`` is the image of the unit vector ``1 << j``.  Applying a matrix to a
vector XORs the columns selected by the vector's set bits::

    cols = [0b011, 0b110]        # column 0 = (1,1,0), column 1 = (0,1,1)
    x    | M x
    -----+------
    0b00 | 0b000
    0b01 | 0b011
    0b10 | 0b110
    0b11 | 0b101                 # 0b011 ^ 0b110

A **span** (subspace) is given by any list of vectors that generate it; the
functions below return bases of spans as lists of ints.

Elimination keeps, for each vector added to a basis, the set of *original*
columns it is the XOR of (a "combination mask").  That single mechanism gives
rank, solving, inverses, null spaces and the reduced row echelon form.  When
columns are dependent, the **pivot columns** are the earliest independent ones
(column ``j`` is a pivot when it is not in the span of columns ``0..j-1``);
solutions returned by :func:`solve` use pivot columns only, i.e. every free
variable is set to 0.

Operations
==========

Each function states its contract; all of them raise :class:`NoSolutionError`
or :class:`NotInvertibleError` (both :class:`ValueError`) rather than
returning a wrong answer.

>>> rank([0b011, 0b110, 0b101])
2
>>> solve([0b011, 0b110], 0b101)
3
>>> inverse([0b01, 0b11])
[1, 3]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from ..errors import BasisError, NoSolutionError, NotInvertibleError

__all__ = [
    "Span",
    "Echelon",
    "echelon",
    "weight",
    "bit_indices",
    "single_bits",
    "apply",
    "matmul",
    "transpose",
    "rank",
    "basis",
    "is_independent",
    "in_span",
    "rref",
    "solve",
    "right_inverse",
    "inverse",
    "null_space",
    "intersection",
    "span_sum",
    "complement",
    "avoiding_subspace",
    "subset_xors",
    "to_numpy",
    "from_numpy",
]


def weight(v: int) -> int:
    """Number of set bits (Hamming weight) of ``v``.

    >>> weight(0b1011)
    3
    """
    return v.bit_count()


def single_bits(vectors: Sequence[int]) -> bool:
    """Whether every vector is zero or a unit vector (one set bit), as a compiler layout's columns are.

    Such vectors allow set operations where elimination is needed in general
    (the non-zero ones are independent exactly when they are distinct).

    >>> single_bits([1, 0, 8, 8]), single_bits([1, 6])
    (True, False)
    """
    return sum(map(int.bit_count, vectors)) == len(vectors) - vectors.count(0)


def bit_indices(v: int) -> Iterator[int]:
    """Yield the indices of the set bits of ``v``, lowest first.

    >>> list(bit_indices(0b10110))
    [1, 2, 4]
    """
    while v:
        low = v & -v
        yield low.bit_length() - 1
        v ^= low


def unit_vectors(v: int) -> list[int]:
    """The unit vectors of the set bits of ``v`` (``1 << i`` for each index of :func:`bit_indices`), lowest first.

    >>> unit_vectors(0b10110)
    [2, 4, 16]
    """
    out = []
    while v:
        low = v & -v
        out.append(low)
        v ^= low
    return out


def apply(cols: Sequence[int], x: int) -> int:
    """The matrix-vector product ``M x``: XOR of ``cols[j]`` for each set bit ``j`` of ``x``.

    Requirements: ``x`` has no set bit at or above ``len(cols)``.

    >>> apply([0b011, 0b110], 0b11)
    5
    """
    acc = 0
    j = 0
    while x:
        if x & 1:
            acc ^= cols[j]
        x >>= 1
        j += 1
    return acc


def matmul(a: Sequence[int], b: Sequence[int]) -> list[int]:
    """The product ``A B`` (apply ``B`` first, then ``A``) as a list of columns.

    Column ``j`` of the result is ``A`` applied to column ``j`` of ``B``.

    Requirements: no column of ``B`` has a set bit at or above ``len(a)``
    (``BasisError`` otherwise).

    Small products apply ``A`` to each column.  From 12 columns on, both
    matrices are packed into one big integer each (column ``k`` of ``B`` at bit
    ``k w``, ``w`` the widest column): row ``j`` of ``B`` is
    ``(B >> j) & (1 + 2^w + 2^2w + ...)``, and multiplying it by column ``j``
    of ``A`` writes a copy of that column into every slot whose bit is set,
    without carries because a column fits in its ``w``-bit slot; the XOR of
    these ``len(a)`` outer products is the whole product (about 4x faster
    on 64x64 matrices).

    >>> matmul([0b10, 0b01], [0b01, 0b11])   # swap rows of B
    [2, 3]
    >>> import random
    >>> rng = random.Random(0)
    >>> a = [rng.getrandbits(40) for _ in range(30)]
    >>> b = [rng.getrandbits(30) for _ in range(20)]
    >>> matmul(a, b) == [apply(a, c) for c in b]
    True
    """
    n = len(a)
    top = 0
    for c in b:
        top |= c
    if top >> n:
        raise BasisError(
            f"a column of the right factor has bit {top.bit_length() - 1} set but the left factor has only "
            f"{n} columns; the inner dimensions must agree"
        )
    p = len(b)
    if n < 12 or p < 12:
        return [apply(a, c) for c in b]
    w = max(max(x.bit_length() for x in a), top.bit_length(), 1)
    packed = 0
    for k, c in enumerate(b):
        packed |= c << (k * w)
    rep = int(("0" * (w - 1) + "1") * p, 2)
    acc = 0
    for j in range(top.bit_length()):  # rows of B at or above top.bit_length() are zero; j < w keeps slots apart
        aj = a[j]
        if aj:
            acc ^= aj * ((packed >> j) & rep)
    mask = (1 << w) - 1
    return [(acc >> (k * w)) & mask for k in range(p)]


def transpose(cols: Sequence[int], nrows: int) -> list[int]:
    """The transpose: ``nrows`` columns whose bit ``j`` is row ``i`` of column ``j``.

    >>> transpose([0b01, 0b11], 2)
    [3, 2]
    """
    out = [0] * nrows
    for j, c in enumerate(cols):
        bit = 1 << j
        for i in bit_indices(c):
            if i >= nrows:
                raise BasisError(
                    f"column {j} has bit {i} set but the matrix has {nrows} rows; "
                    f"pass a larger nrows or clear the bit"
                )
            out[i] |= bit
    return out


# ---------------------------------------------------------------------------
# An incrementally built span
# ---------------------------------------------------------------------------


class Span:
    """A subspace built one vector at a time: membership, dimension and an echelon basis.

    Each stored vector has a distinct leading (highest) bit; adding a vector
    reduces it by the stored ones and keeps the residue if it is not zero.

    >>> s = Span([0b011, 0b110])
    >>> s.add(0b101), s.add(0b100), len(s), 0b111 in s
    (False, True, 3, True)
    """

    __slots__ = ("lead",)

    def __init__(self, vectors: Iterable[int] = ()) -> None:
        self.lead: dict[int, int] = {}  # leading bit -> stored vector
        if vectors:  # an empty tuple or list: nothing to eliminate (a generator is always eliminated)
            self.extend(vectors)  # one loop, not a call of add per vector

    def reduce(self, v: int) -> int:
        """The residue of ``v`` after elimination: 0 exactly when ``v`` is in the span."""
        if v < 0:
            raise BasisError(f"{v} is negative; F2 vectors are non-negative ints")
        lead = self.lead
        while v:
            b = lead.get(v.bit_length() - 1)
            if b is None:
                return v
            v ^= b
        return 0

    def add(self, v: int) -> bool:
        """Add ``v``; True when the span grew (``v`` was not in it)."""
        if v < 0:  # a negative int has infinitely many set bits: elimination would never end
            raise BasisError(f"{v} is negative; F2 vectors are non-negative ints")
        lead = self.lead
        while v:
            h = v.bit_length() - 1
            b = lead.get(h)
            if b is None:
                lead[h] = v
                return True
            v ^= b
        return False

    def extend(self, vectors: Iterable[int]) -> int:
        """Add every vector of ``vectors``; how many made the span grow (as many as there are vectors exactly when
        they are independent, of each other and of the span).

        >>> s = Span([0b001])
        >>> s.extend([0b011, 0b010, 0b100]), len(s)
        (2, 3)
        """
        lead = self.lead
        grew = 0
        for v in vectors:
            if v < 0:
                raise BasisError(f"{v} is negative; F2 vectors are non-negative ints")
            while v:
                h = v.bit_length() - 1
                b = lead.get(h)
                if b is None:
                    lead[h] = v
                    grew += 1
                    break
                v ^= b
        return grew

    def copy(self) -> Span:
        """An independent copy (adding to it leaves this span as it is)."""
        out = Span()
        out.lead = dict(self.lead)
        return out

    def __contains__(self, v: int) -> bool:
        return self.reduce(v) == 0

    def __len__(self) -> int:
        return len(self.lead)


# ---------------------------------------------------------------------------
# Elimination with combination tracking
# ---------------------------------------------------------------------------


class Echelon:
    """An echelon basis keyed by leading (highest) bit, with combination masks (see :func:`echelon`).

    ``vec[h]`` is a basis vector with leading bit ``h``; ``combo[h]`` is the set
    of original columns (as a bit mask) whose XOR it is.
    """

    __slots__ = ("vec", "combo")

    def __init__(self) -> None:
        self.vec: dict[int, int] = {}
        self.combo: dict[int, int] = {}

    def reduce(self, v: int) -> tuple[int, int]:
        """Reduce ``v``; return (residue, mask) with v = residue ^ XOR(cols in mask)."""
        vec = self.vec
        combo = self.combo
        mask = 0
        while v:
            h = v.bit_length() - 1
            b = vec.get(h)
            if b is None:
                # Residue has a leading bit outside the basis: v is not in the span.
                # Keep reducing lower bits so the residue is canonical enough for
                # insertion (any leading bit not in the basis works).
                return v, mask
            v ^= b
            mask ^= combo[h]
        return 0, mask

    def insert(self, v: int, tag: int) -> int:
        """Insert ``v`` tagged with mask ``tag``; return 0 if added, else the null combination."""
        r, m = self.reduce(v)
        if r:
            h = r.bit_length() - 1
            self.vec[h] = r
            self.combo[h] = m ^ tag
            return 0
        return m ^ tag

    def span(self) -> Span:
        """The span of the basis as a :class:`Span` (the same vectors by leading bit: no elimination).

        >>> s = echelon([0b011, 0b110, 0b101])[0].span()
        >>> len(s), 0b101 in s, 0b100 in s
        (2, True, False)
        """
        out = Span()
        out.lead.update(self.vec)
        return out


def echelon(cols: Sequence[int]) -> tuple[Echelon, list[int], list[int]]:
    """Eliminate ``cols`` in order.  Return (echelon, pivot indices, null vectors).

    ``echelon.reduce(y)`` then gives ``(residue, mask)`` with ``y = residue ^
    XOR(cols[j] for j in mask)``: a zero residue means ``y`` is in the span and
    ``mask`` is the solution that uses pivot columns only.

    >>> ech, pivots, nulls = echelon([1, 2, 3])
    >>> pivots, nulls, ech.reduce(3)
    ([0, 1], [7], (0, 3))
    """
    ech = Echelon()
    vec = ech.vec
    combo = ech.combo
    pivots: list[int] = []
    nulls: list[int] = []
    for j, c in enumerate(cols):
        if c < 0:
            raise BasisError(f"column {j} is negative ({c}); F2 vectors are non-negative ints")
        m = 1 << j  # Echelon.insert(c, 1 << j), inline
        while c:
            h = c.bit_length() - 1
            b = vec.get(h)
            if b is None:
                vec[h] = c
                combo[h] = m
                pivots.append(j)
                break
            c ^= b
            m ^= combo[h]
        else:
            nulls.append(m)
    return ech, pivots, nulls


def rank(vectors: Iterable[int]) -> int:
    """Dimension of the span of ``vectors``.

    >>> rank([1, 2, 3])
    2
    >>> rank([])
    0
    """
    vs = set(vectors)
    vs.discard(0)
    if vs and min(vs) < 0:  # a negative int has infinitely many set bits: elimination would never end
        raise BasisError(f"{min(vs)} is negative; F2 vectors are non-negative ints")
    if sum(map(int.bit_count, vs)) == len(vs):
        return len(vs)  # distinct single-bit vectors (a distributed layout's bases) are independent
    return Span().extend(vs)


def basis(vectors: Iterable[int]) -> list[int]:
    """A reduced basis of ``span(vectors)``, sorted by leading bit, lowest first.

    "Reduced" means no basis vector has a set bit at another one's leading bit,
    so the result is the same for any generating list of the same span.

    >>> basis([0b110, 0b011, 0b101])
    [3, 5]
    """
    vec = Span(vectors).lead
    # Back-substitute so each leading bit appears in exactly one vector.
    lead = sorted(vec)
    for i, h in enumerate(lead):
        v = vec[h]
        for h2 in reversed(lead[:i]):
            if (v >> h2) & 1:
                v ^= vec[h2]
        vec[h] = v
    for i, h in enumerate(lead):
        bit = 1 << h
        for h3 in lead[i + 1 :]:
            if vec[h3] & bit:
                vec[h3] ^= vec[h]
    return [vec[h] for h in lead]


def is_independent(vectors: Sequence[int]) -> bool:
    """True when no non-empty subset of ``vectors`` XORs to 0 (zero vectors are dependent).

    >>> is_independent([1, 2]), is_independent([1, 2, 3]), is_independent([0])
    (True, False, False)
    """
    return rank(vectors) == len(vectors)


def in_span(v: int, vectors: Iterable[int]) -> bool:
    """True when ``v`` is a XOR of some of ``vectors`` (0 is always in the span).

    >>> in_span(0b101, [0b011, 0b110]), in_span(0b100, [0b011, 0b110])
    (True, False)
    """
    return v in Span(vectors)


def rref(cols: Sequence[int]) -> tuple[list[int], list[int]]:
    """Reduced row echelon form of the matrix with columns ``cols``.

    Returns ``(R, pivots)``: ``R`` as a list of columns and the pivot column
    indices.  Pivot column ``pivots[i]`` of ``R`` is the unit vector ``1 << i``;
    a non-pivot column is the combination of earlier pivot columns that
    reproduces it in the original matrix, written over rows ``0..rank-1``.

    >>> rref([0b011, 0b110, 0b101])
    ([1, 2, 3], [0, 1])
    """
    ech, pivots, _ = echelon(cols)
    row_of = {p: i for i, p in enumerate(pivots)}
    out = []
    for j, c in enumerate(cols):
        if j in row_of:
            out.append(1 << row_of[j])
            continue
        r, m = ech.reduce(c)
        # c depends on earlier columns only (it was not added), so r == 0.
        col = 0
        for k in bit_indices(m):
            col |= 1 << row_of[k]
        out.append(col)
    return out, pivots


def solve(cols: Sequence[int], y: int) -> int:
    """A solution ``x`` of ``M x = y`` with every free variable set to 0.

    The solution uses only pivot columns (the earliest independent columns).
    Raises :class:`NoSolutionError` when ``y`` is not in the span of the columns.

    >>> solve([0b001, 0b010, 0b011], 0b011)   # column 2 is free: x = 0b011, not 0b100
    3
    """
    ech, _, _ = echelon(cols)
    r, m = ech.reduce(y)
    if r:
        raise NoSolutionError(
            f"y = {y:#b} is not in the span of the {len(cols)} columns "
            f"(residue {r:#b}); the system M x = y has no solution"
        )
    return m


def right_inverse(cols: Sequence[int], nrows: int) -> list[int]:
    """A right inverse ``X`` (``M X = I``) of a surjective ``nrows``-row matrix.

    ``X`` has ``nrows`` columns; column ``i`` solves ``M x = 1 << i`` with free
    variables set to 0 (only pivot columns are used).  Raises
    :class:`NotInvertibleError` when ``M`` is not surjective.

    >>> right_inverse([0b01, 0b00, 0b10], 2)   # column 1 is zero (broadcast)
    [1, 4]
    """
    ech, _, _ = echelon(cols)
    out = []
    for i in range(nrows):
        r, m = ech.reduce(1 << i)
        if r:
            raise NotInvertibleError(
                f"the matrix is not surjective: row {i} (unit vector {1 << i:#b}) is not in "
                f"the span of its columns (rank {len(ech.vec)} < {nrows} rows)"
            )
        out.append(m)
    return out


def inverse(cols: Sequence[int]) -> list[int]:
    """The inverse of a square invertible matrix, as a list of columns.

    Raises :class:`NotInvertibleError` when the matrix is singular (naming a
    dependent column) or when a column has bits beyond the square size.

    >>> inverse([0b10, 0b01])
    [2, 1]
    >>> inverse([0b011, 0b110, 0b100])
    [7, 6, 4]
    """
    n = len(cols)
    # Eliminate by leading bit: vec[h] has leading bit h and is M combo[h].  Additions and subtractions
    # stand for shifts and XORs where they are equal (m + m = m << 1; v - b = v ^ b when bit b is set in v):
    # they are the integer operations CPython runs fastest.
    vec = [0] * n
    combo = [0] * n
    m = 1
    for c in cols:
        mj = m
        m += m
        h = c.bit_length() - 1
        if c <= 0 or h >= n:  # zero, negative or too wide: not invertible
            return _inverse_failure(cols)
        if not vec[h]:  # a new leading bit: nothing to eliminate
            vec[h] = c
            combo[h] = mj
            continue
        while c:
            h = c.bit_length() - 1
            v = vec[h]
            if not v:
                vec[h] = c
                combo[h] = mj
                break
            c ^= v
            mj ^= combo[h]
        else:
            return _inverse_failure(cols)
    # Back-substitution, lowest leading bit first: 1 << h = vec[h] ^ (its lower bits, already solved).
    bit = 1
    for h in range(n):
        low = vec[h] - bit
        bit += bit
        if low:
            mj = combo[h]
            while low:
                b = low & -low
                mj ^= combo[b.bit_length() - 1]
                low -= b
            combo[h] = mj
    return combo


def _inverse_failure(cols: Sequence[int]) -> list[int]:
    """Raise the :class:`NotInvertibleError` of :func:`inverse` for a matrix it could not invert."""
    n = len(cols)
    limit = 1 << n
    for j, c in enumerate(cols):
        if c >= limit or c < 0:
            raise NotInvertibleError(
                f"column {j} = {c:#b} does not fit in {n} rows; an {n}x{n} matrix "
                f"needs every column below {limit}"
            )
    ech, pivots, nulls = echelon(cols)
    idx = [j for j in bit_indices(nulls[0])]
    raise NotInvertibleError(
        f"the matrix is singular (rank {len(pivots)} < {n}): columns {idx} XOR to 0"
    )


def null_space(cols: Sequence[int]) -> list[int]:
    """A basis of ``{x : M x = 0}``; one vector per non-pivot column.

    >>> null_space([0b01, 0b10, 0b11])
    [7]
    """
    _, _, nulls = echelon(cols)
    return nulls


def span_sum(*spaces: Iterable[int]) -> list[int]:
    """A reduced basis of the sum ``U + V + ...`` of the given spans.

    >>> span_sum([1], [2], [3])
    [1, 2]
    """
    allv: list[int] = []
    for s in spaces:
        allv.extend(s)
    return basis(allv)


def intersection(u: Iterable[int], v: Iterable[int]) -> list[int]:
    """A reduced basis of ``span(u) ∩ span(v)`` (Zassenhaus' algorithm).

    >>> intersection([0b011, 0b100], [0b111, 0b010])
    [7]
    """
    ub = basis(u)
    vb = basis(v)
    if not ub or not vb:
        return []
    n = max(max(ub).bit_length(), max(vb).bit_length())
    # Rows (u | u) and (v | 0): after elimination by high bits, rows whose left
    # half vanished carry intersection vectors in their right half.
    ech: dict[int, int] = {}
    for w in [(x << n) | x for x in ub] + [x << n for x in vb]:
        while w:
            h = w.bit_length() - 1
            b = ech.get(h)
            if b is None:
                ech[h] = w
                break
            w ^= b
    low = [w for h, w in ech.items() if h < n]
    return basis(low)


def complement(u: Iterable[int], ambient: int | Iterable[int]) -> list[int]:
    """A basis ``C`` completing ``span(u)`` inside an ambient space.

    ``ambient`` is either ``n`` (the whole space F2^n) or a list of vectors
    spanning a subspace ``W``.  The result ``C`` lies in the ambient space,
    ``span(u) ∩ span(C) = 0`` and ``span(u) + span(C) = span(u) + ambient``.
    Candidates are taken in order (unit vectors ``1, 2, 4, ...`` for an int
    ambient), so the result is made of unit vectors whenever possible.

    For an int ambient no candidate is eliminated: the unit vector ``e_k`` is
    taken exactly when it is not in ``span(u) + span(e_0 .. e_(k-1))``, that is
    when no vector of ``span(u)`` has ``k`` as its highest bit, so the result
    is the unit vectors at no leading bit of ``u``'s echelon basis.

    >>> complement([0b011], 2)
    [1]
    >>> complement([0b011, 0b110], 3)
    [1]
    >>> complement([0b011], [0b011, 0b110])
    [6]
    >>> complement([], 3)
    [1, 2, 4]
    """
    if isinstance(ambient, int):
        leading = Span(u).lead if u else ()  # an empty list or tuple: nothing to eliminate
        return [1 << k for k in range(ambient) if k not in leading]
    span = Span(u)
    return [c for c in ambient if span.add(c)]


def avoiding_subspace(u: Iterable[int], v: Iterable[int], n: int) -> list[int]:
    """Lemma 9.5: a largest subspace of F2^n meeting ``span(u)`` and ``span(v)`` only in 0.

    Its dimension is ``n - max(dim U, dim V)``.  Construction: let
    ``I = U ∩ V``, ``E`` a complement of ``I`` in ``U`` and ``F`` a complement
    of ``I`` in ``V`` (true complements, not unit-vector shortcuts).  Pair
    ``G = {e_k ^ f_k}`` for ``k < min(|E|, |F|)`` and add ``C``, a complement of
    ``U + V`` in F2^n.  Then ``G ∪ C`` is the answer.

    >>> avoiding_subspace([0b0001, 0b0010], [0b0001, 0b0100, 0b1000], 4)
    [6]
    """
    ub = basis(u)
    vb = basis(v)
    for w in ub + vb:
        if w >> n:
            raise BasisError(f"vector {w:#b} does not fit in F2^{n}")
    inter = intersection(ub, vb)
    e = complement(inter, ub)
    f = complement(inter, vb)
    g = [a ^ b for a, b in zip(e, f)]
    c = complement(ub + vb, n)
    return g + c


def subset_xors(vectors: Sequence[int]) -> list[int]:
    """The XOR of every subset of ``vectors``, indexed by the subset's bit mask (``2**len`` entries).

    Entry ``m`` is the image of ``m`` under the matrix with columns
    ``vectors``: a lookup table for evaluating a linear map.

    >>> subset_xors([0b01, 0b11])
    [0, 1, 3, 2]
    """
    table = [0]
    for v in vectors:
        table += [x ^ v for x in table]
    return table


def to_numpy(cols: Sequence[int], nrows: int):  # -> numpy.ndarray
    """The matrix as a ``(nrows, len(cols))`` numpy array of 0/1 ``uint8``.

    >>> to_numpy([0b01, 0b11], 2).tolist()
    [[1, 1], [0, 1]]
    """
    import numpy as np

    out = np.zeros((nrows, len(cols)), dtype=np.uint8)
    for j, c in enumerate(cols):
        for i in bit_indices(c):
            if i >= nrows:
                raise BasisError(f"column {j} has bit {i} set but the matrix has {nrows} rows")
            out[i, j] = 1
    return out


def from_numpy(matrix) -> list[int]:
    """Columns (ints) of a 2-D array of 0/1 values (numpy, galois or nested lists).

    >>> from_numpy([[1, 1], [0, 1]])
    [1, 3]
    """
    import numpy as np

    try:
        a = np.asarray(matrix)
    except (ValueError, TypeError, OverflowError):
        raise BasisError("expected a rectangular 2-D 0/1 matrix (every row the same length)") from None
    if a.ndim != 2:
        raise BasisError(f"expected a 2-D 0/1 matrix, got an array of shape {a.shape}")
    if a.size and not np.isin(a, (0, 1)).all():
        raise BasisError("matrix entries must be 0 or 1 (elements of F2)")
    nrows, ncols = a.shape
    out = []
    for j in range(ncols):
        c = 0
        for i in range(nrows):
            if a[i, j]:
                c |= 1 << i
        out.append(c)
    return out
