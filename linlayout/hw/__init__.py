"""Hardware models: bank models (:mod:`.model`), the instruction registry (:mod:`.instructions`), presets (:mod:`.sm90`).

This layer sits above the F2 kernel and layouts and below counting: every
number the hardware fixes (banks, lanes, pass sizes, matrix geometry) is
read from a :class:`SharedMemory`, and every instruction is an
:class:`Instruction` from the registry.
"""

from . import instructions, model
from . import sm90 as _preset
from .instructions import *
from .instructions import check_access_bytes, check_matrix_access  # the counters' checks, reached as hw.X
from .model import *
from .model import PRESETS
from .sm90 import *

__all__ = [*model.__all__, *instructions.__all__, *_preset.__all__]
"""The layer's public names: each gathered module's ``__all__``."""
