"""The compiler's lowering model: what Triton emits for the ops of a kernel, counted per warp.

A layer of its own, between ``convert/`` (linlayout's own conversion
planner) and ``check/``: what a compiler does is neither input/output nor the
library's own optimisation, but a model of another program, checked against
its measured kernels.  One module per compiler version, never a branch:

* :mod:`.ir`: the plain values of Triton's IR that the model reads (attributes,
  tensor types, ops, a module); :mod:`linlayout.io.ttgir` reads the text into
  them;
* :mod:`.model`: :class:`~.model.Lowering`, what a version's model provides
  (how it counts local loads and stores, the scope and round trip of a
  conversion, reductions across warps, the ops it cannot count and why);
* :mod:`.triton_3_6`: Triton 3.6 on sm90, measured with Nsight Compute;
* :mod:`.registry`: :data:`~.registry.LOWERINGS` and
  :func:`~.registry.get_lowering` by version;
* :mod:`.records`: the immutable results (per conversion, op, buffer,
  kernel);
* :mod:`.lint`: :func:`~.lint.lint_module`, the analysis behind
  ``linlayout lint``: every op of a module counted under one lowering, the
  buffers' optimal swizzles, the totals over a grid.

A second Triton version is a new module beside :mod:`.triton_3_6` that builds
its :class:`~.model.Lowering` (reusing the functions that did not change)
and one entry in :data:`~.registry.LOWERINGS`.
"""

from .lint import lint_module
from .model import Lowering
from .records import (
    BufferLint,
    BufferOptimum,
    ConversionSuggestion,
    ConvertPlanner,
    KernelTotal,
    LintReport,
    LoopTrip,
    LoweredConversion,
    OpLint,
)
from .registry import DEFAULT_TRITON, LOWERINGS, get_lowering

__all__ = [
    "BufferLint",
    "BufferOptimum",
    "ConversionSuggestion",
    "ConvertPlanner",
    "DEFAULT_TRITON",
    "KernelTotal",
    "LOWERINGS",
    "LintReport",
    "LoopTrip",
    "Lowering",
    "LoweredConversion",
    "OpLint",
    "get_lowering",
    "lint_module",
]
