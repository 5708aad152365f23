"""The planner's rule "never more per thread than Triton 3.9" and the port of Triton's staging it relies on.

The pairs are rows of ``benchmarks/results/convert_vs_triton39.json`` (Triton 3.9.0's layouts compiled for
``cuda:90``); the counts named ``ptx`` are the conversion's per-thread counts in Triton's PTX there.
"""

from __future__ import annotations

import random

import pytest

from linlayout.convert import smem, warp
from linlayout.convert.cost import COST_WEIGHTS
from linlayout.convert.plan import plan_conversion
from linlayout.convert.smem import TRITON_BOUNDED, triton_counts, triton_round_trip, within_tritons_counts
from linlayout.convert.triton_scratch import matrix_register_order, renumber_registers
from linlayout.core.layout import LinearLayout
from linlayout.io.convert_io import to_cuda
from tests.convert.samples import random_pair

# The weights the premises below were found under (the rule itself does not depend on them).
WEIGHTS = {"selp": 3, "prmt": 3, "mov": 3, "shfl.sync": 3, "shared_instruction": 1, "wavefront": 2, "bar.sync": 2,
           "bar.warp.sync": 1, "spill": 1}


def layout(bases: dict, shape: tuple[int, int]) -> LinearLayout:
    return LinearLayout(dict(bases, block=[]), {"dim0": shape[0], "dim1": shape[1]})


# t39_254_linear_mma_32x32_w2_b8: PTX st.shared 4, ld.shared 4, bar.sync 1
LINEAR_TO_MMA = (
    layout({"register": [[4, 0], [1, 0], [8, 0], [16, 0]], "lane": [[0, 8], [2, 0], [0, 4], [0, 2], [0, 16]],
            "warp": [[0, 1]]}, (32, 32)),
    layout({"register": [[0, 1], [8, 0], [0, 16], [16, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
            "warp": [[0, 8]]}, (32, 32)),
    8)

# Triton's staging needs a matrix register renumbering (stmatrix: t39_23, 16-bit; ldmatrix: t39_407, 8-bit) or
# leaves two reps for .x4 (t39_86): (src, dst, bits, PTX counts)
PORT_CASES = {
    "t39_23_stmatrix_renumbered": (
        layout({"register": [[0, 1], [8, 0], [0, 8]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                "warp": [[16, 0], [32, 0]]}, (64, 16)),
        layout({"register": [[16, 0], [32, 0], [0, 2], [0, 4], [0, 8]], "lane": [[1, 0], [2, 0], [4, 0], [0, 0], [0, 1]],
                "warp": [[8, 0], [0, 0]]}, (64, 16)),
        16, {"stmatrix": 1, "ld.shared": 4, "bar.sync": 1}),
    "t39_407_ldmatrix_renumbered": (
        layout({"register": [[0, 1], [0, 2], [8, 0], [0, 16], [32, 0], [64, 0]],
                "lane": [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], "warp": [[0, 0], [0, 0], [16, 0]]}, (128, 32)),
        layout({"register": [[0, 4], [0, 8], [0, 16], [64, 0]], "lane": [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]],
                "warp": [[8, 0], [16, 0], [32, 0]]}, (128, 32)),
        8, {"st.shared": 4, "ldmatrix": 1, "bar.sync": 1}),
    "t39_86_leave_reps": (
        layout({"register": [[1, 0], [2, 0], [16, 0], [0, 8], [0, 16], [0, 32], [0, 64]],
                "lane": [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], "warp": [[0, 0]]}, (32, 128)),
        layout({"register": [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]],
                "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": [[16, 0]]}, (32, 128)),
        16, {"stmatrix": 16, "ldmatrix": 8, "bar.sync": 7}),
}


@pytest.fixture
def measured_weights(monkeypatch):
    for k, v in WEIGHTS.items():
        monkeypatch.setitem(COST_WEIGHTS, k, v)


def test_round_trip_never_exceeds_tritons_staging(monkeypatch, measured_weights):
    src, dst, bits = LINEAR_TO_MMA
    triton = triton_counts(triton_round_trip(src, dst, bits))
    assert triton == {"shared-memory instructions": 8, "barriers": 1, "shfl.sync": 0, "selp": 0}  # = the PTX
    with monkeypatch.context() as m:  # the cost model alone: two reps, to save byte packing
        m.setattr(smem, "within_tritons_counts", lambda rt, t: True)
        m.setattr(smem, "most_rep_bits", lambda t: None)  # the rule's bound on reps, which spares their synthesis
        free = plan_conversion(src, dst, bits)
    assert free.reps == 2 and triton_counts(free.shared_memory)["barriers"] > triton["barriers"]
    plan = plan_conversion(src, dst, bits)
    got = triton_counts(plan.shared_memory)
    assert plan.path == "shared_memory" and all(got[k] <= triton[k] for k in TRITON_BOUNDED)
    assert plan.cost >= free.cost and plan.shared_memory.triton_bound == triton
    assert "no more per thread than Triton 3.9's own staging (shared-memory instructions 8, barriers 1)" in plan.explain()


def test_the_rule_admits_everything_without_a_triton_staging():
    src, dst, bits = LINEAR_TO_MMA
    rt = triton_round_trip(src, dst, bits)
    assert within_tritons_counts(rt, None) and within_tritons_counts(rt, rt)
    # an explicit scratch limit under Triton's slice leaves no Triton staging to bound by
    assert plan_conversion(src, dst, bits, scratch_bytes=256).shared_memory.triton_bound is None



def test_the_bounded_round_trip_keeps_its_own_counts():
    # round_trip attaches Triton's counts to its choice and carries over the counts it priced it with: they must be
    # the counts a fresh copy of the same round trip makes
    for src, dst, bits in (LINEAR_TO_MMA, PORT_CASES["t39_86_leave_reps"][:3]):
        rt = smem.round_trip(src, dst, bits)
        fresh = smem.RoundTrip(rt.swizzle, rt.element_bits, rt.rep_bits, rt.scratch_bytes, rt.src_layout,
                               rt.dst_layout, rt.rep_count, rt.register_order)
        assert rt.triton_bound == triton_counts(triton_round_trip(src, dst, bits))
        assert rt.instructions == fresh.instructions and rt.barrier_instruction == fresh.barrier_instruction
        assert rt.cost == fresh.cost == plan_conversion(src, dst, bits, paths=["shared_memory"]).cost

def test_shuffles_never_exceed_the_packed_programs(monkeypatch, measured_weights):
    # t39_276_sliced_mma_16x16_w1_b16: Triton packs halves into words, 4 shfl.sync (PTX)
    src = layout({"register": [[0, 1], [8, 0], [0, 8]], "lane": [[1, 0], [2, 0], [4, 0], [0, 2], [0, 4]],
                  "warp": []}, (16, 16))
    dst = layout({"register": [[0, 1], [8, 0], [0, 8]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                  "warp": []}, (16, 16))
    with monkeypatch.context() as m:  # the cost model alone: eight unpacked shuffles, no packing
        m.setattr(warp, "packed_shuffle_bound", lambda packed: None)
        assert plan_conversion(src, dst, 16, paths=["shuffles"]).instructions["shfl.sync"] == 8
    plan = plan_conversion(src, dst, 16, paths=["shuffles"])
    assert plan.instructions["shfl.sync"] == 4


@pytest.mark.parametrize("name", sorted(PORT_CASES))
def test_tritons_matrix_staging_counts_equal_its_ptx(name):
    src, dst, bits, ptx = PORT_CASES[name]
    rt = triton_round_trip(src, dst, bits)
    assert rt is not None
    counts = {}
    for op, n in rt.instructions.items():
        if op.split(".")[0] in ("st", "ld", "stmatrix", "ldmatrix", "bar"):
            key = op.split(".")[0] if "matrix" in op else op
            counts[key] = counts.get(key, 0) + n
    assert counts == ptx


def test_renumbered_matrix_staging_is_emitted_as_matrix_instructions():
    src, dst, bits, _ = PORT_CASES["t39_23_stmatrix_renumbered"]
    rt = triton_round_trip(src, dst, bits)
    assert rt.register_order == ((2, 0, 1), ())  # src register 2 fills the stmatrix word
    assert rt.slice_layout("src") == renumber_registers(src, (2, 0, 1))
    plan = plan_conversion(src, dst, bits)
    assert plan.shared_memory.register_order == ((2, 0, 1), ())
    assert to_cuda(plan, src, dst).count('asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16') == 1


def test_matrix_register_order_needs_the_word_offsets():
    L = LinearLayout({"register": [[4], [1], [2]], "lane": [[8], [16], [32], [64], [128]]}, {"dim0": 256})
    M = LinearLayout.from_flat((("offset", 8),), (("dim0", 8),), ((1, 2, 4, 8, 16, 32, 64, 128),))
    assert matrix_register_order(L, M, 8) == (1, 2, 0)
    assert matrix_register_order(L, M, 16) == (1, 0, 2)
    wide = LinearLayout({"register": [[4], [8]], "lane": [[1], [16], [32], [64], [128]]}, {"dim0": 256})
    assert matrix_register_order(wide, M, 16) == ()  # offset 1 is a lane: no renumbering makes the word


def test_random_round_trips_stay_within_tritons_staging():
    rng = random.Random(25)
    bounded = 0
    for i in range(16):
        src, dst = random_pair(rng, warps=rng.choice([2, 4]), mixed=i % 2 == 0, max_regs_bits=3)
        bits = rng.choice([8, 16, 32])
        plan = plan_conversion(src, dst, bits, paths=["shared_memory"])
        triton = triton_round_trip(src, dst, bits)
        if triton is None:
            assert plan.shared_memory.triton_bound is None
            continue
        bounded += 1
        got, bound = triton_counts(plan.shared_memory), triton_counts(triton)
        assert all(got[k] <= bound[k] for k in TRITON_BOUNDED), (i, got, bound)
    assert bounded >= 8


def test_a_layout_without_registers_is_read_as_tritons_one_register_layout():
    # Triton's layouts always have a register dimension (size 1 for one element per thread); a layout written
    # without one is the same layout, so its model of Triton's staging and its plan are the same (the port
    # once read no lane index there and missed the stmatrix/ldmatrix staging below).
    out = {"dim0": 16, "dim1": 16}
    lanes = {"lane": [[8, 0], [2, 0], [0, 4], [0, 8], [0, 2]], "warp": [[0, 1], [4, 0], [1, 0]]}
    dst = LinearLayout({"register": [[0, 4]], "lane": [[8, 0], [2, 0], [0, 2], [1, 0], [0, 1]],
                        "warp": [[4, 0], [0, 8], [0, 0]]}, out)
    bare, explicit = LinearLayout(lanes, out), LinearLayout(dict(lanes, register=[]), out)
    assert triton_round_trip(bare, dst, 32).instructions == triton_round_trip(explicit, dst, 32).instructions
    plan = plan_conversion(bare, dst, 32)
    assert plan.to_dict() == plan_conversion(explicit, dst, 32).to_dict()
    assert plan.instructions == {"stmatrix": 1, "ldmatrix": 1, "bar.sync": 1}
