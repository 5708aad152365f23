"""The fast lane of ``parse_bases`` against its general route (``parse_bases_general``).

``parse_bases`` packs the common input form (a dict of lists of int lists, a dict of one or two
power-of-two sizes) itself and hands everything else to ``parse_bases_general``.  The two
must agree exactly: the same ``(in dims, out dims, columns)`` (same values, same types), or the
same exception type with the same message, with and without the surjectivity check.  The inputs
below are mostly valid, with odd entries mixed in (bools, negative and out-of-range ints, numpy
ints, floats, strings, int subclasses, bytes, generators, wrong lengths, odd names and sizes).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import linlayout.core.bases as bases_module
from linlayout import LinearLayout
from linlayout.core.bases import parse_bases, parse_bases_general
from linlayout.errors import NotInvertibleError
from ..conftest import examples


class IntLike(int):
    """An int subclass: the general route accepts it through ``operator.index``."""


# ---------------------------------------------------------------- specs, built afresh for each call
#
# A spec describes an input without holding it, so that one-shot objects (generators) can be built
# once for each parser.  Entry: [kind, value]; basis: [kind, [entries]] or ["plain", entry];
# bases: [kind, [[name, [kind, [bases]]]]]; out_dims: [kind or None, [[name, size entry]]].


def build_entry(e):
    kind, v = e
    return {
        "int": lambda: int(str(v)),  # made at run time, as a parser of text would
        "lit": lambda: v,
        "bool": lambda: bool(v),
        "np": lambda: np.int64(v),
        "float": lambda: float(v),
        "str": lambda: str(v),
        "none": lambda: None,
        "sub": lambda: IntLike(v),
    }[kind]()


def build_seq(kind, items):
    if kind == "list":
        return list(items)
    if kind == "tuple":
        return tuple(items)
    if kind == "gen":
        return (x for x in items)
    if kind == "bytes":
        return bytes(x % 256 for x in items if isinstance(x, int))
    raise AssertionError(kind)


def build_basis(b):
    kind, body = b
    if kind == "plain":
        return build_entry(body)
    return build_seq(kind, [build_entry(e) for e in body])


def build(spec):
    (bkind, dims), (okind, pairs) = spec[:2]
    items = [(name, build_seq(lkind, [build_basis(b) for b in blist])) for name, (lkind, blist) in dims]
    bases = dict(items) if bkind == "dict" else items
    if okind is None:
        return bases, None
    if okind == "dict":
        out_dims = {n: build_entry(s) for n, s in pairs}
    elif okind == "pairs":
        out_dims = [(n, build_entry(s)) for n, s in pairs]
    else:
        out_dims = [n for n, _ in pairs]
    return bases, out_dims


SIZES = [1, 2, 4, 8, 16, 32, 64, 128, 256]


ODD_ENTRIES = ["lit", "bool", "bool", "np", "np", "float", "str", "none", "sub", "sub", "negative", "outside", "255", "256",
               "257"]


def odd_entry(kind, good, size):
    return {"negative": ("int", -1 - good), "outside": ("int", size + good), "255": ("int", 255), "256": ("int", 256),
            "257": ("int", 257), "bool": ("bool", good & 1), "str": ("str", str(good)), "none": ("none", None)
            }.get(kind, (kind, good))


@st.composite
def valid_specs(draw):
    """A valid input of the lane's form: a dict of lists (or tuples) of bases, one or two sizes."""
    nout = draw(st.sampled_from([1, 2, 2]))
    sizes = [draw(st.sampled_from(SIZES + [512, 4096])) for _ in range(nout)]
    in_names = draw(st.lists(st.sampled_from(["register", "lane", "warp", "block"]), max_size=3, unique=True))
    dims = []
    for name in in_names:
        blist = []
        for _ in range(draw(st.integers(0, 7))):
            body = []
            for size in sizes:
                bits = [0] + [1 << k for k in range(size.bit_length() - 1)]
                body.append(["int", draw(st.one_of(st.sampled_from(bits), st.integers(0, size - 1)))])
            plain = nout == 1 and draw(st.booleans())
            blist.append(["plain", body[0]] if plain else [draw(st.sampled_from(["list"] * 3 + ["tuple"])), body])
        dims.append([name, [draw(st.sampled_from(["list"] * 8 + ["tuple"])), blist]])
    return [["dict", dims], ["dict", [[n, ["int", s]] for n, s in zip(["dim0", "dim1"], sizes)]], sizes]


@st.composite
def specs(draw):
    """A valid input of the lane's form with up to two changes, each of which may make it odd or invalid."""
    spec = draw(valid_specs())
    (bases, out, sizes) = spec
    for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2]))):
        where = draw(st.sampled_from(["entry"] * 3 + ["basis", "length", "dim list", "in name", "out name", "size",
                                                      "forms", "third output", "wide size"]))
        dims = bases[1]
        bs = [b for _, (_, blist) in dims for b in blist]
        if where == "entry" and bs:
            b = draw(st.sampled_from(bs))
            body = [b[1]] if b[0] == "plain" else b[1]
            if body:
                i = draw(st.integers(0, len(body) - 1))
                size = sizes[i] if i < len(sizes) else 2
                good = body[i][1] if type(body[i][1]) is int else 1
                body[i][:] = odd_entry(draw(st.sampled_from(ODD_ENTRIES)), good, size)
        elif where == "basis" and bs:
            b = draw(st.sampled_from(bs))
            if b[0] != "plain":
                b[0] = draw(st.sampled_from(["gen", "bytes"]))
            else:
                b[:] = ["list", [b[1], ["int", 0]]]
        elif where == "length" and bs:
            b = draw(st.sampled_from(bs))
            if b[0] != "plain":
                b[1] = b[1][:-1] if draw(st.booleans()) else b[1] + [["int", 0]]
        elif where == "dim list" and dims:
            draw(st.sampled_from(dims))[1][0] = "gen"
        elif where == "in name":
            dims.append([draw(st.sampled_from(["", 7, "register"])), ["list", []]])
        elif where == "out name":
            out[1][0][0] = draw(st.sampled_from(["", "dim1", 5]))
        elif where == "size":
            out[1][-1][1] = draw(st.sampled_from([["int", 3], ["int", 0], ["int", -4], ["bool", 1], ["float", 2],
                                                  ["np", 2], ["lit", 2], ["sub", 2], ["int", 512]]))
        elif where == "forms":
            choice = draw(st.sampled_from(["pairs", "out pairs", "out names", "no out"]))
            if choice == "pairs":
                bases[0] = "pairs"
            else:
                out[0] = {"out pairs": "pairs", "out names": "names", "no out": None}[choice]
        elif where == "third output":
            out[1].append(["dim2", ["int", 2]])
        elif where == "wide size":
            out[1][0][1] = ["int", 512]
    return spec


def _shape(x):
    """``x`` with the type of every leaf: equal results must also be equal in kind (exact ints, exact strs)."""
    if isinstance(x, tuple):
        return tuple(_shape(y) for y in x)
    return (type(x).__name__, x)


def fixed(bases, out_dims):
    """A spec that is a given input (for inputs a parser cannot consume)."""
    return lambda: (bases, out_dims)


def outcome(parse, spec, surjective):
    """``parse`` on the input of ``spec`` (or of a callable returning it): its result or its exception."""
    bases, out_dims = spec() if callable(spec) else build(spec)
    try:
        return "ok", _shape(parse(bases, out_dims, surjective=surjective))
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return "error", type(e).__name__, str(e)


@settings(max_examples=examples(100), deadline=None)
@given(specs(), st.booleans())
def test_fast_lane_matches_general_route(spec, surjective):
    assert outcome(parse_bases, spec, surjective) == outcome(parse_bases_general, spec, surjective)


@settings(max_examples=examples(100), deadline=None)
@given(st.sampled_from([(s,) for s in SIZES] + [(a, b) for a in SIZES for b in SIZES]), st.data())
def test_fast_lane_on_valid_unit_heavy_bases(sizes, data):
    """Valid inputs the lane takes: the same layout as the general route, and the same surjectivity verdict."""
    bits = sum(s.bit_length() - 1 for s in sizes)
    names = ["dim0", "dim1"][:len(sizes)]

    def unit(i):
        return 1 << data.draw(st.integers(0, sizes[i].bit_length() - 2)) if sizes[i] > 1 else 0

    def column():
        shape = data.draw(st.sampled_from(["unit"] * 4 + ["zero", "two units", "two units", "any"]))
        if shape == "any":
            return [data.draw(st.integers(0, s - 1)) for s in sizes]
        if shape == "two units":
            return [unit(i) for i in range(len(sizes))]
        col = [0] * len(sizes)
        if shape == "unit":
            i = data.draw(st.integers(0, len(sizes) - 1))
            col[i] = unit(i)
        return col

    nin = data.draw(st.integers(0, bits + 3))
    cols = [column() for _ in range(nin)]
    cut = data.draw(st.integers(0, nin))
    spec = (("dict", [(name, ("list", [("list", [("int", v) for v in c]) for c in part]))
                      for name, part in (("register", cols[:cut]), ("lane", cols[cut:]))]),
            ("dict", [(n, ("int", s)) for n, s in zip(names, sizes)]))
    for surjective in (False, True):
        assert outcome(parse_bases, spec, surjective) == outcome(parse_bases_general, spec, surjective)


# ---------------------------------------------------------------- the lane is taken where it should be

OUT = {"dim0": 128, "dim1": 128}
BLOCKED = {"register": [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0], [64, 0]],
           "lane": [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], "warp": [[4, 0], [8, 0], [0, 64]]}
SHARED = {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0],
                     [32, 0], [64, 0], [0, 64]]}
BROADCAST = {"register": [(0, 1), (0, 0)], "lane": [(1, 0), (2, 0), (0, 2)], "warp": [(0, 0)]}


def _spy(monkeypatch, name: str) -> list:
    """Replace ``bases_module.<name>`` (looked up as a module global) by a wrapper recording each call's arguments."""
    calls = []
    real = getattr(bases_module, name)

    def spy(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(bases_module, name, spy)
    return calls


@pytest.fixture
def rank_checks(monkeypatch):
    """Counts the calls of ``check_surjective`` (the rank) made by the lane."""
    return _spy(monkeypatch, "check_surjective")


@pytest.mark.parametrize("bases, out_dims", [
    (BLOCKED, OUT), (BROADCAST, {"dim0": 4, "dim1": 4}), ({"offset": [1, 2, 4, 8]}, {"flat": 16}),
    ({"offset": [1, 3, 6]}, {"flat": 8}),  # highest bits 0, 1, 2: independent
    ({"lane": [[1, 1], [0, 1]]}, {"dim0": 2, "dim1": 2}),  # highest bits 1 and 1: the rank decides ...
])
def test_lane_settles_surjectivity_without_the_rank(rank_checks, bases, out_dims):
    assert LinearLayout(bases, out_dims, require_surjective=True).is_surjective()
    # ... only where some output bit is no column's highest bit
    assert len(rank_checks) == (bases == {"lane": [[1, 1], [0, 1]]})


@pytest.fixture
def general_calls(monkeypatch):
    """Counts the calls of the general route (``parse_bases`` looks it up as a module global)."""
    return _spy(monkeypatch, "parse_bases_general")


@pytest.mark.parametrize("bases, out_dims", [
    (BLOCKED, OUT), (SHARED, OUT), (BROADCAST, {"dim0": 4, "dim1": 4}),
    ({"offset": [1, 2, 4, 8]}, {"flat": 16}), ({"offset": [[1], [2]], "x": []}, {"flat": 4}),
    ({"lane": [[0, 255], [255, 0]]}, {"dim0": 256, "dim1": 256}),
    ({"lane": [[1, 0], [300, 1], (0, 1)]}, {"dim0": 512, "dim1": 2}),  # sizes past 256: the wide lane
    ({"lane": [[1, 0]], "warp": ([0, 4096],)}, {"dim0": 2, "dim1": 8192}),
    ({"offset": [1, 2, [1024], (2048,)]}, {"flat": 4096}),
])
def test_lane_takes_the_common_form(general_calls, bases, out_dims):
    given_input = fixed(bases, out_dims)
    got = [outcome(parse_bases, given_input, surjective) for surjective in (False, True)]
    assert general_calls == []
    assert got == [outcome(parse_bases_general, given_input, surjective) for surjective in (False, True)]


ODD_INPUTS = [  # (bases or a function making them, out_dims, the error of both routes or None)
    ({"lane": [[np.int64(3), 0]]}, {"dim0": 512, "dim1": 2}, None),  # sizes past 256: the wide lane
    ({"lane": [[True, 0]]}, {"dim0": 512, "dim1": 2}, "BasisError"),
    ({"lane": [[0, True]]}, {"dim0": 512, "dim1": 2}, "BasisError"),
    ({"lane": [[0, np.int64(1)]]}, {"dim0": 512, "dim1": 2}, None),
    ({"lane": [[512, 0]]}, {"dim0": 512, "dim1": 2}, "BasisError"),
    ({"lane": [[0, -1]]}, {"dim0": 512, "dim1": 2}, "BasisError"),
    ({"lane": [[1, 0, 0]]}, {"dim0": 512, "dim1": 2}, "BasisError"),
    ({"lane": [b"\x01\x00"]}, {"dim0": 512, "dim1": 2}, "BasisError"),
    ({"lane": [[1, 0]], "": []}, {"dim0": 2, "dim1": 512}, "DimensionError"),
    ({"lane": [4096]}, {"flat": 4096}, "BasisError"),
    ({"lane": [True]}, {"flat": 4096}, "BasisError"),
    ({"lane": [1.0]}, {"flat": 4096}, "BasisError"),
    ({"lane": [[1, 2]]}, {"flat": 4096}, "BasisError"),
    ({"lane": "ab"}, {"flat": 4096}, "BasisError"),
    (lambda: {"lane": (x for x in (1, 1.5))}, {"flat": 4096}, "BasisError"),
    (lambda: {"lane": [(x for x in (300, 0)), [1.5, 0]]}, {"dim0": 512, "dim1": 2}, "BasisError"),
    ({"lane": [1]}, {5: 2}, "DimensionError"),
    ({"lane": [1]}, {"": 2}, "DimensionError"),
    ({"lane": [[1, 0, 0]]}, {"dim0": 2, "dim1": 2, "dim2": 2}, None),  # three output dimensions
    ({"lane": [IntLike(1)]}, {"dim0": 2}, None),
    ({"lane": [[np.int64(1), 0]]}, {"dim0": 2, "dim1": 2}, None),
    ({"lane": [np.int64(1)]}, {"dim0": 2}, None),
    ({"lane": [[1, 0]]}, {"dim0": np.int64(2), "dim1": 2}, None),
    ({"lane": [[1, 0]]}, [("dim0", 2), ("dim1", 2)], None),
    ([("lane", [[1, 0]])], {"dim0": 2, "dim1": 2}, None),
    (lambda: {"lane": [(x for x in (1, 0))]}, {"dim0": 2, "dim1": 2}, None),  # a generator, built for each call
    ({"lane": [[True, 0]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[0, True]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[0, False]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[False, 1]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[1, True]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[0, np.int64(1)]]}, {"dim0": 2, "dim1": 2}, None),
    ({"lane": [[1, IntLike(1)]]}, {"dim0": 2, "dim1": 2}, None),
    ({"lane": [True]}, {"dim0": 2}, "BasisError"),
    ({"lane": [[1.0, 0]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [["1", 0]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[None, 0]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [b"\x01\x00"]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[-1, 0]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[0, -2]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [-1]}, {"dim0": 2}, "BasisError"),
    ({"lane": [[2, 0]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[0, 4]], "warp": [[3, 0]]}, {"dim0": 2, "dim1": 4}, "BasisError"),
    ({"lane": [257]}, {"dim0": 256}, "BasisError"),
    ({"lane": [[1, 2]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[1]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[1, 0, 0]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [1]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[1, 0]]}, {"dim0": 2}, "BasisError"),
    (lambda: {"lane": [(x for x in (1, 0, 0))], "warp": [[5, 0]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": [[1, 0]], "": [[0, 1]]}, {"dim0": 2, "dim1": 2}, "DimensionError"),
    ({"lane": [[1, 0]], 7: [[0, 1]]}, {"dim0": 2, "dim1": 2}, "DimensionError"),
    ({"lane": [[1, 0]]}, {"": 2, "dim1": 2}, "DimensionError"),
    ({"lane": [[1, 0]]}, {"dim0": 2, 5: 2}, "DimensionError"),
    ({"lane": [[1, 0]]}, {"dim0": 3, "dim1": 2}, "SizeError"),
    ({"lane": [[1, 0]]}, {"dim0": 2, "dim1": True}, "SizeError"),
    ({"lane": [[1, 0]]}, {"dim0": 2.0, "dim1": 2}, "SizeError"),
    ({"lane": [[0, 0]]}, {"dim0": 0, "dim1": 2}, "SizeError"),
    ({"lane": "ab"}, {"dim0": 2, "dim1": 2}, "BasisError"),
    ({"lane": "ab"}, {"dim0": 2}, "BasisError"),
    ({"lane": 3}, {"dim0": 2}, "BasisError"),
    ({"lane": [b"\x01"]}, {"dim0": 2}, "BasisError"),
    (lambda: {"lane": (x for x in (1, 1.5))}, {"dim0": 2}, "BasisError"),  # a list consumed, then a bad entry
    (lambda: {"lane": [(x for x in (1,)), 1.5]}, {"dim0": 2}, "BasisError"),
    (lambda: {"lane": [[1, 0], (x for x in (0, 1)), [1.5, 0]]}, {"dim0": 2, "dim1": 2}, "BasisError"),
]


@pytest.mark.parametrize("bases, out_dims, error", ODD_INPUTS)
def test_odd_inputs_take_the_general_route(general_calls, bases, out_dims, error):
    def given_input():
        return bases() if callable(bases) else bases, out_dims

    for surjective in (False, True):
        general_calls.clear()
        got = outcome(parse_bases, given_input, surjective)
        assert len(general_calls) == 1
        assert got == outcome(parse_bases_general, given_input, surjective)
        if error is not None:
            assert got[:2] == ("error", error)
        elif not surjective:
            assert got[0] == "ok"


@pytest.mark.parametrize("size", [1, 2, 128])
def test_cached_tables_do_not_take_look_alike_sizes(size):
    """The lane's tables are kept per size; an equal float, bool, numpy or subclass size must not find them."""
    for out_dims in ({"dim0": size}, {"dim0": size, "dim1": 2}, {"dim0": 2, "dim1": size}):
        bases = {"lane": [[s // 2 for s in out_dims.values()]]}
        parse_bases(bases, out_dims)  # the tables are made
        for odd in (float(size), np.int64(size), IntLike(size)) + ((True,) if size == 1 else ()):
            for key in out_dims:
                given_input = fixed(bases, {**out_dims, key: odd})
                for surjective in (False, True):
                    assert outcome(parse_bases, given_input, surjective) == \
                        outcome(parse_bases_general, given_input, surjective)


def test_surjectivity_in_the_lane():
    # every output bit has a unit column: surjective, no rank needed
    LinearLayout(BLOCKED, OUT, require_surjective=True)
    # no unit column for some bits, but full rank: surjective through the rank
    assert LinearLayout(SHARED, OUT, require_surjective=True).is_surjective()
    # a broadcast zero and a duplicate do not count
    with pytest.raises(NotInvertibleError, match=r"rank 2 < 3 output bits"):
        LinearLayout({"register": [[1, 0], [1, 0], [0, 0]], "lane": [[0, 1]]}, {"dim0": 4, "dim1": 2},
                     require_surjective=True)
    with pytest.raises(NotInvertibleError, match=r"rank 1 < 2 output bits"):
        LinearLayout({"offset": [3, 3, 0]}, {"dim0": 4}, require_surjective=True)
    # a mixed column completes the span, or does not
    assert LinearLayout({"offset": [[1, 0], [1, 1]]}, {"dim0": 2, "dim1": 2}, require_surjective=True).rank() == 2
    for bases in ({"offset": [[1, 1]]}, {"offset": [[1, 1], [0, 0], [1, 1]]}):
        with pytest.raises(NotInvertibleError, match=r"< 2 output bits"):
            LinearLayout(bases, {"dim0": 2, "dim1": 2}, require_surjective=True)


def test_layouts_of_one_shape_share_their_output_dimensions():
    """The lane keeps the output dimensions it built (per sizes and names): fresh layouts share them."""
    a, b = LinearLayout(BLOCKED, OUT), LinearLayout(SHARED, dict(OUT))
    assert a.out_dim_bits is b.out_dim_bits == (("dim0", 7), ("dim1", 7))
    c = LinearLayout({"offset": [1, 2]}, {"flat": 4})
    assert c.out_dim_bits is LinearLayout({"x": [2, 1]}, {"flat": 4}).out_dim_bits
    assert LinearLayout(BLOCKED, {"dim1": 128, "dim0": 128}).out_dim_bits == (("dim1", 7), ("dim0", 7))
