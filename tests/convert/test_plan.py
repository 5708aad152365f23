"""Conversion planning: every plan runs on the CPU executor and fills every destination slot right."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linlayout import InputError, LinearLayout
from linlayout.catalog.constructors import blocked, mma
from linlayout.catalog.triton_encodings import triton_blocked, triton_nvidia_mma
from linlayout.convert.smem import triton_scratch_bytes
from linlayout.convert.execute import ExecutionError, execute
from linlayout.convert.plan import UnsupportedConversion, cost_of, plan_conversion
from tests.convert.samples import catalog_pairs, random_pair
from linlayout.core.quotient import is_trivial_over, quotient
from ..conftest import examples

LANES = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]


def _check(plan, src, dst):
    assert execute(plan, src, dst)
    assert plan.cost == cost_of(plan.instructions, plan.wavefronts)
    assert plan.path in [a.path for a in plan.alternatives]
    assert plan.cost == min(a.cost for a in plan.alternatives)
    if plan.shuffles is not None:
        assert plan.instructions.get("shfl.sync", 0) >= plan.shuffle_lower_bound


def _check_forced(plan, src, dst):
    """A plan restricted to some paths: it runs right and its cost is its alternative's."""
    assert execute(plan, src, dst)
    assert plan.cost == cost_of(plan.instructions, plan.wavefronts)
    if plan.shuffles is not None:
        assert plan.instructions.get("shfl.sync", 0) >= plan.shuffle_lower_bound


# ---------------------------------------------------------------------------
# quotient / is_trivial_over
# ---------------------------------------------------------------------------


def test_quotient_strips_only_untouched_dims():
    C = LinearLayout({"register": [[0, 1, 0]], "lane": [[1, 0, 0]], "warp": [[0, 0, 1]]},
                     {"register": 2, "lane": 2, "warp": 2})
    assert is_trivial_over(C, ["warp"]) and not is_trivial_over(C, ["lane"])
    assert quotient(C, ["warp"]).in_dims == ("register", "lane")
    with pytest.raises(InputError):
        quotient(C, ["lane"])


def test_trivial_needs_no_cross_terms():
    # lane maps to itself but also leaks into register: not trivial
    C = LinearLayout({"register": [[1, 0]], "lane": [[1, 1]]}, {"register": 2, "lane": 2})
    assert not is_trivial_over(C, ["lane"])


# ---------------------------------------------------------------------------
# Worked examples
# ---------------------------------------------------------------------------


def test_transpose_32x2_fp32_within_a_warp():
    rows = LinearLayout({"register": [[0, 1]], "lane": LANES}, {"dim0": 32, "dim1": 2})
    cols = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]] + LANES[1:]}, {"dim0": 32, "dim1": 2})
    default = plan_conversion(rows, cols, 32)  # one shuffle and 3 selp (6 + 33 + 29) against an ldmatrix round trip
    assert (default.path, default.cost, [(a.path, a.cost) for a in default.alternatives]) == \
        ("shared_memory", 48, [("shuffles", 68), ("shared_memory", 48)])
    p = plan_conversion(rows, cols, 32, paths=["shuffles"])
    assert p.path == "shuffles"
    assert p.instructions == {"shfl.sync": 1, "selp": 3}
    assert p.shuffle_lower_bound == 1
    _check(default, rows, cols)
    _check_forced(p, rows, cols)
    sched = p.shuffles.schedule(lane=0)
    assert sum(r["shuffle"] for r in sched) == 1


def test_mma_accumulator_to_blocked_epilogue():
    src = mma("C", (64, 64), warps_per_cta=(2, 2))
    dst = blocked([64, 64], [1, 4], [4, 8], [4, 1], [1, 0])
    p = plan_conversion(src, dst, 16)
    assert p.path == "shared_memory"
    assert p.wavefronts == {"write": 16, "read": 16}
    # 32 halves per thread: 16 prmt pack them into words for st.shared.v4, 16 mov.b32 {lo, hi} unpack the reads
    assert p.instructions == {"st.shared": 4, "ld.shared": 4, "bar.sync": 1, "prmt": 16, "mov": 16}
    _check(p, src, dst)
    assert "shared_memory" in p.explain()


def test_register_permutation_costs_nothing():
    src = LinearLayout({"register": [[0, 1], [0, 2]], "lane": LANES}, {"dim0": 32, "dim1": 4})
    dst = LinearLayout({"register": [[0, 2], [0, 1]], "lane": LANES}, {"dim0": 32, "dim1": 4})
    p = plan_conversion(src, dst, 16)
    assert p.path == "registers" and p.instructions == {} and p.cost == 0
    _check(p, src, dst)


def test_thread_dependent_register_choice_uses_selects():
    # dst register 0 holds (lane, lane & 1): the register to read depends on the lane
    src = LinearLayout({"register": [[0, 1]], "lane": LANES}, {"dim0": 32, "dim1": 2})
    dst = LinearLayout({"register": [[0, 1]], "lane": [[1, 1]] + LANES[1:]}, {"dim0": 32, "dim1": 2})
    p = plan_conversion(src, dst, 32)
    assert p.path == "registers" and p.instructions == {"selp": 2}
    _check(p, src, dst)


def test_identical_layouts():
    L = blocked([32, 32], [1, 4], [4, 8], [2, 2], [1, 0])
    p = plan_conversion(L, L, 16)
    assert p.path == "none" and p.cost == 0
    _check(p, L, L)


def test_several_mixed_swaps_at_once():
    # two register bits and two lane bits trade places (Triton issue #9680 forces more than one mixed swap)
    src = LinearLayout({"register": [[0, 1], [0, 2]], "lane": LANES}, {"dim0": 32, "dim1": 4})
    dst = LinearLayout({"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2]] + LANES[2:]}, {"dim0": 32, "dim1": 4})
    for eb in (8, 16, 32, 64):
        p = plan_conversion(src, dst, eb)
        _check(p, src, dst)
    for eb in (8, 16, 32, 64):
        p = plan_conversion(src, dst, eb, paths=["shuffles"])
        assert p.path == "shuffles"
        _check_forced(p, src, dst)
    p = plan_conversion(src, dst, 32, paths=["shuffles"])
    assert p.instructions["shfl.sync"] == p.shuffle_lower_bound == 3


def test_free_variables_stay_inside_the_warp():
    # warp 1 holds the same data as warp 0, also reachable through lane 0 of the other warp:
    # a pivot-first inverse could read across warps; the planner keeps the conversion warp-local.
    src = LinearLayout({"register": [[0, 1]], "lane": LANES, "warp": [[1, 0]]}, {"dim0": 32, "dim1": 2})
    dst = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]] + LANES[1:], "warp": [[0, 0]]}, {"dim0": 32, "dim1": 2})
    p = plan_conversion(src, dst, 32, paths=["registers", "shuffles"])  # the measured model may take shared memory
    assert p.conversion.level <= 1 and p.path in ("registers", "shuffles")
    _check_forced(p, src, dst)


def test_broadcast_bases():
    src = LinearLayout({"register": [[0, 1], [0, 0]], "lane": [[1, 0], [0, 0], [2, 0], [4, 0], [8, 0]]},
                       {"dim0": 16, "dim1": 2})
    dst = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [2, 0], [0, 0], [4, 0], [8, 0]]},
                       {"dim0": 16, "dim1": 2})
    for eb in (8, 16, 32, 64):
        _check(plan_conversion(src, dst, eb), src, dst)


def test_scratch_limit_gives_reps_and_barriers():
    src = mma("C", (64, 64), warps_per_cta=(2, 2))
    dst = blocked([64, 64], [1, 4], [4, 8], [4, 1], [1, 0])
    full = plan_conversion(src, dst, 32, scratch_bytes=16384)
    assert full.path == "shared_memory" and full.reps == 1 and full.scratch_bytes == 16384
    p = plan_conversion(src, dst, 32, scratch_bytes=4096)
    assert p.path == "shared_memory"
    assert p.reps == 4 and p.scratch_bytes == 4096 and p.instructions["bar.sync"] == 7
    assert p.wavefronts == full.wavefronts  # slicing along common register bits costs no wavefronts
    _check(p, src, dst)
    with pytest.raises(InputError, match="too small"):
        plan_conversion(src, dst, 32, scratch_bytes=16)


def test_default_scratch_is_tritons_and_large_tiles_plan():
    """Without scratch_bytes the budget is Triton 3.9's allocation; a 256 KB tile is sliced, never refused."""
    src = mma("C", (64, 64), warps_per_cta=(2, 2))
    dst = blocked([64, 64], [1, 4], [4, 8], [4, 1], [1, 0])
    p = plan_conversion(src, dst, 32)
    assert triton_scratch_bytes(src, dst, 32) == 8192
    assert p.path == "shared_memory" and p.scratch_bytes <= 8192 and p.reps == 2 and p.instructions["bar.sync"] == 3
    _check(p, src, dst)
    big_src = triton_nvidia_mma([256, 256], 2, [4, 2], [16, 8])
    big_dst = triton_blocked([256, 256], [1, 4], [4, 8], [8, 1], [1, 0])
    big = plan_conversion(big_src, big_dst, 32)
    assert big.path == "shared_memory" and big.scratch_bytes <= triton_scratch_bytes(big_src, big_dst, 32) == 16384
    assert big.instructions["bar.sync"] == 2 * big.reps - 1


def test_default_budget_is_tritons_allocation_not_its_ld_st_layouts():
    """Triton allocates the tile over the reps of its optimalSwizzling layout (matrix tiles included); its plain ld/st
    layout would allow twice that here (t39_86 of the Triton 3.9 check: stmatrix/ldmatrix in 4 reps), and the
    default budget does not: the plan fits Triton's 2 KB, while an explicit budget still overrides it."""
    from linlayout.convert.solve import aligned
    from linlayout.convert.triton_scratch import ldst_reps, triton_scratch
    from tests.convert.test_triton_rule import PORT_CASES

    src, dst, bits, _ = PORT_CASES["t39_86_leave_reps"]
    total = (1 << src.out_bits) * bits // 8
    assert triton_scratch_bytes(src, dst, bits) == total // triton_scratch(src, aligned(src, dst), bits).reps == 2048
    assert total // ldst_reps(src, aligned(src, dst), bits) == 4096
    p = plan_conversion(src, dst, bits)
    assert p.path == "shared_memory" and p.scratch_bytes <= 2048 and p.instructions["bar.sync"] == 2 * p.reps - 1
    _check(p, src, dst)
    assert plan_conversion(src, dst, bits, scratch_bytes=total).scratch_bytes > 2048


def test_crossing_blocks_is_refused():
    src = LinearLayout({"register": [[1]], "lane": [[2], [4], [8], [16], [32]], "block": [[64]]}, {"dim0": 128})
    dst = LinearLayout({"register": [[64]], "lane": [[2], [4], [8], [16], [32]], "block": [[1]]}, {"dim0": 128})
    with pytest.raises(UnsupportedConversion, match="block"):
        plan_conversion(src, dst, 32)


def test_bad_input():
    L = blocked([32, 32], [1, 4], [4, 8], [1, 1], [1, 0])
    with pytest.raises(InputError):
        plan_conversion(L, L, 12)
    with pytest.raises(InputError):
        plan_conversion(L, blocked([32, 64], [1, 4], [4, 8], [1, 1], [1, 0]), 16)
    with pytest.raises(InputError):
        plan_conversion(L, blocked([32, 32], [1, 4], [4, 8], [2, 1], [1, 0]), 16)


def test_executor_catches_a_wrong_program():
    rows = LinearLayout({"register": [[0, 1]], "lane": LANES}, {"dim0": 32, "dim1": 2})
    cols = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]] + LANES[1:]}, {"dim0": 32, "dim1": 2})
    p = plan_conversion(rows, cols, 32, paths=["shuffles"])
    bad = dataclasses.replace(p, shuffles=dataclasses.replace(p.shuffles, M=(0,) * 5))
    with pytest.raises(ExecutionError):
        execute(bad, rows, cols)


# ---------------------------------------------------------------------------
# Many pairs
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name,src,dst", catalog_pairs()[::5], ids=lambda x: x if isinstance(x, str) else "")
def test_catalog_pairs(name, src, dst):
    for eb in (16, 32):
        _check(plan_conversion(src, dst, eb), src, dst)


@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["any", "warp", "thread"]),
       warps=st.sampled_from([1, 2, 4, 8]), eb=st.sampled_from([8, 16, 32, 64]), mixed=st.booleans())
def test_random_pairs(seed, kind, warps, eb, mixed):
    src, dst = random_pair(random.Random(seed), warps, kind, mixed=mixed, max_regs_bits=3)
    p = plan_conversion(src, dst, eb)
    _check(p, src, dst)
    for a in p.alternatives:  # every alternative runs right too
        if a.path != p.path:
            _check_forced(plan_conversion(src, dst, eb, paths=[a.path]), src, dst)
    if kind == "thread":
        assert p.path in ("none", "registers")
    if kind == "warp":
        assert p.conversion.level <= 1


# ---------------------------------------------------------------------------
# Gather and vector width
# ---------------------------------------------------------------------------


def test_gather_warp_local_and_shared():
    from linlayout.convert.gather import execute_gather, plan_gather

    src = blocked([64, 32], [2, 1], [16, 2], [1, 4], [0, 1])   # warps split dim1 only
    g = plan_gather(src, src, axis=0, element_bits=32)
    # 16 registers per thread; 2 register bits walk dim0 (size per thread 2, and the tile repeats twice)
    assert g.path == "warp_local" and g.candidates == 4
    assert g.instructions == {"shfl.sync": 16 * 4, "selp": 16 * 3}
    assert execute_gather(g, src, src, seed=1)
    g1 = plan_gather(src, src, axis=1, element_bits=32)    # warps move along dim1
    assert g1.path == "shared_memory" and g1.instructions["bar.sync"] == 1
    wrong = dataclasses.replace(g, axis_registers=())
    with pytest.raises(InputError):
        execute_gather(wrong, src, src, seed=1)
    with pytest.raises(InputError):
        plan_gather(src, src, axis=2, element_bits=32)


def test_max_vector_permutes_registers():
    from linlayout.convert.vector import max_vector
    from linlayout.core.memory import unswizzled

    L = LinearLayout({"register": [[1, 0], [0, 2], [0, 1]], "lane": [[0, 4], [0, 8], [0, 16], [2, 0], [4, 0]]},
                     {"dim0": 8, "dim1": 32})
    v = max_vector(L, unswizzled([8, 32]), 16)
    assert v.bits == 64 and v.permutation == (2, 1, 0) and v.instruction == "ld.shared.v2.b32"
    assert v.layout.bases["register"][0] == (0, 1)
    s = max_vector(L, unswizzled([8, 32]), 32, op="store")
    assert s.instruction == "st.shared.v4.b32"


def test_cli_and_cuda_emission(tmp_path):
    import json as _json

    from linlayout.cli import main
    from linlayout.io.convert_io import convert_query_from_json, to_cuda

    rows = LinearLayout({"register": [[0, 1]], "lane": LANES}, {"dim0": 32, "dim1": 2})
    cols = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]] + LANES[1:]}, {"dim0": 32, "dim1": 2})
    q = tmp_path / "q.json"
    q.write_text(_json.dumps({"src": rows.to_dict(), "dst": cols.to_dict(), "element_bits": 32}))
    assert main(["convert", str(q), "--json"]) == 0
    code = to_cuda(plan_conversion(rows, cols, 32, paths=["shuffles"]), rows, cols)
    assert code.count("__shfl_sync") == 1 and "__syncthreads" not in code
    with pytest.raises(InputError):
        convert_query_from_json({"src": rows.to_dict(), "dst": cols.to_dict()})
    with pytest.raises(InputError):
        convert_query_from_json({"src": rows.to_dict(), "dst": cols.to_dict(), "element_bits": 32, "extra": 1})
    half = LinearLayout({"register": [[1]], "lane": [[2], [4], [8], [16]]}, {"dim0": 32})
    half2 = LinearLayout({"register": [[16]], "lane": [[1], [2], [4], [8]]}, {"dim0": 32})
    with pytest.raises(InputError, match="32 lanes"):
        to_cuda(plan_conversion(half, half2, 32), half, half2)
    q.write_text(_json.dumps({"src": rows.to_dict(), "dst": cols.to_dict(), "element_bits": 12}))
    assert main(["convert", str(q)]) == 2


def test_emitted_cuda_writes_the_plans_matrix_instructions():
    """--emit cuda writes ldmatrix/stmatrix where the plan uses them, one asm per counted instruction."""
    from linlayout.convert.solve import aligned
    from linlayout.io.convert_io import to_cuda

    src = LinearLayout({"register": [[0, 1], [32, 0], [16, 0]], "lane": [[8, 0], [1, 0], [2, 0], [4, 0], [0, 2]]},
                       {"dim0": 64, "dim1": 4})
    dst = LinearLayout({"register": [[32, 0], [0, 0], [0, 2], [0, 0], [2, 0]],
                        "lane": [[16, 0], [0, 1], [4, 0], [1, 0], [8, 0]]}, {"dim0": 64, "dim1": 4})
    plan = plan_conversion(src, dst, 32)
    assert plan.instructions.get("ldmatrix") == 2
    code = to_cuda(plan, src, aligned(src, dst), "f")
    assert code.count('asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16') == 2
    sliced = plan_conversion(src, dst, 32, scratch_bytes=512)  # two reps: an ldmatrix in each, not vectors
    assert sliced.reps == 2 and sliced.instructions.get("ldmatrix") == 2
    code = to_cuda(sliced, src, aligned(src, dst), "f")
    assert code.count('asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16') == 2
    _check(sliced, src, dst)
    assert code.count("ll_ldmatrix<4, false>") == 2
    assert "dst[2] = dst[0];" in code  # a broadcast register copies the loaded one


def test_multistep_plan_runs_and_beats_every_one_step_plan():
    """A two-step plan (the search over intermediate layouts) runs right on the executor and is cheaper."""
    src = LinearLayout({"register": [[0, 1]], "lane": [[0, 4], [0, 0], [0, 8], [1, 0], [0, 2]]},
                       {"dim0": 2, "dim1": 16})
    dst = LinearLayout({"register": [[0, 0], [0, 4]], "lane": [[0, 5], [0, 2], [1, 5], [0, 8], [0, 0]]},
                       {"dim0": 2, "dim1": 16})
    one = plan_conversion(src, dst, 16, multistep=False)
    p = plan_conversion(src, dst, 16)  # the two-step search is on by default
    assert (one.path, one.cost) == ("shared_memory", 56)
    assert p.path == "multistep" and p.cost == 52 < one.cost  # one selp (11), then 2 shfl.sync (12 + 29)
    assert [(s.path, s.cost) for _, s in p.steps] == [("registers", 11), ("shuffles", 41)]
    assert p.cost == sum(s.cost for _, s in p.steps)
    assert min(a.cost for a in p.alternatives if a.path != "multistep") == one.cost  # the best one-step plan
    assert execute(p, src, dst)
    assert p.to_dict()["steps"][1]["path"] == "shuffles"
    # steps run on the registers the previous step left: dropping the first step is caught
    wrong = dataclasses.replace(p, steps=(p.steps[1],))
    with pytest.raises(ExecutionError):
        execute(wrong, src, dst)


def test_convert_query_takes_multistep():
    from linlayout.io.convert_io import convert_query_from_json

    q = '{"src": {"bases": {"lane": [[1]]}}, "dst": {"bases": {"lane": [[1]]}}, "element_bits": 16'
    assert convert_query_from_json(q + "}").multistep is True  # the default, as plan_conversion's
    assert convert_query_from_json(q + ', "multistep": true}').multistep is True
    assert convert_query_from_json(q + ', "multistep": false}').multistep is False
    with pytest.raises(InputError, match="multistep"):
        convert_query_from_json(q + ', "multistep": 1}')


# ---------------------------------------------------------------------------
# The four pairs of the Triton comparison where our plan cost more (paper_notes/convert.md §7)
# ---------------------------------------------------------------------------

TRITON_PAIRS = {  # name: (src, dst, element bits, Triton 3.9's wavefronts, its instructions: priced by cost_of)
    # Triton's round trips take the plan's vectors (paper_notes/convert.md §7), so the plan's wavefronts, plus a mov
    "rand42_any_w8_b64": (
        {"register": [[0, 2], [0, 1]], "lane": [[0, 8], [0, 128], [0, 4], [0, 512], [0, 32]],
         "warp": [[0, 64], [0, 256], [0, 16]]},
        {"register": [[0, 32], [0, 0], [0, 8], [0, 128], [0, 16]], "lane": [[0, 64], [0, 4], [0, 512], [0, 0], [0, 1]],
         "warp": [[0, 256], [0, 0], [0, 2]]},
        {"dim0": 1, "dim1": 1024}, 64, {"write": 8, "read": 32},
        {"mov": 1, "st.shared": 4, "ld.shared": 8, "bar.sync": 1}),
    "rand493_any_w2_b64": (
        {"register": [[2, 0], [0, 0]], "lane": [[0, 2], [0, 16], [1, 0], [0, 1], [0, 4]], "warp": [[0, 8]]},
        {"register": [[0, 4], [0, 8], [1, 0]], "lane": [[0, 0], [0, 1], [0, 16], [0, 2], [0, 0]], "warp": [[2, 0]]},
        {"dim0": 4, "dim1": 32}, 64, {"write": 4, "read": 8},
        {"mov": 1, "st.shared": 2, "ld.shared": 4, "bar.sync": 1}),
    # Triton's PTX from arange data shows 2 selp: LLVM folds the sender's select into the index arithmetic.
    # With the source loaded from memory it takes 2 shfl.sync + 4 selp (tools/convert_vs_triton.py).
    "rand367_warp_w4_b16": (
        {"register": [[0, 4], [0, 0], [0, 0]], "lane": [[0, 2], [1, 0], [4, 0], [8, 0], [0, 1]], "warp": [[0, 0], [2, 0]]},
        {"register": [[0, 0], [4, 0]], "lane": [[0, 4], [0, 1], [1, 0], [0, 2], [8, 0]], "warp": [[0, 0], [2, 0]]},
        {"dim0": 16, "dim1": 8}, 16, None, {"shfl.sync": 2, "selp": 4}),
    "rand369_any_w2_b16": (
        {"register": [[0, 1]], "lane": [[0, 32], [0, 8], [0, 16], [0, 2], [0, 4]], "warp": [[0, 0]]},
        {"register": [[0, 0], [0, 0]], "lane": [[0, 2], [0, 32], [0, 1], [0, 8], [0, 4]], "warp": [[0, 16]]},
        {"dim0": 1, "dim1": 64}, 16, None, {"shfl.sync": 2, "selp": 1}),
}


@pytest.mark.parametrize("name", sorted(TRITON_PAIRS))
def test_never_above_triton_on_its_four_former_wins(name):
    """Each plan costs at most Triton's (the comparison's rule: no 16-bit unpacking ``mov``) and runs right."""
    s, d, outs, eb, triton_wavefronts, triton_ins = TRITON_PAIRS[name]
    src, dst = LinearLayout(s, outs), LinearLayout(d, outs)
    p = plan_conversion(src, dst, eb)
    _check(p, src, dst)
    ins = {k: v for k, v in p.instructions.items() if not (eb == 16 and k == "mov")}
    assert cost_of(ins, p.wavefronts) <= cost_of(triton_ins, triton_wavefronts)
    for op, n in triton_ins.items():  # the same path with no more of its instructions
        assert p.instructions.get(op, 0) <= n, (op, p.instructions)


def test_round_trip_reads_with_the_wider_side_vector():
    """rand42: no register is common to both sides; the destination's 16 registers get the 128-bit vector."""
    s, d, outs, eb, _, _ = TRITON_PAIRS["rand42_any_w8_b64"]
    from linlayout import optimal_swizzle

    res = optimal_swizzle(LinearLayout(s, outs), LinearLayout(d, outs), eb)
    assert (res.write_wavefronts, res.read_wavefronts) == (8, 32) and res.optimal
    assert (res.write_instructions, res.read_instructions, res.extended_side) == (4, 8, "read")


def test_extra_shuffle_round_beyond_the_destination_registers():
    """rand369: every destination register is a copy, the source register depends on the lane."""
    s, d, outs, eb, _, _ = TRITON_PAIRS["rand369_any_w2_b16"]
    src, dst = LinearLayout(s, outs), LinearLayout(d, outs)
    p = plan_conversion(src, dst, eb)
    assert p.path == "shuffles" and p.shuffles.extra_rounds == 1 and p.shuffles.round_bits == 1
    assert p.instructions == {"shfl.sync": 2, "selp": 1}
    from linlayout.io.convert_io import to_cuda

    assert to_cuda(p, src, dst).count("__shfl_sync") == 2
    # the extra round's word is what the receivers with that lane bit keep: swapping it is caught
    A = p.shuffles.A
    bad = dataclasses.replace(p, shuffles=dataclasses.replace(p.shuffles, A=(A[0] ^ 1,)))
    with pytest.raises(ExecutionError):
        execute(bad, src, dst)


# ---------------------------------------------------------------------------
# The conversion query, the model's lanes in emitted code, renamed names
# ---------------------------------------------------------------------------


def _wide_warp():
    """A 64-lane model (no matrix instructions: their 8x16-byte tile fills 32 lanes) and a 64x2 transpose on it."""
    from linlayout.hw import SharedMemory

    hw = SharedMemory("wide64", lanes=64, matrix_rows=0)
    lanes = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0]]
    rows = LinearLayout({"register": [[0, 1]], "lane": lanes}, {"dim0": 64, "dim1": 2})
    cols = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]] + lanes[1:]}, {"dim0": 64, "dim1": 2})
    return hw, rows, cols


def test_conversion_query_is_checked_once_and_plans_like_the_keywords():
    from linlayout.convert.query import ConversionQuery
    from linlayout.errors import InputTypeError

    rows = LinearLayout({"register": [[0, 1]], "lane": LANES}, {"dim0": 32, "dim1": 2})
    cols = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]] + LANES[1:]}, {"dim0": 32, "dim1": 2})
    q = ConversionQuery(rows, cols, 32, paths=["shared_memory"])
    assert q.paths == ("shared_memory",) and q.hw.name == "sm90"
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.element_bits = 16  # type: ignore[misc]
    assert plan_conversion(q) == plan_conversion(rows, cols, 32, paths=["shared_memory"])
    assert plan_conversion(ConversionQuery(rows, cols, 16)) == plan_conversion(rows, cols, 16)
    for bad in (dict(element_bits=4), dict(paths="registers"), dict(paths=["teleport"]), dict(multistep=1),
                dict(hardware="sm42"), dict(src="rows")):
        with pytest.raises(InputError):
            ConversionQuery(**(dict(src=rows, dst=cols, element_bits=32) | bad))
    with pytest.raises(InputTypeError, match="not both"):
        plan_conversion(q, cols)


def test_emitted_cuda_takes_its_lanes_from_the_hardware_model():
    from linlayout.io.convert_io import to_cuda

    hw, rows, cols = _wide_warp()
    for paths in (["shuffles"], ["shared_memory"]):
        code = to_cuda(plan_conversion(rows, cols, 32, hw, paths=paths), rows, cols, hardware=hw)
        assert "threadIdx.x % 64u" in code and "threadIdx.x / 64u" in code
        assert "% 32u" not in code and "/ 32u" not in code
    shuffles = to_cuda(plan_conversion(rows, cols, 32, hw, paths=["shuffles"]), rows, cols, hardware=hw)
    assert "__shfl_sync(0xffffffffffffffffu," in shuffles
    smem = to_cuda(plan_conversion(rows, cols, 32, hw, paths=["shared_memory"]), rows, cols, hardware=hw)
    assert "tid = lane | (warp << 6)" in smem
    sm90_rows = LinearLayout({"register": [[0, 1]], "lane": LANES}, {"dim0": 32, "dim1": 2})
    sm90_cols = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]] + LANES[1:]}, {"dim0": 32, "dim1": 2})
    code = to_cuda(plan_conversion(sm90_rows, sm90_cols, 32, paths=["shuffles"]), sm90_rows, sm90_cols)
    assert "threadIdx.x % 32u" in code and "__shfl_sync(0xffffffffu," in code
    with pytest.raises(InputError, match="64 lanes"):  # a 32-lane layout is not a full warp of this model
        to_cuda(plan_conversion(sm90_rows, sm90_cols, 32), sm90_rows, sm90_cols, hardware=hw)


def test_index_bits_replaces_the_name_hardware():
    import linlayout.convert.solve as solve

    with pytest.warns(DeprecationWarning, match="IndexBits"):
        assert solve.Hardware is solve.IndexBits
    with pytest.warns(DeprecationWarning, match="index_bits"):
        assert solve.hardware_of is solve.index_bits
    bits, cols = solve.index_bits(LinearLayout({"register": [[1]], "lane": [[2], [4]]}, {"dim0": 8}), "src")
    assert (bits.reg, bits.lane, bits.warp, bits.block, cols) == (1, 2, 0, 0, [1, 2, 4])


def test_source_kernel_is_the_null_space_of_each_prefix():
    # the conversion map keeps its elimination's null vectors; the kernel of every prefix of the source's columns
    # read off them is f2.null_space of that prefix (the shuffle programs' free variables and source ranks)
    from linlayout.convert.solve import conversion_map
    from linlayout.core import f2
    rng = random.Random(11)
    for _ in range(40):
        src, dst = random_pair(rng, warps=rng.choice([1, 2, 4]))
        cm = conversion_map(src, dst)
        for end in range(len(cm.src_cols) + 1):
            assert cm.source_kernel(end) == f2.null_space(list(cm.src_cols[:end]))
        unknown = dataclasses.replace(cm, source_nulls=None)
        assert unknown.source_kernel(len(cm.src_cols)) == f2.null_space(list(cm.src_cols))


def test_rep_candidates_are_bits_one_register_of_each_side_holds_alone():
    # the bits a round trip may iterate over, against their definition bit by bit
    from linlayout.convert.smem import rep_candidates
    from linlayout.convert.solve import aligned, index_bits
    rng = random.Random(5)
    for _ in range(60):
        src, dst = random_pair(rng, warps=rng.choice([1, 2, 4]))
        dst = aligned(src, dst)

        def alone(layout, b):
            ib, cols = index_bits(layout, "layout")
            touching = [i for i, c in enumerate(cols) if c >> b & 1]
            return len(touching) == 1 and touching[0] < ib.reg and cols[touching[0]] == 1 << b

        assert rep_candidates(src, dst) == [b for b in range(src.out_bits) if alone(src, b) and alone(dst, b)]
