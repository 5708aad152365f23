"""Input and output: JSON (:mod:`.jsonio`), text (:mod:`.render`), code emission (:mod:`.emit`), Triton's TTGIR (:mod:`.ttgir`) and pictures (:mod:`.draw`).
"""

from . import jsonio
from .jsonio import *

__all__ = [*jsonio.__all__]
"""The public names of the light module.  ``linlayout`` loads the others on first use: code emission
(:mod:`.emit`) and the TTGIR reader (:mod:`.ttgir`, with the compiler IR model of ``lower/ir.py``), which
counting and synthesis do not need, :mod:`.draw` (matplotlib), :mod:`.families`, :mod:`.gpu_queries`,
:mod:`.convert_io` and :mod:`.ttgir.lint` (they import ``check/`` or ``convert/``)."""
