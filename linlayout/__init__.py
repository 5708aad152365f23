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
from .catalog.swizzles import cute_layout, cute_swizzle, mma_swizzle, nvmma_layout, tma_swizzle
from .core import f2
from .core.layout import LinearLayout
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
from .synth.compare import SwizzleScore, compare_swizzles, standard_candidates
from .synth.synthesis import OBJECTIVES, SwizzleResult, optimal_swizzle

__version__ = "0.1.0"

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
    "__version__",
]
