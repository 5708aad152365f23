"""The default policy (linlayout.synth.policy): one place for the defaults, used by every command (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

from linlayout.catalog.swizzles import nvmma_layout
from linlayout.convert.smem import round_trip
from linlayout.hw import SharedMemory, get_hardware
from linlayout.io.emit import to_c
from linlayout.io.jsonio import swizzle_query_from_json
from linlayout.synth.policy import (DEFAULT_OBJECTIVE, LDST_INSTRUCTIONS, choose_memory, conversion_instructions,
                                    default_instructions)
from linlayout.synth.synthesis import SwizzleQuery, optimal_swizzle

EX = Path(__file__).resolve().parents[2] / "examples"
SM90 = get_hardware("sm90")


def _query(name: str):
    return swizzle_query_from_json(json.loads((EX / name).read_text()))


def test_the_defaults_come_from_the_policy():
    q = _query("transpose_16x32.json")
    assert SwizzleQuery(q.write, q.read, 32).objective == DEFAULT_OBJECTIVE == "balanced"
    res = optimal_swizzle(q.write, q.read, 32)
    assert default_instructions(32, SM90) == LDST_INSTRUCTIONS
    assert (res.write_instruction, res.read_instruction) == LDST_INSTRUCTIONS


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
