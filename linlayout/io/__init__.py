"""Input and output: JSON (:mod:`.jsonio`), text (:mod:`.render`), code emission (:mod:`.emit`) and pictures (:mod:`.draw`).
"""

from . import emit, jsonio, ttgir
from .emit import *
from .jsonio import *
from .ttgir import *

__all__ = [*jsonio.__all__, *emit.__all__, *ttgir.__all__]
"""The public names of the light modules.  ``linlayout`` loads the others on first use: :mod:`.draw`
(matplotlib), :mod:`.families`, :mod:`.gpu_queries`, :mod:`.convert_io` and :mod:`.ttgir.lint` (they
import ``check/`` or ``convert/``)."""
