"""The catalogue: standard swizzles (:mod:`.swizzles`) and layout constructors for hardware instructions (:mod:`.constructors`).
"""

from . import constructors, swizzles, triton_encodings
from .constructors import *
from .swizzles import *
from .triton_encodings import *

__all__ = [*constructors.__all__, *swizzles.__all__, *triton_encodings.__all__]
"""The layer's public names: each gathered module's ``__all__``."""
