"""Which memory ``linlayout swizzle --emit`` writes is the synthesis result's choice (SwizzleResult.emitted_memory)."""

from __future__ import annotations

import json
from pathlib import Path

from linlayout.io.jsonio import swizzle_query_from_json
from linlayout.synth.synthesis import optimal_swizzle

EX = Path(__file__).resolve().parents[2] / "examples"


def _result(name: str):
    return optimal_swizzle(**swizzle_query_from_json(json.loads((EX / name).read_text())))


def test_a_tying_standard_swizzle_is_emitted_with_the_reason():
    res = _result("gemm_fp16_operand_a.json")
    memory, note = res.emitted_memory()
    assert res.standard == "tma128B" and memory == res.standard_memory == res.preferred_memory
    assert note == "standard swizzle tma128B (the same cost as the synthesized optimum)"


def test_a_form_that_cannot_spell_the_standard_gets_the_synthesized_memory():
    res = _result("gemm_fp16_operand_a.json")
    seen = []

    def spells_nothing(memory):
        seen.append(memory)
        return False

    assert res.emitted_memory(spells_nothing) == (res.memory, "")
    assert len(seen) == len(res.standard_ties) >= 1 and seen[0] == res.standard_memory  # tried in preference order


def test_without_a_tie_the_synthesized_memory_is_emitted():
    res = _result("transpose_fp8_128x128.json")
    assert res.standard_ties == () and res.emitted_memory() == (res.memory, "")
