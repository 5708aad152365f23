"""The public surface of ``linlayout``: which names, where they come from, and what ``import linlayout`` loads.

``linlayout.__all__`` is gathered from the ``__all__`` of each layer, which gathers its modules'
lists (``linlayout/__init__.py`` explains the mechanism).  :data:`PUBLIC_NAMES` freezes the names
as they were when the lists were still written by hand, so a name lost on the way is caught; a
name added on purpose is added here too.
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import linlayout

ROOT = Path(__file__).resolve().parents[1]

PUBLIC_NAMES = frozenset("""
__version__ Access access_shape access_wavefronts AccessError AccessPlan AccessResult AccessShape
Alternative BasisError batch_rank ConstructorArgumentError blocked compare_swizzles ConflictDirection conflicts_query_from_json
ConversionPlan ConversionQuery convert_query_from_json ConvertPlanner AccessQuery AddressQuery SwizzleQuery cost_of COST_WEIGHTS count_plan
cute_layout cute_swizzle cute_tv_layout CuteForm decode DimensionError DivisionError draw_access
draw_access_offsets draw_distributed draw_layout draw_memory draw_swizzle DrawError EnvironmentFailure
evaluate_family execute_gather ExecutionError f2 Family family_from_json find_tools fit_affine fit_to_shape
GatherPlan generate_cuda get_hardware GPUToolError HardwareError InputError InputTypeError Instruction
InstructionError INSTRUCTIONS is_offset_memory_layout is_trivial_over lane_byte_offsets layout_from_encoding layout_from_json
layout_from_ttgir layout_to_json LayoutJSONError ldmatrix LinearLayout LinLayoutError lint_json lint_module lint_text LintReport
LoweredConversion get_lowering
load_file load_queries LoweringError max_vector memory_from_json mfma MissingDependencyError mma
MMA_INSTRUCTIONS mma_swizzle NoSolutionError NotInvertibleError NotLinearError nvmma_layout OBJECTIVES
offset_terms optimal_swizzle padded PaddedLayout parse_instruction parse_module parse_ncu_csv plan_access
plan_conversion plan_gather plan_probes plan_query ptx_statement quotient register_hardware
register_instruction render_lint score_standards shared_round_trip SharedMemory simulate_access
simulate_batch simulate_plan simulate_wavefronts SizeError sliced sm90 standard_candidates standard_swizzles
StandardScore StandardSwizzle stmatrix SweepError SweepResult swizzle_mode_bytes swizzle_query_from_json
SwizzleError SwizzleResult SwizzleScore tma_swizzle to_c to_cuda to_cute to_triton to_ttgir_linear
to_ttgir_shared Toggle transpose_16x32_family triton_amd_mfma triton_blocked triton_dot_operand
triton_linear triton_nvidia_mma triton_nvmma_shared triton_shared_linear triton_slice triton_swizzled_shared
TritonForm TTGIRError UnsupportedConversion unswizzled VectorAccess verify verify_files VerifyResult
WavefrontReport wavefronts wgmma
""".split())
"""Every name of ``linlayout.__all__``."""

NOT_LOADED_BY_IMPORT = ("linlayout.convert", "linlayout.check", "linlayout.io.draw", "linlayout.io.ttgir.lint",
                        "numpy", "networkx", "matplotlib", "galois")


def run_python(code: str, **env: str) -> str:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, **env})
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_all_holds_exactly_the_public_names():
    assert len(linlayout.__all__) == len(set(linlayout.__all__)), "a name is listed twice"
    assert set(linlayout.__all__) - PUBLIC_NAMES == set(), "new public names: add them to PUBLIC_NAMES"
    assert PUBLIC_NAMES - set(linlayout.__all__) == set(), "public names lost"


def test_dir_lists_every_public_name():
    assert PUBLIC_NAMES <= set(dir(linlayout))


def test_all_is_gathered_from_the_layers_lists():
    """No name is listed by hand: ``__all__`` is the layers' lists and the lazy homes' lists, in order."""
    from linlayout.core import quotient

    layers = [linlayout.errors, linlayout.core, quotient, linlayout.hw, linlayout.count, linlayout.catalog,
              linlayout.synth, linlayout.io]
    lazy = [importlib.import_module(home) for home in linlayout.LAZY_HOMES]
    expected = [n for module in layers + lazy for n in module.__all__] + ["__version__"]
    assert linlayout.__all__ == list(dict.fromkeys(expected))
    for module in layers + lazy:
        for name in module.__all__:
            value, home_value = getattr(linlayout, name), getattr(module, name)
            if isinstance(home_value, ModuleType):  # importing the deprecated linlayout.f2 rebinds that name
                assert value is home_value or value.__name__ == f"linlayout.{name}", name
            else:
                assert value is home_value, name


def package_modules() -> list[str]:
    out = []
    for path in sorted((ROOT / "linlayout").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append(".".join(parts))
    return out


@pytest.mark.parametrize("name", [m for m in package_modules() if m not in ("linlayout", "linlayout.__main__")])
def test_every_module_lists_its_public_names(name):
    """Each module defines ``__all__`` and every name in it resolves.

    ``linlayout`` computes its own on first use (tested above); ``__main__`` is a script.
    """
    path = ROOT / Path(*name.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    source = path.read_text(encoding="utf-8")
    targets = [t for node in ast.parse(source).body if isinstance(node, (ast.Assign, ast.AnnAssign))
               for t in (node.targets if isinstance(node, ast.Assign) else [node.target])]
    assert any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets), f"{name} defines no __all__"
    if "from .compat import reexport" in source:
        return  # a deprecated path: tests/test_compat.py imports those
    module = importlib.import_module(name)
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"


def test_import_loads_no_heavy_layer_or_dependency():
    code = ("import sys, linlayout\n"
            f"print([m for m in {NOT_LOADED_BY_IMPORT!r} if m in sys.modules])")
    assert run_python(code) == "[]"


def test_a_lazy_name_loads_its_home_on_first_use():
    code = ("import sys, linlayout\n"
            "assert 'linlayout.convert' not in sys.modules\n"
            "f = linlayout.plan_conversion\n"
            "from linlayout.convert.plan import plan_conversion\n"
            "print(f is plan_conversion, 'linlayout.convert' in sys.modules, 'matplotlib' in sys.modules)")
    assert run_python(code) == "True True False"


def test_unknown_and_private_names_raise_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        linlayout.no_such_name  # noqa: B018
    with pytest.raises(AttributeError):
        linlayout._no_such_private  # noqa: B018


def test_import_is_fast(tmp_path):
    """``import linlayout`` costs under 100 ms of CPU (best of three fresh interpreters, bytecode cached)."""
    code = ("import time\nt = time.process_time()\nimport linlayout\n"
            "print(time.process_time() - t)")
    env = {"PYTHONPYCACHEPREFIX": str(tmp_path), "PYTHONDONTWRITEBYTECODE": ""}
    run_python("import linlayout", **env)  # writes the bytecode
    best = min(float(run_python(code, **env)) for _ in range(3))
    assert best < 0.100, f"import linlayout took {best * 1000:.0f} ms of CPU"
