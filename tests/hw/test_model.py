"""The hardware seam: a model the library has never seen runs through counting, simulation and synthesis.

``WAVE64`` is a test-only 64-lane model (a wave64, like AMD's LDS: 32 banks
of 4 bytes, 64 lanes, no merged passes, no matrix instructions).  Nothing in
the library knows it: every rule comes from the :class:`SharedMemory` value.
The closed form is checked against the brute-force simulator on random
64-lane layouts and random lane addresses, and the synthesizer's result
against the exact counter and against a random family of memory layouts on
a scaled 64-lane model.  It is not a model of measured hardware.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from linlayout import (
    AccessError,
    HardwareError,
    LinearLayout,
    LoweringError,
    NotLinearError,
    SharedMemory,
    SizeError,
    access_wavefronts,
    mfma,
    optimal_swizzle,
    register_hardware,
    simulate_access,
    simulate_batch,
    simulate_wavefronts,
    unswizzled,
    wavefronts,
)
from linlayout.cli import main
from linlayout.hw import PRESETS
from linlayout.synth.synthesis import objective_key

from ..strategies import access_layout, aligned_value, invertible_matrices, split_offset, vector_registers
from ..conftest import assert_same_counts, examples

WAVE64 = SharedMemory("wave64-test", banks=32, bank_bytes=4, lanes=64, merge_broadcast_loads=False, matrix_rows=0)
WAVE64_MINI = SharedMemory("wave64-mini-test", banks=4, bank_bytes=4, lanes=64, merge_broadcast_loads=False,
                           matrix_rows=0)
"""A scaled 64-lane model (4 banks): small tensors already conflict, so random families are informative."""


def test_wave64_rules_follow_from_its_sizes():
    assert WAVE64.lane_bits == 6 and WAVE64.row_bytes == 128
    assert WAVE64.access_sizes() == (1, 2, 4, 8, 16)
    # A pass never spans more than one 128-byte row: 64 lanes of 1 or 2 bytes, 32 of 4, 16 of 8, 8 of 16.
    assert [WAVE64.pass_lane_bits(a) for a in WAVE64.access_sizes()] == [(), (), (5,), (4, 5), (3, 4, 5)]
    # No merged passes on this model, whatever broadcasts.
    assert WAVE64.pass_lane_bits(16, "load", True) == (3, 4, 5) and not WAVE64.merges_passes("load", 16, True)
    assert "64 lanes" in WAVE64.describe() and "NOT measured" in WAVE64.describe()


# --------------------------------------------------------------------------- random 64-lane accesses


@st.composite
def wave64_cases(draw, hw: SharedMemory = WAVE64):
    """(L, M, element_bits, op): a random distributed layout of ``hw.lanes`` lanes and a random invertible memory.

    ``C`` sends every hardware bit to an element offset (``k`` registers to
    1, 2, 4, ... so each lane moves 1 to 16 bytes; the rest anywhere above
    them, often zero); ``L = M o C``.
    """
    eb = draw(st.sampled_from([4, 8, 16, 32, 64, 128]))
    cap = (128 // eb).bit_length() - 1  # at most 16 bytes per lane
    need = max(0, (8 // eb).bit_length() - 1)  # at least one byte per lane
    k = draw(st.integers(need, cap))
    n = draw(st.integers(max(k, 1), 12))
    regs = vector_registers(draw, n, k)
    # Lane offsets above the vector, or (sometimes) anywhere: then the plan picks a narrower vector.
    lanes = [aligned_value(draw, n, draw(st.sampled_from([k, k, 0]))) for _ in range(hw.lane_bits)]
    warps = [aligned_value(draw, n, k) for _ in range(draw(st.integers(0, 2)))]
    r0 = draw(st.integers(0, n))
    L, M = access_layout(regs, lanes, warps, draw(invertible_matrices(max_n=n, min_n=n)), n, r0)
    return L, M, eb, draw(st.sampled_from(["load", "store"]))


@pytest.mark.parametrize("hw", [WAVE64, WAVE64_MINI], ids=lambda h: h.name)
@settings(max_examples=examples(80))
@given(data=st.data())
def test_closed_form_equals_simulator_on_64_lanes(hw, data):
    L, M, eb, op = data.draw(wave64_cases(hw))
    try:
        a = wavefronts(L, M, eb, op, hardware=hw)
    except LoweringError:
        event("cannot lower (both raise)")
        with pytest.raises(LoweringError):
            simulate_wavefronts(L, M, eb, op, hardware=hw)
        return
    b = simulate_wavefronts(L, M, eb, op, hardware=hw)
    event(f"{a.access_bytes}-byte {op}, {'conflict' if a.conflict_ways > 1 else 'conflict-free'}")
    assert 1 <= a.access_bytes <= 16 and a.hardware == hw.name
    assert_same_counts(a, b)
    assert a.pass_lane_bits == b.pass_lane_bits == hw.pass_lane_bits(a.access_bytes)
    assert not a.merged_passes and not b.merged_passes
    for d in a.directions:  # each direction really collides: same bank, different word
        assert d.byte_offset & hw.bank_mask == 0 and d.byte_offset >> hw.word_shift != 0


@st.composite
def affine_lane_offsets(draw, hw: SharedMemory = WAVE64):
    """(op, access_bytes, offsets): ``offsets[l] = c ^ XOR(basis[i] for bits i of l)``, aligned to the access."""
    ab = draw(st.sampled_from(hw.access_sizes()))
    units = st.integers(0, 11 - ab.bit_length()).map(lambda s: ab << s)
    anywhere = st.integers(0, (1 << 12) // ab - 1).map(lambda v: v * ab)
    basis = [draw(st.one_of(st.just(0), units, anywhere)) for _ in range(hw.lane_bits)]
    c = draw(anywhere)
    offs = []
    for lane in range(hw.lanes):
        v = c
        for i, b in enumerate(basis):
            if lane >> i & 1:
                v ^= b
        offs.append(v)
    return draw(st.sampled_from(["load", "store"])), ab, offs


@pytest.mark.parametrize("hw", [WAVE64, WAVE64_MINI], ids=lambda h: h.name)
@settings(max_examples=examples(100))
@given(data=st.data())
def test_access_wavefronts_equals_simulate_access_on_64_lanes(hw, data):
    op, ab, offs = data.draw(affine_lane_offsets(hw))
    a = access_wavefronts(None, op, ab, offs, hw)
    s = simulate_access(None, op, ab, offs, hw)
    assert a.wavefronts == s.wavefronts
    assert a.passes_per_instruction == len(s.passes)
    assert a.pass_lane_bits == s.pass_lane_bits
    assert a.conflict_ways == max(p.wavefronts for p in s.passes)
    assert simulate_batch(None, op, ab, np.array([offs]), hw).tolist() == [s.wavefronts]


def test_non_affine_64_lane_offsets_need_the_simulator():
    offs = [4 * (lane * lane % 97) for lane in range(64)]
    with pytest.raises(NotLinearError, match="simulate_access"):
        access_wavefronts("ld.shared", "load", 4, offs, WAVE64)
    assert simulate_access("ld.shared", "load", 4, offs, WAVE64).wavefronts >= 1
    with pytest.raises(AccessError, match="64 lane byte offsets"):
        simulate_access("ld.shared", "load", 4, offs[:32], WAVE64)


# --------------------------------------------------------------------------- synthesis on 64 lanes


@st.composite
def wave64_pairs(draw, hw: SharedMemory = WAVE64, max_bits: int = 10):
    """(write, read, element_bits): two distributed layouts of the same tensor, every tensor bit owned once per side."""
    d = draw(st.integers(hw.lane_bits - 2, max_bits))
    r0 = draw(st.integers(0, d))
    outs = {"dim0": 1 << r0, "dim1": 1 << (d - r0)}

    def side():
        nreg = draw(st.integers(max(0, d - hw.lane_bits), d))
        nwarp = draw(st.integers(0, 1))
        slots = [("register", i) for i in range(nreg)] + [("lane", i) for i in range(hw.lane_bits)]
        slots += [("warp", i) for i in range(nwarp)]
        owners = draw(st.permutations(slots))[:d]  # the slots that own a tensor bit; the others broadcast
        bits = draw(st.permutations(list(range(d))))
        flat = dict.fromkeys(slots, 0)
        for s, b in zip(owners, bits):
            flat[s] = 1 << b
        bases = {"register": [], "lane": [], "warp": []}
        for dim, i in sorted(flat):
            bases[dim].append(split_offset(flat[(dim, i)], r0))
        return LinearLayout(bases, outs)

    return side(), side(), draw(st.sampled_from([8, 16, 32, 64]))


def _check_result(res, W, R, eb, hw):
    w = wavefronts(W, res.memory, eb, "store", hardware=hw)
    r = wavefronts(R, res.memory, eb, "load", hardware=hw)
    assert (res.write_wavefronts, res.read_wavefronts) == (w.wavefronts, r.wavefronts)
    assert (res.write_instructions, res.read_instructions) == (w.instructions, r.instructions)
    assert (res.write.wavefronts, res.read.wavefronts) == (w.wavefronts, r.wavefronts)
    assert res.hardware == hw.name
    assert res.lower_bound["write"] <= w.wavefronts and res.lower_bound["read"] <= r.wavefronts


@settings(max_examples=examples(80))
@given(wave64_pairs())
def test_synthesis_on_wave64_agrees_with_the_counter(case):
    W, R, eb = case
    res = optimal_swizzle(W, R, eb, hardware=WAVE64)
    event(f"optimal={res.optimal}")
    _check_result(res, W, R, eb, WAVE64)


def test_synthesis_on_wave64_transpose():
    """A 16x64 tile stored along dim0 and read along dim1 by a wave64: conflict-free on both sides."""
    SH = {"dim0": 16, "dim1": 64}
    store = LinearLayout({"register": [[1, 0], [2, 0], [4, 0], [8, 0]],
                          "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]]}, SH)
    read = LinearLayout({"register": [[0, 4], [0, 8], [0, 16], [0, 32]],
                         "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]]}, SH)
    res = optimal_swizzle(store, read, 32, hardware=WAVE64)
    _check_result(res, store, read, 32, WAVE64)
    assert res.optimal and res.write.conflict_free and res.read.conflict_free
    plain = wavefronts(read, unswizzled([16, 64]), 32, "load", hardware=WAVE64)
    assert plain.wavefronts > res.read_wavefronts  # the unswizzled memory conflicts on the read side


def _random_memory(rng: random.Random, d: int, r0: int, outs: dict[str, int]) -> LinearLayout:
    cols = [1 << i for i in range(d)]
    rng.shuffle(cols)
    for _ in range(3 * d):
        i, j = rng.randrange(d), rng.randrange(d)
        if i != j:
            cols[i] ^= cols[j]
    return LinearLayout({"offset": [split_offset(c, r0) for c in cols]}, outs)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_synthesis_on_a_scaled_wave64_beats_a_random_family(seed):
    """4 banks, 64 lanes: no memory layout of a random family (and not the unswizzled one) beats the result."""
    rng = random.Random(seed)
    W, R, eb = _pair(rng)
    outs = W.out_sizes
    r0 = outs["dim0"].bit_length() - 1
    d = r0 + outs["dim1"].bit_length() - 1
    results = {obj: optimal_swizzle(W, R, eb, hardware=WAVE64_MINI, objective=obj) for obj in ("balanced", "read", "write")}
    for res in results.values():
        _check_result(res, W, R, eb, WAVE64_MINI)
    family = [unswizzled([outs["dim0"], outs["dim1"]])] + [_random_memory(rng, d, r0, outs) for _ in range(1500)]
    worse = 0
    for M in family:
        w = wavefronts(W, M, eb, "store", hardware=WAVE64_MINI).wavefronts
        r = wavefronts(R, M, eb, "load", hardware=WAVE64_MINI).wavefronts
        for obj, res in results.items():
            assert res.lower_bound["write"] <= w and res.lower_bound["read"] <= r
            mine = objective_key(obj, res.write_wavefronts, res.read_wavefronts)
            assert mine <= objective_key(obj, w, r), (obj, mine, (w, r), M)
            worse += mine < objective_key(obj, w, r)
    assert worse  # the family is informative: some of its memories cost more


def _pair(rng: random.Random):
    """A random write/read pair on 7 tensor bits for the 64-lane models (as :func:`wave64_pairs`, seeded)."""
    d = 7
    r0 = rng.randint(0, d)
    outs = {"dim0": 1 << r0, "dim1": 1 << (d - r0)}

    def side():
        nreg = rng.randint(1, d)
        slots = [("register", i) for i in range(nreg)] + [("lane", i) for i in range(6)]
        owners = rng.sample(slots, d)
        bits = list(range(d))
        rng.shuffle(bits)
        flat = dict.fromkeys(slots, 0)
        for s, b in zip(owners, bits):
            flat[s] = 1 << b
        bases = {"register": [], "lane": []}
        for dim, i in sorted(flat):
            bases[dim].append(split_offset(flat[(dim, i)], r0))
        return LinearLayout(bases, outs)

    return side(), side(), rng.choice([8, 16, 32])


@pytest.mark.parametrize("instr", ["32x32x8", "16x16x16"])
@pytest.mark.parametrize("operand", ["A", "B", "C"])
def test_amd_mfma_layouts_count_on_the_wave64_model(operand, instr):
    """The catalogue's 64-lane MFMA layouts: refused by sm90, counted on WAVE64 (closed form = simulation)."""
    L = mfma(operand, instr)
    with pytest.raises(SizeError, match="64 lanes but a sm90 warp has 32"):
        wavefronts(L, unswizzled(list(L.out_sizes.values())), 16, "load")
    outs = L.out_sizes
    r0 = outs["dim0"].bit_length() - 1
    d = r0 + outs["dim1"].bit_length() - 1
    rng = random.Random(f"{operand}{instr}")
    for M in [unswizzled([outs["dim0"], outs["dim1"]])] + [_random_memory(rng, d, r0, outs) for _ in range(3)]:
        for eb in (16, 32):
            for op in ("load", "store"):
                a = wavefronts(L, M, eb, op, hardware=WAVE64)
                b = simulate_wavefronts(L, M, eb, op, hardware=WAVE64)
                assert (a.wavefronts, a.instructions, a.passes_per_instruction) == (
                    b.wavefronts, b.instructions, b.passes_per_instruction)


def test_synthesis_from_the_mfma_accumulator_to_a_row_reader():
    """Store the 32x32 MFMA accumulator, read it back by rows of 4 contiguous elements per lane."""
    C = mfma("C", "32x32x8")
    R = LinearLayout({"register": [[0, 1], [0, 2], [2, 0], [4, 0], [8, 0], [16, 0]],
                      "lane": [[0, 4], [0, 8], [0, 16], [1, 0], [0, 0], [0, 0]]}, {"dim0": 32, "dim1": 32})
    for eb in (16, 32):
        res = optimal_swizzle(C, R, eb, hardware=WAVE64)
        _check_result(res, C, R, eb, WAVE64)
        assert res.optimal
        assert simulate_wavefronts(C, res.memory, eb, "store", hardware=WAVE64).wavefronts == res.write_wavefronts
        assert simulate_wavefronts(R, res.memory, eb, "load", hardware=WAVE64).wavefronts == res.read_wavefronts


# --------------------------------------------------------------------------- the model through the CLI


def test_a_registered_model_is_known_to_json_queries_and_the_cli(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(PRESETS, WAVE64.name, WAVE64)  # undone after the test
    assert register_hardware(WAVE64) is WAVE64
    SH = {"dim0": 2, "dim1": 64}
    lanes = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]]
    layout = {"bases": {"register": [[1, 0]], "lane": lanes}, "out_dims": SH}
    memory = {"bases": {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0]]}, "out_dims": SH}
    q = tmp_path / "q.json"
    q.write_text(json.dumps({"layout": layout, "memory": memory, "element_bits": 32, "op": "load",
                             "hardware": WAVE64.name}))
    assert main(["conflicts", str(q), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    L = LinearLayout({"register": [[1, 0]], "lane": lanes}, SH)
    want = wavefronts(L, unswizzled([2, 64]), 32, "load", hardware=WAVE64)
    assert (got["wavefronts"], got["hardware"], got["pass_lane_bits"]) == (want.wavefronts, WAVE64.name, [5])
    assert main(["conflicts", str(q)]) == 0  # the text report, with its per-pass bank map of 64 lanes
    assert "lanes 32-63" in capsys.readouterr().out
    a = tmp_path / "a.json"
    a.write_text(json.dumps({"op": "store", "access_bytes": 4, "lane_byte_offsets": [128 * (lane % 2) + 4 * (lane // 2)
                                                                                      for lane in range(64)],
                             "hardware": WAVE64.name}))
    assert main(["conflicts", str(a), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["wavefronts"] == 4  # 2 passes of 32 lanes, 2 words in each bank


# --------------------------------------------------------------------------- inconsistent models and missing instructions


def test_impossible_matrix_geometry_is_refused_at_construction():
    with pytest.raises(HardwareError, match=r"t: a matrix of 8 rows of 16 bytes fills 32 lanes .* warp has 2") as e:
        SharedMemory("t", lanes=2)
    assert "fix the geometry or pass matrix_rows=0" in str(e.value)
    assert SharedMemory("t", lanes=2, matrix_rows=0).lanes == 2  # the fix the message names
    assert SharedMemory("t64", lanes=64, matrix_rows=16).matrix_lanes_per_row == 4  # 16 rows x 4 lanes = 64


def test_matrix_instructions_on_a_model_without_them_raise_alike():
    hw = SharedMemory("n", matrix_rows=0)
    offs = [16 * lane for lane in range(32)]
    errors = []
    for fn in (access_wavefronts, simulate_access):
        with pytest.raises(AccessError) as e:
            fn("ldmatrix.x4", "load", 16, offs, hw)
        errors.append(str(e.value))
    with pytest.raises(AccessError) as e:
        simulate_batch("ldmatrix.x4", "load", 16, np.array([offs]), hw)
    errors.append(str(e.value))
    assert errors == ["n has no ldmatrix"] * 3
    L = LinearLayout({"register": [[0, 1], [0, 8]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]},
                     {"dim0": 8, "dim1": 16})
    for fn in (wavefronts, simulate_wavefronts):
        with pytest.raises(LoweringError, match="n has no ldmatrix"):
            fn(L, unswizzled([8, 16]), 16, None, "ldmatrix.x1", hardware=hw)


def test_a_preset_or_instruction_registered_again_is_seen_by_the_next_count(monkeypatch):
    """The counters remember how they resolved the last hardware name and instruction; registering a model
    or an instruction again under the same name changes the next count."""
    from linlayout.errors import InstructionError
    from linlayout.hw import INSTRUCTIONS

    L = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]}, {"dim0": 2, "dim1": 32})
    M = unswizzled([2, 32])
    name = "registered-again-test"
    wide, narrow = SharedMemory(name, matrix_rows=0), SharedMemory(name, banks=8, matrix_rows=0)
    monkeypatch.setitem(PRESETS, name, wide)  # undone after the test
    first = [wavefronts(L, M, 32, "load", hardware=name).wavefronts for _ in range(3)][-1]
    monkeypatch.setitem(PRESETS, name, narrow)
    again = wavefronts(L, M, 32, "load", hardware=name).wavefronts
    assert (first, again) == (wavefronts(L, M, 32, "load", hardware=wide).wavefronts,
                              wavefronts(L, M, 32, "load", hardware=narrow).wavefronts)
    assert first != again
    for _ in range(3):
        wavefronts(L, M, 32, "load")
    monkeypatch.setitem(INSTRUCTIONS, "ld.shared", INSTRUCTIONS["st.shared"])  # a store under the load's name
    with pytest.raises(InstructionError, match="is a store"):
        wavefronts(L, M, 32, "load")


def test_models_and_instructions_hash_once_and_keep_equality():
    """A model's hash is computed at construction and follows equality: equal models (built apart, replaced,
    pickled) hash alike and find each other's dict entries; a model differing in one field is not equal."""
    import dataclasses
    import pickle

    from linlayout.hw import Instruction, parse_instruction, sm90

    twin = SharedMemory(**{f.name: getattr(sm90, f.name) for f in dataclasses.fields(sm90) if f.init})
    assert twin == sm90 and hash(twin) == hash(sm90) and {sm90: 1}[twin] == 1
    back = pickle.loads(pickle.dumps(sm90))
    assert back == sm90 and hash(back) == hash(sm90)
    wider = dataclasses.replace(sm90, banks=64)
    assert wider != sm90 and hash(dataclasses.replace(wider, banks=32)) == hash(sm90)
    assert dataclasses.replace(sm90, name="other") != sm90  # the name still counts for equality
    assert Instruction("ldmatrix", 4, True) == parse_instruction("ldmatrix.x4.trans")
    assert hash(Instruction("ldmatrix", 4, True)) == hash(parse_instruction("ldmatrix.x4.trans"))
