"""An 8x8 fp32 column-major tile read by rows, with and without CuTe's Swizzle<3,2,3> (seed tutorial).

Lanes 0-7 read row 0, lanes 8-15 row 1, ... (4 rows per instruction). In the
column-major tile ``(8,8):(1,8)`` the row elements sit 8 words apart, so
columns n and n+4 share a bank: 2 wavefronts. ``composition(Swizzle<3,2,3>{},
layout)`` XORs offset bit 5 into bit 2 and the read becomes conflict-free.

Run: python examples/swizzle_8x8.py
"""

from linlayout import LinearLayout, cute_layout, cute_swizzle, wavefronts
from linlayout.io.render import bank_grid_text

# lane bits 0-2 walk the columns (dim1), lane bits 3-4 and the register walk the rows (dim0).
row_read = LinearLayout(
    {"register": [[4, 0]], "lane": [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]]}, {"dim0": 8, "dim1": 8}
)
plain = cute_layout((8, 8), (1, 8)).invert()          # offset -> (row, col), column-major
swizzled = cute_swizzle(3, 2, 3, ((8, 8), (1, 8)), units="elements")     # composition(Swizzle<3,2,3>{}, (8,8):(1,8))


def results() -> dict:
    return {
        "column-major": wavefronts(row_read, plain, 32, "load"),
        "Swizzle<3,2,3>": wavefronts(row_read, swizzled, 32, "load"),
    }


if __name__ == "__main__":
    for name, r in results().items():
        print(f"{name:16s} {r.wavefronts_per_instruction} wavefronts per instruction")
    print("\nbanks with Swizzle<3,2,3> (same table as the tutorial):")
    print(bank_grid_text(swizzled, 32))
