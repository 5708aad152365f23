"""linlayout: GPU tensor layouts as linear algebra over F2.

Layouts are binary matrices (:class:`LinearLayout`), composition is matrix
multiplication and inversion is Gaussian elimination (:mod:`linlayout.f2`).

>>> import linlayout
>>> L = linlayout.LinearLayout.identity(4, "lane", "dim0")
>>> L.invert().bases
{'dim0': [(1,), (2,)]}
"""

from . import f2
from .conflicts import (
    ConflictDirection,
    WavefrontReport,
    access_wavefronts,
    lane_byte_offsets,
    simulate_wavefronts,
    wavefronts,
)
from .errors import (
    AccessError,
    BasisError,
    DimensionError,
    DivisionError,
    GPUToolError,
    DrawError,
    HardwareError,
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
)
from .hardware import SharedMemory, get_hardware, sm90
from .layout import LinearLayout
from .simulate import AccessResult, simulate_access, simulate_batch
from .swizzles import cute_layout, cute_swizzle, mma_swizzle, nvmma_layout, padded, tma_swizzle, unswizzled
from .synthesis import SwizzleError, SwizzleResult, optimal_swizzle

__version__ = "0.1.0"

__all__ = [
    "LinearLayout",
    "f2",
    "wavefronts",
    "simulate_wavefronts",
    "access_wavefronts",
    "lane_byte_offsets",
    "WavefrontReport",
    "ConflictDirection",
    "simulate_access",
    "simulate_batch",
    "AccessResult",
    "SharedMemory",
    "sm90",
    "get_hardware",
    "unswizzled",
    "mma_swizzle",
    "cute_layout",
    "cute_swizzle",
    "padded",
    "tma_swizzle",
    "nvmma_layout",
    "optimal_swizzle",
    "SwizzleResult",
    "SwizzleError",
    "LinLayoutError",
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
    "GPUToolError",
    "MissingDependencyError",
    "DrawError",
    "__version__",
]
