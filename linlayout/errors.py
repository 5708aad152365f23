"""The exception family of linlayout.

Every error linlayout raises on bad input is a :class:`LinLayoutError`, which
is a subclass of :class:`ValueError`; callers can catch either.  Each subclass
names one kind of mistake, and each message says what is wrong and how to fix
it (which dimension, which basis, which size).

>>> from linlayout import LinearLayout, LinLayoutError
>>> try:
...     LinearLayout({"lane": [[3]]}, {"dim0": 6})
... except LinLayoutError as e:
...     print(type(e).__name__, isinstance(e, ValueError))
SizeError True
"""

from __future__ import annotations

__all__ = [
    "LinLayoutError",
    "SizeError",
    "DimensionError",
    "BasisError",
    "NotInvertibleError",
    "NoSolutionError",
    "DivisionError",
    "LayoutJSONError",
    "HardwareError",
    "InstructionError",
    "AccessError",
    "LoweringError",
    "NotLinearError",
    "SweepError",
    "GPUToolError",
    "MissingDependencyError",
    "DrawError",
]


class LinLayoutError(ValueError):
    """Base class of every error linlayout raises on bad input."""


class SizeError(LinLayoutError):
    """A size is not a positive power of two, or sizes do not agree."""


class DimensionError(LinLayoutError):
    """A dimension name is unknown, duplicated or does not match another layout."""


class BasisError(LinLayoutError):
    """A basis vector has the wrong length, a negative entry or is out of range."""


class NotInvertibleError(LinLayoutError):
    """A map that must be invertible (or surjective, or injective) is not."""


class NoSolutionError(LinLayoutError):
    """A linear system over F2 has no solution (the target is not in the image)."""


class DivisionError(LinLayoutError):
    """A layout is not divisible by another (paper Def. 4.4)."""


class LayoutJSONError(LinLayoutError):
    """A JSON document does not describe a layout or a query."""


class HardwareError(LinLayoutError):
    """An unknown hardware preset or an inconsistent hardware description."""


class InstructionError(LinLayoutError):
    """An unknown instruction name, or an instruction that does not match the op."""


class AccessError(LinLayoutError):
    """Lane offsets that do not describe a valid access (misaligned, negative, wrong count)."""


class LoweringError(LinLayoutError):
    """A layout cannot be accessed with the requested instruction or vector width (paper Thm. 5.1)."""


class NotLinearError(LinLayoutError):
    """A pattern is not linear over F2 (padding, non-power-of-two strides): use the simulator."""


class SweepError(LinLayoutError):
    """A family of memory layouts for :mod:`linlayout.sweep` is unusable (toggle, size or access problem)."""


class GPUToolError(LinLayoutError):
    """:mod:`linlayout.verify_gpu` cannot run: nvcc, ncu or a GPU is missing, or a tool failed."""
class MissingDependencyError(LinLayoutError):
    """An optional dependency is not installed (matplotlib for pictures: ``pip install 'linlayout[plot]'``)."""


class DrawError(LinLayoutError):
    """A picture cannot be drawn as asked (output format other than PNG or SVG, option that does not apply)."""
