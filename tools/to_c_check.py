"""Check that ``linlayout.to_c`` emits code usable from C, CUDA host code and CUDA kernels.

    python tools/to_c_check.py OUTDIR     # writes OUTDIR/check.c and OUTDIR/check.cu

``check.c`` (any C compiler) and ``check.cu`` (nvcc) include the emitted offset
functions of a few memory layouts (a synthesized swizzle, Triton's mma
swizzle, TMA 128B, NVMMA) and compare every tensor element's offset with the
library's (``memory.invert()``).  ``check.cu`` computes them on the host and
inside a kernel, one thread per element; it prints one line per layout and
exits non-zero on any difference (or when no GPU is present, after checking
the host side: status 3).  ``tests/test_inputs.py`` compiles both; the GPU
run is recorded in ``tools/to_c_check_gpu.txt``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from linlayout import LinearLayout, mma_swizzle, nvmma_layout, tma_swizzle, to_c

LAYOUTS = {
    "transpose_16x32_optimal": LinearLayout(
        {"offset": [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 2], [8, 4]]},
        {"dim0": 16, "dim1": 32}),
    "mma_swizzle_16x32": mma_swizzle(16, 32, 2, 1, 16),
    "tma_128B_8x64_fp16": tma_swizzle(128, [8, 64], 16),
    "nvmma_64x128_fp16_128B": nvmma_layout([64, 128], 16, 128),
}


def expected(memory: LinearLayout) -> list[int]:
    """The offset of every tensor element, row-major over (dim0, dim1)."""
    inv = memory.invert()
    rows, cols = memory.out_sizes.values()
    return [inv.apply(dim0=r, dim1=c)["offset"] for r in range(rows) for c in range(cols)]


def sources() -> tuple[str, str]:
    """(check.c, check.cu)."""
    funcs, tables, c_checks, cu_checks = [], [], [], []
    for i, (label, mem) in enumerate(LAYOUTS.items()):
        rows, cols = mem.out_sizes.values()
        funcs.append(to_c(mem, f"offset{i}"))
        tables.append(f"static const unsigned expected{i}[{rows * cols}] = {{{', '.join(map(str, expected(mem)))}}};")
        host = (f"    bad = 0; for (unsigned r = 0; r < {rows}u; ++r) for (unsigned c = 0; c < {cols}u; ++c) "
                f"bad += offset{i}(r, c) != expected{i}[r * {cols}u + c];\n"
                f"    printf(\"{label}: {rows * cols} elements, host %s\", bad ? \"WRONG\" : \"ok\"); fails += bad != 0;\n")
        c_checks.append(host + "    printf(\"\\n\");\n")
        cu_checks.append(
            host
            + f"    if (gpu) {{\n"
            f"        kernel{i}<<<{max(1, rows * cols // 256)}, {min(256, rows * cols)}>>>(d);\n"
            f"        cudaMemcpy(h, d, {rows * cols} * sizeof(unsigned), cudaMemcpyDeviceToHost);\n"
            f"        bad = 0; for (unsigned k = 0; k < {rows * cols}u; ++k) bad += h[k] != expected{i}[k];\n"
            f"        printf(\", device (kernel) %s\", bad ? \"WRONG\" : \"ok\"); fails += bad != 0;\n"
            f"    }}\n    printf(\"\\n\");\n")
    kernels = [
        f"__global__ void kernel{i}(unsigned *out) {{\n"
        f"    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"    out[k] = offset{i}(k / {cols}u, k % {cols}u);\n}}\n"
        for i, (rows, cols) in enumerate(m.out_sizes.values() for m in LAYOUTS.values())
    ]
    common = "\n".join(funcs) + "\n" + "\n".join(tables) + "\n"
    c = ("#include <stdio.h>\n" + common + "int main(void) {\n    int fails = 0, bad;\n" + "".join(c_checks)
         + "    return fails != 0;\n}\n")
    cu = ("#include <cstdio>\n" + common + "\n".join(kernels)
          + "int main() {\n    int fails = 0, bad, n = 0;\n"
          + "    int gpu = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;\n"
          + "    unsigned *d = 0, h[1 << 14];\n    if (gpu) cudaMalloc(&d, sizeof(h));\n"
          + "".join(cu_checks)
          + "    if (gpu) { cudaError_t e = cudaDeviceSynchronize(); if (e != cudaSuccess) "
          + "{ printf(\"CUDA error %s\\n\", cudaGetErrorString(e)); return 2; } }\n"
          + "    return fails ? 1 : (gpu ? 0 : 3);\n}\n")
    return c, cu


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else ".")
    out.mkdir(parents=True, exist_ok=True)
    c, cu = sources()
    (out / "check.c").write_text(c)
    (out / "check.cu").write_text(cu)
    print(f"wrote {out / 'check.c'} and {out / 'check.cu'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
