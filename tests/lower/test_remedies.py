"""Remedies (issue 24, item 5): a fixed buffer's cheapest legal alternative and a reduction's cheaper exchange.

The default tests lint a few corpus kernels (about a second of CPU together).  Two tests compile with the
installed Triton (``LINLAYOUT_TRITON_COMPILE=1`` runs them; several seconds each): the Gluon code of a
cheaper exchange, whose PTX must have exactly the shared-memory instructions, barriers and shuffles the
remedy counts, and the legality rules, checked against what Triton's wgmma lowering accepts.
"""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys

import pytest

from linlayout.cli import main
from linlayout.io.ttgir.lint import lint_json, lint_text, render_lint, tensor_layout
from linlayout.io.ttgir.module import parse_module
from linlayout.lower.registry import get_lowering
from linlayout.lower.remedies import (
    BufferRemedy,
    ExchangeRemedy,
    NvmmaChoice,
    exchange_cost,
    nvmma_memory,
    tma_rejects,
    wgmma_rejects,
)

from ..conftest import DATA

FP8 = DATA / "ttgir39" / "matmul_fp8_s1.ttgir"
COLSUM36 = DATA / "ttgir36" / "red_sum_col_fp32_256x32_w4.ttgir"
COLSUM39 = DATA / "ttgir39" / "red_sum_col_fp32_256x32_w4.ttgir"
COMPILE = pytest.mark.skipif(not os.environ.get("LINLAYOUT_TRITON_COMPILE"),
                             reason="compiles with Triton (seconds): set LINLAYOUT_TRITON_COMPILE=1")


@pytest.fixture(scope="module")
def fp8_report():
    return lint_text(FP8.read_text(), remedies=True)


@pytest.fixture(scope="module")
def colsum_report():
    return lint_text(COLSUM36.read_text(), triton="3.6", remedies=True)


# ----------------------------------------------------------------------------- legality


def test_wgmma_reads_fp8_k_major_only_and_fp16_either_way():
    fp8_b = [wgmma_rejects(NvmmaChoice(s, t, 8), 1, [64, 128]) for s in (32, 64) for t in (False, True)]
    assert [bool(r) for r in fp8_b] == [True, False, True, False]  # B [K, N] is K-major when transposed
    assert "K-major" in fp8_b[0] and "transposed = true" in fp8_b[0]
    assert wgmma_rejects(NvmmaChoice(64, True, 8), 0, [128, 64])  # A [M, K] is K-major untransposed
    assert not wgmma_rejects(NvmmaChoice(64, False, 8), 0, [128, 64])
    assert not wgmma_rejects(NvmmaChoice(64, False, 8), 1, [64, 128], view_transposed=True)  # seen through a trans
    assert not any(wgmma_rejects(NvmmaChoice(s, t, 16), o, [64, 64]) for s in (32, 64, 128) for t in (False, True)
                   for o in (0, 1))
    assert "128 elements" in wgmma_rejects(NvmmaChoice(128, True, 8), 1, [64, 128])  # the box does not fit
    assert wgmma_rejects(NvmmaChoice(0, False, 16), 0, [64, 64])  # no swizzle: not offered


def test_tma_keeps_the_orientation():
    cur = NvmmaChoice(128, False, 16)
    assert tma_rejects(NvmmaChoice(64, True, 16), cur, [64, 64])
    assert not tma_rejects(NvmmaChoice(32, False, 16), cur, [64, 64])


# ----------------------------------------------------------------------------- the fp8 operand


def test_fp8_transposed_buffer_remedy_converts_the_writer(fp8_report):
    (r,) = fp8_report.remedies
    assert isinstance(r, BufferRemedy) and r.buffer == "%b_39" and r.users == ("wgmma operand B",)
    assert r.current == r.memory == NvmmaChoice(64, True, 8)  # the only legal encodings store no better
    assert (r.current_wavefronts, dict(r.current_instructions), r.current_cost) == (512, {"st.shared": 64}, 3336)
    # the planner's round trip (16 + 64 wavefronts) and the new store (16 wavefronts in 4 st.shared.v4)
    assert (r.conversion_path, r.conversion_wavefronts, r.wavefronts, r.saving_wavefronts) == ("shared_memory", 80, 96, 416)
    assert dict(r.conversion_instructions) == {"st.shared": 64, "ld.shared": 4, "bar.sync": 1, "prmt": 48}
    assert dict(r.instructions) == {"st.shared": 68, "ld.shared": 4, "bar.sync": 1, "prmt": 48}
    assert (r.cost, r.saving_instructions) == (1422, -57)  # fewer wavefronts, more (cheaper) instructions
    assert (r.converted_kind, r.converted_at) == ("store", "ttg.local_alloc at kernels.py:71:13")
    assert r.converted_layout.bases["register"][:4] == [(1, 0), (2, 0), (4, 0), (8, 0)]  # 16 bytes along K
    store = get_lowering("3.9").count_local_access(r.converted_layout, nvmma_memory(r.memory, [64, 128]), 8, "store")
    assert (store.instruction, store.wavefronts, store.instructions) == ("st.shared", 16, 4)


def test_fp8_remedy_never_suggests_what_wgmma_rejects(fp8_report):
    """Untransposed, the fp8 B tile would store at 32 wavefronts: far cheaper, but wgmma does not read it."""
    (r,) = fp8_report.remedies
    alloc = next(op for op in parse_module(FP8.read_text()).ops if op.name == "ttg.local_alloc" and op.results == ["%b_39"])
    writer = tensor_layout(alloc.operand_types[0])
    illegal = NvmmaChoice(64, False, 8)
    cheap = get_lowering("3.9").count_local_access(writer, nvmma_memory(illegal, [64, 128]), 8, "store")
    assert cheap.wavefronts == 32 < r.wavefronts and wgmma_rejects(illegal, 1, [64, 128])
    assert r.memory.transposed and not wgmma_rejects(r.memory, 1, [64, 128])
    assert sum("transposed = false" in x and "K-major" in x for x in r.rejected) == 3
    assert any("swizzle 128, transposed = true" in x and "128 elements" in x for x in r.rejected)


def test_fp16_operands_may_change_orientation():
    """The same kernel in fp16: wgmma reads 16-bit operands either way, so the remedy is another encoding."""
    text = FP8.read_text().replace("f8E4M3FN", "f16").replace("elementBitWidth = 8", "elementBitWidth = 16")
    by_buffer = {r.buffer: r for r in lint_text(text, remedies=True).remedies}
    b = by_buffer["%b_39"]
    assert (b.memory, b.converted_layout, b.current_wavefronts, b.wavefronts) == (NvmmaChoice(128, False, 16), None, 512, 64)
    assert by_buffer["%a_38"].memory == NvmmaChoice(128, False, 16) and by_buffer["%a_38"].saving_wavefronts == 32


def test_tma_buffer_gets_a_wider_swizzle_in_its_own_orientation():
    """``tests/data/remedies/tma_load_swizzle32.ttgir``: Triton 3.9's TTGIR (CPU compile for sm_90) of a Gluon
    kernel that TMA-loads a 64x64 fp16 tile into ``NVMMASharedLayout(swizzle_byte_width=32, element_bitwidth=16,
    rank=2)`` (``tma.async_load``) and reads it with ``BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])``."""
    report = lint_text((DATA / "remedies" / "tma_load_swizzle32.ttgir").read_text(), remedies=True)
    (r,) = report.remedies
    assert (r.buffer, r.users, r.current, r.memory) == ("%buf", ("TMA load",), NvmmaChoice(32, False, 16),
                                                        NvmmaChoice(128, False, 16))
    assert (r.current_wavefronts, r.wavefronts, r.saving_instructions, r.converted_layout) == (64, 16, 0, None)
    assert len(r.rejected) == 3 and all("transposed = true: TMA load" in x and "is fixed" in x for x in r.rejected)


def test_tma_buffer_read_across_its_rows_gets_a_reader_conversion():
    """``tests/data/remedies/tma_load_columns.ttgir``: the same kernel with a 128-byte swizzle, read with
    ``BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1])`` (8 elements down a column per thread): every encoding TMA
    accepts is as conflicted, so the remedy loads along the memory and converts after the load."""
    report = lint_text((DATA / "remedies" / "tma_load_columns.ttgir").read_text(), remedies=True)
    (r,) = report.remedies
    assert (r.current, r.memory, r.converted_kind) == (NvmmaChoice(128, False, 16), NvmmaChoice(128, False, 16), "load")
    assert r.converted_at == "ttg.local_load at tma_load.py:21:9"
    assert (r.current_wavefronts, r.conversion_wavefronts, r.wavefronts, r.cost, r.current_cost) == (256, 32, 48, 718, 1672)
    load = get_lowering("3.9").count_local_access(r.converted_layout, nvmma_memory(r.memory, [64, 64]), 16, "load")
    assert load.wavefronts == r.wavefronts - r.conversion_wavefronts == load.ideal_wavefronts  # conflict-free
    assert "then convert to the registers of ttg.local_load" in render_lint(report)


# ----------------------------------------------------------------------------- reductions


def test_reduction_across_warps_gets_a_cheaper_exchange(colsum_report):
    (r,) = colsum_report.remedies
    assert isinstance(r, ExchangeRemedy) and (r.location, r.axis, r.element_bits) == ("kernels_smem.py:40:23", 0, 32)
    # Triton 3.6: partials stored 4-way conflicted, accumulated in rounds, read back 4-way: 136 per CTA
    assert (r.current_wavefronts, dict(r.current_instructions)) == (136, {"st.shared": 5, "ld.shared": 5, "bar.sync": 2})
    assert (r.write_wavefronts, r.read_wavefronts, r.wavefronts, r.saving_wavefronts) == (4, 4, 32, 104)
    assert dict(r.lower_bound) == {"write": 4, "read": 4} and r.proven_optimal
    assert dict(r.instructions) == {"st.shared": 1, "ld.shared": 1, "bar.sync": 1, "shfl.sync": 16}
    assert "gl.SharedLinearLayout(offset_bases=[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0]])" in r.gluon
    assert "gl.sum(y, axis=1)" in r.gluon and r.gluon.startswith("@gluon.jit")


ARGMAX_COL = DATA / "ttgir36" / "red_argmax_col_fp32_256x64_w8.ttgir"


def test_argmax_remedy_exchanges_values_and_indices_in_gluon():
    """A (value, index) reduction with Triton's argmax combine gets Gluon code: both operands reduced together
    inside the warps, each stored into its own scratch, one barrier, read back and reduced again."""
    (r,) = lint_text(ARGMAX_COL.read_text(), triton="3.6", remedies=True).remedies
    assert (r.operands, r.current_wavefronts, r.wavefronts, r.gluon_note) == (2, 2112, 320, "")
    assert dict(r.instructions) == {"st.shared": 2, "ld.shared": 8, "bar.sync": 1, "shfl.sync": 16}
    assert r.index_memory is not None and r.gluon.startswith("@gluon.jit\ndef argmax_combine(v1, i1, v2, i2):")
    assert "first = (v1 > v2) | ((v1 == v2) & (i1 < i2))" in r.gluon
    assert "def argmax_across_warps(x, i):" in r.gluon and r.gluon.count("gl.reduce((") == 2
    assert "INDEX_SCRATCH: gl.constexpr = gl.SharedLinearLayout(offset_bases=" in r.gluon


def test_argmin_is_recognised_and_other_pair_combines_are_not():
    text = ARGMAX_COL.read_text()
    (r,) = lint_text(text.replace("arith.cmpf ogt", "arith.cmpf olt"), triton="3.6", remedies=True).remedies
    assert "def argmin_across_warps(x, i):" in r.gluon and "(v1 < v2)" in r.gluon
    (r,) = lint_text(text.replace("arith.cmpf ogt", "arith.cmpf oge"), triton="3.6", remedies=True).remedies
    assert r.gluon == "" and "argmax or argmin only" in r.gluon_note and r.wavefronts == 320


def test_no_remedy_prints_nothing():
    """Triton 3.9's exchange of the same column sum is already optimal: no remedy, no line, no JSON key."""
    report = lint_text(COLSUM39.read_text(), remedies=True)
    assert report.remedies == ()
    assert "remedy" not in render_lint(report) and "remedies" not in lint_json(report)
    plain = lint_text(COLSUM36.read_text(), triton="3.6")  # remedies are asked for, never computed by default
    assert plain.remedies == () and "remedy" not in render_lint(plain)


def test_cli_text_and_json(capsys):
    assert main(["lint", str(COLSUM36), "--triton", "3.6", "--remedies"]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if x.startswith("remedy for"))
    assert line.startswith("remedy for tt.reduce at kernels_smem.py:40:23 (axis 0): its exchange 136 -> 32 "
                           "wavefronts/CTA (saves 104)") and "proven optimal" in line
    assert "        def sum_across_warps(x):" in text
    assert main(["lint", str(COLSUM36), "--triton", "3.6", "--remedies", "--json"]) == 0
    (d,) = json.loads(capsys.readouterr().out)["remedies"]
    assert (d["kind"], d["current"]["wavefronts_per_cta"], d["remedy"]["wavefronts_per_cta"]) == ("reduction", 136, 32)
    assert d["remedy"]["lower_bound_per_warp"] == {"write": 4, "read": 4} and d["remedy"]["proven_optimal"]
    assert d["remedy"]["memory"].startswith("#ttg.") and d["gluon"].startswith("@gluon.jit")
    assert main(["lint", str(COLSUM36), "--triton", "3.6", "--json"]) == 0
    assert "remedies" not in json.loads(capsys.readouterr().out)


# ----------------------------------------------------------------------------- against Triton (opt-in)


def _bases(bs) -> str:
    return "[" + ", ".join("[" + ", ".join(str(x) for x in b) + "]" for b in bs) + "]"


def _harness(r: ExchangeRemedy, L) -> str:
    """A Gluon kernel that loads x in the reduction's layout, calls the remedy's code and stores the result (an
    argmax or argmin also gets the indices along the axis, in x's layout, and stores the index it returns)."""
    shape = [L.out_sizes[d] for d in L.out_dims]
    name = r.gluon.split("def ")[-1].split("(")[0]
    layout = (f"gl.DistributedLinearLayout(reg_bases={_bases(L.bases['register'])}, lane_bases="
              f"{_bases(L.bases['lane'])}, warp_bases={_bases(L.bases['warp'])}, block_bases=[], shape={shape})")
    pair = r.operands == 2
    if len(shape) == 2:
        index = "i0[:, None] + i1[None, :] * 0" if r.axis == 0 else "i0[:, None] * 0 + i1[None, :]"
        out = f"gl.arange(0, {shape[1 - r.axis]}, layout=gl.SliceLayout({r.axis}, L))"
        body = (f"    i0 = gl.arange(0, {shape[0]}, layout=gl.SliceLayout(1, L))\n"
                f"    i1 = gl.arange(0, {shape[1]}, layout=gl.SliceLayout(0, L))\n"
                f"    x = gl.load(x_ptr + i0[:, None] * {shape[1]} + i1[None, :])\n")
        if pair:
            body += (f"    y, j = {name}(x, {index})\n"
                     f"    gl.store(out_ptr + {out}, y)\n    gl.store(idx_ptr + {out}, j)\n")
        else:
            body += f"    gl.store(out_ptr + {out}, {name}(x))\n"
    else:
        body = f"    gl.store(out_ptr, {name}(gl.load(x_ptr + gl.arange(0, {shape[0]}, layout=L))))\n"
    return ("import triton.experimental.gluon.language as gl\nfrom triton.experimental import gluon\n\n"
            f"{r.gluon}\n\n\n@gluon.jit\ndef kernel(x_ptr, out_ptr, idx_ptr):\n    L: gl.constexpr = {layout}\n{body}")


def _ptx_counts(ptx: str) -> dict[str, int]:
    found = collections.Counter()
    for line in ptx.splitlines():
        m = re.match(r"\s*(?:@!?%p\d+\s+)?(st\.shared|ld\.shared|bar\.sync|shfl\.sync|stmatrix|ldmatrix)", line)
        if m:
            found[m.group(1)] += 1
    return dict(found)


@COMPILE
@pytest.mark.parametrize("kernel", ["red_sum_col_fp32_256x32_w4", "red_max_col_fp16_128x64_w2",
                                    "red_sum_row_fp32_16x512_w2", "softmax", "red_argmax_col_fp32_256x64_w8",
                                    "red_argmax_row_fp16_4x2048_w8", "red_argmax_row_fp32_8x1024_w4"])
def test_gluon_exchange_compiles_to_what_it_claims(kernel, tmp_path):
    """The remedy's Gluon code compiles with Triton 3.9 for sm_90, and its PTX has exactly the shared-memory
    instructions, barrier and shuffles the exchange has under lint's 3.9 lowering (the 3.6 lowering claims
    ld.shared where 3.9 picks ldmatrix.x1 for a 1-D read: same wavefronts).  An argmax exchanges both operands
    (values and indices, each through its own scratch) behind one barrier."""
    pytest.importorskip("triton")
    import importlib.util

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon

    text = (DATA / "ttgir36" / f"{kernel}.ttgir").read_text()
    module = parse_module(text)
    low39 = get_lowering("3.9")
    remedies = lint_text(text, triton="3.6", remedies=True).remedies
    assert remedies and all(r.gluon for r in remedies)
    for r in remedies:
        op = next(o for o in module.ops if o.name == "tt.reduce" and o.location == r.location)
        t = op.operand_types[0]
        L = tensor_layout(t)
        path = tmp_path / f"k{op.line}.py"
        path.write_text(_harness(r, L))
        spec = importlib.util.spec_from_file_location(f"k{op.line}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        ptr = f"*fp{t.element_bits}"
        compiled = triton.compile(gluon._runtime.GluonASTSource(mod.kernel, {"x_ptr": ptr, "out_ptr": ptr,
                                                                             "idx_ptr": "*i32"}, {}),
                                  target=GPUTarget("cuda", 90, 32), options={"num_warps": module.num_warps})
        memories = [r.memory, r.index_memory][:r.operands]
        costs = [exchange_cost(low39, L, r.axis, r.write_layout, r.read_layout, m, u.element_bits)
                 for m, u in zip(memories, op.operand_types, strict=True)]
        ins = dict(sum((collections.Counter(i) for *_, i in costs), collections.Counter()), **{"bar.sync": 1})
        assert _ptx_counts(compiled.asm["ptx"]) == ins
        assert (costs[0][0].wavefronts, costs[0][1].wavefronts) == (r.write_wavefronts, r.read_wavefronts)
        assert sum(st.wavefronts + ld.wavefronts for st, ld, _ in costs) * module.num_warps == r.wavefronts



_WGMMA_PROBE = r'''
import sys, triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
import triton.experimental.gluon.language as gl
from triton.experimental.gluon.language.nvidia.hopper import warpgroup_mma, warpgroup_mma_wait, fence_async_shared
BITS, SWIZZLE, TRANSPOSED = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"

@gluon.jit
def k(out_ptr, DT: gl.constexpr, BITS: gl.constexpr, SB: gl.constexpr, TB: gl.constexpr):
    acc_l: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1],
                                                    instr_shape=[16, 128, 256 // BITS])
    a_l: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=BITS, rank=2, transposed=False)
    b_l: gl.constexpr = gl.NVMMASharedLayout(swizzle_byte_width=SB, element_bitwidth=BITS, rank=2, transposed=TB)
    blk: gl.constexpr = gl.BlockedLayout([1, 16], [8, 4], [4, 1], [1, 0])
    a = gl.allocate_shared_memory(DT, [128, 64], a_l, gl.zeros([128, 64], DT, blk))
    b = gl.allocate_shared_memory(DT, [64, 128], b_l, gl.zeros([64, 128], DT, blk))
    fence_async_shared()
    acc = warpgroup_mma(a, b, gl.zeros([128, 128], gl.float32, acc_l))
    acc = warpgroup_mma_wait(0, deps=[acc])
    m = gl.arange(0, 128, layout=gl.SliceLayout(1, acc_l))
    n = gl.arange(0, 128, layout=gl.SliceLayout(0, acc_l))
    gl.store(out_ptr + m[:, None] * 128 + n[None, :], acc)

dt = gl.float8e4nv if BITS == 8 else gl.float16
src = gluon._runtime.GluonASTSource(k, {"out_ptr": "*fp32", "DT": "constexpr", "BITS": "constexpr", "SB": "constexpr",
                                        "TB": "constexpr"}, {"DT": dt, "BITS": BITS, "SB": SWIZZLE, "TB": TRANSPOSED})
ptx = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4}).asm["ptx"]
print("wgmma" in ptx)
'''


@COMPILE
@pytest.mark.parametrize("bits,swizzle,transposed", [(8, 64, True), (8, 64, False), (8, 32, False), (8, 128, True),
                                                     (8, 32, True), (16, 64, False), (16, 128, True)])
def test_wgmma_legality_matches_triton(bits, swizzle, transposed, tmp_path):
    """Each B encoding compiles with Triton 3.9's wgmma lowering exactly when :func:`wgmma_rejects` accepts it
    (a subprocess each: a rejected fp8 layout can abort the compiler)."""
    pytest.importorskip("triton")
    probe = tmp_path / "probe.py"
    probe.write_text(_WGMMA_PROBE)
    run = subprocess.run([sys.executable, str(probe), str(bits), str(swizzle), "1" if transposed else "0"],
                         capture_output=True, text=True, timeout=300)
    compiles = run.returncode == 0 and run.stdout.strip().endswith("True")
    assert compiles == (wgmma_rejects(NvmmaChoice(swizzle, transposed, bits), 1, [64, 128]) == "")
