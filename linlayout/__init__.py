"""linlayout: GPU tensor layouts as linear algebra over F2.

Layouts are binary matrices (:class:`LinearLayout`), composition is matrix
multiplication and inversion is Gaussian elimination (:mod:`linlayout.core.f2`).
Every public name of the library is importable from here; the layers behind
them are described in ``docs/architecture.md``.

>>> import linlayout
>>> L = linlayout.LinearLayout.identity(4, "lane", "dim0")
>>> L.invert().bases
{'dim0': [(1,), (2,)]}
"""

from .catalog.constructors import MMA_INSTRUCTIONS, blocked, cute_tv_layout, fit_to_shape, ldmatrix, mfma, mma, sliced, stmatrix, wgmma
from .catalog.swizzles import cute_layout, cute_swizzle, mma_swizzle, nvmma_layout, swizzle_mode_bytes, tma_swizzle
from .core import f2
from .core.layout import LinearLayout
from .core.quotient import is_trivial_over, quotient
from .core.memory import PaddedLayout, padded, unswizzled
from .count.by_simulation import lane_byte_offsets, simulate_plan, simulate_wavefronts
from .count.closed_form import ConflictDirection, WavefrontReport, access_wavefronts, count_plan, fit_affine, wavefronts
from .count.plan import AccessPlan, AccessShape, access_shape, plan_access
from .count.simulate import AccessResult, simulate_access, simulate_batch
from .errors import (
    AccessError,
    BasisError,
    DimensionError,
    DivisionError,
    DrawError,
    EnvironmentFailure,
    GPUToolError,
    HardwareError,
    InputError,
    InputTypeError,
    InstructionError,
    LayoutJSONError,
    LinLayoutError,
    LoweringError,
    MissingDependencyError,
    NoSolutionError,
    NotInvertibleError,
    NotLinearError,
    SizeError,
    SweepError,
    SwizzleError,
)
from .hw import INSTRUCTIONS, Instruction, SharedMemory, get_hardware, parse_instruction, register_hardware, register_instruction, sm90
from .io.emit import CuteForm, TritonForm, offset_terms, to_c, to_cute, to_triton
from .io.jsonio import (
    conflicts_query_from_json,
    decode,
    layout_from_json,
    layout_to_json,
    load_file,
    memory_from_json,
    swizzle_query_from_json,
)
from .catalog.triton_encodings import (
    triton_amd_mfma,
    triton_blocked,
    triton_dot_operand,
    triton_linear,
    triton_nvidia_mma,
    triton_nvmma_shared,
    triton_shared_linear,
    triton_slice,
    triton_swizzled_shared,
)
from .errors import ExecutionError, TTGIRError, UnsupportedConversion
from .io.ttgir.encodings import layout_from_encoding, layout_from_ttgir, to_ttgir_linear, to_ttgir_shared
from .io.ttgir.lint import ConvertPlanner, LintReport, LoweredConversion, lint_json, lint_text, render_lint, shared_round_trip
from .io.ttgir.module import parse_module
from .synth.compare import SwizzleScore, compare_swizzles, standard_candidates
from .synth.standard import StandardScore, StandardSwizzle, score_standards, standard_swizzles
from .synth.synthesis import OBJECTIVES, SwizzleResult, optimal_swizzle

__version__ = "0.1.0"

# name -> module that defines it, imported by __getattr__ on first use.
_LAZY = {
    **dict.fromkeys(("Family", "Access", "Toggle", "transpose_16x32_family"), ".check.family"),
    "SweepResult": ".check.sweep_result",
    "evaluate_family": ".check.sweep",
    "evaluate": ".check.sweep",  # deprecated name of evaluate_family: importing it warns
    "batch_rank": ".count.batched",
    "family_from_json": ".io.families",
    **dict.fromkeys(("draw_layout", "draw_distributed", "draw_memory", "draw_access", "draw_access_offsets", "draw_swizzle"), ".io.draw"),
    **dict.fromkeys(("verify", "VerifyResult", "plan_probes"), ".check.gpu.verify"),
    "find_tools": ".check.gpu.tools",
    **dict.fromkeys(("verify_files", "load_queries", "plan_query"), ".io.gpu_queries"),
    **dict.fromkeys(("generate_cuda", "ptx_statement"), ".check.gpu.codegen"),
    "parse_ncu_csv": ".check.gpu.ncu",
    **dict.fromkeys(("plan_conversion", "ConversionPlan", "Alternative"), ".convert.plan"),
    **dict.fromkeys(("plan_gather", "GatherPlan", "execute_gather"), ".convert.gather"),
    **dict.fromkeys(("max_vector", "VectorAccess"), ".convert.vector"),
    **dict.fromkeys(("COST_WEIGHTS", "cost_of"), ".convert.cost"),
    **dict.fromkeys(("convert_query_from_json", "to_cuda"), ".io.convert_io"),
}

__all__ = [
    "LinearLayout",
    "f2",
    # counting
    "wavefronts",
    "simulate_wavefronts",
    "access_wavefronts",
    "lane_byte_offsets",
    "fit_affine",
    "WavefrontReport",
    "ConflictDirection",
    "AccessPlan",
    "AccessShape",
    "access_shape",
    "plan_access",
    "count_plan",
    "simulate_plan",
    "simulate_access",
    "simulate_batch",
    "AccessResult",
    # hardware
    "SharedMemory",
    "sm90",
    "get_hardware",
    "register_hardware",
    "Instruction",
    "INSTRUCTIONS",
    "parse_instruction",
    "register_instruction",
    # memory layouts and the catalogue
    "unswizzled",
    "padded",
    "PaddedLayout",
    "mma_swizzle",
    "cute_layout",
    "cute_swizzle",
    "tma_swizzle",
    "nvmma_layout",
    "blocked",
    "sliced",
    "mma",
    "wgmma",
    "ldmatrix",
    "stmatrix",
    "mfma",
    "cute_tv_layout",
    "fit_to_shape",
    "MMA_INSTRUCTIONS",
    # synthesis
    "optimal_swizzle",
    "SwizzleResult",
    "OBJECTIVES",
    "compare_swizzles",
    "SwizzleScore",
    "standard_candidates",
    # I/O
    "decode",
    "load_file",
    "layout_from_json",
    "layout_to_json",
    "memory_from_json",
    "conflicts_query_from_json",
    "swizzle_query_from_json",
    "to_c",
    "to_cute",
    "to_triton",
    "offset_terms",
    "CuteForm",
    "TritonForm",
    # errors
    "LinLayoutError",
    "InputError",
    "InputTypeError",
    "EnvironmentFailure",
    "SizeError",
    "DimensionError",
    "BasisError",
    "NotInvertibleError",
    "NoSolutionError",
    "DivisionError",
    "LayoutJSONError",
    "AccessError",
    "LoweringError",
    "NotLinearError",
    "InstructionError",
    "HardwareError",
    "SweepError",
    "SwizzleError",
    "GPUToolError",
    "MissingDependencyError",
    "DrawError",
    # standard swizzles the ecosystem can express
    "swizzle_mode_bytes",
    "StandardSwizzle",
    "StandardScore",
    "standard_swizzles",
    "score_standards",
    # Triton TTGIR (encodings, reader, printer, lint)
    "triton_blocked",
    "triton_slice",
    "triton_linear",
    "triton_nvidia_mma",
    "triton_dot_operand",
    "triton_amd_mfma",
    "triton_swizzled_shared",
    "triton_nvmma_shared",
    "triton_shared_linear",
    "layout_from_encoding",
    "layout_from_ttgir",
    "to_ttgir_linear",
    "to_ttgir_shared",
    "parse_module",
    "lint_text",
    "render_lint",
    "LintReport",
    "LoweredConversion",
    "lint_json",
    "ConvertPlanner",
    "shared_round_trip",
    "TTGIRError",
    # layout conversion (the planner's names are imported on first use; see _LAZY)
    "is_trivial_over",
    "quotient",
    "UnsupportedConversion",
    "ExecutionError",
    # sweeps, pictures and the GPU kit (imported on first use; see _LAZY)
    *_LAZY,
    "__version__",
]


def __getattr__(name: str):
    """Import the sweep, picture and GPU-kit names on first use.

    They pull in multiprocessing, matplotlib and subprocess machinery that
    most callers never need, so ``import linlayout`` stays fast.  The
    functions ``sweep`` and ``draw`` themselves are not exported here: their
    names are the compatibility modules ``linlayout.sweep`` and
    ``linlayout.draw``; import them from :mod:`linlayout.check.sweep` and
    :mod:`linlayout.io.draw`.

    >>> import linlayout
    >>> len(linlayout.transpose_16x32_family().toggles)
    20
    """
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module 'linlayout' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value
