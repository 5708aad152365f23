"""Every input gets a clear answer (issue 15): one regression test per class of failure.

Each reproducer of the issue either gives the right answer or raises an
exception of the library's family (:class:`LinLayoutError`); the CLI exits 2
with one line on stderr.  What the API accepts is decided in
:mod:`linlayout.core.validate`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from linlayout import (
    LinearLayout,
    LinLayoutError,
    SharedMemory,
    access_wavefronts,
    blocked,
    cute_swizzle,
    fit_to_shape,
    layout_from_json,
    ldmatrix,
    load_file,
    mfma,
    mma,
    nvmma_layout,
    simulate_access,
    simulate_batch,
    simulate_wavefronts,
    sliced,
    unswizzled,
    wavefronts,
)
from linlayout.cli import main
from linlayout.io.emit import to_c as ll_to_c
from linlayout.io.jsonio import conflicts_query_from_json as ll_conflicts
from linlayout.errors import InputError, InputTypeError, SizeError
from .conftest import examples

A = LinearLayout({"register": [1, 16], "lane": [2, 4, 8, 32, 64], "warp": [128]}, {"flat": 256})


# -- argument types: one rule (core/validate.py), applied at every entry point --------------------------

TYPE_CASES = {
    "invert_and_compose(5)": lambda: A.invert_and_compose(5),
    "apply([1])": lambda: A.apply([1]),
    "apply(5)": lambda: A.apply(5),
    "rename('ab')": lambda: A.rename("ab"),
    "basis(lane, 1.5)": lambda: A.basis("lane", 1.5),
    "compose(5)": lambda: A.compose(5),
    "divide_left(5)": lambda: A.divide_left(5),
    "equivalent(5)": lambda: A.equivalent(5),
    "transpose_ins(5)": lambda: A.transpose_ins(5),
    "sublayout(5, ...)": lambda: A.sublayout(5, ["flat"]),
    "blocked(5, ...)": lambda: blocked(5, [1], [32], [1], [0]),
    "blocked float": lambda: blocked([32.0], [1], [32], [1], [0]),
    "mma warps (2,)": lambda: mma("A", [16, 16], "m16n8k16", (2,)),
    "mma instr list": lambda: mma("A", [16, 16], ["m16n8k16"]),
    "mfma instr list": lambda: mfma("C", ["32x32x8"]),
    "ldmatrix(4.0)": lambda: ldmatrix(4.0),
    "ldmatrix(True)": lambda: ldmatrix(True),
    "ldmatrix trans=1": lambda: ldmatrix(4, 1),
    "unswizzled(5)": lambda: unswizzled(5),
    "unswizzled order str": lambda: unswizzled([4, 4], "10"),
    "nvmma None": lambda: nvmma_layout([64, 128], 16, None),
    "cute_swizzle list layout": lambda: cute_swizzle(3, 2, 3, [(8, 8), (1, 8)]),
    "simulate inf": lambda: simulate_access("ld.shared", "load", 4, [float("inf")] + [0] * 31),
    "simulate 4.0": lambda: simulate_access("ld.shared", "load", 4, [4.0] * 32),
    "simulate str": lambda: simulate_access("ld.shared", "load", 4, "abc"),
    "simulate_batch ragged": lambda: simulate_batch("ld.shared", "load", 4, [[0] * 32, [0] * 31]),
    "wavefronts memory 5": lambda: wavefronts(ldmatrix(4), 5, 16),
}


@pytest.mark.parametrize("name", sorted(TYPE_CASES))
def test_wrong_argument_types_raise_library_errors(name):
    with pytest.raises(LinLayoutError):
        TYPE_CASES[name]()


def test_type_errors_are_input_and_type_errors():
    with pytest.raises(InputTypeError) as e:
        A.invert_and_compose(5)
    assert isinstance(e.value, InputError) and isinstance(e.value, TypeError) and "outer" in str(e.value)


def test_numpy_ints_are_ints_and_bools_are_not():
    assert blocked(np.array([32, 32]), [1, 1], [4, 8], [1, 1], [1, 0]) == blocked([32, 32], [1, 1], [4, 8], [1, 1], [1, 0])
    assert A.basis("lane", np.int64(1)) == A.basis("lane", 1)
    with pytest.raises(InputTypeError):
        blocked([32, True], [1, 1], [4, 8], [1, 1], [1, 0])


# -- degenerate valid input ------------------------------------------------------------------------------


def test_degenerate_inputs():
    with pytest.raises(SizeError):
        fit_to_shape(LinearLayout({}, {}), [])
    with pytest.raises(LinLayoutError, match="dim0, dim1"):
        sliced(LinearLayout({"lane": [[1, 1]]}, {"dim0": 2, "foo": 2}), 0)


# -- custom SharedMemory models: the simulator's answer or a clear error ---------------------------------


def test_custom_models_agree_or_refuse():
    offs = [16 * l for l in range(32)]
    for hw in (SharedMemory("n", matrix_rows=0),):
        with pytest.raises(LinLayoutError) as closed:
            access_wavefronts("ldmatrix.x4", "load", 16, offs, hw)
        with pytest.raises(LinLayoutError) as sim:
            simulate_access("ldmatrix.x4", "load", 16, offs, hw)
        assert str(closed.value) == str(sim.value)
    with pytest.raises(LinLayoutError):
        SharedMemory("n", matrix_rows=16)  # 16 rows of 16 bytes would need 64 lanes
    L = LinearLayout({"register": [[1], [2]], "lane": [[4]]}, {"dim0": 8})
    hw2 = SharedMemory("t", lanes=2, matrix_rows=0)
    a = wavefronts(L, unswizzled([8]), 32, "load", hardware=hw2)
    b = simulate_wavefronts(L, unswizzled([8]), 32, "load", hardware=hw2)
    assert (a.wavefronts, a.instructions) == (b.wavefronts, b.instructions)
    with pytest.raises(LinLayoutError):
        wavefronts(L, unswizzled([8]), 32, "load", hardware=SharedMemory("t", lanes=2))


def test_op_default_is_documented_and_applied():
    L = blocked([32, 32], [1, 1], [1, 32], [1, 1], [1, 0])
    assert wavefronts(L, unswizzled([32, 32]), 32).op == "load"
    assert wavefronts(L, unswizzled([32, 32]), 32, instruction="st.shared").op == "store"


# -- JSON decoding --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["[" * 100000, '{"bases": {"lane": [[' + "1" * 5000 + "]]}}"])
def test_json_decoding_errors_are_layout_errors(text):
    with pytest.raises(LinLayoutError, match="malformed"):
        layout_from_json(text)


def test_nul_in_path():
    with pytest.raises(LinLayoutError, match="NUL"):
        load_file("a\0b")


# -- shared memory capacity -----------------------------------------------------------------------------


def test_tiles_beyond_shared_memory_are_refused_with_the_limit():
    L = LinearLayout({"register": [[1 << k] for k in range(15)], "lane": [[1 << k] for k in range(15, 20)]},
                     {"dim0": 1 << 20})
    with pytest.raises(SizeError, match="233472 bytes"):
        wavefronts(L, unswizzled([1 << 20]), 8)
    assert SharedMemory("big", smem_bytes=1 << 30).smem_bytes == 1 << 30


@pytest.mark.parametrize("smem_bytes", [233472, 1 << 16, 1 << 17, 100000])
def test_capacity_boundary_is_exact(smem_bytes):
    """plan_access decides the capacity on log2 sizes first; the answer must equal check_capacity's."""
    from linlayout.count.plan import check_capacity

    hw = SharedMemory(f"cap{smem_bytes}", smem_bytes=smem_bytes)
    for bits in range(13, 20):
        L = LinearLayout({"register": [[1 << k] for k in range(bits - 5)],
                          "lane": [[1 << k] for k in range(bits - 5, bits)]}, {"dim0": 1 << bits})
        M = unswizzled([1 << bits])
        for eb in (8, 16, 32):
            try:
                check_capacity(M, eb, hw)
                fits = True
            except SizeError:
                fits = False
            if fits:
                wavefronts(L, M, eb, "load", hardware=hw)
            else:
                with pytest.raises(SizeError, match="shared memory"):
                    wavefronts(L, M, eb, "load", hardware=hw)


# -- the command line -----------------------------------------------------------------------------------

CLI_CASES = [
    ["show", "cute", "--tv", "x", "--shape", "8", "8"],
    ["show", "cute", "--tv", "[1]", "--shape", "8", "8"],
    ["show", "cute", "--tv", "5", "--shape", "8", "8"],
    ["show", "cute", "--tv", '{"a":1}', "--shape", "8", "8"],
    ["show", "cute", "--tv", "[" * 100000, "--shape", "8", "8"],
    ["show", "wgmma", "--shape", "64", "16", "--warps-per-cta", "4"],
    ["show", "mma", "--shape", "16", "16", "--warps-per-cta", "1", "1", "1"],
    ["sweep", "--seed", "-5"],
    ["show", "a\0b.json"],
    ["conflicts", "a\0b.json"],
    ["draw", str(Path(__file__).resolve().parents[1] / "examples" / "paper_layout_a.json"), "-o", "a\0.png"],
]


@pytest.mark.parametrize("argv", CLI_CASES, ids=[" ".join(a)[:40] for a in CLI_CASES])
def test_cli_bad_options_exit_2_with_one_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err


def test_conflicts_text_mode_is_bounded(tmp_path, capsys):
    # 2^12 single-byte instructions (128 KB): text mode builds the first instruction's lanes only.
    L = LinearLayout({"register": [[1 << k] for k in range(5, 17)], "lane": [[1 << k] for k in range(5)]},
                     {"dim0": 1 << 17})
    q = tmp_path / "q.json"
    q.write_text(json.dumps({"layout": L.to_dict(), "memory": unswizzled([1 << 17]).to_dict(), "element_bits": 8,
                             "op": "load"}))
    assert main(["conflicts", str(q)]) == 0
    out = capsys.readouterr().out
    assert "4096 instruction(s) per warp" in out and "first instruction, banks per pass" in out


# -- to_c: usable from C, CUDA host code and CUDA kernels -----------------------------------------------


def _to_c_check():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "tools" / "to_c_check.py"
    spec = importlib.util.spec_from_file_location("to_c_check", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_to_c_compiles_and_agrees_as_plain_c(tmp_path):
    import shutil
    import subprocess

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler (cc or gcc) on PATH")
    c, _ = _to_c_check().sources()
    (tmp_path / "check.c").write_text(c)
    subprocess.run([cc, "-Wall", "-Werror", "-o", str(tmp_path / "check"), str(tmp_path / "check.c")], check=True)
    r = subprocess.run([str(tmp_path / "check")], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.count("host ok") == 4, r.stdout


def test_to_c_is_callable_from_a_cuda_kernel(tmp_path):
    import shutil
    import subprocess

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc not found: the CUDA check of to_c needs it (the GPU run is in tools/to_c_check_gpu.txt)")
    _, cu = _to_c_check().sources()
    (tmp_path / "check.cu").write_text(cu)
    r = subprocess.run([nvcc, "-c", "-o", str(tmp_path / "check.o"), str(tmp_path / "check.cu")], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr


def test_to_c_refuses_offsets_beyond_32_bits():
    with pytest.raises(SizeError, match="32-bit"):
        ll_to_c(unswizzled([1 << 33]))


# -- show, draw and emit messages -----------------------------------------------------------------------


def test_show_messages(capsys):
    assert main(["show", "mma", "--shape", "16", "16", "--operand", "A", "--bits", "16"]) == 0
    out = capsys.readouterr().out
    assert "memory layout no" in out and "not a 32-bit register" in out
    assert main(["show", "blocked", "--shape", "128", "128", "--threads-per-warp", "4", "8"]) == 0
    assert "no grid: the tensor is dim0 128 x dim1 128" in capsys.readouterr().out
    assert main(["show", "blockd"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'blocked'" in err and "mfma" in err and err.count("\n") == 1
    assert main(["show", "--json", "blocked", "--shape", "16", "--threads-per-warp", "32"]) == 0
    assert json.loads(capsys.readouterr().out)["memory_layout"] is False


def test_draw_of_a_sweep_family_says_so(capsys, tmp_path):
    from pathlib import Path

    family = Path(__file__).resolve().parents[1] / "examples" / "sweep_transpose_16x32.json"
    assert main(["draw", str(family), "-o", str(tmp_path / "x.png")]) == 2
    assert "sweep family" in capsys.readouterr().err


# -- what one command prints, the others read; layouts by name ------------------------------------------


def test_show_json_is_read_by_show_and_draw(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    b = tmp_path / "b.json"
    assert main(["show", "blocked", "--shape", "32", "32", "--threads-per-warp", "4", "8", "--json"]) == 0
    b.write_text(capsys.readouterr().out)
    assert main(["show", str(b), "--no-grid"]) == 0
    assert "lane(32)" in capsys.readouterr().out
    assert main(["draw", str(b), "-o", str(tmp_path / "b.png")]) == 0


def test_queries_name_constructors_and_swizzles():
    q = ll_conflicts({"layout": {"mma": {"operand": "A", "shape": [16, 16]}}, "memory": {"swizzle": "tma32B"},
                      "element_bits": 16, "op": "load", "instruction": "ldmatrix.x4"})
    assert q.layout == mma("A", [16, 16]) and q.memory == nvmma_layout([16, 16], 16, 32)
    assert layout_from_json({"row_major": [64, 64]}) == unswizzled([64, 64])
    assert layout_from_json({"col_major": [4, 8]}) == unswizzled([4, 8], [0, 1])
    with pytest.raises(LinLayoutError, match="needs the tensor's shape"):
        layout_from_json({"swizzle": "tma128B"})
    with pytest.raises(LinLayoutError, match="bad arguments"):
        layout_from_json({"mma": {"operandd": "A"}})
    with pytest.raises(LinLayoutError):
        layout_from_json({"swizzle": "tma96B", "x": 1})


def test_keywords_ignore_surrounding_whitespace_and_nothing_else():
    from linlayout import get_hardware, parse_instruction
    from linlayout.errors import InstructionError

    assert parse_instruction(" ldmatrix.x4 ", " load ").name == "ldmatrix.x4"
    assert get_hardware(" sm90") is get_hardware("sm90")
    with pytest.raises(InstructionError):
        parse_instruction(None, "Load")
    with pytest.raises(InputTypeError):
        parse_instruction(None, 1)


def test_matrix_rows_wider_than_a_bank_row_are_refused():
    from linlayout.errors import HardwareError

    with pytest.raises(HardwareError, match="wider than one row of the banks"):
        SharedMemory("m", banks=4, bank_bytes=2, lanes=4, matrix_rows=1)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_custom_models_closed_form_equals_simulator(data):
    """Random (consistent) models and accesses: the closed form gives the simulator's answer or both refuse."""
    from linlayout.errors import NotLinearError

    try:
        hw = SharedMemory("m", banks=data.draw(st.sampled_from([1, 4, 16, 32, 64])),
                          bank_bytes=data.draw(st.sampled_from([2, 4, 8])), lanes=data.draw(st.sampled_from([1, 2, 4, 8, 32, 64])),
                          matrix_rows=data.draw(st.sampled_from([0, 1, 2, 4, 8, 16])))
    except LinLayoutError:
        return
    ins = data.draw(st.sampled_from(["ld.shared", "st.shared", "ldmatrix.x1", "ldmatrix.x4", "stmatrix.x2.trans"]))
    ab = data.draw(st.sampled_from([1, 2, 4, 8, 16]))
    offs = [ab * data.draw(st.integers(0, 63)) for _ in range(hw.lanes)]
    try:
        closed = access_wavefronts(ins, None, ab, offs, hw).wavefronts
    except NotLinearError:
        return
    except LinLayoutError as e:
        with pytest.raises(type(e)):
            simulate_access(ins, None, ab, offs, hw)
        return
    assert closed == simulate_access(ins, None, ab, offs, hw).wavefronts


def _huge(bits: int):
    L = {"bases": {"register": [[1 << k] for k in range(bits - 5)], "lane": [[1 << k] for k in range(bits - 5, bits)]},
         "out_dims": {"dim0": 1 << bits}}
    M = {"bases": {"offset": [[1 << k] for k in range(bits)]}, "out_dims": {"dim0": 1 << bits}}
    return L, M


def test_huge_queries_and_families_are_refused_at_once():
    from linlayout.io.families import family_from_json

    L, M = _huge(40)
    with pytest.raises(SizeError, match="228 KB"):
        ll_conflicts_run({"layout": L, "memory": M, "element_bits": 8, "op": "load"})
    with pytest.raises(LinLayoutError):
        family_from_json({"name": "x", "memory": M, "queries": {"r": {"layout": L, "element_bits": 8, "op": "load"}},
                          "toggles": [{"basis": 5, "xor": [1]}]})
    L, M = _huge(20)  # 2^15 instructions of one byte per lane: 1 MB, beyond shared memory
    with pytest.raises(LinLayoutError, match="228 KB"):
        family_from_json({"name": "x", "memory": M, "queries": {"r": {"layout": L, "element_bits": 8, "op": "load"}},
                          "toggles": [{"basis": 5, "xor": [1]}]})


def ll_conflicts_run(doc):
    return wavefronts(ll_conflicts(doc))


def test_draw_of_a_huge_layout_is_bounded(tmp_path):
    pytest.importorskip("matplotlib")
    from linlayout.io.draw import draw

    L, M = _huge(40)
    draw(M, tmp_path / "m.png")
    draw(L, tmp_path / "d.png")
    assert (tmp_path / "m.png").stat().st_size > 0


def test_sweep_jobs_are_capped_by_the_work():
    from linlayout.check.family import transpose_16x32_family
    from linlayout.check.sweep import sweep

    r = sweep(transpose_16x32_family(1), jobs=100000, library_check=0)
    assert r.ok and r.jobs <= 16


def test_max_side_is_bounded():
    pytest.importorskip("matplotlib")
    from linlayout.io.draw import draw

    with pytest.raises(SizeError, match="at most 128"):
        draw(unswizzled([16, 16]).to_dict(), max_side=1 << 20)


def test_synthesis_arguments_are_checked_at_its_entry():
    """optimal_swizzle's own arguments: instruction lists, objective spelling, tile size, one-lane models."""
    from linlayout import LinearLayout, SharedMemory, optimal_swizzle, unswizzled, wavefronts
    from linlayout.errors import InputError, SizeError, SwizzleError

    W = LinearLayout({"register": [[0, 1], [0, 2]], "lane": [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]]},
                     {"dim0": 4, "dim1": 32})
    with pytest.raises(InputError, match="instructions"):
        optimal_swizzle(W, W, 16, instructions=5)
    assert optimal_swizzle(W, W, 16, objective=" sum ").objective == "sum"
    with pytest.raises(SwizzleError, match="objective"):
        optimal_swizzle(W, W, 16, objective="fastest")
    big = LinearLayout({"register": [[1 << i] for i in range(13)], "lane": [[1 << i] for i in range(13, 18)]},
                       {"dim0": 1 << 18})
    with pytest.raises(SizeError, match="shared memory"):
        optimal_swizzle(big, big, 32)
    one = SharedMemory("one-lane", lanes=1, matrix_rows=0)
    L = LinearLayout({"register": [[1], [2]]}, {"dim0": 4})
    res = optimal_swizzle(L, L, 32, hardware=one)
    assert res.write_wavefronts == wavefronts(L, res.memory, 32, "store", hardware=one).wavefronts
    assert unswizzled([4]).out_sizes == {"dim0": 4}
