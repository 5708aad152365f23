"""The input form of a layout: bases as the user writes them, checked before they become a value.

A layout is given by its **bases** (the image of each input bit) and its
**output dimensions**.  The same form serves the :class:`~linlayout.core.layout.LinearLayout`
constructor and the JSON interchange format (also documented in docs/reference.md)::

    {"bases": {"register": [[0, 1], [8, 0]],
               "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
               "warp": []},
     "out_dims": {"dim0": 16, "dim1": 16}}

* ``bases`` lists, per input dimension in minor-to-major order, the image of
  each input bit: one int per output dimension, in ``out_dims`` order.  With
  a single output dimension a basis may be a plain int.  An input dimension of
  size 1 has an empty list.
* ``out_dims`` gives the output dimensions and their power-of-two sizes, minor
  to major.  It may be omitted: the names become ``dim0, dim1, ...`` and each
  size the smallest power of two holding the bases.  The constructor also
  accepts a list of names (sizes inferred) or of ``(name, size)`` pairs.
* For parsers that do not keep object key order, both fields may be lists of
  pairs: ``{"bases": [["register", [...]], ...], "out_dims": [["dim0", 16], ...]}``.

Two checks, two error families:

* :func:`parse_layout_object` checks the *shape* of a decoded JSON document
  (keys, lists, integers) and says what is wrong in JSON terms
  (:class:`~linlayout.errors.LayoutJSONError`).
* :func:`parse_bases` is THE parser of the constructor input: it checks the
  values (names, power-of-two sizes, one non-negative entry per output
  dimension, entries inside their sizes) and packs every basis into a flat
  int (see :mod:`linlayout.core.dims`), and with ``surjective=True`` checks
  that the bases span the output.  The common form (a dict of lists of int
  lists, one or two sizes up to 256 given) goes through a fast lane that
  settles the usual surjective case while packing; anything else takes the
  general route, :func:`parse_bases_general`, which names the first problem
  (the lane gives the same results and errors, which the tests check).
* :func:`parse_flat` and :func:`parse_matrix` check the two other inputs of
  a layout: flat columns (for code that works on flat ints) and a 0/1
  matrix.

>>> parse_bases({"lane": [[0, 1], [1, 0]]}, {"dim0": 2, "dim1": 4})
((('lane', 2),), (('dim0', 1), ('dim1', 2)), ((2, 1),))
>>> parse_bases({"lane": [[0, 8]]}, {"dim0": 2, "dim1": 4})
Traceback (most recent call last):
...
linlayout.errors.BasisError: basis 0 of 'lane' has dim1 = 8, outside the output size 4; enlarge 'dim1' to 16 or fix the basis

:mod:`linlayout.io.jsonio` builds the queries on top.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

from ..errors import BasisError, DimensionError, LayoutJSONError, NotInvertibleError, SizeError
from . import f2
from .validate import check_int, check_int_sequence, check_sequence
from .dims import (Columns, DimsLike, DimSpec, FlatLayout, as_int, check_name, dim_offsets, dims_with_sizes, log2_size,
                   split_columns, unit_columns)

__all__ = ["BasisLike", "BasesLike", "LAYOUT_KEYS", "decode", "parse_layout_object", "parse_bases",
           "parse_bases_general", "check_surjective", "parse_flat", "parse_matrix"]

BasisLike = Union[int, Sequence[int]]
"""One basis as the user writes it: one int per output dimension (a plain int with a single one)."""

BasesLike = Union[Mapping[str, Sequence[BasisLike]], Sequence[tuple[str, Sequence[BasisLike]]]]
"""The ``bases`` argument: ``{in_dim: [basis, ...]}`` or ``(in_dim, [basis, ...])`` pairs."""

LAYOUT_KEYS = frozenset({"bases", "out_dims"})
"""The keys of a layout object."""


def decode(source: str | bytes | Any, what: str = "JSON") -> Any:
    """Decode JSON text; objects and lists pass through.  Errors become :class:`LayoutJSONError`."""
    if isinstance(source, (str, bytes, bytearray)):
        import json  # here, not at import

        try:
            return json.loads(source)
        except json.JSONDecodeError as e:
            raise LayoutJSONError(
                f"malformed {what}: {e.msg} at line {e.lineno} column {e.colno}; check brackets, commas and quotes"
            ) from None
        except UnicodeDecodeError as e:
            raise LayoutJSONError(f"malformed {what}: not UTF-8 text ({e.reason})") from None
        except RecursionError:
            raise LayoutJSONError(f"malformed {what}: nested too deeply (lists or objects inside one another)") from None
        except ValueError as e:  # an integer literal longer than Python's int-string limit (4300 digits)
            raise LayoutJSONError(f"malformed {what}: {str(e).split(';')[0]}") from None
    return source


def parse_layout_object(obj: Any, what: str = "layout") -> tuple[Any, Any]:
    """Check a decoded JSON layout object; return ``(bases, out_dims)`` for :class:`LinearLayout`.

    Raises :class:`LayoutJSONError` when the document is not a layout object
    (the layout's own checks of sizes and bases follow in the constructor).

    >>> parse_layout_object({"bases": {"offset": [1, 2]}})
    ({'offset': [1, 2]}, None)
    """
    if not isinstance(obj, Mapping):
        raise LayoutJSONError(
            f"a {what} must be a JSON object with \"bases\" (and optionally \"out_dims\"), "
            f"got {type(obj).__name__}"
        )
    unknown = [k for k in obj if k not in LAYOUT_KEYS]
    if unknown:
        raise LayoutJSONError(
            f"unknown key {unknown[0]!r} in {what}; a layout has only \"bases\" and \"out_dims\""
        )
    if "bases" not in obj:
        raise LayoutJSONError(f"the {what} has no \"bases\"; give {{\"bases\": {{in_dim: [basis, ...]}}}}")
    bases = obj["bases"]
    if isinstance(bases, list):
        for p in bases:
            if not (isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)):
                raise LayoutJSONError(
                    f"in the ordered-pairs form, each \"bases\" entry is [name, [basis, ...]], got {p!r}"
                )
        bases = [(p[0], p[1]) for p in bases]
    elif not isinstance(bases, Mapping):
        raise LayoutJSONError(f"\"bases\" must be an object or a list of [name, bases] pairs, got {bases!r}")
    for name, bl in bases.items() if isinstance(bases, Mapping) else bases:
        if not isinstance(bl, list):
            raise LayoutJSONError(f"the bases of {name!r} must be a list, got {bl!r}")
        for k, b in enumerate(bl):
            if isinstance(b, list):
                for x in b:
                    if not isinstance(x, int) or isinstance(x, bool):
                        raise LayoutJSONError(f"basis {k} of {name!r} must hold integers, got {x!r}")
            elif not isinstance(b, int) or isinstance(b, bool):
                raise LayoutJSONError(f"basis {k} of {name!r} must be a list of integers or an integer, got {b!r}")
    out_dims = obj.get("out_dims")
    if out_dims is not None:
        if isinstance(out_dims, list):
            for p in out_dims:
                if not (isinstance(p, str) or (isinstance(p, list) and len(p) == 2 and isinstance(p[0], str))):
                    raise LayoutJSONError(
                        f"in the ordered-pairs form, each \"out_dims\" entry is [name, size], got {p!r}"
                    )
            out_dims = [p if isinstance(p, str) else (p[0], p[1]) for p in out_dims]
        elif not isinstance(out_dims, Mapping):
            raise LayoutJSONError(f"\"out_dims\" must be an object {{name: size}} or a list of pairs, got {out_dims!r}")
        for p in out_dims.values() if isinstance(out_dims, Mapping) else [q[1] for q in out_dims if not isinstance(q, str)]:
            if not isinstance(p, int) or isinstance(p, bool):
                raise LayoutJSONError(f"output sizes must be integers, got {p!r}")
    return bases, out_dims


def parse_bases(bases: Any, out_dims: Any = None, *, surjective: bool = False) -> tuple[DimSpec, DimSpec, Columns]:
    """Check the constructor input of a layout and pack it: ``(in dims, out dims, columns)``.

    ``bases`` is a mapping ``{in_dim: [basis, ...]}`` or a sequence of
    ``(in_dim, [basis, ...])`` pairs; ``out_dims`` a mapping ``{name: size}``,
    a sequence of names or ``(name, size)`` pairs, or ``None`` (names
    ``dim0, dim1, ...``; sizes inferred).  Returns the input and output
    dimensions as ``(name, log2 size)`` pairs and, per input dimension, the
    flat image of each of its bits (output dimensions packed minor first).
    ``surjective=True`` also checks that the bases span every output bit
    (as :func:`check_surjective`, after every other check).

    Errors (all :class:`~linlayout.errors.InputError`), the first problem in
    this order: an input name that is empty, not a string or repeated
    (:class:`DimensionError`); an output dimension likewise, or a size that
    is not a power of two (:class:`SizeError`); a basis that is not a list of
    ints, has the wrong number of entries or a negative one
    (:class:`BasisError`); an entry outside its output size
    (:class:`BasisError`, for the first such output dimension); last, with
    ``surjective=True``, bases that do not span the output
    (:class:`~linlayout.errors.NotInvertibleError`).

    The common form takes a fast lane: a dict of lists (or tuples) of bases
    and a dict of one or two output sizes, each basis a list or tuple of ints
    (a plain int with one output dimension).  With sizes up to 256 an entry
    is accepted there only when it *is* the int of its value in the range of
    its size (``RANGE[x] is x``, which excludes bools, negative and
    out-of-range ints and int look-alikes such as numpy integers), and the
    highest bit of each column is noted as it is packed: when every output
    bit is the highest bit of some column, those columns are independent
    (distinct leading bits), so the layout is surjective with no rank to
    compute (the usual case: a distributed layout's one-bit bases).  Larger
    sizes check ``type(x) is int`` and the range instead, and the rank
    (:func:`_wide_columns`).  Anything else, or any problem, goes to
    :func:`parse_bases_general`, which gives the same result or the same
    error.

    >>> parse_bases({"offset": [1, 2]})
    ((('offset', 2),), (('dim0', 2),), ((1, 2),))
    >>> parse_bases([("lane", [(1, 1)])], ["x", ("y", 4)])
    ((('lane', 1),), (('x', 1), ('y', 2)), ((3,),))
    >>> parse_bases({"lane": [[1, 0]]}, {"dim0": 4})
    Traceback (most recent call last):
    ...
    linlayout.errors.BasisError: basis 0 of 'lane' has 2 entries but there are 1 output dimensions ['dim0']; give one int per output dimension
    >>> parse_bases({"lane": [[1, 0], [1, 0]]}, {"dim0": 2, "dim1": 2}, surjective=True)
    Traceback (most recent call last):
    ...
    linlayout.errors.NotInvertibleError: the layout is not surjective: rank 1 < 2 output bits; some tensor elements are never reached
    """
    if type(bases) is not dict or type(out_dims) is not dict:
        return parse_bases_general(bases, out_dims, surjective=surjective)
    kind, Int, Str, List, Tuple, Zero = type, int, str, list, tuple, 0  # locals: the loops run once per basis
    nout = len(out_dims)
    t = None
    if nout == 2:
        n0, n1 = out_dims
        if kind(n0) is Str and kind(n1) is Str and n0 and n1:  # (exact strs: no user code in the lookups)
            s0 = out_dims[n0]
            s1 = out_dims[n1]
            if kind(s0) is Int and kind(s1) is Int:
                t = _LANES.get((s0, s1))
                if t is None:
                    t = _lane_tables(s0, s1)
    elif nout == 1:
        (n0,) = out_dims
        if kind(n0) is Str and n0:
            s0 = out_dims[n0]
            if kind(s0) is Int:
                t = _LANES.get(s0)
                if t is None:
                    t = _lane_tables(s0)
    if not t:  # not the lane's form, or sizes it does not take
        return parse_bases_general(bases, out_dims, surjective=surjective)
    R0, R1, Y, U0, U1, H, HF, k0, k1, O = t
    key = (n0, n1) if nout == 2 else n0
    outs = O.get(key)
    if outs is None:
        outs = ((n0, k0), (n1, k1)) if nout == 2 else ((n0, k0),)
        if len(O) < _LANE_NAMES:
            O[key] = outs
    if R0 is None:  # a size past 256
        packed = _wide_columns(bases, s0, s1 if nout == 2 else 0)
        if packed is None:
            return parse_bases_general(bases, out_dims, surjective=surjective)
        if surjective:
            check_surjective(outs, packed[1])
        return packed[0], outs, packed[1]
    h = [*H]  # h[i] = 1 once some column has its highest bit at output bit i (the last entry: zero columns)
    ins = []
    cols = []
    ok = False
    try:
        if nout == 2:
            for name, blist in bases.items():
                if kind(name) is not Str or not name or (kind(blist) is not List and kind(blist) is not Tuple):
                    break
                flat: list[int] = []
                for b in blist:
                    if kind(b) is not List and kind(b) is not Tuple:
                        break
                    x, y = b  # ValueError unless two entries
                    if y is Zero:  # a column (x, 0)
                        if R0[x] is not x:  # IndexError or TypeError for some non-ints
                            break
                        h[U0[x]] = 1
                        flat.append(x)
                    elif x is Zero:  # a column (0, y)
                        if R1[y] is not y:
                            break
                        h[U1[y]] = 1
                        flat.append(Y[y])
                    elif R0[x] is x and R1[y] is y:
                        h[U1[y]] = 1  # its highest bit is y's
                        flat.append(x + Y[y])
                    else:
                        break
                else:
                    ins.append((name, len(flat)))
                    cols.append(tuple(flat))
                    continue
                break
            else:
                ok = True
        else:
            for name, blist in bases.items():
                if kind(name) is not Str or not name or (kind(blist) is not List and kind(blist) is not Tuple):
                    break
                flat = []
                for b in blist:
                    if kind(b) is List or kind(b) is Tuple:
                        (b,) = b  # ValueError unless one entry
                    if R0[b] is not b:
                        break
                    h[U0[b]] = 1
                    flat.append(b)
                else:
                    ins.append((name, len(flat)))
                    cols.append(tuple(flat))
                    continue
                break
            else:
                ok = True
    except Exception:  # noqa: BLE001 - the general route reports the problem (or packs an odd but valid entry)
        ok = False
    if not ok:
        return parse_bases_general(bases, out_dims, surjective=surjective)
    cols = tuple(cols)  # type: ignore[assignment]
    if surjective and h != HF:  # some output bit is no column's highest bit: the rank decides
        check_surjective(outs, cols)  # type: ignore[arg-type]
    return tuple(ins), outs, cols  # type: ignore[return-value]


_LANE_MAX = 256
"""The largest output size of the fast lane of :func:`parse_bases`: CPython keeps one object per int up to 256."""

_LANE_NAMES = 64
"""How many output name choices per sizes the fast lane keeps its output dimensions for (see :func:`_lane_tables`)."""

_LANES: dict[Any, tuple[Any, ...]] = {}
"""The tables of the fast lane per output sizes (``size`` or ``(size0, size1)``), built by :func:`_lane_tables`."""


def _lane_tables(s0: int, s1: int | None = None) -> tuple[Any, ...]:
    """The fast lane's tables for output sizes ``s0`` (and ``s1``), or ``()`` for sizes it does not take.

    ``(R0, R1, Y, U0, U1, H, HF, k0, k1, O)``: ``R0 = (0, 1, ..., s0 - 1)``
    (likewise ``R1``); ``Y[y] = y * s0``, the packed ``(0, y)``; ``U0[x]``
    (``U1[y]``) the output bit of the highest bit of ``x`` (``y``), for 0 the
    last index of ``H = (0,) * bits + (1,)``; ``HF = [1] * (bits + 1)``, ``H``
    once every output bit is marked; ``k0``, ``k1`` the log2 sizes; ``O`` the
    output dimensions built so far, by names (up to :data:`_LANE_NAMES`): the
    layouts of one shape share them, so a fresh layout's output dimensions
    are usually in the cache already.  Both are kept in :data:`_LANES` (the
    ``()`` only while it has fewer than 1024 entries), by exact int sizes, so
    that a float or bool size cannot find another size's tables.
    """
    key = s0 if s1 is None else (s0, s1)
    sizes = (s0,) if s1 is None else (s0, s1)
    if any(type(s) is not int or s <= 0 or s & (s - 1) for s in sizes):
        if len(_LANES) < 1024:
            _LANES[key] = ()
        return ()
    k = [s.bit_length() - 1 for s in sizes]
    n = sum(k)
    if max(sizes) > _LANE_MAX:  # see _wide_columns
        t: tuple[Any, ...] = (None, None, None, None, None, (), [], k[0], k[-1] if s1 else 0, {})
        if len(_LANES) < 1024:
            _LANES[key] = t
        return t
    R = [tuple(range(s)) for s in sizes]

    def top_bits(s: int, first: int) -> tuple[int, ...]:
        return tuple(first + v.bit_length() - 1 if v else n for v in range(s))

    if s1 is None:
        t = (R[0], (), (), top_bits(s0, 0), (), (0,) * n + (1,), [1] * (n + 1), k[0], 0, {})
    else:
        t = (R[0], R[1], tuple(y * s0 for y in range(s1)), top_bits(s0, 0), top_bits(s1, k[0]), (0,) * n + (1,),
             [1] * (n + 1), k[0], k[1], {})
    _LANES[key] = t
    return t


def _wide_columns(bases: dict[Any, Any], s0: int, s1: int) -> tuple[DimSpec, Columns] | None:
    """The fast lane of :func:`parse_bases` for sizes past 256 (``s1 = 0``: one output dimension).

    Entries are checked by type (``type(x) is int``) and range, and packed as
    ``x + y * s0``; the input dimensions and columns, or None for anything
    else (then the general route reports the problem or packs the odd entry).
    """
    kind, Int, Str, List, Tuple = type, int, str, list, tuple
    ins = []
    cols = []
    try:
        for name, blist in bases.items():
            if kind(name) is not Str or not name or (kind(blist) is not List and kind(blist) is not Tuple):
                return None
            flat: list[int] = []
            if s1:
                for b in blist:
                    if kind(b) is not List and kind(b) is not Tuple:
                        return None
                    x, y = b  # ValueError unless two entries
                    if kind(x) is not Int or kind(y) is not Int or not 0 <= x < s0 or not 0 <= y < s1:
                        return None
                    flat.append(x + y * s0)
            else:
                for b in blist:
                    if kind(b) is List or kind(b) is Tuple:
                        (b,) = b  # ValueError unless one entry
                    if kind(b) is not Int or not 0 <= b < s0:
                        return None
                    flat.append(b)
            ins.append((name, len(flat)))
            cols.append(tuple(flat))
    except ValueError:
        return None
    return tuple(ins), tuple(cols)


def parse_bases_general(bases: Any, out_dims: Any = None, *, surjective: bool = False
                        ) -> tuple[DimSpec, DimSpec, Columns]:
    """:func:`parse_bases` for any accepted form, without its fast lane (same results, same errors).

    It is the reference of the fast lane (the tests compare them) and the
    route of every input the lane does not take.

    >>> parse_bases_general({"lane": [[0, 1], [1, 0]]}, {"dim0": 2, "dim1": 4})
    ((('lane', 2),), (('dim0', 1), ('dim1', 2)), ((2, 1),))
    """
    # The input dimensions: names checked (a dict cannot repeat one).
    if type(bases) is dict:
        entries = bases.items()
        for name in bases:
            if type(name) is not str or not name:
                check_name(name, "input dimension")
    else:
        entries = _input_entries(bases)

    # The output dimensions: the fast lane takes a dict of power-of-two ints.
    outs: list[tuple[str, int | None]] | None = None
    offs: list[int] = []
    lims: list[int] = []
    sized = False
    if type(out_dims) is dict:
        outs = []
        o = 0
        for n, sz in out_dims.items():
            if type(n) is not str or not n or type(sz) is not int or sz <= 0 or sz & (sz - 1):
                outs = None
                break
            b = sz.bit_length() - 1
            outs.append((n, b))
            offs.append(o)
            lims.append(sz)
            o += b
        else:
            sized = True
    if out_dims is not None and not sized:  # anything unusual: the general route
        outs = _output_entries(out_dims)
        if all(b is not None for _, b in outs):
            sized = True
            offs = dim_offsets(outs)  # type: ignore[arg-type]
            lims = [1 << b for _, b in outs]  # type: ignore[operator]
    nout = None if outs is None else len(outs)
    pair = sized and nout == 2
    if pair:
        s0, s1 = lims
        o1 = offs[1]
        square = s0 == s1
    elif sized and nout:
        s0 = lims[0]

    # The bases, packed as they come when every size is known, else kept as
    # coordinates until the sizes are inferred.  Entries outside their size
    # are reported after every other check, for the first output dimension.
    ins = []
    cols: list[tuple[Any, ...]] = []
    outside: list[tuple[int, str, int, int]] = []
    for name, blist in entries:
        if type(blist) is not list and type(blist) is not tuple:
            blist = _basis_list(name, blist)
        flat: list[Any] = []
        if pair:  # the fast lane of the common case: [x, y] pairs of ints in range
            add = flat.append
            for b in blist:
                if (type(b) is list or type(b) is tuple) and len(b) == 2:
                    x, y = b
                    # both in range: for non-negative ints and a power-of-two size, x | y < s0 says both are
                    if type(x) is type(y) is int and (0 <= x | y < s0 if square else 0 <= x < s0 and 0 <= y < s1):
                        add(x | y << o1)
                        continue
                k = len(flat)
                flat.append(_pack_checked(_basis_coords(b, k, name, outs, nout), k, name, offs, lims, outside))
        elif sized:  # the fast lane of any other number of output dimensions
            for b in blist:
                tb = type(b)
                if tb is int:
                    if nout == 1 and 0 <= b < s0:
                        flat.append(b)
                        continue
                elif (tb is list or tb is tuple) and len(b) == nout:
                    v = 0
                    for x, o, lim in zip(b, offs, lims):
                        if type(x) is not int or not 0 <= x < lim:
                            break
                        v |= x << o
                    else:
                        flat.append(v)
                        continue
                k = len(flat)
                flat.append(_pack_checked(_basis_coords(b, k, name, outs, nout), k, name, offs, lims, outside))
        else:  # sizes to infer: coordinates for now
            for b in blist:
                coords = _basis_coords(b, len(flat), name, outs, nout)
                if nout is None:
                    nout = len(coords)
                flat.append(coords)
        ins.append((name, len(flat)))
        cols.append(tuple(flat))

    if not sized:
        # Infer the missing sizes, then pack.
        if outs is None:
            outs = [(f"dim{i}", None) for i in range(nout or 0)]
        resolved = []
        for i, (n, b) in enumerate(outs):
            if b is None:
                top = 0
                for rows in cols:
                    for r in rows:
                        top |= r[i]
                b = top.bit_length()
            resolved.append((n, b))
        outs = resolved
        offs = dim_offsets(outs)  # type: ignore[arg-type]
        lims = [1 << b for _, b in outs]  # type: ignore[operator]
        cols = [tuple(_pack_checked(r, k, name, offs, lims, outside) for k, r in enumerate(rows))
                for (name, _), rows in zip(ins, cols)]
    if outside:
        i, name, k, x = min(outside, key=lambda t: t[0])  # the first output dimension, then the first basis
        n, b = outs[i]
        size = 1 << b  # type: ignore[operator]
        raise BasisError(
            f"basis {k} of {name!r} has {n} = {x}, outside the output size "
            f"{size}; enlarge {n!r} to {1 << x.bit_length()} or fix the basis"
        )
    outs, cols = tuple(outs), tuple(cols)  # type: ignore[assignment]
    if surjective:
        check_surjective(outs, cols)  # type: ignore[arg-type]
    return tuple(ins), outs, cols  # type: ignore[return-value]


def check_surjective(outs: DimSpec, cols: Columns) -> None:
    """Raise :class:`NotInvertibleError` unless the columns (a layout's flat bases) span every output bit.

    The usual case, every unit vector among the columns, is settled without the rank.

    >>> check_surjective((("dim0", 2),), ((1, 0), (3,)))   # 1 and 3 span both bits
    >>> check_surjective((("dim0", 2),), ((1, 0), (1,)))
    Traceback (most recent call last):
    ...
    linlayout.errors.NotInvertibleError: the layout is not surjective: rank 1 < 2 output bits; some tensor elements are never reached
    """
    if unit_columns(outs).difference(*cols):
        n, r = sum(b for _, b in outs), f2.rank(set().union(*cols))
        if r != n:
            raise NotInvertibleError(
                f"the layout is not surjective: rank {r} < {n} output bits; some tensor elements are never reached"
            )


def _input_entries(bases: Any) -> list[tuple[Any, Any]]:
    """The ``(name, bases)`` entries of any accepted ``bases`` form, names checked and unique."""
    if isinstance(bases, Mapping):
        items = list(bases.items())
    else:
        try:
            items = [tuple(p) for p in bases]
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
        check_name(name, "input dimension")
        if name in seen:
            raise DimensionError(f"input dimension {name!r} appears twice; merge its bases into one list")
        seen.add(name)
    return items  # type: ignore[return-value]


def _output_entries(out_dims: Any) -> list[tuple[str, int | None]]:
    """The ``(name, log2 size or None)`` pairs of any accepted ``out_dims`` form, checked."""
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
                    n, s = p
                except (TypeError, ValueError):
                    raise DimensionError(
                        f"each out_dims entry must be a name or a (name, size) pair, got {p!r}"
                    ) from None
                pairs.append((n, s))
    outs: list[tuple[str, int | None]] = []
    for n, s in pairs:
        check_name(n, "output dimension")
        if any(n == m for m, _ in outs):
            raise DimensionError(f"output dimension {n!r} appears twice in out_dims")
        outs.append((n, None if s is None else log2_size(s, f"size of output dimension {n!r}")))
    return outs


def _basis_list(name: str, blist: Any) -> list[Any]:
    """The bases of one input dimension as a list, or the error naming it."""
    if isinstance(blist, (str, bytes, Mapping)) or not isinstance(blist, Iterable):
        raise BasisError(f"bases of {name!r} must be a list of bases, got {blist!r}")
    return list(blist)


def _basis_coords(b: Any, k: int, name: str, outs: list[tuple[str, int | None]] | None,
                  nout: int | None) -> tuple[int, ...]:
    """Basis ``k`` of ``name`` in any accepted form as non-negative ints, or the error naming it."""
    if isinstance(b, (str, bytes)):
        raise BasisError(f"basis {k} of {name!r} must be ints, got {b!r}")
    if isinstance(b, Iterable):
        coords = tuple(as_int(x, f"entry of basis {k} of {name!r}") for x in b)
    else:
        coords = (as_int(b, f"basis {k} of {name!r}"),)
        if nout is not None and nout != 1:
            raise BasisError(
                f"basis {k} of {name!r} is a plain int, but there are {nout} output "
                f"dimensions; write it as a list of {nout} ints"
            )
    if nout is not None and len(coords) != nout:
        names = "" if outs is None else " " + str([n for n, _ in outs])
        raise BasisError(
            f"basis {k} of {name!r} has {len(coords)} entries but there are {nout} output "
            f"dimensions{names}; give one int per output dimension"
        )
    for x in coords:
        if x < 0:
            raise BasisError(f"basis {k} of {name!r} has a negative entry {x}; entries are bit vectors >= 0")
    return coords


def _pack_checked(coords: tuple[int, ...], k: int, name: str, offs: list[int], lims: list[int],
                  outside: list[tuple[int, str, int, int]]) -> int:
    """Pack one basis; note in ``outside`` each entry past its size as ``(output index, name, k, value)``."""
    v = 0
    for i, (x, o, lim) in enumerate(zip(coords, offs, lims)):
        if x >= lim:
            outside.append((i, name, k, x))
        v |= x << o
    return v


def parse_flat(in_dims: DimSpec, out_dims: DimSpec, columns: Any, *, check: bool = True) -> FlatLayout:
    """Check flat layout data: ``(name, log2 size)`` pairs and one flat int per input bit.

    Returns the data as tuples of Python ints and strings.  ``check=False``
    skips the checks (for data built from valid layouts): when all three are
    tuples they are taken as they are (a layout's own data, tuples of
    tuples); other sequences are made into tuples.

    >>> parse_flat((("offset", 2),), (("dim0", 1), ("dim1", 1)), [(2, 1)])
    ((('offset', 2),), (('dim0', 1), ('dim1', 1)), ((2, 1),))
    >>> parse_flat((("offset", 1),), (("dim0", 1),), [(2,)])
    Traceback (most recent call last):
    ...
    linlayout.errors.BasisError: from_flat: basis 0 of 'offset' is 2, outside 0..1
    """
    if not check:  # data from valid layouts: only made into tuples
        if type(in_dims) is tuple and type(out_dims) is tuple and type(columns) is tuple:
            return in_dims, out_dims, columns
        return (tuple([p if type(p) is tuple else tuple(p) for p in in_dims]),
                tuple([p if type(p) is tuple else tuple(p) for p in out_dims]),
                tuple([c if type(c) is tuple else tuple(c) for c in columns]))
    ins, outs = (tuple(_name_bits(p, f"{what}[{i}]") for i, p in enumerate(check_sequence(d, what)))
                 for d, what in ((in_dims, "in_dims"), (out_dims, "out_dims")))
    cols = tuple(check_int_sequence(c, f"columns[{i}]") for i, c in enumerate(check_sequence(columns, "columns")))
    if check:
        limit = 1 << sum(b for _, b in outs)
        if len(cols) != len(ins) or any(len(c) != b for c, (_, b) in zip(cols, ins)):
            raise BasisError("from_flat: one column per input bit is needed, for every input dimension")
        for (n, _), c in zip(ins, cols):
            for k, v in enumerate(c):
                if not 0 <= v < limit:
                    raise BasisError(f"from_flat: basis {k} of {n!r} is {v}, outside 0..{limit - 1}")
        for n, b in ins + outs:
            check_name(n, "dimension")
            if b < 0:
                raise SizeError(f"from_flat: dimension {n!r} has a negative bit count")
    return ins, outs, cols


def _name_bits(pair: Any, what: str) -> tuple[str, int]:
    """One ``(name, log2 size)`` pair of flat data, checked."""
    p = check_sequence(pair, what)
    if len(p) != 2:
        raise DimensionError(f"{what} must be a (name, log2 size) pair, got {pair!r}")
    return check_name(p[0], "dimension"), check_int(p[1], f"{what} log2 size", minimum=0)


def parse_matrix(matrix: Any, in_dims: DimsLike, out_dims: DimsLike) -> FlatLayout:
    """Check a 0/1 matrix (rows: output bits, columns: input bits) against its dimensions.

    >>> parse_matrix([[0, 1], [1, 0]], {"lane": 4}, {"dim0": 4})
    ((('lane', 2),), (('dim0', 2),), ((2, 1),))
    """
    ins = dims_with_sizes(in_dims, "in_dims")
    outs = dims_with_sizes(out_dims, "out_dims")
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
    return ins, outs, split_columns(cols, ins)
