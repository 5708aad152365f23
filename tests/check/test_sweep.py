"""linlayout.check.sweep: the vectorised engine against the library, the built-in family, JSON families, the CLI."""

from __future__ import annotations

import io
import itertools
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from linlayout import LinearLayout
from linlayout.core import f2
from linlayout.cli import main
from linlayout.count.by_simulation import lane_byte_offsets, simulate_wavefronts
from linlayout.count.closed_form import wavefronts
from linlayout.errors import (
    BasisError,
    DimensionError,
    LayoutJSONError,
    LinLayoutError,
    LoweringError,
    NotInvertibleError,
    SweepError,
)
from linlayout.check.family import Family, Toggle, transpose_16x32_family
from linlayout.check.sweep import evaluate_family, sweep
from linlayout.count.batched import batch_rank
from linlayout.io.families import family_from_json
from tests.count.test_closed_form import access_cases
from ..conftest import examples

ROOT = Path(__file__).resolve().parents[2]


def _expected_read_histogram(mask_bits: int) -> Counter:
    """Brute force over all 4-tuples of masks: read wavefronts = 2^(5 - rank{C_0..C_3, 1}).

    The last mask is counted against a span listed once: for each C_0, C_1, C_2 the rank k of
    {C_0, C_1, C_2, 1} and its span, then every C_3 has rank k if it lies in that span, else k + 1.
    """
    hist: Counter = Counter()
    masks = range(1 << mask_bits)
    for cs in itertools.product(masks, repeat=3):
        base = [*cs, 1]
        k = f2.rank(base)
        span = set(f2.subset_xors(base))
        inside = sum(c in span for c in masks)
        hist[1 << (5 - k)] += inside
        if inside < len(masks):
            hist[1 << (5 - k - 1)] += len(masks) - inside
    return +hist  # only the values that occur


# --------------------------------------------------------------------------- the built-in family


def test_reduced_builtin_sweep_2_12():
    r = sweep(transpose_16x32_family(mask_bits=3), jobs=1, library_check=32)
    assert r.ok and r.configs == 4096 and r.singular == 0
    assert r.checked_instructions == 4096 * 16 * 2
    assert r.sides["store"].histogram == {1: 4096}
    assert r.sides["read"].histogram == dict(_expected_read_histogram(3))
    # every simulated instruction matches: the instruction histogram is 16x the layout histogram
    assert r.sides["read"].simulated == {k: 16 * v for k, v in r.sides["read"].histogram.items()}
    assert r.sides["read"].instructions_per_layout == {16: 4096}
    assert r.library_checked == 32 and not r.library_mismatches
    assert "holds on all 4,096 layouts" in r.text()


def test_full_family_histogram_formula():
    """The 2^20 numbers docs/counting.md quotes: 30*28*24*16 layouts are conflict-free, and so on."""
    hist = _expected_read_histogram(5)
    assert hist == {1: 322560, 2: 604800, 4: 117600, 8: 3600, 16: 16}
    assert hist[1] == 30 * 28 * 24 * 16


def test_builtin_family_memories_and_seeds_examples():
    f = transpose_16x32_family()
    assert f.size == 1 << 20 and len(f.toggles) == 20
    # 32m + (n ^ 2m): C_j = 2 << j
    cfg = sum((2 << j) << (5 * j) for j in range(4))
    mem = f.memory_at(cfg)
    assert mem.bases["offset"][5:] == [(1, 2), (2, 4), (4, 8), (8, 16)]
    e = evaluate_family(f, [0, sum((1 << j) << (5 * j) for j in range(4)), cfg])
    assert [row["wavefronts_per_instruction"] for row in e["read"]] == [16, 2, 1]
    assert [row["wavefronts_per_instruction"] for row in e["store"]] == [1, 1, 1]
    assert all(set(row["simulated"]) == {row["wavefronts_per_instruction"]} for rows in e.values() for row in rows)


def test_json_example_is_the_builtin_family():
    fam = family_from_json(json.loads((ROOT / "examples" / "sweep_transpose_16x32.json").read_text()))
    b = transpose_16x32_family()
    assert fam.toggles == b.toggles and fam.memory == b.memory
    assert [a.layout for a in fam.accesses] == [a.layout for a in b.accesses]
    rng = np.random.default_rng(3)
    cfgs = sorted(set(rng.integers(0, 1 << 20, 40).tolist()))
    assert evaluate_family(fam, cfgs) == evaluate_family(b, cfgs)
    # the same family without its known fact: restricted to 3-bit masks it gives the same histograms
    small = dict(json.loads((ROOT / "examples" / "sweep_transpose_16x32.json").read_text()))
    small["toggles"] = [t for t in small["toggles"] if t["xor"][1] < 8]
    r = sweep(family_from_json(small), jobs=1, library_check=0)
    assert r.ok and r.sides["read"].histogram == dict(_expected_read_histogram(3))


def test_gemm_ldmatrix_example_family():
    fam = family_from_json(json.loads((ROOT / "examples" / "sweep_gemm_fp16_ldmatrix.json").read_text()))
    r = sweep(fam, library_check=16)
    assert r.ok and r.configs == 512
    assert r.sides["store"].histogram == {4: 512} and r.sides["store"].access_bytes == {16: 512}
    assert r.sides["read"].histogram == {4: 168, 8: 294, 16: 49, 32: 1}
    # the 128B swizzle (row bit i into chunk bit i) is conflict-free on both sides
    swz = evaluate_family(fam, [1 << 0 | 1 << 4 | 1 << 8])
    assert swz["read"][0]["wavefronts_per_instruction"] == 4 and swz["store"][0]["wavefronts_per_instruction"] == 4


def test_parallel_sweep_equals_serial():
    f = transpose_16x32_family(mask_bits=2)
    a = sweep(f, jobs=1, library_check=0)
    b = sweep(f, jobs=2, chunk=16, library_check=0)
    assert b.jobs == 2
    assert a.to_dict()["sides"] == b.to_dict()["sides"]


def test_sample_sweep():
    r = sweep(transpose_16x32_family(), sample=300, seed=1, library_check=5)
    assert r.sampled and r.configs == 300 and r.ok
    assert sum(r.sides["read"].histogram.values()) == 300


def test_progress_bar(capsys):
    sweep(transpose_16x32_family(mask_bits=1), progress=True, library_check=0)
    err = capsys.readouterr().err
    assert "sweep [" in err and "100.0%" in err and err.endswith("\n")
    sweep(transpose_16x32_family(mask_bits=1), library_check=0)
    assert capsys.readouterr().err == ""


def test_batch_rank_matches_f2():
    rng = np.random.default_rng(0)
    v = rng.integers(0, 64, (500, 5))
    v[::7, 2] = v[::7, 0] ^ v[::7, 1]
    assert batch_rank(v).tolist() == [f2.rank(row.tolist()) for row in v]


# --------------------------------------------------------------------------- engine = library


@st.composite
def families(draw):
    """A random access (every instruction kind) and 1-4 toggles, given as offset-space XORs.

    Toggling offset basis k with M(u) gives the memory M o E, E = identity with column k = e_k ^ u;
    it is singular exactly when u has bit k.  Vectors u above the row bits keep matrix instructions
    lowerable; others break them on purpose.
    """
    L, M, eb, ins = draw(access_cases())
    n = M.in_size("offset").bit_length() - 1
    assume(n >= 1)
    cols = M.flat_bases("offset")
    ntog = draw(st.integers(1, 4))
    toggles = []
    low = (128 // eb).bit_length() - 1 if "matrix" in ins else 0
    for _ in range(ntog):
        k = draw(st.integers(0, n - 1))
        kind = draw(st.sampled_from(["high", "high", "any", "singular"]))
        if kind == "singular":
            u = (1 << k) | draw(st.integers(0, (1 << n) - 1))
        elif kind == "high" and n > low:
            u = draw(st.integers(1, (1 << (n - low)) - 1)) << low
        else:
            u = draw(st.integers(1, (1 << n) - 1))
        x = 0
        for i in f2.bit_indices(u):
            x ^= cols[i]
        if x == 0:
            continue
        r0 = M.out_size("dim0").bit_length() - 1
        toggles.append(Toggle(k, (x & ((1 << r0) - 1), x >> r0)))
    if not toggles:
        toggles = [Toggle(0, tuple(M.bases["offset"][0]))]  # XOR with itself: a singular configuration
    acc = {"a": {"layout": L, "element_bits": eb, "instruction": ins}}
    if "matrix" not in ins and draw(st.booleans()):
        acc["a"]["vector_bits"] = draw(st.sampled_from([None, eb, 2 * eb, 4 * eb]))
    return Family.make(M, acc, toggles, "random")


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(families())
def test_engine_equals_library_on_random_families(fam):
    """The vectorised closed form, planning and address generation equal conflicts.* on every configuration."""
    a = fam.accesses[0]
    rows = evaluate_family(fam, range(fam.size))["a"]
    for row in rows:
        mem = fam.memory_at(row["config"])
        q = a.query(mem)
        try:
            rep = wavefronts(q)
        except NotInvertibleError:
            assert row["status"] == "singular"
            event("singular")
            continue
        except LoweringError:
            assert row["status"] == "not lowerable"
            event("not lowerable")
            continue
        assert row["status"] == "ok"
        event(f"counted {a.ins.name}")
        assert row["wavefronts_per_instruction"] == rep.wavefronts_per_instruction
        assert row["instructions"] == rep.instructions
        assert row["access_bytes"] == rep.access_bytes
        sim = simulate_wavefronts(q)
        assert row["simulated"] == list(sim.per_instruction)
        assert row["lane_byte_offsets"] == lane_byte_offsets(q)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(families())
def test_sweep_of_random_families_agrees(fam):
    r = sweep(fam, jobs=1, library_check=8)
    assert r.ok, r.text()
    assert r.configs == fam.size
    counted = sum(r.sides["a"].histogram.values())
    assert counted + r.singular + r.sides["a"].not_lowerable == fam.size


def test_singular_configurations_are_reported():
    mem = LinearLayout({"offset": [[1], [2], [4], [8], [16], [32]]}, {"dim0": 64})
    lanes = LinearLayout({"lane": [[1], [2], [4], [8], [16]]}, {"dim0": 64})
    # toggle 1 makes offset bit 5 equal to bit 4 (singular alone, and with toggle 0); toggle 0 is harmless
    fam = Family.make(mem, {"row": {"layout": lanes, "element_bits": 32, "op": "load"}},
                      [(5, [1]), (5, [48])], "singular demo")
    r = sweep(fam, library_check=4)
    assert r.ok and r.singular == 2 and r.singular_toggles == [1]
    assert [e["config"] for e in r.singular_examples] == [2, 3]
    assert r.singular_examples[0]["toggles"] == [1] and r.singular_examples[1]["toggles"] == [0, 1]
    assert "XOR to zero" in r.singular_examples[0]["message"]
    assert "not invertible" in r.text() and "toggles that alone make the base memory singular: [1]" in r.text()


def test_not_lowerable_configurations_are_counted():
    # ldmatrix.x1 on a 8x8 fp16 tile: toggling a row basis into the 16-byte row breaks the tile
    shape = {"dim0": 8, "dim1": 8}
    L = LinearLayout({"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, shape)
    M = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, shape)
    fam = Family.make(M, {"ld": {"layout": L, "element_bits": 16, "instruction": "ldmatrix.x1"}},
                      [(3, [0, 1]), (4, [1, 0])])
    r = sweep(fam, library_check=4)
    assert r.ok
    assert r.sides["ld"].not_lowerable == 2 and r.sides["ld"].not_lowerable_examples == [1, 3]
    assert r.sides["ld"].histogram == {1: 2}


def test_disagreements_are_reported(monkeypatch, capsys, tmp_path):
    """A broken closed form must be caught, with the failing configuration and its lanes."""
    from linlayout.count import batched

    real = batched.colliding_word_dims

    def broken(gens, hw):
        out = real(gens, hw)
        return out + (gens[:, 0] == 32 * 4 ^ 4)  # wrong for configurations with C_0 = 1

    monkeypatch.setattr(batched, "colliding_word_dims", broken)
    r = sweep(transpose_16x32_family(mask_bits=1), jobs=1, library_check=2)
    assert not r.ok
    read = r.sides["read"]
    assert read.disagreements == 8 * 16
    ex = read.examples[0]
    assert ex["config"] == 1 and ex["toggles"] == [0] and ex["simulation"] == 16 and ex["closed_form"] == 32
    assert len(ex["lane_byte_offsets"]) == 32
    assert read.expect_mismatches == 8
    assert "DISAGREE" in r.text()
    assert main(["sweep", "--mask-bits", "1", "--library-check", "0"]) == 1


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "mutate, error, fragment",
    [
        (lambda d: d["toggles"].append({"basis": 9, "xor": [0, 1]}), BasisError, "offset basis 9 does not exist"),
        (lambda d: d["toggles"].append({"basis": 5, "xor": [0, 32]}), BasisError, "outside 0..31"),
        (lambda d: d["toggles"].append({"basis": 5, "xor": [0]}), DimensionError, "has 1 entries"),
        (lambda d: d["toggles"].append({"basis": 5, "xor": [0, 0]}), SweepError, "changes nothing"),
        (lambda d: d["toggles"].append({"basis": 5, "xor": [0, 1], "on": 1}), SweepError, "unknown key 'on'"),
        (lambda d: d["toggles"].append({"basis": "5", "xor": [0, 1]}), BasisError, "an integer"),
        (lambda d: d["toggles"].append([5]), SweepError, "(basis, xor) pair"),
        (lambda d: d.pop("toggles"), LayoutJSONError, "needs \"toggles\""),
        (lambda d: d.update(toggles={"basis": 5}), LayoutJSONError, "must be a list"),
        (lambda d: d["queries"]["read"].update(memory=d["memory"]), LayoutJSONError, "give the memory once"),
        (lambda d: d.pop("memory"), LayoutJSONError, "base \"memory\""),
        (lambda d: d.update(query={}), LayoutJSONError, "either \"query\""),
        (lambda d: d.update(extra=1), LayoutJSONError, "unknown key 'extra'"),
        (lambda d: d["queries"]["read"].update(element_bits=12), LinLayoutError, "access 'read'"),
        (lambda d: d["queries"]["read"].update(instruction="ldmatrix.x8"), LinLayoutError, "access 'read'"),
        (lambda d: d.update(memory={"padded": {"shape": [16, 32], "pad": 1}}), SweepError, "padded"),
        (lambda d: d.update(memory={"bases": {"offset": [[0, 1]]}, "out_dims": {"dim0": 16, "dim1": 32}}),
         SweepError, "one offset bit per tensor bit"),
        (lambda d: d.update(toggles=[{"basis": 0, "xor": [0, 1]}] * 33), SweepError, "too many"),
    ],
)
def test_family_validation(mutate, error, fragment):
    d = json.loads((ROOT / "examples" / "sweep_transpose_16x32.json").read_text())
    mutate(d)
    with pytest.raises(error, match=None) as e:
        family_from_json(d)
    assert fragment in str(e.value)


def test_single_query_form():
    q = json.loads((ROOT / "examples" / "transpose_16x32_read_xor_m.json").read_text())
    fam = family_from_json({"query": q, "toggles": [{"basis": 5, "xor": [0, 1]}, {"basis": 5, "xor": [0, 2]}]})
    assert [a.name for a in fam.accesses] == ["query"] and fam.size == 4
    assert sweep(fam).ok
    with pytest.raises(LayoutJSONError, match="given twice"):
        family_from_json({"query": q, "memory": q["memory"], "toggles": []})
    with pytest.raises(LayoutJSONError, match="layout-level"):
        family_from_json({"query": {"lane_byte_offsets": [0] * 32}, "toggles": []})


def test_api_validation():
    with pytest.raises(SweepError, match="mask_bits"):
        transpose_16x32_family(6)
    f = transpose_16x32_family(1)
    with pytest.raises(SweepError, match="out of range"):
        f.memory_at(16)
    with pytest.raises(SweepError, match="jobs"):
        sweep(f, jobs=0)
    with pytest.raises(SweepError, match="sample"):
        sweep(f, sample=0)
    with pytest.raises(SweepError, match="at least one access"):
        Family.make(f.memory, {}, [])
    with pytest.raises(SweepError, match="unknown argument 'memory'"):
        Family.make(f.memory, {"a": {"layout": f.accesses[0].layout, "element_bits": 32, "memory": f.memory}}, [])
    shape = {"dim0": 8, "dim1": 8}
    L = LinearLayout({"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, shape)
    M = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, shape)
    with pytest.raises(LoweringError, match="use .x1"):
        Family.make(M, {"a": {"layout": L, "element_bits": 16, "instruction": "ldmatrix.x4"}}, [])
    with pytest.raises(LoweringError, match="transposes 16-bit elements only"):
        Family.make(M, {"a": {"layout": L, "element_bits": 32, "instruction": "ldmatrix.x1.trans"}}, [])
    with pytest.raises(LoweringError, match="8-, 16- or 32-bit"):
        Family.make(M, {"a": {"layout": L, "element_bits": 64, "instruction": "ldmatrix.x1"}}, [])
    with pytest.raises(LoweringError, match="vector_bits must be 32"):
        Family.make(M, {"a": {"layout": L, "element_bits": 16, "instruction": "ldmatrix.x1", "vector_bits": 64}}, [])


# --------------------------------------------------------------------------- CLI


def test_cli_sweep_text_and_json(capsys, tmp_path):
    assert main(["sweep", "--mask-bits", "2"]) == 0
    out = capsys.readouterr().out
    assert "agree on all 8,192 instructions" in out and "known fact" in out
    assert main(["sweep", "--mask-bits", "2", "--json", "--library-check", "3"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["ok"] and obj["configs"] == 256 and obj["library_checked"] == 3
    assert obj["sides"]["read"]["histogram"] == {"8": 240, "16": 16}
    d = json.loads((ROOT / "examples" / "sweep_transpose_16x32.json").read_text())
    d["toggles"] = d["toggles"][:3]
    p = tmp_path / "fam.json"
    p.write_text(json.dumps(d))
    assert main(["sweep", str(p), "--json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["configs"] == 8


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["sweep", "--mask-bits", "7"], "mask_bits must be an integer from 1 to 5"),
        (["sweep", "FAM", "--mask-bits", "2"], "built-in family only"),
        (["sweep", "--jobs", "0"], "--jobs must be a positive integer"),
        (["sweep", "missing.json"], "no such file"),
    ],
)
def test_cli_sweep_errors(argv, fragment, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


def test_evaluate_is_the_deprecated_name_of_evaluate_family():
    import linlayout
    import linlayout.check.sweep as sweep_module

    with pytest.warns(DeprecationWarning, match="evaluate_family"):
        assert sweep_module.evaluate is evaluate_family
    linlayout.__dict__.pop("evaluate", None)  # the package caches a name once imported: ask it afresh
    with pytest.warns(DeprecationWarning, match="evaluate_family"):
        assert linlayout.evaluate is evaluate_family
    assert linlayout.evaluate_family is evaluate_family
