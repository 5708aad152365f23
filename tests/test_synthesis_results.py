"""Issue 12: every field of a SwizzleResult agrees with its exact reports, whatever the instruction
choice and vector width; general (mixed-basis) layouts; the committed Triton comparison set."""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st

from linlayout import LinearLayout
from linlayout.errors import LinLayoutError
from linlayout.synthesis import SwizzleError, optimal_swizzle

from .test_synthesis import layout_pairs

INSTRUCTION_SETS = [
    None,
    ["st.shared", "ldmatrix.x4"],
    ["stmatrix.x4", "ld.shared"],
    ["st.shared", "stmatrix.x4", "ld.shared", "ldmatrix.x4", "ldmatrix.x2"],
    ["st.shared", "ldmatrix.x4.trans"],
    ["stmatrix.x2", "ldmatrix.x1"],
]


def assert_result_agrees(res) -> None:
    """Every field of ``res`` equals what its exact reports (``.write``, ``.read``) say."""
    w, r = res.write, res.read
    assert (w.wavefronts, w.instructions) == (res.write_wavefronts, res.write_instructions)
    assert (r.wavefronts, r.instructions) == (res.read_wavefronts, res.read_instructions)
    assert (w.instruction, r.instruction) == (res.write_instruction, res.read_instruction)
    assert res.vector_bits == max(w.vector_bits, r.vector_bits)
    assert res.common_vector_bits == min(w.vector_bits, r.vector_bits)
    assert res.write_wavefronts >= res.lower_bound["write"] and res.read_wavefronts >= res.lower_bound["read"]
    d = res.to_dict()  # never raises after a successful synthesis
    assert d["write"]["wavefronts"] == res.write_wavefronts and d["read"]["wavefronts"] == res.read_wavefronts
    assert d["write"]["instructions"] == res.write_instructions and d["read"]["instructions"] == res.read_instructions
    assert d["optimal"] == res.optimal


@st.composite
def matrix_friendly_pairs(draw):
    """Layouts whose every lane and at least three registers are distinct tensor bits (matrix tiles can fit)."""
    eb = draw(st.sampled_from([8, 16, 32]))
    d = draw(st.integers(8, 11))
    r0 = draw(st.integers(0, d))
    outs = {"dim0": 1 << r0, "dim1": 1 << (d - r0)}

    def side():
        nwarp = draw(st.integers(0, d - 8))
        bits = draw(st.permutations(list(range(d))))
        flat = [1 << b for b in bits]
        lanes, warps, regs = flat[:5], flat[5:5 + nwarp], flat[5 + nwarp:]
        cut = lambda vs: [[v & ((1 << r0) - 1), v >> r0] for v in vs]  # noqa: E731
        return LinearLayout({"register": cut(regs), "lane": cut(lanes), "warp": cut(warps)}, outs)

    return side(), side(), eb


@settings(max_examples=120, deadline=None)
@given(st.one_of(layout_pairs(), matrix_friendly_pairs()), st.sampled_from(INSTRUCTION_SETS),
       st.sampled_from([None, 8, 16, 32, 64, 128]))
def test_every_field_agrees_with_the_exact_reports(pair, instructions, vector_bits):
    W, R, eb = pair
    try:
        res = optimal_swizzle(W, R, eb, vector_bits=vector_bits, instructions=instructions)
    except LinLayoutError:
        event("refused")
        return
    event(f"{res.write_instruction}/{res.read_instruction}")
    assert_result_agrees(res)
    if vector_bits is not None:
        for ins, rep in ((res.write_instruction, res.write), (res.read_instruction, res.read)):
            if ins in ("st.shared", "ld.shared"):
                assert rep.vector_bits == vector_bits


def test_vector_bits_applies_to_the_ld_st_side_beside_a_matrix_instruction():
    """Issue 12 §3: the result said 4 write wavefronts in 1 instruction, its own report 32 in 8."""
    SH = {"dim0": 16, "dim1": 16}
    W = LinearLayout({"register": [[0, 1], [0, 2], [0, 4]], "lane": [[0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]}, SH)
    R = LinearLayout({"register": [[0, 1], [8, 0], [0, 8]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, SH)
    narrow = optimal_swizzle(W, R, 16, vector_bits=16, instructions=["st.shared", "ldmatrix.x4"])
    assert_result_agrees(narrow)
    assert narrow.write.vector_bits == 16 and narrow.write_instructions == 8
    wide = optimal_swizzle(W, R, 16, vector_bits=128, instructions=["st.shared", "ldmatrix.x4"])
    assert_result_agrees(wide)
    assert wide.write.vector_bits == 128 and wide.write_instructions == 1
    try:
        optimal_swizzle(W, R, 16, vector_bits=64, instructions=["st.shared", "ldmatrix.x4.trans"])
    except SwizzleError:
        pass
