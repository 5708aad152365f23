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
inversion is Gaussian elimination (:mod:`linlayout.core.f2`).

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

from itertools import chain
from operator import itemgetter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import BasisError, DimensionError, MissingDependencyError
from . import evaluate, f2, reshape
from .bases import BasesLike, decode, parse_bases, parse_flat, parse_layout_object, parse_matrix
from .dims import DimSpec, DimsLike, as_int, check_name, dim_offsets, log2_size, unpack_flat
from .invert import invert_and_compose, inverse, right_inverse
from .product import compose_columns, divide, image_table, product
from .text import grid_text, layout_text
from .validate import check_instance, check_mapping, check_names

__all__ = ["LinearLayout"]


class _Fields:
    """The fields of a :class:`LinearLayout`, set here (no guard) before the object becomes one."""

    __slots__ = ("_ins", "_outs", "_cols", "_cache", "_tab")


class LinearLayout(_Fields):
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

    __slots__ = ()

    # -- construction -----------------------------------------------------

    def __new__(cls, bases: BasesLike, out_dims: DimsLike = None, *, require_surjective: bool = False) -> LinearLayout:  # noqa: PYI034
        f = _new(_Fields)  # a plain slotted object takes its fields without calls, then becomes a layout
        f._ins, f._outs, f._cols = parse_bases(bases, out_dims, surjective=require_surjective)
        f._tab = f._cache = None
        f.__class__ = cls
        return f  # type: ignore[return-value]

    @classmethod
    def _make(cls, ins: DimSpec, outs: DimSpec, cols: tuple[tuple[int, ...], ...]) -> LinearLayout:
        """Internal constructor from already-validated flat data (no checks)."""
        f = _new(_Fields)
        f._ins, f._outs, f._cols = ins, outs, cols
        f._tab = f._cache = None
        f.__class__ = cls
        return f  # type: ignore[return-value]

    def _flat(self) -> tuple[DimSpec, DimSpec, tuple[tuple[int, ...], ...]]:
        """The layout's data as a :data:`~linlayout.core.dims.FlatLayout` triple (for :mod:`.product`)."""
        return self._ins, self._outs, self._cols

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
        return cls._make(*parse_flat(in_dims, out_dims, columns, check=check))

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

        Keys are chosen by the caller (a tuple that starts with your module's name); the library stores
        lookup tables, ranks and the synthesizer's per-layout data here.
        """
        c = self._cache
        if c is None:  # set to None at construction: no AttributeError to catch on a fresh layout
            c = {}
            _SET_CACHE(self, c)
        return c

    def out_coords(self, flat: int) -> dict[str, int]:
        """Split a flat output value into coordinates.

        >>> LinearLayout({"lane": [[1, 0]]}, {"dim0": 4, "dim1": 4}).out_coords(0b1101)
        {'dim0': 1, 'dim1': 3}
        """
        out, flat = {}, as_int(flat, "flat output value")
        for n, b in self._outs:
            out[n] = flat & ((1 << b) - 1)
            flat >>= b
        return out

    def out_flat(self, coords: Mapping[str, int]) -> int:
        """Pack coordinates (missing dimensions are 0) into a flat output value; inverse of :meth:`out_coords`.

        >>> LinearLayout({"lane": [[1, 0]]}, {"dim0": 4, "dim1": 4}).out_flat({"dim0": 1, "dim1": 3})
        13
        """
        v, shift, coords = 0, 0, check_mapping(coords, "coords")
        for n, b in self._outs:
            v |= (as_int(coords.get(n, 0), n) & ((1 << b) - 1)) << shift
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
        check_name(in_dim, "input dimension")
        check_name(out_dim, "output dimension")
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
        check_name(in_dim, "input dimension")
        check_name(out_dim, "output dimension")
        return cls._make(((in_dim, b),), ((out_dim, b + s),), (tuple(1 << (k + s) for k in range(b)),))

    @classmethod
    def zeros(cls, size: int, in_dim: str, out_dim: str, out_size: int = 1) -> LinearLayout:
        """The 1-D map sending all ``size`` inputs to 0 (pure broadcast).

        >>> LinearLayout.zeros(4, "warp", "dim0").bases
        {'warp': [(0,), (0,)]}
        """
        b = log2_size(size, "zeros size")
        ob = log2_size(out_size, "zeros out_size")
        check_name(in_dim, "input dimension")
        check_name(out_dim, "output dimension")
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
        return cls._make(*parse_matrix(matrix, in_dims, out_dims))

    # -- basic queries ----------------------------------------------------

    @property
    def in_dims(self) -> tuple[str, ...]:
        """Input dimension names, minor to major."""
        return tuple(map(_NAME, self._ins))

    @property
    def out_dims(self) -> tuple[str, ...]:
        """Output dimension names, minor to major."""
        return tuple(map(_NAME, self._outs))

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
        return 1 << self._ins[self._in_index(dim)][1]

    def out_size(self, dim: str) -> int:
        """Size of one output dimension."""
        for n, b in self._outs:
            if n == dim:
                return 1 << b
        raise DimensionError(f"no output dimension {dim!r}; the layout has {list(self.out_dims)}")

    @property
    def in_bits(self) -> int:
        """Total number of input bits (log2 of the number of inputs)."""
        n = 0
        for _, b in self._ins:  # a loop, not sum() of a generator: this runs on every count
            n += b
        return n

    @property
    def out_bits(self) -> int:
        """Total number of output bits (log2 of the number of tensor elements)."""
        n = 0
        for _, b in self._outs:
            n += b
        return n

    @property
    def total_in_size(self) -> int:
        """Number of inputs (product of input sizes)."""
        return 1 << self.in_bits

    @property
    def total_out_size(self) -> int:
        """Number of outputs (product of output sizes)."""
        return 1 << self.out_bits

    def _in_index(self, dim: str) -> int:
        for i, (n, _) in enumerate(self._ins):
            if n == dim:
                return i
        raise DimensionError(f"no input dimension {dim!r}; the layout has {list(self.in_dims)}")

    @property
    def bases(self) -> dict[str, list[tuple[int, ...]]]:
        """``{in_dim: [basis, ...]}``, each basis a tuple with one int per output dimension."""
        offs = dim_offsets(self._outs)
        return {n: [unpack_flat(c, self._outs, offs) for c in cols] for (n, _), cols in zip(self._ins, self._cols)}

    def basis(self, in_dim: str, k: int) -> tuple[int, ...]:
        """The image of bit ``k`` of ``in_dim`` (one int per output dimension)."""
        i = self._in_index(in_dim)
        if not 0 <= as_int(k, "basis index") < self._ins[i][1]:
            raise BasisError(f"{in_dim!r} has {self._ins[i][1]} bases; index {k} is out of range")
        return unpack_flat(self._cols[i][k], self._outs, dim_offsets(self._outs))

    def flat_bases(self, in_dim: str) -> tuple[int, ...]:
        """The bases of ``in_dim`` as flat ints (output dimensions concatenated, first lowest)."""
        return self._cols[self._in_index(in_dim)]

    @property
    def dim_columns(self) -> tuple[tuple[int, ...], ...]:
        """Per input dimension, in order, its bases as flat ints: :meth:`flat_bases` of every dimension at once."""
        return self._cols

    def flat_columns(self) -> list[int]:
        """All bases as flat ints, input dimensions concatenated (the matrix columns)."""
        return list(chain.from_iterable(self._cols))

    # -- evaluation -------------------------------------------------------

    def _tables(self) -> tuple | None:
        """The lookup tables of :meth:`apply` once it has run ``_DIRECT_CALLS`` times (see :mod:`.evaluate`), else None."""
        tab = self._tab
        if tab is None or tab < _DIRECT_CALLS:
            _SET_TAB(self, 1 if tab is None else tab + 1)
            return None
        tab = (evaluate.tables(self._ins, self._cols), tuple((n, o, (1 << b) - 1) for (n, b), o in zip(self._outs, dim_offsets(self._outs))))
        _SET_TAB(self, tab)
        return tab

    def apply_flat(self, inputs: Mapping[str, int]) -> int:
        """Like :meth:`apply` but return the output as one flat int (first output dim lowest)."""
        if type(inputs) is not dict:
            inputs = check_mapping(inputs, "inputs")
        tab = self._tab
        if type(tab) is not tuple:
            tab = self._tables()
            if tab is None:
                return evaluate.direct(self._ins, self._cols, inputs)
        return evaluate.from_tables(tab[0], self._ins, inputs)

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
        else:
            if type(inputs) is not dict:
                inputs = check_mapping(inputs, "inputs")
            if kwargs:
                inputs = {**inputs, **kwargs}
        tab = self._tab
        if type(tab) is not tuple:
            if tab is None or tab < _DIRECT_CALLS:  # see _tables
                _SET_TAB(self, 1 if tab is None else tab + 1)
                acc = evaluate.direct(self._ins, self._cols, inputs)
                outs = self._outs
                if len(outs) == 2:  # the usual case: the last coordinate is the rest
                    (n0, b0), (n1, _) = outs
                    return {n0: acc & ((1 << b0) - 1), n1: acc >> b0}
                out = {}
                for n, b in outs:
                    out[n] = acc & ((1 << b) - 1)
                    acc >>= b
                return out
            tab = self._tables()
        acc = evaluate.from_tables(tab[0], self._ins, inputs)
        return {n: (acc >> o) & m for n, o, m in tab[1]}

    __call__ = apply

    # -- rank and properties ----------------------------------------------

    def rank(self) -> int:
        """Rank of the matrix: log2 of the number of distinct outputs.

        >>> LinearLayout({"register": [1, 0, 2]}).rank()
        2
        """
        c = self.memo()
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
        return {n: sum(1 << k for k, c in enumerate(cols) if c == 0) for (n, _), cols in zip(self._ins, self._cols)}

    def is_distributed(self) -> bool:
        """Paper Def. 4.10: surjective, every basis of weight <= 1, no two equal non-zero bases.

        >>> LinearLayout({"register": [2, 0], "lane": [1]}).is_distributed()
        True
        >>> LinearLayout({"register": [3], "lane": [1]}).is_distributed()
        False
        """
        cache = self.memo()
        r = cache.get("distributed")
        if r is None:
            flat = self.flat_columns()
            s = set(flat)
            s.discard(0)
            # distinct non-zero bases of one bit each (so independent), as many as the output bits
            r = cache["distributed"] = sum(map(int.bit_count, s)) == len(s) == len(flat) - flat.count(0) == self.out_bits
        return r

    def is_memory_layout(self) -> bool:
        """Paper Def. 4.14: invertible and every basis of weight 1 or 2.

        >>> LinearLayout({"offset": [1, 2, 3]}, {"dim0": 8}).is_memory_layout()
        False
        >>> LinearLayout({"offset": [1, 2, 5]}, {"dim0": 8}).is_memory_layout()
        True
        """
        return all(1 <= c.bit_count() <= 2 for c in self.flat_columns()) and self.is_invertible()

    # -- matrix views -----------------------------------------------------

    def matrix(self):  # -> numpy.ndarray
        """The matrix as a numpy ``uint8`` array: rows are output bits, columns input bits.

        Both are flattened minor to major (first dimension lowest).

        >>> LinearLayout({"lane": [2, 1]}, {"dim0": 4}).matrix().tolist()
        [[0, 1], [1, 0]]
        """
        return f2.to_numpy(self.flat_columns(), self.out_bits)

    def to_galois(self):  # -> galois.FieldArray
        """The matrix as a galois ``GF(2)`` array (imports galois on first use; galois is an optional
        dependency: without it this raises :class:`~linlayout.errors.MissingDependencyError`)."""
        try:
            import galois
        except ImportError:
            raise MissingDependencyError("galois is not installed: pip install 'linlayout[galois]'") from None

        return galois.GF2(self.matrix())

    # -- equality ---------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinearLayout):
            return NotImplemented
        return self._ins == other._ins and self._outs == other._outs and self._cols == other._cols

    def __hash__(self) -> int:
        c = self.memo()
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
        if set(self._ins) != set(check_instance(other, LinearLayout, "other")._ins) or set(self._outs) != set(other._outs):
            return False
        return self.transpose_ins(other.in_dims).transpose_outs(other.out_dims) == other

    # -- text -------------------------------------------------------------

    def __repr__(self) -> str:
        b = {n: [list(t) for t in v] for n, v in self.bases.items()}
        return f"LinearLayout({b!r}, {self.out_sizes!r})"

    def __str__(self) -> str:
        return layout_text(self)

    def grid(self, **kwargs: Any) -> str:
        """The tensor grid as text, each cell labelled with the input that owns it (options:
        :func:`linlayout.core.text.grid_text`)."""
        return grid_text(self, **kwargs)

    # -- JSON -------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON interchange object: ``{"bases": {...}, "out_dims": {...}}``."""
        return {"bases": {n: [list(t) for t in v] for n, v in self.bases.items()}, "out_dims": self.out_sizes}

    def to_json(self, indent: int | None = None) -> str:
        """The layout as a JSON string (the format: docs/reference.md, "JSON interchange format").

        >>> LinearLayout({"lane": [[0, 1], [1, 0]]}, {"dim0": 2, "dim1": 2}).to_json()
        '{"bases": {"lane": [[0, 1], [1, 0]]}, "out_dims": {"dim0": 2, "dim1": 2}}'
        """
        import json  # here, not at import

        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, source: str | bytes | Mapping[str, Any] | Sequence[Any]) -> LinearLayout:
        """Parse a layout from JSON text or an already-decoded object.

        Raises :class:`LayoutJSONError` (a :class:`ValueError`) on malformed input.

        >>> LinearLayout.from_json('{"bases": {"lane": [1, 2]}, "out_dims": {"dim0": 4}}').bases
        {'lane': [(1,), (2,)]}
        """
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
        cache = check_instance(outer, LinearLayout, "compose's outer layout").memo()
        img = cache.get(("img", self._outs))
        if img is None:
            img = cache[("img", self._outs)] = image_table(self._outs, outer._flat())
        return LinearLayout._make(self._ins, outer._outs, compose_columns(self._cols, img))

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
        cache = self.memo()
        inv = cache.get("inverse")
        if inv is None:
            inv = cache["inverse"] = LinearLayout._make(*inverse(self._flat()))
        return inv

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
        return LinearLayout._make(*right_inverse(self._flat()))

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
        return LinearLayout._make(*invert_and_compose(self._flat(), check_instance(outer, LinearLayout, "outer")._flat()))

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
        return LinearLayout._make(*product(self._flat(), other._flat()))

    def transpose_ins(self, order: Sequence[str]) -> LinearLayout:
        """Reorder the input dimensions (``order`` lists every name once).

        >>> LinearLayout({"a": [1], "b": [2]}).transpose_ins(["b", "a"]).in_dims
        ('b', 'a')
        """
        return LinearLayout._make(*reshape.transpose_ins(self._flat(), order))

    def transpose_outs(self, order: Sequence[str]) -> LinearLayout:
        """Reorder the output dimensions (``order`` lists every name once).

        >>> L = LinearLayout({"lane": [[1, 0], [0, 1]]}, {"dim0": 2, "dim1": 2})
        >>> L.transpose_outs(["dim1", "dim0"]).bases
        {'lane': [(0, 1), (1, 0)]}
        """
        order = check_names(order, "order")
        if len(order) == len(self._outs) and all(n == o[0] for n, o in zip(order, self._outs)):
            return self
        return LinearLayout._make(*reshape.transpose_outs(self._flat(), order))

    def reshape_ins(self, new_in_dims: DimsLike) -> LinearLayout:
        """Flatten the inputs (first dimension minor) and split them into ``new_in_dims``.

        Requirements: the total input size is unchanged.

        >>> L = LinearLayout({"register": [1, 2], "lane": [4]})
        >>> L.reshape_ins([("x", 2), ("y", 4)]).bases
        {'x': [(1,)], 'y': [(2,), (4,)]}
        """
        return LinearLayout._make(*reshape.reshape_ins(self._flat(), new_in_dims))

    def reshape_outs(self, new_out_dims: DimsLike) -> LinearLayout:
        """Flatten the outputs (first dimension minor) and split them into ``new_out_dims``.

        Requirements: the total output size is unchanged.

        >>> L = LinearLayout({"lane": [[1, 0], [0, 1]]}, {"dim0": 2, "dim1": 2})
        >>> L.reshape_outs({"flat": 4}).bases
        {'lane': [(1,), (2,)]}
        """
        return LinearLayout._make(*reshape.reshape_outs(self._flat(), new_out_dims))

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
        return LinearLayout._make(*reshape.restrict(self._flat(), in_dims, out_dims))

    def rename(self, in_dims: Mapping[str, str] | None = None, out_dims: Mapping[str, str] | None = None) -> LinearLayout:
        """Rename dimensions (``{old: new}`` for inputs and for outputs).

        >>> LinearLayout.identity(4, "lane", "dim0").rename({"lane": "offset"}).in_dims
        ('offset',)
        """
        return LinearLayout._make(*reshape.rename(self._flat(), in_dims, out_dims))

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
        return LinearLayout._make(*divide(self._flat(), check_instance(divisor, LinearLayout, "divisor")._flat(), left=True))

    def divide_right(self, divisor: LinearLayout) -> LinearLayout:
        """The quotient ``C`` with ``self == C * divisor``: ``divisor`` takes the high bits.

        >>> outer = LinearLayout.identity(2, "warp", "dim0")
        >>> L = LinearLayout.identity(4, "lane", "dim0") * outer
        >>> L.divide_right(outer).bases
        {'lane': [(1,), (2,)], 'warp': []}
        """
        return LinearLayout._make(*divide(self._flat(), check_instance(divisor, LinearLayout, "divisor")._flat(), left=False))


_new = object.__new__
_NAME = itemgetter(0)  # the name of a (name, log2 size) pair
_SET_CACHE = LinearLayout._cache.__set__  # type: ignore[attr-defined]
_SET_TAB = LinearLayout._tab.__set__  # type: ignore[attr-defined]
_DIRECT_CALLS = 4  # apply evaluates directly this many times before it builds lookup tables
