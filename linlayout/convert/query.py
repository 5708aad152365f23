"""The conversion query: what :func:`~linlayout.convert.plan.plan_conversion` is asked, checked once.

A :class:`ConversionQuery` names a register tensor's source layout ``src``
and destination layout ``dst`` (distributed layouts onto the same tensor),
the element width, the hardware model whose shared memory a round trip
would use, the most scratch memory it may take, the paths allowed and
whether to search two-step plans (``multistep``, on by default:
:func:`~linlayout.convert.plan.plan_conversion`).  Building it checks the input once
(:class:`~linlayout.errors.InputError` and its subclasses); what the two
layouts allow together (which paths exist, an unsupported move across
``block``) is the planner's answer, not an input check.

>>> from linlayout.core.layout import LinearLayout
>>> L = LinearLayout({"lane": [[1], [2], [4], [8], [16]]}, {"dim0": 32})
>>> q = ConversionQuery(L, L, 32)
>>> q.hw.name, q.scratch_bytes, q.paths
('sm90', None, None)
>>> ConversionQuery(L, L, 4)
Traceback (most recent call last):
...
linlayout.errors.InputError: element_bits must be 8, 16, 32 or 64 for a conversion, got 4
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Any

from ..core.layout import LinearLayout
from ..core.record import record
from ..core.validate import check_instance, check_int, check_sequence
from ..count.query import check_element_bits
from ..errors import InputError, InputTypeError
from ..hw import SharedMemory, get_hardware

__all__ = ["ConversionQuery"]

PATHS = ("registers", "shuffles", "shared_memory")
"""The conversion paths in their order of preference at equal cost."""


@record
class ConversionQuery:
    """A conversion of a register tensor from layout ``src`` to layout ``dst`` (see the module docstring).

    ``hardware`` keeps the value given (a preset name or a model); ``hw`` is
    the model it resolves to.  ``paths`` (``None``: all) restricts the
    choice; it is kept as a tuple.
    """

    src: LinearLayout
    dst: LinearLayout
    element_bits: int
    hardware: str | SharedMemory | None = "sm90"
    scratch_bytes: int | None = None
    paths: tuple[str, ...] | None = None
    multistep: bool = True
    hw: SharedMemory = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_instance(self.src, LinearLayout, "src")
        check_instance(self.dst, LinearLayout, "dst")
        check_instance(self.multistep, bool, "multistep")
        eb = check_element_bits(self.element_bits)
        if eb not in (8, 16, 32, 64):
            raise InputError(f"element_bits must be 8, 16, 32 or 64 for a conversion, got {eb}")
        object.__setattr__(self, "hw", get_hardware(self.hardware))
        if self.scratch_bytes is not None:
            check_int(self.scratch_bytes, "scratch_bytes (the most bytes of shared memory a round trip may use, "
                      "or None for the whole tile)", minimum=1)
        if self.paths is not None:
            object.__setattr__(self, "paths", _check_paths(self.paths))


def _check_paths(paths: Any) -> tuple[str, ...]:
    """``paths`` as a tuple of known path names, at least one (a list such as ``["shuffles", "shared_memory"]``)."""
    if isinstance(paths, str):
        raise InputTypeError(f"paths must be a list of path names, got the string {paths!r}: write [{paths!r}]")
    check_sequence(paths, f"paths (a list drawn from {list(PATHS)})")
    for i, p in enumerate(paths):
        if not isinstance(p, str) or p.strip() not in PATHS:
            raise InputError(f"paths[{i}] is {p!r}, which is no conversion path: use names from {list(PATHS)}")
    if not paths:
        raise InputError(f"paths is empty: name at least one of {list(PATHS)}, or leave paths out to allow all")
    return tuple(p.strip() for p in paths)
