"""Checks at scale: exhaustive sweeps over families of memory layouts (:mod:`.sweep`) and the GPU verification kit (:mod:`.gpu`).
"""

from . import family, gpu, sweep, sweep_result
from .family import *
from .gpu import *
from .sweep import *
from .sweep_result import *

__all__ = [*family.__all__, *sweep_result.__all__, *sweep.__all__, *gpu.__all__]
"""The layer's public names: each gathered module's ``__all__`` (the GPU kit's through :mod:`.gpu`)."""
