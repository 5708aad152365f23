"""JSON round trips, and malformed input of every kind raising only LinLayoutError."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from linlayout import LinearLayout, LinLayoutError
from linlayout.errors import BasisError, DimensionError, LayoutJSONError, SizeError
from linlayout.io.jsonio import layout_from_json

from ..strategies import layouts


@given(layouts())
def test_json_round_trip(L):
    text = L.to_json()
    assert LinearLayout.from_json(text) == L
    assert LinearLayout.from_json(json.loads(text)) == L
    # Ordered-pairs form carries the same layout.
    obj = json.loads(text)
    pairs = {"bases": [[k, v] for k, v in obj["bases"].items()], "out_dims": [[k, v] for k, v in obj["out_dims"].items()]}
    assert LinearLayout.from_json(json.dumps(pairs)) == L
    assert LinearLayout.from_json(LinearLayout.from_json(text).to_json()).to_json() == text


def test_issue_example_and_forms():
    doc = '{"bases": {"register": [[0, 1], [8, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": []}, "out_dims": {"dim0": 16, "dim1": 16}}'
    L = LinearLayout.from_json(doc)
    assert L.in_sizes == {"register": 4, "lane": 32, "warp": 1}
    assert L.out_sizes == {"dim0": 16, "dim1": 16}
    assert json.loads(L.to_json()) == json.loads(doc)
    one = LinearLayout.from_json('{"bases": {"offset": [1, 2, 4]}, "out_dims": {"x": 8}}')
    assert one.bases == {"offset": [(1,), (2,), (4,)]}
    inferred = LinearLayout.from_json('{"bases": {"lane": [[0, 1], [3, 0]]}}')
    assert inferred.out_sizes == {"dim0": 4, "dim1": 2}


@pytest.mark.parametrize(
    "doc, exc, fragment",
    [
        ("{", LayoutJSONError, "malformed layout"),
        ("[]", LayoutJSONError, "must be a JSON object"),
        ('{"out_dims": {"dim0": 4}}', LayoutJSONError, 'no "bases"'),
        ('{"bases": {}, "outdims": {}}', LayoutJSONError, "unknown key 'outdims'"),
        ('{"bases": {"lane": [[1.5]]}}', LayoutJSONError, "must hold integers"),
        ('{"bases": {"lane": [[true]]}}', LayoutJSONError, "must hold integers"),
        ('{"bases": {"lane": 3}}', LayoutJSONError, "must be a list"),
        ('{"bases": {"lane": [[1]]}, "out_dims": {"dim0": 6}}', SizeError, "not a power of two"),
        ('{"bases": {"lane": [[8]]}, "out_dims": {"dim0": 4}}', BasisError, "outside the output size 4"),
        ('{"bases": {"lane": [[1, 0]]}, "out_dims": {"dim0": 4}}', BasisError, "2 entries but there are 1"),
        ('{"bases": {"lane": [[-1]]}}', BasisError, "negative"),
        ('{"bases": [["lane", [1]], ["lane", [2]]]}', DimensionError, "appears twice"),
        ('{"bases": {"lane": [1, 2]}, "out_dims": {"dim0": 4, "dim1": 4}}', BasisError, "plain int"),
        ('{"bases": [["lane"]]}', LayoutJSONError, "ordered-pairs"),
        ('{"bases": {"lane": [1]}, "out_dims": [["dim0", "4"]]}', LayoutJSONError, "integers"),
    ],
)
def test_malformed_json_messages(doc, exc, fragment):
    with pytest.raises(exc, match=fragment) as info:
        layout_from_json(doc)
    assert isinstance(info.value, ValueError)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-40, 70) | st.floats(allow_nan=False, width=16) | st.text(max_size=4),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)

names = st.sampled_from(["register", "lane", "warp", "dim0", "dim1", "", "x"])
near_layouts = st.fixed_dictionaries(
    {
        "bases": st.one_of(
            st.dictionaries(names, st.lists(st.one_of(st.integers(-2, 40), st.lists(st.integers(-2, 40), max_size=3)), max_size=4), max_size=3),
            st.lists(st.tuples(names, st.lists(st.integers(-2, 40), max_size=3)), max_size=3),
            json_values,
        )
    },
    optional={
        "out_dims": st.one_of(
            st.dictionaries(names, st.integers(-3, 40), max_size=3),
            st.lists(st.one_of(names, st.tuples(names, st.integers(-3, 40))), max_size=3),
            json_values,
        )
    },
)


@given(st.one_of(json_values, near_layouts))
def test_random_documents_never_crash(doc):
    """Any JSON value (and many almost-layouts) gives a layout or a LinLayoutError, nothing else."""
    for source in (doc, json.dumps(doc)):
        try:
            L = layout_from_json(source)
        except LinLayoutError:
            continue
        # Whatever parsed must be a consistent layout.
        assert LinearLayout.from_json(L.to_json()) == L


@given(near_layouts)
def test_random_constructor_arguments_never_crash(doc):
    try:
        L = LinearLayout(doc["bases"], doc.get("out_dims"))
    except LinLayoutError:
        return
    assert all(len(b) == len(L.out_dims) for bl in L.bases.values() for b in bl)


@given(layouts(max_in_bits=3, max_out_bits=3), layouts(max_in_bits=3, max_out_bits=3), st.data())
def test_operations_on_random_pairs_raise_only_library_errors(A, B, data):
    """compose / invert / divide / reshape on arbitrary (mostly incompatible) pairs."""
    ops = [
        lambda: A.compose(B),
        lambda: A.invert(),
        lambda: A.pseudo_invert(),
        lambda: A.invert_and_compose(B),
        lambda: A.divide_left(B),
        lambda: A.divide_right(B),
        lambda: A.reshape_ins({"x": data.draw(st.integers(-1, 64))}),
        lambda: A.reshape_outs([("y", data.draw(st.integers(-1, 64)))]),
        lambda: A.transpose_outs(data.draw(st.lists(st.sampled_from(["dim0", "dim1", "dim2", "q"]), max_size=3))),
        lambda: A.sublayout(data.draw(st.lists(st.sampled_from(["register", "lane", "nope"]), max_size=2)), []),
        lambda: A.apply({data.draw(st.sampled_from(["register", "lane", "warp", "x", "zz"])): data.draw(st.integers(-5, 70))}),
        lambda: A.rename({data.draw(st.sampled_from(["register", "lane", "q"])): data.draw(st.sampled_from(["lane", "", "z"]))}),
    ]
    for op in ops:
        try:
            op()
        except LinLayoutError:
            pass


def test_apply_type_errors_are_library_errors():
    L = LinearLayout.identity(4, "lane", "dim0")
    with pytest.raises(LinLayoutError):
        L.apply(lane="3")
    with pytest.raises(LinLayoutError):
        L.apply(lane=1.0)
    with pytest.raises(LinLayoutError):
        LinearLayout({"lane": [[1]]}, {"dim0": True})
    with pytest.raises(LinLayoutError):
        LinearLayout("lane", None)
    with pytest.raises(LinLayoutError):
        LinearLayout({"lane": "12"})


def test_non_iterable_out_dims_is_a_library_error():
    # Found by test_random_constructor_arguments_never_crash: out_dims=False raised TypeError.
    for bad in (False, 5, 1.5):
        with pytest.raises(DimensionError, match="out_dims must be"):
            LinearLayout({}, bad)


def test_conflicts_and_convert_queries_become_query_values():
    """The JSON readers return the frozen query values, checked once; bad values are the library's InputError."""
    from linlayout.convert.query import ConversionQuery
    from linlayout.count.query import AccessQuery, AddressQuery
    from linlayout.errors import AccessError, InputError
    from linlayout.io.convert_io import convert_query_from_json
    from linlayout.io.jsonio import conflicts_query_from_json

    rows = {"bases": {"lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]}, "out_dims": {"dim0": 1, "dim1": 32}}
    q = conflicts_query_from_json({"layout": rows, "memory": {"row_major": [1, 32]}, "element_bits": 32, "op": "load"})
    assert isinstance(q, AccessQuery) and q.kind == "layout" and q.hardware == "sm90" and q.vector_bits is None
    a = conflicts_query_from_json({"op": "store", "access_bytes": 4, "lane_byte_offsets": [4 * l for l in range(32)]})
    assert isinstance(a, AddressQuery) and a.kind == "access" and a.ins.name == "st.shared"
    c = convert_query_from_json({"src": rows, "dst": rows, "element_bits": 16, "scratch_bytes": 512})
    assert isinstance(c, ConversionQuery) and c.scratch_bytes == 512 and c.multistep is True  # the default
    with pytest.raises(SizeError):
        conflicts_query_from_json({"layout": rows, "memory": {"row_major": [1, 32]}, "element_bits": 24})
    with pytest.raises(AccessError):
        conflicts_query_from_json({"op": "store", "access_bytes": 4, "lane_byte_offsets": [1] * 32})
    with pytest.raises(InputError, match="8, 16, 32 or 64"):
        convert_query_from_json({"src": rows, "dst": rows, "element_bits": 1})
