"""Compatibility path: the GPU verification kit lives in :mod:`linlayout.check.gpu` and :mod:`linlayout.io.gpu_queries`.

The code moved in the layered package (see ``docs/architecture.md``): code
generation, Nsight Compute's CSV, tool discovery and the run are in
:mod:`linlayout.check.gpu` (:mod:`~linlayout.check.gpu.codegen`,
:mod:`~linlayout.check.gpu.ncu`, :mod:`~linlayout.check.gpu.tools`,
:mod:`~linlayout.check.gpu.counts`, :mod:`~linlayout.check.gpu.verify`);
reading and decoding query files (``plan_query``, ``swizzle_sides``,
``load_queries``, ``verify_files``) is in :mod:`linlayout.io.gpu_queries`.
This module re-exports the public names of those homes for this release.
New code should import from ``linlayout`` or the modules named above.
"""

from __future__ import annotations

from .check.gpu import codegen as _m0
from .compat import reexport
from .check.gpu import counts as _m1
from .check.gpu import ncu as _m2
from .check.gpu import tools as _m3
from .check.gpu import verify as _m4
from .errors import GPUToolError
from .io import gpu_queries as _m5

__all__ = reexport(globals(), _m0, _m1, _m2, _m3, _m4, _m5, extra=(GPUToolError,))
