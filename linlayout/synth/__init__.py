"""Synthesis and comparison: the optimal swizzle (:mod:`.synthesis`) and standard candidates beside it (:mod:`.compare`).
"""

from . import compare, standard, synthesis
from .compare import *
from .standard import *
from .synthesis import *

__all__ = [*synthesis.__all__, *compare.__all__, *standard.__all__]
"""The layer's public names: each gathered module's ``__all__``."""
