"""Work done once per query shape (issue 27): a query of a shape seen before is checked and answered as one seen
for the first time.

:func:`linlayout.synth.speed.query_shape_of` remembers a query's checked shape
(:class:`linlayout.synth.synthesis.QueryShape`) by its layouts' dimensions, the element width, the model, the
objective, the vector width and the instructions; the sides are read off each layout's bases
(:func:`linlayout.synth.sides.read_side`).  These tests ask, after a shape is remembered, the questions that a
key by value or a shape-only check could get wrong.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from linlayout import LinearLayout
from linlayout.errors import LinLayoutError, SwizzleError
from linlayout.hw import get_hardware
from linlayout.synth.sides import side_of
from linlayout.synth.speed import named_options_of
from linlayout.synth.synthesis import instruction_options, optimal_swizzle, swizzle_problem

SH = {"dim0": 16, "dim1": 32}
STORE = {"register": [[1, 0], [2, 0], [4, 0], [8, 0]], "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]}
READ = {"register": [[0, 2], [0, 4], [0, 8], [0, 16]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]}


def pair() -> tuple[LinearLayout, LinearLayout]:
    """The module doc's store and read layouts, as new objects."""
    return LinearLayout(STORE, SH), LinearLayout(READ, SH)


def costs(res) -> tuple:
    return (res.memory, res.write_wavefronts, res.read_wavefronts, res.write_instruction, res.read_instruction)


def test_arguments_equal_in_value_but_of_another_type_still_raise():
    """16.0 and True hash like 16 and 1: a remembered shape must not answer them."""
    optimal_swizzle(*pair(), 16)
    with pytest.raises(LinLayoutError):
        optimal_swizzle(*pair(), 16.0)
    optimal_swizzle(*pair(), 8, vector_bits=8)
    with pytest.raises(LinLayoutError):
        optimal_swizzle(*pair(), 8, vector_bits=True)


def test_instructions_as_list_tuple_or_name_agree_and_bad_names_raise():
    w, r = pair()
    listed = optimal_swizzle(w, r, 16, instructions=["st.shared", "ld.shared"])
    assert costs(optimal_swizzle(*pair(), 16, instructions=("st.shared", "ld.shared"))) == costs(listed)
    with pytest.raises(SwizzleError, match="no load"):
        optimal_swizzle(*pair(), 16, instructions="st.shared")
    with pytest.raises(LinLayoutError):
        optimal_swizzle(*pair(), 16, instructions=["st.shared", 7])


def test_a_remembered_shape_still_checks_each_layout_reaches_the_tensor():
    """The shape's checks pass once; whether the bases reach every element is asked of every layout, write first."""
    w, r = pair()
    optimal_swizzle(w, r, 16)
    short = dict(STORE, register=[[1, 0], [2, 0], [4, 0], [4, 0]])  # dim0 bit 3 is never reached
    with pytest.raises(SwizzleError, match="the write layout does not reach"):
        optimal_swizzle(LinearLayout(short, SH), LinearLayout(short, SH), 16)
    with pytest.raises(SwizzleError, match="the read layout does not reach"):
        optimal_swizzle(LinearLayout(STORE, SH), LinearLayout(short, SH), 16)


def test_equal_models_and_objectives_as_written_give_the_same_answer():
    sm90 = get_hardware("sm90")
    base = optimal_swizzle(*pair(), 16, hardware=sm90)
    assert costs(optimal_swizzle(*pair(), 16, hardware=replace(sm90))) == costs(base)
    assert optimal_swizzle(*pair(), 16, objective=" read ").objective == "read"


def test_the_problem_reads_the_same_side_as_side_of():
    """A read layout with its tensor dimensions in the other order is reordered to the write layout's, and the
    pipeline's side is the one :func:`side_of` finds on the layout."""
    w = LinearLayout(STORE, SH)
    r = LinearLayout(READ, SH).transpose_outs(["dim1", "dim0"])
    hw = get_hardware("sm90")
    p = swizzle_problem(w, r, 16, hw, "balanced", None, None)
    assert p.sides["read"] is side_of("read", "load", r, hw, w.out_dim_bits)
    fresh = side_of("read", "load", LinearLayout(READ, SH).transpose_outs(["dim1", "dim0"]), hw, w.out_dim_bits)
    assert fresh[:9] == p.sides["read"][:9] and fresh.distributed == p.sides["read"].distributed
    assert p.sides["read"].regs == side_of("read", "load", LinearLayout(READ, SH), hw, w.out_dim_bits).regs


def test_a_side_reads_its_bases_by_role_in_any_dimension_order():
    """Warps and blocks are the side's ``others`` (warps first); a missing dimension has no bases."""
    hw = get_hardware("sm90")
    tensor = {"dim0": 64, "dim1": 32}
    bases = [("block", [[0, 16]]), ("lane", [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]), ("register", [[0, 1], [0, 2]]),
             ("warp", [[32, 0], [0, 4], [0, 8]])]
    L = LinearLayout(bases, tensor)
    side = side_of("write", "store", L, hw, L.out_dim_bits)
    assert side.regs == L.flat_bases("register") and side.lanes == L.flat_bases("lane")
    assert side.others == L.flat_bases("warp") + L.flat_bases("block") and side.distributed
    no_warps = LinearLayout([("lane", [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]), ("register", [[0, 1]])], {"dim0": 32, "dim1": 2})
    assert side_of("read", "load", no_warps, hw, no_warps.out_dim_bits).others == ()


def test_named_options_are_remembered_by_the_names_and_bad_names_raise_every_time():
    """A new query shape with instruction names seen before finds the same option tuples (the tables found by
    their identity find them too); a name that fails a check is never stored."""
    names = ["stmatrix.x4", "st.shared", "ldmatrix.x2.trans", "ld.shared"]
    first = named_options_of(instruction_options, names)
    assert first == instruction_options(names)
    assert named_options_of(instruction_options, tuple(names)) is first
    assert named_options_of(instruction_options, list(names)) is first
    assert named_options_of(instruction_options, ["ld.shared", "st.shared"]) == instruction_options(
        ["ld.shared", "st.shared"])
    for _ in range(2):
        with pytest.raises(LinLayoutError):
            named_options_of(instruction_options, ["st.shared", "ld.shard"])
        with pytest.raises(SwizzleError, match="no load"):
            named_options_of(instruction_options, "st.shared")
        with pytest.raises(LinLayoutError):
            named_options_of(instruction_options, ["st.shared", 7])


def test_a_new_query_shape_with_known_side_shapes_checks_each_side():
    """The side readers of a new query shape are found by each side's shape (the write side's shape seen before,
    with a new element width): the answer is the one found fresh, and a side that is not distributed over the
    model's lanes raises every time."""
    w, r = pair()
    optimal_swizzle(w, r, 16)
    assert costs(optimal_swizzle(*pair(), 32)) == costs(optimal_swizzle(*pair(), 32))
    bad = LinearLayout({"register": STORE["register"], "lane": STORE["lane"][:4]}, {"dim0": 16, "dim1": 16})
    for _ in range(2):
        with pytest.raises(LinLayoutError):
            optimal_swizzle(bad, LinearLayout(READ, SH), 16)
