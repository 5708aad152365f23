"""fp16 GEMM operand A: from the global-load blocked layout to the mma.sync operand layout.

A 128x64 fp16 tile of A is loaded from global memory with a blocked layout (8
contiguous fp16 per thread, 128-bit) and read back as the m16n8k16 operand A
of 4 warps. linlayout chooses the instructions too: plain ld.shared or
ldmatrix on the read side, and picks the pair with the fewest wavefronts,
then the fewest instructions.

Run: python examples/swizzle_gemm_operand.py   (or: linlayout swizzle examples/gemm_fp16_operand_a.json)
"""

from pathlib import Path

from linlayout import LinearLayout
from linlayout.jsonio import load_file
from linlayout.synthesis import optimal_swizzle

q = load_file(Path(__file__).with_name("gemm_fp16_operand_a.json"))
blocked, mma_a = LinearLayout.from_json(q["write"]), LinearLayout.from_json(q["read"])


def results() -> dict:
    return {
        "ld/st.shared only": optimal_swizzle(blocked, mma_a, 16),
        "with ldmatrix": optimal_swizzle(blocked, mma_a, 16, instructions=q["instructions"]),
    }


if __name__ == "__main__":
    for name, res in results().items():
        print(f"== {name}: {res.write_instruction} + {res.read_instruction}, "
              f"write {res.write_wavefronts} / read {res.read_wavefronts} wavefronts, "
              f"{res.write_instructions} + {res.read_instructions} instructions per warp")
        print(res.explanation)
        print()
