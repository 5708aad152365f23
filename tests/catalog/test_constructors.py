"""Layout constructors: properties, errors, Triton's own conversions (where Triton is installed),
and tables recorded on an H100 (tests/data/hw_fragments_h100.json)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from linlayout import LinearLayout, wavefronts
from linlayout.catalog.constructors import blocked, cute_tv_layout, fit_to_shape, ldmatrix, mfma, mma, sliced, wgmma
from linlayout.errors import DimensionError, LinLayoutError, NotLinearError, SizeError

from ..conftest import DATA

ROOT = Path(__file__).resolve().parents[2]


def _rand_blocked(rng):
    rank = rng.randint(1, 4)
    shape = [1 << rng.randint(0, 7 if rank <= 2 else 4) for _ in range(rank)]
    spt = [1 << rng.randint(0, 2) for _ in range(rank)]
    tpw_bits = [0] * rank
    for _ in range(5):
        tpw_bits[rng.randrange(rank)] += 1
    tpw = [1 << b for b in tpw_bits]
    wpc = [1 << rng.randint(0, 1) for _ in range(rank)]
    order = list(range(rank))
    rng.shuffle(order)
    return shape, spt, tpw, wpc, order


def test_blocked_properties():
    rng = random.Random(0)
    for _ in range(300):
        shape, spt, tpw, wpc, order = _rand_blocked(rng)
        L = blocked(shape, spt, tpw, wpc, order)
        assert L.is_distributed()
        assert L.out_sizes == {f"dim{i}": s for i, s in enumerate(shape)}
        assert L.in_sizes["lane"] == 32
        assert all(any(b) for b in L.bases["register"])  # broadcast registers are dropped


def test_blocked_errors():
    with pytest.raises(SizeError, match="32 lanes"):
        blocked([16, 16], [1, 1], [4, 4], [1, 1], [1, 0])
    with pytest.raises(SizeError, match="not a power of two"):
        blocked([16, 12], [1, 1], [4, 8], [1, 1], [1, 0])
    with pytest.raises(DimensionError, match="permutation"):
        blocked([16, 16], [1, 1], [4, 8], [1, 1], [0, 0])
    with pytest.raises(DimensionError, match="rank 2"):
        blocked([16, 16], [1], [4, 8], [1, 1], [1, 0])
    with pytest.raises(SizeError, match="rank 1 to 4"):
        blocked([2] * 5, [1] * 5, [2, 2, 2, 2, 2], [1] * 5, [0, 1, 2, 3, 4])


def test_mma_and_wgmma_tiles():
    # PTX m16n8k16: A element (row, col) of lane t, element e: row = t//4 + 8*(e>>1 & 1), col = 2*(t%4) + (e&1) + 8*(e>>2).
    A = mma("A", (16, 16))
    for t in range(32):
        for e in range(8):
            assert A.apply(lane=t, register=e) == {"dim0": t // 4 + 8 * ((e >> 1) & 1), "dim1": 2 * (t % 4) + (e & 1) + 8 * (e >> 2)}
    C = mma("C", (64, 32), warps_per_cta=(2, 2))
    assert C.is_distributed() and C.in_sizes == {"register": 16, "lane": 32, "warp": 4}
    Aw = mma("A", (64, 32), warps_per_cta=(2, 2))
    assert Aw.free_variable_masks()["warp"] == 0b01  # broadcast across the N warps
    Bw = mma("B", (32, 32), warps_per_cta=(2, 2))
    assert Bw.free_variable_masks()["warp"] == 0b10
    acc = wgmma("C", (64, 256), n=256)
    assert acc.in_sizes == {"register": 128, "lane": 32, "warp": 4} and acc.is_distributed()
    assert wgmma("A", (64, 32), element_bits=8).bases["register"] == [(0, 1), (0, 2), (8, 0), (0, 16)]
    with pytest.raises(SizeError, match="multiple of 4"):
        wgmma("C", (64, 64), warps_per_cta=(2, 2))
    with pytest.raises(DimensionError, match="shared memory"):
        wgmma("B", (64, 64))
    with pytest.raises(DimensionError, match="operand"):
        mma("E", (16, 16))


def test_ldmatrix_layouts_lower_to_ldmatrix():
    from linlayout.core.memory import unswizzled

    for x in (1, 2, 4):
        L = ldmatrix(x)
        assert L.is_distributed() and L.out_sizes == {"dim0": 8 * x, "dim1": 8}
        # The layout is exactly what the ldmatrix tile accepts (paper Thm. 5.1) on a row-major tile.
        r = wavefronts(L, unswizzled([8 * x, 8]), 16, None, f"ldmatrix.x{x}")
        assert r.wavefronts == x and r.instructions == 1
        T = ldmatrix(x, trans=True)
        rt = wavefronts(T, unswizzled([8 * x, 8]), 16, None, f"ldmatrix.x{x}.trans")
        assert rt.instructions == 1


def test_sliced_and_fit():
    parent = blocked([64, 1], [1, 4], [4, 8], [2, 2], [1, 0])
    S = sliced(parent, 1)
    assert S.bases == {"register": [(8,), (16,), (32,)], "lane": [(0,), (0,), (0,), (1,), (2,)], "warp": [(0,), (4,)]}
    three = blocked([4, 8, 16], [1, 1, 2], [2, 4, 4], [1, 2, 1], [2, 1, 0])
    s1 = sliced(three, 1)
    assert s1.out_dims == ("dim0", "dim1") and s1.out_sizes == {"dim0": 4, "dim1": 16}
    with pytest.raises(DimensionError):
        sliced(S, 0)


def test_cute_tv_and_mfma():
    L = cute_tv_layout(((4, 8), 2), ((2, 8), 1), (8, 8))
    assert L.is_distributed() and L.out_sizes == {"dim0": 8, "dim1": 8}
    with pytest.raises(NotLinearError):
        cute_tv_layout(((4, 8), 2), ((3, 8), 1), (8, 8))
    with pytest.raises(NotLinearError, match="overlapping"):
        cute_tv_layout(((4, 8), 2), ((2, 4), 1), (8, 8))
    for instr in ("32x32x8", "16x16x16"):
        for op in "ABC":
            M = mfma(op, instr)
            assert M.is_distributed() and M.in_sizes["lane"] == 64
    # AMD's formula for 32x32x8 C: C[i][j] in lane j + 32*((i//4)%2), register (i%4) + 4*(i//8).
    C = mfma("C", "32x32x8")
    for i in range(32):
        for j in range(32):
            assert C.apply(lane=j + 32 * ((i // 4) % 2), register=(i % 4) + 4 * (i // 8)) == {"dim0": i, "dim1": j}


# --------------------------------------------------------------------------- Triton's own conversion


def _gluon():
    pytest.importorskip("triton")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import triton_peers
    except Exception as e:  # pragma: no cover
        pytest.skip(f"triton_peers unavailable: {e}")
    if not triton_peers.gluon_available():
        pytest.skip(f"Gluon route unavailable: {triton_peers.gluon_unavailable_reason()}")
    return triton_peers


def _ours(L):
    return {d: [list(b) for b in bl] for d, bl in L.bases.items() if bl or d == "register"}


def _theirs(ll):
    out = {"register": [list(map(int, b)) for b in ll.reg_bases], "lane": [list(map(int, b)) for b in ll.lane_bases]}
    w = [list(map(int, b)) for b in ll.warp_bases]
    if w:
        out["warp"] = w
    return out


def test_blocked_matches_triton():
    tp = _gluon()
    rng = random.Random(1)
    n = 0
    for _ in range(300):
        shape, spt, tpw, wpc, order = _rand_blocked(rng)
        theirs = tp.gluon_blocked_to_bases(shape, spt, tpw, wpc, order)
        theirs.pop("block")
        theirs = {d: bl for d, bl in theirs.items() if bl or d == "register"}
        ours = _ours(blocked(shape, spt, tpw, wpc, order))
        assert ours == theirs, (shape, spt, tpw, wpc, order)
        n += 1
    assert n == 300


def test_mma_wgmma_slices_match_triton():
    tp = _gluon()
    st = tp._state()
    L = st.layouts
    conv = lambda layout, shape: _theirs(st.builder.to_linear_layout(layout._to_ir(st.builder), shape))  # noqa: E731
    rng = random.Random(2)
    for instr, kw in (("m16n8k16", 2), ("m16n8k32", 4), ("m16n8k8", 1)):
        for _ in range(20):
            wm, wn = 1 << rng.randint(0, 2), 1 << rng.randint(0, 2)
            m, n, k = 16 * wm << rng.randint(0, 2), 8 * wn << rng.randint(0, 2), {"m16n8k16": 16, "m16n8k32": 32, "m16n8k8": 8}[instr] << rng.randint(0, 2)
            parent = L.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[wm, wn], instr_shape=[16, 8])
            if instr == "m16n8k16":
                assert _ours(mma("C", (m, n), instr, (wm, wn))) == conv(parent, [m, n])
            assert _ours(mma("A", (m, k), instr, (wm, wn))) == conv(L.DotOperandLayout(0, parent, kw), [m, k])
            assert _ours(mma("B", (k, n), instr, (wm, wn))) == conv(L.DotOperandLayout(1, parent, kw), [k, n])
    for bits, kinstr in ((16, 16), (8, 32)):
        for _ in range(15):
            nn = 8 << rng.randint(0, 4)
            wm, wn = 4 << rng.randint(0, 1), 1 << rng.randint(0, 1)
            m = 16 * wm << rng.randint(0, 1)
            parent = L.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[wm, wn], instr_shape=[16, nn, kinstr])
            if bits == 16:
                assert _ours(wgmma("C", (m, nn * wn), n=nn, warps_per_cta=(wm, wn))) == conv(parent, [m, nn * wn])
            kk = kinstr << rng.randint(0, 1)
            assert _ours(wgmma("A", (m, kk), n=nn, element_bits=bits, warps_per_cta=(wm, wn))) == conv(
                L.DotOperandLayout(0, parent, 32 // bits), [m, kk])
    for _ in range(30):
        shape, spt, tpw, wpc, order = _rand_blocked(rng)
        if len(shape) < 2:
            continue
        dim = rng.randrange(len(shape))
        pshape = list(shape)
        pshape[dim] = 1
        ours = _ours(sliced(blocked(pshape, spt, tpw, wpc, order), dim))
        theirs = conv(L.SliceLayout(dim, L.BlockedLayout(spt, tpw, wpc, order)), [s for i, s in enumerate(shape) if i != dim])
        assert ours == theirs, (shape, spt, tpw, wpc, order, dim)


# --------------------------------------------------------------------------- measured on an H100


HW = DATA / "hw_fragments_h100.json"


def check_fragment_tables(data) -> int:
    """Compare every ownership entry of a probe table with the constructors; return entries checked."""
    checked = 0
    for name, ins in data["instructions"].items():
        fam = ins["family"]
        for opname, op in ins["operands"].items():
            assert op.get("status", "ok") == "ok", (name, opname, op.get("problems"))
            role = {"dst": "X", "src": "X", "D": "C"}.get(opname, opname)
            if fam == "mma":
                sh = ins["shape"]
                L = mma(role, (op["rows"], op["cols"]), f"m{sh['m']}n{sh['n']}k{sh['k']}")
            elif fam == "wgmma":
                sh = ins["shape"]
                a_bits = ins["operands"]["A"]["elem_bits"]
                L = wgmma(role, (op["rows"], op["cols"]), n=sh["n"], element_bits=a_bits)
            else:
                L = ldmatrix(ins["num"], ins["trans"])
            epr = op["elems_per_reg"]
            for e in op["entries"]:
                inputs = {"lane": e["lane"], "register": e["reg"] * epr + e["pos"]}
                if "warp" in e:
                    inputs["warp"] = e["warp"]
                row = e["row"] + 8 * e.get("matrix", 0)
                assert L.apply(inputs) == {"dim0": row, "dim1": e["col"]}, (name, opname, e)
                checked += 1
    return checked


def test_constructors_match_ptx_formula_tables():
    """The PTX ISA's fragment formulas (tools/hw_probes/expected.py) against the constructors."""
    import runpy

    build = runpy.run_path(str(ROOT / "tools" / "hw_probes" / "expected.py"))
    fn = build.get("expected_document") or build.get("build_expected") or build.get("expected_tables")
    assert fn is not None, sorted(k for k in build if not k.startswith("_"))
    assert check_fragment_tables(fn()) > 10000


@pytest.mark.skipif(not HW.exists(), reason="hardware tables not recorded yet")
def test_constructors_match_h100_tables():
    """Tables recorded on an H100 by tools/hw_probes/run_probes.py."""
    assert check_fragment_tables(json.loads(HW.read_text())) > 10000


def test_constructors_take_the_lanes_of_a_warp_with_the_models_default():
    from linlayout.catalog.constructors import blocked, cute_tv_layout
    from linlayout.errors import SizeError
    from linlayout.hw import get_hardware

    assert blocked([8, 32], [1, 1], [4, 8], [1, 1], [1, 0]).in_sizes["lane"] == get_hardware().lanes == 32
    wide = blocked([8, 64], [1, 1], [4, 16], [1, 1], [1, 0], lanes=64)
    assert wide.in_sizes["lane"] == 64 and wide.in_sizes.get("register", 1) == 8
    with pytest.raises(SizeError, match="multiply to 64 lanes"):
        blocked([8, 64], [1, 1], [4, 8], [1, 1], [1, 0], lanes=64)
    with pytest.raises(SizeError, match="lanes"):
        blocked([8, 64], [1, 1], [4, 8], [1, 1], [1, 0], lanes=48)
    # CuTe: 64 threads are two warps of the default model and one warp of a 64-lane one
    default = cute_tv_layout(((8, 8), 1), ((1, 8), 0), (8, 8))
    assert (default.in_sizes["lane"], default.in_sizes["warp"]) == (32, 2)
    one_warp = cute_tv_layout(((8, 8), 1), ((1, 8), 0), (8, 8), lanes=64)
    assert (one_warp.in_sizes["lane"], one_warp.in_sizes.get("warp", 1)) == (64, 1)
    assert one_warp.apply(lane=9) == default.apply(lane=9) == {"dim0": 1, "dim1": 1}
