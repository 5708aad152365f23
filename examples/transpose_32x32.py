"""The classic 32x32 fp32 transpose through shared memory (seed: the bank-conflict tutorial).

Each lane writes a row of the tile (conflict-free) and then reads a column: in
an unpadded tile every lane of the column read hits bank 0 (32 wavefronts);
padding each row by one word (``tile[32][33]``) spreads the column over all 32
banks (1 wavefront). Padding is not linear over F2, so that case is counted by
the simulator.

Run: python examples/transpose_32x32.py
"""

from linlayout import LinearLayout, padded, simulate_wavefronts, unswizzled, wavefronts

SHAPE = {"dim0": 32, "dim1": 32}  # tile[y][x]
ONE_COLUMN = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]
ONE_ROW = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]

# Lane l writes tile[y][l]: lanes walk a row; the register loop walks y.
row_store = LinearLayout({"register": ONE_ROW, "lane": ONE_COLUMN}, SHAPE)
# Lane l reads tile[l][x]: lanes walk a column; the register loop walks x.
column_read = LinearLayout({"register": ONE_COLUMN, "lane": ONE_ROW}, SHAPE)


def results() -> dict:
    plain = unswizzled([32, 32])
    # The kernel moves one float per instruction: ask for 32-bit accesses
    # (otherwise linlayout would vectorise the contiguous register loop).
    return {
        "column read": wavefronts(column_read, plain, 32, "load", vector_bits=32),
        "column read, padded to 33": simulate_wavefronts(column_read, padded([32, 32], 1), 32, "load", vector_bits=32),
        "row store": wavefronts(row_store, plain, 32, "store", vector_bits=32),
    }


if __name__ == "__main__":
    for name, r in results().items():
        print(f"{name:28s} {r.wavefronts_per_instruction:3d} wavefronts per instruction "
              f"({r.instructions} instructions, {r.wavefronts} per warp, {r.method})")
    print()
    print(results()["column read"].explain())
