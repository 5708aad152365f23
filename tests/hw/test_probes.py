"""Tests for tools/hw_probes (no GPU needed).

* expected.py's PTX-formula tables are bijections and agree with an independent
  formulation: CuTe's thread-value layouts for the same instructions;
* the probe pipeline (input builders -> CPU model of the hardware -> decoders -> check)
  recovers the model's tables, and reports a difference when the modelled hardware deviates
  from the PTX formulas (fault injection), including through the measured-D decoding path;
* scalar encodings are exact.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

HW = Path(__file__).resolve().parents[2] / "tools" / "hw_probes"
sys.path.insert(0, str(HW))

import expected as X  # noqa: E402
import probelib as P  # noqa: E402
import run_probes as R  # noqa: E402

CAT = X.catalogue()
MMA_F16 = X.mma_name("m16n8k16", "f32.f16.f16.f32")
MMA_S8 = X.mma_name("m16n8k32", "s32.s8.s8.s32")
MMA_TF32 = X.mma_name("m16n8k8", "f32.tf32.tf32.f32")


# ---------------------------------------------------------------------------------------------
# expected.py
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CAT))
def test_expected_tables_are_bijections(name):
    for op in CAT[name]["operands"].values():
        assert X.validate_operand(op) == []


def _cute(shape, stride, coord):
    """Evaluate a CuTe layout (nested tuples) at a flat integer coordinate (colexicographic)."""
    if isinstance(shape, int):
        return coord * stride
    total = 0
    for s, d in zip(shape, stride):
        size = _size(s)
        total += _cute(s, d, coord % size)
        coord //= size
    return total


def _size(shape):
    if isinstance(shape, int):
        return shape
    n = 1
    for s in shape:
        n *= _size(s)
    return n


def _from_cute(tv, rows, threads, values, regs_of):
    """Table {slot: (row, col)} from a TV layout onto a column-major (rows x cols) tile."""
    (tshape, vshape), (tstride, vstride) = tv
    out = {}
    for t in range(threads):
        for v in range(values):
            idx = _cute(tshape, tstride, t) + _cute(vshape, vstride, v)
            out[(t,) + regs_of(v)] = (idx % rows, idx // rows)
    return out


def _table(entries):
    return {X.slot_key(e): (e["row"], e["col"]) for e in entries}


# CuTe TV layouts (thread, value) -> column-major offset, as published in CUTLASS's
# mma_traits_sm80.hpp / mma_traits_sm90_gmma.hpp.  B tiles are (N, K), i.e. index n + N*k.
SM80_16x8_ROW = (((4, 8), (2, 2)), ((32, 1), (16, 8)))
CUTE_CASES = [
    (MMA_F16, "A", (((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128))), 16, 32, 8, lambda v: (v // 2, v % 2), False),
    (MMA_F16, "B", (((4, 8), (2, 2)), ((16, 1), (8, 64))), 8, 32, 4, lambda v: (v // 2, v % 2), True),
    (MMA_F16, "D", SM80_16x8_ROW, 16, 32, 4, lambda v: (v, 0), False),
    (MMA_S8, "A", (((4, 8), (4, 2, 2)), ((64, 1), (16, 8, 256))), 16, 32, 16, lambda v: (v // 4, v % 4), False),
    (MMA_S8, "B", (((4, 8), (4, 2)), ((32, 1), (8, 128))), 8, 32, 8, lambda v: (v // 4, v % 4), True),
    (MMA_S8, "D", SM80_16x8_ROW, 16, 32, 4, lambda v: (v, 0), False),
    (MMA_TF32, "A", (((4, 8), (2, 2)), ((16, 1), (8, 64))), 16, 32, 4, lambda v: (v, 0), False),
    (MMA_TF32, "B", (((4, 8), 2), ((8, 1), 32)), 8, 32, 2, lambda v: (v, 0), True),
]
for _n in X.WGMMA_NS:
    _c = (((4, 8, 4), (2, 2, _n // 8)), ((128, 1, 16), (64, 8, 512)))
    CUTE_CASES.append((X.wgmma_name(_n, 16, "f16"), "D", _c, 64, 128, _n // 2, lambda v: (v, 0), False))
    CUTE_CASES.append((X.wgmma_name(_n, 32, "e4m3"), "D", _c, 64, 128, _n // 2, lambda v: (v, 0), False))
    CUTE_CASES.append((X.wgmma_name(_n, 16, "f16"), "A", (((4, 8, 4), (2, 2, 2)), ((128, 1, 16), (64, 8, 512))),
                       64, 128, 8, lambda v: (v // 2, v % 2), False))
    CUTE_CASES.append((X.wgmma_name(_n, 32, "e4m3"), "A", (((4, 8, 4), (4, 2, 2)), ((256, 1, 16), (64, 8, 1024))),
                       64, 128, 16, lambda v: (v // 4, v % 4), False))


@pytest.mark.parametrize("case", CUTE_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_expected_matches_cute(case):
    name, op, tv, rows, threads, values, regs_of, transposed = case
    cute = _from_cute(tv, rows, threads, values, regs_of)
    if transposed:  # CuTe's B is (N, K); ours is (K, N)
        cute = {s: (c, r) for s, (r, c) in cute.items()}
    assert _table(CAT[name]["operands"][op]["entries"]) == cute


def test_ldmatrix_trans_is_transpose_of_plain():
    plain = _table(CAT[X.matrix_name("ldmatrix", 4, False)]["operands"]["dst"]["entries"])
    trans = _table(CAT[X.matrix_name("ldmatrix", 4, True)]["operands"]["dst"]["entries"])
    assert trans == {s: (c, r) for s, (r, c) in plain.items()}
    # lane 0 register 0 holds row 0, columns 0 and 1 of matrix 0 (PTX ISA figure).
    assert plain[(0, 0, 0)] == (0, 0) and plain[(0, 0, 1)] == (0, 1) and plain[(5, 0, 0)] == (1, 2)


# ---------------------------------------------------------------------------------------------
# Encodings
# ---------------------------------------------------------------------------------------------


def test_scalar_encodings_roundtrip():
    for v in [0.0, 1.0, 2.0, 3.0, 16.0, 17.0, 512.0, 2048.0]:
        assert P.f16_val(P.f16_bits(v)) == v
    for v in [0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 3.0, 14.0, 448.0]:
        assert P.e4m3_val(P.e4m3_bits(v)) == v
    assert P.e4m3_bits(1.0) == 0x38
    with pytest.raises(ValueError):
        P.e4m3_bits(17.0)
    assert [P.s8_val(P.s8_bits(v)) for v in (-128, -1, 0, 32, 127)] == [-128, -1, 0, 32, 127]
    assert P.tf32_val(P.tf32_bits(8.0)) == 8.0
    assert P.acc_val("s32", P.acc_bits("s32", -5)) == -5


def test_smem_offset_matches_ptx_example():
    # PTX ISA, K-major no-swizzle tf32 example: ((8,2),(4,4)):((4,32),(1,64)) in elements,
    # i.e. SBO = 32 elements = 128 B, LBO = 64 elements = 256 B.
    for row in range(16):
        for k in range(16):
            want = (row % 8) * 4 + (row // 8) * 32 + (k % 4) + (k // 4) * 64
            assert P.smem_offset(row, k, 4, 256, 128, "ptx") == want * 4


def test_registry_consistent_with_inputs():
    reg = P.probe_registry()
    runs = P.build_all(CAT)
    assert {r.name for r in runs} == set(reg)
    for r in runs:
        secs, out = reg[r.name]
        assert tuple(s.words_per_exp for s in r.sections) == secs and r.out_words == out
        r.to_bytes()  # sizes consistent


# ---------------------------------------------------------------------------------------------
# Pipeline on a CPU model of the hardware
# ---------------------------------------------------------------------------------------------


def _measure(names, model):
    cat = {k: CAT[k] for k in names}
    runs = P.build_all(cat)
    outputs = {r.name: P.simulate(r, model) for r in runs}
    docs = R.analyse(cat, runs, outputs, {})
    return {"instructions": docs}


def _check(doc, names):
    bad, lines = R.check(doc)
    mine = [ln for ln in lines if any(ln.split()[1:2] == [n] for n in names)]
    return mine


def _swap(model, name, op, s1, s2):
    m = dict(model)  # only the changed instruction is copied: the catalogue is large
    m[name] = copy.deepcopy(model[name])
    ents = m[name]["operands"][op]["entries"]
    i = next(i for i, e in enumerate(ents) if X.slot_key(e) == s1)
    j = next(j for j, e in enumerate(ents) if X.slot_key(e) == s2)
    for key in ("row", "col", "matrix"):
        if key in ents[i]:
            ents[i][key], ents[j][key] = ents[j][key], ents[i][key]
    return m


NAMES = [MMA_F16, MMA_S8, MMA_TF32, X.wgmma_name(8, 16, "f16"), X.wgmma_name(16, 32, "e4m3"),
         X.matrix_name("ldmatrix", 4, True), X.matrix_name("stmatrix", 2, False)]


def test_pipeline_recovers_ptx_tables():
    doc = _measure(NAMES, CAT)
    lines = _check(doc, NAMES)
    assert lines and all(ln.startswith("MATCH") for ln in lines), lines
    # The document round-trips through the JSON writer.
    text = X.dump_json(doc, None)
    assert json.loads(text)["instructions"][MMA_F16]["operands"]["A"]["entries"][0] == {
        "lane": 0, "reg": 0, "pos": 0, "row": 0, "col": 0}


@pytest.mark.parametrize(
    "name,op,s1,s2,others_match",
    [
        (MMA_F16, "A", (0, 0, 0), (0, 1, 0), True),  # a0 <-> a2 of lane 0
        (MMA_S8, "B", (3, 0, 1), (7, 1, 2), True),
        (MMA_TF32, "D", (0, 0, 0), (9, 3, 0), True),  # A, B, C decoded through the measured D
        (X.wgmma_name(8, 16, "f16"), "A", (37, 2, 1), (100, 0, 0), True),
        (X.wgmma_name(16, 32, "e4m3"), "D", (0, 0, 0), (64, 5, 0), True),
        (X.matrix_name("ldmatrix", 4, True), "dst", (0, 0, 0), (0, 3, 1), True),
        (X.matrix_name("stmatrix", 2, False), "src", (1, 0, 0), (30, 1, 1), True),
    ],
)
def test_pipeline_reports_deviating_hardware(name, op, s1, s2, others_match):
    model = _swap(CAT, name, op, s1, s2)
    doc = _measure([name], model)
    ops = doc["instructions"][name]["operands"]
    assert ops[op]["status"] == "ok"  # still a clean bijection, just not the PTX one
    got = {X.slot_key(e): X.elem_key(e) for e in ops[op]["entries"]}
    want = {X.slot_key(e): X.elem_key(e) for e in model[name]["operands"][op]["entries"]}
    assert got == want  # the decoders recover the modelled hardware exactly
    lines = _check(doc, [name])
    diff = [ln for ln in lines if not ln.startswith("MATCH")]
    assert len(diff) == 1 and diff[0].startswith("DIFF") and diff[0].endswith(f" {op}"), lines
    if others_match:
        assert sum(ln.startswith("MATCH") for ln in lines) == len(ops) - 1


def test_broken_hardware_is_flagged_not_hidden():
    # A model whose A table is not a bijection (two slots name the same element) cannot be
    # decoded cleanly: the operand must come out "inconsistent", never "ok".
    model = dict(CAT, **{MMA_F16: copy.deepcopy(CAT[MMA_F16])})
    ents = model[MMA_F16]["operands"]["B"]["entries"]
    ents[1]["row"], ents[1]["col"] = ents[0]["row"], ents[0]["col"]
    doc = _measure([MMA_F16], model)
    assert doc["instructions"][MMA_F16]["operands"]["B"]["status"] != "ok"


def test_mma_relabelling_of_the_hardware_is_invisible():
    # Permuting rows of A and D together (and k of A and B) yields the same products: the
    # probe cannot and must not report it; the gauge fixing recovers the PTX labels.
    model = dict(CAT, **{MMA_F16: copy.deepcopy(CAT[MMA_F16])})
    rows = [(3 * i + 5) % 16 for i in range(16)]
    ks = [(5 * i + 1) % 16 for i in range(16)]
    ops = model[MMA_F16]["operands"]
    for e in ops["A"]["entries"]:
        e["row"], e["col"] = rows[e["row"]], ks[e["col"]]
    for e in ops["B"]["entries"]:
        e["row"] = ks[e["row"]]
    for op in ("C", "D"):
        for e in ops[op]["entries"]:
            e["row"] = rows[e["row"]]
    doc = _measure([MMA_F16], model)
    lines = _check(doc, [MMA_F16])
    assert len(lines) == 4 and all(ln.startswith("MATCH") for ln in lines), lines
    assert doc["instructions"][MMA_F16]["gauge"]["agreement"]["rows"] == "384 of 384 slots"


def test_swapped_descriptor_reading_is_diagnosed():
    name = X.wgmma_name(16, 16, "f16")
    cat = {name: CAT[name]}
    docs, fails, _ = R.measure(cat, lambda runs: R.simulate_all(runs, CAT, reading="swapped"))
    ins = docs[name]
    assert ins["operands"]["D"]["status"] != "ok"  # PTX-layout images misread by this "hardware"
    diag = ins["swapped_descriptor_diagnostic"]
    assert diag["D"]["status"] == "ok" and diag["A"]["status"] == "ok"
    assert _table(diag["D"]["entries"]) == _table(CAT[name]["operands"]["D"]["entries"])
    assert _table(diag["A"]["entries"]) == _table(CAT[name]["operands"]["A"]["entries"])


MEASURED = Path(__file__).parents[1] / "data" / "hw_fragments_h100.json"


@pytest.mark.skipif(not MEASURED.exists(), reason="no measured tables yet (run tools/hw_probes/run_probes.py on a GPU)")
def test_measured_file_is_well_formed():
    doc = json.loads(MEASURED.read_text())
    assert doc["schema_version"] == X.SCHEMA_VERSION
    assert set(doc["instructions"]) == set(CAT)
    for name, ins in doc["instructions"].items():
        for opname, op in ins["operands"].items():
            assert set(op["keys"]) == set(CAT[name]["operands"][opname]["keys"])
            if op["status"] == "ok":
                assert X.validate_operand(op) == [], (name, opname)
                assert all(list(e) == op["keys"] for e in op["entries"]), (name, opname)
