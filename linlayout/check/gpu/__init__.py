"""The GPU verification kit: measure shared-memory wavefronts with Nsight Compute and compare them with linlayout's counters.

One concept per module, lowest first:

* :mod:`.codegen`: the probe instructions (:class:`~.codegen.ProbeInstruction`)
  and the CUDA probe program (one kernel per distinct instruction, inline PTX);
* :mod:`.ncu`: Nsight Compute's metrics, its CSV output and the measurements
  read from it;
* :mod:`.tools`: finding ``nvcc``, ``ncu`` and the GPU (``nvidia-smi``);
* :mod:`.counts`: a layout-level query planned once and counted by the
  library's counters (closed form, simulator, lane offsets);
* :mod:`.verify`: queries (already parsed) planned into probe instructions
  with predictions, the compile-and-profile run, and its result;
* :mod:`.batch`: the ``verify-gpu`` command on a batch of parsed queries
  (swizzle queries expanded into their two sides, ids checked, planned,
  measured, compared).

Reading query files and decoding JSON queries is the I/O layer's job
(:mod:`linlayout.io.gpu_queries`); nothing here reads files or JSON.
"""

from . import codegen, ncu, tools
from .codegen import *
from .ncu import *
from .tools import *

__all__ = [*codegen.__all__, *ncu.__all__, *tools.__all__]
"""The kit's public names: each gathered module's ``__all__``.

:mod:`.verify` is gathered by ``linlayout`` itself: its function ``verify`` would take the
module's name here.
"""
