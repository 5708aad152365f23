"""The exception family of linlayout: every error class the library raises lives here.

Every error linlayout raises is a :class:`LinLayoutError`.  It has two
branches:

* :class:`InputError`, also a :class:`ValueError`: the input is wrong.  Each
  subclass names one kind of mistake, and each message says what is wrong
  and how to fix it (which dimension, which basis, which size).
* :class:`EnvironmentFailure`: the input is fine but the machine lacks
  something (a tool such as ``nvcc``, an optional package such as
  matplotlib).  These are not ``ValueError`` exceptions.

The CLI prints either kind on one line and exits with status 2.

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
    "InputError",
    "InputTypeError",
    "EnvironmentFailure",
    "SwizzleError",
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
    "TTGIRError",
    "NotLinearError",
    "SweepError",
    "GPUToolError",
    "MissingDependencyError",
    "DrawError",
    "UnsupportedConversion",
    "ExecutionError",
    "ConstructorArgumentError",
]


class LinLayoutError(Exception):
    """Base class of every error linlayout raises."""


class InputError(LinLayoutError, ValueError):
    """Base class of the errors on bad input (also a :class:`ValueError`)."""


class InputTypeError(InputError, TypeError):
    """An argument has the wrong type (a float or bool where an int is needed, a string where a list is); also a :class:`TypeError`.

    What each argument accepts is decided once, in :mod:`linlayout.core.validate`.
    """


class EnvironmentFailure(LinLayoutError):
    """Base class of the failures of the environment: a missing tool or optional dependency (not a ``ValueError``)."""


class SizeError(InputError):
    """A size is not a positive power of two, or sizes do not agree."""


class DimensionError(InputError):
    """A dimension name is unknown, duplicated or does not match another layout."""


class BasisError(InputError):
    """A basis vector has the wrong length, a negative entry or is out of range."""


class NotInvertibleError(InputError):
    """A map that must be invertible (or surjective, or injective) is not."""


class NoSolutionError(InputError):
    """A linear system over F2 has no solution (the target is not in the image)."""


class DivisionError(InputError):
    """A layout is not divisible by another (paper Def. 4.4)."""


class LayoutJSONError(InputError):
    """A JSON document does not describe a layout or a query."""


class HardwareError(InputError):
    """An unknown hardware preset or an inconsistent hardware description."""


class InstructionError(InputError):
    """An unknown instruction name, or an instruction that does not match the op."""


class AccessError(InputError):
    """Lane offsets that do not describe a valid access (misaligned, negative, wrong count)."""


class LoweringError(InputError):
    """A layout cannot be accessed with the requested instruction or vector width (paper Thm. 5.1)."""


class NotLinearError(InputError):
    """A pattern is not linear over F2 (padding, non-power-of-two strides): use the simulator."""


class SweepError(InputError):
    """A family of memory layouts for :mod:`linlayout.check.sweep` is unusable (toggle, size or access problem)."""


class GPUToolError(EnvironmentFailure):
    """:mod:`linlayout.check.gpu` cannot run: nvcc, ncu or a GPU is missing, or a tool failed."""


class MissingDependencyError(EnvironmentFailure):
    """An optional dependency is not installed (matplotlib for pictures: ``pip install 'linlayout[plot]'``;
    galois for :meth:`LinearLayout.to_galois`: ``pip install 'linlayout[galois]'``)."""


class DrawError(InputError):
    """A picture cannot be drawn as asked (output format other than PNG or SVG, option that does not apply)."""


class SwizzleError(InputError):
    """The write and read layouts cannot share a memory layout as asked."""


class TTGIRError(InputError):
    """TTGIR text that cannot be read (syntax), or an encoding or op the reader does not know."""


class UnsupportedConversion(InputError):
    """A layout conversion needs data movement the planner does not do (across the ``block`` dimension)."""


class ExecutionError(InputError):
    """A conversion program left a destination slot holding the wrong element (a planner bug if it happens)."""


class ConstructorArgumentError(InputError):
    """A layout built by name (``linlayout show blocked|mma|...``) lacks a parameter it needs or got one it does not take."""
