"""Counting wavefronts: the query values (:mod:`.query`), the access plan (:mod:`.plan`), the closed form (:mod:`.closed_form`), the address simulator (:mod:`.simulate`), counting by simulation (:mod:`.by_simulation`) and the batched counter (:mod:`.batched`).

Every counter evaluates the plan; the simulator is the independent oracle.
"""

from . import batched, by_simulation, closed_form, plan, query, simulate
from .batched import *
from .by_simulation import *
from .closed_form import *
from .plan import *
from .query import *
from .simulate import *

__all__ = [*query.__all__, *plan.__all__, *closed_form.__all__, *by_simulation.__all__, *simulate.__all__, *batched.__all__]
"""The layer's public names: each gathered module's ``__all__``."""
