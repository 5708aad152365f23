"""linlayout: GPU tensor layouts as linear algebra over F2.

Layouts are binary matrices (:class:`LinearLayout`), composition is matrix
multiplication and inversion is Gaussian elimination (:mod:`linlayout.f2`).

>>> import linlayout
>>> L = linlayout.LinearLayout.identity(4, "lane", "dim0")
>>> L.invert().bases
{'dim0': [(1,), (2,)]}
"""

from . import f2
from .errors import (
    BasisError,
    DimensionError,
    DivisionError,
    LayoutJSONError,
    LinLayoutError,
    NoSolutionError,
    NotInvertibleError,
    SizeError,
)
from .layout import LinearLayout

__version__ = "0.1.0"

__all__ = [
    "LinearLayout",
    "f2",
    "LinLayoutError",
    "SizeError",
    "DimensionError",
    "BasisError",
    "NotInvertibleError",
    "NoSolutionError",
    "DivisionError",
    "LayoutJSONError",
    "__version__",
]
