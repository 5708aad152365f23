"""The core: the F2 kernel (:mod:`.f2`), dimensions and flat encodings (:mod:`.dims`), the input forms of a layout (:mod:`.bases`), :class:`LinearLayout` (:mod:`.layout`) and the plain functions its methods delegate to (:mod:`.product`: composition, product, division; :mod:`.invert`; :mod:`.reshape`; :mod:`.evaluate`: evaluation at one input), text views (:mod:`.text`) and memory layouts with padding (:mod:`.memory`).

The lowest layer: it imports nothing else of linlayout but :mod:`linlayout.errors`.
"""

from . import f2, layout, memory
from .layout import *
from .memory import *

__all__ = ["f2", *layout.__all__, *memory.__all__]
"""The layer's public names: the F2 kernel as a module, and each gathered module's ``__all__``.

:mod:`.quotient` is gathered by ``linlayout`` itself: its function ``quotient`` would take the
module's name here.
"""
