"""Regenerate docs/layouts.md: the layout constructors, and a picture (text grid) of each.

Run: python docs/make_layouts_md.py   (tests/test_docs.py checks that the committed file is what this
writes, and runs each entry's python block and compares its printed grid)
"""

from pathlib import Path

from linlayout import blocked, cute_tv_layout, ldmatrix, mfma, mma, sliced, wgmma

ENTRIES = [
    ("blocked([16, 16], [1, 4], [4, 8], [1, 1], [1, 0])",
     "Triton blocked layout: 4 contiguous elements per thread, 4x8 threads, 1 warp. The tile is 32 wide on a\n"
     "16-wide tensor, so lane bit 2 broadcasts (lanes 4-7 duplicate lanes 0-3); rows 4-15 repeat in registers.",
     lambda: blocked([16, 16], [1, 4], [4, 8], [1, 1], [1, 0])),
    ("blocked([4, 16], [1, 2], [4, 8], [2, 1], [1, 0])",
     "A tile larger than the tensor: the second warp broadcasts (w0 and w1 hold the same data; the grid shows w0).",
     lambda: blocked([4, 16], [1, 2], [4, 8], [2, 1], [1, 0])),
    ("sliced(blocked([32, 1], [1, 4], [4, 8], [1, 1], [1, 0]), 1)",
     "Slicing away dim1: lanes that walked dim1 now duplicate each other.",
     lambda: sliced(blocked([32, 1], [1, 4], [4, 8], [1, 1], [1, 0]), 1)),
    ('mma("A", (16, 16), "m16n8k16")', "mma.sync m16n8k16 operand A (16-bit), one warp.",
     lambda: mma("A", (16, 16), "m16n8k16")),
    ('mma("B", (16, 8), "m16n8k16")', "mma.sync m16n8k16 operand B (K x N).", lambda: mma("B", (16, 8), "m16n8k16")),
    ('mma("C", (16, 8), "m16n8k16")', "mma.sync m16n8 accumulator.", lambda: mma("C", (16, 8), "m16n8k16")),
    ('mma("A", (16, 32), "m16n8k32")', "mma.sync m16n8k32 operand A (8-bit).", lambda: mma("A", (16, 32), "m16n8k32")),
    ('mma("A", (16, 8), "m16n8k8")', "mma.sync m16n8k8 operand A (tf32).", lambda: mma("A", (16, 8), "m16n8k8")),
    ('wgmma("C", (64, 16), n=16)', "wgmma m64n16 accumulator of a warpgroup (4 warps along M).",
     lambda: wgmma("C", (64, 16), n=16)),
    ('wgmma("A", (64, 16))', "wgmma m64nNk16 operand A from registers.", lambda: wgmma("A", (64, 16))),
    ("ldmatrix(2)", "ldmatrix.x2 (stmatrix.x2 is the same): two 8x8 matrices stacked along dim0.", lambda: ldmatrix(2)),
    ("ldmatrix(1, trans=True)", "ldmatrix.x1.trans.", lambda: ldmatrix(1, trans=True)),
    ("cute_tv_layout(((4, 8), 2), ((2, 8), 1), (8, 8))", "A CuTe thread-value layout on an 8x8 tile.",
     lambda: cute_tv_layout(((4, 8), 2), ((2, 8), 1), (8, 8))),
    ('mfma("C", "16x16x16")', "AMD MFMA 16x16x16 accumulator, wave64 (from AMD's documentation; not measured here).",
     lambda: mfma("C", "16x16x16")),
]


INTRO = """\
# Layouts of real kernels

The constructors (`from linlayout import blocked, mma, ...`; the code is in
`linlayout/catalog/constructors.py`) build the distributed layouts kernels actually use, so nobody
writes bases by hand:

| constructor | layout |
|---|---|
| `blocked(shape, size_per_thread, threads_per_warp, warps_per_cta, order)` | Triton's blocked layout, rank 1-4, broadcasting when the tensor is smaller than the CTA tile and wrapping into registers when larger |
| `sliced(layout, dim)` | Triton's slice layout (a dimension removed) |
| `mma(operand, shape, instr, warps_per_cta)` | `mma.sync` A, B and accumulator for `m16n8k16` (16-bit), `m16n8k32` (8-bit), `m16n8k8` (tf32), tiled over warps and repeated over the shape |
| `wgmma(operand, shape, n, element_bits, warps_per_cta)` | Hopper `wgmma` m64nNk16 / m64nNk32: A from registers and the accumulator, a warpgroup of 4 warps |
| `ldmatrix(matrices, trans)` (= `stmatrix`) | registers of `ldmatrix`/`stmatrix` .x1/.x2/.x4 (and .trans), 16-bit |
| `cute_tv_layout(tv_shape, tv_stride, tile)` | a CuTe thread-value layout (power-of-two shapes and strides; `NotLinearError` otherwise); `cute_layout` covers CuTe memory layouts |
| `mfma(operand, instr)` | AMD MFMA 32x32x8 and 16x16x16 f16, wave64, from AMD's documentation; **not measured on hardware** |

`blocked`, `sliced`, `mma` and `wgmma` equal Triton 3.9.0's own conversion (Gluon's `to_linear_layout`)
on 300 random blocked layouts and on random mma, dot-operand, wgmma and slice layouts (a test that runs
where `triton` is installed). The NVIDIA layouts are also checked against tables recorded on an H100:
`tools/hw_probes/run_probes.py --check` (needs a GPU and nvcc; about 7 s on an H100 80GB HBM3, driver
580.159.04) runs 27 probe kernels (11,404 one-instruction experiments) and records who holds which
element for `mma.sync` m16n8k16/k32/k8 (A, B, C, D), `wgmma` m64n{8,16,32}k16 f16 and k32 e4m3 (A from
registers, D), and `ldmatrix`/`stmatrix` .x1/.x2/.x4 with and without `.trans`. All 36 operands were
measured cleanly and match both the PTX ISA formulas and linlayout's constructors, entry for entry
(`tests/data/hw_fragments_h100.json`; `tools/hw_probes/README.md` explains the methods).

<!-- not-run: needs an NVIDIA GPU and nvcc -->
```sh
python3 tools/hw_probes/run_probes.py --check
```

On the command line, `linlayout show` builds them by name and prints the bases, the properties and
the grid:

```sh
linlayout show mma --shape 16 16 --operand A --bits 16
linlayout show blocked --shape 128 64 --size-per-thread 1 8 --threads-per-warp 4 8 --warps-per-cta 4 1
linlayout show ldmatrix --matrices 4 --trans
```

[swizzle.md](swizzle.md#instruction-choice) builds an fp16 GEMM's A operand path from these
constructors (`examples/swizzle_gemm_operand.py`).

## Pictures

Generated by `python docs/make_layouts_md.py`. Each grid is the tensor (`dim0` rows, `dim1` columns);
each cell names the hardware index holding that element, major first: `w` warp, `t` lane (thread), `r`
register (element index within the thread). With broadcast, the owner whose broadcast bits are 0 is
shown. Print any of them with `linlayout show NAME ...` or `layout.grid()`.
"""


def render() -> str:
    out = [INTRO, "```python", "from linlayout import blocked, cute_tv_layout, ldmatrix, mfma, mma, sliced, wgmma", "```", ""]
    for call, what, make in ENTRIES:
        L = make()
        out += [f"### `{call}`", "", what, "", "```python", f"L = {call}", "print(L)", "print()",
                "print(L.grid())", "```", "", "```text", str(L), "", L.grid(), "```", ""]
    return "\n".join(out)


if __name__ == "__main__":
    Path(__file__).with_name("layouts.md").write_text(render())
