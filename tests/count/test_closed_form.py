"""Wavefront counting: measured H100 truth, seeds' examples, paper cases, Triton's cases,
and the closed form against brute-force simulation on thousands of random layouts."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from ..strategies import access_layout, aligned_value, ints, samples, vector_registers
from linlayout import LinearLayout, LinLayoutError
from linlayout.core import f2
from linlayout.count.closed_form import access_wavefronts, fit_affine, wavefronts
from linlayout.count.by_simulation import lane_byte_offsets, simulate_wavefronts
from linlayout.errors import AccessError, InstructionError, LoweringError, NotInvertibleError, NotLinearError, SizeError
from linlayout.hw import SharedMemory, sm90
from linlayout.count.simulate import simulate_access, simulate_batch
from linlayout.core.memory import padded, unswizzled

from ..conftest import DATA, assert_same_counts, examples

ROOT = Path(__file__).resolve().parents[2]
MEASURED = json.loads((DATA / "h100_smem_wavefronts.json").read_text())["cases"]


# --------------------------------------------------------------------------- measured hardware truth


def test_simulator_reproduces_all_626_measured_cases():
    assert len(MEASURED) == 626
    for c in MEASURED:
        r = simulate_access(c["instruction"], c["op"], c["access_bytes"], c["lane_byte_offsets"])
        assert r.wavefronts == c["wavefronts"], c["id"]


def test_batch_simulator_reproduces_measured_cases():
    groups: dict = {}
    for c in MEASURED:
        groups.setdefault((c["instruction"], c["op"], c["access_bytes"]), []).append(c)
    for (ins, op, ab), cs in groups.items():
        got = simulate_batch(ins, op, ab, np.array([c["lane_byte_offsets"] for c in cs]))
        assert got.tolist() == [c["wavefronts"] for c in cs], ins


def test_closed_form_reproduces_every_affine_measured_case():
    """Every measured case whose lane offsets are XOR-affine: the closed form equals the measurement."""
    affine = 0
    for c in MEASURED:
        try:
            r = access_wavefronts(c["instruction"], c["op"], c["access_bytes"], c["lane_byte_offsets"])
        except NotLinearError:
            assert "lane_bases_units" not in c, c["id"]  # cases generated from an affine map must fit
            continue
        affine += 1
        assert r.wavefronts == c["wavefronts"], c["id"]
    assert affine >= 540


def test_measured_affine_maps_fit():
    for c in MEASURED:
        if "lane_bases_units" not in c:
            continue
        unit = c["unit_bytes"]
        const, basis = fit_affine(c["lane_byte_offsets"][: 8 * int(c["instruction"][-1])] if "matrix" in c["instruction"] else c["lane_byte_offsets"])
        assert const == c["constant_units"] * unit
        assert basis == [b * unit for b in c["lane_bases_units"][: len(basis)]]


# --------------------------------------------------------------------------- seeds' examples (scripts)


def run_example(name):
    return runpy.run_path(str(ROOT / "examples" / f"{name}.py"))["results"]()


def test_example_transpose_32x32():
    r = run_example("transpose_32x32")
    assert r["column read"].wavefronts_per_instruction == 32
    assert r["column read, padded to 33"].wavefronts_per_instruction == 1
    assert r["row store"].wavefronts_per_instruction == 1


def test_example_swizzle_8x8():
    r = run_example("swizzle_8x8")
    assert r["column-major"].wavefronts_per_instruction == 2
    assert r["Swizzle<3,2,3>"].wavefronts_per_instruction == 1


def test_example_transpose_16x32_sixteen_two_one():
    r = run_example("transpose_16x32")
    assert [v["read"].wavefronts_per_instruction for v in r.values()] == [16, 2, 1]
    assert [v["store"].wavefronts_per_instruction for v in r.values()] == [1, 1, 1]
    # Full pass (16 stores + 16 reads): 16 + 256, 16 + 32, 16 + 16.
    assert [(v["store"].wavefronts, v["read"].wavefronts) for v in r.values()] == [(16, 256), (16, 32), (16, 16)]


def test_example_float4_transposed_a():
    r = run_example("float4_transposed_a")
    assert r["ld = 128 (closed form)"].wavefronts_per_instruction == 32
    assert r["ld = 128 (simulator)"].wavefronts_per_instruction == 32
    assert r["ld = 132 (simulator)"].wavefronts_per_instruction == 4


def test_seed_examples_match_measured_offsets():
    """The examples' first instructions generate exactly the measured lane offsets."""
    by_id = {c["id"]: c for c in MEASURED}
    ex = runpy.run_path(str(ROOT / "examples" / "transpose_16x32.py"))
    for mem_name, tag in (("32m + n", "plain"), ("32m + (n ^ m)", "xor_m"), ("32m + (n ^ 2m)", "xor_2m")):
        offs = lane_byte_offsets(ex["read"], ex["MEMORIES"][mem_name], 32, "load")
        assert offs[0] == by_id[f"seed_t16x32_{tag}_read_r0"]["lane_byte_offsets"]
        assert offs[3] == by_id[f"seed_t16x32_{tag}_read_r3"]["lane_byte_offsets"]
    ex = runpy.run_path(str(ROOT / "examples" / "float4_transposed_a.py"))
    assert lane_byte_offsets(ex["store"], padded([8, 128], 4), 32, "store")[0] == by_id["seed_float4_transA_ld132_store"]["lane_byte_offsets"]


# --------------------------------------------------------------------------- paper cases (notes §11)

TOY = SharedMemory(name="toy", banks=4, lanes=4, merge_broadcast_loads=False, matrix_rows=0)


def test_tc9_paper_fig5_toy():
    # 4x4 fp32 tensor, element id 4r + c: dim0 = r, dim1 = c. 4 lanes, 4 banks.
    shape = {"dim0": 4, "dim1": 4}
    A = LinearLayout({"register": [[1, 0], [0, 1]], "lane": [[0, 2], [2, 0]]}, shape)  # Reg [r0, c0], Thr [c1, r1]
    B = LinearLayout({"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2]]}, shape)  # Reg [r0, r1], Thr [c0, c1]
    M = LinearLayout({"offset": [[1, 0], [0, 2], [2, 0], [0, 3]]}, shape)  # Vec r0 | Bank c1 | Seg r1, c0^c1
    inv = M.invert()
    rows = [[inv.apply(dim0=r, dim1=c)["offset"] for c in range(4)] for r in range(4)]
    # Grid: memory row s lists the element ids stored at offsets 4s .. 4s+3.
    grid = [[4 * M.apply(offset=4 * s + k)["dim0"] + M.apply(offset=4 * s + k)["dim1"] for k in range(4)] for s in range(4)]
    assert grid == [[0, 4, 2, 6], [8, 12, 10, 14], [3, 7, 1, 5], [11, 15, 9, 13]]
    assert rows[0][0] == 0
    for L, op in ((A, "store"), (B, "load")):
        r = wavefronts(L, M, 32, op, hardware=TOY)
        assert (r.vector_bits, r.instructions, r.passes_per_instruction, r.wavefronts) == (64, 2, 2, 4)
        assert r.conflict_free
        assert simulate_wavefronts(L, M, 32, op, hardware=TOY).wavefronts == 4


def test_tc10_paper_fig5_conflict():
    shape = {"dim0": 2, "dim1": 4}  # c0 = 1, c1 = 2 (dim1), r0 (dim0)
    L = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [0, 2]]}, shape)
    good = LinearLayout({"offset": [[0, 1], [0, 2], [1, 0]]}, shape)  # [c0, c1 | seg r0]
    bad = LinearLayout({"offset": [[1, 0], [0, 2], [0, 1]]}, shape)  # [r0, c1 | seg c0]
    assert wavefronts(L, good, 32, "load", vector_bits=32, hardware=TOY).wavefronts_per_instruction == 1
    assert wavefronts(L, bad, 32, "load", vector_bits=32, hardware=TOY).wavefronts_per_instruction == 2


SHAPE_8x32 = {"dim0": 8, "dim1": 32}


def test_tc11_128bit_vectors_not_overcounted():
    L = LinearLayout({"register": [[0, 1], [0, 2], [4, 0]], "lane": [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]]}, SHAPE_8x32)
    r = wavefronts(L, unswizzled([8, 32]), 32, "load")
    assert (r.vector_bits, r.wavefronts_per_instruction, r.passes_per_instruction, r.conflict_ways) == (128, 4, 4, 1)
    assert r.pass_lane_bits == (3, 4)


def test_tc12_64bit_vectors():
    L = LinearLayout({"register": [[0, 1], [2, 0], [4, 0]], "lane": [[0, 2], [0, 4], [0, 8], [0, 16], [1, 0]]}, SHAPE_8x32)
    r = wavefronts(L, unswizzled([8, 32]), 32, "load")
    assert (r.vector_bits, r.wavefronts_per_instruction, r.passes_per_instruction) == (64, 2, 2)


def test_tc13_128bit_real_conflicts():
    L = LinearLayout({"register": [[0, 1], [0, 2], [0, 16]], "lane": [[1, 0], [2, 0], [4, 0], [0, 4], [0, 8]]}, SHAPE_8x32)
    r = wavefronts(L, unswizzled([8, 32]), 32, "load")
    assert (r.wavefronts_per_instruction, r.passes_per_instruction, r.conflict_ways) == (32, 4, 8)
    assert {d.bits for d in r.directions} == {(("lane", 0),), (("lane", 1),), (("lane", 2),)}


def test_tc14_subword_counted_per_word():
    mem = LinearLayout({"offset": [1 << k for k in range(7)]}, {"dim0": 128})
    bad = LinearLayout({"register": [1, 32], "lane": [65, 2, 4, 8, 16]}, {"dim0": 128})
    r = wavefronts(bad, mem, 16, "load", vector_bits=16)
    assert r.wavefronts_per_instruction == 2
    assert r.directions[0].bits == (("lane", 0),) and r.directions[0].tensor == {"dim0": 65}
    ok = LinearLayout({"register": [64, 32], "lane": [1, 2, 4, 8, 16]}, {"dim0": 128})
    assert wavefronts(ok, mem, 16, "load").wavefronts_per_instruction == 1


def test_merged_passes_for_broadcast_wide_loads():
    # 16-byte loads where lane bit 0 broadcasts: two passes of 16 lanes, not four of 8.
    L = LinearLayout(
        {"register": [[0, 1], [0, 2], [0, 4]], "lane": [[0, 0], [0, 8], [0, 16], [1, 0], [2, 0]]}, {"dim0": 4, "dim1": 32}
    )
    mem = unswizzled([4, 32])
    ld = wavefronts(L, mem, 32, "load", vector_bits=128)
    st_ = wavefronts(L, mem, 32, "store", vector_bits=128)
    assert ld.merged_passes and ld.passes_per_instruction == 2 and ld.pass_lane_bits == (4,)
    assert not st_.merged_passes and st_.passes_per_instruction == 4
    assert ld.wavefronts == simulate_wavefronts(L, mem, 32, "load", vector_bits=128).wavefronts


# --------------------------------------------------------------------------- Triton's cases

TRITON = json.loads((DATA / "triton_bank_conflict_cases.json").read_text())["cases"]


@pytest.mark.parametrize("case", TRITON, ids=[c["name"] for c in TRITON])
def test_triton_bank_conflict_cases(case):
    """Triton's "conflicts" is the extra wavefronts of one pass (ways - 1).

    Where one instruction is one pass (accesses of at most 32 bits), that is
    also our wavefronts per instruction minus one.  For mmav3_nvmma128_f32
    (64-bit vectors) Triton reports 1 while an instruction costs 4 wavefronts:
    two half-warp passes, each 2-way.  Triton counts per pass; we count both.
    """
    outs = {f"dim{i}": s for i, s in enumerate(case["shape"])}
    L = LinearLayout(case["reg"], outs)
    M = LinearLayout({"offset": case["smem"]["offset"]}, outs)
    for op in ("load", "store"):
        r = wavefronts(L, M, case["bitwidth"], op)
        assert r.conflict_ways - 1 == case["expected"]
        if r.passes_per_instruction == 1:
            assert r.wavefronts_per_instruction == case["expected"] + 1
        else:
            assert case["name"] == "mmav3_nvmma128_f32" and r.wavefronts_per_instruction == 4
        assert simulate_wavefronts(L, M, case["bitwidth"], op).wavefronts == r.wavefronts


# --------------------------------------------------------------------------- closed form = simulator


# Strategies built once (hypothesis draws the same values from them; building them per draw was a large part
# of this section's test time).
_MEMORY_KINDS = st.sampled_from(["identity", "permutation", "swizzle", "random"])
_BOOLS = st.booleans()
_MATRIX_WIDTHS = st.sampled_from([8, 16, 32])
_VECTOR_WIDTHS = st.sampled_from([4, 8, 16, 32, 64])


@st.composite
def memories(draw, n):
    kind = draw(_MEMORY_KINDS)
    cols = [1 << i for i in range(n)]
    if kind in ("permutation", "swizzle", "random"):
        cols = draw(st.permutations(cols))
    if kind == "swizzle":  # weight-2 columns: XOR one other bit in (Def. 4.14 memory layout)
        base = list(cols)
        for i in range(n):
            j = draw(ints(0, n - 1))
            if j < i and draw(_BOOLS):
                cols[i] = base[i] ^ base[j]
    if kind == "random":
        for _ in range(draw(ints(0, 3 * n))):
            i, j = draw(ints(0, n - 1)), draw(ints(0, n - 1))
            if i != j:
                cols[i] ^= cols[j]
    return cols


INSTRUCTIONS = ["ld.shared", "st.shared", "ldmatrix.x1", "ldmatrix.x2", "ldmatrix.x4", "stmatrix.x1", "stmatrix.x2",
                "stmatrix.x4", "ldmatrix.x4.trans", "stmatrix.x2.trans"]
_VECTOR_INS = st.sampled_from(INSTRUCTIONS[:2])
_MATRIX_INS = st.sampled_from(INSTRUCTIONS[2:])


@st.composite
def access_cases(draw):
    # Half the cases are plain ld/st.shared, the other half spread over the matrix instructions.
    ins = draw(_VECTOR_INS if draw(_BOOLS) else _MATRIX_INS)
    nwarp = draw(ints(0, 2))
    if "matrix" in ins:
        trans = ins.endswith("trans")
        eb = 16 if trans else draw(_MATRIX_WIDTHS)
        nmat = int(ins.split(".")[1][1:]).bit_length() - 1
        kv = (32 // eb).bit_length() - 1
        low = 128 // eb  # elements per 16-byte row
        lowbits = low.bit_length() - 1
        n = draw(ints(lowbits + 3, 11))
        nreg = (1 if trans else kv) + nmat + draw(ints(0, 2))
        regs = [0] * nreg
        lanes = [0] * 5
        if trans:
            lanes[2:5] = [1, 2, 4]
            regs[0] = aligned_value(draw, n, lowbits)
            lanes[0] = aligned_value(draw, n, lowbits)
            lanes[1] = aligned_value(draw, n, lowbits)
            first = 1
        else:
            for i in range(kv):
                regs[i] = 1 << i
            lanes[0], lanes[1] = 1 << kv, 1 << (kv + 1)
            for i in (2, 3, 4):
                lanes[i] = aligned_value(draw, n, lowbits)
            first = kv
        for i in range(first, nreg):
            regs[i] = aligned_value(draw, n, lowbits)
            if i < first + nmat and regs[i] == 0:
                regs[i] = 1 << draw(ints(lowbits, n - 1))
        warps = [aligned_value(draw, n, lowbits) for _ in range(nwarp)]
    else:
        eb = draw(_VECTOR_WIDTHS)
        cap = (128 // eb).bit_length() - 1
        need = max(0, (8 // eb).bit_length() - 1)
        k = draw(ints(need, cap))
        n = draw(ints(k, 11))
        regs = vector_registers(draw, n, k)
        # Lane offsets: often above the bank bits (where conflicts come from), sometimes anywhere.
        lanes = [aligned_value(draw, n, max(k, draw(samples((k, 32 // eb if eb < 32 else k))))) for _ in range(5)]
        warps = [aligned_value(draw, n, k) for _ in range(nwarp)]
    r0 = draw(ints(0, n))
    L, M = access_layout(regs, lanes, warps, draw(memories(n)), n, r0)
    return L, M, eb, ins


@settings(max_examples=examples(1000))
@given(access_cases())
def test_closed_form_equals_simulator(case):
    L, M, eb, ins = case
    try:
        a = wavefronts(L, M, eb, None, ins)
    except LoweringError:
        event("cannot lower (both raise)")
        with pytest.raises(LoweringError):
            simulate_wavefronts(L, M, eb, None, ins)
        return
    b = simulate_wavefronts(L, M, eb, None, ins)
    event(f"compared {ins}, {'conflict' if a.conflict_ways > 1 else 'conflict-free'}")
    assert_same_counts(a, b)
    assert a.merged_passes == b.merged_passes
    # Each direction really collides: same bank, different word.
    for d in a.directions:
        assert d.byte_offset & sm90.bank_mask == 0 and d.byte_offset >> 2 != 0


@settings(max_examples=examples(100))
@given(access_cases())
def test_vector_is_contiguous_and_maximal(case):
    """The chosen vector's registers address consecutive elements; one more register never would."""
    L, M, eb, ins = case
    if "matrix" in ins:
        return
    try:
        r = wavefronts(L, M, eb, None, ins)
    except LoweringError:
        return
    inv = M.invert()
    Cl = L.compose(inv)
    regs = Cl.flat_bases("register")
    vec = r.vector_registers
    assert [regs[i] for i in vec] == [1 << i for i in range(len(vec))]
    k = len(vec)
    others = [v for d in Cl.in_dims for i, v in enumerate(Cl.flat_bases(d)) if not (d == "register" and i in vec)]
    assert all(v & ((1 << k) - 1) == 0 for v in others)
    if eb << (k + 1) <= 128:  # a wider vector would need a register at offset 2^k and others clear of bit k
        cands = [i for i, v in enumerate(regs) if v == 1 << k]
        wider_ok = len(cands) == 1 and all(
            v & ((1 << (k + 1)) - 1) == 0
            for d in Cl.in_dims for i, v in enumerate(Cl.flat_bases(d))
            if not (d == "register" and (i in vec or i == cands[0]))
        )
        assert not wider_ok


# --------------------------------------------------------------------------- errors


def test_padded_memory_needs_the_simulator():
    L = LinearLayout({"lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 32})
    with pytest.raises(NotLinearError, match="simulate_wavefronts"):
        wavefronts(L, padded([32, 32], 1), 32, "load")


def test_lowering_errors_name_the_obstacle():
    L = LinearLayout({"register": [[0, 2], [0, 1]], "lane": [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]]}, {"dim0": 8, "dim1": 16})
    with pytest.raises(LoweringError, match="register bit 0 maps to offset 2"):
        wavefronts(L, unswizzled([8, 16]), 16, None, "ldmatrix.x1")
    ok = LinearLayout({"register": [[0, 1], [8, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, {"dim0": 16, "dim1": 8})
    assert wavefronts(ok, unswizzled([16, 8]), 16, None, "ldmatrix.x2").wavefronts == 2
    with pytest.raises(LoweringError, match="use .x2"):
        wavefronts(ok, unswizzled([16, 8]), 16, None, "ldmatrix.x4")
    with pytest.raises(LoweringError, match="vector_bits=128"):
        wavefronts(ok, unswizzled([16, 8]), 16, "load", vector_bits=128)
    four = LinearLayout({"lane": [[1], [2], [4], [8], [16]]}, {"dim0": 32})
    with pytest.raises(LoweringError, match="addressed in bytes"):
        wavefronts(four, unswizzled([32]), 4, "load")


def test_input_errors():
    L = LinearLayout({"lane": [[1], [2], [4], [8]]}, {"dim0": 16})
    with pytest.raises(SizeError, match="16 lanes"):
        wavefronts(L, unswizzled([16]), 32, "load")
    full = LinearLayout({"lane": [[1], [2], [4], [8], [16]]}, {"dim0": 32})
    with pytest.raises(NotInvertibleError, match="invertible"):
        wavefronts(full, LinearLayout({"offset": [1, 2, 4, 8, 8]}, {"dim0": 32}), 32, "load")
    with pytest.raises(InstructionError):
        wavefronts(full, unswizzled([32]), 32, "load", "st.shared")
    with pytest.raises(InstructionError):
        wavefronts(full, unswizzled([32]), 32, None, "ldmatrix.x3")
    with pytest.raises(SizeError, match="element_bits"):
        wavefronts(full, unswizzled([32]), 24, "load")
    with pytest.raises(AccessError, match="not aligned"):
        simulate_access("ld.shared", "load", 8, [4] + [0] * 31)
    with pytest.raises(AccessError, match="32 lane byte offsets"):
        simulate_access("ld.shared", "load", 4, [0] * 31)
    with pytest.raises(LinLayoutError):
        wavefronts(LinearLayout({"thread": [[1]]}, {"dim0": 2}), unswizzled([2]), 32, "load")


@given(st.lists(st.integers(-8, 4200), min_size=0, max_size=40), st.sampled_from([1, 2, 3, 4, 8, 16, 32]),
       st.sampled_from(["ld.shared", "st.shared", "ldmatrix.x2", "x", None]), st.sampled_from(["load", "store", None, "zz"]))
def test_random_address_queries_never_crash(offs, ab, ins, op):
    for fn in (simulate_access, access_wavefronts):
        try:
            fn(ins, op, ab, offs)
        except LinLayoutError:
            pass


# --------------------------------------------------------------------------- the vector rule


def _widest_vector_by_definition(offsets, cap):
    """Register r_k joins for offset 2^k when it is the only register there and no basis but r_0..r_k touches
    offset bits 0..k (the rule of count.plan.widest_vector, step by step)."""
    regs = offsets.get("register", ())
    chosen: list[int] = []
    for k in range(cap):
        cands = [i for i, v in enumerate(regs) if v == 1 << k]
        if len(cands) != 1:
            break
        low = (1 << (k + 1)) - 1
        mine = set(chosen + cands)
        if any(v & low for d, vs in offsets.items() for i, v in enumerate(vs) if not (d == "register" and i in mine)):
            break
        chosen.append(cands[0])
    return tuple(chosen)


_OFFSET = st.one_of(st.sampled_from([0, 1, 2, 4, 8, 16, 32]), st.integers(0, 127))


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(_OFFSET, max_size=7), st.lists(_OFFSET, max_size=5), st.lists(_OFFSET, max_size=2), st.integers(0, 6))
def test_widest_vector_follows_its_definition_and_the_batch_form(regs, lanes, warps, cap):
    from linlayout.count.plan import widest_vector, widest_vector_batch

    offsets = {"register": tuple(regs), "lane": tuple(lanes), "warp": tuple(warps)}
    got = widest_vector(offsets, cap)
    assert got == _widest_vector_by_definition(offsets, cap)
    if regs:
        n, order = widest_vector_batch(np.array([regs]), np.array([lanes + warps or [0]]), cap)
        assert int(n[0]) == len(got) and tuple(order[0, : len(got)].tolist()) == got


@settings(max_examples=examples(100), deadline=None)
@given(st.data())
def test_closed_form_equals_simulator_for_every_element_width(data):
    """Lane offsets anywhere above the vector (bank bits of sub-byte and wide elements included)."""
    eb = data.draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128]))
    cap = (128 // eb).bit_length() - 1
    k = data.draw(st.integers(max(0, (8 // eb).bit_length() - 1), cap))
    n = data.draw(st.integers(k + 1, 13))
    # sparse offsets (one to three bits at or above the vector) make dependent bank parts common
    above = st.lists(st.integers(k, n - 1), min_size=1, max_size=3).map(lambda bs: sum({1 << b for b in bs}))
    regs = [1 << i for i in range(k)] + data.draw(st.lists(above, max_size=2))
    lanes = data.draw(st.lists(above, min_size=5, max_size=5))
    L = LinearLayout({"register": regs, "lane": lanes}, {"dim0": 1 << n})
    M = unswizzled([1 << n])
    op = data.draw(st.sampled_from(["load", "store"]))
    a = wavefronts(L, M, eb, op)
    b = simulate_wavefronts(L, M, eb, op)
    assert (a.wavefronts, a.conflict_ways, a.passes_per_instruction) == (b.wavefronts, b.conflict_ways,
                                                                         b.passes_per_instruction)


@pytest.mark.parametrize(("eb", "edge"), [(eb, "above") for eb in (1, 2, 4, 8, 16, 32, 64, 128)]
                         + [(eb, "below") for eb in (1, 2, 4, 8, 16)])  # wider elements: no bit below the bank
def test_closed_form_equals_simulator_at_the_bank_bits(eb, edge):
    """One lane just outside the element bits that select the bank (below: a sub-word bit plus a high bit,
    above: the next bit), four lanes on bank bits: a 2-way conflict the bank test must not miss."""
    lo = max(0, 5 - (eb.bit_length() - 1))  # the element bits of byte bits 2..6 (the bank) start here
    k = max(0, (8 // eb).bit_length() - 1)  # the vector registers sub-byte elements need
    assert edge == "above" or lo - 1 >= k
    odd = (1 << (lo - 1)) | (1 << 12) if edge == "below" else 1 << (lo + 5)
    L = LinearLayout({"register": [1 << i for i in range(k)], "lane": [odd, *(1 << (lo + i) for i in range(4))]},
                     {"dim0": 1 << 13})
    M = unswizzled([1 << 13])
    a, b = wavefronts(L, M, eb, "load"), simulate_wavefronts(L, M, eb, "load")
    assert (a.wavefronts, a.conflict_ways) == (b.wavefronts, b.conflict_ways)


def test_a_layout_counted_again_with_other_arguments_counts_as_a_fresh_one():
    """plan_access keeps per layout what it resolved and planned last; changing the element width, the op, the
    vector request or the hardware between counts of one layout object gives the counts of fresh copies."""
    L = LinearLayout({"register": [[0, 1], [0, 2], [0, 4], [1, 0]], "lane": [[0, 8], [0, 16], [2, 0], [4, 0], [8, 0]]},
                     {"dim0": 16, "dim1": 32})
    M = unswizzled([16, 32])
    narrow = SharedMemory("narrow-banks-test", banks=8, matrix_rows=0)
    asks = [(32, "load", None, "sm90"), (32, "store", None, "sm90"), (32, "store", None, narrow), (16, "load", None, "sm90"),
            (16, "store", 32, "sm90"), (8, "load", 16, "sm90"), (32, "load", 64, "sm90")] * 2
    for eb, op, vb, hw in asks:
        fresh = LinearLayout({d: [list(b) for b in bs] for d, bs in L.bases.items()}, L.out_sizes)
        assert wavefronts(L, M, eb, op, vector_bits=vb, hardware=hw).to_dict() == \
            wavefronts(fresh, M, eb, op, vector_bits=vb, hardware=hw).to_dict()


# --------------------------------------------------------------------------- query values


def _rows_query_args():
    L = LinearLayout({"register": [[0, 1], [0, 2], [1, 0]], "lane": [[0, 4], [0, 8], [0, 16], [2, 0], [4, 0]]},
                     {"dim0": 8, "dim1": 32})
    return L, unswizzled([8, 32]), 32


def test_access_query_is_a_frozen_value():
    import dataclasses

    from linlayout.count.query import AccessQuery

    L, M, eb = _rows_query_args()
    q = AccessQuery(L, M, eb, "load")
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.element_bits = 16  # type: ignore[misc]
    assert q == AccessQuery(L, M, eb, "load") and q != AccessQuery(L, M, eb, "store")
    assert q.hw is sm90 and q.ins.name == "ld.shared" and q.kind == "layout"


@pytest.mark.parametrize("op, instruction, vector_bits, memory", [
    ("load", None, None, None), ("store", None, 64, None), ("load", "ld.shared", 32, None),
    ("load", None, None, padded([8, 32], 4)),
])
def test_access_query_gives_the_keyword_answers(op, instruction, vector_bits, memory):
    from linlayout.count.plan import plan_access
    from linlayout.count.query import AccessQuery

    L, M, eb = _rows_query_args()
    M = M if memory is None else memory
    q = AccessQuery(L, M, eb, op, instruction, vector_bits)
    kw = dict(layout=L, memory=M, element_bits=eb, op=op, instruction=instruction, vector_bits=vector_bits)
    assert simulate_wavefronts(q) == simulate_wavefronts(**kw)
    assert lane_byte_offsets(q) == lane_byte_offsets(**kw)
    assert lane_byte_offsets(q, limit=1) == lane_byte_offsets(**kw, limit=1)
    if memory is None:
        assert wavefronts(q) == wavefronts(**kw)
        assert plan_access(q) == plan_access(**kw)
    else:
        with pytest.raises(NotLinearError):
            wavefronts(q)


def test_address_query_gives_the_keyword_answers():
    from linlayout.count.query import AddressQuery

    offs = [512 * (lane % 8) + 16 * (lane // 8) for lane in range(32)]
    q = AddressQuery("st.shared", "store", 16, offs)
    assert q.lane_byte_offsets == tuple(offs) and q.kind == "access"
    assert access_wavefronts(q) == access_wavefronts("st.shared", "store", 16, offs)
    assert simulate_access(q) == simulate_access("st.shared", "store", 16, offs)
    assert access_wavefronts(q).wavefronts == 32


def test_queries_check_their_input_once_when_built(monkeypatch):
    """Bad input fails at construction with the library's InputError; a built query is not checked again."""
    from linlayout.count import plan as plan_module
    from linlayout.count.query import AccessQuery, AddressQuery
    from linlayout.errors import DimensionError, HardwareError, InputError

    L, M, eb = _rows_query_args()
    for bad, err in [(dict(element_bits=12), SizeError), (dict(op="read"), InstructionError),
                     (dict(instruction="ldmatrix.x8"), InstructionError), (dict(vector_bits=48), SizeError),
                     (dict(hardware="sm42"), HardwareError), (dict(layout=unswizzled([8, 32])), DimensionError),
                     (dict(memory="rows"), InputError)]:
        args = dict(layout=L, memory=M, element_bits=eb, op="load") | bad
        with pytest.raises(err) as e:
            AccessQuery(**args)
        assert isinstance(e.value, InputError)
    with pytest.raises(AccessError):
        AddressQuery("ld.shared", "load", 4, [3] * 32)
    with pytest.raises(AccessError):
        AddressQuery("ld.shared", "load", 4, [0] * 31)
    q = AccessQuery(L, M, eb, "load")
    calls = []
    for name in ("check_element_bits", "check_capacity", "check_distributed_dims"):
        real = getattr(plan_module, name)
        monkeypatch.setattr(plan_module, name, lambda *a, _real=real, _n=name: calls.append(_n) or _real(*a))
    monkeypatch.setattr(plan_module, "get_hardware", lambda *a: calls.append("get_hardware"))
    monkeypatch.setattr(plan_module, "parse_instruction", lambda *a: calls.append("parse_instruction"))
    L.memo().clear()  # the layout's own memo of checks: forget it, so only the query's checks are left
    assert wavefronts(q).wavefronts == 8
    assert calls == ["check_distributed_dims"]  # the layout's plan facts (kept per layout), not an input check
    calls.clear()
    assert wavefronts(q).wavefronts == 8 and calls == []


def test_a_query_and_its_fields_cannot_be_mixed():
    from linlayout.count.query import AccessQuery, AddressQuery
    from linlayout.errors import InputTypeError

    L, M, eb = _rows_query_args()
    q = AccessQuery(L, M, eb, "load")
    with pytest.raises(InputTypeError, match="not both"):
        wavefronts(q, M)
    with pytest.raises(InputTypeError, match="not both"):
        simulate_wavefronts(q, element_bits=16)
    with pytest.raises(InputTypeError, match="not both"):
        access_wavefronts(AddressQuery("ld.shared", "load", 4, [0] * 32), "load")


def test_a_layout_keeps_its_plans_for_a_few_contexts():
    """A layout asked in alternating contexts (an instruction named, then not) reuses each context's plan, and a
    model registered again under a kept name is seen at once."""
    from linlayout.count.plan import layout_plan
    from linlayout.count.speed import PLANS_PER_LAYOUT
    from linlayout.hw import PRESETS, register_hardware

    L = LinearLayout({"register": [[0, 1]], "lane": [[0, 2], [0, 4], [0, 8], [0, 16], [1, 0]]}, {"dim0": 2, "dim1": 32})
    named = layout_plan(L, 16, "load", "ld.shared", None, "sm90")
    unnamed = layout_plan(L, 16, "load", None, None, "sm90")
    assert named is not unnamed
    assert layout_plan(L, 16, "load", "ld.shared", None, "sm90") is named
    assert layout_plan(L, 16, "load", None, None, "sm90") is unnamed
    for bits in (8, 32, 64)[: PLANS_PER_LAYOUT - 1]:  # more contexts than are kept: the oldest is dropped
        layout_plan(L, bits, "load", None, None, "sm90")
    assert layout_plan(L, 16, "load", "ld.shared", None, "sm90") is not named
    try:
        register_hardware(SharedMemory("plan-memo-model", matrix_rows=0))
        first = layout_plan(L, 16, "load", None, None, "plan-memo-model")
        layout_plan(L, 16, "load", None, None, "sm90")  # first is no longer the last plan, only a kept one
        register_hardware(SharedMemory("plan-memo-model", matrix_rows=0, banks=16))
        again = layout_plan(L, 16, "load", None, None, "plan-memo-model")
        assert again is not first and again.hw.banks == 16
    finally:
        PRESETS.pop("plan-memo-model", None)
