"""The default policy (linlayout.synth.policy): one place for the defaults, used by every command (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

from linlayout.catalog.swizzles import nvmma_layout
from linlayout.convert.smem import round_trip
from linlayout.hw import SharedMemory, get_hardware, parse_instruction
from linlayout.io.emit import to_c
from linlayout.io.jsonio import swizzle_query_from_json
from linlayout.synth.policy import (DEFAULT_OBJECTIVE, LDST_INSTRUCTIONS, choose_memory, conversion_instructions,
                                    default_instructions, pair_preference)
from linlayout.synth.synthesis import SwizzleQuery, optimal_swizzle

EX = Path(__file__).resolve().parents[2] / "examples"
SM90 = get_hardware("sm90")


def _query(name: str):
    return swizzle_query_from_json(json.loads((EX / name).read_text()))


def test_the_defaults_come_from_the_policy():
    q = _query("transpose_16x32.json")
    assert SwizzleQuery(q.write, q.read, 32).objective == DEFAULT_OBJECTIVE == "balanced"
    res = optimal_swizzle(q.write, q.read, 32)
    assert default_instructions(32, SM90) == conversion_instructions(32, SM90) != LDST_INSTRUCTIONS
    assert (res.write_instruction, res.read_instruction) == ("st.shared", "ldmatrix.x4")
    assert res.optimal
    narrow = optimal_swizzle(q.write, q.read, 32, instructions=LDST_INSTRUCTIONS)
    assert (narrow.write_instruction, narrow.read_instruction) == LDST_INSTRUCTIONS
    assert (narrow.write_wavefronts, narrow.read_wavefronts) == (res.write_wavefronts, res.read_wavefronts)
    assert narrow.read_instructions > res.read_instructions  # the same wavefronts in fewer instructions


def test_swizzle_and_convert_give_the_same_memory_for_the_same_layouts():
    """Issue 26: the same write and read layouts get one memory layout and one instruction pair, whether asked
    as a swizzle or as a conversion's round trip."""
    q = _query("transpose_16x32.json")
    for bits in (8, 16, 32):
        res = optimal_swizzle(q.write, q.read, bits)
        staged = round_trip(q.write, q.read, bits).swizzle
        assert staged.memory == res.memory
        assert (staged.write_instruction, staged.read_instruction) == (res.write_instruction, res.read_instruction)
        assert res.optimal


def test_matrix_instructions_only_where_the_model_moves_the_elements():
    assert default_instructions(4, SM90) == default_instructions(64, SM90) == LDST_INSTRUCTIONS
    assert "ldmatrix.x4.trans" in default_instructions(16, SM90) and "ldmatrix.x4.trans" not in default_instructions(8, SM90)


def test_the_choice_among_pairs_does_not_depend_on_the_order_they_are_listed_or_visited():
    """Rule 3 (policy.pair_preference): the same answer whatever the order of ``instructions``; the search visits
    pairs by floor, so a listing order that changed the visit order would show here."""
    q = _query("transpose_16x32.json")
    names = list(default_instructions(16, SM90))
    first = optimal_swizzle(q.write, q.read, 16, instructions=names)
    for order in (names[::-1], names[1::2] + names[::2]):
        other = optimal_swizzle(q.write, q.read, 16, instructions=order)
        assert other.memory == first.memory
        assert (other.write_instruction, other.read_instruction) == (first.write_instruction, first.read_instruction)
    assert pair_preference(parse_instruction("st.shared"), parse_instruction("ld.shared")) < \
        pair_preference(parse_instruction("st.shared"), parse_instruction("ldmatrix.x4")) < \
        pair_preference(parse_instruction("st.shared"), parse_instruction("ldmatrix.x1")) < \
        pair_preference(parse_instruction("st.shared"), parse_instruction("ldmatrix.x4.trans"))


def test_equal_cost_pairs_go_to_ld_st(monkeypatch):
    """Two pairs with the same wavefronts and instructions: ld/st wins, and the reason says the tie was broken."""
    from linlayout.synth import search

    q = _query("transpose_16x32.json")
    res = optimal_swizzle(q.write, q.read, 32, instructions=["st.shared", "ld.shared", "ldmatrix.x4"])
    key = search.outcome_key
    # Make every pair cost the same by the search's key, above every floor (so every pair is searched, in the
    # order of their floors): the preference alone decides.
    monkeypatch.setattr(search, "outcome_key", lambda p, c: (1 << 30,) * 4)
    tied = optimal_swizzle(q.write, q.read, 32, instructions=["st.shared", "ldmatrix.x4", "ld.shared"])
    assert (tied.write_instruction, tied.read_instruction) == LDST_INSTRUCTIONS
    assert "the same cost as st.shared + ldmatrix.x4" in tied.emitted.instructions_reason
    monkeypatch.setattr(search, "outcome_key", key)
    assert res.emitted.instructions == ("st.shared", "ldmatrix.x4")
    assert "the cheapest of the 2 instruction pairs considered" in res.emitted.instructions_reason  # ld/st not searched


def test_pairs_that_cannot_win_are_not_searched(monkeypatch):
    """The F32 transpose of Triton's tests: ld/st meets its floor and no matrix pair can beat it once its tile is
    known, so only the ld/st pair is searched."""
    from linlayout import LinearLayout
    from linlayout.synth import search

    case = {c["name"]: c for c in json.loads((EX.parent / "tests/data/triton_swizzle_cases.json").read_text())["cases"]}
    c = case["Test32x16F32Transpose"]
    searched = []
    real = search.search_pair
    monkeypatch.setattr(search, "search_pair", lambda p, *a: searched.append(
        (p.write_options[0].name, p.read_options[0].name)) or real(p, *a))
    res = optimal_swizzle(LinearLayout.from_json(c["write"]), LinearLayout.from_json(c["read"]), 32)
    assert searched == [LDST_INSTRUCTIONS]
    assert res.optimal and "the cheapest of the 16 instruction pairs" in res.emitted.instructions_reason


def test_conversions_add_matrix_instructions_where_the_model_and_the_width_allow():
    assert conversion_instructions(16, SM90)[-2:] == ("stmatrix.x4.trans", "ldmatrix.x4.trans")
    assert "ldmatrix.x1" in conversion_instructions(32, SM90) and "ldmatrix.x4.trans" not in conversion_instructions(32, SM90)
    assert conversion_instructions(64, SM90) == LDST_INSTRUCTIONS
    no_matrix = SharedMemory(name="toy", banks=32, lanes=32, matrix_rows=0)
    assert conversion_instructions(16, no_matrix) == LDST_INSTRUCTIONS


def test_a_result_says_which_memory_it_emits_and_why():
    res = optimal_swizzle(_query("gemm_fp16_operand_a.json"))
    chosen = res.emitted
    assert (chosen.source, chosen.name) == ("standard", "tma128B") and chosen.memory == nvmma_layout([128, 64], 16, 128)
    assert chosen.reason == "standard swizzle tma128B (the same cost as the synthesized optimum)"
    assert res.to_dict()["emitted"]["name"] == "tma128B"
    assert to_c(res.emitted.memory) == to_c(res.emitted_memory()[0])  # what --emit c writes
    # Without a tie the synthesized memory (the fp8 example's golden text shows it from the command line).
    alone = choose_memory(res.memory, (), "32 + 32 wavefronts")
    assert alone.source == "synthesized" and alone.memory == res.memory and "no standard swizzle" in alone.reason


def test_choose_memory_without_ties_keeps_the_synthesized_memory():
    res = optimal_swizzle(_query("transpose_16x32.json"))
    assert choose_memory(res.memory, (), "x").memory == res.memory
    assert choose_memory(res.memory, res.standard_ties, "x").name == res.standard


def test_a_conversion_round_trip_uses_the_policy_set():
    q = _query("transpose_16x32.json")
    rt = round_trip(q.write, q.read, 16)
    assert rt.swizzle.read_instruction in conversion_instructions(16, SM90)
