"""Hardware models: bank models (:mod:`.model`), the instruction registry (:mod:`.instructions`), presets (:mod:`.sm90`).

This layer sits above the F2 kernel and layouts and below counting: every
number the hardware fixes (banks, lanes, pass sizes, matrix geometry) is
read from a :class:`SharedMemory`, and every instruction is an
:class:`Instruction` from the registry.
"""

from .instructions import (
    INSTRUCTIONS,
    Instruction,
    check_access_bytes,
    check_matrix_access,
    parse_instruction,
    register_instruction,
)
from .model import PRESETS, SharedMemory, get_hardware, register_hardware
from .sm90 import sm90

__all__ = [
    "SharedMemory",
    "PRESETS",
    "get_hardware",
    "register_hardware",
    "Instruction",
    "INSTRUCTIONS",
    "parse_instruction",
    "register_instruction",
    "check_access_bytes",
    "check_matrix_access",
    "sm90",
]
