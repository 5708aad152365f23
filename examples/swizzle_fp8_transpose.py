"""An fp8 128x128 transpose through shared memory (Triton's Test128x128Float8Transpose).

Each thread holds a 4x4 block of fp8 on both sides, so 16 elements (128 bits)
can be moved per access if the memory keeps the common register directions
contiguous; the lanes of the two sides are then paired in the segment bits.

Run: python examples/swizzle_fp8_transpose.py   (or: linlayout swizzle examples/transpose_fp8_128x128.json --compare)
"""

from pathlib import Path

from linlayout import LinearLayout, compare_swizzles, load_file, optimal_swizzle
from linlayout.synth.compare import comparison_text

q = load_file(Path(__file__).with_name("transpose_fp8_128x128.json"))
write, read = LinearLayout.from_json(q["write"]), LinearLayout.from_json(q["read"])


def results() -> dict:
    return {"optimal": optimal_swizzle(write, read, 8)}


if __name__ == "__main__":
    res = results()["optimal"]
    print(res.explanation)
    print()
    print(comparison_text(compare_swizzles(write, read, 8)))
