"""The 16x32 fp32 transpose of the seeds' linear-layout article: "sixteen, two, one".

One warp stores a 16x32 tile (thread t holds column t, register r is row r)
and reads it back transposed (thread t reads (t % 16, 2r + t // 16)). Three
shared-memory layouts: unswizzled ``32m + n``, the classic ``32m + (n ^ m)``
and the algorithm's ``32m + (n ^ 2m)``. Reads cost 16, 2 and 1 wavefronts per
instruction; stores always 1.

Run: python examples/transpose_16x32.py   (or: linlayout conflicts examples/transpose_16x32_read_xor_m.json)
"""

from linlayout import LinearLayout, wavefronts

SHAPE = {"dim0": 16, "dim1": 32}  # (m, n)
store = LinearLayout(
    {"register": [[1, 0], [2, 0], [4, 0], [8, 0]], "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]}, SHAPE
)
read = LinearLayout(
    {"register": [[0, 2], [0, 4], [0, 8], [0, 16]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]}, SHAPE
)
BANKS = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]  # offset bits 0-4: n
MEMORIES = {
    "32m + n": LinearLayout({"offset": BANKS + [[1, 0], [2, 0], [4, 0], [8, 0]]}, SHAPE),
    "32m + (n ^ m)": LinearLayout({"offset": BANKS + [[1, 1], [2, 2], [4, 4], [8, 8]]}, SHAPE),
    "32m + (n ^ 2m)": LinearLayout({"offset": BANKS + [[1, 2], [2, 4], [4, 8], [8, 16]]}, SHAPE),
}


def results() -> dict:
    return {
        name: {"read": wavefronts(read, mem, 32, "load"), "store": wavefronts(store, mem, 32, "store")}
        for name, mem in MEMORIES.items()
    }


if __name__ == "__main__":
    print(f"{'memory':16s} {'read':>5s} {'store':>6s}   (wavefronts per instruction; 16 instructions each)")
    for name, r in results().items():
        print(f"{name:16s} {r['read'].wavefronts_per_instruction:5d} {r['store'].wavefronts_per_instruction:6d}")
    print()
    print(results()["32m + (n ^ m)"]["read"].explain())
