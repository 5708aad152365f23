"""LinearLayout algebra: property tests against galois, and worked cases from the paper and Triton."""

from __future__ import annotations

import itertools
import pickle
from types import MappingProxyType

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from linlayout import LinearLayout
from linlayout.core import f2
from linlayout.errors import (
    BasisError,
    DimensionError,
    DivisionError,
    NoSolutionError,
    NotInvertibleError,
    SizeError,
)

from ..strategies import dims, layouts
from ..conftest import examples


def GF2(array):
    """galois' GF(2) array of ``array``, the oracle (a test that needs it is skipped without galois)."""
    return pytest.importorskip("galois").GF2(array)


OUT2 = [("dim0", 2), ("dim1", 2)]


def gmat(layout):
    return GF2(layout.matrix())


def all_inputs(layout):
    names = layout.in_dims
    sizes = [layout.in_size(n) for n in names]
    for vals in itertools.product(*(range(s) for s in sizes)):
        yield dict(zip(names, vals))


# ---------------------------------------------------------------- construction


def test_from_bases_and_inferred_sizes():
    L = LinearLayout({"register": [[0, 1], [8, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]})
    assert L.out_sizes == {"dim0": 16, "dim1": 8}
    assert L.in_sizes == {"register": 4, "lane": 32}
    L2 = LinearLayout([("lane", [1, 2])], ["flat"])
    assert L2.out_sizes == {"flat": 4}
    assert LinearLayout({"warp": [0, 0]}, ["dim0"]).out_sizes == {"dim0": 1}


# The constructor packs the common form (a dict of lists of [x, y] onto a dict of two sizes) in a lane of
# its own and hands anything else to the general route; a mapping that is not a dict takes the general
# route, so the two must give the same layout or the same error for any input.
_ENTRY = st.one_of(st.integers(0, 16), st.integers(0, 16), st.integers(0, 16),
                   st.sampled_from([-1, True, False, 1.0, "1", None, 2**70, np.int64(2)]))


@st.composite
def _basis_recipe(draw):
    kind = draw(st.sampled_from(["list"] * 12 + ["tuple", "iter", "int", "str", "short", "long"]))
    if kind == "int":
        return ("int", draw(_ENTRY))
    if kind == "str":
        return ("str", "12")
    n = {"short": 1, "long": 3}.get(kind, 2)
    return (kind, [draw(_ENTRY) for _ in range(n)])


def _basis(recipe):
    kind, v = recipe
    if kind in ("int", "str"):
        return v
    return {"tuple": tuple, "iter": iter}.get(kind, list)(v)


@st.composite
def _bases_recipe(draw):
    names = draw(st.lists(st.sampled_from(["register", "lane", "warp"] * 4 + ["", 7]), max_size=3, unique=True))
    holder = {n: draw(st.sampled_from(["list"] * 8 + ["tuple", "str", "int"])) for n in names}
    return [(n, holder[n], draw(st.lists(_basis_recipe(), max_size=4))) for n in names]


def _build(recipe):
    out = {}
    for name, holder, bases in recipe:
        if holder == "str":
            out[name] = "01"
        elif holder == "int":
            out[name] = 3
        else:
            out[name] = {"tuple": tuple}.get(holder, list)(_basis(b) for b in bases)
    return out


def _outcome(make):
    try:
        L = make()
    except Exception as e:  # noqa: BLE001  (the class and message are what is compared)
        return type(e), str(e)
    return L.in_dim_bits, L.out_dim_bits, tuple(L.flat_bases(n) for n in L.in_dims)


@settings(max_examples=examples(100), deadline=None)
@given(_bases_recipe(), st.lists(st.sampled_from([1, 2, 4, 8, 16] * 4 + [3, 0, -4, True, 2.0]), min_size=2, max_size=2),
       st.sampled_from([("dim0", "dim1")] * 8 + [("dim0", ""), ("x", 5)]), st.booleans())
def test_constructor_lanes_agree(recipe, sizes, names, onto):
    out_dims = dict(zip(names, sizes))
    fast = _outcome(lambda: LinearLayout(_build(recipe), dict(out_dims), require_surjective=onto))
    general = _outcome(lambda: LinearLayout(MappingProxyType(_build(recipe)), MappingProxyType(out_dims),
                                            require_surjective=onto))
    assert fast == general


@pytest.mark.parametrize("bases", [{"lane": [[4, 0]]}, {"lane": [[0, 8]]}, {"lane": [[3, 7], [0, 4]]}, {"lane": [[-1, 0]]},
                                   {"lane": [[0, -8]]}, {"lane": [[True, 0]]}, {"lane": [[1, 2], iter([1, 2])], "warp": [[9, 0]]},
                                   {"lane": [[1, 2], [1, 2, 3]]}, {"lane": [[1, 2], 5]}, {"lane": [(2, 1), (3, 7)]}])
def test_constructor_lanes_agree_at_the_edges(bases):
    out_dims = {"dim0": 4, "dim1": 8}
    again = {n: [iter([1, 2]) if type(b).__name__ == "list_iterator" else b for b in bs] for n, bs in bases.items()}
    assert _outcome(lambda: LinearLayout(bases, out_dims)) == _outcome(lambda: LinearLayout(MappingProxyType(again), out_dims))


@given(layouts(max_in_bits=6, max_out_bits=5))
def test_require_surjective_is_the_rank(L):
    bases = {n: [list(b) for b in bs] for n, bs in L.bases.items()}
    if L.rank() == L.out_bits:
        assert LinearLayout(bases, L.out_sizes, require_surjective=True) == L
    else:
        with pytest.raises(NotInvertibleError, match=f"rank {L.rank()} < {L.out_bits} output bits"):
            LinearLayout(bases, L.out_sizes, require_surjective=True)


def test_identity_strided_zeros():
    assert LinearLayout.identity(8, "i", "o").bases == {"i": [(1,), (2,), (4,)]}
    assert LinearLayout.strided(4, 2, "i", "o").out_sizes == {"o": 8}
    z = LinearLayout.zeros(4, "i", "o", out_size=8)
    assert z.out_sizes == {"o": 8} and z.rank() == 0
    assert z.free_variable_masks() == {"i": 0b11}
    with pytest.raises(SizeError, match="not a power of two"):
        LinearLayout.identity(6, "i", "o")


@given(layouts())
def test_from_matrix_round_trip(L):
    M = L.matrix()
    assert LinearLayout.from_matrix(M, L.in_sizes, L.out_sizes) == L
    assert LinearLayout.from_matrix(GF2(M), L.in_sizes, L.out_sizes) == L
    assert np.array_equal(np.asarray(L.to_galois()), M)


def test_from_matrix_shape_error():
    with pytest.raises(SizeError, match="shape"):
        LinearLayout.from_matrix(np.zeros((2, 3), dtype=np.uint8), {"i": 4}, {"o": 4})


def test_immutable_hashable_picklable():
    L = LinearLayout.identity(4, "i", "o")
    with pytest.raises(AttributeError):
        L._cols = ()
    with pytest.raises(AttributeError):
        L.foo = 1
    assert {L: 1}[LinearLayout.identity(4, "i", "o")] == 1
    assert pickle.loads(pickle.dumps(L)) == L
    assert L != LinearLayout.identity(4, "i", "p")
    assert (L == 3) is False


# ---------------------------------------------------------------- apply


@given(layouts(max_in_bits=3, max_out_bits=3))
def test_apply_is_matrix_vector_product(L):
    M = gmat(L)
    for x in all_inputs(L):
        flat_in = 0
        shift = 0
        for n in L.in_dims:
            flat_in |= x[n] << shift
            shift += L.in_size(n).bit_length() - 1
        vec = GF2([(flat_in >> i) & 1 for i in range(L.in_bits)])
        y = M @ vec if L.in_bits else GF2(np.zeros(L.out_bits, dtype=int))
        flat_out = sum(int(b) << i for i, b in enumerate(np.asarray(y)))
        assert L.apply_flat(x) == flat_out


def test_apply_large_dimension_uses_chunks():
    L = LinearLayout({"offset": [1 << k for k in range(20)]}, {"dim0": 1 << 20})
    for _ in range(2):  # the first calls evaluate directly, later ones through the tables
        for _ in range(5):
            assert L.apply({"offset": 0xABCDE}) == {"dim0": 0xABCDE}
        with pytest.raises(SizeError, match="outside its size"):
            L.apply(offset=1 << 20)
        with pytest.raises(DimensionError, match="no input dimension 'lane'"):
            L.apply(lane=1)


@given(st.integers(1, 20).flatmap(lambda n: st.lists(st.integers(0, 2**24 - 1), min_size=n, max_size=n)), st.data())
def test_apply_of_a_fresh_layout_on_wide_dimensions(cols, data):
    """The direct evaluation (a fresh layout) on dimensions of up to 20 bits is the XOR of the chosen bases."""
    v = data.draw(st.integers(0, (1 << len(cols)) - 1))
    want = 0
    for k, c in enumerate(cols):
        if v >> k & 1:
            want ^= c
    assert LinearLayout({"offset": cols}, {"dim0": 1 << 24}).apply(offset=v) == {"dim0": want}


@given(layouts(max_in_bits=4, max_out_bits=4), st.data())
def test_apply_direct_and_tables_agree(L, data):
    """A fresh layout evaluates directly; a layout evaluated often builds tables: same answers, same errors."""
    xs = [{n: data.draw(st.integers(0, L.in_size(n) - 1)) for n in L.in_dims} for _ in range(6)]
    used = LinearLayout(L.bases, L.out_sizes)
    for _ in range(8):
        used.apply(xs[0])
    for x in xs:
        fresh = LinearLayout(L.bases, L.out_sizes)
        assert fresh.apply(x) == used.apply(x) == L.out_coords(LinearLayout(L.bases, L.out_sizes).apply_flat(x))
    for bad, err in (({"nope": 0}, DimensionError), ({n: L.in_size(n) for n in L.in_dims[:1]}, SizeError)):
        if L.in_dims or err is DimensionError:
            for obj in (LinearLayout(L.bases, L.out_sizes), used):
                with pytest.raises(err):
                    obj.apply(bad)


# ---------------------------------------------------------------- rank & classification


@given(layouts())
def test_rank_and_properties_match_galois(L):
    r = int(np.linalg.matrix_rank(gmat(L))) if L.in_bits and L.out_bits else 0
    assert L.rank() == r
    assert L.is_surjective() == (r == L.out_bits)
    assert L.is_injective() == (r == L.in_bits)
    masks = L.free_variable_masks()
    for n in L.in_dims:
        for k in range(L.in_size(n).bit_length() - 1):
            assert bool(masks[n] >> k & 1) == (not any(L.basis(n, k)))


def test_classification():
    assert LinearLayout({"register": [[0, 1], [8, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": [[0, 0]]}).is_distributed()
    assert not LinearLayout({"lane": [[1, 0], [1, 0]]}, {"dim0": 2, "dim1": 1}).is_distributed()  # repeated
    assert not LinearLayout({"lane": [[1, 1]]}, {"dim0": 2, "dim1": 2}).is_distributed()  # weight 2, not surjective
    mem = LinearLayout({"offset": [[0, 1], [1, 1]]}, {"dim0": 2, "dim1": 2})
    assert mem.is_memory_layout() and not mem.is_distributed()
    assert not LinearLayout({"offset": [[1, 1], [1, 1]]}, {"dim0": 2, "dim1": 2}).is_memory_layout()


# ---------------------------------------------------------------- compose


@given(st.data())
def test_compose_is_matrix_product(data):
    mid = data.draw(dims(["dim0", "dim1", "dim2"], max_bits=3))
    A = data.draw(layouts(out_dims=mid, max_in_bits=3))
    # outer takes A's outputs (in another order, possibly larger) as inputs.
    order = data.draw(st.permutations(mid))
    grown = [(n, b + data.draw(st.integers(0, 1))) for n, b in order]
    B = data.draw(layouts(in_dims=grown, max_out_bits=3))
    C = A.compose(B)
    assert C == B @ A
    assert C.in_dims == A.in_dims and C.out_dims == B.out_dims
    for x in itertools.islice(all_inputs(A), 64):
        a = A.apply(x)
        assert C.apply(x) == B.apply(a)


def test_compose_argument_order_is_inner_then_outer():
    # A doubles (x -> 2x mod 8); B keeps the low 2 bits of its input reversed.
    A = LinearLayout({"i": [2, 4]}, {"m": 8})
    B = LinearLayout({"m": [2, 1, 0]}, {"o": 4})
    C = A.compose(B)  # first A, then B
    assert [C.apply(i=i)["o"] for i in range(4)] == [B.apply(m=A.apply(i=i)["m"])["o"] for i in range(4)]
    assert [C.apply(i=i)["o"] for i in range(4)] == [0, 1, 0, 1]


def test_compose_dimension_errors():
    A = LinearLayout.identity(4, "i", "m")
    with pytest.raises(DimensionError, match="must be"):
        A.compose(LinearLayout.identity(4, "x", "o"))
    with pytest.raises(SizeError, match="accepts only"):
        A.compose(LinearLayout.identity(2, "m", "o"))


# ---------------------------------------------------------------- inverses


@given(st.data())
def test_invert_matches_galois(data):
    outs = data.draw(dims(["dim0", "dim1"], max_bits=3))
    n = sum(b for _, b in outs)
    L = data.draw(layouts(in_dims=[("offset", n)], out_dims=outs, kind="invertible"))
    inv = L.invert()
    assert np.array_equal(np.asarray(gmat(inv)), np.asarray(np.linalg.inv(gmat(L))))
    assert L.compose(inv) == LinearLayout.identity(1 << n, "offset", "offset")
    assert inv.in_dims == L.out_dims and inv.out_dims == L.in_dims


def test_invert_errors_name_the_problem():
    with pytest.raises(NotInvertibleError, match=r"offset\[0\] \^ offset\[1\] \^ offset\[2\]"):
        LinearLayout({"offset": [1, 2, 3]}, {"dim0": 8}).invert()
    with pytest.raises(NotInvertibleError, match="2 input bits and 3 output bits"):
        LinearLayout({"offset": [1, 2]}, {"dim0": 8}).invert()


def _min_weight_solution(cols, y):
    best = None
    for x in range(1 << len(cols)):
        if f2.apply(cols, x) == y and (best is None or x.bit_count() < best.bit_count()):
            best = x
    return best


@given(st.data())
def test_pseudo_invert_right_inverse(data):
    L = data.draw(layouts(max_in_bits=3, max_out_bits=3))
    assume(L.is_surjective())
    P = L.pseudo_invert()
    for y in range(L.total_out_size):
        assert L.apply_flat(P.reshape_ins(L.out_sizes).apply(_split(y, L))) == y
    # Uses pivot columns only (free variables 0).
    _, pivots = f2.rref(L.flat_columns())
    mask = sum(1 << p for p in pivots)
    assert all(c & ~mask == 0 for c in P.flat_columns())


def _split(y, L):
    out = {}
    for n in L.out_dims:
        b = L.out_size(n).bit_length() - 1
        out[n] = y & ((1 << b) - 1)
        y >>= b
    return out


@given(st.data())
def test_pseudo_invert_minimum_weight_on_distributed(data):
    outs = data.draw(dims(["dim0", "dim1"], max_bits=3))
    n = sum(b for _, b in outs)
    extra = data.draw(st.integers(0, 3))
    L = data.draw(layouts(in_dims=[("register", extra), ("lane", n)], out_dims=outs, kind="distributed"))
    P = L.pseudo_invert()
    cols = L.flat_columns()
    for i, c in enumerate(P.flat_columns()):
        assert c.bit_count() == _min_weight_solution(cols, 1 << i).bit_count()


def test_pseudo_invert_tc3():
    L = LinearLayout({"register": [1, 0, 2]}, {"dim0": 4})
    assert L.free_variable_masks() == {"register": 0b010}
    X = L.pseudo_invert()
    assert X.bases == {"dim0": [(1,), (4,)]}
    assert all(L.apply(register=X.apply(dim0=y)["register"]) == {"dim0": y} for y in range(4))
    with pytest.raises(NotInvertibleError, match="not surjective"):
        LinearLayout({"register": [1, 0]}, {"dim0": 4}).pseudo_invert()


@given(st.data())
def test_invert_and_compose_identity(data):
    outs = data.draw(dims(["dim0", "dim1"], max_bits=3))
    n = sum(b for _, b in outs)
    A = data.draw(layouts(out_dims=outs, max_in_bits=3))
    B = data.draw(layouts(in_dims=[("register", data.draw(st.integers(0, 2))), ("lane", n)], out_dims=outs, kind="distributed"))
    C = A.invert_and_compose(B)
    assert C.in_dims == A.in_dims and C.out_dims == B.in_dims
    assert C.compose(B) == A


def test_invert_and_compose_keeps_common_bits_in_place():
    # Both layouts broadcast warp bit 0 and agree on lane bit 0: C maps them to themselves.
    A = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [0, 2]], "warp": [[0, 0]]}, {"dim0": 2, "dim1": 4})
    B = LinearLayout({"register": [[0, 2]], "lane": [[0, 1], [1, 0]], "warp": [[0, 0]]}, {"dim0": 2, "dim1": 4})
    C = A.invert_and_compose(B)
    assert C.compose(B) == A
    assert C.basis("lane", 0) == (0, 1, 0)  # (register, lane, warp): lane bit 0 stays lane bit 0
    assert C.basis("warp", 0) == (0, 0, 1)  # broadcast warp stays the same warp
    assert C.basis("lane", 1) == (1, 0, 0)  # A's lane bit 1 is B's register bit 0


def test_invert_and_compose_errors():
    A = LinearLayout({"lane": [[1, 0]]}, {"dim0": 2, "dim1": 2})
    B = LinearLayout({"lane": [[0, 1]]}, {"dim0": 2, "dim1": 2})
    with pytest.raises(NoSolutionError, match="never produces"):
        A.invert_and_compose(B)
    with pytest.raises(DimensionError):
        A.invert_and_compose(LinearLayout.identity(4, "lane", "x"))


# ---------------------------------------------------------------- product and division


@given(layouts(max_in_bits=3, max_out_bits=3), layouts(max_in_bits=3, max_out_bits=3))
def test_product_is_block_diagonal_and_division_undoes_it(A, B):
    P = A * B
    for n in P.out_dims:
        assert P.out_size(n) == (A.out_sizes.get(n, 1) * B.out_sizes.get(n, 1))
    # Evaluate: inputs split into A's low bits and B's high bits.
    for x in itertools.islice(all_inputs(P), 64):
        xa = {n: x[n] & (A.in_size(n) - 1) for n in A.in_dims}
        xb = {n: x[n] >> (A.in_size(n).bit_length() - 1 if n in A.in_sizes else 0) for n in B.in_dims}
        ya, yb = A.apply(xa), B.apply(xb)
        expect = {n: ya.get(n, 0) | (yb.get(n, 0) << (A.out_sizes.get(n, 1).bit_length() - 1)) for n in P.out_dims}
        assert P.apply(x) == expect
    # Division undoes the product.  The quotient keeps every dimension of the
    # product (size 1 where the factor had none), so compare after dropping those.
    QL = P.divide_left(A)
    assert (A * QL).equivalent(P)
    assert _drop_unit_dims(QL).equivalent(_drop_unit_dims(B))
    QR = P.divide_right(B)
    assert (QR * B).equivalent(P)


def _drop_unit_dims(L):
    ins = [n for n in L.in_dims if L.in_size(n) > 1]
    outs = [n for n in L.out_dims if L.out_size(n) > 1]
    return L.sublayout(ins, outs)


def test_product_classics():
    i4 = LinearLayout.identity(4, "in", "out")
    z2 = LinearLayout.zeros(2, "in", "out")
    assert [(i4 * z2).apply(**{"in": x})["out"] for x in range(8)] == [x % 4 for x in range(8)]
    assert [(z2 * i4).apply(**{"in": x})["out"] for x in range(8)] == [x // 2 for x in range(8)]
    assert (LinearLayout.empty() * i4) == i4 == (i4 * LinearLayout.empty())


def test_divide_errors():
    L = LinearLayout.identity(4, "register", "dim0") * LinearLayout.identity(4, "lane", "dim0")
    with pytest.raises(DivisionError, match="basis 0 of 'register'"):
        L.divide_left(LinearLayout({"register": [2]}, {"dim0": 4}))
    with pytest.raises(DivisionError, match="not an input"):
        L.divide_left(LinearLayout.identity(2, "warp", "dim0"))
    # lane bases touch the low output bits: not block diagonal.
    M = LinearLayout({"register": [1], "lane": [3]}, {"dim0": 4})
    with pytest.raises(DivisionError, match="touches the output bits"):
        M.divide_left(LinearLayout.identity(2, "register", "dim0"))


def test_divide_left_ldmatrix_style_tile():
    # A 16-bit layout whose first register and first two lane bits form the
    # ldmatrix tile (paper §5.3): divisible; swapping them breaks it.
    tile = LinearLayout({"register": [1], "lane": [2, 4]}, {"offset": 8})
    L = tile * LinearLayout({"register": [1], "lane": [2, 4, 8]}, {"offset": 16})
    assert L.divide_left(tile).in_sizes == {"register": 2, "lane": 8}
    bad = LinearLayout({"register": [2, 8], "lane": [1, 4, 16, 32, 64]}, {"offset": 128})
    with pytest.raises(DivisionError):
        bad.divide_left(tile)


# ---------------------------------------------------------------- reshape, transpose, sublayout, rename


@given(layouts(), st.data())
def test_reshape_and_transpose_round_trips(L, data):
    order = data.draw(st.permutations(list(L.in_dims)))
    assert L.transpose_ins(order).transpose_ins(L.in_dims) == L
    oorder = data.draw(st.permutations(list(L.out_dims)))
    T = L.transpose_outs(oorder)
    assert T.transpose_outs(L.out_dims) == L
    assert T.equivalent(L)
    flat = L.flatten_ins().flatten_outs()
    assert flat.reshape_ins(L.in_sizes).reshape_outs(L.out_sizes) == L
    assert flat.rank() == L.rank()
    # transpose_outs permutes matrix rows accordingly
    for x in itertools.islice(all_inputs(L), 16):
        assert T.apply(x) == L.apply(x)


def test_reshape_errors():
    L = LinearLayout.identity(8, "i", "o")
    with pytest.raises(SizeError, match="keep the total input size"):
        L.reshape_ins({"a": 4})
    with pytest.raises(SizeError):
        L.reshape_outs({"a": 16})
    with pytest.raises(DimensionError, match="permutation"):
        L.transpose_ins(["x"])


def test_sublayout_and_rename():
    L = LinearLayout({"register": [[0, 1]], "lane": [[1, 0], [0, 2]]}, {"dim0": 2, "dim1": 4})
    S = L.sublayout(["lane"], ["dim1"])
    assert S.bases == {"lane": [(0,), (2,)]} and S.out_sizes == {"dim1": 4}
    R = L.rename({"lane": "thread"}, {"dim0": "row"})
    assert R.in_dims == ("register", "thread") and R.out_dims == ("row", "dim1")
    with pytest.raises(DimensionError, match="duplicate"):
        L.rename({"lane": "register"})
    with pytest.raises(DimensionError):
        L.sublayout(["nope"], [])


# ---------------------------------------------------------------- worked cases


def test_tc1_paper_layout_a():
    # 16x16 tensor, j = bits 0..3 (dim1), i = bits 4..7 (dim0): out dims (dim1, dim0) minor first.
    A = LinearLayout(
        {"register": [[1, 0], [0, 1]], "lane": [[2, 0], [4, 0], [8, 0], [0, 2], [0, 4]], "warp": [[0, 8]]},
        {"j": 16, "i": 16},
    )
    assert A.apply(register=1, lane=9, warp=0) == {"j": 3, "i": 2}
    assert A.apply(register=2, lane=0) == {"j": 0, "i": 1}
    assert A.apply(register=0, lane=1) == {"j": 2, "i": 0}
    assert A.apply(register=3, lane=9) == {"j": 3, "i": 3}
    assert A.apply(register=0, lane=0, warp=1) == {"j": 0, "i": 8}
    assert A.rank() == 8 and A.is_invertible()
    flat = A.flatten_outs()
    assert flat.flat_columns() == [1, 16, 2, 4, 8, 32, 64, 128]


def test_tc2_two_d_swizzle_table():
    L = LinearLayout({"lane": [[1, 1], [2, 2]], "warp": [[0, 1], [0, 2]]}, {"dim0": 4, "dim1": 4})
    for t in range(4):
        for w in range(4):
            assert L.apply(lane=t, warp=w) == {"dim0": t, "dim1": w ^ t}
    assert L.apply(lane=3, warp=3) == {"dim0": 3, "dim1": 0}
    assert L.apply(lane=1, warp=1) == {"dim0": 1, "dim1": 0}
    assert L.apply(lane=2, warp=3) == {"dim0": 2, "dim1": 1}


def test_tc2_one_d_transpose():
    T = LinearLayout({"offset": [4, 8, 1, 2]}, {"dim0": 16})
    table = [T.apply(offset=x)["dim0"] for x in range(16)]
    assert table == [0x0, 0x4, 0x8, 0xC, 0x1, 0x5, 0x9, 0xD, 0x2, 0x6, 0xA, 0xE, 0x3, 0x7, 0xB, 0xF]
    inv = T.invert()
    assert inv.flat_columns() == [4, 8, 1, 2]
    # Self-inverse: applying the table twice is the identity.
    assert T.compose(T.rename({"offset": "dim0"}, {"dim0": "x"})) == LinearLayout.identity(16, "offset", "x")


def test_tc20_mma_swizzle_matrix():
    from linlayout.catalog.swizzles import mma_swizzle

    M = mma_swizzle(16, 32, vec=2, per_phase=1, max_phase=16)
    # Rows (dim0) bits are offset bits 5..8; their column images (the C block) are 2, 4, 8, 16.
    assert [b[1] for b in M.bases["offset"][5:]] == [2, 4, 8, 16]
    M2 = mma_swizzle(32, 64, vec=8, per_phase=2, max_phase=4)
    assert [b[1] for b in M2.bases["offset"][6:]] == [0, 8, 16, 0, 0]
    for M_, (rows, cols, vec, pp, mp) in ((M, (16, 32, 2, 1, 16)), (M2, (32, 64, 8, 2, 4))):
        assert M_.is_memory_layout()
        flat = M_.transpose_outs(["dim1", "dim0"]).flatten_outs()  # flat = i * cols + j
        # [[I, C], [0, I]] is an involution: its own inverse as a flat matrix.
        cols_ = flat.flat_columns()
        assert f2.matmul(cols_, cols_) == [1 << k for k in range(len(cols_))]
        inv = M_.invert()
        for i in range(rows):
            for j in range(cols):
                off = i * cols + ((((i // pp) % mp) ^ (j // vec)) * vec) % cols + j % vec
                assert inv.apply(dim0=i, dim1=j)["offset"] == off


# ---------------------------------------------------------------- text


def test_str_and_grid():
    L = LinearLayout({"register": [[0, 1]], "lane": [[0, 2], [1, 0]], "warp": [[0, 0]]}, {"dim0": 2, "dim1": 4})
    s = str(L)
    assert "register: [(0, 1)]" in s and "-> dim0(2) x dim1(4)" in s
    g = L.grid()
    assert g.splitlines()[1].split()[1:] == ["w0:t0:r0", "w0:t0:r1", "w0:t1:r0", "w0:t1:r1"]
    assert eval(repr(L), {"LinearLayout": LinearLayout}) == L
    part = LinearLayout({"lane": [[0, 1]]}, {"dim0": 2, "dim1": 2})
    assert part.grid().splitlines()[2].split() == ["1", ".", "."]
    mem = LinearLayout({"offset": [[0, 1], [1, 1]]}, {"dim0": 2, "dim1": 2})
    assert mem.grid().splitlines()[1:] == ["        0 0 1", "        1 3 2"]
    with pytest.raises(SizeError, match="up to 64"):
        LinearLayout.identity(128, "i", "o").grid()
