"""Synthesize the shared-memory layout for the seeds' 16x32 fp32 transpose.

The store writes rows (thread t holds column t), the read takes columns
(thread t reads (t % 16, 2r + t // 16)). The paper and the blog derive
offset = 32m + (n ^ 2m) for 32-bit accesses; linlayout finds it too, and by
default also lets the store use 128-bit vectors (4 instructions instead of 16,
same wavefronts).

Run: python examples/swizzle_transpose_16x32.py   (or: linlayout swizzle examples/transpose_16x32.json)
"""

from pathlib import Path

from linlayout import LinearLayout, load_file, optimal_swizzle, to_c

q = load_file(Path(__file__).with_name("transpose_16x32.json"))
store, read = LinearLayout.from_json(q["write"]), LinearLayout.from_json(q["read"])


def results() -> dict:
    return {"default": optimal_swizzle(store, read, 32), "32-bit accesses": optimal_swizzle(store, read, 32, vector_bits=32)}


if __name__ == "__main__":
    for name, res in results().items():
        print(f"== {name}")
        print(res.explanation)
        print("offset bases:", [list(b) for b in res.memory.bases["offset"]])
        print()
    print(to_c(results()["32-bit accesses"].memory))
