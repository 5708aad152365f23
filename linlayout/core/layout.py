"""Layout algebra: the :class:`LinearLayout` value type.

Concepts
========

A **linear layout** is a linear map over F2 from named *input dimensions*
(hardware indices such as ``register``, ``lane``, ``warp``, ``block``, or a
memory ``offset``) to named *output dimensions* (tensor coordinates such as
``dim0``, ``dim1``).  Every dimension has a power-of-two size, so an index is
a bit vector and the map is a binary matrix.

A layout is stored as its **bases**: ``bases[in_dim][k]`` is the image of the
input in which only bit ``k`` of ``in_dim`` is set, written as one int per
output dimension.  Any other input maps to the XOR of the bases of its set
bits.  For example, with ``lane`` bases ``[(1, 1), (2, 2)]`` and ``warp``
bases ``[(0, 1), (0, 2)]`` onto a 4x4 tensor (Triton's "2-D swizzle")::

    lane \\ warp |   0      1      2      3
    ------------+---------------------------
         0      | (0,0)  (0,1)  (0,2)  (0,3)
         1      | (1,1)  (1,0)  (1,3)  (1,2)
         2      | (2,2)  (2,3)  (2,0)  (2,1)
         3      | (3,3)  (3,2)  (3,1)  (3,0)

so ``L(lane=t, warp=w) = (t, w ^ t)``.

Dimension order is minor-to-major: the first input (output) dimension holds
the lowest bits when dimensions are flattened.  Order matters only for
:meth:`~LinearLayout.reshape_ins`, :meth:`~LinearLayout.reshape_outs`, the
``flatten_*`` methods, the matrix view and equality.

A layout is immutable and hashable.  Composition is matrix multiplication,
inversion is Gaussian elimination (:mod:`linlayout.f2`).

Argument order of composition
-----------------------------
``a.compose(b)`` applies ``a`` first and then ``b``: it is ``b ∘ a``, the map
``x ↦ b(a(x))`` (Triton's convention).  ``b @ a`` is the same layout written as
a matrix product.

Operations
==========

Every operation returns a new layout; see each method for its formal
statement, requirements and an example.

>>> L = LinearLayout({"lane": [[1, 1], [2, 2]], "warp": [[0, 1], [0, 2]]},
...                  {"dim0": 4, "dim1": 4})
>>> L.apply({"lane": 3, "warp": 1})
{'dim0': 3, 'dim1': 2}
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

from . import f2
from .dims import DimSpec, dim_offsets, log2_size
from ..errors import (
    BasisError,
    DimensionError,
    DivisionError,
    LinLayoutError,
    NoSolutionError,
    NotInvertibleError,
    SizeError,
)

__all__ = ["LinearLayout", "DimSpec", "log2_size", "dim_offsets"]

BasisLike = Union[int, Sequence[int]]
BasesLike = Union[Mapping[str, Sequence[BasisLike]], Sequence[tuple[str, Sequence[BasisLike]]]]
DimsLike = Union[Mapping[str, int], Sequence[tuple[str, int]], Sequence[str], None]


def _check_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name:
        raise DimensionError(f"{what} names must be non-empty strings, got {name!r}")
    return name


def _as_int(x: Any, what: str) -> int:
    if isinstance(x, bool):
        raise BasisError(f"{what} must be an int, got {x!r}")
    try:
        return operator.index(x)
    except TypeError:
        raise BasisError(f"{what} must be an int, got {x!r}") from None


def _pack(coords: Sequence[int], outs: DimSpec, offs: Sequence[int]) -> int:
    v = 0
    for c, o in zip(coords, offs):
        v |= c << o
    return v


def _unpack(v: int, outs: DimSpec, offs: Sequence[int]) -> tuple[int, ...]:
    return tuple((v >> o) & ((1 << b) - 1) for (_, b), o in zip(outs, offs))


def _recoder(src: DimSpec, dst: DimSpec):
    """A function re-encoding flat ints from ``src`` out-dims to ``dst`` out-dims.

    Dimensions are matched by name; each source dimension must exist in ``dst``
    with at least as many bits.  Returns ``None`` when the encodings coincide.
    """
    if src == dst:
        return None
    doff = dict(zip((n for n, _ in dst), dim_offsets(dst)))
    dbits = dict(dst)
    moves = []
    o = 0
    for name, b in src:
        if name not in doff:
            raise DimensionError(f"output dimension {name!r} has no counterpart among {[n for n, _ in dst]}")
        if b > dbits[name]:
            raise SizeError(
                f"output dimension {name!r} has size {1 << b} on one side but only "
                f"{1 << dbits[name]} on the other"
            )
        moves.append((o, (1 << b) - 1, doff[name]))
        o += b
    if all(s == d for s, _, d in moves):
        return None

    def rec(v: int) -> int:
        r = 0
        for s, m, d in moves:
            r |= ((v >> s) & m) << d
        return r

    return rec


def _parse_fast(bases: Any, out_dims: Any) -> tuple[DimSpec, DimSpec, tuple[tuple[int, ...], ...]] | None:
    """Parse the common form (dicts, lists of int lists, sizes given) quickly.

    Returns ``None`` whenever anything is unusual; the slow path then parses
    again and produces the precise error message.
    """
    if type(bases) is not dict or type(out_dims) is not dict:
        return None
    outs = []
    offs = []
    lims = []
    o = 0
    for n, sz in out_dims.items():
        if type(n) is not str or not n or type(sz) is not int or sz <= 0 or sz & (sz - 1):
            return None
        b = sz.bit_length() - 1
        outs.append((n, b))
        offs.append(o)
        lims.append(sz)
        o += b
    nout = len(outs)
    ins = []
    cols = []
    if nout == 2:
        o1 = offs[1]
        s0, s1 = lims
        for name, blist in bases.items():
            if type(name) is not str or not name:
                return None
            t = type(blist)
            if t is not list and t is not tuple:
                return None
            fl = []
            for bv in blist:
                tb = type(bv)
                if (tb is not list and tb is not tuple) or len(bv) != 2:
                    return None
                x, y = bv
                if type(x) is not int or type(y) is not int or not (0 <= x < s0) or not (0 <= y < s1):
                    return None
                fl.append(x | (y << o1))
            ins.append((name, len(fl)))
            cols.append(tuple(fl))
    else:
        for name, blist in bases.items():
            if type(name) is not str or not name:
                return None
            t = type(blist)
            if t is not list and t is not tuple:
                return None
            fl = []
            for bv in blist:
                tb = type(bv)
                if tb is int and nout == 1:
                    if not 0 <= bv < lims[0]:
                        return None
                    fl.append(bv)
                    continue
                if (tb is not list and tb is not tuple) or len(bv) != nout:
                    return None
                v = 0
                for x, off, lim in zip(bv, offs, lims):
                    if type(x) is not int or not 0 <= x < lim:
                        return None
                    v |= x << off
                fl.append(v)
            ins.append((name, len(fl)))
            cols.append(tuple(fl))
    return tuple(ins), tuple(outs), tuple(cols)


def _parse_slow(bases: Any, out_dims: Any) -> tuple[DimSpec, DimSpec, tuple[tuple[int, ...], ...]]:
    """Parse and validate every accepted input form, with precise error messages."""
    if isinstance(bases, Mapping):
        items = list(bases.items())
    else:
        try:
            items = [tuple(p) for p in bases]  # type: ignore[arg-type]
        except TypeError:
            raise BasisError(
                "bases must be a mapping {in_dim: [basis, ...]} or a sequence of "
                f"(in_dim, [basis, ...]) pairs, got {type(bases).__name__}"
            ) from None
        for p in items:
            if len(p) != 2:
                raise BasisError(f"each bases entry must be an (in_dim, [basis, ...]) pair, got {p!r}")
    seen: set[str] = set()
    for name, _ in items:
        _check_name(name, "input dimension")
        if name in seen:
            raise DimensionError(f"input dimension {name!r} appears twice; merge its bases into one list")
        seen.add(name)

    # Output dimension names and (optional) sizes.
    names: list[str] | None = None
    sizes: list[int | None] = []
    if out_dims is not None:
        if isinstance(out_dims, Mapping):
            pairs = list(out_dims.items())
        else:
            if isinstance(out_dims, (str, bytes)) or not isinstance(out_dims, Iterable):
                raise DimensionError(
                    f"out_dims must be a mapping {{name: size}} or a list of names or (name, size) pairs, "
                    f"got {out_dims!r}"
                )
            pairs = []
            for p in out_dims:
                if isinstance(p, str):
                    pairs.append((p, None))
                else:
                    try:
                        n_, s_ = p
                    except (TypeError, ValueError):
                        raise DimensionError(
                            f"each out_dims entry must be a name or a (name, size) pair, got {p!r}"
                        ) from None
                    pairs.append((n_, s_))
        names = []
        for n_, s_ in pairs:
            _check_name(n_, "output dimension")
            if n_ in names:
                raise DimensionError(f"output dimension {n_!r} appears twice in out_dims")
            names.append(n_)
            sizes.append(None if s_ is None else 1 << log2_size(s_, f"size of output dimension {n_!r}"))

    # Parse every basis into a tuple of ints, one per output dimension.
    parsed: list[tuple[str, list[tuple[int, ...]]]] = []
    nout = len(names) if names is not None else None
    for name, blist in items:
        if isinstance(blist, (str, bytes, Mapping)) or not isinstance(blist, Iterable):
            raise BasisError(f"bases of {name!r} must be a list of bases, got {blist!r}")
        rows = []
        for k, b in enumerate(blist):
            if isinstance(b, (str, bytes)):
                raise BasisError(f"basis {k} of {name!r} must be ints, got {b!r}")
            if isinstance(b, Iterable):
                coords = tuple(_as_int(x, f"entry of basis {k} of {name!r}") for x in b)
            else:
                coords = (_as_int(b, f"basis {k} of {name!r}"),)
                if nout is not None and nout != 1:
                    raise BasisError(
                        f"basis {k} of {name!r} is a plain int, but there are {nout} output "
                        f"dimensions; write it as a list of {nout} ints"
                    )
            if nout is None:
                nout = len(coords)
            if len(coords) != nout:
                raise BasisError(
                    f"basis {k} of {name!r} has {len(coords)} entries but there are {nout} output "
                    f"dimensions{'' if names is None else ' ' + str(names)}; give one int per output dimension"
                )
            for x in coords:
                if x < 0:
                    raise BasisError(f"basis {k} of {name!r} has a negative entry {x}; entries are bit vectors >= 0")
            rows.append(coords)
        parsed.append((name, rows))
    if names is None:
        names = [f"dim{i}" for i in range(nout or 0)]
        sizes = [None] * len(names)

    # Infer missing sizes and check ranges.
    outs = []
    for i, (n_, s_) in enumerate(zip(names, sizes)):
        top = 0
        for _, rows in parsed:
            for r in rows:
                top |= r[i]
        if s_ is None:
            outs.append((n_, top.bit_length()))
        else:
            b = s_.bit_length() - 1
            if top >> b:
                for iname, rows in parsed:
                    for k, r in enumerate(rows):
                        if r[i] >> b:
                            raise BasisError(
                                f"basis {k} of {iname!r} has {n_} = {r[i]}, outside the output size "
                                f"{s_}; enlarge {n_!r} to {1 << r[i].bit_length()} or fix the basis"
                            )
            outs.append((n_, b))
    outs_t = tuple(outs)
    offs = dim_offsets(outs_t)
    ins_t = tuple((n_, len(rows)) for n_, rows in parsed)
    cols_t = tuple(tuple(_pack(r, outs_t, offs) for r in rows) for _, rows in parsed)
    return ins_t, outs_t, cols_t


class LinearLayout:
    """A linear map over F2 from named input dimensions to named output dimensions.

    Summary: build a layout from its bases.

    Parameters
    ----------
    bases
        For each input dimension (in minor-to-major order), the list of its
        bases; basis ``k`` is the image of bit ``k`` of that input, one int
        per output dimension (a plain int is accepted when there is a single
        output dimension).  Either a mapping ``{name: [basis, ...]}`` or a
        sequence of ``(name, [basis, ...])`` pairs.  An input dimension of
        size 1 has an empty list.
    out_dims
        The output dimensions, minor to major: a mapping ``{name: size}``, a
        sequence of ``(name, size)`` pairs, or a sequence of names (sizes
        inferred).  ``None`` names them ``dim0, dim1, ...`` and infers sizes.
        An inferred size is the smallest power of two holding every basis.
    require_surjective
        Raise :class:`NotInvertibleError` unless every output element is hit.

    Requirements: sizes are powers of two; every basis has one non-negative
    entry per output dimension, smaller than that dimension's size; names are
    unique non-empty strings.  Violations raise a :class:`LinLayoutError`.

    Examples
    --------
    The paper's Layout A (§4.1) on a 16x16 tensor, flattened with ``j`` minor:

    >>> A = LinearLayout({"register": [1, 16], "lane": [2, 4, 8, 32, 64], "warp": [128]},
    ...                  {"flat": 256})
    >>> A.apply({"register": 1, "lane": 9})
    {'flat': 35}
    >>> divmod(35, 16)     # (i, j) = (2, 3)
    (2, 3)
    """

    __slots__ = ("_ins", "_outs", "_cols", "_cache", "_tab")

    # -- construction -----------------------------------------------------

    def __init__(self, bases: BasesLike, out_dims: DimsLike = None, *, require_surjective: bool = False) -> None:
        fast = _parse_fast(bases, out_dims)
        if fast is not None:
            _SET_INS(self, fast[0])
            _SET_OUTS(self, fast[1])
            _SET_COLS(self, fast[2])
        else:
            ins, outs, cols = _parse_slow(bases, out_dims)
            _SET_INS(self, ins)
            _SET_OUTS(self, outs)
            _SET_COLS(self, cols)
        if require_surjective and not self.is_surjective():
            raise NotInvertibleError(
                f"the layout is not surjective: rank {self.rank()} < {self.out_bits} output bits; "
                f"some tensor elements are never reached"
            )

    @classmethod
    def _make(cls, ins: DimSpec, outs: DimSpec, cols: tuple[tuple[int, ...], ...]) -> LinearLayout:
        """Internal constructor from already-validated flat data (no checks)."""
        self = _new(cls)
        _SET_INS(self, ins)
        _SET_OUTS(self, outs)
        _SET_COLS(self, cols)
        return self

    def _cached(self) -> dict[str, Any]:
        """Lazily created per-instance cache of derived data (tables, rank, hash)."""
        try:
            return self._cache
        except AttributeError:
            c: dict[str, Any] = {}
            _SET_CACHE(self, c)
            return c

    @classmethod
    def from_flat(cls, in_dims: DimSpec, out_dims: DimSpec, columns: Sequence[Sequence[int]], *,
                  check: bool = True) -> LinearLayout:
        """Build a layout from flat data: ``(name, log2 size)`` pairs and flat basis images.

        ``columns[i][k]`` is the image of bit ``k`` of input dimension ``i``
        as one flat int (output dimensions packed minor first, see
        :meth:`out_flat`).  This is the fast path for code that already
        works on flat ints (the synthesizer, the catalogue); ``check=False``
        skips validation and must only be used on data built from valid
        layouts.

        >>> LinearLayout.from_flat((("offset", 2),), (("dim0", 1), ("dim1", 1)), [(2, 1)]).bases
        {'offset': [(0, 1), (1, 0)]}
        """
        ins = tuple((str(n), int(b)) for n, b in in_dims)
        outs = tuple((str(n), int(b)) for n, b in out_dims)
        cols = tuple(tuple(int(v) for v in c) for c in columns)
        if check:
            limit = 1 << sum(b for _, b in outs)
            if len(cols) != len(ins) or any(len(c) != b for c, (_, b) in zip(cols, ins)):
                raise BasisError("from_flat: one column per input bit is needed, for every input dimension")
            for (n, _), c in zip(ins, cols):
                for k, v in enumerate(c):
                    if not 0 <= v < limit:
                        raise BasisError(f"from_flat: basis {k} of {n!r} is {v}, outside 0..{limit - 1}")
            for n, b in ins + outs:
                _check_name(n, "dimension")
                if b < 0:
                    raise SizeError(f"from_flat: dimension {n!r} has a negative bit count")
        return cls._make(ins, outs, cols)

    @property
    def in_dim_bits(self) -> DimSpec:
        """Input dimensions as ``(name, log2 size)`` pairs, minor to major."""
        return self._ins

    @property
    def out_dim_bits(self) -> DimSpec:
        """Output dimensions as ``(name, log2 size)`` pairs, minor to major."""
        return self._outs

    def memo(self) -> dict[str, Any]:
        """A per-layout dictionary for caching data derived from this (immutable) layout.

        Keys are chosen by the caller (use a tuple that starts with your
        module's name); the library stores lookup tables, ranks and the
        synthesizer's per-layout data here.
        """
        return self._cached()

    def out_coords(self, flat: int) -> dict[str, int]:
        """Split a flat output value into coordinates.

        >>> LinearLayout({"lane": [[1, 0]]}, {"dim0": 4, "dim1": 4}).out_coords(0b1101)
        {'dim0': 1, 'dim1': 3}
        """
        out = {}
        for n, b in self._outs:
            out[n] = flat & ((1 << b) - 1)
            flat >>= b
        return out

    def out_flat(self, coords: Mapping[str, int]) -> int:
        """Pack coordinates (missing dimensions are 0) into a flat output value; inverse of :meth:`out_coords`.

        >>> LinearLayout({"lane": [[1, 0]]}, {"dim0": 4, "dim1": 4}).out_flat({"dim0": 1, "dim1": 3})
        13
        """
        v = 0
        shift = 0
        for n, b in self._outs:
            v |= (coords.get(n, 0) & ((1 << b) - 1)) << shift
            shift += b
        return v

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("LinearLayout is immutable; use its methods to build a new layout")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("LinearLayout is immutable")

    def __reduce__(self):
        return (LinearLayout._make, (self._ins, self._outs, self._cols))

    @classmethod
    def empty(cls) -> LinearLayout:
        """The layout with no input and no output dimensions.

        It is the unit of the product ``*``.

        >>> LinearLayout.empty() * LinearLayout.identity(4, "i", "o") == LinearLayout.identity(4, "i", "o")
        True
        """
        return cls._make((), (), ())

    @classmethod
    def identity(cls, size: int, in_dim: str, out_dim: str) -> LinearLayout:
        """The 1-D identity of ``size`` elements: ``x ↦ x``.

        >>> LinearLayout.identity(8, "lane", "dim0").bases
        {'lane': [(1,), (2,), (4,)]}
        """
        b = log2_size(size, "identity size")
        _check_name(in_dim, "input dimension")
        _check_name(out_dim, "output dimension")
        return cls._make(((in_dim, b),), ((out_dim, b),), (tuple(1 << k for k in range(b)),))

    @classmethod
    def strided(cls, size: int, stride: int, in_dim: str, out_dim: str) -> LinearLayout:
        """The 1-D map ``x ↦ x * stride`` of ``size`` elements onto ``size * stride``.

        Requirements: ``size`` and ``stride`` are powers of two.

        >>> LinearLayout.strided(4, 8, "lane", "dim0").bases
        {'lane': [(8,), (16,)]}
        """
        b = log2_size(size, "strided size")
        s = log2_size(stride, "stride")
        _check_name(in_dim, "input dimension")
        _check_name(out_dim, "output dimension")
        return cls._make(((in_dim, b),), ((out_dim, b + s),), (tuple(1 << (k + s) for k in range(b)),))

    @classmethod
    def zeros(cls, size: int, in_dim: str, out_dim: str, out_size: int = 1) -> LinearLayout:
        """The 1-D map sending all ``size`` inputs to 0 (pure broadcast).

        >>> LinearLayout.zeros(4, "warp", "dim0").bases
        {'warp': [(0,), (0,)]}
        """
        b = log2_size(size, "zeros size")
        ob = log2_size(out_size, "zeros out_size")
        _check_name(in_dim, "input dimension")
        _check_name(out_dim, "output dimension")
        return cls._make(((in_dim, b),), ((out_dim, ob),), ((0,) * b,))

    @classmethod
    def from_matrix(cls, matrix: Any, in_dims: DimsLike, out_dims: DimsLike) -> LinearLayout:
        """Build a layout from a 0/1 matrix (numpy array, galois ``GF(2)`` array or nested lists).

        Rows are output bits and columns are input bits, each flattened minor
        to major over the given dimensions (mappings or ``(name, size)``
        pairs).  This is the inverse of :meth:`matrix`.

        >>> M = [[0, 1], [1, 0]]
        >>> LinearLayout.from_matrix(M, {"lane": 4}, {"dim0": 4}).bases
        {'lane': [(2,), (1,)]}
        """
        ins = _dims_with_sizes(in_dims, "in_dims")
        outs = _dims_with_sizes(out_dims, "out_dims")
        cols = f2.from_numpy(matrix)
        nin = sum(b for _, b in ins)
        nout = sum(b for _, b in outs)
        try:
            import numpy as np

            shape = np.asarray(matrix).shape
        except Exception:  # pragma: no cover - from_numpy already validated
            shape = (None, None)
        if shape != (nout, nin):
            raise SizeError(
                f"the matrix has shape {shape} but the dimensions need ({nout} output bits, {nin} input bits)"
            )
        out_cols = []
        j = 0
        for _, b in ins:
            out_cols.append(tuple(cols[j : j + b]))
            j += b
        return cls._make(ins, outs, tuple(out_cols))

    # -- basic queries ----------------------------------------------------

    @property
    def in_dims(self) -> tuple[str, ...]:
        """Input dimension names, minor to major."""
        return tuple(n for n, _ in self._ins)

    @property
    def out_dims(self) -> tuple[str, ...]:
        """Output dimension names, minor to major."""
        return tuple(n for n, _ in self._outs)

    @property
    def in_sizes(self) -> dict[str, int]:
        """``{in_dim: size}`` in order."""
        return {n: 1 << b for n, b in self._ins}

    @property
    def out_sizes(self) -> dict[str, int]:
        """``{out_dim: size}`` in order."""
        return {n: 1 << b for n, b in self._outs}

    def in_size(self, dim: str) -> int:
        """Size of one input dimension."""
        return 1 << self._in_bits(dim)

    def out_size(self, dim: str) -> int:
        """Size of one output dimension."""
        for n, b in self._outs:
            if n == dim:
                return 1 << b
        raise DimensionError(f"no output dimension {dim!r}; the layout has {list(self.out_dims)}")

    @property
    def in_bits(self) -> int:
        """Total number of input bits (log2 of the number of inputs)."""
        return sum(b for _, b in self._ins)

    @property
    def out_bits(self) -> int:
        """Total number of output bits (log2 of the number of tensor elements)."""
        return sum(b for _, b in self._outs)

    @property
    def total_in_size(self) -> int:
        """Number of inputs (product of input sizes)."""
        return 1 << self.in_bits

    @property
    def total_out_size(self) -> int:
        """Number of outputs (product of output sizes)."""
        return 1 << self.out_bits

    def _in_bits(self, dim: str) -> int:
        for n, b in self._ins:
            if n == dim:
                return b
        raise DimensionError(f"no input dimension {dim!r}; the layout has {list(self.in_dims)}")

    def _in_index(self, dim: str) -> int:
        for i, (n, _) in enumerate(self._ins):
            if n == dim:
                return i
        raise DimensionError(f"no input dimension {dim!r}; the layout has {list(self.in_dims)}")

    @property
    def bases(self) -> dict[str, list[tuple[int, ...]]]:
        """``{in_dim: [basis, ...]}``, each basis a tuple with one int per output dimension."""
        offs = dim_offsets(self._outs)
        return {n: [_unpack(c, self._outs, offs) for c in cols] for (n, _), cols in zip(self._ins, self._cols)}

    def basis(self, in_dim: str, k: int) -> tuple[int, ...]:
        """The image of bit ``k`` of ``in_dim`` (one int per output dimension)."""
        i = self._in_index(in_dim)
        if not 0 <= k < self._ins[i][1]:
            raise BasisError(f"{in_dim!r} has {self._ins[i][1]} bases; index {k} is out of range")
        return _unpack(self._cols[i][k], self._outs, dim_offsets(self._outs))

    def flat_bases(self, in_dim: str) -> tuple[int, ...]:
        """The bases of ``in_dim`` as flat ints (output dimensions concatenated, first lowest)."""
        return self._cols[self._in_index(in_dim)]

    def flat_columns(self) -> list[int]:
        """All bases as flat ints, input dimensions concatenated (the matrix columns)."""
        out: list[int] = []
        for c in self._cols:
            out.extend(c)
        return out

    # -- evaluation -------------------------------------------------------

    def _build_tab(self) -> tuple[dict[str, tuple[int, list[int] | None, list[list[int]]]], tuple]:
        """Lookup tables for :meth:`apply`: per input, all XOR combinations of its bases.

        A dimension of up to 12 bits gets one table indexed by its value;
        a larger one gets a table per 8-bit chunk.
        """
        tables = {}
        for (name, b), cols in zip(self._ins, self._cols):
            chunks = []
            for start in range(0, b, 12 if b <= 12 else 8):
                tbl = [0]
                for c in cols[start : start + (12 if b <= 12 else 8)]:
                    tbl += [x ^ c for x in tbl]
                chunks.append(tbl)
            tables[name] = (b, chunks[0] if len(chunks) == 1 else None, chunks)
        split = tuple((n, o, (1 << b) - 1) for (n, b), o in zip(self._outs, dim_offsets(self._outs)))
        tab = (tables, split)
        _SET_TAB(self, tab)
        return tab

    def apply_flat(self, inputs: Mapping[str, int]) -> int:
        """Like :meth:`apply` but return the output as one flat int (first output dim lowest)."""
        try:
            tables = self._tab[0]
        except AttributeError:
            tables = self._build_tab()[0]
        acc = 0
        for name, v in inputs.items():
            t = tables.get(name)
            if t is None:
                raise DimensionError(f"no input dimension {name!r}; the layout has {list(self.in_dims)}")
            b, tbl, chunks = t
            if type(v) is not int:
                v = _as_int(v, f"value of {name!r}")
            if v < 0 or v >> b:
                raise SizeError(f"{name} = {v} is outside its size {1 << b}")
            if tbl is not None:
                acc ^= tbl[v]
            else:
                i = 0
                while v:
                    acc ^= chunks[i][v & 255]
                    v >>= 8
                    i += 1
        return acc

    def apply(self, inputs: Mapping[str, int] | None = None, /, **kwargs: int) -> dict[str, int]:
        """Evaluate the layout: the output coordinates of one input.

        Formal: ``L(x) = XOR of bases[d][k] over every set bit k of x[d]``.
        Input dimensions left out are 0.  Raises :class:`DimensionError` for
        an unknown name and :class:`SizeError` for a value out of range.

        >>> L = LinearLayout({"lane": [[1, 1], [2, 2]], "warp": [[0, 1], [0, 2]]})
        >>> L.apply({"lane": 1, "warp": 1}), L.apply(lane=2, warp=3)
        ({'dim0': 1, 'dim1': 0}, {'dim0': 2, 'dim1': 1})
        """
        if inputs is None:
            inputs = kwargs
        elif kwargs:
            inputs = {**inputs, **kwargs}
        acc = self.apply_flat(inputs)
        return {n: (acc >> o) & m for n, o, m in self._tab[1]}

    __call__ = apply

    # -- rank and properties ----------------------------------------------

    def rank(self) -> int:
        """Rank of the matrix: log2 of the number of distinct outputs.

        >>> LinearLayout({"register": [1, 0, 2]}).rank()
        2
        """
        c = self._cached()
        r = c.get("rank")
        if r is None:
            r = c["rank"] = f2.rank(self.flat_columns())
        return r

    def is_surjective(self) -> bool:
        """True when every output element is the image of some input."""
        return self.rank() == self.out_bits

    def is_injective(self) -> bool:
        """True when distinct inputs give distinct outputs (no broadcast)."""
        return self.rank() == self.in_bits

    def is_invertible(self) -> bool:
        """True when the layout is a bijection (injective and surjective)."""
        return self.in_bits == self.out_bits == self.rank()

    def free_variable_masks(self) -> dict[str, int]:
        """Per input dimension, the mask of bits that never change the output.

        These are the broadcast bits: their basis is zero, so inputs that
        differ only there hold the same tensor element (duplicated data).
        (Triton's ``getFreeVariableMasks`` also counts bits whose basis is a
        XOR of earlier bases; this method counts only true broadcast bits.)

        >>> LinearLayout({"register": [1, 0, 2]}).free_variable_masks()
        {'register': 2}
        """
        out = {}
        for (n, _), cols in zip(self._ins, self._cols):
            m = 0
            for k, c in enumerate(cols):
                if c == 0:
                    m |= 1 << k
            out[n] = m
        return out

    def is_distributed(self) -> bool:
        """Paper Def. 4.10: surjective, every basis of weight <= 1, no two equal non-zero bases.

        >>> LinearLayout({"register": [2, 0], "lane": [1]}).is_distributed()
        True
        >>> LinearLayout({"register": [3], "lane": [1]}).is_distributed()
        False
        """
        cache = self._cached()
        r = cache.get("distributed")
        if r is None:
            r = True
            seen = set()
            for c in self.flat_columns():
                if c:
                    if c & (c - 1) or c in seen:
                        r = False
                        break
                    seen.add(c)
            r = cache["distributed"] = r and self.is_surjective()
        return r

    def is_memory_layout(self) -> bool:
        """Paper Def. 4.14: invertible and every basis of weight 1 or 2.

        >>> LinearLayout({"offset": [1, 2, 3]}, {"dim0": 8}).is_memory_layout()
        False
        >>> LinearLayout({"offset": [1, 2, 5]}, {"dim0": 8}).is_memory_layout()
        True
        """
        for c in self.flat_columns():
            if not 1 <= c.bit_count() <= 2:
                return False
        return self.is_invertible()

    # -- matrix views -----------------------------------------------------

    def matrix(self):  # -> numpy.ndarray
        """The matrix as a numpy ``uint8`` array: rows are output bits, columns input bits.

        Both are flattened minor to major (first dimension lowest).

        >>> LinearLayout({"lane": [2, 1]}, {"dim0": 4}).matrix().tolist()
        [[0, 1], [1, 0]]
        """
        return f2.to_numpy(self.flat_columns(), self.out_bits)

    def to_galois(self):  # -> galois.FieldArray
        """The matrix as a galois ``GF(2)`` array (imports galois on first use)."""
        import galois

        return galois.GF2(self.matrix())

    # -- equality ---------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinearLayout):
            return NotImplemented
        return self._ins == other._ins and self._outs == other._outs and self._cols == other._cols

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        c = self._cached()
        h = c.get("hash")
        if h is None:
            h = c["hash"] = hash((self._ins, self._outs, self._cols))
        return h

    def equivalent(self, other: LinearLayout) -> bool:
        """Equality ignoring the order of input and output dimensions.

        >>> a = LinearLayout({"x": [[1, 0]], "y": [[0, 1]]})
        >>> b = a.transpose_ins(["y", "x"])
        >>> a == b, a.equivalent(b)
        (False, True)
        """
        if set(self._ins) != set(other._ins) or set(self._outs) != set(other._outs):
            return False
        return self.transpose_ins(other.in_dims).transpose_outs(other.out_dims) == other

    # -- text -------------------------------------------------------------

    def __repr__(self) -> str:
        b = {n: [list(t) for t in v] for n, v in self.bases.items()}
        return f"LinearLayout({b!r}, {self.out_sizes!r})"

    def __str__(self) -> str:
        from .text import layout_text

        return layout_text(self)

    def grid(self, **kwargs: Any) -> str:
        """The tensor grid as text, each cell labelled with the input that owns it.

        See :func:`linlayout.core.text.grid_text` for the options.
        """
        from .text import grid_text

        return grid_text(self, **kwargs)

    # -- JSON -------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON interchange object: ``{"bases": {...}, "out_dims": {...}}``."""
        return {"bases": {n: [list(t) for t in v] for n, v in self.bases.items()}, "out_dims": self.out_sizes}

    def to_json(self, indent: int | None = None) -> str:
        """The layout as a JSON string (see README for the format).

        >>> LinearLayout({"lane": [[0, 1], [1, 0]]}, {"dim0": 2, "dim1": 2}).to_json()
        '{"bases": {"lane": [[0, 1], [1, 0]]}, "out_dims": {"dim0": 2, "dim1": 2}}'
        """
        import json

        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, source: str | bytes | Mapping[str, Any] | Sequence[Any]) -> LinearLayout:
        """Parse a layout from JSON text or an already-decoded object.

        Raises :class:`LayoutJSONError` (a :class:`ValueError`) on malformed input.

        >>> LinearLayout.from_json('{"bases": {"lane": [1, 2]}, "out_dims": {"dim0": 4}}').bases
        {'lane': [(1,), (2,)]}
        """
        from .bases import decode, parse_layout_object

        return cls(*parse_layout_object(decode(source, "layout"), "layout"))

    # -- algebra ----------------------------------------------------------

    def compose(self, outer: LinearLayout) -> LinearLayout:
        """Apply ``self`` first, then ``outer``: the layout ``outer ∘ self``.

        Formal: ``self.compose(outer)(x) = outer(self(x))``; as matrices it is
        ``M_outer · M_self``.  Same as ``outer @ self``.

        Requirements: ``outer``'s input dimensions have the same names as
        ``self``'s output dimensions (any order), each at least as large.

        >>> swap = LinearLayout({"dim0": [[0, 1]], "dim1": [[1, 0]]}, {"x": 2, "y": 2})
        >>> L = LinearLayout({"lane": [[1, 0], [0, 1]]}, {"dim0": 2, "dim1": 2})
        >>> L.compose(swap).bases
        {'lane': [(0, 1), (1, 0)]}
        """
        if not isinstance(outer, LinearLayout):
            raise TypeError(f"compose expects a LinearLayout, got {type(outer).__name__}")
        img = outer._cached().get(("img", self._outs))
        if img is None:
            img = outer._image_table(self)
        new = []
        for cols in self._cols:
            nc = []
            for c in cols:
                acc = 0
                while c:
                    low = c & -c
                    acc ^= img[low.bit_length() - 1]
                    c ^= low
                nc.append(acc)
            new.append(tuple(nc))
        return LinearLayout._make(self._ins, outer._outs, tuple(new))

    def _image_table(self, inner: LinearLayout) -> list[int]:
        """For composing after ``inner``: the image of each bit of ``inner``'s flat output."""
        if set(inner.out_dims) != set(self.in_dims):
            raise DimensionError(
                f"cannot compose: the inner layout's output dimensions {list(inner.out_dims)} must be "
                f"the outer layout's input dimensions {list(self.in_dims)}"
            )
        obits = dict(self._ins)
        for n, b in inner._outs:
            if b > obits[n]:
                raise SizeError(
                    f"cannot compose: output {n!r} has size {1 << b} but the outer layout accepts only "
                    f"{1 << obits[n]} values of {n!r}"
                )
        img: list[int] = []
        ocols = dict(zip(self.in_dims, self._cols))
        for n, b in inner._outs:
            img.extend(ocols[n][:b])
        self._cached()[("img", inner._outs)] = img
        return img

    def __matmul__(self, inner: LinearLayout) -> LinearLayout:
        """``outer @ inner`` is ``inner.compose(outer)``: apply ``inner`` first."""
        if not isinstance(inner, LinearLayout):
            return NotImplemented
        return inner.compose(self)

    def invert(self) -> LinearLayout:
        """The inverse of an invertible layout: output dimensions become inputs.

        Formal: ``L.invert()(L(x)) = x`` and ``L(L.invert()(y)) = y``.
        Requirements: the layout is invertible (otherwise
        :class:`NotInvertibleError`, naming the dependent bases).

        >>> T = LinearLayout({"offset": [4, 8, 1, 2]}, {"dim0": 16})   # 1-D "transpose"
        >>> T.invert().bases
        {'dim0': [(4,), (8,), (1,), (2,)]}
        """
        cache = self._cached()
        inv = cache.get("inverse")
        if inv is not None:
            return inv
        nin, nout = self.in_bits, self.out_bits
        if nin != nout:
            raise NotInvertibleError(
                f"cannot invert: the layout has {nin} input bits and {nout} output bits "
                f"(sizes {self.total_in_size} -> {self.total_out_size}); only a square bijection "
                f"has an inverse (use pseudo_invert for a surjective layout)"
            )
        cols = self.flat_columns()
        try:
            inv = f2.inverse(cols)
        except NotInvertibleError as e:
            raise NotInvertibleError(f"cannot invert: {self._describe_dependency(cols)}") from e
        res = cache["inverse"] = LinearLayout._make(self._outs, self._ins, _split_cols(inv, self._outs))
        return res

    def _describe_dependency(self, cols: list[int]) -> str:
        nulls = f2.null_space(cols)
        if not nulls:
            return f"rank {self.rank()} < {self.out_bits} output bits (not surjective)"
        names = []
        for j in f2.bit_indices(nulls[0]):
            names.append(self._name_of_bit(j))
        return "the bases " + " ^ ".join(names) + " XOR to zero (the layout is not injective)"

    def _name_of_bit(self, j: int) -> str:
        for n, b in self._ins:
            if j < b:
                return f"{n}[{j}]"
            j -= b
        return f"bit {j}"  # pragma: no cover

    def pseudo_invert(self) -> LinearLayout:
        """A right inverse of a surjective layout, with free variables set to 0.

        Formal: ``L(L.pseudo_invert()(y)) = y`` for every output ``y``.  Each
        output bit is sent to a solution that uses only pivot bases (the
        earliest independent ones, in input order), so broadcast bits are 0.
        For a layout whose non-zero bases are independent (every distributed
        layout) this is the unique minimum-Hamming-weight right inverse.

        Requirements: surjective (otherwise :class:`NotInvertibleError`).

        >>> LinearLayout({"register": [1, 0, 2]}).pseudo_invert().bases
        {'dim0': [(1,), (4,)]}
        """
        cols = self.flat_columns()
        try:
            x = f2.right_inverse(cols, self.out_bits)
        except NotInvertibleError:
            raise NotInvertibleError(
                f"cannot pseudo-invert: the layout is not surjective (rank {self.rank()} < "
                f"{self.out_bits} output bits); some tensor elements have no preimage"
            ) from None
        return LinearLayout._make(self._outs, self._ins, _split_cols(x, self._outs))

    def invert_and_compose(self, outer: LinearLayout) -> LinearLayout:
        """The layout ``C`` with ``self(x) = outer(C(x))``: ``outer⁻¹ ∘ self``.

        ``C`` maps ``self``'s inputs to ``outer``'s inputs, e.g. registers of
        a distributed layout to memory offsets (``reg.invert_and_compose(mem)``).
        Where a bit ``(d, k)`` has the same image in both layouts (including a
        broadcast zero), ``C`` maps it to itself: data that need not move is
        not moved.  Other bits are solved with free variables set to 0.

        Requirements: both layouts have the same output dimension names; each
        of ``self``'s output sizes is at most ``outer``'s; the image of
        ``self`` lies in the image of ``outer`` (always true when ``outer`` is
        surjective).  Otherwise :class:`NoSolutionError` names the basis.

        >>> reg = LinearLayout({"register": [[0, 1]], "lane": [[1, 0]]}, {"dim0": 2, "dim1": 2})
        >>> mem = LinearLayout({"offset": [[1, 0], [0, 1]]}, {"dim0": 2, "dim1": 2})
        >>> reg.invert_and_compose(mem).bases
        {'register': [(2,)], 'lane': [(1,)]}
        """
        if set(self.out_dims) != set(outer.out_dims):
            raise DimensionError(
                f"invert_and_compose needs the same output dimensions on both sides, got "
                f"{list(self.out_dims)} and {list(outer.out_dims)}"
            )
        rec = _recoder(self._outs, outer._outs)
        ocols = outer.flat_columns()
        ech = f2.echelon(ocols)[0]
        obase = {}
        j = 0
        for n, b in outer._ins:
            obase[n] = (j, b)
            j += b
        new = []
        for (n, b), cols in zip(self._ins, self._cols):
            ent = obase.get(n)
            out = []
            for k, c in enumerate(cols):
                t = c if rec is None else rec(c)
                if ent is not None and k < ent[1] and ocols[ent[0] + k] == t:
                    out.append(1 << (ent[0] + k))
                    continue
                r, m = ech.reduce(t)
                if r:
                    raise NoSolutionError(
                        f"invert_and_compose: {n}[{k}] maps to {self.basis(n, k)}, which the outer "
                        f"layout never produces; the outer layout must cover the inner layout's image"
                    )
                out.append(m)
            new.append(tuple(out))
        return LinearLayout._make(self._ins, outer._ins, tuple(new))

    def __mul__(self, other: LinearLayout) -> LinearLayout:
        """The product (direct sum) ``self * other``; ``self`` takes the low bits.

        Formal: input dimensions are the union (``self``'s first); a dimension
        in both gets ``self``'s bases followed by ``other``'s.  Output
        dimensions are the union; a shared output dimension has size
        ``size_self * size_other`` and ``other``'s coordinates are shifted up
        by ``log2(size_self)``.  The matrix is block-diagonal.

        >>> i4, z2 = LinearLayout.identity(4, "x", "y"), LinearLayout.zeros(2, "x", "y")
        >>> [(i4 * z2).apply(x=x)["y"] for x in range(8)]     # x mod 4
        [0, 1, 2, 3, 0, 1, 2, 3]
        >>> [(z2 * i4).apply(x=x)["y"] for x in range(8)]     # x // 2
        [0, 0, 1, 1, 2, 2, 3, 3]
        """
        if not isinstance(other, LinearLayout):
            return NotImplemented
        outs_l = dict(self._outs)
        outs_r = dict(other._outs)
        outs = [(n, b + outs_r.get(n, 0)) for n, b in self._outs] + [
            (n, b) for n, b in other._outs if n not in outs_l
        ]
        outs_t = tuple(outs)
        rec_l = _recoder(self._outs, outs_t)
        # other's coordinates move into the new encoding, shifted up by self's
        # size in shared output dimensions.
        doff = dict(zip((n for n, _ in outs_t), dim_offsets(outs_t)))
        moves = []
        o = 0
        for n, b in other._outs:
            moves.append((o, (1 << b) - 1, doff[n] + outs_l.get(n, 0)))
            o += b

        def rec_r(v: int) -> int:
            r = 0
            for s, m, d in moves:
                r |= ((v >> s) & m) << d
            return r

        ins_l = dict(self._ins)
        cols_r = dict(zip(other.in_dims, other._cols))
        ins = []
        cols = []
        for (n, b), cl in zip(self._ins, self._cols):
            cl2 = cl if rec_l is None else tuple(rec_l(c) for c in cl)
            cr = cols_r.get(n, ())
            ins.append((n, b + len(cr)))
            cols.append(cl2 + tuple(rec_r(c) for c in cr))
        for (n, b), cr in zip(other._ins, other._cols):
            if n not in ins_l:
                ins.append((n, b))
                cols.append(tuple(rec_r(c) for c in cr))
        return LinearLayout._make(tuple(ins), outs_t, tuple(cols))

    def transpose_ins(self, order: Sequence[str]) -> LinearLayout:
        """Reorder the input dimensions (``order`` lists every name once).

        >>> LinearLayout({"a": [1], "b": [2]}).transpose_ins(["b", "a"]).in_dims
        ('b', 'a')
        """
        order = list(order)
        if sorted(order) != sorted(self.in_dims) or len(set(order)) != len(order):
            raise DimensionError(
                f"transpose_ins needs a permutation of {list(self.in_dims)}, got {order}"
            )
        idx = {n: i for i, n in enumerate(self.in_dims)}
        return LinearLayout._make(
            tuple(self._ins[idx[n]] for n in order), self._outs, tuple(self._cols[idx[n]] for n in order)
        )

    def transpose_outs(self, order: Sequence[str]) -> LinearLayout:
        """Reorder the output dimensions (``order`` lists every name once).

        >>> L = LinearLayout({"lane": [[1, 0], [0, 1]]}, {"dim0": 2, "dim1": 2})
        >>> L.transpose_outs(["dim1", "dim0"]).bases
        {'lane': [(0, 1), (1, 0)]}
        """
        order = list(order)
        if len(order) == len(self._outs) and all(n == o[0] for n, o in zip(order, self._outs)):
            return self
        if sorted(order) != sorted(self.out_dims) or len(set(order)) != len(order):
            raise DimensionError(
                f"transpose_outs needs a permutation of {list(self.out_dims)}, got {order}"
            )
        bits = dict(self._outs)
        outs = tuple((n, bits[n]) for n in order)
        rec = _recoder(self._outs, outs)
        if rec is None:
            return LinearLayout._make(self._ins, outs, self._cols)
        return LinearLayout._make(self._ins, outs, tuple(tuple(rec(c) for c in cl) for cl in self._cols))

    def reshape_ins(self, new_in_dims: DimsLike) -> LinearLayout:
        """Flatten the inputs (first dimension minor) and split them into ``new_in_dims``.

        Requirements: the total input size is unchanged.

        >>> L = LinearLayout({"register": [1, 2], "lane": [4]})
        >>> L.reshape_ins([("x", 2), ("y", 4)]).bases
        {'x': [(1,)], 'y': [(2,), (4,)]}
        """
        ins = _dims_with_sizes(new_in_dims, "new_in_dims")
        total = sum(b for _, b in ins)
        if total != self.in_bits:
            raise SizeError(
                f"reshape_ins must keep the total input size {self.total_in_size}, "
                f"but the new dimensions hold {1 << total}"
            )
        return LinearLayout._make(ins, self._outs, _split_cols(self.flat_columns(), ins))

    def reshape_outs(self, new_out_dims: DimsLike) -> LinearLayout:
        """Flatten the outputs (first dimension minor) and split them into ``new_out_dims``.

        Requirements: the total output size is unchanged.

        >>> L = LinearLayout({"lane": [[1, 0], [0, 1]]}, {"dim0": 2, "dim1": 2})
        >>> L.reshape_outs({"flat": 4}).bases
        {'lane': [(1,), (2,)]}
        """
        outs = _dims_with_sizes(new_out_dims, "new_out_dims")
        total = sum(b for _, b in outs)
        if total != self.out_bits:
            raise SizeError(
                f"reshape_outs must keep the total output size {self.total_out_size}, "
                f"but the new dimensions hold {1 << total}"
            )
        return LinearLayout._make(self._ins, outs, self._cols)

    def flatten_ins(self) -> LinearLayout:
        """Merge all input dimensions into one, named like the first.

        >>> LinearLayout({"register": [1], "lane": [2]}).flatten_ins().in_sizes
        {'register': 4}
        """
        if len(self._ins) <= 1:
            return self
        return self.reshape_ins([(self._ins[0][0], self.total_in_size)])

    def flatten_outs(self) -> LinearLayout:
        """Merge all output dimensions into one, named like the first.

        >>> LinearLayout({"lane": [[1, 0], [0, 1]]}, {"dim0": 2, "dim1": 2}).flatten_outs().out_sizes
        {'dim0': 4}
        """
        if len(self._outs) <= 1:
            return self
        return self.reshape_outs([(self._outs[0][0], self.total_out_size)])

    def sublayout(self, in_dims: Iterable[str], out_dims: Iterable[str]) -> LinearLayout:
        """Restrict to some input dimensions and some output dimensions (others dropped).

        The kept dimensions stay in their original order.

        >>> L = LinearLayout({"register": [[0, 1]], "lane": [[1, 0]]}, {"dim0": 2, "dim1": 2})
        >>> L.sublayout(["lane"], ["dim0"]).bases
        {'lane': [(1,)]}
        """
        ins_keep = list(in_dims)
        outs_keep = list(out_dims)
        for n in ins_keep:
            self._in_index(n)
        for n in outs_keep:
            self.out_size(n)
        outs = tuple((n, b) for n, b in self._outs if n in outs_keep)
        offs = dict(zip(self.out_dims, dim_offsets(self._outs)))
        noffs = dim_offsets(outs)
        moves = [(offs[n], (1 << b) - 1, no) for (n, b), no in zip(outs, noffs)]

        def rec(v: int) -> int:
            r = 0
            for s, m, d in moves:
                r |= ((v >> s) & m) << d
            return r

        ins = []
        cols = []
        for (n, b), cl in zip(self._ins, self._cols):
            if n in ins_keep:
                ins.append((n, b))
                cols.append(tuple(rec(c) for c in cl))
        return LinearLayout._make(tuple(ins), outs, tuple(cols))

    def rename(self, in_dims: Mapping[str, str] | None = None, out_dims: Mapping[str, str] | None = None) -> LinearLayout:
        """Rename dimensions (``{old: new}`` for inputs and for outputs).

        >>> LinearLayout.identity(4, "lane", "dim0").rename({"lane": "offset"}).in_dims
        ('offset',)
        """
        in_dims = dict(in_dims or {})
        out_dims = dict(out_dims or {})
        for old in in_dims:
            self._in_index(old)
        for old in out_dims:
            self.out_size(old)
        ins = tuple((_check_name(in_dims.get(n, n), "input dimension"), b) for n, b in self._ins)
        outs = tuple((_check_name(out_dims.get(n, n), "output dimension"), b) for n, b in self._outs)
        if len({n for n, _ in ins}) != len(ins):
            raise DimensionError(f"renaming would give duplicate input dimensions {[n for n, _ in ins]}")
        if len({n for n, _ in outs}) != len(outs):
            raise DimensionError(f"renaming would give duplicate output dimensions {[n for n, _ in outs]}")
        return LinearLayout._make(ins, outs, self._cols)

    def divide_left(self, divisor: LinearLayout) -> LinearLayout:
        """The quotient ``C`` with ``self == divisor * C`` (paper Def. 4.4, Triton ``divideLeft``).

        ``divisor`` must occupy the low input bits and the low output bits of
        ``self`` as a diagonal block: for each of its input dimensions, the
        first bases of ``self`` equal the divisor's, and every other basis of
        ``self`` is zero on the divisor's output bits.  ``C`` keeps all of
        ``self``'s dimensions, with sizes divided.  Raises
        :class:`DivisionError` naming the first obstacle.

        >>> tile = LinearLayout.identity(4, "register", "dim0")
        >>> L = tile * LinearLayout.identity(8, "lane", "dim0")
        >>> L.divide_left(tile).bases
        {'register': [], 'lane': [(1,), (2,), (4,)]}
        """
        return _divide(self, divisor, left=True)

    def divide_right(self, divisor: LinearLayout) -> LinearLayout:
        """The quotient ``C`` with ``self == C * divisor``: ``divisor`` takes the high bits.

        >>> outer = LinearLayout.identity(2, "warp", "dim0")
        >>> L = LinearLayout.identity(4, "lane", "dim0") * outer
        >>> L.divide_right(outer).bases
        {'lane': [(1,), (2,)], 'warp': []}
        """
        return _divide(self, divisor, left=False)


_new = object.__new__
_SET_INS = LinearLayout._ins.__set__  # type: ignore[attr-defined]
_SET_OUTS = LinearLayout._outs.__set__  # type: ignore[attr-defined]
_SET_COLS = LinearLayout._cols.__set__  # type: ignore[attr-defined]
_SET_CACHE = LinearLayout._cache.__set__  # type: ignore[attr-defined]
_SET_TAB = LinearLayout._tab.__set__  # type: ignore[attr-defined]


def _split_cols(flat: Sequence[int], ins: DimSpec) -> tuple[tuple[int, ...], ...]:
    out = []
    j = 0
    for _, b in ins:
        out.append(tuple(flat[j : j + b]))
        j += b
    return tuple(out)


def _dims_with_sizes(dims: DimsLike, what: str) -> DimSpec:
    if dims is None:
        raise DimensionError(f"{what} is required: give a mapping {{name: size}} or (name, size) pairs")
    if isinstance(dims, Mapping):
        pairs = list(dims.items())
    else:
        if isinstance(dims, (str, bytes)):
            raise DimensionError(f"{what} must be a mapping or a list of (name, size) pairs, not a string")
        pairs = []
        for p in dims:
            try:
                n, s = p  # type: ignore[misc]
            except (TypeError, ValueError):
                raise DimensionError(f"each entry of {what} must be a (name, size) pair, got {p!r}") from None
            pairs.append((n, s))
    out = []
    seen = set()
    for n, s in pairs:
        _check_name(n, "dimension")
        if n in seen:
            raise DimensionError(f"dimension {n!r} appears twice in {what}")
        seen.add(n)
        out.append((n, log2_size(s, f"size of {n!r}")))
    return tuple(out)


def _divide(a: LinearLayout, d: LinearLayout, *, left: bool) -> LinearLayout:
    side = "divide_left" if left else "divide_right"
    abits = dict(a._outs)
    for n, b in d._outs:
        if n not in abits:
            raise DivisionError(f"{side}: the divisor's output dimension {n!r} is not an output of the layout")
        if b > abits[n]:
            raise DivisionError(
                f"{side}: the divisor's output {n!r} has size {1 << b}, larger than the layout's {1 << abits[n]}"
            )
    dbits = dict(d._outs)
    ain = dict(a._ins)
    for n, b in d._ins:
        if b and n not in ain:
            raise DivisionError(f"{side}: the divisor's input dimension {n!r} is not an input of the layout")
        if b > ain.get(n, 0):
            raise DivisionError(
                f"{side}: the divisor's input {n!r} has size {1 << b}, larger than the layout's {1 << ain.get(n, 0)}"
            )
    # Quotient output spec, in the layout's order.
    q_outs = tuple((n, b - dbits.get(n, 0)) for n, b in a._outs)
    aoffs = dim_offsets(a._outs)
    # Masks/shifts to read the divisor part and the quotient part of a flat value.
    d_part = []  # (a_off_of_divisor_bits, mask, divisor_offset)
    q_part = []  # (a_off_of_quotient_bits, mask, quotient_offset)
    doffs = dict(zip(d.out_dims, dim_offsets(d._outs)))
    qoffs = dim_offsets(q_outs)
    for (n, b), ao, qo, (_, qb) in zip(a._outs, aoffs, qoffs, q_outs):
        db = dbits.get(n, 0)
        if left:  # divisor low, quotient high
            if n in doffs:
                d_part.append((ao, (1 << db) - 1, doffs[n]))
            q_part.append((ao + db, (1 << qb) - 1, qo))
        else:  # quotient low, divisor high
            q_part.append((ao, (1 << qb) - 1, qo))
            if n in doffs:
                d_part.append((ao + qb, (1 << db) - 1, doffs[n]))

    def extract(v: int, parts) -> int:
        r = 0
        for s, m, o in parts:
            r |= ((v >> s) & m) << o
        return r

    dcols = dict(zip(d.in_dims, d._cols))
    q_ins = []
    q_cols = []
    for (n, b), cols in zip(a._ins, a._cols):
        dc = dcols.get(n, ())
        k = len(dc)
        if left:
            d_idx = range(k)
            q_idx = range(k, b)
        else:
            d_idx = range(b - k, b)
            q_idx = range(b - k)
        for i, j in enumerate(d_idx):
            v = cols[j]
            if extract(v, q_part) != 0 or extract(v, d_part) != dc[i]:
                raise DivisionError(
                    f"{side}: basis {j} of {n!r} is {a.basis(n, j)}, but the divisor needs its basis {i} "
                    f"{d.basis(n, i)} there and nothing else"
                )
        qc = []
        for j in q_idx:
            v = cols[j]
            if extract(v, d_part) != 0:
                raise DivisionError(
                    f"{side}: basis {j} of {n!r} is {a.basis(n, j)}, which touches the output bits the "
                    f"divisor occupies; the layout is not block-diagonal with the divisor"
                )
            qc.append(extract(v, q_part))
        q_ins.append((n, b - k))
        q_cols.append(tuple(qc))
    return LinearLayout._make(tuple(q_ins), q_outs, tuple(q_cols))
