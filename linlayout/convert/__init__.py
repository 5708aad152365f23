"""Layout conversion planning: registers, warp shuffles, shared memory, gather (paper §5.3-5.5)."""

from . import cost, gather, plan, query, vector
from .cost import *
from .gather import *
from .plan import *
from .query import *
from .vector import *

__all__ = [*query.__all__, *cost.__all__, *plan.__all__, *gather.__all__, *vector.__all__]
"""The layer's public names: each gathered module's ``__all__``."""
