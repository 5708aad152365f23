"""Emitted code (issue 26): the exact CuTe form of every memory layout, C identifiers, nvcc -Wall, grids."""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from linlayout.catalog.swizzles import mma_swizzle, nvmma_layout
from linlayout.convert.plan import plan_conversion
from linlayout.core import f2
from linlayout.core.layout import LinearLayout
from linlayout.errors import InputError, InputTypeError, LayoutJSONError
from linlayout.io.convert_io import convert_query_from_json, to_cuda
from linlayout.io.emit import check_c_identifier, cute_chain, to_c, to_cute
from linlayout.io.render import GRID_CELLS, grid_choice

EX = Path(__file__).resolve().parents[2] / "examples"


def _random_memory(rng: random.Random, a: int, b: int) -> LinearLayout:
    n = a + b
    while True:
        cols = [rng.getrandbits(n) for _ in range(n)]
        if f2.rank(cols) == n:
            return LinearLayout({"offset": [[c & ((1 << a) - 1), c >> a] for c in cols]}, {"dim0": 1 << a, "dim1": 1 << b})


def _agrees(memory: LinearLayout) -> bool:
    chain, inv = cute_chain(memory), memory.invert()
    dims = list(memory.out_sizes)
    return all(chain.offset(c) == inv.apply(dict(zip(dims, c)))["offset"]
               for c in itertools.product(*(range(s) for s in memory.out_sizes.values())))


def test_the_general_cute_form_is_exact_on_every_offset():
    rng = random.Random(26)
    for _ in range(40):
        assert _agrees(_random_memory(rng, rng.randint(0, 4), rng.randint(1, 4)))
    assert _agrees(LinearLayout({"offset": [[1], [2], [4]]}, {"dim0": 8}))


def test_one_swizzle_keeps_the_short_form_and_the_general_form_is_always_there():
    form = to_cute(mma_swizzle(16, 32, 2, 1, 16))
    assert form.text == form.general == form.exact == "composition(Swizzle<4,1,4>{}, Layout<Shape<_16,_32>, Stride<_32,_1>>{})"
    assert cute_chain(nvmma_layout([64, 64], 16, 128)).text() == \
        "composition(Swizzle<3,3,3>{}, Layout<Shape<_64,_64>, Stride<_64,_1>>{})"
    odd = _random_memory(random.Random(3), 3, 4)
    form = to_cute(odd)
    assert form.text is None and "not a single CuTe Swizzle" in form.reason and form.exact == form.general
    assert form.general.startswith("composition(Swizzle<")


@pytest.mark.parametrize("name", ["1 bad name", "", "a-b", "int", "__x", "return"])
def test_emitted_function_names_must_be_c_identifiers(name):
    with pytest.raises(InputError):
        check_c_identifier(name)
    with pytest.raises(InputError):
        to_c(mma_swizzle(4, 4, 1, 1, 4), name)
    src = LinearLayout({"register": [[0, 1]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
    dst = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
    with pytest.raises(InputError, match="not a C identifier|reserved"):
        to_cuda(plan_conversion(src, dst, 32), src, dst, name)


def test_a_name_that_is_not_a_string_is_a_type_error():
    with pytest.raises(InputTypeError):
        check_c_identifier(3)


def test_convert_queries_take_paths():
    doc = json.loads((EX / "convert_transpose_32x2.json").read_text())
    assert convert_query_from_json(dict(doc, paths=["shared_memory"])).paths == ("shared_memory",)
    assert plan_conversion(convert_query_from_json(dict(doc, paths=["shared_memory"]))).path == "shared_memory"
    with pytest.raises(LayoutJSONError, match="list of path names"):
        convert_query_from_json(dict(doc, paths="shuffles"))
    with pytest.raises(InputError, match=r"paths\[0\] is 'teleport'"):
        convert_query_from_json(dict(doc, paths=["teleport"]))


def test_grids_are_printed_up_to_the_default_size_unless_asked():
    assert grid_choice({"dim0": 32, "dim1": 32}, None) is None and 32 * 32 == GRID_CELLS
    assert "--grid prints it" in grid_choice({"dim0": 64, "dim1": 64}, None)
    assert grid_choice({"dim0": 64, "dim1": 64}, "grid") is None
    assert grid_choice({"dim0": 4}, "no-grid") == ""
    assert "3 dimensions" in grid_choice({"a": 2, "b": 2, "c": 2}, None)


NVCC = shutil.which("nvcc")


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_emitted_cuda_compiles_without_warnings_under_nvcc_wall(tmp_path):
    """convert --emit cuda (shuffles, a round trip with stmatrix and vectors) and to_c, called from kernels."""
    parts, kernels = [], []
    for k, name in enumerate(["convert_mma_to_blocked.json", "convert_transpose_32x2.json"]):
        q = convert_query_from_json((EX / name).read_text())
        for paths in (None, ["shared_memory"]):
            plan = plan_conversion(q.src, q.dst, q.element_bits, paths=paths)
            fn = f"conv{k}_{len(paths or ())}"
            code = to_cuda(plan, q.src, q.dst, fn)
            header = next(line for line in code.splitlines() if f" {fn}(" in line)
            ns, nd = (int(header.split(f"(&{s})[")[1].split("]")[0]) for s in ("src", "dst"))
            t = header.split("(const ")[1].split(" (&src)")[0]
            smem = ", (%s*)buf" % t if "smem)" in header else ""
            decl = "extern __shared__ __align__(16) unsigned char buf[]; " if smem else ""
            parts.append(code)
            kernels.append(f"__global__ void k_{fn}({t}* o) {{ {decl}{t} s[{ns}]; for (int i = 0; i < {ns}; ++i) "
                           f"s[i] = o[i]; {t} d[{nd}]; {fn}(s, d{smem}); for (int i = 0; i < {nd}; ++i) o[i] = d[i]; }}")
    parts.append(to_c(nvmma_layout([64, 64], 16, 128), "swizzled_offset"))
    kernels.append("__global__ void k_off(unsigned* o) { o[threadIdx.x] = swizzled_offset(threadIdx.x, 3u); }")
    (tmp_path / "emitted.cu").write_text("".join(parts) + "\n".join(kernels) + "\n")
    r = subprocess.run([NVCC, "-arch=sm_90", "-c", "-o", str(tmp_path / "emitted.o"), str(tmp_path / "emitted.cu"),
                        "-Xcompiler", "-Wall,-Wextra", "--Werror", "all-warnings"], capture_output=True, text=True)
    assert r.returncode == 0 and "warning" not in r.stderr.lower(), r.stderr


CUTE_INCLUDE = os.environ.get("LINLAYOUT_CUTE_INCLUDE")  # a folder holding cute/tensor.hpp (CUTLASS's include/)


@pytest.mark.skipif(NVCC is None or not CUTE_INCLUDE, reason="opt-in (about a minute): set LINLAYOUT_CUTE_INCLUDE to "
                    "CUTLASS's include folder (pip download nvidia-cutlass; cutlass_library/source/include) and have nvcc")
def test_the_general_cute_form_compiles_with_cute_and_agrees_on_every_element(tmp_path):
    rng = random.Random(1)
    memories = [mma_swizzle(16, 32, 2, 1, 16), nvmma_layout([64, 64], 16, 128)]
    memories += [_random_memory(rng, rng.randint(1, 4), rng.randint(1, 5)) for _ in range(6)]
    lines = ["#include <cute/tensor.hpp>", "#include <cstdio>", "using namespace cute;", "int main() { int bad = 0;"]
    for memory in memories:
        inv, (rows, cols) = memory.invert(), memory.out_sizes.values()
        want = [inv.apply({"dim0": i, "dim1": j})["offset"] for i in range(rows) for j in range(cols)]
        lines.append(f"  {{ auto L = {cute_chain(memory).text()}; const int want[] = {{{', '.join(map(str, want))}}};")
        lines.append(f"    for (int i = 0; i < {rows}; ++i) for (int j = 0; j < {cols}; ++j) "
                     f"if (int(L(i, j)) != want[i * {cols} + j]) ++bad; }}")
    lines.append('  std::printf("bad %d\\n", bad); return bad != 0; }')
    (tmp_path / "cute_check.cu").write_text("\n".join(lines) + "\n")
    exe = tmp_path / "cute_check"
    subprocess.run([NVCC, "-std=c++17", "-I", CUTE_INCLUDE, str(tmp_path / "cute_check.cu"), "-o", str(exe)],
                   check=True, capture_output=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "bad 0", r.stdout
