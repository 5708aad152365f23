"""fp16 GEMM operand A: from the global-load blocked layout to the mma.sync operand layout.

A 128x64 fp16 tile of A is loaded from global memory with Triton's usual
blocked layout (8 contiguous fp16 = 128 bits per thread, 4x8 threads, 4 warps)
and read back as the m16n8k16 operand A of 4 warps stacked along M. Both
layouts come from linlayout.catalog.constructors (they match Triton's own conversion).
Without a swizzle the mma read conflicts; the synthesized layout removes the
conflicts, and where ldmatrix is allowed (the default, or instructions=[...]) linlayout picks ldmatrix.x4.

Run: python examples/swizzle_gemm_operand.py   (or: linlayout swizzle examples/gemm_fp16_operand_a.json)
"""

from linlayout import blocked, mma, optimal_swizzle, unswizzled, wavefronts

SHAPE = (128, 64)
global_load = blocked(SHAPE, size_per_thread=[1, 8], threads_per_warp=[4, 8], warps_per_cta=[4, 1], order=[1, 0])
operand_a = mma("A", SHAPE, "m16n8k16", warps_per_cta=(4, 1))
INSTRUCTIONS = ["st.shared", "ld.shared", "ldmatrix.x4"]


def results() -> dict:
    plain = unswizzled(list(SHAPE))
    return {
        "row-major, ld.shared": (wavefronts(global_load, plain, 16, "store"), wavefronts(operand_a, plain, 16, "load")),
        "row-major, ldmatrix.x4": (wavefronts(global_load, plain, 16, "store"),
                                   wavefronts(operand_a, plain, 16, None, "ldmatrix.x4")),
        "optimal, ld/st.shared": optimal_swizzle(global_load, operand_a, 16, instructions=["st.shared", "ld.shared"]),
        "optimal, with ldmatrix": optimal_swizzle(global_load, operand_a, 16, instructions=INSTRUCTIONS),
    }


if __name__ == "__main__":
    for name, r in results().items():
        if isinstance(r, tuple):
            w, rd = r
            print(f"== {name}: write {w.wavefronts} / read {rd.wavefronts} wavefronts per warp "
                  f"({rd.conflict_ways}-way read conflicts, {w.instructions} + {rd.instructions} instructions)")
        else:
            print(f"== {name}: {r.write_instruction} + {r.read_instruction}, write {r.write_wavefronts} / read "
                  f"{r.read_wavefronts} wavefronts, {r.write_instructions} + {r.read_instructions} instructions")
            print(r.explanation)
        print()
