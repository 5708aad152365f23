"""A tour of the layout algebra on the paper's Layout A (§4.1) and a swizzled shared layout.

Run: python examples/layout_algebra.py
"""

from linlayout import LinearLayout, mma_swizzle

# Layout A: 16x16 tensor, 2x2 registers, 4x8 threads, 2x1 warps (paper Fig. 1a).
A = LinearLayout.from_json(open(__file__.replace("layout_algebra.py", "paper_layout_a.json")).read())
print(A)
print("register 1 of thread 9 in warp 0 holds", A.apply(register=1, lane=9, warp=0))

# Where does each hardware index live in a swizzled shared-memory tile?
M = mma_swizzle(16, 16, vec=2, per_phase=1, max_phase=8)
to_offset = A.invert_and_compose(M)  # register/lane/warp -> offset, with A = M o to_offset
print("offset of (register 1, lane 9):", to_offset.apply(register=1, lane=9)["offset"])

# Composition order: a.compose(b) applies a first, then b (b @ a is the same).
back = to_offset.compose(M)
assert back == A and (M @ to_offset) == A
print("A == M o (M^-1 o A):", back == A)

# The inverse of the memory layout maps tensor coordinates to offsets.
Minv = M.invert()
print("element (3, 5) is stored at offset", Minv.apply(dim0=3, dim1=5)["offset"])
