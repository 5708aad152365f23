"""float4 stores into a transposed 128x8 A tile (seed: the Vizuara bank-conflict article).

The tile is staged transposed, ``As[k][m]`` with 8 rows of 128 floats. Eight
adjacent lanes store a float4 to rows k = 0..7 of the same four columns: with
a leading dimension of 128 floats they all land on the same four banks, an
8-way conflict in each of the 4 quarter-warp passes (32 wavefronts). Padding
the leading dimension to 132 floats (one float4) shifts each row by four
banks: 4 wavefronts, one per pass. Padding is not linear: the simulator counts it.

Run: python examples/float4_transposed_a.py
"""

from linlayout import LinearLayout, padded, simulate_wavefronts, wavefronts

# (k, m) = (dim0, dim1). Registers 0-1: the float4 along m; lanes 0-2: k; lanes 3-4 and registers 2-4: m.
store = LinearLayout(
    {"register": [[0, 1], [0, 2], [0, 16], [0, 32], [0, 64]], "lane": [[1, 0], [2, 0], [4, 0], [0, 4], [0, 8]]},
    {"dim0": 8, "dim1": 128},
)


def results() -> dict:
    return {
        "ld = 128 (closed form)": wavefronts(store, padded([8, 128], 0).reference(), 32, "store"),
        "ld = 128 (simulator)": simulate_wavefronts(store, padded([8, 128], 0), 32, "store"),
        "ld = 132 (simulator)": simulate_wavefronts(store, padded([8, 128], 4), 32, "store"),
    }


if __name__ == "__main__":
    for name, r in results().items():
        print(f"{name:24s} {r.wavefronts_per_instruction:3d} wavefronts per float4 store "
              f"({r.passes_per_instruction} passes)")
